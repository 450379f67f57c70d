"""The inbox stream's service layer on a real store, without gRPC: key checks and presence renewal."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.domain.agents import registration
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import ManualClock, seconds
from kxm_grpc.domain.messages import Delivery, Event, EventKind, Outgoing
from kxm_grpc.domain.messages import outgoing as outgoing_rule
from kxm_grpc.domain.secrets import hash_secret
from kxm_grpc.errors import PermissionDenied, Reason, Unauthenticated, Unavailable
from kxm_grpc.services import agents, auth, messages
from kxm_grpc.services.agents import RegisteredAgent
from kxm_grpc.store import Durability
from kxm_grpc.store.sqlite import SqliteStore

PROJECT = Caller(CredentialKind.PROJECT, project="p")


async def register(
    store: SqliteStore, name: str, *, now: int, model: str = "", key: str | None = None
) -> RegisteredAgent:
    return await agents.register_agent(store, PROJECT, registration(name, "", model, ""), presented_key=key, now=now)


def request_to(target: str, content: str) -> Outgoing:
    """A plain follow-up request with a 60 s TTL."""
    return outgoing_rule(
        target=target,
        content=content,
        delivery=Delivery.FOLLOW_UP,
        correlation_id="",
        reply_to="",
        idempotency_key="",
        hops=0,
        max_hops=0,
        ttl_micros=seconds(60),
        allow_offline=False,
        context=None,
    )


class Cursor:
    """The edge's record of a stream (here: just the version)."""

    version = 0


async def test_streaming_agents_are_renewed_only_with_their_active_key(store: SqliteStore) -> None:
    """An agent with a stream of its current key is renewed (and brought back online after the sweep);
    one that unregistered, or whose stream holds a replaced key, is not."""
    stale_after = seconds(30)
    listener = await register(store, "listener", now=1)
    gone = await register(store, "gone", now=1)
    moved = await register(store, "moved", now=1)
    await agents.unregister_agent(store, Caller(CredentialKind.AGENT, project="p", agent_id=gone.agent.id), now=2)
    await register(store, "moved", now=2, key=moved.key)  # a new key replaces the one its stream holds
    await agents.sweep_stale_agents(store, now=stale_after + 10, stale_after=stale_after)

    renewed = await agents.touch_streaming_agents(
        store,
        {a.agent.id: {hash_secret(a.key)} for a in (listener, gone, moved)},
        now=stale_after + 20,
    )
    after = {a.agent.name: await store.read(lambda tx, a=a: tx.agents.get(a.agent.id)) for a in (listener, gone, moved)}

    assert [a.name for a in renewed] == ["listener"]
    assert after["listener"] is not None and after["listener"].online
    assert after["listener"].last_seen_time == stale_after + 20
    assert after["gone"] is not None and not after["gone"].online
    assert after["moved"] is not None and not after["moved"].online


async def test_an_agent_is_touched_only_with_its_active_key(store: SqliteStore) -> None:
    """touch_agent (a call's presence renewal) renews an agent presenting its current key; one that
    unregistered, or presents a key a registration replaced, is UNAUTHENTICATED (INVALID_AGENT_IDENTITY)
    and stays offline, however it got past authentication."""
    stale_after = seconds(30)
    listener = await register(store, "listener", now=1)
    gone = await register(store, "gone", now=1)
    moved = await register(store, "moved", now=1)
    await agents.unregister_agent(store, Caller(CredentialKind.AGENT, project="p", agent_id=gone.agent.id), now=2)
    await register(store, "moved", now=2, key=moved.key)  # a new key replaces the one it presents
    await agents.sweep_stale_agents(store, now=stale_after + 10, stale_after=stale_after)

    renewed = await agents.touch_agent(store, listener.agent, agent_key=listener.key, now=stale_after + 20)
    refusals = []
    for refused in (gone, moved):
        with pytest.raises(Unauthenticated) as caught:
            await agents.touch_agent(store, refused.agent, agent_key=refused.key, now=stale_after + 20)
        refusals.append(caught.value.reason)
    after = {a.agent.name: await store.read(lambda tx, a=a: tx.agents.get(a.agent.id)) for a in (gone, moved)}

    assert renewed.online and renewed.last_seen_time == stale_after + 20
    assert refusals == [Reason.INVALID_AGENT_IDENTITY] * 2
    assert after["gone"] is not None and not after["gone"].online
    assert after["moved"] is not None and not after["moved"].online


async def test_the_stream_ends_when_its_key_is_revoked(store: SqliteStore) -> None:
    """subscribe() yields ready, then ends with UNAUTHENTICATED (INVALID_AGENT_IDENTITY) once the
    agent unregisters, woken by the unregistering commit."""
    clock = ManualClock()
    bob = await register(store, "bob", now=clock.now())
    stopping = asyncio.Event()
    subscription = messages.subscription(bob.agent, bob.key, after_seq=0, presence_only=False, stopping=stopping)
    items = messages.subscribe(store, subscription, clock=clock, stopping=stopping, cursor=Cursor())

    ready = await anext(items)
    waiting = asyncio.ensure_future(anext(items))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await agents.unregister_agent(
        store, Caller(CredentialKind.AGENT, project="p", agent_id=bob.agent.id), now=clock.now()
    )
    with pytest.raises(Unauthenticated) as caught:
        await asyncio.wait_for(waiting, 2)
    await items.aclose()

    assert isinstance(ready, messages.Ready)
    assert caught.value.reason is Reason.INVALID_AGENT_IDENTITY


async def test_a_stream_with_a_stale_key_ends_before_anything_is_delivered(store: SqliteStore) -> None:
    """A stream whose key was replaced before it started never yields, not even ready."""
    clock = ManualClock()
    first = await register(store, "bob", now=clock.now())
    await register(store, "bob", now=clock.now(), key=first.key)
    stopping = asyncio.Event()
    subscription = messages.subscription(first.agent, first.key, after_seq=0, presence_only=False, stopping=stopping)
    items = messages.subscribe(store, subscription, clock=clock, stopping=stopping, cursor=Cursor())

    with pytest.raises(Unauthenticated):
        await anext(items)


async def test_a_key_verified_at_admission_is_read_again_only_after_a_credential_change(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Verified at the current credentials version, the stream opens without reading the key; verified
    before a re-registration replaced it, the stream ends before ready."""
    reads = 0
    check_agent_key = auth.check_agent_key

    async def counting(*args: Any, **kwargs: Any) -> None:
        nonlocal reads
        reads += 1
        await check_agent_key(*args, **kwargs)

    monkeypatch.setattr(auth, "check_agent_key", counting)
    clock = ManualClock()
    first = await register(store, "bob", now=clock.now())
    stopping = asyncio.Event()
    verified = store.notifier.version(auth.CREDENTIALS_TOPIC)
    fresh = messages.subscription(
        first.agent, first.key, after_seq=0, presence_only=False, stopping=stopping, key_verified_at=verified
    )
    opened = messages.subscribe(store, fresh, clock=clock, stopping=stopping, cursor=Cursor())
    assert isinstance(await anext(opened), messages.Ready)
    assert reads == 0
    await opened.aclose()

    await register(store, "bob", now=clock.now(), key=first.key)  # replaces bob's key
    stale = messages.subscribe(store, fresh, clock=clock, stopping=stopping, cursor=Cursor())
    with pytest.raises(Unauthenticated):
        await anext(stale)
    assert reads == 1


async def test_subscribe_yields_ready_redeliveries_then_events(store: SqliteStore) -> None:
    """Ready first, then an unacknowledged message at or below the cursor (redelivered), then the log
    after it; the cursor's version follows every log read."""
    clock = ManualClock()
    alice = await register(store, "alice", now=clock.now())
    bob = await register(store, "bob", now=clock.now())
    caller = Caller(CredentialKind.AGENT, project="p", agent_id=alice.agent.id, agent_name="alice")
    outgoing = [request_to("bob", f"m{i}") for i in (1, 2)]
    sent = [(await messages.send_message(store, caller, o, now=clock.now())).message for o in outgoing]
    stopping = asyncio.Event()
    subscription = messages.subscription(
        bob.agent, bob.key, after_seq=sent[0].seq, presence_only=False, stopping=stopping
    )
    cursor = Cursor()
    items = messages.subscribe(store, subscription, clock=clock, stopping=stopping, cursor=cursor)

    got = [await anext(items) for _ in range(3)]
    stopping.set()
    store.notifier.publish([(f"agent:{bob.agent.id}", None)])
    with pytest.raises(Unavailable):
        await anext(items)

    assert isinstance(got[0], messages.Ready) and got[0].opening.after_seq == sent[0].seq
    assert isinstance(got[1], messages.Redelivery) and got[1].message.id == sent[0].id
    assert isinstance(got[2], Event) and got[2].kind is EventKind.MESSAGE
    assert got[2].message is not None and got[2].message.id == sent[1].id
    assert cursor.version == store.notifier.version(f"agent:{bob.agent.id}") - 1


async def test_presence_only_streams_are_for_tui_agents(store: SqliteStore) -> None:
    """subscription() refuses a presence-only stream to a non-tui agent, and any stream at shutdown."""
    gpt = await register(store, "gpt", now=1, model="gpt")
    tui = await register(store, "tui", now=1, model="tui")
    stopping = asyncio.Event()

    with pytest.raises(PermissionDenied) as forbidden:
        messages.subscription(gpt.agent, gpt.key, after_seq=0, presence_only=True, stopping=stopping)
    admitted = messages.subscription(tui.agent, tui.key, after_seq=0, presence_only=True, stopping=stopping)
    stopping.set()
    with pytest.raises(Unavailable) as stopped:
        messages.subscription(tui.agent, tui.key, after_seq=0, presence_only=False, stopping=stopping)

    assert forbidden.value.reason is Reason.PRESENCE_STREAM_FORBIDDEN
    assert admitted.key_hash == hash_secret(tui.key)
    assert stopped.value.reason is Reason.SHUTTING_DOWN


async def test_a_live_stream_gets_every_event_once_in_order_however_commits_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """First one send at a time while the stream waits (each event arrives as its wake-up's hint),
    then sends from many tasks that commit in batches (several events per wake-up: the stream reads
    its log); the stream yields every message exactly once, in seq order, without gaps.

    On a database file, as served: reads run on the event loop there (in memory they queue behind
    writes, and a read batched with a send never waits for the send's wake-up).
    """
    store = SqliteStore(tmp_path / "hub.db", durability=Durability.NORMAL)
    await store.start()
    reads = 0
    read_from_log = 0
    read_events = messages.read_events

    async def counting(*args: Any, **kwargs: Any) -> messages.EventPage:
        nonlocal reads, read_from_log
        page = await read_events(*args, **kwargs)
        reads += 1
        read_from_log += len(page.events)
        return page

    monkeypatch.setattr(messages, "read_events", counting)
    clock = ManualClock()
    senders = [await register(store, f"s{i}", now=clock.now()) for i in range(6)]
    bob = await register(store, "bob", now=clock.now())  # last, so its log holds no presence events
    stopping = asyncio.Event()
    subscription = messages.subscription(bob.agent, bob.key, after_seq=0, presence_only=False, stopping=stopping)
    items = messages.subscribe(store, subscription, clock=clock, stopping=stopping, cursor=Cursor())
    ready = await anext(items)
    assert isinstance(ready, messages.Ready)

    async def send(sender: RegisteredAgent, i: int) -> None:
        caller = Caller(CredentialKind.AGENT, project="p", agent_id=sender.agent.id, agent_name=sender.agent.name)
        request = request_to("bob", f"{sender.agent.name}-{i}")
        await messages.send_message(store, caller, request, now=clock.now())

    got: list[Event] = []

    async def next_event() -> Event:
        item = await asyncio.wait_for(anext(items), 5)
        assert isinstance(item, Event)
        return item

    for i in range(20):  # one at a time, the stream waiting: hints
        # The task's first step runs the stream up to its wait (reads of a file store do not suspend);
        # one sleep(0) lets it take that step before the send commits.
        waiting = asyncio.ensure_future(anext(items))
        await asyncio.sleep(0)
        await send(senders[0], i)
        item = await asyncio.wait_for(waiting, 5)
        assert isinstance(item, Event)
        got.append(item)
    hinted = 20 - read_from_log

    async def send_all(sender: RegisteredAgent) -> None:
        for i in range(20, 40):
            await send(sender, i)
            if i % 3 == 0:
                await asyncio.sleep(0)

    sending = asyncio.gather(*(send_all(sender) for sender in senders))  # batches: log reads
    while len(got) < 140:
        got.append(await next_event())
        if len(got) % 7 == 0:
            await asyncio.sleep(0.001)  # fall behind now and then: the next wake-up finds several events
    await sending
    await items.aclose()

    await store.close()
    assert [event.seq for event in got] == list(range(1, 141))
    assert hinted > 10 and reads > 1 and read_from_log > 20  # both paths ran
    contents = [event.message.content for event in got if event.message is not None]
    expected = [f"s0-{i}" for i in range(20)] + [f"s{s}-{i}" for s in range(6) for i in range(20, 40)]
    assert sorted(contents) == sorted(expected)


async def test_a_presence_only_stream_skips_hinted_message_events(store: SqliteStore) -> None:
    """A presence-only stream woken with a message event's hint yields nothing for it, and then the
    next presence event with its own seq (the message event's seq is skipped, as the log read skips it)."""
    clock = ManualClock()
    alice = await register(store, "alice", now=clock.now())
    tui = await register(store, "watcher", now=clock.now(), model="tui")
    stopping = asyncio.Event()
    subscription = messages.subscription(tui.agent, tui.key, after_seq=0, presence_only=True, stopping=stopping)
    items = messages.subscribe(store, subscription, clock=clock, stopping=stopping, cursor=Cursor())
    ready = await anext(items)
    assert isinstance(ready, messages.Ready)
    caller = Caller(CredentialKind.AGENT, project="p", agent_id=alice.agent.id, agent_name="alice")
    request = request_to("watcher", "not for a presence stream")

    pending = asyncio.ensure_future(anext(items))
    await asyncio.sleep(0)  # the stream waits for its next wake-up
    sent = await messages.send_message(store, caller, request, now=clock.now())
    await asyncio.sleep(0)
    assert not pending.done()  # the hinted message event was skipped
    newcomer = await register(store, "newcomer", now=clock.now())
    presence = await asyncio.wait_for(pending, 5)
    await items.aclose()

    assert isinstance(presence, Event) and presence.kind is EventKind.PRESENCE
    assert presence.subject is not None and presence.subject.id == newcomer.agent.id
    assert presence.seq == sent.message.seq + 1
