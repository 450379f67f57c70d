"""Coordination for one of several hub replicas on a shared database (PostgreSQL).

``ReplicaCoordination`` is ``InProcessCoordination`` (``server/coordination.py``) with what changes
when the process is not alone on its database; each decision is a transaction of
``services/replicas.py``:

- **Start**: join the cluster; only its first replica does the start-up work of a lone hub.
- **Heartbeats** every ``replica_ttl / 5``: renew this replica and claim or renew the sweeper role.
- **Timers and sweeps** run only while this replica holds the sweeper role; they stop when it is
  lost (another replica took it while this one was paused or cut off) and start when it is won.
- **Streams** count against the per-agent cap across the cluster (a row per stream).
- **Credentials**: the authentication cache reads the durable credentials version on every call
  (``recheck`` 0), so a credential revoked or rotated on any replica is refused on every replica
  from the next call; a cached success still saves the hashing.
- **Clock**: decisions use the database server's clock (``DatabaseClock``), so replicas on
  machines whose clocks disagree still agree on when a lease or a message expires.

Lease wait queues and rate budgets stay per process: a queued acquirer is woken by a release on
any replica (the notification) and tries again, and a client spread over N replicas gets N times
the rate limit (``docs/deploy.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import structlog

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.server.coordination import InProcessCoordination, Started
from kxm_grpc.server.streams import Abort, Stream, Subscribers
from kxm_grpc.server.sweeps import DATABASE_SWEEPS, LOCAL_SWEEPS, run_sweeps
from kxm_grpc.services import replicas
from kxm_grpc.services.auth import AuthCache
from kxm_grpc.services.messages import Subscription
from kxm_grpc.store import Store

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.replicas")

CLOCK_RESYNC = 30.0
"""Seconds between two readings of the database's clock (its offset from this machine's drifts slowly)."""


class DatabaseClock:
    """The database server's clock, read as this machine's monotonic clock plus an offset measured at ``sync``.

    Reading the database for every decision would cost a round trip each; the offset costs one per
    ``CLOCK_RESYNC``. The store pairs the server's reading with the monotonic clock on its worker,
    best of three (``Store.database_time``), so the offset is right to within half a round trip
    however late the event loop gets back to it (before, the loop's delay in resuming counted, and
    a preempted worker too: replicas of a busy machine disagreed by ~100 ms). Between
    readings it follows the monotonic clock, so a step of this machine's wall clock changes
    nothing, and it never goes backwards: a reading lower than the time already handed out holds
    the clock still until it catches up. Lease decisions read it inside their transactions, on the
    store's worker threads, so it takes a lock.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self.offset = time.time_ns() // 1000 - time.monotonic_ns() // 1000
        """Microseconds to add to this machine's monotonic clock."""
        self._last = 0
        self._lock = threading.Lock()

    def now(self) -> int:
        """The database's time now, in microseconds since the epoch (never less than a time returned before)."""
        with self._lock:
            value = max(self._last, time.monotonic_ns() // 1000 + self.offset)
            self._last = value
        return value

    async def sync(self) -> None:
        """Measure the offset again.

        Raises:
            HubError: the database could not be asked.
        """
        server, at = await self._store.database_time()
        self.offset = server - at


class ClusterStreams(Subscribers):
    """The open streams of this replica, each also a row the cluster counts against the per-agent cap."""

    def __init__(self, hub: HubState, replica_id: str) -> None:
        super().__init__(hub)
        self._replica_id = replica_id
        self.open_ids: dict[str, str] = {}
        """This replica's open streams: stream id → agent id (re-registered if the others took it for dead)."""
        self._closing: set[asyncio.Task[None]] = set()

    async def open(self, subscription: Subscription, abort: Abort) -> Stream:
        """Register a stream here and in the cluster's count (see ``Subscribers.open``).

        Raises:
            ResourceExhausted: (STREAM_LIMIT_REACHED) the agent has the maximum number of streams
                open on this replica or across the cluster.
        """
        stream = await super().open(subscription, abort)
        hub = self._hub
        if self._closing:
            await self.drain()  # a stream just closed (a resubscribe) must not count against the cap
        recording = asyncio.ensure_future(
            replicas.open_stream(
                hub.store,
                stream.id,
                stream.agent_id,
                self._replica_id,
                now=hub.now(),
                limit=hub.settings.max_streams_per_agent,
            )
        )
        try:
            await asyncio.shield(recording)
        except BaseException:
            super().close(stream)
            # Cancelled, the write goes on and may still commit: remove the row once it is done.
            recording.add_done_callback(lambda done: self._forget_after(done, stream.id))
            raise
        self.open_ids[stream.id] = stream.agent_id
        return stream

    def close(self, stream: Stream) -> None:
        """Forget a stream here at once and in the cluster's count soon after (a failure there is logged:
        the row goes when this replica leaves or is taken for dead)."""
        super().close(stream)
        if self.open_ids.pop(stream.id, None) is not None:
            self._forget_soon(stream.id)

    def _forget_after(self, recording: asyncio.Future[None], stream_id: str) -> None:
        if not recording.cancelled() and recording.exception() is not None:
            return  # refused (the cap) or failed: no row was written
        self._forget_soon(stream_id)

    def forget(self, stream_id: str) -> None:
        """Remove a stream's row soon (idempotent), e.g. one a rejoin may have written again."""
        self._forget_soon(stream_id)

    def _forget_soon(self, stream_id: str) -> None:
        task = asyncio.get_running_loop().create_task(self._forget(stream_id), name="kxm-stream-close")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _forget(self, stream_id: str) -> None:
        try:
            await replicas.close_stream(self._hub.store, stream_id)
        except Exception:
            log.warning("stream_row_not_removed", stream_id=stream_id, exc_info=True)

    async def drain(self) -> None:
        """Wait for the pending removals (at shutdown, before leaving)."""
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


class ReplicaCoordination(InProcessCoordination):
    """Coordination for a replica of several on one shared database (see the module docstring)."""

    def __init__(self, hub: HubState) -> None:
        super().__init__(hub)
        self.replica_id: str = getattr(hub.store, "replica_id", None) or new_id("rep")
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.streams: ClusterStreams = ClusterStreams(hub, self.replica_id)
        self.auth_cache = AuthCache(hub.store, recheck=0.0)
        self.sweeping = asyncio.Event()
        """Set while this replica holds the sweeper role."""
        self._resigned = asyncio.Event()
        self._resigned.set()
        self._heartbeats: asyncio.Task[None] | None = None
        self._held_until = 0.0
        """When (monotonic) the sweeper role this replica last claimed lapses, counted from before the claim."""

    @property
    def ttl(self) -> int:
        """How long a replica (and its sweeper role) counts as live after its last heartbeat, microseconds."""
        return int(self._hub.settings.replica_ttl * MICROS)

    async def start(self) -> Started:
        """Join the cluster (the first replica of a cluster start does the start-up work), then claim the
        sweeper role and start the heartbeats."""
        hub = self._hub
        # A ttl and a heartbeat: long enough that any live replica beat at least once, even a slow one.
        dead = await replicas.watch(hub.store, window=hub.settings.replica_ttl * 1.2)
        joined = await replicas.join(
            hub.store,
            self.replica_id,
            self.host,
            self.pid,
            now=hub.now(),
            ttl=self.ttl,
            stale_after=hub.stale_after,
            dead=dead,
        )
        log.info("replica_joined", replica_id=self.replica_id, first=joined.first)
        await self._beat()
        self._heartbeats = asyncio.get_running_loop().create_task(self._run_heartbeats(), name="kxm-heartbeats")
        return Started(joined.agents_marked_offline, joined.lease_downtime, first=joined.first)

    async def stop(self) -> None:
        """Stop the heartbeats and leave: this replica's streams and roles go at once, not a ttl later."""
        if self._heartbeats is not None:
            self._heartbeats.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeats
            self._heartbeats = None
        await self.streams.drain()
        await replicas.leave(self._hub.store, self.replica_id)
        log.info("replica_left", replica_id=self.replica_id)

    async def _beat(self) -> None:
        hub = self._hub
        started = time.monotonic()
        open_now = dict(self.streams.open_ids)
        holds = await replicas.heartbeat(
            hub.store, self.replica_id, self.host, self.pid, open_now, now=hub.now(), ttl=self.ttl
        )
        for stream_id in open_now.keys() - self.streams.open_ids.keys():
            self.streams.forget(stream_id)  # closed while a rejoin may have written its row again
        if holds:
            self._held_until = started + hub.settings.replica_ttl
            if not self.sweeping.is_set():
                log.info("sweeper_role_taken", replica_id=self.replica_id)
                self._resigned.clear()
                self.sweeping.set()
        elif self.sweeping.is_set():
            self._resign("lost")

    def _resign(self, why: str) -> None:
        log.info("sweeper_role_lost", replica_id=self.replica_id, why=why)
        self.sweeping.clear()
        self._resigned.set()

    def _resign_if_lapsed(self) -> None:
        """Stop sweeping once the role this replica last claimed has lapsed: while its heartbeats fail it
        cannot know that another replica has not taken the role."""
        if self.sweeping.is_set() and time.monotonic() >= self._held_until:
            self._resign("heartbeats failing")

    async def _run_heartbeats(self) -> None:
        """Beat every ``ttl / 5`` and re-read the database's clock every ``CLOCK_RESYNC``; a failed beat is
        logged and the next one tried (after ``ttl`` of failures the others take this replica for dead)."""
        hub = self._hub
        interval = hub.settings.replica_ttl / 5
        synced = time.monotonic()
        while True:
            await asyncio.sleep(interval)
            try:
                await self._beat()
                if isinstance(hub.clock, DatabaseClock) and time.monotonic() - synced >= CLOCK_RESYNC:
                    await hub.clock.sync()
                    synced = time.monotonic()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("replica_heartbeat_failed", replica_id=self.replica_id, exc_info=True)
                self._resign_if_lapsed()

    async def _while_sweeper(self, run: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``run`` each time this replica holds the sweeper role, cancelling it when the role is lost."""
        while True:
            await self.sweeping.wait()
            task: asyncio.Task[None] = asyncio.get_running_loop().create_task(run())
            resigned = asyncio.get_running_loop().create_task(self._resigned.wait())
            try:
                await asyncio.wait({task, resigned}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                resigned.cancel()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if task.done() and not task.cancelled() and self.sweeping.is_set():
                return  # it ended by itself (the sweeps end at shutdown)

    async def run_timers(self) -> None:
        """Fire the durable timers while this replica is the sweeper."""
        await self._while_sweeper(super().run_timers)

    async def run_sweeps(self) -> None:
        """Sweep this process's memory always, and the database while this replica is the sweeper."""
        hub = self._hub
        await asyncio.gather(
            run_sweeps(hub, LOCAL_SWEEPS), self._while_sweeper(lambda: run_sweeps(hub, DATABASE_SWEEPS))
        )
