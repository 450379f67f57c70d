"""The lease service's request rules on a real store, without gRPC: TTL default and bounds (the minimum
from ``Limits``), the wait's bound and its cut to the time the caller still listens, validation before
anything is written, and the queues owned by the hub's coordination."""

from __future__ import annotations

import asyncio

import pytest

from kxm_grpc.domain import leases as rules
from kxm_grpc.domain.agents import registration
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import ManualClock, seconds
from kxm_grpc.domain.waits import Wait
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, Reason
from kxm_grpc.server.coordination import InProcessCoordination
from kxm_grpc.server.settings import Settings
from kxm_grpc.server.state import HubState
from kxm_grpc.services import agents, leases
from kxm_grpc.services.leases import LeaseQueues
from kxm_grpc.services.limits import LIMITS, Limits
from kxm_grpc.store.sqlite import SqliteStore

PROJECT = Caller(CredentialKind.PROJECT, project="p")


async def agent(store: SqliteStore, name: str, now: int) -> Caller:
    """Register ``name`` and return it as a calling agent."""
    made = await agents.register_agent(store, PROJECT, registration(name, "", "", ""), presented_key=None, now=now)
    return Caller(CredentialKind.AGENT, project="p", agent_id=made.agent.id, agent_name=name)


async def test_ttl_defaults_to_five_minutes_and_is_bounded_in_the_service(store: SqliteStore) -> None:
    """No TTL → 5 min; under 5 s, over 10 min or negative is INVALID_ARGUMENT naming ttl, and nothing is granted."""
    # Prepare
    clock = ManualClock()
    alice = await agent(store, "alice", clock.now())
    queues = LeaseQueues()

    # Execute
    granted = await leases.acquire_lease(store, alice, "build", ttl=None, clock=clock, queues=queues)
    refusals = []
    for ttl in (seconds(4.9), seconds(601), -1):
        with pytest.raises(InvalidArgument) as caught:
            await leases.acquire_lease(store, alice, "other", ttl=ttl, clock=clock, queues=queues)
        refusals.append((caught.value.metadata["field"], caught.value.message))
    with pytest.raises(InvalidArgument) as renewal:
        await leases.renew_lease(store, alice, "build", 1, ttl=seconds(601), now=clock.now())

    # Assert
    assert granted.lease.expire_time - granted.lease.acquire_time == rules.DEFAULT_TTL
    assert refusals == [
        ("ttl", "ttl: must be between 5 s and 600 s"),
        ("ttl", "ttl: must be between 5 s and 600 s"),
        ("ttl", "ttl: must not be negative"),
    ]
    assert renewal.value.metadata["field"] == "ttl"
    assert await store.read(lambda tx: tx.leases.get("p", "other")) is None


async def test_the_minimum_ttl_comes_from_the_limits(store: SqliteStore) -> None:
    """The testing hook lowers the 5 s minimum through ``Limits.lease_min_ttl``, for acquire and renew alike;
    a hub's limits are built once from its settings."""
    # Prepare
    clock = ManualClock()
    alice = await agent(store, "alice", clock.now())
    fast = Limits(lease_min_ttl=seconds(0.2))
    hub = HubState(Settings(testing_lease_min_ttl=0.2), store, clock, None)

    # Execute
    short = await leases.acquire_lease(
        store, alice, "build", ttl=seconds(0.5), clock=clock, queues=LeaseQueues(), limits=fast
    )
    renewed = await leases.renew_lease(store, alice, "build", 1, ttl=seconds(0.3), now=clock.now(), limits=fast)
    with pytest.raises(InvalidArgument) as default_minimum:
        await leases.renew_lease(store, alice, "build", 1, ttl=seconds(0.3), now=clock.now())

    # Assert
    assert short.lease.expire_time - short.lease.acquire_time == seconds(0.5)
    assert renewed.expire_time == clock.now() + seconds(0.3)
    assert default_minimum.value.message == "ttl: must be between 5 s and 600 s"
    assert hub.limits.lease_min_ttl == seconds(0.2)
    assert LIMITS.lease_min_ttl == rules.MIN_TTL


async def test_names_and_tokens_are_checked_by_the_service_before_anything_is_written(store: SqliteStore) -> None:
    """A blank or too long name, or no token, is INVALID_ARGUMENT from the service itself; the name is trimmed."""
    # Prepare
    clock = ManualClock()
    alice = await agent(store, "alice", clock.now())
    queues = LeaseQueues()

    # Execute
    trimmed = await leases.acquire_lease(store, alice, "  build  ", ttl=None, clock=clock, queues=queues)
    with pytest.raises(InvalidArgument) as blank:
        await leases.acquire_lease(store, alice, "   ", ttl=None, clock=clock, queues=queues)
    with pytest.raises(InvalidArgument) as long_name:
        await leases.get_lease(store, alice, "n" * 201)
    with pytest.raises(InvalidArgument) as no_token:
        await leases.release_lease(store, alice, "build", 0, now=clock.now())
    with pytest.raises(InvalidArgument) as no_fence_token:
        await leases.check_fence(store, alice, "build", 0, now=clock.now())
    fetched = await leases.get_lease(store, alice, " build ")

    # Assert
    assert trimmed.lease.name == fetched.name == "build"
    assert blank.value.metadata["field"] == long_name.value.metadata["field"] == "name"
    assert no_token.value.reason is no_fence_token.value.reason is Reason.LEASE_TOKEN_REQUIRED
    assert await store.read(lambda tx: tx.leases.list_page("p", None, 10, now=clock.now(), include_lapsed=True)) == [
        fetched
    ]


async def test_the_wait_is_bounded_and_checked_before_the_lease_is_taken(store: SqliteStore) -> None:
    """A wait over 10 min or negative is INVALID_ARGUMENT naming wait, even on a free lease: nothing is granted."""
    # Prepare
    clock = ManualClock()
    alice = await agent(store, "alice", clock.now())
    queues = LeaseQueues()

    # Execute
    fields = []
    for micros in (rules.MAX_WAIT + 1, -1):
        with pytest.raises(InvalidArgument) as caught:
            await leases.acquire_lease(store, alice, "build", ttl=None, wait=Wait(micros), clock=clock, queues=queues)
        fields.append(caught.value.metadata["field"])

    # Assert
    assert fields == ["wait", "wait"]
    assert await store.read(lambda tx: tx.leases.get("p", "build")) is None


async def test_a_wait_is_cut_to_the_time_the_caller_still_listens(store: SqliteStore) -> None:
    """A 60 s wait with 0.2 s remaining ends with LEASE_HELD after about 0.2 s; the queue is left empty."""
    # Prepare
    clock = ManualClock()
    alice, bob = await agent(store, "alice", clock.now()), await agent(store, "bob", clock.now())
    queues = LeaseQueues()
    await leases.acquire_lease(store, alice, "build", ttl=seconds(30), clock=clock, queues=queues)
    loop = asyncio.get_running_loop()
    started = loop.time()

    # Execute
    with pytest.raises(FailedPrecondition) as held:
        await leases.acquire_lease(
            store,
            bob,
            "build",
            ttl=None,
            wait=Wait(seconds(60)),
            clock=clock,
            queues=queues,
            time_remaining=0.2,
        )
    waited = loop.time() - started

    # Assert
    assert held.value.reason is Reason.LEASE_HELD
    assert 0.15 <= waited < 2.0
    assert queues.waiting(("p", "build")) == 0


async def test_waiting_acquires_queue_on_the_hubs_coordination(store: SqliteStore) -> None:
    """The hub state's in-process coordination owns the lease queues: a waiter queued there is served
    when the holder releases."""
    # Prepare
    clock = ManualClock()
    hub = HubState(Settings(), store, clock, None)
    assert isinstance(hub.coordination, InProcessCoordination)
    queues = hub.coordination.lease_queues
    alice, bob = await agent(store, "alice", clock.now()), await agent(store, "bob", clock.now())
    held = await leases.acquire_lease(store, alice, "build", ttl=None, clock=clock, queues=queues)
    waiting = asyncio.create_task(
        leases.acquire_lease(store, bob, "build", ttl=None, wait=Wait(seconds(5)), clock=clock, queues=queues)
    )
    for _ in range(200):  # until bob is queued
        if queues.waiting(("p", "build")):
            break
        await asyncio.sleep(0.01)

    # Execute
    await leases.release_lease(store, alice, "build", held.lease.fencing_token, now=clock.now())
    granted = await asyncio.wait_for(waiting, 2)

    # Assert
    assert granted.lease.holder_agent_name == "bob"
    assert granted.lease.fencing_token == held.lease.fencing_token + 1
    assert queues.waiting(("p", "build")) == 0
