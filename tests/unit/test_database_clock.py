"""The replicas' clock (``server.replicas.DatabaseClock``): the database's time, followed on the monotonic clock."""

from __future__ import annotations

import asyncio
import time

from kxm_grpc.server.replicas import DatabaseClock


class LateStore:
    """A store whose answer reaches the caller ``delay`` seconds after it was measured (a busy event loop)."""

    def __init__(self, ahead: int, delay: float) -> None:
        self.ahead = ahead
        self.delay = delay

    async def database_time(self) -> tuple[int, int]:
        reading = (time.time_ns() // 1000 + self.ahead, time.monotonic_ns() // 1000)
        await asyncio.sleep(self.delay)
        return reading


async def test_a_late_answer_does_not_move_the_replicas_clock() -> None:
    """B17 found replicas of a busy machine ~100 ms apart: the offset came from the database's reading and
    the monotonic clock *when the event loop got back to it*. It is the offset at the reading's instant."""
    # Prepare
    store = LateStore(ahead=5_000_000, delay=0.3)
    clock = DatabaseClock(store)  # type: ignore[arg-type]

    # Execute
    await clock.sync()
    now = clock.now()

    # Assert: the database's time (5 s ahead of this machine's wall clock), not 0.3 s behind it.
    assert abs(now - (time.time_ns() // 1000 + 5_000_000)) < 50_000
