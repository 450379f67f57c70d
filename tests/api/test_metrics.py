"""GET /metrics: on its own address, loopback by default, the admin token required beyond loopback."""

from __future__ import annotations

import asyncio
import io
import json
import socket
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace

import pytest
import pytest_asyncio
import structlog

from kxm_grpc.cli import build_parser
from kxm_grpc.client import HubClient
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.log import configure_logging
from kxm_grpc.server.settings import Settings, SettingsError
from tests.conftest import ADMIN_TOKEN, Hub

ANYWHERE = "0.0.0.0"  # noqa: S104 - the point of these tests


async def scrape(
    port: int, path: str = "/metrics", *, token: str | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], str]:
    """Status, headers and body of one HTTP request to 127.0.0.1:``port`` (off the hub's event loop)."""

    def fetch() -> tuple[int, dict[str, str], str]:
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    return await asyncio.to_thread(fetch)


@pytest_asyncio.fixture
async def started() -> AsyncIterator[list[HubServer]]:
    """Hubs a test starts, stopped after it."""
    servers: list[HubServer] = []
    yield servers
    for server in servers:
        await server.stop(0)


async def start(settings: Settings, servers: list[HubServer]) -> HubServer:
    server = HubServer(settings)
    await server.start()
    servers.append(server)
    return server


async def test_loopback_metrics_need_no_token_and_serve_only_get_metrics(
    hub_settings: Settings, started: list[HubServer]
) -> None:
    """On loopback (the default) a scrape needs no token; anything but GET /metrics is 404."""
    server = await start(replace(hub_settings, metrics_port=0), started)
    assert server.metrics_port  # port 0 picked one, recorded on the server
    async with HubClient(server.address, token=ADMIN_TOKEN, admin=True) as admin:
        await admin.list_projects()

    status, headers, body = await scrape(server.metrics_port)
    other = await scrape(server.metrics_port, "/")
    posted = await scrape(server.metrics_port, method="POST")

    assert status == 200
    assert headers["Content-Type"].startswith("text/plain")
    assert 'kxm_rpc_total{code="OK",method="/kxm.v1.AdminService/ListProjects"}' in body
    assert other[0] == 404 and posted[0] == 404
    assert server.metrics_address == f"127.0.0.1:{server.metrics_port}"


async def test_metrics_beyond_loopback_need_the_admin_token(hub_settings: Settings, started: list[HubServer]) -> None:
    """Bound to 0.0.0.0 (allowed: the admin token is set), a scrape without it, or with any other token, is 401."""
    server = await start(replace(hub_settings, metrics_host=ANYWHERE, metrics_port=0), started)
    assert server.metrics_port is not None
    async with HubClient(server.address, token=ADMIN_TOKEN, admin=True) as admin:
        project_token = (await admin.create_project("alpha")).project_token

    missing = await scrape(server.metrics_port)
    wrong = await scrape(server.metrics_port, token="not-the-admin-token-at-all")
    with_project_token = await scrape(server.metrics_port, token=project_token)
    unknown_path = await scrape(server.metrics_port, "/secret")
    admitted = await scrape(server.metrics_port, token=ADMIN_TOKEN)

    for refused in (missing, wrong, with_project_token, unknown_path):
        assert refused[0] == 401
        assert refused[1]["WWW-Authenticate"].startswith("Bearer")
        assert "kxm_rpc" not in refused[2]
    assert admitted[0] == 200 and "kxm_rpc_total" in admitted[2]


async def test_metrics_are_off_unless_a_port_is_given(hub: Hub) -> None:
    """The fixture's hub sets no metrics port: nothing is served."""
    assert hub.server.metrics_port is None
    assert hub.server.metrics_address is None


def _outward_address() -> str | None:
    """A non-loopback IPv4 address of this machine, if it has one (nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") or address == ANYWHERE else address


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


async def test_metrics_stay_on_loopback_when_grpc_binds_everywhere(
    hub_settings: Settings, started: list[HubServer]
) -> None:
    """--host 0.0.0.0 does not take metrics with it: they listen on 127.0.0.1 unless asked."""
    server = await start(replace(hub_settings, host=ANYWHERE, metrics_port=0), started)
    assert server.metrics_port is not None
    outward = _outward_address()

    assert server.metrics_address == f"127.0.0.1:{server.metrics_port}"
    assert await asyncio.to_thread(_accepts, "127.0.0.1", server.metrics_port)
    assert (await scrape(server.metrics_port))[0] == 200
    if outward is not None:  # a machine without a network has nothing more to prove
        assert await asyncio.to_thread(_accepts, outward, server.port)  # gRPC is reachable from outside
        assert not await asyncio.to_thread(_accepts, outward, server.metrics_port)  # metrics are not


async def test_metrics_stop_with_the_hub(hub_settings: Settings) -> None:
    """Stopping the hub closes the metrics listener and its open connections (start_http_server never did)."""
    server = HubServer(replace(hub_settings, metrics_port=0))
    await server.start()
    port = server.metrics_port
    assert port is not None and await asyncio.to_thread(_accepts, "127.0.0.1", port)
    silent, writer = await asyncio.open_connection("127.0.0.1", port)  # connected, sends nothing

    await asyncio.wait_for(server.stop(0), 5)

    assert not await asyncio.to_thread(_accepts, "127.0.0.1", port)
    assert await asyncio.wait_for(silent.read(), 5) == b""  # the hub closed it
    writer.close()
    await writer.wait_closed()


async def test_a_silent_or_malformed_request_is_answered_and_closed(
    hub_settings: Settings, started: list[HubServer]
) -> None:
    """A request line that is not HTTP gets 400; the connection is closed either way."""
    server = await start(replace(hub_settings, metrics_port=0), started)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.metrics_port)
    writer.write(b"nonsense\r\n\r\n")
    await writer.drain()

    answer = await asyncio.wait_for(reader.read(), 5)

    assert answer.startswith(b"HTTP/1.1 400 ")
    writer.close()
    await writer.wait_closed()


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """The hub's JSON log lines at info, restored afterwards."""
    buffer = io.StringIO()
    configure_logging("json", "info", cache=False)
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(buffer))
    yield buffer
    configure_logging("json", "warning", cache=False)


async def test_hub_started_logs_the_metrics_address(
    hub_settings: Settings, started: list[HubServer], log_lines: io.StringIO
) -> None:
    """The bound metrics port (picked with port 0) is discoverable from the start line."""
    server = await start(replace(hub_settings, metrics_port=0), started)

    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    line = next(entry for entry in lines if entry["event"] == "hub_started")

    assert line["metrics_address"] == f"127.0.0.1:{server.metrics_port}"
    assert line["metrics_token_required"] is False


def test_metrics_beyond_loopback_need_an_explicit_admin_token() -> None:
    """Like the gRPC host rule: a metrics host beyond loopback without an admin token is refused."""
    with pytest.raises(SettingsError, match="metrics"):
        Settings(metrics_host=ANYWHERE, metrics_port=9100).validate()
    with pytest.raises(SettingsError, match="metrics port"):
        Settings(metrics_port=70_000).validate()
    Settings(metrics_host=ANYWHERE, metrics_port=9100, admin_token="a-long-enough-admin-token").validate()
    Settings(metrics_host=ANYWHERE).validate()  # metrics off: the host is never bound
    Settings(metrics_port=0).validate()  # loopback: no token needed


def test_metrics_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    """--metrics-port is off by default, 0 picks a port; --metrics-host defaults to loopback."""
    monkeypatch.delenv("KXM_METRICS_PORT", raising=False)
    monkeypatch.delenv("KXM_METRICS_HOST", raising=False)
    parser = build_parser()

    default = parser.parse_args(["hub", "serve", "--host", ANYWHERE])
    chosen = parser.parse_args(["hub", "serve", "--metrics-port", "0", "--metrics-host", "10.0.0.5"])
    off = parser.parse_args(["hub", "serve", "--metrics-port", "off"])

    assert (default.metrics_port, default.metrics_host) == (None, "127.0.0.1")
    assert (chosen.metrics_port, chosen.metrics_host) == (0, "10.0.0.5")
    assert off.metrics_port is None
