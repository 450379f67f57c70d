"""The HTTP port: every unary and server-streaming RPC over Connect (JSON or binary) and gRPC-Web.

It serves on the private HTTP listener (``--http-host``/``--http-port``: off unless a port is
given, loopback unless a host is; beyond loopback only with TLS, since every request carries a
bearer token). ``POST /kxm.v1.MessageService/SendMessage`` with ``Content-Type: application/json``
and the body ``{"target": "bob", "content": "hi"}`` is the same call as the gRPC one: the same
headers as gRPC metadata (``Authorization: Bearer …``, ``x-kxm-agent-id``, ``x-kxm-agent-key``,
``x-kxm-project``, the tool-policy tokens, ``x-request-id``), admitted by the same pipeline
(``server/admission.py``: authentication, project isolation, rate limits, tool policy, presence),
answered by the same servicer method, with the same errors (``server/connect.py`` has the wire
formats). The bidirectional agent channel stays gRPC-only: HTTP/1.1 cannot carry it.

A small asyncio HTTP/1.1 server (``server/http1.py``) rather than an ASGI stack: keep-alive
connections, bounded everywhere (at most ``MAX_CONNECTIONS`` open, ``MAX_CONNECTIONS_PER_SOURCE``
from one address, each head within ``HEAD_TIMEOUT`` of its first byte, an idle connection closed
after ``IDLE_TIMEOUT``, a body of at most ``MAX_BODY_BYTES`` within ``BODY_TIMEOUT``, each write
within ``WRITE_TIMEOUT``), and no framework between the socket and the servicer
(docs/performance.md has the cost per call beside gRPC's). Each request runs in a task of its own,
so nothing of one call's context leaks into the next on the same connection. A call is cancelled
when its client closes the connection, as a gRPC call is on the client's cancel
(``http_calls.py``). A request pipelined behind a call in progress is not served: the connection
closes after the answer. ``/mcp`` is MCP over streamable HTTP (``server/mcp_http.py``).

CORS is off unless ``--http-cors-origin`` names the origins allowed (or ``*``): then a preflight
from one of them is answered and the RPC routes' responses carry ``Access-Control-Allow-Origin``,
so a browser on that origin may call with its own credentials headers; ``/mcp`` answers them too
(and checks origins itself: loopback ones and the named ones).
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import socket
import ssl
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Protocol as Protocol_

import structlog

from kxm_grpc.domain.dashboard_sessions import DashboardSession
from kxm_grpc.errors import HubError, Reason, Unimplemented
from kxm_grpc.server import http1
from kxm_grpc.server.admission import IncomingCall
from kxm_grpc.server.connect import (
    CONTENT_TYPES,
    HTTP_STATUS,
    Family,
    Protocol,
    connect_error,
    end_of_stream,
    grpc_web_trailers,
    protocol_for,
    timeout_seconds,
)
from kxm_grpc.server.http_calls import (
    HttpCallContext,
    Route,
    answer,
    answer_stream,
    answer_unary,
    decoder,
    json_bytes,
)
from kxm_grpc.server.methods import MAX_REQUEST_BYTES, RPCS

log = structlog.get_logger("kxm.http")

MAX_CONNECTIONS = 256
"""Connections open at once; one beyond is closed when accepted, before anything is read."""
MAX_CONNECTIONS_PER_SOURCE = 64
"""Connections open at once from one address (so one peer cannot hold the listener from others)."""
HEAD_TIMEOUT = 5.0
"""Seconds for the TLS handshake and the first request's head, and for any head from its first byte."""
IDLE_TIMEOUT = 60.0
"""Seconds a kept-alive connection may wait for its next request."""
BODY_TIMEOUT = 30.0
"""Seconds for a request's whole body."""
MAX_BODY_BYTES = 4 * MAX_REQUEST_BYTES
"""The largest body read (JSON takes more room than the binary form the 256 KiB cap applies to)."""
STOP_TIMEOUT = 2.0
"""Seconds ``stop`` waits for its cancelled connections to end."""

ALLOWED_HEADERS = (
    "authorization, content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web,"
    " x-user-agent, x-request-id, x-kxm-agent-id, x-kxm-agent-key, x-kxm-project, x-kxm-attempt-token,"
    " x-kxm-session-token, mcp-protocol-version, mcp-session-id, last-event-id"
)
EXPOSED_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin, x-request-id, mcp-session-id"
MCP_PATH = "/mcp"
"""Where MCP over streamable HTTP is served (``server/mcp_http.py``)."""


class Endpoint(Protocol_):
    """A path of the HTTP port served by something other than an RPC route (MCP at ``/mcp``)."""

    async def serve(
        self,
        head: http1.Head,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep: bool,
        extra: Sequence[tuple[str, str]],
    ) -> bool:
        """Answer one request whose body was read, with ``extra`` headers (CORS); whether the
        connection may serve another."""
        ...


class SessionCheck(Protocol_):
    """Finds the dashboard session of a call without a bearer token (``server/dashboard.py``)."""

    def session_of(self, headers: Mapping[str, str]) -> DashboardSession | None:
        """The call's session (None: it carries no session cookie).

        Raises:
            HubError: a session cookie that is not valid, or a call that fails the CSRF checks.
        """
        ...

    def seconds_left(self, session: DashboardSession) -> float:
        """How long the session has yet on the hub's clock (a call it admits ends by then)."""
        ...


class HttpApiServer:
    """Serves the API routes until stopped (see the module docstring)."""

    def __init__(
        self,
        host: str,
        port: int,
        routes: Mapping[str, Route],
        *,
        ssl_context: ssl.SSLContext | None = None,
        cors_origins: Sequence[str] = (),
        endpoints: Mapping[str, Endpoint] | None = None,
        sessions: SessionCheck | None = None,
        max_connections: int = MAX_CONNECTIONS,
        max_connections_per_source: int = MAX_CONNECTIONS_PER_SOURCE,
    ) -> None:
        # One socket: "localhost" would bind 127.0.0.1 and ::1, on two ports when the port is 0.
        self._host = "127.0.0.1" if host == "localhost" else host.strip("[]")
        self._port = port
        self._routes = dict(routes)
        self._endpoints = dict(endpoints or {})
        self._sessions = sessions
        self._ssl = ssl_context
        self._cors = frozenset(cors_origins)
        self._max_connections = max_connections
        self._max_per_source = max_connections_per_source
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], asyncio.BaseTransport] = {}
        self._sources: Counter[str] = Counter()
        self._busy: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def tls(self) -> bool:
        """Whether the routes are served over TLS."""
        return self._ssl is not None

    @property
    def open_connections(self) -> int:
        """Connections being served now (at most ``max_connections``)."""
        return len(self._connections)

    async def start(self) -> int:
        """Bind and start serving; the bound port (the chosen one when asked for port 0).

        Raises:
            OSError: the address cannot be bound.
        """
        self._server = await asyncio.start_server(
            self._serve, self._host, self._port, limit=16 * 1024, reuse_address=True
        )
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def stop(self, grace: float = 0.0) -> None:
        """Stop listening; let requests in progress finish within ``grace``, then end every connection."""
        if self._server is None:
            return
        server, self._server = self._server, None
        server.close()
        for task in list(self._connections):
            if task not in self._busy:
                task.cancel()  # idle between requests: nothing to finish
        busy = list(self._busy)
        if busy and grace > 0:
            await asyncio.wait(busy, timeout=grace)
        pending = list(self._connections)
        for task in pending:
            task.cancel()
        if pending:
            _, late = await asyncio.wait(pending, timeout=STOP_TIMEOUT)
            if late:
                log.warning("http_connections_left", count=len(late))
        await server.wait_closed()

    # -- connections ---------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        transport = writer.transport
        peer = writer.get_extra_info("peername")
        source = str(peer[0]) if isinstance(peer, tuple) else "unknown"
        if (
            self._server is None
            or len(self._connections) >= self._max_connections
            or self._sources[source] >= self._max_per_source
        ):
            transport.abort()  # over a cap (or stopping): the descriptor is freed at once, unread
            return
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = transport
        self._sources[source] += 1
        _keep_alive(writer)
        try:
            await self._requests(reader, writer, f"http:{source}")
            writer.close()
            async with asyncio.timeout(STOP_TIMEOUT):
                await writer.wait_closed()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, TimeoutError):
            pass  # the client went away, failed its handshake or was too slow
        except asyncio.CancelledError:
            pass  # stop(): end normally (a task ending cancelled makes 3.11's stream protocol log it)
        except Exception:
            # A defect: the peer gets no answer, the hub keeps serving others, and it is logged once.
            log.exception("http_connection_failed")
        finally:
            self._connections.pop(task, None)
            self._busy.discard(task)
            self._sources[source] -= 1
            if self._sources[source] <= 0:
                del self._sources[source]
            transport.abort()  # a no-op after a clean close

    async def _requests(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer_host: str) -> None:
        """Serve the connection's requests one after another until it closes or must be closed."""
        if self._ssl is not None:
            async with asyncio.timeout(HEAD_TIMEOUT):
                if not await http1.start_tls(writer, self._ssl):
                    return
        task = asyncio.current_task()
        assert task is not None
        first = True
        while self._server is not None:
            try:
                # The wait for a request is the idle timeout; once it starts, its head has HEAD_TIMEOUT.
                async with asyncio.timeout(HEAD_TIMEOUT if first else IDLE_TIMEOUT):
                    start = await reader.readexactly(1)
                async with asyncio.timeout(HEAD_TIMEOUT):
                    data = start + await reader.readuntil(b"\r\n\r\n")
            except TimeoutError:
                if first:
                    await _plain(writer, 408, "the request head did not arrive in time", keep=False)
                return
            except asyncio.IncompleteReadError:
                return  # closed between requests
            except asyncio.LimitOverrunError:
                await _plain(writer, 431, "the request head is too large", keep=False)
                return
            first = False
            try:
                head = http1.parse_head(data)
            except http1.BadRequest as refusal:
                await _plain(writer, refusal.status, str(refusal), keep=False)
                return
            self._busy.add(task)
            try:
                # A task of its own: a fresh context for admission's and the logger's context variables.
                served = asyncio.create_task(
                    self._request(head, reader, writer, peer_host), context=contextvars.Context()
                )
                keep = await served
            finally:
                self._busy.discard(task)
            if not keep:
                return

    # -- requests ------------------------------------------------------------------------------

    async def _request(
        self, head: http1.Head, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer_host: str
    ) -> bool:
        """Answer one request; whether the connection may serve another."""
        cors = self._cors_headers(head.headers.get("origin"))
        keep = head.keep_alive and head.method != "HEAD"  # a HEAD answer would carry a body: close after
        try:
            async with asyncio.timeout(BODY_TIMEOUT):
                body = await http1.read_body(reader, writer, head, MAX_BODY_BYTES)
        except http1.BadRequest as refusal:
            await _plain(writer, refusal.status, str(refusal), keep=False, extra=cors)
            return False
        except TimeoutError:
            await _plain(writer, 408, "the request body did not arrive in time", keep=False, extra=cors)
            return False
        if head.method == "OPTIONS":
            return await self._preflight(writer, cors, keep)
        endpoint = self._endpoints.get(head.path)
        if endpoint is not None:
            return await endpoint.serve(head, body, reader, writer, keep, cors)
        if head.method != "POST":
            await _plain(writer, 405, "RPCs are called with POST", keep=keep, extra=[("Allow", "POST"), *cors])
            return keep
        protocol = protocol_for(head.headers.get("content-type", ""))
        if protocol is None:
            accepted = [("Accept-Post", ", ".join(CONTENT_TYPES)), *cors]
            await _plain(writer, 415, "unsupported Content-Type", keep=keep, extra=accepted)
            return keep
        route = self._routes.get(head.path)
        if route is None:
            await self._no_route(head, protocol, writer, keep, cors)
            return keep
        if not _fits(protocol, route):
            kind = "a server-streaming RPC" if route.streaming else "a unary RPC"
            await _plain(
                writer, 415, f"{head.path} is {kind}: use the matching Connect content type", keep=keep, extra=cors
            )
            return keep
        call = IncomingCall(route.gate.method, head.headers.items(), peer_host)
        deadline = timeout_seconds(head.headers)
        if self._sessions is not None and call.credentials.bearer is None:
            try:
                session = self._sessions.session_of(head.headers)
            except HubError as refused:
                # Never the cookie or the CSRF value: the route and why.
                log.info("dashboard_call_refused", rpc=route.gate.method, reason=refused.reason, peer=peer_host)
                await self._refuse(protocol, refused, writer, keep, cors)
                return keep
            if session is not None:
                call.credentials = dataclasses.replace(call.credentials, dashboard=session)
                # A session's calls end with it: an open watch does not outlive the session's expiry.
                left = self._sessions.seconds_left(session)
                deadline = left if deadline is None else min(deadline, left)
        context = HttpCallContext(None if deadline is None else time.monotonic() + deadline, writer.transport)
        decode = decoder(protocol, route, body, head.headers)
        if route.streaming:
            return await answer_stream(route, protocol, call, decode, context, reader, writer, extra=cors)
        return await answer_unary(route, protocol, call, decode, context, reader, writer, keep=keep, extra=cors)

    async def _no_route(
        self,
        head: http1.Head,
        protocol: Protocol,
        writer: asyncio.StreamWriter,
        keep: bool,
        cors: list[tuple[str, str]],
    ) -> None:
        """UNIMPLEMENTED for a path that is no RPC of the contract, or the channel (gRPC only)."""
        if head.path in RPCS:
            message = f"{head.path} is served over gRPC only (it streams both ways)"
        else:
            message = f"there is no RPC {head.path}"
        error = Unimplemented(message, reason=Reason.ROUTE_NOT_FOUND)
        await self._refuse(protocol, error, writer, keep, cors, status=501 if head.path in RPCS else 404)

    async def _refuse(
        self,
        protocol: Protocol,
        error: HubError,
        writer: asyncio.StreamWriter,
        keep: bool,
        cors: list[tuple[str, str]],
        *,
        status: int | None = None,
    ) -> None:
        """Answer ``error`` in the call's protocol before any RPC ran (Connect unary: an HTTP status)."""
        if protocol.family is Family.CONNECT_UNARY:
            code = status if status is not None else HTTP_STATUS.get(error.status, 500)
            await answer(writer, code, "application/json", json_bytes(connect_error(error)), keep, cors)
            return
        ending = grpc_web_trailers if protocol.family is Family.GRPC_WEB else end_of_stream
        await answer(writer, 200, protocol.content_type, ending(error, ""), keep, cors)

    # -- CORS ----------------------------------------------------------------------------------

    def _cors_headers(self, origin: str | None) -> list[tuple[str, str]]:
        """The CORS headers of a response to ``origin`` (none when CORS is off or it is not allowed)."""
        if origin is None or not self._cors or ("*" not in self._cors and origin not in self._cors):
            return []
        return [
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Expose-Headers", EXPOSED_HEADERS),
            ("Vary", "Origin"),
        ]

    async def _preflight(self, writer: asyncio.StreamWriter, cors: list[tuple[str, str]], keep: bool) -> bool:
        if not cors:
            await _plain(writer, 403, "this origin may not call the hub (--http-cors-origin)", keep=keep)
            return keep
        allowed = [
            *cors,
            ("Access-Control-Allow-Methods", "POST"),
            ("Access-Control-Allow-Headers", ALLOWED_HEADERS),
            ("Access-Control-Max-Age", "7200"),
        ]
        await answer(writer, 204, "", b"", keep, allowed)
        return keep


KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 30, 10, 3
"""TCP keepalive of accepted connections: a peer that vanished (no close, no reset) is found within
about a minute, and its stream gives back the agent's stream slot (gRPC's keepalive does this there)."""


def _keep_alive(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is None:
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (
        ("TCP_KEEPIDLE", KEEPALIVE_IDLE),
        ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
        ("TCP_KEEPCNT", KEEPALIVE_COUNT),
    ):
        if hasattr(socket, option):  # Linux; elsewhere the system's defaults
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


def _fits(protocol: Protocol, route: Route) -> bool:
    """Whether the protocol can carry the route: gRPC-Web both kinds, Connect's unary or streaming
    form only its own kind."""
    if protocol.family is Family.GRPC_WEB:
        return True
    return route.streaming == (protocol.family is Family.CONNECT_STREAM)


async def _plain(
    writer: asyncio.StreamWriter, status: int, text: str, *, keep: bool, extra: Sequence[tuple[str, str]] = ()
) -> None:
    """An answer that is not an RPC's (a malformed request, a wrong method or media type): plain text."""
    await answer(writer, status, "text/plain; charset=utf-8", (text + "\n").encode("utf-8"), keep, extra)


class UnavailableEndpoint:
    """``/mcp`` on a hub installed without the ``mcp`` extra: 501, saying how to install it."""

    async def serve(
        self,
        head: http1.Head,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep: bool,
        extra: Sequence[tuple[str, str]],
    ) -> bool:
        text = "MCP over HTTP needs the mcp package on the hub: pip install 'kxm-hub[mcp]'"
        await _plain(writer, 501, text, keep=keep, extra=extra)
        return keep
