"""Runtimes and their key hashes."""

from __future__ import annotations

from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.rows.runtimes import RUNTIMES, runtime_from_row
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {RUNTIMES.select} FROM runtimes"


class SqlRuntimes:
    """Runtimes and the hashes of their keys."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    def get(self, project: str, runtime_id: str) -> Runtime | None:
        row = self._conn.execute(f"{_SELECT} WHERE project = ? AND id = ?", (project, runtime_id)).fetchone()
        return None if row is None else runtime_from_row(row)

    def find_by_key_hash(self, key_hash: str) -> Runtime | None:
        row = self._conn.execute(f"{_SELECT} WHERE key_hash = ?", (key_hash,)).fetchone()
        return None if row is None else runtime_from_row(row)

    def put(self, runtime: Runtime, key_hash: str) -> None:
        self._conn.execute(
            "INSERT INTO runtimes (project, id, host, key_hash, register_time, heartbeat_time) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project, id) DO UPDATE SET host = excluded.host, "
            "key_hash = excluded.key_hash, register_time = excluded.register_time, "
            "heartbeat_time = excluded.heartbeat_time",
            (runtime.project, runtime.id, runtime.host, key_hash, runtime.register_time, runtime.heartbeat_time),
        )
        self._changed(runtime.project)

    def heartbeat(self, project: str, runtime_id: str, host: str, now: int) -> None:
        self._conn.execute(
            "UPDATE runtimes SET host = ?, heartbeat_time = ? WHERE project = ? AND id = ?",
            (host, now, project, runtime_id),
        )
        self._changed(project)

    def count(self, project: str) -> int:
        row = self._conn.execute("SELECT COUNT(*) FROM runtimes WHERE project = ?", (project,)).fetchone()
        return int(row[0])

    def list_page(self, project: str, after: str | None, limit: int) -> list[Runtime]:
        rows = self._conn.execute(
            f"{_SELECT} WHERE project = ? AND id > ? ORDER BY id LIMIT ?", (project, after or "", limit)
        ).fetchall()
        return [runtime_from_row(row) for row in rows]
