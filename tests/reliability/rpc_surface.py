"""The hub's gRPC surface as the battery sees it: every RPC it serves, called with raw bytes.

B9 (isolation) and B11 (malformed input) call every RPC the hub serves, found by server reflection
(so an RPC added to the contract is called the day it is served), with request bytes they chose and
the metadata they chose, over a plain loopback channel without serializers: the hub's deserializer
sees exactly what a broken or hostile client sends. ``call`` returns an ``Outcome``: the status,
the ``google.rpc`` details (ErrorInfo reason and metadata, BadRequest field violations), the
response messages, and every byte the caller received (``wire``), which B9 searches for another
project's data.

Synchronous gRPC on purpose: the async batteries call it through ``asyncio.to_thread`` while the
hub under test serves on their event loop, and the fuzzers call it from hypothesis's own loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import grpc
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from kxm_grpc._gen.kxm.v1 import message_service_pb2
from kxm_grpc.errors import DOMAIN

Metadata = tuple[tuple[str, str], ...]

OPEN_CHANNEL = "/kxm.v1.AgentService/OpenChannel"
"""A bidirectional channel: called with one request and the client's end, read to its status."""
SUBSCRIBE = "/kxm.v1.MessageService/Subscribe"


def served_rpcs(address: str, *, package: str = "kxm.") -> dict[str, bool]:
    """Every RPC of the hub at ``address`` in ``package``, as server reflection lists it:
    full method name -> whether it streams responses."""
    found: dict[str, bool] = {}
    with grpc.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        listed = next(iter(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))))
        services = [s.name for s in listed.list_services_response.service if s.name.startswith(package)]
        for service in services:
            request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=service)
            answer = next(iter(stub.ServerReflectionInfo(iter([request]))))
            for raw in answer.file_descriptor_response.file_descriptor_proto:
                file = descriptor_pb2.FileDescriptorProto.FromString(raw)
                for declared in file.service:
                    if f"{file.package}.{declared.name}" == service:
                        for method in declared.method:
                            found[f"/{service}/{method.name}"] = method.server_streaming
    return found


@dataclass
class Outcome:
    """How one call ended, and everything the caller received."""

    method: str
    code: grpc.StatusCode
    details: str
    reason: str | None = None
    """ErrorInfo.reason (None: the status carried no ErrorInfo)."""
    domain: str | None = None
    error_metadata: dict[str, str] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    """BadRequest field violations' fields."""
    status_details: bool = False
    """Whether the status carried ``google.rpc.Status`` details at all."""
    responses: list[bytes] = field(default_factory=list)
    stopped: bool = False
    """A stream the caller ended itself (it had read what it wanted); its code is then OK."""
    seconds: float = 0.0
    wire: bytes = b""
    """Every byte the caller received: responses, status message, details, initial and trailing metadata."""

    @property
    def ok(self) -> bool:
        return self.code == grpc.StatusCode.OK

    @property
    def name(self) -> str:
        return self.code.name

    def names_a_field(self) -> bool:
        """Whether the error names the request field it is about (a BadRequest violation or
        ErrorInfo metadata ``field``), or the request type that did not decode (PROTOCOL_ERROR)."""
        return bool(self.violations) or "field" in self.error_metadata or "messageType" in self.error_metadata

    def __str__(self) -> str:
        return f"{self.method}: {self.code.name} {self.reason or '-'} {self.details[:200]!r}"


def _metadata_bytes(pairs: Iterable[tuple[str, str | bytes]] | None) -> bytes:
    out = bytearray()
    for key, value in pairs or ():
        out += key.encode() + b"\0" + (value if isinstance(value, bytes) else value.encode()) + b"\0"
    return bytes(out)


def _fill_status(outcome: Outcome, error: grpc.RpcError) -> None:
    call: grpc.Call = error  # type: ignore[assignment]  # a failed call's error is also its grpc.Call
    outcome.code = call.code()
    outcome.details = call.details() or ""
    try:
        status = rpc_status.from_call(call)
    except ValueError:  # details whose code disagrees with the call's
        status = None
    if status is not None:
        read_details(outcome, status)
    outcome.wire += outcome.details.encode() + _metadata_bytes(call.initial_metadata())
    outcome.wire += _metadata_bytes(call.trailing_metadata())


def read_details(outcome: Outcome, status: status_pb2.Status) -> None:
    """Fill ``outcome`` from a ``google.rpc.Status``: ErrorInfo and BadRequest (any surface's)."""
    outcome.status_details = True
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            outcome.reason, outcome.domain = info.reason, info.domain
            outcome.error_metadata = dict(info.metadata)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            outcome.violations = [v.field for v in bad.field_violations]


def subscribe_caught_up() -> Callable[[bytes], bool]:
    """A stream stop for Subscribe: true once the replay reached the head the ready event announced."""
    head: list[int] = []

    def stop(data: bytes) -> bool:
        event = message_service_pb2.SubscribeResponse.FromString(data)
        if event.HasField("ready"):
            head.append(event.ready.head_seq)
            return event.ready.head_seq <= event.ready.after_seq
        return bool(head) and event.seq >= head[0]

    return stop


def call(
    channel: grpc.Channel,
    method: str,
    body: bytes,
    metadata: Metadata,
    *,
    streaming: bool = False,
    timeout: float = 10.0,
    stop: Callable[[bytes], bool] | None = None,
    idle: float = 1.0,
    max_responses: int = 10_000,
) -> Outcome:
    """Call ``method`` with ``body`` as the request's bytes; how it ended.

    A stream is read until ``stop`` says so (by default: Subscribe until caught up, any other stream
    after its first response), ``max_responses``, ``idle`` seconds without a response, or its end;
    the caller then cancels it and the outcome is OK with ``stopped``.
    """
    outcome = Outcome(method, grpc.StatusCode.OK, "")
    began = time.monotonic()
    try:
        if not streaming:
            unary: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(method)
            response, done = unary.with_call(body, metadata=metadata, timeout=timeout)
            outcome.responses.append(response)
            outcome.wire = (
                response + _metadata_bytes(done.initial_metadata()) + _metadata_bytes(done.trailing_metadata())
            )
        else:
            _read_stream(channel, method, body, metadata, timeout, stop, idle, max_responses, outcome)
    except grpc.RpcError as error:
        if not (outcome.stopped and error.code() == grpc.StatusCode.CANCELLED):
            _fill_status(outcome, error)
    outcome.seconds = time.monotonic() - began
    return outcome


def _read_stream(
    channel: grpc.Channel,
    method: str,
    body: bytes,
    metadata: Metadata,
    timeout: float,
    stop: Callable[[bytes], bool] | None,
    idle: float,
    max_responses: int,
    outcome: Outcome,
) -> None:
    if stop is None:
        if method == SUBSCRIBE:
            stop = subscribe_caught_up()
        elif method == OPEN_CHANNEL:
            stop = lambda _data: False  # noqa: E731  # sent one request and its end: the hub ends the channel
        else:
            stop = lambda _data: True  # noqa: E731
    streamed: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(method)
    responses = streamed(body, metadata=metadata, timeout=timeout)
    last = [time.monotonic()]
    finished = threading.Event()

    def watchdog() -> None:  # ends a stream that went quiet (a live stream never ends by itself)
        while not finished.wait(0.05):
            if time.monotonic() - last[0] > idle:
                outcome.stopped = True
                responses.cancel()
                return

    guard = threading.Thread(target=watchdog, daemon=True)
    guard.start()
    try:
        for data in responses:
            last[0] = time.monotonic()
            outcome.responses.append(data)
            outcome.wire += data
            if stop(data) or len(outcome.responses) >= max_responses:
                outcome.stopped = True
                responses.cancel()
                break
        outcome.wire += _metadata_bytes(responses.initial_metadata())
    finally:
        finished.set()
        guard.join()


def kxm_error(outcome: Outcome) -> bool:
    """Whether a failed call carries the hub's error model: ErrorInfo with a reason in the kxm domain."""
    return outcome.status_details and bool(outcome.reason) and outcome.domain == DOMAIN
