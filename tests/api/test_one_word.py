"""One word per concept on the wire (docs/api.md, "Conventions"): ``wait`` is how long to wait in every
RPC, the first names (``reply_wait``, ``timeout``) still accepted; presence's window ends at
``presence_expire_time``, its deprecated name ``lease_expire_time`` still filled."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf.duration_pb2 import Duration

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc
from kxm_grpc.client import HubClient
from kxm_grpc.errors import InvalidArgument, Reason
from tests.conftest import AgentFactory, Hub, Project


def _messages(client: HubClient) -> Any:
    return client._stub(message_service_pb2_grpc.MessageServiceStub)


async def _send(client: HubClient, **fields: Any) -> Any:
    request = pb.SendMessageRequest(target="bob", content="q", **fields)
    return await client._call(_messages(client).SendMessage, request)


async def test_a_wait_and_its_old_name_must_agree(make_agent: AgentFactory) -> None:
    """``wait`` and its deprecated name set to different values are INVALID_ARGUMENT naming both, and nothing
    is sent; set to the same value, or the old name alone, the request is served as before."""
    # Prepare
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    short, other = Duration(nanos=100_000_000), Duration(nanos=200_000_000)

    # Execute
    with pytest.raises(InvalidArgument) as send_conflict:
        await _send(alice, wait=short, reply_wait=other)
    inbox_after_conflict = (await bob.messages.list_inbox()).messages
    agreeing = await _send(alice, wait=short, reply_wait=short)
    old_name = await _send(alice, reply_wait=short)
    wait_request = pb.WaitMessageRequest(message_id=agreeing.message.id, wait=short, timeout=other)
    with pytest.raises(InvalidArgument) as wait_conflict:
        await alice._call(_messages(alice).WaitMessage, wait_request)
    waited = await alice._call(
        _messages(alice).WaitMessage, pb.WaitMessageRequest(message_id=agreeing.message.id, timeout=short)
    )
    fanout_request = pb.FanoutMessagesRequest(targets=["bob"], content="q", wait=short, timeout=other)
    with pytest.raises(InvalidArgument) as fanout_conflict:
        await alice._call(_messages(alice).FanoutMessages, fanout_request)

    # Assert
    assert send_conflict.value.reason is Reason.PROTOCOL_ERROR
    assert [v.field for v in send_conflict.value.field_violations] == ["wait", "reply_wait"]
    assert [v.field for v in wait_conflict.value.field_violations] == ["wait", "timeout"]
    assert [v.field for v in fanout_conflict.value.field_violations] == ["wait", "timeout"]
    assert inbox_after_conflict == []
    assert (agreeing.terminal, old_name.terminal, waited.terminal) == (False, False, False)
    assert len((await bob.messages.list_inbox()).messages) == 2


async def test_the_client_sends_the_new_field_names(make_agent: AgentFactory) -> None:
    """The Python client's ``wait=`` travels as ``wait``: a negative one is refused naming ``wait``."""
    # Prepare
    alice = await make_agent("alice")
    await make_agent("bob")
    sent = (await alice.messages.send("bob", "q")).message

    # Execute
    errors = {}
    for name, call in {
        "send": alice.messages.send("bob", "q", wait=-1),
        "wait": alice.messages.wait(sent.id, wait=-1),
        "fanout": alice.messages.fanout(["bob"], "q", wait=-1),
    }.items():
        with pytest.raises(InvalidArgument) as caught:
            await call
        errors[name] = caught.value.metadata["field"]

    # Assert
    assert errors == {"send": "wait", "wait": "wait", "fanout": "wait"}


async def test_presence_expire_time_is_filled_beside_its_old_name(hub: Hub, project: Project) -> None:
    """Agents and runtimes carry ``presence_expire_time`` (last seen + stale-after), and the deprecated
    ``lease_expire_time`` with the same value; a runtime that never heartbeated has neither."""
    # Prepare
    agent = HubClient(hub.address, token=project.token)
    runtime = HubClient(hub.address, token=project.token)
    try:
        # Execute
        registered = (await agent.agents.register("alice")).agent
        fresh = (await runtime.runtimes.register("rtm_0123456789ab", adopt=True)).runtime
        beat = (await runtime.runtimes.heartbeat()).runtime
    finally:
        await agent.close()
        await runtime.close()

    # Assert
    assert registered.presence_expire_time == registered.lease_expire_time
    assert registered.presence_expire_time.ToMicroseconds() - registered.last_seen_time.ToMicroseconds() == 30_000_000
    assert not fresh.HasField("presence_expire_time") and not fresh.HasField("lease_expire_time")
    assert beat.presence_expire_time == beat.lease_expire_time
    assert beat.presence_expire_time.ToMicroseconds() - beat.heartbeat_time.ToMicroseconds() == 30_000_000
