"""HTTP/1.1 for the HTTP API: a request head, a body, a response, a chunked stream.

Only what the HTTP API (``server/http_api.py``) needs, with every read bounded: a head
of at most the stream reader's limit, a body of at most ``max_bytes`` whether sent with
``Content-Length`` or chunked, and ``Expect: 100-continue`` answered before the body is read (curl
sends it for bodies over 1 KiB and would otherwise wait a second). Nothing here knows gRPC. (The
metrics and webhook listeners predate it and read their one request each themselves; moving them
onto it is left for when the dashboard merges the metrics listener into the API's.)
"""

from __future__ import annotations

import asyncio
import re
import ssl
from dataclasses import dataclass

REASONS = {
    100: "Continue",
    200: "OK",
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
    499: "Client Closed Request",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


class BadRequest(Exception):
    """The request cannot be read as HTTP/1.1; ``status`` is the answer (400, 411, 413)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Head:
    """A request line and its headers (names in lower case; a repeated header keeps its last value)."""

    method: str
    target: str
    version: str
    headers: dict[str, str]

    @property
    def path(self) -> str:
        """The target without its query."""
        return self.target.split("?", 1)[0]

    @property
    def keep_alive(self) -> bool:
        """Whether the connection stays open after the answer (HTTP/1.1 unless ``Connection: close``)."""
        connection = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return connection == "keep-alive"
        return connection != "close"


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP token: a method or a header name (RFC 9110 §5.6.2)."""
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")
"""A header value: visible characters, spaces and tabs; no CR, LF or other control character."""
_TARGET = re.compile(r"[\x21-\x7e]+")
"""A request target: visible ASCII, no spaces or control characters."""
_DIGITS = re.compile(r"[0-9]{1,12}")
_CHUNK_LINE = re.compile(rb"([0-9A-Fa-f]{1,8})(?:[ \t]*;[\x20-\x7e\t]*)?")
"""A chunk-size line without its CRLF: hex digits, then extensions of visible characters only."""
_TRAILER = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e\x80-\xff]*")


_SINGLE = frozenset({"transfer-encoding", "authorization", "host", "content-type"})
"""Headers a request may carry once (a second one could mean another thing to a proxy)."""


def parse_head(data: bytes) -> Head:
    """The request line and headers of a head (up to and including its blank line).

    Strict where a lenient reading lets a request mean two things (to this server and to a proxy in
    front of it): no control characters in names or values (a bare CR or LF would let a value carry
    another header), one ``Content-Length`` (or repeated with the same value), never both it and
    ``Transfer-Encoding``, and ``Transfer-Encoding`` only as ``chunked``.

    Raises:
        BadRequest: (400) it is not such an HTTP/1.x request head.
    """
    lines = data.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if (
        len(parts) != 3
        or parts[2] not in ("HTTP/1.1", "HTTP/1.0")
        or not _TOKEN.fullmatch(parts[0])
        or not _TARGET.fullmatch(parts[1])
    ):
        raise BadRequest(400, "not an HTTP/1.x request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        value = value.strip(" \t")
        if not sep or not _TOKEN.fullmatch(name) or not _FIELD_VALUE.fullmatch(value):
            raise BadRequest(400, "malformed header")
        field = name.lower()
        if field in headers and (field in _SINGLE or (field == "content-length" and headers[field] != value)):
            raise BadRequest(400, f"{name} given twice")
        headers[field] = value
    if "transfer-encoding" in headers:
        if headers["transfer-encoding"].lower() != "chunked" or parts[2] == "HTTP/1.0":
            raise BadRequest(400, "only the chunked transfer encoding is accepted, and only on HTTP/1.1")
        if "content-length" in headers:
            raise BadRequest(400, "Content-Length and Transfer-Encoding together")
    return Head(parts[0], parts[1], parts[2], headers)


async def read_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: Head, max_bytes: int) -> bytes:
    """The request body (``Content-Length`` or chunked), answering ``Expect: 100-continue`` first.

    Raises:
        BadRequest: (411) a POST with neither length nor chunking; (413) longer than ``max_bytes``;
            (400) a malformed length or chunk.
        asyncio.IncompleteReadError: the peer closed before the body ended.
    """
    chunked = "transfer-encoding" in head.headers  # parse_head let only "chunked" through
    length_text = head.headers.get("content-length")
    if not chunked and length_text is None:
        if head.method == "POST":
            raise BadRequest(411, "a request body needs Content-Length or chunked transfer encoding")
        return b""
    length = 0
    if not chunked:
        if length_text is None or not _DIGITS.fullmatch(length_text):
            raise BadRequest(400, "Content-Length is not a number")
        length = int(length_text)
        if length > max_bytes:
            raise BadRequest(413, f"the body is {length} bytes, more than {max_bytes}")
    if head.headers.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    if not chunked:
        return await reader.readexactly(length)
    return await _read_chunks(reader, max_bytes)


async def _read_chunks(reader: asyncio.StreamReader, max_bytes: int) -> bytes:
    """A chunked body, at most ``max_bytes`` (each size line and trailer within the reader's limit).

    Raises:
        BadRequest: (400) a malformed size or chunk, or a line too long; (413) too large.
    """
    body = bytearray()
    try:
        while True:
            size_line = _CHUNK_LINE.fullmatch((await reader.readuntil(b"\r\n"))[:-2])
            if size_line is None:
                raise BadRequest(400, "malformed chunk size")
            size = int(size_line.group(1), 16)
            if size == 0:
                while (trailer := (await reader.readuntil(b"\r\n"))[:-2]) != b"":  # trailers, ignored
                    if not _TRAILER.fullmatch(trailer):
                        raise BadRequest(400, "malformed trailer")
                return bytes(body)
            if len(body) + size > max_bytes:
                raise BadRequest(413, f"the body is more than {max_bytes} bytes")
            body += await reader.readexactly(size)
            if await reader.readexactly(2) != b"\r\n":
                raise BadRequest(400, "malformed chunk")
    except asyncio.LimitOverrunError:
        raise BadRequest(400, "a chunk line is too long") from None


def response_head(status: int, headers: list[tuple[str, str]]) -> bytes:
    """A status line and headers, with the blank line that ends them."""
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}", *(f"{name}: {value}" for name, value in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body (empty data would end the body: use ``LAST_CHUNK`` for that)."""
    return b"%x\r\n%b\r\n" % (len(data), data)


LAST_CHUNK = b"0\r\n\r\n"


async def start_tls(writer: asyncio.StreamWriter, context: ssl.SSLContext) -> bool:
    """The server side of the TLS handshake; False when it failed (the connection is lost).

    Any failure is the peer's (not TLS, an unacceptable handshake, a peer that left); Python 3.11
    reports a peer lost mid-handshake as an AttributeError, hence the broad catch.
    """
    try:
        await writer.start_tls(context)
    except Exception:  # CancelledError (a deadline, stop) passes through
        return False
    return True
