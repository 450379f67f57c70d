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


def elapsed_ns() -> int:
    """Nanoseconds on a clock nobody can set: CLOCK_BOOTTIME where there is one (Linux; it also counts
    the time the machine was suspended), else the monotonic clock."""
    return time.clock_gettime_ns(_ELAPSED)


_ELAPSED = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)


class SystemClock:
    """This machine's time, immune to steps of its wall clock.

    It reads the wall clock once, when it is made, and from then on adds the time elapsed on a
    clock nobody can set (``elapsed_ns``). A step of the wall clock while the hub runs (``date -s``,
    an NTP step, a resumed VM) changes no deadline: every TTL, lease and presence window still runs
    its real length, and the clock never goes backwards. NTP's gradual corrections slew both clocks
    alike, so the two stay together otherwise; the hub takes up a stepped wall clock when it next
    starts. (A hub on a shared database uses the database's clock instead, ``server.replicas``.)
    """

    def __init__(self) -> None:
        self.offset = time.time_ns() // 1000 - elapsed_ns() // 1000
        """Microseconds to add to ``elapsed_ns`` (in microseconds) for the time since the epoch."""

    def now(self) -> int:
        """Return the current time in microseconds since the epoch."""
        return elapsed_ns() // 1000 + self.offset


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
    """Format a clock time as RFC 3339 UTC with microseconds (``2026-01-01T00:00:05.000000Z``).

    The year has four digits, zero-padded (``0999-…``): RFC 3339 requires them, and ``%Y`` of the C
    library leaves a year below 1000 unpadded. Times from year 1 to 9999 format; later ones have
    no RFC 3339 form (callers keep their times in that range).
    """
    whole, fraction = divmod(micros, MICROS)
    moment = time.gmtime(whole)
    return f"{moment.tm_year:04d}" + time.strftime("-%m-%dT%H:%M:%S", moment) + f".{fraction:06d}Z"
