"""MCP over streamable HTTP at ``/mcp`` on the HTTP port: the agent tools, each call admitted in-process.

The ``mcp`` package's session manager serves the protocol (stateless, JSON responses: every POST
carries its own credentials, so any replica answers any request and nothing is kept between them);
this module bridges one HTTP request of the hub's own server to it as an ASGI call, and gives each
request the tools of the agent its headers name: ``Authorization: Bearer <project token>``,
``x-kxm-agent-id``, ``x-kxm-agent-key`` and the tool-policy tokens, as over gRPC. A tool call is its
RPC, admitted by the same gate and answered by the same servicer as over gRPC or the HTTP port
(``http_calls.call_unary``), without a second process or a network hop. Tools the presented tokens'
policies deny are not listed; the hub refuses them anyway. New inbox events are announced once, in
the result of the agent's next tool call (``mcp_news.py``). Tool calls of MCP 2026-07-28 are
answered without the SDK's ASGI round trip (``mcp_tool_calls.py``); everything else goes through it.

It needs the ``mcp`` extra; without it the hub serves everything else and answers ``/mcp`` with 501
(``http_api.UnavailableEndpoint``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import structlog
from google.protobuf.message import Message
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from kxm_grpc.errors import HubError, Unimplemented
from kxm_grpc.mcp.server import AgentTools, build_server, policies_of
from kxm_grpc.server import http1
from kxm_grpc.server.admission import IncomingCall
from kxm_grpc.server.context import CallContext
from kxm_grpc.server.http_calls import ClientLeft, HttpCallContext, Route, call_unary, watching, write
from kxm_grpc.server.mcp_news import InboxNews
from kxm_grpc.server.mcp_tool_calls import CallTool, DirectToolCalls
from kxm_grpc.server.settings import is_loopback

log = structlog.get_logger("kxm.mcp")

CALL_TIMEOUT = 15.0
"""The deadline of a tool call that does not wait (one that waits gets its wait more)."""


class McpEndpoint:
    """Serves MCP at ``/mcp`` until stopped (see the module docstring)."""

    def __init__(
        self, routes: Mapping[str, Route], news: InboxNews, *, host: str, cors_origins: Sequence[str], tls: bool
    ) -> None:
        self._routes = routes
        self._news = news
        self._scheme = "https" if tls else "http"
        self._server = build_server(self._tools_for)
        security = None
        if is_loopback(host):
            # A page on another origin must not reach a loopback hub through DNS rebinding.
            names = ("127.0.0.1", "localhost", "[::1]")
            security = TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=[f"{name}:*" for name in names],
                allowed_origins=[
                    *(f"{scheme}://{name}:*" for scheme in ("http", "https") for name in names),
                    # The named CORS origins too; "*" names none here (the SDK matches origins exactly).
                    *(origin for origin in cors_origins if origin != "*"),
                ],
            )
        self._manager = StreamableHTTPSessionManager(
            app=self._server, json_response=True, stateless=True, security_settings=security
        )
        self._direct = DirectToolCalls(self._server, security)
        self._running: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def start(self) -> None:
        """Start the session manager (its task group lives until ``stop``)."""
        started = asyncio.Event()

        async def run() -> None:
            async with self._manager.run():
                started.set()
                await self._stopping.wait()

        self._running = asyncio.create_task(run(), name="kxm-mcp-http")
        waiting = asyncio.ensure_future(started.wait())
        await asyncio.wait({waiting, self._running}, return_when=asyncio.FIRST_COMPLETED)
        if not started.is_set():
            waiting.cancel()
            await self._running  # raises what ended it

    async def stop(self) -> None:
        """End the session manager, and with it any request still in it."""
        if self._running is None:
            return
        self._stopping.set()
        with contextlib.suppress(asyncio.CancelledError):
            await self._running
        self._running = None

    async def _answer_directly(
        self, head: http1.Head, body: bytes, tools: Callable[[], CallTool]
    ) -> tuple[int, bytes] | None:
        """A tool call's answer (``mcp_tool_calls``), or None for the SDK (as always once stopping)."""
        if self._stopping.is_set():
            return None
        return await self._direct.answer(head.method, head.headers, body, tools)

    def _tools_for(self, ctx: Any) -> AgentTools:
        """The tools of the agent the headers of the SDK's request name."""
        request = ctx.request
        headers = [(name.lower(), value) for name, value in request.headers.items()] if request is not None else []
        client = getattr(request, "client", None)
        return self._tools_of(headers, f"http:{client.host}" if client is not None else "http:unknown")

    def _tools_of(self, headers: Sequence[tuple[str, str]], peer_host: str) -> AgentTools:
        """The tools of the agent ``headers`` name (lower-case names), each called in-process."""
        routes = self._routes
        agent: list[str] = []  # the agent the call was admitted as, once it was

        def admitted(context: CallContext) -> None:
            if context.caller.agent_id:
                agent.append(context.caller.agent_id)

        async def invoke(method: str, message: Message, response_type: type[Message], timeout: float | None) -> Message:
            route = routes.get(method)
            if route is None:
                raise Unimplemented(f"{method} is not served over HTTP")
            call = IncomingCall(method, headers, peer_host)
            deadline = None if timeout is None else time.monotonic() + timeout
            return await call_unary(route, call, lambda: message, HttpCallContext(deadline), admitted=admitted)

        async def news() -> str | None:
            # Only for an agent its call authenticated: a refused credential learns nothing.
            if not agent:
                return None
            try:
                return await self._news.take(agent[-1])
            except HubError as error:
                # The call's own answer matters more (a model must not retry a send that went
                # through); its position did not move, so the next call tells it.
                log.warning("mcp_news_not_read", code=error.status, reason=str(error.reason or ""))
                return None

        values = dict(headers)
        policies = policies_of((values.get("x-kxm-attempt-token"), values.get("x-kxm-session-token")))
        return AgentTools(invoke, policies, timeout=CALL_TIMEOUT, news=news)

    async def serve(
        self,
        head: http1.Head,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep: bool,
        extra: Sequence[tuple[str, str]],
    ) -> bool:
        """Answer one request (cancelled when the client closes its connection, as its RPC would be),
        with ``extra`` headers (CORS): a tool call directly (``mcp_tool_calls``), anything else
        through the session manager, as an ASGI call."""
        peer = writer.get_extra_info("peername")
        peer_host = f"http:{peer[0]}" if isinstance(peer, tuple) else "http:unknown"

        def tools() -> CallTool:
            return self._tools_of(list(head.headers.items()), peer_host).call

        try:
            direct, closes = await watching(reader, self._answer_directly(head, body, tools))
        except ClientLeft:
            return False
        keep = keep and not closes  # bytes sent meanwhile were read: close after the answer (decision 288)
        if direct is not None:
            status, data = direct
            headers = [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *extra]
            if not keep:
                headers.append(("Connection", "close"))
            await write(writer, http1.response_head(status, headers) + data)
            return keep
        path, _, query = head.target.partition("?")
        local = writer.get_extra_info("sockname")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": head.method,
            "scheme": self._scheme,
            "path": urllib.parse.unquote(path),
            "raw_path": path.encode("latin-1"),
            "query_string": query.encode("latin-1"),
            "root_path": "",
            "headers": [(name.encode("latin-1"), value.encode("latin-1")) for name, value in head.headers.items()],
            "client": tuple(peer[:2]) if isinstance(peer, tuple) else None,
            "server": tuple(local[:2]) if isinstance(local, tuple) else None,
            "state": {},
        }
        response = _AsgiResponse(writer, keep, extra)
        received = False
        done = asyncio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal received
            if not received:
                received = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()  # the client stays until the answer is written
            return {"type": "http.disconnect"}

        try:
            _, closes = await watching(reader, self._manager.handle_request(scope, receive, response.send))
        except ClientLeft:
            return False
        finally:
            done.set()
        return await response.finish() and not closes


class _AsgiResponse:
    """An ASGI app's answer written to an HTTP/1.1 connection: with its length when it gives one
    (buffered to the end), else chunked as it comes (then the connection closes after it)."""

    def __init__(self, writer: asyncio.StreamWriter, keep: bool, extra: Sequence[tuple[str, str]]) -> None:
        self._writer = writer
        self._keep = keep
        self._extra = extra
        self._status = 500
        self._headers: list[tuple[str, str]] = []
        self._body = bytearray()
        self._chunked = False
        self._started = False

    async def send(self, message: Mapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self._status = int(message["status"])
            self._headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", ())]
            self._headers += self._extra
            self._chunked = not any(name.lower() == "content-length" for name, _ in self._headers)
            return
        if message["type"] != "http.response.body":
            return
        data = bytes(message.get("body", b""))
        if not self._chunked:
            self._body += data
            return
        if not self._started:
            self._started = True
            head = [*self._headers, ("Transfer-Encoding", "chunked"), ("Connection", "close")]
            await self._write(http1.response_head(self._status, head))
        if data:
            await self._write(http1.chunk(data))

    async def finish(self) -> bool:
        """Write what is left; whether the connection may serve another request."""
        if self._chunked:
            if not self._started:
                await self._write(http1.response_head(self._status, [*self._headers, ("Content-Length", "0")]))
                return self._keep
            await self._write(http1.LAST_CHUNK)
            return False
        headers = [(n, v) for n, v in self._headers if n.lower() != "content-length"]
        headers.append(("Content-Length", str(len(self._body))))
        if not self._keep:
            headers.append(("Connection", "close"))
        await self._write(http1.response_head(self._status, headers) + bytes(self._body))
        return self._keep

    async def _write(self, data: bytes) -> None:
        await write(self._writer, data)
