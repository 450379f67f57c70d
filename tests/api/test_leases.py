"""LeaseService through HubClient against a real hub: the decision table, waiting, fencing, isolation."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import pytest_asyncio

from kxm_grpc.client import HubClient
from kxm_grpc.client.leases import LeaseLost
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound, Reason
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Hub

Register = Callable[..., Awaitable[HubClient]]


@dataclasses.dataclass
class Team:
    """A hub with projects ``alpha`` and ``beta`` and a way to add agents to either."""

    hub: Hub
    clock: ManualClock | None
    tokens: dict[str, str]
    agent: Register

    def project_client(self, project: str = "alpha") -> HubClient:
        """A client holding only a project token (no agent identity)."""
        client = HubClient(self.hub.address, token=self.tokens[project])
        self._clients.append(client)
        return client

    _clients: list[HubClient] = dataclasses.field(default_factory=list)


async def _team(hub: Hub, clock: ManualClock | None) -> AsyncIterator[Team]:
    admin = hub.admin()
    tokens = {name: (await admin.create_project(name)).project_token for name in ("alpha", "beta")}
    await admin.close()
    clients: list[HubClient] = []

    async def agent(name: str, project: str = "alpha") -> HubClient:
        client = HubClient(hub.address, token=tokens[project])
        clients.append(client)
        await client.register_agent(name)
        return client

    team = Team(hub, clock, tokens, agent, clients)
    yield team
    for client in clients:
        await client.close()


@pytest_asyncio.fixture
async def team(clocked_hub: tuple[Hub, ManualClock]) -> AsyncIterator[Team]:
    """Projects and agents on a hub whose clock only moves when the test says so."""
    hub, clock = clocked_hub
    async for value in _team(hub, clock):
        yield value


@pytest_asyncio.fixture
async def fast_team(hub_settings: Settings) -> AsyncIterator[Team]:
    """Projects and agents on a real-clock hub that allows leases as short as 0.2 s."""
    server = HubServer(dataclasses.replace(hub_settings, testing_lease_min_ttl=0.2))
    await server.start()
    try:
        async for value in _team(Hub(server, server.address, hub_settings.data_dir, hub_settings.database_path), None):
            yield value
    finally:
        await server.stop(0.2)


def clock_of(team: Team) -> ManualClock:
    """The team's manual clock."""
    assert team.clock is not None
    return team.clock


# -- the decision table through the API -------------------------------------------------------------


async def test_first_acquire_gets_token_1_and_a_rival_learns_the_holder(team: Team) -> None:
    """Token 1 on first grant; a rival gets LEASE_HELD naming the holder, its expiry and the token."""
    alice, bob = await team.agent("alice"), await team.agent("bob")

    granted = await alice.acquire_lease("build", ttl=30)
    with pytest.raises(FailedPrecondition) as caught:
        await bob.acquire_lease("build")

    lease = granted.lease
    assert (lease.fencing_token, lease.holder_agent_name, lease.live, granted.renewed) == (1, "alice", True, False)
    assert lease.expire_time.ToMicroseconds() - lease.acquire_time.ToMicroseconds() == 30_000_000
    assert caught.value.reason is Reason.LEASE_HELD
    assert caught.value.metadata["holderAgentId"] == alice.agent_id
    assert caught.value.metadata["holderAgentName"] == "alice"
    assert caught.value.metadata["fencingToken"] == "1"
    assert caught.value.metadata["expireTime"].endswith("Z")


async def test_renew_keeps_the_token_and_acquire_time_and_moves_expiry(team: Team) -> None:
    """Renewing after 3 s keeps token 1 and sets expire = now + ttl."""
    alice = await team.agent("alice")
    first = (await alice.acquire_lease("build", ttl=10)).lease

    clock_of(team).advance(3)
    renewed = (await alice.renew_lease("build", 1, ttl=20)).lease

    assert renewed.fencing_token == 1
    assert renewed.acquire_time == first.acquire_time
    assert renewed.expire_time.ToMicroseconds() == clock_of(team).now() + 20_000_000


async def test_holder_acquiring_again_extends_its_own_lease(team: Team) -> None:
    """Acquire by the live holder is an extension: same token, same acquire time, renewed=true."""
    alice = await team.agent("alice")
    first = (await alice.acquire_lease("build", ttl=10)).lease
    clock_of(team).advance(2)

    again = await alice.acquire_lease("build", ttl=10)

    assert again.renewed is True
    assert (again.lease.fencing_token, again.lease.acquire_time) == (1, first.acquire_time)


async def test_takeover_after_expiry_supersedes_the_old_holder(team: Team) -> None:
    """After expiry a rival gets token 2; the old holder's renew is ABORTED and its re-acquire is held."""
    alice, bob = await team.agent("alice"), await team.agent("bob")
    await alice.acquire_lease("build", ttl=5)
    clock_of(team).advance(5)

    taken = await bob.acquire_lease("build", ttl=30)
    with pytest.raises(Aborted) as renew:
        await alice.renew_lease("build", 1)
    with pytest.raises(FailedPrecondition) as again:
        await alice.acquire_lease("build")

    assert taken.lease.fencing_token == 2
    assert renew.value.reason is Reason.LEASE_SUPERSEDED
    assert renew.value.metadata == {
        "name": "build",
        "fencingToken": "2",
        "presentedToken": "1",
        "holderAgentId": bob.agent_id,
        "holderAgentName": "bob",
    }
    assert again.value.reason is Reason.LEASE_HELD
    assert again.value.metadata["fencingToken"] == "2"


async def test_release_keeps_the_high_water_mark(team: Team) -> None:
    """After a release the next grant gets the next token, never 1 again (the original restarted at 1)."""
    alice, bob = await team.agent("alice"), await team.agent("bob")
    await alice.acquire_lease("build")
    released = await alice.release_lease("build", 1)

    after = await bob.acquire_lease("build")
    await bob.release_lease("build", 2)
    third = await alice.acquire_lease("build")

    assert released.lease.fencing_token == 1
    assert (after.lease.fencing_token, third.lease.fencing_token) == (2, 3)


async def test_renew_of_a_lapsed_lease_is_expired_and_never_resurrected(team: Team) -> None:
    """A lapsed lease refuses renewal with LEASE_EXPIRED; the holder must re-acquire (new token)."""
    alice = await team.agent("alice")
    await alice.acquire_lease("build", ttl=5)
    clock_of(team).advance(6)

    with pytest.raises(FailedPrecondition) as caught:
        await alice.renew_lease("build", 1)
    reacquired = await alice.acquire_lease("build")

    assert caught.value.reason is Reason.LEASE_EXPIRED
    assert reacquired.lease.fencing_token == 2
    assert reacquired.renewed is False


async def test_the_holder_may_release_a_lapsed_lease(team: Team) -> None:
    """Release works on a lapsed lease still held by the caller; then the name has no grant."""
    alice = await team.agent("alice")
    await alice.acquire_lease("build", ttl=5)
    clock_of(team).advance(60)

    released = await alice.release_lease("build", 1)
    with pytest.raises(NotFound):
        await alice.get_lease("build")

    assert released.lease.live is False


async def test_other_agents_cannot_renew_or_release_anothers_lease(team: Team) -> None:
    """Presenting the right token is not enough: the holder must be the caller (ABORTED)."""
    alice, bob = await team.agent("alice"), await team.agent("bob")
    await alice.acquire_lease("build")

    with pytest.raises(Aborted) as renew:
        await bob.renew_lease("build", 1)
    with pytest.raises(Aborted) as release:
        await bob.release_lease("build", 1)

    assert renew.value.reason is release.value.reason is Reason.LEASE_SUPERSEDED
    assert (await alice.get_lease("build")).lease.holder_agent_id == alice.agent_id


async def test_missing_token_unknown_name_and_bad_fields(team: Team) -> None:
    """No token → LEASE_TOKEN_REQUIRED; never-leased name → LEASE_NOT_FOUND; fields are named."""
    alice = await team.agent("alice")

    with pytest.raises(InvalidArgument) as no_token:
        await alice.renew_lease("build", 0)
    with pytest.raises(NotFound) as unknown:
        await alice.release_lease("build", 1)
    with pytest.raises(InvalidArgument) as blank:
        await alice.acquire_lease("   ")
    with pytest.raises(InvalidArgument) as long_name:
        await alice.acquire_lease("x" * 201)

    assert no_token.value.reason is Reason.LEASE_TOKEN_REQUIRED
    assert no_token.value.metadata["field"] == "fencing_token"
    assert unknown.value.reason is Reason.LEASE_NOT_FOUND
    assert blank.value.metadata["field"] == long_name.value.metadata["field"] == "name"


async def test_ttl_defaults_to_five_minutes_and_is_bounded(team: Team) -> None:
    """No ttl → 5 min; below 5 s or above 10 min is INVALID_ARGUMENT naming ttl; so is a long wait."""
    alice = await team.agent("alice")

    default = (await alice.acquire_lease("build")).lease
    errors = []
    for kwargs in ({"ttl": 4.9}, {"ttl": 601}, {"ttl": 10, "wait": 601}):
        with pytest.raises(InvalidArgument) as caught:
            await alice.acquire_lease("other", **kwargs)  # type: ignore[arg-type]
        errors.append(caught.value.metadata["field"])

    assert default.expire_time.ToMicroseconds() - default.acquire_time.ToMicroseconds() == 300_000_000
    assert errors == ["ttl", "ttl", "wait"]


async def test_names_with_slashes_are_plain_names(team: Team) -> None:
    """The key is (project, name): ``a/b`` and ``a`` are different leases."""
    alice, bob = await team.agent("alice"), await team.agent("bob")

    first = await alice.acquire_lease("a/b")
    second = await bob.acquire_lease("a")

    assert (first.lease.name, second.lease.name) == ("a/b", "a")
    assert first.lease.fencing_token == second.lease.fencing_token == 1


# -- CheckFence, GetLease, ListLeases ----------------------------------------------------------------


async def test_check_fence_answers_for_every_state_of_a_token(team: Team) -> None:
    """OK while current and live; EXPIRED once lapsed; SUPERSEDED once taken over; NOT_FOUND otherwise."""
    alice, bob = await team.agent("alice"), await team.agent("bob")
    resource = team.project_client()  # a resource needs only the project token
    with pytest.raises(NotFound) as never:
        await resource.check_fence("build", 1)
    await alice.acquire_lease("build", ttl=5)

    ok = await resource.check_fence("build", 1)
    clock_of(team).advance(5)
    with pytest.raises(FailedPrecondition) as lapsed:
        await resource.check_fence("build", 1)
    await bob.acquire_lease("build", ttl=30)
    with pytest.raises(Aborted) as superseded:
        await resource.check_fence("build", 1)
    current = await resource.check_fence("build", 2)
    await bob.release_lease("build", 2)
    with pytest.raises(NotFound) as released:
        await resource.check_fence("build", 2)
    with pytest.raises(InvalidArgument) as no_token:
        await resource.check_fence("build", 0)

    assert ok.lease.fencing_token == 1 and ok.lease.live
    assert never.value.reason is released.value.reason is Reason.LEASE_NOT_FOUND
    assert lapsed.value.reason is Reason.LEASE_EXPIRED
    assert superseded.value.reason is Reason.LEASE_SUPERSEDED
    assert superseded.value.metadata == {
        "name": "build",
        "fencingToken": "2",
        "presentedToken": "1",
        "holderAgentId": bob.agent_id,
        "holderAgentName": "bob",
    }
    assert current.lease.holder_agent_name == "bob"
    assert no_token.value.reason is Reason.LEASE_TOKEN_REQUIRED


async def test_get_and_list_show_live_leases_and_lapsed_on_request(team: Team) -> None:
    """List is by name, live only by default, pages with tokens; Get shows a lapsed grant as not live."""
    alice = await team.agent("alice")
    await alice.acquire_lease("b-short", ttl=5)
    await alice.acquire_lease("a-long", ttl=60)
    await alice.acquire_lease("c-long", ttl=60)
    clock_of(team).advance(10)
    reader = team.project_client()

    live = [lease.name for lease in (await reader.list_leases()).leases]
    first = await reader.list_leases(include_lapsed=True, page_size=2)
    second = await reader.list_leases(include_lapsed=True, page_size=2, page_token=first.next_page_token)
    lapsed = (await reader.get_lease("b-short")).lease

    assert live == ["a-long", "c-long"]
    assert [lease.name for lease in first.leases] == ["a-long", "b-short"]
    assert [lease.name for lease in second.leases] == ["c-long"] and second.next_page_token == ""
    assert (lapsed.live, lapsed.fencing_token) == (False, 1)


# -- isolation ---------------------------------------------------------------------------------------


async def test_another_projects_leases_are_invisible_and_independent(team: Team) -> None:
    """Beta never sees or touches alpha's lease of the same name; each project has its own tokens."""
    alice = await team.agent("alice")
    mallory = await team.agent("mallory", "beta")
    await alice.acquire_lease("build")
    await alice.release_lease("build", 1)
    await alice.acquire_lease("build")  # alpha's build is at token 2
    beta_reader = team.project_client("beta")

    refusals = []
    for call in (
        mallory.get_lease("build"),
        mallory.renew_lease("build", 2),
        mallory.release_lease("build", 2),
        beta_reader.check_fence("build", 2),
    ):
        with pytest.raises(NotFound) as caught:
            await call
        refusals.append(caught.value.reason)
    listed = await beta_reader.list_leases(include_lapsed=True)
    own = await mallory.acquire_lease("build")

    assert refusals == [Reason.LEASE_NOT_FOUND] * 4
    assert list(listed.leases) == []
    assert own.lease.fencing_token == 1 and own.lease.project == "beta"
    assert (await alice.check_fence("build", 2)).lease.holder_agent_id == alice.agent_id


async def test_the_admin_naming_a_project_reads_only_that_project(team: Team) -> None:
    """The admin token with x-kxm-project reads leases of that project, and cannot take one."""
    alice = await team.agent("alice")
    await alice.acquire_lease("build")
    admin_alpha = HubClient(team.hub.address, token=ADMIN_TOKEN, project="alpha")
    admin_beta = HubClient(team.hub.address, token=ADMIN_TOKEN, project="beta")

    seen_alpha = [lease.name for lease in (await admin_alpha.list_leases()).leases]
    seen_beta = [lease.name for lease in (await admin_beta.list_leases()).leases]
    with pytest.raises(Exception) as refused:
        await admin_alpha.acquire_lease("build")

    assert (seen_alpha, seen_beta) == (["build"], [])
    assert getattr(refused.value, "status", None) == "PERMISSION_DENIED"
    await admin_alpha.close()
    await admin_beta.close()


# -- waiting -----------------------------------------------------------------------------------------


async def test_waiters_are_served_in_arrival_order(team: Team) -> None:
    """Bob then Carol queue; each release goes to the longest waiter, and a no-wait rival is refused."""
    alice, bob, carol, dave = [await team.agent(n) for n in ("alice", "bob", "carol", "dave")]
    await alice.acquire_lease("build")
    order: list[str] = []

    async def wait_for(client: HubClient, who: str) -> int:
        granted = await client.acquire_lease("build", wait=20)
        order.append(who)
        return granted.lease.fencing_token

    bob_task = asyncio.create_task(wait_for(bob, "bob"))
    await asyncio.sleep(0.2)
    carol_task = asyncio.create_task(wait_for(carol, "carol"))
    await asyncio.sleep(0.2)
    with pytest.raises(FailedPrecondition):
        await dave.acquire_lease("build")

    await alice.release_lease("build", 1)
    bob_token = await asyncio.wait_for(bob_task, 5)
    await asyncio.sleep(0.2)
    assert not carol_task.done()
    await bob.release_lease("build", bob_token)
    carol_token = await asyncio.wait_for(carol_task, 5)

    assert order == ["bob", "carol"]
    assert (bob_token, carol_token) == (2, 3)


async def test_a_wait_that_ends_returns_lease_held(team: Team) -> None:
    """A wait of 0.3 s on a held lease returns LEASE_HELD after about 0.3 s, naming the holder."""
    alice, bob = await team.agent("alice"), await team.agent("bob")
    await alice.acquire_lease("build")

    started = time.monotonic()
    with pytest.raises(FailedPrecondition) as caught:
        await bob.acquire_lease("build", wait=0.3)
    elapsed = time.monotonic() - started

    assert caught.value.reason is Reason.LEASE_HELD
    assert caught.value.metadata["holderAgentName"] == "alice"
    assert 0.3 <= elapsed < 2.0


async def test_a_wait_never_outlasts_the_call_deadline(team: Team) -> None:
    """With a 0.6 s deadline and a 30 s wait, the hub answers LEASE_HELD before the deadline."""
    alice, bob = await team.agent("alice"), await team.agent("bob")
    await alice.acquire_lease("build")

    started = time.monotonic()
    with pytest.raises(FailedPrecondition) as caught:
        await bob.acquire_lease("build", wait=30, timeout=0.6)

    assert caught.value.reason is Reason.LEASE_HELD
    assert time.monotonic() - started < 0.6


async def test_a_cancelled_waiter_gives_its_turn_to_the_next(team: Team) -> None:
    """A waiter whose call is cancelled leaves the queue; the next waiter gets the lease."""
    alice, bob, carol = [await team.agent(n) for n in ("alice", "bob", "carol")]
    await alice.acquire_lease("build")
    bob_task = asyncio.create_task(bob.acquire_lease("build", wait=20))
    await asyncio.sleep(0.2)
    carol_task = asyncio.create_task(carol.acquire_lease("build", wait=20))
    await asyncio.sleep(0.2)

    bob_task.cancel()
    await asyncio.sleep(0.2)
    await alice.release_lease("build", 1)
    granted = await asyncio.wait_for(carol_task, 5)

    assert granted.lease.holder_agent_name == "carol"


async def test_a_waiter_takes_over_as_soon_as_the_holder_lapses(fast_team: Team) -> None:
    """On the real clock, a waiter gets a 0.3 s lease that its holder stopped renewing, promptly."""
    alice, bob = await fast_team.agent("alice"), await fast_team.agent("bob")
    held = (await alice.acquire_lease("build", ttl=0.3)).lease

    granted = await bob.acquire_lease("build", ttl=5, wait=5)
    got_at = time.time_ns() // 1000

    assert granted.lease.fencing_token == 2
    assert granted.lease.acquire_time.ToMicroseconds() >= held.expire_time.ToMicroseconds()
    assert got_at - held.expire_time.ToMicroseconds() < 500_000


# -- hold_lease ---------------------------------------------------------------------------------------


async def test_hold_lease_renews_in_the_background_and_releases_at_the_end(fast_team: Team) -> None:
    """A 0.3 s lease held for 1 s stays alice's (renewed), and is released when the block ends."""
    alice, bob = await fast_team.agent("alice"), await fast_team.agent("bob")

    async with alice.hold_lease("build", ttl=0.3, renew_every=0.1) as held:
        await asyncio.sleep(1.0)
        with pytest.raises(FailedPrecondition):
            await bob.acquire_lease("build")
        check = await bob.check_fence("build", held.fencing_token)
    with pytest.raises(NotFound):
        await bob.get_lease("build")

    assert check.lease.holder_agent_name == "alice"
    assert held.lease.expire_time.ToMicroseconds() > check.lease.acquire_time.ToMicroseconds() + 900_000


async def test_hold_lease_raises_in_the_block_when_the_lease_is_lost(fast_team: Team) -> None:
    """Renewals too slow for the TTL: a rival takes over, and the block gets LeaseLost (superseded)."""
    alice, bob = await fast_team.agent("alice"), await fast_team.agent("bob")
    reached_end = False

    with pytest.raises(LeaseLost) as caught:
        async with alice.hold_lease("build", ttl=0.3, renew_every=1.0):
            rival = asyncio.create_task(bob.acquire_lease("build", ttl=5, wait=5))
            await asyncio.sleep(5)
            reached_end = True

    assert not reached_end
    assert caught.value.reason is Reason.LEASE_SUPERSEDED
    assert caught.value.fencing_token == 1
    assert (await rival).lease.fencing_token == 2


# -- restarts -----------------------------------------------------------------------------------------


async def test_a_restart_gives_live_leases_back_their_downtime(
    clocked_hub: tuple[Hub, ManualClock], hub_settings: Settings
) -> None:
    """A lease live when the hub stops keeps its remaining time after 100 s of downtime; lapsed ones stay lapsed."""
    hub, clock = clocked_hub
    admin = hub.admin()
    token = (await admin.create_project("alpha")).project_token
    await admin.close()
    alice = HubClient(hub.address, token=token)
    await alice.register_agent("alice")
    held = (await alice.acquire_lease("build", ttl=60)).lease
    await alice.acquire_lease("old", ttl=5)
    clock.advance(10)
    await alice.close()
    await hub.server.stop(0.2)

    clock.advance(100)
    server = HubServer(hub_settings, clock=clock)
    await server.start()
    try:
        alice = HubClient(server.address, token=token, agent_id=held.holder_agent_id, agent_key=alice.agent_key)
        after = (await alice.get_lease("build")).lease
        old = (await alice.get_lease("old")).lease
        renewed = await alice.renew_lease("build", held.fencing_token, ttl=60)
        await alice.close()
    finally:
        await server.stop(0.2)

    assert after.live is True
    # 50 s were left when the hub stopped; at least 50 s are left now.
    assert after.expire_time.ToMicroseconds() - clock.now() >= 50_000_000
    assert old.live is False
    assert renewed.lease.fencing_token == 1
