"""Sequenced logs: one implementation of per-owner gapless sequences for every log.

Every log's heads share one table, ``log_heads (log, owner, head_seq, purged_seq)``; each log
keeps its entries in a table of its own whose primary key is ``(owner, seq)`` (the inbox log's is
``inbox_entries``). ``next_seq`` is one upsert ``RETURNING`` the new head, inside the unit of
work, so an entry and its number commit (or roll back) together: no gap, no duplicate. Concurrent
appends to one log are serialised by the database: SQLite's single writer, or PostgreSQL's lock on
the head row (the second of two concurrent transactions fails serialisation and is run again).
"""

from __future__ import annotations

from collections.abc import Sequence

from kxm_grpc.store.protocols.logs import LogState
from kxm_grpc.store.sql.connection import Connection


class SqlSequencedLog:
    """The sequence numbers of the log ``name`` whose entries are in ``entries`` (a subclass adds them).

    Retention goes through ``purge``, which records what it deleted in ``purged_seq``.
    """

    def __init__(self, conn: Connection, name: str, entries: str) -> None:
        self._conn = conn
        self.log = name
        self.entries = entries
        self._state_sql = f"SELECT MIN(seq) FROM {entries} WHERE owner = ?"

    def next_seq(self, owner: str) -> int:
        row = self._conn.execute(
            "INSERT INTO log_heads (log, owner, head_seq, purged_seq) VALUES (?, ?, 1, 0) "
            "ON CONFLICT (log, owner) DO UPDATE SET head_seq = log_heads.head_seq + 1 RETURNING head_seq",
            (self.log, owner),
        ).fetchone()
        return int(row[0])

    def state(self, owner: str) -> LogState:
        head = self._conn.execute(
            "SELECT head_seq, purged_seq FROM log_heads WHERE log = ? AND owner = ?", (self.log, owner)
        ).fetchone()
        oldest = self._conn.execute(self._state_sql, (owner,)).fetchone()
        head_seq, purged_seq = (0, 0) if head is None else (int(head[0]), int(head[1]))
        return LogState(head_seq, int(oldest[0] or 0), purged_seq)

    def purge(self, where: str, params: Sequence[object]) -> int:
        """Delete the entries matching ``where`` (SQL over the entries table); return how many.

        First, per owner, ``purged_seq`` rises to the highest sequence number deleted, so a reader
        resuming below it can say it missed something (``SubscribeReady.truncated``).
        """
        self._conn.execute(
            "UPDATE log_heads SET purged_seq = CASE WHEN p.seq > purged_seq THEN p.seq ELSE purged_seq END FROM "
            f"(SELECT owner, MAX(seq) AS seq FROM {self.entries} WHERE {where} GROUP BY owner) AS p "
            "WHERE log_heads.log = ? AND log_heads.owner = p.owner",
            (*params, self.log),
        )
        return self._conn.execute(f"DELETE FROM {self.entries} WHERE {where}", params).rowcount
