"""Plain-SQL repositories for messages and the per-agent event logs (MessageService hot paths)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Delivery, Event, EventKind, Message, MessageState, WorkflowContext

_OPEN = "state IN ('queued', 'delivered')"

_MESSAGE_COLUMNS = (
    "id, project, from_agent_id, from_agent_name, to_agent_id, to_agent_name, content, delivery, hops, max_hops, "
    "correlation_id, reply_to, idempotency_key, allow_offline, seq, wf_run_id, wf_stage_id, wf_requirement_key, "
    "wf_attempt, create_time, expire_time, deliver_time, end_time, state, reply_content, reply_time, error"
)
_MESSAGE_WIDTH = 27

# Enum lookups by stored value, without Enum.__call__ on every row.
_DELIVERY = {d.value: d for d in Delivery}
_STATE = {s.value: s for s in MessageState}
_KIND = {k.value: k for k in EventKind}


def _message(row: tuple[Any, ...], o: int = 0) -> Message:
    """The message in ``row``'s columns from offset ``o`` (indexed in place: this runs once per delivered event)."""
    context = None if row[o + 15] is None else WorkflowContext(row[o + 15], row[o + 16], row[o + 17], row[o + 18])
    return Message(
        id=row[o],
        project=row[o + 1],
        from_agent_id=row[o + 2],
        from_agent_name=row[o + 3],
        to_agent_id=row[o + 4],
        to_agent_name=row[o + 5],
        content=row[o + 6],
        delivery=_DELIVERY[row[o + 7]],
        hops=row[o + 8],
        max_hops=row[o + 9],
        correlation_id=row[o + 10],
        reply_to=row[o + 11],
        idempotency_key=row[o + 12] or "",
        allow_offline=bool(row[o + 13]),
        seq=row[o + 14],
        workflow_context=context,
        create_time=row[o + 19],
        expire_time=row[o + 20],
        deliver_time=row[o + 21],
        end_time=row[o + 22],
        state=_STATE[row[o + 23]],
        reply_content=row[o + 24],
        reply_time=row[o + 25],
        error=row[o + 26],
    )


class SqliteMessages:
    """Messages."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, message_id: str) -> Message | None:
        row = self._conn.execute(f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else _message(row)

    def find_by_key(self, from_agent_id: str, idempotency_key: str) -> Message | None:
        row = self._conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE from_agent_id = ? AND idempotency_key = ?",
            (from_agent_id, idempotency_key),
        ).fetchone()
        return None if row is None else _message(row)

    def insert(self, message: Message) -> None:
        context = message.workflow_context
        self._conn.execute(
            f"INSERT INTO messages ({_MESSAGE_COLUMNS}) VALUES ({', '.join('?' * _MESSAGE_WIDTH)})",
            (
                message.id,
                message.project,
                message.from_agent_id,
                message.from_agent_name,
                message.to_agent_id,
                message.to_agent_name,
                message.content,
                message.delivery.value,
                message.hops,
                message.max_hops,
                message.correlation_id,
                message.reply_to,
                message.idempotency_key or None,
                int(message.allow_offline),
                message.seq,
                None if context is None else context.run_id,
                None if context is None else context.stage_id,
                None if context is None else context.requirement_key,
                None if context is None else context.attempt,
                message.create_time,
                message.expire_time,
                message.deliver_time,
                message.end_time,
                message.state.value,
                message.reply_content,
                message.reply_time,
                message.error,
            ),
        )

    def update(self, message: Message) -> None:
        self._conn.execute(
            "UPDATE messages SET state = ?, deliver_time = ?, end_time = ?, reply_content = ?, reply_time = ?, "
            "error = ? WHERE id = ?",
            (
                message.state.value,
                message.deliver_time,
                message.end_time,
                message.reply_content,
                message.reply_time,
                message.error,
                message.id,
            ),
        )

    def list_open_to(
        self, agent_id: str, after_seq: int, limit: int, *, queued_only: bool = False, through_seq: int | None = None
    ) -> list[Message]:
        # The redundant IN term lets SQLite use the partial index for the queued-only case too.
        queued = " AND state = 'queued'" if queued_only else ""
        upper = "" if through_seq is None else " AND seq <= ?"
        bounds = (agent_id, after_seq) if through_seq is None else (agent_id, after_seq, through_seq)
        rows = self._conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE to_agent_id = ? AND {_OPEN}{queued} AND seq > ?{upper} "
            "ORDER BY seq LIMIT ?",
            (*bounds, limit),
        ).fetchall()
        return [_message(row) for row in rows]

    def list_due(self, now: int, limit: int) -> list[Message]:
        rows = self._conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE {_OPEN} AND expire_time <= ? ORDER BY expire_time LIMIT ?",
            (now, limit),
        ).fetchall()
        return [_message(row) for row in rows]

    def next_deadline(self) -> int | None:
        row = self._conn.execute(f"SELECT MIN(expire_time) FROM messages WHERE {_OPEN}").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def list_ended_before(self, cutoff: int, limit: int) -> list[str]:
        rows = self._conn.execute(
            "SELECT id FROM messages WHERE end_time <= ? ORDER BY end_time LIMIT ?", (cutoff, limit)
        ).fetchall()
        return [str(row[0]) for row in rows]

    def delete(self, message_ids: Iterable[str]) -> int:
        ids = list(message_ids)
        if not ids:
            return 0
        return self._conn.execute(f"DELETE FROM messages WHERE id IN ({', '.join('?' * len(ids))})", ids).rowcount


_EVENT_SELECT = (
    "SELECT e.seq, e.kind, e.event_time, e.subject_online, e.subject_seen, "
    "a.id, a.project, a.name, a.purpose, a.model, a.host, a.connect_time, "
    f"{', '.join('m.' + c.strip() for c in _MESSAGE_COLUMNS.split(','))} "
    "FROM agent_events e LEFT JOIN messages m ON m.id = e.message_id LEFT JOIN agents a ON a.id = e.subject_id "
)


def _event(row: tuple[Any, ...]) -> Event:
    subject = None
    if row[5] is not None:
        subject = Agent(
            id=row[5],
            project=row[6],
            name=row[7],
            purpose=row[8],
            model=row[9],
            host=row[10],
            connect_time=row[11],
            last_seen_time=row[4],
            online=bool(row[3]),
        )
    message = None if row[12] is None else _message(row, 12)
    return Event(seq=row[0], kind=_KIND[row[1]], event_time=row[2], message=message, subject=subject)


class SqliteEvents:
    """Per-agent event logs and their sequence numbers."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def next_seq(self, agent_id: str) -> int:
        row = self._conn.execute(
            "INSERT INTO agent_logs (agent_id, head_seq, purged_seq) VALUES (?, 1, 0) "
            "ON CONFLICT (agent_id) DO UPDATE SET head_seq = head_seq + 1 RETURNING head_seq",
            (agent_id,),
        ).fetchone()
        return int(row[0])

    def append(
        self,
        agent_id: str,
        seq: int,
        kind: EventKind,
        event_time: int,
        *,
        message_id: str | None = None,
        subject: Agent | None = None,
    ) -> None:
        self._conn.execute(
            "INSERT INTO agent_events (agent_id, seq, kind, event_time, message_id, subject_id, subject_online, "
            "subject_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                agent_id,
                seq,
                kind.value,
                event_time,
                message_id,
                None if subject is None else subject.id,
                None if subject is None else int(subject.online),
                None if subject is None else subject.last_seen_time,
            ),
        )

    def read_after(self, agent_id: str, after_seq: int, limit: int, *, presence_only: bool = False) -> list[Event]:
        presence = " AND e.kind = 'presence'" if presence_only else ""
        rows = self._conn.execute(
            f"{_EVENT_SELECT}WHERE e.agent_id = ? AND e.seq > ?{presence} ORDER BY e.seq LIMIT ?",
            (agent_id, after_seq, limit),
        ).fetchall()
        return [_event(row) for row in rows]

    def log_state(self, agent_id: str) -> tuple[int, int, int]:
        head = self._conn.execute(
            "SELECT head_seq, purged_seq FROM agent_logs WHERE agent_id = ?", (agent_id,)
        ).fetchone()
        oldest = self._conn.execute("SELECT MIN(seq) FROM agent_events WHERE agent_id = ?", (agent_id,)).fetchone()
        head_seq, purged_seq = (0, 0) if head is None else (int(head[0]), int(head[1]))
        return head_seq, int(oldest[0] or 0), purged_seq

    def delete_for_messages(self, message_ids: Iterable[str]) -> int:
        ids = list(message_ids)
        if not ids:
            return 0
        marks = ", ".join("?" * len(ids))
        self._mark_purged(f"message_id IN ({marks})", ids)
        return self._conn.execute(f"DELETE FROM agent_events WHERE message_id IN ({marks})", ids).rowcount

    def delete_presence_before(self, cutoff: int) -> int:
        self._mark_purged("kind = 'presence' AND event_time < ?", [cutoff])
        return self._conn.execute(
            "DELETE FROM agent_events WHERE kind = 'presence' AND event_time < ?", (cutoff,)
        ).rowcount

    def _mark_purged(self, where: str, params: list[Any]) -> None:
        # Remember the highest purged seq per agent, so a stream resuming below it can say it
        # missed something (SubscribeReady.truncated).
        self._conn.execute(
            "UPDATE agent_logs SET purged_seq = MAX(purged_seq, p.seq) FROM "
            f"(SELECT agent_id, MAX(seq) AS seq FROM agent_events WHERE {where} GROUP BY agent_id) AS p "
            "WHERE agent_logs.agent_id = p.agent_id",
            params,
        )
