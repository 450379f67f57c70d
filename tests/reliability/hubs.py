"""Hubs the battery kills: a subprocess on one port across restarts, failpoints, and a kill loop.

``CrashHub`` is ``kxm_grpc.testing.HubProcess`` that keeps the port it first got (so clients'
channels reconnect to the restarted hub by themselves, as they would to a restarted pod), arms
failpoints through ``KXM_FAILPOINTS``, times every restart until the health check says SERVING,
and runs SQLite's ``PRAGMA integrity_check`` on the data directory while the hub is down.
``kill_loop`` kills it (SIGKILL) at random intervals and restarts it at once, for a bounded count
and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kxm_grpc import failpoints
from kxm_grpc.testing import ADMIN_TOKEN, HubProcess
from tests.reliability.battery import Battery

__all__ = ["ADMIN_TOKEN", "CrashHub", "kill_loop"]


@dataclass
class CrashHub:
    """A hub subprocess on ``data_dir`` (or ``database``) that keeps its port across restarts."""

    data_dir: Path
    failpoints: str = ""
    """``KXM_FAILPOINTS`` for every start (``kxm_grpc/failpoints.py``)."""
    seed: int | None = None
    database: str | None = None
    """A PostgreSQL URL (replicas); None: SQLite in ``data_dir``."""
    extra_args: tuple[str, ...] = ()
    durability: str = "full"
    restarts: list[float] = field(default_factory=list)
    """Seconds from each restart's spawn to SERVING."""
    kills: int = 0
    failpoint_kills: int = 0
    """Starts that ended by a failpoint's SIGKILL (the process died without being killed here)."""
    integrity: list[str] = field(default_factory=list)
    """``PRAGMA integrity_check``'s answer after each kill (SQLite only)."""
    port: int = 0
    spawns: int = 0
    """Processes spawned so far (each start attempt is one)."""

    def __post_init__(self) -> None:
        self._process = self._new_process()

    def _new_process(self) -> HubProcess:
        env = {}
        if self.failpoints:
            failpoints.parse(self.failpoints)  # a typo fails the test here, not in the hub's log
            env[failpoints.ENV] = self.failpoints
            if self.seed is not None:
                # A new coin per process: a start attempt a failpoint ended must not be repeated
                # with the same seed, or it dies at the same start-up commit every time.
                env[failpoints.SEED_ENV] = str(self.seed + self.spawns)
        self.spawns += 1
        args = [*self.extra_args, "--port", str(self.port)]
        if self.database:
            args += ["--database", self.database]
        return HubProcess(self.data_dir, durability=self.durability, extra_args=tuple(args), env=env)

    @property
    def address(self) -> str:
        return self._process.address

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def db_path(self) -> Path:
        return self.data_dir / "hub.db"

    @property
    def log_path(self) -> Path:
        return self._process.log_path

    def alive(self) -> bool:
        process = self._process.process
        return process is not None and process.poll() is None

    def start(self, timeout: float = 30.0) -> str:
        """Start (or restart) the hub; wait for SERVING. Returns its address.

        Raises:
            RuntimeError, TimeoutError: as ``HubProcess.start``.
        """
        began = time.monotonic()
        while True:
            self._process = self._new_process()
            try:
                address = self._process.start(timeout=timeout)
                break
            except RuntimeError:
                # An armed failpoint may fire before the health check saw the hub serve (in the
                # start-up's own writes, or in the clients' first calls): a kill like any other.
                process = self._process.process
                if not self.failpoints or process is None or process.returncode != -signal.SIGKILL:
                    raise
                if time.monotonic() - began > timeout:
                    raise RuntimeError(
                        f"the hub kept dying by its failpoints for {timeout} s; see {self.log_path}"
                    ) from None
                self.kill()
        if self.port == 0:
            self.port = int(address.rsplit(":", 1)[1])
        else:
            self.restarts.append(time.monotonic() - began)
        return address

    def kill(self) -> None:
        """SIGKILL the hub (if it is still running) and reap it; check the database while it is down."""
        process = self._process.process
        if process is None:
            return
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            self.kills += 1
        else:
            self.failpoint_kills += process.returncode == -signal.SIGKILL
        with contextlib.suppress(Exception):
            process.wait(timeout=10)
        if self.database is None and self.db_path.exists():
            self.integrity.append(integrity_check(self.db_path))

    def restart(self, timeout: float = 30.0) -> str:
        """kill -9 then start on the same data directory and port."""
        self.kill()
        return self.start(timeout=timeout)

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), as at the end of a run."""
        self._process.stop()

    def pause(self) -> None:
        """SIGSTOP the hub (it keeps its sockets; clients see it hang)."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def record(self, battery: Battery) -> None:
        """Add this hub's kills, restarts and integrity checks to the battery's figures."""
        battery.add("hub_kills", self.kills)
        battery.add("failpoint_kills", self.failpoint_kills)
        if self.restarts:
            ordered = sorted(self.restarts)
            battery.figure("restart_to_ready_p50_s", round(ordered[len(ordered) // 2], 3))
            battery.figure("restart_to_ready_p99_s", round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3))
            battery.figure("restart_to_ready_max_s", round(ordered[-1], 3))
        if self.integrity:
            battery.add("integrity_checks", len(self.integrity))

    def __enter__(self) -> CrashHub:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def integrity_check(path: Path) -> str:
    """``PRAGMA integrity_check`` of a database file (``ok`` when sound); the WAL is applied, as a hub would."""
    conn = sqlite3.connect(path, timeout=10)
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    return "; ".join(str(r[0]) for r in rows)


@contextlib.contextmanager
def copied_db(source: Path, target: Path) -> Iterator[Path]:
    """A consistent copy of a (stopped or running) hub's database, through SQLite's backup API."""
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(source, timeout=10)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    yield target


async def kill_loop(
    hub: CrashHub,
    battery: Battery,
    *,
    kills: int,
    interval: tuple[float, float],
    seconds: float,
    stop: asyncio.Event | None = None,
    on_restart: Callable[[], None] | None = None,
) -> int:
    """SIGKILL ``hub`` every U[interval] seconds and restart it at once, ``kills`` times at most,
    for ``seconds`` at most (or until ``stop`` is set). Returns how many kills it did.

    A start a failpoint ended (the hub died on its own) is restarted too. The restart runs in a
    thread so the clients' event loop keeps running.
    """
    done = 0
    for _ in battery.bounded(kills, seconds):
        pause = battery.random.uniform(*interval)
        if stop is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
                break
        else:
            await asyncio.sleep(pause)
        await asyncio.to_thread(hub.restart)
        done += 1
        if on_restart is not None:
            on_restart()
    return done


async def keep_up(hub: CrashHub, stop: asyncio.Event, poll: float = 0.05) -> None:
    """Restart ``hub`` whenever a failpoint kills it, until ``stop`` is set."""
    while not stop.is_set():
        if not hub.alive():
            await asyncio.to_thread(hub.restart)
        await asyncio.sleep(poll)
