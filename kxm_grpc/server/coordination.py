"""Per-process coordination: what one hub process shares among its calls, behind one object.

Every decision the hub makes is made in a database transaction. What a process adds is
coordination, and the hub state owns all of it in one place (``HubState.coordination``): servicers
and the admission pipeline reach it only there.

- **Lease wait queues**: who waits for a held lease, in arrival order (``services.leases``).
- **Stream registry**: the open Subscribe streams, the per-agent cap, slow-consumer cut-off and
  the presence of listening agents (``server/streams.py``).
- **Rate budgets**: the token buckets per authenticated identity (``server/ratelimit.py``).
- **Timers**: the scheduler that fires every durable timer at its deadline (``server/timers.py``);
  it wakes on the store notifier's ``services.timers.DEADLINES_TOPIC``, which every transaction
  that writes a deadline publishes, whoever called the service.
- **Sweeps**: the periodic housekeeping (``server/sweeps.py``).
- **Authentication cache**: admitted credentials, until a credential changes (``services.auth``).

``Coordination`` is what an implementation provides. ``InProcessCoordination`` is the one for a
hub alone on its database (SQLite: one hub process per database file). ``ReplicaCoordination``
(``server/replicas.py``) is the one for a replica of several on a shared database (PostgreSQL),
where "alone" no longer holds: the start-up work done once per cluster start, stream caps counted
in the database, one replica at a time running the timers and the sweeps, credentials checked
against the database on every call; wake-ups arrive from the other replicas by LISTEN/NOTIFY
(``store/postgres/listener.py``). Rate budgets stay per process (``docs/deploy.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from kxm_grpc.errors import ResourceExhausted
from kxm_grpc.server.ratelimit import RateBudgets, RateLimiter
from kxm_grpc.server.streams import Abort, Stream, Subscribers
from kxm_grpc.server.sweeps import run_sweeps
from kxm_grpc.server.timers import TimerScheduler
from kxm_grpc.services import leases
from kxm_grpc.services.auth import AuthCache
from kxm_grpc.services.leases import LeaseQueues, WaitQueues
from kxm_grpc.services.messages import Subscription
from kxm_grpc.services.workflows import step_runs
from kxm_grpc.store import Store, Timer, Tx

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState


class StreamRegistry(Protocol):
    """The open inbox streams and their caps (``server/streams.py``)."""

    async def open(self, subscription: Subscription, abort: Abort) -> Stream:
        """Register a new stream of the subscribing agent; ``abort`` ends it with an error.

        Raises:
            ResourceExhausted: (STREAM_LIMIT_REACHED) the agent has the maximum number of streams open.
        """
        ...

    def close(self, stream: Stream) -> None:
        """Forget a stream (idempotent)."""
        ...

    def too_slow(self, stream: Stream) -> ResourceExhausted | None:
        """The error that ends a stream whose consumer fell too far behind, or None."""
        ...


class Deadlines(Protocol):
    """The scheduler of the durable timers (``server/timers.py``)."""

    def note(self, deadline: int) -> None:
        """A timer was written for ``deadline`` outside the notifier's knowledge: wake if it is earlier."""
        ...

    async def fire_due(self, store: Store, now: int) -> list[Timer]:
        """Fire every timer due at ``now`` (the sweeps' backstop)."""
        ...


@dataclass(frozen=True, slots=True)
class Started:
    """What a hub process's start did before it served (logged by ``hub_started``)."""

    agents_marked_offline: int
    """Agents marked offline because no stream survived the restart."""
    lease_downtime: int
    """Microseconds live leases were pushed back by (decision 33)."""
    first: bool = True
    """Whether this start began the hub (alone on its database, or the first replica of a cluster)."""


class Coordination(Protocol):
    """Everything a hub process coordinates beyond its database (see the module docstring)."""

    async def start(self) -> Started:
        """Do what a start of this process needs before it serves (see each implementation)."""
        ...

    async def stop(self) -> None:
        """Let go of what this process holds beyond its connections (at shutdown, after serving)."""
        ...

    @property
    def limiter(self) -> RateBudgets:
        """The rate budgets the admission pipeline charges."""
        ...

    @property
    def lease_queues(self) -> WaitQueues:
        """The queues of waiting acquires."""
        ...

    @property
    def streams(self) -> StreamRegistry:
        """The open Subscribe streams."""
        ...

    @property
    def timers(self) -> Deadlines:
        """The timer scheduler."""
        ...

    @property
    def auth_cache(self) -> AuthCache:
        """Admitted credentials, dropped when a credential changes (the cache is ``services.auth``'s)."""
        ...

    async def run_timers(self) -> None:
        """Fire the durable timers at their deadlines until cancelled."""
        ...

    async def run_sweeps(self) -> None:
        """Run the periodic sweeps until the hub shuts down or the task is cancelled."""
        ...


class InProcessCoordination:
    """Coordination for a hub process that is alone on its database."""

    def __init__(
        self, hub: HubState, *, limiter: RateLimiter | None = None, timers: TimerScheduler | None = None
    ) -> None:
        settings = hub.settings
        self._hub = hub
        self.limiter: RateLimiter = limiter or RateLimiter(settings.rate_limit, settings.rate_window)
        self.lease_queues: LeaseQueues = LeaseQueues()
        self.streams: Subscribers = Subscribers(hub)
        self.timers: TimerScheduler = timers or TimerScheduler(limits=hub.limits, engine=hub.engine_settings)
        self.auth_cache: AuthCache = AuthCache(hub.store)

    async def start(self) -> Started:
        """Alone on its database, every start begins the hub: no agent's stream survived it (all are
        marked offline, and an assignee that does not call again within the presence window loses
        its step assignments), and live leases keep every microsecond they had (pushed back by the
        downtime)."""
        store, now, stale_after = self._hub.store, self._hub.now(), self._hub.stale_after

        def begin(tx: Tx) -> int:
            # In one transaction with marking them offline: the assignees' supersede timers.
            retired = tx.agents.mark_all_offline()
            step_runs.resume_after_restart(tx, stale_after=stale_after, now=now)
            return retired

        retired = await store.write(begin)
        downtime = await leases.resume_after_restart(store, now=now)
        return Started(retired, downtime)

    async def stop(self) -> None:
        """Nothing to let go of: a lone process's state ends with it."""

    async def run_timers(self) -> None:
        """Fire the durable timers at their deadlines until cancelled."""
        await self.timers.run(self._hub)

    async def run_sweeps(self) -> None:
        """Run the periodic sweeps until the hub shuts down or the task is cancelled."""
        await run_sweeps(self._hub)
