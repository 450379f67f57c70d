"""AgentService.OpenChannel: one bidirectional stream per agent for commands, their results and inbox events.

A channel is admitted once as a stream (rate class STREAM); each command is then admitted as a
call of its unary twin (``ChannelCall.admit_command``: the twin's gate with the channel's
credentials and tokens), decoded and answered by the twin's own servicer method, so a command
obeys the same rules, rate limit, tool policy and errors as the RPC it stands for. A command that
fails is answered with its error as a ``ChannelError``; the channel stays open.

Order and concurrency. Commands are applied one at a time in the order they arrive (a reply after
a send is applied after it). A command that waits (``wait``, and the wait of a ``send`` with
``wait``, whose send is applied in order) then runs beside the commands that follow it, holding no
in-flight slot (at most ``MAX_WAITS`` per channel).

Replays. Each command carries a command id, and is admitted as its twin before anything else, a
replay too (it pays the rate limit; a revoked key gets nothing). ``CommandResults`` keeps, per
agent, the result of every command id answered successfully (the newest ``REMEMBERED``, at most
``REMEMBERED_BYTES``), so a command replayed on this or a later channel of the same hub process is
answered with its first result (``replayed``) and applied once; the same id with other content is
ABORTED (IDEMPOTENCY_CONFLICT). A replay of a command still being applied on another channel waits
for it, in order. A failed command is not remembered (nothing of it was applied), and a command cut
off with its channel is forgotten: its replay runs it. Beyond what the process remembers (a
restart, another replica), the commands are idempotent themselves: a send without an idempotency
key is keyed by its command id, and a reply, ack or cancel repeated is answered with the message's
current state (docs/decisions.md, 277).

Flow control. The hub reads no further request while ``MAX_IN_FLIGHT`` commands are unanswered
(read but their results not yet written), so gRPC flow control holds back a client that sends
faster than it reads. Inbox events (once subscribed) follow Subscribe's rules through the hub's
stream registry (``server/streams.py``): the durable log is the queue, at most ``EVENT_BUFFER``
events wait to be written, and a reader more than ``settings.subscriber_queue`` events behind is cut
with RESOURCE_EXHAUSTED (SUBSCRIBER_TOO_SLOW) without slowing any other stream. Every channel,
subscribed or not, counts against the agent's ``max_streams_per_agent`` in this process.

Batching. The writer puts everything that is ready (results and events) into one response, up to
``MAX_BATCH`` items and ``MAX_BATCH_BYTES``; at low load that is one item, written at once, so
latency is never traded away.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Awaitable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import grpc
import structlog

from kxm_grpc._gen.kxm.v1 import agent_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2 as mpb
from kxm_grpc._status import rich_status, to_rpc_status
from kxm_grpc.errors import Aborted, HubError, Internal, InvalidArgument, Reason, Unauthenticated, invalid_field
from kxm_grpc.server.admission import CommandCall, Gate, current_channel
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import agent_to_proto, wait_value
from kxm_grpc.server.interceptor import Undecodable
from kxm_grpc.server.servicers.messages import MessageServicer
from kxm_grpc.server.state import HubState
from kxm_grpc.server.streams import Stream
from kxm_grpc.services import messages
from kxm_grpc.services.messages import shutting_down, stream_limit_reached

log = structlog.get_logger("kxm.channel")

Context = grpc.aio.ServicerContext[Any, Any]

MAX_COMMANDS_PER_REQUEST = 100
"""Commands one request may carry (as AckMessages takes at most 100 ids)."""
MAX_IN_FLIGHT = 256
"""Commands read but not yet answered on one channel; the hub reads no further request past it."""
EVENT_BUFFER = 64
"""Inbox events read from the log but not yet written, per channel."""
MAX_BATCH = 128
"""Items (results and events) written in one response at most."""
MAX_BATCH_BYTES = 1 << 20
"""Bytes of items in one response at most (an item larger alone still goes, in a response of its own):
well under the 4 MiB a response may have."""
MAX_WAITS = 1_024
"""Waits running beside the reader on one channel (``wait`` commands, the waits of sends with
``wait``, replays waiting on a first run); the hub reads no further request past it."""
REMEMBERED = 65_536
"""Command results a hub process remembers for replays (the newest, over every agent)."""
REMEMBERED_BYTES = 64 << 20
"""The size of the remembered results at most."""
MAX_COMMAND_ID = 128

_MESSAGES = "/kxm.v1.MessageService/"


@dataclass(frozen=True, slots=True)
class _Twin:
    """A command's unary twin: the RPC it is admitted as and the result field its response goes in."""

    method: str
    result: str


_TWINS: dict[str, _Twin] = {
    "send": _Twin(_MESSAGES + "SendMessage", "send"),
    "reply": _Twin(_MESSAGES + "ReplyToMessage", "reply"),
    "ack": _Twin(_MESSAGES + "AckMessages", "ack"),
    "cancel": _Twin(_MESSAGES + "CancelMessage", "cancel"),
    "wait": _Twin(_MESSAGES + "WaitMessage", "wait"),
    "get": _Twin(_MESSAGES + "GetMessage", "get"),
}


class _Remembered:
    """One command id's first result (or the future of it while the command runs)."""

    __slots__ = ("fingerprint", "key", "result", "size", "waiting")

    def __init__(self, key: tuple[str, str], fingerprint: bytes) -> None:
        self.key = key
        self.fingerprint = fingerprint
        self.result: asyncio.Future[pb.ChannelResult | None] = asyncio.get_running_loop().create_future()
        """The first result; None when the first run was cut off before it ended (run it again)."""
        self.size = len(fingerprint)
        self.waiting = False
        """The command's writes are done and only its wait is left (a replay need not hold the reader)."""


class CommandResults:
    """The results of the commands a hub process answered, by agent and command id (newest kept)."""

    def __init__(self, capacity: int = REMEMBERED, max_bytes: int = REMEMBERED_BYTES) -> None:
        self._entries: collections.OrderedDict[tuple[str, str], _Remembered] = collections.OrderedDict()
        self._capacity = capacity
        self._max_bytes = max_bytes
        self._bytes = 0

    def begin(self, agent_id: str, command: pb.ChannelCommand) -> tuple[_Remembered, bool]:
        """The entry of ``command``'s id, and whether it is new (the caller then runs the command and
        ends the entry with ``finish`` or ``forget``)."""
        key = (agent_id, command.command_id)
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            return entry, False
        entry = _Remembered(key, command.SerializeToString(deterministic=True))
        self._entries[key] = entry
        self._bytes += entry.size
        self._trim()
        return entry, True

    def finish(self, entry: _Remembered, result: pb.ChannelResult) -> None:
        """Keep ``result`` as the entry's first result."""
        entry.result.set_result(result)
        if self._entries.get(entry.key) is entry:  # not already pushed out by newer ones
            size = result.ByteSize()
            entry.size += size
            self._bytes += size
            self._trim()

    def abandon(self, entry: _Remembered) -> None:
        """Forget a command whose run was cut off (its channel ended): whoever waits on it runs it again."""
        if not entry.result.done():
            entry.result.set_result(None)
        self._remove(entry)

    def forget(self, entry: _Remembered, result: pb.ChannelResult) -> None:
        """Answer whoever waits on the entry with ``result``, and forget it: the command failed, nothing
        of it was applied, and its retry runs again."""
        entry.result.set_result(result)
        self._remove(entry)

    def _remove(self, entry: _Remembered) -> None:
        """Drop ``entry``, unless newer ones already pushed it out (its key may be another entry's by then)."""
        if self._entries.get(entry.key) is entry:
            del self._entries[entry.key]
            self._bytes -= entry.size

    def _trim(self) -> None:
        while len(self._entries) > self._capacity or (self._bytes > self._max_bytes and len(self._entries) > 1):
            _, oldest = self._entries.popitem(last=False)
            self._bytes -= oldest.size


class _CommandContext:
    """What a twin's servicer method reads of its call: the seconds left (the channel's deadline)."""

    __slots__ = ("_context",)

    def __init__(self, context: Context) -> None:
        self._context = context

    def time_remaining(self) -> float | None:
        return self._context.time_remaining()


_Item: TypeAlias = "pb.ChannelResult | _Beside | mpb.SubscribeResponse | _EndItem"
"""What the writer takes from the outbox: a result (holding an in-flight slot or not), an event, or the end."""


class _Outbox:
    """What the writer has to write, in order: a deque and the writer's wake-up.

    Not an ``asyncio.Queue``, which holds four deques and an event: an idle channel's memory is
    what it holds (docs/performance.md), and one reader (the writer) needs none of that.
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[_Item] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: _Item) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> _Item:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    def get_nowait(self) -> _Item:
        return self._items.popleft()

    def peek_size(self) -> int:
        """The serialized size of the next item (0 for an end)."""
        item = self._items[0]
        if type(item) is _Beside:
            return item.result.ByteSize()
        return 0 if type(item) is _EndItem else item.ByteSize()  # type: ignore[union-attr]

    def empty(self) -> bool:
        return not self._items


@dataclass(frozen=True, slots=True)
class _Beside:
    """The result of a command that ran beside the reader: it holds no in-flight slot when written."""

    result: pb.ChannelResult


@dataclass(frozen=True, slots=True)
class _EndItem:
    """What ends the writer: the error to end the channel with, or None (it ended well)."""

    error: HubError | None


class Channel:
    """One open channel: its reader (commands), its pump (inbox events) and its writer."""

    def __init__(self, channels: Channels, context: Context) -> None:
        self._channels = channels
        self._hub = channels.hub
        self._context = context
        self._command_context = cast(Context, _CommandContext(context))
        call = current_call()
        assert call.agent is not None and call.agent_key is not None  # the method's facts require an agent
        self._call = call
        self.agent_id = call.agent.id
        """The agent whose channel this is."""
        self._admit = current_channel().admit_command
        self._outbox = _Outbox()
        self._in_flight = asyncio.Semaphore(MAX_IN_FLIGHT)
        self._event_slots = asyncio.Semaphore(EVENT_BUFFER)
        self._wait_slots = asyncio.Semaphore(MAX_WAITS)
        self._waits: set[asyncio.Task[None]] = set()
        self._stream: Stream | None = None
        self._pump: asyncio.Task[None] | None = None

    async def serve(self, requests: AsyncIterator[pb.OpenChannelRequest | Undecodable]) -> None:
        """Write ``ready``, then everything the reader and the pump put out, until the channel ends.

        Raises:
            ResourceExhausted: (STREAM_LIMIT_REACHED) the agent has its limit of channels open.
            HubError: what ended the channel (a protocol error, a slow reader, the hub stopping).
        """
        hub = self._hub
        if hub.shutting_down.is_set():
            raise shutting_down()
        agent = self._call.agent
        assert agent is not None
        now = hub.now()
        ready = pb.OpenChannelResponse(
            ready=pb.ChannelReady(
                agent=agent_to_proto(agent, now=now, stale_after=hub.stale_after),
                max_in_flight=MAX_IN_FLIGHT,
                max_commands_per_request=MAX_COMMANDS_PER_REQUEST,
            )
        )
        self._channels.opened(self)  # raises past the agent's limit of channels
        try:
            await self._context.write(ready)
        except BaseException:
            self._channels.closed(self)
            raise
        reader = asyncio.create_task(self._read(requests), name="kxm-channel-reader")
        try:
            await self._write()
        finally:
            self._channels.closed(self)
            tasks = [reader, *self._waits]
            if self._pump is not None:
                tasks.append(self._pump)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self._stream is not None:
                self._hub.coordination.streams.close(self._stream)

    async def _write(self) -> None:
        """Write what is ready, batched, until an end item; raise the error it carries."""
        outbox, context = self._outbox, self._context
        while True:
            item = await outbox.get()
            response = pb.OpenChannelResponse()
            slotted = events = size = 0
            last_seq = 0
            ended: _EndItem | None = None
            while True:
                if type(item) is pb.ChannelResult:
                    response.results.append(item)
                    slotted += 1
                elif type(item) is _Beside:
                    response.results.append(item.result)
                elif type(item) is mpb.SubscribeResponse:
                    response.events.append(item)
                    events += 1
                    last_seq = item.seq or last_seq
                else:
                    assert type(item) is _EndItem
                    ended = item
                    break
                if outbox.empty() or len(response.results) + events >= MAX_BATCH:
                    break
                size += outbox.peek_size()
                if size >= MAX_BATCH_BYTES:
                    break
                item = outbox.get_nowait()
            if response.results or events:
                stream = self._stream
                if stream is not None:
                    stream.writing = True
                await context.write(response)
                if stream is not None:
                    stream.writing = False
                    if stream.cut is not None:
                        await stream.cut  # the monitor ended the call while this write was stuck
                    if last_seq:
                        stream.sent_seq = last_seq
                for _ in range(slotted):
                    self._in_flight.release()
                for _ in range(events):
                    self._event_slots.release()
            if ended is not None:
                if ended.error is not None:
                    raise ended.error
                return

    def end(self, error: HubError | None) -> None:
        """End the channel: after what is already queued, with ``error`` (None: it ended well)."""
        self._outbox.put_nowait(_EndItem(error))

    async def _read(self, requests: AsyncIterator[pb.OpenChannelRequest | Undecodable]) -> None:
        """Apply each request's commands in order; at the client's end, answer what is left and end well."""
        try:
            async for request in requests:
                if isinstance(request, Undecodable):  # checked here, not by a generator around the stream
                    raise request.error()
                if request.HasField("subscribe"):
                    await self._subscribe(request.subscribe)
                if len(request.commands) > MAX_COMMANDS_PER_REQUEST:
                    raise invalid_field(
                        "commands",
                        f"a request carries at most {MAX_COMMANDS_PER_REQUEST} commands; send the rest in the next",
                    )
                for command in request.commands:
                    await self._in_flight.acquire()
                    await self._apply(command)
            if self._waits:
                await asyncio.gather(*self._waits, return_exceptions=True)
            self.end(None)
        except HubError as error:
            self.end(error)
        except grpc.aio.BaseError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug: the channel ends INTERNAL through the wrapper's mapping
            self.end(self._channels.internal(error))

    async def _subscribe(self, request: mpb.SubscribeRequest) -> None:
        """Start the inbox pump: as Subscribe with ``request``, through the hub's stream registry.

        Raises:
            InvalidArgument: (PROTOCOL_ERROR) the channel already subscribed.
            PermissionDenied, ResourceExhausted, Unavailable: as Subscribe.
        """
        if self._pump is not None:
            raise invalid_field("subscribe", "the channel already streams the inbox; subscribe once per channel")
        hub, call = self._hub, self._call
        assert call.agent is not None and call.agent_key is not None
        subscription = messages.subscription(
            call.agent,
            call.agent_key,
            after_seq=request.after_seq,
            presence_only=request.presence_only,
            stopping=hub.shutting_down,
            key_verified_at=call.credentials_notice_version,
        )
        context = self._context
        self._stream = await hub.coordination.streams.open(
            subscription, lambda error: context.abort_with_status(to_rpc_status(error))
        )
        self._pump = asyncio.create_task(self._pump_events(subscription, self._stream), name="kxm-channel-pump")

    async def _pump_events(self, subscription: messages.Subscription, stream: Stream) -> None:
        hub = self._hub
        streams = hub.coordination.streams
        to_proto = self._channels.messages.stream_item_to_proto
        items = messages.subscribe(hub.store, subscription, clock=hub.clock, stopping=hub.shutting_down, cursor=stream)
        try:
            async with contextlib.aclosing(items):
                async for item in items:
                    response = to_proto(item)
                    del item
                    if self._event_slots.locked():
                        stream.writing = True  # the reader is behind: the monitor may cut the stream
                    await self._event_slots.acquire()
                    self._outbox.put_nowait(response)
                    del response
                    slow = streams.too_slow(stream)
                    if slow is not None:
                        raise slow
        except HubError as error:
            self.end(error)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.end(self._channels.internal(error))

    async def _apply(self, command: pb.ChannelCommand) -> None:
        """Answer one command (its in-flight slot taken): admitted as its twin, replays included, then
        from its first result when its id was seen, else by running its twin."""
        command_id = command.command_id
        kind = command.WhichOneof("command")
        if not command_id or len(command_id) > MAX_COMMAND_ID or kind is None:
            self._answer(self._invalid(command, kind))
            return
        twin = _TWINS[kind]
        gate, call = self._admit(twin.method, command_id)
        try:
            # Every command pays its twin's admission, a replay too: rate limit, credentials, tool policy.
            admitted = await gate.admit(call)
            request = getattr(command, kind)
            gate.check_scope(admitted, request)
        except Exception as error:
            self._refuse(command_id, gate, call, error)
            return
        results = self._channels.results
        while True:
            entry, new = results.begin(self.agent_id, command)
            if new:
                break
            if entry.fingerprint != command.SerializeToString(deterministic=True):
                conflict = Aborted(
                    "this command id was used for another command; use a new command id for a new command",
                    reason=Reason.IDEMPOTENCY_CONFLICT,
                    metadata={"commandId": command_id},
                )
                self._answer(pb.ChannelResult(command_id=command_id, error=channel_error(conflict)))
                return
            if not entry.result.done() and entry.waiting:
                await self._beside(self._replay_later(command, entry))  # its writes are done: not in order
                return
            # Still applying on another channel (or done): in order, after it.
            first = await asyncio.shield(entry.result)
            if first is not None:
                self._answer(_replayed(first))
                return
            # Its first run was cut off before it ended: this one runs it.
        try:
            if kind == "wait":
                entry.waiting = True
                await self._beside(self._finish(command_id, twin, gate, call, entry, self._waited(request)))
                return
            if kind == "send":
                response = await self._send(command_id, request)
                if type(response) is _SendWait:  # stored; its wait runs beside what follows
                    entry.waiting = True
                    await self._beside(self._finish(command_id, twin, gate, call, entry, self._waited(*response)))
                    return
            else:
                response = await self._unary(kind, request)
        except asyncio.CancelledError:
            results.abandon(entry)
            raise
        except Exception as error:
            self._fail(command_id, gate, call, entry, error)
            return
        gate.succeeded()
        self._succeed(command_id, twin, entry, response)

    async def _beside(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the reader (a wait), its in-flight slot given back; past ``MAX_WAITS``
        running, wait for one to end first."""
        try:
            await self._wait_slots.acquire()
        except BaseException:
            work.close()
            raise
        self._in_flight.release()
        task = asyncio.ensure_future(work)
        self._waits.add(task)
        task.add_done_callback(self._wait_ended)

    def _wait_ended(self, task: asyncio.Task[None]) -> None:
        self._waits.discard(task)
        self._wait_slots.release()

    async def _send(self, command_id: str, request: mpb.SendMessageRequest) -> Any:
        """Send in order: the response, or, for a send with a wait whose message is still open, the
        wait to run beside the commands that follow (with the send's response).

        Raises:
            HubError: as SendMessage.
        """
        wait = wait_value(
            "wait",
            request.wait,
            request.HasField("wait"),
            deprecated=("reply_wait", request.reply_wait, request.HasField("reply_wait")),
        )
        if wait is not None or not request.idempotency_key:
            unwaited = mpb.SendMessageRequest()
            unwaited.CopyFrom(request)
            unwaited.ClearField("wait")
            unwaited.ClearField("reply_wait")
            if not unwaited.idempotency_key:
                unwaited.idempotency_key = command_id  # a replay after a restart is still applied once
            request = unwaited
        sent = await self._channels.messages.SendMessage(request, self._command_context)
        if wait is None or sent.terminal:
            return sent
        waited = mpb.WaitMessageRequest(message_id=sent.message.id)
        waited.wait.FromMicroseconds(wait.micros)
        return _SendWait((waited, sent))

    async def _waited(self, request: mpb.WaitMessageRequest, sent: mpb.SendMessageResponse | None = None) -> Any:
        if sent is None:
            return await self._channels.messages.WaitMessage(request, self._command_context)
        try:
            waited = await self._channels.messages.WaitMessage(request, self._command_context)
        except HubError:
            return sent  # the send is stored: its answer stands, as a send whose wait ended first
        return mpb.SendMessageResponse(message=waited.message, repeated=sent.repeated, terminal=waited.terminal)

    async def _finish(
        self, command_id: str, twin: _Twin, gate: Gate, call: CommandCall, entry: _Remembered, work: Awaitable[Any]
    ) -> None:
        try:
            response = await work
        except asyncio.CancelledError:
            self._channels.results.abandon(entry)
            raise
        except Exception as error:
            self._fail(command_id, gate, call, entry, error, beside=True)
            return
        gate.succeeded()
        self._succeed(command_id, twin, entry, response, beside=True)

    async def _unary(self, kind: str, request: Any) -> Any:
        servicer, context = self._channels.messages, self._command_context
        if kind == "reply":
            return await servicer.ReplyToMessage(request, context)
        if kind == "ack":
            return await servicer.AckMessages(request, context)
        if kind == "cancel":
            return await servicer.CancelMessage(request, context)
        return await servicer.GetMessage(request, context)

    def _succeed(
        self, command_id: str, twin: _Twin, entry: _Remembered, response: Any, *, beside: bool = False
    ) -> None:
        result = pb.ChannelResult(command_id=command_id)
        getattr(result, twin.result).CopyFrom(response)
        self._channels.results.finish(entry, result)
        self._answer(result, beside=beside)

    def _fail(
        self,
        command_id: str,
        gate: Gate,
        call: CommandCall,
        entry: _Remembered,
        error: BaseException,
        *,
        beside: bool = False,
    ) -> None:
        """Answer a command that failed with its error; nothing of it was applied, so it is forgotten."""
        failure = gate.fail(call, error)
        result = pb.ChannelResult(command_id=command_id, error=channel_error(failure))
        self._channels.results.forget(entry, result)
        self._answer(result, beside=beside)

    def _refuse(self, command_id: str, gate: Gate, call: CommandCall, error: BaseException) -> None:
        """Answer a command admission refused."""
        failure = gate.fail(call, error)
        self._answer(pb.ChannelResult(command_id=command_id, error=channel_error(failure)))
        if isinstance(failure, Unauthenticated):
            self.end(failure)  # the channel's credentials no longer hold: nothing more will be admitted

    async def _replay_later(self, command: pb.ChannelCommand, entry: _Remembered) -> None:
        """Answer a replay of a command in its wait: its first result once it ends, or (its first run
        cut off) its own run, beside the reader as the first was."""
        first = await asyncio.shield(entry.result)
        if first is not None:
            self._answer(_replayed(first), beside=True)
            return
        await self._in_flight.acquire()  # _apply hands the slot back when it moves beside again
        await self._apply(command)

    def _invalid(self, command: pb.ChannelCommand, kind: str | None) -> pb.ChannelResult:
        command_id = command.command_id
        if not command_id or len(command_id) > MAX_COMMAND_ID:
            error: InvalidArgument = invalid_field("command_id", f"must be 1 to {MAX_COMMAND_ID} characters")
        else:
            error = invalid_field("command", "must be one of send, reply, ack, cancel, wait, get")
        return pb.ChannelResult(command_id=command_id, error=channel_error(error))

    def _answer(self, result: pb.ChannelResult, *, beside: bool = False) -> None:
        self._outbox.put_nowait(_Beside(result) if beside else result)


class _SendWait(tuple[mpb.WaitMessageRequest, mpb.SendMessageResponse]):
    """A send stored but still open whose command also waits: the wait, and the send's response."""

    __slots__ = ()


def _replayed(first: pb.ChannelResult) -> pb.ChannelResult:
    """A copy of a command's first result, marked as replayed (an error is answered as it was)."""
    result = pb.ChannelResult()
    result.CopyFrom(first)
    if not result.HasField("error"):
        result.replayed = True
    return result


def channel_error(error: HubError) -> pb.ChannelError:
    """A command's error as its unary twin would have sent it (code, message, reason, rich status)."""
    status = rich_status(error)
    return pb.ChannelError(
        code=status.code,
        message=error.message,
        reason=str(error.reason or ""),
        status=status.SerializeToString(),
    )


class Channels:
    """The channels of one hub: what they share (the twin servicer, the remembered results), and the
    one task that ends them all when the hub stops (one per hub while channels are open, not one
    per channel: an idle channel's memory is what it holds)."""

    def __init__(self, hub: HubState) -> None:
        self.hub = hub
        self.messages = MessageServicer(hub)
        self.results = CommandResults()
        self._open: set[Channel] = set()
        self._per_agent: dict[str, int] = {}
        self._watch: asyncio.Task[None] | None = None

    def opened(self, channel: Channel) -> None:
        """Count ``channel`` among the open ones (ended with UNAVAILABLE when the hub stops).

        Raises:
            ResourceExhausted: (STREAM_LIMIT_REACHED) its agent has ``max_streams_per_agent``
                channels open in this process already (a subscribed channel also counts among the
                agent's streams).
        """
        limit = self.hub.settings.max_streams_per_agent
        agent_id = channel.agent_id
        count = self._per_agent.get(agent_id, 0)
        if count >= limit:
            raise stream_limit_reached(limit)
        self._per_agent[agent_id] = count + 1
        self._open.add(channel)
        if self._watch is None or self._watch.done():
            self._watch = asyncio.create_task(self._stop_with_hub(), name="kxm-channels-stop")

    def closed(self, channel: Channel) -> None:
        """Forget a channel that ended (idempotent)."""
        if channel not in self._open:
            return
        self._open.discard(channel)
        agent_id = channel.agent_id
        left = self._per_agent[agent_id] - 1
        if left:
            self._per_agent[agent_id] = left
        else:
            del self._per_agent[agent_id]
        if not self._open and self._watch is not None:
            self._watch.cancel()  # no channel open: a hub at rest runs no task of theirs
            self._watch = None

    async def _stop_with_hub(self) -> None:
        await self.hub.shutting_down.wait()
        for channel in list(self._open):
            channel.end(shutting_down())

    def serve(
        self, requests: AsyncIterator[pb.OpenChannelRequest | Undecodable], context: Context
    ) -> Coroutine[Any, Any, None]:
        """The coroutine that serves one channel (AgentService.OpenChannel, once admission let it in);
        returned, not awaited here, so an idle channel holds one frame fewer.

        Raises (when awaited):
            HubError: what ended the channel.
        """
        return Channel(self, context).serve(requests)

    @staticmethod
    def internal(error: BaseException) -> HubError:
        """A bug met by a channel's task, logged once; the channel ends INTERNAL."""
        log.error("channel_error", exc_info=error)
        return Internal("internal error", reason=Reason.INTERNAL_ERROR)
