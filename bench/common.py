"""Measurement plumbing shared by every scenario: process CPU and memory, percentiles, load loops.

Every loop here is bounded twice: by a count (or a fixed schedule) and by a wall-clock deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
REPO = Path(__file__).resolve().parent.parent

# The same options the hub's own client uses, so ceilings and hub pay for the same channel setup.
CHANNEL_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", 16 * 1024 * 1024),
]


# -- process accounting ---------------------------------------------------------------------------


def process_cpu(pid: int) -> float:
    """utime + stime of a whole process (all threads), in seconds, from /proc/<pid>/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    # After the command name: state is field 3, utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def process_cpu_ns(pid: int) -> float:
    """CPU seconds of a process's live threads, from the scheduler's nanosecond counters
    (``/proc/<pid>/task/*/schedstat``), falling back to ``process_cpu`` without them.

    ``/proc/<pid>/stat`` counts in clock ticks (10 ms here: 3.3 µs per call over 3,000 calls), too
    coarse for a per-call cost of a few microseconds; a thread that exits between two readings
    takes its time with it, so this is for a server whose threads live as long as it does.
    """
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that ended since the listing
                total += int((task / "schedstat").read_text().split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        return process_cpu(pid)
    return total / 1e9


def process_rss_kib(pid: int) -> int:
    """Resident set size of a process in KiB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def system_busy() -> float:
    """CPU seconds all CPUs spent in user, system and steal time since boot (/proc/stat).

    Interrupt and softirq time are left out: loopback traffic is processed there, and it is the
    benchmark's own traffic, not another process's.
    """
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system = values[0], values[1], values[2]
    steal = values[7] if len(values) > 7 else 0
    return (user + nice + system + steal) / CLOCK_TICKS


class CpuMeter:
    """Server CPU over a measured window (a no-op without a pid), and how busy other processes were.

    ``foreign`` is the share of the machine's CPUs that processes other than the server and this
    client used in the window: a benchmark figure taken while it was high is not trustworthy.
    """

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self._start = 0.0
        self._busy = 0.0
        self._own = 0.0
        self._wall = 0.0
        self.foreign = 0.0
        self.client = 0.0
        """This process's (the benchmark client's) CPU seconds in the window, set by stop()."""

    def start(self) -> None:
        self._start = process_cpu(self.pid) if self.pid else 0.0
        self._busy = system_busy()
        self._own = process_cpu(os.getpid())
        self._wall = time.perf_counter()

    def stop(self) -> float:
        """Server CPU seconds since start()."""
        server = process_cpu(self.pid) - self._start if self.pid else 0.0
        wall = time.perf_counter() - self._wall
        own = process_cpu(os.getpid()) - self._own
        busy = system_busy() - self._busy
        self.client = own
        if wall > 0:
            self.foreign = max(0.0, (busy - own - server) / (wall * (os.cpu_count() or 1)))
        return server


# -- statistics -----------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


@dataclass
class Rep:
    """One repetition of one scenario at one scale."""

    rate: float
    """Operations per second (the scenario's unit)."""
    ops: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    """Per-operation latencies in seconds."""
    cpu_seconds: float = 0.0
    """Server CPU spent in the window."""
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def cpu_us_per_op(self) -> float:
        return self.cpu_seconds / self.ops * 1e6 if self.ops else 0.0


@dataclass
class Row:
    """A scenario at one scale: the summary of its repetitions."""

    scenario: str
    scale: str
    unit: str
    reps: list[Rep]
    ceiling: str | None = None
    """``scenario/scale`` of the ceiling this row is divided by."""
    ratio_basis: str = "rate"
    """``rate``: ratio = rate / ceiling rate; ``p50``: ratio = ceiling p50 / p50; ``kib``: ceiling / this;
    ``cpu``: server CPU per op / the ceiling's; ``p50_cost``: p50 / ceiling p50 (the last two: lower is better)."""
    note: str = ""
    error: str = ""

    @property
    def key(self) -> str:
        return f"{self.scenario}/{self.scale}"

    def summary(self) -> dict[str, Any]:
        rates = [r.rate for r in self.reps]
        lat = [x for r in self.reps for x in r.latencies]
        out: dict[str, Any] = {
            "scenario": self.scenario,
            "scale": self.scale,
            "unit": self.unit,
            "repetitions": len(self.reps),
            "median": statistics.median(rates) if rates else None,
            "min": min(rates) if rates else None,
            "max": max(rates) if rates else None,
            "p50_ms": percentile(lat, 50) * 1000 if lat else None,
            "p99_ms": percentile(lat, 99) * 1000 if lat else None,
            "server_cpu_us_per_op": statistics.median([r.cpu_us_per_op for r in self.reps]) if self.reps else None,
            # None when no repetition completed an operation (a machine too loaded for the window).
            "client_cpu_us_per_op": (
                statistics.median(client)
                if (
                    client := [
                        r.extra["client_cpu_s"] / r.ops * 1e6 for r in self.reps if r.ops and "client_cpu_s" in r.extra
                    ]
                )
                else None
            ),
            "ceiling": self.ceiling,
            "ratio_basis": self.ratio_basis,
            "note": self.note,
            "error": self.error,
            "reps": [
                {"rate": r.rate, "ops": r.ops, "seconds": r.seconds, "cpu_seconds": r.cpu_seconds, **r.extra}
                for r in self.reps
            ],
        }
        extras: dict[str, list[float]] = {}
        for r in self.reps:
            for k, v in r.extra.items():
                extras.setdefault(k, []).append(v)
        for k, values in extras.items():
            out[k] = statistics.median(values)
        return out


# -- load loops -----------------------------------------------------------------------------------


async def drained(drains: Sequence[Awaitable[float]], events: int, start: float, cpu: CpuMeter) -> Rep:
    """One delivery repetition: every subscriber's drain (each returns its seconds since ``start``)
    within 120 s; rate = ``events`` over the time to the last one. ``cpu`` was started at ``start``."""
    times = await asyncio.wait_for(asyncio.gather(*drains), 120)
    elapsed = time.perf_counter() - start
    return Rep(
        rate=events / elapsed,
        ops=events,
        seconds=elapsed,
        latencies=list(times),
        cpu_seconds=cpu.stop(),
        extra={"foreign_cpu": cpu.foreign, "client_cpu_s": cpu.client},
    )


async def closed_loop(
    workers: int,
    op: Callable[[int], Awaitable[None]],
    *,
    warmup: float,
    duration: float,
    cpu: CpuMeter,
    op_timeout: float = 30.0,
    per_op: int = 1,
) -> Rep:
    """``workers`` tasks each run ``op(index)`` back to back; count what completes inside the window.

    The window starts after ``warmup``; throughput counts completions inside it, latencies are those
    of the operations that completed inside it. ``per_op`` scales the count (e.g. 3 RPCs per op).
    """
    loop_start = time.perf_counter()
    t0 = loop_start + warmup
    t1 = t0 + duration
    latencies: list[float] = []
    failures: list[BaseException] = []

    async def worker(index: int) -> None:
        while True:
            started = time.perf_counter()
            if started >= t1:
                return
            try:
                await asyncio.wait_for(op(index), op_timeout)
            except Exception as exc:  # a failing op ends this worker; the row reports the error
                failures.append(exc)
                return
            ended = time.perf_counter()
            if t0 <= ended < t1:
                latencies.append(ended - started)

    tasks = [asyncio.create_task(worker(i)) for i in range(workers)]
    try:
        await asyncio.sleep(max(0.0, t0 - time.perf_counter()))
        cpu.start()
        await asyncio.sleep(max(0.0, t1 - time.perf_counter()))
        cpu_seconds = cpu.stop()
        _, pending = await asyncio.wait(tasks, timeout=op_timeout + 5)
        for task in pending:
            task.cancel()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if failures and not latencies:
        raise RuntimeError(f"every worker failed: {failures[0]!r}") from failures[0]
    ops = len(latencies) * per_op
    return Rep(
        rate=ops / duration,
        ops=ops,
        seconds=duration,
        latencies=latencies,
        cpu_seconds=cpu_seconds,
        extra={"foreign_cpu": cpu.foreign, "client_cpu_s": cpu.client},
    )


async def paced(
    rate: float,
    duration: float,
    send: Callable[[int, float], Coroutine[Any, Any, None]],
    *,
    max_in_flight: int = 512,
) -> tuple[int, int]:
    """Start ``send(k, scheduled_time)`` at ``rate`` per second for ``duration`` (open loop).

    Returns (started, skipped): a send is skipped when ``max_in_flight`` are still running.
    """
    count = int(rate * duration)
    start = time.perf_counter() + 0.01
    in_flight: set[asyncio.Task[None]] = set()
    skipped = 0
    for k in range(count):
        due = start + k / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        if len(in_flight) >= max_in_flight:
            skipped += 1
            continue
        task = asyncio.create_task(send(k, due))
        in_flight.add(task)
        task.add_done_callback(in_flight.discard)
    if in_flight:
        await asyncio.wait(in_flight, timeout=30)
    for task in list(in_flight):
        task.cancel()
    return count - skipped, skipped


class Receipts:
    """When each keyed event arrived (perf_counter), with a bounded wait for a set of keys."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._changed = asyncio.Event()

    def record(self, key: str) -> None:
        self.times[key] = time.perf_counter()
        self._changed.set()

    async def wait_all(self, keys: Sequence[str], timeout: float) -> None:
        """Wait until every key arrived or ``timeout`` passed."""
        deadline = time.perf_counter() + timeout
        while any(k not in self.times for k in keys):
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)


# -- child processes ------------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    """The environment of every process the bench starts."""
    return {**os.environ, "GRPC_VERBOSITY": "ERROR", "PYTHONPATH": str(REPO)}


class ServerProcess:
    """A ceiling server (``python -m bench.servers KIND``) in its own process, on 127.0.0.1:0.

    A subclass runs another server the same way: it overrides ``_command`` (and ``_env``, ``cwd``,
    ``name``); the process writes its address to the file its ``--address-file`` names.
    """

    settle = 0.0
    """Seconds to wait after the address appears, for a server that writes it before it serves."""

    def __init__(self, kind: str, work_dir: Path, *args: str) -> None:
        self.kind = kind
        self.work_dir = work_dir
        self.args = args
        self.process: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.log_path = work_dir / f"{kind}.log"
        self.name = f"{kind} server"
        """What errors call the process."""
        self.cwd = REPO

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 20.0) -> str:
        address_file = self.work_dir / f"{self.kind}.address"
        address_file.unlink(missing_ok=True)
        command = self._command(address_file)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log, env=self._env(), cwd=self.cwd)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}")
            with contextlib.suppress(OSError):
                text = address_file.read_text().strip()
                if text:
                    self.address = text
                    if self.settle:
                        time.sleep(self.settle)
                    return text
            time.sleep(0.02)
        self.stop()
        raise TimeoutError(f"{self.name} did not start within {timeout} s")

    def _command(self, address_file: Path) -> list[str]:
        """The server's command line."""
        return [sys.executable, "-m", "bench.servers", self.kind, "--address-file", str(address_file), *self.args]

    def _env(self) -> dict[str, str]:
        """The server's environment."""
        return child_env()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def wait_ready(channel: grpc.aio.Channel, timeout: float = 10.0) -> None:
    """Wait until a channel connects."""
    await asyncio.wait_for(channel.channel_ready(), timeout)


def channel(address: str) -> grpc.aio.Channel:
    """An insecure loopback channel with the hub client's options."""
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
