"""Governed skills (spec §5.12): each skill of a project and its history, kept whole (§11.9).

``skills`` holds one row per (project, skill id), its state updated in place as it is decided;
``skill_events`` is append-only: every creation, evaluation, promotion, quarantine and rejection,
numbered from 1 per skill, never updated, deleted or cut. Both change in the unit of work that
decides, so a state and the event that explains it commit together.
"""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.context.skills import Skill, SkillEvent, SkillState


class SkillRepository(Protocol):
    """The skills of every project and their histories."""

    def insert(self, skill: Skill) -> None:
        """Add a skill; its (project, id) and its (project, content_sha256) must be new."""

    def update_state(self, skill: Skill) -> None:
        """Store the skill's state, decided_by and decided_at (nothing else of a skill changes)."""

    def get(self, project: str, skill_id: str) -> Skill | None:
        """The project's skill with this id, or None (another project's reads as none)."""

    def find_by_hash(self, project: str, content_sha256: str) -> str | None:
        """The id of the project's skill with this content hash, or None."""

    def list_page(self, project: str, state: SkillState | None, after: str | None, limit: int) -> list[Skill]:
        """The project's skills (of ``state``; None: any) in id order (byte order), strictly after
        ``after`` when given, at most ``limit``."""

    def promoted(self, project: str) -> list[Skill]:
        """The project's promoted skills, by id: what a packet verifies before it is assembled."""

    def append_event(self, project: str, skill_id: str, event: SkillEvent) -> None:
        """Append an event to the skill's history (its sequence the next one, from 1)."""

    def events(self, project: str, skill_id: str) -> list[SkillEvent]:
        """The skill's whole history by sequence."""
