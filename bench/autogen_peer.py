"""The AutoGen peer: Microsoft AutoGen's distributed runtime doing the hub's core exchange.

Run in a virtual environment of its own (``bench/autogen.py`` creates it: ``autogen-core`` and
``autogen-ext[grpc]`` 0.7.5 pin grpcio ~1.70, which the hub's environment does not use), with only
the standard library and AutoGen imported:

    python bench/autogen_peer.py host --address-file F
        start ``GrpcWorkerAgentRuntimeHost`` on 127.0.0.1 (a free port), write its address to F,
        serve until SIGTERM.
    python bench/autogen_peer.py drive --address A --host-pid P --pairs N --warmup W --duration D
                                       --reps R --payload S
        for each pair, a worker runtime hosting a peer agent (its own agent type) and a worker
        runtime that sends it a small request with ``send_message`` and awaits the handler's reply;
        N such exchanges back to back in a closed loop; print one JSON line per repetition: rate,
        latencies, and the host process's CPU seconds in the window.

The exchange is the one the hub's core rows measure (a request from one agent to a peer, the
peer's handler answers, the sender has the answer): the host routes the request to the peer's
worker over that worker's bidirectional stream and the response back; nothing is persisted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from autogen_core import AgentId, MessageContext, RoutedAgent, message_handler, try_get_known_serializers_for_type
from autogen_ext.runtimes.grpc import GrpcWorkerAgentRuntime, GrpcWorkerAgentRuntimeHost


@dataclass
class Request:
    content: str


@dataclass
class Reply:
    content: str


class Peer(RoutedAgent):
    """Answers each request with its content."""

    def __init__(self) -> None:
        super().__init__("echo peer")

    @message_handler
    async def on_request(self, message: Request, ctx: MessageContext) -> Reply:
        return Reply(message.content)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def host(address_file: Path) -> None:
    address = f"127.0.0.1:{_free_port()}"
    service = GrpcWorkerAgentRuntimeHost(address=address)
    service.start()
    await asyncio.to_thread(address_file.write_text, address)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await service.stop()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(args: argparse.Namespace) -> None:
    serializers = try_get_known_serializers_for_type(Request) + try_get_known_serializers_for_type(Reply)
    runtimes: list[GrpcWorkerAgentRuntime] = []

    async def runtime() -> GrpcWorkerAgentRuntime:
        worker = GrpcWorkerAgentRuntime(host_address=args.address)
        worker.add_message_serializer(serializers)
        await worker.start()
        runtimes.append(worker)
        return worker

    try:
        peers = []
        for i in range(args.pairs):
            worker = await runtime()
            await Peer.register(worker, f"peer{i}", Peer)
            peers.append(AgentId(f"peer{i}", "default"))
        senders = [await runtime() for _ in range(args.pairs)]
        content = "x" * args.payload
        for i in range(args.pairs):  # every route is open before anything is measured
            await senders[i].send_message(Request(content), peers[i])
        for _ in range(args.reps):
            print(json.dumps(await _closed_loop(args, senders, peers, content)), flush=True)
    finally:
        for worker in runtimes:
            await worker.stop()


async def _closed_loop(
    args: argparse.Namespace, senders: list[GrpcWorkerAgentRuntime], peers: list[AgentId], content: str
) -> dict[str, object]:
    t0 = time.perf_counter() + args.warmup
    t1 = t0 + args.duration
    latencies: list[float] = []

    async def worker(i: int) -> None:
        while True:
            started = time.perf_counter()
            if started >= t1:
                return
            reply = await senders[i].send_message(Request(content), peers[i])
            if reply.content != content:
                raise RuntimeError("the peer answered something else")
            ended = time.perf_counter()
            if t0 <= ended < t1:
                latencies.append(ended - started)

    tasks = [asyncio.create_task(worker(i)) for i in range(args.pairs)]
    await asyncio.sleep(max(0.0, t0 - time.perf_counter()))
    cpu0, own0 = _cpu_seconds(args.host_pid), time.process_time()
    await asyncio.sleep(max(0.0, t1 - time.perf_counter()))
    cpu, own = _cpu_seconds(args.host_pid) - cpu0, time.process_time() - own0
    await asyncio.gather(*tasks)
    return {
        "rate": len(latencies) / args.duration,
        "ops": len(latencies),
        "seconds": args.duration,
        "latencies": latencies,
        "cpu_seconds": cpu,
        "client_cpu_s": own,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    h = sub.add_parser("host")
    h.add_argument("--address-file", type=Path, required=True)
    d = sub.add_parser("drive")
    d.add_argument("--address", required=True)
    d.add_argument("--host-pid", type=int, required=True)
    d.add_argument("--pairs", type=int, required=True)
    d.add_argument("--warmup", type=float, default=1.0)
    d.add_argument("--duration", type=float, default=3.0)
    d.add_argument("--reps", type=int, default=1)
    d.add_argument("--payload", type=int, default=64)
    args = parser.parse_args()
    if args.command == "host":
        asyncio.run(host(args.address_file))
    else:
        asyncio.run(drive(args))


if __name__ == "__main__":
    sys.exit(main())
