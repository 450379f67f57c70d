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

    def get_hash(self, project_id: str, run_id: str, sequence: int) -> str | None:
        """The content hash stored at the slot, or None."""

    def insert(self, event: StoredEvent) -> None:
        """Store an accepted event."""

    def sequences_after(self, project_id: str, run_id: str, after: int, limit: int) -> list[int]:
        """Stored sequences of the run above ``after``, ascending."""

    def list_events(self, project_id: str, run_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Stored events of the run above ``after``, by sequence."""
