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
connections, bounded everywhere (at most ``MAX_CONNECTIONS`` open, the head within
``HEAD_TIMEOUT``, an idle connection closed after ``IDLE_TIMEOUT``, a body of at most
``MAX_BODY_BYTES`` within ``BODY_TIMEOUT``, each write within ``WRITE_TIMEOUT``), and no
framework between the socket and the servicer (docs/performance.md has the cost per call beside
gRPC's). Each request runs in a task of its own, so nothing of one call's context leaks into the
next on the same connection. A server-streaming response is chunked, and ends when the client
closes its connection, as a gRPC stream ends on the client's cancel.

CORS is off unless ``--http-cors-origin`` names the origins allowed (or ``*``): then a preflight
from one of them is answered and responses carry ``Access-Control-Allow-Origin``, so a browser on
that origin may call with its own credentials headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn
from typing import Protocol as Protocol_

import grpc
import structlog
from google.protobuf import message_factory
from google.protobuf.message import Message

from kxm_grpc._status import from_status_bytes
from kxm_grpc.errors import DeadlineExceeded, HubError, Internal, Reason, ResourceExhausted, Unimplemented
from kxm_grpc.server import http1
from kxm_grpc.server.admission import Admission, Gate, IncomingCall
from kxm_grpc.server.connect import (
    CONTENT_TYPES,
    HTTP_STATUS,
    Family,
    Protocol,
    connect_error,
    end_of_stream,
    frame,
    grpc_web_trailers,
    protocol_for,
    timeout_seconds,
    unframe,
)
from kxm_grpc.server.methods import MAX_REQUEST_BYTES, RPCS

log = structlog.get_logger("kxm.http")

MAX_CONNECTIONS = 256
"""Connections open at once; one beyond is closed when accepted, before anything is read."""
HEAD_TIMEOUT = 5.0
"""Seconds for the TLS handshake and the first request's head."""
IDLE_TIMEOUT = 60.0
"""Seconds a kept-alive connection may wait for its next request."""
BODY_TIMEOUT = 30.0
"""Seconds for a request's whole body."""
WRITE_TIMEOUT = 10.0
"""Seconds one write may wait for the peer to read (it is aborted after it)."""
MAX_BODY_BYTES = 4 * MAX_REQUEST_BYTES
"""The largest body read (JSON takes more room than the binary form the 256 KiB cap applies to)."""
STOP_TIMEOUT = 2.0
"""Seconds ``stop`` waits for its cancelled connections to end."""

ALLOWED_HEADERS = (
    "authorization, content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web,"
    " x-user-agent, x-request-id, x-kxm-agent-id, x-kxm-agent-key, x-kxm-project, x-kxm-attempt-token,"
    " x-kxm-session-token"
)
EXPOSED_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin, x-request-id"
MCP_PATH = "/mcp"
"""Where MCP over streamable HTTP is served (``server/mcp_http.py``)."""


class Endpoint(Protocol_):
    """A path of the HTTP port served by something other than an RPC route (MCP at ``/mcp``)."""

    async def serve(
        self, head: http1.Head, body: bytes, writer: asyncio.StreamWriter, peer_host: str, keep: bool
    ) -> bool:
        """Answer one request whose body was read; whether the connection may serve another."""
        ...


@dataclass(frozen=True, slots=True)
class Route:
    """One RPC served over HTTP: its admission gate, request type and servicer method."""

    gate: Gate
    request_type: type[Message]
    behavior: Callable[[Any, Any], Any]
    """The servicer's method: a coroutine function (unary) or an async generator function."""
    streaming: bool


def routes_from(admission: Admission, handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]) -> dict[str, Route]:
    """The HTTP routes of the servicers' own method handlers (unwrapped; admission runs here), by path.

    Client- and bidirectional-streaming RPCs (the agent channel) are left out.
    """
    routes: dict[str, Route] = {}
    for method, handler in handlers.items():
        facts = RPCS.get(method)
        if facts is None or facts.descriptor is None or handler.request_streaming:
            continue
        streaming = handler.response_streaming
        behavior = handler.unary_stream if streaming else handler.unary_unary
        assert behavior is not None
        request_type = message_factory.GetMessageClass(facts.descriptor.input_type)
        routes[method] = Route(admission.gate(method), request_type, behavior, streaming)
    return routes


class HttpCallContext:
    """What a servicer reads of its call over HTTP: the time left and, for Subscribe, how the stream
    registry ends a stuck stream (``abort_with_status``: the error is kept and the connection aborted,
    since a peer that does not read can be told nothing more)."""

    __slots__ = ("_deadline", "_transport", "cut")

    def __init__(self, deadline: float | None, transport: asyncio.WriteTransport | None = None) -> None:
        self._deadline = deadline
        self._transport = transport
        self.cut: HubError | None = None

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        details = dict(status.trailing_metadata or ()).get("grpc-status-details-bin")
        self.cut = from_status_bytes(details) if isinstance(details, bytes) else Internal(str(status.details))
        if self._transport is not None:
            self._transport.abort()
        raise ConnectionAbortedError("the stream was cut")


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
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        # One socket: "localhost" would bind 127.0.0.1 and ::1, on two ports when the port is 0.
        self._host = "127.0.0.1" if host == "localhost" else host.strip("[]")
        self._port = port
        self._routes = dict(routes)
        self._endpoints = dict(endpoints or {})
        self._ssl = ssl_context
        self._cors = frozenset(cors_origins)
        self._max_connections = max_connections
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], asyncio.BaseTransport] = {}
        self._busy: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def tls(self) -> bool:
        """Whether the routes are served over TLS."""
        return self._ssl is not None

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
        if self._server is None or len(self._connections) >= self._max_connections:
            transport.abort()  # over the cap (or stopping): the descriptor is freed at once
            return
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = transport
        try:
            await self._requests(reader, writer)
            writer.close()
            async with asyncio.timeout(STOP_TIMEOUT):
                await writer.wait_closed()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, TimeoutError):
            pass  # the client went away, failed its handshake or was too slow
        except asyncio.CancelledError:
            pass  # stop(): end normally (a task ending cancelled makes 3.11's stream protocol log it)
        finally:
            self._connections.pop(task, None)
            self._busy.discard(task)
            transport.abort()  # a no-op after a clean close

    async def _requests(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve the connection's requests one after another until it closes or must be closed."""
        if self._ssl is not None:
            async with asyncio.timeout(HEAD_TIMEOUT):
                if not await http1.start_tls(writer, self._ssl):
                    return
        task = asyncio.current_task()
        assert task is not None
        peer = writer.get_extra_info("peername")
        peer_host = f"http:{peer[0]}" if isinstance(peer, tuple) else "http:unknown"
        first = True
        while self._server is not None:
            try:
                async with asyncio.timeout(HEAD_TIMEOUT if first else IDLE_TIMEOUT):
                    data = await reader.readuntil(b"\r\n\r\n")
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
        if head.method == "OPTIONS":
            return await self._preflight(head, writer, cors)
        keep = head.keep_alive
        try:
            async with asyncio.timeout(BODY_TIMEOUT):
                body = await http1.read_body(reader, writer, head, MAX_BODY_BYTES)
        except http1.BadRequest as refusal:
            await _plain(writer, refusal.status, str(refusal), keep=False, extra=cors)
            return False
        except TimeoutError:
            await _plain(writer, 408, "the request body did not arrive in time", keep=False, extra=cors)
            return False
        endpoint = self._endpoints.get(head.path)
        if endpoint is not None:
            return await endpoint.serve(head, body, writer, peer_host, keep)
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
        context = HttpCallContext(None if deadline is None else time.monotonic() + deadline, writer.transport)
        if route.streaming:
            return await self._stream(route, protocol, call, body, context, reader, writer, cors)
        return await self._unary(route, protocol, call, body, context, writer, keep, cors)

    async def _unary(
        self,
        route: Route,
        protocol: Protocol,
        call: IncomingCall,
        body: bytes,
        context: HttpCallContext,
        writer: asyncio.StreamWriter,
        keep: bool,
        cors: list[tuple[str, str]],
    ) -> bool:
        error: HubError | None = None
        response: Message | None = None
        try:
            data = unframe(body) if protocol.enveloped else body
            response = await call_unary(route, call, lambda: _decode(protocol, route, data), context)
        except HubError as refused:
            error = refused
        headers = [("x-request-id", call.request_id), *cors]
        if protocol.family is Family.GRPC_WEB:
            payload = (b"" if response is None else frame(protocol.encode(response))) + grpc_web_trailers(
                error, call.request_id
            )
            await _answer(writer, 200, protocol.content_type, payload, keep, headers)
        elif error is not None:
            body_out = _json(connect_error(error))
            await _answer(writer, HTTP_STATUS.get(error.status, 500), "application/json", body_out, keep, headers)
        else:
            assert response is not None
            await _answer(writer, 200, protocol.content_type, protocol.encode(response), keep, headers)
        return keep

    async def _stream(
        self,
        route: Route,
        protocol: Protocol,
        call: IncomingCall,
        body: bytes,
        context: HttpCallContext,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        cors: list[tuple[str, str]],
    ) -> bool:
        """A server-streaming call: chunked frames, then the end (Connect) or trailers (gRPC-Web).

        Ends early when the client closes the connection (a read returns), like a cancelled gRPC call.
        The connection is closed after it: one streaming call per connection.
        """
        headers = [
            ("Content-Type", protocol.content_type),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "close"),
            ("x-request-id", call.request_id),
            *cors,
        ]
        await _write(writer, http1.response_head(200, headers))
        watch = asyncio.ensure_future(reader.read(1))
        sending = asyncio.ensure_future(self._send_stream(route, protocol, call, body, context, writer))
        try:
            done, _ = await asyncio.wait({watch, sending}, return_when=asyncio.FIRST_COMPLETED)
            if sending not in done:  # the client left (or sent something mid-stream): stop serving it
                sending.cancel()
                with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                    await sending
                return False
            error = sending.result()
        finally:
            watch.cancel()
        if context.cut is not None:
            return False  # cut while stuck writing: the connection is aborted already
        ending = end_of_stream if protocol.family is Family.CONNECT_STREAM else grpc_web_trailers
        await _write(writer, http1.chunk(ending(error, call.request_id)) + http1.LAST_CHUNK)
        return False

    async def _send_stream(
        self,
        route: Route,
        protocol: Protocol,
        call: IncomingCall,
        body: bytes,
        context: HttpCallContext,
        writer: asyncio.StreamWriter,
    ) -> HubError | None:
        """Write every response of the stream; the error it ended with (None: it ended well)."""
        gate = route.gate
        deadline = asyncio.timeout(context.time_remaining())
        try:
            await gate.admit(call)
            request = _decode(protocol, route, unframe(body))
            async with deadline, contextlib.aclosing(route.behavior(request, context)) as stream:
                async for response in stream:
                    await _write(writer, http1.chunk(frame(protocol.encode(response))))
                    del response
        except TimeoutError as caught:
            late = DeadlineExceeded("the call's deadline passed (connect-timeout-ms or grpc-timeout)")
            return gate.fail(call, late if deadline.expired() else caught)
        except ConnectionError:
            if context.cut is None:
                raise  # the client went away: there is no one to answer
            return gate.fail(call, context.cut)
        except Exception as caught:
            return gate.fail(call, caught)
        gate.succeeded()
        return None

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
        if protocol.family is Family.CONNECT_UNARY:
            status = 501 if head.path in RPCS else 404
            await _answer(writer, status, "application/json", _json(connect_error(error)), keep, cors)
            return
        ending = grpc_web_trailers if protocol.family is Family.GRPC_WEB else end_of_stream
        await _answer(writer, 200, protocol.content_type, ending(error, ""), keep, cors)

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

    async def _preflight(self, head: http1.Head, writer: asyncio.StreamWriter, cors: list[tuple[str, str]]) -> bool:
        keep = head.keep_alive
        if not cors:
            await _plain(writer, 403, "this origin may not call the hub (--http-cors-origin)", keep=keep)
            return keep
        allowed = [
            *cors,
            ("Access-Control-Allow-Methods", "POST"),
            ("Access-Control-Allow-Headers", ALLOWED_HEADERS),
            ("Access-Control-Max-Age", "7200"),
        ]
        await _answer(writer, 204, "", b"", keep, allowed)
        return keep


# -- helpers -------------------------------------------------------------------------------------


async def call_unary(
    route: Route, call: IncomingCall, decode: Callable[[], Message], context: HttpCallContext
) -> Message:
    """Admit ``call``, decode its request (after admission, as over gRPC) and answer it.

    Raises:
        HubError: what admission, the request or the servicer refused, logged and counted
            (``Gate.fail``); anything else is INTERNAL.
    """
    gate = route.gate
    try:
        admitted = await gate.admit(call)
        request = decode()
        gate.check_scope(admitted, request)
        response: Message = await _within(context, route.behavior(request, context))
    except Exception as caught:
        raise gate.fail(call, caught) from None
    gate.succeeded()
    return response


def _fits(protocol: Protocol, route: Route) -> bool:
    """Whether the protocol can carry the route: gRPC-Web both kinds, Connect's unary or streaming
    form only its own kind."""
    if protocol.family is Family.GRPC_WEB:
        return True
    return route.streaming == (protocol.family is Family.CONNECT_STREAM)


def _decode(protocol: Protocol, route: Route, data: bytes) -> Message:
    """The request message of a body.

    Raises:
        InvalidArgument: as ``Protocol.decode``.
        ResourceExhausted: (PAYLOAD_TOO_LARGE) larger than gRPC's request limit once decoded.
    """
    request = protocol.decode(data, route.request_type())
    if protocol.json and request.ByteSize() > MAX_REQUEST_BYTES:
        raise ResourceExhausted(
            f"the request is {request.ByteSize()} bytes, more than {MAX_REQUEST_BYTES}", reason=Reason.PAYLOAD_TOO_LARGE
        )
    return request


async def _within(context: HttpCallContext, work: Any) -> Any:
    """Await ``work`` within the call's deadline.

    Raises:
        DeadlineExceeded: the deadline passed first.
    """
    remaining = context.time_remaining()
    if remaining is None:
        return await work
    try:
        async with asyncio.timeout(remaining):
            return await work
    except TimeoutError:
        raise DeadlineExceeded("the call's deadline passed (connect-timeout-ms or grpc-timeout)") from None


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


async def _write(writer: asyncio.StreamWriter, data: bytes) -> None:
    """Write within ``WRITE_TIMEOUT``.

    Raises:
        ConnectionError: the peer did not read in time (the connection is aborted) or went away.
    """
    writer.write(data)
    try:
        async with asyncio.timeout(WRITE_TIMEOUT):
            await writer.drain()
    except TimeoutError:
        writer.transport.abort()
        raise ConnectionAbortedError("the peer does not read") from None


async def _answer(
    writer: asyncio.StreamWriter,
    status: int,
    content_type: str,
    body: bytes,
    keep: bool,
    extra: Sequence[tuple[str, str]] = (),
) -> None:
    headers = [("Content-Length", str(len(body)))]
    if content_type:
        headers.insert(0, ("Content-Type", content_type))
    if not keep:
        headers.append(("Connection", "close"))
    await _write(writer, http1.response_head(status, [*headers, *extra]) + body)


async def _plain(
    writer: asyncio.StreamWriter, status: int, text: str, *, keep: bool, extra: Sequence[tuple[str, str]] = ()
) -> None:
    """An answer that is not an RPC's (a malformed request, a wrong method or media type): plain text."""
    await _answer(writer, status, "text/plain; charset=utf-8", (text + "\n").encode("utf-8"), keep, extra)


class UnavailableEndpoint:
    """``/mcp`` on a hub installed without the ``mcp`` extra: 501, saying how to install it."""

    # Answered with the body unread beyond what was read: nothing of it is needed.

    async def serve(
        self, head: http1.Head, body: bytes, writer: asyncio.StreamWriter, peer_host: str, keep: bool
    ) -> bool:
        text = b"MCP over HTTP needs the mcp package on the hub: pip install 'kxm-hub[mcp]'\n"
        headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(text)))]
        writer.write(http1.response_head(501, headers) + text)
        await writer.drain()
        return keep
