"""Session tokens' facts (never the tokens)."""

from __future__ import annotations

from kxm_grpc.domain.tokens import ActiveSession, SessionRecord
from kxm_grpc.store.rows.session_tokens import SESSION_TOKENS, session_from_row, session_values
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {SESSION_TOKENS.select} FROM session_tokens"
_INSERT = f"INSERT INTO session_tokens ({SESSION_TOKENS.select}) VALUES ({', '.join('?' * SESSION_TOKENS.width)})"


class SqlSessionTokens:
    """The session tokens minted, revoked and expired ones too."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def insert(self, record: SessionRecord) -> None:
        self._conn.execute(_INSERT, session_values(record))

    def get(self, session_id: str) -> SessionRecord | None:
        row = self._conn.execute(f"{_SELECT} WHERE session_id = ?", (session_id,)).fetchone()
        return None if row is None else session_from_row(row)

    def revoke(self, session_id: str, now: int) -> None:
        self._conn.execute(
            "UPDATE session_tokens SET revoke_time = ? WHERE session_id = ? AND revoke_time IS NULL", (now, session_id)
        )

    def active_for_name(self, project: str, agent_name: str, now: int) -> list[ActiveSession]:
        rows = self._conn.execute(
            "SELECT session_id, agent_id, expire_time FROM session_tokens WHERE project = ? AND agent_name = ? "
            "AND revoke_time IS NULL AND expire_time > ? ORDER BY session_id",
            (project, agent_name, now),
        ).fetchall()
        return [ActiveSession(row[0], row[1], row[2]) for row in rows]

    def list_page(self, project: str, before: tuple[int, str] | None, limit: int) -> list[SessionRecord]:
        if before is None:
            rows = self._conn.execute(
                f"{_SELECT} WHERE project = ? ORDER BY issue_time DESC, session_id DESC LIMIT ?", (project, limit)
            ).fetchall()
        else:
            rows = self._conn.execute(
                f"{_SELECT} WHERE project = ? AND (issue_time < ? OR (issue_time = ? AND session_id < ?)) "
                "ORDER BY issue_time DESC, session_id DESC LIMIT ?",
                (project, before[0], before[0], before[1], limit),
            ).fetchall()
        return [session_from_row(row) for row in rows]
