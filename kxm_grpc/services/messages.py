"""Peer messages (spec §4.3, §6, §7), with the original's delivery gaps fixed.

Every mutating call is one write transaction, and every change a participant must see is an
event in that participant's inbox log written in the same transaction (``services.inbox``): a
send logs a message event for the recipient, a reply a reply event for the sender, a cancel a
cancelled event for the recipient, an expiry an expired event for both. Acknowledgement is per
message (queued → delivered), never a high-water mark. Expiry is exact: a send writes the
message's ``message_expiry`` timer (``services.timers``) in its transaction, the scheduler fires
it at the deadline (and at start for what came due while the hub was down), ending the message
deletes it, and every read applies expiry first, so nothing is delivered or answered after its
TTL. Writing the timer wakes the hub's scheduler (``services.timers.schedule``), so the timing is
the same whoever called. Calls see only their own project's messages: another project's message
is NOT_FOUND.

Every function applies the request rules itself, whatever surface called it: it takes the
request's values as given (ids and texts untrimmed, durations in microseconds, None when unset;
``SendRequest``, ``FanoutRequest``) and validates them, applies the defaults of ``Limits`` (the
TTL), the bounds and the reductions of waits (``domain.waits``: at most 60 s for a send's reply
and ``WaitMessage``, 30 min for a fan-out), and cuts a wait to ``time_remaining``, the seconds the
caller still listens (the gRPC adapter passes what its call's deadline leaves).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, replace
from typing import Protocol

import structlog
from prometheus_client import Counter

from kxm_grpc.domain import agents as agent_rules
from kxm_grpc.domain import messages as rules
from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.clock import Clock, rfc3339
from kxm_grpc.domain.messages import (
    Delivery,
    Event,
    EventKind,
    Fanout,
    Message,
    MessageState,
    Outgoing,
    WorkflowContext,
)
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.secrets import hash_secret, new_id
from kxm_grpc.domain.waits import Wait, clamped_wait, wait_seconds
from kxm_grpc.errors import (
    Aborted,
    FieldViolation,
    HubError,
    InvalidArgument,
    NotFound,
    Reason,
    ResourceExhausted,
    Unavailable,
    invalid_field,
)
from kxm_grpc.services import timers
from kxm_grpc.services.auth import KeyWatch
from kxm_grpc.services.inbox import agent_topic, append_event, message_topic, record_event
from kxm_grpc.services.limits import LIMITS, Limits
from kxm_grpc.services.workflows import provenance
from kxm_grpc.store import Store, Timer, Tx
from kxm_grpc.store.notify import Notifier

log = structlog.get_logger("kxm.messages")

MESSAGE_EVENTS = Counter(
    "kxm_messages", "Messages sent (not counting idempotent repeats), replied to and cancelled.", ["event"]
)
_SENT = MESSAGE_EVENTS.labels("sent")
_REPLIED = MESSAGE_EVENTS.labels("replied")
_CANCELLED = MESSAGE_EVENTS.labels("cancelled")

EVENT_BATCH = 256
_PURGE_BATCH = 500

EXPIRY_TIMER = "message_expiry"
"""The timer kind of a message's deadline (key: the message id)."""


@dataclass(frozen=True, slots=True)
class SendRequest:
    """A SendMessage request as it arrived: nothing is checked yet (``send_message`` checks it all)."""

    target: str
    content: str
    delivery: Delivery = Delivery.FOLLOW_UP
    correlation_id: str = ""
    reply_to: str = ""
    idempotency_key: str = ""
    hops: int = 0
    max_hops: int = 0
    ttl: int | None = None
    """Microseconds as given; None: the hub's default (``Limits.message_ttl``)."""
    allow_offline: bool = False
    workflow_context: WorkflowContext | None = None
    """As given; validated and canonicalised by the send."""
    wait: Wait | None = None
    """How long to wait for the message to end once stored; None: answer once stored."""


@dataclass(frozen=True, slots=True)
class FanoutRequest:
    """A FanoutMessages request as it arrived: nothing is checked yet (``fanout_messages`` checks it all)."""

    targets: list[str]
    content: str
    correlation_id: str = ""
    idempotency_key_prefix: str = ""
    workflow_context: WorkflowContext | None = None
    ttl: int | None = None
    """Microseconds as given; None: the hub's default (``Limits.message_ttl``)."""
    allow_offline: bool = False
    wait: Wait | None = None
    """How long to gather the replies; None: 30 min."""


@dataclass(frozen=True, slots=True)
class Sent:
    """A send's stored message and whether the call only repeated an earlier send.

    With a wait, ``message`` is the message as the wait left it (terminal unless the wait ended first).
    """

    message: Message
    repeated: bool
    target_online: bool = True


@dataclass(frozen=True, slots=True)
class FanoutOutcome:
    """One fanout target: its message (latest state), or why the send to it failed."""

    target: str
    message: Message | None
    error: HubError | None


@dataclass(frozen=True, slots=True)
class Opening:
    """Where a stream starts in the agent's log."""

    after_seq: int
    head_seq: int
    oldest_seq: int
    truncated: bool


@dataclass(frozen=True, slots=True)
class EventPage:
    """Deliverable events read from a log, the last seq scanned, and whether more may follow."""

    events: list[Event]
    cursor: int
    full: bool


def stream_limit_reached(limit: int) -> ResourceExhausted:
    """The refusal of a Subscribe beyond ``limit`` open streams of one agent (in a process or a cluster)."""
    return ResourceExhausted(
        f"the agent already has {limit} open streams; close one first",
        reason=Reason.STREAM_LIMIT_REACHED,
        metadata={"limit": str(limit)},
    )


@dataclass(frozen=True, slots=True)
class Subscription:
    """An admitted Subscribe request: the agent, the hash of the key it presented, and the cursor."""

    agent: Agent
    key_hash: str
    after_seq: int
    presence_only: bool
    key_verified_at: int = -1
    """The credentials topic's version at which the key was verified (-1: not yet)."""


@dataclass(frozen=True, slots=True)
class Ready:
    """The first item of every stream: the agent, and where the stream starts in its log (at ``time``)."""

    agent: Agent
    opening: Opening
    time: int


@dataclass(frozen=True, slots=True)
class Redelivery:
    """An unacknowledged open message at or below the cursor, delivered again."""

    message: Message


StreamItem = Ready | Redelivery | Event
"""What a stream yields: ready first, then redeliveries, then logged events."""


class LogCursor(Protocol):
    """The edge's record of a stream: the notifier version of its agent's topic at the last log read
    (or hinted event, which stands for a read right after its commit).

    The edge measures a stream's lag (events appended but not yet read) from it.
    """

    version: int


def _not_found(message_id: str) -> NotFound:
    return NotFound(
        f"message not found: {message_id}", reason=Reason.MESSAGE_NOT_FOUND, metadata={"messageId": message_id}
    )


def _find(tx: Tx, project: str, message_id: str) -> Message:
    """The project's message. Another project's message is reported exactly like a missing one."""
    message = tx.messages.get(message_id)
    if message is None or message.project != project:
        raise _not_found(message_id)
    return message


def _store_end(tx: Tx, ended: Message) -> None:
    """Store a message that just reached a terminal state; its expiry timer has nothing left to do."""
    tx.messages.update(ended)
    timers.cancel(tx, EXPIRY_TIMER, ended.id)


def _expire(tx: Tx, message: Message, now: int) -> Message:
    """Expire a due message and tell both sides."""
    ended = rules.expired(message)
    _store_end(tx, ended)
    record_event(tx, message.to_agent_id, EventKind.EXPIRED, now, message=ended)
    _tell_sender(tx, ended, EventKind.EXPIRED, now)
    tx.notify(message_topic(message.id), ended)
    return ended


# -- messages the hub sends itself -----------------------------------------------------------------


class HubMessageReactions(Protocol):
    """What reacts, in the same transaction, to a reply to or the expiry of a hub-written message.

    The hub writes messages from ``workflow:<run id>`` (prompts and notices, ``send_from_hub``),
    which have no inbox of their own: their events go to the registered reactions instead.
    """

    def replied(self, tx: Tx, message: Message, now: int) -> None: ...

    def expired(self, tx: Tx, message: Message, now: int) -> None: ...


_REACTIONS: list[HubMessageReactions] = []


def register_hub_message_reactions(reactions: HubMessageReactions) -> None:
    """Register the reactions to replies and expiries of hub-written messages (once per process)."""
    if reactions not in _REACTIONS:
        _REACTIONS.append(reactions)


def _tell_sender(tx: Tx, message: Message, kind: EventKind, now: int) -> None:
    """An event for the sender's inbox log; for a hub-written message, the registered reactions."""
    if not rules.is_hub_sender(message.from_agent_id):
        record_event(tx, message.from_agent_id, kind, now, message=message)
        return
    for reactions in _REACTIONS:
        if kind is EventKind.REPLY:
            reactions.replied(tx, message, now)
        elif kind is EventKind.EXPIRED:
            reactions.expired(tx, message, now)


def send_from_hub(
    tx: Tx,
    *,
    run_id: str,
    sender_name: str,
    target: Agent,
    content: str,
    delivery: Delivery,
    idempotency_key: str,
    ttl: int,
    now: int,
) -> Message:
    """Queue a message from ``workflow:<run_id>`` to ``target`` (online or not), in ``tx``.

    The correlation id is the run id. An idempotency key already used by this sender returns
    that message and writes nothing (a retried start or signal prompts once).
    """
    sender_id = f"{rules.HUB_SENDER_PREFIX}{run_id}"
    existing = tx.messages.find_by_key(sender_id, idempotency_key)
    if existing is not None:
        return existing
    seq = tx.inbox.next_seq(target.id)
    message = Message(
        id=new_id("msg"),
        project=target.project,
        from_agent_id=sender_id,
        from_agent_name=sender_name,
        to_agent_id=target.id,
        to_agent_name=target.name,
        content=content,
        delivery=delivery,
        hops=0,
        max_hops=rules.DEFAULT_MAX_HOPS,
        correlation_id=run_id,
        reply_to="",
        idempotency_key=idempotency_key,
        seq=seq,
        workflow_context=None,
        create_time=now,
        expire_time=now + ttl,
        state=MessageState.QUEUED,
        allow_offline=True,
    )
    tx.messages.insert(message)
    timers.schedule(tx, EXPIRY_TIMER, message.id, message.expire_time)
    append_event(tx, target.id, Event(seq=seq, kind=EventKind.MESSAGE, event_time=now, message=message))
    _SENT.inc()
    return message


def _log_expired(expired: list[Message]) -> None:
    for message in expired:
        log.info(
            "message_expired",
            message_id=message.id,
            from_agent_id=message.from_agent_id,
            to_agent_id=message.to_agent_id,
        )


def _caller_ids(caller: Caller) -> tuple[str, str]:
    assert caller.agent_id is not None and caller.project is not None  # the method table requires an agent
    return caller.agent_id, caller.project


# -- send ------------------------------------------------------------------------------------------


def _resolve_target(tx: Tx, project: str, target: str, *, allow_offline: bool) -> Agent:
    """The project's agent with this id, else with this name (any case); online unless allowed.

    Raises:
        NotFound: (TARGET_NOT_FOUND) no such agent, or it is offline and offline targets were not
            allowed (then the message says so, and since when).
    """
    agent = tx.agents.get(target)
    if agent is None or agent.project != project:
        agent = tx.agents.find_by_name(project, agent_rules.name_key(target))
    if agent is not None and not (agent.online or allow_offline):
        key = tx.agents.get_key(agent.id)
        if key is not None and key[1]:
            raise _offline_target(target, agent)
        # Unregistered (its key is dead): not "registered", and no connection brings it back; as before.
    if agent is None or not (agent.online or allow_offline):
        raise NotFound(
            f"{'target' if allow_offline else 'online target'} not found: {target}",
            reason=Reason.TARGET_NOT_FOUND,
            metadata={"target": target},
        )
    return agent


def _offline_target(target: str, agent: Agent) -> NotFound:
    """TARGET_NOT_FOUND for an agent of the caller's own project that is registered but offline.

    Only the caller's project is searched, so this tells nothing about any other project.
    """
    seen = rfc3339(agent.last_seen_time)
    return NotFound(
        f"target {agent.name} is registered but offline (last seen {seen}); send with allow_offline"
        " (kxm: --allow-offline) to queue the message until it connects, or keep the agent connected",
        reason=Reason.TARGET_NOT_FOUND,
        metadata={"target": target, "presence": "offline", "lastSeenTime": seen},
    )


def _send(tx: Tx, caller: Caller, outgoing: Outgoing, now: int) -> Sent:
    """Send inside a transaction. Every refusal is raised before anything is written."""
    sender_id, project = _caller_ids(caller)
    if outgoing.idempotency_key:
        # Checked before the target is resolved, so an exact retry succeeds even if the target went offline.
        existing = tx.messages.find_by_key(sender_id, outgoing.idempotency_key)
        if existing is not None:
            if not rules.same_request(existing, outgoing):
                raise Aborted(
                    "idempotency key was already used for another request",
                    reason=Reason.IDEMPOTENCY_CONFLICT,
                    metadata={"idempotencyKey": outgoing.idempotency_key, "messageId": existing.id},
                )
            if existing.is_due(now):
                existing = _expire(tx, existing, now)
            return Sent(existing, repeated=True)
    target = _resolve_target(tx, project, outgoing.target, allow_offline=outgoing.allow_offline)
    if target.id == sender_id:
        raise InvalidArgument(
            "an agent cannot send a message to itself",
            reason=Reason.SELF_TARGET,
            metadata={"field": "target", "target": outgoing.target},
            field_violations=(FieldViolation("target", "names the sending agent itself"),),
        )
    context = outgoing.workflow_context
    if context is not None:
        provenance.authorise_send(tx, sender_id=sender_id, project=project, target=target, context=context)
    seq = tx.inbox.next_seq(target.id)
    message = Message(
        id=new_id("msg"),
        project=project,
        from_agent_id=sender_id,
        from_agent_name=caller.agent_name or "",
        to_agent_id=target.id,
        to_agent_name=target.name,
        content=outgoing.content,
        delivery=outgoing.delivery,
        hops=outgoing.hops,
        max_hops=outgoing.max_hops,
        correlation_id=outgoing.correlation_id,
        reply_to=outgoing.reply_to,
        idempotency_key=outgoing.idempotency_key,
        seq=seq,
        workflow_context=outgoing.workflow_context,
        create_time=now,
        expire_time=now + outgoing.ttl,
        state=MessageState.QUEUED,
        allow_offline=outgoing.allow_offline,
    )
    tx.messages.insert(message)
    timers.schedule(tx, EXPIRY_TIMER, message.id, message.expire_time)
    append_event(tx, target.id, Event(seq=seq, kind=EventKind.MESSAGE, event_time=now, message=message))
    return Sent(message, repeated=False, target_online=target.online)


def _log_sent(sent: Sent) -> None:
    if sent.repeated:
        return
    _SENT.inc()
    message = sent.message
    # Per-message lines are debug: at info they cost ~9 % of the hub's CPU per round trip
    # (docs/performance.md); the kxm_messages counter counts them at every level.
    log.debug(
        "message_sent",
        message_id=message.id,
        from_agent_id=message.from_agent_id,
        to_agent_id=message.to_agent_id,
        hops=message.hops,
        target_online=sent.target_online,
    )


def _workflow_context(context: WorkflowContext | None) -> WorkflowContext | None:
    if context is None:
        return None
    return rules.workflow_context(context.run_id, context.stage_id, context.requirement_key, context.attempt)


def _outgoing(request: SendRequest, limits: Limits) -> Outgoing:
    """Validate a send in the original's order: the workflow context, the TTL, then the fields."""
    context = _workflow_context(request.workflow_context)
    ttl = rules.ttl(request.ttl, limits.message_ttl)
    return rules.outgoing(
        target=request.target,
        content=request.content,
        delivery=request.delivery,
        correlation_id=request.correlation_id,
        reply_to=request.reply_to,
        idempotency_key=request.idempotency_key,
        hops=request.hops,
        max_hops=request.max_hops,
        ttl_micros=ttl,
        allow_offline=request.allow_offline,
        context=context,
    )


async def send_message(
    store: Store,
    caller: Caller,
    request: SendRequest | Outgoing,
    *,
    now: int | None = None,
    clock: Clock | None = None,
    limits: Limits = LIMITS,
    time_remaining: float | None = None,
) -> Sent:
    """Queue a message for another agent of the caller's project, or return the one an exact retry repeats.

    A ``SendRequest`` is checked here, every field before anything is stored (its wait included):
    the TTL defaults to ``limits.message_ttl``. An ``Outgoing`` was validated already
    (``domain.messages.outgoing``) and is sent as it is, without a wait. With a wait (at most 60 s,
    cut to ``time_remaining`` seconds, both counted from this call: the write comes out of them)
    the call then waits for the message to end, as ``wait_message`` does. The send happens at
    ``now`` (default: ``clock.now()``); a wait needs the hub's ``clock``.

    Raises:
        InvalidArgument: a field is empty, too long or out of range (PROTOCOL_ERROR), the wait is
            negative, hops >= max_hops (HOP_LIMIT_REACHED), the workflow context is malformed
            (INVALID_WORKFLOW_CONTEXT), or the target is the caller (SELF_TARGET).
        FailedPrecondition: (WORKFLOW_CONTEXT_CORRELATION_MISMATCH) the correlation id names another run.
        Aborted: (IDEMPOTENCY_CONFLICT) the idempotency key was used for a different request.
        NotFound: (TARGET_NOT_FOUND) no such agent online (or registered, with allow_offline).
    """
    wait: float | None = None
    if isinstance(request, SendRequest):
        outgoing = _outgoing(request, limits)
        if request.wait is not None:
            micros = clamped_wait(request.wait, default=rules.MAX_WAIT, maximum=rules.MAX_WAIT)
            wait = wait_seconds(micros, time_remaining)
    else:
        outgoing = request
    if now is None:
        if clock is None:
            raise ValueError("send_message needs the send's time: now= or clock=")
        now = clock.now()
    if wait is not None and clock is None:
        raise ValueError("a send that waits needs the hub's clock")
    loop = asyncio.get_running_loop()
    # The wait ends when the caller stops listening, counted from now: the write comes out of it.
    wait_until = None if wait is None else loop.time() + wait
    sent_at = now
    sent = await store.write(lambda tx: _send(tx, caller, outgoing, sent_at))
    _log_sent(sent)
    if wait_until is None or sent.message.state.terminal:
        return sent
    assert clock is not None
    # The sender awaits the reply in the same call: one RPC fewer per round trip than WaitMessage.
    left = max(0.0, wait_until - loop.time())
    message, _ = await _wait_until_terminal(store, caller, sent.message.id, wait=left, clock=clock)
    return replace(sent, message=message)


# -- reads -----------------------------------------------------------------------------------------


async def _expire_if_due(store: Store, message: Message, now: int) -> Message:
    """Apply expiry before a read answers: a due message is expired (and both sides told) first."""
    if not message.is_due(now):
        return message

    def work(tx: Tx) -> tuple[Message, bool]:
        current = tx.messages.get(message.id)
        if current is None:
            return message, False
        if current.is_due(now):
            return _expire(tx, current, now), True
        return current, False

    current, expired_now = await store.write(work)
    if expired_now:
        _log_expired([current])
    return current


async def get_message(store: Store, caller: Caller, message_id: str, *, now: int) -> Message:
    """A message the caller sent or received, in its current state.

    Raises:
        InvalidArgument: the id is empty or too long.
        NotFound: (MESSAGE_NOT_FOUND) no such message in the caller's project, or it was purged.
        PermissionDenied: (MESSAGE_FORBIDDEN) the caller is neither sender nor recipient.
    """
    return await _get(store, caller, rules.message_id(message_id), now)


async def _get(store: Store, caller: Caller, message_id: str, now: int) -> Message:
    """``get_message`` of a valid id."""
    agent_id, project = _caller_ids(caller)

    def work(tx: Tx) -> Message:
        message = _find(tx, project, message_id)
        rules.check_visible(message, agent_id)
        return message

    return await _expire_if_due(store, await store.read(work), now)


async def list_inbox(store: Store, caller: Caller, size: int, token: str, *, now: int) -> tuple[list[Message], str]:
    """The caller's inbound messages that are not terminal, oldest (lowest seq) first, one page at a time.

    Raises:
        InvalidArgument: negative page size or a bad page token.
    """
    agent_id, _ = _caller_ids(caller)
    limit = page_size(size)
    query = f"inbox:{agent_id}"
    after = decode_page_token(token, query)
    try:
        after_seq = int(after) if after is not None else 0
    except ValueError:
        raise invalid_field("page_token", "is malformed", reason=Reason.INVALID_PAGE_TOKEN) from None
    rows = await store.read(lambda tx: tx.messages.list_open_to(agent_id, after_seq, limit + 1))
    next_token = encode_page_token(str(rows[limit - 1].seq), query) if len(rows) > limit else ""
    # A message past its deadline is expired already as far as readers go (the timer records it).
    return [m for m in rows[:limit] if not m.is_due(now)], next_token


async def wait_message(
    store: Store,
    caller: Caller,
    message_id: str,
    *,
    wait: Wait | None = None,
    clock: Clock,
    time_remaining: float | None = None,
) -> tuple[Message, bool]:
    """Wait for a message the caller can see to be terminal: for ``wait`` (None: 60 s; longer waits are
    reduced to 60 s), and never beyond ``time_remaining`` seconds (the time the caller still listens).

    Returns the message and whether it is terminal; a wait that ends first is not an error.

    Raises:
        InvalidArgument: the id is empty or too long, or the wait is negative.
        NotFound: (MESSAGE_NOT_FOUND) no such message in the caller's project.
        PermissionDenied: (MESSAGE_FORBIDDEN) the caller is neither sender nor recipient.
    """
    message_id = rules.message_id(message_id)
    micros = clamped_wait(wait, default=rules.MAX_WAIT, maximum=rules.MAX_WAIT)
    return await _wait_until_terminal(store, caller, message_id, wait=wait_seconds(micros, time_remaining), clock=clock)


async def _wait_until_terminal(
    store: Store, caller: Caller, message_id: str, *, wait: float, clock: Clock
) -> tuple[Message, bool]:
    """Wait up to ``wait`` seconds for a valid id's message to be terminal (see ``wait_message``)."""
    notifier = store.notifier
    topic = message_topic(message_id)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        version = notifier.version(topic)
        message = await _get(store, caller, message_id, clock.now())
        if message.state.terminal:
            return message, True
        remaining = deadline - loop.time()
        if remaining <= 0:
            return message, False
        ended = await notifier.wait_hint(topic, version, remaining)
        if isinstance(ended, Message) and ended.id == message_id and ended.state.terminal:
            return ended, True  # the committed end of the message the caller was allowed to read: final


# -- changes ---------------------------------------------------------------------------------------


async def _change(
    store: Store,
    caller: Caller,
    message_id: str,
    now: int,
    authorize: Callable[[Message, str], None],
    transition: Callable[[Tx, Message], Message],
) -> Message:
    """Load, authorize, apply expiry, then ``transition`` — in one transaction.

    An error from ``transition`` undoes the whole transaction, expiry included; the expiry timer
    records that expiry at the deadline anyway, and the caller already saw its effect.
    """
    agent_id, project = _caller_ids(caller)
    expired: list[Message] = []

    def work(tx: Tx) -> Message:
        expired.clear()  # a unit of work may run more than once (PostgreSQL retries serialization failures)
        message = _find(tx, project, message_id)
        authorize(message, agent_id)
        if message.is_due(now):
            message = _expire(tx, message, now)
            expired.append(message)
        return transition(tx, message)

    result = await store.write(work)
    _log_expired(expired)
    return result


async def cancel_message(store: Store, caller: Caller, message_id: str, *, now: int) -> Message:
    """Cancel a queued or delivered message the caller sent; a cancelled one is returned unchanged.

    Raises:
        InvalidArgument: the id is empty or too long.
        NotFound: (MESSAGE_NOT_FOUND) no such message in the caller's project.
        PermissionDenied: (MESSAGE_FORBIDDEN) the caller is not the sender.
        FailedPrecondition: (INVALID_MESSAGE_STATE) it was replied to or expired.
    """
    message_id = rules.message_id(message_id)
    changed: list[Message] = []

    def transition(tx: Tx, message: Message) -> Message:
        changed.clear()  # the unit of work may run more than once
        updated = rules.cancelled(message, now)
        if updated is not message:
            _store_end(tx, updated)
            record_event(tx, updated.to_agent_id, EventKind.CANCELLED, now, message=updated)
            tx.notify(message_topic(updated.id), updated)
            changed.append(updated)
        return updated

    message = await _change(store, caller, message_id, now, rules.check_sender, transition)
    if changed:
        _CANCELLED.inc()
        log.debug("message_cancelled", message_id=message.id, from_agent_id=message.from_agent_id)
    return message


async def reply_to_message(store: Store, caller: Caller, message_id: str, content: str, *, now: int) -> Message:
    """Record the recipient's one reply; the sender gets a reply event. Repeating the same reply
    (a retry) returns the replied message and changes nothing.

    Raises:
        InvalidArgument: the id or the content is empty or too long.
        NotFound: (MESSAGE_NOT_FOUND) no such message in the caller's project.
        PermissionDenied: (MESSAGE_FORBIDDEN) the caller is not the recipient.
        FailedPrecondition: DUPLICATE_REPLY when it has another reply; INVALID_MESSAGE_STATE when
            it was cancelled or expired.
    """
    message_id = rules.message_id(message_id)
    content = rules.reply_content(content)

    def transition(tx: Tx, message: Message) -> Message:
        updated = rules.replied(message, content, now)
        if updated is message:
            return message  # the same reply again: nothing new to record or tell
        _store_end(tx, updated)
        _tell_sender(tx, updated, EventKind.REPLY, now)
        tx.notify(message_topic(updated.id), updated)
        return updated

    message = await _change(store, caller, message_id, now, rules.check_recipient, transition)
    _REPLIED.inc()
    log.debug(
        "message_replied", message_id=message.id, from_agent_id=message.from_agent_id, to_agent_id=message.to_agent_id
    )
    return message


async def ack_messages(store: Store, caller: Caller, message_ids: list[str], *, now: int) -> list[Message]:
    """Acknowledge each message (queued → delivered); all or none. Acknowledging again is a no-op.

    Raises:
        InvalidArgument: no ids, more than 100, or an empty or too long id.
        NotFound: (MESSAGE_NOT_FOUND) an id names no message of the caller's project.
        PermissionDenied: (MESSAGE_FORBIDDEN) the caller is not the recipient of an id.
        FailedPrecondition: (INVALID_MESSAGE_STATE) a message ended without being acknowledged.
    """
    message_ids = rules.ack_ids(message_ids)
    agent_id, project = _caller_ids(caller)

    def work(tx: Tx) -> list[Message]:
        done: dict[str, Message] = {}
        result = []
        for message_id in message_ids:
            message = done.get(message_id) or _find(tx, project, message_id)
            rules.check_recipient(message, agent_id)
            # A due message answers as expired; the timer records the expiry (an error here undoes this work).
            current = rules.expired(message) if message.is_due(now) else message
            updated = rules.acknowledged(current, now)
            if updated is not current:
                tx.messages.update(updated)
            done[message_id] = updated
            result.append(updated)
        return result

    return await store.write(work)


# -- fanout ----------------------------------------------------------------------------------------


async def _current(store: Store, message_ids: list[str], now: int) -> dict[str, Message]:
    """The messages as they are now, expiry applied."""

    def work(tx: Tx) -> dict[str, Message]:
        found = {}
        for message_id in message_ids:
            message = tx.messages.get(message_id)
            if message is not None:
                found[message_id] = message
        return found

    current = await store.read(work)
    for message_id, message in current.items():
        if message.is_due(now):
            current[message_id] = await _expire_if_due(store, message, now)
    return current


async def _wait_any(notifier: Notifier, versions: dict[str, int], timeout: float) -> None:
    """Wait until one of the topics changes after its version, or the timeout."""
    waits = [asyncio.ensure_future(notifier.wait(topic, version, timeout)) for topic, version in versions.items()]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()
        await asyncio.gather(*waits, return_exceptions=True)


def _fanout(request: FanoutRequest, limits: Limits) -> Fanout:
    """Validate a fanout in the original's order: the workflow context, the TTL, then the fields."""
    context = _workflow_context(request.workflow_context)
    ttl = rules.ttl(request.ttl, limits.message_ttl)
    return rules.fanout(
        targets=request.targets,
        content=request.content,
        correlation_id=request.correlation_id,
        prefix=request.idempotency_key_prefix,
        ttl_micros=ttl,
        allow_offline=request.allow_offline,
        context=context,
    )


async def fanout_messages(
    store: Store,
    caller: Caller,
    request: FanoutRequest,
    *,
    clock: Clock,
    limits: Limits = LIMITS,
    time_remaining: float | None = None,
) -> list[FanoutOutcome]:
    """Send the same request to each target, then gather until all are terminal or the wait ends.

    The request is checked first, its wait included (30 min when unset, longer waits reduced to
    30 min; never beyond ``time_remaining`` seconds; counted from this call, so the sends come out
    of it); the TTL defaults to ``limits.message_ttl``.
    A failed send fails only its own target. With an idempotency prefix each target's key is
    derived from it, so an exact retry resolves to the same messages.

    Raises:
        InvalidArgument: not one to three distinct targets, a bad field, a malformed workflow
            context (INVALID_WORKFLOW_CONTEXT), or a negative wait.
        FailedPrecondition: (WORKFLOW_CONTEXT_CORRELATION_MISMATCH) the correlation id names another run.
    """
    fanout = _fanout(request, limits)
    micros = clamped_wait(request.wait, default=rules.MAX_FANOUT_WAIT, maximum=rules.MAX_FANOUT_WAIT)
    loop = asyncio.get_running_loop()
    # The gathering ends when the caller stops listening, counted from now: the sends come out of it.
    deadline = loop.time() + wait_seconds(micros, time_remaining)
    now = clock.now()
    outgoing = [
        Outgoing(
            target=target,
            content=fanout.content,
            delivery=Delivery.FOLLOW_UP,
            correlation_id=fanout.correlation_id,
            reply_to="",
            idempotency_key=(
                rules.fanout_key(fanout.prefix, fanout.correlation_id, target, fanout.workflow_context)
                if fanout.prefix
                else ""
            ),
            hops=0,
            max_hops=rules.DEFAULT_MAX_HOPS,
            ttl=fanout.ttl,
            allow_offline=fanout.allow_offline,
            workflow_context=fanout.workflow_context,
        )
        for target in fanout.targets
    ]

    def work(tx: Tx) -> list[Sent | HubError]:
        results: list[Sent | HubError] = []
        for request in outgoing:
            try:
                results.append(_send(tx, caller, request, now))
            except HubError as error:  # raised before the send wrote anything: the others go ahead
                results.append(error)
        return results

    sends = await store.write(work)
    for sent in sends:
        if isinstance(sent, Sent):
            _log_sent(sent)
    ids = [sent.message.id for sent in sends if isinstance(sent, Sent)]
    latest = {sent.message.id: sent.message for sent in sends if isinstance(sent, Sent)}
    notifier = store.notifier
    while True:
        open_ids = [i for i in ids if not latest[i].state.terminal]
        if not open_ids:
            break
        # Versions first, then the read: a change in between wakes the wait at once.
        versions = {message_topic(i): notifier.version(message_topic(i)) for i in open_ids}
        latest.update(await _current(store, open_ids, clock.now()))
        remaining = deadline - loop.time()
        if remaining <= 0 or all(latest[i].state.terminal for i in open_ids):
            break
        await _wait_any(notifier, versions, remaining)
    return [
        FanoutOutcome(request.target, latest[sent.message.id], None)
        if isinstance(sent, Sent)
        else FanoutOutcome(request.target, None, sent)
        for request, sent in zip(outgoing, sends, strict=True)
    ]


# -- streams ---------------------------------------------------------------------------------------


async def open_subscription(store: Store, agent_id: str, after_seq: int) -> Opening:
    """Where a stream resuming after ``after_seq`` starts.

    A cursor beyond the log's head (the hub's data was replaced) is moved back to the head and
    reported as truncated, so the stream cannot skip what comes next.
    """
    head_seq, oldest_seq, purged_seq = await store.read(lambda tx: tx.inbox.state(agent_id))
    if after_seq > head_seq:
        return Opening(head_seq, head_seq, oldest_seq, truncated=True)
    return Opening(after_seq, head_seq, oldest_seq, truncated=after_seq < purged_seq)


async def read_unacked(
    store: Store, agent_id: str, after_seq: int, through_seq: int, *, now: int
) -> tuple[list[Message], int, bool]:
    """Unacknowledged open messages to the agent with ``after_seq < seq <= through_seq``, by seq.

    Returns up to one batch, the last seq scanned, and whether more may follow.
    """
    if through_seq <= after_seq:
        return [], after_seq, False  # nothing at or below the cursor is left to scan (always so from seq 0)
    rows = await store.read(
        lambda tx: tx.messages.list_open_to(agent_id, after_seq, EVENT_BATCH, queued_only=True, through_seq=through_seq)
    )
    more = len(rows) == EVENT_BATCH
    cursor = rows[-1].seq if rows else after_seq
    return [m for m in rows if not m.is_due(now)], cursor, more


async def _not_ended_since(store: Store, message: Message, now: int) -> bool:
    """Whether a message read as queued is still to be delivered as a stream writes it.

    Its notifier topic moves when it ends (a reply, a cancel, an expiry), published before the
    ending call is answered: while it has not moved (nearly always) nothing is read. When it has
    (or a reconnected PostgreSQL listener woke every topic), the message is read again.
    """
    if not store.notifier.version(message_topic(message.id)):
        return True
    current = await store.read(lambda tx: tx.messages.get(message.id))
    return current is not None and current.state is MessageState.QUEUED and not current.is_due(now)


async def read_events(store: Store, agent_id: str, after_seq: int, *, presence_only: bool, now: int) -> EventPage:
    """The next batch of the agent's deliverable events after ``after_seq``.

    Message events of acknowledged, ended or due messages are skipped; the cursor still moves past them.
    """
    events = await store.read(
        lambda tx: tx.inbox.read_after(agent_id, after_seq, EVENT_BATCH, presence_only=presence_only)
    )
    if not events:
        return EventPage([], after_seq, full=False)
    return EventPage(
        [event for event in events if rules.deliverable(event, now)], events[-1].seq, full=len(events) == EVENT_BATCH
    )


def shutting_down() -> Unavailable:
    """The status every stream ends with when the hub stops."""
    return Unavailable(
        "the hub is shutting down; resubscribe (to another replica) with the last seq seen",
        reason=Reason.SHUTTING_DOWN,
    )


def subscription(
    agent: Agent,
    agent_key: str,
    *,
    after_seq: int,
    presence_only: bool,
    stopping: asyncio.Event,
    key_verified_at: int = -1,
) -> Subscription:
    """Admit a Subscribe of the authenticated ``agent`` (which presented ``agent_key``, verified at
    the credentials topic's version ``key_verified_at``, so the stream need not check it again at once).

    Raises:
        PermissionDenied: (PRESENCE_STREAM_FORBIDDEN) presence only, and the agent's model is not ``tui``.
        Unavailable: (SHUTTING_DOWN) the hub is stopping.
    """
    rules.check_stream(agent, presence_only)
    if stopping.is_set():
        raise shutting_down()
    return Subscription(agent, hash_secret(agent_key), after_seq, presence_only, key_verified_at)


async def subscribe(
    store: Store, subscription: Subscription, *, clock: Clock, stopping: asyncio.Event, cursor: LogCursor
) -> AsyncGenerator[StreamItem, None]:
    """The agent's inbox stream: ready, then redeliveries at or below the cursor, then the log after it,
    then live events (woken by the commits that record them), until the caller stops iterating.

    Before every item, and after every wake-up, the stream checks that the agent's key is still
    the one it presented (a store read only when some credential changed): unregistering or
    registering again ends the agent's open streams. ``cursor.version`` is set at every log read. A
    stream that is caught up delivers the event its wake-up carries without reading (see ``Notifier``).

    Raises:
        Unauthenticated: (INVALID_AGENT_IDENTITY) the agent's key was revoked or replaced.
        Unavailable: (SHUTTING_DOWN) the hub is stopping.
    """
    agent = subscription.agent
    presence_only = subscription.presence_only
    notifier = store.notifier
    topic = agent_topic(agent.id)
    key = KeyWatch(store, agent.id, subscription.key_hash, verified_at=subscription.key_verified_at)
    await key.check()
    opening = await open_subscription(store, agent.id, subscription.after_seq)
    yield Ready(agent, opening, clock.now())
    after_seq = opening.after_seq
    if not presence_only:
        low = 0
        more = True
        while more:
            rows, low, more = await read_unacked(store, agent.id, low, after_seq, now=clock.now())
            batch = collections.deque(rows)
            del rows
            while batch:
                if not key.unchanged():
                    await key.check()
                message = batch.popleft()
                # Checked as it is written, not only as it was read: due, or ended since the read.
                if not message.is_due(clock.now()) and await _not_ended_since(store, message, clock.now()):
                    yield Redelivery(message)
                del message  # not kept while the stream waits
    version = 0
    hint: object | None = None
    while True:
        if not key.unchanged():
            await key.check()
        if isinstance(hint, Event) and hint.seq == after_seq + 1 and notifier.version(topic) == version + 1:
            # Exactly one event was appended since the last read and the wake-up carried it: it is
            # what reading the log right after that commit returns, so no read is needed.
            version += 1
            cursor.version = version
            wanted = not presence_only or hint.kind is EventKind.PRESENCE
            if wanted and rules.deliverable(hint, clock.now()):
                yield hint
            after_seq = hint.seq
        else:
            version = notifier.version(topic)
            page = await read_events(store, agent.id, after_seq, presence_only=presence_only, now=clock.now())
            cursor.version = version
            after_seq, full, events = page.cursor, page.full, collections.deque(page.events)
            del page
            # Popped as they are written: an idle stream holds no batch, only its cursor.
            while events:
                if not key.unchanged():
                    await key.check()
                event = events.popleft()
                # Checked again as it is written: a page read just before a deadline, a cancel or a
                # reply goes out after it (a replay of hundreds of events takes a while).
                if rules.deliverable(event, clock.now()) and (
                    event.message is None
                    or event.kind is not EventKind.MESSAGE
                    or await _not_ended_since(store, event.message, clock.now())
                ):
                    yield event
                del event  # not kept while the stream waits
            if full:
                hint = None
                continue
        if stopping.is_set():
            raise shutting_down()
        hint = None  # not kept (with its message) while the stream waits
        hint = await notifier.wait_hint(topic, version)
        if stopping.is_set():
            raise shutting_down()


# -- timers and sweeps -----------------------------------------------------------------------------


def _fire_expiry(tx: Tx, timer: Timer, now: int) -> Message | None:
    """At a message's deadline (its ``message_expiry`` timer): expire it and tell both sides.

    Nothing for a message that ended or was purged meanwhile. Returns the expired message.
    """
    message = tx.messages.get(timer.key)
    if message is None or message.state.terminal:
        return None
    if not message.is_due(now):  # a timer set earlier than the message's deadline: fire at the deadline
        timers.schedule(tx, EXPIRY_TIMER, message.id, message.expire_time)
        return None
    return _expire(tx, message, now)


def _log_fired(expired: list[Message | None]) -> None:
    _log_expired([message for message in expired if message is not None])


def register_timers(kinds: timers.TimerKinds) -> None:
    """Register what happens at a message's deadline (``EXPIRY_TIMER``) with the hub's scheduler."""
    kinds.register(EXPIRY_TIMER, _fire_expiry, fired=_log_fired)


async def purge_messages(store: Store, *, now: int, retention: int) -> int:
    """Delete messages that ended ``retention`` ago or earlier with their events, and old presence events.

    A purged id is NOT_FOUND from then on, and its idempotency key may be used again.
    """
    cutoff = now - retention

    def work(tx: Tx) -> list[str]:
        ids = tx.messages.list_ended_before(cutoff, _PURGE_BATCH)
        tx.inbox.delete_for_messages(ids)
        tx.messages.delete(ids)
        if len(ids) < _PURGE_BATCH:
            tx.inbox.delete_presence_before(cutoff)
        return ids

    total = 0
    while True:
        purged = await store.write(work)
        # A purged message never changes again: drop its wake-up counter, or the notifier would
        # keep one per message the hub ever ended.
        store.notifier.forget(message_topic(message_id) for message_id in purged)
        total += len(purged)
        if len(purged) < _PURGE_BATCH:
            break
    if total:
        log.info("message_purged", count=total)
    return total
