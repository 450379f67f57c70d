"""Clients of the ceiling servers (bench/servers.py) and of raw SQLite (bench/sqlite_bench.py).

Each function measures one scenario at one scale against a server process it is given, and
returns the repetitions. The hub's scenarios (bench/hub.py) mirror these shapes exactly: same
number of channels, same payload sizes, same load loops, so that hub / ceiling is a fair ratio.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import grpc

from bench._gen.kxm.bench.v1 import bench_pb2, bench_pb2_grpc
from bench.common import (
    REPO,
    CpuMeter,
    Receipts,
    Rep,
    channel,
    child_env,
    closed_loop,
    drained,
    paced,
    percentile,
    process_rss_kib,
    wait_ready,
)
from bench.config import Config


async def _close(channels: list[grpc.aio.Channel]) -> None:
    await asyncio.gather(*(ch.close() for ch in channels), return_exceptions=True)


# -- unary echo -----------------------------------------------------------------------------------


async def echo(address: str, workers: int, cfg: Config, pid: int) -> list[Rep]:
    """Closed-loop unary echo, one channel per worker."""
    channels = [channel(address) for _ in range(workers)]
    try:
        await asyncio.gather(*(wait_ready(ch) for ch in channels))
        stubs = [bench_pb2_grpc.EchoServiceStub(ch) for ch in channels]
        request = bench_pb2.EchoRequest(payload=b"x" * cfg.payload_size)

        async def op(i: int) -> None:
            await stubs[i].Echo(request, timeout=10)

        return [
            await closed_loop(workers, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
            for _ in range(cfg.reps)
        ]
    finally:
        await _close(channels)


# -- push streams ---------------------------------------------------------------------------------


class PushDelivery:
    """Raw push to ``subscribers`` streams opened at once, one repetition per ``rep()``.

    Each stream receives a ready event and its share of the events. Rate: events received per
    second from opening the streams until the last event arrived; latency: the time one subscriber
    took to receive its whole share. A session, so that its repetitions can alternate with the hub's.
    """

    def __init__(self, address: str, subscribers: int, cfg: Config, pid: int) -> None:
        self.per = max(1, cfg.delivery_events // subscribers)
        self.subscribers = subscribers
        self.cfg = cfg
        self.pid = pid
        self.channels = [channel(address) for _ in range(subscribers)]
        self.stubs = [bench_pb2_grpc.PushServiceStub(ch) for ch in self.channels]

    async def open(self) -> None:
        await asyncio.gather(*(wait_ready(ch) for ch in self.channels))

    async def rep(self) -> Rep:
        per, cfg = self.per, self.cfg
        cpu = CpuMeter(self.pid)
        cpu.start()
        start = time.perf_counter()

        async def drain(stub: bench_pb2_grpc.PushServiceAsyncStub) -> float:
            call = stub.Subscribe(bench_pb2.PushRequest(count=per, payload_size=cfg.payload_size), timeout=60)
            got = 0
            while got <= per:
                event = await call.read()
                if event is grpc.aio.EOF:
                    raise RuntimeError(f"push stream ended after {got} events")
                got += 1
            return time.perf_counter() - start

        return await drained([drain(s) for s in self.stubs], per * self.subscribers, start, cpu)

    async def close(self) -> None:
        await _close(self.channels)


async def push_delivery(address: str, subscribers: int, cfg: Config, pid: int) -> list[Rep]:
    """``cfg.reps`` repetitions of ``PushDelivery`` (the ceiling measured on its own)."""
    session = PushDelivery(address, subscribers, cfg, pid)
    try:
        await session.open()
        return [await session.rep() for _ in range(cfg.reps)]
    finally:
        await session.close()


async def open_streams(
    count: int, open_one: Callable[[int], Awaitable[object]], *, concurrency: int = 200, timeout: float = 180.0
) -> list[object]:
    """Open ``count`` streams with at most ``concurrency`` opening at once; return their call objects."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(i: int) -> object:
        async with semaphore:
            return await open_one(i)

    return list(await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(count))), timeout))


async def echo_probe(address: str, cfg: Config, pid: int) -> Rep:
    """Echo p50/p99 at ``probe_workers`` in flight (the unary probe of the idle-stream scenario)."""
    channels = [channel(address) for _ in range(cfg.probe_workers)]
    try:
        await asyncio.gather(*(wait_ready(ch) for ch in channels))
        stubs = [bench_pb2_grpc.EchoServiceStub(ch) for ch in channels]
        request = bench_pb2.EchoRequest(payload=b"x" * cfg.payload_size)

        async def op(i: int) -> None:
            await stubs[i].Echo(request, timeout=10)

        return await closed_loop(cfg.probe_workers, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
    finally:
        await _close(channels)


class _IdleStreams:
    """``cfg.idle_streams`` raw streams held open over ``cfg.idle_channels`` channels, and the server
    RSS they take; a session, so that a probe can run before and while they are open."""

    def __init__(self, address: str, cfg: Config, pid: int) -> None:
        self.cfg = cfg
        self.pid = pid
        self.channels = [channel(address) for _ in range(cfg.idle_channels)]
        self.stubs = [bench_pb2_grpc.PushServiceStub(ch) for ch in self.channels]
        self.calls: list[object] = []

    async def open(self) -> None:
        await asyncio.gather(*(wait_ready(ch) for ch in self.channels))

    async def hold(self, open_one: Callable[[bench_pb2_grpc.PushServiceAsyncStub], Awaitable[object]]) -> Rep:
        """Open the streams with ``open_one``, round-robin over the channels: KiB of server RSS per stream."""
        cfg, stubs = self.cfg, self.stubs
        await asyncio.sleep(0.3)
        rss0 = process_rss_kib(self.pid)
        start = time.perf_counter()
        self.calls = await open_streams(cfg.idle_streams, lambda i: open_one(stubs[i % len(stubs)]))
        opened = time.perf_counter() - start
        await asyncio.sleep(0.5)
        rss1 = process_rss_kib(self.pid)
        return Rep(
            rate=(rss1 - rss0) / cfg.idle_streams,
            ops=cfg.idle_streams,
            seconds=opened,
            extra={"rss_before_kib": rss0, "rss_after_kib": rss1, "open_seconds": opened},
        )

    async def close(self) -> None:
        for call in self.calls:
            call.cancel()  # type: ignore[attr-defined]
        await _close(self.channels)


async def push_idle(address: str, cfg: Config, pid: int) -> tuple[Rep, Rep]:
    """Hold ``idle_streams`` open push streams: (KiB of server RSS per stream, echo probe while open)."""
    idle = _IdleStreams(address, cfg, pid)
    try:
        await idle.open()
        before_probe = await echo_probe(address, cfg, pid)
        memory = await idle.hold(_held_subscription)
        probe = await echo_probe(address, cfg, pid)
        probe.extra["p99_before_ms"] = _p99_ms(before_probe)
        return memory, probe
    finally:
        await idle.close()


async def push_idle_channels(address: str, cfg: Config, pid: int) -> list[Rep]:
    """Hold ``idle_streams`` raw bidirectional streams open (each read its ready event): KiB of server RSS each."""
    idle = _IdleStreams(address, cfg, pid)
    try:
        await idle.open()
        return [await idle.hold(_held_channel)]
    finally:
        await idle.close()


async def _held_subscription(stub: bench_pb2_grpc.PushServiceAsyncStub) -> object:
    """A Subscribe stream past its ready event, held open by the server."""
    call = stub.Subscribe(bench_pb2.PushRequest(count=0, hold=True))
    event = await call.read()
    if event is grpc.aio.EOF:
        raise RuntimeError("idle stream ended")
    return call


async def _held_channel(stub: bench_pb2_grpc.PushServiceAsyncStub) -> object:
    """A Channel stream past its ready event, waiting for the client's next request (as the hub's idle channel does)."""
    call = stub.Channel()
    await call.write(bench_pb2.PushRequest(count=0))
    event = await call.read()
    if event is grpc.aio.EOF:
        raise RuntimeError("idle channel ended")
    return call


def _p99_ms(rep: Rep) -> float:
    return percentile(rep.latencies, 99) * 1000


# -- the broker (core loop, fanout, paced delivery) -----------------------------------------------


class BrokerAgents:
    """Broker agents, one channel each; recipients hold a Subscribe stream and reply to every message."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.channels: list[grpc.aio.Channel] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.received = Receipts()
        """content -> receive time, for paced delivery."""

    def stub(self) -> bench_pb2_grpc.BrokerServiceAsyncStub:
        ch = channel(self.address)
        self.channels.append(ch)
        return bench_pb2_grpc.BrokerServiceStub(ch)

    async def recipient(self, name: str, *, reply: bool = True) -> None:
        """Start an agent that subscribes and (optionally) replies to each message with its content."""
        stub = self.stub()
        call = stub.Subscribe(bench_pb2.SubscribeRequest(agent=name))
        ready = await asyncio.wait_for(call.read(), 10)
        if ready is grpc.aio.EOF:
            raise RuntimeError("broker stream ended")

        async def serve() -> None:
            while True:
                event = await call.read()
                if not isinstance(event, bench_pb2.BrokerEvent):
                    return  # grpc.aio.EOF
                self.received.record(event.content)
                if reply:
                    await stub.Reply(bench_pb2.ReplyRequest(message_id=event.message_id, content=event.content))

        self.tasks.append(asyncio.create_task(serve()))

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await _close(self.channels)


async def broker_core_loop(address: str, pairs: int, cfg: Config, pid: int) -> list[Rep]:
    """Send -> event on the recipient's stream -> Reply -> Wait returns the reply; one round trip per op."""
    agents = BrokerAgents(address)
    try:
        await asyncio.gather(*(agents.recipient(f"r{i}") for i in range(pairs)))
        senders = [agents.stub() for _ in range(pairs)]
        content = "x" * cfg.payload_size

        async def op(i: int) -> None:
            sent = await senders[i].Send(bench_pb2.SendRequest(sender=f"s{i}", target=f"r{i}", content=content))
            waited = await senders[i].Wait(bench_pb2.WaitRequest(message_id=sent.message_id, timeout=10))
            if not waited.terminal:
                raise RuntimeError("no reply within 10 s")

        return [
            await closed_loop(pairs, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
            for _ in range(cfg.reps)
        ]
    finally:
        await agents.close()


async def broker_fanout(address: str, callers: int, cfg: Config, pid: int) -> list[Rep]:
    """Each caller sends to its three recipients at once and gathers the three replies; one fanout per op."""
    agents = BrokerAgents(address)
    try:
        await asyncio.gather(*(agents.recipient(f"r{i}.{j}") for i in range(callers) for j in range(3)))
        senders = [agents.stub() for _ in range(callers)]
        content = "x" * cfg.payload_size

        async def op(i: int) -> None:
            stub = senders[i]
            requests = [bench_pb2.SendRequest(sender=f"s{i}", target=f"r{i}.{j}", content=content) for j in range(3)]
            sent = await asyncio.gather(*(stub.Send(r) for r in requests))
            waited = await asyncio.gather(
                *(stub.Wait(bench_pb2.WaitRequest(message_id=s.message_id, timeout=10)) for s in sent)
            )
            if not all(w.terminal for w in waited):
                raise RuntimeError("a fanout reply did not arrive within 10 s")

        return [
            await closed_loop(callers, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
            for _ in range(cfg.reps)
        ]
    finally:
        await agents.close()


async def broker_paced(address: str, cfg: Config, pid: int) -> list[Rep]:
    """Sends at a fixed rate over ``paced_pairs`` pairs; latency = event received - send scheduled."""
    agents = BrokerAgents(address)
    try:
        await asyncio.gather(*(agents.recipient(f"r{i}", reply=False) for i in range(cfg.paced_pairs)))
        senders = [agents.stub() for _ in range(cfg.paced_pairs)]
        reps: list[Rep] = []
        for rep in range(cfg.reps):
            due: dict[str, float] = {}

            async def send(k: int, scheduled: float, rep: int = rep, due: dict[str, float] = due) -> None:
                i = k % cfg.paced_pairs
                key = f"{rep}:{k}:" + "x" * max(0, cfg.payload_size - 16)
                due[key] = scheduled
                await senders[i].Send(bench_pb2.SendRequest(sender=f"s{i}", target=f"r{i}", content=key), timeout=10)

            reps.append(await _paced_rep(cfg, send, due, agents.received, pid))
        return reps
    finally:
        await agents.close()


async def _paced_rep(
    cfg: Config,
    send: Callable[[int, float], Coroutine[Any, Any, None]],
    due: dict[str, float],
    received: Receipts,
    pid: int,
) -> Rep:
    """One paced repetition: run the schedule, wait (bounded) for the events, compute latencies."""
    cpu = CpuMeter(pid)
    cpu.start()
    _, skipped = await paced(cfg.paced_rate, cfg.paced_duration, send)
    await received.wait_all(list(due), 10)
    cpu_seconds = cpu.stop()
    latencies = [received.times[k] - t for k, t in due.items() if k in received.times]
    missing = len(due) - len(latencies)
    return Rep(
        rate=len(latencies) / cfg.paced_duration,
        ops=len(latencies),
        seconds=cfg.paced_duration,
        latencies=latencies,
        cpu_seconds=cpu_seconds,
        extra={
            "offered_per_s": cfg.paced_rate,
            "skipped": skipped,
            "missing": missing,
            "foreign_cpu": cpu.foreign,
            "client_cpu_s": cpu.client,
        },
    )


# -- raw SQLite -----------------------------------------------------------------------------------


def sqlite_commits(work_dir: Path, synchronous: str, rows: int, cfg: Config, name: str) -> list[Rep]:
    """Commit rate of raw SQLite in a child process (its own CPU); rate is rows per second."""
    database = work_dir / f"{name}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.sqlite_bench",
            "--database",
            str(database),
            "--synchronous",
            synchronous,
            "--rows",
            str(rows),
            "--duration",
            str(cfg.sqlite_duration),
            "--reps",
            str(cfg.reps),
        ],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=REPO,
        timeout=60 + cfg.sqlite_duration * cfg.reps * 2,
        check=True,
    )
    data = json.loads(process.stdout)
    reps = [
        Rep(
            rate=r["rows"] / r["seconds"],
            ops=r["rows"],
            seconds=r["seconds"],
            latencies=r["latencies"],
            cpu_seconds=r["cpu_seconds"],
        )
        for r in data["reps"]
    ]
    return reps
