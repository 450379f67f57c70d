"""Plain-SQL lease repository: one row per (project, name), kept after release as the fence."""

from __future__ import annotations

import sqlite3

from kxm_grpc.domain.leases import Fence, Lease

_COLUMNS = "project, name, fencing_token, holder_agent_id, holder_agent_name, acquire_time, expire_time"
_Row = tuple[str, str, int, str | None, str | None, int | None, int | None]


def _fence(row: _Row) -> Fence:
    project, name, token, holder_id, holder_name, acquire_time, expire_time = row
    lease = None
    if holder_id is not None:
        assert holder_name is not None and acquire_time is not None and expire_time is not None
        lease = Lease(project, name, holder_id, holder_name, token, acquire_time, expire_time)
    return Fence(project, name, token, lease)


def _lease(row: _Row) -> Lease:
    lease = _fence(row).lease
    assert lease is not None
    return lease


class SqliteLeases:
    """Lease fences: the high-water mark of each name and its current grant."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, project: str, name: str) -> Fence | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM leases WHERE project = ? AND name = ?", (project, name)
        ).fetchone()
        return None if row is None else _fence(row)

    def put(self, fence: Fence) -> None:
        lease = fence.lease
        self._conn.execute(
            f"INSERT INTO leases ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project, name) DO UPDATE SET "
            "fencing_token = excluded.fencing_token, holder_agent_id = excluded.holder_agent_id, "
            "holder_agent_name = excluded.holder_agent_name, acquire_time = excluded.acquire_time, "
            "expire_time = excluded.expire_time",
            (
                fence.project,
                fence.name,
                fence.high_water,
                lease.holder_agent_id if lease else None,
                lease.holder_agent_name if lease else None,
                lease.acquire_time if lease else None,
                lease.expire_time if lease else None,
            ),
        )

    def list_page(self, project: str, after: str | None, limit: int, *, now: int, include_lapsed: bool) -> list[Lease]:
        live_filter = "" if include_lapsed else " AND expire_time > ?"
        params: tuple[object, ...] = (project, after or "", *(() if include_lapsed else (now,)), limit)
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM leases WHERE project = ? AND name > ? AND holder_agent_id IS NOT NULL"
            f"{live_filter} ORDER BY name LIMIT ?",
            params,
        ).fetchall()
        return [_lease(row) for row in rows]

    def any_live(self, now: int) -> bool:
        row = self._conn.execute("SELECT 1 FROM leases WHERE expire_time > ? LIMIT 1", (now,)).fetchone()
        return row is not None

    def next_expiry_after(self, after: int) -> int | None:
        row = self._conn.execute(
            "SELECT MIN(expire_time) FROM leases WHERE holder_agent_id IS NOT NULL AND expire_time > ?", (after,)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def extend_live(self, live_after: int, shift: int) -> list[Lease]:
        self._conn.execute(
            "UPDATE leases SET expire_time = expire_time + ? WHERE holder_agent_id IS NOT NULL AND expire_time > ?",
            (shift, live_after),
        )
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM leases WHERE holder_agent_id IS NOT NULL AND expire_time > ?",
            (live_after + shift,),
        ).fetchall()
        return [_lease(row) for row in rows]
