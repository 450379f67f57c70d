"""Step runs: ``step_runs`` (each run's snapshot), ``step_run_events`` (their logs) and ``step_run_assignments``.

A run's log is keyed by (run id, sequence). ``append_events`` reads the log's last sequence in the
unit of work and refuses events that do not continue it (a gap would read as a lost event
forever); a sequence a concurrent writer took between that read and the insert is left to the
primary key, whose refusal (or PostgreSQL's serialization failure, after which the engine runs
the unit of work again) is what makes two concurrent appends conflict.

Queries that should use a partial or status index name the status, state or empty key as a
literal, not a parameter, so that both planners know the index covers them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.protocols.step_runs import (
    AssignmentState,
    StepRunState,
    StoredAssignment,
    StoredRunEvent,
    StoredStepRun,
)
from kxm_grpc.store.rows.step_runs import (
    STEP_RUN_ASSIGNMENTS,
    STEP_RUN_EVENTS,
    STEP_RUNS,
    assignment_from_row,
    assignment_values,
    event_from_row,
    event_values,
    step_run_from_row,
    step_run_values,
)
from kxm_grpc.store.sql.connection import Connection


def _placeholders(width: int) -> str:
    return ", ".join("?" * width)


_SELECT_RUNS = f"SELECT {STEP_RUNS.select} FROM step_runs"
_SELECT_EVENTS = f"SELECT {STEP_RUN_EVENTS.select} FROM step_run_events"
_SELECT_ASSIGNMENTS = f"SELECT {STEP_RUN_ASSIGNMENTS.select} FROM step_run_assignments"
_INSERT_RUN = f"INSERT INTO step_runs ({STEP_RUNS.select}) VALUES ({_placeholders(STEP_RUNS.width)})"
_INSERT_EVENT = (
    f"INSERT INTO step_run_events ({STEP_RUN_EVENTS.select}) VALUES ({_placeholders(STEP_RUN_EVENTS.width)})"
)
_INSERT_ASSIGNMENT = (
    f"INSERT INTO step_run_assignments ({STEP_RUN_ASSIGNMENTS.select}) "
    f"VALUES ({_placeholders(STEP_RUN_ASSIGNMENTS.width)})"
)

_FIXED = ("id", "project", "definition_id", "plan_hash", "create_time", "start_request_id")
"""A run's columns set when it is created and never changed: a save matches them instead of writing them."""
_CHANGING = tuple(name for name in STEP_RUNS.names if name not in _FIXED)
_UPDATE_RUN = (
    f"UPDATE step_runs SET {', '.join(f'{name} = ?' for name in _CHANGING)} "
    f"WHERE {' AND '.join(f'{name} = ?' for name in _FIXED)}"
)
"""Sets only the columns a step changes, so SQLite leaves the indexes over the others alone."""
_CHANGING_AT = STEP_RUNS.positions(*_CHANGING)
_FIXED_AT = STEP_RUNS.positions(*_FIXED)

_ACTIVE = ", ".join(f"'{state.value}'" for state in StepRunState if state.active)
_OPEN = AssignmentState.OPEN.value
_CLOSE_ASSIGNMENT = (
    "UPDATE step_run_assignments SET state = ?, end_time = ?, result = ?, checksum = ? "
    f"WHERE id = ? AND state = '{_OPEN}'"
)
_CLOSE_AT = STEP_RUN_ASSIGNMENTS.positions("state", "end_time", "result", "checksum")


class SqlStepRuns:
    """Step runs, their event logs and their assignments."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    # -- runs ----------------------------------------------------------------------------------------

    def insert_run(self, run: StoredStepRun) -> None:
        self._conn.execute(_INSERT_RUN, step_run_values(run))
        self._changed(run.project)

    def save_run(self, run: StoredStepRun) -> None:
        values = step_run_values(run)
        params = [values[p] for p in _CHANGING_AT] + [values[p] for p in _FIXED_AT]
        if self._conn.execute(_UPDATE_RUN, params).rowcount == 0:
            if self._conn.execute("SELECT 1 FROM step_runs WHERE id = ?", (run.id,)).fetchone() is None:
                raise LookupError(f"step run {run.id} is not stored (insert_run first)")
            raise ValueError(f"step run {run.id}: a save changed a column set at its creation ({', '.join(_FIXED)})")
        self._changed(run.project)

    def get_run(self, run_id: str) -> StoredStepRun | None:
        row = self._conn.execute(f"{_SELECT_RUNS} WHERE id = ?", (run_id,)).fetchone()
        return None if row is None else step_run_from_row(row)

    def run_by_request(self, project: str, start_request_id: str) -> StoredStepRun | None:
        if not start_request_id:
            return None  # an empty key is no key: runs started without one are never found by it
        row = self._conn.execute(
            f"{_SELECT_RUNS} WHERE project = ? AND start_request_id = ? AND start_request_id <> ''",
            (project, start_request_id),
        ).fetchone()
        return None if row is None else step_run_from_row(row)

    def list_runs(
        self,
        *,
        project: str | None = None,
        status: StepRunState | None = None,
        definition_id: str | None = None,
        before: tuple[int, str] | None = None,
        limit: int,
    ) -> list[StoredStepRun]:
        clauses: list[str] = []
        params: list[object] = []
        for column, value in (
            ("project", project),
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
        return [step_run_from_row(row) for row in rows]

    def count_runs(self, project: str) -> int:
        row = self._conn.execute("SELECT COUNT(*) FROM step_runs WHERE project = ?", (project,)).fetchone()
        return int(row[0])

    def count_active(self, project: str) -> int:
        row = self._conn.execute(
            f"SELECT COUNT(*) FROM step_runs WHERE project = ? AND status IN ({_ACTIVE})", (project,)
        ).fetchone()
        return int(row[0])

    def oldest_queued(self, project: str, limit: int) -> list[StoredStepRun]:
        rows = self._conn.execute(
            f"{_SELECT_RUNS} WHERE project = ? AND status = '{StepRunState.QUEUED.value}' "
            "ORDER BY create_time, id LIMIT ?",
            (project, limit),
        ).fetchall()
        return [step_run_from_row(row) for row in rows]

    def purge_run(self, run_id: str) -> bool:
        self._conn.execute("DELETE FROM step_run_events WHERE run_id = ?", (run_id,))
        self._conn.execute("DELETE FROM step_run_assignments WHERE run_id = ?", (run_id,))
        row = self._conn.execute("DELETE FROM step_runs WHERE id = ? RETURNING project", (run_id,)).fetchone()
        if row is None:
            return False
        self._changed(str(row[0]))
        return True

    # -- the log -------------------------------------------------------------------------------------

    def append_events(self, events: Sequence[StoredRunEvent]) -> None:
        if not events:
            return
        run_id = events[0].run_id
        others = sorted({event.run_id for event in events} - {run_id})
        if others:
            raise ValueError(f"events of one run only: {run_id} and {', '.join(others)}")
        row = self._conn.execute("SELECT MAX(sequence) FROM step_run_events WHERE run_id = ?", (run_id,)).fetchone()
        expected = int(row[0] or 0) + 1
        for event in events:
            if event.sequence != expected:
                raise ValueError(
                    f"step run {run_id}'s log continues at sequence {expected}, not {event.sequence} "
                    "(no gap, no repeat)"
                )
            expected += 1
        for event in events:
            self._conn.execute(_INSERT_EVENT, event_values(event))

    def list_events(self, run_id: str, *, after: int = 0, limit: int) -> list[StoredRunEvent]:
        rows = self._conn.execute(
            f"{_SELECT_EVENTS} WHERE run_id = ? AND sequence > ? ORDER BY sequence LIMIT ?", (run_id, after, limit)
        ).fetchall()
        return [event_from_row(row) for row in rows]

    # -- assignments ---------------------------------------------------------------------------------

    def put_assignment(self, assignment: StoredAssignment) -> None:
        self._conn.execute(_INSERT_ASSIGNMENT, assignment_values(assignment))

    def get_assignment(self, assignment_id: str) -> StoredAssignment | None:
        row = self._conn.execute(f"{_SELECT_ASSIGNMENTS} WHERE id = ?", (assignment_id,)).fetchone()
        return None if row is None else assignment_from_row(row)

    def close_assignment(self, assignment_id: str, state: AssignmentState, *, end_time: int, result: str = "") -> bool:
        if state is AssignmentState.OPEN:
            raise ValueError(f"assignment {assignment_id}: closing needs a closed state, not {state.value}")
        row = self._conn.execute(
            f"{_SELECT_ASSIGNMENTS} WHERE id = ? AND state = '{_OPEN}'", (assignment_id,)
        ).fetchone()
        if row is None:
            return False
        # The checksum covers the state: the closed row is rebuilt from the verified open one.
        closed = dataclasses.replace(assignment_from_row(row), state=state, end_time=end_time, result=result)
        values = assignment_values(closed)
        changed = self._conn.execute(_CLOSE_ASSIGNMENT, [*(values[p] for p in _CLOSE_AT), assignment_id]).rowcount
        return changed > 0

    def open_assignments(
        self, *, agent_id: str | None = None, run_id: str | None = None, limit: int
    ) -> list[StoredAssignment]:
        if agent_id is None and run_id is None:
            raise ValueError("open_assignments needs an agent id, a run id or both")
        clauses = [f"state = '{_OPEN}'"]
        params: list[object] = []
        for column, value in (("agent_id", agent_id), ("run_id", run_id)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        params.append(limit)
        rows = self._conn.execute(
            f"{_SELECT_ASSIGNMENTS} WHERE {' AND '.join(clauses)} ORDER BY create_time, id LIMIT ?", params
        ).fetchall()
        return [assignment_from_row(row) for row in rows]

    def open_assignees(self) -> list[str]:
        rows = self._conn.execute(
            f"SELECT DISTINCT agent_id FROM step_run_assignments WHERE state = '{_OPEN}' ORDER BY agent_id"
        ).fetchall()
        return [row[0] for row in rows]
