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
every write does). A handler that raises leaves its timer in place, moved ``RETRY_AFTER`` later,
and does not stop the others. Timers survive restarts: at start, whatever came due while the hub
was down fires at once, with the current time as ``now``.

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
"""How much later a timer whose handler raised is tried again (clock microseconds)."""

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


def _postpone(failed: list[Timer], due_time: int, tx: Tx) -> None:
    """Move each failed timer to ``due_time``, unless it was moved or deleted meanwhile."""
    for timer in failed:
        if tx.timers.get(timer.kind, timer.key) == timer:
            tx.timers.put(Timer(timer.kind, timer.key, due_time))


async def fire_due(store: Store, kinds: TimerKinds, *, now: int) -> list[Timer]:
    """Fire every timer of the registered kinds due at or before ``now``; return those fired.

    Each timer fires in its own transaction, which deletes it (see the module docstring).

    Raises:
        HubError: the store failed to read the due timers or to postpone a failed one (the
            scheduler retries).
    """
    fired: list[Timer] = []
    while True:
        due = await store.read(lambda tx: tx.timers.list_due(now, kinds.names, _BATCH))
        if not due:
            break
        outcomes = await asyncio.gather(
            *(store.write(functools.partial(_fire_one, kinds, timer, now)) for timer in due), return_exceptions=True
        )
        results: dict[str, list[Any]] = {}
        failed: list[Timer] = []
        for timer, outcome in zip(due, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, Exception):
                    raise outcome
                log.error("timer_failed", kind=timer.kind, key=timer.key, exc_info=outcome)
                failed.append(timer)
            elif outcome is not _SKIPPED:
                fired.append(timer)
                results.setdefault(timer.kind, []).append(outcome)
        if failed:
            await store.write(functools.partial(_postpone, failed, now + RETRY_AFTER))
        for kind, returned in results.items():
            kinds.fired(kind, returned)
        if len(due) < _BATCH:
            break
    return fired
