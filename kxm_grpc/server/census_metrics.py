"""The domain gauges: what the database holds, refreshed by a sweep every ``CENSUS_INTERVAL``.

``kxm_agents_online``, ``kxm_messages_open``, ``kxm_leases_held``, ``kxm_sync_events``,
``kxm_workflow_runs{status}``, ``kxm_step_runs{status}`` and ``kxm_context_items{kind}`` count the
whole database (every project: the metrics name none). A census is a few index scans
(``store/protocols/census.py``); it runs only in a hub serving metrics, and on a shared database
only on the replica that runs the database sweeps, so the gauges come from one replica.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from prometheus_client import Gauge

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

CENSUS_INTERVAL = 15.0
"""Seconds between two censuses (a scrape every 15 s or more is the usual interval)."""

AGENTS_ONLINE = Gauge("kxm_agents_online", "Agents online, every project (refreshed every 15 s).")
MESSAGES_OPEN = Gauge("kxm_messages_open", "Messages queued or delivered and not yet ended (refreshed every 15 s).")
LEASES_HELD = Gauge("kxm_leases_held", "Leases with a holder and an expiry ahead (refreshed every 15 s).")
SYNC_EVENTS = Gauge("kxm_sync_events", "Sync events stored (refreshed every 15 s).")
WORKFLOW_RUNS = Gauge("kxm_workflow_runs", "Retained stage workflow runs by status (refreshed every 15 s).", ["status"])
STEP_RUNS = Gauge("kxm_step_runs", "Retained step workflow runs by status (refreshed every 15 s).", ["status"])
CONTEXT_ITEMS = Gauge("kxm_context_items", "Context items by kind, _shared included (refreshed every 15 s).", ["kind"])

_last: dict[int, float] = {}
"""When each store (by id) last took a census (``time.monotonic``)."""


async def refresh(hub: HubState, *, interval: float = CENSUS_INTERVAL) -> bool:
    """Take a census and set the gauges, unless one was taken less than ``interval`` ago or the hub
    serves no metrics; whether it did."""
    if hub.settings.metrics_port is None:
        return False
    key = id(hub.store)
    started = time.monotonic()
    if started - _last.get(key, float("-inf")) < interval:
        return False
    _last[key] = started
    now = hub.now()
    census = await hub.store.read(lambda tx: tx.census.take(now))
    AGENTS_ONLINE.set(census.online_agents)
    MESSAGES_OPEN.set(census.open_messages)
    LEASES_HELD.set(census.held_leases)
    SYNC_EVENTS.set(census.sync_events)
    for gauge, counts in (
        (WORKFLOW_RUNS, census.workflow_runs),
        (STEP_RUNS, census.step_runs),
        (CONTEXT_ITEMS, census.context_items),
    ):
        gauge.clear()  # a status no run has any more reads as absent, not as its last count
        for label, count in counts.items():
            gauge.labels(label).set(count)
    return True
