"""In-process wake-ups after commits.

A committed transaction names the topics it changed (``agent:<id>``, ``message:<id>``, …); waiters
of a topic wake and re-read the store. A change may carry a *hint*: the committed value it
reports (the event appended, the message that ended), handed to the waiters it wakes so they can
skip the re-read when nothing else changed in between. A hint is only ever a shortcut: a waiter
without one, or whose topic changed more than once, reads the durable log, so a missed wake-up
or a lost hint can never lose anything. Across hub replicas the PostgreSQL adapter feeds the same
notifier from LISTEN/NOTIFY, without hints (``kxm_grpc/store/postgres/listener.py``).

Besides waiters, a topic may have *watchers*: plain functions called with every change's hint as
it is published, for a listener that must see each change but only rarely act on one (the timer
scheduler, told of every deadline written, wakes only for an earlier one): no task wakes per change.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

import structlog

Change = tuple[str, object | None]
"""A changed topic and its hint (None: no hint)."""

Watcher = Callable[[object | None], None]
"""Called with the hint of each change of the topic it watches (None: no hint), inside ``publish``."""

ProjectChanged = Callable[[str], None]
"""Told the project whose agents, messages, leases, runtimes or workflow runs a write changed."""

log = structlog.get_logger("kxm.notify")


def project_topic(project: str) -> str:
    """The topic of a project's operational state: its agents, messages, leases, runtimes, sync
    runs, workflow runs and journal. The store tables notify it on every write that changes what
    the ops snapshot shows (a purge of ended messages, which it never shows, does not), so a
    watcher of the project's state (the ops watch) misses no change, whichever service made it."""
    return f"project:{project}"


_TIMED_OUT = object()


def _time_out(waiter: asyncio.Future[object]) -> None:
    if not waiter.done():
        waiter.set_result(_TIMED_OUT)


class Notifier:
    """Topic-keyed wake-ups for coroutines on one event loop."""

    def __init__(self) -> None:
        self._versions: dict[str, int] = {}
        self._waiters: dict[str, set[asyncio.Future[object]]] = {}
        self._watchers: dict[str, list[Watcher]] = {}

    def version(self, topic: str) -> int:
        """The topic's change counter; pass it to ``wait`` to avoid missing a change in between."""
        return self._versions.get(topic, 0)

    def publish(self, changes: Iterable[Change]) -> None:
        """Record a change on each topic, wake its waiters and call its watchers with the change's hint."""
        watchers = self._watchers
        for topic, hint in changes:
            self._versions[topic] = self._versions.get(topic, 0) + 1
            for waiter in self._waiters.pop(topic, ()):
                if not waiter.done():
                    waiter.set_result(hint)
            if watchers and topic in watchers:
                for watcher in watchers[topic]:
                    try:
                        watcher(hint)
                    except Exception:  # one failing watcher must not stop a commit's wake-ups
                        log.exception("notifier_watcher_failed", topic=topic)

    def wake_all(self) -> None:
        """Publish a change without a hint on every topic that has a waiter or a watcher.

        For when wake-ups may have been lost (the PostgreSQL listener reconnected): everyone woken
        re-reads the store, which holds whatever they missed.
        """
        self.publish([(topic, None) for topic in {*self._waiters, *self._watchers}])

    def watch(self, topic: str, watcher: Watcher) -> Callable[[], None]:
        """Call ``watcher(hint)`` on every change of ``topic`` from now on; return what stops it.

        The watcher runs inside ``publish``, on the event loop: it must be quick and never block.
        """
        self._watchers.setdefault(topic, []).append(watcher)

        def unwatch() -> None:
            watching = self._watchers.get(topic, [])
            if watcher in watching:
                watching.remove(watcher)
            if not watching:
                self._watchers.pop(topic, None)

        return unwatch

    def forget(self, topics: Iterable[str]) -> None:
        """Drop the counters of topics that will not change again (a purged message's), unless awaited.

        A caller holding a version it read after the topic's last change sees a change and re-reads: a
        spurious wake-up. Only a caller that read version 0 before the message ended and starts
        waiting after its purge (a retention period later) would wait for its timeout instead.
        """
        for topic in topics:
            if topic not in self._waiters:
                self._versions.pop(topic, None)

    async def wait(self, topic: str, seen_version: int, timeout: float | None = None) -> bool:
        """Wait until the topic changes after ``seen_version``; return False on timeout."""
        return await self._wait(topic, seen_version, timeout) is not _TIMED_OUT

    async def wait_hint(self, topic: str, seen_version: int, timeout: float | None = None) -> object | None:
        """Like ``wait``, returning the hint of the change that woke it.

        None when that change had no hint, when the topic had changed already before the call, or
        on timeout: the caller then reads the store (and checks its own deadline).
        """
        result = await self._wait(topic, seen_version, timeout)
        return None if result is _TIMED_OUT else result

    async def _wait(self, topic: str, seen_version: int, timeout: float | None) -> object | None:
        if self._versions.get(topic, 0) != seen_version:
            return None
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[object] = loop.create_future()
        self._waiters.setdefault(topic, set()).add(waiter)
        # A timer on the future, not asyncio.wait_for: this runs for every WaitMessage and every
        # stream wake-up, and wait_for adds a second future and a callback per call.
        timer = None if timeout is None else loop.call_later(timeout, _time_out, waiter)
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            waiters = self._waiters.get(topic)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[topic]
