"""B3: in durable (full) mode an acknowledged write has been fsynced; normal mode is process-crash-only.

(a) The hub's own writer connection runs ``journal_mode=wal`` and ``synchronous=2`` (FULL) in full
durability (``synchronous=1``, NORMAL, in normal durability), read from an in-process hub's store.

(b) A hub subprocess runs under ``strace -f --seccomp-bpf -e trace=fsync,fdatasync -ttt -T -y``
(only those two calls stop it; ``-y`` names each descriptor's file). Eight agents send 1,000
messages concurrently; every send's invoke and completion times are kept. Over the window of the
sends, the hub's ``kxm_sqlite_commits_total`` (scraped before and after) counts the commit batches,
and the trace counts the fsyncs of ``hub.db-wal``: there must be at least one per commit batch,
and every acknowledged send must have a WAL fsync that began after it was invoked and ended before
its acknowledgement arrived. The same run in normal durability shows fewer WAL fsyncs than commits
(none per commit: SQLite syncs the WAL only at checkpoints), which is why ``normal`` is documented
as surviving a hub crash but not a power loss (docs/operations.md, "Durability and crashes").

strace needs ptrace: where the kernel or the container forbids it, (b) is skipped and says why.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Durability, Tx
from kxm_grpc.testing import ADMIN_TOKEN, _serving
from tests.reliability.battery import Battery, missing_tool
from tests.reliability.probes import scrape

STRACE = shutil.which("strace") or "/usr/bin/strace"
COMMITS = "kxm_sqlite_commits_total"


def _pragma(sql: str) -> Callable[[Tx], Any]:
    """A unit of work reading one PRAGMA on the connection it runs on (the writer's, for a write)."""
    return lambda tx: tx.meta._conn.execute(sql).fetchone()[0]  # type: ignore[attr-defined]


@pytest.mark.battery("B3a", "the hub's writer connection runs WAL with synchronous FULL in durable mode")
@pytest.mark.parametrize("durability", [Durability.FULL, Durability.NORMAL], ids=["full", "normal"])
async def test_the_writer_connection_is_wal_and_fully_synchronous_in_durable_mode(
    battery: Battery, durability: Durability
) -> None:
    """Read from the hub's own connections (an in-process hub's store): ``synchronous`` is per connection."""
    settings = Settings(
        port=0, data_dir=battery.dir / "data", admin_token=ADMIN_TOKEN, durability=durability, shutdown_grace=0.5
    )
    server = HubServer(settings)
    await server.start()
    try:
        writer_mode = await server.store.write(_pragma("PRAGMA journal_mode"))
        writer_sync = await server.store.write(_pragma("PRAGMA synchronous"))
        reader_mode = await server.store.read(_pragma("PRAGMA journal_mode"))
        size_limit = await server.store.write(_pragma("PRAGMA journal_size_limit"))
    finally:
        await server.stop(0.2)

    battery.figure("journal_size_limit_bytes", size_limit)
    battery.invariant("journal_mode of the writer connection", writer_mode, "wal")
    battery.invariant("journal_mode of the reader connection", reader_mode, "wal")
    expected = 2 if durability is Durability.FULL else 1
    battery.invariant(f"synchronous of the writer connection ({durability.value})", writer_sync, expected)


# -- (b) the fsync audit ------------------------------------------------------------------------


def _ptrace_refusal() -> str | None:
    """Why strace cannot trace here, or None when it can."""
    if not os.access(STRACE, os.X_OK):
        return f"strace is not installed ({STRACE})"
    try:
        done = subprocess.run(
            [STRACE, "-f", "--seccomp-bpf", "-e", "trace=fsync", "-o", os.devnull, "true"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"strace could not run: {error}"
    if done.returncode != 0:
        return f"ptrace is not permitted here (strace: {done.stderr.strip()[:200]})"
    return None


@dataclass
class Fsync:
    """One fsync or fdatasync the trace saw: wall-clock start and end (seconds since the epoch) and its file."""

    start: float
    end: float
    path: str


_CALL = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(fsync|fdatasync)\((\d+)<([^>]*)>(.*)$")
_RESUMED = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+<\.\.\. (?:fsync|fdatasync) resumed>.*<(\d+\.\d+)>\s*$")
_DURATION = re.compile(r"<(\d+\.\d+)>\s*$")


def parse_trace(text: str) -> list[Fsync]:
    """The fsync and fdatasync calls of an ``strace -f -ttt -T -y`` output (split calls joined up)."""
    calls: list[Fsync] = []
    pending: dict[str, tuple[float, str]] = {}
    for line in text.splitlines():
        match = _CALL.match(line)
        if match:
            pid, start, path, rest = match[1], float(match[2]), match[5], match[6]
            if "<unfinished ...>" in rest:
                pending[pid] = (start, path)
                continue
            duration = _DURATION.search(rest)
            if duration and "= 0" in rest:
                calls.append(Fsync(start, start + float(duration[1]), path))
            continue
        resumed = _RESUMED.match(line)
        if resumed and resumed[1] in pending and "= 0" in line:
            start, path = pending.pop(resumed[1])
            calls.append(Fsync(start, float(resumed[2]), path))
    return calls


@dataclass
class TracedHub:
    """A hub subprocess started under strace (fsync and fdatasync only), with metrics on a free port."""

    data_dir: Path
    durability: str
    trace_path: Path = field(init=False)
    log_path: Path = field(init=False)
    process: subprocess.Popen[bytes] | None = None
    address: str = ""

    def __post_init__(self) -> None:
        self.trace_path = self.data_dir.parent / f"{self.data_dir.name}-strace.txt"
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}-hub.log"

    def start(self, timeout: float = 60.0) -> str:
        address_file = self.data_dir.parent / f"{self.data_dir.name}.address"
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [STRACE, "-f", "--seccomp-bpf", "-e", "trace=fsync,fdatasync", "-ttt", "-T", "-y",
                 "-o", str(self.trace_path),
                 sys.executable, "-m", "kxm_grpc.cli", "hub", "serve", "--port", "0",
                 "--data-dir", str(self.data_dir), "--durability", self.durability,
                 "--rate-limit", "100000000", "--log-format", "json", "--shutdown-grace", "1",
                 "--stale-after", "3600", "--admin-token", ADMIN_TOKEN, "--address-file", str(address_file),
                 "--metrics-port", "0"],
                stdout=log, stderr=log, env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"traced hub exited with {self.process.returncode}; see {self.log_path}")
            with contextlib.suppress(OSError):
                address = address_file.read_text().strip()
                if address and _serving(address):
                    self.address = address
                    return address
            time.sleep(0.05)
        raise TimeoutError(f"traced hub not serving within {timeout} s; see {self.log_path}")

    def stop(self) -> None:
        """SIGKILL the hub (the pid in its lock file) and let strace finish writing its trace."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(OSError, ValueError):
            hub_pid = int((self.data_dir / "hub.db.lock").read_text().strip())
            os.kill(hub_pid, signal.SIGKILL)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


@contextlib.asynccontextmanager
async def traced_hub(battery: Battery, durability: str) -> AsyncIterator[TracedHub]:
    hub = TracedHub(battery.dir / f"data-{durability}", durability)
    await asyncio.to_thread(hub.start)
    try:
        yield hub
    finally:
        await asyncio.to_thread(hub.stop)


def _metrics_address(hub: TracedHub) -> str:
    for line in hub.log_path.read_text(errors="replace").splitlines():
        if '"hub_started"' in line:
            return str(json.loads(line)["metrics_address"])
    raise AssertionError(f"no hub_started line in {hub.log_path}")


@dataclass
class Send:
    invoked: float
    completed: float


@dataclass
class Window:
    """The sends of one run, and the commits counted around them."""

    acked: list[Send]
    commits: float
    """Commit batches between the two scrapes."""
    start: float
    """Before the first scrape began: every counted commit happened after it."""
    end: float
    """After the second scrape ended: every counted commit happened before it."""


async def _send_window(hub: TracedHub, battery: Battery, sends: int, senders: int) -> Window:
    """``sends`` acknowledged sends from ``senders`` agents at once, and the commit batches counted around them."""
    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    token = (await admin.admin.create_project("fsync")).project_token
    clients = [HubClient(hub.address, token=token) for _ in range(senders + 1)]
    receiver, *agents = clients
    await receiver.agents.register("receiver")
    for index, client in enumerate(agents):
        await client.agents.register(f"sender-{index}")
    metrics = _metrics_address(hub)
    for client in agents:  # warm every channel, outside the window
        await client.messages.send("receiver", "warm-up")
    acked: list[Send] = []
    remaining = iter(range(sends))

    async def sender(client: HubClient) -> None:
        for index in remaining:
            invoked = time.time()
            await client.messages.send("receiver", f"durable {index} " + "x" * battery.random.randint(16, 512))
            acked.append(Send(invoked, time.time()))

    start = time.time()
    commits_before = (await scrape(metrics)).value(COMMITS)
    await asyncio.gather(*(sender(client) for client in agents))
    commits = (await scrape(metrics)).value(COMMITS) - commits_before
    end = time.time()
    for client in (admin, *clients):
        await client.close()
    return Window(acked, commits, start, end)


@pytest.mark.battery(
    "B3b", "every acknowledged send in durable mode followed a WAL fsync; normal mode does not fsync per commit"
)
async def test_every_acknowledged_send_follows_an_fsync_of_the_wal(battery: Battery) -> None:
    refusal = await asyncio.to_thread(_ptrace_refusal)
    if refusal is not None:
        missing_tool(f"B3b needs strace: {refusal}")
    sends = battery.size(pr=1_000, long=10_000)
    senders = 8

    async with traced_hub(battery, "full") as hub:
        wal = str(hub.data_dir.resolve() / "hub.db") + "-wal"
        run = await _send_window(hub, battery, sends, senders)
    acked, commits = run.acked, run.commits
    calls = parse_trace(hub.trace_path.read_text(errors="replace"))
    wal_fsyncs = sorted((c for c in calls if c.path == wal and run.start <= c.start <= run.end), key=lambda c: c.start)
    other = [c for c in calls if c.path != wal and run.start <= c.start <= run.end]
    unsynced = sum(not _synced(send, wal_fsyncs) for send in acked)
    seconds = max(s.completed for s in acked) - min(s.invoked for s in acked)

    async with traced_hub(battery, "normal") as fast:
        fast_wal = str(fast.data_dir.resolve() / "hub.db") + "-wal"
        fast_run = await _send_window(fast, battery, sends // 4, senders)
    fast_acked, fast_commits = fast_run.acked, fast_run.commits
    fast_calls = parse_trace(fast.trace_path.read_text(errors="replace"))
    fast_wal_fsyncs = [c for c in fast_calls if c.path == fast_wal and fast_run.start <= c.start <= fast_run.end]

    battery.figure("sends_acked", len(acked))
    battery.figure("commit_batches", int(commits))
    battery.figure("wal_fsyncs", len(wal_fsyncs))
    battery.figure("other_fsyncs", len(other))
    battery.figure("sends_per_commit", round(len(acked) / commits, 2) if commits else None)
    battery.figure("sends_per_second_traced", round(len(acked) / seconds, 1))
    battery.figure("wal_fsync_ms_p50", round(1000 * _median([c.end - c.start for c in wal_fsyncs]), 3))
    battery.figure("normal_sends_acked", len(fast_acked))
    battery.figure("normal_commit_batches", int(fast_commits))
    battery.figure("normal_wal_fsyncs", len(fast_wal_fsyncs))
    battery.invariant("sends acknowledged", len(acked), sends)
    battery.at_least("commit batches in the window", commits, 1)
    battery.at_least("WAL fsyncs minus commit batches", len(wal_fsyncs) - commits, 0)
    battery.invariant("acknowledged sends without a WAL fsync between invoke and ack", unsynced, 0)
    battery.invariant(
        "normal mode: fewer WAL fsyncs than commits (process-crash-only)", len(fast_wal_fsyncs) < fast_commits, True
    )


def _synced(send: Send, fsyncs: list[Fsync]) -> bool:
    """Whether a WAL fsync began after ``send`` was invoked and returned before its ack arrived
    (``fsyncs`` sorted by start)."""
    index = bisect.bisect_left([c.start for c in fsyncs], send.invoked)
    for call in fsyncs[index:]:
        if call.start > send.completed:
            return False
        if call.end <= send.completed:
            return True
    return False


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else float("nan")
