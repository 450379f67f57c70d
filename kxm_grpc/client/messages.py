"""``hub.messages``: MessageService calls, peer requests, waits and fan-out, and the resumable inbox stream.

One method per RPC, named after it without the word "message": ``send``, ``get``, ``cancel``,
``reply``, ``ack``, ``list_inbox``, ``wait``, ``fanout``, ``subscribe``. ``wait=`` is always how
long to wait, in seconds; ``timeout=`` is always the call's deadline. ``subscribe()`` is an async
iterator over the inbox stream that reconnects with backoff and jitter and resumes from the last
sequence it saw.
"""

from __future__ import annotations

import asyncio
import collections
import random
from collections.abc import AsyncIterator, Iterable
from typing import ClassVar

import grpc

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc, types_pb2
from kxm_grpc.client.base import Area, duration
from kxm_grpc.client.retries import resumable
from kxm_grpc.errors import FailedPrecondition, HubError, NotFound

# The long-poll RPCs answer by themselves before this much past their wait.
LONG_POLL_SLACK = 5.0
# The longest wait one WaitMessage call covers; ``wait`` makes as many calls as a longer wait needs.
MAX_WAIT_CALL = 60.0

_REMEMBERED = 4096
"""How many yielded message ids one ``subscribe`` iteration remembers to drop their redeliveries."""


class Messages(Area):
    """kxm.v1.MessageService: requests between the agents of a project, and the agent's inbox."""

    SERVICE: ClassVar[str] = "kxm.v1.MessageService"

    def _rpc(self) -> message_service_pb2_grpc.MessageServiceAsyncStub:
        return self._hub._stub(message_service_pb2_grpc.MessageServiceStub)

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
        timeout: float | None = None,
    ) -> pb.SendMessageResponse:
        """Send a request to another agent (id or name) of the project; ``ttl`` in seconds.

        With ``wait`` (seconds, at most 60; the request's ``wait``) the hub also waits for the
        message to end and returns it replied (``terminal``), saving the WaitMessage call; the
        call's deadline is raised to cover the wait unless ``timeout`` is given.

        On a client of several addresses the send is retried on UNAVAILABLE, so it always carries
        an idempotency key: ``idempotency_key``, or one made for this call (``auto:`` and a random
        hex) when it is empty. A send you repeat yourself is a new send unless you pass the same key.
        """
        if timeout is None and wait is not None:
            timeout = self._hub.timeout + wait
        channel = await self._hub._agent_commands()
        if channel is not None:
            if wait is not None and timeout is not None:
                # As the hub cuts a unary send's wait to fit its deadline, so its answer comes in time.
                wait = min(wait, max(0.0, timeout - max(0.5, 0.1 * timeout)))
            # No made-up key: a command replayed after a reconnect is keyed by its command id.
            sent = channel.send(
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
                wait=wait,
            )
            return await self._hub._on_channel(sent, timeout)
        return await self._hub._call(
            self._rpc().SendMessage,
            pb.SendMessageRequest(
                target=target,
                content=content,
                delivery=delivery,
                correlation_id=correlation_id,
                reply_to=reply_to,
                idempotency_key=self._hub.retry_key(idempotency_key),
                hops=hops,
                max_hops=max_hops,
                ttl=duration(ttl),
                allow_offline=allow_offline,
                workflow_context=workflow_context,
                wait=duration(wait),
                # The deprecated field too, with the same value, for one release: a hub older than
                # the `wait` field would otherwise ignore the wait (a newer hub accepts equal pairs).
                reply_wait=duration(wait),
            ),
            timeout=timeout,
        )

    async def get(self, message_id: str, *, timeout: float | None = None) -> pb.GetMessageResponse:
        """A message this agent sent or received."""
        channel = await self._hub._agent_commands()
        if channel is not None:
            return await self._hub._on_channel(channel.get(message_id), timeout)
        return await self._hub._call(
            self._rpc().GetMessage, pb.GetMessageRequest(message_id=message_id), timeout=timeout
        )

    async def cancel(self, message_id: str, *, timeout: float | None = None) -> pb.CancelMessageResponse:
        """Cancel a message this agent sent."""
        channel = await self._hub._agent_commands()
        if channel is not None:
            return await self._hub._on_channel(channel.cancel(message_id), timeout)
        return await self._hub._call(
            self._rpc().CancelMessage, pb.CancelMessageRequest(message_id=message_id), timeout=timeout
        )

    async def reply(self, message_id: str, content: str, *, timeout: float | None = None) -> pb.ReplyToMessageResponse:
        """Reply (once) to a message this agent received."""
        channel = await self._hub._agent_commands()
        if channel is not None:
            return await self._hub._on_channel(channel.reply(message_id, content), timeout)
        return await self._hub._call(
            self._rpc().ReplyToMessage,
            pb.ReplyToMessageRequest(message_id=message_id, content=content),
            timeout=timeout,
        )

    async def ack(self, message_ids: Iterable[str], *, timeout: float | None = None) -> pb.AckMessagesResponse:
        """Acknowledge received messages (all or none): they are never redelivered on a stream."""
        channel = await self._hub._agent_commands()
        if channel is not None:
            return await self._hub._on_channel(channel.ack([*message_ids]), timeout)
        return await self._hub._call(
            self._rpc().AckMessages, pb.AckMessagesRequest(message_ids=[*message_ids]), timeout=timeout
        )

    async def list_inbox(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> pb.ListInboxResponse:
        """One page of this agent's open inbound messages, oldest first."""
        return await self._hub._call(
            self._rpc().ListInbox, pb.ListInboxRequest(page_size=page_size, page_token=page_token), timeout=timeout
        )

    async def wait(self, message_id: str, *, wait: float | None = None) -> pb.WaitMessageResponse:
        """Wait until the message is terminal, for at most ``wait`` seconds (None: until it is).

        One WaitMessage long poll covers up to 60 s, so a wait of 60 s or less is one call and a
        longer one takes as many as it needs. A wait that ends first returns the current state with
        ``terminal`` false; it is not an error. Each call's deadline covers its poll.

        Raises:
            PermissionDenied: the message is neither from nor to this agent (MESSAGE_FORBIDDEN).
            InvalidArgument: ``wait`` is negative.
        """
        loop = asyncio.get_running_loop()
        deadline = None if wait is None else loop.time() + wait
        remaining = wait
        while True:
            poll = MAX_WAIT_CALL if remaining is None else min(remaining, MAX_WAIT_CALL)
            channel = await self._hub._agent_commands()
            if channel is not None:
                response = await self._hub._on_channel(
                    channel.wait(message_id, wait=poll), max(poll, 0.0) + LONG_POLL_SLACK
                )
            else:
                response = await self._hub._call(
                    self._rpc().WaitMessage,
                    pb.WaitMessageRequest(message_id=message_id, wait=duration(poll), timeout=duration(poll)),
                    timeout=max(poll, 0.0) + LONG_POLL_SLACK,
                )
            if response.terminal or (remaining is not None and remaining <= MAX_WAIT_CALL):
                return response
            if deadline is not None:
                remaining = max(0.0, deadline - loop.time())

    async def fanout(
        self,
        targets: Iterable[str],
        content: str,
        *,
        correlation_id: str = "",
        idempotency_key_prefix: str = "",
        workflow_context: types_pb2.WorkflowMessageContext | None = None,
        ttl: float | None = None,
        wait: float = 1800.0,
        allow_offline: bool = False,
    ) -> pb.FanoutMessagesResponse:
        """Send one request to one to three agents and gather the replies for up to ``wait`` seconds.

        Results that have not ended when the wait does come back ``FANOUT_STATUS_PENDING``; the
        call's deadline covers the wait. On a client of several addresses an empty
        ``idempotency_key_prefix`` is replaced by one made for this call, as ``send`` does.
        """
        return await self._hub._call(
            self._rpc().FanoutMessages,
            pb.FanoutMessagesRequest(
                targets=[*targets],
                content=content,
                correlation_id=correlation_id,
                idempotency_key_prefix=self._hub.retry_key(idempotency_key_prefix),
                workflow_context=workflow_context,
                ttl=duration(ttl),
                wait=duration(wait),
                timeout=duration(wait),  # deprecated; the same value, for hubs older than `wait`
                allow_offline=allow_offline,
            ),
            timeout=wait + LONG_POLL_SLACK,
        )

    async def subscribe(
        self,
        after_seq: int = 0,
        *,
        presence_only: bool = False,
        auto_ack: bool = False,
        reconnect: bool = True,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> AsyncIterator[pb.SubscribeResponse]:
        """Yield this agent's inbox events for as long as the caller iterates.

        Every (re)connection starts with a ``ready`` event; then come redelivered unacknowledged
        messages (``redelivered``) and the events after the cursor, each with its ``seq``. When the
        stream ends (hub restart or shutdown, a slow consumer cut off, a network failure) it is
        opened again after a jittered, growing backoff, resuming after the last seq yielded. It is
        opened on the client's channel each time, so on a client of several addresses a stream whose
        hub went away opens again on whichever address the channel connects to next (gRPC's own
        retry policy does not cover streams; this loop does). Authentication and argument errors
        are raised. With ``auto_ack`` every message event is
        acknowledged once the caller asks for the next event, i.e. after handling it.

        Within one iteration each message is yielded once: a message redelivered after a reconnect
        because its acknowledgement had not reached the hub (it was in flight when the hub went away)
        is acknowledged again with ``auto_ack`` and not yielded twice. A new iteration (a new
        process) gets every unacknowledged message again: at least once across crashes.
        """
        last_seq = after_seq
        backoff = initial_backoff
        stub = self._rpc()
        yielded: collections.OrderedDict[str, None] = collections.OrderedDict()
        """Ids of the messages this iterator yielded (the latest ``_REMEMBERED``): a redelivery of one of
        them after a reconnect (its ack had not landed) is the caller's already, so it is not yielded again."""
        while True:
            request = pb.SubscribeRequest(after_seq=last_seq, presence_only=presence_only)
            # A stream has no deadline; keepalive detects a dead connection.
            call = stub.Subscribe(request, metadata=self._hub.metadata)
            try:
                async for event in call:
                    if event.HasField("ready"):
                        backoff = initial_backoff
                        last_seq = event.ready.after_seq
                    else:
                        last_seq = max(last_seq, event.seq)
                    if event.HasField("message"):
                        message_id = event.message.id
                        if event.redelivered and message_id in yielded:
                            if auto_ack:
                                await self._ack_quietly(message_id)
                            continue
                        yielded[message_id] = None
                        if len(yielded) > _REMEMBERED:
                            yielded.popitem(last=False)
                    yield event
                    if auto_ack and event.HasField("message"):
                        await self._ack_quietly(event.message.id)
            except grpc.aio.AioRpcError as exc:
                error = self._hub._error(exc)
                # Every RESOURCE_EXHAUSTED too: the consumer was too slow, or the agent's other streams
                # have not closed yet. Credentials and argument errors are final.
                if not reconnect or not resumable(error, any_exhaustion=True):
                    raise error from None
            finally:
                call.cancel()
            if not reconnect:
                return
            await asyncio.sleep(random.uniform(backoff / 2, backoff))
            backoff = min(max_backoff, backoff * 2)

    async def _ack_quietly(self, message_id: str) -> None:
        """Acknowledge one message; one that ended or was purged meanwhile needs no acknowledgement."""
        try:
            await self.ack([message_id])
        except (FailedPrecondition, NotFound):
            pass
        except HubError:
            # Unacknowledged, it is redelivered on the next connection: at least once, never lost.
            pass
