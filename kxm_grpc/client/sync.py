"""SyncHubClient: the HubClient for code without an event loop.

It runs a private event loop on a background thread (grpc.aio objects belong to their loop) and
has the same sub-clients with the same methods, blocking: ``sync_hub.messages.send(...)`` returns
the response, ``sync_hub.messages.subscribe()`` is a plain iterator. Each method is declared once
below as ``blocking(<async method>)``, which gives it the async method's parameters and response
type for type checkers; ``tests/test_contract.py`` checks that no async method is left out.
``workflows.journal`` is a blocking area of its own (``SyncWorkflowJournal``), as it is async.

``leases.hold`` has no blocking form: it cancels the block when the lease is lost, which a thread
cannot be. Hold leases with ``acquire``/``renew``/``release`` here, or use HubClient.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Sequence
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

import grpc

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client.admin import Admin
from kxm_grpc.client.agents import Agents
from kxm_grpc.client.base import Area
from kxm_grpc.client.context import Context
from kxm_grpc.client.deprecated import deprecated_alias, one_poll, warn_deprecated
from kxm_grpc.client.hub import HubClient
from kxm_grpc.client.journal import WorkflowJournal
from kxm_grpc.client.leases import Leases
from kxm_grpc.client.messages import Messages
from kxm_grpc.client.ops import Ops
from kxm_grpc.client.runtimes import Runtimes
from kxm_grpc.client.workflows import Workflows

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class SyncArea:
    """One area of a SyncHubClient: the blocking twin of an async ``Area``."""

    #: The async area class this one mirrors.
    ASYNC: type[Area]

    def __init__(self, client: SyncHubClient, target: Area) -> None:
        self._client = client
        self._target = target

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client.address}>"


class blocking(Generic[P, R]):
    """The blocking form of one async area method: runs it on the client's loop and returns its result."""

    def __init__(self, method: Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]) -> None:
        self.__name__ = self._attribute = method.__name__
        self.__doc__ = method.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._attribute = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, obj: SyncArea, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, obj: SyncArea | None, owner: type | None = None) -> Self | Callable[P, R]:
        if obj is None:
            return self
        name, target, run = self.__name__, obj._target, obj._client._run

        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            method: Callable[P, Coroutine[Any, Any, R]] = getattr(target, name)
            return run(method(*args, **kwargs))

        _describe(call, getattr(target, name))
        obj.__dict__[self._attribute] = call  # made once per area object: later lookups skip the descriptor
        return call

    def __call__(self, obj: SyncArea, *args: P.args, **kwargs: P.kwargs) -> R:
        """``SyncMessages.send(area, ...)``: the unbound form."""
        bound: Callable[P, R] = self.__get__(obj, type(obj))
        return bound(*args, **kwargs)


class blocking_iter(Generic[P, T]):
    """The blocking form of an async-iterator area method: a plain iterator, advanced on the client's loop."""

    def __init__(self, method: Callable[Concatenate[Any, P], AsyncIterator[T]]) -> None:
        self.__name__ = self._attribute = method.__name__
        self.__doc__ = method.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._attribute = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, obj: SyncArea, owner: type | None = None) -> Callable[P, Iterator[T]]: ...
    def __get__(self, obj: SyncArea | None, owner: type | None = None) -> Self | Callable[P, Iterator[T]]:
        if obj is None:
            return self
        name, target, iterate = self.__name__, obj._target, obj._client._iterate

        def call(*args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
            method: Callable[P, AsyncIterator[T]] = getattr(target, name)
            return iterate(method(*args, **kwargs))

        _describe(call, getattr(target, name))
        obj.__dict__[self._attribute] = call
        return call

    def __call__(self, obj: SyncArea, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        """The unbound form."""
        bound: Callable[P, Iterator[T]] = self.__get__(obj, type(obj))
        return bound(*args, **kwargs)


def _describe(call: Callable[..., Any], method: Callable[..., Any]) -> None:
    """Give a blocking proxy the async method's name, docstring and signature (for help() and IDEs)."""
    call.__name__ = call.__qualname__ = method.__name__
    call.__doc__ = method.__doc__
    call.__signature__ = inspect.signature(method)  # type: ignore[attr-defined]


class SyncAgents(SyncArea):
    """kxm.v1.AgentService, blocking (see ``kxm_grpc.client.agents.Agents``)."""

    ASYNC = Agents
    register = blocking(Agents.register)
    heartbeat = blocking(Agents.heartbeat)
    unregister = blocking(Agents.unregister)
    list = blocking(Agents.list)
    get_caller_identity = blocking(Agents.get_caller_identity)
    caller_project = blocking(Agents.caller_project)


class SyncMessages(SyncArea):
    """kxm.v1.MessageService, blocking (see ``kxm_grpc.client.messages.Messages``)."""

    ASYNC = Messages
    send = blocking(Messages.send)
    get = blocking(Messages.get)
    cancel = blocking(Messages.cancel)
    reply = blocking(Messages.reply)
    ack = blocking(Messages.ack)
    list_inbox = blocking(Messages.list_inbox)
    wait = blocking(Messages.wait)
    fanout = blocking(Messages.fanout)
    subscribe = blocking_iter(Messages.subscribe)


class SyncLeases(SyncArea):
    """kxm.v1.LeaseService, blocking (see ``kxm_grpc.client.leases.Leases``; no ``hold`` here)."""

    ASYNC = Leases
    acquire = blocking(Leases.acquire)
    renew = blocking(Leases.renew)
    release = blocking(Leases.release)
    get = blocking(Leases.get)
    list = blocking(Leases.list)
    check_fence = blocking(Leases.check_fence)


class SyncOps(SyncArea):
    """kxm.v1.OpsService, blocking (see ``kxm_grpc.client.ops.Ops``)."""

    ASYNC = Ops
    get_snapshot = blocking(Ops.get_snapshot)
    watch = blocking_iter(Ops.watch)


class SyncRuntimes(SyncArea):
    """kxm.v1.RuntimeService, blocking (see ``kxm_grpc.client.runtimes.Runtimes``)."""

    ASYNC = Runtimes
    register = blocking(Runtimes.register)
    heartbeat = blocking(Runtimes.heartbeat)
    list = blocking(Runtimes.list)
    push_sync_events = blocking(Runtimes.push_sync_events)
    list_run_events = blocking(Runtimes.list_run_events)
    reassign_sync_project = blocking(Runtimes.reassign_sync_project)


class SyncAdmin(SyncArea):
    """kxm.v1.AdminService, blocking (see ``kxm_grpc.client.admin.Admin``)."""

    ASYNC = Admin
    create_project = blocking(Admin.create_project)
    list_projects = blocking(Admin.list_projects)
    rotate_project_token = blocking(Admin.rotate_project_token)
    create_operator = blocking(Admin.create_operator)
    list_operators = blocking(Admin.list_operators)
    revoke_operator = blocking(Admin.revoke_operator)
    list_audit_records = blocking(Admin.list_audit_records)
    mint_session_token = blocking(Admin.mint_session_token)
    revoke_session_token = blocking(Admin.revoke_session_token)
    list_session_tokens = blocking(Admin.list_session_tokens)


class SyncContext(SyncArea):
    """kxm.v1.ContextService, blocking (see ``kxm_grpc.client.context.Context``)."""

    ASYNC = Context
    put_items = blocking(Context.put_items)
    get_packet = blocking(Context.get_packet)
    recall = blocking(Context.recall)
    get_state = blocking(Context.get_state)
    list_state_set = blocking(Context.list_state_set)
    propose_state = blocking(Context.propose_state)
    promote_state = blocking(Context.promote_state)
    reject_state = blocking(Context.reject_state)
    list_episodes = blocking(Context.list_episodes)
    explain_item = blocking(Context.explain_item)
    delete_items = blocking(Context.delete_items)
    create_skill = blocking(Context.create_skill)
    evaluate_skill = blocking(Context.evaluate_skill)
    promote_skill = blocking(Context.promote_skill)
    reject_skill = blocking(Context.reject_skill)
    get_skill = blocking(Context.get_skill)
    list_skills = blocking(Context.list_skills)
    sync_memory = blocking(Context.sync_memory)
    list_memory = blocking(Context.list_memory)
    propose_memory = blocking(Context.propose_memory)
    promote_memory = blocking(Context.promote_memory)
    reject_memory = blocking(Context.reject_memory)


class SyncWorkflowJournal(SyncArea):
    """kxm.v1.WorkflowService's journal RPCs, blocking (see ``kxm_grpc.client.journal.WorkflowJournal``)."""

    ASYNC = WorkflowJournal
    record = blocking(WorkflowJournal.record)
    list = blocking(WorkflowJournal.list)
    records = blocking_iter(WorkflowJournal.records)
    promote = blocking(WorkflowJournal.promote)
    report = blocking(WorkflowJournal.report)
    export = blocking(WorkflowJournal.export)
    verify = blocking(WorkflowJournal.verify)


class SyncWorkflows(SyncArea):
    """kxm.v1.WorkflowService, blocking (see ``kxm_grpc.client.workflows.Workflows``; its journal
    RPCs are under ``journal``, a ``SyncWorkflowJournal``)."""

    ASYNC = Workflows
    journal: SyncWorkflowJournal

    def __init__(self, client: SyncHubClient, target: Workflows) -> None:
        super().__init__(client, target)
        self.journal = SyncWorkflowJournal(client, target.journal)

    register_definition = blocking(Workflows.register_definition)
    get_definition = blocking(Workflows.get_definition)
    list_definitions = blocking(Workflows.list_definitions)
    register_gate_registry = blocking(Workflows.register_gate_registry)
    get_gate_registry = blocking(Workflows.get_gate_registry)
    start_run = blocking(Workflows.start_run)
    get_run = blocking(Workflows.get_run)
    list_runs = blocking(Workflows.list_runs)
    cancel_run = blocking(Workflows.cancel_run)
    rerun_run = blocking(Workflows.rerun_run)
    next_assignment = blocking(Workflows.next_assignment)
    complete_assignment = blocking(Workflows.complete_assignment)
    approve_step = blocking(Workflows.approve_step)
    recover_step_run = blocking(Workflows.recover_step_run)
    list_run_events = blocking(Workflows.list_run_events)
    audit_gate_evidence = blocking(Workflows.audit_gate_evidence)
    checkpoint = blocking(Workflows.checkpoint)
    wait = blocking(Workflows.wait)
    escalate_stage = blocking(Workflows.escalate_stage)
    signal_run = blocking(Workflows.signal_run)
    approve_degradation = blocking(Workflows.approve_degradation)
    resolve_escalation = blocking(Workflows.resolve_escalation)
    request_review = blocking(Workflows.request_review)


class _SyncFlatCalls:
    """The deprecated flat names of SyncHubClient (the same as HubClient's), for one release."""

    agents: SyncAgents
    messages: SyncMessages
    leases: SyncLeases
    runtimes: SyncRuntimes
    admin: SyncAdmin

    register_agent = deprecated_alias("agents", SyncAgents.register)
    heartbeat = deprecated_alias("agents", SyncAgents.heartbeat)
    unregister_agent = deprecated_alias("agents", SyncAgents.unregister)
    list_agents = deprecated_alias("agents", SyncAgents.list)
    get_caller_identity = deprecated_alias("agents", SyncAgents.get_caller_identity)
    caller_project = deprecated_alias("agents", SyncAgents.caller_project)

    get_message = deprecated_alias("messages", SyncMessages.get)
    cancel_message = deprecated_alias("messages", SyncMessages.cancel)
    reply_to_message = deprecated_alias("messages", SyncMessages.reply)
    ack_messages = deprecated_alias("messages", SyncMessages.ack)
    list_inbox = deprecated_alias("messages", SyncMessages.list_inbox)
    subscribe = deprecated_alias("messages", SyncMessages.subscribe)
    get = deprecated_alias("messages", SyncMessages.get)
    cancel = deprecated_alias("messages", SyncMessages.cancel)
    reply = deprecated_alias("messages", SyncMessages.reply)
    inbox = deprecated_alias("messages", SyncMessages.list_inbox)

    def send_message(
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
        return self.messages.send(
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

    def send(
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
        return self.messages.send(
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

    def wait_message(self, message_id: str, *, timeout: float | None = None) -> pb.WaitMessageResponse:
        """Deprecated: use ``messages.wait`` (``timeout=`` is now ``wait=``). One long poll of at most 60 s."""
        warn_deprecated(self, "wait_message", "messages.wait")
        return self.messages.wait(message_id, wait=one_poll(timeout))

    def wait(self, message_id: str, *, timeout: float | None = None) -> pb.WaitMessageResponse:
        """Deprecated: use ``messages.wait`` (``timeout=`` is now ``wait=``)."""
        warn_deprecated(self, "wait", "messages.wait")
        return self.messages.wait(message_id, wait=timeout)

    def fanout_messages(
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
        return self.messages.fanout(
            targets,
            content,
            correlation_id=correlation_id,
            idempotency_key_prefix=idempotency_key_prefix,
            workflow_context=workflow_context,
            ttl=ttl,
            wait=timeout,
            allow_offline=allow_offline,
        )

    def fanout(
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
        return self.messages.fanout(
            targets,
            content,
            correlation_id=correlation_id,
            idempotency_key_prefix=idempotency_key_prefix,
            workflow_context=workflow_context,
            ttl=ttl,
            wait=timeout,
            allow_offline=allow_offline,
        )

    def ack(self, *message_ids: str) -> pb.AckMessagesResponse:
        """Deprecated: use ``messages.ack`` (which takes one iterable of ids)."""
        warn_deprecated(self, "ack", "messages.ack")
        return self.messages.ack(message_ids)

    acquire_lease = deprecated_alias("leases", SyncLeases.acquire)
    renew_lease = deprecated_alias("leases", SyncLeases.renew)
    release_lease = deprecated_alias("leases", SyncLeases.release)
    get_lease = deprecated_alias("leases", SyncLeases.get)
    list_leases = deprecated_alias("leases", SyncLeases.list)
    check_fence = deprecated_alias("leases", SyncLeases.check_fence)

    register_runtime = deprecated_alias("runtimes", SyncRuntimes.register)
    runtime_heartbeat = deprecated_alias("runtimes", SyncRuntimes.heartbeat)
    list_runtimes = deprecated_alias("runtimes", SyncRuntimes.list)
    push_sync_events = deprecated_alias("runtimes", SyncRuntimes.push_sync_events)
    list_run_events = deprecated_alias("runtimes", SyncRuntimes.list_run_events)
    reassign_sync_project = deprecated_alias("runtimes", SyncRuntimes.reassign_sync_project)

    create_project = deprecated_alias("admin", SyncAdmin.create_project)
    list_projects = deprecated_alias("admin", SyncAdmin.list_projects)
    rotate_project_token = deprecated_alias("admin", SyncAdmin.rotate_project_token)


class SyncHubClient(_SyncFlatCalls):
    """A blocking HubClient: the same constructor arguments, the same areas and methods."""

    # An area added after the flat client has no flat names, so it is declared here, not above.
    workflows: SyncWorkflows
    context: SyncContext
    ops: SyncOps

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
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="kxm-client-loop", daemon=True)
        self._thread.start()

        async def create() -> HubClient:
            return HubClient(
                address,
                token=token,
                project=project,
                agent_id=agent_id,
                agent_key=agent_key,
                admin=admin,
                attempt_token=attempt_token,
                session_token=session_token,
                root_certificates=root_certificates,
                private_key=private_key,
                certificate_chain=certificate_chain,
                tls=tls,
                timeout=timeout,
                channel=channel,
                agent_channel=agent_channel,
            )

        try:
            self._client = self._run(create())
        except BaseException:
            # A bad address (AddressError) or argument: stop the loop thread this client started.
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
            raise
        self.agents = SyncAgents(self, self._client.agents)
        self.messages = SyncMessages(self, self._client.messages)
        self.leases = SyncLeases(self, self._client.leases)
        self.runtimes = SyncRuntimes(self, self._client.runtimes)
        self.admin = SyncAdmin(self, self._client.admin)
        self.workflows = SyncWorkflows(self, self._client.workflows)
        self.context = SyncContext(self, self._client.context)
        self.ops = SyncOps(self, self._client.ops)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _iterate(self, agen: AsyncIterator[T]) -> Iterator[T]:
        try:
            while True:
                try:
                    item = self._run(_next(agen))
                except StopAsyncIteration:
                    return
                yield item
        finally:
            # An iterator dropped early closes its stream, unless the client is closed already (or
            # this runs on the loop's own thread, which must not wait for itself).
            aclose = getattr(agen, "aclose", None)
            if aclose is not None and self._loop.is_running() and threading.current_thread() is not self._thread:
                # Best effort: a generator still running (the caller was interrupted mid-step) refuses.
                with contextlib.suppress(Exception):
                    self._run(aclose())

    @property
    def client(self) -> HubClient:
        """The async client underneath."""
        return self._client

    @property
    def address(self) -> str:
        """The hub's address."""
        return self._client.address

    @property
    def project(self) -> str | None:
        """The project named with the credentials (None when left to the token)."""
        return self._client.project

    @property
    def agent_id(self) -> str | None:
        """The agent this client acts as, if any."""
        return self._client.agent_id

    @property
    def agent_key(self) -> str | None:
        """The key of the agent this client acts as (the one to save after registering), if any."""
        return self._client.agent_key

    @property
    def token(self) -> str | None:
        """The bearer token (project, runtime, operator or admin) the calls carry."""
        return self._client.token

    @property
    def timeout(self) -> float:
        """The default deadline of a unary call, in seconds."""
        return self._client.timeout

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The credentials metadata every call carries."""
        return self._client.metadata

    @property
    def bearer_metadata(self) -> tuple[tuple[str, str], ...]:
        """The credentials metadata without the agent identity (for registering)."""
        return self._client.bearer_metadata

    def use_agent(self, agent_id: str | None, agent_key: str | None) -> None:
        """Act as this agent from now on (None for both: act with the bearer token only)."""
        self._client.use_agent(agent_id, agent_key)

    def use_runtime_key(self, runtime_key: str) -> None:
        """Act as the runtime this key was issued to from now on (the key replaces the bearer token)."""
        self._client.use_runtime_key(runtime_key)

    def close(self) -> None:
        """Close the channel and stop the loop thread."""
        self._run(self._client.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _next(agen: AsyncIterator[T]) -> T:
    return await agen.__anext__()
