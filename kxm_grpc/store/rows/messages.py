"""Rows of ``messages``: the declaration every message query selects, and its decoder.

Every row carries its checksums (``kxm_grpc/store/checksum.py``): ``message_values`` writes them,
and the decoder verifies them before it builds a ``Message``, so a row whose bytes changed on disk
is never served: it raises ``DataLoss`` (``ERROR_REASON_STORAGE_CORRUPTED``, the message id in its
metadata) and logs ``message_checksum_mismatch`` (ids only, never the body).
"""

from __future__ import annotations

from typing import Any, Protocol

import structlog

from kxm_grpc.domain.messages import Delivery, Message, MessageState, WorkflowContext
from kxm_grpc.errors import DataLoss, Reason
from kxm_grpc.store.checksum import MESSAGE_FIELDS, REPLY_FIELDS, checksum
from kxm_grpc.store.rows import Columns, Row

log = structlog.get_logger("kxm.store")

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
    "checksum",
    "reply_checksum",
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
        stored_checksum,
        stored_reply_checksum,
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
        "checksum",
        "reply_checksum",
    )
    covered = columns.positions(*MESSAGE_FIELDS)
    reply_covered = columns.positions(*REPLY_FIELDS)

    def message_from_row(row: Row, o: int = 0) -> Message:
        """The message in a row selecting ``MESSAGES`` from offset ``o`` (a join puts other columns first).

        Indexed in place, without slicing: this runs once per delivered event.

        Raises:
            DataLoss: a checksum does not match the row (``ERROR_REASON_STORAGE_CORRUPTED``).
        """
        if row[o + stored_checksum] != checksum([row[o + p] for p in covered]):
            raise _corrupted(row[o + id_], row[o + project], "message")
        if row[o + stored_reply_checksum] != checksum([row[o + p] for p in reply_covered]):
            raise _corrupted(row[o + id_], row[o + project], "reply")
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


def _corrupted(message_id: object, project: object, part: str) -> DataLoss:
    """Log a checksum mismatch (ids only) and return the error a reader raises."""
    log.error("message_checksum_mismatch", message_id=str(message_id), project=str(project), part=part)
    return DataLoss(
        f"message {message_id} is corrupted in storage (its {part} failed its checksum); restore a backup",
        reason=Reason.STORAGE_CORRUPTED,
        metadata={"messageId": str(message_id)},
    )


def reply_checksum(message: Message) -> str:
    """The ``reply_checksum`` of ``message`` as stored (its id and reply)."""
    return checksum((message.id, message.reply_content))


def message_values(message: Message) -> tuple[object, ...]:
    """The message's column values in ``MESSAGES`` order, for an insert."""
    context = message.workflow_context
    values: dict[str, Any] = {
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
    values["checksum"] = checksum([values[name] for name in MESSAGE_FIELDS])
    values["reply_checksum"] = reply_checksum(message)
    return MESSAGES.values(values)
