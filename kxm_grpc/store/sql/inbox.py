"""The agent inbox log: a ``SqlSequencedLog`` (log ``inbox``) over ``inbox_entries``."""

from __future__ import annotations

from collections.abc import Iterable

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Event, EventKind
from kxm_grpc.store.rows.inbox import INBOX_ENTRIES, SUBJECTS, event_from_row
from kxm_grpc.store.rows.messages import MESSAGES
from kxm_grpc.store.sql.connection import Connection
from kxm_grpc.store.sql.logs import SqlSequencedLog

LOG = "inbox"

# Entry, then the subject agent, then the message (INBOX_READ's order): the decoder's offsets.
_READ = (
    f"SELECT {INBOX_ENTRIES.qualified('e')}, {SUBJECTS.qualified('a')}, {MESSAGES.qualified('m')} "
    "FROM inbox_entries e LEFT JOIN messages m ON m.id = e.message_id LEFT JOIN agents a ON a.id = e.subject_id "
)


class SqlInbox(SqlSequencedLog):
    """Each agent's inbox log (owner: the agent id): the events it must see, in order."""

    def __init__(self, conn: Connection) -> None:
        super().__init__(conn, LOG, "inbox_entries")

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
            "INSERT INTO inbox_entries (owner, seq, kind, event_time, message_id, subject_id, subject_online, "
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
            f"{_READ}WHERE e.owner = ? AND e.seq > ?{presence} ORDER BY e.seq LIMIT ?", (agent_id, after_seq, limit)
        ).fetchall()
        return [event_from_row(row) for row in rows]

    def delete_for_messages(self, message_ids: Iterable[str]) -> int:
        ids = list(message_ids)
        if not ids:
            return 0
        return self.purge(f"message_id IN ({', '.join('?' * len(ids))})", ids)

    def delete_presence_before(self, cutoff: int) -> int:
        return self.purge("kind = 'presence' AND event_time < ?", [cutoff])
