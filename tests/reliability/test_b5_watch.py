"""B5: the inbox subscription is Ordered, Unique, Reliable and Resumable (etcd's watch validators).

**Watch.** Subscribers on a subprocess hub receive messages from senders (each send retried with
its idempotency key after an indeterminate outcome). Every subscriber drops its stream at random
(after a few events or a moment: it cancels the call, or closes its channel and opens another)
and resubscribes, resuming after the last sequence it received, after the last one it
acknowledged, or from 0; it acknowledges most messages it reads (each acknowledgement retried
until the hub answers it: acknowledging is idempotent) and leaves the others unacknowledged on
purpose. Meanwhile the hub is killed with SIGKILL every U[0.5, 2] s (long: U[0.5, 3] s) and
restarted at once (as in B1). Then the faults and sends stop, every subscriber drains its inbox, and the sessions are
checked against the final read of the database (each message's per-recipient ``seq``):

- ``checkers.watch``: 0 out of order and 0 duplicates within a session, 0 gaps (a session that
  resumed after ``a`` received every unacknowledged stored message above ``a`` up to its last;
  a message whose acknowledgement never got an answer may have been retired, so it is excused),
  0 delivered again after an acknowledgement the hub answered OK, every stored message delivered;
- resumption: every ready event confirms the cursor asked for; every message left unacknowledged
  at or below the cursor is redelivered first, flagged ``redelivered`` (and nothing above it is);
- ``checkers.total_queue``: lost = unexpected = duplicated = 0, no message stored twice; every
  stored message acknowledged after the drain; ``integrity_check`` ok after every kill.

**Reconnect storm.** N streams (over 10 channels; ``--max-streams-per-agent`` raised) are open
when the hub is killed and restarted; the moment it serves again all N resubscribe at once, each
retrying with jittered backoff. 100% must be open again within 10 s (none lost to CANCELLED or
anything else) and each must deliver a message sent afterwards. The completion time is a figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from tests.reliability import checkers
from tests.reliability.battery import Battery, tier
from tests.reliability.history import History, outcome_of
from tests.reliability.hubs import CrashHub, kill_loop
from tests.reliability.streams_kit import RETRIED, Identity, new_project, percentile, register_agents, stub, subscribe

pytestmark = pytest.mark.timeout(900 if tier() == "pr" else 3600)

# Fast reconnects after each kill (gRPC's default first backoff is 1 s, growing to 120 s).
CHANNEL_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.max_reconnect_backoff_ms", 1000)]
ACK_PROBABILITY = 0.85
"""The share of messages a subscriber acknowledges as it reads them (the rest it leaves for later)."""
STORM_WITHIN = 60.0
"""How long a storm stream may take to reopen before the run calls it hung: a bound against hangs,
not a timing target (the completion time is a figure; issue 13: timings are reported, never
asserted). The long tier's 2,000 streams took 9.7 s on a loaded machine."""


@dataclass
class Subscriber:
    """One subscribing agent: its sessions and everything the checks need from them."""

    who: Identity
    address: str
    channel: grpc.aio.Channel
    sessions: list[checkers.Session] = field(default_factory=list)
    seen_max: int = 0
    """The highest seq any session received (of any event: messages, replies, presence)."""
    acked_max: int = 0
    """The highest seq whose acknowledgement the hub answered OK."""
    acked: set[int] = field(default_factory=set)
    skipped: dict[int, str] = field(default_factory=dict)
    """seq → message id of messages read and deliberately not acknowledged (no acknowledgement tried)."""
    ack_unknown: set[int] = field(default_factory=set)
    """seqs whose acknowledgement never got an answer (its retries ran out)."""
    received_keys: list[str] = field(default_factory=list)
    redelivered_after_ack: list[str] = field(default_factory=list)
    not_redelivered: list[tuple[int, int]] = field(default_factory=list)
    """(cursor, seq): left unacknowledged at or below the cursor, and not redelivered by a session that went past it."""
    wrong_flag: list[tuple[int, int, bool]] = field(default_factory=list)
    """(cursor, seq, redelivered flag) where the flag disagreed with seq <= cursor."""
    wrong_cursor: list[tuple[int, int]] = field(default_factory=list)
    """(cursor asked, after_seq the ready event confirmed) where they differ."""
    redelivered: int = 0
    ends: Counter[str] = field(default_factory=Counter)
    """How sessions ended: ``cancel``, ``close`` (dropped by the subscriber) or the status the hub ended them with."""
    cursors: Counter[str] = field(default_factory=Counter)


@dataclass
class Run:
    battery: Battery
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    draining: bool = False


async def acknowledge(sub: Subscriber, message_id: str, run: Run) -> bool | None:
    """Acknowledge one message, retrying until the hub answers: True (OK), False (refused), None (no answer)."""
    backoff = 0.05
    for _ in run.battery.bounded(200, 40):
        try:
            await stub(sub.channel).AckMessages(
                pb.AckMessagesRequest(message_ids=[message_id]), metadata=sub.who.metadata, timeout=3
            )
            return True
        except grpc.aio.AioRpcError as error:
            if outcome_of(error) == "fail":
                return False
        await asyncio.sleep(run.battery.random.uniform(backoff / 2, backoff))
        backoff = min(1.0, backoff * 2)
    return None


async def next_event(call: Any, stop: asyncio.Event, seconds: float) -> object:
    """The call's next event, or ``None`` once ``seconds`` pass or ``stop`` is set (then the read is
    cancelled, which cancels the call: that is the subscriber dropping its stream)."""
    reading = asyncio.ensure_future(call.read())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait(
            {reading, stopping}, timeout=max(seconds, 0.0), return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        stopping.cancel()
    if reading in done:
        return reading.result()
    reading.cancel()
    with contextlib.suppress(BaseException):
        await reading
    return None


async def watch_inbox(sub: Subscriber, run: Run) -> None:
    """Sessions until ``run.stop``: resume, read, acknowledge most, drop at random (see the module docstring)."""
    rng = run.battery.random
    backoff = 0.05
    for _ in run.battery.bounded(100_000, 3600):
        if run.stop.is_set():
            return
        mode = "seen" if run.draining else rng.choices(("seen", "acked", "zero"), (0.5, 0.4, 0.1))[0]
        cursor = {"seen": sub.seen_max, "acked": sub.acked_max, "zero": 0}[mode]
        sub.cursors[mode] += 1
        call = subscribe(sub.channel, sub.who, after_seq=cursor)
        ended = ""
        try:
            ready = await next_event(call, run.stop, 30)
            if ready is None or ready is grpc.aio.EOF:
                ended = "cancel" if ready is None else "EOF"
                continue
            assert isinstance(ready, pb.SubscribeResponse)
            backoff = 0.05
            if ready.ready.after_seq != cursor:
                sub.wrong_cursor.append((cursor, ready.ready.after_seq))
            session = checkers.Session(sub.who.name, resumed_after=cursor)
            sub.sessions.append(session)
            owed = {seq for seq in sub.skipped if seq <= cursor}
            passed = False
            draining = run.draining
            budget = 10**9 if draining else rng.randint(2, 30)
            until = time.monotonic() + (10**9 if draining else rng.uniform(0.3, 3.0))
            while budget > 0:
                event = await next_event(call, run.stop, until - time.monotonic())
                if event is None:
                    ended = "cancel"
                    break
                if event is grpc.aio.EOF:
                    ended = "EOF"
                    break
                assert isinstance(event, pb.SubscribeResponse)
                passed = passed or event.seq > cursor
                sub.seen_max = max(sub.seen_max, event.seq)  # every event moves the cursor, not only messages
                if not event.HasField("message"):
                    continue
                budget -= 1
                seq, message = event.seq, event.message
                session.received.append(seq)
                sub.received_keys.append(message.content)
                if event.redelivered:
                    sub.redelivered += 1
                if event.redelivered != (seq <= cursor):
                    sub.wrong_flag.append((cursor, seq, event.redelivered))
                if seq in sub.acked:
                    sub.redelivered_after_ack.append(message.content)
                if not draining and rng.random() > ACK_PROBABILITY:
                    sub.skipped[seq] = message.id
                    continue
                sub.skipped.pop(seq, None)
                answer = await acknowledge(sub, message.id, run)
                if answer:
                    session.acked.append(seq)
                    sub.acked.add(seq)
                    sub.acked_max = max(sub.acked_max, seq)
                elif answer is None:
                    sub.ack_unknown.add(seq)
            else:
                ended = "cancel"
            if passed:
                sub.not_redelivered += [(cursor, seq) for seq in sorted(owed - set(session.received))]
            if ended == "cancel" and not run.stop.is_set() and rng.random() < 0.4:
                ended = "close"  # the subscriber closes its channel and dials again
                await sub.channel.close()
                sub.channel = grpc.aio.insecure_channel(sub.address, options=CHANNEL_OPTIONS)
        except grpc.aio.AioRpcError as error:
            ended = error.code().name
            await asyncio.sleep(rng.uniform(backoff / 2, backoff))
            backoff = min(1.0, backoff * 2)
        finally:
            call.cancel()
            sub.ends[ended or "cancel"] += 1


async def send_messages(
    client: HubClient, name: str, targets: list[Subscriber], count: int, pace: float, history: History, run: Run
) -> None:
    """``count`` sends to random subscribers (content and idempotency key ``name-i``), one every U[0, 2·pace] s,
    each retried with its key after an indeterminate outcome, with jittered backoff capped at 1 s."""
    rng = run.battery.random
    for index in range(count):
        target = rng.choice(targets)
        key = f"{name}-{index}"
        backoff = 0.05
        for _ in run.battery.bounded(100, 60):
            try:
                async with history.record("send", agent=name, key=target.who.name, idem=key) as op:
                    response = await client.messages.send(
                        target.who.agent_id, key, idempotency_key=key, allow_offline=True, timeout=5.0
                    )
                    op.value = response.message.id
                break
            except (HubError, grpc.aio.AioRpcError) as error:
                if outcome_of(error) == "fail":
                    break
            await asyncio.sleep(rng.uniform(backoff / 2, backoff))
            backoff = min(1.0, backoff * 2)
        await asyncio.sleep(rng.uniform(0, 2 * pace))


def stored_messages(db: Path) -> list[tuple[str, int, str, str]]:
    """(recipient id, seq, content, state) of every message in the database."""
    conn = sqlite3.connect(db, timeout=10)
    try:
        rows = conn.execute("SELECT to_agent_id, seq, content, state FROM messages").fetchall()
    finally:
        conn.close()
    return [(str(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


@pytest.mark.battery("B5", "inbox streams are Ordered, Unique, Reliable and Resumable")
async def test_inbox_streams_are_ordered_unique_reliable_and_resumable(battery: Battery) -> None:
    subscribers = battery.size(pr=64, long=200)
    sender_count = battery.size(pr=8, long=16)
    sends = battery.size(pr=250, long=400)
    kills = battery.size(pr=12, long=100)
    interval = battery.size(pr=(0.5, 2.0), long=(0.5, 3.0))
    hub = CrashHub(battery.dir / "data")
    history = History(battery.dir / "history.jsonl")
    run = Run(battery)
    hub.start()
    try:
        token = await new_project(hub.address, "b5")
        names = [f"sub-{i}" for i in range(subscribers)] + [f"sender-{i}" for i in range(sender_count)]
        identities = await register_agents(hub.address, token, names)
        subs = [
            Subscriber(who, hub.address, grpc.aio.insecure_channel(hub.address, options=CHANNEL_OPTIONS))
            for who in identities[:subscribers]
        ]
        send_channel = grpc.aio.insecure_channel(hub.address, options=CHANNEL_OPTIONS)
        senders = [
            HubClient(hub.address, token=token, agent_id=who.agent_id, agent_key=who.agent_key, channel=send_channel)
            for who in identities[subscribers:]
        ]
        watchers = [asyncio.create_task(watch_inbox(sub, run)) for sub in subs]
        try:
            # Paced so the sends last about as long as the kills: every kill lands on traffic.
            expected = kills * (sum(interval) / 2 + 0.5)
            sending = asyncio.gather(
                *(
                    send_messages(client, f"sender-{i}", subs, sends, expected / sends, history, run)
                    for i, client in enumerate(senders)
                )
            )
            sent = asyncio.Event()
            sending.add_done_callback(lambda _: sent.set())
            await kill_loop(
                hub, battery, kills=kills, interval=interval, seconds=battery.size(pr=120, long=1800), stop=sent
            )
            await sending

            # Drain: no more faults or drops; every subscriber reads and acknowledges everything.
            run.draining = True
            by_id = {sub.who.agent_id: sub for sub in subs}
            drained = False
            for _ in battery.bounded(600, battery.size(pr=90, long=300)):
                rows = stored_messages(hub.db_path)
                seen = {(sub.who.agent_id, s) for sub in subs for session in sub.sessions for s in session.received}
                if all(state != "queued" and (to, seq) in seen for to, seq, _, state in rows):
                    drained = True
                    break
                await asyncio.sleep(0.2)
            await asyncio.sleep(0.5)  # a redelivery after the last acknowledgement would show up here
            battery.figure("drained", drained)
        finally:
            run.stop.set()
            await asyncio.gather(*watchers, return_exceptions=True)
            for client in senders:
                await client.close()
            await send_channel.close()
            for sub in subs:
                await sub.channel.close()
            history.close()
        hub.stop()
    finally:
        hub.kill()
    for watcher in watchers:
        if watcher.exception() is not None:
            raise watcher.exception()  # type: ignore[misc]

    rows = stored_messages(hub.db_path)
    stored: dict[str, list[int]] = {sub.who.name: [] for sub in subs}
    for to, seq, _, _ in rows:
        stored[by_id[to].who.name].append(seq)
    sessions = [session for sub in subs for session in sub.sessions]
    verdict = checkers.watch(sessions, stored)
    queue = checkers.total_queue(
        ((op.idem, op.type) for op in history.ops if op.op == "send"),
        (key for sub in subs for key in sub.received_keys),
        (key for sub in subs for key in sub.redelivered_after_ack),
        (content for _, _, content, _ in rows),
    )
    hub.record(battery)
    ends = sum((sub.ends for sub in subs), Counter())
    battery.figure("subscribers", subscribers)
    battery.figure("sessions", verdict.sessions)
    battery.figure("session_ends", dict(ends))
    battery.figure("cursor_modes", dict(sum((sub.cursors for sub in subs), Counter())))
    battery.figure("events_checked", verdict.events)
    battery.figure("redelivered_events", sum(sub.redelivered for sub in subs))
    battery.figure("left_unacknowledged", sum(len(sub.skipped) for sub in subs))
    battery.figure("acknowledgements_unanswered", sum(len(sub.ack_unknown) for sub in subs))
    battery.figure("messages_stored", len(rows))
    battery.figure("sends_acknowledged", queue.acknowledged)
    battery.figure("sends_indeterminate", sum(1 for op in history.ops if op.op == "send" and op.type == "info"))
    battery.figure("recovered_indeterminate", len(queue.recovered))

    battery.invariant("out of order within a session", verdict.out_of_order, [])
    battery.invariant("duplicates within a session", verdict.duplicates_in_session, 0)
    # An acknowledgement the hub never answered (its retries ran out) is indeterminate, as Jepsen's
    # :info: it may have retired its message, which a later session then rightly skips.
    unknown = {(sub.who.name, seq) for sub in subs for seq in sub.ack_unknown}
    battery.figure("gaps_excused_by_unanswered_acks", sum(1 for gap in verdict.gaps if gap in unknown))
    battery.invariant("gaps", [gap for gap in verdict.gaps if gap not in unknown], [])
    battery.invariant("delivered again after an acknowledgement answered OK", verdict.redelivered_after_ack, [])
    battery.invariant("stored and never delivered", verdict.never_delivered, [])
    battery.invariant("ready events confirming another cursor", [x for s in subs for x in s.wrong_cursor], [])
    battery.invariant(
        "unacknowledged at or below the cursor and not redelivered", [x for s in subs for x in s.not_redelivered], []
    )
    battery.invariant("redelivered flag wrong", [x for s in subs for x in s.wrong_flag], [])
    battery.invariant("lost", queue.lost, set())
    battery.invariant("unexpected", queue.unexpected, set())
    battery.invariant("duplicated (came back after its acknowledgement)", queue.duplicated, set())
    battery.invariant("duplicates stored", queue.stored_duplicates, 0)
    battery.invariant("every stored message acknowledged after the drain", drained, True)
    battery.invariant("integrity_check after every kill", {r for r in hub.integrity if r != "ok"}, set())
    battery.at_least("hub kills", hub.kills, kills)
    battery.at_least("sessions the subscribers dropped themselves", ends["cancel"] + ends["close"], subscribers * 3)
    battery.at_least("redeliveries of unacknowledged messages", sum(sub.redelivered for sub in subs), 20)


async def storm_subscribe(
    who: Identity, channel: grpc.aio.Channel, after_seq: int, battery: Battery, codes: Counter[str]
) -> tuple[Any, float] | None:
    """Open one stream, retrying with jittered backoff until it is ready or STORM_WITHIN passes.

    Returns the call and when it became ready (monotonic seconds), or None."""
    began = time.monotonic()
    backoff = 0.05
    for _ in battery.bounded(1000, STORM_WITHIN):
        call = subscribe(channel, who, after_seq=after_seq)
        try:
            first = await asyncio.wait_for(call.read(), max(0.1, STORM_WITHIN - (time.monotonic() - began)))
            if first is not grpc.aio.EOF and first.HasField("ready"):
                return call, time.monotonic()
            codes["NO_READY"] += 1
        except grpc.aio.AioRpcError as error:
            codes[error.code().name] += 1
            if error.code() not in RETRIED:
                return None
        except TimeoutError:
            codes["TIMEOUT"] += 1
        call.cancel()
        await asyncio.sleep(battery.random.uniform(backoff / 2, backoff))
        backoff = min(1.0, backoff * 2)
    return None


@pytest.mark.battery("B5-storm", "every stream reopens after a hub restart, all at once")
async def test_a_reconnect_storm_after_a_restart_reopens_every_stream(battery: Battery) -> None:
    streams = battery.size(pr=1_000, long=2_000)
    per_agent = 20
    channel_count = 10
    agents = streams // per_agent
    hub = CrashHub(battery.dir / "data", extra_args=("--max-streams-per-agent", str(per_agent)))
    with hub:
        token = await new_project(hub.address, "b5-storm")
        identities = await register_agents(hub.address, token, [f"storm-{i}" for i in range(agents)] + ["sender"])
        sender_id, identities = identities[-1], identities[:-1]
        channels = [grpc.aio.insecure_channel(hub.address) for _ in range(channel_count)]
        pairs = [
            (who, channels[i % channel_count]) for i, who in enumerate(w for w in identities for _ in range(per_agent))
        ]
        calls: list[Any] = []
        try:
            opened = await asyncio.gather(*(storm_subscribe(who, ch, 0, battery, Counter()) for who, ch in pairs))
            battery.invariant("streams open before the restart", sum(1 for o in opened if o), streams)
            calls = [o[0] for o in opened if o]

            async def broken(call: Any) -> tuple[str, int]:
                """How the old stream ended, and the last seq it delivered (where its resubscribe resumes)."""
                last = 0
                try:
                    while (event := await call.read()) is not grpc.aio.EOF:
                        last = max(last, event.seq)
                    return "EOF", last
                except grpc.aio.AioRpcError as error:
                    return error.code().name, last

            ending = asyncio.gather(*(broken(call) for call in calls))
            killed = time.monotonic()
            await asyncio.to_thread(hub.restart)
            serving = time.monotonic()
            old = await asyncio.wait_for(ending, 30)
            ends = Counter(code for code, _ in old)
            battery.figure("restart_seconds", round(serving - killed, 2))
            battery.figure("old_stream_ends", dict(ends))
            battery.invariant(
                "old streams that ended otherwise than UNAVAILABLE",
                {k: n for k, n in ends.items() if k != "UNAVAILABLE"},
                {},
            )

            # The storm: every stream resubscribes at once the moment the hub serves again.
            codes: Counter[str] = Counter()
            storm_began = time.monotonic()
            reopened = await asyncio.gather(
                *(
                    storm_subscribe(who, ch, last, battery, codes)
                    for (who, ch), (_, last) in zip(pairs, old, strict=True)
                )
            )
            calls = [o[0] for o in reopened if o]
            ready_at = sorted(o[1] - storm_began for o in reopened if o)
            battery.figure("storm_streams", streams)
            battery.figure("storm_failed_attempts", dict(codes))
            battery.figure("storm_cancelled_attempts", codes["CANCELLED"])
            battery.figure("storm_completion_seconds", round(ready_at[-1], 3) if ready_at else None)
            battery.figure("storm_p50_seconds", round(percentile(ready_at, 0.5), 3))
            battery.figure("storm_p99_seconds", round(percentile(ready_at, 0.99), 3))
            battery.invariant("streams reopened (none hung)", len(calls), streams)

            # Every reopened stream is live: a message sent to its agent now reaches it.
            async with HubClient(
                hub.address, token=token, agent_id=sender_id.agent_id, agent_key=sender_id.agent_key
            ) as sender:
                for who in identities:
                    await sender.messages.send(who.agent_id, f"after the storm: {who.name}", allow_offline=True)

            async def delivers(call: Any) -> bool:
                try:
                    while True:
                        event = await asyncio.wait_for(call.read(), 15)
                        if event is grpc.aio.EOF:
                            return False
                        if event.HasField("message"):
                            return event.message.content.startswith("after the storm")
                except (grpc.aio.AioRpcError, TimeoutError):
                    return False

            delivered = await asyncio.gather(*(delivers(call) for call in calls))
            battery.invariant("reopened streams that delivered the next message", sum(delivered), streams)
        finally:
            for call in calls:
                call.cancel()
            for channel in channels:
                await channel.close()
