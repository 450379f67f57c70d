"""Sync events pushed by runtimes, their runs' cursors, and who owns each runtime-side project id."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.sync_events import StoredEvent, SyncRun


class SyncEventRepository(Protocol):
    """Accepted sync events, per-run cursors and the owner of each runtime-side project id."""

    def owner(self, project_id: str) -> str | None:
        """The hub project that owns the project id, or None."""

    def set_owner(self, project_id: str, hub_project: str) -> int:
        """Give the project id (and its runs) to a hub project; return how many events it has."""

    def get_run(self, project_id: str, run_id: str) -> SyncRun | None:
        """Return the run's ingest state, or None."""

    def put_run(self, run: SyncRun) -> None:
        """Insert or replace the run's ingest state."""

    def runs_by_home(self, hub_project: str, per_runtime: int) -> list[SyncRun]:
        """The hub project's sync runs, at most ``per_runtime`` of each home runtime (the first by
        project id and run id), ordered by home runtime, project id and run id."""

    def count_by_home(self, hub_project: str) -> dict[str, int]:
        """How many sync runs each home runtime of the hub project has (runtimes with none are absent)."""

    def get_hash(self, project_id: str, run_id: str, sequence: int) -> str | None:
        """The content hash stored at the slot, or None."""

    def insert(self, event: StoredEvent) -> None:
        """Store an accepted event."""

    def sequences_after(self, project_id: str, run_id: str, after: int, limit: int) -> list[int]:
        """Stored sequences of the run above ``after``, ascending."""

    def list_events(self, project_id: str, run_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Stored events of the run above ``after``, by sequence."""
