"""Lease fences: one row per (project, name), kept after release as the fence."""

from __future__ import annotations

from kxm_grpc.domain.leases import Fence, Lease
from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.rows.leases import LEASES, fence_from_row, fence_values, lease_from_row
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {LEASES.select} FROM leases"


class SqlLeases:
    """Lease fences: the high-water mark of each name and its current grant."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    def get(self, project: str, name: str) -> Fence | None:
        row = self._conn.execute(f"{_SELECT} WHERE project = ? AND name = ?", (project, name)).fetchone()
        return None if row is None else fence_from_row(row)

    def put(self, fence: Fence) -> None:
        self._conn.execute(
            f"INSERT INTO leases ({LEASES.select}) VALUES ({', '.join('?' * LEASES.width)}) "
            "ON CONFLICT (project, name) DO UPDATE SET "
            "fencing_token = excluded.fencing_token, holder_agent_id = excluded.holder_agent_id, "
            "holder_agent_name = excluded.holder_agent_name, acquire_time = excluded.acquire_time, "
            "expire_time = excluded.expire_time",
            fence_values(fence),
        )
        self._changed(fence.project)

    def list_page(self, project: str, after: str | None, limit: int, *, now: int, include_lapsed: bool) -> list[Lease]:
        live_filter = "" if include_lapsed else " AND expire_time > ?"
        params: tuple[object, ...] = (project, after or "", *(() if include_lapsed else (now,)), limit)
        rows = self._conn.execute(
            f"{_SELECT} WHERE project = ? AND name > ? AND holder_agent_id IS NOT NULL{live_filter} "
            "ORDER BY name LIMIT ?",
            params,
        ).fetchall()
        return [lease_from_row(row) for row in rows]

    def count_live(self, project: str, *, now: int) -> int:
        row = self._conn.execute(
            "SELECT COUNT(*) FROM leases WHERE project = ? AND holder_agent_id IS NOT NULL AND expire_time > ?",
            (project, now),
        ).fetchone()
        return int(row[0])

    def any_live(self, now: int) -> bool:
        row = self._conn.execute("SELECT 1 FROM leases WHERE expire_time > ? LIMIT 1", (now,)).fetchone()
        return row is not None

    def extend_live(self, live_after: int, shift: int) -> list[Lease]:
        self._conn.execute(
            "UPDATE leases SET expire_time = expire_time + ? WHERE holder_agent_id IS NOT NULL AND expire_time > ?",
            (shift, live_after),
        )
        rows = self._conn.execute(
            f"{_SELECT} WHERE holder_agent_id IS NOT NULL AND expire_time > ?", (live_after + shift,)
        ).fetchall()
        extended = [lease_from_row(row) for row in rows]
        for project in {lease.project for lease in extended}:
            self._changed(project)
        return extended
