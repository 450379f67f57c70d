"""GET /metrics: on its own address, loopback by default, the admin token required beyond loopback."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import http.client
import io
import json
import socket
import ssl
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc.cli import build_parser
from kxm_grpc.cli.hub import settings_from
from kxm_grpc.client import HubClient
from kxm_grpc.domain.secrets import hash_secret
from kxm_grpc.server import app, metrics
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.metrics import HEAD_TIMEOUT, MAX_CONNECTIONS, MAX_HEAD_BYTES, MetricsServer, server_ssl_context
from kxm_grpc.server.ratelimit import RateLimiter
from kxm_grpc.server.settings import Settings, SettingsError
from tests.conftest import ADMIN_TOKEN, Hub

ANYWHERE = "0.0.0.0"  # noqa: S104 - the point of these tests


async def scrape(
    port: int,
    path: str = "/metrics",
    *,
    token: str | None = None,
    method: str = "GET",
    tls: ssl.SSLContext | None = None,
) -> tuple[int, dict[str, str], str]:
    """Status, headers and body of one HTTP request to 127.0.0.1:``port`` (off the hub's event loop).

    With ``tls`` (a client context) over https.
    """

    def fetch() -> tuple[int, dict[str, str], str]:
        scheme = "https" if tls is not None else "http"
        request = urllib.request.Request(f"{scheme}://127.0.0.1:{port}{path}", method=method)  # noqa: S310
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=5, context=tls) as response:  # noqa: S310
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    return await asyncio.to_thread(fetch)


def trusting(pki: Path) -> ssl.SSLContext:
    """A client TLS context that trusts the test CA (the server certificate is for IP 127.0.0.1)."""
    return ssl.create_default_context(cafile=str(pki / "ca.pem"))


def tls_settings(settings: Settings, pki: Path) -> Settings:
    """``settings`` with the test server certificate: gRPC and metrics over TLS."""
    return replace(settings, tls_cert=pki / "server.pem", tls_key=pki / "server.key")


async def answer_of(reader: asyncio.StreamReader, *, within: float = 10.0) -> bytes:
    """Everything the server sends until it closes the connection (a reset ends it too).

    Read chunk by chunk, so what arrived before a reset is kept. Bounded: ``TimeoutError`` after
    ``within`` seconds means the server kept the connection open.
    """
    received = b""
    async with asyncio.timeout(within):
        while True:
            try:
                chunk = await reader.read(65_536)
            except ConnectionResetError:
                return received
            if not chunk:
                return received
            received += chunk


async def until(condition: Callable[[], bool], *, within: float = 10.0) -> None:
    """Wait until ``condition()`` holds, at most ``within`` seconds (the servers run on this loop)."""
    async with asyncio.timeout(within):
        while True:  # polled: the state is the server's own counter, no event to wait on
            if condition():
                return
            await asyncio.sleep(0.01)


class Peers:
    """Client connections a test opens; every one is closed after the test."""

    def __init__(self) -> None:
        self._writers: list[asyncio.StreamWriter] = []

    async def connect(
        self, port: int, *, tls: ssl.SSLContext | None = None
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=tls)
        self._writers.append(writer)
        return reader, writer

    async def close(self) -> None:
        for writer in self._writers:
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):  # the server may have closed it first
                async with asyncio.timeout(5):
                    await writer.wait_closed()


@pytest_asyncio.fixture
async def peers() -> AsyncIterator[Peers]:
    """Client connections, closed after the test."""
    opened = Peers()
    yield opened
    await opened.close()


@pytest_asyncio.fixture
async def metrics_servers() -> AsyncIterator[list[MetricsServer]]:
    """Metrics servers a test starts on 127.0.0.1:0 by itself (to set small limits), stopped after it."""
    servers: list[MetricsServer] = []
    yield servers
    for server in servers:
        await server.stop()


async def serve_metrics(servers: list[MetricsServer], **options: Any) -> MetricsServer:
    """A started ``MetricsServer`` on 127.0.0.1:0 with ``options``; no token unless one is given."""
    options.setdefault("admin_token_hash", None)
    server = MetricsServer("127.0.0.1", 0, **options)
    await server.start()
    servers.append(server)
    return server


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


async def test_metrics_beyond_loopback_need_the_admin_token(
    hub_settings: Settings, started: list[HubServer], pki: Path
) -> None:
    """Bound to 0.0.0.0 (allowed: admin token and TLS are set), a scrape without it, or with any other token, is 401."""
    server = await start(tls_settings(replace(hub_settings, metrics_host=ANYWHERE, metrics_port=0), pki), started)
    assert server.metrics_port is not None
    ca = (pki / "ca.pem").read_bytes()
    async with HubClient(server.address, token=ADMIN_TOKEN, admin=True, root_certificates=ca) as admin:
        project_token = (await admin.create_project("alpha")).project_token
    tls = trusting(pki)

    missing = await scrape(server.metrics_port, tls=tls)
    wrong = await scrape(server.metrics_port, token="not-the-admin-token-at-all", tls=tls)
    with_project_token = await scrape(server.metrics_port, token=project_token, tls=tls)
    unknown_path = await scrape(server.metrics_port, "/secret", tls=tls)
    admitted = await scrape(server.metrics_port, token=ADMIN_TOKEN, tls=tls)

    for refused in (missing, wrong, with_project_token, unknown_path):
        assert refused[0] == 401
        assert refused[1]["WWW-Authenticate"].startswith("Bearer")
        assert "kxm_rpc" not in refused[2]
    assert admitted[0] == 200 and "kxm_rpc_total" in admitted[2]


async def test_metrics_are_off_unless_a_port_is_given(hub: Hub) -> None:
    """The fixture's hub sets no metrics port: nothing is served."""
    assert hub.server.metrics_port is None
    assert hub.server.metrics_address is None


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

    # Only loopback is ever a test target here (no traffic to the machine's other addresses): the
    # bound addresses say it. gRPC listens on every interface, metrics on loopback alone.
    assert server.address == f"{ANYWHERE}:{server.port}"
    assert server.metrics_address == f"127.0.0.1:{server.metrics_port}"
    assert (await scrape(server.metrics_port))[0] == 200


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


async def test_hub_started_logs_the_metrics_address(
    hub_settings: Settings, started: list[HubServer], log_lines: io.StringIO
) -> None:
    """The bound metrics port (picked with port 0) is discoverable from the start line."""
    server = await start(replace(hub_settings, metrics_port=0), started)

    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    line = next(entry for entry in lines if entry["event"] == "hub_started")

    assert line["metrics_address"] == f"127.0.0.1:{server.metrics_port}"
    assert line["metrics_token_required"] is False
    assert line["metrics_tls"] is False


def test_metrics_beyond_loopback_need_an_explicit_admin_token() -> None:
    """Like the gRPC host rule: a metrics host beyond loopback without an admin token is refused."""
    with pytest.raises(SettingsError, match="metrics"):
        Settings(metrics_host=ANYWHERE, metrics_port=9100).validate()
    with pytest.raises(SettingsError, match="metrics port"):
        Settings(metrics_port=70_000).validate()
    with_tls = {"tls_cert": Path("hub.pem"), "tls_key": Path("hub.key")}
    Settings(metrics_host=ANYWHERE, metrics_port=9100, admin_token="a-long-enough-admin-token", **with_tls).validate()
    Settings(metrics_host=ANYWHERE).validate()  # metrics off: the host is never bound
    Settings(metrics_port=0).validate()  # loopback: no token needed


def test_metrics_beyond_loopback_need_tls() -> None:
    """Every scrape beyond loopback sends the admin token: without TLS the hub refuses to start."""
    token = "a-long-enough-admin-token"
    with pytest.raises(SettingsError, match=r"metrics on 0\.0\.0\.0 beyond loopback needs TLS .*cleartext"):
        Settings(metrics_host=ANYWHERE, metrics_port=9100, admin_token=token).validate()
    with pytest.raises(SettingsError, match="needs TLS"):
        Settings(metrics_host="10.0.0.5", metrics_port=0, admin_token=token, host=ANYWHERE).validate()
    for host in ("127.0.0.1", "localhost", "::1"):  # loopback without TLS stays allowed
        Settings(metrics_host=host, metrics_port=0, admin_token=token).validate()
    Settings(metrics_host=ANYWHERE, admin_token=token).validate()  # metrics off: nothing is bound


def test_metrics_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    """--metrics-port is off by default, 0 picks a port; --metrics-host defaults to loopback."""
    monkeypatch.delenv("KXM_METRICS_PORT", raising=False)
    monkeypatch.delenv("KXM_METRICS_HOST", raising=False)
    parser = build_parser()

    default = settings_from(parser.parse_args(["hub", "serve", "--host", ANYWHERE]))
    chosen = settings_from(parser.parse_args(["hub", "serve", "--metrics-port", "0", "--metrics-host", "10.0.0.5"]))
    off = settings_from(parser.parse_args(["hub", "serve", "--metrics-port", "off"]))

    assert (default.metrics_port, default.metrics_host) == (None, "127.0.0.1")
    assert (chosen.metrics_port, chosen.metrics_host) == (0, "10.0.0.5")
    assert off.metrics_port is None


# Limits: the metrics listener shares the process's descriptors with gRPC and SQLite.


async def test_connections_beyond_the_cap_are_closed_unread_while_a_freed_slot_serves_a_scrape(
    metrics_servers: list[MetricsServer], peers: Peers
) -> None:
    """At the cap, one more connection is closed at once, its request unanswered; a slot freed serves again."""
    # A head deadline far beyond the test: the idle connections hold their slots throughout.
    server = await serve_metrics(metrics_servers, max_connections=4, head_timeout=60)
    idle = [await peers.connect(server.port) for _ in range(4)]
    await until(lambda: server.open_connections == 4)

    extra = [await peers.connect(server.port) for _ in range(3)]
    for _, writer in extra:
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: hub\r\n\r\n")
    extra_answers = [await answer_of(reader) for reader, _ in extra]  # bounded: 10 s, not 60
    full = server.open_connections
    idle[0][1].close()  # one idle client gives up: its slot is free again
    await until(lambda: server.open_connections == 3)
    status, _, body = await scrape(server.port)  # alongside the three still idle
    await until(lambda: server.open_connections == 3)  # the scrape's slot is freed once it is closed

    assert extra_answers == [b"", b"", b""]
    assert full == 4
    assert status == 200 and "# TYPE" in body


async def test_idle_connections_are_answered_408_after_the_head_deadline_and_free_their_slots(
    hub_settings: Settings, started: list[HubServer], peers: Peers
) -> None:
    """The hub's own listener: a full cap of silent connections ends within HEAD_TIMEOUT, then scrapes work."""
    server = await start(replace(hub_settings, metrics_port=0), started)
    assert server.metrics_port is not None
    idle = [await peers.connect(server.metrics_port) for _ in range(MAX_CONNECTIONS)]

    # Bounded well below the 10 s a silent connection used to be allowed.
    answers = await asyncio.gather(*(answer_of(reader, within=HEAD_TIMEOUT + 6) for reader, _ in idle))
    listener = server._metrics
    assert listener is not None
    await until(lambda: listener.open_connections == 0)  # each slot is freed once its close is done
    status, _, body = await scrape(server.metrics_port)

    assert HEAD_TIMEOUT <= 2
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in answers)
    assert status == 200 and "kxm_rpc" in body


async def test_a_head_trickled_byte_by_byte_is_408_at_the_deadline(
    metrics_servers: list[MetricsServer], peers: Peers
) -> None:
    """One deadline for the whole head: a client sending a byte every 50 ms does not extend it."""
    server = await serve_metrics(metrics_servers, head_timeout=0.5)
    reader, writer = await peers.connect(server.port)
    head = b"GET /metrics HTTP/1.1\r\nHost: hub\r\nX-Slow: " + b"a" * 1_000  # 50 s at this pace

    async def trickle() -> None:
        with contextlib.suppress(ConnectionError):
            for byte in head:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.05)

    trickling = asyncio.create_task(trickle())
    try:
        answer = await answer_of(reader)
    finally:
        trickling.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await trickling

    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b"Connection: close" in answer


async def test_an_oversized_head_is_431(metrics_servers: list[MetricsServer], peers: Peers) -> None:
    """A head beyond MAX_HEAD_BYTES is refused without waiting for its end."""
    server = await serve_metrics(metrics_servers)
    reader, writer = await peers.connect(server.port)
    writer.write(b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * (MAX_HEAD_BYTES + 1_024))  # no end of head
    await writer.drain()

    answer = await answer_of(reader)

    assert answer.startswith(b"HTTP/1.1 431 ")


async def test_repeated_bad_tokens_are_429_with_retry_after(metrics_servers: list[MetricsServer]) -> None:
    """Failures spend the peer's budget (here 3 a minute); past it, 429 with Retry-After."""
    token = "the-right-admin-token-here"
    server = await serve_metrics(
        metrics_servers, admin_token_hash=hash_secret(token), limiter=RateLimiter(limit=3, window=60)
    )

    refused = [await scrape(server.port, token="a-wrong-guess-of-a-token") for _ in range(3)]
    limited = await scrape(server.port, token="another-wrong-guess-here")

    assert [status for status, _, _ in refused] == [401, 401, 401]
    assert limited[0] == 429
    assert int(limited[1]["Retry-After"]) >= 1
    assert "# TYPE" not in limited[2]


async def test_a_peer_that_does_not_read_is_aborted_at_the_write_deadline(
    metrics_servers: list[MetricsServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer too big for the socket buffers, to a peer that never reads: aborted, its slot freed."""
    big = b"x" * (32 * 1024 * 1024)  # more than loopback socket buffers hold, both sides together
    collected = threading.Event()

    def encode(_registry: object) -> bytes:
        collected.set()  # the connection got as far as its answer
        return big

    monkeypatch.setattr(metrics, "choose_encoder", lambda _accept: (encode, "text/plain"))
    server = await serve_metrics(metrics_servers, write_timeout=0.3)
    loop = asyncio.get_running_loop()
    received = 0
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4_096)
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", server.port))
        await loop.sock_sendall(sock, b"GET /metrics HTTP/1.1\r\nHost: hub\r\n\r\n")  # and reads nothing

        await until(lambda: collected.is_set() and server.open_connections == 0)  # bounded: 10 s
        async with asyncio.timeout(10):  # now what the kernel kept, then the end (a reset)
            with contextlib.suppress(ConnectionError):
                while chunk := await loop.sock_recv(sock, 1 << 20):
                    received += len(chunk)

    assert 0 < received < len(big)


# TLS: with --tls-cert the admin token never crosses in cleartext.


async def test_a_tls_hub_serves_metrics_over_https_and_refuses_plain_http(
    hub_settings: Settings, started: list[HubServer], pki: Path, log_lines: io.StringIO
) -> None:
    """Metrics use the hub's certificate (on loopback too); a plain-HTTP scrape gets no answer."""
    server = await start(tls_settings(replace(hub_settings, metrics_port=0), pki), started)
    assert server.metrics_port is not None

    status, _, body = await scrape(server.metrics_port, tls=trusting(pki))
    with pytest.raises((urllib.error.URLError, http.client.HTTPException, ConnectionError)):
        await scrape(server.metrics_port)
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        await scrape(server.metrics_port, tls=ssl.create_default_context())  # a CA that did not sign it

    assert status == 200 and "kxm_rpc" in body
    started_line = next(json.loads(line) for line in log_lines.getvalue().splitlines() if "hub_started" in line)
    assert started_line["metrics_tls"] is True


async def test_plain_http_to_a_tls_listener_is_closed_unanswered(
    metrics_servers: list[MetricsServer], peers: Peers, pki: Path
) -> None:
    """The bytes of a cleartext request are no TLS handshake: the connection is closed, nothing served."""
    context = server_ssl_context(pki / "server.pem", pki / "server.key")
    server = await serve_metrics(metrics_servers, ssl_context=context)
    reader, writer = await peers.connect(server.port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: hub\r\n\r\n")

    answer = await answer_of(reader)

    assert not answer.startswith(b"HTTP/")
    assert b"# TYPE" not in answer
    await until(lambda: server.open_connections == 0)


async def test_a_tls_handshake_must_finish_within_the_head_deadline(
    metrics_servers: list[MetricsServer], peers: Peers, pki: Path
) -> None:
    """A TCP connection that never starts its handshake is closed at the head deadline, unanswered."""
    context = server_ssl_context(pki / "server.pem", pki / "server.key")
    server = await serve_metrics(metrics_servers, ssl_context=context, head_timeout=0.5)
    reader, _ = await peers.connect(server.port)  # sends nothing: no ClientHello

    answer = await answer_of(reader)

    assert answer == b""  # no cleartext 408 on a TLS port
    assert server.open_connections == 0


async def test_a_tls_peer_that_never_answers_the_close_is_aborted_at_the_close_deadline(
    metrics_servers: list[MetricsServer], pki: Path
) -> None:
    """After answering, the TLS close waits for the peer's close_notify: at most the close deadline, not 30 s."""
    context = server_ssl_context(pki / "server.pem", pki / "server.key")
    server = await serve_metrics(metrics_servers, ssl_context=context, close_timeout=0.3)
    client = trusting(pki)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        tls = await asyncio.to_thread(client.wrap_socket, raw, server_hostname="127.0.0.1")
        with tls:
            await asyncio.to_thread(tls.sendall, b"GET /metrics HTTP/1.1\r\nHost: hub\r\n\r\n")  # reads nothing

            await until(lambda: server.open_connections == 0)  # bounded: 10 s, where asyncio alone waits 30 s
            answer = await asyncio.to_thread(_read_to_end, tls)

    assert answer.startswith(b"HTTP/1.1 200 ")


def _read_to_end(sock: ssl.SSLSocket) -> bytes:
    """What a blocking TLS socket received until its end (the peer's abort ends it too)."""
    received = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65_536):
            received += chunk
    return received


# Stopping: no tracebacks for the connections still open.


async def test_stopping_with_open_connections_reports_nothing(
    hub_settings: Settings, pki: Path, peers: Peers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Silent, half-sent and mid-handshake connections end with the hubs; nothing reaches the loop's handler."""
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    unraisable: list[Any] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    # The hubs' own listeners, with a head deadline beyond the test: the connections stay open for stop().
    monkeypatch.setattr(app, "MetricsServer", functools.partial(MetricsServer, head_timeout=60))
    plain = HubServer(replace(hub_settings, metrics_port=0))
    secure = HubServer(tls_settings(replace(hub_settings, data_dir=hub_settings.data_dir / "tls", metrics_port=0), pki))
    try:
        await plain.start()
        await secure.start()
        assert plain.metrics_port is not None and secure.metrics_port is not None
        open_ = [await peers.connect(plain.metrics_port) for _ in range(3)]  # silent
        open_.append(await peers.connect(plain.metrics_port))
        open_[-1][1].write(b"GET /metrics HTTP/1.1\r\nHost: h")  # half a head
        open_ += [await peers.connect(secure.metrics_port) for _ in range(2)]  # no handshake yet
        open_ += [await peers.connect(secure.metrics_port, tls=trusting(pki)) for _ in range(2)]  # handshaken, silent
        assert plain._metrics is not None and secure._metrics is not None
        plain_metrics, secure_metrics = plain._metrics, secure._metrics
        await until(lambda: plain_metrics.open_connections == 4 and secure_metrics.open_connections == 4)

        await plain.stop(0)
        await secure.stop(0)
        left = plain_metrics.open_connections + secure_metrics.open_connections  # ended, not waited out
        answers = [await answer_of(reader) for reader, _ in open_]
        gc.collect()  # a StreamWriter left without its transport would complain when collected
        for _ in range(3):  # let the callbacks the closes scheduled run
            await asyncio.sleep(0)
    finally:
        await plain.stop(0)
        await secure.stop(0)
        loop.set_exception_handler(None)

    assert reported == []
    assert unraisable == []
    assert left == 0
    assert answers == [b""] * len(open_)
