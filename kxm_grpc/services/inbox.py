"""The agent inbox log: every event an agent must see, recorded in the transaction that caused it.

Each agent has one inbox log, a sequenced log (``kxm_grpc/store/protocols/logs.py``) with a
durable, gapless sequence (1, 2, …). A change that an agent must learn about (a message for it, a
reply or cancellation, an expiry, a peer's presence) appends an event to that agent's inbox log in
the same transaction as the change, then wakes the agent's streams through the notifier topic
``agent:<id>`` (one wake per event: streams measure their lag by it). The wake-up carries the
event as its hint: a stream that is caught up delivers it without re-reading; any other stream
re-reads the log, so a missed wake-up never loses an event. ``Subscribe`` streams this log.
"""

from __future__ import annotations

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Event, EventKind, Message
from kxm_grpc.store import Tx


def agent_topic(agent_id: str) -> str:
    """The notifier topic woken for every event appended to an agent's inbox log."""
    return f"agent:{agent_id}"


def message_topic(message_id: str) -> str:
    """The notifier topic woken when a message reaches a terminal state."""
    return f"message:{message_id}"


def record_event(
    tx: Tx,
    agent_id: str,
    kind: EventKind,
    now: int,
    *,
    message: Message | None = None,
    subject: Agent | None = None,
) -> int:
    """Append an event to ``agent_id``'s inbox log under its next sequence number; return the number.

    The event reports ``message`` (as this transaction leaves it) or ``subject``'s presence; it is
    handed to the agent's waiting streams as the wake-up's hint.
    """
    seq = tx.inbox.next_seq(agent_id)
    append_event(tx, agent_id, Event(seq=seq, kind=kind, event_time=now, message=message, subject=subject))
    return seq


def append_event(tx: Tx, agent_id: str, event: Event) -> None:
    """Append ``event`` (its seq taken with ``tx.inbox.next_seq``) to ``agent_id``'s inbox log and wake its streams."""
    message_id = None if event.message is None else event.message.id
    tx.inbox.append(agent_id, event.seq, event.kind, event.event_time, message_id=message_id, subject=event.subject)
    tx.notify(agent_topic(agent_id), event)


def record_presence(tx: Tx, agent: Agent, now: int) -> None:
    """Tell every other online agent of ``agent``'s project that its presence changed."""
    for peer in tx.agents.list_online(agent.project):
        if peer.id != agent.id:
            record_event(tx, peer.id, EventKind.PRESENCE, now, subject=agent)
