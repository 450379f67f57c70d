"""The admission pipeline: the steps every call of every surface passes, before and after its handler.

The gRPC interceptor is one surface; the HTTP routes to come (signed webhooks, the JSON port, MCP)
are others. Each builds an ``IncomingCall`` from what it received (the method's full name, its
metadata or headers as ``(name, value)`` pairs with lowercase names, the peer's host) and asks the
same ``Admission`` for the call, so no surface can skip a step:

1. **Request id**: the caller's ``x-request-id`` when it is 1-80 of ``[A-Za-z0-9._-]``, else
   ``req_`` + 32 hex (chosen when the ``IncomingCall`` is made), bound into the log context with
   the RPC's name.
2. **Facts**: an RPC whose facts (``kxm.v1.facts``, ``server/methods.py``) are missing or
   incomplete admits nobody (fail closed).
3. **Authentication**: every presented credential is checked, before any side effect, then its
   kind against the RPC's access: an operator's kind before the project it names is looked up, so
   a caller who may not call the RPC is PERMISSION_DENIED whatever project it names (never
   NOT_FOUND, which would tell which projects exist). A failed authentication spends one token of
   the peer host's rate budget (so guessing tokens is rate limited too) and is raised.
4. **Project isolation**: the caller's project is the credential's, never a request field's
   (``services.auth.authenticate``); it is bound into the log context with the agent id, and an
   operator's call (the bootstrap admin's or a named operator's) with ``operator``.
5. **Rate limit**: the authenticated identity pays the cost of the RPC's rate-limit class.
6. **Tool policy**: a call of an RPC with a tool name (``RpcFacts.tool_name``) is checked by
   ``services.tokens.check_tool_call``, after every credential and the rate limit, before the
   first write: the attempt token (``x-kxm-attempt-token``) or session token
   (``x-kxm-session-token``) it presents is verified (signature, expiry, the calling agent's, of
   its project, not revoked) and its tool policy decides, the attempt token's first; an agent
   whose name holds a session in force (``Authenticated.sessions``, cached with its
   authentication) must present one. RPCs without a tool name (Heartbeat, streams, AckMessages,
   operators' RPCs) are admitted under any policy, and their tokens are not read. A call that
   presents no token and owes none costs two attribute reads here.
7. **Presence**: a call of an agent renews its presence when the RPC's facts say admission does
   (``PresenceRenewal.ADMISSION``) and it is due; Heartbeat renews it itself. A read-only RPC whose
   renewal the database refuses (full, locked: ``STORAGE_FULL``, ``STORAGE_UNAVAILABLE``), or would
   (the store is unhealthy: no write is tried), is served unrenewed, its credentials checked afresh
   through a read instead: renewal is a side effect of the read, and reads keep working while
   writes cannot.
8. **Call context**: the ``CallContext`` (caller, agent, request id, the credentials notice
   version it was verified at, the agent key it presented, the verified attempt token's claims)
   is bound for the handler (``server/context.py``) and returned; handlers read it, never the
   metadata again.
9. **Run scope**: once the request is decoded, the surface calls ``Gate.check_scope``: a call
   with an attempt token whose request names a workflow run (a ``run_id`` field, or
   ``workflow_context.run_id``) must name the token's run (ATTEMPT_TOKEN_SCOPE_VIOLATION), on
   every RPC of the registry whose request has such a field, found once per method.

After the handler, ``fail`` maps whatever it raised to one ``HubError`` (anything that is not a
``HubError`` becomes INTERNAL with a fixed message and one logged traceback), logs it and counts
it; ``succeeded`` counts a call that ended well. The surface then writes the error in its own
terms (gRPC: a status with ``google.rpc`` details and the request id in the trailing metadata).

Per-method work is done once: ``Admission.gate(method)`` resolves an RPC's facts, access, rate
class and metric children into a ``Gate`` that a surface keeps for all the calls of that method
(the gRPC interceptor takes it when it wraps the handler). ``admit`` binds contextvars: call it in
the task that serves the call.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar

import structlog
from prometheus_client import Counter

from kxm_grpc.domain.agents import Agent, needs_touch
from kxm_grpc.errors import HubError, Internal, PermissionDenied, Reason, Unauthenticated
from kxm_grpc.server.context import CallContext, set_current_call
from kxm_grpc.server.methods import RPCS, RpcFacts
from kxm_grpc.server.ratelimit import RateClass
from kxm_grpc.server.state import HubState
from kxm_grpc.services import agents as agent_service
from kxm_grpc.services.auth import CREDENTIALS_TOPIC, Access, AuthCache, Credentials, authenticate
from kxm_grpc.services.tokens import NO_TOKENS, PresentedTokens, check_run_scope, check_tool_call

log = structlog.get_logger("kxm.rpc")

RPC_TOTAL = Counter("kxm_rpc", "RPCs served, by method and status code.", ["method", "code"])

_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,80}")

Metadata = Iterable[tuple[str, str | bytes]]
"""Call metadata (or HTTP headers) as ``(lowercase name, value)`` pairs; binary values are ignored."""


def credentials_from(metadata: Metadata | None) -> tuple[Credentials, str | None, PresentedTokens]:
    """Read the credentials, the caller's request id and the tool-policy tokens from call metadata."""
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
    attempt, session = values.get("x-kxm-attempt-token") or None, values.get("x-kxm-session-token") or None
    tokens = NO_TOKENS if attempt is None and session is None else PresentedTokens(attempt, session)
    return credentials, values.get("x-request-id"), tokens


def request_id_for(presented: str | None) -> str:
    """The request id of a call: the presented one when well formed, else ``req_`` + 32 hex."""
    if presented and _REQUEST_ID.fullmatch(presented):
        return presented
    return f"req_{os.urandom(16).hex()}"


class IncomingCall:
    """One call as it arrived, on any surface: what admission needs, and nothing of the transport.

    Made by the surface from the method's full name (``/kxm.v1.AgentService/Heartbeat``), the
    call's metadata and the peer's host (``ipv4:127.0.0.1``; used only to rate-limit failed
    authentications). The metadata is read once, here: ``credentials`` are what it presented and
    ``request_id`` is the call's request id (step 1). A surface whose peer is costly to learn
    overrides ``peer_host`` (the gRPC adapter reads it only when authentication fails). ``tokens``
    are the tool-policy tokens it presented (``NO_TOKENS`` when none).
    """

    __slots__ = ("_peer_host", "credentials", "method", "request_id", "started", "tokens")

    def __init__(self, method: str, metadata: Metadata | None, peer_host: str = "") -> None:
        self.started = time.perf_counter()
        self.method = method
        self.credentials, presented, self.tokens = credentials_from(metadata)
        self.request_id = request_id_for(presented)
        self._peer_host = peer_host

    @property
    def peer_host(self) -> str:
        """The peer's address without its port (the port changes with every connection)."""
        return self._peer_host


class CommandCall(IncomingCall):
    """One command of a channel (``AgentService.OpenChannel``), admitted as a call of its unary twin.

    It carries the channel's credentials and tool-policy tokens, read once when the channel opened,
    under the twin's method name and a request id of its own (the command id when it is a valid
    request id, else a fresh one), so each command is logged, counted and refused as the twin is.
    """

    __slots__ = ("_channel",)

    def __init__(self, channel: IncomingCall, method: str, command_id: str) -> None:
        self.started = time.perf_counter()
        self.method = method
        self.credentials = channel.credentials
        self.tokens = channel.tokens
        self.request_id = request_id_for(command_id)
        self._peer_host = ""
        self._channel = channel

    @property
    def peer_host(self) -> str:
        """The channel's peer host (read only when a command's authentication fails)."""
        return self._channel.peer_host


def run_reader(facts: RpcFacts | None) -> Callable[[object], str] | None:
    """How to read the workflow run a request of this RPC names: its ``run_id`` field, or its
    ``workflow_context.run_id``; None when its request names no run (found once per method)."""
    descriptor = facts.descriptor if facts is not None else None
    if descriptor is None:
        return None
    fields = descriptor.input_type.fields_by_name
    if "run_id" in fields:
        return lambda request: str(getattr(request, "run_id", ""))
    context = fields.get("workflow_context")
    if context is not None and context.message_type is not None and "run_id" in context.message_type.fields_by_name:
        return lambda request: str(getattr(getattr(request, "workflow_context", None), "run_id", "") or "")
    return None


_WRITES_REFUSED = frozenset({Reason.STORAGE_FULL, Reason.STORAGE_UNAVAILABLE})
"""Reasons of a presence renewal the database refused that a read-only call is served despite."""


class Gate:
    """Admission for one RPC: its facts resolved once, then used by every call of it."""

    __slots__ = (
        "_access",
        "_cache",
        "_hub",
        "_limiter",
        "_ok",
        "_rate_class",
        "_read_only",
        "_renews_presence",
        "_run_of",
        "_tool",
        "facts",
        "method",
    )

    def __init__(self, hub: HubState, cache: AuthCache, method: str, facts: RpcFacts | None) -> None:
        self._hub = hub
        self._cache = cache
        self._limiter = hub.coordination.limiter
        self.method = method
        self.facts = facts
        self._access = facts.access if facts is not None and facts.complete else None  # None: nobody is admitted
        self._rate_class = (facts.rate_class if facts is not None else None) or RateClass.DEFAULT
        self._renews_presence = facts is not None and facts.admission_renews_presence
        self._read_only = facts is not None and facts.read_only is True
        self._tool = facts.tool_name if facts is not None else ""
        self._run_of = run_reader(facts) if self._tool else None
        self._ok = RPC_TOTAL.labels(method, "OK")  # resolved once per method, not per call

    async def admit(self, call: IncomingCall) -> CallContext:
        """Run steps 1-8 for ``call``; the context to serve it in (also bound for the handler).

        Raises:
            Unauthenticated: a credential is missing, unknown, revoked or does not match.
            PermissionDenied: the credential's kind may not call this RPC, or the RPC has no facts;
                (TOOL_POLICY_DENIED, ATTEMPT_TOKEN_INVALID, ATTEMPT_TOKEN_REQUIRED,
                SESSION_TOKEN_INVALID, SESSION_TOKEN_REQUIRED) the tool-policy step refused it.
            NotFound: an operator this RPC admits named a project that does not exist.
            ResourceExhausted: (RATE_LIMITED) the caller's budget (or, failing authentication,
                the peer's) is spent.
        """
        # Every call runs in its own task, whose context starts empty: bind, no need to clear.
        structlog.contextvars.bind_contextvars(request_id=call.request_id, rpc=self.method)
        access = self._access
        if access is None:
            raise PermissionDenied("this RPC has no access policy", reason=Reason.CREDENTIAL_KIND_DENIED)
        hub = self._hub
        notifier = hub.store.notifier
        verified_at = notifier.version(CREDENTIALS_TOPIC)
        credentials = call.credentials
        try:
            authenticated = await authenticate(
                hub.store, hub.admin_token_hash, credentials, access, self._cache, now=hub.now()
            )
        except Unauthenticated:
            # Successful calls are limited by identity, never by an unauthenticated value.
            self._limiter.check(f"peer:{call.peer_host}")
            raise
        caller = authenticated.caller
        structlog.contextvars.bind_contextvars(project=caller.project, agent_id=caller.agent_id)
        if caller.is_operator:
            # Every log line of an operator's call names the operator (never its token).
            structlog.contextvars.bind_contextvars(operator=caller.operator)
        self._limiter.check(caller.identity, None, self._rate_class)  # positional: the hot path
        # Step 6: after every credential and the rate limit, before presence, the first write.
        attempt = None
        if self._tool and (call.tokens is not NO_TOKENS or authenticated.sessions or authenticated.bound_assignments):
            attempt = await check_tool_call(
                hub.store,
                hub.token_keys,
                caller,
                authenticated.sessions,
                self._tool,
                call.tokens,
                now=hub.now(),
                bound_assignments=authenticated.bound_assignments,
            )
        agent = authenticated.agent
        if agent is not None and self._renews_presence:
            now = hub.now()
            if needs_touch(agent, now, hub.stale_after):
                # The key is checked again as presence is renewed: the cache may trust a key revoked
                # by another process for up to CREDENTIALS_RECHECK, and renewal is the first write.
                assert credentials.agent_key is not None  # an agent is authenticated by its key
                if self._read_only and not hub.store.healthy:
                    agent = await self._unrenewed(credentials, access)  # no write to wait out first
                else:
                    try:
                        agent = await agent_service.touch_agent(
                            hub.store, agent, agent_key=credentials.agent_key, now=now
                        )
                    except HubError as error:
                        if not (self._read_only and error.reason in _WRITES_REFUSED):
                            raise
                        agent = await self._unrenewed(credentials, access)
                    else:
                        self._cache.renewed(credentials, dataclasses.replace(authenticated, agent=agent))
        if notifier.version(CREDENTIALS_TOPIC) != verified_at:
            verified_at = -1  # a credential changed meanwhile: long-lived calls check again themselves
        context = CallContext(
            caller, agent, call.request_id, verified_at, credentials.agent_key, attempt, credentials.dashboard
        )
        set_current_call(context)
        return context

    def check_scope(self, context: CallContext, request: object) -> None:
        """Step 9: refuse a decoded request that names a run other than the call's attempt token's.

        Raises:
            PermissionDenied: (ATTEMPT_TOKEN_SCOPE_VIOLATION) it does.
        """
        attempt = context.attempt_token
        if attempt is not None and self._run_of is not None:
            check_run_scope(attempt, self._run_of(request))

    async def _unrenewed(self, credentials: Credentials, access: Access) -> Agent | None:
        """The agent of a read-only call served without its due presence renewal, the database
        refusing writes (full, locked) while it serves reads: its credentials are checked in the
        database, not the cache, as the renewal would have checked its key.

        Raises:
            Unauthenticated: the key was revoked or replaced meanwhile (as ``authenticate``).
        """
        hub = self._hub
        return (await authenticate(hub.store, hub.admin_token_hash, credentials, access, now=hub.now())).agent

    def fail(self, call: IncomingCall, error: BaseException) -> HubError:
        """The error to answer ``call`` with, logged and counted.

        A ``HubError`` is answered as it is (logged at info unless INTERNAL); anything else is a
        bug: INTERNAL with a fixed message, its traceback logged once. Call it from the ``except``
        block that caught ``error``.
        """
        if not isinstance(error, HubError):
            log.exception("request_error", code="INTERNAL", reason=str(Reason.INTERNAL_ERROR))
            error = Internal("internal error", reason=Reason.INTERNAL_ERROR)
        elif error.status != "INTERNAL":
            log.info(
                "request_error",
                code=error.status,
                reason=str(error.reason),
                duration_ms=round((time.perf_counter() - call.started) * 1000, 3),
            )
        RPC_TOTAL.labels(self.method, error.status).inc()
        return error

    def succeeded(self) -> None:
        """Count a call that ended well."""
        self._ok.inc()


@dataclasses.dataclass(frozen=True, slots=True)
class ChannelCall:
    """An admitted channel: how each of its commands is admitted, as a call of its unary twin."""

    admission: Admission
    call: IncomingCall
    """The channel's own call (its credentials, tokens and request id)."""

    def admit_command(self, method: str, command_id: str) -> tuple[Gate, CommandCall]:
        """The twin's gate and the command's call, to pass to ``Gate.admit``."""
        return self.admission.gate(method), CommandCall(self.call, method, command_id)


_channel: ContextVar[ChannelCall] = ContextVar("kxm_channel")


def current_channel() -> ChannelCall:
    """The channel being served (set by the surface before the channel's servicer runs)."""
    return _channel.get()


def set_current_channel(channel: ChannelCall) -> None:
    """Bind the admitted channel for its servicer (in the task that serves it)."""
    _channel.set(channel)


class Admission:
    """The one admission pipeline of a hub, shared by every surface (see the module docstring)."""

    def __init__(self, hub: HubState, rpcs: Mapping[str, RpcFacts] = RPCS) -> None:
        self._hub = hub
        self._rpcs = rpcs
        self._cache = hub.coordination.auth_cache
        self._gates: dict[str, Gate] = {}

    def gate(self, method: str) -> Gate:
        """The gate of ``method`` (made once; a method without facts gets one that admits nobody)."""
        gate = self._gates.get(method)
        if gate is None:
            gate = self._gates[method] = Gate(self._hub, self._cache, method, self._rpcs.get(method))
        return gate

    async def admit(self, call: IncomingCall) -> CallContext:
        """Admit ``call`` through its method's gate (see ``Gate.admit``).

        Raises:
            HubError: as ``Gate.admit``.
        """
        return await self.gate(call.method).admit(call)

    def fail(self, call: IncomingCall, error: BaseException) -> HubError:
        """The error to answer ``call`` with, logged and counted (see ``Gate.fail``)."""
        return self.gate(call.method).fail(call, error)

    def succeeded(self, call: IncomingCall) -> None:
        """Count a call that ended well."""
        self.gate(call.method).succeeded()
