"""The message service's request rules on a real store, without gRPC: validation and the TTL default
(from ``Limits``) and bounds, the waits' defaults, reductions and cut to the time the caller still
listens, the wait checked before anything is stored, and the expiry timer woken by the service's
own write, whoever called it."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import pytest
import pytest_asyncio

from kxm_grpc.domain import messages as rules
from kxm_grpc.domain.agents import registration
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import ManualClock, SystemClock, seconds
from kxm_grpc.domain.messages import MessageState, WorkflowContext
from kxm_grpc.domain.waits import Wait
from kxm_grpc.errors import InvalidArgument, Reason
from kxm_grpc.server.settings import Settings
from kxm_grpc.server.state import HubState
from kxm_grpc.services import agents, messages
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.messages import FanoutRequest, SendRequest
from kxm_grpc.store.sqlite import SqliteStore

PROJECT = Caller(CredentialKind.PROJECT, project="p")


@dataclass
class Pair:
    """Two agents of project ``p`` on one store and clock."""

    store: SqliteStore
    clock: ManualClock
    alice: Caller
    bob: Caller


async def agent(store: SqliteStore, name: str, now: int) -> Caller:
    """Register ``name`` and return it as a calling agent."""
    made = await agents.register_agent(store, PROJECT, registration(name, "", "", ""), presented_key=None, now=now)
    return Caller(CredentialKind.AGENT, project="p", agent_id=made.agent.id, agent_name=name)


@pytest_asyncio.fixture
async def pair(store: SqliteStore) -> Pair:
    """alice and bob, registered."""
    clock = ManualClock()
    return Pair(store, clock, await agent(store, "alice", clock.now()), await agent(store, "bob", clock.now()))


async def inbox(pair: Pair) -> list[str]:
    """The ids of bob's open inbound messages."""
    page, _ = await messages.list_inbox(pair.store, pair.bob, 0, "", now=pair.clock.now())
    return [m.id for m in page]


async def test_the_ttl_defaults_to_the_limits_and_is_bounded(pair: Pair) -> None:
    """A send without a TTL lives ``Limits.message_ttl``; under 1 s, over 7 d or negative is INVALID_ARGUMENT
    naming ttl, and nothing is stored."""
    # Execute
    default = await messages.send_message(pair.store, pair.alice, SendRequest("bob", "hi"), clock=pair.clock)
    configured = await messages.send_message(
        pair.store, pair.alice, SendRequest("bob", "hi"), clock=pair.clock, limits=Limits(message_ttl=seconds(120))
    )
    fanned = await messages.fanout_messages(
        pair.store,
        pair.alice,
        FanoutRequest(["bob"], "hi", wait=Wait(0)),
        clock=pair.clock,
        limits=Limits(message_ttl=seconds(90)),
    )
    refusals = []
    for ttl in (seconds(0.5), seconds(604_801), -1):
        with pytest.raises(InvalidArgument) as caught:
            await messages.send_message(pair.store, pair.alice, SendRequest("bob", "x", ttl=ttl), clock=pair.clock)
        refusals.append((caught.value.metadata["field"], caught.value.message))

    # Assert
    assert default.message.ttl == seconds(86_400)
    assert configured.message.ttl == seconds(120)
    assert fanned[0].message is not None and fanned[0].message.ttl == seconds(90)
    assert refusals == [
        ("ttl", "ttl: must be between 1 s and 604800 s"),
        ("ttl", "ttl: must be between 1 s and 604800 s"),
        ("ttl", "ttl: must not be negative"),
    ]
    assert len(await inbox(pair)) == 3


async def test_a_send_is_validated_by_the_service_before_anything_is_stored(pair: Pair) -> None:
    """Fields are trimmed and checked in the service (target, content, hops, the workflow context), and a
    negative wait is refused with the rest, naming the field the caller used: nothing is sent."""
    # Execute
    trimmed = await messages.send_message(
        pair.store, pair.alice, SendRequest("  bob ", "  review  ", correlation_id=" c "), clock=pair.clock
    )
    fields = []
    for request in (
        SendRequest("", "hi"),
        SendRequest("bob", "   "),
        SendRequest("bob", "hi", hops=101),
        SendRequest("bob", "hi", wait=Wait(-1)),
        SendRequest("bob", "hi", wait=Wait(-1, "reply_wait")),
        SendRequest("bob", "hi", workflow_context=WorkflowContext("run-1", "stage", "key", 0)),
    ):
        with pytest.raises(InvalidArgument) as caught:
            await messages.send_message(pair.store, pair.alice, request, clock=pair.clock)
        fields.append(caught.value.metadata["field"])

    # Assert
    assert (trimmed.message.to_agent_name, trimmed.message.content) == ("bob", "review")
    assert trimmed.message.correlation_id == "c"
    assert fields == ["target", "content", "hops", "wait", "reply_wait", "workflow_context.attempt"]
    assert await inbox(pair) == [trimmed.message.id]


async def test_a_send_with_a_wait_returns_the_reply_in_the_same_call(pair: Pair) -> None:
    """With a wait, the service waits for the message to end and returns it replied."""

    # Prepare
    async def reply_when_it_arrives() -> None:
        for _ in range(500):  # until the message is stored
            if ids := await inbox(pair):
                await messages.reply_to_message(pair.store, pair.bob, ids[0], "done", now=pair.clock.now())
                return
            await asyncio.sleep(0.01)

    replier = asyncio.create_task(reply_when_it_arrives())

    # Execute
    sent = await messages.send_message(
        pair.store, pair.alice, SendRequest("bob", "do it", wait=Wait(seconds(10))), clock=pair.clock
    )
    await replier

    # Assert
    assert sent.message.state is MessageState.REPLIED
    assert sent.message.reply_content == "done"


async def test_waits_are_reduced_to_their_maximum(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """An hour's wait is reduced to the rule's maximum (60 s for a send and WaitMessage, 30 min for a
    fan-out; shortened here), and a WaitMessage without a wait waits that maximum."""
    # Prepare
    monkeypatch.setattr(rules, "MAX_WAIT", seconds(0.2))
    monkeypatch.setattr(rules, "MAX_FANOUT_WAIT", seconds(0.2))
    loop = asyncio.get_running_loop()
    hour = Wait(seconds(3600))

    # Execute
    started = loop.time()
    sent = await messages.send_message(pair.store, pair.alice, SendRequest("bob", "q", wait=hour), clock=pair.clock)
    after_send = loop.time()
    _, terminal = await messages.wait_message(pair.store, pair.alice, sent.message.id, wait=hour, clock=pair.clock)
    after_wait = loop.time()
    _, default_terminal = await messages.wait_message(pair.store, pair.alice, sent.message.id, clock=pair.clock)
    after_default = loop.time()
    fanned = await messages.fanout_messages(
        pair.store, pair.alice, FanoutRequest(["bob"], "q", wait=hour), clock=pair.clock
    )
    after_fanout = loop.time()

    # Assert
    assert sent.message.state is MessageState.QUEUED
    assert (terminal, default_terminal) == (False, False)
    assert fanned[0].message is not None and not fanned[0].message.state.terminal
    for took in (
        after_send - started,
        after_wait - after_send,
        after_default - after_wait,
        after_fanout - after_default,
    ):
        assert 0.15 <= took < 2.0


async def test_a_wait_never_outlasts_the_time_the_caller_still_listens(pair: Pair) -> None:
    """A 60 s wait with 0.2 s remaining answers after about 0.2 s, with the open message."""
    # Prepare
    sent = await messages.send_message(pair.store, pair.alice, SendRequest("bob", "q"), clock=pair.clock)
    loop = asyncio.get_running_loop()
    started = loop.time()

    # Execute
    message, terminal = await messages.wait_message(
        pair.store, pair.alice, sent.message.id, wait=Wait(seconds(60)), clock=pair.clock, time_remaining=0.2
    )

    # Assert
    assert (message.id, terminal) == (sent.message.id, False)
    assert 0.15 <= loop.time() - started < 2.0


async def test_the_other_calls_validate_their_arguments_in_the_service(pair: Pair) -> None:
    """Empty ids, no ids to acknowledge, an empty reply and a negative wait are INVALID_ARGUMENT from the services."""
    # Prepare
    sent = await messages.send_message(pair.store, pair.alice, SendRequest("bob", "q"), clock=pair.clock)
    now = pair.clock.now()

    # Execute
    calls = {
        "get": messages.get_message(pair.store, pair.alice, " ", now=now),
        "cancel": messages.cancel_message(pair.store, pair.alice, "", now=now),
        "reply": messages.reply_to_message(pair.store, pair.bob, sent.message.id, "  ", now=now),
        "ack": messages.ack_messages(pair.store, pair.bob, [], now=now),
        "wait": messages.wait_message(
            pair.store, pair.alice, sent.message.id, wait=Wait(-1, "timeout"), clock=pair.clock
        ),
        "fanout": messages.fanout_messages(pair.store, pair.alice, FanoutRequest([], "q"), clock=pair.clock),
    }
    fields = {}
    for name, call in calls.items():
        with pytest.raises(InvalidArgument) as caught:
            await call
        fields[name] = caught.value.metadata["field"]
    found = await messages.get_message(pair.store, pair.alice, f"  {sent.message.id}  ", now=now)

    # Assert
    assert fields == {
        "get": "message_id",
        "cancel": "message_id",
        "reply": "content",
        "ack": "message_ids",
        "wait": "timeout",
        "fanout": "targets",
    }
    assert found.id == sent.message.id
    assert caught.value.reason is Reason.PROTOCOL_ERROR


async def test_a_send_wakes_the_expiry_timer_whoever_calls_the_service(store: SqliteStore) -> None:
    """With the scheduler asleep towards a deadline 20 s away, a 1 s message sent through the service (no
    gRPC, nobody noting its deadline) expires by its timer about 1 s later."""
    # Prepare
    clock = SystemClock()
    hub = HubState(Settings(), store, clock, None)
    alice, _ = await agent(store, "alice", clock.now()), await agent(store, "bob", clock.now())
    await messages.send_message(store, alice, SendRequest("bob", "later", ttl=seconds(20)), clock=clock)
    timers = asyncio.create_task(hub.coordination.run_timers())
    try:
        await asyncio.sleep(0.1)  # the scheduler sleeps towards the 20 s deadline

        # Execute
        sent = await messages.send_message(store, alice, SendRequest("bob", "soon", ttl=seconds(1)), clock=clock)
        loop = asyncio.get_running_loop()
        started = loop.time()
        while (current := await store.read(lambda tx: tx.messages.get(sent.message.id))) is not None and (
            current.state is not MessageState.EXPIRED
        ):
            assert loop.time() - started < 5, "the message never expired"
            await asyncio.sleep(0.02)
    finally:
        timers.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await timers

    # Assert
    assert current is not None and current.state is MessageState.EXPIRED
    assert current.end_time == sent.message.expire_time


class SlowWrites:
    """A store whose every write takes at least ``delay`` seconds (a slow commit), reads unchanged."""

    def __init__(self, store: SqliteStore, delay: float) -> None:
        self._store = store
        self._delay = delay

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    async def write(self, work: object) -> object:
        await asyncio.sleep(self._delay)
        return await self._store.write(work)  # type: ignore[arg-type]


async def test_the_wait_after_a_send_counts_the_time_the_send_took(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """A send with a wait, or a fanout, whose write took 0.3 s of the caller's 1 s waits at most the
    0.7 s left, not 1 s more (B16-waits found every such call ending DEADLINE_EXCEEDED)."""
    # Prepare
    slow = SlowWrites(pair.store, 0.3)
    waits: list[float] = []

    async def wait_until_terminal(*args: object, wait: float, **kwargs: object) -> tuple[object, bool]:
        waits.append(wait)
        return None, False

    async def wait_any(notifier: object, versions: object, timeout: float) -> None:
        waits.append(timeout)
        raise asyncio.CancelledError  # one look is enough

    monkeypatch.setattr(messages, "_wait_until_terminal", wait_until_terminal)
    monkeypatch.setattr(messages, "_wait_any", wait_any)

    # Execute
    await messages.send_message(
        slow,  # type: ignore[arg-type]
        pair.alice,
        SendRequest("bob", "q", wait=Wait(seconds(60))),
        clock=pair.clock,
        time_remaining=1.0,
    )
    with pytest.raises(asyncio.CancelledError):
        await messages.fanout_messages(
            slow,  # type: ignore[arg-type]
            pair.alice,
            FanoutRequest(["bob"], "q", wait=Wait(seconds(60))),
            clock=pair.clock,
            time_remaining=1.0,
        )

    # Assert
    assert len(waits) == 2
    assert all(wait <= 0.7 for wait in waits), waits


@dataclass
class Cursor:
    version: int = 0


async def test_a_stream_checks_each_deadline_as_it_writes_the_message(pair: Pair) -> None:
    """A page read from the log goes out one event at a time: a message whose TTL ran out between the
    read and its turn is not written, whatever the page said when it was read."""
    # Prepare
    made = await agents.register_agent(
        pair.store, PROJECT, registration("carol", "", "", ""), presented_key=None, now=pair.clock.now()
    )
    for ttl in (1, 2, 3):
        await messages.send_message(
            pair.store, pair.alice, SendRequest("carol", f"ttl {ttl}", ttl=seconds(ttl)), clock=pair.clock
        )
    stopping = asyncio.Event()
    subscription = messages.subscription(made.agent, made.key, after_seq=0, presence_only=False, stopping=stopping)
    items = messages.subscribe(pair.store, subscription, clock=pair.clock, stopping=stopping, cursor=Cursor())

    # Execute
    try:
        await anext(items)  # ready
        first = await anext(items)  # the page of three is read now, none of them due yet
        pair.clock.advance(2.5)  # the 1 s and 2 s messages are due now, the 3 s one is not
        after = await anext(items)
    finally:
        await items.aclose()

    # Assert
    assert isinstance(first, rules.Event) and isinstance(after, rules.Event)
    assert first.message is not None and first.message.content == "ttl 1"
    assert after.message is not None and after.message.content == "ttl 3"


async def test_a_stream_does_not_write_a_message_cancelled_after_its_page_was_read(pair: Pair) -> None:
    """A message cancelled (and the cancel answered) while its page is being written is not written:
    B6 saw a replay write one 0.65 s after its cancel was acknowledged."""
    # Prepare
    made = await agents.register_agent(
        pair.store, PROJECT, registration("carol", "", "", ""), presented_key=None, now=pair.clock.now()
    )
    sent = [
        await messages.send_message(pair.store, pair.alice, SendRequest("carol", f"m{i}"), clock=pair.clock)
        for i in range(3)
    ]
    stopping = asyncio.Event()
    subscription = messages.subscription(made.agent, made.key, after_seq=0, presence_only=False, stopping=stopping)
    items = messages.subscribe(pair.store, subscription, clock=pair.clock, stopping=stopping, cursor=Cursor())

    # Execute
    try:
        await anext(items)  # ready
        first = await anext(items)  # the page of three is read now, all queued
        await messages.cancel_message(pair.store, pair.alice, sent[1].message.id, now=pair.clock.now())
        after = await anext(items)
    finally:
        await items.aclose()

    # Assert
    assert isinstance(first, rules.Event) and isinstance(after, rules.Event)
    assert first.message is not None and first.message.content == "m0"
    assert after.message is not None and after.message.content == "m2"
