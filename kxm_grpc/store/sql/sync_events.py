"""Runtimes' sync events, their runs' cursors and project-id owners."""

from __future__ import annotations

from kxm_grpc.domain.sync_events import StoredEvent, SyncRun
from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.rows.sync_events import (
    SYNC_EVENTS,
    SYNC_RUNS,
    event_values,
    run_from_row,
    run_values,
    stored_event_from_row,
)
from kxm_grpc.store.sql.connection import Connection


class SqlSyncEvents:
    """Accepted sync events, per-run cursors and which hub project owns each runtime-side project id."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    def owner(self, project_id: str) -> str | None:
        row = self._conn.execute("SELECT hub_project FROM sync_projects WHERE project_id = ?", (project_id,)).fetchone()
        return None if row is None else str(row[0])

    def set_owner(self, project_id: str, hub_project: str) -> int:
        before = self.owner(project_id)
        self._conn.execute(
            "INSERT INTO sync_projects (project_id, hub_project) VALUES (?, ?) "
            "ON CONFLICT (project_id) DO UPDATE SET hub_project = excluded.hub_project",
            (project_id, hub_project),
        )
        self._conn.execute("UPDATE sync_runs SET hub_project = ? WHERE project_id = ?", (hub_project, project_id))
        # The runs move from one hub project's view to the other's.
        for changed in {hub_project, before} - {None}:
            self._changed(str(changed))
        row = self._conn.execute("SELECT COUNT(*) FROM sync_events WHERE project_id = ?", (project_id,)).fetchone()
        return int(row[0])

    def get_run(self, project_id: str, run_id: str) -> SyncRun | None:
        row = self._conn.execute(
            f"SELECT {SYNC_RUNS.select} FROM sync_runs WHERE project_id = ? AND run_id = ?", (project_id, run_id)
        ).fetchone()
        return None if row is None else run_from_row(row)

    def put_run(self, run: SyncRun) -> None:
        self._conn.execute(
            f"INSERT INTO sync_runs ({SYNC_RUNS.select}) VALUES ({', '.join('?' * SYNC_RUNS.width)}) "
            "ON CONFLICT (project_id, run_id) DO UPDATE SET hub_project = excluded.hub_project, "
            "home_runtime_id = excluded.home_runtime_id, cursor = excluded.cursor, "
            "last_sequence = excluded.last_sequence",
            run_values(run),
        )
        self._changed(run.hub_project)

    def runs_by_home(self, hub_project: str, per_runtime: int) -> list[SyncRun]:
        rows = self._conn.execute(
            f"SELECT {SYNC_RUNS.select} FROM (SELECT {SYNC_RUNS.select}, ROW_NUMBER() OVER "
            "(PARTITION BY home_runtime_id ORDER BY project_id, run_id) AS place FROM sync_runs "
            "WHERE hub_project = ?) AS ranked WHERE place <= ? ORDER BY home_runtime_id, project_id, run_id",
            (hub_project, per_runtime),
        ).fetchall()
        return [run_from_row(row) for row in rows]

    def count_by_home(self, hub_project: str) -> dict[str, int]:
        rows = self._conn.execute(
            "SELECT home_runtime_id, COUNT(*) FROM sync_runs WHERE hub_project = ? GROUP BY home_runtime_id",
            (hub_project,),
        ).fetchall()
        return {str(row[0]): int(row[1]) for row in rows}

    def get_hash(self, project_id: str, run_id: str, sequence: int) -> str | None:
        row = self._conn.execute(
            "SELECT content_hash FROM sync_events WHERE project_id = ? AND run_id = ? AND sequence = ?",
            (project_id, run_id, sequence),
        ).fetchone()
        return None if row is None else str(row[0])

    def insert(self, event: StoredEvent) -> None:
        self._conn.execute(
            f"INSERT INTO sync_events ({SYNC_EVENTS.select}) VALUES ({', '.join('?' * SYNC_EVENTS.width)})",
            event_values(event),
        )

    def sequences_after(self, project_id: str, run_id: str, after: int, limit: int) -> list[int]:
        rows = self._conn.execute(
            "SELECT sequence FROM sync_events WHERE project_id = ? AND run_id = ? AND sequence > ? "
            "ORDER BY sequence LIMIT ?",
            (project_id, run_id, after, limit),
        ).fetchall()
        return [int(row[0]) for row in rows]

    def list_events(self, project_id: str, run_id: str, after: int, limit: int) -> list[StoredEvent]:
        rows = self._conn.execute(
            f"SELECT {SYNC_EVENTS.select} FROM sync_events WHERE project_id = ? AND run_id = ? AND sequence > ? "
            "ORDER BY sequence LIMIT ?",
            (project_id, run_id, after, limit),
        ).fetchall()
        return [stored_event_from_row(row) for row in rows]
