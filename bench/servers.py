"""The ceiling servers, each run as its own process so that its CPU and memory are attributable.

    python -m bench.servers raw --address-file F
        EchoService, PushService and an in-memory BrokerService on one grpc.aio server.
    python -m bench.servers broker-sqlite --address-file F --database DB --synchronous FULL
        The same broker, committing every state change (queued, delivered, replied) to SQLite (WAL).

The broker is deliberately minimal: no authentication, no validation, no retention; it is the
smallest server that has the hub's core-loop RPC pattern.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import signal
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from bench._gen.kxm.bench.v1 import bench_pb2, bench_pb2_grpc

SERVER_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.so_reuseport", 0),
    ("grpc.server.max_pending_requests", 20_000),
    ("grpc.server.max_pending_requests_hard_limit", 30_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
]

Context = grpc.aio.ServicerContext[Any, Any]


class Echo(bench_pb2_grpc.EchoServiceServicer):
    async def Echo(self, request: bench_pb2.EchoRequest, context: Context) -> bench_pb2.EchoResponse:
        return bench_pb2.EchoResponse(payload=request.payload)


class Push(bench_pb2_grpc.PushServiceServicer):
    async def Subscribe(self, request: bench_pb2.PushRequest, context: Context) -> AsyncIterator[bench_pb2.PushEvent]:
        payload = b"x" * request.payload_size
        yield bench_pb2.PushEvent(seq=0)
        for seq in range(1, request.count + 1):
            yield bench_pb2.PushEvent(seq=seq, payload=payload)
        if request.hold:
            # An idle stream: stays open until the client cancels it.
            await asyncio.Event().wait()

    async def Channel(self, request_iterator: AsyncIterator[bench_pb2.PushRequest], context: Context) -> None:  # type: ignore[override]  # a coroutine writing with context.write
        await context.write(bench_pb2.PushEvent(seq=0))
        async for _ in request_iterator:
            pass  # an idle channel: it waits for the client's next request, as the hub's does


@dataclass
class _Message:
    sender: str
    target: str
    content: str
    reply: str | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Broker(bench_pb2_grpc.BrokerServiceServicer):
    """Send -> event on the target's stream -> Reply -> Wait, in memory (optionally committing to SQLite)."""

    def __init__(self, db: sqlite3.Connection | None = None) -> None:
        self.db = db
        self.messages: dict[str, _Message] = {}
        self.inboxes: dict[str, asyncio.Queue[bench_pb2.BrokerEvent]] = {}
        self.seqs: dict[str, int] = {}
        self.ids = itertools.count(1)

    def _inbox(self, agent: str) -> asyncio.Queue[bench_pb2.BrokerEvent]:
        inbox = self.inboxes.get(agent)
        if inbox is None:
            inbox = self.inboxes[agent] = asyncio.Queue()
        return inbox

    def _commit(self, sql: str, params: tuple[Any, ...]) -> None:
        if self.db is not None:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(sql, params)
            self.db.execute("COMMIT")

    async def Send(self, request: bench_pb2.SendRequest, context: Context) -> bench_pb2.SendResponse:
        message_id = f"m{next(self.ids)}"
        self._commit(
            "INSERT INTO messages (id, sender, target, content, state) VALUES (?, ?, ?, ?, 'queued')",
            (message_id, request.sender, request.target, request.content),
        )
        self.messages[message_id] = _Message(request.sender, request.target, request.content)
        seq = self.seqs[request.target] = self.seqs.get(request.target, 0) + 1
        self._inbox(request.target).put_nowait(
            bench_pb2.BrokerEvent(seq=seq, message_id=message_id, sender=request.sender, content=request.content)
        )
        return bench_pb2.SendResponse(message_id=message_id)

    async def Subscribe(
        self, request: bench_pb2.SubscribeRequest, context: Context
    ) -> AsyncIterator[bench_pb2.BrokerEvent]:
        inbox = self._inbox(request.agent)
        yield bench_pb2.BrokerEvent(seq=0)
        while True:
            event = await inbox.get()
            self._commit("UPDATE messages SET state = 'delivered' WHERE id = ?", (event.message_id,))
            yield event

    async def Reply(self, request: bench_pb2.ReplyRequest, context: Context) -> bench_pb2.ReplyResponse:
        message = self.messages.get(request.message_id)
        if message is None or message.reply is not None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "no such open message")
            raise AssertionError("unreachable")
        self._commit(
            "UPDATE messages SET state = 'replied', reply = ? WHERE id = ?", (request.content, request.message_id)
        )
        message.reply = request.content
        message.done.set()
        return bench_pb2.ReplyResponse()

    async def Wait(self, request: bench_pb2.WaitRequest, context: Context) -> bench_pb2.WaitResponse:
        message = self.messages.get(request.message_id)
        if message is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, "no such message")
            raise AssertionError("unreachable")
        if message.reply is None:
            try:
                await asyncio.wait_for(message.done.wait(), request.timeout or 60.0)
            except TimeoutError:
                return bench_pb2.WaitResponse(terminal=False)
        self.messages.pop(request.message_id, None)
        return bench_pb2.WaitResponse(terminal=True, reply=message.reply or "")


def open_database(path: str, synchronous: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(f"PRAGMA synchronous = {synchronous}")
    db.execute(
        "CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, sender TEXT NOT NULL, target TEXT NOT NULL, "
        "content TEXT NOT NULL, state TEXT NOT NULL, reply TEXT)"
    )
    return db


async def serve(kind: str, address_file: Path, database: str, synchronous: str) -> None:
    server = grpc.aio.server(options=SERVER_OPTIONS)
    if kind == "raw":
        bench_pb2_grpc.add_EchoServiceServicer_to_server(Echo(), server)
        bench_pb2_grpc.add_PushServiceServicer_to_server(Push(), server)
        bench_pb2_grpc.add_BrokerServiceServicer_to_server(Broker(), server)
    elif kind == "broker-sqlite":
        bench_pb2_grpc.add_BrokerServiceServicer_to_server(Broker(open_database(database, synchronous)), server)
    else:
        raise SystemExit(f"unknown server kind {kind!r}")
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    tmp = address_file.with_suffix(".tmp")
    tmp.write_text(f"127.0.0.1:{port}\n")
    tmp.replace(address_file)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.servers")
    parser.add_argument("kind", choices=["raw", "broker-sqlite"])
    parser.add_argument("--address-file", required=True, type=Path)
    parser.add_argument("--database", default=":memory:")
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    args = parser.parse_args()
    asyncio.run(serve(args.kind, args.address_file, args.database, args.synchronous))


if __name__ == "__main__":
    main()
