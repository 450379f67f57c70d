"""The wire formats of the HTTP port: the Connect protocol (JSON and binary) and gRPC-Web.

``protocol_for`` reads a request's ``Content-Type``:

==================================  ===============================  ==========================
Content-Type                        protocol                         RPCs
==================================  ===============================  ==========================
``application/json``                Connect unary, JSON              unary
``application/proto``               Connect unary, binary            unary
``application/connect+json``        Connect streaming, JSON          server-streaming
``application/connect+proto``       Connect streaming, binary        server-streaming
``application/grpc-web[+proto]``    gRPC-Web, binary                 unary and server-streaming
``application/grpc-web+json``       gRPC-Web, JSON                   unary and server-streaming
==================================  ===============================  ==========================

JSON is the proto JSON mapping every kxm surface uses (lowerCamelCase names, 64-bit integers as
strings, enums by name); fields a request names that the contract does not know are ignored, as
binary protobuf ignores them, so an older hub serves a newer client. Errors carry the hub's
``google.rpc.Status``: Connect as ``{"code", "message", "details"}`` where each detail is
``{"type", "value"}`` (unpadded base64 of the message) plus ``debug``, its JSON form, for people
reading curl output; gRPC-Web as ``grpc-status``, ``grpc-message`` and ``grpc-status-details-bin``
in its trailers frame.
"""

from __future__ import annotations

import base64
import enum
import json
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2, status_pb2

from kxm_grpc._status import rich_status
from kxm_grpc.errors import HubError, InvalidArgument, Reason

FRAME_HEADER = struct.Struct(">BI")
"""An enveloped message's prefix: flags (1 byte) and length (4 bytes, big-endian)."""
END_STREAM = 0x02
"""Connect: the frame is the end-of-stream message."""
TRAILERS = 0x80
"""gRPC-Web: the frame holds the trailers."""
COMPRESSED = 0x01

HTTP_STATUS = {
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INVALID_ARGUMENT": 400,
    "DEADLINE_EXCEEDED": 504,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "PERMISSION_DENIED": 403,
    "RESOURCE_EXHAUSTED": 429,
    "FAILED_PRECONDITION": 400,
    "ABORTED": 409,
    "OUT_OF_RANGE": 400,
    "UNIMPLEMENTED": 501,
    "INTERNAL": 500,
    "UNAVAILABLE": 503,
    "DATA_LOSS": 500,
    "UNAUTHENTICATED": 401,
}
"""The HTTP status of a Connect unary error, by gRPC code (the Connect protocol's table)."""


class Family(enum.Enum):
    CONNECT_UNARY = "connect-unary"
    CONNECT_STREAM = "connect-stream"
    GRPC_WEB = "grpc-web"


@dataclass(frozen=True, slots=True)
class Protocol:
    """How one request is framed and encoded, and how its answer must be."""

    family: Family
    json: bool
    content_type: str
    """The response's Content-Type (the request's, normalised)."""

    @property
    def enveloped(self) -> bool:
        """Whether messages travel in frames (streaming Connect, gRPC-Web) rather than as the body."""
        return self.family is not Family.CONNECT_UNARY

    def decode(self, data: bytes, message: Message) -> Message:
        """Fill ``message`` from one encoded message.

        Raises:
            InvalidArgument: (INVALID_JSON) not JSON or not the message's JSON form;
                (PROTOCOL_ERROR) not the message's binary form.
        """
        if self.json:
            try:
                json_format.Parse(data.decode("utf-8") or "{}", message, ignore_unknown_fields=True)
            except (json_format.ParseError, UnicodeDecodeError) as error:
                raise InvalidArgument(
                    f"the request is not valid JSON for it: {error}", reason=Reason.INVALID_JSON
                ) from None
            return message
        try:
            message.ParseFromString(data)
        except DecodeError:
            raise InvalidArgument("the request is not a valid binary message", reason=Reason.PROTOCOL_ERROR) from None
        return message

    def encode(self, message: Message) -> bytes:
        """One message in this protocol's encoding."""
        if self.json:
            return json.dumps(json_format.MessageToDict(message), separators=(",", ":")).encode("utf-8")
        return message.SerializeToString()


_PROTOCOLS = {
    "application/json": Protocol(Family.CONNECT_UNARY, True, "application/json"),
    "application/proto": Protocol(Family.CONNECT_UNARY, False, "application/proto"),
    "application/connect+json": Protocol(Family.CONNECT_STREAM, True, "application/connect+json"),
    "application/connect+proto": Protocol(Family.CONNECT_STREAM, False, "application/connect+proto"),
    "application/grpc-web": Protocol(Family.GRPC_WEB, False, "application/grpc-web+proto"),
    "application/grpc-web+proto": Protocol(Family.GRPC_WEB, False, "application/grpc-web+proto"),
    "application/grpc-web+json": Protocol(Family.GRPC_WEB, True, "application/grpc-web+json"),
}
CONTENT_TYPES = tuple(_PROTOCOLS)


def protocol_for(content_type: str) -> Protocol | None:
    """The protocol a Content-Type names (a ``charset=utf-8`` parameter allowed), or None."""
    media, _, parameters = content_type.partition(";")
    charset = parameters.strip().lower()
    if charset and charset.replace(" ", "") not in ("charset=utf-8", 'charset="utf-8"'):
        return None
    return _PROTOCOLS.get(media.strip().lower())


def frame(data: bytes, flags: int = 0) -> bytes:
    """One enveloped message."""
    return FRAME_HEADER.pack(flags, len(data)) + data


def unframe(data: bytes) -> bytes:
    """The one message of a request body in envelope framing (a server-streaming request).

    Raises:
        InvalidArgument: (PROTOCOL_ERROR) not exactly one uncompressed frame.
    """
    if len(data) < FRAME_HEADER.size:
        raise InvalidArgument("the request is not an enveloped message", reason=Reason.PROTOCOL_ERROR)
    flags, length = FRAME_HEADER.unpack_from(data)
    if flags & COMPRESSED:
        raise InvalidArgument("compressed messages are not accepted", reason=Reason.PROTOCOL_ERROR)
    if len(data) != FRAME_HEADER.size + length:
        raise InvalidArgument("the request must hold exactly one enveloped message", reason=Reason.PROTOCOL_ERROR)
    return data[FRAME_HEADER.size :]


def timeout_seconds(headers: Mapping[str, str]) -> float | None:
    """The call's timeout from ``connect-timeout-ms`` or ``grpc-timeout`` (None: none, or malformed)."""
    connect = headers.get("connect-timeout-ms")
    if connect is not None:
        return int(connect) / 1000 if _CONNECT_TIMEOUT.fullmatch(connect) else None
    grpc_timeout = headers.get("grpc-timeout")
    found = _GRPC_TIMEOUT.fullmatch(grpc_timeout) if grpc_timeout else None
    if found is None:
        return None
    unit = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}[found.group(2)]
    return int(found.group(1)) * unit


_CONNECT_TIMEOUT = re.compile(r"[0-9]{1,10}")
_GRPC_TIMEOUT = re.compile(r"([0-9]{1,8})([HMSmun])")


def connect_error(error: HubError) -> dict[str, Any]:
    """A hub error as the Connect protocol's error object."""
    status = rich_status(error)
    body: dict[str, Any] = {"code": error.status.lower().replace("cancelled", "canceled"), "message": error.message}
    details = [_detail(detail) for detail in status.details]
    if details:
        body["details"] = details
    return body


def _detail(detail: Any) -> dict[str, Any]:
    debug = json_format.MessageToDict(detail)
    debug.pop("@type", None)
    return {
        "type": detail.type_url.rsplit("/", 1)[-1],
        "value": base64.b64encode(detail.value).decode("ascii").rstrip("="),
        "debug": debug,
    }


def end_of_stream(error: HubError | None, request_id: str) -> bytes:
    """Connect's end-of-stream message: the error, if any, and the trailers."""
    body: dict[str, Any] = {"metadata": {"x-request-id": [request_id]}}
    if error is not None:
        body["error"] = connect_error(error)
    return frame(json.dumps(body, separators=(",", ":")).encode("utf-8"), END_STREAM)


def grpc_web_trailers(error: HubError | None, request_id: str) -> bytes:
    """gRPC-Web's trailers frame: the status, its message and details, and the request id."""
    if error is None:
        lines = ["grpc-status: 0", "grpc-message: "]
    else:
        status: status_pb2.Status = rich_status(error)
        details = base64.b64encode(status.SerializeToString()).decode("ascii").rstrip("=")
        lines = [
            f"grpc-status: {getattr(code_pb2, error.status)}",
            f"grpc-message: {_percent_encoded(error.message)}",
            f"grpc-status-details-bin: {details}",
        ]
    lines.append(f"x-request-id: {request_id}")
    return frame(("\r\n".join(lines) + "\r\n").encode("latin-1"), TRAILERS)


def _percent_encoded(text: str) -> str:
    """``grpc-message``'s encoding: UTF-8, with every byte outside printable ASCII (and ``%``) as ``%XX``."""
    return "".join(chr(b) if 0x20 <= b <= 0x7E and b != 0x25 else f"%{b:02X}" for b in text.encode("utf-8"))
