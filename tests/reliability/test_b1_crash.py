"""B1: acknowledged messages survive hub crashes (reliability.md §5.2; Jepsen's total queue).

Agents send to random others through a durable hub killed with SIGKILL every U[0.3, 1.5] s (PR)
or U[0.5, 3] s (long) and restarted at once on the same data directory; every recipient
subscribes and acknowledges. The faults stop, the inboxes drain, and the total-queue checker runs
over the history and the final database: nothing acknowledged is lost, nothing unexpected
arrives, no message is stored twice, and no message comes back after its acknowledgement.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.reliability.battery import Battery, tier
from tests.reliability.hubs import CrashHub, kill_loop
from tests.reliability.workload import Mesh, crash_run

pytestmark = pytest.mark.timeout(900 if tier() == "pr" else 5400)


@pytest.mark.battery("B1", "acknowledged messages survive hub crashes")
async def test_acknowledged_messages_survive_hub_kills(battery: Battery) -> None:
    kills = battery.size(pr=50, long=500)
    sends = battery.size(pr=200, long=500)
    interval = battery.size(pr=(0.3, 1.5), long=(0.5, 3.0))
    hub = CrashHub(battery.dir / "data")

    async def load(mesh: Mesh) -> None:
        # Paced so the sends last about as long as the kills (each a pause and a ~0.4 s restart):
        # every kill lands on traffic. The wall-clock cap is a bound, not the plan.
        expected = kills * (sum(interval) / 2 + 0.4)
        sending = asyncio.create_task(mesh.send_all(sends, pace=expected / sends))
        await kill_loop(hub, battery, kills=kills, interval=interval, seconds=battery.size(pr=300.0, long=2400.0))
        await sending

    await crash_run(battery, hub, agents=battery.size(pr=16, long=64), load=load)
    battery.at_least("hub kills", hub.kills, kills)
