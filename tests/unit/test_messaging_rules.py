"""Pure messaging rules: validation, idempotency, the lifecycle state machine, fanout keys."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kxm_grpc.domain import messages as rules
from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.clock import seconds
from kxm_grpc.domain.messages import Delivery, Event, EventKind, Message, MessageState, WorkflowContext
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, PermissionDenied, Reason

NOW = 1_767_225_600_000_000


def send(**overrides: Any) -> rules.Outgoing:
    """A valid send, with some fields replaced."""
    fields: dict[str, Any] = {
        "target": "bob",
        "content": "review this",
        "delivery": Delivery.FOLLOW_UP,
        "correlation_id": "",
        "reply_to": "",
        "idempotency_key": "",
        "hops": 0,
        "max_hops": 0,
        "ttl_micros": seconds(60),
        "allow_offline": False,
        "context": None,
    }
    fields.update(overrides)
    return rules.outgoing(**fields)


def stored(**overrides: Any) -> Message:
    """A queued message from alice to bob, with some fields replaced."""
    message = Message(
        id="msg_1",
        project="alpha",
        from_agent_id="agt_alice",
        from_agent_name="alice",
        to_agent_id="agt_bob",
        to_agent_name="Bob",
        content="review this",
        delivery=Delivery.FOLLOW_UP,
        hops=0,
        max_hops=5,
        correlation_id="",
        reply_to="",
        idempotency_key="k",
        seq=1,
        workflow_context=None,
        create_time=NOW,
        expire_time=NOW + seconds(60),
        state=MessageState.QUEUED,
    )
    return replace(message, **overrides)


# -- validation ------------------------------------------------------------------------------------


def test_defaults_and_trimming() -> None:
    """Max hops defaults to 5; content, target and labels are stored trimmed."""
    outgoing = send(target="  bob ", content="  hi  ", correlation_id=" c1 ", reply_to=" r ")

    assert (outgoing.target, outgoing.content, outgoing.correlation_id, outgoing.reply_to) == ("bob", "hi", "c1", "r")
    assert outgoing.max_hops == rules.DEFAULT_MAX_HOPS == 5


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"target": ""}, "target"),
        ({"target": "   "}, "target"),
        ({"target": "t" * 81}, "target"),
        ({"content": ""}, "content"),
        ({"content": "c" * 32_001}, "content"),
        ({"correlation_id": "c" * 129}, "correlation_id"),
        ({"reply_to": "r" * 81}, "reply_to"),
        ({"idempotency_key": "k" * 129}, "idempotency_key"),
        ({"hops": -1}, "hops"),
        ({"hops": 101}, "hops"),
        ({"max_hops": 21}, "max_hops"),
        ({"max_hops": -1}, "max_hops"),
    ],
)
def test_each_bad_field_is_named(overrides: dict[str, Any], field: str) -> None:
    """Every out-of-range field is INVALID_ARGUMENT (PROTOCOL_ERROR) naming it."""
    with pytest.raises(InvalidArgument) as caught:
        send(**overrides)

    assert caught.value.reason is Reason.PROTOCOL_ERROR
    assert caught.value.field_violations[0].field == field


def test_limits_are_counted_in_utf16_units() -> None:
    """32,000 characters is the limit in UTF-16 code units: 16,000 emoji fit, 16,001 do not."""
    assert send(content="😀" * 16_000).content
    with pytest.raises(InvalidArgument):
        send(content="😀" * 16_001)


@pytest.mark.parametrize(("hops", "max_hops"), [(5, 0), (5, 5), (3, 2), (20, 20)])
def test_hops_at_or_over_the_limit_are_refused(hops: int, max_hops: int) -> None:
    """hops >= max_hops is HOP_LIMIT_REACHED (max 0 means the default 5)."""
    with pytest.raises(InvalidArgument) as caught:
        send(hops=hops, max_hops=max_hops)

    assert caught.value.reason is Reason.HOP_LIMIT_REACHED


def test_hops_below_the_limit_pass() -> None:
    """hops = max_hops - 1 is still allowed."""
    assert send(hops=4, max_hops=5).hops == 4


@pytest.mark.parametrize(
    ("value", "ok"), [(seconds(1), True), (seconds(604_800), True), (999_999, False), (seconds(604_801), False)]
)
def test_ttl_bounds(value: int, ok: bool) -> None:
    """TTL is 1 s to 7 d; None is the hub default."""
    if ok:
        assert rules.ttl(value, 7) == value
    else:
        with pytest.raises(InvalidArgument) as caught:
            rules.ttl(value, 7)
        assert caught.value.field_violations[0].field == "ttl"
    assert rules.ttl(None, 7) == 7


def test_workflow_context_is_canonicalised() -> None:
    """The requirement key is trimmed, whitespace-collapsed and lowercased."""
    context = rules.workflow_context(" run_1 ", "build", "  Unit   Tests\tPASS ", 2)

    assert context == WorkflowContext("run_1", "build", "unit tests pass", 2)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("", "s", "k", 1), "workflow_context.run_id"),
        (("r" * 81, "s", "k", 1), "workflow_context.run_id"),
        (("r", "", "k", 1), "workflow_context.stage_id"),
        (("r", "s" * 65, "k", 1), "workflow_context.stage_id"),
        (("r", "s", " ", 1), "workflow_context.requirement_key"),
        (("r", "s", "k" * 129, 1), "workflow_context.requirement_key"),
        (("r", "s", "k", 0), "workflow_context.attempt"),
        (("r", "s", "k", 21), "workflow_context.attempt"),
    ],
)
def test_bad_workflow_context_is_refused(args: tuple[str, str, str, int], field: str) -> None:
    """Each malformed context field is INVALID_WORKFLOW_CONTEXT naming it."""
    with pytest.raises(InvalidArgument) as caught:
        rules.workflow_context(*args)

    assert caught.value.reason is Reason.INVALID_WORKFLOW_CONTEXT
    assert caught.value.field_violations[0].field == field


def test_workflow_context_pins_the_correlation_id() -> None:
    """With a context the correlation id becomes the run id; another value is refused."""
    context = WorkflowContext("run_1", "s", "k", 1)

    assert send(context=context).correlation_id == "run_1"
    assert send(context=context, correlation_id="run_1").correlation_id == "run_1"
    with pytest.raises(FailedPrecondition) as caught:
        send(context=context, correlation_id="other")
    assert caught.value.reason is Reason.WORKFLOW_CONTEXT_CORRELATION_MISMATCH


@pytest.mark.parametrize(
    ("ids", "ok"), [(["m"], True), (["m"] * 100, True), ([], False), (["m"] * 101, False), (["m", ""], False)]
)
def test_ack_ids(ids: list[str], ok: bool) -> None:
    """One to a hundred non-empty ids."""
    if ok:
        assert rules.ack_ids(ids) == ids
    else:
        with pytest.raises(InvalidArgument):
            rules.ack_ids(ids)


# -- idempotency -----------------------------------------------------------------------------------


def test_same_request_by_id_or_any_casing_of_the_name() -> None:
    """The target may repeat as the recipient's id or its name in any case."""
    message = stored()
    for target in ("agt_bob", "Bob", "BOB", "bob"):
        assert rules.same_request(message, send(target=target))


@pytest.mark.parametrize(
    "overrides",
    [
        {"target": "carol"},
        {"content": "something else"},
        {"delivery": Delivery.STEER},
        {"correlation_id": "c"},
        {"reply_to": "r"},
        {"hops": 1},
        {"max_hops": 6},
        {"ttl_micros": seconds(61)},
        {"allow_offline": True},
        {"context": WorkflowContext("r", "s", "k", 1)},
    ],
)
def test_any_differing_field_is_another_request(overrides: dict[str, Any]) -> None:
    """Every compared field, TTL and allow_offline included, makes a different request."""
    assert not rules.same_request(stored(), send(**overrides))


# -- authorization ---------------------------------------------------------------------------------


def test_who_may_do_what() -> None:
    """Both sides read; only the sender cancels; only the recipient replies or acknowledges."""
    message = stored()
    rules.check_visible(message, "agt_alice")
    rules.check_visible(message, "agt_bob")
    rules.check_sender(message, "agt_alice")
    rules.check_recipient(message, "agt_bob")
    for check, agent in (
        (rules.check_visible, "agt_carol"),
        (rules.check_sender, "agt_bob"),
        (rules.check_recipient, "agt_alice"),
    ):
        with pytest.raises(PermissionDenied) as caught:
            check(message, agent)
        assert caught.value.reason is Reason.MESSAGE_FORBIDDEN


# -- the state machine -----------------------------------------------------------------------------


def test_ack_moves_queued_to_delivered_once() -> None:
    """queued → delivered with the ack time; acking again changes nothing."""
    delivered = rules.acknowledged(stored(), NOW + 5)

    assert (delivered.state, delivered.deliver_time) == (MessageState.DELIVERED, NOW + 5)
    assert rules.acknowledged(delivered, NOW + 9) is delivered


def test_ack_of_a_message_that_ended_acknowledged_is_a_no_op() -> None:
    """A message acknowledged before it ended can be acknowledged again (at-least-once clients)."""
    replied = rules.replied(rules.acknowledged(stored(), NOW + 1), "done", NOW + 2)

    assert rules.acknowledged(replied, NOW + 3) is replied


@pytest.mark.parametrize("end", ["replied", "cancelled", "expired"])
def test_ack_of_a_message_that_ended_unacknowledged_is_refused(end: str) -> None:
    """A message that ended without an ack is INVALID_MESSAGE_STATE."""
    ended = {
        "replied": rules.replied(stored(), "x", NOW),
        "cancelled": rules.cancelled(stored(), NOW),
        "expired": rules.expired(stored()),
    }[end]

    with pytest.raises(FailedPrecondition) as caught:
        rules.acknowledged(ended, NOW)

    assert caught.value.reason is Reason.INVALID_MESSAGE_STATE


@pytest.mark.parametrize("start", [MessageState.QUEUED, MessageState.DELIVERED])
def test_reply_from_an_open_state(start: MessageState) -> None:
    """Reply works from queued and delivered and ends the message."""
    replied = rules.replied(stored(state=start), "done", NOW + 7)

    assert replied.state is MessageState.REPLIED
    assert (replied.reply_content, replied.reply_time, replied.end_time) == ("done", NOW + 7, NOW + 7)


def test_the_same_reply_again_is_a_retry() -> None:
    """Repeating the reply that was recorded returns the message unchanged (a lost answer's retry)."""
    once = rules.replied(stored(), "a", NOW)

    assert rules.replied(once, "a", NOW + 5) is once


def test_reply_twice_is_a_duplicate() -> None:
    """A second reply is DUPLICATE_REPLY."""
    with pytest.raises(FailedPrecondition) as caught:
        rules.replied(rules.replied(stored(), "a", NOW), "b", NOW)

    assert caught.value.reason is Reason.DUPLICATE_REPLY


@pytest.mark.parametrize("state", [MessageState.CANCELLED, MessageState.EXPIRED, MessageState.ERROR])
def test_reply_after_the_end_is_refused(state: MessageState) -> None:
    """Cancelled, expired or error messages cannot be replied to."""
    with pytest.raises(FailedPrecondition) as caught:
        rules.replied(stored(state=state), "late", NOW)

    assert caught.value.reason is Reason.INVALID_MESSAGE_STATE


def test_cancel_once_then_unchanged() -> None:
    """Cancel ends an open message with its reason; cancelling again returns it unchanged."""
    cancelled = rules.cancelled(stored(state=MessageState.DELIVERED), NOW + 3)

    assert (cancelled.state, cancelled.end_time, cancelled.error) == (
        MessageState.CANCELLED,
        NOW + 3,
        rules.CANCELLED_ERROR,
    )
    assert rules.cancelled(cancelled, NOW + 9) is cancelled


@pytest.mark.parametrize("state", [MessageState.REPLIED, MessageState.EXPIRED, MessageState.ERROR])
def test_cancel_after_another_end_is_refused(state: MessageState) -> None:
    """Replied, expired or error messages cannot be cancelled."""
    with pytest.raises(FailedPrecondition) as caught:
        rules.cancelled(stored(state=state), NOW)

    assert caught.value.reason is Reason.INVALID_MESSAGE_STATE


def test_expiry_ends_at_the_deadline() -> None:
    """An expired message ended at its deadline, with the expiry reason."""
    message = stored()

    assert not message.is_due(message.expire_time - 1)
    assert message.is_due(message.expire_time)
    expired = rules.expired(message)
    assert (expired.state, expired.end_time, expired.error) == (
        MessageState.EXPIRED,
        message.expire_time,
        rules.EXPIRED_ERROR,
    )
    assert not expired.is_due(message.expire_time + 1)


def test_terminal_states() -> None:
    """Replied, cancelled, expired and error are terminal; queued and delivered are not."""
    assert {s for s in MessageState if s.terminal} == {
        MessageState.REPLIED,
        MessageState.CANCELLED,
        MessageState.EXPIRED,
        MessageState.ERROR,
    }


# -- streams ---------------------------------------------------------------------------------------


def test_only_waiting_messages_are_delivered_on_a_stream() -> None:
    """Message events go out only while queued and before the deadline; other events always."""
    agent = Agent("agt_x", "alpha", "x", "", "", "", NOW, NOW, True)

    def event(kind: EventKind, message: Message | None = None) -> Event:
        return Event(1, kind, NOW, message=message, subject=agent if kind is EventKind.PRESENCE else None)

    assert rules.deliverable(event(EventKind.MESSAGE, stored()), NOW)
    assert not rules.deliverable(event(EventKind.MESSAGE, stored(state=MessageState.DELIVERED)), NOW)
    assert not rules.deliverable(event(EventKind.MESSAGE, stored(state=MessageState.REPLIED)), NOW)
    assert not rules.deliverable(event(EventKind.MESSAGE, stored()), stored().expire_time)
    assert not rules.deliverable(event(EventKind.MESSAGE, None), NOW)
    assert rules.deliverable(event(EventKind.REPLY, stored(state=MessageState.REPLIED)), NOW)
    assert not rules.deliverable(event(EventKind.REPLY, None), NOW)
    assert rules.deliverable(event(EventKind.PRESENCE), NOW)


# -- fanout ----------------------------------------------------------------------------------------


def test_fanout_targets_are_normalised_and_merged() -> None:
    """Targets are trimmed, lowercased and de-duplicated in order."""
    assert rules.fanout_targets([" planner-a ", "Planner-A", "B"]) == ["planner-a", "b"]


@pytest.mark.parametrize("targets", [[], ["a", "b", "c", "d"], ["a", " "]])
def test_fanout_needs_one_to_three_targets(targets: list[str]) -> None:
    """Zero, four, or an empty target is refused."""
    with pytest.raises(InvalidArgument):
        rules.fanout_targets(targets)


def test_fanout_keys_are_stable_and_distinct() -> None:
    """Keys are 71 characters, repeatable, and differ per target, correlation and context."""
    key = rules.fanout_key("p", "", "a", None)
    context = WorkflowContext("r", "s", "k", 1)

    assert len(key) == 71
    assert key.startswith("fanout:")
    assert key == rules.fanout_key("p", "", "a", None)
    others = {
        rules.fanout_key("p", "", "b", None),
        rules.fanout_key("p", "c", "a", None),
        rules.fanout_key("q", "", "a", None),
        rules.fanout_key("p", "", "a", context),
        rules.fanout_key("p", "", "a", replace(context, attempt=2)),
    }
    assert key not in others
    assert len(others) == 5


def fanout(**overrides: Any) -> rules.Fanout:
    """A valid fanout, with some fields replaced."""
    fields: dict[str, Any] = {
        "targets": [" Planner-A ", "planner-a", "b"],
        "content": "  ship it?  ",
        "correlation_id": "",
        "prefix": " pr-42 ",
        "ttl_micros": seconds(60),
        "allow_offline": True,
        "context": None,
    }
    fields.update(overrides)
    return rules.fanout(**fields)


def test_fanout_request_is_validated_and_normalised() -> None:
    """Targets merged, content and prefix trimmed; a workflow context pins the correlation id."""
    plain = fanout()
    pinned = fanout(context=WorkflowContext("run-1", "s", "k", 1))

    assert (plain.targets, plain.content, plain.prefix) == (["planner-a", "b"], "ship it?", "pr-42")
    assert (plain.ttl, plain.allow_offline, plain.correlation_id) == (seconds(60), True, "")
    assert pinned.correlation_id == "run-1"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"targets": []}, "targets"),
        ({"content": " "}, "content"),
        ({"correlation_id": "c" * 129}, "correlation_id"),
        ({"prefix": "p" * 101}, "idempotency_key_prefix"),
    ],
)
def test_fanout_request_refuses_bad_fields(overrides: dict[str, Any], field: str) -> None:
    """Each malformed field is INVALID_ARGUMENT naming it."""
    with pytest.raises(InvalidArgument) as caught:
        fanout(**overrides)

    assert caught.value.metadata["field"] == field


def test_fanout_correlation_must_match_the_workflow_run() -> None:
    """Another run's correlation id is FAILED_PRECONDITION (WORKFLOW_CONTEXT_CORRELATION_MISMATCH)."""
    with pytest.raises(FailedPrecondition) as caught:
        fanout(correlation_id="other", context=WorkflowContext("run-1", "s", "k", 1))

    assert caught.value.reason is Reason.WORKFLOW_CONTEXT_CORRELATION_MISMATCH


# -- streams ---------------------------------------------------------------------------------------


def test_presence_only_streams_are_for_tui_agents() -> None:
    """Any agent may open a full stream; presence only needs model 'tui' (else PRESENCE_STREAM_FORBIDDEN)."""
    base = Agent("agt_1", "p", "a", "", "gpt", "", 0, 0, True)
    tui = replace(base, model="tui")

    rules.check_stream(base, False)
    rules.check_stream(tui, True)
    with pytest.raises(PermissionDenied) as caught:
        rules.check_stream(base, True)

    assert caught.value.reason is Reason.PRESENCE_STREAM_FORBIDDEN
