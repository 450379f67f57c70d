"""The message expiry timer: expiry happens at the deadline, not at the next sweep.

One task sleeps until the earliest deadline of any open message, then expires everything due in
one transaction (both sides get an expired event). A send whose deadline is earlier than the one
the timer sleeps towards wakes it. Reads apply expiry themselves too, so a timer running late (a
busy loop, a clock moved by hand in tests) never lets a caller see a message past its TTL.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import structlog

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.services import messages

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.expiry")

# Re-read the earliest deadline at least this often (seconds): the hub clock is the wall clock
# and may jump, while sleeps run on the monotonic clock.
MAX_SLEEP = 30.0
_RETRY_AFTER_FAILURE = 1.0


class ExpiryTimer:
    """Expires messages at their deadlines; ``note`` tells it about a new deadline."""

    def __init__(self) -> None:
        self._wake = asyncio.Event()
        self._target: int | None = None

    def note(self, deadline: int) -> None:
        """A message with this deadline was stored: wake the timer if it sleeps towards a later one."""
        if self._target is None or deadline < self._target:
            self._wake.set()

    async def run(self, hub: HubState) -> None:
        """Expire messages at their deadlines until cancelled."""
        while True:
            # Until the next deadline is known, any note wakes the timer: no deadline is missed in between.
            self._target = None
            self._wake.clear()
            try:
                now = hub.now()
                deadline = await messages.next_deadline(hub.store)
                if deadline is not None and deadline <= now:
                    await messages.expire_due(hub.store, now=now)
                    continue
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("expiry_failed")
                await asyncio.sleep(_RETRY_AFTER_FAILURE)
                continue
            self._target = deadline
            delay = MAX_SLEEP if deadline is None else min(MAX_SLEEP, (deadline - now) / MICROS)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)
