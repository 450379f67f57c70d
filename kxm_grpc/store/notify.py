"""In-process wake-ups after commits.

A committed transaction names the topics it changed (``agent:<id>``, ``message:<id>``, …); waiters
of a topic wake and re-read the store. The notifier carries no data, so a missed wake-up can never
lose anything: readers always catch up from the durable log. Across hub replicas the PostgreSQL
adapter feeds the same notifier from LISTEN/NOTIFY.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable


class Notifier:
    """Topic-keyed wake-ups for coroutines on one event loop."""

    def __init__(self) -> None:
        self._versions: dict[str, int] = {}
        self._waiters: dict[str, set[asyncio.Future[None]]] = {}

    def version(self, topic: str) -> int:
        """The topic's change counter; pass it to ``wait`` to avoid missing a change in between."""
        return self._versions.get(topic, 0)

    def publish(self, topics: Iterable[str]) -> None:
        """Record a change on each topic and wake its waiters."""
        for topic in topics:
            self._versions[topic] = self._versions.get(topic, 0) + 1
            for waiter in self._waiters.pop(topic, ()):
                if not waiter.done():
                    waiter.set_result(None)

    async def wait(self, topic: str, seen_version: int, timeout: float | None = None) -> bool:
        """Wait until the topic changes after ``seen_version``; return False on timeout."""
        if self._versions.get(topic, 0) != seen_version:
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(topic, set()).add(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
            return True
        except TimeoutError:
            return False
        finally:
            waiters = self._waiters.get(topic)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[topic]
