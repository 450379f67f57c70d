"""Session tokens: the facts of each session token the hub minted (never the token itself)."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.tokens import ActiveSession, SessionRecord


class SessionTokenRepository(Protocol):
    """The session tokens minted, revoked ones and expired ones too (the list shows them)."""

    def insert(self, record: SessionRecord) -> None:
        """Add a session (its id must be new)."""

    def get(self, session_id: str) -> SessionRecord | None:
        """The session with this id (of any project), or None."""

    def revoke(self, session_id: str, now: int) -> None:
        """Mark the session revoked at ``now`` (a revoked one keeps its first revocation time)."""

    def active_for_name(self, project: str, agent_name: str, now: int) -> list[ActiveSession]:
        """The sessions of agents named ``agent_name`` in ``project`` neither revoked nor expired
        at ``now``, by session id."""

    def list_page(self, project: str, before: tuple[int, str] | None, limit: int) -> list[SessionRecord]:
        """The project's sessions newest first (issue time, then session id, descending), those
        strictly before ``before`` (an issue time and a session id) when given."""
