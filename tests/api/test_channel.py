"""AgentService.OpenChannel against a real hub: each command as its unary twin, replays by command id,
inbox events as Subscribe's, flow control, and the channel's own refusals."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import agent_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import agent_service_pb2_grpc, types_pb2
from kxm_grpc._gen.kxm.v1 import message_service_pb2 as mpb
from kxm_grpc._status import from_rpc_error, from_status_bytes
from kxm_grpc.client import HubClient
from kxm_grpc.client.channel import AgentChannel
from kxm_grpc.errors import (
    Aborted,
    HubError,
    InvalidArgument,
    PermissionDenied,
    Reason,
    ResourceExhausted,
    Unimplemented,
)
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project, ProjectFactory

REPLIED = types_pb2.MESSAGE_STATE_REPLIED


async def refusal(work: Awaitable[Any]) -> HubError:
    """The HubError ``work`` raised (the test fails if it raised none)."""
    try:
        await work
    except HubError as error:
        return error
    raise AssertionError("expected a HubError")


async def test_a_request_and_its_reply_ride_two_channels(make_agent: AgentFactory) -> None:
    """Send with a wait on one channel, receive and reply on the other: the sender gets the reply."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    async with alice.agents.open_channel() as a, bob.agents.open_channel(subscribe=True) as b:
        assert a.ready is not None and a.ready.agent.name == "alice"
        assert a.ready.max_in_flight > 0 and a.ready.max_commands_per_request == 100
        sending = asyncio.create_task(a.send("bob", "hello", wait=10))
        events = b.events()
        assert (await anext(events)).HasField("ready")
        event = await anext(events)
        assert event.message.content == "hello" and event.seq > 0
        acked = await b.ack([event.message.id])
        assert acked.messages[0].id == event.message.id
        replied = await b.reply(event.message.id, "hi")
        assert replied.message.state == REPLIED
        sent = await sending
        assert sent.terminal and sent.message.reply.content == "hi" and not sent.repeated
        assert (await a.get(event.message.id)).message.reply.content == "hi"


# -- the same rules as the unary twins ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    """One bad command, run once as the unary RPC and once on a channel."""

    name: str
    unary: Callable[[HubClient, str], Awaitable[Any]]
    channel: Callable[[AgentChannel, str], Awaitable[Any]]
    """Both get the client (channel) and the id of a message alice sent bob."""


CASES = [
    Case("send to oneself", lambda c, _: c.messages.send("alice", "x"), lambda c, _: c.send("alice", "x")),
    Case("send to nobody", lambda c, _: c.messages.send("nobody", "x"), lambda c, _: c.send("nobody", "x")),
    Case("empty content", lambda c, _: c.messages.send("bob", " "), lambda c, _: c.send("bob", " ")),
    Case("hop limit", lambda c, _: c.messages.send("bob", "x", hops=5), lambda c, _: c.send("bob", "x", hops=5)),
    Case(
        "wait and reply_wait differ",
        lambda c, _: c._call(
            c.messages._rpc().SendMessage,
            mpb.SendMessageRequest(target="bob", content="x", wait={"seconds": 1}, reply_wait={"seconds": 2}),
        ),
        lambda c, _: c._command(
            "send",
            mpb.SendMessageRequest(target="bob", content="x", wait={"seconds": 1}, reply_wait={"seconds": 2}),
            "",
        ),
    ),
    Case("reply to one's own", lambda c, m: c.messages.reply(m, "x"), lambda c, m: c.reply(m, "x")),
    Case("reply to nothing", lambda c, _: c.messages.reply("msg_nope", "x"), lambda c, _: c.reply("msg_nope", "x")),
    Case("ack nothing", lambda c, _: c.messages.ack([]), lambda c, _: c.ack([])),
    Case("ack another's", lambda c, m: c.messages.ack([m]), lambda c, m: c.ack([m])),
    Case("cancel nothing", lambda c, _: c.messages.cancel("msg_nope"), lambda c, _: c.cancel("msg_nope")),
    Case("wait negative", lambda c, m: c.messages.wait(m, wait=-1), lambda c, m: c.wait(m, wait=-1)),
    Case("get empty id", lambda c, _: c.messages.get(""), lambda c, _: c.get("")),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_a_bad_command_is_refused_as_its_unary_twin(make_agent: AgentFactory, case: Case) -> None:
    """Code, reason, metadata and field violations are the twin's; the channel stays open."""
    alice = await make_agent("alice")
    await make_agent("bob")
    message_id = (await alice.messages.send("bob", "open")).message.id
    unary = await refusal(case.unary(alice, message_id))
    async with alice.agents.open_channel() as channel:
        channelled = await refusal(case.channel(channel, message_id))
        assert (await channel.get(message_id)).message.id == message_id  # still open
    assert type(channelled) is type(unary)
    assert (channelled.reason, channelled.metadata, channelled.field_violations) == (
        unary.reason,
        unary.metadata,
        unary.field_violations,
    )
    assert channelled.message == unary.message


async def test_every_command_is_confined_to_the_callers_project(
    make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    """A message of another project is NOT_FOUND for every command, as for the unary RPCs."""
    beta = await make_project("beta")
    carol = await make_agent("carol", in_project=beta)
    await make_agent("dave", in_project=beta)
    foreign = (await carol.messages.send("dave", "private")).message.id
    alice = await make_agent("alice")
    async with alice.agents.open_channel() as channel:
        for work in (
            channel.get(foreign),
            channel.reply(foreign, "x"),
            channel.cancel(foreign),
            channel.ack([foreign]),
            channel.wait(foreign, wait=0.1),
        ):
            error = await refusal(work)
            assert error.status == "NOT_FOUND" and error.reason == Reason.MESSAGE_NOT_FOUND
        error = await refusal(channel.send("dave", "x"))
        assert error.reason == Reason.TARGET_NOT_FOUND


async def test_a_caller_without_an_agent_identity_cannot_open_a_channel(hub: Hub, project: Project) -> None:
    async with HubClient(hub.address, token=project.token) as client:
        error = await refusal(client.agents.open_channel().open())
    assert isinstance(error, PermissionDenied) and error.reason == Reason.CREDENTIAL_KIND_DENIED


# -- command ids ---------------------------------------------------------------------------------


async def test_a_command_replayed_is_applied_once_and_answered_with_its_first_result(make_agent: AgentFactory) -> None:
    """The same command id, on the same channel and on a later one: one message, the first answer."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    async with alice.agents.open_channel() as channel:
        first = await channel.send("bob", "once", command_id="cmd-1")
        again = await channel.send("bob", "once", command_id="cmd-1")
    async with alice.agents.open_channel() as later:
        third = await later.send("bob", "once", command_id="cmd-1")
        conflict = await refusal(later.send("bob", "other", command_id="cmd-1"))
    assert first.message.id == again.message.id == third.message.id
    assert first.message.idempotency_key == "cmd-1"  # keyed by its command id: applied once after a restart too
    assert isinstance(conflict, Aborted) and conflict.reason == Reason.IDEMPOTENCY_CONFLICT
    assert conflict.metadata["commandId"] == "cmd-1"
    inbox = (await bob.messages.list_inbox()).messages
    assert [m.content for m in inbox] == ["once"]


async def test_a_replay_is_marked_replayed_on_the_wire(hub: Hub, make_agent: AgentFactory) -> None:
    """The raw stream: two commands with one id in one request get one result each, the second replayed."""
    alice = await make_agent("alice")
    await make_agent("bob")
    command = pb.ChannelCommand(command_id="dup", send=mpb.SendMessageRequest(target="bob", content="x"))
    async with grpc.aio.insecure_channel(hub.address) as channel:
        stub = agent_service_pb2_grpc.AgentServiceStub(channel)
        call = stub.OpenChannel(iter([pb.OpenChannelRequest(commands=[command, command])]), metadata=alice.metadata)
        results = [result async for response in call for result in response.results]
    assert [(r.command_id, r.replayed, r.WhichOneof("result")) for r in results] == [
        ("dup", False, "send"),
        ("dup", True, "send"),
    ]
    assert results[0].send.message.id == results[1].send.message.id


async def test_a_failed_command_is_not_remembered(make_agent: AgentFactory) -> None:
    """Nothing of a failed command was applied: the same id runs again, and succeeds once it can."""
    alice = await make_agent("alice")
    async with alice.agents.open_channel() as channel:
        error = await refusal(channel.send("bob", "x", command_id="later"))
        assert error.reason == Reason.TARGET_NOT_FOUND
        await make_agent("bob")
        sent = await channel.send("bob", "x", command_id="later")
    assert sent.message.to_agent_name == "bob"


async def test_a_command_without_an_id_or_a_command_is_refused_naming_the_field(
    hub: Hub, make_agent: AgentFactory
) -> None:
    alice = await make_agent("alice")
    requests = [
        pb.OpenChannelRequest(commands=[pb.ChannelCommand(get=mpb.GetMessageRequest(message_id="m"))]),
        pb.OpenChannelRequest(commands=[pb.ChannelCommand(command_id="x" * 129, get=mpb.GetMessageRequest())]),
        pb.OpenChannelRequest(commands=[pb.ChannelCommand(command_id="empty")]),
    ]
    async with grpc.aio.insecure_channel(hub.address) as channel:
        stub = agent_service_pb2_grpc.AgentServiceStub(channel)
        call = stub.OpenChannel(iter(requests), metadata=alice.metadata)
        results = [result async for response in call for result in response.results]
    for result in results:
        assert result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert result.error.reason == str(Reason.PROTOCOL_ERROR)
    violations = [from_status_bytes(result.error.status).field_violations[0].field for result in results]
    assert violations == ["command_id", "command_id", "command"]


async def test_more_than_100_commands_in_a_request_end_the_channel(hub: Hub, make_agent: AgentFactory) -> None:
    alice = await make_agent("alice")
    commands = [pb.ChannelCommand(command_id=f"c{i}", get=mpb.GetMessageRequest(message_id="m")) for i in range(101)]
    async with grpc.aio.insecure_channel(hub.address) as channel:
        stub = agent_service_pb2_grpc.AgentServiceStub(channel)
        # Written one by one, the client's side left open: closing it could race the hub's end, which
        # grpc's client turns into its own INTERNAL (grpc/grpc#36066).
        call = stub.OpenChannel(metadata=alice.metadata)
        await call.write(pb.OpenChannelRequest(commands=commands))
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            async for _ in call:
                pass
    error = from_rpc_error(raised.value)
    assert isinstance(error, InvalidArgument) and error.field_violations[0].field == "commands"


async def test_subscribing_twice_ends_the_channel(hub: Hub, make_agent: AgentFactory) -> None:
    alice = await make_agent("alice")
    subscribe = pb.OpenChannelRequest(subscribe=mpb.SubscribeRequest())
    async with grpc.aio.insecure_channel(hub.address) as channel:
        stub = agent_service_pb2_grpc.AgentServiceStub(channel)
        call = stub.OpenChannel(metadata=alice.metadata)
        await call.write(subscribe)
        await call.write(subscribe)
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            async for _ in call:
                pass
    error = from_rpc_error(raised.value)
    assert isinstance(error, InvalidArgument) and error.field_violations[0].field == "subscribe"


# -- order, events, resume -----------------------------------------------------------------------


async def test_commands_are_applied_in_the_order_they_are_sent(make_agent: AgentFactory) -> None:
    """Fifty sends issued at once reach the recipient in the order they were called."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    async with alice.agents.open_channel() as channel:
        await asyncio.gather(*(channel.send("bob", f"m{i}") for i in range(50)))
    inbox = (await bob.messages.list_inbox(page_size=100)).messages
    assert [m.content for m in inbox] == [f"m{i}" for i in range(50)]
    assert [m.seq for m in inbox] == sorted(m.seq for m in inbox)


async def test_the_inbox_resumes_after_a_seq_with_no_gap(make_agent: AgentFactory) -> None:
    """A channel opened after seq N streams exactly the events after N (acknowledged ones skipped)."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    for i in range(6):
        await alice.messages.send("bob", f"m{i}")
    async with bob.agents.open_channel(subscribe=True) as channel:
        events = channel.events()
        assert (await anext(events)).HasField("ready")
        first = [await anext(events) for _ in range(3)]
        await channel.ack([e.message.id for e in first])
    after = first[-1].seq
    async with bob.agents.open_channel(subscribe=True, after_seq=after) as channel:
        events = channel.events()
        ready = await anext(events)
        assert ready.ready.after_seq == after
        rest = [await anext(events) for _ in range(3)]
    assert [e.message.content for e in first + rest] == [f"m{i}" for i in range(6)]
    assert all(e.seq > after for e in rest)


async def test_a_revoked_key_ends_the_channel(make_agent: AgentFactory) -> None:
    """Unregistering revokes the key: the channel's next command is UNAUTHENTICATED and the channel ends."""
    alice = await make_agent("alice")
    await make_agent("bob")
    # Reconnecting (the default): a command written as the hub ends the stream may see grpc's own
    # INTERNAL (grpc/grpc#36066); the new stream's admission then says what holds.
    channel = await alice.agents.open_channel(initial_backoff=0.01, max_backoff=0.05).open()
    try:
        await channel.send("bob", "before")
        await alice.agents.unregister()
        error = await refusal(channel.send("bob", "after"))
        assert error.status == "UNAUTHENTICATED"
        assert (await refusal(asyncio.wait_for(channel.get("msg_x"), 10))).status == "UNAUTHENTICATED"
        assert channel.failed
    finally:
        await channel.close()


# -- limits --------------------------------------------------------------------------------------


async def _hub(tmp_path: Path, **overrides: Any) -> HubServer:
    settings = Settings(
        **{"port": 0, **overrides},
        data_dir=tmp_path / "kxm",
        database="",
        admin_token=ADMIN_TOKEN,
        shutdown_grace=0.5,
    )
    server = HubServer(settings)
    await server.start()
    return server


async def _agents(server: HubServer, *names: str) -> list[HubClient]:
    async with HubClient(server.address, token=ADMIN_TOKEN) as admin:
        token = (await admin.admin.create_project("alpha")).project_token
    clients = []
    for name in names:
        client = HubClient(server.address, token=token)
        await client.agents.register(name)
        clients.append(client)
    return clients


@pytest.mark.parametrize("backend", [""], ids=["sqlite"])
async def test_each_command_pays_its_twins_rate_limit(tmp_path: Path, backend: str) -> None:
    """A command past the caller's budget is RESOURCE_EXHAUSTED (RATE_LIMITED) with a retry delay; the
    channel stays open for the commands after it."""
    server = await _hub(tmp_path, rate_limit=12, rate_window=60.0)
    alice, bob = await _agents(server, "alice", "bob")
    try:
        async with alice.agents.open_channel() as channel:
            outcomes = await asyncio.gather(*(channel.send("bob", f"m{i}") for i in range(20)), return_exceptions=True)
            limited = [o for o in outcomes if isinstance(o, ResourceExhausted)]
            assert limited and all(o.reason == Reason.RATE_LIMITED and o.retry_after for o in limited)
            assert len(limited) < 20
    finally:
        for client in (alice, bob):
            await client.close()
        await server.stop()


@pytest.mark.parametrize("backend", [""], ids=["sqlite"])
async def test_a_slow_reader_is_cut_off_without_slowing_another(tmp_path: Path, backend: str) -> None:
    """A channel that stops reading its inbox ends with SUBSCRIBER_TOO_SLOW; another agent's channel
    goes on receiving meanwhile."""
    server = await _hub(tmp_path, subscriber_queue=8)
    alice, bob, carol = await _agents(server, "alice", "bob", "carol")
    try:
        stub = agent_service_pb2_grpc.AgentServiceStub(bob.channel)
        slow = stub.OpenChannel(metadata=bob.metadata)
        await slow.write(pb.OpenChannelRequest(subscribe=mpb.SubscribeRequest()))
        assert (await slow.read()).HasField("ready")  # then bob reads nothing
        async with carol.agents.open_channel(subscribe=True) as fast:
            events = fast.events()
            await anext(events)
            big = "x" * 30_000
            for i in range(300):
                await alice.messages.send("bob", big)
                if i % 30 == 0:
                    await alice.messages.send("carol", f"c{i}")
                    assert (await asyncio.wait_for(anext(events), 10)).message.content == f"c{i}"
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            while await asyncio.wait_for(slow.read(), 20) is not grpc.aio.EOF:
                pass
            pytest.fail("the slow channel ended OK")
        error = from_rpc_error(raised.value)
        assert error.reason == Reason.SUBSCRIBER_TOO_SLOW
    finally:
        for client in (alice, bob, carol):
            await client.close()
        await server.stop()


@pytest.mark.parametrize("backend", [""], ids=["sqlite"])
async def test_unanswered_commands_are_replayed_on_a_new_stream_after_a_restart(tmp_path: Path, backend: str) -> None:
    """The hub stops with commands unanswered (a wait in flight); the client's channel opens again on
    the restarted hub, replays them under the same ids, and each is answered once."""
    server = await _hub(tmp_path)
    alice, bob = await _agents(server, "alice", "bob")
    port = int(server.address.rsplit(":", 1)[1])
    channel = await alice.agents.open_channel(initial_backoff=0.05, max_backoff=0.2).open()
    try:
        sent = await channel.send("bob", "before", command_id="first")
        waiting = asyncio.create_task(channel.wait(sent.message.id, wait=30, command_id="waiting"))
        await asyncio.sleep(0.2)
        await server.stop()
        server = await _hub(tmp_path, port=port)
        again = await asyncio.wait_for(channel.send("bob", "before", command_id="first"), 20)
        assert again.message.id == sent.message.id and again.repeated  # keyed by its command id
        await bob.messages.reply(sent.message.id, "done")
        waited = await asyncio.wait_for(waiting, 20)
        assert waited.terminal and waited.message.reply.content == "done"
        assert channel.reconnects >= 1
    finally:
        await channel.close()
        for client in (alice, bob):
            await client.close()
        await server.stop()


# -- HubClient(agent_channel=True) -----------------------------------------------------------------


async def test_a_client_can_ride_its_agent_channel(hub: Hub, project: Project) -> None:
    """The messaging calls of ``hub.messages`` on one channel: the same responses, one stream."""
    async with (
        HubClient(hub.address, token=project.token, agent_channel=True) as alice,
        HubClient(hub.address, token=project.token, agent_channel=True) as bob,
    ):
        await alice.agents.register("alice")
        await bob.agents.register("bob")
        sending = asyncio.create_task(alice.messages.send("bob", "hello", wait=10))
        inbox = bob.messages.subscribe()
        assert (await anext(inbox)).HasField("ready")
        event = await anext(inbox)
        await inbox.aclose()
        assert (await bob.messages.ack([event.message.id])).messages[0].id == event.message.id
        assert (await bob.messages.reply(event.message.id, "hi")).message.state == REPLIED
        sent = await sending
        assert sent.terminal and sent.message.reply.content == "hi"
        assert (await alice.messages.get(sent.message.id)).message.reply.content == "hi"
        assert (await alice.messages.wait(sent.message.id, wait=1)).terminal
        later = await alice.messages.send("bob", "later")
        assert later.message.idempotency_key  # keyed by its command id
        assert (await alice.messages.cancel(later.message.id)).message.state == types_pb2.MESSAGE_STATE_CANCELLED
        assert alice._commands is not None and bob._commands is not None  # both rode their channel
        assert alice._commands.reconnects == 0


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_a_client_on_its_agent_channel_is_refused_as_on_unary_calls(
    hub: Hub, project: Project, make_agent: AgentFactory, case: Case
) -> None:
    """The same table: each bad call through ``HubClient(agent_channel=True)`` raises what the unary one does."""
    alice = await make_agent("alice")
    await make_agent("bob")
    message_id = (await alice.messages.send("bob", "open")).message.id
    unary = await refusal(case.unary(alice, message_id))
    async with HubClient(
        hub.address, token=project.token, agent_id=alice.agent_id, agent_key=alice.agent_key, agent_channel=True
    ) as riding:
        channelled = await refusal(case.unary(riding, message_id))
        if case.name != "wait and reply_wait differ":  # that case calls the raw RPC
            assert riding._commands is not None
    assert type(channelled) is type(unary)
    assert (channelled.reason, channelled.metadata, channelled.field_violations, channelled.message) == (
        unary.reason,
        unary.metadata,
        unary.field_violations,
        unary.message,
    )


async def test_a_client_falls_back_to_unary_calls_on_a_hub_without_channels(
    make_agent: AgentFactory, hub: Hub, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub answering OpenChannel UNIMPLEMENTED (an older hub): every command goes unary, and the
    channel is not tried again."""
    attempts = 0

    async def unimplemented(self: AgentChannel) -> AgentChannel:
        nonlocal attempts
        attempts += 1
        raise Unimplemented("unknown method OpenChannel")

    monkeypatch.setattr(AgentChannel, "open", unimplemented)
    await make_agent("bob")
    async with HubClient(hub.address, token=project.token, agent_channel=True) as alice:
        await alice.agents.register("alice")
        sent = await alice.messages.send("bob", "unary")
        assert (await alice.messages.get(sent.message.id)).message.content == "unary"
    assert attempts == 1 and alice._commands is None


async def test_a_client_opens_a_new_channel_when_its_credentials_change(hub: Hub, project: Project) -> None:
    """``use_agent`` to another agent: the next command rides a channel opened as that agent."""
    async with HubClient(hub.address, token=project.token, agent_channel=True) as client:
        first = await client.agents.register("first")
        async with HubClient(hub.address, token=project.token) as target:
            await target.agents.register("target")
        sent = await client.messages.send("target", "as first")
        assert sent.message.from_agent_name == "first"
        channel = client._commands
        second = await client.agents.register("second")
        assert second.agent.id != first.agent.id
        sent = await client.messages.send("target", "as second")
        assert sent.message.from_agent_name == "second"
        assert client._commands is not None and client._commands is not channel and channel is not None
        assert channel.failed  # the first one was closed


@pytest.mark.parametrize("backend", [""], ids=["sqlite"])
async def test_a_stopping_hub_ends_every_channel_with_unavailable(tmp_path: Path, backend: str) -> None:
    """Subscribed or not, an open channel ends with UNAVAILABLE (SHUTTING_DOWN) when its hub stops."""
    server = await _hub(tmp_path)
    alice, bob = await _agents(server, "alice", "bob")
    try:
        stub = agent_service_pb2_grpc.AgentServiceStub(alice.channel)
        plain = stub.OpenChannel(metadata=alice.metadata)
        assert (await plain.read()).HasField("ready")
        subscribed = agent_service_pb2_grpc.AgentServiceStub(bob.channel).OpenChannel(metadata=bob.metadata)
        assert (await subscribed.read()).HasField("ready")
        await subscribed.write(pb.OpenChannelRequest(subscribe=mpb.SubscribeRequest()))
        assert (await subscribed.read()).events[0].HasField("ready")
        stopping = asyncio.create_task(server.stop())
        for call in (plain, subscribed):
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                while await asyncio.wait_for(call.read(), 10) is not grpc.aio.EOF:
                    pass
                pytest.fail("the channel ended OK")
            error = from_rpc_error(raised.value)
            assert error.status == "UNAVAILABLE" and error.reason == Reason.SHUTTING_DOWN, error
        await stopping
    finally:
        for client in (alice, bob):
            await client.close()
        await server.stop()


# -- what a channel must survive (the review of issue 18) ------------------------------------------


async def test_a_command_cut_off_with_its_channel_is_answered_when_replayed(hub: Hub, make_agent: AgentFactory) -> None:
    """A wait whose channel is dropped (the hub stays up) is run again by its replay on a new channel."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = await alice.messages.send("bob", "x")
    wait = pb.ChannelCommand(
        command_id="w1", wait=mpb.WaitMessageRequest(message_id=sent.message.id, wait={"seconds": 30})
    )
    stub = agent_service_pb2_grpc.AgentServiceStub(alice.channel)
    dropped = stub.OpenChannel(metadata=alice.metadata)
    assert (await dropped.read()).HasField("ready")
    await dropped.write(pb.OpenChannelRequest(commands=[wait]))
    await asyncio.sleep(0.3)
    dropped.cancel()
    await asyncio.sleep(0.2)
    await bob.messages.reply(sent.message.id, "done")
    async with alice.agents.open_channel() as channel:
        waited = await asyncio.wait_for(channel._command("wait", wait.wait, "w1"), 10)
    assert waited.wait.terminal and waited.wait.message.reply.content == "done"


async def test_waits_hold_no_slot_of_the_commands_after_them(make_agent: AgentFactory) -> None:
    """300 open waits (more than max_in_flight) do not hold back a get behind them."""
    alice = await make_agent("alice")
    await make_agent("bob")
    sent = await alice.messages.send("bob", "x")
    async with alice.agents.open_channel() as channel:
        assert channel.ready is not None and channel.ready.max_in_flight < 300
        waits = [asyncio.create_task(channel.wait(sent.message.id, wait=20)) for _ in range(300)]
        await asyncio.sleep(0)
        started = time.monotonic()
        got = await asyncio.wait_for(channel.get(sent.message.id), 10)
        assert got.message.id == sent.message.id and time.monotonic() - started < 5
        for task in waits:
            task.cancel()


async def test_large_commands_and_events_are_split_across_stream_messages(make_agent: AgentFactory) -> None:
    """Ten sends of 32,000 characters of three UTF-8 bytes each, at once, then their events on a
    subscribed channel: every request and response stays under gRPC's limits."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    big = "界" * 31_990
    async with alice.agents.open_channel() as channel:
        sent = await asyncio.wait_for(asyncio.gather(*(channel.send("bob", big + str(i)) for i in range(10))), 30)
        assert len({s.message.id for s in sent}) == 10 and channel.reconnects == 0
    async with bob.agents.open_channel(subscribe=True) as inbox:
        events = inbox.events()
        assert (await anext(events)).HasField("ready")
        contents = [(await asyncio.wait_for(anext(events), 10)).message.content for _ in range(10)]
        assert contents == [big + str(i) for i in range(10)] and inbox.reconnects == 0


async def test_a_backlog_larger_than_the_client_reads_at_once_still_flows(make_agent: AgentFactory) -> None:
    """1,300 queued messages, each acknowledged on the channel before the next event is taken."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    async with alice.agents.open_channel() as sender:
        for start in range(0, 1_300, 100):
            await asyncio.gather(*(sender.send("bob", f"m{i}") for i in range(start, start + 100)))
    acked = 0
    async with bob.agents.open_channel(subscribe=True) as inbox:
        async for event in inbox.events():
            if event.HasField("message"):
                await asyncio.wait_for(inbox.ack([event.message.id]), 10)
                acked += 1
                if acked == 1_300:
                    break
    assert acked == 1_300


async def test_the_same_command_twice_at_once_on_the_client_gets_one_answer_for_both(make_agent: AgentFactory) -> None:
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    async with alice.agents.open_channel() as channel:
        first, second = await asyncio.wait_for(
            asyncio.gather(channel.send("bob", "once", command_id="c1"), channel.send("bob", "once", command_id="c1")),
            10,
        )
    assert first.message.id == second.message.id
    assert [m.content for m in (await bob.messages.list_inbox()).messages] == ["once"]
    async with alice.agents.open_channel() as channel:
        waiting = asyncio.create_task(channel.wait(first.message.id, wait=5, command_id="w"))
        await asyncio.sleep(0)
        conflict = await refusal(channel.get(first.message.id, command_id="w"))  # another command, same id
        assert isinstance(conflict, Aborted) and conflict.reason == Reason.IDEMPOTENCY_CONFLICT
        waiting.cancel()


@pytest.mark.parametrize("backend", [""], ids=["sqlite"])
async def test_an_agent_has_at_most_its_stream_limit_of_channels(tmp_path: Path, backend: str) -> None:
    """Subscribed or not, channels count against max_streams_per_agent: the next is STREAM_LIMIT_REACHED."""
    server = await _hub(tmp_path, max_streams_per_agent=2)
    (alice,) = await _agents(server, "alice")
    try:
        first = await alice.agents.open_channel().open()
        second = await alice.agents.open_channel().open()
        error = await refusal(alice.agents.open_channel().open())
        assert isinstance(error, ResourceExhausted) and error.reason == Reason.STREAM_LIMIT_REACHED
        await first.close()
        await asyncio.sleep(0.2)
        third = await alice.agents.open_channel().open()  # a slot came free
        await second.close()
        await third.close()
    finally:
        await alice.close()
        await server.stop()


@pytest.mark.parametrize("backend", [""], ids=["sqlite"])
async def test_a_replayed_command_pays_its_rate_limit_too(tmp_path: Path, backend: str) -> None:
    """The same command id over and over is admitted each time: past the budget, RATE_LIMITED."""
    server = await _hub(tmp_path, rate_limit=12, rate_window=60.0)
    alice, bob = await _agents(server, "alice", "bob")
    try:
        async with alice.agents.open_channel() as channel:
            sent = await channel.send("bob", "x", command_id="s1")
            outcomes = []
            for _ in range(20):
                try:
                    outcomes.append((await channel.send("bob", "x", command_id="s1")).message.id)
                except ResourceExhausted as error:
                    outcomes.append(str(error.reason))
        assert sent.message.id in outcomes and str(Reason.RATE_LIMITED) in outcomes
    finally:
        for client in (alice, bob):
            await client.close()
        await server.stop()
