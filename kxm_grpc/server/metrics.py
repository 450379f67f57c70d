"""The Prometheus metrics endpoint: ``GET /metrics`` on its own address, on the hub's event loop.

It listens on ``--metrics-host`` (loopback by default), never on the gRPC host by accident. Beyond
loopback every scrape must carry ``Authorization: Bearer <admin token>``, checked in constant time
against the admin token's hash; a missing or wrong token is 401 with ``WWW-Authenticate: Bearer``
and spends the peer address's rate budget, like a failed gRPC authentication. On loopback no token
is needed: the machine is the trust boundary of a loopback hub (it writes its generated tokens to a
local file and serves gRPC without TLS there), and the metrics hold only counts by method, status
code and event (no project names, bodies or credentials).

When the hub has a certificate (``--tls-cert``/``--tls-key``) metrics are served over TLS with it,
on loopback too; ``Settings.validate`` refuses a metrics host beyond loopback without one, since
every scrape would send the admin token in cleartext.

It is a deliberately small HTTP/1.1 server (one request per connection, then close): only
``GET /metrics`` is served, anything else is 404. It is an asyncio server rather than
``prometheus_client.start_http_server``, which can neither check a token nor be stopped; this one
stops with the hub.

It shares the process's file descriptors with gRPC and SQLite, so no peer may hold many of them or
hold one for long: at most ``MAX_CONNECTIONS`` are open at once (one more is closed as soon as it
is accepted, unread), the TLS handshake and the whole request head must arrive within
``HEAD_TIMEOUT`` (one deadline, not per read: trickling bytes does not extend it), and writing the
answer and closing each have a deadline after which the connection is aborted.
"""

from __future__ import annotations

import asyncio
import math
import ssl
from pathlib import Path

import structlog
from prometheus_client import REGISTRY, Gauge
from prometheus_client.exposition import choose_encoder

from kxm_grpc.domain.secrets import secret_matches
from kxm_grpc.errors import ResourceExhausted
from kxm_grpc.server.ratelimit import RateBudgets

log = structlog.get_logger("kxm.metrics")

MAX_HEAD_BYTES = 16 * 1024
"""A request line and headers larger than this are refused (431) without reading further."""

MAX_CONNECTIONS = 32
"""Connections open at once; one beyond is closed when accepted, before anything is read."""

HEAD_TIMEOUT = 2.0
"""Seconds a client has for the TLS handshake and its whole request head (408 after it)."""

WRITE_TIMEOUT = 10.0
"""Seconds writing an answer may take (a peer that does not read is aborted after it)."""

CLOSE_TIMEOUT = 2.0
"""Seconds a close may take (flushing what is left, the TLS close); the connection is aborted after it."""

STOP_TIMEOUT = 2.0
"""Seconds ``stop`` waits for its cancelled connections to finish (they do at once)."""

LOOP_TASKS = Gauge(
    "kxm_event_loop_tasks",
    "asyncio tasks on the hub's event loop as the scrape is answered (each call in progress holds about two;"
    " it returns to its idle level when calls end, so a level that only grows is work left behind).",
)

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    408: "Request Timeout",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
}


def server_ssl_context(cert: Path, key: Path) -> ssl.SSLContext:
    """A TLS server context (TLS 1.2 or later) with the hub's certificate; no client certificate asked.

    Raises:
        OSError: a file cannot be read.
        ssl.SSLError: the certificate or key is not valid PEM, or they do not match.
    """
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(certfile=cert, keyfile=key)
    return context


class MetricsServer:
    """Serves ``GET /metrics`` until stopped.

    ``admin_token_hash``: when set, every request must present that token as a bearer token;
    None serves without authentication (only ever on loopback: ``Settings.validate`` refuses a
    metrics host beyond loopback without an explicit admin token). ``ssl_context``: serve TLS
    (the handshake is done per connection, inside the head deadline and under the cap). The
    limits default to the module's constants; tests make them small.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        admin_token_hash: str | None,
        limiter: RateBudgets | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int = MAX_CONNECTIONS,
        head_timeout: float = HEAD_TIMEOUT,
        write_timeout: float = WRITE_TIMEOUT,
        close_timeout: float = CLOSE_TIMEOUT,
    ) -> None:
        # One socket: "localhost" would bind 127.0.0.1 and ::1, on two ports when the port is 0.
        self._host = "127.0.0.1" if host == "localhost" else host.strip("[]")
        self._port = port
        self._token_hash = admin_token_hash
        self._limiter = limiter
        self._ssl = ssl_context
        self._max_connections = max_connections
        self._head_timeout = head_timeout
        self._write_timeout = write_timeout
        self._close_timeout = close_timeout
        self._server: asyncio.Server | None = None
        # Each open connection's task and its TCP transport (the one under TLS, if any), aborted
        # when the task ends however it ends.
        self._connections: dict[asyncio.Task[None], asyncio.BaseTransport] = {}
        self.port = 0

    @property
    def requires_token(self) -> bool:
        """Whether scrapes must present the admin token."""
        return self._token_hash is not None

    @property
    def tls(self) -> bool:
        """Whether metrics are served over TLS."""
        return self._ssl is not None

    @property
    def open_connections(self) -> int:
        """Connections being served now (at most ``max_connections``)."""
        return len(self._connections)

    async def start(self) -> int:
        """Bind and start serving; return the bound port (the chosen one when asked for port 0).

        Raises:
            OSError: the address cannot be bound.
        """
        # TLS is started per connection (not with start_server's ssl=): a connection is counted
        # against the cap from its accept, and its handshake falls inside the head deadline.
        self._server = await asyncio.start_server(
            self._serve, self._host, self._port, limit=MAX_HEAD_BYTES, reuse_address=True
        )
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def stop(self) -> None:
        """Stop listening and end every open connection.

        Each connection's task is cancelled and returns normally (a task that ends cancelled makes
        Python 3.11's stream protocol log a CancelledError per connection); its transport is
        aborted on the way out. Cancelling, rather than aborting from here, also ends a TLS
        handshake cleanly: on 3.11 a transport aborted mid-handshake leaves its StreamWriter
        without one, and it complains when collected.
        """
        if self._server is None:
            return
        server, self._server = self._server, None
        server.close()
        pending = list(self._connections)
        for task in pending:
            task.cancel()
        if pending:
            _, late = await asyncio.wait(pending, timeout=STOP_TIMEOUT)
            if late:
                log.warning("metrics_connections_left", count=len(late))
        await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        transport = writer.transport
        if self._server is None or len(self._connections) >= self._max_connections:
            transport.abort()  # over the cap (or stopping): the descriptor is freed at once
            return
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = transport
        try:
            if await self._respond(reader, writer):
                # Still counted while closing: a TLS close can take the close deadline, and a slot
                # freed earlier would let peers that never answer it pile up uncounted.
                await self._close(writer)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, TimeoutError):
            pass  # the client went away, failed its handshake or was too slow: nothing to answer
        except asyncio.CancelledError:
            # stop() (or the loop's own shutdown) cancels: end normally, since a task that ends
            # cancelled makes the stream protocol's done callback log a traceback on Python 3.11.
            pass
        finally:
            self._connections.pop(task, None)
            transport.abort()  # a no-op after a clean close

    async def _respond(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection was aborted instead (nothing to close)."""
        secured = self._ssl is None
        try:
            async with asyncio.timeout(self._head_timeout):
                if self._ssl is not None:
                    if not await _start_tls(writer, self._ssl):
                        return False
                    secured = True
                head = await reader.readuntil(b"\r\n\r\n")
        except TimeoutError:
            # Slow with its head: 408. Slow with its handshake: there is no channel to answer on.
            return await self._send(writer, 408) if secured else False
        except asyncio.LimitOverrunError:
            return await self._send(writer, 431)
        try:
            method, target, headers = _parse_head(head)
        except ValueError:
            return await self._send(writer, 400)
        if self._token_hash is not None and not self._authorized(headers.get("authorization", "")):
            peer = writer.get_extra_info("peername")
            retry = self._spend_failure(peer[0] if isinstance(peer, tuple) else str(peer))
            if retry is not None:
                return await self._send(writer, 429, extra=(("Retry-After", str(retry)),))
            log.info("metrics_unauthorized")
            return await self._send(writer, 401, extra=(("WWW-Authenticate", 'Bearer realm="kxm metrics"'),))
        if method != "GET" or target.split("?", 1)[0] != "/metrics":
            return await self._send(writer, 404)
        encoder, content_type = choose_encoder(headers.get("accept", ""))
        LOOP_TASKS.set(len(asyncio.all_tasks()))  # counted here, on the loop: the encoder runs in a thread
        # Collecting walks every metric under the registry's locks: off the event loop.
        body = await asyncio.to_thread(encoder, REGISTRY)
        return await self._send(writer, 200, body, content_type=content_type)

    async def _send(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        body: bytes = b"",
        *,
        content_type: str = "text/plain; charset=utf-8",
        extra: tuple[tuple[str, str], ...] = (),
    ) -> bool:
        """Write one answer within the write deadline; False when it expired (the connection is aborted)."""
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
        try:
            async with asyncio.timeout(self._write_timeout):
                await writer.drain()
        except TimeoutError:
            writer.transport.abort()  # the peer does not read
            return False
        return True

    async def _close(self, writer: asyncio.StreamWriter) -> None:
        """Close gracefully (flush, then the TLS close) within the close deadline, else abort.

        Without it a TLS peer that never answers the close_notify would hold the connection for
        asyncio's 30 s TLS shutdown timeout.
        """
        writer.close()
        try:
            async with asyncio.timeout(self._close_timeout):
                await writer.wait_closed()
        except (ConnectionError, ssl.SSLError, TimeoutError):
            writer.transport.abort()

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


async def _start_tls(writer: asyncio.StreamWriter, context: ssl.SSLContext) -> bool:
    """The server side of the TLS handshake; False when it failed (the connection is lost).

    Any failure is the peer's: not TLS (plain HTTP, say), an unacceptable handshake, or a peer
    that went away. Python 3.11 reports the last as an AttributeError when the connection is lost
    mid-handshake (``StreamWriter.start_tls`` is handed no transport), hence the broad catch.
    """
    try:
        await writer.start_tls(context)
    except Exception:  # see above; CancelledError (the deadline, stop) passes through
        return False
    return True


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
