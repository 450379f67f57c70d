"""B2: crashes at the commit boundaries (reliability.md §5.2; etcd's gofail failpoints).

B1's workload at a fifth of its size, on a hub armed with one failpoint that SIGKILLs it: before a
write transaction commits, after it commits but before the response is sent, after the response
is sent, or as a stream sends an event. The hub is restarted whenever the failpoint kills it,
until it has fired 10 times (PR) or 50 (long). B1's invariants hold, and ``PRAGMA
integrity_check`` answers ``ok`` after every kill.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.reliability.battery import Battery, tier
from tests.reliability.hubs import CrashHub, keep_up
from tests.reliability.workload import Mesh, crash_run

pytestmark = pytest.mark.timeout(600 if tier() == "pr" else 5400)

# Each point's chance of firing per hit: a write point is hit by every commit (sends, acks,
# heartbeats); stream_send by every event a stream sends.
POINTS = {
    "before_commit": 1,
    "after_commit_before_ack": 5,
    "after_ack": 5,
    "stream_send": 5,
}


@pytest.mark.parametrize("point", sorted(POINTS))
@pytest.mark.battery("B2", "crashes at commit boundaries lose nothing acknowledged")
async def test_failpoint_kills_lose_nothing_acknowledged(battery: Battery, point: str) -> None:
    fires = battery.size(pr=10, long=50)
    hub = CrashHub(battery.dir / "data", seed=battery.seed)

    async def load(mesh: Mesh) -> None:
        # Armed once the agents are registered (a restart on the same data directory).
        hub.failpoints = f"{point}={POINTS[point]}%kill"
        await asyncio.to_thread(hub.restart)
        stop = asyncio.Event()
        keeper = asyncio.create_task(keep_up(hub, stop))
        try:
            # Rounds of sends until the point has fired often enough (bounded in count and time).
            for round_ in battery.bounded(battery.size(pr=40, long=200), battery.size(pr=150.0, long=900.0)):
                await mesh.send_all(battery.size(pr=8, long=20), pace=0.01, round_=round_ + 1)
                if hub.failpoint_kills >= fires:
                    break
        finally:
            stop.set()
            await keeper
        # Disarmed for the drain: a last restart without the failpoint.
        hub.failpoints = ""
        await asyncio.to_thread(hub.restart)

    await crash_run(battery, hub, agents=battery.size(pr=6, long=16), load=load)
    battery.figure("failpoint", point)
    battery.at_least("failpoint kills", hub.failpoint_kills, fires)
