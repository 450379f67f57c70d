"""MessageService unary RPCs through HubClient against a real hub: every rule and error reason."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import replace

import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.errors import (
    Aborted,
    FailedPrecondition,
    HubError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Reason,
)
from kxm_grpc.server import sweeps
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.services import agents, messages
from tests.conftest import AgentFactory, Hub, Project, ProjectFactory
from tests.workflows import define, start_run

QUEUED = types_pb2.MESSAGE_STATE_QUEUED
DELIVERED = types_pb2.MESSAGE_STATE_DELIVERED
REPLIED = types_pb2.MESSAGE_STATE_REPLIED
CANCELLED = types_pb2.MESSAGE_STATE_CANCELLED
EXPIRED = types_pb2.MESSAGE_STATE_EXPIRED


def context(
    run: str = "run_1", stage: str = "build", key: str = "Unit Tests", attempt: int = 1
) -> types_pb2.WorkflowMessageContext:
    """A workflow message context."""
    return types_pb2.WorkflowMessageContext(run_id=run, stage_id=stage, requirement_key=key, attempt=attempt)


async def inbox_ids(client: HubClient) -> list[str]:
    """Every open inbound message id of the client's agent, oldest first."""
    return [m.id for m in (await client.list_inbox(page_size=1000)).messages]


# -- send ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "delivery", [types_pb2.DELIVERY_STEER, types_pb2.DELIVERY_FOLLOW_UP, types_pb2.DELIVERY_NEXT_TURN]
)
async def test_send_round_trips_every_field(make_agent: AgentFactory, delivery: types_pb2.Delivery.ValueType) -> None:
    """A send stores what was given (content trimmed) and the recipient reads the same record."""
    alice = await make_agent("alice")
    bob = await make_agent("Bob")

    sent = await alice.send(
        "bob", "  please review  ", delivery=delivery, correlation_id="c-1", reply_to="lane-2", ttl=90
    )
    read = (await bob.get(sent.message.id)).message

    message = sent.message
    assert sent.repeated is False
    assert message.id.startswith("msg_") and len(message.id) == 36
    assert (message.from_agent_id, message.from_agent_name) == (alice.agent_id, "alice")
    assert (message.to_agent_id, message.to_agent_name) == (bob.agent_id, "Bob")
    assert (message.content, message.delivery, message.correlation_id, message.reply_to) == (
        "please review",
        delivery,
        "c-1",
        "lane-2",
    )
    assert (message.state, message.seq, message.hops, message.max_hops, message.project) == (QUEUED, 1, 0, 5, "alpha")
    assert message.expire_time.ToMicroseconds() - message.create_time.ToMicroseconds() == 90_000_000
    assert read == message


async def test_send_defaults(make_agent: AgentFactory) -> None:
    """Unset delivery is follow-up, max hops 5, TTL the hub default of 24 h."""
    alice = await make_agent("alice")
    await make_agent("bob")

    message = (await alice.send("bob", "hi")).message

    assert message.delivery == types_pb2.DELIVERY_FOLLOW_UP
    assert message.max_hops == 5
    assert message.expire_time.ToSeconds() - message.create_time.ToSeconds() == 86_400


async def test_target_by_id_and_any_casing_of_the_name(make_agent: AgentFactory) -> None:
    """The target is an agent id or a case-insensitive name; seqs count per recipient."""
    alice = await make_agent("alice")
    bob = await make_agent("Bob")

    by_id = (await alice.send(bob.agent_id or "", "1")).message
    by_name = (await alice.send("BOB", "2")).message

    assert by_id.to_agent_id == by_name.to_agent_id == bob.agent_id
    assert (by_id.seq, by_name.seq) > (0, by_id.seq)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"target": ""}, "target"),
        ({"target": "t" * 81}, "target"),
        ({"content": "   "}, "content"),
        ({"content": "c" * 32_001}, "content"),
        ({"correlation_id": "c" * 129}, "correlation_id"),
        ({"reply_to": "r" * 81}, "reply_to"),
        ({"idempotency_key": "k" * 129}, "idempotency_key"),
        ({"hops": 101}, "hops"),
        ({"hops": -1}, "hops"),
        ({"max_hops": 21}, "max_hops"),
        ({"ttl": 0.5}, "ttl"),
        ({"ttl": 604_801}, "ttl"),
        ({"delivery": 9}, "delivery"),
    ],
)
async def test_bad_send_fields_are_named(make_agent: AgentFactory, kwargs: dict[str, object], field: str) -> None:
    """Each invalid field is INVALID_ARGUMENT (PROTOCOL_ERROR) naming it, and nothing is stored."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    args: dict[str, object] = {"target": "bob", "content": "hi"} | kwargs

    with pytest.raises(InvalidArgument) as caught:
        await alice.send(**args)  # type: ignore[arg-type]

    assert caught.value.reason is Reason.PROTOCOL_ERROR
    assert caught.value.field_violations[0].field == field
    assert await inbox_ids(bob) == []


async def test_hop_limit(make_agent: AgentFactory) -> None:
    """hops >= max_hops is refused with HOP_LIMIT_REACHED; one below passes."""
    alice = await make_agent("alice")
    await make_agent("bob")

    with pytest.raises(InvalidArgument) as caught:
        await alice.send("bob", "fwd", hops=5, max_hops=5)
    passed = await alice.send("bob", "fwd", hops=4, max_hops=5)

    assert caught.value.reason is Reason.HOP_LIMIT_REACHED
    assert passed.message.hops == 4


@pytest.mark.parametrize("target", ["alice", "ALICE"])
async def test_self_target_is_refused(make_agent: AgentFactory, target: str) -> None:
    """An agent cannot send to itself, by name or id."""
    alice = await make_agent("alice")

    for name in (target, alice.agent_id or ""):
        with pytest.raises(InvalidArgument) as caught:
            await alice.send(name, "me")
        assert caught.value.reason is Reason.SELF_TARGET


async def test_unknown_target(make_agent: AgentFactory) -> None:
    """An unknown target is NOT_FOUND (TARGET_NOT_FOUND)."""
    alice = await make_agent("alice")

    with pytest.raises(NotFound) as caught:
        await alice.send("nobody", "hi")

    assert caught.value.reason is Reason.TARGET_NOT_FOUND


async def test_offline_target_needs_allow_offline(hub: Hub, make_agent: AgentFactory, project: Project) -> None:
    """An offline agent is a target only with allow_offline; it receives the message once it is back."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    bob_key = bob.agent_key or ""
    await agents.mark_all_offline(hub.server.store)  # bob crashed (a restart does this); alice is back at once
    await alice.heartbeat()

    with pytest.raises(NotFound) as caught:
        await alice.send("bob", "while away")
    queued = (await alice.send("bob", "while away", allow_offline=True)).message
    back = HubClient(hub.address, token=project.token)
    await back.register_agent("bob", previous_key=bob_key)
    events = [e async for e in _take(back.subscribe(reconnect=False), 2)]

    assert caught.value.reason is Reason.TARGET_NOT_FOUND
    assert caught.value.metadata["presence"] == "offline"
    seen = caught.value.metadata["lastSeenTime"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", seen)
    assert caught.value.message == (
        f"target bob is registered but offline (last seen {seen}); send with allow_offline"
        " (kxm: --allow-offline) to queue the message until it connects, or keep the agent connected"
    )
    assert queued.state == QUEUED
    assert [e.WhichOneof("event") for e in events] == ["ready", "message"]
    assert events[1].message.id == queued.id
    await back.close()


async def test_an_offline_agent_of_another_project_is_an_unknown_target(
    hub: Hub, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    """Only the caller's own project may be said to hold a registered agent: beta's offline bob, by
    name or by id, is refused to alpha's alice exactly as a name nobody holds, in fanout too."""
    beta = await make_project("beta")
    bob = await make_agent("bob", in_project=beta)
    alice = await make_agent("alice")
    await agents.mark_all_offline(hub.server.store)
    await alice.heartbeat()

    refusals = []
    for target in ("bob", bob.agent_id or ""):
        with pytest.raises(NotFound) as caught:
            await alice.send(target, "hi")
        refusals.append(caught.value)
    fanned = await alice.messages.fanout(["bob"], "hi", wait=0)

    for refused, target in zip(refusals, ("bob", bob.agent_id), strict=True):
        assert refused.reason is Reason.TARGET_NOT_FOUND
        assert (refused.message, refused.metadata) == (f"online target not found: {target}", {"target": target})
    assert fanned.results[0].error_message == "online target not found: bob"


async def test_an_unregistered_agent_is_not_said_to_be_registered(make_agent: AgentFactory) -> None:
    """An agent that unregistered (its key revoked) is refused with the unknown target's words."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    await bob.agents.unregister()

    with pytest.raises(NotFound) as caught:
        await alice.send("bob", "hi")

    assert caught.value.reason is Reason.TARGET_NOT_FOUND
    assert (caught.value.message, caught.value.metadata) == ("online target not found: bob", {"target": "bob"})


async def _take(stream: object, count: int):  # type: ignore[no-untyped-def]
    """The first ``count`` events of a stream, then close it."""
    got = 0
    async for event in stream:  # type: ignore[attr-defined]
        yield event
        got += 1
        if got == count:
            break
    await stream.aclose()  # type: ignore[attr-defined]


# -- idempotency -----------------------------------------------------------------------------------


async def test_exact_repeat_returns_the_original(make_agent: AgentFactory) -> None:
    """The same key and fields return the first message, marked repeated; one message is stored."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")

    first = await alice.send("bob", "build it", idempotency_key="k1", ttl=60)
    again = await alice.send(bob.agent_id or "", "build it", idempotency_key="k1", ttl=60)
    by_name = await alice.send("BOB", "build it", idempotency_key="k1", ttl=60)

    assert (first.repeated, again.repeated, by_name.repeated) == (False, True, True)
    assert first.message.id == again.message.id == by_name.message.id
    assert await inbox_ids(bob) == [first.message.id]


async def test_repeat_returns_the_current_state(make_agent: AgentFactory) -> None:
    """A repeat after the reply returns the replied message."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = await alice.send("bob", "q", idempotency_key="k")
    await bob.reply(sent.message.id, "a")

    again = await alice.send("bob", "q", idempotency_key="k")

    assert again.repeated is True
    assert again.message.state == REPLIED
    assert again.message.reply.content == "a"


@pytest.mark.parametrize(
    "change",
    [
        {"content": "other"},
        {"ttl": 61.0},
        {"correlation_id": "c"},
        {"reply_to": "r"},
        {"hops": 1},
        {"max_hops": 6},
        {"delivery": types_pb2.DELIVERY_STEER},
        {"allow_offline": True},
        {"target": "carol"},
        {"workflow_context": context()},
    ],
)
async def test_same_key_different_request_is_a_conflict(make_agent: AgentFactory, change: dict[str, object]) -> None:
    """Any differing field under a used key is ABORTED (IDEMPOTENCY_CONFLICT) and stores nothing."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    await make_agent("carol")
    args: dict[str, object] = {"target": "bob", "content": "q", "idempotency_key": "k", "ttl": 60.0}
    first = await alice.send(**args)  # type: ignore[arg-type]

    with pytest.raises(Aborted) as caught:
        await alice.send(**(args | change))  # type: ignore[arg-type]

    assert caught.value.reason is Reason.IDEMPOTENCY_CONFLICT
    assert await inbox_ids(bob) == [first.message.id]


async def test_idempotency_is_checked_before_the_target(make_agent: AgentFactory) -> None:
    """An exact retry succeeds even after the target went offline."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    first = await alice.send("bob", "q", idempotency_key="k")
    await bob.unregister_agent()

    again = await alice.send("bob", "q", idempotency_key="k")

    assert again.repeated is True
    assert again.message.id == first.message.id


async def test_keys_are_scoped_to_the_sender(make_agent: AgentFactory) -> None:
    """Two senders may use the same key for different requests."""
    alice = await make_agent("alice")
    carol = await make_agent("carol")
    await make_agent("bob")

    a = await alice.send("bob", "from alice", idempotency_key="k")
    c = await carol.send("bob", "from carol", idempotency_key="k")

    assert a.message.id != c.message.id
    assert not c.repeated


# -- workflow context ------------------------------------------------------------------------------


async def test_workflow_context_is_authorised_and_stored_canonically(hub: Hub, make_agent: AgentFactory) -> None:
    """The coordinator may ask an eligible reviewer under its run's context: stored with the
    canonical requirement key, the correlation id pinned to the run."""
    alice = await make_agent("coordinator")
    await make_agent("bob")
    run = await start_run(hub, define(reviewers=("bob",)))

    sent = await alice.send("bob", "evidence?", workflow_context=context(run.id, "review", "  Unit   TESTS "))

    assert sent.message.workflow_context == context(run.id, "review", "unit tests")
    assert sent.message.correlation_id == run.id


async def test_workflow_context_errors(hub: Hub, make_agent: AgentFactory) -> None:
    """Each send-side check of a workflow context, with its reason; nothing is stored for any."""
    alice = await make_agent("coordinator")
    bob = await make_agent("bob")
    await make_agent("carol")
    run = await start_run(hub, define(reviewers=("bob",)))

    async def refused(sender: HubClient, target: str, given: types_pb2.WorkflowMessageContext, **kw: str) -> Reason:
        with pytest.raises(HubError) as caught:
            await sender.send(target, "x", workflow_context=given, **kw)
        assert isinstance(caught.value.reason, Reason)
        return caught.value.reason

    malformed = await refused(alice, "bob", context(run.id, "review", attempt=0))
    correlation = await refused(alice, "bob", context(run.id, "review"), correlation_id="other")
    no_run = await refused(alice, "bob", context("run_" + "0" * 32, "review"))
    not_coordinator = await refused(bob, "carol", context(run.id, "review"))
    inactive = await refused(alice, "bob", context(run.id, "ship"))
    no_policy = await refused(alice, "bob", context(run.id, "review", "lint"))
    attempt = await refused(alice, "bob", context(run.id, "review", attempt=2))
    ineligible = await refused(alice, "carol", context(run.id, "review"))

    assert (malformed, correlation) == (Reason.INVALID_WORKFLOW_CONTEXT, Reason.WORKFLOW_CONTEXT_CORRELATION_MISMATCH)
    assert (no_run, not_coordinator) == (Reason.WORKFLOW_CONTEXT_FORBIDDEN, Reason.WORKFLOW_CONTEXT_FORBIDDEN)
    assert (inactive, no_policy) == (Reason.WORKFLOW_CONTEXT_INACTIVE, Reason.WORKFLOW_EVIDENCE_POLICY_MISSING)
    assert (attempt, ineligible) == (
        Reason.WORKFLOW_CONTEXT_ATTEMPT_MISMATCH,
        Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN,
    )
    assert await inbox_ids(bob) == []


async def test_a_run_of_another_project_is_refused_like_a_missing_one(
    hub: Hub, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    """A context naming another project's run is WORKFLOW_CONTEXT_FORBIDDEN, as an unknown id is."""
    beta = await make_project("beta")
    await make_agent("coordinator", in_project=beta)
    await make_agent("bob", in_project=beta)
    run = await start_run(hub, define(project="beta", reviewers=("bob",)))
    alice = await make_agent("coordinator")
    await make_agent("bob")

    with pytest.raises(PermissionDenied) as caught:
        await alice.send("bob", "x", workflow_context=context(run.id, "review"))

    assert caught.value.reason is Reason.WORKFLOW_CONTEXT_FORBIDDEN
    assert caught.value.metadata == {"runId": run.id}


# -- get, ack, reply, cancel -----------------------------------------------------------------------


async def test_get_is_for_sender_and_recipient(make_agent: AgentFactory) -> None:
    """Sender and recipient read a message; a third agent is MESSAGE_FORBIDDEN; unknown ids NOT_FOUND."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    carol = await make_agent("carol")
    sent = (await alice.send("bob", "q")).message

    assert (await alice.get(sent.id)).message.id == sent.id
    assert (await bob.get(sent.id)).message.id == sent.id
    with pytest.raises(PermissionDenied) as forbidden:
        await carol.get(sent.id)
    with pytest.raises(NotFound) as missing:
        await carol.get("msg_00000000000000000000000000000000")
    with pytest.raises(InvalidArgument) as empty:
        await carol.get("")

    assert forbidden.value.reason is Reason.MESSAGE_FORBIDDEN
    assert missing.value.reason is Reason.MESSAGE_NOT_FOUND
    assert empty.value.field_violations[0].field == "message_id"


async def test_ack_is_per_message_and_repeatable(make_agent: AgentFactory) -> None:
    """Ack moves queued to delivered; acking again is a no-op that keeps the first ack time."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = (await alice.send("bob", "q")).message

    first = (await bob.ack(sent.id)).messages[0]
    second = (await bob.ack(sent.id)).messages[0]

    assert first.state == second.state == DELIVERED
    assert first.deliver_time == second.deliver_time
    assert first.deliver_time.ToMicroseconds() > 0


async def test_ack_is_all_or_nothing(make_agent: AgentFactory) -> None:
    """One bad id fails the whole ack and acknowledges none of the others."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    carol = await make_agent("carol")
    mine = (await alice.send("bob", "1")).message
    theirs = (await alice.send("carol", "2")).message

    with pytest.raises(NotFound):
        await bob.ack(mine.id, "msg_00000000000000000000000000000000")
    with pytest.raises(PermissionDenied) as forbidden:
        await bob.ack(mine.id, theirs.id)
    with pytest.raises(PermissionDenied):
        await alice.ack(mine.id)

    assert forbidden.value.reason is Reason.MESSAGE_FORBIDDEN
    assert (await bob.get(mine.id)).message.state == QUEUED
    assert (await carol.get(theirs.id)).message.state == QUEUED


async def test_ack_id_count_limits(make_agent: AgentFactory) -> None:
    """No ids, or more than 100, are refused."""
    bob = await make_agent("bob")

    with pytest.raises(InvalidArgument):
        await bob.ack_messages([])
    with pytest.raises(InvalidArgument):
        await bob.ack_messages(["msg_x"] * 101)


async def test_ack_after_the_end(make_agent: AgentFactory) -> None:
    """Acking a message that ended unacknowledged is INVALID_MESSAGE_STATE; one acked before is a no-op."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    cancelled = (await alice.send("bob", "1")).message
    await alice.cancel(cancelled.id)
    acked_then_replied = (await alice.send("bob", "2")).message
    await bob.ack(acked_then_replied.id)
    await bob.reply(acked_then_replied.id, "done")

    with pytest.raises(FailedPrecondition) as caught:
        await bob.ack(cancelled.id)
    again = (await bob.ack(acked_then_replied.id)).messages[0]

    assert caught.value.reason is Reason.INVALID_MESSAGE_STATE
    assert again.state == REPLIED


@pytest.mark.parametrize("ack_first", [False, True])
async def test_reply_once_from_queued_or_delivered(make_agent: AgentFactory, ack_first: bool) -> None:
    """The recipient replies once; a second reply is DUPLICATE_REPLY; the sender cannot reply."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = (await alice.send("bob", "q")).message
    if ack_first:
        await bob.ack(sent.id)

    with pytest.raises(PermissionDenied) as sender_reply:
        await alice.reply(sent.id, "me?")
    replied = (await bob.reply(sent.id, "  answer  ")).message
    with pytest.raises(FailedPrecondition) as twice:
        await bob.reply(sent.id, "again")

    assert sender_reply.value.reason is Reason.MESSAGE_FORBIDDEN
    assert replied.state == REPLIED
    assert replied.reply.content == "answer"
    assert replied.end_time == replied.reply.create_time
    assert replied.HasField("deliver_time") is ack_first
    assert twice.value.reason is Reason.DUPLICATE_REPLY


async def test_the_same_reply_again_is_a_safe_retry(make_agent: AgentFactory) -> None:
    """Repeating the reply (its answer lost) returns the replied message unchanged; another is still refused."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = (await alice.send("bob", "q")).message

    first = (await bob.reply(sent.id, "answer")).message
    again = (await bob.reply(sent.id, "answer")).message

    assert (again.id, again.state, again.reply.content) == (first.id, REPLIED, "answer")
    assert again.reply.create_time == first.reply.create_time
    with pytest.raises(FailedPrecondition) as other:
        await bob.reply(sent.id, "another answer")
    assert other.value.reason is Reason.DUPLICATE_REPLY


async def test_reply_content_is_validated(make_agent: AgentFactory) -> None:
    """An empty or too long reply names the content field."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = (await alice.send("bob", "q")).message

    for content in ("  ", "x" * 32_001):
        with pytest.raises(InvalidArgument) as caught:
            await bob.reply(sent.id, content)
        assert caught.value.field_violations[0].field == "content"


async def test_cancel_rules(make_agent: AgentFactory) -> None:
    """Only the sender cancels; cancel twice returns it unchanged; reply after cancel and cancel after reply fail."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    first = (await alice.send("bob", "1")).message
    second = (await alice.send("bob", "2")).message
    await bob.ack(first.id)

    with pytest.raises(PermissionDenied) as recipient_cancel:
        await bob.cancel(first.id)
    cancelled = (await alice.cancel(first.id)).message
    again = (await alice.cancel(first.id)).message
    with pytest.raises(FailedPrecondition) as reply_after:
        await bob.reply(first.id, "late")
    await bob.reply(second.id, "done")
    with pytest.raises(FailedPrecondition) as cancel_after:
        await alice.cancel(second.id)

    assert recipient_cancel.value.reason is Reason.MESSAGE_FORBIDDEN
    assert cancelled.state == CANCELLED
    assert cancelled.error == "message cancelled by sender"
    assert again == cancelled
    assert reply_after.value.reason is Reason.INVALID_MESSAGE_STATE
    assert cancel_after.value.reason is Reason.INVALID_MESSAGE_STATE


# -- inbox -----------------------------------------------------------------------------------------


async def test_inbox_lists_open_messages_oldest_first_in_pages(make_agent: AgentFactory) -> None:
    """Open inbound messages only, by seq, in pages; listing acknowledges nothing."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = [(await alice.send("bob", f"m{i}")).message for i in range(5)]
    await bob.reply(sent[1].id, "done")
    await alice.cancel(sent[3].id)
    await bob.send("alice", "not in bob's inbox")
    await bob.ack(sent[4].id)

    seen: list[types_pb2.Message] = []
    token = ""
    while True:
        page = await bob.list_inbox(page_size=1, page_token=token)
        seen.extend(page.messages)
        token = page.next_page_token
        if not token:
            break

    assert [m.id for m in seen] == [sent[0].id, sent[2].id, sent[4].id]
    assert [m.state for m in seen] == [QUEUED, QUEUED, DELIVERED]


async def test_inbox_page_token_is_bound_to_the_agent(make_agent: AgentFactory) -> None:
    """Another agent's page token is INVALID_PAGE_TOKEN."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    for i in range(2):
        await alice.send("bob", f"m{i}")
    token = (await bob.list_inbox(page_size=1)).next_page_token

    with pytest.raises(InvalidArgument) as caught:
        await alice.list_inbox(page_token=token)

    assert caught.value.reason is Reason.INVALID_PAGE_TOKEN


# -- wait ------------------------------------------------------------------------------------------


async def test_wait_returns_when_the_reply_arrives(make_agent: AgentFactory) -> None:
    """A waiting sender is answered as soon as the recipient replies."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = (await alice.send("bob", "q")).message

    waiting = asyncio.create_task(alice.wait_message(sent.id, timeout=10))
    await asyncio.sleep(0.1)
    started = time.perf_counter()
    await bob.reply(sent.id, "a")
    done = await asyncio.wait_for(waiting, 5)

    assert done.terminal is True
    assert done.message.reply.content == "a"
    assert time.perf_counter() - started < 1.0


async def test_wait_timeout_returns_the_current_state(make_agent: AgentFactory) -> None:
    """A wait that ends first returns the open message with terminal false, not an error."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = (await alice.send("bob", "q")).message

    started = time.perf_counter()
    by_sender = await alice.wait_message(sent.id, timeout=0.2)
    by_recipient = await bob.wait_message(sent.id, timeout=0)

    assert 0.15 < time.perf_counter() - started < 2
    assert (by_sender.terminal, by_sender.message.state) == (False, QUEUED)
    assert by_recipient.terminal is False


async def test_wait_never_outlives_the_call_deadline(make_agent: AgentFactory) -> None:
    """A 60 s wait under a 0.5 s deadline answers before the deadline instead of failing."""
    alice = await make_agent("alice")
    await make_agent("bob")
    sent = (await alice.send("bob", "q")).message
    request = pb.WaitMessageRequest(message_id=sent.id)
    request.timeout.FromSeconds(60)

    started = time.perf_counter()
    response = await alice._call(alice._messages().WaitMessage, request, timeout=0.5)

    assert response.terminal is False
    assert time.perf_counter() - started < 0.5


async def test_wait_rules(make_agent: AgentFactory) -> None:
    """A third agent cannot wait on a message; a negative timeout is refused; terminal returns at once."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    carol = await make_agent("carol")
    sent = (await alice.send("bob", "q")).message
    request = pb.WaitMessageRequest(message_id=sent.id)
    request.timeout.FromMilliseconds(-1)

    with pytest.raises(PermissionDenied) as forbidden:
        await carol.wait_message(sent.id, timeout=0.1)
    with pytest.raises(InvalidArgument) as negative:
        await alice._call(alice._messages().WaitMessage, request)
    await alice.cancel(sent.id)
    done = await bob.wait(sent.id, timeout=30)

    assert forbidden.value.reason is Reason.MESSAGE_FORBIDDEN
    assert negative.value.field_violations[0].field == "timeout"
    assert (done.terminal, done.message.state) == (True, CANCELLED)


# -- fanout ----------------------------------------------------------------------------------------


async def _answer(client: HubClient, count: int, prefix: str = "re: ") -> None:
    """Reply to the next ``count`` messages that reach ``client`` (echoing their content)."""
    answered = 0
    async for event in client.subscribe(reconnect=False, auto_ack=True):
        if event.HasField("message"):
            await client.reply(event.message.id, prefix + event.message.content)
            answered += 1
            if answered == count:
                return


async def test_fanout_gathers_every_reply(make_agent: AgentFactory) -> None:
    """Three repliers: three terminal results carrying their replies, in target order."""
    alice = await make_agent("alice")
    peers = [await make_agent(name) for name in ("p1", "p2", "p3")]
    helpers = [asyncio.create_task(_answer(p, 1)) for p in peers]

    response = await alice.fanout(["p1", "P2", " p3 "], "vote", timeout=10)

    assert [r.target for r in response.results] == ["p1", "p2", "p3"]
    assert {r.status for r in response.results} == {pb.FANOUT_STATUS_TERMINAL}
    assert [r.message.reply.content for r in response.results] == ["re: vote"] * 3
    assert [r.message.delivery for r in response.results] == [types_pb2.DELIVERY_FOLLOW_UP] * 3
    await asyncio.gather(*helpers)


async def test_fanout_retry_resolves_to_the_same_messages(make_agent: AgentFactory) -> None:
    """With a prefix, an exact retry returns the same ids; another correlation id makes new messages."""
    alice = await make_agent("alice")
    p1 = await make_agent("p1")
    await make_agent("p2")

    first = await alice.fanout(["p1", "p2"], "q", idempotency_key_prefix="round-1", timeout=0)
    again = await alice.fanout(["p2", "p1", "P1"], "q", idempotency_key_prefix="round-1", timeout=0)
    other = await alice.fanout(["p1", "p2"], "q", idempotency_key_prefix="round-1", correlation_id="c2", timeout=0)

    ids = {r.target: r.message.id for r in first.results}
    assert {r.target: r.message.id for r in again.results} == ids
    assert [r.status for r in first.results] == [pb.FANOUT_STATUS_PENDING] * 2
    assert all(
        r.message.idempotency_key.startswith("fanout:") and len(r.message.idempotency_key) == 71 for r in first.results
    )
    assert not set(ids.values()) & {r.message.id for r in other.results}
    assert len(await inbox_ids(p1)) == 2


async def test_fanout_merges_duplicate_targets(make_agent: AgentFactory) -> None:
    """' planner-a ' and 'Planner-A' are one target."""
    alice = await make_agent("alice")
    await make_agent("planner-a")

    response = await alice.fanout([" planner-a ", "Planner-A"], "q", timeout=0)

    assert [r.target for r in response.results] == ["planner-a"]


async def test_fanout_errors_are_per_target(make_agent: AgentFactory) -> None:
    """An unknown target, or a changed request under the same prefix, fails only that target."""
    alice = await make_agent("alice")
    p1 = await make_agent("p1")
    await alice.fanout(["p1"], "original", idempotency_key_prefix="x", timeout=0)

    response = await alice.fanout(["p1", "ghost", "p2"], "changed", idempotency_key_prefix="x", timeout=0)

    by_target = {r.target: r for r in response.results}
    assert by_target["p1"].status == pb.FANOUT_STATUS_ERROR
    assert by_target["p1"].error_reason == Reason.IDEMPOTENCY_CONFLICT
    assert by_target["ghost"].error_reason == by_target["p2"].error_reason == Reason.TARGET_NOT_FOUND
    assert not by_target["ghost"].HasField("message")
    assert len(await inbox_ids(p1)) == 1


@pytest.mark.parametrize("targets", [[], ["a", "b", "c", "d"]])
async def test_fanout_needs_one_to_three_targets(make_agent: AgentFactory, targets: list[str]) -> None:
    """Zero or four distinct targets are INVALID_ARGUMENT."""
    alice = await make_agent("alice")

    with pytest.raises(InvalidArgument) as caught:
        await alice.fanout(targets, "q", timeout=0)

    assert caught.value.field_violations[0].field == "targets"


async def test_fanout_pending_when_the_deadline_passes(make_agent: AgentFactory) -> None:
    """Targets that have not replied by the deadline are pending with their message ids."""
    alice = await make_agent("alice")
    await make_agent("slow")
    quick = await make_agent("quick")
    helper = asyncio.create_task(_answer(quick, 1))

    started = time.perf_counter()
    response = await alice.fanout(["quick", "slow"], "q", timeout=1.0)

    statuses = {r.target: (r.status, r.message.state) for r in response.results}
    assert statuses == {"quick": (pb.FANOUT_STATUS_TERMINAL, REPLIED), "slow": (pb.FANOUT_STATUS_PENDING, QUEUED)}
    assert 0.9 < time.perf_counter() - started < 3
    await helper


async def test_fanout_with_workflow_context(hub: Hub, make_agent: AgentFactory) -> None:
    """The context is authorised and stored for every target; a mismatching correlation id is refused,
    and an ineligible target is refused alone."""
    alice = await make_agent("coordinator")
    await make_agent("p1")
    await make_agent("p2")
    run = await start_run(hub, define(reviewers=("p1",)))
    given = context(run.id, "review")

    response = await alice.fanout(["p1", "p2"], "q", workflow_context=given, idempotency_key_prefix="w", timeout=0)
    with pytest.raises(FailedPrecondition) as caught:
        await alice.fanout(["p1"], "q", workflow_context=given, correlation_id="nope", timeout=0)

    by_target = {result.target: result for result in response.results}
    message = by_target["p1"].message
    assert (message.workflow_context.requirement_key, message.correlation_id) == ("unit tests", run.id)
    assert by_target["p2"].error_reason == Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN.value
    assert caught.value.reason is Reason.WORKFLOW_CONTEXT_CORRELATION_MISMATCH


# -- expiry and retention on the hub clock ---------------------------------------------------------


async def _clocked_agents(hub: Hub) -> tuple[HubClient, HubClient, HubClient]:
    admin = hub.admin()
    token = (await admin.create_project("alpha")).project_token
    alice = HubClient(hub.address, token=token)
    bob = HubClient(hub.address, token=token)
    await alice.register_agent("alice")
    await bob.register_agent("bob")
    return admin, alice, bob


async def test_expiry_is_applied_on_every_read(clocked_hub: tuple[Hub, ManualClock]) -> None:
    """Past its TTL a message reads expired, leaves the inbox, and cannot be replied to or acked."""
    hub, clock = clocked_hub
    admin, alice, bob = await _clocked_agents(hub)
    sent = (await alice.send("bob", "q", ttl=5)).message
    kept = (await alice.send("bob", "q2", ttl=60)).message

    clock.advance(5)
    read = (await bob.get(sent.id)).message
    with pytest.raises(FailedPrecondition) as reply:
        await bob.reply(sent.id, "late")
    with pytest.raises(FailedPrecondition) as ack:
        await bob.ack(sent.id)
    with pytest.raises(FailedPrecondition) as cancel:
        await alice.cancel(sent.id)

    assert (read.state, read.error) == (EXPIRED, "message expired before a reply was received")
    assert read.end_time == read.expire_time
    assert await inbox_ids(bob) == [kept.id]
    assert reply.value.reason is ack.value.reason is cancel.value.reason is Reason.INVALID_MESSAGE_STATE
    for client in (admin, alice, bob):
        await client.close()


async def test_retention_purges_ended_messages(clocked_hub: tuple[Hub, ManualClock]) -> None:
    """After the retention period an ended message is NOT_FOUND, counted, and its key is free again."""
    hub, clock = clocked_hub
    admin, alice, bob = await _clocked_agents(hub)
    done = (await alice.send("bob", "q", idempotency_key="k")).message
    await alice.cancel(done.id)
    before = sweeps.MESSAGES_PURGED._value.get()
    assert hub.server.hub is not None

    clock.advance(604_800 - 1)
    still_open = (await alice.send("bob", "open", ttl=60)).message
    assert await sweeps.sweep_messages(hub.server.hub) == 0
    clock.advance(1)
    purged = await sweeps.sweep_messages(hub.server.hub)
    with pytest.raises(NotFound) as caught:
        await alice.get(done.id)
    reused = await alice.send("bob", "new request", idempotency_key="k")

    assert purged == 1
    assert sweeps.MESSAGES_PURGED._value.get() == before + 1
    assert hub.server.hub.store.notifier.version(f"message:{done.id}") == 0  # its wake-up counter is gone
    assert caught.value.reason is Reason.MESSAGE_NOT_FOUND
    assert reused.repeated is False
    assert (await bob.get(still_open.id)).message.state == QUEUED
    for client in (admin, alice, bob):
        await client.close()


async def test_the_expiry_timer_ends_messages_at_their_deadline(make_agent: AgentFactory) -> None:
    """Without any read, the timer expires a message at its deadline and wakes its waiters."""
    alice = await make_agent("alice")
    await make_agent("bob")
    sent = (await alice.send("bob", "q", ttl=1)).message

    waited = await alice.wait_message(sent.id, timeout=5)
    ended = time.time()

    assert (waited.terminal, waited.message.state) == (True, EXPIRED)
    assert ended - sent.expire_time.ToMicroseconds() / 1e6 < 0.25


# -- isolation -------------------------------------------------------------------------------------


async def test_another_projects_message_ids_are_not_found(
    make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    """Every messaging RPC from another project sees alpha's message as missing, and learns nothing."""
    beta = await make_project("beta")
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    mallory = await make_agent("mallory", in_project=beta)
    await make_agent("bob", in_project=beta)
    secret = (await alice.send("bob", "alpha secret content", idempotency_key="alpha-key")).message

    calls = {
        "get": mallory.get(secret.id),
        "cancel": mallory.cancel(secret.id),
        "reply": mallory.reply(secret.id, "x"),
        "ack": mallory.ack(secret.id),
        "wait": mallory.wait_message(secret.id, timeout=0.1),
    }
    errors: dict[str, HubError] = {}
    for name, call in calls.items():
        with pytest.raises(NotFound) as caught:
            await call
        errors[name] = caught.value
    cross_send = await mallory.send("bob", "to beta's bob")
    with pytest.raises(NotFound) as by_id:
        await mallory.send(bob.agent_id or "", "to alpha's bob by id")
    fanout = await mallory.fanout([alice.agent_id or "", "alice"], "q", timeout=0)
    inbox = (await mallory.list_inbox()).messages

    for error in errors.values():
        assert error.reason is Reason.MESSAGE_NOT_FOUND
        assert "alpha" not in error.message and "secret" not in error.message
        assert set(error.metadata) == {"messageId"}
    assert cross_send.message.to_agent_id != bob.agent_id
    assert by_id.value.reason is Reason.TARGET_NOT_FOUND
    assert {r.error_reason for r in fanout.results} == {Reason.TARGET_NOT_FOUND}
    assert inbox == []
    assert (await bob.get(secret.id)).message.state == QUEUED


async def test_other_agents_message_ids_are_refused(make_agent: AgentFactory) -> None:
    """Within a project, an agent that is neither side of a message may not touch it."""
    alice = await make_agent("alice")
    await make_agent("bob")
    carol = await make_agent("carol")
    sent = (await alice.send("bob", "private")).message

    for call in (
        carol.get(sent.id),
        carol.cancel(sent.id),
        carol.reply(sent.id, "x"),
        carol.ack(sent.id),
        carol.wait_message(sent.id, timeout=0.1),
    ):
        with pytest.raises(PermissionDenied) as caught:
            await call
        assert caught.value.reason is Reason.MESSAGE_FORBIDDEN
        assert "private" not in caught.value.message


async def test_messaging_needs_an_agent_identity(hub: Hub, project: Project) -> None:
    """A project token alone (no agent) is refused by every MessageService RPC."""
    client = HubClient(hub.address, token=project.token)

    for call in (client.send("x", "y"), client.get("m"), client.list_inbox(), client.ack("m")):
        with pytest.raises(PermissionDenied) as caught:
            await call
        assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED
    await client.close()


# -- settings --------------------------------------------------------------------------------------


async def test_the_default_ttl_is_configurable(hub_settings: Settings) -> None:
    """``message_ttl`` sets the TTL of sends that give none."""
    server = HubServer(replace(hub_settings, message_ttl=120.0))
    await server.start()
    try:
        admin = HubClient(server.address, token="test-admin-token-0123456789")
        token = (await admin.create_project("alpha")).project_token
        alice, bob = HubClient(server.address, token=token), HubClient(server.address, token=token)
        await alice.register_agent("alice")
        await bob.register_agent("bob")

        message = (await alice.send("bob", "q")).message

        assert message.expire_time.ToSeconds() - message.create_time.ToSeconds() == 120
        for client in (admin, alice, bob):
            await client.close()
    finally:
        await server.stop(0.2)


async def test_service_purge_keeps_open_messages(hub: Hub, make_agent: AgentFactory) -> None:
    """The purge never deletes open messages, however old."""
    alice = await make_agent("alice")
    await make_agent("bob")
    sent = (await alice.send("bob", "q")).message

    purged = await messages.purge_messages(hub.server.store, now=time.time_ns() // 1000 + 10**12, retention=1)

    assert purged == 0
    assert (await alice.get(sent.id)).message.id == sent.id


async def test_send_with_reply_wait_returns_the_reply_in_the_same_call(make_agent: AgentFactory) -> None:
    """SendMessage with reply_wait returns the message replied, without a WaitMessage call."""
    sender = await make_agent("sender")
    receiver = await make_agent("receiver")

    async def answer() -> None:
        async for event in receiver.subscribe(auto_ack=False, reconnect=False):
            if event.WhichOneof("event") == "message":
                await receiver.reply_to_message(event.message.id, "done")
                return

    answering = asyncio.create_task(answer())
    response = await sender.send_message("receiver", "do it", reply_wait=10)
    await answering

    assert response.terminal is True
    assert response.message.state == types_pb2.MESSAGE_STATE_REPLIED
    assert response.message.reply.content == "done"


async def test_send_with_reply_wait_ends_with_the_wait_not_with_an_error(make_agent: AgentFactory) -> None:
    """Without a reply, the wait ends after reply_wait and returns the stored, still open message."""
    sender = await make_agent("sender")
    await make_agent("receiver")

    started = time.monotonic()
    response = await sender.send_message("receiver", "anyone?", reply_wait=0.3)

    assert 0.25 <= time.monotonic() - started < 5
    assert response.terminal is False
    assert response.message.state == types_pb2.MESSAGE_STATE_QUEUED
    assert (await sender.get_message(response.message.id)).message.id == response.message.id


async def test_reply_wait_never_outlasts_the_call_deadline(make_agent: AgentFactory) -> None:
    """A reply_wait longer than the deadline answers before the deadline, with the open message."""
    sender = await make_agent("sender")
    await make_agent("receiver")

    # An answer after the deadline would be DEADLINE_EXCEEDED: getting one at all is the proof (timing
    # it on the client would only measure the machine's load).
    response = await sender.send_message("receiver", "hurry", reply_wait=30, timeout=0.8)

    assert response.terminal is False
