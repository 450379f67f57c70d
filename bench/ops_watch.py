"""The ops watch: how soon a change shows on a watching dashboard, and what watching costs the hub.

    .venv/bin/python -m bench.ops_watch [--events 100] [--agents 100] [--watchers 10] [--seconds 8] [--reps 3]

One hub process (SQLite, durability normal), one project.

* **Latency.** An operator watches the project (``hub.ops.watch``) while an agent sends
  ``--events`` messages, one at a time, each after the previous one showed: the time from the
  send's start to the first update listing the message, p50 and p99. It includes the commit, the
  feed's coalescing wait (``server/ops_watch.COALESCE``), its read and the stream's write.
* **CPU.** ``--agents`` agents in pairs: every 0.5 s each sender sends its partner a message and the
  partner replies (two writes per pair per half second; presence renewed by the calls), for
  ``--seconds``; the hub process's CPU seconds with no watch open, then with ``--watchers`` watches of
  the project (each read to the end, as a page reads it), each rep in the order none, watched,
  watched, none, so a drift linear in time (the database grows) falls on both alike. The figure is
  the median ratio of CPU per exchange. Target (issue 21): ≤ 1.1 × with 10 watches and 100 agents.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import percentile, process_cpu_ns
from bench.hubproc import ADMIN_TOKEN, HubProcess
from kxm_grpc.client import HubClient

PERIOD = 0.5
"""Seconds between two exchanges of one pair of agents."""


async def _latency(hub: HubProcess, token: str, events: int) -> list[float]:
    """Seconds from each send's start until the watch shows the message."""
    alice, bob = HubClient(hub.address, token=token), HubClient(hub.address, token=token)
    await alice.agents.register("latency-alice")
    await bob.agents.register("latency-bob")
    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    watch = admin.ops.watch(project="bench")
    await anext(watch)
    took: list[float] = []
    try:
        for _ in range(events):
            started = time.perf_counter()
            sent = await alice.messages.send("latency-bob", "x" * 64)
            async for update in watch:
                if any(m.id == sent.message.id for m in update.snapshot.open_messages):
                    took.append(time.perf_counter() - started)
                    break
            await bob.messages.reply(sent.message.id, "ok")
    finally:
        await watch.aclose()
        for client in (alice, bob, admin):
            await client.close()
    return took


async def _load(pairs: list[tuple[HubClient, HubClient, str]], seconds: float) -> int:
    """Run every pair's exchanges for ``seconds``; the number of exchanges done."""
    done = 0
    stop = time.monotonic() + seconds

    async def pair(sender: HubClient, receiver: HubClient, target: str, offset: float) -> None:
        nonlocal done
        await asyncio.sleep(offset)
        while time.monotonic() < stop:
            started = time.monotonic()
            sent = await sender.messages.send(target, "x" * 128)
            await receiver.messages.reply(sent.message.id, "ok")
            done += 1
            await asyncio.sleep(max(0.0, PERIOD - (time.monotonic() - started)))

    n = len(pairs)
    await asyncio.gather(*(pair(s, r, t, PERIOD * i / n) for i, (s, r, t) in enumerate(pairs)))
    return done


async def _watched_cpu(
    hub: HubProcess, pairs: list[tuple[HubClient, HubClient, str]], watchers: int, seconds: float
) -> tuple[float, int, int]:
    """Hub CPU seconds over one load window with ``watchers`` watches open; exchanges; updates read."""
    admins = [HubClient(hub.address, token=ADMIN_TOKEN) for _ in range(watchers)]
    updates = 0
    opened = [asyncio.Event() for _ in admins]

    async def read(admin: HubClient, first: asyncio.Event) -> None:
        nonlocal updates
        async for _ in admin.ops.watch(project="bench"):
            updates += 1
            first.set()

    readers = [asyncio.create_task(read(admin, first)) for admin, first in zip(admins, opened, strict=True)]
    for first in opened:  # every watch open and sent its first view before measuring
        await first.wait()
    before = process_cpu_ns(hub.pid)
    exchanges = await _load(pairs, seconds)
    cpu = process_cpu_ns(hub.pid) - before
    for reader in readers:
        reader.cancel()
    for reader in readers:
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    for admin in admins:
        await admin.close()
    return cpu, exchanges, updates - watchers


async def _run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="kxm-ops-watch-") as work:
        # Durability normal: an fsync per commit adds kernel time that varies more than what is measured.
        hub = HubProcess(Path(work) / "hub", durability="normal", extra_args=("--rate-limit", "100000000"))
        hub.start()
        try:
            admin = HubClient(hub.address, token=ADMIN_TOKEN)
            token = str((await admin.admin.create_project("bench")).project_token)
            await admin.close()

            took = await _latency(hub, token, args.events)
            print(
                f"event to watch, {len(took)} events: p50 {percentile(took, 50) * 1e3:.1f} ms, "
                f"p99 {percentile(took, 99) * 1e3:.1f} ms, max {max(took) * 1e3:.1f} ms"
            )

            clients = [HubClient(hub.address, token=token) for _ in range(args.agents)]
            for i, client in enumerate(clients):
                await client.agents.register(f"agent-{i:03d}")
            pairs = [(clients[i], clients[i + 1], f"agent-{i + 1:03d}") for i in range(0, args.agents - 1, 2)]
            ratios = []
            for rep in range(args.reps):
                # A B B A: the database grows through the run, and a drift that is linear in time
                # falls on both alike.
                first_alone = await _watched_cpu(hub, pairs, 0, args.seconds)
                first_watched = await _watched_cpu(hub, pairs, args.watchers, args.seconds)
                second_watched = await _watched_cpu(hub, pairs, args.watchers, args.seconds)
                second_alone = await _watched_cpu(hub, pairs, 0, args.seconds)
                alone, done_alone = first_alone[0] + second_alone[0], first_alone[1] + second_alone[1]
                watched = first_watched[0] + second_watched[0]
                done_watched = first_watched[1] + second_watched[1]
                updates = first_watched[2] + second_watched[2]
                ratio = (watched / max(done_watched, 1)) / (alone / max(done_alone, 1))
                ratios.append(ratio)
                print(
                    f"rep {rep + 1}: no watch {alone:.2f} s CPU for {done_alone} exchanges; "
                    f"{args.watchers} watches {watched:.2f} s for {done_watched} ({updates} updates read): "
                    f"{ratio:.3f} x per exchange"
                )
            print(f"hub CPU with {args.watchers} watches and {args.agents} agents: {statistics.median(ratios):.3f} x")
            for client in clients:
                await client.close()
        finally:
            hub.kill()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ops_watch", description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--reps", type=int, default=3)
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
