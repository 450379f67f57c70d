"""The one server interceptor: request id, authentication, rate limit, presence, error mapping.

It wraps each RPC handler so its code runs in the handler's own task: the request id and the
caller are bound into contextvars there (logs and the servicer see them), and every HubError a
servicer raises becomes one gRPC status with ``google.rpc`` details. Anything else becomes
INTERNAL with a fixed message and one logged traceback. Steps run in this order: request id,
authentication (every credential, before any side effect), rate limit on the authenticated
identity, presence renewal for agents, then the handler.

Request bytes that do not decode (invalid UTF-8 in a string field, a truncated message, nesting past
protobuf's recursion limit) never reach grpc's own error path, which would answer UNKNOWN with the
parser's text: the wrapped deserializer returns an ``Undecodable`` marker instead, and after the
steps above (so an unauthenticated caller is refused as UNAUTHENTICATED first) the wrapper raises
INVALID_ARGUMENT (PROTOCOL_ERROR) through the same error mapping as every other bad input.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import grpc
import structlog
from prometheus_client import Counter

from kxm_grpc._status import to_rpc_status
from kxm_grpc.domain.agents import needs_touch
from kxm_grpc.errors import HubError, Internal, InvalidArgument, PermissionDenied, Reason, Unauthenticated
from kxm_grpc.server.context import CallContext, set_current_call
from kxm_grpc.server.state import HubState
from kxm_grpc.services import agents as agent_service
from kxm_grpc.services.auth import CREDENTIALS_TOPIC, Access, AuthCache, Authenticated, Credentials, authenticate

log = structlog.get_logger("kxm.rpc")

RPC_TOTAL = Counter("kxm_rpc", "RPCs served, by method and status code.", ["method", "code"])

_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,80}")
_EXEMPT_PREFIXES = ("/grpc.health.v1.", "/grpc.reflection.")
# RPCs that renew the caller's presence themselves: the interceptor does not write it a second time.
_RENEWS_PRESENCE = frozenset({"/kxm.v1.AgentService/Heartbeat"})

_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")


def credentials_from(metadata: Any) -> tuple[Credentials, str | None]:
    """Read the credentials and the caller's request id from call metadata."""
    values: dict[str, str] = {}
    for key, value in metadata or ():
        if isinstance(value, str):
            values[key] = value
    auth = values.get("authorization", "")
    bearer = auth[7:] if auth.startswith("Bearer ") else None
    credentials = Credentials(
        bearer=bearer or None,
        agent_id=values.get("x-kxm-agent-id") or None,
        agent_key=values.get("x-kxm-agent-key") or None,
        project=values.get("x-kxm-project") or None,
    )
    return credentials, values.get("x-request-id")


def _peer_host(peer: str) -> str:
    """``ipv4:127.0.0.1:5123`` -> ``ipv4:127.0.0.1`` (the port changes with every connection)."""
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


def _request_id(presented: str | None) -> str:
    if presented and _REQUEST_ID.fullmatch(presented):
        return presented
    return f"req_{os.urandom(16).hex()}"


Context = grpc.aio.ServicerContext[Any, Any]


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
    """Wraps every kxm RPC; health and reflection pass through untouched."""

    def __init__(self, hub: HubState, access: dict[str, Access]) -> None:
        self._hub = hub
        self._access = access
        self._auth_cache = AuthCache(hub.store)

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
        """The handler of ``method`` with the hub's steps around it (health and reflection untouched).

        The hub applies this once per method when it registers its servicers (see ``app.Registrar``)
        rather than through grpc's interceptor chain, which builds a new handler on every call.

        Raises:
            TypeError: a server-streaming method is not an async generator function.
        """
        if method.startswith(_EXEMPT_PREFIXES):
            return handler
        access = self._access.get(method)
        # Never raises: an undecodable request reaches the wrapper as an Undecodable (see above).
        request_deserializer = handler.request_deserializer
        deserializer = tolerant_deserializer(request_deserializer, _message_type(request_deserializer, method))
        if handler.unary_unary is not None:
            unary = cast(Callable[[Any, Context], Awaitable[Any]], handler.unary_unary)
            return grpc.unary_unary_rpc_method_handler(
                self._wrap_unary(method, access, unary),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            if not inspect.isasyncgenfunction(handler.unary_stream):
                # The wrapper drives the servicer's generator and writes each item with context.write.
                raise TypeError(f"{method}: a server-streaming servicer method must be an async generator")
            stream = cast(Callable[[Any, Context], AsyncGenerator[Any, None]], handler.unary_stream)
            return grpc.unary_stream_rpc_method_handler(
                self._wrap_stream(method, access, stream),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    async def _admit(
        self, method: str, access: Access | None, credentials: Credentials, request_id: str, context: Context
    ) -> None:
        """Run the steps before the handler."""
        # Every call runs in its own task, whose context starts empty: bind, no need to clear.
        structlog.contextvars.bind_contextvars(request_id=request_id, rpc=method)
        if access is None:
            # Fail closed: every kxm RPC must be in the method table.
            raise PermissionDenied("this RPC has no access policy", reason=Reason.CREDENTIAL_KIND_DENIED)
        hub = self._hub
        notifier = hub.store.notifier
        verified_at = notifier.version(CREDENTIALS_TOPIC)
        try:
            authenticated = await authenticate(hub.store, hub.admin_token_hash, credentials, access, self._auth_cache)
        except Unauthenticated:
            # Failed attempts spend the budget of the peer address, so guessing tokens is rate limited
            # too; successful calls are limited by identity, never by an unauthenticated value.
            hub.limiter.check(f"peer:{_peer_host(context.peer())}")
            raise
        caller = authenticated.caller
        structlog.contextvars.bind_contextvars(project=caller.project, agent_id=caller.agent_id)
        hub.limiter.check(caller.identity)
        agent = authenticated.agent
        if agent is not None and method not in _RENEWS_PRESENCE:
            now = hub.now()
            if needs_touch(agent, now, hub.stale_after):
                agent = await agent_service.touch_agent(hub.store, agent, now=now)
                self._auth_cache.renewed(credentials, Authenticated(caller, agent))
        if notifier.version(CREDENTIALS_TOPIC) != verified_at:
            verified_at = -1  # a credential changed meanwhile: long-lived calls check again themselves
        set_current_call(CallContext(caller, agent, request_id, verified_at))

    def _wrap_unary(
        self,
        method: str,
        access: Access | None,
        behavior: Callable[[Any, Context], Awaitable[Any]],
    ) -> Callable[[Any, Context], Awaitable[Any]]:
        ok = RPC_TOTAL.labels(method, "OK")  # resolved once per method, not per call

        async def wrapped(request: Any, context: Context) -> Any:
            started = time.perf_counter()
            credentials, presented = credentials_from(context.invocation_metadata())
            request_id = _request_id(presented)
            try:
                await self._admit(method, access, credentials, request_id, context)
                if type(request) is Undecodable:
                    raise request.error()
                response = await behavior(request, context)
            except grpc.aio.BaseError:
                raise  # grpc's own (an abort already sent, a call that ended): its status stands
            except HubError as error:
                await self._abort(method, context, error, request_id, started)
            except Exception:
                await self._abort(method, context, self._internal(method), request_id, started)
            context.set_trailing_metadata((("x-request-id", request_id),))
            ok.inc()
            return response

        return wrapped

    def _wrap_stream(
        self,
        method: str,
        access: Access | None,
        behavior: Callable[[Any, Context], AsyncGenerator[Any, None]],
    ) -> Callable[[Any, Context], Awaitable[None]]:
        ok = RPC_TOTAL.labels(method, "OK")

        # A coroutine that writes what the servicer's generator yields, not a generator around it:
        # grpc then drives one async generator per stream event instead of two (docs/performance.md).
        async def wrapped(request: Any, context: Context) -> None:
            started = time.perf_counter()
            credentials, presented = credentials_from(context.invocation_metadata())
            request_id = _request_id(presented)
            try:
                await self._admit(method, access, credentials, request_id, context)
                if type(request) is Undecodable:
                    raise request.error()
                # Closed explicitly, so a cancelled call runs the servicer's cleanup now, not at GC.
                async with contextlib.aclosing(behavior(request, context)) as stream:
                    async for response in stream:
                        await context.write(response)
            except grpc.aio.BaseError:
                # grpc's own: an abort (ours or the slow-consumer cut) already sent its status, or a
                # write failed because the client went away. Neither is the hub's error to report.
                raise
            except HubError as error:
                await self._abort(method, context, error, request_id, started)
            except Exception:
                await self._abort(method, context, self._internal(method), request_id, started)
            context.set_trailing_metadata((("x-request-id", request_id),))
            ok.inc()

        return wrapped

    @staticmethod
    def _internal(method: str) -> Internal:
        log.exception("request_error", code="INTERNAL", reason=str(Reason.INTERNAL_ERROR))
        return Internal("internal error", reason=Reason.INTERNAL_ERROR)

    @staticmethod
    async def _abort(method: str, context: Context, error: HubError, request_id: str, started: float) -> None:
        if error.status != "INTERNAL":
            log.info(
                "request_error",
                code=error.status,
                reason=str(error.reason),
                duration_ms=round((time.perf_counter() - started) * 1000, 3),
            )
        RPC_TOTAL.labels(method, error.status).inc()
        await context.abort_with_status(to_rpc_status(error, trailing=(("x-request-id", request_id),)))
