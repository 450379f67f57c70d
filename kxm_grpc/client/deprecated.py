"""The flat names of the first client (``hub.send_message``, ``hub.acquire_lease``, ``hub.send``, ...).

They are kept for one release as deprecated aliases: each emits ``DeprecationWarning`` and delegates
to the namespaced method (``hub.messages.send``, ``hub.leases.acquire``). The flat names that took
``timeout=`` for a wait length (``wait_message``, ``wait``, ``fanout_messages``, ``fanout``) and
``reply_wait=`` (``send_message``, ``send``) still accept them and pass them on as ``wait=``. This
module, and the flat block of ``sync.py``, go in the release after (docs/clients.md, "Python client").
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc, types_pb2
from kxm_grpc.client.admin import Admin
from kxm_grpc.client.agents import Agents
from kxm_grpc.client.areas import AreaClient
from kxm_grpc.client.leases import Leases
from kxm_grpc.client.messages import MAX_WAIT_CALL, Messages
from kxm_grpc.client.runtimes import Runtimes

P = ParamSpec("P")
R = TypeVar("R")


def warn_deprecated(owner: object, name: str, instead: str) -> None:
    """Warn that ``name`` on ``owner`` is deprecated in favour of ``instead``, at the caller's caller."""
    kind = type(owner).__name__
    warnings.warn(
        f"{kind}.{name} is deprecated and will be removed in the next release; use {kind}.{instead}",
        DeprecationWarning,
        stacklevel=3,
    )


def one_poll(timeout: float | None) -> float:
    """The wait of the old ``wait_message(timeout=...)``: one long poll, 60 s when left out, never more."""
    return MAX_WAIT_CALL if timeout is None else min(timeout, MAX_WAIT_CALL)


class deprecated_alias(Generic[P, R]):
    """A flat name that warns and then calls ``<area>.<method>`` with the same arguments.

    Typed from the method it stands for: ``hub.get_message`` has the signature of
    ``hub.messages.get``. (Lower case: it is written like a function call in class bodies.)
    """

    def __init__(self, area: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self._area = area
        self._method: str = method.__name__
        self._name = self._method
        self.__doc__ = f"Deprecated: use ``{area}.{self._method}`` (this name goes in the next release)."

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, obj: object, owner: type | None = None) -> Self | Callable[P, R]:
        if obj is None:
            return self
        target: Callable[P, R] = getattr(getattr(obj, self._area), self._method)
        name, instead = self._name, f"{self._area}.{self._method}"

        def alias(*args: P.args, **kwargs: P.kwargs) -> R:
            warn_deprecated(obj, name, instead)
            return target(*args, **kwargs)

        alias.__name__ = alias.__qualname__ = name
        alias.__doc__ = self.__doc__
        return alias

    def __call__(self, obj: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        """``HubClient.get_message(hub, ...)``: the unbound form."""
        bound: Callable[P, R] = self.__get__(obj, type(obj))
        return bound(*args, **kwargs)


class FlatCalls(AreaClient):
    """The deprecated flat tier of HubClient: every name of the first client, as an alias."""

    # -- AgentService ------------------------------------------------------------------------------
    register_agent = deprecated_alias("agents", Agents.register)
    heartbeat = deprecated_alias("agents", Agents.heartbeat)
    unregister_agent = deprecated_alias("agents", Agents.unregister)
    list_agents = deprecated_alias("agents", Agents.list)
    get_caller_identity = deprecated_alias("agents", Agents.get_caller_identity)
    caller_project = deprecated_alias("agents", Agents.caller_project)

    # -- MessageService ----------------------------------------------------------------------------
    get_message = deprecated_alias("messages", Messages.get)
    cancel_message = deprecated_alias("messages", Messages.cancel)
    reply_to_message = deprecated_alias("messages", Messages.reply)
    ack_messages = deprecated_alias("messages", Messages.ack)
    list_inbox = deprecated_alias("messages", Messages.list_inbox)
    subscribe = deprecated_alias("messages", Messages.subscribe)
    # The short names of the flat client, which collide across areas (``get`` meant get_message).
    get = deprecated_alias("messages", Messages.get)
    cancel = deprecated_alias("messages", Messages.cancel)
    reply = deprecated_alias("messages", Messages.reply)
    inbox = deprecated_alias("messages", Messages.list_inbox)

    async def send_message(
        self,
        target: str,
        content: str,
        *,
        delivery: types_pb2.Delivery.ValueType = types_pb2.DELIVERY_UNSPECIFIED,
        correlation_id: str = "",
        reply_to: str = "",
        idempotency_key: str = "",
        hops: int = 0,
        max_hops: int = 0,
        ttl: float | None = None,
        allow_offline: bool = False,
        workflow_context: types_pb2.WorkflowMessageContext | None = None,
        reply_wait: float | None = None,
        timeout: float | None = None,
    ) -> pb.SendMessageResponse:
        """Deprecated: use ``messages.send`` (``reply_wait=`` is now ``wait=``)."""
        warn_deprecated(self, "send_message", "messages.send")
        return await self.messages.send(
            target,
            content,
            delivery=delivery,
            correlation_id=correlation_id,
            reply_to=reply_to,
            idempotency_key=idempotency_key,
            hops=hops,
            max_hops=max_hops,
            ttl=ttl,
            allow_offline=allow_offline,
            workflow_context=workflow_context,
            wait=reply_wait,
            timeout=timeout,
        )

    async def send(
        self,
        target: str,
        content: str,
        *,
        delivery: types_pb2.Delivery.ValueType = types_pb2.DELIVERY_UNSPECIFIED,
        correlation_id: str = "",
        reply_to: str = "",
        idempotency_key: str = "",
        hops: int = 0,
        max_hops: int = 0,
        ttl: float | None = None,
        allow_offline: bool = False,
        workflow_context: types_pb2.WorkflowMessageContext | None = None,
        reply_wait: float | None = None,
        timeout: float | None = None,
    ) -> pb.SendMessageResponse:
        """Deprecated: use ``messages.send`` (``reply_wait=`` is now ``wait=``)."""
        warn_deprecated(self, "send", "messages.send")
        return await self.messages.send(
            target,
            content,
            delivery=delivery,
            correlation_id=correlation_id,
            reply_to=reply_to,
            idempotency_key=idempotency_key,
            hops=hops,
            max_hops=max_hops,
            ttl=ttl,
            allow_offline=allow_offline,
            workflow_context=workflow_context,
            wait=reply_wait,
            timeout=timeout,
        )

    async def wait_message(self, message_id: str, *, timeout: float | None = None) -> pb.WaitMessageResponse:
        """Deprecated: use ``messages.wait`` (``timeout=`` is now ``wait=``). One long poll of at most 60 s."""
        warn_deprecated(self, "wait_message", "messages.wait")
        return await self.messages.wait(message_id, wait=one_poll(timeout))

    async def wait(self, message_id: str, *, timeout: float | None = None) -> pb.WaitMessageResponse:
        """Deprecated: use ``messages.wait`` (``timeout=`` is now ``wait=``)."""
        warn_deprecated(self, "wait", "messages.wait")
        return await self.messages.wait(message_id, wait=timeout)

    async def fanout_messages(
        self,
        targets: Iterable[str],
        content: str,
        *,
        correlation_id: str = "",
        idempotency_key_prefix: str = "",
        workflow_context: types_pb2.WorkflowMessageContext | None = None,
        ttl: float | None = None,
        timeout: float = 1800.0,
        allow_offline: bool = False,
    ) -> pb.FanoutMessagesResponse:
        """Deprecated: use ``messages.fanout`` (``timeout=`` is now ``wait=``)."""
        warn_deprecated(self, "fanout_messages", "messages.fanout")
        return await self.messages.fanout(
            targets,
            content,
            correlation_id=correlation_id,
            idempotency_key_prefix=idempotency_key_prefix,
            workflow_context=workflow_context,
            ttl=ttl,
            wait=timeout,
            allow_offline=allow_offline,
        )

    async def fanout(
        self,
        targets: Iterable[str],
        content: str,
        *,
        correlation_id: str = "",
        idempotency_key_prefix: str = "",
        workflow_context: types_pb2.WorkflowMessageContext | None = None,
        ttl: float | None = None,
        timeout: float = 1800.0,
        allow_offline: bool = False,
    ) -> pb.FanoutMessagesResponse:
        """Deprecated: use ``messages.fanout`` (``timeout=`` is now ``wait=``)."""
        warn_deprecated(self, "fanout", "messages.fanout")
        return await self.messages.fanout(
            targets,
            content,
            correlation_id=correlation_id,
            idempotency_key_prefix=idempotency_key_prefix,
            workflow_context=workflow_context,
            ttl=ttl,
            wait=timeout,
            allow_offline=allow_offline,
        )

    async def ack(self, *message_ids: str) -> pb.AckMessagesResponse:
        """Deprecated: use ``messages.ack`` (which takes one iterable of ids)."""
        warn_deprecated(self, "ack", "messages.ack")
        return await self.messages.ack(message_ids)

    def _messages(self) -> message_service_pb2_grpc.MessageServiceAsyncStub:
        """The raw MessageService stub on this client's channel (tests drive raw calls through it)."""
        return self.messages._rpc()

    # -- LeaseService ------------------------------------------------------------------------------
    acquire_lease = deprecated_alias("leases", Leases.acquire)
    renew_lease = deprecated_alias("leases", Leases.renew)
    release_lease = deprecated_alias("leases", Leases.release)
    get_lease = deprecated_alias("leases", Leases.get)
    list_leases = deprecated_alias("leases", Leases.list)
    check_fence = deprecated_alias("leases", Leases.check_fence)
    hold_lease = deprecated_alias("leases", Leases.hold)

    # -- RuntimeService ----------------------------------------------------------------------------
    register_runtime = deprecated_alias("runtimes", Runtimes.register)
    runtime_heartbeat = deprecated_alias("runtimes", Runtimes.heartbeat)
    list_runtimes = deprecated_alias("runtimes", Runtimes.list)
    push_sync_events = deprecated_alias("runtimes", Runtimes.push_sync_events)
    list_run_events = deprecated_alias("runtimes", Runtimes.list_run_events)
    reassign_sync_project = deprecated_alias("runtimes", Runtimes.reassign_sync_project)

    # -- AdminService ------------------------------------------------------------------------------
    create_project = deprecated_alias("admin", Admin.create_project)
    list_projects = deprecated_alias("admin", Admin.list_projects)
    rotate_project_token = deprecated_alias("admin", Admin.rotate_project_token)
