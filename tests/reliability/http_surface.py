"""The hub's RPCs over its HTTP port, as ``rpc_surface.call`` makes them over gRPC: same Outcome.

gRPC-Web in binary (``application/grpc-web+proto``) carries unary and server-streaming calls alike
and ends every answer with the status in its trailers (``grpc-status``, ``grpc-message``,
``grpc-status-details-bin``), so an HTTP call is judged by the very rules a gRPC call is. A plain
blocking socket: the batteries call from a thread. A stream is read until ``stop`` says so (as
``rpc_surface``), then the connection is closed, which ends the call on the hub.
"""

from __future__ import annotations

import base64
import socket
import struct
import time
import urllib.parse
from collections.abc import Callable

import grpc
from google.rpc import status_pb2

from tests.reliability import rpc_surface
from tests.reliability.rpc_surface import Metadata, Outcome

FRAME = struct.Struct(">BI")
TRAILERS = 0x80
CODES = {code.value[0]: code for code in grpc.StatusCode}
NOT_OVER_HTTP = frozenset({rpc_surface.OPEN_CHANNEL})
"""RPCs the HTTP port does not serve (the channel streams both ways: gRPC only)."""


def call(
    address: str,
    method: str,
    body: bytes,
    metadata: Metadata,
    *,
    streaming: bool = False,
    timeout: float = 10.0,
    stop: Callable[[bytes], bool] | None = None,
) -> Outcome:
    """Call ``method`` over the HTTP port with ``body`` as the request's bytes; how it ended."""
    outcome = Outcome(method, grpc.StatusCode.OK, "")
    began = time.monotonic()
    if stop is None:
        stop = rpc_surface.subscribe_caught_up() if method == rpc_surface.SUBSCRIBE else (lambda _data: True)
    host, port = address.rsplit(":", 1)
    headers = [f"POST {method} HTTP/1.1", f"Host: {address}", "Content-Type: application/grpc-web+proto"]
    headers += [f"Content-Length: {FRAME.size + len(body)}", f"grpc-timeout: {max(1, round(timeout * 1000))}m"]
    headers += [f"{key}: {value}" for key, value in metadata if isinstance(value, str)]
    request = ("\r\n".join(headers) + "\r\n\r\n").encode("latin-1") + FRAME.pack(0, len(body)) + body
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        reader = sock.makefile("rb")
        answered = _head(reader)
        if answered is None:
            outcome.code, outcome.details = grpc.StatusCode.UNKNOWN, "the connection closed without an answer"
            return outcome
        status, response_headers = answered
        outcome.wire += b"".join(f"{k}\0{v}\0".encode() for k, v in response_headers.items())
        if status != 200:
            outcome.code = grpc.StatusCode.UNKNOWN
            outcome.details = f"HTTP {status}"
            return outcome
        for flags, data in _frames(reader, response_headers):
            outcome.wire += data
            if flags & TRAILERS:
                _fill_status(outcome, data)
                break
            outcome.responses.append(data)
            if streaming and stop(data):
                outcome.stopped = True
                break
    outcome.seconds = time.monotonic() - began
    return outcome


def _head(reader: object) -> tuple[int, dict[str, str]] | None:
    """The status and headers of the answer (None: the connection closed before one)."""
    lines = []
    while True:
        line = reader.readline()  # type: ignore[attr-defined]
        if line in (b"\r\n", b""):
            break
        lines.append(line.decode("latin-1").rstrip("\r\n"))
    if not lines:
        return None
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.lower()] = value.strip()
    return status, headers


def _frames(reader: object, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    """Each enveloped message of the body, as it arrives (chunked or with a length)."""
    buffer = b""
    for data in _body(reader, headers):
        buffer += data
        while len(buffer) >= FRAME.size:
            flags, length = FRAME.unpack_from(buffer)
            if len(buffer) < FRAME.size + length:
                break
            yield flags, buffer[FRAME.size : FRAME.size + length]
            buffer = buffer[FRAME.size + length :]


def _body(reader: object, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    if "content-length" in headers:
        yield reader.read(int(headers["content-length"]))  # type: ignore[attr-defined]
        return
    while True:
        size = int(reader.readline().strip(), 16)  # type: ignore[attr-defined]
        if size == 0:
            return
        data = reader.read(size)  # type: ignore[attr-defined]
        reader.readline()  # type: ignore[attr-defined]
        yield data


def _fill_status(outcome: Outcome, trailers: bytes) -> None:
    fields = {}
    for line in trailers.decode("latin-1").split("\r\n"):
        name, sep, value = line.partition(":")
        if sep:
            fields[name.strip().lower()] = value.strip()
    outcome.code = CODES.get(int(fields.get("grpc-status", "2")), grpc.StatusCode.UNKNOWN)
    outcome.details = urllib.parse.unquote(fields.get("grpc-message", ""))
    encoded = fields.get("grpc-status-details-bin")
    if encoded:
        status = status_pb2.Status.FromString(base64.b64decode(encoded + "=" * (-len(encoded) % 4)))
        rpc_surface.read_details(outcome, status)
