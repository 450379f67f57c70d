"""Deadline timers: things happen at their deadline, not at the next sweep.

A ``DeadlineTimer`` task sleeps until the earliest deadline its source reports, then fires once
for everything due and asks again. A write that creates an earlier deadline than the one the
timer sleeps towards wakes it (``note``). Two run in the hub:

- **message expiry**: expires every open message past its TTL in one transaction (both sides get
  an expired event). Reads apply expiry themselves too, so a timer running late (a busy loop, a
  clock moved by hand in tests) never lets a caller see a message past its TTL.
- **lease lapses**: when a grant lapses, records that the hub was alive then, so a restart never
  gives a lapsed grant back (services/leases.py, "Restarts").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import structlog

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.services import leases, messages
from kxm_grpc.store import Store

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.expiry")

# Re-read the earliest deadline at least this often (seconds): the hub clock is the wall clock
# and may jump, while sleeps run on the monotonic clock.
MAX_SLEEP = 30.0
_RETRY_AFTER_FAILURE = 1.0


NextDeadline = Callable[[Store], Awaitable[int | None]]
Fire = Callable[[Store, int], Awaitable[object]]


class DeadlineTimer:
    """Fires ``fire(store, now)`` once the earliest deadline ``next_deadline(store)`` reports has passed.

    ``fire`` must leave no deadline at or before ``now`` behind, or the timer fires again at once.
    """

    def __init__(self, name: str, next_deadline: NextDeadline, fire: Fire) -> None:
        self.name = name
        self._next_deadline = next_deadline
        self._fire = fire
        self._wake = asyncio.Event()
        self._target: int | None = None

    def note(self, deadline: int) -> None:
        """A deadline was stored: wake the timer if it sleeps towards a later one."""
        if self._target is None or deadline < self._target:
            self._wake.set()

    async def run(self, hub: HubState) -> None:
        """Fire at each deadline until cancelled; a failure is logged and retried after a second."""
        while True:
            # Until the next deadline is known, any note wakes the timer: no deadline is missed in between.
            self._target = None
            self._wake.clear()
            try:
                now = hub.now()
                deadline = await self._next_deadline(hub.store)
                if deadline is not None and deadline <= now:
                    await self._fire(hub.store, now)
                    continue
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer_failed", timer=self.name)
                await asyncio.sleep(_RETRY_AFTER_FAILURE)
                continue
            self._target = deadline
            delay = MAX_SLEEP if deadline is None else min(MAX_SLEEP, (deadline - now) / MICROS)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)


def expiry_timer() -> DeadlineTimer:
    """Expires messages at their deadlines; servicers ``note`` each new message's deadline."""
    return DeadlineTimer(
        "message_expiry", messages.next_deadline, lambda store, now: messages.expire_due(store, now=now)
    )


def lapse_timer() -> DeadlineTimer:
    """Marks the hub alive as each lease grant lapses; servicers ``note`` each new expiry."""
    return DeadlineTimer("lease_lapse", leases.next_lapse, lambda store, now: leases.mark_lapsed(store, now=now))
