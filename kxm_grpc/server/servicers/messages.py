"""MessageService: peer requests between agents of a project, and each agent's inbox stream."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc, types_pb2
from kxm_grpc._status import to_rpc_status
from kxm_grpc.domain.messages import Delivery, Event, EventKind, Message, MessageState, WorkflowContext
from kxm_grpc.errors import invalid_field
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import agent_to_proto, answer_within, duration_value, set_timestamp, timestamp, wait_value
from kxm_grpc.server.state import HubState
from kxm_grpc.services import messages

Context = grpc.aio.ServicerContext[Any, Any]

_DELIVERY_IN: dict[int, Delivery] = {
    types_pb2.DELIVERY_UNSPECIFIED: Delivery.FOLLOW_UP,
    types_pb2.DELIVERY_STEER: Delivery.STEER,
    types_pb2.DELIVERY_FOLLOW_UP: Delivery.FOLLOW_UP,
    types_pb2.DELIVERY_NEXT_TURN: Delivery.NEXT_TURN,
}
DELIVERY_TO_PROTO = {
    Delivery.STEER: types_pb2.DELIVERY_STEER,
    Delivery.FOLLOW_UP: types_pb2.DELIVERY_FOLLOW_UP,
    Delivery.NEXT_TURN: types_pb2.DELIVERY_NEXT_TURN,
}
STATE_TO_PROTO = {
    MessageState.QUEUED: types_pb2.MESSAGE_STATE_QUEUED,
    MessageState.DELIVERED: types_pb2.MESSAGE_STATE_DELIVERED,
    MessageState.REPLIED: types_pb2.MESSAGE_STATE_REPLIED,
    MessageState.CANCELLED: types_pb2.MESSAGE_STATE_CANCELLED,
    MessageState.EXPIRED: types_pb2.MESSAGE_STATE_EXPIRED,
    MessageState.ERROR: types_pb2.MESSAGE_STATE_ERROR,
}


def delivery_from_proto(value: int) -> Delivery:
    """The domain delivery hint; unspecified means follow-up.

    Raises:
        InvalidArgument: an unknown enum value.
    """
    delivery = _DELIVERY_IN.get(value)
    if delivery is None:
        raise invalid_field("delivery", "must be DELIVERY_STEER, DELIVERY_FOLLOW_UP or DELIVERY_NEXT_TURN")
    return delivery


def workflow_context_from_proto(value: types_pb2.WorkflowMessageContext) -> WorkflowContext:
    """A workflow message context as given (the services validate and canonicalise it)."""
    return WorkflowContext(value.run_id, value.stage_id, value.requirement_key, value.attempt)


def fill_message(proto: types_pb2.Message, message: Message) -> None:
    """Write the full message, content and reply included, into an empty ``proto``.

    Fields are set in place: on the hot path this is about three times cheaper than building a
    Message from keyword arguments and copying it into the response (docs/performance.md).
    """
    proto.id = message.id
    proto.project = message.project
    proto.from_agent_id = message.from_agent_id
    proto.from_agent_name = message.from_agent_name
    proto.to_agent_id = message.to_agent_id
    proto.to_agent_name = message.to_agent_name
    proto.content = message.content
    proto.delivery = DELIVERY_TO_PROTO[message.delivery]
    proto.hops = message.hops
    proto.max_hops = message.max_hops
    proto.correlation_id = message.correlation_id
    proto.reply_to = message.reply_to
    proto.idempotency_key = message.idempotency_key
    proto.seq = message.seq
    set_timestamp(proto.create_time, message.create_time)
    set_timestamp(proto.expire_time, message.expire_time)
    if message.deliver_time is not None:
        set_timestamp(proto.deliver_time, message.deliver_time)
    if message.end_time is not None:
        set_timestamp(proto.end_time, message.end_time)
    proto.state = STATE_TO_PROTO[message.state]
    proto.error = message.error
    context = message.workflow_context
    if context is not None:
        workflow = proto.workflow_context
        workflow.run_id = context.run_id
        workflow.stage_id = context.stage_id
        workflow.requirement_key = context.requirement_key
        workflow.attempt = context.attempt
    if message.reply_content is not None:
        reply = proto.reply
        reply.content = message.reply_content
        if message.reply_time is not None:
            set_timestamp(reply.create_time, message.reply_time)


def message_to_proto(message: Message) -> types_pb2.Message:
    """The full message, content and reply included."""
    proto = types_pb2.Message()
    fill_message(proto, message)
    return proto


def _workflow_context(request: pb.SendMessageRequest | pb.FanoutMessagesRequest) -> WorkflowContext | None:
    return workflow_context_from_proto(request.workflow_context) if request.HasField("workflow_context") else None


def _ttl(request: pb.SendMessageRequest | pb.FanoutMessagesRequest) -> int | None:
    return duration_value("ttl", request.ttl, request.HasField("ttl"))


class MessageServicer(message_service_pb2_grpc.MessageServiceServicer):
    """Serves kxm.v1.MessageService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub

    async def SendMessage(self, request: pb.SendMessageRequest, context: Context) -> pb.SendMessageResponse:
        hub = self._hub
        send = messages.SendRequest(
            target=request.target,
            content=request.content,
            delivery=delivery_from_proto(request.delivery),
            correlation_id=request.correlation_id,
            reply_to=request.reply_to,
            idempotency_key=request.idempotency_key,
            hops=request.hops,
            max_hops=request.max_hops,
            ttl=_ttl(request),
            allow_offline=request.allow_offline,
            workflow_context=_workflow_context(request),
            wait=wait_value(
                "wait",
                request.wait,
                request.HasField("wait"),
                deprecated=("reply_wait", request.reply_wait, request.HasField("reply_wait")),
            ),
        )
        sent = await messages.send_message(
            hub.store,
            current_call().caller,
            send,
            clock=hub.clock,
            limits=hub.limits,
            time_remaining=answer_within(context.time_remaining()),
        )
        response = pb.SendMessageResponse(repeated=sent.repeated, terminal=sent.message.state.terminal)
        fill_message(response.message, sent.message)
        return response

    async def GetMessage(self, request: pb.GetMessageRequest, context: Context) -> pb.GetMessageResponse:
        message = await messages.get_message(
            self._hub.store, current_call().caller, request.message_id, now=self._hub.now()
        )
        response = pb.GetMessageResponse()
        fill_message(response.message, message)
        return response

    async def CancelMessage(self, request: pb.CancelMessageRequest, context: Context) -> pb.CancelMessageResponse:
        message = await messages.cancel_message(
            self._hub.store, current_call().caller, request.message_id, now=self._hub.now()
        )
        response = pb.CancelMessageResponse()
        fill_message(response.message, message)
        return response

    async def ReplyToMessage(self, request: pb.ReplyToMessageRequest, context: Context) -> pb.ReplyToMessageResponse:
        message = await messages.reply_to_message(
            self._hub.store, current_call().caller, request.message_id, request.content, now=self._hub.now()
        )
        response = pb.ReplyToMessageResponse()
        fill_message(response.message, message)
        return response

    async def AckMessages(self, request: pb.AckMessagesRequest, context: Context) -> pb.AckMessagesResponse:
        acked = await messages.ack_messages(
            self._hub.store, current_call().caller, list(request.message_ids), now=self._hub.now()
        )
        response = pb.AckMessagesResponse()
        for message in acked:
            fill_message(response.messages.add(), message)
        return response

    async def ListInbox(self, request: pb.ListInboxRequest, context: Context) -> pb.ListInboxResponse:
        page, next_token = await messages.list_inbox(
            self._hub.store, current_call().caller, request.page_size, request.page_token, now=self._hub.now()
        )
        response = pb.ListInboxResponse(next_page_token=next_token)
        for message in page:
            fill_message(response.messages.add(), message)
        return response

    async def WaitMessage(self, request: pb.WaitMessageRequest, context: Context) -> pb.WaitMessageResponse:
        wait = wait_value(
            "wait",
            request.wait,
            request.HasField("wait"),
            deprecated=("timeout", request.timeout, request.HasField("timeout")),
        )
        message, terminal = await messages.wait_message(
            self._hub.store,
            current_call().caller,
            request.message_id,
            wait=wait,
            clock=self._hub.clock,
            time_remaining=answer_within(context.time_remaining()),
        )
        response = pb.WaitMessageResponse(terminal=terminal)
        fill_message(response.message, message)
        return response

    async def FanoutMessages(self, request: pb.FanoutMessagesRequest, context: Context) -> pb.FanoutMessagesResponse:
        hub = self._hub
        fanout = messages.FanoutRequest(
            targets=list(request.targets),
            content=request.content,
            correlation_id=request.correlation_id,
            idempotency_key_prefix=request.idempotency_key_prefix,
            workflow_context=_workflow_context(request),
            ttl=_ttl(request),
            allow_offline=request.allow_offline,
            wait=wait_value(
                "wait",
                request.wait,
                request.HasField("wait"),
                deprecated=("timeout", request.timeout, request.HasField("timeout")),
            ),
        )
        outcomes = await messages.fanout_messages(
            hub.store,
            current_call().caller,
            fanout,
            clock=hub.clock,
            limits=hub.limits,
            time_remaining=answer_within(context.time_remaining()),
        )
        results = []
        for outcome in outcomes:
            if outcome.message is not None:
                status = pb.FANOUT_STATUS_TERMINAL if outcome.message.state.terminal else pb.FANOUT_STATUS_PENDING
                results.append(
                    pb.FanoutResult(target=outcome.target, status=status, message=message_to_proto(outcome.message))
                )
            else:
                assert outcome.error is not None
                results.append(
                    pb.FanoutResult(
                        target=outcome.target,
                        status=pb.FANOUT_STATUS_ERROR,
                        error_reason=str(outcome.error.reason or ""),
                        error_message=outcome.error.message,
                    )
                )
        return pb.FanoutMessagesResponse(results=results)

    def stream_item_to_proto(self, item: messages.StreamItem) -> pb.SubscribeResponse:
        """One item of an inbox stream as Subscribe (and a channel) writes it."""
        if isinstance(item, Event):  # nearly every item: tested first
            return self._event_to_proto(item)
        hub = self._hub
        if isinstance(item, messages.Ready):
            opening = item.opening
            return pb.SubscribeResponse(
                seq=0,
                event_time=timestamp(item.time),
                ready=pb.SubscribeReady(
                    agent=agent_to_proto(item.agent, now=item.time, stale_after=hub.stale_after),
                    after_seq=opening.after_seq,
                    head_seq=opening.head_seq,
                    oldest_seq=opening.oldest_seq,
                    truncated=opening.truncated,
                ),
            )
        if isinstance(item, messages.Redelivery):
            message = item.message
            response = pb.SubscribeResponse(seq=message.seq, redelivered=True)
            set_timestamp(response.event_time, message.create_time)
            fill_message(response.message, message)
            return response
        raise TypeError(f"not a stream item: {item!r}")

    def _event_to_proto(self, event: Event) -> pb.SubscribeResponse:
        response = pb.SubscribeResponse(seq=event.seq)
        set_timestamp(response.event_time, event.event_time)
        kind = event.kind
        if kind is EventKind.PRESENCE:
            assert event.subject is not None
            # Presence as it was when the event was recorded.
            response.presence.CopyFrom(
                agent_to_proto(event.subject, now=event.event_time, stale_after=self._hub.stale_after)
            )
            return response
        assert event.message is not None
        if kind is EventKind.MESSAGE:
            fill_message(response.message, event.message)
        elif kind is EventKind.REPLY:
            fill_message(response.reply, event.message)
        elif kind is EventKind.CANCELLED:
            fill_message(response.cancelled, event.message)
        else:
            fill_message(response.expired, event.message)
        return response

    async def Subscribe(self, request: pb.SubscribeRequest, context: Context) -> AsyncIterator[pb.SubscribeResponse]:
        hub = self._hub
        call = current_call()
        agent, agent_key = call.agent, call.agent_key
        assert agent is not None and agent_key is not None  # the method table requires an agent
        subscription = messages.subscription(
            agent,
            agent_key,
            after_seq=request.after_seq,
            presence_only=request.presence_only,
            stopping=hub.shutting_down,
            key_verified_at=call.credentials_notice_version,
        )
        streams = hub.coordination.streams
        stream = await streams.open(subscription, lambda error: context.abort_with_status(to_rpc_status(error)))
        items = messages.subscribe(hub.store, subscription, clock=hub.clock, stopping=hub.shutting_down, cursor=stream)
        try:
            async with contextlib.aclosing(items):
                async for item in items:
                    response = self.stream_item_to_proto(item)
                    del item  # neither is kept while the stream waits for its next event
                    stream.writing = True
                    yield response
                    stream.writing = False
                    if stream.cut is not None:
                        await stream.cut  # the monitor ended the call while this write was stuck
                    if response.seq:
                        stream.sent_seq = response.seq
                    del response
                    slow = streams.too_slow(stream)
                    if slow is not None:
                        raise slow
        finally:
            streams.close(stream)
