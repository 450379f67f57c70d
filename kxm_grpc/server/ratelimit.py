"""Rate limiting keyed on the authenticated identity (the original keyed it on an unauthenticated header).

Every RPC declares a rate-limit class in the proto (``RpcFacts.rate_limit``, ``proto/kxm/v1/options.proto``);
the class says what one call costs and which of the identity's budgets pays:

========  ===========================  =====  ====================================================
class     budget                       cost   for
========  ===========================  =====  ====================================================
DEFAULT   the identity's               1      ordinary calls: one read or one small write
STREAM    the identity's               3      opening a server stream (it replays the backlog and
                                              holds a stream slot; its events cost nothing)
BULK      the identity's               3      calls doing the work of several: a fan-out to up to
                                              three agents, a batch of sync events
ADMIN     the identity's admin budget  1      project and credential management: the admin's calls
                                              in a project never spend what a token rotation needs
========  ===========================  =====  ====================================================

Each budget holds ``limit`` tokens and refills at ``limit / window`` per second. A cost above
``limit`` is charged as ``limit``, so a tiny limit never makes an RPC impossible to call. Failed
authentications spend one token of the peer address's budget (``check(f"peer:{host}")``).
"""

from __future__ import annotations

import enum
import math
import time
from typing import Protocol

from kxm_grpc.errors import Reason, ResourceExhausted


class RateClass(enum.Enum):
    """What one call costs, and from which of the identity's budgets (see the module docstring)."""

    DEFAULT = "default"
    STREAM = "stream"
    BULK = "bulk"
    ADMIN = "admin"


COSTS: dict[RateClass, int] = {RateClass.DEFAULT: 1, RateClass.STREAM: 3, RateClass.BULK: 3, RateClass.ADMIN: 1}
"""Tokens one call of each class spends."""

OWN_BUDGET = frozenset({RateClass.ADMIN})
"""The classes paid from a budget of their own per identity (the admin budget) rather than the ordinary one."""

_Buckets = dict[str, tuple[float, float]]


class RateBudgets(Protocol):
    """Rate budgets per identity: what the admission pipeline and the sweeps need of them.

    ``RateLimiter`` keeps them in this process (``Coordination.limiter``, ``server/coordination.py``).
    """

    def check(self, identity: str, now: float | None = None, rate_class: RateClass = RateClass.DEFAULT) -> None:
        """Spend the cost of one ``rate_class`` call from ``identity``'s budget.

        Raises:
            ResourceExhausted: (RATE_LIMITED) the budget is spent.
        """
        ...

    def collect(self, now: float | None = None) -> None:
        """Forget budgets that have refilled (the sweeps call it)."""
        ...


class RateLimiter:
    """Token buckets per identity: ``limit`` tokens per ``window`` seconds, bursts up to ``limit``."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._rate = limit / window
        self._buckets: _Buckets = {}
        self._admin_buckets: _Buckets = {}
        # Resolved once: (buckets, cost) per class, so a check does no arithmetic on the class.
        self._plans: dict[RateClass, tuple[_Buckets, float]] = {
            rate_class: (
                self._admin_buckets if rate_class in OWN_BUDGET else self._buckets,
                float(min(cost, limit)),
            )
            for rate_class, cost in COSTS.items()
        }

    def check(self, identity: str, now: float | None = None, rate_class: RateClass = RateClass.DEFAULT) -> None:
        """Spend the cost of one ``rate_class`` call from ``identity``'s budget.

        Raises:
            ResourceExhausted: the budget is spent; ``retry_after`` is when the call's cost is available.
        """
        buckets, cost = self._plans[rate_class]
        now = time.monotonic() if now is None else now
        tokens, last = buckets.get(identity, (float(self.limit), now))
        tokens = min(float(self.limit), tokens + (now - last) * self._rate)
        if tokens < cost:
            buckets[identity] = (tokens, now)
            wait = (cost - tokens) / self._rate
            raise ResourceExhausted(
                "request rate limit exceeded",
                reason=Reason.RATE_LIMITED,
                metadata={
                    "limit": str(self.limit),
                    "windowSeconds": f"{self.window:g}",
                    "retryAfterSeconds": str(max(1, math.ceil(wait))),
                },
                retry_after=wait,
            )
        buckets[identity] = (tokens - cost, now)

    def collect(self, now: float | None = None) -> None:
        """Forget identities whose bucket has refilled (idle for a whole window)."""
        now = time.monotonic() if now is None else now
        for buckets in (self._buckets, self._admin_buckets):
            idle = [key for key, (_, last) in buckets.items() if now - last >= self.window]
            for key in idle:
                del buckets[key]
