"""Rate-limit classes: what each costs, which budget pays, and a cost never above the limit."""

from __future__ import annotations

import pytest

from kxm_grpc.errors import ResourceExhausted
from kxm_grpc.server.ratelimit import COSTS, RateClass, RateLimiter


def spendable(limiter: RateLimiter, identity: str, rate_class: RateClass, now: float = 0.0) -> int:
    """How many calls of ``rate_class`` the identity can make at ``now`` before being refused."""
    calls = 0
    while True:
        try:
            limiter.check(identity, now, rate_class=rate_class)
        except ResourceExhausted:
            return calls
        calls += 1


def test_each_class_spends_its_cost_from_the_identitys_budget() -> None:
    """Nine tokens: nine ordinary calls, or three stream openings, or three bulk calls."""
    for rate_class, calls in ((RateClass.DEFAULT, 9), (RateClass.STREAM, 3), (RateClass.BULK, 3)):
        assert spendable(RateLimiter(limit=9, window=9.0), "a", rate_class) == calls
    assert COSTS[RateClass.STREAM] == COSTS[RateClass.BULK] == 3


def test_ordinary_stream_and_bulk_calls_share_one_budget() -> None:
    """A stream opened (3 of 4 tokens) leaves one ordinary call."""
    limiter = RateLimiter(limit=4, window=4.0)
    limiter.check("a", 0.0, rate_class=RateClass.STREAM)

    assert spendable(limiter, "a", RateClass.DEFAULT) == 1


def test_admin_calls_are_paid_from_a_budget_of_their_own() -> None:
    """An identity that spent its ordinary budget can still make ADMIN-class calls, and back."""
    limiter = RateLimiter(limit=2, window=2.0)

    assert spendable(limiter, "admin", RateClass.DEFAULT) == 2
    assert spendable(limiter, "admin", RateClass.ADMIN) == 2


def test_a_cost_above_the_limit_is_charged_as_the_limit() -> None:
    """With a budget of one token, a stream can still be opened once per window."""
    limiter = RateLimiter(limit=1, window=1.0)

    assert spendable(limiter, "a", RateClass.STREAM) == 1
    assert spendable(limiter, "a", RateClass.STREAM, now=1.0) == 1


def test_a_refusal_says_when_the_calls_cost_is_back() -> None:
    """The retry delay is the time until the call's whole cost has refilled."""
    limiter = RateLimiter(limit=3, window=3.0)  # one token per second
    limiter.check("a", 0.0, rate_class=RateClass.STREAM)

    with pytest.raises(ResourceExhausted) as caught:
        limiter.check("a", 1.0, rate_class=RateClass.STREAM)

    assert caught.value.retry_after == pytest.approx(2.0)


def test_collect_forgets_idle_identities_of_both_budgets() -> None:
    """After a whole idle window both budgets of an identity are forgotten (full again)."""
    limiter = RateLimiter(limit=1, window=1.0)
    limiter.check("a", 0.0)
    limiter.check("a", 0.0, rate_class=RateClass.ADMIN)

    limiter.collect(now=1.0)

    assert (limiter._buckets, limiter._admin_buckets) == ({}, {})
    assert spendable(limiter, "a", RateClass.DEFAULT, now=1.0) == 1
    assert spendable(limiter, "a", RateClass.ADMIN, now=1.0) == 1
