"""What a workflow step reports, handed on in the step's own transaction.

Each step of the rules (``kxm_grpc.domain.workflows.outcomes.Step``) returns ``RunEvent`` records.
``publish`` writes them where they belong, in the transaction that stores the run: to the run's
journal as the hub-authored entries (``journal_writes.write_step_entries``, with the retrospective
of a run the step ended), so a crash never leaves a step without its entries, and, for a run that started
waiting or ended, an outbound notification when the definition names a ``notify`` URL (queued
in the same transaction, delivered at least once by ``notifications``). Once the transaction
committed, ``log_events`` writes each event as one structured log line, with ids and kinds only:
never a summary's or an evidence value's text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import structlog

from kxm_grpc.domain.clock import rfc3339
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.outcomes import EventKind, RunEvent
from kxm_grpc.domain.workflows.runs import Run
from kxm_grpc.services.workflows.journal_writes import write_step_entries
from kxm_grpc.store import Tx
from kxm_grpc.store.protocols.workflows import StoredNotification

log = structlog.get_logger("kxm.workflows")

NOTIFIED = {EventKind.WAITING, EventKind.ESCALATED, EventKind.COMPLETED, EventKind.FAILED, EventKind.CANCELLED}
"""The events an outbound notification reports (the run's state changes)."""

NOTIFY_SCHEMA = "kxm.workflow-notification.v1"


def publish(
    tx: Tx,
    definition: WorkflowDefinition,
    run: Run,
    events: tuple[RunEvent, ...],
    now: int,
    *,
    via_signal: bool = False,
    reported: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Journal and notify a step's events (inside the step's transaction; ``log`` once it committed).

    ``via_signal``: a signal or a ruling made the step; ``reported``: the evidence it reported
    (both shape the hub's entries, ``journal_hub.hub_entries``).
    """
    if not events:
        return
    write_step_entries(tx, definition, run, events, now, via_signal=via_signal, reported=reported)
    if definition.notify is not None:
        for event in events:
            if event.kind in NOTIFIED:
                tx.workflows.enqueue_notification(_notification(definition, run, event, now))


def log_events(run: Run, events: tuple[RunEvent, ...]) -> None:
    """One ``workflow_event`` line per event, after the step's transaction committed (a rolled-back
    or retried transaction logs nothing, or once); ids and kinds only, never a summary's text."""
    for event in events:
        log.info(
            "workflow_event",
            kind=event.kind,
            run_id=run.id,
            definition_id=run.definition_id,
            stage_id=event.stage_id,
            attempt=event.attempt,
            run_status=run.status.value,
        )


def _notification(definition: WorkflowDefinition, run: Run, event: RunEvent, now: int) -> StoredNotification:
    notification_id = new_id("ntf")
    body = {
        "schema": NOTIFY_SCHEMA,
        "deliveryId": notification_id,
        "event": event.kind,
        "runId": run.id,
        "definitionId": run.definition_id,
        "project": run.project,
        "status": run.status.value,
        "stageId": event.stage_id,
        "attempt": event.attempt,
        "time": rfc3339(now),
    }
    return StoredNotification(
        id=notification_id,
        definition_id=definition.id,
        run_id=run.id,
        event=event.kind,
        body=json.dumps(body, separators=(",", ":"), sort_keys=True),
        create_time=now,
        next_time=now,
    )
