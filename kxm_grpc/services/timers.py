"""Durable timers: every deadline is a row, fired at the deadline by the service that owns its kind.

A change that creates a deadline writes its timer in the same transaction (``schedule``: sending a
message, granting or renewing a lease), and a change that makes it moot deletes it in the same
transaction (``cancel``: a reply, a cancel, a release). One row per (kind, key): scheduling again
moves the deadline. Scheduling also publishes the deadline on ``DEADLINES_TOPIC`` once the
transaction commits, so the scheduler, which watches that topic, wakes for an earlier deadline
whoever wrote it: a service called by any surface, or a test, gets the same timing. The owning
service registers what happens at the deadline for its kind (``TimerKinds.register``); the server
runs one scheduler task (``kxm_grpc/server/timers.py``) that sleeps until the earliest due timer
of the registered kinds and calls ``fire_due``.

``fire_due`` fires each due timer in a transaction of its own that also deletes it: the handler's
writes and the deletion commit together, or neither does (concurrent firings share commits, as
every write does). A handler that raises leaves its timer in place and does not stop the others;
the timer is moved later with exponential backoff, ``RETRY_AFTER`` after its first failure in a
row, twice as long after each next one, at most ``RETRY_MAX`` (``retry_delay``), so a handler that
always fails is retried and logged ever more rarely instead of every second. The count of failures
in a row lives in the firing process's memory (``Failures``), not in the table. Timers survive
restarts: at start, whatever came due while the hub was down fires at once, with the current time
as ``now``.

Kinds now: ``message_expiry`` (key: the message id; ``services/messages.py``) and ``lease_lapse``
(key: ``project/name``; ``services/leases.py``). Later: workflow waits, assignment deadlines.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.store import Store, Timer, Tx

log = structlog.get_logger("kxm.timers")

RETRY_AFTER = 1 * MICROS
"""How much later a timer whose handler raised for the first time in a row is tried again (clock microseconds)."""

RETRY_MAX = 300 * MICROS
"""The longest a timer whose handler keeps raising waits between tries (5 min, clock microseconds)."""

DEADLINES_TOPIC = "timers:deadline"
"""The notifier topic every scheduled deadline is published on (its hint: the due time)."""

_BATCH = 500
_SKIPPED = object()

Fire = Callable[[Tx, Timer, int], Any]
"""A kind's handler: ``fire(tx, timer, now)`` does what the deadline means, inside the transaction
that deletes the timer, and returns what ``fired`` is handed once that commits."""
Fired = Callable[[list[Any]], None]
"""Runs after the firing transactions committed, with what each ``fire`` returned (logs, counters)."""


@dataclass(frozen=True, slots=True)
class _Kind:
    fire: Fire
    fired: Fired | None


class TimerKinds:
    """The handler of every timer kind the scheduler fires, each registered by its owning service.

    Timers of a kind nobody registered stay in the table untouched (a test's scheduler, or an
    older hub, fires only what it knows).
    """

    def __init__(self) -> None:
        self._kinds: dict[str, _Kind] = {}
        self.names: tuple[str, ...] = ()
        """The registered kinds, in registration order."""

    def register(self, kind: str, fire: Fire, *, fired: Fired | None = None) -> None:
        """Make ``fire`` the handler of ``kind`` (and ``fired`` its after-commit step).

        Raises:
            ValueError: the kind has a handler already.
        """
        if kind in self._kinds:
            raise ValueError(f"timer kind {kind!r} is registered already")
        self._kinds[kind] = _Kind(fire, fired)
        self.names = (*self.names, kind)

    def fire(self, tx: Tx, timer: Timer, now: int) -> Any:
        """Run the handler of ``timer``'s kind (in the caller's transaction); return what it returns."""
        return self._kinds[timer.kind].fire(tx, timer, now)

    def fired(self, kind: str, results: list[Any]) -> None:
        """Run the after-commit step of ``kind``, if it has one."""
        after = self._kinds[kind].fired
        if after is not None and results:
            after(results)


def retry_delay(attempt: int) -> int:
    """How much later a timer is tried again after its ``attempt``-th failure in a row (1: the first).

    ``RETRY_AFTER`` doubled for each failure before this one (1 s, 2 s, 4 s, …), at most ``RETRY_MAX``.
    """
    doublings = min(attempt - 1, RETRY_MAX.bit_length())  # enough to reach the cap, never a huge shift
    return min(RETRY_AFTER << doublings, RETRY_MAX)


class Failures:
    """How many times in a row each timer's handler raised, in the memory of the process that fires them.

    A count runs only while the timer is still the one its last failure postponed (same kind, key and
    the due time it was moved to): firing it forgets the count, and a timer that was deleted or
    scheduled again (moved) starts again at the first attempt. Keeping it in memory needs no schema
    change; a restart forgets the counts (never the timers), so a failing timer starts again at
    ``RETRY_AFTER``.
    """

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], tuple[int, int]] = {}
        """(kind, key) -> (failures in a row, the due time the last one moved the timer to)."""

    def attempt(self, timer: Timer) -> int:
        """Which failure in a row the one ``timer`` just had is (1: the first)."""
        count = self._counts.get((timer.kind, timer.key))
        return count[0] + 1 if count is not None and count[1] == timer.due_time else 1

    def postponed(self, timer: Timer, attempt: int, due_time: int) -> None:
        """Note that ``timer``'s ``attempt``-th failure in a row moved it to ``due_time``."""
        self._counts[(timer.kind, timer.key)] = (attempt, due_time)

    def fired(self, timer: Timer) -> None:
        """Forget the count of a timer that fired."""
        self._counts.pop((timer.kind, timer.key), None)

    def prune(self, now: int, seen: set[tuple[str, str]]) -> None:
        """Forget the counts of timers postponed to ``now`` or earlier that a pass over every timer due
        at ``now`` did not find (``seen``: the (kind, key) it found): they were deleted or moved."""
        for name, (_, due_time) in list(self._counts.items()):
            if due_time <= now and name not in seen:
                del self._counts[name]

    def __len__(self) -> int:
        """How many timers have a count."""
        return len(self._counts)


def schedule(tx: Tx, kind: str, key: str, due_time: int) -> None:
    """Set the (kind, key) timer to fire at ``due_time``, in the caller's transaction (a later call moves it).

    The commit publishes ``due_time`` on ``DEADLINES_TOPIC``: the scheduler wakes if it is earlier
    than the deadline it sleeps towards.
    """
    tx.timers.put(Timer(kind, key, due_time))
    tx.notify(DEADLINES_TOPIC, due_time)


def cancel(tx: Tx, kind: str, key: str) -> None:
    """Delete the (kind, key) timer, in the caller's transaction; nothing if there is none."""
    tx.timers.delete(kind, key)


async def next_due(store: Store, kinds: TimerKinds) -> int | None:
    """The earliest deadline of a timer of the registered kinds, or None."""
    return await store.read(lambda tx: tx.timers.next_due(kinds.names))


def _fire_one(kinds: TimerKinds, due: Timer, now: int, tx: Tx) -> Any:
    """Fire and delete the timer if it is still there and due (it may have been cancelled or moved since)."""
    timer = tx.timers.get(due.kind, due.key)
    if timer is None or timer.due_time > now:
        return _SKIPPED
    tx.timers.delete(timer.kind, timer.key)
    return kinds.fire(tx, timer, now)


def _postpone(moves: list[tuple[Timer, int]], tx: Tx) -> list[bool]:
    """Move each failed timer to its new due time, unless it was moved or deleted meanwhile; which moved."""
    moved = []
    for timer, due_time in moves:
        still = tx.timers.get(timer.kind, timer.key) == timer
        if still:
            tx.timers.put(Timer(timer.kind, timer.key, due_time))
        moved.append(still)
    return moved


async def _retry_later(store: Store, failed: list[tuple[Timer, Exception]], failures: Failures, now: int) -> None:
    """Postpone each failed timer by ``retry_delay`` of its failures in a row, and log each failure.

    Raises:
        HubError: the store failed to postpone them (the scheduler retries).
    """
    moves = []
    for timer, error in failed:
        attempt = failures.attempt(timer)
        delay = retry_delay(attempt)
        # The attempt and the delay say how long it has been failing and when it is tried again.
        log.error(
            "timer_failed",
            kind=timer.kind,
            key=timer.key,
            attempt=attempt,
            retry_in_seconds=delay / MICROS,
            exc_info=error,
        )
        moves.append((timer, attempt, now + delay))
    moved = await store.write(functools.partial(_postpone, [(timer, due) for timer, _, due in moves]))
    for (timer, attempt, due_time), still in zip(moves, moved, strict=True):
        # A timer moved or deleted meanwhile is no longer this failure's: its next failure counts as
        # a first (another due time), and a count it had is pruned once it does not come due.
        if still:
            failures.postponed(timer, attempt, due_time)


async def fire_due(store: Store, kinds: TimerKinds, *, now: int, failures: Failures | None = None) -> list[Timer]:
    """Fire every timer of the registered kinds due at or before ``now``; return those fired.

    Each timer fires in its own transaction, which deletes it (see the module docstring). A timer
    whose handler raises is postponed by ``retry_delay`` of its failures in a row, counted in
    ``failures``; without it (None), every failure counts as the first (``RETRY_AFTER``).

    Raises:
        HubError: the store failed to read the due timers or to postpone a failed one (the
            scheduler retries).
    """
    failures = Failures() if failures is None else failures
    fired: list[Timer] = []
    seen: set[tuple[str, str]] = set()
    while True:
        due = await store.read(lambda tx: tx.timers.list_due(now, kinds.names, _BATCH))
        if not due:
            break
        outcomes = await asyncio.gather(
            *(store.write(functools.partial(_fire_one, kinds, timer, now)) for timer in due), return_exceptions=True
        )
        results: dict[str, list[Any]] = {}
        failed: list[tuple[Timer, Exception]] = []
        for timer, outcome in zip(due, outcomes, strict=True):
            seen.add((timer.kind, timer.key))
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, Exception):
                    raise outcome
                failed.append((timer, outcome))
            elif outcome is not _SKIPPED:
                fired.append(timer)
                failures.fired(timer)
                results.setdefault(timer.kind, []).append(outcome)
        if failed:
            await _retry_later(store, failed, failures, now)
        for kind, returned in results.items():
            kinds.fired(kind, returned)
        if len(due) < _BATCH:
            break
    failures.prune(now, seen)
    return fired
