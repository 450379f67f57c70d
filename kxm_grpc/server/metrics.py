"""The Prometheus metrics endpoint: ``GET /metrics`` on its own address, on the hub's event loop.

It listens on ``--metrics-host`` (loopback by default), never on the gRPC host by accident. Beyond
loopback every scrape must carry ``Authorization: Bearer <admin token>``, checked in constant time
against the admin token's hash; a missing or wrong token is 401 with ``WWW-Authenticate: Bearer``
and spends the peer address's rate budget, like a failed gRPC authentication. On loopback no token
is needed: the machine is the trust boundary of a loopback hub (it writes its generated tokens to a
local file and serves gRPC without TLS there), and the metrics hold only counts by method, status
code and event (no project names, bodies or credentials).

It is a deliberately small HTTP/1.1 server (one request per connection, then close): only
``GET /metrics`` is served, anything else is 404. It is an asyncio server rather than
``prometheus_client.start_http_server``, which can neither check a token nor be stopped; this one
stops with the hub.
"""

from __future__ import annotations

import asyncio
import contextlib
import math

import structlog
from prometheus_client import REGISTRY
from prometheus_client.exposition import choose_encoder

from kxm_grpc.domain.secrets import secret_matches
from kxm_grpc.errors import ResourceExhausted
from kxm_grpc.server.ratelimit import RateLimiter

log = structlog.get_logger("kxm.metrics")

MAX_HEAD_BYTES = 16 * 1024
"""A request line and headers larger than this are refused (431) without reading further."""

READ_TIMEOUT = 10.0
"""Seconds a client has to send its request head; a silent connection is closed after it."""

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    408: "Request Timeout",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
}


class MetricsServer:
    """Serves ``GET /metrics`` until stopped.

    ``admin_token_hash``: when set, every request must present that token as a bearer token;
    None serves without authentication (only ever on loopback: ``Settings.validate`` refuses a
    metrics host beyond loopback without an explicit admin token).
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        admin_token_hash: str | None,
        limiter: RateLimiter | None = None,
    ) -> None:
        # One socket: "localhost" would bind 127.0.0.1 and ::1, on two ports when the port is 0.
        self._host = "127.0.0.1" if host == "localhost" else host.strip("[]")
        self._port = port
        self._token_hash = admin_token_hash
        self._limiter = limiter
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def requires_token(self) -> bool:
        """Whether scrapes must present the admin token."""
        return self._token_hash is not None

    async def start(self) -> int:
        """Bind and start serving; return the bound port (the chosen one when asked for port 0).

        Raises:
            OSError: the address cannot be bound.
        """
        self._server = await asyncio.start_server(
            self._serve, self._host, self._port, limit=MAX_HEAD_BYTES, reuse_address=True
        )
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def stop(self) -> None:
        """Stop listening and end every open connection."""
        if self._server is None:
            return
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        for task in list(self._connections):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._server.wait_closed()
        self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            await self._respond(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away; nothing to answer
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()

    async def _respond(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(READ_TIMEOUT):
                head = await reader.readuntil(b"\r\n\r\n")
        except TimeoutError:
            await _send(writer, 408)
            return
        except asyncio.LimitOverrunError:
            await _send(writer, 431)
            return
        try:
            method, target, headers = _parse_head(head)
        except ValueError:
            await _send(writer, 400)
            return
        if self._token_hash is not None and not self._authorized(headers.get("authorization", "")):
            peer = writer.get_extra_info("peername")
            retry = self._spend_failure(peer[0] if isinstance(peer, tuple) else str(peer))
            if retry is not None:
                await _send(writer, 429, extra=(("Retry-After", str(retry)),))
                return
            log.info("metrics_unauthorized")
            await _send(writer, 401, extra=(("WWW-Authenticate", 'Bearer realm="kxm metrics"'),))
            return
        if method != "GET" or target.split("?", 1)[0] != "/metrics":
            await _send(writer, 404)
            return
        encoder, content_type = choose_encoder(headers.get("accept", ""))
        # Collecting walks every metric under the registry's locks: off the event loop.
        body = await asyncio.to_thread(encoder, REGISTRY)
        await _send(writer, 200, body, content_type=content_type)

    def _authorized(self, authorization: str) -> bool:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return False
        return secret_matches(token.strip(), self._token_hash)

    def _spend_failure(self, peer: str) -> int | None:
        """Spend the peer's budget for a failed attempt; the seconds to wait when it is spent."""
        if self._limiter is None:
            return None
        try:
            self._limiter.check(f"peer:{peer}")
        except ResourceExhausted as error:
            return max(1, math.ceil(error.retry_after or 1))
        return None


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    """The method, target and headers (lower-case names) of a request head.

    Raises:
        ValueError: the head is not an HTTP/1.x request.
    """
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise ValueError("not an HTTP/1.x request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise ValueError("malformed header")
        headers[name.lower()] = value.strip()
    return parts[0], parts[1], headers


async def _send(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes = b"",
    *,
    content_type: str = "text/plain; charset=utf-8",
    extra: tuple[tuple[str, str], ...] = (),
) -> None:
    if not body and status != 200:
        body = f"{status} {_REASONS[status]}\n".encode()
    lines = [
        f"HTTP/1.1 {status} {_REASONS[status]}",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in extra),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    await writer.drain()
