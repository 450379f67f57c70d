"""B12: many idle streams cost bounded memory, leave unary calls prompt, and go when their client dies.

A separate client process (``stream_holder.py``) opens S idle Subscribe streams for A agents over C
channels to a subprocess hub started with ``--max-streams-per-agent S/A``. While they are held, a
probe in another project runs 1,000 unary RPCs (heartbeat and inbox reads, alternating), and every
agent tries one stream beyond its quota. Then the client process is killed with SIGKILL and the
hub's ``kxm_open_streams`` gauge (``/metrics``) is polled back to zero.

Invariants: every stream opened and the gauge counted each; hub RSS while holding ≤ the baseline
+ 48 KiB × S; every stream beyond an agent's quota refused with RESOURCE_EXHAUSTED
(STREAM_LIMIT_REACHED); every stream handler released ≤ 5 s after the client died. Figures: the
opening time, RSS per stream, unary p50/p99/max while holding (not asserted: the table's 50 ms is
a target on an unshared machine), release time, RSS after release.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time

import grpc
import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import Reason
from tests.reliability.battery import REPO, Battery
from tests.reliability.hubs import CrashHub
from tests.reliability.streams_kit import (
    cpu_seconds,
    gauge,
    metrics_port,
    new_project,
    percentile,
    reason_of,
    register_agents,
    rss_kib,
    subscribe,
)

KIB_PER_STREAM = 48
RELEASE_WITHIN = 60.0
"""How long the hub may take to release a dead client's handlers before the run calls them leaked:
a bound against leaks, not a timing target (the release time is a figure, never asserted)."""
PROBE_CALLS = 1_000


async def wait_gauge(port: int, value: float, seconds: float) -> tuple[float, float]:
    """Poll ``kxm_open_streams`` until it equals ``value`` or ``seconds`` pass; (last value, seconds taken)."""
    began = time.monotonic()
    current = await gauge(port, "kxm_open_streams")
    while current != value and time.monotonic() - began < seconds:
        await asyncio.sleep(0.05)
        current = await gauge(port, "kxm_open_streams")
    return current, time.monotonic() - began


async def probe(address: str, battery: Battery, stop: asyncio.Event) -> list[float]:
    """PROBE_CALLS unary RPCs from an agent of another project (so its registration wakes no held stream)."""
    token = await new_project(address, "b12-probe")
    latencies: list[float] = []
    async with HubClient(address, token=token) as client:
        await client.agents.register("probe")
        for index in battery.bounded(PROBE_CALLS, 120):
            began = time.perf_counter()
            if index % 2:
                await client.agents.heartbeat()
            else:
                await client.messages.list_inbox()
            latencies.append(time.perf_counter() - began)
    stop.set()
    return latencies


async def beyond_quota(address: str, identities: list, channel_count: int) -> list[str]:
    """One more stream per agent (each already holds its quota): the status and reason of each refusal."""
    channels = [grpc.aio.insecure_channel(address) for _ in range(channel_count)]
    outcomes: list[str] = []

    async def one(index: int, who) -> None:
        call = subscribe(channels[index % channel_count], who)
        try:
            first = await asyncio.wait_for(call.read(), 20)
            outcomes.append("OPENED" if first is not grpc.aio.EOF else "EOF")
        except grpc.aio.AioRpcError as error:
            outcomes.append(f"{error.code().name}/{reason_of(error)}")
        except TimeoutError:
            outcomes.append("TIMEOUT")
        finally:
            call.cancel()

    try:
        await asyncio.gather(*(one(index, who) for index, who in enumerate(identities)))
    finally:
        for channel in channels:
            await channel.close()
    return outcomes


@pytest.mark.timeout(900)
@pytest.mark.battery("B12", "many idle streams, bounded memory")
async def test_many_idle_streams_cost_bounded_memory_and_go_when_their_client_dies(battery: Battery) -> None:
    streams = battery.size(pr=3_000, long=10_000)
    per_agent = battery.size(pr=50, long=100)
    channels = battery.size(pr=10, long=20)
    hold_for = battery.size(pr=10.0, long=60.0)
    agents = streams // per_agent
    hub = CrashHub(
        battery.dir / "data",
        extra_args=("--max-streams-per-agent", str(per_agent), "--metrics-port", "0"),
    )
    with hub:
        port = metrics_port(hub.log_path)
        token = await new_project(hub.address, "b12")
        identities = await register_agents(hub.address, token, [f"idle-{i}" for i in range(agents)])
        await asyncio.sleep(1.0)  # let the registrations' work settle before the baseline
        baseline = rss_kib(hub.pid)
        spec = battery.dir / "holder.json"
        spec.write_text(
            json.dumps(
                {
                    "address": hub.address,
                    "channels": channels,
                    "streams_per_agent": per_agent,
                    "agents": [who.as_json() for who in identities],
                }
            )
        )
        with (battery.dir / "holder.log").open("wb") as holder_log:
            holder = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.reliability.stream_holder",
                str(spec),
                cwd=REPO,
                stdout=asyncio.subprocess.PIPE,
                stderr=holder_log,
                env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
            )
        try:
            assert holder.stdout is not None
            line = await asyncio.wait_for(holder.stdout.readline(), 240)
            opened = json.loads(line or b'{"ready": 0, "failed": -1, "seconds": 0, "errors": {}}')
            battery.figure("streams", streams)
            battery.figure("agents", agents)
            battery.figure("channels", channels)
            battery.figure("open_seconds", round(opened["seconds"], 2))
            battery.invariant("streams opened", opened["ready"], streams)
            counted, _ = await wait_gauge(port, streams, 10)
            battery.invariant("open streams the hub counts", counted, streams)

            stop = asyncio.Event()
            peak = rss_kib(hub.pid)
            probing = asyncio.create_task(probe(hub.address, battery, stop))
            began = time.monotonic()
            while not (stop.is_set() and time.monotonic() - began >= hold_for):
                await asyncio.sleep(0.25)
                peak = max(peak, rss_kib(hub.pid))
                if probing.done() and probing.exception() is not None:
                    break
            latencies = await probing
            battery.figure("hold_seconds", round(time.monotonic() - began, 1))
            battery.figure("unary_calls", len(latencies))
            battery.figure("unary_p50_ms", round(percentile(latencies, 0.50) * 1000, 2))
            battery.figure("unary_p99_ms", round(percentile(latencies, 0.99) * 1000, 2))
            battery.figure("unary_max_ms", round(max(latencies) * 1000, 2))
            battery.figure("hub_rss_baseline_mib", round(baseline / 1024, 1))
            battery.figure("hub_rss_holding_mib", round(peak / 1024, 1))
            battery.figure("hub_kib_per_stream", round((peak - baseline) / streams, 1))
            battery.at_least("unary calls while holding", len(latencies), PROBE_CALLS)

            refusals = await beyond_quota(hub.address, identities, channels)
            refused = sum(1 for outcome in refusals if outcome == f"RESOURCE_EXHAUSTED/{Reason.STREAM_LIMIT_REACHED}")
            battery.figure("quota_attempts", len(refusals))
            battery.figure("quota_outcomes", sorted(set(refusals)))
            battery.invariant("streams beyond the per-agent quota refused (RESOURCE_EXHAUSTED)", refused, agents)
            still, _ = await wait_gauge(port, streams, 5)
            battery.invariant("open streams after the refusals", still, streams)
            battery.invariant(
                f"hub RSS within baseline + {KIB_PER_STREAM} KiB x streams",
                peak - baseline <= KIB_PER_STREAM * streams,
                True,
            )

            battery.invariant("the client process held its streams to the end", holder.returncode, None)
            cpu_before = cpu_seconds(hub.pid)
            os.kill(holder.pid, signal.SIGKILL)
            await asyncio.wait_for(holder.wait(), 10)
            remaining, took = await wait_gauge(port, 0, RELEASE_WITHIN)
            battery.figure("release_seconds", round(took, 2))
            battery.figure("release_hub_cpu_seconds", round(cpu_seconds(hub.pid) - cpu_before, 2))
            battery.figure("hub_rss_released_mib", round(rss_kib(hub.pid) / 1024, 1))
            battery.invariant("stream handlers left after the client died", remaining, 0)
            assert hub.alive()
        finally:
            if holder.returncode is None:
                holder.kill()
                await asyncio.wait_for(holder.wait(), 10)
