"""Replica heartbeats, roles and open streams (``replicas``, ``roles``, ``streams``)."""

from __future__ import annotations

from collections.abc import Collection

from kxm_grpc.store.sql.connection import Connection


class SqlReplicas:
    """Replicas, roles and streams of a shared database."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def heartbeats(self) -> dict[str, int]:
        return {str(r[0]): int(r[1]) for r in self._conn.execute("SELECT id, expire_time FROM replicas").fetchall()}

    def join(self, replica_id: str, host: str, pid: int, now: int, expire_time: int, dead: Collection[str]) -> int:
        for gone in dead:
            self.leave(gone)
        row = self._conn.execute("SELECT COUNT(*) FROM replicas WHERE id <> ?", (replica_id,)).fetchone()
        self.rejoin(replica_id, host, pid, now, expire_time)
        return int(row[0])

    def renew(self, replica_id: str, expire_time: int) -> bool:
        cursor = self._conn.execute("UPDATE replicas SET expire_time = ? WHERE id = ?", (expire_time, replica_id))
        return cursor.rowcount > 0

    def rejoin(self, replica_id: str, host: str, pid: int, now: int, expire_time: int) -> None:
        self._conn.execute(
            "INSERT INTO replicas (id, host, pid, start_time, expire_time) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET expire_time = excluded.expire_time",
            (replica_id, host, pid, now, expire_time),
        )

    def leave(self, replica_id: str) -> None:
        self._conn.execute("DELETE FROM streams WHERE replica_id = ?", (replica_id,))
        self._conn.execute("DELETE FROM roles WHERE holder = ?", (replica_id,))
        self._conn.execute("DELETE FROM replicas WHERE id = ?", (replica_id,))

    def claim(self, role: str, holder: str, now: int, expire_time: int) -> bool:
        row = self._conn.execute(
            "INSERT INTO roles (name, holder, expire_time) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
            "holder = excluded.holder, expire_time = excluded.expire_time "
            "WHERE roles.holder = excluded.holder OR roles.expire_time <= ? RETURNING holder",
            (role, holder, expire_time, now),
        ).fetchone()
        return row is not None

    def holder(self, role: str, now: int) -> str | None:
        row = self._conn.execute("SELECT holder FROM roles WHERE name = ? AND expire_time > ?", (role, now)).fetchone()
        return None if row is None else str(row[0])

    def add_stream(self, stream_id: str, agent_id: str, replica_id: str, now: int) -> None:
        self._conn.execute(
            "INSERT INTO streams (id, agent_id, replica_id, open_time) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            (stream_id, agent_id, replica_id, now),
        )

    def remove_stream(self, stream_id: str) -> None:
        self._conn.execute("DELETE FROM streams WHERE id = ?", (stream_id,))

    def count_streams(self, agent_id: str, now: int) -> int:
        row = self._conn.execute(
            "SELECT COUNT(*) FROM streams s JOIN replicas r ON r.id = s.replica_id "
            "WHERE s.agent_id = ? AND r.expire_time > ?",
            (agent_id, now),
        ).fetchone()
        return int(row[0])
