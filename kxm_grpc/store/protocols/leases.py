"""Lease fences."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.leases import Fence, Lease


class LeaseRepository(Protocol):
    """Lease fences: one per (project, name), kept after release as the name's high-water mark."""

    def get(self, project: str, name: str) -> Fence | None:
        """Return the name's fence (high-water mark and current grant), or None if never leased."""

    def put(self, fence: Fence) -> None:
        """Insert or replace the fence."""

    def list_page(self, project: str, after: str | None, limit: int, *, now: int, include_lapsed: bool) -> list[Lease]:
        """The project's current grants ordered by name, after ``after``; live ones only unless asked."""

    def count_live(self, project: str, *, now: int) -> int:
        """How many of the project's leases are held and live at ``now``."""

    def any_live(self, now: int) -> bool:
        """Whether any grant (any project) is live at ``now``."""

    def extend_live(self, live_after: int, shift: int) -> list[Lease]:
        """Push back by ``shift`` every grant that was live at ``live_after``; return them."""
