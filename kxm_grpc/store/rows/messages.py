"""Rows of ``messages``: the declaration every message query selects, and its decoder."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.messages import Delivery, Message, MessageState, WorkflowContext
from kxm_grpc.store.rows import Columns, Row

MESSAGES = Columns(
    "messages",
    "id",
    "project",
    "from_agent_id",
    "from_agent_name",
    "to_agent_id",
    "to_agent_name",
    "content",
    "delivery",
    "hops",
    "max_hops",
    "correlation_id",
    "reply_to",
    "idempotency_key",
    "allow_offline",
    "seq",
    "wf_run_id",
    "wf_stage_id",
    "wf_requirement_key",
    "wf_attempt",
    "create_time",
    "expire_time",
    "deliver_time",
    "end_time",
    "state",
    "reply_content",
    "reply_time",
    "error",
)
"""Also the insert list: ``message_values`` follow this order."""

# Enum lookups by stored value, without Enum.__call__ on every row.
_DELIVERY = {d.value: d for d in Delivery}
_STATE = {s.value: s for s in MessageState}


class MessageDecoder(Protocol):
    """Decodes the message in a row from an offset (0 unless a join puts other columns first)."""

    def __call__(self, row: Row, o: int = 0) -> Message: ...


def _decoder(columns: Columns) -> MessageDecoder:
    (
        id_,
        project,
        from_agent_id,
        from_agent_name,
        to_agent_id,
        to_agent_name,
        content,
        delivery,
        hops,
        max_hops,
        correlation_id,
        reply_to,
        idempotency_key,
        allow_offline,
        seq,
        wf_run_id,
        wf_stage_id,
        wf_requirement_key,
        wf_attempt,
        create_time,
        expire_time,
        deliver_time,
        end_time,
        state,
        reply_content,
        reply_time,
        error,
    ) = columns.positions(
        "id",
        "project",
        "from_agent_id",
        "from_agent_name",
        "to_agent_id",
        "to_agent_name",
        "content",
        "delivery",
        "hops",
        "max_hops",
        "correlation_id",
        "reply_to",
        "idempotency_key",
        "allow_offline",
        "seq",
        "wf_run_id",
        "wf_stage_id",
        "wf_requirement_key",
        "wf_attempt",
        "create_time",
        "expire_time",
        "deliver_time",
        "end_time",
        "state",
        "reply_content",
        "reply_time",
        "error",
    )

    def message_from_row(row: Row, o: int = 0) -> Message:
        """The message in a row selecting ``MESSAGES`` from offset ``o`` (a join puts other columns first).

        Indexed in place, without slicing: this runs once per delivered event.
        """
        context = (
            None
            if row[o + wf_run_id] is None
            else WorkflowContext(
                row[o + wf_run_id], row[o + wf_stage_id], row[o + wf_requirement_key], row[o + wf_attempt]
            )
        )
        return Message(
            id=row[o + id_],
            project=row[o + project],
            from_agent_id=row[o + from_agent_id],
            from_agent_name=row[o + from_agent_name],
            to_agent_id=row[o + to_agent_id],
            to_agent_name=row[o + to_agent_name],
            content=row[o + content],
            delivery=_DELIVERY[row[o + delivery]],
            hops=row[o + hops],
            max_hops=row[o + max_hops],
            correlation_id=row[o + correlation_id],
            reply_to=row[o + reply_to],
            idempotency_key=row[o + idempotency_key] or "",
            allow_offline=bool(row[o + allow_offline]),
            seq=row[o + seq],
            workflow_context=context,
            create_time=row[o + create_time],
            expire_time=row[o + expire_time],
            deliver_time=row[o + deliver_time],
            end_time=row[o + end_time],
            state=_STATE[row[o + state]],
            reply_content=row[o + reply_content],
            reply_time=row[o + reply_time],
            error=row[o + error],
        )

    return message_from_row


message_from_row = _decoder(MESSAGES)


def message_values(message: Message) -> tuple[object, ...]:
    """The message's column values in ``MESSAGES`` order, for an insert."""
    context = message.workflow_context
    values = {
        "id": message.id,
        "project": message.project,
        "from_agent_id": message.from_agent_id,
        "from_agent_name": message.from_agent_name,
        "to_agent_id": message.to_agent_id,
        "to_agent_name": message.to_agent_name,
        "content": message.content,
        "delivery": message.delivery.value,
        "hops": message.hops,
        "max_hops": message.max_hops,
        "correlation_id": message.correlation_id,
        "reply_to": message.reply_to,
        "idempotency_key": message.idempotency_key or None,
        "allow_offline": int(message.allow_offline),
        "seq": message.seq,
        "wf_run_id": None if context is None else context.run_id,
        "wf_stage_id": None if context is None else context.stage_id,
        "wf_requirement_key": None if context is None else context.requirement_key,
        "wf_attempt": None if context is None else context.attempt,
        "create_time": message.create_time,
        "expire_time": message.expire_time,
        "deliver_time": message.deliver_time,
        "end_time": message.end_time,
        "state": message.state.value,
        "reply_content": message.reply_content,
        "reply_time": message.reply_time,
        "error": message.error,
    }
    return MESSAGES.values(values)
