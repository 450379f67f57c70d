"""B15: keepalive abuse and the connection lifecycle (reliability.md §4.7, §5.2; gRFC A8, A9).

Three hub subprocesses, each looked at from outside:

- **B15-pings**: with the production ping policy (a ping at most every 10 s without calls, two
  strikes), a client that pings every second and makes no call gets GOAWAY ENHANCE_YOUR_CALM
  ``too_many_pings`` within ``max_ping_strikes + 1`` pings after its first (counted exactly by a
  raw HTTP/2 client that sends nothing but PING frames); a gRPC channel with the same aggressive
  keepalive sees its open stream end UNAVAILABLE ("too many pings").
- **B15-idle**: with ``--max-connection-idle 2``, 500 connections that make no call (half gRPC
  channels that only connected, half raw HTTP/2 connections that never close by themselves) are
  closed by the hub (its open sockets, ``/proc/<pid>/fd``, back to their level before), while a
  connection with a stream open stays; an idled gRPC channel makes its next call as if nothing
  happened.
- **B15-stopped**: with keepalive shortened for the test (``--testing-keepalive-time 1``,
  ``--testing-keepalive-timeout 1``), a client process holding streams is SIGSTOPped: the hub
  reaps its streams (``kxm_open_streams``) within keepalive time + timeout + 5 s, while a live
  client's streams stay open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc.client import HubClient
from tests.reliability.battery import Battery
from tests.reliability.hubs import ADMIN_TOKEN, CrashHub
from tests.reliability.probes import baseline, metrics_address, open_sockets, scrape, spread, wait_for

pytestmark = pytest.mark.timeout(300)

MAX_PING_STRIKES = 2
"""The hub's ``grpc.http2.max_ping_strikes`` (kxm_grpc/server/app.py)."""
ENHANCE_YOUR_CALM = 0xB
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS, PING, GOAWAY = 0x4, 0x6, 0x7
ACK = 0x1


def frame(kind: int, flags: int = 0, payload: bytes = b"", stream: int = 0) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


@dataclass
class RawH2:
    """An HTTP/2 connection that only speaks the connection-level frames: it answers SETTINGS and
    PING, records GOAWAY, never opens a stream, and never closes by itself."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    goaway: asyncio.Future[tuple[int, bytes]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    closed: asyncio.Future[float] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    pings_sent: int = 0
    accepted: bool = False
    """The hub's SETTINGS arrived: it accepted the connection as HTTP/2."""
    task: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, address: str) -> RawH2:
        host, port = address.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        connection = cls(reader, writer)
        writer.write(PREFACE + frame(SETTINGS))
        await writer.drain()
        connection.task = asyncio.create_task(connection._read())
        return connection

    async def _read(self) -> None:
        try:
            while True:
                head = await self.reader.readexactly(9)
                length, kind, flags = int.from_bytes(head[:3], "big"), head[3], head[4]
                payload = await self.reader.readexactly(length)
                if kind == SETTINGS and not flags & ACK:
                    self.accepted = True
                    self.writer.write(frame(SETTINGS, ACK))
                elif kind == PING and not flags & ACK:
                    self.writer.write(frame(PING, ACK, payload))
                elif kind == GOAWAY and not self.goaway.done():
                    _, code = struct.unpack(">II", payload[:8])
                    self.goaway.set_result((code, payload[8:]))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            if not self.closed.done():
                self.closed.set_result(time.monotonic())

    async def ping(self) -> None:
        self.pings_sent += 1
        self.writer.write(frame(PING, 0, self.pings_sent.to_bytes(8, "big")))
        await self.writer.drain()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError):
            await self.writer.wait_closed()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


async def project_agents(address: str, count: int) -> tuple[str, list[HubClient]]:
    """A project and ``count`` registered agents (clients)."""
    async with HubClient(address, token=ADMIN_TOKEN) as admin:
        token = (await admin.admin.create_project("keepalive")).project_token
    clients = []
    for index in range(count):
        client = HubClient(address, token=token)
        await client.agents.register(f"agent{index}")
        clients.append(client)
    return token, clients


# -- too many pings --------------------------------------------------------------------------------

AGGRESSIVE = [
    ("grpc.keepalive_time_ms", 1_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.use_local_subchannel_pool", 1),
]
"""A channel that pings every second, calls or not (ten times what the hub permits)."""


async def abuse(address: str, interval: float, most: int) -> tuple[int, int, bytes, float]:
    """Ping every ``interval`` s on a connection without calls until GOAWAY (at most ``most`` pings).

    Returns the pings sent, the GOAWAY's error code and debug data, and the seconds it took.
    """
    connection = await RawH2.open(address)
    started = time.monotonic()
    try:
        for _ in range(most):
            await connection.ping()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(connection.goaway), interval)
                break
        if not connection.goaway.done():
            return connection.pings_sent, -1, b"", time.monotonic() - started
        code, debug = connection.goaway.result()
        return connection.pings_sent, code, debug, time.monotonic() - started
    finally:
        await connection.close()


async def aggressive_stream(address: str, metadata: tuple[tuple[str, str], ...]) -> tuple[str, str, float]:
    """A gRPC channel pinging every second with a Subscribe open: how the stream ends."""
    channel = grpc.aio.insecure_channel(address, options=AGGRESSIVE)
    started = time.monotonic()
    try:
        call = channel.unary_stream(
            "/kxm.v1.MessageService/Subscribe",
            request_serializer=pb.SubscribeRequest.SerializeToString,
            response_deserializer=pb.SubscribeResponse.FromString,
        )(pb.SubscribeRequest(), metadata=metadata, timeout=30)
        try:
            async for _ in call:
                pass
        except grpc.aio.AioRpcError as error:
            return error.code().name, error.details() or "", time.monotonic() - started
        return "OK", "", time.monotonic() - started
    finally:
        await channel.close()


@pytest.mark.battery("B15-pings", "a client pinging too often gets GOAWAY too_many_pings")
async def test_a_client_pinging_every_second_is_told_to_calm_down(battery: Battery) -> None:
    rounds = battery.size(pr=2, long=6)
    # The production ping policy; connections are never closed for idleness here (that is B15-idle).
    hub = CrashHub(battery.dir / "hub", extra_args=("--max-connection-idle", "0"))
    hub.start()
    pings: list[int] = []
    codes: list[tuple[int, str]] = []
    stream_ends: list[tuple[str, str]] = []
    took: list[float] = []
    try:
        _, (agent,) = await project_agents(hub.address, 1)
        for _ in battery.bounded(rounds, 120.0):
            (sent, code, debug, seconds), (status, details, _) = await asyncio.gather(
                abuse(hub.address, 1.0, most=MAX_PING_STRIKES + 6), aggressive_stream(hub.address, agent.metadata)
            )
            pings.append(sent)
            codes.append((code, debug.decode(errors="replace")))
            stream_ends.append((status, details))
            took.append(seconds)
        await agent.close()
    finally:
        hub.stop()
    battery.figure("rounds", len(pings))
    battery.figure("pings_until_goaway", pings)
    battery.figure("goaway", sorted(set(codes)))
    battery.figure("seconds_until_goaway", spread(took, scale=1.0))
    battery.figure("aggressive_channel_stream_ends", sorted(set(stream_ends)))
    battery.invariant(
        "GOAWAYs other than ENHANCE_YOUR_CALM too_many_pings",
        [c for c in codes if c != (ENHANCE_YOUR_CALM, "too_many_pings")],
        [],
    )
    # The first ping sets the clock; each later one within 10 s is a strike; one past the limit ends it.
    battery.invariant(
        f"abusive pings past the first before GOAWAY, above max_ping_strikes + 1 = {MAX_PING_STRIKES + 1}",
        [n for n in pings if n - 1 > MAX_PING_STRIKES + 1],
        [],
    )
    battery.invariant(
        "GOAWAYs before max_ping_strikes + 1 strikes", [n for n in pings if n - 1 < MAX_PING_STRIKES + 1], []
    )
    battery.invariant(
        "aggressive channels whose stream did not end UNAVAILABLE (too many pings)",
        [e for e in stream_ends if e[0] != "UNAVAILABLE" or "too many pings" not in e[1].lower()],
        [],
    )


# -- idle connections ------------------------------------------------------------------------------

IDLE = 2.0
"""``--max-connection-idle`` in B15-idle (seconds)."""


@pytest.mark.battery("B15-idle", "connections without calls are closed after max_connection_idle")
async def test_idle_connections_are_closed(battery: Battery) -> None:
    count = battery.size(pr=500, long=2_000)
    hub = CrashHub(battery.dir / "hub", extra_args=("--max-connection-idle", str(IDLE)))
    hub.start()
    channels: list[grpc.aio.Channel] = []
    raws: list[RawH2] = []
    try:
        _, (listener, caller) = await project_agents(hub.address, 2)
        # A connection with a call in progress is not idle, however long: its own channel, one stream.
        held = grpc.aio.insecure_channel(hub.address, options=[("grpc.use_local_subchannel_pool", 1)])
        stream = held.unary_stream(
            "/kxm.v1.MessageService/Subscribe",
            request_serializer=pb.SubscribeRequest.SerializeToString,
            response_deserializer=pb.SubscribeResponse.FromString,
        )(pb.SubscribeRequest(), metadata=listener.metadata)
        await anext(aiter(stream))
        await asyncio.sleep(IDLE + 0.5)  # the clients' own connections (registration) have idled out
        before = open_sockets(hub.pid)
        started = time.monotonic()
        half = count // 2
        for _ in range(half):  # one subchannel each: a channel of its own, not a shared connection
            channels.append(grpc.aio.insecure_channel(hub.address, options=[("grpc.use_local_subchannel_pool", 1)]))
        await asyncio.gather(*(channel.channel_ready() for channel in channels))
        ready = len(channels)  # each was READY: connected to the hub
        raws = list(await asyncio.gather(*(RawH2.open(hub.address) for _ in range(count - half))))
        opened_in = time.monotonic() - started
        peak = open_sockets(hub.pid)
        battery.figure("sockets_before", before)
        battery.figure("sockets_with_idle_connections", peak)
        battery.figure("seconds_to_open", round(opened_in, 2))
        # Every connection that made no call is closed within max_connection_idle (+ 5 s of slack).
        closed, took, left = await wait_for(
            lambda: open_sockets(hub.pid) - before, at_most=0, seconds=IDLE + opened_in + 5.0, poll=0.1
        )
        battery.figure("seconds_until_closed", round(took, 2))
        battery.figure("idle_connections_left_open", left)
        # Each raw connection reads its GOAWAY and the end of the stream once the hub closed it.
        await asyncio.wait([r.closed for r in raws], timeout=5.0)
        goaways = [r.goaway.result() for r in raws if r.goaway.done()]
        closed_by_hub = sum(r.closed.done() for r in raws)
        battery.figure("raw_goaways", sorted({(code, debug.decode(errors="replace")) for code, debug in goaways}))
        # The stream's connection is still open and its stream alive (no event, no end).
        stream_alive = not stream.done()
        # An idled channel's next call reconnects as if nothing happened.
        sample = channels[: battery.size(pr=20, long=100)]
        probes = await asyncio.gather(
            *(
                channel.unary_unary("/kxm.v1.AgentService/GetCallerIdentity")(b"", metadata=caller.metadata, timeout=10)
                for channel in sample
            ),
            return_exceptions=True,
        )
        stream.cancel()
        await held.close()
        for client in (listener, caller):
            await client.close()
    finally:
        for raw in raws:
            await raw.close()
        for channel in channels:
            await channel.close()
        hub.stop()
    battery.figure("idle_connections", count)
    # Each connection was the hub's: a channel became READY, a raw connection got its SETTINGS
    # (the first may idle out before the last is open on a loaded machine: the socket count is a figure).
    accepted = sum(raw.accepted for raw in raws)
    battery.figure("channels_ready", ready)
    battery.figure("raw_connections_accepted", accepted)
    battery.at_least("idle connections the hub accepted", ready + accepted, count)
    battery.invariant("idle connections still open after max_connection_idle + 5 s", closed, True)
    battery.invariant("raw connections the hub did not close", len(raws) - closed_by_hub, 0)
    battery.invariant("raw connections closed without a GOAWAY first", len(raws) - len(goaways), 0)
    battery.invariant("a connection with a stream open was closed as idle", stream_alive, True)
    battery.invariant(
        "idled channels whose next call failed", [repr(p)[:80] for p in probes if isinstance(p, BaseException)], []
    )


# -- a stopped client ------------------------------------------------------------------------------

KEEPALIVE_TIME = 1.0
KEEPALIVE_TIMEOUT = 1.0

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    import grpc
    from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb

    async def main():
        spec = json.loads(sys.argv[1])
        channel = grpc.aio.insecure_channel(spec["address"])
        subscribe = channel.unary_stream(
            "/kxm.v1.MessageService/Subscribe",
            request_serializer=pb.SubscribeRequest.SerializeToString,
            response_deserializer=pb.SubscribeResponse.FromString,
        )
        calls = [
            subscribe(pb.SubscribeRequest(), metadata=[tuple(m) for m in metadata])
            for metadata in spec["agents"] for _ in range(spec["streams"])
        ]
        for call in calls:
            await anext(aiter(call))
        print("ready", flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


def start_child(address: str, agents: list[HubClient], streams: int) -> subprocess.Popen[str]:
    spec = {"address": address, "agents": [list(a.metadata) for a in agents], "streams": streams}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(spec)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.strip() == "ready", f"the client process did not open its streams: {line!r}"
    return child


@pytest.mark.battery("B15-stopped", "a stopped client's streams are reaped by keepalive")
async def test_a_stopped_clients_streams_are_reaped(battery: Battery) -> None:
    rounds = battery.size(pr=1, long=4)
    per_agent = 4
    hub = CrashHub(
        battery.dir / "hub",
        extra_args=(
            "--metrics-port",
            "0",
            "--testing-keepalive-time",
            str(KEEPALIVE_TIME),
            "--testing-keepalive-timeout",
            str(KEEPALIVE_TIMEOUT),
        ),
    )
    hub.start()
    bound = KEEPALIVE_TIME + KEEPALIVE_TIMEOUT + 5.0
    reaped: list[float] = []
    live_kept: list[bool] = []
    try:
        address = metrics_address(hub)
        _, agents = await project_agents(hub.address, 4)
        stopped_agents, live_agents = agents[:2], agents[2:]
        idle = await baseline(address, "kxm_open_streams")
        for _ in battery.bounded(rounds, 120.0):
            live = start_child(hub.address, live_agents, per_agent)
            stopped = start_child(hub.address, stopped_agents, per_agent)
            try:
                expected = idle + 2 * len(stopped_agents) * per_agent
                opened, _, level = await wait_for_metric(address, "kxm_open_streams", at_least=expected, seconds=10)
                assert opened, f"the hub counts {level} open streams, not {expected}"
                os.kill(stopped.pid, signal.SIGSTOP)
                began = time.monotonic()
                target = idle + len(live_agents) * per_agent
                done, took, _ = await wait_for_metric(address, "kxm_open_streams", at_most=target, seconds=bound + 5)
                reaped.append(took if done else float("inf"))
                # The live client, pinged all along, keeps every stream.
                await asyncio.sleep(max(0.0, 2 * (KEEPALIVE_TIME + KEEPALIVE_TIMEOUT) - (time.monotonic() - began)))
                live_kept.append((await scrape(address)).value("kxm_open_streams") == target)
            finally:
                for child in (stopped, live):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child.pid, signal.SIGCONT)
                        child.kill()
                    child.wait(timeout=10)
                    if child.stdout is not None:
                        child.stdout.close()
            await wait_for_metric(address, "kxm_open_streams", at_most=idle, seconds=10)
        for client in agents:
            await client.close()
    finally:
        hub.stop()
    battery.figure("streams_per_stopped_client", len(stopped_agents) * per_agent)
    battery.figure("keepalive_time_s", KEEPALIVE_TIME)
    battery.figure("keepalive_timeout_s", KEEPALIVE_TIMEOUT)
    battery.figure("seconds_until_reaped", [round(r, 2) for r in reaped])
    battery.invariant(
        f"stopped clients whose streams were not reaped within keepalive time + timeout + 5 s ({bound:g} s)",
        [r for r in reaped if r > bound],
        [],
    )
    battery.invariant("live clients that lost a stream meanwhile", [k for k in live_kept if not k], [])


async def wait_for_metric(
    address: str, metric: str, *, at_least: float | None = None, at_most: float | None = None, seconds: float
) -> tuple[bool, float, float]:
    """Scrape until ``metric`` is at least / at most the bound, for ``seconds`` at most."""
    started = time.monotonic()
    while True:
        value = (await scrape(address)).value(metric)
        elapsed = time.monotonic() - started
        if (at_least is None or value >= at_least) and (at_most is None or value <= at_most):
            return True, elapsed, value
        if elapsed >= seconds:
            return False, elapsed, value
        await asyncio.sleep(0.05)
