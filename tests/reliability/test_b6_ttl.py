"""B6: TTL, hop limit and cancel (reliability.md §5.2 D5; docs/messaging.md "Expiry is exact").

A hub subprocess and a project of agents that send each other short-lived messages: TTLs of
1–2 s (the contract's minimum is 1 s; a share of sends asks for 0.2–0.99 s and must be refused),
hops 0–3 against hop limits 0–3 (0: the default, 5), cancels racing delivery 0–0.4 s after the send
was acknowledged. Recipients hold inbox streams that they drop and reopen (from their cursor or
from 0, so redelivery is exercised), and act on each message at random after 0–1.5 s (before or
after its TTL): acknowledge, reply, forward it one hop further (hops + 1, the same limit), or
nothing. Every operation's times are recorded on the client's monotonic and wall clocks; the
hub's clock fields come with every message.

Invariants (0 of each):

- *after TTL*: a message event received later than the send's acknowledgement + TTL + 250 ms; a
  message event on a stream whose ready event (the hub's clock) is at or past the message's
  expiry, or that was requested after send acknowledgement + TTL (no slack: the hub reads after
  both); a reply or acknowledgement accepted at or after the expiry (the hub's clock fields);
  an expiry seen before the TTL had run (client clock) or not at the deadline (hub fields);
  a message still open in the database once its TTL passed.
- *hop limit*: a send accepted with hops ≥ its limit, or refused below it; a stored or delivered
  message with hops ≥ its limit; a refused send delivered or stored.
- *cancel*: a message event received later than the cancel's acknowledgement + 250 ms, or on a
  stream requested after it; a reply accepted after it.
- *sub-minimum TTLs*: accepted, delivered or stored.

The hub runs under libfaketime, and its machine's wall clock is stepped back one hour a third of
the way in, then to one hour ahead (two hours forward) two thirds in, with messages in flight:
the invariants above hold across the steps, the hub's clock fields never step (each send's create
time lies between the client's wall-clock readings around it, offset by the same amount all run
long), no agent's presence lapses, and the hub's own log shows that its wall clock did step.
Without libfaketime (Debian package ``faketime``, ``scripts/install-test-tools``) the test skips,
saying why, unless ``KXM_REQUIRE_TEST_TOOLS=1`` (``.ci/run``): then it fails.

The two checks with a 250 ms slack judge a live delivery by when this process read it. Lateness
the machine explains is discounted first (``Stalls``): this process's own event loop stalled just
then (sampled every 20 ms), or the hub taking as long to answer a trivial call made every 50 ms
(a loaded machine delays every write the hub decided in time). The raw counts are figures; the
checks without slack (streams opened after the deadline or the cancel) need no discount.
A send whose outcome stayed unknown (a deadline) is retried with its key, as clients do.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import glob
import json
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from kxm_grpc.testing import ADMIN_TOKEN, HubProcess
from tests.reliability.battery import Battery
from tests.reliability.history import History, outcome_of
from tests.reliability.probes import spread

pytestmark = pytest.mark.timeout(900)

SLACK = 0.25
"""Seconds a live delivery may arrive after its deadline (the write was decided before it)."""
EARLY = 0.005
"""Seconds an expiry may be seen before the client's own reckoning of the TTL (clock granularity)."""
DEFAULT_MAX_HOPS = 5
LAG_TICK = 0.02
"""Seconds between two looks at this process's event-loop lag."""


def wall_us() -> int:
    return time.time_ns() // 1000


def us(timestamp: Any) -> int:
    return int(timestamp.ToMicroseconds())


@dataclass
class Send:
    """One send as the client made it, and what the hub answered."""

    key: str
    sender: str
    target: str
    ttl: float
    hops: int
    max_hops: int
    parent: str = ""
    t_invoke: float = 0.0
    t_complete: float = 0.0
    wall_invoke: int = 0
    wall_complete: int = 0
    code: str = ""
    reason: str = ""
    id: str = ""
    create_time: int = 0
    expire_time: int = 0
    stored_max_hops: int = 0
    cancel_complete: float | None = None
    definite: bool = False
    """Whether the hub's answer settled the send (OK or a refusal), rather than leaving it unknown."""
    """Client monotonic time the cancel was acknowledged (None: not cancelled, or not acknowledged)."""

    @property
    def limit(self) -> int:
        return self.max_hops or DEFAULT_MAX_HOPS

    @property
    def valid_ttl(self) -> bool:
        return self.ttl >= 1.0


@dataclass
class Session:
    """One inbox stream of an agent."""

    agent: str
    t_request: float
    ready_time: int = 0
    """The ready event's time (hub clock, µs)."""


@dataclass
class Delivery:
    key: str
    agent: str
    session: Session
    t_recv: float
    redelivered: bool
    hops: int
    max_hops: int


@dataclass
class Load:
    """The run: agents, what they sent, what they saw (see the module docstring)."""

    battery: Battery
    history: History
    clients: dict[str, HubClient] = field(default_factory=dict)
    sends: dict[str, Send] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)
    expiries: list[tuple[str, float, int, int]] = field(default_factory=list)
    """(key, client monotonic receive time, end_time, expire_time) of each expired event."""
    replies: list[tuple[str, float, str, int, int]] = field(default_factory=list)
    """(key, invoke time, status, end_time, expire_time) of each reply."""
    acks: list[tuple[str, float, str, int, int]] = field(default_factory=list)
    """(key, invoke time, status or state, deliver_time, expire_time) of each acknowledgement."""
    sessions: list[Session] = field(default_factory=list)
    acted: set[tuple[str, str]] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    counter: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    token: str = ""
    lag: list[tuple[float, float]] = field(default_factory=list)
    """(when, how late) samples of this process's event loop."""
    probes: list[tuple[float, float]] = field(default_factory=list)
    """(when, how long) of a trivial call to the hub, every 50 ms."""
    presence_lapses: list[str] = field(default_factory=list)
    """Presence events that said a peer was no longer online."""

    def spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def new_key(self, prefix: str = "m") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- sending -------------------------------------------------------------------------------

    async def send(self, spec: Send) -> None:
        self.sends[spec.key] = spec
        client = self.clients[spec.sender]
        spec.t_invoke, spec.wall_invoke = time.monotonic(), wall_us()
        # An outcome left unknown (a deadline on a loaded machine) is retried with the same key, as
        # a client does: the hub answers with the message the first attempt stored, if it did.
        for attempt in range(5):
            try:
                async with self.history.record("send", agent=spec.sender, key=spec.target, idem=spec.key) as op:
                    response = await client.messages.send(
                        self.clients[spec.target].agent_id or "",
                        spec.key,
                        idempotency_key=spec.key,
                        hops=spec.hops,
                        max_hops=spec.max_hops,
                        ttl=spec.ttl,
                        allow_offline=True,
                        timeout=10.0,
                    )
                    op.value = response.message.id
                break
            except HubError as error:
                spec.t_complete, spec.wall_complete = time.monotonic(), wall_us()
                spec.code, spec.reason = error.status, str(error.reason or "")
                spec.definite = outcome_of(error) == "fail"
                if spec.definite or attempt == 4:
                    return
                self.errors[f"send:{error.status}:retried"] += 1
                await asyncio.sleep(0.2 * (attempt + 1))
        spec.t_complete, spec.wall_complete = time.monotonic(), wall_us()
        spec.definite = True
        message = response.message
        spec.code, spec.id = "OK", message.id
        spec.create_time, spec.expire_time = us(message.create_time), us(message.expire_time)
        spec.stored_max_hops = message.max_hops
        if self.battery.random.random() < 0.25:
            self.spawn(self.cancel(spec, self.battery.random.uniform(0.0, 0.4)))

    async def cancel(self, spec: Send, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            async with self.history.record("cancel", agent=spec.sender, idem=spec.key):
                await self.clients[spec.sender].messages.cancel(spec.id, timeout=10.0)
        except HubError as error:
            self.errors[f"cancel:{error.status}"] += 1
            return
        spec.cancel_complete = time.monotonic()

    # -- receiving -----------------------------------------------------------------------------

    async def consume(self, name: str, stop: asyncio.Event) -> None:
        """Inbox sessions of ``name`` until ``stop``: each lasts 1–4 s, then resumes (or starts over)."""
        client = self.clients[name]
        stub = client.messages._rpc()
        last_seq = 0
        while not stop.is_set():
            after = last_seq if self.battery.random.random() < 0.7 else 0
            session = Session(name, time.monotonic())
            self.sessions.append(session)
            call = stub.Subscribe(pb.SubscribeRequest(after_seq=after), metadata=client.metadata)
            lasts = self.battery.random.uniform(1.0, 4.0)

            async def read(call: Any = call, session: Session = session) -> None:
                nonlocal last_seq
                async for event in call:
                    now = time.monotonic()
                    kind = event.WhichOneof("event")
                    if kind == "ready":
                        session.ready_time = us(event.event_time)
                        continue
                    last_seq = max(last_seq, event.seq)
                    if kind == "message":
                        self.delivered(name, session, event, now)
                    elif kind == "expired":
                        m = event.expired
                        self.expiries.append((m.content, now, us(m.end_time), us(m.expire_time)))
                    elif kind == "presence" and event.presence.presence != types_pb2.PRESENCE_ONLINE:
                        self.presence_lapses.append(event.presence.name)

            reading = asyncio.ensure_future(read())
            with contextlib.suppress(TimeoutError, grpc.aio.AioRpcError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(reading), timeout=lasts)
            call.cancel()
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
                await reading
            await asyncio.sleep(self.battery.random.uniform(0.0, 0.3))

    async def watch_lag(self, stop: asyncio.Event) -> None:
        """How late this process's event loop runs (a late loop reads a delivery late)."""
        while not stop.is_set():
            before = time.monotonic()
            await asyncio.sleep(LAG_TICK)
            self.lag.append((before, time.monotonic() - before - LAG_TICK))

    async def watch_hub(self, stop: asyncio.Event) -> None:
        """How long the hub takes to answer a trivial call (GetCallerIdentity), every 50 ms."""
        client = next(iter(self.clients.values()))
        while not stop.is_set():
            began = time.monotonic()
            with contextlib.suppress(HubError):
                await client.agents.get_caller_identity(timeout=10.0)
            self.probes.append((began, time.monotonic() - began))
            await asyncio.sleep(0.05)

    async def replay(self, name: str) -> None:
        """One stream of ``name`` from 0, read until the head it reports (or 2 s), acting on nothing."""
        client = self.clients[name]
        session = Session(name, time.monotonic())
        self.sessions.append(session)
        call = client.messages._rpc().Subscribe(pb.SubscribeRequest(after_seq=0), metadata=client.metadata)
        head = 0
        with contextlib.suppress(TimeoutError, grpc.aio.AioRpcError):
            async with asyncio.timeout(2.0):
                async for event in call:
                    if event.HasField("ready"):
                        session.ready_time, head = us(event.event_time), event.ready.head_seq
                    elif event.HasField("message"):
                        m = event.message
                        self.deliveries.append(
                            Delivery(m.content, name, session, time.monotonic(), event.redelivered, m.hops, m.max_hops)
                        )
                    if event.seq >= head:
                        break
        call.cancel()

    def delivered(self, name: str, session: Session, event: Any, now: float) -> None:
        m = event.message
        self.deliveries.append(Delivery(m.content, name, session, now, event.redelivered, m.hops, m.max_hops))
        if (m.content, name) in self.acted:
            return
        self.acted.add((m.content, name))
        choice = self.battery.random.random()
        delay = self.battery.random.uniform(0.0, 1.5)
        if choice < 0.3:
            self.spawn(self.ack(name, m, delay))
        elif choice < 0.6:
            self.spawn(self.reply(name, m, delay))
        elif choice < 0.75:
            self.spawn(self.forward(name, m, delay))

    async def ack(self, name: str, m: Any, delay: float) -> None:
        await asyncio.sleep(delay)
        invoked = time.monotonic()
        try:
            async with self.history.record("ack", agent=name, idem=m.content):
                response = await self.clients[name].messages.ack([m.id], timeout=10.0)
        except HubError as error:
            self.acks.append((m.content, invoked, error.status, 0, 0))
            return
        got = response.messages[0]
        state = types_pb2.MessageState.Name(got.state)
        deliver = us(got.deliver_time) if got.HasField("deliver_time") else 0
        self.acks.append((m.content, invoked, state, deliver, us(got.expire_time)))

    async def reply(self, name: str, m: Any, delay: float) -> None:
        await asyncio.sleep(delay)
        invoked = time.monotonic()
        try:
            async with self.history.record("reply", agent=name, idem=m.content):
                response = await self.clients[name].messages.reply(m.id, "done", timeout=10.0)
        except HubError as error:
            self.replies.append((m.content, invoked, error.status, 0, 0))
            return
        got = response.message
        self.replies.append((m.content, invoked, "OK", us(got.end_time), us(got.expire_time)))

    async def forward(self, name: str, m: Any, delay: float) -> None:
        """Pass the request on one hop, as an agent delegating it would: hops + 1, the same limit."""
        await asyncio.sleep(delay)
        others = [n for n in self.clients if n not in (name, m.from_agent_name)]
        target = self.battery.random.choice(others)
        spec = Send(
            self.new_key("f"), name, target, self.battery.random.uniform(1.0, 2.0), m.hops + 1, m.max_hops, m.content
        )
        await self.send(spec)


def random_send(load: Load, names: list[str]) -> Send:
    rnd = load.battery.random
    sender, target = rnd.sample(names, 2)
    ttl = rnd.uniform(0.2, 0.99) if rnd.random() < 0.1 else rnd.uniform(1.0, 2.0)
    return Send(load.new_key(), sender, target, round(ttl, 4), rnd.randint(0, 3), rnd.randint(0, 3))


async def run_load(
    battery: Battery,
    load: Load,
    names: list[str],
    *,
    count: int,
    seconds: float,
    at_fraction: list[tuple[float, Callable[[], Awaitable[None]]]] | None = None,
) -> None:
    """``count`` sends from random agents to random others, spread over ``seconds``, with each action
    run at its fraction of ``seconds`` (by the clock, so a slow machine still gets load before and after)."""
    started = time.monotonic()
    workers = 16
    queue: asyncio.Queue[Send | None] = asyncio.Queue(maxsize=workers * 2)

    async def worker() -> None:
        while (spec := await queue.get()) is not None:
            await load.send(spec)

    async def in_turn() -> None:
        for fraction, action in sorted(at_fraction or [], key=lambda item: item[0]):
            await asyncio.sleep(max(0.0, started + fraction * seconds - time.monotonic()))
            await action()  # one after the other, each at its time or once the one before is done

    running = [asyncio.create_task(worker()) for _ in range(workers)]
    actions = [asyncio.create_task(in_turn())]
    try:
        for index in battery.bounded(count, seconds * 3):
            due = started + seconds * index / count
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            await queue.put(random_send(load, names))
    finally:
        for _ in running:
            await queue.put(None)
        await asyncio.gather(*running)
        await asyncio.gather(*actions)


def stored(db: Path) -> dict[str, tuple[int, int, str, int, int]]:
    """content -> (hops, max_hops, state, expire_time, end_time) of every message in the database."""
    conn = sqlite3.connect(db, timeout=10)
    try:
        rows = conn.execute("SELECT content, hops, max_hops, state, expire_time, end_time FROM messages").fetchall()
    finally:
        conn.close()
    return {r[0]: (r[1], r[2], r[3], r[4], r[5] or 0) for r in rows}


def judge(battery: Battery, load: Load, db: dict[str, tuple[int, int, str, int, int]]) -> None:
    """Every invariant of the module docstring over what the run recorded and the database holds."""
    sends = load.sends
    accepted = {k: s for k, s in sends.items() if s.code == "OK"}
    unknown = {k for k, s in sends.items() if not s.definite}
    # -- TTL -----------------------------------------------------------------------------------
    late_live, late_strict_hub, late_strict_client = [], [], []
    after_cancel_live, after_cancel_strict = [], []
    late_raw = after_cancel_raw = 0
    unexpected = []
    lateness = []
    stalled = Stalls(load.lag, load.probes)
    for d in load.deliveries:
        s = accepted.get(d.key)
        if s is None:
            if d.key not in unknown:  # a send whose outcome stayed unknown may have landed
                unexpected.append(d.key)
            continue
        deadline = s.t_complete + s.ttl
        # Lateness the machine explains is not the hub's: a read delayed by this process's own stalled
        # event loop, or a write held up while the hub took as long to answer anything at all.
        arrived = d.t_recv - stalled.at(d.t_recv)
        lateness.append(arrived - deadline)
        late_raw += d.t_recv > deadline + SLACK
        if arrived > deadline + SLACK:
            late_live.append(d.key)
        if d.session.ready_time and d.session.ready_time >= s.expire_time:
            late_strict_hub.append(d.key)
        if d.session.t_request > deadline:
            late_strict_client.append(d.key)
        if s.cancel_complete is not None:
            after_cancel_raw += d.t_recv > s.cancel_complete + SLACK
            if arrived > s.cancel_complete + SLACK:
                after_cancel_live.append(d.key)
            if d.session.t_request > s.cancel_complete:
                after_cancel_strict.append(d.key)
    replies_after_ttl = [k for k, _, code, end, expire in load.replies if code == "OK" and end >= expire]
    replies_after_cancel = [
        k
        for k, invoked, code, _, _ in load.replies
        if code == "OK" and (c := sends[k].cancel_complete) is not None and invoked > c
    ]
    acks_after_ttl = [
        k for k, _, state, deliver, expire in load.acks if state == "MESSAGE_STATE_DELIVERED" and deliver >= expire
    ]
    early_expiries = [
        k for k, t, _, _ in load.expiries if k in accepted and t < accepted[k].t_invoke + accepted[k].ttl - EARLY
    ]
    off_deadline = [k for k, _, end, expire in load.expiries if end != expire]
    still_open = [k for k, row in db.items() if row[2] in ("queued", "delivered")]
    # -- hop limit -----------------------------------------------------------------------------
    hop_accepted_over = [k for k, s in accepted.items() if s.hops >= s.limit]
    hop_refused_under = [k for k, s in sends.items() if s.reason.endswith("HOP_LIMIT_REACHED") and s.hops < s.limit]
    hop_stored_over = [k for k, row in db.items() if row[0] >= row[1]]
    hop_delivered_over = [d.key for d in load.deliveries if d.hops >= d.max_hops]
    limit_changed = [k for k, s in accepted.items() if s.stored_max_hops != s.limit]
    refused = {k for k, s in sends.items() if s.code not in ("OK", "") and s.definite}
    refused_seen = {d.key for d in load.deliveries if d.key in refused} | (refused & set(db))
    # -- sub-minimum TTLs ----------------------------------------------------------------------
    short = [s for s in sends.values() if not s.valid_ttl]
    short_accepted = [s.key for s in short if s.code == "OK"]
    short_refused_right = [s for s in short if s.code == "INVALID_ARGUMENT"]
    forwards = [s for s in sends.values() if s.parent]
    # -- the hub's clock against the client's wall clock: each send brackets their offset ------
    offset_low = max((s.create_time - s.wall_complete for s in accepted.values()), default=0)
    offset_high = min((s.create_time - s.wall_invoke for s in accepted.values()), default=0)

    battery.figure("sends", len(sends))
    battery.figure("sends_accepted", len(accepted))
    battery.figure("sends_left_unknown", len(unknown))
    battery.figure(
        "sends_refused_by_reason", dict(Counter(s.reason or s.code for s in sends.values() if s.code != "OK"))
    )
    battery.figure("forwards", len(forwards))
    battery.figure(
        "forwards_refused_at_the_hop_limit", sum(1 for s in forwards if s.reason.endswith("HOP_LIMIT_REACHED"))
    )
    battery.figure("longest_chain", longest_chain(sends))
    battery.figure("deliveries", len(load.deliveries))
    battery.figure("redeliveries", sum(d.redelivered for d in load.deliveries))
    battery.figure("stream_sessions", len(load.sessions))
    battery.figure("cancels_acknowledged", sum(1 for s in accepted.values() if s.cancel_complete is not None))
    battery.figure("expired_events", len(load.expiries))
    battery.figure("replies", dict(Counter(code for _, _, code, _, _ in load.replies)))
    battery.figure("acks", dict(Counter(state for _, _, state, _, _ in load.acks)))
    battery.figure("messages_stored", len(db))
    battery.figure("final_states", dict(Counter(row[2] for row in db.values())))
    battery.figure("delivery_vs_deadline_ms", spread(lateness))
    battery.figure("read_later_than_ttl_plus_250ms_before_discounting_stalls", late_raw)
    battery.figure("read_later_than_cancel_plus_250ms_before_discounting_stalls", after_cancel_raw)
    battery.figure("other_errors", dict(load.errors))
    battery.figure("hub_clock_offset_bracket_ms", [round(offset_low / 1000, 3), round(offset_high / 1000, 3)])
    battery.figure("presence_lapses_seen", len(load.presence_lapses))
    battery.figure("client_loop_lag_ms", spread([late for _, late in load.lag]))
    battery.figure("hub_probe_ms", spread([took for _, took in load.probes]))
    dump(battery.dir / "deliveries.jsonl", load)

    battery.at_least("messages accepted", len(accepted), len(sends) // 3)
    battery.at_least("deliveries", len(load.deliveries), len(accepted) // 3)
    battery.at_least("cancels acknowledged", sum(1 for s in accepted.values() if s.cancel_complete is not None), 1)
    battery.invariant("deliveries of messages never accepted", unexpected, [])
    battery.invariant("deliveries later than TTL + 250 ms (client clock)", late_live, [])
    battery.invariant("deliveries on streams opened at or after the expiry (hub clock)", late_strict_hub, [])
    battery.invariant("deliveries on streams requested after the TTL (client clock)", late_strict_client, [])
    battery.invariant("replies accepted at or after the expiry (hub clock)", replies_after_ttl, [])
    battery.invariant("acknowledgements accepted at or after the expiry (hub clock)", acks_after_ttl, [])
    battery.invariant("expiries seen before the TTL ran (client clock)", early_expiries, [])
    battery.invariant("expiries not at the deadline (hub clock)", off_deadline, [])
    battery.invariant("messages still open after their TTL", still_open, [])
    battery.invariant("sends accepted with hops >= the hop limit", hop_accepted_over, [])
    battery.invariant("sends refused for the hop limit below it", hop_refused_under, [])
    battery.invariant("stored messages with hops >= the hop limit", hop_stored_over, [])
    battery.invariant("deliveries with hops >= the hop limit", hop_delivered_over, [])
    battery.invariant("hop limits stored other than asked (0: 5)", limit_changed, [])
    battery.invariant("refused sends delivered or stored", sorted(refused_seen), [])
    battery.invariant("deliveries later than an acknowledged cancel + 250 ms", after_cancel_live, [])
    battery.invariant("deliveries on streams requested after an acknowledged cancel", after_cancel_strict, [])
    battery.invariant("replies accepted after an acknowledged cancel", replies_after_cancel, [])
    battery.invariant("sub-minimum TTLs accepted", short_accepted, [])
    battery.invariant("sub-minimum TTLs refused as INVALID_ARGUMENT", len(short_refused_right), len(short))
    # Every send's create time lies between its invoke and its answer: if the hub's clock stepped,
    # the brackets of the sends before and after the step no longer overlap (5 ms of rounding allowed).
    battery.invariant("the hub's clock stepped against the client's", offset_low > offset_high + 5_000, False)
    battery.invariant("presence events of a peer no longer online", sorted(set(load.presence_lapses)), [])


@dataclass
class Stalls:
    """How slow things were around a moment: this process's event-loop stalls (``Load.watch_lag``:
    a sleep of ``LAG_TICK`` that ended late) and the hub's answers to a trivial call
    (``Load.watch_hub``: one every 50 ms, timed), each an interval (begin, end, how slow)."""

    lag: list[tuple[float, float]]
    probes: list[tuple[float, float]]

    def __post_init__(self) -> None:
        spans = [(start, start + LAG_TICK + late, late) for start, late in self.lag]
        spans += [(start, start + took, took) for start, took in self.probes]
        self._spans = sorted(spans)
        self._begins = [begin for begin, _, _ in self._spans]
        self._longest = max((end - begin for begin, end, _ in self._spans), default=0.0)

    def at(self, when: float, window: float = 1.0) -> float:
        """The worst slowness of an interval overlapping ``[when - window, when]`` (0: none)."""
        index = bisect.bisect_right(self._begins, when)
        low = bisect.bisect_left(self._begins, when - window - self._longest)
        return max(
            (slow for _, end, slow in self._spans[low:index] if end >= when - window),
            default=0.0,
        )


def dump(path: Path, load: Load) -> None:
    """What the run saw, for a failure's post-mortem (kept with the history)."""
    with path.open("w") as out:
        for d in load.deliveries:
            row = {"key": d.key, "agent": d.agent, "t_recv": d.t_recv, "redelivered": d.redelivered}
            row |= {"t_request": d.session.t_request, "ready_time": d.session.ready_time}
            out.write(json.dumps(row) + "\n")
        for s in load.sends.values():
            out.write(json.dumps({"send": vars(s)}) + "\n")
        for when, late in load.lag:
            if late > 0.05:
                out.write(json.dumps({"lag_at": when, "late": late}) + "\n")


def longest_chain(sends: dict[str, Send]) -> int:
    depth: dict[str, int] = {}

    def of(key: str) -> int:
        if key not in depth:
            parent = sends[key].parent if key in sends else ""
            depth[key] = 1 + (of(parent) if parent else 0)
        return depth[key]

    return max((of(k) for k, s in sends.items() if s.code == "OK"), default=0)


async def open_load(battery: Battery, address: str, agents: int) -> tuple[Load, list[str]]:
    load = Load(battery, History(battery.dir / "history.jsonl"))
    async with HubClient(address, token=ADMIN_TOKEN) as admin:
        token = load.token = (await admin.admin.create_project("ttl")).project_token
    names = [f"agent{i}" for i in range(agents)]
    for name in names:
        client = HubClient(address, token=token, timeout=10.0)
        await client.agents.register(name)
        load.clients[name] = client
    return load, names


async def drive(
    battery: Battery,
    hub: HubProcess,
    *,
    at_fraction: list[tuple[float, Callable[[], Awaitable[None]]]] | None = None,
) -> Load:
    """The B6 load on ``hub`` (running), then the drain: every TTL runs out, every task ends."""
    agents = battery.size(pr=8, long=16)
    planned = battery.size(pr=2_000, long=10_000)
    load, names = await open_load(battery, hub.address, agents)
    stop = asyncio.Event()
    consumers = [asyncio.create_task(load.consume(name, stop)) for name in names]
    consumers.append(asyncio.create_task(load.watch_lag(stop)))
    consumers.append(asyncio.create_task(load.watch_hub(stop)))
    try:
        await run_load(
            battery,
            load,
            names,
            count=planned,
            seconds=battery.size(pr=15.0, long=75.0),
            at_fraction=at_fraction,
        )
        # Forwards, replies and acks come up to 1.5 s after their message; TTLs end within 2 s.
        for _ in battery.bounded(200, 30.0):
            if not load.tasks:
                break
            await asyncio.wait(set(load.tasks), timeout=0.5)
        await asyncio.sleep(2.5)  # every TTL has run out
    finally:
        stop.set()
        await asyncio.gather(*consumers, return_exceptions=True)
    # A last stream per agent, from 0, now that every TTL has passed: it must replay no message.
    await asyncio.gather(*(load.replay(name) for name in names))
    for client in load.clients.values():
        await client.close()
    load.history.close()
    battery.figure("sends_planned", planned)
    # A machine loaded by others slows the load down (its loop is cut by the wall clock), but a run
    # that made under a tenth of its sends exercised too little to prove anything.
    battery.at_least("sends made", len(load.sends), planned // 10)
    return load


def libfaketime() -> str | None:
    """The path of libfaketime (Debian: /usr/lib/<arch>/faketime/libfaketime.so.1), or None."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1") + glob.glob("/usr/lib/faketime/libfaketime.so.1"))
    return found[0] if found else None


def faketime_env(library: str, offset_file: Path) -> dict[str, str]:
    """A hub process under libfaketime whose wall clock is real time plus what ``offset_file`` says."""
    return {
        "LD_PRELOAD": library,
        "FAKETIME_TIMESTAMP_FILE": str(offset_file),
        # Read again at most every second (at every clock read, FAKETIME_NO_CACHE, the hub is 25
        # times slower), and file times left alone (faking every stat SQLite makes costs as much).
        "FAKETIME_CACHE_DURATION": "1",
        "NO_FAKE_STAT": "1",
        # A wall-clock step never moves the monotonic clocks (CLOCK_MONOTONIC, CLOCK_BOOTTIME).
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }


@pytest.mark.battery("B6", "nothing is delivered after its TTL, past its hop limit or after a cancel")
async def test_ttl_hop_limit_and_cancel(battery: Battery) -> None:
    library = libfaketime()
    if library is None:
        reason = "libfaketime is not installed (scripts/install-test-tools; Debian: apt-get install faketime)"
        if os.environ.get("KXM_REQUIRE_TEST_TOOLS") == "1":
            pytest.fail(f"{reason}; KXM_REQUIRE_TEST_TOOLS=1 forbids skipping B6", pytrace=False)
        pytest.skip(reason)
    offset_file = battery.dir / "faketime"
    offset_file.write_text("+0\n")
    # A presence window of 2 min: a step of an hour still lapses every agent at once if the hub's
    # clock follows it, while a machine too loaded to renew presence for 30 s does not.
    hub = HubProcess(
        battery.dir / "hub",
        durability="normal",
        env=faketime_env(library, offset_file),
        extra_args=("--stale-after", "120"),
    )
    hub.start()
    steps: list[tuple[str, float]] = []
    """(the last probe project, the step its log line showed in seconds) of each step."""
    probe = HubClient(hub.address, token=ADMIN_TOKEN)

    def step(offset: str) -> Callable[[], Awaitable[None]]:
        async def act() -> None:
            offset_file.write_text(offset + "\n")
            # Until the hub's wall clock shows the step (it reads the file again within a second): a
            # logged event's line carries that clock; the step's figure is the last probe's offset.
            for attempt in range(20):
                await asyncio.sleep(0.3)
                name = f"clock-probe-{len(steps)}-{attempt}-{battery.random.randrange(10**6)}"
                await probe.admin.create_project(name)
                seen = project_log_offsets(hub.log_path, {name: time.time()})
                if seen and abs(seen[0] - int(offset)) < 60:
                    break
            steps.append((name, seen[0] if seen else float("nan")))

        return act

    # The wall clock steps back one hour a third of the way in, then to one hour ahead.
    at = [(1 / 3, step("-3600")), (2 / 3, step("+3600"))]
    try:
        load = await drive(battery, hub, at_fraction=at)
        async with HubClient(hub.address, token=load.token) as reader:
            agents = (await reader.agents.list(include_offline=True)).agents
    finally:
        await probe.close()
        hub.stop()
    judge(battery, load, stored(battery.dir / "hub" / "hub.db"))
    battery.figure("agents_presence", dict(Counter(types_pb2.Presence.Name(a.presence) for a in agents)))
    battery.invariant(
        "agents not online at the end", [a.name for a in agents if a.presence != types_pb2.PRESENCE_ONLINE], []
    )
    # The steps reached the hub: its log lines (stamped with its wall clock) moved by them.
    seen = [offset for _, offset in steps]
    battery.figure("wall_clock_steps_seen_by_the_hub_s", [round(v) for v in seen])
    battery.invariant(
        "the hub's wall clock stepped back 1 h, then to 1 h ahead",
        [abs(v - want) < 60 for v, want in zip(seen, (-3600, 3600), strict=False)],
        [True, True],
    )


def project_log_offsets(log: Path, probes: dict[str, float]) -> list[float]:
    """For each probe project, its ``project_created`` log line's timestamp (the hub's wall clock)
    minus the real time the client saw it created: the step the hub's wall clock had taken."""
    found: dict[str, float] = {}
    for line in log.read_text(errors="replace").splitlines():
        if '"project_created"' not in line:
            continue
        record = json.loads(line)
        name = record.get("project")
        if name in probes:
            stamp = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00")).timestamp()
            found[name] = stamp - probes[name]
    return [found[name] for name in probes if name in found]
