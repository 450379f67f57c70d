"""``hub.agents.open_channel()``: an agent's channel (AgentService.OpenChannel), every command on one stream.

``AgentChannel`` has the messaging calls of ``hub.messages`` (``send``, ``reply``, ``ack``,
``cancel``, ``wait``, ``get``), with the same arguments, responses and errors, and ``events()``
for the inbox when opened with ``subscribe=True``. Each command gets a command id; while the
channel is open, a stream that ends with a resumable status (the hub restarting, a network failure,
a slow reader cut off) is opened again after a jittered, growing backoff, every unanswered command
is sent again under the same id (the hub applies it once and answers it with its first result),
and the inbox resumes after the last seq received. A status that is not resumable
(UNAUTHENTICATED, PERMISSION_DENIED, too many streams, a request too large, ...) fails every
unanswered command and ``events()`` with it.

Results are taken from the stream before events and events never wait for their reader, so a
caller awaiting a result while events pile up never stops the stream; events received and not
yet taken are held in memory. Requests carry at most 100 commands and 192 KiB.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import uuid
from collections.abc import AsyncIterator, Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import grpc

from kxm_grpc._gen.kxm.v1 import agent_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import agent_service_pb2_grpc, types_pb2
from kxm_grpc._gen.kxm.v1 import message_service_pb2 as mpb
from kxm_grpc._status import from_status_bytes
from kxm_grpc.client.base import duration
from kxm_grpc.client.retries import resumable
from kxm_grpc.errors import Aborted, Cancelled, HubError, InvalidArgument, Reason, Unavailable

if TYPE_CHECKING:
    from kxm_grpc.client.base import ClientBase

_RETIRING: set[asyncio.Task[None]] = set()
"""Channels closing once answered (``retire``): kept referenced until they are."""
_REQUEST_BYTES = 192 << 10
"""Bytes of commands one request carries at most (the hub takes requests of up to 256 KiB)."""
_PER_REQUEST = 100
"""Commands one request carries at most (the hub's ``max_commands_per_request``)."""

_SEEN = 4096
"""Message ids ``events()`` remembers, so a redelivery after a reconnect is not yielded twice."""


class AgentChannel:
    """An agent's channel to the hub: commands, their results and (optionally) its inbox on one stream.

    Use it as an async context manager (``async with hub.agents.open_channel() as channel``); the
    client must act as an agent. Commands may be awaited concurrently: they are applied in the
    order they are called, a wait beside the commands after it.
    """

    def __init__(
        self,
        hub: ClientBase,
        *,
        subscribe: bool = False,
        after_seq: int = 0,
        presence_only: bool = False,
        reconnect: bool = True,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> None:
        self._hub = hub
        self._subscribe = subscribe
        self._presence_only = presence_only
        self._last_seq = after_seq
        self._reconnect = reconnect
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._pending: dict[str, tuple[pb.ChannelCommand, asyncio.Future[pb.ChannelResult]]] = {}
        self._outgoing: asyncio.Queue[pb.ChannelCommand] = asyncio.Queue()
        self._events: asyncio.Queue[mpb.SubscribeResponse | HubError] = asyncio.Queue()
        """Inbox events received and not yet taken by ``events()`` (held in memory: iterate promptly)."""
        self._opened: asyncio.Future[pb.ChannelReady] | None = None
        self._task: asyncio.Task[None] | None = None
        self._failure: HubError | None = None
        self.ready: pb.ChannelReady | None = None
        """The hub's ``ready`` of the current stream (the agent, the flow-control limits)."""
        self.reconnects = 0
        """How many times the stream was opened again."""

    @property
    def failed(self) -> bool:
        """Whether the channel ended for good (closed, or a status that is not resumable)."""
        return self._failure is not None

    # -- lifecycle ----------------------------------------------------------------------------

    async def open(self) -> Self:
        """Open the stream and wait for the hub's ``ready``.

        Raises:
            HubError: the hub refused the channel (bad credentials, not an agent, too many streams).
        """
        if self._task is None:
            self._opened = asyncio.get_running_loop().create_future()
            self._task = asyncio.create_task(self._run(), name="kxm-agent-channel")
        assert self._opened is not None
        self.ready = await asyncio.shield(self._opened)
        return self

    async def close(self) -> None:
        """Close the channel; commands still unanswered fail with CANCELLED (replay them on a new one)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._fail(Cancelled("the channel was closed"))

    def retire(self) -> None:
        """Close the channel once every command already sent on it is answered (at most 60 s on);
        for a client whose credentials changed, so other callers' commands are not cut off."""

        async def drain() -> None:
            unanswered = [result for _, result in self._pending.values()]
            if unanswered:
                await asyncio.wait(unanswered, timeout=60.0)
            await self.close()

        task = asyncio.ensure_future(drain())
        _RETIRING.add(task)
        task.add_done_callback(_RETIRING.discard)

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # -- commands (as hub.messages) -----------------------------------------------------------

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
        wait: float | None = None,
        command_id: str = "",
    ) -> mpb.SendMessageResponse:
        """As ``hub.messages.send``; without an idempotency key the hub keys the send by its command id.

        Raises:
            HubError: as SendMessage.
        """
        request = mpb.SendMessageRequest(
            target=target,
            content=content,
            delivery=delivery,
            correlation_id=correlation_id,
            reply_to=reply_to,
            idempotency_key=idempotency_key,
            hops=hops,
            max_hops=max_hops,
            ttl=duration(ttl),
            allow_offline=allow_offline,
            workflow_context=workflow_context,
            wait=duration(wait),
        )
        return (await self._command("send", request, command_id)).send

    async def reply(self, message_id: str, content: str, *, command_id: str = "") -> mpb.ReplyToMessageResponse:
        """As ``hub.messages.reply``.

        Raises:
            HubError: as ReplyToMessage.
        """
        request = mpb.ReplyToMessageRequest(message_id=message_id, content=content)
        return (await self._command("reply", request, command_id)).reply

    async def ack(self, message_ids: Iterable[str], *, command_id: str = "") -> mpb.AckMessagesResponse:
        """As ``hub.messages.ack``.

        Raises:
            HubError: as AckMessages.
        """
        request = mpb.AckMessagesRequest(message_ids=list(message_ids))
        return (await self._command("ack", request, command_id)).ack

    async def cancel(self, message_id: str, *, command_id: str = "") -> mpb.CancelMessageResponse:
        """As ``hub.messages.cancel``.

        Raises:
            HubError: as CancelMessage.
        """
        return (await self._command("cancel", mpb.CancelMessageRequest(message_id=message_id), command_id)).cancel

    async def wait(
        self, message_id: str, *, wait: float | None = None, command_id: str = ""
    ) -> mpb.WaitMessageResponse:
        """As ``hub.messages.wait`` for one wait of at most 60 s (the hub's limit).

        Raises:
            HubError: as WaitMessage.
        """
        request = mpb.WaitMessageRequest(message_id=message_id, wait=duration(wait))
        return (await self._command("wait", request, command_id)).wait

    async def get(self, message_id: str, *, command_id: str = "") -> mpb.GetMessageResponse:
        """As ``hub.messages.get``.

        Raises:
            HubError: as GetMessage.
        """
        return (await self._command("get", mpb.GetMessageRequest(message_id=message_id), command_id)).get

    async def events(self) -> AsyncIterator[mpb.SubscribeResponse]:
        """Yield the inbox events (open the channel with ``subscribe=True``), as ``hub.messages.subscribe``
        does: a ``ready`` on every (re)connection, then each event once per channel.

        Raises:
            HubError: the channel failed with a status that is not resumable.
        """
        if not self._subscribe:
            raise ValueError("open the channel with subscribe=True to receive its inbox events")
        seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        while True:
            event = await self._events.get()
            if isinstance(event, HubError):
                self._events.put_nowait(event)  # every later iteration ends the same way
                raise event
            if event.HasField("message"):
                message_id = event.message.id
                if event.redelivered and message_id in seen:
                    continue
                seen[message_id] = None
                if len(seen) > _SEEN:
                    seen.popitem(last=False)
            yield event

    async def _command(self, kind: str, request: Any, command_id: str) -> pb.ChannelResult:
        if self._failure is not None:
            raise self._failure
        if self._task is None:
            raise RuntimeError("open the channel first (async with hub.agents.open_channel() as channel)")
        command = pb.ChannelCommand(command_id=command_id or uuid.uuid4().hex)
        getattr(command, kind).CopyFrom(request)
        if command.ByteSize() > _REQUEST_BYTES:
            raise InvalidArgument(
                f"the command is {command.ByteSize()} bytes; a channel request carries at most {_REQUEST_BYTES}",
                reason=Reason.PROTOCOL_ERROR,
            )
        pending = self._pending.get(command.command_id)
        if pending is not None and pending[0] == command:
            result = pending[1]  # the same command again while the first is unanswered: one answer for both
        elif pending is not None:
            raise Aborted(
                "this command id is in use by another unanswered command; use a new command id",
                reason=Reason.IDEMPOTENCY_CONFLICT,
                metadata={"commandId": command.command_id},
            )
        else:
            result = asyncio.get_running_loop().create_future()
            self._pending[command.command_id] = (command, result)
            self._outgoing.put_nowait(command)
        try:
            answer = await asyncio.shield(result)
        except asyncio.CancelledError:
            if not result.done() and self._pending.get(command.command_id, (None, None))[1] is result:
                del self._pending[command.command_id]  # not replayed on a new stream: its caller left
            raise
        if answer.HasField("error"):
            raise from_status_bytes(answer.error.status)
        return answer

    # -- the stream ---------------------------------------------------------------------------

    async def _run(self) -> None:
        """Keep one stream open, replaying unanswered commands on each new one."""
        stub = agent_service_pb2_grpc.AgentServiceStub(self._hub.channel)
        backoff = self._initial_backoff
        while True:
            call = stub.OpenChannel(metadata=self._hub.metadata)
            writer: asyncio.Task[None] | None = None
            try:
                async for response in call:
                    if response.HasField("ready"):
                        backoff = self._initial_backoff
                        self.ready = response.ready
                        if self._opened is not None and not self._opened.done():
                            self._opened.set_result(response.ready)
                        # Nothing is written before the hub's ready: a write racing a refusal at
                        # admission turns the call's status into grpc's INTERNAL (grpc/grpc#36066).
                        writer = asyncio.create_task(self._write(call), name="kxm-agent-channel-writer")
                        writer.add_done_callback(_retrieve)
                    # Results first, and events never wait for the caller: a caller awaiting a
                    # result while events pile up must not stop the stream that carries it.
                    for result in response.results:
                        pending = self._pending.get(result.command_id)
                        if pending is not None:
                            del self._pending[result.command_id]
                            if not pending[1].done():
                                pending[1].set_result(result)
                    for event in response.events:
                        if event.HasField("ready"):
                            self._last_seq = event.ready.after_seq
                        else:
                            self._last_seq = max(self._last_seq, event.seq)
                        self._events.put_nowait(event)
                # The hub ends a channel well only after the client's end, which this client never
                # sends while open: a hub that did so anyway ends it for good.
                self._fail(Unavailable("the hub ended the channel"))
                return
            except grpc.aio.AioRpcError as exc:
                error = self._hub._error(exc)
                if not self._reconnect or not resumable(error) or not self._opened_once():
                    self._fail(error)
                    return
            finally:
                if writer is not None:
                    writer.cancel()
                call.cancel()
            self.reconnects += 1
            await asyncio.sleep(random.uniform(backoff / 2, backoff))
            backoff = min(self._max_backoff, backoff * 2)

    def _opened_once(self) -> bool:
        """Whether a stream was ever ready (the first opening's refusal is the caller's to see)."""
        return self._opened is not None and self._opened.done()

    async def _write(self, call: Any) -> None:
        """Send the subscription and every unanswered command, then each new command as it comes,
        as many per request as are ready (at most 100 and ``_REQUEST_BYTES``)."""
        while not self._outgoing.empty():  # all of them are in _pending, sent below in call order
            self._outgoing.get_nowait()
        replay = [command for command, result in self._pending.values() if not result.done()]
        first = pb.OpenChannelRequest()
        if self._subscribe:
            first.subscribe.after_seq = self._last_seq
            first.subscribe.presence_only = self._presence_only
        if first.HasField("subscribe") or not replay:
            await call.write(first)
        request, size = pb.OpenChannelRequest(), 0
        for command in replay:
            size = await self._add(call, request, size, command)
            if size == 0:
                request = pb.OpenChannelRequest()
                size = await self._add(call, request, 0, command)
        if request.commands:
            await call.write(request)
        outgoing = self._outgoing
        carried: pb.ChannelCommand | None = None
        while True:
            request = pb.OpenChannelRequest()
            command = carried if carried is not None else await outgoing.get()
            carried = None
            request.commands.append(command)
            size = command.ByteSize()
            while not outgoing.empty() and len(request.commands) < _PER_REQUEST:
                command = outgoing.get_nowait()
                size += command.ByteSize()
                if size > _REQUEST_BYTES:
                    carried = command  # the first of the next request
                    break
                request.commands.append(command)
            await call.write(request)

    @staticmethod
    async def _add(call: Any, request: pb.OpenChannelRequest, size: int, command: pb.ChannelCommand) -> int:
        """Add ``command`` to ``request`` and return the request's size; when it does not fit, write
        the request as it is and return 0 (the caller starts a new one)."""
        grown = size + command.ByteSize()
        if request.commands and (grown > _REQUEST_BYTES or len(request.commands) >= _PER_REQUEST):
            await call.write(request)
            return 0
        request.commands.append(command)
        return grown

    def _fail(self, error: HubError) -> None:
        """End the channel with ``error``: every unanswered command and ``events()`` get it."""
        if self._failure is None:
            self._failure = error
        if self._opened is not None and not self._opened.done():
            self._opened.set_exception(error)
        pending, self._pending = self._pending, {}
        for _, result in pending.values():
            if not result.done():
                result.set_exception(error)
        self._events.put_nowait(error)


def _retrieve(task: asyncio.Task[None]) -> None:
    """Mark a writer's end as seen: a write fails when its stream ends, which the reader reports."""
    if not task.cancelled():
        task.exception()
