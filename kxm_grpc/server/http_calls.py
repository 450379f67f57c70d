"""One RPC call over the HTTP port: its route, its context, admission, and its answer on the wire.

``call_unary`` admits a call through its RPC's ``Gate`` (the same as the gRPC adapter's), decodes
the request after admission (as gRPC does) and answers it with the servicer's own method;
``answer_unary`` and ``answer_stream`` write the answer in the call's protocol (``connect.py``).
Both run the call while watching the connection (``watching``): a client that closes its
connection cancels its call, as a gRPC client's cancel does, so a lease wait or a fanout does not
go on for no one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf import message_factory
from google.protobuf.message import Message

from kxm_grpc._status import from_status_bytes
from kxm_grpc.errors import DeadlineExceeded, HubError, Internal, Reason, ResourceExhausted, Unimplemented
from kxm_grpc.server import http1
from kxm_grpc.server.admission import Admission, Gate, IncomingCall
from kxm_grpc.server.connect import (
    HTTP_STATUS,
    Family,
    Protocol,
    connect_error,
    end_of_stream,
    frame,
    grpc_web_trailers,
    unframe,
)
from kxm_grpc.server.context import CallContext
from kxm_grpc.server.methods import MAX_REQUEST_BYTES, RPCS

T = TypeVar("T")

WRITE_TIMEOUT = 10.0
"""Seconds one write may wait for the peer to read (it is aborted after it)."""

_ENCODING_HEADERS = ("content-encoding", "connect-content-encoding", "grpc-encoding")


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


class ClientLeft(Exception):
    """The client closed its connection while its call ran; the call was cancelled."""


async def watching(
    reader: asyncio.StreamReader, work: Awaitable[T], *, ending: Callable[[], bool] = lambda: False
) -> tuple[T, bool]:
    """``work``'s result while the connection stays open, and whether the connection must close after
    the answer (the client sent more bytes meanwhile: a pipelined request, which is not served).

    The work runs in the calling task; a read watches the socket (re-armed after bytes, so a close
    after them is still seen), and a close cancels the calling task, which this turns into
    ``ClientLeft``. ``ending`` says the work is ending on its own (a stream cut by the hub, whose
    connection it aborted itself): that close is not the client leaving.

    Raises:
        ClientLeft: the client closed the connection first (``work`` was cancelled).
        Whatever ``work`` raises.
    """
    current = asyncio.current_task()
    assert current is not None
    left = False
    finished = False
    sent_more = False
    watch: asyncio.Future[bytes]

    def arm() -> None:
        nonlocal watch
        watch = asyncio.ensure_future(reader.read(4096))
        watch.add_done_callback(on_read)

    def on_read(done: asyncio.Future[bytes]) -> None:
        nonlocal left, sent_more
        if done.cancelled():
            return
        error = done.exception()  # retrieved either way: a reset is the client leaving too
        # Scheduled on the loop: by the time it runs, the work may have ended (then nothing to cancel).
        if finished:
            return
        if error is None and done.result():
            sent_more = True
            arm()
            return
        if not ending():
            left = True
            current.cancel()

    arm()
    try:
        result = await work
    except asyncio.CancelledError:
        if left and current.uncancel() == 0:
            raise ClientLeft from None
        raise
    finally:
        finished = True
        closes = sent_more or watch.done()  # bytes, or the close, arrived as the work ended
        if not watch.done():
            watch.cancel()
            await asyncio.wait({watch})  # the reader is free again before its next read
    if left:  # the work ended on its own after the cancel: the client is gone all the same
        current.uncancel()
        raise ClientLeft
    return result, closes


async def call_unary(
    route: Route,
    call: IncomingCall,
    decode: Callable[[], Message],
    context: HttpCallContext,
    *,
    admitted: Callable[[CallContext], None] | None = None,
) -> Message:
    """Admit ``call``, decode its request (after admission, as over gRPC) and answer it; ``admitted``
    is told who the call was admitted as.

    Raises:
        HubError: what admission, the request or the servicer refused, logged and counted
            (``Gate.fail``); anything else is INTERNAL.
    """
    gate = route.gate
    try:
        context_of_call = await gate.admit(call)
        if admitted is not None:
            admitted(context_of_call)
        request = decode()
        gate.check_scope(context_of_call, request)
        response: Message = await _within(context, route.behavior(request, context))
    except Exception as caught:
        raise gate.fail(call, caught) from None
    gate.succeeded()
    return response


def decoder(protocol: Protocol, route: Route, body: bytes, headers: Mapping[str, str]) -> Callable[[], Message]:
    """The request of a body, decoded when called (after admission).

    The returned function raises:
        InvalidArgument: (INVALID_JSON, PROTOCOL_ERROR) not the request in the protocol's encoding.
        ResourceExhausted: (PAYLOAD_TOO_LARGE) larger than gRPC's request limit.
        Unimplemented: (PROTOCOL_ERROR) a compressed body.
    """

    def decode() -> Message:
        encoding = next((headers[name] for name in _ENCODING_HEADERS if name in headers), "identity")
        if encoding.lower() != "identity":
            raise Unimplemented(f"compressed requests ({encoding}) are not accepted", reason=Reason.PROTOCOL_ERROR)
        data = unframe(body) if protocol.enveloped else body
        if not protocol.json and len(data) > MAX_REQUEST_BYTES:
            raise _too_large(len(data))
        request = protocol.decode(data, route.request_type())
        if protocol.json and request.ByteSize() > MAX_REQUEST_BYTES:
            raise _too_large(request.ByteSize())
        return request

    return decode


def _too_large(size: int) -> ResourceExhausted:
    return ResourceExhausted(
        f"the request is {size} bytes, more than {MAX_REQUEST_BYTES}", reason=Reason.PAYLOAD_TOO_LARGE
    )


async def answer_unary(
    route: Route,
    protocol: Protocol,
    call: IncomingCall,
    decode: Callable[[], Message],
    context: HttpCallContext,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    *,
    keep: bool,
    extra: Sequence[tuple[str, str]],
) -> bool:
    """Call a unary RPC and write its answer; whether the connection may serve another request."""

    async def attempt() -> tuple[Message | None, HubError | None]:
        try:
            return await call_unary(route, call, decode, context), None
        except HubError as refused:
            return None, refused

    try:
        (response, error), closes = await watching(reader, attempt())
    except ClientLeft:
        return False
    keep = keep and not closes
    headers = [("x-request-id", call.request_id), *extra]
    if protocol.family is Family.GRPC_WEB:
        message = b"" if response is None else frame(protocol.encode(response))
        await answer(
            writer, 200, protocol.content_type, message + grpc_web_trailers(error, call.request_id), keep, headers
        )
    elif error is not None:
        status = HTTP_STATUS.get(error.status, 500)
        await answer(writer, status, "application/json", json_bytes(connect_error(error)), keep, headers)
    else:
        assert response is not None
        await answer(writer, 200, protocol.content_type, protocol.encode(response), keep, headers)
    return keep


async def answer_stream(
    route: Route,
    protocol: Protocol,
    call: IncomingCall,
    decode: Callable[[], Message],
    context: HttpCallContext,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    *,
    extra: Sequence[tuple[str, str]],
) -> bool:
    """Call a server-streaming RPC: chunked frames, then the end (Connect) or the trailers (gRPC-Web).

    Ends early when the client closes its connection. The connection closes after it (one stream per
    connection), so this returns False.
    """
    headers = [
        ("Content-Type", protocol.content_type),
        ("Transfer-Encoding", "chunked"),
        ("Connection", "close"),
        ("x-request-id", call.request_id),
        *extra,
    ]
    await write(writer, http1.response_head(200, headers))
    try:
        sending = _send_stream(route, protocol, call, decode, context, writer)
        error, _ = await watching(reader, sending, ending=lambda: context.cut is not None)
    except ClientLeft:
        return False
    if context.cut is not None:
        return False  # cut while stuck writing: the connection is aborted already
    ending = end_of_stream if protocol.family is Family.CONNECT_STREAM else grpc_web_trailers
    await write(writer, http1.chunk(ending(error, call.request_id)) + http1.LAST_CHUNK)
    return False


async def _send_stream(
    route: Route,
    protocol: Protocol,
    call: IncomingCall,
    decode: Callable[[], Message],
    context: HttpCallContext,
    writer: asyncio.StreamWriter,
) -> HubError | None:
    """Write every response of the stream; the error it ended with (None: it ended well).

    Raises:
        ConnectionError: the client went away (there is no one to answer).
    """
    gate = route.gate
    deadline = asyncio.timeout(context.time_remaining())
    try:
        admitted = await gate.admit(call)
        request = decode()
        gate.check_scope(admitted, request)
        async with deadline, contextlib.aclosing(route.behavior(request, context)) as stream:
            async for response in stream:
                await write(writer, http1.chunk(frame(protocol.encode(response))))
                del response
    except TimeoutError as caught:
        late = DeadlineExceeded("the call's deadline passed (connect-timeout-ms or grpc-timeout)")
        return gate.fail(call, late if deadline.expired() else caught)
    except ConnectionError:
        if context.cut is None:
            raise
        return gate.fail(call, context.cut)
    except Exception as caught:
        return gate.fail(call, caught)
    gate.succeeded()
    return None


async def _within(context: HttpCallContext, work: Awaitable[T]) -> T:
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


def json_bytes(value: object) -> bytes:
    """Compact JSON, UTF-8."""
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


async def write(writer: asyncio.StreamWriter, data: bytes) -> None:
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


async def answer(
    writer: asyncio.StreamWriter,
    status: int,
    content_type: str,
    body: bytes,
    keep: bool,
    extra: Sequence[tuple[str, str]] = (),
) -> None:
    """Write a whole answer with its length (and ``Connection: close`` unless ``keep``)."""
    headers = [("Content-Length", str(len(body)))]
    if content_type:
        headers.insert(0, ("Content-Type", content_type))
    if not keep:
        headers.append(("Connection", "close"))
    await write(writer, http1.response_head(status, [*headers, *extra]) + body)
