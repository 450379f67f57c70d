"""Workflows: ``workflow_definitions`` and their ``workflow_definition_versions``, ``workflow_runs``,
``workflow_deliveries``, ``workflow_steps`` and ``workflow_notifications``.

A definition version (keyed by its hash, which leaves out secrets) holds the definition without its
literal secrets (``StoredDefinition.pinned_document``); the definition's own row alone holds them. A
version lives while it is some definition's current version or some run pins it: every write that
can leave one of a definition's versions unreferenced (a new current version, a deleted definition,
a purged run) deletes that definition's unreferenced versions in the same transaction.
"""

from __future__ import annotations

from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.runs import Run, RunStatus
from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.protocols.workflows import (
    DeliveryKind,
    StoredDefinition,
    StoredDelivery,
    StoredNotification,
    StoredStep,
)
from kxm_grpc.store.rows.workflows import (
    WORKFLOW_DEFINITIONS,
    WORKFLOW_DELIVERIES,
    WORKFLOW_NOTIFICATIONS,
    WORKFLOW_RUNS,
    WORKFLOW_STEPS,
    definition_from_row,
    definition_values,
    delivery_from_row,
    delivery_values,
    notification_from_row,
    notification_values,
    run_from_row,
    run_values,
    step_from_row,
    step_values,
)
from kxm_grpc.store.sql.connection import Connection


def _placeholders(width: int) -> str:
    return ", ".join("?" * width)


_SELECT_DEFINITIONS = (
    f"SELECT {WORKFLOW_DEFINITIONS.qualified('d')}, v.document FROM workflow_definitions d "
    "JOIN workflow_definition_versions v ON v.hash = d.hash"
)
"""Selects ``WORKFLOW_DEFINITION_READ``: a definition's current version is always stored beside it."""
_SELECT_RUNS = f"SELECT {WORKFLOW_RUNS.select} FROM workflow_runs"
_SELECT_DELIVERIES = f"SELECT {WORKFLOW_DELIVERIES.select} FROM workflow_deliveries"
_SELECT_STEPS = f"SELECT {WORKFLOW_STEPS.select} FROM workflow_steps"
_SELECT_NOTIFICATIONS = f"SELECT {WORKFLOW_NOTIFICATIONS.select} FROM workflow_notifications"

_UPSERT_DEFINITION = (
    f"INSERT INTO workflow_definitions ({WORKFLOW_DEFINITIONS.select}) "
    f"VALUES ({_placeholders(WORKFLOW_DEFINITIONS.width)}) ON CONFLICT (id) DO UPDATE SET "
    "project = excluded.project, hash = excluded.hash, document = excluded.document, "
    "register_time = excluded.register_time, update_time = excluded.update_time, "
    "registered_by = excluded.registered_by, kind = excluded.kind"
)
_INSERT_VERSION = (
    "INSERT INTO workflow_definition_versions (hash, definition_id, document, create_time) "
    "VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO UPDATE SET document = excluded.document"
)
"""A version of the same hash is the same definition but for its secrets: its document is replaced,
so the version holds what the latest registration's ``pinned_document`` holds, never an older one."""
_PURGE_VERSIONS = (
    "DELETE FROM workflow_definition_versions WHERE definition_id = ? "
    "AND NOT EXISTS (SELECT 1 FROM workflow_runs WHERE workflow_runs.definition_hash = "
    "workflow_definition_versions.hash) "
    "AND NOT EXISTS (SELECT 1 FROM workflow_definitions WHERE workflow_definitions.hash = "
    "workflow_definition_versions.hash)"
)
_INSERT_RUN = f"INSERT INTO workflow_runs ({WORKFLOW_RUNS.select}) VALUES ({_placeholders(WORKFLOW_RUNS.width)})"
_FIXED = (
    "id",
    "definition_id",
    "definition_hash",
    "project",
    "coordinator_id",
    "delivery_id",
    "payload_sha256",
    "create_time",
)
"""A run's columns set when it starts and never changed: a save matches them instead of writing them."""
_CHANGING = tuple(name for name in WORKFLOW_RUNS.names if name not in _FIXED)
_UPDATE_RUN = (
    f"UPDATE workflow_runs SET {', '.join(f'{name} = ?' for name in _CHANGING)} "
    f"WHERE {' AND '.join(f'{name} = ?' for name in _FIXED)}"
)
"""Sets only the columns a step changes, so SQLite leaves the indexes over the others alone."""
_CHANGING_AT = WORKFLOW_RUNS.positions(*_CHANGING)
_FIXED_AT = WORKFLOW_RUNS.positions(*_FIXED)


class SqlWorkflows:
    """Workflow definitions and versions, runs, deliveries, steps and notifications."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    # -- definitions ---------------------------------------------------------------------------------

    def put_definition(self, definition: StoredDefinition) -> None:
        self._conn.execute(_UPSERT_DEFINITION, definition_values(definition))
        self._conn.execute(
            _INSERT_VERSION, (definition.hash, definition.id, definition.pinned_document, definition.update_time)
        )
        self._conn.execute(_PURGE_VERSIONS, (definition.id,))

    def get_definition(self, definition_id: str) -> StoredDefinition | None:
        row = self._conn.execute(f"{_SELECT_DEFINITIONS} WHERE d.id = ?", (definition_id,)).fetchone()
        return None if row is None else definition_from_row(row)

    def definition_version(self, definition_hash: str) -> str | None:
        row = self._conn.execute(
            "SELECT document FROM workflow_definition_versions WHERE hash = ?", (definition_hash,)
        ).fetchone()
        return None if row is None else str(row[0])

    def list_definitions(
        self, project: str | None, after: str | None, limit: int, *, kind: DefinitionKind | None = None
    ) -> list[StoredDefinition]:
        clauses = ["d.id > ?"]
        params: list[object] = [after or ""]
        if project is not None:
            clauses.insert(0, "d.project = ?")
            params.insert(0, project)
        if kind is not None:
            clauses.insert(-1, "d.kind = ?")
            params.insert(-1, kind.value)
        params.append(limit)
        rows = self._conn.execute(
            f"{_SELECT_DEFINITIONS} WHERE {' AND '.join(clauses)} ORDER BY d.id LIMIT ?", params
        ).fetchall()
        return [definition_from_row(row) for row in rows]

    def delete_definition(self, definition_id: str) -> bool:
        deleted = self._conn.execute("DELETE FROM workflow_definitions WHERE id = ?", (definition_id,)).rowcount
        self._conn.execute(_PURGE_VERSIONS, (definition_id,))
        return deleted > 0

    # -- runs ----------------------------------------------------------------------------------------

    def insert_run(self, run: Run, *, payload: str | None = None) -> None:
        self._conn.execute(_INSERT_RUN, run_values(run))
        self._changed(run.project)
        if payload is not None:
            self._conn.execute("INSERT INTO workflow_payloads (run_id, payload) VALUES (?, ?)", (run.id, payload))

    def run_project(self, run_id: str) -> str | None:
        row = self._conn.execute("SELECT project FROM workflow_runs WHERE id = ?", (run_id,)).fetchone()
        return None if row is None else str(row[0])

    def run_payload(self, run_id: str) -> str | None:
        row = self._conn.execute("SELECT payload FROM workflow_payloads WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else str(row[0])

    def save_run(self, run: Run) -> None:
        values = run_values(run)
        params = [values[p] for p in _CHANGING_AT] + [values[p] for p in _FIXED_AT]
        if self._conn.execute(_UPDATE_RUN, params).rowcount == 0:
            if self._conn.execute("SELECT 1 FROM workflow_runs WHERE id = ?", (run.id,)).fetchone() is None:
                raise LookupError(f"workflow run {run.id} is not stored (insert_run first)")
            raise ValueError(f"workflow run {run.id}: a save changed a column set at its start ({', '.join(_FIXED)})")
        self._changed(run.project)

    def get_run(self, run_id: str) -> Run | None:
        row = self._conn.execute(f"{_SELECT_RUNS} WHERE id = ?", (run_id,)).fetchone()
        return None if row is None else run_from_row(row)

    def run_by_delivery(self, definition_id: str, delivery_id: str) -> Run | None:
        row = self._conn.execute(
            f"{_SELECT_RUNS} WHERE definition_id = ? AND delivery_id = ?", (definition_id, delivery_id)
        ).fetchone()
        return None if row is None else run_from_row(row)

    def list_runs(
        self,
        *,
        project: str | None = None,
        coordinator_id: str | None = None,
        status: RunStatus | None = None,
        definition_id: str | None = None,
        before: tuple[int, str] | None = None,
        limit: int,
    ) -> list[Run]:
        clauses: list[str] = []
        params: list[object] = []
        for column, value in (
            ("project", project),
            ("coordinator_id", coordinator_id),
            ("status", None if status is None else status.value),
            ("definition_id", definition_id),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if before is not None:
            clauses.append("(create_time, id) < (?, ?)")
            params.extend(before)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        params.append(limit)
        rows = self._conn.execute(
            f"{_SELECT_RUNS}{where} ORDER BY create_time DESC, id DESC LIMIT ?", params
        ).fetchall()
        return [run_from_row(row) for row in rows]

    def count_runs(self, project: str) -> int:
        row = self._conn.execute("SELECT COUNT(*) FROM workflow_runs WHERE project = ?", (project,)).fetchone()
        return int(row[0])

    def due_waits(self, now: int, limit: int) -> list[str]:
        rows = self._conn.execute(
            "SELECT id FROM workflow_runs WHERE wait_expire_time <= ? AND status = ? "
            "ORDER BY wait_expire_time, id LIMIT ?",
            (now, RunStatus.WAITING.value, limit),
        ).fetchall()
        return [str(row[0]) for row in rows]

    def ended_before(self, cutoff: int, limit: int) -> list[str]:
        rows = self._conn.execute(
            "SELECT id FROM workflow_runs WHERE end_time <= ? ORDER BY end_time, id LIMIT ?", (cutoff, limit)
        ).fetchall()
        return [str(row[0]) for row in rows]

    def purge_run(self, run_id: str) -> bool:
        row = self._conn.execute("SELECT definition_id, project FROM workflow_runs WHERE id = ?", (run_id,)).fetchone()
        self._conn.execute("DELETE FROM workflow_steps WHERE run_id = ?", (run_id,))
        self._conn.execute("DELETE FROM workflow_notifications WHERE run_id = ?", (run_id,))
        self._conn.execute("DELETE FROM workflow_payloads WHERE run_id = ?", (run_id,))
        self._conn.execute("DELETE FROM workflow_journal WHERE run_id = ?", (run_id,))
        self._conn.execute("DELETE FROM workflow_retrospectives WHERE run_id = ?", (run_id,))
        if row is None:
            return False
        self._conn.execute("DELETE FROM workflow_runs WHERE id = ?", (run_id,))
        self._conn.execute(_PURGE_VERSIONS, (row[0],))
        self._changed(str(row[1]))
        return True

    # -- deliveries ----------------------------------------------------------------------------------

    def get_delivery(self, definition_id: str, kind: DeliveryKind, delivery_id: str) -> StoredDelivery | None:
        row = self._conn.execute(
            f"{_SELECT_DELIVERIES} WHERE definition_id = ? AND kind = ? AND delivery_id = ?",
            (definition_id, kind.value, delivery_id),
        ).fetchone()
        return None if row is None else delivery_from_row(row)

    def delivery_by_payload(self, definition_id: str, kind: DeliveryKind, payload_sha256: str) -> StoredDelivery | None:
        row = self._conn.execute(
            f"{_SELECT_DELIVERIES} WHERE definition_id = ? AND kind = ? AND payload_sha256 = ? "
            "ORDER BY receive_time, delivery_id LIMIT 1",
            (definition_id, kind.value, payload_sha256),
        ).fetchone()
        return None if row is None else delivery_from_row(row)

    def put_delivery(self, delivery: StoredDelivery) -> None:
        self._conn.execute(
            f"INSERT INTO workflow_deliveries ({WORKFLOW_DELIVERIES.select}) "
            f"VALUES ({_placeholders(WORKFLOW_DELIVERIES.width)})",
            delivery_values(delivery),
        )

    def purge_deliveries(self, cutoff: int, limit: int) -> int:
        return self._conn.execute(
            "DELETE FROM workflow_deliveries WHERE (definition_id, kind, delivery_id) IN ("
            "SELECT definition_id, kind, delivery_id FROM workflow_deliveries WHERE expire_time <= ? "
            "ORDER BY expire_time LIMIT ?)",
            (cutoff, limit),
        ).rowcount

    # -- steps ---------------------------------------------------------------------------------------

    def get_step(self, run_id: str, request_id: str) -> StoredStep | None:
        row = self._conn.execute(
            f"{_SELECT_STEPS} WHERE run_id = ? AND request_id = ?", (run_id, request_id)
        ).fetchone()
        return None if row is None else step_from_row(row)

    def put_step(self, step: StoredStep) -> None:
        self._conn.execute(
            f"INSERT INTO workflow_steps ({WORKFLOW_STEPS.select}) VALUES ({_placeholders(WORKFLOW_STEPS.width)})",
            step_values(step),
        )

    # -- notifications -------------------------------------------------------------------------------

    def enqueue_notification(self, notification: StoredNotification) -> None:
        self._conn.execute(
            f"INSERT INTO workflow_notifications ({WORKFLOW_NOTIFICATIONS.select}) "
            f"VALUES ({_placeholders(WORKFLOW_NOTIFICATIONS.width)})",
            notification_values(notification),
        )

    def get_notification(self, notification_id: str) -> StoredNotification | None:
        row = self._conn.execute(f"{_SELECT_NOTIFICATIONS} WHERE id = ?", (notification_id,)).fetchone()
        return None if row is None else notification_from_row(row)

    def due_notifications(self, now: int, limit: int) -> list[StoredNotification]:
        rows = self._conn.execute(
            f"{_SELECT_NOTIFICATIONS} WHERE deliver_time IS NULL AND next_time <= ? ORDER BY next_time, id LIMIT ?",
            (now, limit),
        ).fetchall()
        return [notification_from_row(row) for row in rows]

    def mark_notification_delivered(self, notification_id: str, now: int) -> bool:
        changed = self._conn.execute(
            "UPDATE workflow_notifications SET deliver_time = ? WHERE id = ? AND deliver_time IS NULL",
            (now, notification_id),
        ).rowcount
        return changed > 0

    def reschedule_notification(self, notification_id: str, next_time: int, attempts: int, error: str) -> bool:
        changed = self._conn.execute(
            "UPDATE workflow_notifications SET next_time = ?, attempts = ?, last_error = ? "
            "WHERE id = ? AND deliver_time IS NULL",
            (next_time, attempts, error, notification_id),
        ).rowcount
        return changed > 0
