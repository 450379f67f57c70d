"""Peer messages: validation, the lifecycle state machine and who may do what (spec §4.3, §6).

Pure rules, no I/O. A message moves queued → delivered (ack) → replied | cancelled | expired;
replied, cancelled, expired and error are terminal. Every transition here returns the new record
or raises the error the caller sees; the service stores the result and records the events.
"""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass, replace

from kxm_grpc.domain import validation
from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.clock import seconds
from kxm_grpc.domain.waits import bounded_duration
from kxm_grpc.errors import (
    FailedPrecondition,
    FieldViolation,
    InvalidArgument,
    PermissionDenied,
    Reason,
    invalid_field,
)

MAX_TARGET_CHARS = 80
MAX_CONTENT_CHARS = 32_000
MAX_CORRELATION_CHARS = 128
MAX_REPLY_TO_CHARS = 80
MAX_IDEMPOTENCY_KEY_CHARS = 128
MAX_MESSAGE_ID_CHARS = 80
MAX_HOPS = 100
DEFAULT_MAX_HOPS = 5
MAX_MAX_HOPS = 20
MIN_TTL = seconds(1)
MAX_TTL = seconds(7 * 86_400)
MAX_ACK_IDS = 100
MAX_WAIT = seconds(60)
MAX_FANOUT_TARGETS = 3
MAX_FANOUT_PREFIX_CHARS = 100
MAX_FANOUT_WAIT = seconds(30 * 60)

MAX_RUN_ID_CHARS = 80
MAX_STAGE_ID_CHARS = 64
MAX_REQUIREMENT_KEY_CHARS = 128
MAX_ATTEMPT = 20

EXPIRED_ERROR = "message expired before a reply was received"
CANCELLED_ERROR = "message cancelled by sender"
WORKFLOW_CONTEXT_SCHEMA = "pi-mesh.workflow-message-context.v1"


class Delivery(enum.Enum):
    """The sender's scheduling hint to the recipient; the hub stores and forwards it."""

    STEER = "steer"
    FOLLOW_UP = "follow_up"
    NEXT_TURN = "next_turn"


class MessageState(enum.Enum):
    """Where a message is in its lifecycle."""

    QUEUED = "queued"
    DELIVERED = "delivered"
    REPLIED = "replied"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    ERROR = "error"

    @property
    def terminal(self) -> bool:
        """Replied, cancelled, expired or error: nothing changes it any more."""
        return self not in (MessageState.QUEUED, MessageState.DELIVERED)


class EventKind(enum.Enum):
    """What an entry of an agent's event log reports."""

    MESSAGE = "message"
    """A new request for the agent (its recipient)."""
    REPLY = "reply"
    """A request the agent sent was replied to."""
    CANCELLED = "cancelled"
    """A request the agent received was cancelled by its sender."""
    EXPIRED = "expired"
    """A request the agent sent or received expired (logged for both sides)."""
    PRESENCE = "presence"
    """Another agent of the project changed presence."""


@dataclass(frozen=True, slots=True)
class WorkflowContext:
    """The workflow stage attempt a request serves (schema ``pi-mesh.workflow-message-context.v1``)."""

    run_id: str
    stage_id: str
    requirement_key: str
    attempt: int


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A validated SendMessage request (before its target is resolved)."""

    target: str
    content: str
    delivery: Delivery
    correlation_id: str
    reply_to: str
    idempotency_key: str
    hops: int
    max_hops: int
    ttl: int
    allow_offline: bool
    workflow_context: WorkflowContext | None


@dataclass(frozen=True, slots=True)
class Fanout:
    """A validated FanoutMessages request."""

    targets: list[str]
    content: str
    correlation_id: str
    prefix: str
    workflow_context: WorkflowContext | None
    ttl: int
    allow_offline: bool


@dataclass(frozen=True, slots=True)
class Message:
    """A stored peer request. Times are hub-clock microseconds; 0 or None means not yet."""

    id: str
    project: str
    from_agent_id: str
    from_agent_name: str
    to_agent_id: str
    to_agent_name: str
    content: str
    delivery: Delivery
    hops: int
    max_hops: int
    correlation_id: str
    reply_to: str
    idempotency_key: str
    seq: int
    workflow_context: WorkflowContext | None
    create_time: int
    expire_time: int
    state: MessageState
    allow_offline: bool = False
    deliver_time: int | None = None
    end_time: int | None = None
    reply_content: str | None = None
    reply_time: int | None = None
    error: str = ""

    @property
    def ttl(self) -> int:
        """The time to live it was sent with."""
        return self.expire_time - self.create_time

    def is_due(self, now: int) -> bool:
        """Open, and its deadline has passed: it must be expired before anyone reads it."""
        return not self.state.terminal and self.expire_time <= now


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of an agent's event log, with what it reports as it is now.

    ``message`` is set for message, reply, cancelled and expired events; ``subject`` (the agent
    whose presence changed, as it was then) for presence events.
    """

    seq: int
    kind: EventKind
    event_time: int
    message: Message | None = None
    subject: Agent | None = None


def deliverable(event: Event, now: int) -> bool:
    """Whether a logged event goes out on a stream.

    A message event goes out only while its message waits for acknowledgement (queued and not
    past its deadline): an acknowledged message is never redelivered, and nothing is delivered
    after its TTL. Every other event always goes out.
    """
    if event.kind is EventKind.MESSAGE:
        message = event.message
        return message is not None and message.state is MessageState.QUEUED and not message.is_due(now)
    return event.message is not None or event.subject is not None


HUB_SENDER_PREFIX = "workflow:"
"""The sender id prefix of messages the hub writes itself (``workflow:<run id>``): no agent has it."""


def is_hub_sender(agent_id: str) -> bool:
    """True for a sender id the hub wrote (a workflow run's prompts and notices), not an agent's."""
    return agent_id.startswith(HUB_SENDER_PREFIX)


def hub_sender_run(agent_id: str) -> str | None:
    """The workflow run id of a hub sender id, else None."""
    return agent_id[len(HUB_SENDER_PREFIX) :] if is_hub_sender(agent_id) else None


# -- validation ------------------------------------------------------------------------------------


def canonical_requirement_key(value: str) -> str:
    """Trim, collapse whitespace and lowercase an evidence requirement key."""
    return validation.js_lower(validation.collapse_whitespace(value))


def workflow_context(run_id: str, stage_id: str, requirement_key: str, attempt: int) -> WorkflowContext:
    """Validate a workflow message context and canonicalise its requirement key.

    Raises:
        InvalidArgument: (INVALID_WORKFLOW_CONTEXT) a field is empty, too long or out of range.
    """

    def text(field: str, value: str, limit: int) -> str:
        stripped = validation.js_trim(value)
        if not stripped:
            raise invalid_field(
                f"workflow_context.{field}", "must not be empty", reason=Reason.INVALID_WORKFLOW_CONTEXT
            )
        if "\x00" in stripped or validation.utf16_length(stripped) > limit:
            raise invalid_field(
                f"workflow_context.{field}", f"exceeds {limit} characters", reason=Reason.INVALID_WORKFLOW_CONTEXT
            )
        return stripped

    if not 1 <= attempt <= MAX_ATTEMPT:
        raise invalid_field(
            "workflow_context.attempt",
            f"must be an integer between 1 and {MAX_ATTEMPT}",
            reason=Reason.INVALID_WORKFLOW_CONTEXT,
        )
    return WorkflowContext(
        run_id=text("run_id", run_id, MAX_RUN_ID_CHARS),
        stage_id=text("stage_id", stage_id, MAX_STAGE_ID_CHARS),
        requirement_key=canonical_requirement_key(text("requirement_key", requirement_key, MAX_REQUIREMENT_KEY_CHARS)),
        attempt=attempt,
    )


def pinned_correlation(correlation_id: str, context: WorkflowContext | None) -> str:
    """The correlation id to store: with a workflow context it must be empty or the run id.

    Raises:
        FailedPrecondition: (WORKFLOW_CONTEXT_CORRELATION_MISMATCH) it names another run.
    """
    if context is None:
        return correlation_id
    if correlation_id and correlation_id != context.run_id:
        raise FailedPrecondition(
            "correlation_id must equal the workflow context's run id",
            reason=Reason.WORKFLOW_CONTEXT_CORRELATION_MISMATCH,
            metadata={"correlationId": correlation_id, "runId": context.run_id},
        )
    return context.run_id


def ttl(value: int | None, default: int) -> int:
    """The time to live in microseconds, as a request gave it (``None``: the hub default, ``--message-ttl``).

    Raises:
        InvalidArgument: negative, or outside 1 s to 7 d.
    """
    return bounded_duration("ttl", value, default=default, minimum=MIN_TTL, maximum=MAX_TTL)


def outgoing(
    *,
    target: str,
    content: str,
    delivery: Delivery,
    correlation_id: str,
    reply_to: str,
    idempotency_key: str,
    hops: int,
    max_hops: int,
    ttl_micros: int,
    allow_offline: bool,
    context: WorkflowContext | None,
) -> Outgoing:
    """Validate a send in the original's order: target, content, context, then the rest.

    Raises:
        InvalidArgument: a field is empty, too long or out of range (PROTOCOL_ERROR), or
            hops >= max_hops (HOP_LIMIT_REACHED).
        FailedPrecondition: the correlation id does not match the workflow run
            (WORKFLOW_CONTEXT_CORRELATION_MISMATCH).
    """
    target = validation.required_text("target", target, MAX_TARGET_CHARS)
    content = validation.required_text("content", content, MAX_CONTENT_CHARS)
    correlation_id = validation.optional_text("correlation_id", correlation_id, MAX_CORRELATION_CHARS)
    correlation_id = pinned_correlation(correlation_id, context)
    reply_to = validation.optional_text("reply_to", reply_to, MAX_REPLY_TO_CHARS)
    hops = validation.bounded_int("hops", hops, 0, MAX_HOPS)
    max_hops = validation.bounded_int("max_hops", max_hops, 1, MAX_MAX_HOPS, default=DEFAULT_MAX_HOPS)
    if hops >= max_hops:
        raise InvalidArgument(
            f"hop limit reached ({hops}/{max_hops})",
            reason=Reason.HOP_LIMIT_REACHED,
            metadata={"field": "hops", "hops": str(hops), "maxHops": str(max_hops)},
            field_violations=(FieldViolation("hops", f"must be below max_hops ({max_hops})"),),
        )
    idempotency_key = validation.optional_text("idempotency_key", idempotency_key, MAX_IDEMPOTENCY_KEY_CHARS)
    return Outgoing(
        target=target,
        content=content,
        delivery=delivery,
        correlation_id=correlation_id,
        reply_to=reply_to,
        idempotency_key=idempotency_key,
        hops=hops,
        max_hops=max_hops,
        ttl=ttl_micros,
        allow_offline=allow_offline,
        workflow_context=context,
    )


def message_id(value: str, field: str = "message_id") -> str:
    """A message id as presented (trimmed).

    Raises:
        InvalidArgument: empty or too long.
    """
    return validation.required_text(field, value, MAX_MESSAGE_ID_CHARS)


def reply_content(value: str) -> str:
    """Reply text, trimmed.

    Raises:
        InvalidArgument: empty or longer than 32,000 characters.
    """
    return validation.required_text("content", value, MAX_CONTENT_CHARS)


def ack_ids(values: list[str]) -> list[str]:
    """The ids of an AckMessages request.

    Raises:
        InvalidArgument: none, more than 100, or an empty or too long id.
    """
    if not values:
        raise invalid_field("message_ids", "must name at least one message")
    if len(values) > MAX_ACK_IDS:
        raise invalid_field("message_ids", f"must name at most {MAX_ACK_IDS} messages")
    return [message_id(value, f"message_ids[{i}]") for i, value in enumerate(values)]


# -- streams ---------------------------------------------------------------------------------------

PRESENCE_STREAM_MODEL = "tui"
"""The model an agent must have registered with to open a presence-only stream."""


def check_stream(agent: Agent, presence_only: bool) -> None:
    """A presence-only stream (no message bodies) is for dashboards: agents registered with model ``tui``.

    Raises:
        PermissionDenied: (PRESENCE_STREAM_FORBIDDEN) presence only, and the agent's model is not ``tui``.
    """
    if presence_only and agent.model != PRESENCE_STREAM_MODEL:
        raise PermissionDenied(
            "presence-only streams are for agents registered with model 'tui'",
            reason=Reason.PRESENCE_STREAM_FORBIDDEN,
        )


# -- idempotency -----------------------------------------------------------------------------------


def same_request(stored: Message, request: Outgoing) -> bool:
    """Whether ``request`` repeats the send that stored ``stored`` (spec §4.3 step 4).

    The target may be given by id or by (any casing of) the name it resolved to; every other
    field must be equal, including the TTL and, unlike the original, ``allow_offline``.
    """
    target = request.target
    same_target = target == stored.to_agent_id or validation.js_lower(target) == validation.js_lower(
        stored.to_agent_name
    )
    return (
        same_target
        and stored.content == request.content
        and stored.delivery is request.delivery
        and stored.correlation_id == request.correlation_id
        and stored.reply_to == request.reply_to
        and stored.hops == request.hops
        and stored.max_hops == request.max_hops
        and stored.workflow_context == request.workflow_context
        and stored.ttl == request.ttl
        and stored.allow_offline == request.allow_offline
    )


# -- authorization ---------------------------------------------------------------------------------


def _forbidden(message: str, reason_text: str) -> PermissionDenied:
    return PermissionDenied(reason_text, reason=Reason.MESSAGE_FORBIDDEN, metadata={"messageId": message})


def check_visible(message: Message, agent_id: str) -> None:
    """The sender and the recipient may read a message.

    Raises:
        PermissionDenied: (MESSAGE_FORBIDDEN) the agent is neither.
    """
    if agent_id not in (message.from_agent_id, message.to_agent_id):
        raise _forbidden(message.id, "message is not visible to this agent")


def check_sender(message: Message, agent_id: str) -> None:
    """Only the sender may cancel.

    Raises:
        PermissionDenied: (MESSAGE_FORBIDDEN) the agent is not the sender.
    """
    if agent_id != message.from_agent_id:
        raise _forbidden(message.id, "only the sender can cancel this message")


def check_recipient(message: Message, agent_id: str) -> None:
    """Only the recipient may reply or acknowledge.

    Raises:
        PermissionDenied: (MESSAGE_FORBIDDEN) the agent is not the recipient.
    """
    if agent_id != message.to_agent_id:
        raise _forbidden(message.id, "only the recipient can reply to or acknowledge this message")


# -- transitions -----------------------------------------------------------------------------------


def _invalid_state(message: Message, action: str) -> FailedPrecondition:
    article = "an" if message.state is MessageState.EXPIRED or message.state is MessageState.ERROR else "a"
    return FailedPrecondition(
        f"cannot {action} {article} {message.state.value} message",
        reason=Reason.INVALID_MESSAGE_STATE,
        metadata={"messageId": message.id, "state": message.state.value},
    )


def expired(message: Message) -> Message:
    """The message past its deadline; its terminal time is the deadline itself."""
    return replace(message, state=MessageState.EXPIRED, end_time=message.expire_time, error=EXPIRED_ERROR)


def acknowledged(message: Message, now: int) -> Message:
    """Acknowledge receipt: queued → delivered; a message acknowledged before is unchanged.

    Raises:
        FailedPrecondition: (INVALID_MESSAGE_STATE) it ended without being acknowledged.
    """
    if message.state is MessageState.QUEUED:
        return replace(message, state=MessageState.DELIVERED, deliver_time=now)
    if message.deliver_time is not None:
        return message
    raise _invalid_state(message, "acknowledge")


def replied(message: Message, content: str, now: int) -> Message:
    """Record the one reply (from queued or delivered). The same reply again returns the message
    unchanged: a retry after a reply whose answer was lost is not a second reply.

    Raises:
        FailedPrecondition: DUPLICATE_REPLY when it has another reply; INVALID_MESSAGE_STATE when
            it was cancelled or expired.
    """
    if message.state is MessageState.REPLIED and message.reply_content == content:
        return message
    if message.state is MessageState.REPLIED:
        raise FailedPrecondition(
            "message already has a reply", reason=Reason.DUPLICATE_REPLY, metadata={"messageId": message.id}
        )
    if message.state.terminal:
        raise _invalid_state(message, "reply to")
    return replace(message, state=MessageState.REPLIED, reply_content=content, reply_time=now, end_time=now)


def cancelled(message: Message, now: int) -> Message:
    """Cancel (from queued or delivered); cancelling a cancelled message returns it unchanged.

    Raises:
        FailedPrecondition: (INVALID_MESSAGE_STATE) it was replied to or expired.
    """
    if message.state is MessageState.CANCELLED:
        return message
    if message.state.terminal:
        raise _invalid_state(message, "cancel")
    return replace(message, state=MessageState.CANCELLED, end_time=now, error=CANCELLED_ERROR)


# -- fanout ----------------------------------------------------------------------------------------


def fanout_targets(values: list[str]) -> list[str]:
    """One to three targets, trimmed, lowercased and de-duplicated in request order.

    Raises:
        InvalidArgument: an empty or too long target, or not one to three distinct targets.
    """
    targets: list[str] = []
    seen: set[str] = set()
    for i, value in enumerate(values):
        target = validation.js_lower(validation.required_text(f"targets[{i}]", value, MAX_TARGET_CHARS))
        if target not in seen:
            if len(targets) == MAX_FANOUT_TARGETS:
                # Refused at the first target too many: a request of many thousand distinct targets
                # (a quarter megabyte holds 30,000) costs no more than one of four.
                raise invalid_field("targets", "fanout requires between one and three unique targets")
            seen.add(target)
            targets.append(target)
    if not targets:
        raise invalid_field("targets", "fanout requires between one and three unique targets")
    return targets


def fanout(
    *,
    targets: list[str],
    content: str,
    correlation_id: str,
    prefix: str,
    ttl_micros: int,
    allow_offline: bool,
    context: WorkflowContext | None,
) -> Fanout:
    """Validate a fanout: targets, content, correlation id (pinned to the workflow run), then the prefix.

    Raises:
        InvalidArgument: a field is empty, too long or out of range, or not one to three distinct
            targets (PROTOCOL_ERROR).
        FailedPrecondition: the correlation id does not match the workflow run
            (WORKFLOW_CONTEXT_CORRELATION_MISMATCH).
    """
    targets = fanout_targets(targets)
    content = validation.required_text("content", content, MAX_CONTENT_CHARS)
    correlation_id = validation.optional_text("correlation_id", correlation_id, MAX_CORRELATION_CHARS)
    correlation_id = pinned_correlation(correlation_id, context)
    prefix = validation.optional_text("idempotency_key_prefix", prefix, MAX_FANOUT_PREFIX_CHARS)
    return Fanout(
        targets=targets,
        content=content,
        correlation_id=correlation_id,
        prefix=prefix,
        workflow_context=context,
        ttl=ttl_micros,
        allow_offline=allow_offline,
    )


def fanout_key(prefix: str, correlation_id: str, target: str, context: WorkflowContext | None) -> str:
    """The idempotency key of one fanout target: ``fanout:`` + SHA-256 hex of canonical JSON (71 chars)."""
    body: dict[str, object] = {"prefix": prefix, "correlationId": correlation_id or None, "target": target}
    if context is not None:
        body["workflowContext"] = {
            "runId": context.run_id,
            "stageId": context.stage_id,
            "requirementKey": context.requirement_key,
            "attempt": context.attempt,
        }
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "fanout:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
