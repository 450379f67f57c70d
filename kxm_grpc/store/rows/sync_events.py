"""Rows of ``sync_runs`` (a run's ingest cursor) and ``sync_events`` (accepted events)."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.sync_events import StoredEvent, SyncRun
from kxm_grpc.store.rows import Columns, Row

SYNC_RUNS = Columns("sync_runs", "project_id", "run_id", "hub_project", "home_runtime_id", "cursor", "last_sequence")
"""Also the insert list: ``run_values`` follow this order."""

SYNC_EVENTS = Columns(
    "sync_events", "project_id", "run_id", "sequence", "event_type", "content_hash", "receive_time", "bytes"
)
"""Also the insert list: ``event_values`` follow this order. ``bytes`` holds the canonical JSON."""


def _run_decoder(columns: Columns) -> Callable[[Row], SyncRun]:
    project_id, run_id, hub_project, home_runtime_id, cursor, last_sequence = columns.positions(
        "project_id", "run_id", "hub_project", "home_runtime_id", "cursor", "last_sequence"
    )

    def run_from_row(row: Row) -> SyncRun:
        """The run in a row selecting ``SYNC_RUNS``."""
        return SyncRun(
            project_id=row[project_id],
            run_id=row[run_id],
            hub_project=row[hub_project],
            home_runtime_id=row[home_runtime_id],
            cursor=row[cursor],
            last_sequence=row[last_sequence],
        )

    return run_from_row


def _event_decoder(columns: Columns) -> Callable[[Row], StoredEvent]:
    project_id, run_id, sequence, event_type, content_hash, receive_time, canonical = columns.positions(
        "project_id", "run_id", "sequence", "event_type", "content_hash", "receive_time", "bytes"
    )

    def stored_event_from_row(row: Row) -> StoredEvent:
        """The event in a row selecting ``SYNC_EVENTS``."""
        return StoredEvent(
            project_id=row[project_id],
            run_id=row[run_id],
            sequence=row[sequence],
            event_type=row[event_type],
            content_hash=row[content_hash],
            receive_time=row[receive_time],
            canonical=row[canonical],
        )

    return stored_event_from_row


run_from_row = _run_decoder(SYNC_RUNS)
stored_event_from_row = _event_decoder(SYNC_EVENTS)


def run_values(run: SyncRun) -> tuple[object, ...]:
    """The run's column values in ``SYNC_RUNS`` order."""
    values = {
        "project_id": run.project_id,
        "run_id": run.run_id,
        "hub_project": run.hub_project,
        "home_runtime_id": run.home_runtime_id,
        "cursor": run.cursor,
        "last_sequence": run.last_sequence,
    }
    return SYNC_RUNS.values(values)


def event_values(event: StoredEvent) -> tuple[object, ...]:
    """The event's column values in ``SYNC_EVENTS`` order."""
    values = {
        "project_id": event.project_id,
        "run_id": event.run_id,
        "sequence": event.sequence,
        "event_type": event.event_type,
        "content_hash": event.content_hash,
        "receive_time": event.receive_time,
        "bytes": event.canonical,
    }
    return SYNC_EVENTS.values(values)
