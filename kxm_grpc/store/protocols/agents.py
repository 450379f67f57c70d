"""Agents and the hashes of their keys."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.agents import Agent


class AgentRepository(Protocol):
    """Agents and the hashes of their keys."""

    def get(self, agent_id: str) -> Agent | None:
        """Return the agent, or None."""

    def get_key(self, agent_id: str) -> tuple[str, bool] | None:
        """Return the hash of the agent's last key and whether it is still active (None: no agent)."""

    def find_by_name(self, project: str, name_key: str) -> Agent | None:
        """Return the project's agent (not retired) with this case-insensitive name, or None."""

    def put(self, agent: Agent) -> None:
        """Insert or update the agent (its key is kept)."""

    def set_key_hash(self, agent_id: str, key_hash: str) -> None:
        """Issue a new key: store its hash and make it active."""

    def revoke_key(self, agent_id: str) -> None:
        """Stop the agent's key from authenticating, or proving anything (it is dead for good)."""

    def retire(self, agent_id: str, now: int) -> None:
        """Release the name of an unregistered agent for a fresh one; its row stays for its history."""

    def list_page(self, project: str, after: str | None, limit: int, *, include_offline: bool) -> list[Agent]:
        """The project's agents (not retired) ordered by id, after ``after``."""

    def list_by_presence(self, project: str, seen_after: int, limit: int) -> list[Agent]:
        """The project's agents (not retired): online ones seen after ``seen_after`` first, then the
        rest, each by name, then id."""

    def count(self, project: str) -> int:
        """How many agents the project has (not retired)."""

    def list_online_seen_before(self, cutoff: int, limit: int) -> list[Agent]:
        """Online agents (any project) last seen before ``cutoff``."""

    def list_online(self, project: str) -> list[Agent]:
        """The project's agents whose online flag is set."""

    def mark_all_offline(self) -> int:
        """Turn every online flag off (at start: presence never survives a restart)."""
