"""The census (``protocols/census.py``): a handful of counting queries, each along an index."""

from __future__ import annotations

from kxm_grpc.store.protocols.census import Census
from kxm_grpc.store.sql.connection import Connection


class SqlCensus:
    """Counts of the database's contents."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def _count(self, sql: str, params: tuple[object, ...] = ()) -> int:
        row = self._conn.execute(sql, params).fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0

    def _by(self, sql: str) -> dict[str, int]:
        return {str(key): int(count) for key, count in self._conn.execute(sql, ()).fetchall()}

    def take(self, now: int) -> Census:
        return Census(
            online_agents=self._count("SELECT COUNT(*) FROM agents WHERE online = 1"),
            # The literal states are the partial index's condition (messages_open_deadline).
            open_messages=self._count("SELECT COUNT(*) FROM messages WHERE state IN ('queued', 'delivered')"),
            held_leases=self._count(
                "SELECT COUNT(*) FROM leases WHERE expire_time > ? AND holder_agent_id IS NOT NULL "
                "AND holder_agent_id <> ''",
                (now,),
            ),
            sync_events=self._count("SELECT COUNT(*) FROM sync_events"),
            workflow_runs=self._by("SELECT status, COUNT(*) FROM workflow_runs GROUP BY status"),
            step_runs=self._by("SELECT status, COUNT(*) FROM step_runs GROUP BY status"),
            context_items=self._by("SELECT kind, SUM(documents) FROM context_index_stats GROUP BY kind"),
        )
