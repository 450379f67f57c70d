"""The running hub's shared state, handed to every servicer and to the admission pipeline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from kxm_grpc.domain.clock import Clock, seconds
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.server.coordination import Coordination, InProcessCoordination
from kxm_grpc.server.ops_watch import OpsFeeds
from kxm_grpc.server.ratelimit import RateLimiter
from kxm_grpc.server.settings import Settings
from kxm_grpc.server.timers import TimerScheduler
from kxm_grpc.server.token_keys import TOKEN_KEYS
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.workflows.step_engine import EngineSettings
from kxm_grpc.store import Store


def limits_from(settings: Settings) -> Limits:
    """The limits the services apply, from the hub's settings."""
    return Limits(
        message_ttl=seconds(settings.message_ttl),
        lease_min_ttl=seconds(settings.testing_lease_min_ttl),
        stale_after=seconds(settings.stale_after),
        replay_horizon=seconds(settings.workflow_replay_horizon),
        workflow_retention=seconds(settings.workflow_retention),
        context_retention=seconds(settings.context_retention),
        context_state_retention=seconds(settings.context_state_retention),
    )


class HubState:
    """Settings, store, clock, the services' limits, token keys, process-wide signals and the process's coordination.

    ``coordination`` (``server/coordination.py``) holds everything the process coordinates beyond
    its database: lease wait queues, open streams, rate budgets, timers, sweeps and the
    authentication cache. It is in-process unless a factory for another is given; ``limiter`` and
    ``timers`` replace the in-process one's defaults (tests pass their own).

    Time has one spelling: ``now()`` where a service takes an instant (``now=hub.now()``), ``clock``
    where it reads the time more than once, as a wait does (``clock=hub.clock``, a ``Clock``).
    """

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Clock,
        admin_token_hash: str | None,
        limiter: RateLimiter | None = None,
        timers: TimerScheduler | None = None,
        *,
        coordination: Callable[[HubState], Coordination] | None = None,
        token_keys: Keyring | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        """The hub's clock, for services that read the time more than once (``now()`` for an instant)."""
        self.admin_token_hash = admin_token_hash
        self.limits = limits_from(settings)
        """What the services' rules read from the settings, built once."""
        self.token_keys = token_keys or TOKEN_KEYS.keyring(None, None)
        """The keyring that signs and verifies attempt and session tokens (``server/token_keys.py``;
        a random one for this process when none is given, as for an in-memory test hub)."""
        self.engine_settings = EngineSettings(
            stale_after=self.limits.stale_after,
            max_concurrent_runs=settings.max_concurrent_runs,
            token_keys=self.token_keys,
            message_ttl=self.limits.message_ttl,
            skill_optimization=settings.skill_optimization == "on",
        )
        """What the step engine's services need: presence window, admission, token keys."""
        self.shutting_down = asyncio.Event()
        self.ops_feeds = OpsFeeds(self)
        """The ops watch's readers of the watched projects, shared by their streams (``server/ops_watch.py``)."""
        self.coordination: Coordination = (
            coordination(self)
            if coordination is not None
            else InProcessCoordination(self, limiter=limiter, timers=timers)
        )

    @property
    def stale_after(self) -> int:
        """The presence window in clock microseconds."""
        return self.limits.stale_after

    @property
    def replay_horizon(self) -> int:
        """How long workflow delivery records are kept, in clock microseconds (``--workflow-replay-horizon``)."""
        return self.limits.replay_horizon

    def now(self) -> int:
        """The hub clock's current time."""
        return self.clock.now()
