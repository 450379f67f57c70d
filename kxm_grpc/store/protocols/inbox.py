"""The agent inbox log: every event an agent must see, in order (a ``SequencedLog`` per agent)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Event, EventKind
from kxm_grpc.store.protocols.logs import SequencedLog


class InboxRepository(SequencedLog, Protocol):
    """Each agent's inbox log (owner: the agent id) with durable, gapless sequence numbers."""

    def append(
        self,
        agent_id: str,
        seq: int,
        kind: EventKind,
        event_time: int,
        *,
        message_id: str | None = None,
        subject: Agent | None = None,
    ) -> None:
        """Record an event under a sequence number from ``next_seq``.

        A message event names its message (read back as the message is then); a presence event
        keeps its subject's presence as it is now (``online``, ``last_seen_time``).
        """

    def read_after(self, agent_id: str, after_seq: int, limit: int, *, presence_only: bool = False) -> list[Event]:
        """The agent's retained events after ``after_seq`` in order, with their messages as they are now."""

    def delete_for_messages(self, message_ids: Iterable[str]) -> int:
        """Delete every event about these messages (raising each log's ``purged_seq``); return how many."""

    def delete_presence_before(self, cutoff: int) -> int:
        """Delete presence events recorded before ``cutoff`` (raising ``purged_seq``); return how many."""
