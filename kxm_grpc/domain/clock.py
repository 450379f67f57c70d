"""The hub's clock.

Every decision that depends on time (presence, expiry, leases, runtimes) reads one clock, the
hub's, and receives ``now`` as an argument so rules stay pure and tests can move time.
Times are integer microseconds since the Unix epoch (UTC): exact to compare and to store.
"""

from __future__ import annotations

import time
from typing import Protocol

MICROS = 1_000_000


class Clock(Protocol):
    """A source of the hub's current time."""

    def now(self) -> int:
        """Return the current time in microseconds since the epoch."""


class SystemClock:
    """The wall clock of this machine."""

    def now(self) -> int:
        """Return the current time in microseconds since the epoch."""
        return time.time_ns() // 1000


class ManualClock:
    """A clock that only moves when told to; for tests."""

    def __init__(self, start: int = 1_767_225_600 * MICROS) -> None:
        self.value = start

    def now(self) -> int:
        """Return the current time in microseconds since the epoch."""
        return self.value

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.value += round(seconds * MICROS)


def seconds(value: float) -> int:
    """Convert seconds to the clock's microseconds."""
    return round(value * MICROS)


def rfc3339(micros: int) -> str:
    """Format a clock time as RFC 3339 UTC with microseconds (``2026-01-01T00:00:05.000000Z``)."""
    whole, fraction = divmod(micros, MICROS)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{fraction:06d}Z"
