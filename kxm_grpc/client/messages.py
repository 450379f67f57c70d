"""MessageService calls: peer requests, await and fanout, and the resumable inbox stream.

One method per RPC, named after it, plus short aliases (``send``, ``get``, ``cancel``, ``reply``,
``ack``, ``inbox``, ``wait``, ``fanout``). ``subscribe()`` is an async iterator over the inbox
stream that reconnects with backoff and jitter and resumes from the last sequence it saw.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterable

import grpc
from google.protobuf import duration_pb2

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc, types_pb2
from kxm_grpc._status import from_rpc_error
from kxm_grpc.client.base import ClientBase
from kxm_grpc.errors import FailedPrecondition, HubError, NotFound

# The long-poll RPCs answer by themselves before this much past their wait.
_LONG_POLL_SLACK = 5.0
_MAX_WAIT_CALL = 60.0

# Statuses after which a stream is opened again: the hub stopped or moved, the consumer was too
# slow, or the agent's other streams have not closed yet. Credentials and argument errors are final.
_RESUMABLE = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN", "INTERNAL"})


def _duration(seconds: float | None) -> duration_pb2.Duration | None:
    if seconds is None:
        return None
    value = duration_pb2.Duration()
    value.FromNanoseconds(round(seconds * 1e9))
    return value


class MessageCalls(ClientBase):
    """kxm.v1.MessageService."""

    def _messages(self) -> message_service_pb2_grpc.MessageServiceAsyncStub:
        return self._stub(message_service_pb2_grpc.MessageServiceStub)

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
        """Send a request to another agent (id or name) of the project; ``ttl`` in seconds.

        With ``reply_wait`` (seconds, at most 60) the hub also waits for the message to end and
        returns it replied (``terminal``), saving the WaitMessage call; the call's deadline is
        raised to cover the wait unless ``timeout`` is given.
        """
        if timeout is None and reply_wait is not None:
            timeout = self.timeout + reply_wait
        return await self._call(
            self._messages().SendMessage,
            pb.SendMessageRequest(
                target=target,
                content=content,
                delivery=delivery,
                correlation_id=correlation_id,
                reply_to=reply_to,
                idempotency_key=idempotency_key,
                hops=hops,
                max_hops=max_hops,
                ttl=_duration(ttl),
                allow_offline=allow_offline,
                workflow_context=workflow_context,
                reply_wait=_duration(reply_wait),
            ),
            timeout=timeout,
        )

    async def get_message(self, message_id: str) -> pb.GetMessageResponse:
        """A message this agent sent or received."""
        return await self._call(self._messages().GetMessage, pb.GetMessageRequest(message_id=message_id))

    async def cancel_message(self, message_id: str) -> pb.CancelMessageResponse:
        """Cancel a message this agent sent."""
        return await self._call(self._messages().CancelMessage, pb.CancelMessageRequest(message_id=message_id))

    async def reply_to_message(self, message_id: str, content: str) -> pb.ReplyToMessageResponse:
        """Reply (once) to a message this agent received."""
        return await self._call(
            self._messages().ReplyToMessage, pb.ReplyToMessageRequest(message_id=message_id, content=content)
        )

    async def ack_messages(self, message_ids: Iterable[str]) -> pb.AckMessagesResponse:
        """Acknowledge received messages (all or none): they are never redelivered on a stream."""
        return await self._call(self._messages().AckMessages, pb.AckMessagesRequest(message_ids=list(message_ids)))

    async def list_inbox(self, *, page_size: int = 0, page_token: str = "") -> pb.ListInboxResponse:
        """One page of this agent's open inbound messages, oldest first."""
        return await self._call(
            self._messages().ListInbox, pb.ListInboxRequest(page_size=page_size, page_token=page_token)
        )

    async def wait_message(self, message_id: str, *, timeout: float | None = None) -> pb.WaitMessageResponse:
        """One long poll (at most 60 s) until the message is terminal; ``terminal`` says whether it is."""
        wait = _MAX_WAIT_CALL if timeout is None else min(timeout, _MAX_WAIT_CALL)
        return await self._call(
            self._messages().WaitMessage,
            pb.WaitMessageRequest(message_id=message_id, timeout=_duration(wait)),
            timeout=wait + _LONG_POLL_SLACK,
        )

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
        """Send one request to one to three agents and gather the replies for up to ``timeout`` seconds."""
        return await self._call(
            self._messages().FanoutMessages,
            pb.FanoutMessagesRequest(
                targets=list(targets),
                content=content,
                correlation_id=correlation_id,
                idempotency_key_prefix=idempotency_key_prefix,
                workflow_context=workflow_context,
                ttl=_duration(ttl),
                timeout=_duration(timeout),
                allow_offline=allow_offline,
            ),
            timeout=timeout + _LONG_POLL_SLACK,
        )

    # -- short names -------------------------------------------------------------------------------

    send = send_message
    get = get_message
    cancel = cancel_message
    reply = reply_to_message
    inbox = list_inbox
    fanout = fanout_messages

    async def ack(self, *message_ids: str) -> pb.AckMessagesResponse:
        """Acknowledge the given messages."""
        return await self.ack_messages(message_ids)

    async def wait(self, message_id: str, *, timeout: float | None = None) -> pb.WaitMessageResponse:
        """Wait until the message is terminal, over as many long polls as needed, or until ``timeout`` seconds.

        A wait that ends first returns the current state with ``terminal`` false; it is not an error.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - loop.time())
            response = await self.wait_message(message_id, timeout=remaining)
            if response.terminal or (remaining is not None and remaining <= _MAX_WAIT_CALL):
                return response

    # -- the inbox stream --------------------------------------------------------------------------

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
        opened again after a jittered, growing backoff, resuming after the last seq yielded.
        Authentication and argument errors are raised. With ``auto_ack`` every message event is
        acknowledged once the caller asks for the next event, i.e. after handling it.
        """
        last_seq = after_seq
        backoff = initial_backoff
        stub = self._messages()
        while True:
            request = pb.SubscribeRequest(after_seq=last_seq, presence_only=presence_only)
            # A stream has no deadline; keepalive detects a dead connection.
            call = stub.Subscribe(request, metadata=self.metadata)
            try:
                async for event in call:
                    if event.HasField("ready"):
                        backoff = initial_backoff
                        last_seq = event.ready.after_seq
                    else:
                        last_seq = max(last_seq, event.seq)
                    yield event
                    if auto_ack and event.HasField("message"):
                        await self._ack_quietly(event.message.id)
            except grpc.aio.AioRpcError as exc:
                error = from_rpc_error(exc)
                if not reconnect or error.status not in _RESUMABLE:
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
            await self.ack_messages([message_id])
        except (FailedPrecondition, NotFound):
            pass
        except HubError:
            # Unacknowledged, it is redelivered on the next connection: at least once, never lost.
            pass
