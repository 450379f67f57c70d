"""Periodic housekeeping on the server's event loop: stale agents, rate buckets, overdue timers, retention.

Retention covers terminal messages, ended workflow runs (with their context items) and ended
context items.

The hub's coordination runs them (``Coordination.run_sweeps``, ``server/coordination.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import structlog
from prometheus_client import Counter

from kxm_grpc.domain.clock import seconds
from kxm_grpc.server import census_metrics
from kxm_grpc.services import agents, leases, messages
from kxm_grpc.services.context import retention as context_retention
from kxm_grpc.services.workflows import runs as workflow_runs

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.sweeps")

Sweep = Callable[["HubState"], Awaitable[object]]


async def sweep_agents(hub: HubState) -> object:
    """Retire agents whose presence lease lapsed."""
    return await agents.sweep_stale_agents(hub.store, now=hub.now(), stale_after=hub.stale_after)


async def sweep_rate_buckets(hub: HubState) -> object:
    """Forget idle rate-limit buckets."""
    hub.coordination.limiter.collect()
    return None


MESSAGES_PURGED = Counter("kxm_messages_purged", "Terminal messages deleted by the retention purge.")


async def sweep_timers(hub: HubState) -> object:
    """Fire the timers the scheduler has not yet (a backstop: its sleep may outlast a clock jump)."""
    return len(await hub.coordination.timers.fire_due(hub.store, hub.now()))


async def sweep_messages(hub: HubState) -> object:
    """Purge messages past retention (what expired is expired already: ``sweep_timers`` runs first)."""
    purged = await messages.purge_messages(hub.store, now=hub.now(), retention=seconds(hub.settings.message_retention))
    MESSAGES_PURGED.inc(purged)
    return purged


WORKFLOW_RUNS_PURGED = Counter("kxm_workflow_runs_purged", "Ended workflow runs deleted by the retention purge.")


async def sweep_workflows(hub: HubState) -> object:
    """Purge workflow runs ended past ``--workflow-retention`` and delivery records past their
    replay horizon (which the settings keep longer, so a replay stays refused once its run is gone)."""
    purged = await workflow_runs.purge(hub.store, now=hub.now(), retention=hub.limits.workflow_retention)
    WORKFLOW_RUNS_PURGED.inc(purged)
    return purged


CONTEXT_ITEMS_PURGED = Counter(
    "kxm_context_items_purged", "Superseded and rejected context items deleted by the retention purge."
)


async def sweep_context(hub: HubState) -> object:
    """Purge context items that ended past ``--context-retention`` (state history past
    ``--context-state-retention``); a purged run's items went with it (``sweep_workflows``)."""
    purged = await context_retention.purge(
        hub.store,
        now=hub.now(),
        retention=hub.limits.context_retention,
        state_retention=hub.limits.context_state_retention,
    )
    CONTEXT_ITEMS_PURGED.inc(purged.items + purged.state)
    return purged


async def sweep_census(hub: HubState) -> object:
    """Refresh the domain gauges (``census_metrics``), at most every 15 s and only when metrics are served."""
    return await census_metrics.refresh(hub)


async def sweep_lease_alive(hub: HubState) -> object:
    """Record that the hub is alive, so a restart extends live leases by no more than the downtime."""
    return await leases.keep_alive(hub.store, now=hub.now())


SWEEPS: list[Sweep] = [
    sweep_agents,
    sweep_rate_buckets,
    sweep_timers,
    sweep_messages,
    sweep_workflows,
    sweep_context,
    sweep_census,
    sweep_lease_alive,
]
"""Every sweep, in order: what a hub alone on its database runs."""

LOCAL_SWEEPS: list[Sweep] = [sweep_rate_buckets]
"""The sweeps of this process's own memory: every replica runs them."""

DATABASE_SWEEPS: list[Sweep] = [sweep for sweep in SWEEPS if sweep not in LOCAL_SWEEPS]
"""The sweeps of the database: on a shared database only the sweeper replica runs them."""


async def run_sweeps(hub: HubState, sweeps: list[Sweep] | None = None) -> None:
    """Run every sweep each ``sweep_interval`` until cancelled; a failing sweep is logged and retried."""
    while True:
        for sweep in sweeps or SWEEPS:
            try:
                await sweep(hub)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweep_failed", sweep=sweep.__name__)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(hub.shutting_down.wait(), hub.settings.sweep_interval)
        if hub.shutting_down.is_set():
            return
