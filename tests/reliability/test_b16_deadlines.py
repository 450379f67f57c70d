"""B16: deadlines and cancellation (reliability.md §4.5, §5.2; gRPC's deadlines guide).

A hub subprocess with its metrics listener, looked at from outside:

- **B16**: every RPC of the contract, with the credential it admits, is called with a 50 ms
  deadline against a hub whose every call stalls 250 ms before its handler
  (``handler_start=sleep(250)``), and every write RPC with a valid request against a hub whose
  every commit stalls 250 ms (``before_commit=sleep(250)``). The client sees DEADLINE_EXCEEDED;
  the server stops the call's work: its handler never finishes (``kxm_rpc_total`` does not count
  it) and the hub's event-loop task count (``kxm_event_loop_tasks``) is back to its idle level
  within 1 s of the burst. How late past 50 ms the client saw the status is a figure.
- **B16-waits**: the long polls (WaitMessage, SendMessage with a wait, FanoutMessages, AcquireLease
  with a wait) called with a deadline shorter than their wait, on a hub whose commits take 200 ms:
  the hub answers before the deadline (the wait is cut to the time the caller still listens,
  counted from when the call arrived, the write before the wait included), never letting the
  client's deadline cut it.
- **B16-cancel**: the same long polls and a Subscribe stream, cancelled by the client while they
  wait: the hub's tasks and open streams are back to their idle level within 1 s, no cancelled
  handler finishes, and the lease's wait queue keeps no cancelled waiter (the holder gets the lease
  again at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import lease_service_pb2, message_service_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.client.base import duration
from kxm_grpc.errors import HubError
from kxm_grpc.server.methods import RPCS
from kxm_grpc.services.auth import Access
from tests.reliability.battery import Battery
from tests.reliability.hubs import ADMIN_TOKEN, CrashHub
from tests.reliability.probes import baseline, metrics_address, scrape, settle, spread

pytestmark = pytest.mark.timeout(600)

DEADLINE = 0.05
"""The deadline every call of B16 carries (seconds)."""
SETTLED = 1.0
"""How soon after a burst the hub's tasks must be back to their idle level (seconds)."""
TASKS = "kxm_event_loop_tasks"
STREAMS = "kxm_open_streams"
RPC_TOTAL = "kxm_rpc_total"


def status_of(error: BaseException) -> str:
    if isinstance(error, grpc.aio.AioRpcError):
        return error.code().name
    if isinstance(error, HubError):
        return error.status
    raise error


async def timed(call: Callable[[], Awaitable[Any]]) -> tuple[str, float]:
    """Run one call; its status name (OK or the error's code) and how long the client waited."""
    started = time.monotonic()
    try:
        await call()
        code = "OK"
    except (grpc.aio.AioRpcError, HubError) as error:
        code = status_of(error)
    return code, time.monotonic() - started


@dataclass
class World:
    """A project on the hub: agents a, b, c, a runtime, and their raw credentials."""

    hub: CrashHub
    channel: grpc.aio.Channel
    token: str
    a: HubClient
    b: HubClient
    c: HubClient
    runtime_key: str
    clients: list[HubClient] = field(default_factory=list)
    names: Iterator[int] = field(default_factory=itertools.count)

    @classmethod
    async def create(cls, hub: CrashHub) -> World:
        admin = HubClient(hub.address, token=ADMIN_TOKEN)
        token = (await admin.admin.create_project("deadlines")).project_token
        agents = []
        for name in "abc":
            client = HubClient(hub.address, token=token)
            await client.agents.register(name)
            agents.append(client)
        runtime_key = (await agents[0].runtimes.register("rtm_deadlines")).runtime_key
        a, b, c = agents
        world = cls(hub, grpc.aio.insecure_channel(hub.address), token, a, b, c, runtime_key)
        world.clients = [admin, *agents]
        return world

    def unique(self, prefix: str) -> str:
        return f"{prefix}{next(self.names)}"

    def metadata(self, access: Access) -> tuple[tuple[str, str], ...]:
        """The credential each access policy admits (as the security tests choose it)."""
        if access is Access.AGENT:
            return self.a.metadata
        if access is Access.RUNTIME:
            return (("authorization", f"Bearer {self.runtime_key}"),)
        if access in (Access.ADMIN, Access.OPERATOR):
            return (("authorization", f"Bearer {ADMIN_TOKEN}"),)
        return (("authorization", f"Bearer {self.token}"),)

    async def close(self) -> None:
        await self.channel.close()
        for client in self.clients:
            await client.close()


@contextlib.asynccontextmanager
async def running(battery: Battery, name: str, failpoints: str = "") -> AsyncIterator[tuple[World, str]]:
    """A hub subprocess (with failpoints, metrics on a port of its own) and its world."""
    hub = CrashHub(battery.dir / name, failpoints=failpoints, seed=battery.seed, extra_args=("--metrics-port", "0"))
    hub.start()
    world = await World.create(hub)
    try:
        yield world, metrics_address(hub)
    finally:
        await world.close()
        hub.stop()


def rpc_call(world: World, method: str) -> Callable[[], Awaitable[Any]]:
    """Call ``method`` with an empty request and the credential it admits, with the B16 deadline."""
    facts = RPCS[method]
    assert facts.access is not None
    metadata = world.metadata(facts.access)
    if facts.client_streaming:  # a channel: open, no request, read until the deadline ends it

        async def channel() -> None:
            async for _ in world.channel.stream_stream(method)(metadata=metadata, timeout=DEADLINE):
                pass

        return channel
    if facts.server_streaming:

        async def stream() -> None:
            async for _ in world.channel.unary_stream(method)(b"", metadata=metadata, timeout=DEADLINE):
                pass

        return stream
    return lambda: world.channel.unary_unary(method)(b"", metadata=metadata, timeout=DEADLINE)


async def burst(
    battery: Battery, address: str, calls: dict[str, Callable[[], Awaitable[Any]]], idle: float
) -> tuple[dict[str, str], list[float], float, float]:
    """Run ``calls`` at once; their statuses, their waits, handlers finished meanwhile, settle time."""
    before = (await scrape(address)).value(RPC_TOTAL)
    outcomes = await asyncio.gather(*(timed(call) for call in calls.values()))
    settled, took, level = await settle(address, TASKS, at_most=idle, seconds=SETTLED)
    after = (await scrape(address)).value(RPC_TOTAL)
    battery.figure("tasks_level_last_seen", level)
    if not settled:
        battery.add("bursts_not_settled_within_1s")
    return (
        {method: code for method, (code, _) in zip(calls, outcomes, strict=True)},
        [elapsed for _, elapsed in outcomes],
        after - before,
        took if settled else float("inf"),
    )


@pytest.mark.battery("B16", "every RPC gives up at its deadline, and its server work stops")
async def test_every_rpc_stops_at_its_deadline(battery: Battery) -> None:
    rounds = battery.size(pr=3, long=30)
    waits: list[float] = []
    settles: list[float] = []
    codes: dict[str, int] = {}
    finished = 0
    calls_made = 0
    odd: dict[str, str] = {}
    """Calls that did not end DEADLINE_EXCEEDED, and how they ended."""
    # Every RPC stalls at its start: reads, writes and the stream alike.
    async with running(battery, "stalled", "handler_start=sleep(250)") as (world, address):
        idle = await baseline(address, TASKS)
        battery.figure("idle_tasks", idle)
        for _ in battery.bounded(rounds, battery.size(pr=60.0, long=300.0)):
            calls = {method: rpc_call(world, method) for method in RPCS}
            statuses, elapsed, done, took = await burst(battery, address, calls, idle)
            for code in statuses.values():
                codes[code] = codes.get(code, 0) + 1
            waits += elapsed
            settles.append(took)
            finished += round(done)
            calls_made += len(calls)
            odd |= {m: c for m, c in statuses.items() if c != "DEADLINE_EXCEEDED"}
    # Every write stalls at its commit: the handler waits for the database when its deadline passes.
    async with running(battery, "slow-commits", "before_commit=sleep(250)") as (world, address):
        idle = await baseline(address, TASKS)
        sent_keys: list[str] = []
        for _ in battery.bounded(rounds, battery.size(pr=60.0, long=300.0)):
            calls = await write_calls(world, sent_keys)
            statuses, elapsed, done, took = await burst(battery, address, calls, idle)
            for code in statuses.values():
                codes[code] = codes.get(code, 0) + 1
            waits += elapsed
            settles.append(took)
            finished += round(done)
            calls_made += len(calls)
            odd |= {f"write {m}": c for m, c in statuses.items() if c != "DEADLINE_EXCEEDED"}
        await asyncio.sleep(1.0)  # the writer thread finishes the batch it had taken
        db = world.hub.db_path
    committed = committed_sends(db, sent_keys)
    late = [w - DEADLINE for w in waits]
    battery.figure("calls", calls_made)
    battery.figure("rpcs_covered", len(RPCS))
    battery.figure("statuses", codes)
    battery.figure("late_past_deadline_ms", spread(late))
    battery.figure("within_deadline_plus_100ms", round(sum(w <= DEADLINE + 0.1 for w in waits) / len(waits), 4))
    battery.figure("settle_ms", spread([s for s in settles if s != float("inf")]))
    battery.figure("handlers_finished_after_deadline", finished)
    battery.figure("sends_given_up", len(sent_keys))
    battery.figure("sends_committed_after_their_caller_gave_up", committed)
    stopped = (calls_made - finished) / calls_made
    battery.figure("server_work_stopped", round(stopped, 4))
    battery.invariant("calls not ending DEADLINE_EXCEEDED", odd, {})
    battery.at_least("share of calls whose server work stopped", stopped, 0.99)
    battery.invariant(
        "bursts whose tasks were not back to idle within 1 s", battery.figures.get("bursts_not_settled_within_1s", 0), 0
    )


async def write_calls(world: World, sent_keys: list[str]) -> dict[str, Callable[[], Awaitable[Any]]]:
    """One valid call of each write RPC (fresh objects each time, so none is refused before it writes)."""
    a, b = world.a, world.b
    prepared = await asyncio.gather(
        *(a.messages.send(b.agent_id or "", world.unique("setup-"), allow_offline=True) for _ in range(3)),
        a.leases.acquire(world.unique("held-"), ttl=60),
        a.leases.acquire(world.unique("held-"), ttl=60),
    )
    to_cancel, to_reply, to_ack = (sent.message.id for sent in prepared[:3])
    renewable, releasable = prepared[3], prepared[4]
    key = world.unique("given-up-")
    sent_keys.append(key)
    t = DEADLINE
    return {
        "SendMessage": lambda: a.messages.send(
            b.agent_id or "", key, idempotency_key=key, allow_offline=True, timeout=t
        ),
        "CancelMessage": lambda: a.messages.cancel(to_cancel, timeout=t),
        "ReplyToMessage": lambda: b.messages.reply(to_reply, "done", timeout=t),
        "AckMessages": lambda: b.messages.ack([to_ack], timeout=t),
        "FanoutMessages": lambda: a.messages._rpc().FanoutMessages(
            message_service_pb2.FanoutMessagesRequest(
                targets=["b", "c"], content=world.unique("fan-"), allow_offline=True
            ),
            metadata=a.metadata,
            timeout=t,
        ),
        "Heartbeat": lambda: a.agents.heartbeat(timeout=t),
        "AcquireLease": lambda: a.leases.acquire(world.unique("fresh-"), ttl=60, timeout=t),
        "RenewLease": lambda: a.leases.renew(renewable.lease.name, renewable.lease.fencing_token, ttl=60, timeout=t),
        "ReleaseLease": lambda: a.leases.release(releasable.lease.name, releasable.lease.fencing_token, timeout=t),
        "RegisterAgent": lambda: HubClient(world.hub.address, token=world.token, channel=world.channel).agents.register(
            world.unique("late-"), timeout=t
        ),
        "CreateProject": lambda: world.clients[0].admin.create_project(world.unique("late-"), timeout=t),
        "RuntimeHeartbeat": lambda: HubClient(
            world.hub.address, token=world.runtime_key, channel=world.channel
        ).runtimes.heartbeat(timeout=t),
    }


def committed_sends(db: Any, keys: list[str]) -> int:
    """How many of the given-up sends the database holds (the writer had taken them before their caller left)."""
    conn = sqlite3.connect(db, timeout=10)
    try:
        marks = ",".join("?" * len(keys))
        return int(conn.execute(f"SELECT count(*) FROM messages WHERE content IN ({marks})", keys).fetchone()[0])
    finally:
        conn.close()


# -- long polls and the remaining deadline --------------------------------------------------------


def long_polls(world: World, open_id: str, held: str, deadline: float) -> dict[str, Callable[[], Awaitable[Any]]]:
    """Each long poll with a wait far beyond ``deadline``: the hub must answer before the deadline."""
    a, b = world.a, world.b
    return {
        "WaitMessage": lambda: a.messages._rpc().WaitMessage(
            message_service_pb2.WaitMessageRequest(message_id=open_id, wait=duration(60)),
            metadata=a.metadata,
            timeout=deadline,
        ),
        "SendMessage+wait": lambda: a.messages.send(
            b.agent_id or "", world.unique("poll-"), wait=60, allow_offline=True, timeout=deadline
        ),
        "FanoutMessages": lambda: a.messages._rpc().FanoutMessages(
            message_service_pb2.FanoutMessagesRequest(
                targets=["b", "c"], content=world.unique("poll-"), wait=duration(1800), allow_offline=True
            ),
            metadata=a.metadata,
            timeout=deadline,
        ),
        "AcquireLease+wait": lambda: a.leases.acquire(held, ttl=60, wait=600, timeout=deadline),
    }


@pytest.mark.battery("B16-waits", "long polls pass the remaining deadline on")
async def test_long_polls_answer_before_the_callers_deadline(battery: Battery) -> None:
    deadlines = battery.size(pr=[1.0], long=[0.5, 1.0, 2.0])
    reps = battery.size(pr=3, long=10)
    answered: dict[str, int] = {}
    missed: dict[str, int] = {}
    slack: list[float] = []
    codes: dict[str, int] = {}
    # Every commit takes 200 ms: a long poll that writes first (send, fanout, acquire) must count it.
    async with running(battery, "waits", "before_commit=sleep(200)") as (world, _):
        open_id = (await world.a.messages.send(world.b.agent_id or "", "never answered")).message.id
        held = (await world.c.leases.acquire("held-by-c", ttl=120)).lease.name
        for deadline, _ in itertools.product(deadlines, range(reps)):
            calls = long_polls(world, open_id, held, deadline)
            outcomes = await asyncio.gather(*(timed(call) for call in calls.values()))
            for kind, (code, elapsed) in zip(calls, outcomes, strict=True):
                codes[code] = codes.get(code, 0) + 1
                if code == "DEADLINE_EXCEEDED":
                    missed[kind] = missed.get(kind, 0) + 1
                else:
                    answered[kind] = answered.get(kind, 0) + 1
                    slack.append(deadline - elapsed)
    total = sum(answered.values()) + sum(missed.values())
    battery.figure("long_polls", total)
    battery.figure("deadlines_s", deadlines)
    battery.figure("statuses", codes)
    battery.figure("answered_by_kind", answered)
    battery.figure("deadline_exceeded_by_kind", missed)
    battery.figure("answer_before_deadline_ms", spread(slack))
    # The hub answers a tenth of the time left before the deadline (at least 50 ms). A scheduling
    # stall of the machine longer than that can still let a call miss (measured: up to 1 in 13 at a
    # load average of 20 on 2 cores, of every kind alike), so misses are tolerated up to 1 in 5 in
    # all and 1 in 2 per kind; a wait that ignores the time spent before it (or the deadline)
    # misses every time (before the fix: every send, fanout and acquire that waited).
    battery.at_least("share of long polls answered by the hub before the deadline", sum(answered.values()) / total, 0.8)
    battery.invariant(
        "long-poll kinds answered before the deadline in less than half their calls",
        {k for k in {*answered, *missed} if answered.get(k, 0) < missed.get(k, 0)},
        set(),
    )
    battery.invariant(
        "statuses other than the long polls' own answers",
        set(codes) - {"OK", "FAILED_PRECONDITION", "DEADLINE_EXCEEDED"},
        set(),
    )


# -- cancels ---------------------------------------------------------------------------------------


@pytest.mark.battery("B16-cancel", "a client's cancel mid-wait stops the server's work")
async def test_cancelled_waits_leave_nothing_behind(battery: Battery) -> None:
    rounds = battery.size(pr=5, long=50)
    settle_times: list[float] = []
    stream_settle: list[float] = []
    reacquire: list[float] = []
    finished = 0
    cancelled = 0
    async with running(battery, "cancels") as (world, address):
        a, b, c = world.a, world.b, world.c
        open_id = (await a.messages.send(b.agent_id or "", "never answered")).message.id
        lease = (await c.leases.acquire("queue", ttl=120)).lease
        idle = await baseline(address, TASKS)
        idle_streams = await baseline(address, STREAMS)
        battery.figure("idle_tasks", idle)
        for _ in battery.bounded(rounds, battery.size(pr=60.0, long=600.0)):
            before = (await scrape(address)).value(RPC_TOTAL)
            calls = [
                a.messages._rpc().WaitMessage(
                    message_service_pb2.WaitMessageRequest(message_id=open_id, wait=duration(60)),
                    metadata=a.metadata,
                    timeout=120,
                ),
                a.messages._rpc().SendMessage(
                    message_service_pb2.SendMessageRequest(
                        target="b", content=world.unique("c-"), wait=duration(60), allow_offline=True
                    ),
                    metadata=a.metadata,
                    timeout=120,
                ),
                a.messages._rpc().FanoutMessages(
                    message_service_pb2.FanoutMessagesRequest(
                        targets=["b", "c"], content=world.unique("c-"), wait=duration(60), allow_offline=True
                    ),
                    metadata=a.metadata,
                    timeout=120,
                ),
                a.leases._rpc().AcquireLease(
                    lease_service_pb2.AcquireLeaseRequest(name="queue", ttl=duration(60), wait=duration(60)),
                    metadata=a.metadata,
                    timeout=120,
                ),
            ]
            stream = b.messages._rpc().Subscribe(message_service_pb2.SubscribeRequest(), metadata=b.metadata)
            await anext(aiter(stream))  # the ready event: the stream is open
            await asyncio.sleep(0.3)  # every call reaches its wait (each holds tasks on the hub meanwhile)
            battery.figure("tasks_while_waiting", (await scrape(address)).value(TASKS))
            for call in [*calls, stream]:
                call.cancel()
            for call in calls:
                with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                    await call
            cancelled += len(calls) + 1
            done, took, _ = await settle(address, TASKS, at_most=idle, seconds=SETTLED)
            settle_times.append(took if done else float("inf"))
            streams_done, streams_took, _ = await settle(address, STREAMS, at_most=idle_streams, seconds=SETTLED)
            stream_settle.append(streams_took if streams_done else float("inf"))
            finished += round((await scrape(address)).value(RPC_TOTAL) - before)
            # The cancelled waiter left the lease's queue: the holder gets it again, with a wait, at once.
            await c.leases.release("queue", lease.fencing_token)
            started = time.monotonic()
            lease = (await c.leases.acquire("queue", ttl=120, wait=5)).lease
            reacquire.append(time.monotonic() - started)
    battery.figure("calls_cancelled", cancelled)
    battery.figure("settle_ms", spread([s for s in settle_times if s != float("inf")]))
    battery.figure("streams_settle_ms", spread([s for s in stream_settle if s != float("inf")]))
    battery.figure("reacquire_after_cancelled_waiter_ms", spread(reacquire))
    battery.figure("handlers_finished_after_cancel", finished)
    battery.invariant(
        "rounds whose tasks were not back to idle within 1 s", sum(s == float("inf") for s in settle_times), 0
    )
    battery.invariant(
        "rounds whose streams were not closed within 1 s", sum(s == float("inf") for s in stream_settle), 0
    )
    battery.invariant("cancelled handlers that finished anyway", finished, 0)
    battery.invariant("re-acquires that waited behind a cancelled waiter (> 1 s)", sum(r > 1.0 for r in reacquire), 0)
