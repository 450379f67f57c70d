"""Peer messages."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from kxm_grpc.domain.messages import Message


class MessageRepository(Protocol):
    """Peer messages. Their deadlines are timers (``TimerRepository``, kind ``message_expiry``)."""

    def get(self, message_id: str) -> Message | None:
        """Return the message (of any project), or None."""

    def find_by_key(self, from_agent_id: str, idempotency_key: str) -> Message | None:
        """Return the sender's retained message with this idempotency key, or None."""

    def insert(self, message: Message) -> None:
        """Store a new message."""

    def update(self, message: Message) -> None:
        """Store a message's new state, times, reply and error."""

    def list_open_to(
        self, agent_id: str, after_seq: int, limit: int, *, queued_only: bool = False, through_seq: int | None = None
    ) -> list[Message]:
        """The agent's queued and delivered (or only queued) inbound messages with
        ``after_seq < seq <= through_seq`` (no upper bound when None), by seq."""

    def list_open_in(self, project: str, limit: int) -> list[Message]:
        """The project's queued and delivered messages, newest first (create time, then id)."""

    def count_open_in(self, project: str) -> int:
        """How many queued and delivered messages the project has."""

    def list_ended_before(self, cutoff: int, limit: int) -> list[str]:
        """Ids of terminal messages that ended at or before ``cutoff``, oldest first."""

    def delete(self, message_ids: Iterable[str]) -> int:
        """Delete messages; return how many."""
