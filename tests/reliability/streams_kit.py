"""Pieces the stream batteries share (B5, B12, B13): agents, raw Subscribe calls, the hub's RSS and
its open-streams gauge.

The batteries drive ``MessageService.Subscribe`` through the raw stub rather than the client's
auto-resuming iterator, so each session's events, cursor and end status are exactly what the hub
sent. ``Identity`` is one registered agent; ``metadata`` the credentials every call of it carries.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc
from kxm_grpc._status import from_rpc_error
from kxm_grpc.client import HubClient
from kxm_grpc.testing import ADMIN_TOKEN

# Every status a resubscribe is retried after (the hub restarting, a stream cut, a call dropped).
RETRIED = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)


@dataclass(frozen=True)
class Identity:
    """One registered agent of a project."""

    name: str
    agent_id: str
    agent_key: str
    token: str

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (
            ("authorization", f"Bearer {self.token}"),
            ("x-kxm-agent-id", self.agent_id),
            ("x-kxm-agent-key", self.agent_key),
        )

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "agent_id": self.agent_id, "agent_key": self.agent_key, "token": self.token}


async def new_project(address: str, name: str) -> str:
    """Create a project (admin token); returns its token."""
    async with HubClient(address, token=ADMIN_TOKEN) as admin:
        return (await admin.admin.create_project(name)).project_token


async def register_agents(address: str, token: str, names: Sequence[str], *, parallel: int = 16) -> list[Identity]:
    """Register each name as an agent of the project ``token`` opens, ``parallel`` at a time, on one channel."""
    channel = grpc.aio.insecure_channel(address)
    gate = asyncio.Semaphore(parallel)

    async def one(name: str) -> Identity:
        async with gate:
            client = HubClient(address, token=token, channel=channel)
            response = await client.agents.register(name)
            return Identity(name, response.agent.id, response.agent_key, token)

    try:
        return list(await asyncio.gather(*(one(name) for name in names)))
    finally:
        await channel.close()


def stub(channel: grpc.aio.Channel) -> message_service_pb2_grpc.MessageServiceStub:
    return message_service_pb2_grpc.MessageServiceStub(channel)


def subscribe(
    channel: grpc.aio.Channel, who: Identity, after_seq: int = 0
) -> grpc.aio.UnaryStreamCall[pb.SubscribeRequest, pb.SubscribeResponse]:
    """A raw Subscribe call (no deadline: a stream lasts until it is dropped)."""
    return stub(channel).Subscribe(pb.SubscribeRequest(after_seq=after_seq), metadata=who.metadata)


def reason_of(error: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason a hub status carries ('' when none)."""
    return str(getattr(from_rpc_error(error), "reason", "") or "")


# -- the hub process ------------------------------------------------------------------------------


def rss_kib(pid: int) -> int:
    """A process's resident set size in KiB (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metrics_port(log_path: Path) -> int:
    """The metrics port the hub's last ``hub_started`` line names (``--metrics-port 0`` picks one)."""
    port = 0
    for line in log_path.read_text(errors="replace").splitlines():
        if '"hub_started"' not in line:
            continue
        try:
            address = json.loads(line).get("metrics_address") or ""
        except ValueError:
            continue
        if address:
            port = int(address.rsplit(":", 1)[1])
    if not port:
        raise RuntimeError(f"no metrics address in {log_path}")
    return port


async def scrape(port: int) -> str:
    """``GET /metrics`` of a loopback hub."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        await writer.drain()
        body = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    return body.decode(errors="replace")


async def gauge(port: int, name: str) -> float:
    """One unlabelled sample of the hub's metrics."""
    text = await scrape(port)
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"metric {name} not served")
    return float(found.group(1))


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``values`` (nearest rank; 0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]
