"""Server CPU per call of the same RPCs through each surface: gRPC, the HTTP port, MCP.

    .venv/bin/python -m bench.surfaces [--calls 2000] [--inflight 8] [--reps 3] [--no-mcp]

One hub process with its HTTP port on; each RPC (a read, GetMessage; a durable write,
SendMessage) is called ``--calls`` times with ``--inflight`` calls outstanding through
``HubClient`` (gRPC), through the HTTP port as Connect JSON, Connect binary and gRPC-Web (one
kept-alive connection per caller, as a browser or an HTTP client library keeps them), and as the
MCP tool, over stdio (``kxm mcp``) and over the hub's own ``/mcp``, driven by the ``mcp`` client.
The surfaces are measured in turn, rep by rep, so drift of the machine falls on all alike; each
figure is the median over ``--reps`` of the hub process's CPU over the calls divided by their
number. For MCP over stdio the adapter's own process is counted too (hub + adapter), since it is
work the hub's operator pays for per call.
Targets (issue 19): the HTTP port ≤ 1.5 × gRPC; MCP ≤ 2 × gRPC.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import struct
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from bench.common import REPO, process_cpu_ns
from bench.hubproc import ADMIN_TOKEN, HubProcess, started_field
from kxm_grpc.client import HubClient
from kxm_grpc.v1 import message_service_pb2

Call = Callable[[int], Awaitable[object]]
FRAME = struct.Struct(">BI")


class _HttpCaller:
    """One kept-alive HTTP/1.1 connection to the HTTP port, posting one request at a time."""

    def __init__(self, address: str, headers: tuple[tuple[str, str], ...]) -> None:
        self._host, port = address.rsplit(":", 1)
        self._port = int(port)
        self._headers = "".join(f"{name}: {value}\r\n" for name, value in headers)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes, content_type: str) -> bytes:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
        head = f"POST {path} HTTP/1.1\r\nHost: h\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        self._writer.write((head + self._headers + "\r\n").encode("latin-1") + body)
        answer = await self._reader.readuntil(b"\r\n\r\n")
        status = int(answer[9:12])
        length = int(answer.lower().split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0])
        data = await self._reader.readexactly(length)
        if status != 200:
            raise RuntimeError(f"{path}: HTTP {status}: {data[:200]!r}")
        return data

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


def _children_of(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return children


async def _measure(pids: list[int], calls: int, inflight: int, rep: int, call: Call) -> float:
    """Server CPU µs per call of ``calls`` calls on rep ``rep``'s own index range, after a warm-up."""
    step = calls + calls // 10
    base = rep * step
    for i in range(base + calls, base + step):
        await call(i)
    shared = iter(range(base, base + calls))

    async def worker(queue: Iterator[int]) -> None:
        for i in queue:
            await call(i)

    before = sum(process_cpu_ns(pid) for pid in pids)
    await asyncio.gather(*(worker(shared) for _ in range(inflight)))
    return (sum(process_cpu_ns(pid) for pid in pids) - before) / calls * 1e6


async def _run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="kxm-surfaces-") as work:
        hub = HubProcess(
            Path(work) / "hub",
            extra_args=("--rate-limit", "100000000", "--stale-after", "3600", "--http-port", "0"),
        )
        hub.start()
        try:
            await _measured(hub, started_field(hub.log_path, "http_address"), Path(work), args)
        finally:
            hub.kill()


async def _measured(hub: HubProcess, http_address: str, work: Path, args: argparse.Namespace) -> None:
    needed = args.reps * (args.calls + args.calls // 10)
    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    token = str((await admin.admin.create_project("surfaces")).project_token)
    alice, bob = HubClient(hub.address, token=token), HubClient(hub.address, token=token)
    await alice.agents.register("alice")
    await bob.agents.register("bob")
    sent = [str((await alice.messages.send("bob", "x" * 128)).message.id) for _ in range(needed)]
    callers = [_HttpCaller(http_address, alice.metadata) for _ in range(args.inflight)]
    free: asyncio.Queue[_HttpCaller] = asyncio.Queue()
    for caller in callers:
        free.put_nowait(caller)

    async def http(path: str, body: bytes, content_type: str) -> bytes:
        caller = await free.get()
        try:
            return await caller.post(path, body, content_type)
        finally:
            free.put_nowait(caller)

    get_path, send_path = "/kxm.v1.MessageService/GetMessage", "/kxm.v1.MessageService/SendMessage"
    send_json = json.dumps({"target": "bob", "content": "x" * 128}).encode()
    send_proto = message_service_pb2.SendMessageRequest(target="bob", content="x" * 128).SerializeToString()

    def framed(data: bytes) -> bytes:
        return FRAME.pack(0, len(data)) + data

    surfaces: dict[str, dict[str, Call]] = {
        "gRPC": {
            "GetMessage": lambda i: alice.messages.get(sent[i]),
            "SendMessage": lambda i: alice.messages.send("bob", "x" * 128),
        },
        "HTTP Connect JSON": {
            "GetMessage": lambda i: http(get_path, b'{"messageId":"%s"}' % sent[i].encode(), "application/json"),
            "SendMessage": lambda i: http(send_path, send_json, "application/json"),
        },
        "HTTP Connect binary": {
            "GetMessage": lambda i: http(
                get_path,
                message_service_pb2.GetMessageRequest(message_id=sent[i]).SerializeToString(),
                "application/proto",
            ),
            "SendMessage": lambda i: http(send_path, send_proto, "application/proto"),
        },
        "HTTP gRPC-Web": {
            "GetMessage": lambda i: http(
                get_path,
                framed(message_service_pb2.GetMessageRequest(message_id=sent[i]).SerializeToString()),
                "application/grpc-web+proto",
            ),
            "SendMessage": lambda i: http(send_path, framed(send_proto), "application/grpc-web+proto"),
        },
    }
    async with AsyncExitStack() as stack:
        pids: dict[str, list[int]] = {name: [hub.pid] for name in surfaces}
        if not args.no_mcp:
            # The adapter acts as an agent of its own (carol), with messages of its own to read.
            mcp_tools = await _mcp_session(stack, hub.address, token, work)
            to_carol = [str((await alice.messages.send("carol", "x" * 128)).message.id) for _ in range(needed)]
            surfaces["MCP (stdio; hub + adapter)"] = {
                "GetMessage": lambda i: mcp_tools("kxm_get_message", {"messageId": to_carol[i]}),
                "SendMessage": lambda i: mcp_tools("kxm_send", {"target": "bob", "content": "x" * 128}),
            }
            adapters = [pid for pid in _children_of(os.getpid()) if pid != hub.pid]
            pids["MCP (stdio; hub + adapter)"] = [hub.pid, *adapters]
            # The hub's own /mcp, as dave (an agent of its own, with messages of its own to read).
            dave = HubClient(hub.address, token=token)
            stack.push_async_callback(dave.close)
            await dave.agents.register("dave")
            to_dave = [str((await alice.messages.send("dave", "x" * 128)).message.id) for _ in range(needed)]
            http_tools = await _mcp_http_session(stack, f"http://{http_address}/mcp", dict(dave.metadata))
            surfaces["MCP over HTTP (hub)"] = {
                "GetMessage": lambda i: http_tools("kxm_get_message", {"messageId": to_dave[i]}),
                "SendMessage": lambda i: http_tools("kxm_send", {"target": "bob", "content": "x" * 128}),
            }
            pids["MCP over HTTP (hub)"] = [hub.pid]
        figures: dict[tuple[str, str], list[float]] = {}
        for rep in range(args.reps):
            for surface, calls in surfaces.items():
                for rpc, call in calls.items():
                    cost = await _measure(pids[surface], args.calls, args.inflight, rep, call)
                    figures.setdefault((surface, rpc), []).append(cost)
    for caller in callers:
        await caller.close()
    for client in (admin, alice, bob):
        await client.close()
    print(
        f"server CPU per call (median of {args.reps} reps, surfaces in turn), {args.calls} calls,"
        f" {args.inflight} in flight, durability full"
    )
    print(f"{'surface':30} {'RPC':12} {'µs/call':>9} {'× gRPC':>7}")
    for (surface, rpc), costs in figures.items():
        cost = statistics.median(costs)
        base = statistics.median(figures[("gRPC", rpc)])
        print(f"{surface:30} {rpc:12} {cost:9.0f} {cost / base:7.2f}")


async def _mcp_session(stack: AsyncExitStack, address: str, token: str, work: Path) -> Callable[..., Awaitable[Any]]:
    """An MCP client of ``kxm mcp --as carol``; its call_tool, raising on a tool error."""
    from mcp import Client, StdioServerParameters

    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "KXM_ADDR": address,
        "KXM_TOKEN": token,
        "KXM_DATA_DIR": str(work / "mcp-state"),
        "GRPC_VERBOSITY": "ERROR",
    }
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kxm_grpc.cli", "mcp", "--as", "carol", "--register", "--no-announce"],
        env=env,
    )
    client = await stack.enter_async_context(Client(server))

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        result = await client.call_tool(name, arguments)
        if result.is_error:
            raise RuntimeError(f"{name}: {result.structured_content}")
        return result

    return call


async def _mcp_http_session(stack: AsyncExitStack, url: str, headers: dict[str, str]) -> Callable[..., Awaitable[Any]]:
    """An MCP client of the hub's own ``/mcp`` sending ``headers``; its call_tool, raising on a tool error."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
    client = await stack.enter_async_context(Client(streamable_http_client(url, http_client=http)))

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        result = await client.call_tool(name, arguments)
        if result.is_error:
            raise RuntimeError(f"{name}: {result.structured_content}")
        return result

    return call


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.surfaces", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--inflight", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--no-mcp", action="store_true", help="leave the MCP rows out")
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
