"""The running hub's shared state, handed to every servicer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from kxm_grpc.domain.clock import Clock, seconds
from kxm_grpc.server.expiry import DeadlineTimer, expiry_timer, lapse_timer
from kxm_grpc.server.ratelimit import RateLimiter
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Store


@dataclass
class HubState:
    """Settings, store, clock and the process-wide signals servicers need."""

    settings: Settings
    store: Store
    clock: Clock
    admin_token_hash: str | None
    limiter: RateLimiter
    shutting_down: asyncio.Event = field(default_factory=asyncio.Event)
    expiry: DeadlineTimer = field(default_factory=expiry_timer)
    lapses: DeadlineTimer = field(default_factory=lapse_timer)

    @property
    def stale_after(self) -> int:
        """The presence window in clock microseconds."""
        return seconds(self.settings.stale_after)

    def now(self) -> int:
        """The hub clock's current time."""
        return self.clock.now()
