"""A client process that opens many idle Subscribe streams and holds them until it is killed (B12).

``python -m tests.reliability.stream_holder SPEC``: SPEC is a JSON file ``{address, channels,
streams_per_agent, agents: [Identity.as_json(), ...]}``. The process opens ``streams_per_agent``
streams for every agent, spread round-robin over ``channels`` channels, waits for each stream's
ready event (the first stream of each agent reads its log from the start, the others resume at
its head, so they replay nothing), prints one JSON line ``{"ready": n, "failed": k, "seconds":
t, "errors": {...}}`` and then holds every stream (reading whatever comes) until it is killed. The battery kills it with
SIGKILL: the hub must notice on its own that every stream's peer is gone.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path

import grpc

from tests.reliability.streams_kit import Identity, subscribe

OPEN_AT_ONCE = 500
"""Streams opened concurrently (a burst of thousands of new calls is B5's storm, not this battery)."""


async def hold(spec: dict) -> None:
    agents = [Identity(**entry) for entry in spec["agents"]]
    channels = [grpc.aio.insecure_channel(spec["address"]) for _ in range(spec["channels"])]
    calls = []
    errors: Counter[str] = Counter()
    gate = asyncio.Semaphore(OPEN_AT_ONCE)
    began = time.monotonic()

    heads: dict[str, int] = {}

    async def open_one(index: int, who: Identity) -> None:
        async with gate:
            # Idle streams resume where the agent's log is (its head, learnt by its first stream):
            # none replays the presence events of the agents registered after it.
            call = subscribe(channels[index % len(channels)], who, after_seq=heads.get(who.agent_id, 0))
            try:
                first = await asyncio.wait_for(call.read(), 60)
            except (grpc.aio.AioRpcError, TimeoutError) as error:
                code = error.code().name if isinstance(error, grpc.aio.AioRpcError) else "TIMEOUT"
                errors[code] += 1
                call.cancel()
                return
            if first is grpc.aio.EOF or not first.HasField("ready"):
                errors["NO_READY"] += 1
                return
            heads.setdefault(who.agent_id, first.ready.head_seq)
            calls.append(call)

    await asyncio.gather(*(open_one(index, who) for index, who in enumerate(agents)))  # one each first
    rest = [who for _ in range(spec["streams_per_agent"] - 1) for who in agents]
    await asyncio.gather(*(open_one(index, who) for index, who in enumerate(rest, start=len(agents))))
    line = {"ready": len(calls), "failed": sum(errors.values()), "seconds": time.monotonic() - began}
    print(json.dumps({**line, "errors": dict(errors)}), flush=True)

    async def drain(call: grpc.aio.UnaryStreamCall) -> None:
        try:
            while await call.read() is not grpc.aio.EOF:
                pass
        except grpc.aio.AioRpcError:
            pass

    await asyncio.gather(*(drain(call) for call in calls))
    await asyncio.Event().wait()  # the battery kills this process


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    asyncio.run(hold(spec))


if __name__ == "__main__":
    main()
