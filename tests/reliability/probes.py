"""Looking into a hub subprocess from outside: its metrics, its open sockets, and timing figures.

``metrics_address`` reads where a hub started with ``--metrics-port 0`` serves ``GET /metrics``
(the ``hub_started`` line of its log); ``scrape`` fetches and parses one scrape (``Scrape.value``
sums a metric's samples, optionally filtered by labels). ``open_sockets`` counts the sockets a
process holds (``/proc/<pid>/fd``). ``percentile`` and ``spread`` turn timings into figures
(timings are figures, never invariants).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.reliability.hubs import CrashHub


def metrics_address(hub: CrashHub, timeout: float = 10.0) -> str:
    """``host:port`` of the metrics listener of ``hub``'s current start (started with ``--metrics-port 0``).

    Raises:
        TimeoutError: its log has no ``hub_started`` line with a metrics address.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = None
        for line in Path(hub.log_path).read_text(errors="replace").splitlines():
            if '"hub_started"' in line:
                with_address = json.loads(line).get("metrics_address")
                found = with_address or found
        if found:
            return str(found)
        time.sleep(0.05)
    raise TimeoutError(f"no metrics address in {hub.log_path}")


@dataclass
class Scrape:
    """One scrape of ``/metrics``: every sample as (name, labels, value)."""

    samples: list[tuple[str, dict[str, str], float]]

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples named ``name`` whose labels include ``labels`` (0 when none)."""
        return sum(
            value
            for sample, have, value in self.samples
            if sample == name and all(have.get(k) == v for k, v in labels.items())
        )

    def by_label(self, name: str, label: str) -> dict[str, float]:
        """The samples named ``name`` summed per value of ``label``."""
        totals: dict[str, float] = {}
        for sample, have, value in self.samples:
            if sample == name:
                totals[have.get(label, "")] = totals.get(have.get(label, ""), 0.0) + value
        return totals


async def scrape(address: str, timeout: float = 5.0) -> Scrape:
    """GET /metrics from ``address`` (plain HTTP on loopback) and parse it.

    Raises:
        OSError, TimeoutError: the listener did not answer.
        AssertionError: the answer was not 200.
    """
    host, port = address.rsplit(":", 1)
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            writer.write(f"GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            raw = await reader.read()
        finally:
            writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.split(b" ", 2)[1] == b"200", head[:200]
    samples = [
        (sample.name, dict(sample.labels), float(sample.value))
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    ]
    return Scrape(samples)


async def settle(
    address: str, metric: str, *, at_most: float, seconds: float, poll: float = 0.05
) -> tuple[bool, float, float]:
    """Scrape until ``metric`` is at most ``at_most``, for ``seconds`` at most.

    Returns whether it got there, how long that took (or ``seconds``) and the last value seen.
    """
    started = time.monotonic()
    value = float("nan")
    while True:
        value = (await scrape(address)).value(metric)
        elapsed = time.monotonic() - started
        if value <= at_most:
            return True, elapsed, value
        if elapsed >= seconds:
            return False, elapsed, value
        await asyncio.sleep(poll)


async def baseline(address: str, metric: str, samples: int = 5, poll: float = 0.1) -> float:
    """The lowest value of ``metric`` over a few scrapes (background work comes and goes)."""
    values = []
    for _ in range(samples):
        values.append((await scrape(address)).value(metric))
        await asyncio.sleep(poll)
    return min(values)


def open_sockets(pid: int) -> int:
    """How many sockets process ``pid`` holds open (its ``/proc/<pid>/fd`` links to ``socket:``)."""
    count = 0
    base = f"/proc/{pid}/fd"
    for fd in os.listdir(base):
        try:
            if os.readlink(f"{base}/{fd}").startswith("socket:"):
                count += 1
        except OSError:
            continue  # closed while listed
    return count


async def wait_for(
    probe: Callable[[], float], *, at_most: float, seconds: float, poll: float = 0.05
) -> tuple[bool, float, float]:
    """Poll ``probe()`` until it is at most ``at_most``, for ``seconds`` at most (as ``settle``)."""
    started = time.monotonic()
    while True:
        value = probe()
        elapsed = time.monotonic() - started
        if value <= at_most:
            return True, elapsed, value
        if elapsed >= seconds:
            return False, elapsed, value
        await asyncio.sleep(poll)


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``values`` (nearest rank; NaN when empty)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def spread(values: list[float], scale: float = 1000.0) -> dict[str, float]:
    """p50 / p99 / max of ``values`` times ``scale`` (seconds to milliseconds by default), rounded."""
    return {
        "p50": round(percentile(values, 0.50) * scale, 1),
        "p99": round(percentile(values, 0.99) * scale, 1),
        "max": round(max(values) * scale, 1) if values else float("nan"),
    }
