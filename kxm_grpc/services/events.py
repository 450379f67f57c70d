"""Per-agent event logs: every event an agent must see, recorded in the transaction that caused it.

Each agent has one log with a durable, gapless sequence (1, 2, …). A change that an agent must
learn about (a message for it, a reply or cancellation, an expiry, a peer's presence) appends an
event to that agent's log in the same transaction as the change, then wakes the agent's streams
through the notifier topic ``agent:<id>`` (one wake per event: streams measure their lag by it).
Streams re-read the log, so a missed wake-up never loses an event.
"""

from __future__ import annotations

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import EventKind
from kxm_grpc.store import Tx


def agent_topic(agent_id: str) -> str:
    """The notifier topic woken for every event appended to an agent's log."""
    return f"agent:{agent_id}"


def message_topic(message_id: str) -> str:
    """The notifier topic woken when a message reaches a terminal state."""
    return f"message:{message_id}"


def record_event(
    tx: Tx, agent_id: str, kind: EventKind, now: int, *, message_id: str | None = None, subject: Agent | None = None
) -> int:
    """Append an event to ``agent_id``'s log under its next sequence number; return the number."""
    seq = tx.events.next_seq(agent_id)
    tx.events.append(agent_id, seq, kind, now, message_id=message_id, subject=subject)
    tx.notify(agent_topic(agent_id))
    return seq


def record_presence(tx: Tx, agent: Agent, now: int) -> None:
    """Tell every other online agent of ``agent``'s project that its presence changed."""
    for peer in tx.agents.list_online(agent.project):
        if peer.id != agent.id:
            record_event(tx, peer.id, EventKind.PRESENCE, now, subject=agent)
