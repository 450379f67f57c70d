"""The public webhook listener: the HMAC-signed workflow routes over HTTP/1.1 (decision 43).

It listens on ``--webhook-host``/``--webhook-port`` (off unless a port is given, loopback unless a
host is) and serves two routes, nothing else:

==========================================================  ================================
``POST /v1/webhooks/{definition}``                          start a run (spec §2.1)
``POST /v1/webhooks/{definition}/runs/{run}/signals/{key}``  signal a waiting run (§2.10)
==========================================================  ================================

A start answers 202 ``{runId, status, duplicate: false}`` for a new run (never the run's
evidence), 200 ``{duplicate: true, runId, status}`` for a delivery seen before, and 204 when the
definition's event or filter does not match. A signal answers 202 when it queued a resume prompt,
else 200, with ``{duplicate, status, stageId, signalKey, retry, completed, degraded,
degradedRequirements, resumed}``. Any other path is 404 (ROUTE_NOT_FOUND), another method on a
route's path 405. An error is JSON ``{error, code, requestId}`` (``code``: the reason, as gRPC's
``ErrorInfo.reason``) plus the error's metadata; the status follows the gRPC code (``http_status``).

The work is the services' (``kxm_grpc/services/workflows/webhooks.py``); this module is the
transport and what can be refused from the head alone, before the body is read and before the
database is: a rate-limited source address (429), the route (404, 405; 400 PROTOCOL_ERROR
naming the segment, ``definition``, ``run`` or ``signalKey``, when a percent-decoded segment
holds a control character, NUL included, or is longer than ``MAX_SEGMENT_CHARS``: 64, 80 and
128), the media type (``application/json``, UTF-8 if a charset is named, else 415) and the length
(``Content-Length`` required, 411; at most 256 KiB, else 413 without reading the body). Two rate
budgets of ``--webhook-rate-limit`` requests a minute: each source address pays for every
connection it opens, when it is accepted (so a connection held idle costs its sender; an
address over its budget is answered 429 once its head is in), each definition for every request
whose signature verified (so forged traffic cannot use up a definition's budget: it spends its
own address's). Behind a reverse proxy every request comes from the proxy's address;
forwarded-for headers are not trusted.

Like the metrics listener (``server/metrics.py``), it is a small asyncio server sharing the
process's file descriptors, so no peer holds many or holds one long: at most ``MAX_CONNECTIONS``
open, and at most ``MAX_CONNECTIONS_PER_SOURCE`` (8) from one source address, both counted when a
connection is accepted (one more is closed at once, unread and uncharged, so one address cannot
take the listener from the others); the TLS handshake and the whole head within
``HEAD_TIMEOUT`` (one deadline, not per read), the whole body within ``BODY_TIMEOUT``, writing and
closing each bounded. One request per connection (``Connection: close``). TLS, when configured, uses
``--webhook-tls-cert``/``--webhook-tls-key``, else the hub's ``--tls-cert``/``--tls-key``.

Each request logs one ``webhook_request`` line (route kind, definition id, status, reason,
duration, request id, source address) and counts ``kxm_webhook_requests_total{route,code}``;
headers, bodies and signatures are never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import ssl
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

import structlog
from prometheus_client import Counter

from kxm_grpc.domain import messages
from kxm_grpc.domain.clock import rfc3339
from kxm_grpc.domain.workflows import definitions as definition_rules
from kxm_grpc.domain.workflows import inputs
from kxm_grpc.errors import HubError, Internal, InvalidArgument, NotFound, Reason
from kxm_grpc.server.admission import request_id_for
from kxm_grpc.server.ratelimit import RateBudgets, RateLimiter
from kxm_grpc.server.state import HubState
from kxm_grpc.services.workflows import runs, webhooks
from kxm_grpc.services.workflows.runs import Started
from kxm_grpc.services.workflows.signals import SignalOutcome

log = structlog.get_logger("kxm.webhooks")

MAX_HEAD_BYTES = 16 * 1024
"""A request line and headers larger than this are refused (431) without reading further."""

MAX_BODY_BYTES = runs.MAX_PAYLOAD_BYTES
"""The largest body accepted (256 KiB); a larger ``Content-Length`` is 413 before the body is read."""

MAX_CONNECTIONS = 64
"""Connections open at once; one beyond is closed when accepted, before anything is read."""

MAX_CONNECTIONS_PER_SOURCE = 8
"""Connections open at once from one source address; one beyond is closed when accepted, like one
beyond ``MAX_CONNECTIONS``, so one address cannot take the whole listener."""

MAX_SEGMENT_CHARS = {
    "definition": definition_rules.MAX_DEFINITION_ID_CHARS,
    "run": messages.MAX_RUN_ID_CHARS,
    "signalKey": inputs.MAX_SIGNAL_KEY_CHARS,
}
"""The longest route segments (percent-decoded): a definition id 64, a run id 80, a signal key 128."""

HEAD_TIMEOUT = 5.0
"""Seconds a client has for the TLS handshake and its whole request head (408 after it)."""

BODY_TIMEOUT = 10.0
"""Seconds a client has for its whole body once the head is in (408 after it)."""

WRITE_TIMEOUT = 10.0
"""Seconds writing an answer may take (a peer that does not read is aborted after it)."""

CLOSE_TIMEOUT = 2.0
"""Seconds a close may take (flushing what is left, the TLS close); the connection is aborted after it."""

LINGER_TIMEOUT = 1.0
"""After refusing a request whose body it did not read, how long the listener reads and discards
what the client still sends (at most ``LINGER_BYTES``) before closing: closing on unread data
resets the connection, and the reset can destroy the answer before the client reads it."""

LINGER_BYTES = 2 * MAX_BODY_BYTES

STOP_TIMEOUT = 2.0
"""Seconds ``stop`` waits for its cancelled connections to finish (they do at once)."""

RATE_WINDOW = 60.0
"""The rate budgets' window: ``--webhook-rate-limit`` is per minute."""

START = "start"
SIGNAL = "signal"
OTHER = "other"

WEBHOOK_REQUESTS = Counter(
    "kxm_webhook_requests",
    "Requests to the public webhook listener, by route (start, signal, other) and HTTP status code.",
    ["route", "code"],
)

_REASONS = {
    100: "Continue",
    200: "OK",
    202: "Accepted",
    204: "No Content",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    411: "Length Required",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

_STATUS = {
    "INVALID_ARGUMENT": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "FAILED_PRECONDITION": 409,
    "ABORTED": 409,
    "RESOURCE_EXHAUSTED": 429,
    "UNAVAILABLE": 503,
}
_BY_REASON = {Reason.PAYLOAD_TOO_LARGE: 413, Reason.UNSUPPORTED_MEDIA_TYPE: 415}

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_LENGTH = re.compile(r"[0-9]{1,15}")
_SECRET_WORDS = ("secret", "signature", "token", "password", "authorization")

_SINGLE = frozenset({"content-length", "content-type", "transfer-encoding", "expect", "x-request-id"})
"""Headers that may appear once (every ``x-`` header too: the signed ones among them)."""


def http_status(error: HubError) -> int:
    """The HTTP status of a hub error: its gRPC code's (400, 401, 403, 404, 409, 429, 503), 413 and
    415 by reason, 500 for anything else."""
    by_reason = _BY_REASON.get(error.reason) if isinstance(error.reason, Reason) else None
    return by_reason or _STATUS.get(error.status, 500)


def error_body(error: HubError, request_id: str) -> bytes:
    """``{error, code, requestId}`` and the error's metadata, less any key that names a secret."""
    data: dict[str, object] = {
        key: value for key, value in error.metadata.items() if not any(w in key.lower() for w in _SECRET_WORDS)
    }
    data.update(error=error.message, code=str(error.reason or Reason.PROTOCOL_ERROR), requestId=request_id)
    return _json(data)


def _json(data: Mapping[str, object]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True, slots=True)
class Route:
    """A request's route: its kind and the path's (percent-decoded) segments."""

    kind: str
    definition_id: str
    run_id: str = ""
    signal_key: str = ""


class Refused(Exception):
    """A request refused by the listener itself (before or instead of the services)."""

    def __init__(self, status: int, error: HubError, *, headers: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(error.message)
        self.status = status
        self.error = error
        self.headers = headers


def route_of(method: str, target: str) -> Route:
    """The route of a request line's method and target.

    Raises:
        Refused: 404 (ROUTE_NOT_FOUND) for any other path, 405 for another method than POST, 400
            (PROTOCOL_ERROR, naming the segment) for a segment holding a control character (NUL
            included) or longer than ``MAX_SEGMENT_CHARS``, once percent-decoded.
    """
    path = target.partition("?")[0]
    parts = path.split("/")
    shape = [None if index in (3, 5, 7) else part for index, part in enumerate(parts)]
    if shape == ["", "v1", "webhooks", None]:
        kind = START
    elif shape == ["", "v1", "webhooks", None, "runs", None, "signals", None]:
        kind = SIGNAL
    else:
        raise _no_route(path)
    try:
        segments = [urllib.parse.unquote(parts[index], errors="strict") for index in (3, 5, 7) if index < len(parts)]
    except UnicodeDecodeError:
        raise _no_route(path) from None
    if not all(segments):
        raise _no_route(path)
    if method != "POST":
        error = NotFound(f"{method} is not served here; use POST", reason=Reason.ROUTE_NOT_FOUND)
        raise Refused(405, error, headers=(("Allow", "POST"),))
    for name, segment in zip(MAX_SEGMENT_CHARS, segments, strict=False):
        _check_segment(name, segment)
    return Route(kind, *segments)


_CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _check_segment(name: str, segment: str) -> None:
    """Refuse what no id or key can be before it reaches the database (PostgreSQL refuses a NUL
    in text with an error, not an empty answer); the segment is named, never shown."""
    limit = MAX_SEGMENT_CHARS[name]
    metadata = {"segment": name}
    if _CONTROL_CHARACTER.search(segment):
        problem = "must not contain control characters (NUL included)"
    elif len(segment) > limit:
        problem = f"must be at most {limit} characters"
        metadata["limitChars"] = str(limit)
    else:
        return
    error = InvalidArgument(f"the route's {name} segment {problem}", reason=Reason.PROTOCOL_ERROR, metadata=metadata)
    raise Refused(400, error)


def _no_route(path: str) -> Refused:
    shown = path if len(path) <= 200 else path[:200] + "..."
    return Refused(404, NotFound(f"no route {shown}", reason=Reason.ROUTE_NOT_FOUND))


def parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    """The method, target, HTTP version and headers (lower-case names) of a request head.

    Header values are read as Latin-1 (HTTP's own), as the reference sender writes them.

    Raises:
        ValueError: not an HTTP/1.x request: a malformed line, a folded or control-character
            value, or a header that may appear once (the signed ones among them) repeated.
    """
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.0", "HTTP/1.1") or not _TOKEN.fullmatch(parts[0]):
        raise ValueError("not an HTTP/1.x request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not _TOKEN.fullmatch(name) or _CONTROL.search(value):
            raise ValueError("malformed header")
        key = name.lower()
        if key in headers:
            if key in _SINGLE or key.startswith("x-"):
                raise ValueError(f"repeated header {key}")
            continue
        headers[key] = value.strip(" \t")
    return parts[0], parts[1], parts[2], headers


def json_media_type(content_type: str) -> bool:
    """Whether a Content-Type is ``application/json``, with a charset (if any) of UTF-8."""
    media, *params = content_type.split(";")
    if media.strip().lower() != "application/json":
        return False
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


def content_length(headers: Mapping[str, str], limit: int) -> int:
    """The body's length from the head.

    Raises:
        Refused: 411 without ``Content-Length`` (or with ``Transfer-Encoding``), 400 when it is
            not a decimal number, 413 (PAYLOAD_TOO_LARGE) beyond ``limit``.
    """
    if "transfer-encoding" in headers or "content-length" not in headers:
        raise Refused(
            411,
            InvalidArgument(
                "send the body with Content-Length (no Transfer-Encoding)",
                reason=Reason.PROTOCOL_ERROR,
                metadata={"header": "content-length"},
            ),
        )
    text = headers["content-length"]
    if not _LENGTH.fullmatch(text):
        raise Refused(
            400,
            InvalidArgument(
                "Content-Length must be a decimal number",
                reason=Reason.PROTOCOL_ERROR,
                metadata={"header": "content-length"},
            ),
        )
    length = int(text)
    if length > limit:
        raise Refused(
            413,
            InvalidArgument(
                f"the body exceeds {limit} bytes",
                reason=Reason.PAYLOAD_TOO_LARGE,
                metadata={"limitBytes": str(limit), "contentLength": text},
            ),
        )
    return length


@dataclass(slots=True)
class _Exchange:
    """One request as the listener saw it, for its answer, its log line and its count."""

    source: str
    request_id: str
    started: float
    route: str = OTHER
    definition_id: str | None = None
    body_read: bool = False
    limited: HubError | None = None
    """The source's rate budget was spent when the connection was accepted: answered 429."""


class WebhookServer:
    """Serves the signed webhook routes until stopped (see the module).

    ``limiter`` holds both budgets (keys ``source:<address>``, spent per accepted connection, and
    ``definition:<id>``); by default a ``RateLimiter`` of ``rate_limit`` requests per minute. The
    limits (``max_connections``, ``max_connections_per_source``, the deadlines, the body size)
    default to the module's constants; tests make them small.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        hub: HubState,
        rate_limit: int = 600,
        limiter: RateBudgets | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int = MAX_CONNECTIONS,
        max_connections_per_source: int = MAX_CONNECTIONS_PER_SOURCE,
        head_timeout: float = HEAD_TIMEOUT,
        body_timeout: float = BODY_TIMEOUT,
        write_timeout: float = WRITE_TIMEOUT,
        close_timeout: float = CLOSE_TIMEOUT,
        linger_timeout: float = LINGER_TIMEOUT,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        # One socket: "localhost" would bind 127.0.0.1 and ::1, on two ports when the port is 0.
        self._host = "127.0.0.1" if host == "localhost" else host.strip("[]")
        self._port = port
        self._hub = hub
        self._limiter: RateBudgets = limiter if limiter is not None else RateLimiter(rate_limit, RATE_WINDOW)
        self._collected = time.monotonic()
        self._ssl = ssl_context
        self._max_connections = max_connections
        self._max_per_source = max_connections_per_source
        self._per_source: dict[str, int] = {}
        self._head_timeout = head_timeout
        self._body_timeout = body_timeout
        self._write_timeout = write_timeout
        self._close_timeout = close_timeout
        self._linger_timeout = linger_timeout
        self._max_body = max_body_bytes
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], asyncio.BaseTransport] = {}
        self.port = 0

    @property
    def tls(self) -> bool:
        """Whether the routes are served over TLS."""
        return self._ssl is not None

    @property
    def open_connections(self) -> int:
        """Connections being served now (at most ``max_connections``)."""
        return len(self._connections)

    def connections_from(self, source: str) -> int:
        """Connections being served now from ``source`` (at most ``max_connections_per_source``)."""
        return self._per_source.get(source, 0)

    async def start(self) -> int:
        """Bind and start serving; return the bound port (the chosen one when asked for port 0).

        Raises:
            OSError: the address cannot be bound.
        """
        # TLS is started per connection (as for metrics): counted against the cap from its accept,
        # its handshake inside the head deadline.
        self._server = await asyncio.start_server(
            self._serve, self._host, self._port, limit=MAX_HEAD_BYTES, reuse_address=True
        )
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def stop(self, grace: float = 0.0) -> None:
        """Stop listening; let requests in progress finish for up to ``grace`` seconds, then end
        every connection still open (cancelled, so each returns normally; see ``MetricsServer.stop``)."""
        if self._server is None:
            return
        server, self._server = self._server, None
        server.close()
        pending = set(self._connections)
        if pending and grace > 0:
            _, pending = await asyncio.wait(pending, timeout=grace)
        for task in pending:
            task.cancel()
        if pending:
            _, late = await asyncio.wait(pending, timeout=STOP_TIMEOUT)
            if late:
                log.warning("webhook_connections_left", count=len(late))
        await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        transport = writer.transport
        peer = writer.get_extra_info("peername")
        source = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        if (
            self._server is None
            or len(self._connections) >= self._max_connections
            or self._per_source.get(source, 0) >= self._max_per_source
        ):
            transport.abort()  # over a cap (or stopping): the descriptor is freed at once
            return
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = transport
        self._per_source[source] = self._per_source.get(source, 0) + 1
        try:
            exchange = _Exchange(source=source, request_id=request_id_for(None), started=time.perf_counter())
            try:
                # Charged now, not once the head is in: a connection held idle costs its sender too.
                self._spend(f"source:{source}")
            except HubError as error:
                exchange.limited = error  # answered 429 once the head is in (408 if it never is)
            if await self._respond(reader, writer, exchange):
                await self._close(writer)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, TimeoutError):
            pass  # the client went away, failed its handshake or was too slow: nothing to answer
        except asyncio.CancelledError:
            pass  # stop(): end normally (see MetricsServer._serve)
        finally:
            self._connections.pop(task, None)
            remaining = self._per_source.pop(source, 1) - 1
            if remaining > 0:
                self._per_source[source] = remaining
            transport.abort()  # a no-op after a clean close

    async def _respond(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, exchange: _Exchange) -> bool:
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
            if not secured:
                return False  # slow with its handshake: there is no channel to answer on
            return await self._refuse(reader, writer, exchange, _timeout("head"))
        except asyncio.LimitOverrunError:
            too_large = InvalidArgument(
                f"the request head exceeds {MAX_HEAD_BYTES} bytes",
                reason=Reason.PROTOCOL_ERROR,
                metadata={"limitBytes": str(MAX_HEAD_BYTES)},
            )
            return await self._refuse(reader, writer, exchange, Refused(431, too_large))
        try:
            status, body, extra = await self._exchange(reader, writer, head, exchange)
        except Refused as refused:
            return await self._refuse(reader, writer, exchange, refused)
        except HubError as error:
            mapped = Refused(http_status(error), error, headers=_retry_after(error))
            return await self._refuse(reader, writer, exchange, mapped)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, TimeoutError):
            raise  # the client went away or does not read its 100 Continue: nothing to answer
        except Exception:
            log.exception("webhook_internal_error", request_id=exchange.request_id, route=exchange.route)
            internal = Refused(500, Internal("internal error", reason=Reason.INTERNAL_ERROR))
            return await self._refuse(reader, writer, exchange, internal)
        self._finished(exchange, status, "")
        return await self._send(writer, exchange, status, body, extra=extra)

    async def _exchange(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes, exchange: _Exchange
    ) -> tuple[int, bytes, tuple[tuple[str, str], ...]]:
        """Serve one request whose head has arrived: the status, JSON body and extra headers.

        Raises:
            Refused: what the listener refuses itself.
            HubError: what the services refuse.
        """
        try:
            method, target, version, headers = parse_head(head)
        except ValueError:
            raise Refused(400, InvalidArgument("malformed HTTP request", reason=Reason.PROTOCOL_ERROR)) from None
        exchange.request_id = request_id_for(headers.get("x-request-id"))
        structlog.contextvars.bind_contextvars(request_id=exchange.request_id)
        if exchange.limited is not None:
            raise exchange.limited
        route = route_of(method, target)
        exchange.route, exchange.definition_id = route.kind, route.definition_id
        if not json_media_type(headers.get("content-type", "")):
            raise Refused(
                415,
                InvalidArgument(
                    "the body must be application/json (UTF-8)",
                    reason=Reason.UNSUPPORTED_MEDIA_TYPE,
                    metadata={"header": "content-type"},
                ),
            )
        length = content_length(headers, self._max_body)
        if version == "HTTP/1.1" and headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            async with asyncio.timeout(self._write_timeout):
                await writer.drain()
        try:
            async with asyncio.timeout(self._body_timeout):
                body = await reader.readexactly(length)
        except TimeoutError:
            raise _timeout("body") from None
        exchange.body_read = True
        hub = self._hub
        if route.kind == START:
            started = await webhooks.start_from_webhook(
                hub.store,
                route.definition_id,
                headers,
                body,
                limits=hub.limits,
                replay_horizon=hub.replay_horizon,
                now=hub.now(),
                verified=self._verified,
            )
            return _started(started)
        outcome = await webhooks.signal_from_webhook(
            hub.store,
            route.definition_id,
            route.run_id,
            route.signal_key,
            headers,
            body,
            limits=hub.limits,
            replay_horizon=hub.replay_horizon,
            now=hub.now(),
            verified=self._verified,
            engine=hub.engine_settings,
        )
        return _signalled(outcome)

    def _verified(self, definition_id: str) -> None:
        """A request's signature verified: it spends its definition's budget."""
        self._spend(f"definition:{definition_id}")

    def _spend(self, key: str) -> None:
        """Spend one request from ``key``'s budget.

        Raises:
            ResourceExhausted: (RATE_LIMITED) it is spent; answered 429 with Retry-After.
        """
        now = time.monotonic()
        if now - self._collected >= RATE_WINDOW:  # forget idle budgets (unknown ids, passing addresses)
            self._collected = now
            self._limiter.collect(now)
        self._limiter.check(key, now)

    async def _refuse(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, exchange: _Exchange, refused: Refused
    ) -> bool:
        """Answer with an error, logged and counted; linger if the body is still on its way."""
        error = refused.error
        self._finished(exchange, refused.status, str(error.reason or ""))
        body = error_body(error, exchange.request_id)
        if not await self._send(writer, exchange, refused.status, body, extra=refused.headers):
            return False
        if not exchange.body_read:
            # Also after a 408: a client still sending when the socket closes gets a reset, which
            # can destroy the answer before it read it. The linger is bounded (LINGER_TIMEOUT,
            # LINGER_BYTES) and a slow client holds only its source's connection slots.
            await self._linger(reader, writer)
        return True

    def _finished(self, exchange: _Exchange, status: int, reason: str) -> None:
        WEBHOOK_REQUESTS.labels(exchange.route, str(status)).inc()
        log.info(
            "webhook_request",
            route=exchange.route,
            definition_id=exchange.definition_id,
            status=status,
            reason=reason or None,
            duration_ms=round((time.perf_counter() - exchange.started) * 1000, 3),
            request_id=exchange.request_id,
            source=exchange.source,
        )

    async def _send(
        self,
        writer: asyncio.StreamWriter,
        exchange: _Exchange,
        status: int,
        body: bytes,
        *,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> bool:
        """Write one answer within the write deadline; False when it expired (the connection is aborted)."""
        lines = [f"HTTP/1.1 {status} {_REASONS[status]}"]
        if status != 204:
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        lines += [
            f"X-Request-Id: {exchange.request_id}",
            "Cache-Control: no-store",
            "Connection: close",
            *(f"{name}: {value}" for name, value in extra),
        ]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body if status != 204 else b""))
        try:
            async with asyncio.timeout(self._write_timeout):
                await writer.drain()
        except TimeoutError:
            writer.transport.abort()  # the peer does not read
            return False
        return True

    async def _linger(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Half-close (where the transport can) and discard what the client still sends, bounded."""
        if writer.can_write_eof():
            with contextlib.suppress(OSError, RuntimeError):
                writer.write_eof()
        received = 0
        with contextlib.suppress(TimeoutError, ConnectionError):
            async with asyncio.timeout(self._linger_timeout):
                while received < LINGER_BYTES:
                    chunk = await reader.read(65_536)
                    if not chunk:
                        return
                    received += len(chunk)

    async def _close(self, writer: asyncio.StreamWriter) -> None:
        """Close gracefully within the close deadline, else abort (see ``MetricsServer._close``)."""
        writer.close()
        try:
            async with asyncio.timeout(self._close_timeout):
                await writer.wait_closed()
        except (ConnectionError, ssl.SSLError, TimeoutError):
            writer.transport.abort()


def _started(started: Started) -> tuple[int, bytes, tuple[tuple[str, str], ...]]:
    if not started.started:
        return 204, b"", ()
    run = started.run
    if started.duplicate:
        # The delivery record outlives the run: a purged run's duplicate names its id, no status.
        shown = {"runId": started.run_id, "status": run.status.value if run is not None else None}
        return 200, _json({"duplicate": True, **shown}), ()
    assert run is not None
    return 202, _json({"runId": run.id, "status": run.status.value, "duplicate": False}), ()


def _signalled(outcome: SignalOutcome) -> tuple[int, bytes, tuple[tuple[str, str], ...]]:
    body = _json(
        {
            "duplicate": outcome.duplicate,
            "status": outcome.status.value,
            "stageId": outcome.stage_id,
            "signalKey": outcome.signal_key,
            "retry": outcome.retry,
            "completed": outcome.completed,
            "degraded": bool(outcome.degraded_requirements),
            "degradedRequirements": list(outcome.degraded_requirements),
            "resumed": outcome.resumed,
            "receivedAt": rfc3339(outcome.receive_time),
        }
    )
    return (202 if outcome.resumed and not outcome.duplicate else 200), body, ()


def _timeout(part: str) -> Refused:
    return Refused(408, InvalidArgument(f"the request {part} did not arrive in time", reason=Reason.PROTOCOL_ERROR))


def _retry_after(error: HubError) -> tuple[tuple[str, str], ...]:
    """``Retry-After`` (whole seconds, at least 1) for a 429 or 503 that says when to retry."""
    if error.retry_after is None or http_status(error) not in (429, 503):
        return ()
    return (("Retry-After", str(max(1, math.ceil(error.retry_after)))),)


async def _start_tls(writer: asyncio.StreamWriter, context: ssl.SSLContext) -> bool:
    """The server side of the TLS handshake; False when it failed (see ``metrics._start_tls``)."""
    try:
        await writer.start_tls(context)
    except Exception:  # any failure is the peer's; CancelledError (the deadline, stop) passes through
        return False
    return True
