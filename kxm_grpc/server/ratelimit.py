"""Rate limiting keyed on the authenticated identity (the original keyed it on an unauthenticated header)."""

from __future__ import annotations

import math
import time

from kxm_grpc.errors import Reason, ResourceExhausted


class RateLimiter:
    """A token bucket per identity: ``limit`` calls per ``window`` seconds, bursts up to ``limit``."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._rate = limit / window
        self._buckets: dict[str, tuple[float, float]] = {}

    def check(self, identity: str, now: float | None = None) -> None:
        """Spend one call of ``identity``'s budget.

        Raises:
            ResourceExhausted: the budget is spent; ``retry_after`` is when one call is available.
        """
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(identity, (float(self.limit), now))
        tokens = min(float(self.limit), tokens + (now - last) * self._rate)
        if tokens < 1.0:
            self._buckets[identity] = (tokens, now)
            wait = (1.0 - tokens) / self._rate
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
        self._buckets[identity] = (tokens - 1.0, now)

    def collect(self, now: float | None = None) -> None:
        """Forget identities whose bucket has refilled (idle for a whole window)."""
        now = time.monotonic() if now is None else now
        idle = [key for key, (_, last) in self._buckets.items() if now - last >= self.window]
        for key in idle:
            del self._buckets[key]
