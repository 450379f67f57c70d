"""The timer scheduler: things happen at their deadline, not at the next sweep.

Every deadline is a durable timer (``kxm_grpc/services/timers.py``), and one ``TimerScheduler``
task fires them all: it sleeps until the earliest due timer of the registered kinds, fires
everything due (each timer in a transaction that also deletes it, dispatched by kind to the handler
its service registered), and asks again. A write that creates an earlier deadline than the one it
sleeps towards wakes it: it watches the store notifier's ``DEADLINES_TOPIC``, on which every
``services.timers.schedule`` publishes its deadline at commit, so no caller has to tell it (a
change without a hint, as across replicas, wakes it to read again). At start it fires at once
whatever came due while the hub was down. The hub's coordination owns it
(``Coordination.timers``, ``server/coordination.py``). The kinds:

- **message expiry** (``services/messages.py``): expires the message (both sides get an expired
  event). Reads apply expiry themselves too, so a timer running late (a busy loop, a clock moved by
  hand in tests) never lets a caller see a message past its TTL.
- **lease lapse** (``services/leases.py``): when a grant lapses, records that the hub was alive
  then, so a restart never gives a lapsed grant back (services/leases.py, "Restarts").
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import structlog

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.services import leases, messages, timers
from kxm_grpc.services.limits import LIMITS, Limits
from kxm_grpc.services.timers import DEADLINES_TOPIC, Failures, TimerKinds
from kxm_grpc.services.workflows import deadlines as workflow_deadlines
from kxm_grpc.services.workflows import step_runs
from kxm_grpc.services.workflows.step_engine import EngineSettings
from kxm_grpc.store import Store, Timer

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.timers")

# Re-read the earliest deadline at least this often (seconds): the hub clock may differ from the
# loop's (a database's clock is re-read every 30 s; a clock moved by hand in tests).
MAX_SLEEP = 30.0
_RETRY_AFTER_FAILURE = 1.0


def hub_timer_kinds(limits: Limits = LIMITS, engine: EngineSettings | None = None) -> TimerKinds:
    """Every timer kind the hub fires, each with its owning service's handler (the step engine's
    when its settings are given: its handlers dispatch, which signs attempt tokens)."""
    kinds = TimerKinds()
    messages.register_timers(kinds)
    leases.register_timers(kinds)
    workflow_deadlines.register(kinds, limits)
    if engine is not None:
        step_runs.register(kinds, engine)
    return kinds


class TimerScheduler:
    """Fires the durable timers of ``kinds`` at their deadlines, on the hub's clock (one per hub)."""

    def __init__(
        self, kinds: TimerKinds | None = None, limits: Limits = LIMITS, engine: EngineSettings | None = None
    ) -> None:
        self.kinds = hub_timer_kinds(limits, engine) if kinds is None else kinds
        self.failures = Failures()
        """Failures in a row of the timers this scheduler fired (their retry backoff; in memory)."""
        self._wake = asyncio.Event()
        self._target: int | None = None

    def note(self, deadline: int) -> None:
        """A timer was written for ``deadline``: wake the scheduler if it sleeps towards a later one.

        Writes through ``services.timers.schedule`` are noted by themselves (``DEADLINES_TOPIC``).
        """
        if self._target is None or deadline < self._target:
            self._wake.set()

    def _published(self, hint: object | None) -> None:
        """A deadline was published on ``DEADLINES_TOPIC``; without one, read again."""
        if isinstance(hint, int):
            self.note(hint)
        else:
            self._wake.set()

    async def fire_due(self, store: Store, now: int) -> list[Timer]:
        """Fire every registered timer due at ``now`` (the scheduler's step, and the sweeps' backstop).

        Raises:
            HubError: the store failed (see ``services.timers.fire_due``).
        """
        return await timers.fire_due(store, self.kinds, now=now, failures=self.failures)

    async def run(self, hub: HubState) -> None:
        """Fire at each deadline until cancelled; a failure is logged and retried after a second."""
        unwatch = hub.store.notifier.watch(DEADLINES_TOPIC, self._published)
        try:
            await self._run(hub)
        finally:
            unwatch()

    async def _run(self, hub: HubState) -> None:
        while True:
            # Until the next deadline is known, any note wakes the scheduler: none is missed in between.
            self._target = None
            self._wake.clear()
            try:
                now = hub.now()
                deadline = await timers.next_due(hub.store, self.kinds)
                if deadline is not None and deadline <= now:
                    await self.fire_due(hub.store, now)
                    continue
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer_scheduler_failed")
                await asyncio.sleep(_RETRY_AFTER_FAILURE)
                continue
            self._target = deadline
            delay = MAX_SLEEP if deadline is None else min(MAX_SLEEP, (deadline - now) / MICROS)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)
