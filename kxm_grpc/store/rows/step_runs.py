"""Rows of the step-run tables: ``step_runs``, ``step_run_events`` and ``step_run_assignments``.

A run's snapshot, an event's payload and an assignment's result are the service's texts, stored
and handed back as they are. Every row carries a checksum over all its columns
(``kxm_grpc/store/checksum.py``), computed here when the row is written and verified before a row
is decoded: a row whose bytes changed raises ``DataLoss`` (``ERROR_REASON_STORAGE_CORRUPTED``, its
ids in the metadata) and logs ``step_run_checksum_mismatch`` (ids only), never serves changed data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import structlog

from kxm_grpc.errors import DataLoss, Reason
from kxm_grpc.store.checksum import ASSIGNMENT_FIELDS, RUN_EVENT_FIELDS, STEP_RUN_FIELDS, checksum
from kxm_grpc.store.protocols.step_runs import (
    AssignmentState,
    StepRunState,
    StoredAssignment,
    StoredRunEvent,
    StoredStepRun,
)
from kxm_grpc.store.rows import Columns, Row

log = structlog.get_logger("kxm.store")

STEP_RUNS = Columns("step_runs", *STEP_RUN_FIELDS, "checksum")
"""Also the insert list: ``step_run_values`` follow this order."""
STEP_RUN_EVENTS = Columns("step_run_events", *RUN_EVENT_FIELDS, "checksum")
"""Also the insert list: ``event_values`` follow this order."""
STEP_RUN_ASSIGNMENTS = Columns("step_run_assignments", *ASSIGNMENT_FIELDS, "checksum")
"""Also the insert list: ``assignment_values`` follow this order."""

_STATUS = {state.value: state for state in StepRunState}
_ASSIGNMENT_STATE = {state.value: state for state in AssignmentState}


def _checked(columns: Columns, fields: Sequence[str], values: dict[str, Any]) -> tuple[object, ...]:
    """``values`` with their checksum, in ``columns`` order."""
    values["checksum"] = checksum([values[name] for name in fields])
    return columns.values(values)


def _verifier(columns: Columns, fields: Sequence[str], ids: Mapping[str, str]) -> Callable[[Row], None]:
    """A check that a row selecting ``columns`` passes its checksum; ``ids`` names the metadata
    keys (``runId``) of the columns (``run_id``) that identify the row."""
    stored = columns.positions("checksum")[0]
    covered = columns.positions(*fields)
    id_at = dict(zip(ids.values(), columns.positions(*ids), strict=True))

    def verify(row: Row) -> None:
        """Raises: DataLoss: the row fails its checksum (``ERROR_REASON_STORAGE_CORRUPTED``)."""
        if row[stored] == checksum([row[p] for p in covered]):
            return
        found = {key: str(row[p]) for key, p in id_at.items()}
        log.error("step_run_checksum_mismatch", table=columns.table, **found)
        raise DataLoss(
            f"a row of {columns.table} ({', '.join(found.values())}) is corrupted in storage "
            "(it failed its checksum); restore a backup",
            reason=Reason.STORAGE_CORRUPTED,
            metadata=found,
        )

    return verify


# -- step_runs ---------------------------------------------------------------------------------------


def step_run_values(run: StoredStepRun) -> tuple[object, ...]:
    """The run's column values in ``STEP_RUNS`` order (checksum computed), for an insert."""
    return _checked(
        STEP_RUNS,
        STEP_RUN_FIELDS,
        {
            "id": run.id,
            "project": run.project,
            "definition_id": run.definition_id,
            "plan_hash": run.plan_hash,
            "status": run.status.value,
            "create_time": run.create_time,
            "update_time": run.update_time,
            "end_time": run.end_time,
            "sequence": run.sequence,
            "start_request_id": run.start_request_id,
            "snapshot": run.snapshot,
        },
    )


def _step_run_decoder(columns: Columns) -> Callable[[Row], StoredStepRun]:
    verify = _verifier(columns, STEP_RUN_FIELDS, {"id": "runId"})
    (
        id_,
        project,
        definition_id,
        plan_hash,
        status,
        create_time,
        update_time,
        end_time,
        sequence,
        start_request_id,
        snapshot,
    ) = columns.positions(*STEP_RUN_FIELDS)

    def step_run_from_row(row: Row) -> StoredStepRun:
        """The run in a row selecting ``STEP_RUNS``.

        Raises:
            DataLoss: the row fails its checksum (``ERROR_REASON_STORAGE_CORRUPTED``, ``runId``).
        """
        verify(row)
        return StoredStepRun(
            id=row[id_],
            project=row[project],
            definition_id=row[definition_id],
            plan_hash=row[plan_hash],
            status=_STATUS[row[status]],
            create_time=row[create_time],
            update_time=row[update_time],
            end_time=row[end_time],
            sequence=row[sequence],
            snapshot=row[snapshot],
            start_request_id=row[start_request_id],
        )

    return step_run_from_row


step_run_from_row = _step_run_decoder(STEP_RUNS)

# -- step_run_events ---------------------------------------------------------------------------------


def event_values(event: StoredRunEvent) -> tuple[object, ...]:
    """The event's column values in ``STEP_RUN_EVENTS`` order (checksum computed)."""
    return _checked(
        STEP_RUN_EVENTS,
        RUN_EVENT_FIELDS,
        {
            "run_id": event.run_id,
            "sequence": event.sequence,
            "type": event.type,
            "payload": event.payload,
            "event_time": event.event_time,
        },
    )


def _event_decoder(columns: Columns) -> Callable[[Row], StoredRunEvent]:
    verify = _verifier(columns, RUN_EVENT_FIELDS, {"run_id": "runId", "sequence": "sequence"})
    run_id, sequence, type_, payload, event_time = columns.positions(*RUN_EVENT_FIELDS)

    def event_from_row(row: Row) -> StoredRunEvent:
        """The event in a row selecting ``STEP_RUN_EVENTS``.

        Raises:
            DataLoss: the row fails its checksum (``ERROR_REASON_STORAGE_CORRUPTED``, ``runId``, ``sequence``).
        """
        verify(row)
        return StoredRunEvent(
            run_id=row[run_id],
            sequence=row[sequence],
            type=row[type_],
            payload=row[payload],
            event_time=row[event_time],
        )

    return event_from_row


event_from_row = _event_decoder(STEP_RUN_EVENTS)

# -- step_run_assignments ----------------------------------------------------------------------------


def assignment_values(assignment: StoredAssignment) -> tuple[object, ...]:
    """The assignment's column values in ``STEP_RUN_ASSIGNMENTS`` order (checksum computed)."""
    return _checked(
        STEP_RUN_ASSIGNMENTS,
        ASSIGNMENT_FIELDS,
        {
            "id": assignment.id,
            "run_id": assignment.run_id,
            "project": assignment.project,
            "step_id": assignment.step_id,
            "step_attempt": assignment.step_attempt,
            "agent_id": assignment.agent_id,
            "state": assignment.state.value,
            "create_time": assignment.create_time,
            "deadline": assignment.deadline,
            "message_id": assignment.message_id,
            "end_time": assignment.end_time,
            "result": assignment.result,
        },
    )


def _assignment_decoder(columns: Columns) -> Callable[[Row], StoredAssignment]:
    verify = _verifier(columns, ASSIGNMENT_FIELDS, {"id": "assignmentId"})
    (
        id_,
        run_id,
        project,
        step_id,
        step_attempt,
        agent_id,
        state,
        create_time,
        deadline,
        message_id,
        end_time,
        result,
    ) = columns.positions(*ASSIGNMENT_FIELDS)

    def assignment_from_row(row: Row) -> StoredAssignment:
        """The assignment in a row selecting ``STEP_RUN_ASSIGNMENTS``.

        Raises:
            DataLoss: the row fails its checksum (``ERROR_REASON_STORAGE_CORRUPTED``, ``assignmentId``).
        """
        verify(row)
        return StoredAssignment(
            id=row[id_],
            run_id=row[run_id],
            project=row[project],
            step_id=row[step_id],
            step_attempt=row[step_attempt],
            agent_id=row[agent_id],
            state=_ASSIGNMENT_STATE[row[state]],
            create_time=row[create_time],
            deadline=row[deadline],
            message_id=row[message_id],
            end_time=row[end_time],
            result=row[result],
        )

    return assignment_from_row


assignment_from_row = _assignment_decoder(STEP_RUN_ASSIGNMENTS)
