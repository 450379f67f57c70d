"""B13: a slow consumer is isolated: bounded hub memory, prompt neighbours, nothing lost.

One subscriber reads one event a second while senders address R messages a second to it, with 50
normal subscribers alongside receiving their own traffic. Before the slow phase the same load runs
with every subscriber reading at full speed (the warm-up that sets the RSS baseline); after it the
slow subscriber drains at full speed and the run is checked.

Invariants: the slow subscriber's streams end only with RESOURCE_EXHAUSTED (SUBSCRIBER_TOO_SLOW),
at least once (the hub cuts it rather than buffering for it), and each time it resumes after its
last seq; no normal subscriber's stream is ever cut; hub RSS during the slow phase ≤ its warm-up
peak + the per-subscriber window (``--subscriber-queue`` events of the size sent) + 10%; the slow
subscriber's messages pass the total-queue checker (lost = unexpected = duplicated = 0, none stored
twice) and none is delivered again after its ack. Figures: the rates achieved, cuts, normal
subscribers' delivery latency p50/p99 (send invoked → event read), RSS.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc
from kxm_grpc.client import HubClient
from kxm_grpc.errors import Reason
from tests.reliability import checkers
from tests.reliability.battery import Battery
from tests.reliability.history import History
from tests.reliability.hubs import CrashHub, copied_db
from tests.reliability.streams_kit import (
    Identity,
    new_project,
    percentile,
    reason_of,
    register_agents,
    rss_kib,
    stub,
    subscribe,
)

QUEUE = 1_000
"""``--subscriber-queue``: events a stream may fall behind before the hub cuts it (the default)."""
SLOW_CONTENT = 4_096
"""Bytes of content of each message to the slow subscriber: its window is ``QUEUE`` such events."""
NORMAL_CONTENT = 256
NORMAL_SUBSCRIBERS = 50
SENDERS = 8


@dataclass
class Reader:
    """One subscriber's sessions: what it read, acked, and how each stream ended."""

    who: Identity
    seen: dict[str, int] = field(default_factory=dict)
    """Message id → seq, for every message read."""
    keys: dict[str, str] = field(default_factory=dict)
    """Message id → the idempotency key its content carries."""
    acked: set[str] = field(default_factory=set)
    redelivered_after_ack: list[str] = field(default_factory=list)
    ends: Counter[str] = field(default_factory=Counter)
    """How each stream ended: ``CODE/REASON``."""
    resumes: list[tuple[int, int]] = field(default_factory=list)
    """(cursor asked, after_seq the ready event confirmed) of every session."""
    latencies: list[tuple[float, float]] = field(default_factory=list)
    """(when read, seconds since the send was invoked) of each message read the first time."""
    last_seq: int = 0
    pace: float = 0.0
    """Seconds between two reads (0: full speed)."""


async def read_stream(
    reader: Reader, channel: grpc.aio.Channel, stop: asyncio.Event, sent_at: dict[str, float]
) -> None:
    """Subscribe and read (one event per ``reader.pace`` seconds, or at full speed), acknowledging what
    was read; when the hub ends the stream, acknowledge what is pending and resubscribe after the
    last seq read. ``stop`` ends it (the call is cancelled: a read is never abandoned half-way,
    which would cancel the call too)."""
    messages = stub(channel)
    pending: list[str] = []
    wake = asyncio.Event()
    lock = asyncio.Lock()

    async def settle() -> None:
        async with lock:
            await flush(messages, reader, pending)

    async def acks() -> None:
        while True:
            await wake.wait()
            wake.clear()
            await settle()

    acking = asyncio.create_task(acks())
    try:
        while not stop.is_set():
            call = subscribe(channel, reader.who, after_seq=reader.last_seq)
            stopper = asyncio.create_task(stop.wait())
            stopper.add_done_callback(functools.partial(cancel_when_stopped, call))
            try:
                ready = await call.read()
                if ready is grpc.aio.EOF:
                    reader.ends["EOF"] += 1
                    continue
                reader.resumes.append((reader.last_seq, ready.ready.after_seq))
                while True:
                    if reader.pace:
                        await asyncio.sleep(reader.pace)
                    event = await call.read()
                    if event is grpc.aio.EOF:
                        reader.ends["EOF"] += 1
                        break
                    reader.last_seq = max(reader.last_seq, event.seq)
                    if not event.HasField("message"):
                        continue
                    message = event.message
                    if message.id in reader.acked:
                        reader.redelivered_after_ack.append(message.id)
                        continue
                    key = message.content.split("|", 1)[0]
                    if message.id not in reader.seen and key in sent_at:
                        now = time.monotonic()
                        reader.latencies.append((now, now - sent_at[key]))
                    reader.seen[message.id] = event.seq
                    reader.keys[message.id] = key
                    pending.append(message.id)
                    wake.set()
            except grpc.aio.AioRpcError as error:
                if not stop.is_set():
                    reader.ends[f"{error.code().name}/{reason_of(error)}"] += 1
            except asyncio.CancelledError:
                if not stop.is_set():
                    raise
            finally:
                stopper.cancel()
                call.cancel()
            await settle()  # before resubscribing: nothing read stays unacknowledged
    finally:
        acking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await acking
        await settle()


def cancel_when_stopped(call: grpc.aio.Call, stopper: asyncio.Future[object]) -> None:
    """``stop`` was set: end this session's call (not when the stopper itself was cancelled)."""
    if not stopper.cancelled():
        call.cancel()


async def flush(messages: message_service_pb2_grpc.MessageServiceStub, reader: Reader, pending: list[str]) -> None:
    """Acknowledge what was read, up to 100 at a time (retried: acknowledging is idempotent)."""
    while pending:
        batch = pending[:100]
        for attempt in range(50):
            try:
                await messages.AckMessages(
                    pb.AckMessagesRequest(message_ids=batch), metadata=reader.who.metadata, timeout=10
                )
                break
            except grpc.aio.AioRpcError:
                if attempt == 49:
                    raise
                await asyncio.sleep(0.1)
        reader.acked.update(batch)
        del pending[: len(batch)]


async def paced_sends(
    senders: list[HubClient],
    targets: list[str],
    rate: float,
    seconds: float,
    history: History,
    sent_at: dict[str, float],
    prefix: str,
    battery: Battery,
    size: int,
) -> int:
    """Send to ``targets`` (round robin) at ``rate`` a second for ``seconds``, from ``SENDERS`` tasks.

    Open loop: slot k is due at start + k / rate; a late sender sends at once. Returns sends done.
    """
    began = time.monotonic()
    total = int(rate * seconds)
    slots = iter(range(total))
    body = "x" * size
    done = 0

    async def sender(client: HubClient) -> None:
        nonlocal done
        for slot in slots:
            due = began + slot / rate
            if due > time.monotonic():
                await asyncio.sleep(due - time.monotonic())
            if time.monotonic() - began > seconds + 30:
                return  # far behind: the wall-clock cap
            key = f"{prefix}-{slot}"
            target = targets[slot % len(targets)]
            sent_at[key] = time.monotonic()
            with contextlib.suppress(Exception):
                async with history.record("send", agent=client.agent_id, key=target, idem=key) as op:
                    response = await client.messages.send(
                        target, f"{key}|{body}", idempotency_key=key, allow_offline=True
                    )
                    op.value = response.message.id
                    done += 1

    await asyncio.gather(*(sender(client) for client in senders))
    battery.figure(f"{prefix}_rate_per_s", round(done / max(time.monotonic() - began, 1e-9), 1))
    return done


def hub_cuts(log_path: Path) -> int:
    """Streams the hub has cut off as too slow so far, from its log: the monitor's cut of a stream stuck
    in a write (``subscriber_too_slow``; that handler ends only once its consumer reads what it has
    buffered, so no RPC count sees it yet) and the stream's own check after a write (its
    ``request_error`` with reason SUBSCRIBER_TOO_SLOW)."""
    text = log_path.read_text(errors="replace")
    return text.count('"subscriber_too_slow"') + text.count(f'"{Reason.SUBSCRIBER_TOO_SLOW}"')


@pytest.mark.timeout(900)
@pytest.mark.battery("B13", "slow consumer isolated")
async def test_a_slow_consumer_is_cut_off_resumes_whole_and_slows_nobody(battery: Battery) -> None:
    slow_rate = battery.size(pr=400.0, long=400.0)
    normal_rate = battery.size(pr=100.0, long=100.0)
    warmup = battery.size(pr=4.0, long=10.0)
    rehearsal = battery.size(pr=5.0, long=10.0)
    slow_for = battery.size(pr=15.0, long=60.0)
    hub = CrashHub(battery.dir / "data", extra_args=("--subscriber-queue", str(QUEUE)))
    history = History(battery.dir / "history.jsonl")
    with hub:
        token = await new_project(hub.address, "b13")
        names = ["slow", *(f"normal-{i}" for i in range(NORMAL_SUBSCRIBERS)), *(f"sender-{i}" for i in range(SENDERS))]
        identities = await register_agents(hub.address, token, names)
        slow = Reader(identities[0])
        normals = [Reader(who) for who in identities[1 : 1 + NORMAL_SUBSCRIBERS]]
        sender_ids = identities[1 + NORMAL_SUBSCRIBERS :]
        # HTTP/2's default 64 KiB window, not one BDP probing grows to megabytes: the hub's write then
        # blocks after a few events, so when it cuts the stream does not depend on the client's buffer.
        channel_slow = grpc.aio.insecure_channel(hub.address, options=[("grpc.http2.bdp_probe", 0)])
        channel_normal = grpc.aio.insecure_channel(hub.address)
        channel_send = grpc.aio.insecure_channel(hub.address)
        senders = [
            HubClient(
                hub.address, token=who.token, agent_id=who.agent_id, agent_key=who.agent_key, channel=channel_send
            )
            for who in sender_ids
        ]
        sent_at: dict[str, float] = {}
        stop_reading = asyncio.Event()
        readers = [
            asyncio.create_task(read_stream(slow, channel_slow, stop_reading, sent_at)),
            *(asyncio.create_task(read_stream(r, channel_normal, stop_reading, sent_at)) for r in normals),
        ]
        rss: list[tuple[str, int]] = []
        phase = "warmup"
        sampling = asyncio.Event()

        async def sample() -> None:
            while not sampling.is_set():
                rss.append((phase, rss_kib(hub.pid)))
                await asyncio.sleep(0.2)

        sampler = asyncio.create_task(sample())
        try:
            normal_names = [r.who.name for r in normals]

            async def load(seconds: float, tag: str) -> None:
                await asyncio.gather(
                    paced_sends(
                        senders[:6],
                        ["slow"],
                        slow_rate,
                        seconds,
                        history,
                        sent_at,
                        f"{tag}-slow",
                        battery,
                        SLOW_CONTENT,
                    ),
                    paced_sends(
                        senders[6:],
                        normal_names,
                        normal_rate,
                        seconds,
                        history,
                        sent_at,
                        f"{tag}-normal",
                        battery,
                        NORMAL_CONTENT,
                    ),
                )

            # The warm-up runs everything the slow phase will (a slow spell, a cut, a resume and a
            # catch-up) so that the baseline holds the hub's one-time costs (caches, arenas).
            await load(warmup, "warmup")
            slow.pace = 1.0
            await load(rehearsal, "rehearsal")
            slow.pace = 0.0
            await load(rehearsal, "catchup")
            phase = "slow"
            slow.pace = 1.0
            cut_before = hub_cuts(hub.log_path)
            began = time.monotonic()
            await load(slow_for, "flood")
            ended = time.monotonic()
            battery.figure("slow_phase_seconds", round(ended - began, 1))
            cut_by_hub = hub_cuts(hub.log_path) - cut_before
            phase = "drain"
            slow.pace = 0.0
            sampling.set()
            await sampler

            # Drain: the slow subscriber reads at full speed until it has every message sent to it.
            wanted = {op.idem for op in history.ops if op.op == "send" and op.key == "slow" and op.type == "ok"}
            for _ in battery.bounded(1200, 120):
                if wanted <= set(slow.keys.values()) or any(r.done() for r in readers):
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)  # redeliveries after the last ack would show up here
            stop_reading.set()
            await asyncio.gather(*readers)
        finally:
            sampling.set()
            stop_reading.set()
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, sampler, return_exceptions=True)
            for client in senders:
                await client.close()
            for channel in (channel_slow, channel_normal, channel_send):
                await channel.close()
            history.close()
        with copied_db(hub.db_path, battery.dir / "final.db") as final:
            conn = sqlite3.connect(final)
            try:
                slow_id = slow.who.agent_id
                stored = [
                    row[0]
                    for row in conn.execute("SELECT idempotency_key FROM messages WHERE to_agent_id = ?", (slow_id,))
                ]
            finally:
                conn.close()

    warm = [kib for name, kib in rss if name == "warmup"]
    flooded = [kib for name, kib in rss if name == "slow"]
    window_kib = QUEUE * (SLOW_CONTENT + 256) / 1024  # an event: its content plus the message's fields
    growth = max(flooded) - max(warm)
    cuts = slow.ends[f"RESOURCE_EXHAUSTED/{Reason.SUBSCRIBER_TOO_SLOW}"]
    normal_latency = [x for r in normals for t, x in r.latencies if began <= t <= ended]
    battery.figure("slow_cuts", cuts)
    battery.figure("slow_sessions", len(slow.resumes))
    battery.figure("slow_stream_ends", dict(slow.ends))
    battery.figure("slow_messages_read", len(slow.seen))
    battery.figure("hub_rss_warmup_peak_mib", round(max(warm) / 1024, 1))
    battery.figure("hub_rss_slow_peak_mib", round(max(flooded) / 1024, 1))
    battery.figure("hub_rss_growth_kib", growth)
    battery.figure("window_kib", round(window_kib))
    battery.figure("normal_latency_p50_ms", round(percentile(normal_latency, 0.5) * 1000, 2))
    battery.figure("normal_latency_p99_ms", round(percentile(normal_latency, 0.99) * 1000, 2))
    battery.figure("normal_latency_max_ms", round(max(normal_latency, default=0) * 1000, 2))
    battery.figure("normal_deliveries", sum(len(r.seen) for r in normals))

    battery.figure("hub_cuts_in_slow_phase", cut_by_hub)
    battery.at_least("streams the hub cut (RESOURCE_EXHAUSTED) during the slow phase", cut_by_hub, 1)
    battery.at_least("cuts the slow subscriber saw and resumed from", cuts, 1)
    battery.invariant(
        "slow subscriber's streams ended otherwise",
        {k: v for k, v in slow.ends.items() if k != f"RESOURCE_EXHAUSTED/{Reason.SUBSCRIBER_TOO_SLOW}"},
        {},
    )
    battery.invariant(
        "resumes that did not start after the last seq read",
        [pair for pair in slow.resumes if pair[0] != pair[1]],
        [],
    )
    battery.invariant("normal subscribers' streams ended", sum(sum(r.ends.values()) for r in normals), 0)
    battery.invariant(
        f"hub RSS growth within the window ({round(window_kib)} KiB) + 10%", growth <= 1.1 * window_kib, True
    )
    sends = [(op.idem, op.type) for op in history.ops if op.op == "send" and op.key == "slow"]
    verdict = checkers.total_queue(
        sends,
        [slow.keys[i] for i in slow.acked],
        redelivered_after_ack=[slow.keys[i] for i in slow.redelivered_after_ack],
        stored_keys=stored,
    )
    battery.figure("slow_sends_acknowledged", verdict.acknowledged)
    battery.figure("slow_recovered", len(verdict.recovered))
    battery.invariant("lost", verdict.lost, set())
    battery.invariant("unexpected", verdict.unexpected, set())
    battery.invariant("duplicated", verdict.duplicated, set())
    battery.invariant("stored duplicates", verdict.stored_duplicates, 0)
    battery.invariant(
        "normal subscribers' messages delivered again after ack",
        [m for r in normals for m in r.redelivered_after_ack],
        [],
    )
    battery.at_least(
        "messages addressed to the slow subscriber", verdict.acknowledged, int(slow_rate * slow_for * 0.25)
    )
