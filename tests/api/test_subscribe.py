"""MessageService.Subscribe against a real hub: the event log, resume, limits, slow consumers, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import socket
import time
from dataclasses import replace
from typing import Any

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc._status import from_rpc_error
from kxm_grpc.client import HubClient, SyncHubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.domain.messages import Message
from kxm_grpc.errors import (
    FailedPrecondition,
    HubError,
    NotFound,
    PermissionDenied,
    Reason,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
)
from kxm_grpc.server import sweeps
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.interceptor import RPC_TOTAL
from kxm_grpc.server.settings import Settings
from kxm_grpc.server.streams import OPEN_STREAMS
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub
from tests.harness import eventually

Event = pb.SubscribeResponse


class Stream:
    """A raw Subscribe call: read events one by one with a timeout, or drop it."""

    def __init__(self, client: HubClient, after_seq: int = 0, *, presence_only: bool = False) -> None:
        request = pb.SubscribeRequest(after_seq=after_seq, presence_only=presence_only)
        self.call = client._messages().Subscribe(request, metadata=client.metadata)

    async def next(self, timeout: float = 5.0) -> Event:
        """The next event.

        Raises:
            HubError: the stream ended with this status.
        """
        try:
            event = await asyncio.wait_for(self.call.read(), timeout)
        except grpc.aio.AioRpcError as exc:
            raise from_rpc_error(exc) from None
        assert event is not grpc.aio.EOF, "the stream ended without a status"
        return event  # type: ignore[no-any-return]

    async def ready(self) -> pb.SubscribeReady:
        """The ready event that opens every stream."""
        event = await self.next()
        assert event.WhichOneof("event") == "ready"
        assert event.seq == 0
        return event.ready

    async def take(self, count: int, *, kinds: tuple[str, ...] = (), timeout: float = 5.0) -> list[Event]:
        """The next ``count`` events (of the given kinds; others are skipped)."""
        taken: list[Event] = []
        while len(taken) < count:
            event = await self.next(timeout)
            if not kinds or event.WhichOneof("event") in kinds:
                taken.append(event)
        return taken

    async def nothing_within(self, seconds: float, *, kinds: tuple[str, ...] = ()) -> None:
        """Assert that no event (of the given kinds) arrives within ``seconds``."""
        deadline = asyncio.get_running_loop().time() + seconds
        while (remaining := deadline - asyncio.get_running_loop().time()) > 0:
            try:
                event = await self.next(remaining)
            except TimeoutError:
                return
            assert kinds and event.WhichOneof("event") not in kinds, f"unexpected event {event}"

    def drop(self) -> None:
        """Cancel the call (the client went away)."""
        self.call.cancel()


def kinds_and_ids(events: list[Event]) -> list[tuple[str, str]]:
    """Each event as (kind, message id or agent name)."""
    result = []
    for event in events:
        kind = event.WhichOneof("event") or ""
        body = getattr(event, kind)
        result.append((kind, body.name if kind == "presence" else body.id))
    return result


async def own_hub(settings: Settings, clock: ManualClock | None = None) -> HubServer:
    """A hub with settings of its own (stopped by the test)."""
    server = HubServer(settings, clock=clock)
    await server.start()
    return server


async def agents(address: str, *names: str, model: str = "") -> list[HubClient]:
    """A project on the hub and one registered agent per name."""
    admin = HubClient(address, token=ADMIN_TOKEN)
    token = (await admin.create_project(f"p{time.monotonic_ns()}")).project_token
    await admin.close()
    clients = []
    for name in names:
        client = HubClient(address, token=token)
        await client.register_agent(name, model=model)
        clients.append(client)
    return clients


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the events ------------------------------------------------------------------------------------


async def test_ready_then_message_reply_and_cancelled_events(make_agent: AgentFactory) -> None:
    """The ready event carries the cursor; message and cancelled go to the recipient, reply to the sender."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    alice_stream, bob_stream = Stream(alice), Stream(bob)
    alice_ready, bob_ready = await alice_stream.ready(), await bob_stream.ready()

    first = (await alice.send("bob", "one")).message
    second = (await alice.send("bob", "two")).message
    await bob.reply(first.id, "done")
    await alice.cancel(second.id)
    to_bob = await bob_stream.take(3)
    to_alice = await alice_stream.take(1, kinds=("reply",))

    assert bob_ready.agent.id == bob.agent_id
    assert (bob_ready.after_seq, bob_ready.head_seq, bob_ready.truncated) == (0, 0, False)
    assert alice_ready.head_seq == 1  # bob's arrival: a presence event in alice's log
    assert kinds_and_ids(to_bob) == [("message", first.id), ("message", second.id), ("cancelled", second.id)]
    assert [e.seq for e in to_bob] == [1, 2, 3]
    assert to_bob[0].message.content == "one"
    assert to_bob[2].cancelled.state == types_pb2.MESSAGE_STATE_CANCELLED
    assert kinds_and_ids(to_alice) == [("reply", first.id)]
    assert to_alice[0].reply.reply.content == "done"
    assert to_alice[0].seq == 2
    for stream in (alice_stream, bob_stream):
        stream.drop()


async def test_expiry_events_reach_both_sides_within_250_ms(make_agent: AgentFactory) -> None:
    """A message that times out produces an expired event for sender and recipient at its deadline."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    alice_stream, bob_stream = Stream(alice), Stream(bob)
    await alice_stream.ready()
    await bob_stream.ready()
    sent = (await alice.send("bob", "soon gone", ttl=1)).message
    deadline = sent.expire_time.ToMicroseconds() / 1e6

    async def arrival(stream: Stream) -> tuple[Event, float]:
        event = (await stream.take(1, kinds=("expired",), timeout=5))[0]
        return event, time.time()

    (to_alice, at_alice), (to_bob, at_bob) = await asyncio.gather(arrival(alice_stream), arrival(bob_stream))

    assert to_alice.expired.id == to_bob.expired.id == sent.id
    assert to_bob.expired.state == types_pb2.MESSAGE_STATE_EXPIRED
    assert 0 <= at_alice - deadline < 0.25
    assert 0 <= at_bob - deadline < 0.25
    for stream in (alice_stream, bob_stream):
        stream.drop()


async def test_presence_events_go_to_the_other_online_agents(make_agent: AgentFactory) -> None:
    """Registering and unregistering tell every other online agent of the project, not the agent itself
    (whose stream ends with its revoked key, without a presence event)."""
    alice = await make_agent("alice")
    alice_stream = Stream(alice)
    await alice_stream.ready()

    carol = await make_agent("carol")
    carol_stream = Stream(carol)
    await carol_stream.ready()
    await carol.unregister_agent()
    seen = await alice_stream.take(2, kinds=("presence",))

    assert [(e.presence.name, e.presence.presence) for e in seen] == [
        ("carol", types_pb2.PRESENCE_ONLINE),
        ("carol", types_pb2.PRESENCE_OFFLINE),
    ]
    with pytest.raises(Unauthenticated):
        await carol_stream.take(1, kinds=("presence",))
    for stream in (alice_stream, carol_stream):
        stream.drop()


async def test_a_second_stream_gets_the_same_events(make_agent: AgentFactory) -> None:
    """Two streams of one agent each receive every event."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    one, two = Stream(bob), Stream(bob)
    await one.ready()
    await two.ready()

    sent = (await alice.send("bob", "both")).message

    assert kinds_and_ids(await one.take(1)) == kinds_and_ids(await two.take(1)) == [("message", sent.id)]
    one.drop()
    two.drop()


# -- revoked keys and presence ---------------------------------------------------------------------


async def test_unregistering_ends_the_agents_open_streams(make_agent: AgentFactory) -> None:
    """UnregisterAgent revokes the key: every open stream of the agent ends promptly with UNAUTHENTICATED
    (INVALID_AGENT_IDENTITY) and no message body reaches it afterwards."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    tui = await make_agent("dashboard", model="tui")
    streams = [Stream(bob), Stream(bob)]
    presence = Stream(tui, presence_only=True)
    for stream in [*streams, presence]:
        await stream.ready()
    first = (await alice.send("bob", "before")).message
    for stream in streams:
        assert [e.message.id for e in await stream.take(1, kinds=("message",))] == [first.id]

    started = time.monotonic()
    await bob.unregister_agent()
    await tui.unregister_agent()
    await alice.send("bob", "after", allow_offline=True)
    ended = []
    for stream in [*streams, presence]:
        with pytest.raises(Unauthenticated) as caught:
            await stream.take(1, kinds=("message",), timeout=2)
        ended.append(caught.value.reason)

    assert ended == [Reason.INVALID_AGENT_IDENTITY] * 3
    assert time.monotonic() - started < 1.5
    with pytest.raises(Unauthenticated):
        await Stream(bob).next()


async def test_registering_again_ends_the_streams_of_the_replaced_key(make_agent: AgentFactory) -> None:
    """A re-registration replaces the key: streams opened with the old key end (UNAUTHENTICATED), a stream
    opened with the new key receives what is sent next."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    old_stream = Stream(bob)
    await old_stream.ready()

    await bob.register_agent("bob", previous_key=bob.agent_key or "")
    with pytest.raises(Unauthenticated) as caught:
        await old_stream.take(1, kinds=("message",), timeout=2)
    new_stream = Stream(bob)
    await new_stream.ready()
    sent = (await alice.send("bob", "to the new key")).message
    received = await new_stream.take(1, kinds=("message",))
    new_stream.drop()

    assert caught.value.reason is Reason.INVALID_AGENT_IDENTITY
    assert received[0].message.id == sent.id


async def test_an_open_stream_keeps_its_agent_online(hub_settings: Settings) -> None:
    """An agent that only holds a stream open stays online across several stale windows (the sweep
    running), so sends to it succeed; an agent without a stream is retired meanwhile."""
    server = await own_hub(replace(hub_settings, stale_after=1.0))
    try:
        alice, bob, carol = await agents(server.address, "alice", "bob", "carol")
        stream = Stream(bob)
        await stream.ready()

        await asyncio.sleep(3.0)  # three windows; the sweep runs every 1/3 s
        listed = {a.name: a.presence for a in (await alice.list_agents(include_offline=True)).agents}
        sent = (await alice.send("bob", "still there?")).message
        received = await stream.take(1, kinds=("message",))
        with pytest.raises(NotFound) as caught:
            await alice.send("carol", "gone?")
        stream.drop()

        assert listed["bob"] == types_pb2.PRESENCE_ONLINE
        assert listed["carol"] == types_pb2.PRESENCE_OFFLINE
        assert received[0].message.id == sent.id
        assert caught.value.reason is Reason.TARGET_NOT_FOUND
        for client in (alice, bob, carol):
            await client.close()
    finally:
        await server.stop(0.2)


# -- resume ----------------------------------------------------------------------------------------


async def test_acked_messages_are_never_replayed(make_agent: AgentFactory) -> None:
    """Ack m1 and m2 of five, reconnect from 0: exactly m3, m4, m5; ack a newer one: the older still come."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = [(await alice.send("bob", f"m{i}")).message for i in range(1, 6)]
    await bob.ack(sent[0].id, sent[1].id)

    first = Stream(bob)
    await first.ready()
    replayed = await first.take(3)
    await first.nothing_within(0.2)
    first.drop()
    await bob.ack(sent[3].id)  # a newer ack never hides the older unacknowledged m3
    second = Stream(bob)
    await second.ready()
    again = await second.take(2)
    second.drop()

    assert [e.message.id for e in replayed] == [m.id for m in sent[2:]]
    assert [e.redelivered for e in replayed] == [False] * 3
    assert [e.message.id for e in again] == [sent[2].id, sent[4].id]


async def test_unacked_messages_at_or_below_the_cursor_are_redelivered(make_agent: AgentFactory) -> None:
    """Resuming after seq 3 redelivers the unacked m1 (flagged), skips acked m2 and m3, then continues."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = [(await alice.send("bob", f"m{i}")).message for i in range(1, 5)]
    await bob.ack(sent[1].id, sent[2].id)
    await alice.cancel(sent[3].id)

    stream = Stream(bob, after_seq=3)
    ready = await stream.ready()
    events = await stream.take(2)
    await stream.nothing_within(0.2)
    stream.drop()

    assert (ready.after_seq, ready.head_seq, ready.oldest_seq) == (3, 5, 1)
    assert [(e.seq, e.redelivered, e.WhichOneof("event")) for e in events] == [
        (1, True, "message"),
        (5, False, "cancelled"),
    ]


async def test_random_drops_lose_nothing_and_never_reorder(make_agent: AgentFactory) -> None:
    """Streams dropped at random points and resumed from the last seq: per stream strictly increasing
    seqs without duplicates; over all streams every message and every cancellation arrives."""
    rng = random.Random(7)
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    total = 60
    sent_ids: list[str] = []
    cancelled_ids: list[str] = []

    async def produce() -> None:
        for i in range(total):
            message = (await alice.send("bob", f"m{i}")).message
            sent_ids.append(message.id)
            if rng.random() < 0.2:
                await alice.cancel(message.id)
                cancelled_ids.append(message.id)
            await asyncio.sleep(rng.uniform(0, 0.01))

    producer = asyncio.create_task(produce())
    last_seq = 0
    seen_messages: set[str] = set()
    seen_cancelled: set[str] = set()
    fresh_seqs: list[int] = []
    streams = 0
    give_up = time.monotonic() + 30
    while not (
        producer.done() and seen_messages | seen_cancelled >= set(sent_ids) and seen_cancelled >= set(cancelled_ids)
    ):
        assert time.monotonic() < give_up, "events went missing"
        streams += 1
        stream = Stream(bob, after_seq=last_seq)
        ready = await stream.ready()
        assert ready.after_seq == last_seq
        in_stream: list[int] = []
        for _ in range(rng.randint(1, 8)):
            try:
                event = await stream.next(timeout=0.3)
            except TimeoutError:
                break
            in_stream.append(event.seq)
            if not event.redelivered:
                fresh_seqs.append(event.seq)
            kind = event.WhichOneof("event")
            if kind == "message":
                seen_messages.add(event.message.id)
                if rng.random() < 0.7:
                    with contextlib.suppress(FailedPrecondition):  # cancelled meanwhile
                        await bob.ack(event.message.id)
            elif kind == "cancelled":
                seen_cancelled.add(event.cancelled.id)
            last_seq = max(last_seq, event.seq)
        stream.drop()
        assert in_stream == sorted(set(in_stream)), f"stream {streams} reordered or repeated: {in_stream}"
    await producer

    assert streams > 10
    assert seen_messages | seen_cancelled == set(sent_ids)
    assert seen_cancelled == set(cancelled_ids)
    assert sorted(fresh_seqs) == fresh_seqs == sorted(set(fresh_seqs))
    final = Stream(bob, after_seq=last_seq)
    assert (await final.ready()).head_seq == last_seq
    final.drop()


async def test_a_cursor_beyond_the_head_is_moved_back(make_agent: AgentFactory) -> None:
    """A cursor the hub never issued (its data was replaced) resumes from the head, marked truncated."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    await alice.send("bob", "old")

    stream = Stream(bob, after_seq=1000)
    ready = await stream.ready()
    redelivered = await stream.take(1)
    sent = (await alice.send("bob", "new")).message
    live = await stream.take(1)
    stream.drop()

    assert (ready.after_seq, ready.head_seq, ready.truncated) == (1, 1, True)
    assert redelivered[0].redelivered is True
    assert (live[0].seq, live[0].message.id) == (2, sent.id)


async def test_purged_events_mark_the_stream_truncated(clocked_hub: tuple[Hub, ManualClock]) -> None:
    """After retention purges a message and its events, resuming below them says so."""
    hub, clock = clocked_hub
    alice, bob = await agents(hub.address, "alice", "bob")
    gone = (await alice.send("bob", "q")).message
    await alice.cancel(gone.id)
    assert hub.server.hub is not None

    clock.advance(hub.server.settings.message_retention + 1)
    await sweeps.sweep_messages(hub.server.hub)
    await alice.heartbeat()
    await bob.heartbeat()
    kept = (await alice.send("bob", "fresh")).message
    from_start = Stream(bob)
    start_ready = await from_start.ready()
    first = await from_start.take(1)
    after_purge = Stream(bob, after_seq=2)
    after_ready = await after_purge.ready()

    assert (start_ready.truncated, start_ready.oldest_seq) == (True, 3)
    assert kinds_and_ids(first) == [("message", kept.id)]
    assert after_ready.truncated is False
    for stream in (from_start, after_purge):
        stream.drop()
    for client in (alice, bob):
        await client.close()


# -- presence-only streams -------------------------------------------------------------------------


async def test_presence_only_is_for_tui_agents(make_agent: AgentFactory) -> None:
    """A non-tui agent asking for presence only is PERMISSION_DENIED (PRESENCE_STREAM_FORBIDDEN)."""
    alice = await make_agent("alice", model="gpt")

    with pytest.raises(PermissionDenied) as caught:
        await Stream(alice, presence_only=True).next()

    assert caught.value.reason is Reason.PRESENCE_STREAM_FORBIDDEN


async def test_presence_only_stream_carries_no_messages(make_agent: AgentFactory) -> None:
    """A tui stream sees a newcomer's presence, never a message body, and leaves the message queued."""
    alice = await make_agent("alice")
    tui = await make_agent("dashboard", model="tui")
    sent = (await alice.send("dashboard", "secret body")).message

    stream = Stream(tui, presence_only=True)
    await stream.ready()
    await make_agent("newcomer")
    presence = await stream.take(1)
    await alice.send("dashboard", "another body")
    await stream.nothing_within(0.3)
    stream.drop()

    assert kinds_and_ids(presence) == [("presence", "newcomer")]
    assert (await tui.get(sent.id)).message.state == types_pb2.MESSAGE_STATE_QUEUED


# -- limits, slow consumers, shutdown --------------------------------------------------------------


async def test_streams_per_agent_are_capped(hub_settings: Settings) -> None:
    """Past max_streams_per_agent a new stream is RESOURCE_EXHAUSTED (STREAM_LIMIT_REACHED).

    Closing one frees a slot.
    """
    server = await own_hub(replace(hub_settings, max_streams_per_agent=2))
    try:
        (bob,) = await agents(server.address, "bob")
        one, two = Stream(bob), Stream(bob)
        await one.ready()
        await two.ready()

        with pytest.raises(ResourceExhausted) as caught:
            await Stream(bob).next()
        one.drop()
        third = None
        for _ in range(50):  # the hub notices the dropped stream shortly
            await asyncio.sleep(0.02)
            candidate = Stream(bob)
            try:
                await candidate.ready()
            except ResourceExhausted:
                continue
            third = candidate
            break

        assert caught.value.reason is Reason.STREAM_LIMIT_REACHED
        assert caught.value.metadata["limit"] == "2"
        assert third is not None
        third.drop()
        two.drop()
        await bob.close()
    finally:
        await server.stop(0.2)


async def test_open_streams_are_counted_until_their_handlers_end(hub_settings: Settings) -> None:
    """``kxm_open_streams`` (served on /metrics) rises with each admitted stream, not with a refused
    one, and falls back when each is dropped: B12 watches it to see handlers released."""
    server = await own_hub(replace(hub_settings, max_streams_per_agent=2))
    try:
        (bob,) = await agents(server.address, "bob")
        before = OPEN_STREAMS._value.get()
        one, two = Stream(bob), Stream(bob)
        await one.ready()
        await two.ready()
        both = OPEN_STREAMS._value.get()
        with pytest.raises(ResourceExhausted):
            await Stream(bob).next()
        refused = OPEN_STREAMS._value.get()
        one.drop()
        await eventually(lambda: OPEN_STREAMS._value.get() == before + 1)
        two.drop()
        await eventually(lambda: OPEN_STREAMS._value.get() == before)

        assert (both, refused) == (before + 2, before + 2)
        await bob.close()
    finally:
        await server.stop(0.2)


def messages_held(marker: str) -> int:
    """Domain messages alive in this process whose content starts with ``marker``."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Message) and o.content.startswith(marker))


async def test_an_idle_stream_holds_none_of_the_events_it_wrote(make_agent: AgentFactory) -> None:
    """Once written, an event is not kept by its stream while the stream waits for the next one:
    not the last page read from the log, not the last redelivered batch, not the last live event
    (an idle stream costs its cursor, not its last batch: B12 found 3,000 idle streams holding
    ~17 KiB each of events already sent)."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    marker = f"held-{random.randrange(10**9)}:"
    for i in range(3):
        await alice.send("bob", f"{marker}{i}")  # before the stream: read from the log as one page
    stream = Stream(bob)
    await stream.ready()
    first = await stream.take(3, kinds=("message",))
    await alice.send("bob", f"{marker}live")  # while caught up: delivered from its wake-up
    first += await stream.take(1, kinds=("message",))
    await alice.agents.heartbeat()  # the store's writer keeps its last batch (the send) until the next one
    await asyncio.sleep(0.3)
    after_log = messages_held(marker)
    stream.drop()
    resumed = Stream(bob, after_seq=first[-1].seq)
    await resumed.ready()
    again = await resumed.take(4, kinds=("message",))  # none acknowledged: all redelivered
    await asyncio.sleep(0.3)
    after_redelivery = messages_held(marker)
    resumed.drop()

    assert [e.message.id for e in again] == [e.message.id for e in first]
    assert all(e.redelivered for e in again)
    assert (after_log, after_redelivery) == (0, 0)


async def test_slow_subscriber_is_cut_off_resumes_whole_and_slows_nobody(hub_settings: Settings) -> None:
    """A consumer that stops reading is ended with SUBSCRIBER_TOO_SLOW once it lags past its queue (while
    it still does not read: its stream slot is freed); it resumes from its last seq and receives every
    message; another subscriber meanwhile stays prompt."""
    server = await own_hub(replace(hub_settings, subscriber_queue=20, max_streams_per_agent=1))
    try:
        alice, slow, dave, fast = await agents(server.address, "alice", "slow", "dave", "fast")
        slow_stream, fast_stream = Stream(slow), Stream(fast)
        await slow_stream.ready()
        await fast_stream.ready()
        big = "x" * 30_000  # enough to fill the HTTP/2 window of a consumer that does not read
        latencies: list[float] = []

        async def flood() -> list[str]:
            return [(await alice.send("slow", f"{i}:{big}")).message.id for i in range(300)]

        async def probe() -> None:
            for i in range(20):
                started = time.perf_counter()
                sent = (await dave.send("fast", f"ping {i}")).message
                got = await fast_stream.take(1, kinds=("message",))
                assert got[0].message.id == sent.id
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0.02)

        flooded, _ = await asyncio.gather(flood(), probe())
        freed = False
        for _ in range(40):  # one stream per agent: a new one opens once the hub has cut the stalled one
            candidate = Stream(slow, after_seq=10**6)
            try:
                await candidate.ready()
            except ResourceExhausted:
                await asyncio.sleep(0.1)
                continue
            candidate.drop()
            freed = True
            break
        received: list[str] = []
        last_seq = 0
        with pytest.raises(ResourceExhausted) as caught:
            while True:
                event = await slow_stream.next(timeout=5)
                if event.HasField("message"):
                    received.append(event.message.id)
                last_seq = event.seq
        resumed = Stream(slow, after_seq=last_seq)
        await resumed.ready()
        redelivered: list[str] = []
        rest: list[str] = []
        while len(rest) < 300 - len(received):
            event = await resumed.next()
            if event.HasField("message"):
                (redelivered if event.redelivered else rest).append(event.message.id)
        resumed.drop()
        fast_stream.drop()

        assert freed, "the stalled stream was not cut while its consumer did not read"
        assert caught.value.reason is Reason.SUBSCRIBER_TOO_SLOW
        assert caught.value.metadata["limit"] == "20"
        assert 0 < len(received) < 300
        assert redelivered == received  # never acknowledged: delivered again, then the rest in order
        assert received + rest == flooded
        assert max(latencies) < 0.5
        for client in (alice, slow, dave, fast):
            await client.close()
    finally:
        await server.stop(0.2)


@pytest.mark.parametrize("cut", [False, True], ids=["client-cancels", "hub-cuts-then-client-cancels"])
async def test_a_stream_stuck_in_a_write_ends_without_an_internal_error(hub_settings: Settings, cut: bool) -> None:
    """A consumer that stops reading and goes away (cut by the hub first, or not) ends its stream as a
    cancelled call: no INTERNAL status is counted and no request_error is logged for it."""
    internal = RPC_TOTAL.labels("/kxm.v1.MessageService/Subscribe", "INTERNAL")
    before = internal._value.get()
    server = await own_hub(replace(hub_settings, subscriber_queue=5 if cut else 10_000))
    try:
        alice, bob = await agents(server.address, "alice", "bob")
        stream = Stream(bob)
        await stream.ready()
        big = "x" * 30_000  # fills the HTTP/2 window of a consumer that does not read
        # At most 8 sends in flight, as a client with a bounded window sends: 300 at once into one
        # inbox is an overload test, not what this test is about. Eight racing for one inbox's log
        # head must all commit on PostgreSQL: a unit of work losing serialization races runs
        # again while busy_timeout lasts (engine.RETRIES).
        gate = asyncio.Semaphore(8)

        async def send(i: int) -> None:
            async with gate:
                await alice.send("bob", f"{i}:{big}")

        await asyncio.gather(*(send(i) for i in range(300)))
        await asyncio.sleep(1.0)  # the hub's write is stuck (and, with a small queue, cut by the monitor)
        stream.drop()
        await asyncio.sleep(0.5)

        assert internal._value.get() == before
        for client in (alice, bob):
            await client.close()
    finally:
        await server.stop(0.2)


async def test_streams_end_unavailable_when_the_hub_stops(hub_settings: Settings) -> None:
    """A graceful stop ends open streams with UNAVAILABLE (SHUTTING_DOWN)."""
    server = await own_hub(hub_settings)
    (bob,) = await agents(server.address, "bob")
    stream = Stream(bob)
    await stream.ready()

    stopping = asyncio.create_task(server.stop(2.0))
    with pytest.raises(Unavailable) as caught:
        await stream.next(timeout=5)
    await stopping

    assert caught.value.reason is Reason.SHUTTING_DOWN
    await bob.close()


# -- the client's iterator -------------------------------------------------------------------------


async def test_client_subscribe_resumes_across_a_hub_restart(hub_settings: Settings) -> None:
    """subscribe() reconnects with backoff after a restart and resumes: every message exactly once."""
    settings = replace(hub_settings, port=free_port())
    server = await own_hub(settings)
    alice, bob = await agents(server.address, "alice", "bob")
    received: list[str] = []
    readies = 0

    async def consume() -> None:
        nonlocal readies
        async for event in bob.subscribe(auto_ack=True, initial_backoff=0.05, max_backoff=0.2):
            if event.HasField("ready"):
                readies += 1
            elif event.HasField("message"):
                received.append(event.message.content)

    consumer = asyncio.create_task(consume())
    try:
        for i in range(3):
            await alice.send("bob", f"before {i}")
        await eventually(lambda: len(received) == 3)
        await server.stop(0.5)
        server = await own_hub(settings)
        for i in range(3):
            await _retry(lambda i=i: alice.send("bob", f"after {i}", allow_offline=True))
        await eventually(lambda: len(received) == 6)
        await asyncio.sleep(0.2)

        assert received == [f"before {i}" for i in range(3)] + [f"after {i}" for i in range(3)]
        assert readies == 2
    finally:
        consumer.cancel()
        await asyncio.gather(consumer, return_exceptions=True)
        for client in (alice, bob):
            await client.close()
        await server.stop(0.2)


async def test_client_subscribe_yields_a_message_once_though_the_hub_redelivers_it(hub_settings: Settings) -> None:
    """A message yielded but not acknowledged before a restart is redelivered by the hub on the next
    connection; the same iteration does not yield it again, a new iteration (a new consumer) does."""
    settings = replace(hub_settings, port=free_port())
    server = await own_hub(settings)
    alice, bob = await agents(server.address, "alice", "bob")
    seen: list[tuple[str, bool]] = []
    readies = 0

    async def consume() -> None:
        nonlocal readies
        async for event in bob.subscribe(initial_backoff=0.05, max_backoff=0.2):
            if event.HasField("ready"):
                readies += 1
            elif event.HasField("message"):
                seen.append((event.message.content, event.redelivered))

    consumer = asyncio.create_task(consume())
    try:
        await alice.send("bob", "unacked")
        await eventually(lambda: len(seen) == 1)
        await server.stop(0.5)
        server = await own_hub(settings)
        await eventually(lambda: readies == 2)
        await _retry(lambda: alice.send("bob", "after", allow_offline=True))
        await eventually(lambda: len(seen) == 2)
        fresh = bob.subscribe(after_seq=1, reconnect=False)
        again = [await anext(fresh) for _ in range(2)]
        await fresh.aclose()

        assert seen == [("unacked", False), ("after", False)]
        assert (again[1].message.content, again[1].redelivered) == ("unacked", True)
    finally:
        consumer.cancel()
        await asyncio.gather(consumer, return_exceptions=True)
        for client in (alice, bob):
            await client.close()
        await server.stop(0.2)


async def _retry(call: Any, attempts: int = 50) -> Any:
    """Retry a call while the channel reconnects to a restarted hub."""
    for _ in range(attempts - 1):
        try:
            return await call()
        except Unavailable:
            await asyncio.sleep(0.1)
    return await call()


async def test_client_subscribe_raises_final_errors(make_agent: AgentFactory) -> None:
    """Errors a retry cannot fix (here PRESENCE_STREAM_FORBIDDEN) end the iterator with the error."""
    alice = await make_agent("alice")

    with pytest.raises(HubError) as caught:
        async for _ in alice.subscribe(presence_only=True):
            pass

    assert caught.value.reason is Reason.PRESENCE_STREAM_FORBIDDEN


async def test_sync_client_iterates_the_stream(hub: Hub, project: Any) -> None:
    """SyncHubClient exposes subscribe() as a plain iterator, for code without an event loop."""

    def blocking() -> tuple[Event, Event, str]:
        alice = SyncHubClient(hub.address, token=project.token)
        bob = SyncHubClient(hub.address, token=project.token)
        alice.register_agent("alice")
        bob.register_agent("bob")
        sent = alice.send("bob", "sync hello").message
        events = bob.subscribe(reconnect=False)
        ready, message = next(events), next(events)
        alice.close()
        bob.close()
        return ready, message, sent.id

    ready, message, sent_id = await asyncio.to_thread(blocking)

    assert ready.HasField("ready")
    assert message.message.id == sent_id
