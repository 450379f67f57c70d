"""The gRPC surface of the admission pipeline: a thin adapter around ``server/admission.py``.

It wraps each RPC handler so its code runs in the handler's own task. Per call it makes an
``IncomingCall`` from the invocation metadata (the peer is read only if authentication fails),
asks the method's admission ``Gate`` (resolved once, when the handler is wrapped) to admit it,
runs the handler, and writes what admission decided in gRPC's terms: a failure as one gRPC status
with ``google.rpc`` details (``context.abort_with_status``), and the request id in the trailing
metadata. The steps themselves (request id, authentication, project isolation, rate limit by
class, presence renewal, logging, error mapping) are admission's, the same on every surface.

Request bytes that do not decode (invalid UTF-8 in a string field, a truncated message, nesting past
protobuf's recursion limit) never reach grpc's own error path, which would answer UNKNOWN with the
parser's text: the wrapped deserializer returns an ``Undecodable`` marker instead, and after
admission (so an unauthenticated caller is refused as UNAUTHENTICATED first) the wrapper raises
INVALID_ARGUMENT (PROTOCOL_ERROR) through the same error mapping as every other bad input.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import grpc

from kxm_grpc import failpoints
from kxm_grpc._status import to_rpc_status
from kxm_grpc.errors import HubError, InvalidArgument, Reason
from kxm_grpc.server.admission import RPC_TOTAL as RPC_TOTAL  # re-exported: tests and dashboards read it here
from kxm_grpc.server.admission import Admission, ChannelCall, Gate, IncomingCall, set_current_channel
from kxm_grpc.server.rpc_metrics import UNMETERED, Metered, MethodMetrics
from kxm_grpc.server.tracing import CallTracer

_EXEMPT_PREFIXES = ("/grpc.health.v1.", "/grpc.reflection.")

_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")


def _peer_host(peer: str) -> str:
    """``ipv4:127.0.0.1:5123`` -> ``ipv4:127.0.0.1`` (the port changes with every connection)."""
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


Context = grpc.aio.ServicerContext[Any, Any]


class _GrpcCall(IncomingCall):
    """An ``IncomingCall`` read from a grpc.aio context; the peer is parsed only when asked for."""

    __slots__ = ("_context",)

    def __init__(self, method: str, context: Context) -> None:
        IncomingCall.__init__(self, method, context.invocation_metadata())
        self._context = context

    @property
    def peer_host(self) -> str:
        """The peer's address without its port, from ``context.peer()``."""
        return _peer_host(self._context.peer())


@dataclass(frozen=True, slots=True)
class Undecodable:
    """What a wrapped request deserializer returns for bytes that are not a valid request message.

    It carries only the expected message type and the size, never the bytes; the wrapper turns it
    into ``error()`` once the caller is admitted.
    """

    message_type: str
    size: int

    def error(self) -> InvalidArgument:
        """INVALID_ARGUMENT (PROTOCOL_ERROR) naming the message type the bytes should have been."""
        return InvalidArgument(
            f"the request is not a valid {self.message_type} ({self.size} bytes could not be decoded)",
            reason=Reason.PROTOCOL_ERROR,
            metadata={"messageType": self.message_type, "size": str(self.size)},
        )


def tolerant_deserializer(
    deserialize: Callable[[bytes], Any] | None, message_type: str
) -> Callable[[bytes], Any] | None:
    """``deserialize`` made total: any parse failure returns an ``Undecodable`` instead of raising.

    grpc calls the deserializer before the handler, outside the hub's error mapping; what it raises
    would become UNKNOWN with the exception's text, no details and no request id.
    """
    if deserialize is None:
        return None

    def decode(data: bytes) -> Any:
        try:
            return deserialize(data)
        except Exception:  # DecodeError, and any other failure to parse: answered by the wrapper
            return Undecodable(message_type, len(data))

    return decode


def _message_type(deserialize: Callable[[bytes], Any] | None, method: str) -> str:
    """The full name of the request message (``kxm.v1.RegisterAgentRequest``) a deserializer builds.

    Generated handlers pass the message class's ``FromString``; anything else is named by its method.
    """
    descriptor = getattr(getattr(deserialize, "__self__", None), "DESCRIPTOR", None)
    name = getattr(descriptor, "full_name", None)
    return name if isinstance(name, str) else f"request of {method}"


class HubInterceptor(grpc.aio.ServerInterceptor):
    """Wraps every kxm RPC in the hub's admission pipeline; health and reflection pass through untouched."""

    def __init__(self, admission: Admission, *, rpc_metrics: bool = True, tracer: CallTracer | None = None) -> None:
        self._admission = admission
        self._rpc_metrics = rpc_metrics
        self._tracer = tracer

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[_Req, _Resp] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Req, _Resp] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        return self.wrap(handler_call_details.method, handler)

    def wrap(self, method: str, handler: grpc.RpcMethodHandler[_Req, _Resp]) -> grpc.RpcMethodHandler[_Req, _Resp]:
        """The handler of ``method`` with admission around it (health and reflection untouched).

        The hub applies this once per method when it registers its servicers (see ``app.Registrar``)
        rather than through grpc's interceptor chain, which builds a new handler on every call; the
        method's admission gate (its facts, access, rate class) is resolved here, once.

        Raises:
            TypeError: a server-streaming method is not an async generator function.
        """
        if method.startswith(_EXEMPT_PREFIXES):
            return handler
        gate = self._admission.gate(method)
        # Never raises: an undecodable request reaches the wrapper as an Undecodable (see above).
        request_deserializer = handler.request_deserializer
        deserializer = tolerant_deserializer(request_deserializer, _message_type(request_deserializer, method))
        if handler.unary_unary is not None:
            unary = cast(Callable[[Any, Context], Awaitable[Any]], handler.unary_unary)
            return grpc.unary_unary_rpc_method_handler(
                self._wrap_unary(gate, unary, self._metrics(method, "unary"), self._tracer),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            if not inspect.isasyncgenfunction(handler.unary_stream):
                # The wrapper drives the servicer's generator and writes each item with context.write.
                raise TypeError(f"{method}: a server-streaming servicer method must be an async generator")
            stream = cast(Callable[[Any, Context], AsyncGenerator[Any, None]], handler.unary_stream)
            return grpc.unary_stream_rpc_method_handler(
                self._wrap_stream(gate, stream, self._metrics(method, "server_stream"), self._tracer),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream is not None:
            channel = cast(Callable[[AsyncIterator[Any], Context], Awaitable[None]], handler.stream_stream)
            return grpc.stream_stream_rpc_method_handler(
                self._wrap_channel(self._admission, gate, channel, self._metrics(method, "bidi_stream"), self._tracer),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        # Fail closed: a client-streaming kxm RPC would otherwise be served without admission (no
        # authentication, isolation or rate limit). Such an RPC gets a wrapper of its own before it
        # is added to the contract.
        raise TypeError(f"{method}: client-streaming RPCs have no admission wrapper yet")

    def _metrics(self, method: str, grpc_type: str) -> Metered:
        return MethodMetrics.for_method(method, grpc_type) if self._rpc_metrics else UNMETERED

    @staticmethod
    def _wrap_unary(
        gate: Gate, behavior: Callable[[Any, Context], Awaitable[Any]], metrics: Metered, tracer: CallTracer | None
    ) -> Callable[[Any, Context], Awaitable[Any]]:
        method = gate.method
        # Failpoints (kxm_grpc/failpoints.py) around a write's acknowledgement; decided once, here,
        # so an unarmed hub does not even look them up per call.
        faulty = failpoints.armed() and gate.facts is not None and gate.facts.read_only is False
        stalls = failpoints.armed()

        async def wrapped(request: Any, context: Context) -> Any:
            started = metrics.start()
            span = None if tracer is None else tracer.start(method, context.invocation_metadata())
            code = "UNKNOWN"
            try:
                call = _GrpcCall(method, context)
                try:
                    admitted = await gate.admit(call)
                    if type(request) is Undecodable:
                        raise request.error()
                    gate.check_scope(admitted, request)
                    if stalls:
                        await failpoints.hit_async("handler_start")
                    response = await behavior(request, context)
                except grpc.aio.BaseError:
                    code = _status_sent(context)
                    raise  # grpc's own (an abort already sent, a call that ended): its status stands
                except asyncio.CancelledError:
                    code = _cancelled(context)
                    raise
                except Exception as error:
                    failure = gate.fail(call, error)
                    code = failure.status
                    await _abort(context, failure, call.request_id)
                if faulty:
                    await failpoints.hit_async("after_commit_before_ack")
                    context.add_done_callback(_after_ack)  # type: ignore[arg-type]  # the stubs type it as a class
                context.set_trailing_metadata((("x-request-id", call.request_id),))
                gate.succeeded()
                code = "OK"
                metrics.sent.inc()
                return response
            finally:
                metrics.finish(started, code)
                if span is not None:
                    CallTracer.finish(span, code)

        return wrapped

    @staticmethod
    def _wrap_stream(
        gate: Gate,
        behavior: Callable[[Any, Context], AsyncGenerator[Any, None]],
        metrics: Metered,
        tracer: CallTracer | None,
    ) -> Callable[[Any, Context], Awaitable[None]]:
        method = gate.method
        faulty = failpoints.armed()

        # A coroutine that writes what the servicer's generator yields, not a generator around it:
        # grpc then drives one async generator per stream event instead of two (docs/performance.md).
        async def wrapped(request: Any, context: Context) -> None:
            started = metrics.start()
            span = None if tracer is None else tracer.start(method, context.invocation_metadata())
            code = "UNKNOWN"
            sent = metrics.sent
            try:
                call = _GrpcCall(method, context)
                try:
                    await gate.admit(call)
                    if type(request) is Undecodable:
                        raise request.error()
                    if faulty:
                        await failpoints.hit_async("handler_start")
                    # Closed explicitly, so a cancelled call runs the servicer's cleanup now, not at GC.
                    async with contextlib.aclosing(behavior(request, context)) as stream:
                        async for response in stream:
                            if faulty:
                                await failpoints.hit_async("stream_send")
                            await context.write(response)
                            sent.inc()
                            del response  # an idle stream keeps no written event alive
                except grpc.aio.BaseError:
                    # grpc's own: an abort (ours or the slow-consumer cut) already sent its status, or a
                    # write failed because the client went away. Neither is the hub's error to report.
                    code = _status_sent(context)
                    raise
                except asyncio.CancelledError:
                    code = _cancelled(context)
                    raise
                except Exception as error:
                    failure = gate.fail(call, error)
                    code = failure.status
                    await _abort(context, failure, call.request_id)
                context.set_trailing_metadata((("x-request-id", call.request_id),))
                gate.succeeded()
                code = "OK"
            finally:
                metrics.finish(started, code)
                if span is not None:
                    CallTracer.finish(span, code)

        return wrapped

    @staticmethod
    def _wrap_channel(
        admission: Admission,
        gate: Gate,
        behavior: Callable[[AsyncIterator[Any], Context], Awaitable[None]],
        metrics: Metered,
        tracer: CallTracer | None,
    ) -> Callable[[AsyncIterator[Any], Context], Awaitable[None]]:
        """A bidirectional channel: admitted once as a stream; each command is then admitted by the
        servicer as its unary twin (``ChannelCall.admit_command``), with the channel's credentials."""
        method = gate.method

        async def wrapped(requests: AsyncIterator[Any], context: Context) -> None:
            started = metrics.start()
            span = None if tracer is None else tracer.start(method, context.invocation_metadata())
            code = "UNKNOWN"
            try:
                call = _GrpcCall(method, context)
                try:
                    await gate.admit(call)
                    set_current_channel(ChannelCall(admission, call))
                    await behavior(requests, context)  # the servicer refuses an Undecodable itself
                except grpc.aio.BaseError:
                    code = _status_sent(context)
                    raise
                except asyncio.CancelledError:
                    code = _cancelled(context)
                    raise
                except Exception as error:
                    failure = gate.fail(call, error)
                    code = failure.status
                    await _abort(context, failure, call.request_id)
                context.set_trailing_metadata((("x-request-id", call.request_id),))
                gate.succeeded()
                code = "OK"
            finally:
                metrics.finish(started, code)
                if span is not None:
                    CallTracer.finish(span, code)

        return wrapped


def _status_sent(context: Context) -> str:
    """The code of a call grpc ended itself (an abort already sent; a write to a client that left)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "CANCELLED"  # no status was set: the client went away before one was sent


def _cancelled(context: Context) -> str:
    """The code a cancelled handler ends with: the deadline passed, or the client cancelled."""
    remaining = context.time_remaining()
    return "DEADLINE_EXCEEDED" if remaining is not None and remaining <= 0 else "CANCELLED"


def _after_ack(_context: Context) -> None:
    failpoints.hit("after_ack")


async def _abort(context: Context, error: HubError, request_id: str) -> None:
    """End the call with ``error`` as a status with ``google.rpc`` details and the request id."""
    await context.abort_with_status(to_rpc_status(error, trailing=(("x-request-id", request_id),)))
