"""The hub's scenarios, through the thin Python client, against a hub in its own process.

Each function mirrors a ceiling in bench/ceilings.py: same channels per agent, same payloads,
same load loops. Agents live in separate projects where the hub would otherwise add presence
events between them (every agent going online appends an event to each online peer's log), so
that the figures measure the path named and not presence fan-out; the core loop's pairs share
one project, since presence events there happen only during setup.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from bench.common import (
    CpuMeter,
    Receipts,
    Rep,
    channel,
    closed_loop,
    drained,
    paced,
    percentile,
    process_rss_kib,
    wait_ready,
)
from bench.config import Config
from bench.hubproc import ADMIN_TOKEN
from kxm_grpc._gen.kxm.v1 import agent_service_pb2, agent_service_pb2_grpc, message_service_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.client.channel import AgentChannel

# -- agents ---------------------------------------------------------------------------------------


@dataclass
class Event:
    """One Subscribe event, reduced to what the scenarios need."""

    kind: str
    message_id: str = ""
    content: str = ""


def _event(response: Any) -> Event:
    kind = response.WhichOneof("event") or ""
    if kind in ("message", "reply", "cancelled", "expired"):
        message = getattr(response, kind)
        return Event(kind, message.id, message.content)
    return Event(kind)


class Agent:
    """One registered agent and its HubClient; every call goes through the thin client."""

    def __init__(self, client: HubClient, name: str) -> None:
        self.client = client
        self.name = name
        self.id = client.agent_id or ""

    async def send(self, target: str, content: str) -> str:
        response = await self.client.messages.send(target, content)
        return str(response.message.id)

    async def send_and_wait(self, target: str, content: str, timeout: float = 10.0) -> bool:
        response = await self.client.messages.send(target, content, wait=timeout)
        return bool(response.terminal)

    async def wait(self, message_id: str, timeout: float = 10.0) -> bool:
        response = await self.client.messages.wait(message_id, wait=timeout)
        return bool(response.terminal)

    async def reply(self, message_id: str, content: str) -> None:
        await self.client.messages.reply(message_id, content)

    async def fanout(self, targets: list[str], content: str, timeout: float = 10.0) -> list[int]:
        response = await self.client.messages.fanout(targets, content, wait=timeout)
        return [int(result.status) for result in response.results]

    def subscribe(self) -> AsyncGenerator[Event, None]:
        return _events(self.client.messages.subscribe(auto_ack=False, reconnect=False))

    async def list_inbox(self) -> None:
        await self.client.messages.list_inbox(page_size=1)

    async def lease_cycle(self, name: str) -> None:
        acquired = await self.client.leases.acquire(name, ttl=30)
        token = acquired.lease.fencing_token
        await self.client.leases.renew(name, token, ttl=30)
        await self.client.leases.release(name, token)


async def _events(stream: AsyncIterator[Any]) -> AsyncGenerator[Event, None]:
    try:
        async for item in stream:
            yield _event(item)
    finally:
        aclose = getattr(stream, "aclose", None)  # the client's subscribe() is an async generator
        if aclose is not None:
            await aclose()  # cancels the call


class Fleet:
    """Projects and agents on one hub; closes every channel it opened."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.admin = HubClient(address, token=ADMIN_TOKEN)
        self.channels: list[grpc.aio.Channel] = [self.admin.channel]
        self.tasks: list[asyncio.Task[None]] = []
        self.agent_channels: list[AgentChannel] = []
        self.received = Receipts()
        self._projects = 0

    async def project(self) -> str:
        """A new project; returns its token."""
        self._projects += 1
        response = await self.admin.admin.create_project(f"bench-{self._projects}-{time.monotonic_ns() % 10**9}")
        return str(response.project_token)

    async def agent(self, token: str, name: str, shared: grpc.aio.Channel | None = None) -> Agent:
        """Register an agent with its own channel (or on a shared one)."""
        ch = shared
        if ch is None:
            ch = channel(self.address)
            self.channels.append(ch)
        client = HubClient(self.address, token=token, channel=ch)
        await client.agents.register(name)
        return Agent(client, name)

    async def recipient(self, agent: Agent, *, reply: bool = True) -> None:
        """Subscribe and, for each message, record its arrival and (optionally) reply with its content."""
        events = agent.subscribe()
        first = await asyncio.wait_for(anext(events), 10)
        if first.kind != "ready":
            raise RuntimeError(f"first event was {first.kind!r}, not ready")

        async def serve() -> None:
            async for event in events:
                if event.kind != "message":
                    continue
                self.received.record(event.content)
                if reply:
                    await agent.reply(event.message_id, event.content)

        self.tasks.append(asyncio.create_task(serve()))

    async def open_channel(self, agent: Agent, *, subscribe: bool = False) -> AgentChannel:
        """The agent's channel (AgentService.OpenChannel), closed with the fleet."""
        opened = await agent.client.agents.open_channel(subscribe=subscribe).open()
        self.agent_channels.append(opened)
        return opened

    async def channel_recipient(self, agent: Agent, *, reply: bool = True) -> AgentChannel:
        """As ``recipient``, on the agent's channel: events, and replies as commands on the same stream."""
        opened = await self.open_channel(agent, subscribe=True)
        events = opened.events()
        first = await asyncio.wait_for(anext(events), 10)
        if not first.HasField("ready"):
            raise RuntimeError(f"first event was {first.WhichOneof('event')!r}, not ready")

        async def serve() -> None:
            async for event in events:
                if event.HasField("message"):
                    self.received.record(event.message.content)
                    if reply:
                        await opened.reply(event.message.id, event.message.content)

        self.tasks.append(asyncio.create_task(serve()))
        return opened

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.gather(*(ch.close() for ch in self.agent_channels), return_exceptions=True)
        await asyncio.gather(*(ch.close() for ch in self.channels), return_exceptions=True)


# -- scenarios ------------------------------------------------------------------------------------


async def core_loop(address: str, pairs: int, cfg: Config, pid: int) -> list[Rep]:
    """SendMessage -> message event on the recipient's stream -> ReplyToMessage -> WaitMessage returns."""
    fleet = Fleet(address)
    try:
        token = await fleet.project()
        recipients = [await fleet.agent(token, f"r{i}") for i in range(pairs)]
        senders = [await fleet.agent(token, f"s{i}") for i in range(pairs)]
        await asyncio.gather(*(fleet.recipient(r) for r in recipients))
        content = "x" * cfg.payload_size

        async def op(i: int) -> None:
            message_id = await senders[i].send(recipients[i].id, content)
            if not await senders[i].wait(message_id):
                raise RuntimeError("no reply within 10 s")

        return [
            await closed_loop(pairs, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
            for _ in range(cfg.reps)
        ]
    finally:
        await fleet.close()


async def core_loop_send_wait(address: str, pairs: int, cfg: Config, pid: int) -> list[Rep]:
    """SendMessage with reply_wait -> message event on the recipient's stream -> ReplyToMessage (two unary RPCs)."""
    fleet = Fleet(address)
    try:
        token = await fleet.project()
        recipients = [await fleet.agent(token, f"r{i}") for i in range(pairs)]
        senders = [await fleet.agent(token, f"s{i}") for i in range(pairs)]
        await asyncio.gather(*(fleet.recipient(r) for r in recipients))
        content = "x" * cfg.payload_size

        async def op(i: int) -> None:
            if not await senders[i].send_and_wait(recipients[i].id, content):
                raise RuntimeError("no reply within 10 s")

        return [
            await closed_loop(pairs, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
            for _ in range(cfg.reps)
        ]
    finally:
        await fleet.close()


async def core_loop_channel(address: str, pairs: int, cfg: Config, pid: int) -> list[Rep]:
    """The core exchange on channels (AgentService.OpenChannel): the sender's ``send`` with ``wait``
    on its channel -> the message event on the recipient's channel -> its ``reply`` on the same
    channel; no unary RPC per round trip."""
    fleet = Fleet(address)
    try:
        token = await fleet.project()
        recipients = [await fleet.agent(token, f"r{i}") for i in range(pairs)]
        senders = [await fleet.agent(token, f"s{i}") for i in range(pairs)]
        outbound = [await fleet.open_channel(sender) for sender in senders]
        await asyncio.gather(*(fleet.channel_recipient(r) for r in recipients))
        content = "x" * cfg.payload_size

        async def op(i: int) -> None:
            sent = await outbound[i].send(recipients[i].id, content, wait=10)
            if not sent.terminal:
                raise RuntimeError("no reply within 10 s")

        return [
            await closed_loop(pairs, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
            for _ in range(cfg.reps)
        ]
    finally:
        await fleet.close()


async def fanout(address: str, callers: int, cfg: Config, pid: int) -> list[Rep]:
    """FanoutMessages to three agents that reply; one gathered fanout per op."""
    fleet = Fleet(address)
    try:
        groups: list[tuple[Agent, list[Agent]]] = []
        for i in range(callers):
            token = await fleet.project()
            targets = [await fleet.agent(token, f"r{i}.{j}") for j in range(3)]
            groups.append((await fleet.agent(token, f"s{i}"), targets))
        await asyncio.gather(*(fleet.recipient(t) for _, targets in groups for t in targets))
        content = "x" * cfg.payload_size

        async def op(i: int) -> None:
            caller, targets = groups[i]
            statuses = await caller.fanout([t.id for t in targets], content)
            if statuses != [1, 1, 1]:  # FANOUT_STATUS_TERMINAL
                raise RuntimeError(f"fanout did not gather three replies: {statuses}")

        return [
            await closed_loop(callers, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))
            for _ in range(cfg.reps)
        ]
    finally:
        await fleet.close()


class HubDelivery:
    """A queued backlog per subscriber, drained by opening every stream at once, one drain per ``rep()``.

    Messages stay unacknowledged, so every repetition re-subscribes from seq 0 and receives the same
    backlog again. Rate: message events received per second from opening the streams to the last
    one. A session, so that its repetitions can alternate with the raw push's (``PushDelivery``).
    """

    def __init__(self, address: str, subscribers: int, cfg: Config, pid: int) -> None:
        self.per = max(1, cfg.delivery_events // subscribers)
        self.subscribers = subscribers
        self.cfg = cfg
        self.pid = pid
        self.fleet = Fleet(address)
        self.pairs: list[tuple[Agent, Agent]] = []

    async def open(self) -> None:
        """Register the agents (a project per pair) and queue the backlog, 32 sends in flight."""
        fleet = self.fleet
        for i in range(self.subscribers):
            token = await fleet.project()
            self.pairs.append((await fleet.agent(token, f"sub{i}"), await fleet.agent(token, f"pub{i}")))
        content = "x" * self.cfg.payload_size
        work = [pair for _ in range(self.per) for pair in self.pairs]  # a fixed list: bounded by count

        async def fill(worker: int) -> None:
            for sub, pub in work[worker::32]:
                await pub.send(sub.id, content)

        await asyncio.wait_for(asyncio.gather(*(fill(w) for w in range(32))), 300)

    async def rep(self) -> Rep:
        per = self.per
        cpu = CpuMeter(self.pid)
        cpu.start()
        start = time.perf_counter()

        async def drain(sub: Agent) -> float:
            got = 0
            events = sub.subscribe()
            try:
                async for event in events:
                    if event.kind == "message":
                        got += 1
                        if got == per:
                            return time.perf_counter() - start
            finally:
                await events.aclose()
            raise RuntimeError(f"stream ended after {got} of {per} messages")

        rep = await drained([drain(s) for s, _ in self.pairs], per * self.subscribers, start, cpu)
        await asyncio.sleep(0.2)  # let the hub notice the closed streams before the next repetition
        return rep

    async def close(self) -> None:
        await self.fleet.close()


async def delivery(
    address: str, subscribers: int, cfg: Config, pid: int, *, before_measuring: Callable[[], None] | None = None
) -> list[Rep]:
    """``cfg.reps`` repetitions of ``HubDelivery`` (the hub measured on its own; the profiler uses this)."""
    session = HubDelivery(address, subscribers, cfg, pid)
    try:
        await session.open()
        if before_measuring is not None:
            before_measuring()
        return [await session.rep() for _ in range(cfg.reps)]
    finally:
        await session.close()


async def paced_delivery(address: str, cfg: Config, pid: int, *, on_channels: bool = False) -> list[Rep]:
    """SendMessage at a fixed rate over ``paced_pairs`` pairs; latency = event received - send scheduled.

    ``on_channels``: every publisher sends on its channel and every subscriber receives on its own.
    """
    fleet = Fleet(address)
    try:
        pairs: list[tuple[Agent, Agent]] = []
        for i in range(cfg.paced_pairs):
            token = await fleet.project()
            pairs.append((await fleet.agent(token, f"sub{i}"), await fleet.agent(token, f"pub{i}")))
        outbound: dict[str, AgentChannel] = {}
        if on_channels:
            await asyncio.gather(*(fleet.channel_recipient(sub, reply=False) for sub, _ in pairs))
            outbound = {pub.name: await fleet.open_channel(pub) for _, pub in pairs}
        else:
            await asyncio.gather(*(fleet.recipient(sub, reply=False) for sub, _ in pairs))
        reps: list[Rep] = []
        for rep in range(cfg.reps):
            due: dict[str, float] = {}

            async def send(k: int, scheduled: float, rep: int = rep, due: dict[str, float] = due) -> None:
                sub, pub = pairs[k % len(pairs)]
                key = f"{rep}:{k}:" + "x" * max(0, cfg.payload_size - 16)
                due[key] = scheduled
                if on_channels:
                    await outbound[pub.name].send(sub.id, key)
                else:
                    await pub.send(sub.id, key)

            cpu = CpuMeter(pid)
            cpu.start()
            _, skipped = await paced(cfg.paced_rate, cfg.paced_duration, send)
            await fleet.received.wait_all(list(due), 10)
            cpu_seconds = cpu.stop()
            latencies = [fleet.received.times[k] - t for k, t in due.items() if k in fleet.received.times]
            reps.append(
                Rep(
                    rate=len(latencies) / cfg.paced_duration,
                    ops=len(latencies),
                    seconds=cfg.paced_duration,
                    latencies=latencies,
                    cpu_seconds=cpu_seconds,
                    extra={
                        "offered_per_s": cfg.paced_rate,
                        "skipped": skipped,
                        "missing": len(due) - len(latencies),
                        "foreign_cpu": cpu.foreign,
                        "client_cpu_s": cpu.client,
                    },
                )
            )
        return reps
    finally:
        await fleet.close()


async def paced_channel_delivery(address: str, cfg: Config, pid: int) -> list[Rep]:
    """``paced_delivery`` on channels: publishers send on theirs, subscribers receive on theirs."""
    return await paced_delivery(address, cfg, pid, on_channels=True)


async def leases(address: str, workers: int, cfg: Config, pid: int) -> list[Rep]:
    """AcquireLease -> RenewLease -> ReleaseLease on a lease of the worker's own; rate counts RPCs."""
    fleet = Fleet(address)
    try:
        token = await fleet.project()
        agents = [await fleet.agent(token, f"l{i}") for i in range(workers)]

        async def op(i: int) -> None:
            await agents[i].lease_cycle(f"bench/lease-{i}")

        return [
            await closed_loop(workers, op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid), per_op=3)
            for _ in range(cfg.reps)
        ]
    finally:
        await fleet.close()


STREAMS_PER_AGENT = 8
AGENTS_PER_PROJECT = 10


async def idle_streams(address: str, cfg: Config, pid: int) -> tuple[Rep, Rep]:
    """Hold ``idle_streams`` Subscribe streams open: (KiB of hub RSS per stream, unary probe while open).

    The hub allows 8 streams per agent (no flag changes that), so the streams belong to
    idle_streams / 8 agents, in projects of 10 agents, over ``idle_channels`` shared channels.
    The probe is ListInbox (page size 1) at ``probe_workers`` in flight, by agents with their own channels.
    """
    fleet = Fleet(address)
    calls: list[AsyncGenerator[Event, None]] = []
    try:
        agents = await _idle_agents(fleet, cfg)
        token = await fleet.project()
        probes = [await fleet.agent(token, f"probe{i}") for i in range(cfg.probe_workers)]
        before = await _probe(probes, cfg, pid)
        await asyncio.sleep(0.3)
        rss0 = process_rss_kib(pid)
        start = time.perf_counter()
        open_sem = asyncio.Semaphore(200)

        async def open_one(i: int) -> AsyncGenerator[Event, None]:
            async with open_sem:
                events = agents[i // STREAMS_PER_AGENT].subscribe()
                first = await anext(events)
                if first.kind != "ready":
                    raise RuntimeError(f"first event was {first.kind!r}")
                return events

        calls = list(await asyncio.wait_for(asyncio.gather(*(open_one(i) for i in range(cfg.idle_streams))), 300))
        opened = time.perf_counter() - start
        await asyncio.sleep(0.5)
        rss1 = process_rss_kib(pid)
        memory = Rep(
            rate=(rss1 - rss0) / cfg.idle_streams,
            ops=cfg.idle_streams,
            seconds=opened,
            extra={"rss_before_kib": rss0, "rss_after_kib": rss1, "open_seconds": opened, "agents": len(agents)},
        )
        probe = await _probe(probes, cfg, pid)
        probe.extra["p99_before_ms"] = percentile(before.latencies, 99) * 1000
        return memory, probe
    finally:
        for events in calls:
            with contextlib.suppress(Exception):
                await events.aclose()
        await fleet.close()


async def idle_channels(address: str, cfg: Config, pid: int) -> list[Rep]:
    """Hold ``idle_streams`` agent channels open, each subscribed to its agent's inbox: KiB of hub RSS each.

    As ``idle_streams``: 8 per agent (a subscribed channel counts as one of the agent's streams), in
    projects of 10 agents, over ``idle_channels`` shared channels; raw stubs, so the client keeps
    nothing per channel but the call. A channel is open once its ``ready`` and its inbox's ready came.
    """
    fleet = Fleet(address)
    calls: list[Any] = []
    try:
        agents = await _idle_agents(fleet, cfg)
        await asyncio.sleep(0.3)
        rss0 = process_rss_kib(pid)
        start = time.perf_counter()
        open_sem = asyncio.Semaphore(200)
        subscribe = agent_service_pb2.OpenChannelRequest(subscribe=message_service_pb2.SubscribeRequest())

        async def open_one(i: int) -> Any:
            async with open_sem:
                client = agents[i // STREAMS_PER_AGENT].client
                call = agent_service_pb2_grpc.AgentServiceStub(client.channel).OpenChannel(metadata=client.metadata)
                first = await call.read()
                if first is grpc.aio.EOF or not first.HasField("ready"):
                    raise RuntimeError("the channel did not open with ready")
                await call.write(subscribe)
                events = await call.read()
                if events is grpc.aio.EOF or not events.events or not events.events[0].HasField("ready"):
                    raise RuntimeError("the channel's inbox did not open with ready")
                return call

        calls = list(await asyncio.wait_for(asyncio.gather(*(open_one(i) for i in range(cfg.idle_streams))), 300))
        opened = time.perf_counter() - start
        await asyncio.sleep(0.5)
        rss1 = process_rss_kib(pid)
        return [
            Rep(
                rate=(rss1 - rss0) / cfg.idle_streams,
                ops=cfg.idle_streams,
                seconds=opened,
                extra={"rss_before_kib": rss0, "rss_after_kib": rss1, "open_seconds": opened, "agents": len(agents)},
            )
        ]
    finally:
        for call in calls:
            call.cancel()
        await fleet.close()


async def _idle_agents(fleet: Fleet, cfg: Config) -> list[Agent]:
    """Register enough agents for ``idle_streams`` streams at 8 each, in projects of 10 agents, spread
    over ``idle_channels`` shared channels (the fleet closes them): the connections the ceilings'
    idle streams use, so that the ratio compares streams and not connections.
    """
    shared = [channel(fleet.address) for _ in range(cfg.idle_channels)]
    fleet.channels.extend(shared)
    await asyncio.gather(*(wait_ready(ch) for ch in shared))
    n_agents = -(-cfg.idle_streams // STREAMS_PER_AGENT)
    semaphore = asyncio.Semaphore(32)

    async def register(p: int) -> list[Agent]:
        async with semaphore:
            token = await fleet.project()
            count = min(AGENTS_PER_PROJECT, n_agents - p * AGENTS_PER_PROJECT)
            return [
                await fleet.agent(token, f"idle{p}.{j}", shared[(p * AGENTS_PER_PROJECT + j) % len(shared)])
                for j in range(count)
            ]

    projects = -(-n_agents // AGENTS_PER_PROJECT)
    groups = await asyncio.wait_for(asyncio.gather(*(register(p) for p in range(projects))), 300)
    return [agent for group in groups for agent in group]


async def _probe(agents: list[Agent], cfg: Config, pid: int) -> Rep:
    async def op(i: int) -> None:
        await agents[i].list_inbox()

    return await closed_loop(len(agents), op, warmup=cfg.warmup, duration=cfg.duration, cpu=CpuMeter(pid))


Scenario = Callable[[str, int, Config, int], Awaitable[list[Rep]]]
