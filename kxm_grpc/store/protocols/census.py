"""The census: how much of each thing the database holds now, for the metrics' domain gauges.

Every count is read along an index (open messages by ``messages_open_deadline``, online agents by
``(online, last_seen_time)``, held leases by ``expire_time``) or from a table that stays small
(runs within their retention, the context index's per-partition statistics), so a census costs a
few index scans, not a pass over the messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Census:
    """Counts across every project of the database."""

    online_agents: int
    open_messages: int
    """Queued or delivered, not yet replied, cancelled, expired or failed."""
    held_leases: int
    """With a holder and an expiry still ahead."""
    sync_events: int
    workflow_runs: Mapping[str, int]
    """Stage workflow runs by status (retained ones)."""
    step_runs: Mapping[str, int]
    """Step workflow runs by status (retained ones)."""
    context_items: Mapping[str, int]
    """Context items by kind (``_shared`` included)."""


class CensusRepository(Protocol):
    """Reads the census."""

    def take(self, now: int) -> Census:
        """The counts as of ``now`` (microseconds: what ``expire_time`` is compared with)."""
