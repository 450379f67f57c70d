"""Durable timers: one row per deadline (``kxm_grpc/services/timers.py`` schedules and fires them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Timer:
    """A deadline: at ``due_time`` the handler of ``kind`` acts on ``key``."""

    kind: str
    """What happens at the deadline (``message_expiry``, ``lease_lapse``, …): picks the handler."""
    key: str
    """What it happens to, unique within the kind (a message id, ``project/name``)."""
    due_time: int
    """When, in clock microseconds."""


class TimerRepository(Protocol):
    """Durable timers, at most one per (kind, key)."""

    def get(self, kind: str, key: str) -> Timer | None:
        """Return the timer, or None."""

    def put(self, timer: Timer) -> None:
        """Insert the timer, or move the (kind, key) timer to its ``due_time``."""

    def delete(self, kind: str, key: str) -> None:
        """Delete the timer; nothing if there is none."""

    def next_due(self, kinds: Sequence[str]) -> int | None:
        """The earliest ``due_time`` of a timer of one of ``kinds``, or None."""

    def list_due(self, now: int, kinds: Sequence[str], limit: int) -> list[Timer]:
        """Timers of ``kinds`` due at or before ``now``, earliest first (ties by kind and key)."""
