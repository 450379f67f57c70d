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
        await leases.renew_lease(store, alice, "build", 1, ttl=seconds(601), clock=clock)

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
    renewed = await leases.renew_lease(store, alice, "build", 1, ttl=seconds(0.3), clock=clock, limits=fast)
    with pytest.raises(InvalidArgument) as default_minimum:
        await leases.renew_lease(store, alice, "build", 1, ttl=seconds(0.3), clock=clock)

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


class LateWriter:
    """``store`` whose writes start ``delay`` seconds of ``clock`` after they are asked for, as behind a
    busy writer (or a queue of serialization retries); reads are immediate."""

    def __init__(self, store: SqliteStore, clock: ManualClock, delay: float) -> None:
        self._store = store
        self._clock = clock
        self._delay = delay

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    async def write(self, work):  # type: ignore[no-untyped-def]
        self._clock.advance(self._delay)
        return await self._store.write(work)


async def test_a_renewal_is_decided_when_its_transaction_runs_not_when_it_arrived(store: SqliteStore) -> None:
    """B7 found it: a renewal that arrived in time but reached the writer after the lease lapsed revived the
    lease, after a CheckFence in between had called it expired. It is refused, and the lease stays lapsed."""
    # Prepare
    clock = ManualClock()
    alice = await agent(store, "alice", clock.now())
    granted = await leases.acquire_lease(store, alice, "build", ttl=seconds(5), clock=clock, queues=LeaseQueues())
    token = granted.lease.fencing_token
    clock.advance(4.9)

    # Execute: the renewal arrives 0.1 s before the expiry and runs 0.1 s after it.
    with pytest.raises(FailedPrecondition) as refused:
        await leases.renew_lease(LateWriter(store, clock, 0.2), alice, "build", token, ttl=seconds(5), clock=clock)  # type: ignore[arg-type]
    with pytest.raises(FailedPrecondition) as checked:
        await leases.check_fence(store, alice, "build", token, now=clock.now())

    # Assert
    assert refused.value.reason is Reason.LEASE_EXPIRED
    assert checked.value.reason is Reason.LEASE_EXPIRED
    fence = await store.read(lambda tx: tx.leases.get("p", "build"))
    assert fence is not None and fence.lease is not None
    assert fence.lease.expire_time == granted.lease.expire_time


async def test_a_takeover_is_decided_and_timed_when_its_transaction_runs(store: SqliteStore) -> None:
    """An acquire that arrived while the lease was live but ran after it lapsed takes it over, and its
    acquire time is when it ran (so grant lives on the hub's clock never overlap)."""
    # Prepare
    clock = ManualClock()
    alice = await agent(store, "alice", clock.now())
    bob = await agent(store, "bob", clock.now())
    first = await leases.acquire_lease(store, alice, "build", ttl=seconds(5), clock=clock, queues=LeaseQueues())
    clock.advance(4.9)

    # Execute
    taken = await leases.acquire_lease(
        LateWriter(store, clock, 0.2),  # type: ignore[arg-type]
        bob,
        "build",
        ttl=seconds(5),
        clock=clock,
        queues=LeaseQueues(),
    )

    # Assert
    assert taken.lease.fencing_token == first.lease.fencing_token + 1
    assert taken.lease.acquire_time == clock.now() > first.lease.expire_time


async def test_the_alive_mark_never_moves_back(store: SqliteStore) -> None:
    """A keep-alive made on an older reading of the clock (or by a replica whose clock is a little behind)
    leaves a later mark alone: a restart must not take a grant that lapsed after it for live (decision 33)."""
    # Prepare
    clock = ManualClock()
    alice = await agent(store, "alice", clock.now())
    await leases.acquire_lease(store, alice, "build", ttl=seconds(60), clock=clock, queues=LeaseQueues())
    later = clock.now() + seconds(10)

    # Execute
    await leases.keep_alive(store, now=later)
    await leases.keep_alive(store, now=later - seconds(8))

    # Assert
    assert await store.read(lambda tx: tx.meta.get(leases.ALIVE_KEY)) == str(later)


async def test_the_wait_counts_the_time_the_first_attempt_took(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An acquire that waits, whose first attempt (a write) took 0.3 s of the caller's 1 s, queues for
    at most the 0.7 s left, not 1 s more (B16-waits found every such call ending DEADLINE_EXCEEDED)."""
    # Prepare
    clock = ManualClock()
    alice, bob = await agent(store, "alice", clock.now()), await agent(store, "bob", clock.now())
    queues = LeaseQueues()
    await leases.acquire_lease(store, alice, "build", ttl=seconds(30), clock=clock, queues=queues)
    attempt = leases._attempt
    waits: list[float] = []

    async def slow_attempt(*args: object, **kwargs: object) -> object:
        await asyncio.sleep(0.3)
        return await attempt(*args, **kwargs)  # type: ignore[arg-type]

    async def wait_in_line(*args: object, wait: float, **kwargs: object) -> None:
        waits.append(wait)

    monkeypatch.setattr(leases, "_attempt", slow_attempt)
    monkeypatch.setattr(leases, "_wait_in_line", wait_in_line)

    # Execute
    with pytest.raises(FailedPrecondition):
        await leases.acquire_lease(
            store, bob, "build", ttl=None, wait=Wait(seconds(60)), clock=clock, queues=queues, time_remaining=1.0
        )

    # Assert
    assert len(waits) == 1 and waits[0] <= 0.7, waits
