"""Peer messages (MessageService hot paths: plain SQL, no layout reflection)."""

from __future__ import annotations

from collections.abc import Iterable

from kxm_grpc.domain.messages import Message
from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.rows.messages import MESSAGES, message_from_row, message_values, reply_checksum
from kxm_grpc.store.sql.connection import Connection

_OPEN = "state IN ('queued', 'delivered')"
"""Open messages; written this way so SQLite uses the partial indexes declared with it."""

_SELECT = f"SELECT {MESSAGES.select} FROM messages"
_INSERT = f"INSERT INTO messages ({MESSAGES.select}) VALUES ({', '.join('?' * MESSAGES.width)})"


class SqlMessages:
    """Messages."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    def get(self, message_id: str) -> Message | None:
        row = self._conn.execute(f"{_SELECT} WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else message_from_row(row)

    def find_by_key(self, from_agent_id: str, idempotency_key: str) -> Message | None:
        row = self._conn.execute(
            f"{_SELECT} WHERE from_agent_id = ? AND idempotency_key = ?", (from_agent_id, idempotency_key)
        ).fetchone()
        return None if row is None else message_from_row(row)

    def insert(self, message: Message) -> None:
        self._conn.execute(_INSERT, message_values(message))
        self._changed(message.project)

    def update(self, message: Message) -> None:
        self._conn.execute(
            "UPDATE messages SET state = ?, deliver_time = ?, end_time = ?, reply_content = ?, reply_time = ?, "
            "error = ?, reply_checksum = ? WHERE id = ?",
            (
                message.state.value,
                message.deliver_time,
                message.end_time,
                message.reply_content,
                message.reply_time,
                message.error,
                reply_checksum(message),
                message.id,
            ),
        )
        self._changed(message.project)

    def list_open_to(
        self, agent_id: str, after_seq: int, limit: int, *, queued_only: bool = False, through_seq: int | None = None
    ) -> list[Message]:
        # The redundant IN term lets SQLite use the partial index for the queued-only case too.
        queued = " AND state = 'queued'" if queued_only else ""
        upper = "" if through_seq is None else " AND seq <= ?"
        bounds = (agent_id, after_seq) if through_seq is None else (agent_id, after_seq, through_seq)
        rows = self._conn.execute(
            f"{_SELECT} WHERE to_agent_id = ? AND {_OPEN}{queued} AND seq > ?{upper} ORDER BY seq LIMIT ?",
            (*bounds, limit),
        ).fetchall()
        return [message_from_row(row) for row in rows]

    def list_open_in(self, project: str, limit: int) -> list[Message]:
        # One range of messages_open_project (version 20), newest first.
        rows = self._conn.execute(
            f"{_SELECT} WHERE project = ? AND {_OPEN} ORDER BY create_time DESC, id DESC LIMIT ?", (project, limit)
        ).fetchall()
        return [message_from_row(row) for row in rows]

    def count_open_in(self, project: str) -> int:
        row = self._conn.execute(f"SELECT COUNT(*) FROM messages WHERE project = ? AND {_OPEN}", (project,)).fetchone()
        return int(row[0])

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
