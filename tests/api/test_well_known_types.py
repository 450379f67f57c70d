"""Malformed google.protobuf Durations and Timestamps are refused, never folded into another value.

``Duration(seconds=5, nanos=2_000_000_000)`` is not a 7 s Duration: its nanos are out of range, so
a client that sent it is broken (and a lease TTL below the minimum could slip through this way).
Every Duration and Timestamp that comes in is checked, is INVALID_ARGUMENT naming the field, and
leaves nothing written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from google.protobuf import duration_pb2, timestamp_pb2

from kxm_grpc._gen.kxm.v1 import lease_service_pb2 as leases_pb
from kxm_grpc._gen.kxm.v1 import lease_service_pb2_grpc, message_service_pb2_grpc
from kxm_grpc._gen.kxm.v1 import message_service_pb2 as messages_pb
from kxm_grpc.client import HubClient
from kxm_grpc.errors import InvalidArgument, NotFound, Reason
from kxm_grpc.server.convert import check_duration, check_timestamp
from tests.api.test_runtimes import sync_event
from tests.conftest import AgentFactory, Hub, Project

Duration = duration_pb2.Duration
MALFORMED_DURATIONS = [
    pytest.param(Duration(seconds=5, nanos=2_000_000_000), id="nanos-above-range"),
    pytest.param(Duration(seconds=10, nanos=-2_000_000_000), id="nanos-below-range"),
    pytest.param(Duration(seconds=6, nanos=-500_000_000), id="mixed-signs"),
    pytest.param(Duration(seconds=315_576_000_001), id="seconds-above-range"),
]


@pytest.mark.parametrize("value", MALFORMED_DURATIONS)
def test_check_duration_refuses_values_outside_the_definition(value: Duration) -> None:
    """The four ways a Duration can break its definition each name the field."""
    with pytest.raises(InvalidArgument) as caught:
        check_duration("ttl", value)

    assert caught.value.metadata["field"] == "ttl"
    assert caught.value.field_violations[0].field == "ttl"


@pytest.mark.parametrize(
    "value",
    [
        Duration(seconds=0, nanos=999_999_999),
        Duration(seconds=-3, nanos=-999_999_999),
        Duration(seconds=315_576_000_000),
        Duration(),
    ],
)
def test_check_duration_accepts_the_edges_of_the_range(value: Duration) -> None:
    """The extreme values the definition allows pass."""
    check_duration("ttl", value)


@pytest.mark.parametrize(
    "value",
    [
        timestamp_pb2.Timestamp(seconds=1, nanos=1_000_000_000),
        timestamp_pb2.Timestamp(seconds=1, nanos=-1),
        timestamp_pb2.Timestamp(seconds=253_402_300_800),
        timestamp_pb2.Timestamp(seconds=-62_135_596_801),
    ],
)
def test_check_timestamp_refuses_values_outside_the_definition(value: timestamp_pb2.Timestamp) -> None:
    """Nanos outside 0..999,999,999 or a time outside years 1–9999 is refused, naming the field."""
    with pytest.raises(InvalidArgument) as caught:
        check_timestamp("events[0].occur_time", value)

    assert caught.value.metadata["field"] == "events[0].occur_time"


Call = Callable[[HubClient, Duration], Awaitable[Any]]


def _leases(client: HubClient) -> Any:
    return client._stub(lease_service_pb2_grpc.LeaseServiceStub)


def _messages(client: HubClient) -> Any:
    return client._stub(message_service_pb2_grpc.MessageServiceStub)


async def _acquire_ttl(client: HubClient, value: Duration) -> Any:
    return await client._call(_leases(client).AcquireLease, leases_pb.AcquireLeaseRequest(name="build", ttl=value))


async def _acquire_wait(client: HubClient, value: Duration) -> Any:
    request = leases_pb.AcquireLeaseRequest(name="build", ttl=Duration(seconds=30), wait=value)
    return await client._call(_leases(client).AcquireLease, request)


async def _send_ttl(client: HubClient, value: Duration) -> Any:
    request = messages_pb.SendMessageRequest(target="bob", content="hi", ttl=value)
    return await client._call(_messages(client).SendMessage, request)


async def _send_reply_wait(client: HubClient, value: Duration) -> Any:
    request = messages_pb.SendMessageRequest(target="bob", content="hi", reply_wait=value)
    return await client._call(_messages(client).SendMessage, request)


async def _fanout_ttl(client: HubClient, value: Duration) -> Any:
    request = messages_pb.FanoutMessagesRequest(targets=["bob"], content="hi", ttl=value)
    return await client._call(_messages(client).FanoutMessages, request)


async def _fanout_timeout(client: HubClient, value: Duration) -> Any:
    request = messages_pb.FanoutMessagesRequest(targets=["bob"], content="hi", timeout=value)
    return await client._call(_messages(client).FanoutMessages, request)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        pytest.param(_acquire_ttl, "ttl", id="AcquireLease.ttl"),
        pytest.param(_acquire_wait, "wait", id="AcquireLease.wait"),
        pytest.param(_send_ttl, "ttl", id="SendMessage.ttl"),
        pytest.param(_send_reply_wait, "reply_wait", id="SendMessage.reply_wait"),
        pytest.param(_fanout_ttl, "ttl", id="FanoutMessages.ttl"),
        pytest.param(_fanout_timeout, "timeout", id="FanoutMessages.timeout"),
    ],
)
async def test_a_malformed_duration_is_refused_and_writes_nothing(
    make_agent: AgentFactory, call: Call, field: str
) -> None:
    """nanos of 2e9 is INVALID_ARGUMENT naming the field; no lease is granted and no message stored."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")

    with pytest.raises(InvalidArgument) as caught:
        await call(alice, Duration(seconds=5, nanos=2_000_000_000))

    assert caught.value.reason is Reason.PROTOCOL_ERROR
    assert caught.value.metadata["field"] == field
    with pytest.raises(NotFound):
        await alice.get_lease("build")
    assert list((await bob.list_inbox()).messages) == []


async def test_renew_and_wait_refuse_a_malformed_duration(make_agent: AgentFactory) -> None:
    """RenewLease.ttl and WaitMessage.timeout are checked the same way; the lease keeps its expiry."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    lease = (await alice.acquire_lease("build", ttl=30)).lease
    sent = (await alice.send("bob", "hi")).message
    bad = Duration(seconds=5, nanos=2_000_000_000)

    with pytest.raises(InvalidArgument) as renew:
        await alice._call(
            _leases(alice).RenewLease,
            leases_pb.RenewLeaseRequest(name="build", fencing_token=lease.fencing_token, ttl=bad),
        )
    with pytest.raises(InvalidArgument) as wait:
        await alice._call(_messages(alice).WaitMessage, messages_pb.WaitMessageRequest(message_id=sent.id, timeout=bad))

    assert renew.value.metadata["field"] == "ttl"
    assert wait.value.metadata["field"] == "timeout"
    assert (await alice.get_lease("build")).lease.expire_time == lease.expire_time
    await bob.close()


async def test_nanos_alone_cannot_make_up_a_lease_ttl(make_agent: AgentFactory) -> None:
    """Duration(seconds=3, nanos=2e9) was once read as the 5 s minimum TTL and granted; it is malformed."""
    alice = await make_agent("alice")

    with pytest.raises(InvalidArgument) as caught:
        await _acquire_ttl(alice, Duration(seconds=3, nanos=2_000_000_000))

    assert caught.value.metadata["field"] == "ttl"
    with pytest.raises(NotFound):
        await alice.get_lease("build")


async def test_a_sync_event_with_a_malformed_timestamp_is_refused(hub: Hub, project: Project) -> None:
    """occur_time with nanos of 1e9 is INVALID_ARGUMENT naming ``events[1].occur_time``; no event is kept."""
    registrar = HubClient(hub.address, token=project.token)
    runtime = HubClient(hub.address, token=(await registrar.register_runtime("rtm_laptop000001")).runtime_key)
    good, bad = sync_event(1), sync_event(2)
    bad.occur_time.nanos = 1_000_000_000

    with pytest.raises(InvalidArgument) as caught:
        await runtime.push_sync_events([good, bad])
    listed = await registrar.list_run_events("prj_alpha000001", "run_000000000001")

    assert caught.value.metadata["field"] == "events[1].occur_time"
    assert list(listed.events) == []
    await runtime.close()
    await registrar.close()
