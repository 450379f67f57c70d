"""Periodic housekeeping on the server's event loop: stale agents, rate buckets, retention."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog
from prometheus_client import Counter

from kxm_grpc.domain.clock import seconds
from kxm_grpc.server.state import HubState
from kxm_grpc.services import agents, leases, messages

log = structlog.get_logger("kxm.sweeps")

Sweep = Callable[[HubState], Awaitable[object]]


async def sweep_agents(hub: HubState) -> object:
    """Retire agents whose presence lease lapsed."""
    return await agents.sweep_stale_agents(hub.store, now=hub.now(), stale_after=hub.stale_after)


async def sweep_rate_buckets(hub: HubState) -> object:
    """Forget idle rate-limit buckets."""
    hub.limiter.collect()
    return None


MESSAGES_PURGED = Counter("kxm_messages_purged", "Terminal messages deleted by the retention purge.")


async def sweep_messages(hub: HubState) -> object:
    """Expire what the expiry timer has not yet (a backstop), then purge messages past retention."""
    now = hub.now()
    await messages.expire_due(hub.store, now=now)
    purged = await messages.purge_messages(hub.store, now=now, retention=seconds(hub.settings.message_retention))
    MESSAGES_PURGED.inc(purged)
    return purged


async def sweep_lease_alive(hub: HubState) -> object:
    """Record that the hub is alive, so a restart extends live leases by no more than the downtime."""
    return await leases.keep_alive(hub.store, now=hub.now())


SWEEPS: list[Sweep] = [sweep_agents, sweep_rate_buckets, sweep_messages, sweep_lease_alive]


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
