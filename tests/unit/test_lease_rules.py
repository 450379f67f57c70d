"""The lease decision table (kxm_grpc.domain.leases), row by row, on the pure rules."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kxm_grpc.domain import leases as rules
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.leases import Fence, Holder, Lease
from kxm_grpc.errors import Aborted, FailedPrecondition, HubError, InvalidArgument, NotFound, Reason

NOW = 1_000 * MICROS
TTL = 30 * MICROS
ALICE = Holder("agt_alice", "alice")
BOB = Holder("agt_bob", "bob")


def grant(holder: Holder, token: int, *, acquired: int, expires: int) -> Lease:
    """A grant of ``build`` in ``alpha``."""
    return Lease("alpha", "build", holder.agent_id, holder.agent_name, token, acquired, expires)


LIVE_ALICE = Fence("alpha", "build", 7, grant(ALICE, 7, acquired=NOW - 10 * MICROS, expires=NOW + 5 * MICROS))
LAPSED_ALICE = Fence("alpha", "build", 7, grant(ALICE, 7, acquired=NOW - 60 * MICROS, expires=NOW))
RELEASED = Fence("alpha", "build", 7, None)


@dataclass(frozen=True)
class Row:
    """One row of the table: the state, the action, and what must come of it."""

    state: Fence | None
    action: str
    caller: Holder
    token: int
    token_after: int | None = None
    acquire_time_after: int | None = None
    renewed: bool | None = None
    error: tuple[type[HubError], Reason] | None = None


HELD = (FailedPrecondition, Reason.LEASE_HELD)
EXPIRED = (FailedPrecondition, Reason.LEASE_EXPIRED)
SUPERSEDED = (Aborted, Reason.LEASE_SUPERSEDED)
MISSING = (NotFound, Reason.LEASE_NOT_FOUND)
EARLIER = NOW - 10 * MICROS  # LIVE_ALICE's acquire time

TABLE = {
    "acquire / never leased -> token 1": Row(None, "acquire", ALICE, 0, 1, NOW, renewed=False),
    "acquire / released -> high-water + 1": Row(RELEASED, "acquire", BOB, 0, 8, NOW, renewed=False),
    "acquire / live, other holder -> held": Row(LIVE_ALICE, "acquire", BOB, 0, error=HELD),
    "acquire / live, same holder -> extend": Row(LIVE_ALICE, "acquire", ALICE, 0, 7, EARLIER, renewed=True),
    "acquire / lapsed, other holder -> takeover": Row(LAPSED_ALICE, "acquire", BOB, 0, 8, NOW, renewed=False),
    "acquire / lapsed, same holder -> new grant": Row(LAPSED_ALICE, "acquire", ALICE, 0, 8, NOW, renewed=False),
    "renew / never leased -> not found": Row(None, "renew", ALICE, 1, error=MISSING),
    "renew / released -> not found": Row(RELEASED, "renew", ALICE, 7, error=MISSING),
    "renew / other holder -> superseded": Row(LIVE_ALICE, "renew", BOB, 7, error=SUPERSEDED),
    "renew / old token -> superseded": Row(LIVE_ALICE, "renew", ALICE, 6, error=SUPERSEDED),
    "renew / future token -> superseded": Row(LIVE_ALICE, "renew", ALICE, 8, error=SUPERSEDED),
    "renew / lapsed -> expired": Row(LAPSED_ALICE, "renew", ALICE, 7, error=EXPIRED),
    "renew / lapsed, other holder -> superseded first": Row(LAPSED_ALICE, "renew", BOB, 7, error=SUPERSEDED),
    "renew / live holder and token -> extended": Row(LIVE_ALICE, "renew", ALICE, 7, 7, EARLIER),
    "release / never leased -> not found": Row(None, "release", ALICE, 1, error=MISSING),
    "release / released -> not found": Row(RELEASED, "release", ALICE, 7, error=MISSING),
    "release / other holder -> superseded": Row(LIVE_ALICE, "release", BOB, 7, error=SUPERSEDED),
    "release / old token -> superseded": Row(LIVE_ALICE, "release", ALICE, 3, error=SUPERSEDED),
    "release / live -> released, high-water kept": Row(LIVE_ALICE, "release", ALICE, 7, 7),
    "release / lapsed -> released, high-water kept": Row(LAPSED_ALICE, "release", ALICE, 7, 7),
    "check / never leased -> not found": Row(None, "check", BOB, 1, error=MISSING),
    "check / older token -> superseded": Row(LIVE_ALICE, "check", BOB, 6, error=SUPERSEDED),
    "check / token never granted -> superseded": Row(LIVE_ALICE, "check", BOB, 9, error=SUPERSEDED),
    "check / released -> not found": Row(RELEASED, "check", BOB, 7, error=MISSING),
    "check / old token after release -> superseded": Row(RELEASED, "check", BOB, 5, error=SUPERSEDED),
    "check / lapsed -> expired": Row(LAPSED_ALICE, "check", BOB, 7, error=EXPIRED),
    "check / live current token -> ok": Row(LIVE_ALICE, "check", BOB, 7, 7, EARLIER),
}


def apply(row: Row) -> tuple[Fence, bool | None]:
    """Run the row's action; return the resulting fence (and the renewed flag of an acquire)."""
    if row.action == "acquire":
        acquired = rules.acquire(row.state, "alpha", "build", row.caller, now=NOW, ttl=TTL)
        return acquired.fence, acquired.renewed
    if row.action == "renew":
        return rules.renew(row.state, "build", row.caller, row.token, now=NOW, ttl=TTL), None
    if row.action == "release":
        fence, released = rules.release(row.state, "build", row.caller, row.token)
        assert row.state is not None and released == row.state.lease
        return fence, None
    lease = rules.check_fence(row.state, "build", row.token, now=NOW)
    assert row.state is not None
    return Fence("alpha", "build", row.state.high_water, lease), None


@pytest.mark.parametrize("row", TABLE.values(), ids=TABLE.keys())
def test_decision_table(row: Row) -> None:
    """Each (state, action) pair gives exactly the outcome of the table in domain/leases.py."""
    if row.error is not None:
        error, reason = row.error
        with pytest.raises(error) as caught:
            apply(row)
        assert caught.value.reason is reason
        assert caught.value.metadata["name"] == "build"
        return

    fence, renewed = apply(row)

    assert fence.high_water == row.token_after
    if row.action == "release":
        assert fence.lease is None
        return
    assert fence.lease is not None
    assert fence.lease.fencing_token == row.token_after
    assert fence.lease.acquire_time == row.acquire_time_after
    if row.action in ("acquire", "renew"):
        assert fence.lease.holder_agent_id == row.caller.agent_id
        assert fence.lease.expire_time == NOW + TTL
    assert renewed == row.renewed


def test_tokens_never_go_down_or_repeat_over_a_long_history() -> None:
    """Acquire, release, lapse and takeover in any order: every new grant's token is the previous + 1."""
    fence: Fence | None = None
    now = NOW
    seen: list[int] = []
    for step in range(60):
        holder = (ALICE, BOB)[step % 2]
        acquired = rules.acquire(fence, "alpha", "build", holder, now=now, ttl=TTL)
        assert not acquired.renewed
        seen.append(acquired.lease.fencing_token)
        fence = acquired.fence
        if step % 3 == 0:
            fence, _ = rules.release(fence, "build", holder, acquired.lease.fencing_token)
            now += MICROS
        else:
            now += TTL  # let it lapse; the next acquire takes it over

    assert seen == list(range(1, 61))


def test_a_lease_lapses_exactly_at_its_expire_time() -> None:
    """Live strictly before expire_time, lapsed at it (a renew then refuses, a rival takes over)."""
    lease = grant(ALICE, 1, acquired=NOW, expires=NOW + TTL)
    fence = Fence("alpha", "build", 1, lease)

    assert lease.live(NOW + TTL - 1)
    assert not lease.live(NOW + TTL)
    rules.renew(fence, "build", ALICE, 1, now=NOW + TTL - 1, ttl=TTL)
    with pytest.raises(FailedPrecondition):
        rules.renew(fence, "build", ALICE, 1, now=NOW + TTL, ttl=TTL)
    assert rules.acquire(fence, "alpha", "build", BOB, now=NOW + TTL, ttl=TTL).lease.fencing_token == 2


def test_held_error_names_the_holder_and_its_expiry() -> None:
    """LEASE_HELD metadata carries the name, holder, RFC 3339 expiry and current token."""
    with pytest.raises(FailedPrecondition) as caught:
        rules.acquire(LIVE_ALICE, "alpha", "build", BOB, now=NOW, ttl=TTL)

    assert caught.value.metadata == {
        "name": "build",
        "holderAgentId": "agt_alice",
        "holderAgentName": "alice",
        "expireTime": "1970-01-01T00:16:45.000000Z",
        "fencingToken": "7",
    }


def test_superseded_error_carries_current_and_presented_tokens_and_the_holder() -> None:
    """LEASE_SUPERSEDED metadata says which token is current, which was presented, and whose grant it is."""
    with pytest.raises(Aborted) as caught:
        rules.check_fence(LIVE_ALICE, "build", 4, now=NOW)

    assert caught.value.metadata == {
        "name": "build",
        "fencingToken": "7",
        "presentedToken": "4",
        "holderAgentId": "agt_alice",
        "holderAgentName": "alice",
    }
    assert caught.value.message == "fencing token 4 for build was superseded; token 7 was granted to alice"


def test_superseded_error_names_the_holder_when_another_agent_presents_its_token() -> None:
    """Bob releasing with alice's current token is told the grant is alice's, not his (the old message
    said "token 7 ... now at token 7")."""
    with pytest.raises(Aborted) as caught:
        rules.release(LIVE_ALICE, "build", BOB, 7)

    assert caught.value.reason is Reason.LEASE_SUPERSEDED
    assert caught.value.message == "fencing token 7 for build was granted to alice, not to bob"
    assert caught.value.metadata["holderAgentName"] == "alice"


def test_superseded_error_without_a_grant_says_no_one_holds_the_lease() -> None:
    """A stale token checked after the latest grant was released: no holder to name."""
    with pytest.raises(Aborted) as caught:
        rules.check_fence(RELEASED, "build", 4, now=NOW)

    assert caught.value.message == (
        "fencing token 4 for build was superseded; the hub is now at token 7 and no agent holds the lease"
    )
    assert "holderAgentName" not in caught.value.metadata


@pytest.mark.parametrize("value", ["", "   ", "x" * 201])
def test_bad_lease_names_are_refused(value: str) -> None:
    """A name is 1 to 200 characters after trimming."""
    with pytest.raises(InvalidArgument) as caught:
        rules.lease_name(value)

    assert caught.value.metadata["field"] == "name"


def test_names_may_hold_slashes_and_are_trimmed() -> None:
    """The key is the (project, name) pair, so a slash in a name is just a character."""
    assert rules.lease_name("  a/b/c ") == "a/b/c"


def test_a_missing_token_is_token_required() -> None:
    """Token 0 (unset) is LEASE_TOKEN_REQUIRED, naming the field."""
    with pytest.raises(InvalidArgument) as caught:
        rules.presented_token(0)

    assert caught.value.reason is Reason.LEASE_TOKEN_REQUIRED
    assert caught.value.metadata["field"] == "fencing_token"
