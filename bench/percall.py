"""Server CPU per call of single hub RPCs, beside a raw echo: where a round trip's CPU goes, RPC by RPC.

    .venv/bin/python -m bench.percall [--calls 2000] [--inflight 8] [--reps 3] [--durability full]

Each RPC is called ``--calls`` times (``--reps`` times over; the median is reported) with
``--inflight`` calls outstanding, through ``HubClient``, against a hub in its own process; the
figure is that process's CPU (utime + stime) over the calls divided by their number. The echo row
is a raw grpc.aio echo server driven the same way, so "hub work" = RPC − echo is what the hub adds
to gRPC for that call. Not part of ``python -m bench``
(it answers "which call costs what", not "how close to the ceiling").
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from bench._gen.kxm.bench.v1 import bench_pb2, bench_pb2_grpc
from bench.common import ServerProcess, channel, process_cpu
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

        before = process_cpu(pid)
        shared = iter(range(base, base + calls))  # the workers take indexes from one iterator
        await asyncio.gather(*(worker(shared) for _ in range(inflight)))
        results.append((process_cpu(pid) - before) / calls * 1e6)
    return statistics.median(results)


async def _hub_rows(hub: HubProcess, calls: int, inflight: int, reps: int) -> list[tuple[str, float]]:
    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    project = await admin.admin.create_project("percall")
    token = str(project.project_token)
    alice = HubClient(hub.address, token=token, channel=channel(hub.address))
    bob = HubClient(hub.address, token=token, channel=channel(hub.address))
    await alice.agents.register("alice")
    await bob.agents.register("bob")
    needed = reps * (calls + calls // 10)
    sent = [str((await alice.messages.send("bob", "x" * 128)).message.id) for _ in range(needed)]
    replied = [str((await alice.messages.send("bob", "x" * 128)).message.id) for _ in range(needed)]
    for message_id in replied:
        await bob.messages.reply(message_id, "y" * 128)
    pid = hub.pid

    async def measure(call: Call) -> float:
        return await _measure(pid, calls, inflight, reps, call)

    rows = [
        ("ListAgents", await measure(lambda i: alice.agents.list())),
        ("GetMessage", await measure(lambda i: alice.messages.get(sent[i]))),
        ("WaitMessage (already replied)", await measure(lambda i: alice.messages.wait(replied[i], wait=5))),
        ("SendMessage", await measure(lambda i: alice.messages.send("bob", "x" * 128))),
        ("ReplyToMessage", await measure(lambda i: bob.messages.reply(sent[i], "y" * 128))),
    ]
    for client in (admin, alice, bob):
        await client.close()
    return rows


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


async def _main(args: argparse.Namespace) -> None:
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
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
