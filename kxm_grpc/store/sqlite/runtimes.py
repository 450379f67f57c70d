"""Plain-SQL repositories for runtimes and their sync events."""

from __future__ import annotations

import sqlite3

from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.domain.sync_events import StoredEvent, SyncRun

_RUNTIME_COLUMNS = "project, id, host, register_time, heartbeat_time"


def _runtime(row: tuple[str, str, str, int, int | None]) -> Runtime:
    return Runtime(project=row[0], id=row[1], host=row[2], register_time=row[3], heartbeat_time=row[4])


class SqliteRuntimes:
    """Runtimes and the hashes of their keys."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, project: str, runtime_id: str) -> Runtime | None:
        row = self._conn.execute(
            f"SELECT {_RUNTIME_COLUMNS} FROM runtimes WHERE project = ? AND id = ?", (project, runtime_id)
        ).fetchone()
        return None if row is None else _runtime(row)

    def find_by_key_hash(self, key_hash: str) -> Runtime | None:
        row = self._conn.execute(f"SELECT {_RUNTIME_COLUMNS} FROM runtimes WHERE key_hash = ?", (key_hash,)).fetchone()
        return None if row is None else _runtime(row)

    def put(self, runtime: Runtime, key_hash: str) -> None:
        self._conn.execute(
            "INSERT INTO runtimes (project, id, host, key_hash, register_time, heartbeat_time) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project, id) DO UPDATE SET host = excluded.host, "
            "key_hash = excluded.key_hash, register_time = excluded.register_time, "
            "heartbeat_time = excluded.heartbeat_time",
            (runtime.project, runtime.id, runtime.host, key_hash, runtime.register_time, runtime.heartbeat_time),
        )

    def heartbeat(self, project: str, runtime_id: str, host: str, now: int) -> None:
        self._conn.execute(
            "UPDATE runtimes SET host = ?, heartbeat_time = ? WHERE project = ? AND id = ?",
            (host, now, project, runtime_id),
        )

    def list_page(self, project: str, after: str | None, limit: int) -> list[Runtime]:
        rows = self._conn.execute(
            f"SELECT {_RUNTIME_COLUMNS} FROM runtimes WHERE project = ? AND id > ? ORDER BY id LIMIT ?",
            (project, after or "", limit),
        ).fetchall()
        return [_runtime(row) for row in rows]


_RUN_COLUMNS = "project_id, run_id, hub_project, home_runtime_id, cursor, last_sequence"
_EVENT_COLUMNS = "project_id, run_id, sequence, event_type, content_hash, receive_time, bytes"


def _run(row: tuple[str, str, str, str, int, int]) -> SyncRun:
    return SyncRun(*row)


def _event(row: tuple[str, str, int, str, str, int, str]) -> StoredEvent:
    return StoredEvent(*row)


class SqliteSyncEvents:
    """Accepted sync events, per-run cursors and which hub project owns each runtime-side project id."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def owner(self, project_id: str) -> str | None:
        row = self._conn.execute("SELECT hub_project FROM sync_projects WHERE project_id = ?", (project_id,)).fetchone()
        return None if row is None else str(row[0])

    def set_owner(self, project_id: str, hub_project: str) -> int:
        self._conn.execute(
            "INSERT INTO sync_projects (project_id, hub_project) VALUES (?, ?) "
            "ON CONFLICT (project_id) DO UPDATE SET hub_project = excluded.hub_project",
            (project_id, hub_project),
        )
        self._conn.execute("UPDATE sync_runs SET hub_project = ? WHERE project_id = ?", (hub_project, project_id))
        row = self._conn.execute("SELECT COUNT(*) FROM sync_events WHERE project_id = ?", (project_id,)).fetchone()
        return int(row[0])

    def get_run(self, project_id: str, run_id: str) -> SyncRun | None:
        row = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM sync_runs WHERE project_id = ? AND run_id = ?", (project_id, run_id)
        ).fetchone()
        return None if row is None else _run(row)

    def put_run(self, run: SyncRun) -> None:
        self._conn.execute(
            f"INSERT INTO sync_runs ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, run_id) "
            "DO UPDATE SET hub_project = excluded.hub_project, home_runtime_id = excluded.home_runtime_id, "
            "cursor = excluded.cursor, last_sequence = excluded.last_sequence",
            (run.project_id, run.run_id, run.hub_project, run.home_runtime_id, run.cursor, run.last_sequence),
        )

    def get_hash(self, project_id: str, run_id: str, sequence: int) -> str | None:
        row = self._conn.execute(
            "SELECT content_hash FROM sync_events WHERE project_id = ? AND run_id = ? AND sequence = ?",
            (project_id, run_id, sequence),
        ).fetchone()
        return None if row is None else str(row[0])

    def insert(self, event: StoredEvent) -> None:
        self._conn.execute(
            f"INSERT INTO sync_events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                event.project_id,
                event.run_id,
                event.sequence,
                event.event_type,
                event.content_hash,
                event.receive_time,
                event.canonical,
            ),
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
            f"SELECT {_EVENT_COLUMNS} FROM sync_events WHERE project_id = ? AND run_id = ? AND sequence > ? "
            "ORDER BY sequence LIMIT ?",
            (project_id, run_id, after, limit),
        ).fetchall()
        return [_event(row) for row in rows]
