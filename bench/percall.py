"""Server CPU per call of single hub RPCs, beside a raw echo: where a round trip's CPU goes, RPC by RPC.

    .venv/bin/python -m bench.percall [--calls 2000] [--inflight 8] [--reps 3] [--durability full]
                                       [--metrics | --tracing] [--pairs 3]

Each RPC is called ``--calls`` times (``--reps`` times over; the median is reported) with
``--inflight`` calls outstanding, through ``HubClient``, against a hub in its own process; the
figure is that process's CPU (its threads' scheduler time, in nanoseconds: ``process_cpu_ns``) over
the calls divided by their number. The echo row
is a raw grpc.aio echo server driven the same way, so "hub work" = RPC − echo is what the hub adds
to gRPC for that call. Not part of ``python -m bench``
(it answers "which call costs what", not "how close to the ceiling").

With ``--metrics`` it compares, RPC by RPC, a hub without a metrics endpoint (which records no
per-call metrics) and one serving them, measured alternately: the per-call cost of the metrics;
``--tracing`` likewise a hub without tracing and one with ``--tracing otlp``. Each comparison runs
on ``--pairs`` pairs of fresh hub processes, and reports the median over pairs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from bench._gen.kxm.bench.v1 import bench_pb2, bench_pb2_grpc
from bench.common import ServerProcess, channel, process_cpu_ns
from bench.hubproc import ADMIN_TOKEN, HubProcess
from kxm_grpc.client import HubClient

Call = Callable[[int], Awaitable[object]]


async def _measure(pid: int, calls: int, inflight: int, reps: int, call: Call) -> float:
    """Median over ``reps`` of the server CPU µs per call of ``calls`` calls, each rep after a warm-up.

    ``call`` gets a distinct index per call (``reps * (calls + calls // 10)`` in all), so calls that
    consume a message (a reply) never reuse one.
    """
    results = []
    step = calls + calls // 10
    for rep in range(reps):
        base = rep * step
        for i in range(base + calls, base + step):  # warm-up, on indexes the measured calls do not use
            await call(i)

        async def worker(queue: Iterator[int]) -> None:
            for i in queue:
                await call(i)

        before = process_cpu_ns(pid)
        shared = iter(range(base, base + calls))  # the workers take indexes from one iterator
        await asyncio.gather(*(worker(shared) for _ in range(inflight)))
        results.append((process_cpu_ns(pid) - before) / calls * 1e6)
    return statistics.median(results)


async def _hub_rows(hub: HubProcess, calls: int, inflight: int, reps: int) -> list[tuple[str, float]]:
    calls_of, clients = await _hub_calls(hub, reps * (calls + calls // 10))
    rows = [(name, await _measure(hub.pid, calls, inflight, reps, call)) for name, call in calls_of]
    for client in clients:
        await client.close()
    return rows


async def _hub_calls(hub: HubProcess, needed: int) -> tuple[list[tuple[str, Call]], list[HubClient]]:
    """The measured RPCs of ``hub`` (each good for ``needed`` distinct indexes), and the clients to close."""
    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    project = await admin.admin.create_project("percall")
    token = str(project.project_token)
    alice = HubClient(hub.address, token=token, channel=channel(hub.address))
    bob = HubClient(hub.address, token=token, channel=channel(hub.address))
    await alice.agents.register("alice")
    await bob.agents.register("bob")
    sent = [str((await alice.messages.send("bob", "x" * 128)).message.id) for _ in range(needed)]
    replied = [str((await alice.messages.send("bob", "x" * 128)).message.id) for _ in range(needed)]
    for message_id in replied:
        await bob.messages.reply(message_id, "y" * 128)
    calls_of: list[tuple[str, Call]] = [
        ("ListAgents", lambda i: alice.agents.list()),
        ("GetMessage", lambda i: alice.messages.get(sent[i])),
        ("WaitMessage (already replied)", lambda i: alice.messages.wait(replied[i], wait=5)),
        ("SendMessage", lambda i: alice.messages.send("bob", "x" * 128)),
        ("ReplyToMessage", lambda i: bob.messages.reply(sent[i], "y" * 128)),
    ]
    return calls_of, [admin, alice, bob]


async def _compared_rows(
    off: HubProcess, on: HubProcess, calls: int, inflight: int, reps: int
) -> list[tuple[str, float, float]]:
    """Per RPC: server CPU µs per call of a hub without metrics and of one serving them, measured
    alternately (off, on, off, on, ...: drift of the machine falls on both alike), medians of ``reps``."""
    needed = reps * (calls + calls // 10)
    off_calls, off_clients = await _hub_calls(off, needed)
    on_calls, on_clients = await _hub_calls(on, needed)
    rows = []
    for (name, off_call), (_, on_call) in zip(off_calls, on_calls, strict=True):
        off_costs, on_costs = [], []
        for rep in range(reps):
            # One rep each at a time, on index ranges of their own (a rep's indexes are consumed).
            off_costs.append(await _measure_rep(off.pid, calls, inflight, rep, off_call))
            on_costs.append(await _measure_rep(on.pid, calls, inflight, rep, on_call))
        rows.append((name, statistics.median(off_costs), statistics.median(on_costs)))
    for client in (*off_clients, *on_clients):
        await client.close()
    return rows


async def _measure_rep(pid: int, calls: int, inflight: int, rep: int, call: Call) -> float:
    """One rep of ``_measure``: a warm-up, then ``calls`` calls on the index range of rep ``rep``."""
    step = calls + calls // 10
    base = rep * step
    for i in range(base + calls, base + step):
        await call(i)

    async def worker(queue: Iterator[int]) -> None:
        for i in queue:
            await call(i)

    before = process_cpu_ns(pid)
    shared = iter(range(base, base + calls))
    await asyncio.gather(*(worker(shared) for _ in range(inflight)))
    return (process_cpu_ns(pid) - before) / calls * 1e6


async def _echo_row(work: Path, calls: int, inflight: int, reps: int) -> tuple[str, float]:
    server = ServerProcess("raw", work)
    server.start()
    try:
        ch = channel(server.address)
        stub = bench_pb2_grpc.EchoServiceStub(ch)
        request = bench_pb2.EchoRequest(payload=b"x" * 128)
        cost = await _measure(server.pid, calls, inflight, reps, lambda i: stub.Echo(request))
        await ch.close()
        return ("raw echo", cost)
    finally:
        server.stop()


_COMPARED = {
    "metrics": ("--metrics-port", "0"),
    # No collector listens: the exporter's batches fail in its own thread; each call's span is made
    # and ended as with a collector (what a call costs the hub).
    "tracing": ("--tracing", "otlp"),
}


async def _compare_main(args: argparse.Namespace, feature: str) -> None:
    pairs: list[list[tuple[str, float, float]]] = []
    with tempfile.TemporaryDirectory(prefix="kxm-percall-") as work:
        common = ("--rate-limit", "100000000", "--stale-after", "3600")
        for pair in range(args.pairs):
            # Fresh processes per pair: a process's own layout (hash seed, addresses, its files)
            # moves its figures by several per cent for as long as it lives, which alternating reps
            # inside one pair cannot cancel; the median over pairs does.
            off = HubProcess(Path(work) / f"off-{pair}", durability=args.durability, extra_args=common)
            on = HubProcess(
                Path(work) / f"on-{pair}", durability=args.durability, extra_args=(*common, *_COMPARED[feature])
            )
            first, second = (off, on) if pair % 2 == 0 else (on, off)
            first.start()
            second.start()
            try:
                pairs.append(await _compared_rows(off, on, args.calls, args.inflight, args.reps))
            finally:
                off.kill()
                on.kill()
    print(
        f"server CPU per call, {args.pairs} pairs of fresh hub processes (median of {args.reps} alternating reps"
        f" each), {args.calls} calls, {args.inflight} in flight, durability {args.durability}: {feature} off and on"
        f" ({' '.join(_COMPARED[feature])}); cost = the median over pairs of on ÷ off − 1"
    )
    print(f"{'call':32} {'off µs':>8} {'on µs':>8} {'cost':>7}   per pair")
    for index, name in enumerate(name for name, _, _ in pairs[0]):
        offs = [rows[index][1] for rows in pairs]
        ons = [rows[index][2] for rows in pairs]
        costs = [on_cost / off_cost - 1 for off_cost, on_cost in zip(offs, ons, strict=True)]
        each = " ".join(f"{cost:+.1%}" for cost in costs)
        print(
            f"{name:32} {statistics.median(offs):8.1f} {statistics.median(ons):8.1f} "
            f"{statistics.median(costs):+7.1%}   {each}"
        )
    totals = [sum(on for _, _, on in rows) / sum(off for _, off, _ in rows) - 1 for rows in pairs]
    each = " ".join(f"{cost:+.1%}" for cost in totals)
    print(f"{'all five calls, summed':32} {'':>8} {'':>8} {statistics.median(totals):+7.1%}   {each}")


async def _main(args: argparse.Namespace) -> None:
    if args.metrics or args.tracing:
        await _compare_main(args, "metrics" if args.metrics else "tracing")
        return
    with tempfile.TemporaryDirectory(prefix="kxm-percall-") as work:
        # bob makes no calls while alice's rows run: without a long presence window he would go stale.
        hub = HubProcess(
            Path(work) / "hub",
            durability=args.durability,
            extra_args=("--rate-limit", "100000000", "--stale-after", "3600"),
        )
        hub.start()
        try:
            rows = await _hub_rows(hub, args.calls, args.inflight, args.reps)
        finally:
            hub.kill()
        echo = await _echo_row(Path(work), args.calls, args.inflight, args.reps)
    print(
        f"server CPU per call (median of {args.reps}), {args.calls} calls, {args.inflight} in flight, "
        f"durability {args.durability}"
    )
    print(f"{'call':32} {'µs/call':>9} {'hub work':>9}")
    print(f"{echo[0]:32} {echo[1]:9.0f} {'':>9}")
    for name, cost in rows:
        print(f"{name:32} {cost:9.0f} {cost - echo[1]:9.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.percall", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--inflight", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--durability", choices=["full", "normal"], default="full")
    parser.add_argument(
        "--metrics", action="store_true", help="compare a hub without metrics and one serving them, call by call"
    )
    parser.add_argument("--tracing", action="store_true", help="compare a hub without tracing and one tracing (otlp)")
    parser.add_argument("--pairs", type=int, default=3, help="--metrics/--tracing: pairs of fresh hub processes")
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    asyncio.run(_main(args))


if __name__ == "__main__":
    main()
