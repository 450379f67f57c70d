"""The plumbing under HubClient: channel, credentials metadata, deadlines and error mapping.

Errors arrive as the same HubError subclasses the server raised (``reason``, ``metadata``,
``field_violations``, ``retry_after``); transport failures arrive as ``Unavailable`` or
``DeadlineExceeded``. Every unary call has a deadline (``timeout``, 15 s by default).

The channel's target comes from ``kxm_grpc.client.addresses``: one address is dialled as written;
several (or a ``dns:`` name) make a failover channel, which connects to the first address that
answers, moves on when its connection breaks, and retries the calls that are safe to repeat
(``kxm_grpc.client.retries``). The deadline bounds every attempt of a call together.

``Area`` is the base of the per-service sub-clients (``hub.messages``, ``hub.leases``, ...): each
holds its parent and makes every call through the parent's ``_call``, so all areas share one
channel, one set of credentials (``use_agent`` switches them for every area), one default deadline
and one error mapping.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar, cast

import grpc
from google.protobuf import duration_pb2
from google.protobuf.message import Message

from kxm_grpc._status import from_rpc_error
from kxm_grpc.client.config import resolve
from kxm_grpc.errors import DeadlineExceeded, HubError, Reason, Unimplemented

if TYPE_CHECKING:
    from kxm_grpc.client.channel import AgentChannel

R = TypeVar("R")
S = TypeVar("S")
M = TypeVar("M", bound=Message)

_AGENT_HEADERS = frozenset({"x-kxm-agent-id", "x-kxm-agent-key", "x-kxm-attempt-token", "x-kxm-session-token"})
"""The metadata that speaks for the agent rather than for the bearer token (``bearer_metadata``)."""

#: What an idempotency key the client made up starts with (the rest is a random UUID's hex).
AUTO_KEY_PREFIX = "auto:"

# Ping idle connections no more often than the server permits (every 10 s). Reconnect within 5 s
# of a hub's return: gRPC's own backoff grows 1.6-fold per failed connection up to 120 s, so a hub
# restarted a few times in a row (a deploy, a crash loop) left its clients failing fast for a
# minute or more after it was back.
CHANNEL_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.max_reconnect_backoff_ms", 5_000),
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", 16 * 1024 * 1024),
]


def duration(seconds: float | None) -> duration_pb2.Duration | None:
    """Seconds as a protobuf Duration (None stays None: the field is left unset)."""
    if seconds is None:
        return None
    value = duration_pb2.Duration()
    value.FromNanoseconds(round(seconds * 1e9))
    return value


class ClientBase:
    """A channel to one hub (one address, or several replicas) and the credentials of one caller
    (admin, project, agent or runtime)."""

    def __init__(
        self,
        address: str | Sequence[str] | None = None,
        *,
        token: str | None = None,
        project: str | None = None,
        agent_id: str | None = None,
        agent_key: str | None = None,
        admin: bool = False,
        attempt_token: str | None = None,
        session_token: str | None = None,
        root_certificates: bytes | None = None,
        private_key: bytes | None = None,
        certificate_chain: bytes | None = None,
        tls: bool = False,
        timeout: float = 15.0,
        channel: grpc.aio.Channel | None = None,
        agent_channel: bool = False,
    ) -> None:
        config = resolve(
            address,
            token=token,
            project=project,
            agent_id=agent_id,
            agent_key=agent_key,
            admin=admin,
            attempt_token=attempt_token,
            session_token=session_token,
        )
        # Kept to say where the token was looked for when the hub finds none (_error).
        self._config = config
        self.address = config.address
        self.target = config.target
        self.token = config.token
        self.project = config.project
        self.agent_id = config.agent_id
        self.agent_key = config.agent_key
        self.attempt_token = config.attempt_token
        self.session_token = config.session_token
        self.timeout = timeout
        # Whether this client's channel retries the safe calls (its own failover channel; a channel
        # passed in is the caller's, whatever it does).
        self.failover = channel is None and config.target.failover
        options = config.target.channel_options(CHANNEL_OPTIONS)
        if channel is not None:
            self._channel = channel
        elif tls or root_certificates is not None:
            credentials = grpc.ssl_channel_credentials(root_certificates, private_key, certificate_chain)
            self._channel = grpc.aio.secure_channel(config.target.target, credentials, options=options)
        else:
            self._channel = grpc.aio.insecure_channel(config.target.target, options=options)
        self._metadata = self._build_metadata()
        self._stubs: dict[type[Any], Any] = {}
        self._invokers: dict[str, grpc.aio.UnaryUnaryMultiCallable[Any, Any]] = {}
        self.agent_channel = agent_channel
        """Whether this agent's messaging commands (send, reply, ack, cancel, get, wait) ride one
        ``AgentService.OpenChannel`` stream instead of a unary call each (docs/messaging.md)."""
        self._commands: AgentChannel | None = None
        self._commands_metadata: tuple[tuple[str, str], ...] = ()
        self._commands_opening: asyncio.Lock | None = None
        self._commands_refused = False

    def _stub(self, stub_class: Callable[[grpc.aio.Channel], S]) -> S:
        """The stub of one service on this client's channel (created once)."""
        stub = self._stubs.get(stub_class)  # type: ignore[call-overload]
        if stub is None:
            stub = self._stubs[stub_class] = stub_class(self._channel)  # type: ignore[index]
        return stub  # type: ignore[no-any-return]

    # -- plumbing -----------------------------------------------------------------------------

    @property
    def channel(self) -> grpc.aio.Channel:
        """The underlying channel."""
        return self._channel

    def _build_metadata(self) -> tuple[tuple[str, str], ...]:
        metadata: list[tuple[str, str]] = []
        if self.token:
            metadata.append(("authorization", f"Bearer {self.token}"))
        if self.agent_id and self.agent_key:
            metadata.append(("x-kxm-agent-id", self.agent_id))
            metadata.append(("x-kxm-agent-key", self.agent_key))
        if self.project:
            metadata.append(("x-kxm-project", self.project))
        if self.attempt_token:
            metadata.append(("x-kxm-attempt-token", self.attempt_token))
        if self.session_token:
            metadata.append(("x-kxm-session-token", self.session_token))
        return tuple(metadata)

    def retry_key(self, given: str) -> str:
        """The idempotency key (or fanout prefix) a send carries: ``given``; or, when the caller gave
        none and this client's channel retries sends, a fresh one (``auto:`` and 32 hex digits), so
        that a send repeated by the retry policy on another address is stored once."""
        if given or not self.failover:
            return given
        return AUTO_KEY_PREFIX + uuid.uuid4().hex

    def use_agent(self, agent_id: str | None, agent_key: str | None) -> None:
        """Act as this agent from now on (None for both: act with the bearer token only)."""
        self.agent_id, self.agent_key = agent_id, agent_key
        self._metadata = self._build_metadata()

    def use_tokens(self, *, attempt_token: str | None = None, session_token: str | None = None) -> None:
        """Present these tool-policy tokens on every call from now on (None: present none of that kind)."""
        self.attempt_token, self.session_token = attempt_token, session_token
        self._metadata = self._build_metadata()

    def use_runtime_key(self, runtime_key: str) -> None:
        """Act as the runtime this key was issued to from now on (the key replaces the bearer token)."""
        self.token = runtime_key
        self.use_agent(None, None)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The credentials metadata every call carries."""
        return self._metadata

    @property
    def bearer_metadata(self) -> tuple[tuple[str, str], ...]:
        """The credentials metadata without the agent identity (for registering, or asking which
        project the token admits): no agent id and key, and none of the agent's tool-policy tokens,
        which are bound to the agent and so refused on a call without it."""
        return tuple(item for item in self._metadata if item[0] not in _AGENT_HEADERS)

    async def _call(
        self,
        method: Callable[..., Awaitable[R]],
        request: Any,
        timeout: float | None = None,
        metadata: tuple[tuple[str, str], ...] | None = None,
    ) -> R:
        try:
            return await method(
                request,
                metadata=self._metadata if metadata is None else metadata,
                timeout=self.timeout if timeout is None else timeout,
            )
        except grpc.aio.AioRpcError as exc:
            # Chained so the raw status (and its details) stays reachable as __cause__.
            raise self._error(exc) from exc

    async def invoke(self, method: str, request: Message, response_type: type[M], *, timeout: float | None = None) -> M:
        """Call the unary RPC named ``method`` (``/kxm.v1.MessageService/SendMessage``) with this
        client's credentials: for adapters that call RPCs by name, such as the MCP tools.

        Raises:
            HubError: the hub refused the call, or could not be reached (Unavailable).
        """
        call = self._invokers.get(method)
        if call is None:
            call = self._invokers[method] = self._channel.unary_unary(
                method,
                request_serializer=type(request).SerializeToString,
                response_deserializer=response_type.FromString,
            )
        return cast(M, await self._call(call, request, timeout))

    def _error(self, exc: grpc.aio.AioRpcError) -> HubError:
        """The HubError of a failed call; CREDENTIAL_MISSING while this client has no token carries
        a note naming every place the token was looked for."""
        error = from_rpc_error(exc)
        if error.reason == Reason.CREDENTIAL_MISSING and not self.token:
            error.add_note(f"hint: {self._config.missing_token('the token argument')}")
        return error

    async def _agent_commands(self) -> AgentChannel | None:
        """The open agent channel this client's messaging commands ride, or None: unary calls (the
        option is off, the client acts as no agent, or the hub has no channel: UNIMPLEMENTED).

        Opened at the first command, and again with the client's current credentials after they
        changed (``use_agent``, ``use_tokens``) or after the channel failed.

        Raises:
            HubError: the hub refused to open it (bad credentials, too many streams).
        """
        if not self.agent_channel or self._commands_refused or not (self.agent_id and self.agent_key):
            return None
        opened = self._commands
        if opened is not None and not opened.failed and self._commands_metadata == self._metadata:
            return opened
        if self._commands_opening is None:
            self._commands_opening = asyncio.Lock()
        async with self._commands_opening:  # concurrent first commands open one channel
            opened = self._commands
            if opened is not None and not opened.failed and self._commands_metadata == self._metadata:
                return opened
            self._commands = None
            if opened is not None:
                opened.retire()  # its unanswered commands (other callers') are answered first
            from kxm_grpc.client.channel import AgentChannel  # channel.py imports this module

            metadata = self._metadata
            fresh = AgentChannel(self)
            try:
                await asyncio.wait_for(fresh.open(), self.timeout)
            except Unimplemented:
                self._commands_refused = True  # an older hub: every command goes unary from now on
                return None
            except TimeoutError:
                await fresh.close()
                raise DeadlineExceeded(f"the agent channel did not open within {self.timeout:g} s") from None
            self._commands, self._commands_metadata = fresh, metadata
            return fresh

    async def _on_channel(self, command: Awaitable[R], timeout: float | None) -> R:
        """Await a channel command within the client's deadline (``timeout``, else its default).

        Raises:
            DeadlineExceeded: it was not answered in time (it may still be applied, as a unary call
                whose deadline passed may).
        """
        limit = self.timeout if timeout is None else timeout
        try:
            return await asyncio.wait_for(command, limit)
        except TimeoutError:
            raise DeadlineExceeded(f"no answer on the agent channel within {limit:g} s") from None

    async def close(self) -> None:
        """Close the agent channel, if open, and the channel."""
        if self._commands is not None:
            await self._commands.close()
            self._commands = None
        await self._channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class Area:
    """One service's calls on a parent client (``hub.messages``, ``hub.leases``, ...).

    ``timeout`` on a method is that call's deadline in seconds (the parent's ``timeout`` when left
    out); how long the hub should wait for something is always called ``wait``.
    """

    #: The full name of the service this area calls (``kxm.v1.MessageService``).
    SERVICE: ClassVar[str]

    def __init__(self, hub: ClientBase) -> None:
        self._hub = hub

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._hub.address}>"
