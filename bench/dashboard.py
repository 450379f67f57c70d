"""The dashboard in a real browser: how soon an event shows on the page, what the page weighs, and
what open dashboards cost the hub.

    .venv/bin/python -m bench.dashboard [--events 100] [--agents 100] [--dashboards 10] [--seconds 10] [--reps 3]

One hub process (SQLite, durability normal, its HTTP port on) and headless Chromium (Debian's,
driven by Playwright, as in tests/browser), each page signed in as the admin.

* **Latency.** An agent sends ``--events`` messages one at a time, each after the previous one
  showed: the time from the send's start to the message's line in the page's flow
  (``#flow li[data-message=<id>]``), p50 and p99. Target (issue 21): p99 ≤ 1 s.
* **Page weight.** The page's three files as served gzipped (what a browser downloads).
  Target: ≤ 300 KiB compressed.
* **CPU.** ``--agents`` agents in pairs exchanging a message and its reply every 0.5 s (as in
  ``bench.ops_watch``) for ``--seconds``, the hub process's CPU with no page open and with
  ``--dashboards`` pages open on the project, in the order none, open, open, none per rep (a drift
  linear in time falls on both alike), each window after the same idle time; the median ratio of
  CPU per exchange. Target: ≤ 1.1 ×.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import shutil
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import percentile, process_cpu_ns
from bench.hubproc import ADMIN_TOKEN, HubProcess, started_field
from bench.ops_watch import _load
from kxm_grpc.client import HubClient

SETTLE = 5.0
"""Seconds every CPU window waits before it starts (see ``_cpu_window``)."""
ASSETS = ("/dashboard/", "/dashboard/app.js", "/dashboard/app.css")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def page_weight(http_address: str) -> tuple[int, int]:
    """The page's files as served gzipped, and their size unpacked (bytes)."""
    packed = unpacked = 0
    for path in ASSETS:
        request = urllib.request.Request(f"http://{http_address}{path}", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 (an http URL built here)
            body = answer.read()
            assert answer.headers["Content-Encoding"] == "gzip"
        packed += len(body)
        unpacked += len(gzip.decompress(body))
    return packed, unpacked


async def open_dashboard(browser: Any, http_address: str) -> Any:
    """A new page signed in as the admin, its first snapshot shown."""
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(f"http://{http_address}/dashboard/")
    await page.get_by_label("Operator token").fill(ADMIN_TOKEN)
    await page.get_by_role("button", name="Sign in").click()
    await page.locator("#live:has-text('live')").wait_for(timeout=10_000)
    await page.locator("#agents tbody tr").first.wait_for(timeout=10_000)
    return page


async def _latency(browser: Any, hub: HubProcess, http_address: str, token: str, events: int) -> list[float]:
    alice, bob = HubClient(hub.address, token=token), HubClient(hub.address, token=token)
    await alice.agents.register("latency-alice")
    await bob.agents.register("latency-bob")
    page = await open_dashboard(browser, http_address)
    took = []
    try:
        for _ in range(events):
            started = time.perf_counter()
            sent = await alice.messages.send("latency-bob", "x" * 64)
            await page.locator(f"#flow li[data-message='{sent.message.id}']").first.wait_for(timeout=10_000)
            took.append(time.perf_counter() - started)
            await bob.messages.reply(sent.message.id, "ok")
    finally:
        await page.context.close()
        await alice.close()
        await bob.close()
    return took


async def _cpu_window(
    browser: Any, hub: HubProcess, http_address: str, pairs: list[Any], dashboards: int, seconds: float
) -> tuple[float, int]:
    pages = [await open_dashboard(browser, http_address) for _ in range(dashboards)]
    # Every window starts after the same idle time: opening pages takes seconds, and a window that
    # follows a pause starts with the database's write-ahead log checkpointed (cheaper writes).
    await asyncio.sleep(SETTLE)
    before = process_cpu_ns(hub.pid)
    exchanges = await _load(pairs, seconds)
    cpu = process_cpu_ns(hub.pid) - before
    for page in pages:
        await page.context.close()
    return cpu, exchanges


async def _run(args: argparse.Namespace) -> None:
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's Chromium is needed: scripts/install-test-tools")
    with tempfile.TemporaryDirectory(prefix="kxm-dashboard-") as work:
        hub = HubProcess(
            Path(work) / "hub", durability="normal", extra_args=("--rate-limit", "100000000", "--http-port", "0")
        )
        hub.start()
        try:
            http_address = started_field(hub.log_path, "http_address")
            packed, unpacked = page_weight(http_address)
            print(f"page weight: {packed / 1024:.1f} KiB gzipped ({unpacked / 1024:.1f} KiB unpacked)")
            admin = HubClient(hub.address, token=ADMIN_TOKEN)
            token = str((await admin.admin.create_project("bench")).project_token)
            await admin.close()
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                try:
                    took = await _latency(browser, hub, http_address, token, args.events)
                    print(
                        f"event to page, {len(took)} events: p50 {percentile(took, 50) * 1e3:.0f} ms, "
                        f"p99 {percentile(took, 99) * 1e3:.0f} ms, max {max(took) * 1e3:.0f} ms"
                    )
                    clients = [HubClient(hub.address, token=token) for _ in range(args.agents)]
                    for i, client in enumerate(clients):
                        await client.agents.register(f"agent-{i:03d}")
                    pairs = [(clients[i], clients[i + 1], f"agent-{i + 1:03d}") for i in range(0, args.agents - 1, 2)]
                    ratios = []
                    for rep in range(args.reps):
                        windows = [
                            await _cpu_window(browser, hub, http_address, pairs, n, args.seconds)
                            for n in (0, args.dashboards, args.dashboards, 0)
                        ]
                        alone = (windows[0][0] + windows[3][0]) / max(windows[0][1] + windows[3][1], 1)
                        watched = (windows[1][0] + windows[2][0]) / max(windows[1][1] + windows[2][1], 1)
                        ratios.append(watched / alone)
                        print(
                            f"rep {rep + 1}: {alone * 1e3:.3f} ms CPU per exchange with no page, "
                            f"{watched * 1e3:.3f} ms with {args.dashboards} pages: {watched / alone:.3f} x"
                        )
                    print(
                        f"hub CPU with {args.dashboards} dashboards and {args.agents} agents: "
                        f"{statistics.median(ratios):.3f} x"
                    )
                    for client in clients:
                        with contextlib.suppress(Exception):
                            await client.close()
                finally:
                    await browser.close()
        finally:
            hub.kill()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.dashboard", description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--dashboards", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--reps", type=int, default=3)
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
