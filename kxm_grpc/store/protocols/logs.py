"""Sequenced logs: per-owner logs with durable, gapless sequence numbers.

One mechanism for every log whose readers resume by sequence number: the agent inbox log now, run
events and workflow journals later. Each owner (an agent, a run) has its own sequence 1, 2, …;
``next_seq`` issues the next number in the transaction of the change the entry reports, and the
entry is appended in that same transaction, so a committed log has no gap and a rolled-back change
leaves no number behind. Retention deletes old entries and remembers, per owner, the highest
sequence number it deleted (``purged_seq``), so a reader resuming below it knows it missed entries.
A log's entries (what each reports) are its own: each log's repository adds ``append`` and its
reads on top of this protocol.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol


class LogState(NamedTuple):
    """Where an owner's log stands."""

    head_seq: int
    """The last sequence number issued (0: none yet)."""
    oldest_seq: int
    """The lowest sequence number still retained (0: no entry retained)."""
    purged_seq: int
    """The highest sequence number retention deleted (0: none)."""


class SequencedLog(Protocol):
    """The sequence numbers of one log, per owner."""

    def next_seq(self, owner: str) -> int:
        """Issue the owner's next sequence number (1, 2, …; never reused, even after retention)."""

    def state(self, owner: str) -> LogState:
        """The owner's head, oldest retained and highest purged sequence numbers."""
