"""Conformance program (Python, through the thin client ``kxm_grpc.client.HubClient``).

Runs the client conformance scenario against a live hub and prints one JSON transcript,
``{"language": "python", "ok": ..., "steps": [...]}``, to stdout. Every step holds only
normalised facts (no ids, times or language-specific text), so transcripts of the five languages
compare equal step by step (tests/test_conformance.py). ``ok`` is false, ``error`` says why and
the exit status is 1 when a call failed unexpectedly; the remaining steps are then missing.

Environment: KXM_ADDR (host:port, plaintext), KXM_TOKEN, KXM_NAME_PREFIX; KXM_TLS_ADDR, KXM_TLS_CA and
KXM_TLS_TOKEN (a TLS hub, the PEM file of the CA it trusts, a project token there); KXM_SWEEP (the
contract sweep's calls, written by tests/conformance_sweep.py).
Run: ``.venv/bin/python clients/python/conformance.py`` (from the repository root).

The same scenario, step by step, is in clients/{go,typescript,java,rust}; keep them in step.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pool, message_factory
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from kxm_grpc.v1 import (  # noqa: F401  (every service imported: the sweep finds its methods in the pool)
    admin_service_pb2,
    agent_service_pb2_grpc,
    context_service_pb2,
    lease_service_pb2,
    ops_service_pb2,
    runtime_service_pb2,
    types_pb2,
    workflow_service_pb2,
)
from kxm_grpc.v1 import agent_service_pb2 as apb
from kxm_grpc.v1 import message_service_pb2 as mpb

DEADLINE = 10.0  # every unary call
EVENT_WAIT = 15.0  # waiting for a stream event
WAIT_TIMEOUT = 10.0  # WaitMessage's own timeout (the call's deadline is 5 s longer)
FANOUT_TIMEOUT = 20.0  # FanoutMessages' gathering time (the call's deadline is 5 s longer)
BARRIER_WAIT = 15.0  # how long a fanout handler waits for the other one

MISSING_MESSAGE_ID = "msg_" + "0" * 32
REQUEST = "conformance request"
IDEMPOTENCY_KEY = "conformance-request-1"
REPLY = "conformance reply"
FANOUT = "conformance fanout"
FANOUT_KEY_PREFIX = "conformance-fanout"
RESUME = ("conformance resume 1", "conformance resume 2")
LEASE_TTL = 30.0
CHANNEL_REQUEST = "conformance channel request"
CHANNEL_REPLY = "conformance channel reply"
REDELIVER = "conformance redeliver"

Step = dict[str, Any]


def fanout_reply(suffix: str) -> str:
    """The reply agent ``suffix`` (b or c) gives to the fanout."""
    return f"fanout reply from {suffix}"


def event_kind(event: mpb.SubscribeResponse) -> str:
    """The name of the event's oneof case: ready, message, reply, cancelled, expired or presence."""
    return event.WhichOneof("event") or "none"


def state_name(value: types_pb2.MessageState.ValueType) -> str:
    return types_pb2.MessageState.Name(value)


def _message_class(name: str) -> Any:
    return message_factory.GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(name))


def _status_facts(error: grpc.aio.AioRpcError) -> dict[str, Any]:
    """The code's name, ErrorInfo's reason and domain and BadRequest's fields from the status details."""
    facts: dict[str, Any] = {"code": error.code().name, "reason": "", "domain": "", "violations": []}
    status = rpc_status.from_call(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            facts["reason"], facts["domain"] = info.reason, info.domain
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            facts["violations"] = [violation.field for violation in bad.field_violations]
    return facts


async def sweep_call(channel: grpc.aio.Channel, call: dict[str, Any]) -> Step:
    """Run one call of the sweep (docs/clients.md, "The contract sweep"); its recorded outcome."""
    recorded: Step = {"name": call["name"], "code": "OK", "reason": "", "domain": "", "violations": []}
    responses: list[str] = []
    service, _, method_name = call["method"].partition("/")
    try:
        method = descriptor_pool.Default().FindServiceByName(service).FindMethodByName(method_name)
    except KeyError:
        method = None
    if method is None:
        return {**recorded, "code": "UNIMPLEMENTED_IN_CLIENT", "responses": []}
    request_class = _message_class(method.input_type.full_name)
    response_class = _message_class(method.output_type.full_name)
    requests = [request_class.FromString(base64.b64decode(item)) for item in call["requests"]]
    path = "/" + call["method"]
    options = {
        "metadata": tuple((key, value) for key, value in call["metadata"]),
        "timeout": call["timeout_ms"] / 1000,
    }
    kind = call["kind"]
    wanted = call.get("responses", 1)
    serialize, deserialize = request_class.SerializeToString, response_class.FromString
    stream: Any = None
    try:
        if kind == "unary":
            rpc = channel.unary_unary(path, request_serializer=serialize, response_deserializer=deserialize)
            responses.append(_encoded(await rpc(requests[0], **options)))
        else:
            if kind == "server_stream":
                stream = channel.unary_stream(path, request_serializer=serialize, response_deserializer=deserialize)(
                    requests[0], **options
                )
            else:
                stream = channel.stream_stream(path, request_serializer=serialize, response_deserializer=deserialize)(
                    **options
                )
                for request in requests:
                    await stream.write(request)
            while len(responses) < wanted:
                response = await stream.read()
                if response is grpc.aio.EOF:
                    break
                responses.append(_encoded(response))
    except grpc.aio.AioRpcError as error:
        recorded.update(_status_facts(error))
    finally:
        if stream is not None:
            stream.cancel()
    recorded["responses"] = responses
    return recorded


def _encoded(message: Any) -> str:
    return base64.b64encode(message.SerializeToString()).decode()


class StepFailed(Exception):
    """A step could not finish; ``facts`` is what the transcript records for it."""

    def __init__(self, detail: str, facts: Step) -> None:
        super().__init__(detail)
        self.facts = facts


def error_facts(error: HubError) -> Step:
    """The code, and the google.rpc.ErrorInfo reason and domain decoded from the status details.

    HubError keeps the reason but not the domain, so the details are decoded again from the
    underlying grpc.aio.AioRpcError (the client raises HubError ``from None`` inside its ``except``,
    which leaves the RPC error as ``__context__``).
    """
    facts: Step = {"code": error.status, "reason": "", "domain": ""}
    rpc_error = error.__cause__ or error.__context__
    if not isinstance(rpc_error, grpc.aio.AioRpcError):
        return facts
    status = rpc_status.from_call(rpc_error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            facts["reason"], facts["domain"] = info.reason, info.domain
    return facts


class Inbox:
    """One Subscribe stream of an agent, read by a background task into a queue.

    ``seen`` is the seq of the last event the scenario took from the queue (what it "saw").
    """

    def __init__(self, client: HubClient, after_seq: int) -> None:
        self.client = client
        self.seen = after_seq
        self.last_redelivered = False
        self.queue: asyncio.Queue[mpb.SubscribeResponse | HubError] = asyncio.Queue()
        self.task = asyncio.create_task(self._pump(after_seq))

    async def _pump(self, after_seq: int) -> None:
        try:
            async for event in self.client.messages.subscribe(after_seq, reconnect=False):
                await self.queue.put(event)
        except HubError as error:
            await self.queue.put(error)

    async def next(self) -> mpb.SubscribeResponse:
        """The next event (waiting at most EVENT_WAIT seconds)."""
        try:
            item = await asyncio.wait_for(self.queue.get(), EVENT_WAIT)
        except TimeoutError:
            raise StepFailed("no stream event in time", {"error": "timeout"}) from None
        if isinstance(item, HubError):
            raise item
        if item.seq:
            self.seen = item.seq
        self.last_redelivered = item.redelivered
        return item

    async def next_message(self) -> mpb.SubscribeResponse:
        """The next message event, skipping presence events of the project's other agents."""
        while True:
            event = await self.next()
            if event_kind(event) == "message":
                return event
            if event_kind(event) != "presence":
                raise StepFailed(f"unexpected {event_kind(event)} event", {"error": "unexpected_event"})

    async def end(self) -> Step:
        """Read the stream to its end (skipping presence events): the code and reason it ended with."""
        while True:
            try:
                item = await asyncio.wait_for(self.queue.get(), EVENT_WAIT)
            except TimeoutError:
                raise StepFailed("the stream did not end in time", {"error": "timeout"}) from None
            if isinstance(item, HubError):
                facts = error_facts(item)
                return {"code": facts["code"], "reason": facts["reason"]}
            if item.seq:
                self.seen = item.seq
            if event_kind(item) != "presence":
                raise StepFailed(f"unexpected {event_kind(item)} event", {"error": "unexpected_event"})

    async def close(self) -> None:
        """Drop the stream (cancels the call)."""
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


class Scenario:
    def __init__(self, addr: str, token: str, prefix: str, tls: tuple[str, str, str], sweep_file: str) -> None:
        self.addr, self.token, self.prefix = addr, token, prefix
        self.tls_addr, self.tls_ca, self.tls_token = tls
        self.sweep_file = sweep_file
        self.steps: list[Step] = []
        self.clients: dict[str, HubClient] = {}
        self.inboxes: list[Inbox] = []

    def name(self, suffix: str) -> str:
        return f"{self.prefix}-{suffix}"

    def add(self, step: str, **facts: Any) -> None:
        self.steps.append({"step": step, **facts})

    async def run(self) -> None:
        await self.register()
        inbox_b = await self.subscribe()
        message_id = await self.send_idempotent()
        await self.receive_ack_reply(inbox_b, message_id)
        await self.wait(message_id)
        await self.fanout(inbox_b)
        await self.get_missing()
        await self.lease()
        await self.resume(inbox_b)
        await self.channel()
        await self.redeliver()
        await self.tls()
        await self.sweep()

    async def close(self) -> None:
        for inbox in self.inboxes:
            await inbox.close()
        for client in self.clients.values():
            await client.close()

    async def open_inbox(self, suffix: str, after_seq: int) -> tuple[Inbox, mpb.SubscribeResponse]:
        inbox = Inbox(self.clients[suffix], after_seq)
        self.inboxes.append(inbox)
        return inbox, await inbox.next()

    # 1. register a, b and c
    async def register(self) -> None:
        for suffix in ("a", "b", "c"):
            client = HubClient(self.addr, token=self.token, timeout=DEADLINE)
            self.clients[suffix] = client
            response = await client.agents.register(self.name(suffix), purpose="conformance", model="python")
            self.add(
                f"register_{suffix}",
                resumed=response.resumed,
                presence=types_pb2.Presence.Name(response.agent.presence),
                name_equal=response.agent.name == self.name(suffix),
            )

    # 2. subscribe b and wait for the ready event
    async def subscribe(self) -> Inbox:
        inbox, first = await self.open_inbox("b", 0)
        self.add(
            "subscribe",
            first_event=event_kind(first),
            after_seq=first.ready.after_seq,
            ready_seq=first.seq,
            agent_is_b=first.ready.agent.name == self.name("b"),
        )
        return inbox

    # 3. a sends b a message with an idempotency key, twice
    async def send_idempotent(self) -> str:
        a = self.clients["a"]
        first = await a.messages.send(self.name("b"), REQUEST, idempotency_key=IDEMPOTENCY_KEY)
        second = await a.messages.send(self.name("b"), REQUEST, idempotency_key=IDEMPOTENCY_KEY)
        self.add(
            "send_repeat",
            first_repeated=first.repeated,
            first_state=state_name(first.message.state),
            repeated=second.repeated,
            same_id=second.message.id == first.message.id,
            same_seq=second.message.seq == first.message.seq,
        )
        return first.message.id

    # 4. b receives it on the stream, acknowledges it and replies
    async def receive_ack_reply(self, inbox: Inbox, message_id: str) -> None:
        event = await inbox.next_message()
        message = event.message
        self.add(
            "receive",
            event="message",
            seq_positive=event.seq >= 1,
            seq_matches=message.seq == event.seq,
            same_id=message.id == message_id,
            content_equal=message.content == REQUEST,
            from_a=message.from_agent_name == self.name("a"),
            redelivered=event.redelivered,
        )
        b = self.clients["b"]
        acked = await b.messages.ack([message.id])
        self.add("ack", count=len(acked.messages), state=state_name(acked.messages[0].state))
        replied = await b.messages.reply(message.id, REPLY)
        self.add("reply", state=state_name(replied.message.state))

    # 5. a awaits the reply
    async def wait(self, message_id: str) -> None:
        waited = await self.clients["a"].messages.wait(message_id, wait=WAIT_TIMEOUT)
        self.add(
            "wait",
            terminal=waited.terminal,
            state=state_name(waited.message.state),
            reply_equal=waited.message.reply.content == REPLY,
        )

    # 6. a fans out to b and c, which handle it concurrently, and gathers
    async def fanout(self, inbox_b: Inbox) -> None:
        inbox_c, ready_c = await self.open_inbox("c", 0)
        both_received = asyncio.Barrier(2)

        async def handle(suffix: str, inbox: Inbox) -> Step:
            event = await inbox.next_message()
            message = event.message
            client = self.clients[suffix]
            acked = await client.messages.ack([message.id])
            try:
                # Both handlers hold their message before either replies: they run concurrently.
                await asyncio.wait_for(both_received.wait(), BARRIER_WAIT)
                concurrent = True
            except TimeoutError:
                concurrent = False
            replied = await client.messages.reply(message.id, fanout_reply(suffix))
            return {
                "content_equal": message.content == FANOUT,
                "ack_state": state_name(acked.messages[0].state),
                "reply_state": state_name(replied.message.state),
                "concurrent": concurrent,
            }

        handlers = asyncio.gather(handle("b", inbox_b), handle("c", inbox_c))
        try:
            gathered = await self.clients["a"].messages.fanout(
                [self.name("b"), self.name("c")],
                FANOUT,
                idempotency_key_prefix=FANOUT_KEY_PREFIX,
                wait=FANOUT_TIMEOUT,
            )
        except BaseException:
            handlers.cancel()
            await asyncio.gather(handlers, return_exceptions=True)
            raise
        handled_b, handled_c = await handlers
        targets = {self.name("b").lower(): "b", self.name("c").lower(): "c"}
        results = []
        for result in gathered.results:
            target = targets.get(result.target, "unexpected")
            results.append(
                {
                    "target": target,
                    "status": mpb.FanoutStatus.Name(result.status),
                    "state": state_name(result.message.state),
                    "reply_equal": result.message.reply.content == fanout_reply(target),
                }
            )
        self.add(
            "fanout",
            c_first_event=event_kind(ready_c),
            results=results,
            handler_b=handled_b,
            handler_c=handled_c,
        )

    # 7. GetMessage with an unknown id
    async def get_missing(self) -> None:
        try:
            await self.clients["a"].messages.get(MISSING_MESSAGE_ID)
        except HubError as error:
            self.add("get_missing", **error_facts(error))
        else:
            self.add("get_missing", code="OK", reason="", domain="")

    # 8. a acquires a lease, releases it, acquires it again; the first token is refused
    async def lease(self) -> None:
        a = self.clients["a"]
        name = self.name("lease")
        first = await a.leases.acquire(name, ttl=LEASE_TTL)
        released = await a.leases.release(name, first.lease.fencing_token)
        second = await a.leases.acquire(name, ttl=LEASE_TTL)
        first_token, second_token = first.lease.fencing_token, second.lease.fencing_token
        self.add(
            "lease",
            first_live=first.lease.live,
            first_renewed=first.renewed,
            released_token_equal=released.lease.fencing_token == first_token,
            second_renewed=second.renewed,
            token_grew=second_token > first_token,
        )
        current = await a.leases.check_fence(name, second_token)
        try:
            await a.leases.check_fence(name, first_token)
        except HubError as error:
            stale = error_facts(error)
        else:
            stale = {"code": "OK", "reason": "", "domain": ""}
        self.add(
            "fence",
            current_live=current.lease.live,
            current_token_equal=current.lease.fencing_token == second_token,
            stale=stale,
        )
        await a.leases.release(name, second_token)

    # 9. b's stream is dropped after seq N; a sends two more; b resumes after N
    async def resume(self, inbox_b: Inbox) -> None:
        cursor = inbox_b.seen
        await inbox_b.close()
        a = self.clients["a"]
        sent = [(await a.messages.send(self.name("b"), content)).message.id for content in RESUME]
        inbox, ready = await self.open_inbox("b", cursor)
        seqs: list[int] = []
        message_ids: list[str] = []
        contents: list[str] = []
        redelivered = False
        while not set(sent) <= set(message_ids):
            event = await inbox.next()
            seqs.append(event.seq)
            redelivered = redelivered or event.redelivered
            if event_kind(event) == "message":
                message_ids.append(event.message.id)
                contents.append(event.message.content)
        self.add(
            "resume",
            first_event=event_kind(ready),
            ready_after_seq_is_cursor=ready.ready.after_seq == cursor,
            first_seq_is_next=seqs[0] == cursor + 1,
            contiguous=seqs == list(range(cursor + 1, cursor + 1 + len(seqs))),
            duplicates=len(set(message_ids)) != len(message_ids),
            messages=len(message_ids),
            contents_in_order=contents == list(RESUME),
            redelivered=redelivered,
        )

    # 10. a and a new agent d exchange a request and its reply on channels (AgentService.OpenChannel)
    async def channel(self) -> None:
        d = HubClient(self.addr, token=self.token, timeout=DEADLINE)
        self.clients["d"] = d
        await d.agents.register(self.name("d"), purpose="conformance", model="python")
        a_channel = Channel(self.clients["a"])
        d_channel = Channel(d)
        try:
            d_channel.write(apb.OpenChannelRequest(subscribe=mpb.SubscribeRequest(after_seq=0)))
            d_ready = await d_channel.ready()
            a_ready = await a_channel.ready()
            first = await d_channel.event()
            send = apb.ChannelCommand(
                command_id="ch-send",
                send=mpb.SendMessageRequest(target=self.name("d"), content=CHANNEL_REQUEST, wait={"seconds": 10}),
            )
            a_channel.write(apb.OpenChannelRequest(commands=[send]))
            event = await d_channel.event()
            message = event.message
            d_channel.write(
                apb.OpenChannelRequest(
                    commands=[
                        apb.ChannelCommand(command_id="ch-ack", ack=mpb.AckMessagesRequest(message_ids=[message.id])),
                        apb.ChannelCommand(
                            command_id="ch-reply",
                            reply=mpb.ReplyToMessageRequest(message_id=message.id, content=CHANNEL_REPLY),
                        ),
                    ]
                )
            )
            acked, replied = await d_channel.result(), await d_channel.result()
            sent = await a_channel.result()
            a_channel.write(apb.OpenChannelRequest(commands=[send]))  # the same command again
            replay = await a_channel.result()
            missing = apb.ChannelCommand(command_id="ch-get", get=mpb.GetMessageRequest(message_id=MISSING_MESSAGE_ID))
            a_channel.write(apb.OpenChannelRequest(commands=[missing]))
            failed = await a_channel.result()
            a_end, d_end = await a_channel.end(), await d_channel.end()
        finally:
            a_channel.cancel()
            d_channel.cancel()
        self.add(
            "channel",
            a_ready=a_ready.agent.name == self.name("a"),
            d_ready=d_ready.agent.name == self.name("d"),
            max_commands_per_request=a_ready.max_commands_per_request,
            max_in_flight_positive=a_ready.max_in_flight > 0,
            d_first_event=event_kind(first),
            event=event_kind(event),
            content_equal=message.content == CHANNEL_REQUEST,
            from_a=message.from_agent_name == self.name("a"),
            seq_positive=event.seq > 0,
            ack_state=state_name(acked.ack.messages[0].state),
            reply_state=state_name(replied.reply.message.state),
            results_in_order=[acked.command_id, replied.command_id] == ["ch-ack", "ch-reply"],
            send_terminal=sent.send.terminal,
            send_reply_equal=sent.send.message.reply.content == CHANNEL_REPLY,
            send_key_is_command_id=sent.send.message.idempotency_key == "ch-send",
            send_replayed=sent.replayed,
            replayed=replay.replayed,
            replay_same_id=replay.send.message.id == sent.send.message.id,
            error={
                "code": grpc.StatusCode.NOT_FOUND.name if failed.error.code == 5 else str(failed.error.code),
                "reason": failed.error.reason,
            },
            a_end=a_end,
            d_end=d_end,
        )

    # 11. e's unacknowledged message comes again after the hub ended e's stream (a new key) and e resumed
    async def redeliver(self) -> None:
        e = HubClient(self.addr, token=self.token, timeout=DEADLINE)
        self.clients["e"] = e
        registered = await e.agents.register(self.name("e"), purpose="conformance", model="python")
        old, ready = await self.open_inbox("e", 0)
        await self.clients["a"].messages.send(self.name("e"), REDELIVER)
        first = (await old.next_message()).message
        resumed = await e.agents.register(
            self.name("e"), purpose="conformance", model="python", previous_key=registered.agent_key
        )
        end = await old.end()
        new, again = await self.open_inbox("e", old.seen)
        message = (await new.next_message()).message
        event_redelivered = new.last_redelivered
        acked = await e.messages.ack([message.id])
        await new.close()
        self.add(
            "redeliver",
            e_ready=event_kind(ready) == "ready",
            resumed=resumed.resumed,
            end_code=end["code"],
            end_reason=end["reason"],
            ready_after_seq_is_cursor=again.ready.after_seq == old.seen,
            redelivered=event_redelivered,
            same_id=message.id == first.id,
            content_equal=message.content == REDELIVER,
            ack_state=state_name(acked.messages[0].state),
        )

    # 12. a TLS connection that trusts only the test CA
    async def tls(self) -> None:
        ca = await asyncio.to_thread(Path(self.tls_ca).read_bytes)
        credentials = grpc.ssl_channel_credentials(root_certificates=ca)
        async with grpc.aio.secure_channel(self.tls_addr, credentials) as channel:
            stub = agent_service_pb2_grpc.AgentServiceStub(channel)
            identity = await stub.GetCallerIdentity(
                apb.GetCallerIdentityRequest(),
                metadata=(("authorization", f"Bearer {self.tls_token}"),),
                timeout=DEADLINE,
            )
        self.add("tls", credential_kind=apb.CredentialKind.Name(identity.credential_kind))

    # 13. every call of the contract sweep, through the generated types
    async def sweep(self) -> None:
        calls = json.loads(await asyncio.to_thread(Path(self.sweep_file).read_text))["calls"]
        async with grpc.aio.insecure_channel(self.addr) as channel:
            recorded = [await sweep_call(channel, call) for call in calls]
        self.add("sweep", calls=recorded)


class Channel:
    """One OpenChannel stream of an agent, on the raw generated stub (as the other languages use theirs).

    Its responses are read by a background task and taken apart into the channel's ``ready``, the
    inbox events and the command results, each read in order. Presence events are dropped: the
    project's other agents (the other programs' among them) come and go at any moment.
    """

    def __init__(self, client: HubClient) -> None:
        stub = agent_service_pb2_grpc.AgentServiceStub(client.channel)
        self.call = stub.OpenChannel(metadata=client.metadata)
        self.items: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.writes: list[asyncio.Task[None]] = []
        self.task = asyncio.create_task(self._pump())

    async def _pump(self) -> None:
        try:
            async for response in self.call:
                if response.HasField("ready"):
                    await self.items.put(("ready", response.ready))
                for event in response.events:
                    if event_kind(event) != "presence":
                        await self.items.put(("event", event))
                for result in response.results:
                    await self.items.put(("result", result))
            await self.items.put(("end", "OK"))
        except grpc.aio.AioRpcError as error:
            await self.items.put(("end", error.code().name))

    def write(self, request: apb.OpenChannelRequest) -> None:
        previous = self.writes[-1] if self.writes else None

        async def write() -> None:
            if previous is not None:
                await previous  # one write at a time, in order
            await self.call.write(request)

        self.writes.append(asyncio.create_task(write()))

    async def _next(self, kind: str) -> Any:
        try:
            got, item = await asyncio.wait_for(self.items.get(), EVENT_WAIT)
        except TimeoutError:
            raise StepFailed(f"no channel {kind} in time", {"error": "timeout"}) from None
        if got != kind:
            raise StepFailed(f"a channel {got} came before its {kind}", {"error": f"unexpected_{got}"})
        return item

    async def ready(self) -> apb.ChannelReady:
        return await self._next("ready")  # type: ignore[no-any-return]

    async def event(self) -> mpb.SubscribeResponse:
        return await self._next("event")  # type: ignore[no-any-return]

    async def result(self) -> apb.ChannelResult:
        return await self._next("result")  # type: ignore[no-any-return]

    async def end(self) -> str:
        """Close the sending side and wait for the hub to end the stream; its status code's name."""
        for write in self.writes:
            await write
        await self.call.done_writing()
        return await self._next("end")  # type: ignore[no-any-return]

    def cancel(self) -> None:
        self.call.cancel()
        self.task.cancel()


async def main() -> int:
    addr = os.environ.get("KXM_ADDR", "")
    token = os.environ.get("KXM_TOKEN", "")
    prefix = os.environ.get("KXM_NAME_PREFIX", "")
    tls = (os.environ.get("KXM_TLS_ADDR", ""), os.environ.get("KXM_TLS_CA", ""), os.environ.get("KXM_TLS_TOKEN", ""))
    sweep_file = os.environ.get("KXM_SWEEP", "")
    out: dict[str, Any] = {"language": "python", "ok": True, "steps": []}
    if not (addr and token and prefix and all(tls) and sweep_file):
        out.update(
            ok=False,
            error="set KXM_ADDR, KXM_TOKEN, KXM_NAME_PREFIX, KXM_TLS_ADDR, KXM_TLS_CA, KXM_TLS_TOKEN and KXM_SWEEP",
        )
    else:
        scenario = Scenario(addr, token, prefix, tls, sweep_file)
        try:
            await scenario.run()
        except StepFailed as failed:
            scenario.add("failed", **failed.facts)
            out.update(ok=False, error=str(failed))
        except HubError as error:
            scenario.add("failed", **error_facts(error))
            out.update(ok=False, error=f"{type(error).__name__}: {error.message}")
        finally:
            await scenario.close()
        out["steps"] = scenario.steps
    sys.stdout.write(json.dumps(out) + "\n")
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
