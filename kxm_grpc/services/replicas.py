"""Replicas of one hub on a shared database: who is alive, who sweeps, and the cluster-wide stream cap.

Every decision here is a database transaction, so replicas agree without talking to each other:

- **Joining.** A replica starting first watches the other replicas' rows for a ttl and a
  heartbeat (``watch``): a row whose heartbeat moved is a live replica, one that did not is dead
  (by expiry alone, a replica restarted within a ttl would see its own dead row as live, and a
  joiner after a database outage longer than a ttl would take every live replica for dead). It
  then joins in one transaction that forgets the dead and counts the others. The first of a
  cluster (none left) also does, in that same transaction, what a lone hub does at start: mark
  every agent offline (no stream survived), arm the supersede timers of the agents holding step
  assignments (``step_runs.resume_after_restart``) and push live leases back by the downtime
  (decision 33). A replica joining a running cluster does neither: the database never stopped, so nothing
  was down. Two replicas starting together are serialised by the database: one of them is first.
- **Heartbeats.** Each replica pushes its ``expire_time`` ``ttl`` ahead every ``ttl / 5``; one
  that stops (killed, paused, cut off) is gone for the others once its time passes.
- **The sweeper.** The timers and the sweeps run on one replica at a time, the holder of the
  ``sweeper`` role: a row with an expiry that its holder renews with its heartbeat, so a holder
  that dies or is paused loses it within ``ttl`` and another live replica takes it (not a session
  advisory lock, which a paused process keeps forever). Overlap while a paused holder wakes up is
  harmless: each timer fires in a transaction that deletes it, and each sweep is a transaction.
- **Streams.** An agent's open Subscribe streams are rows, counted over live replicas when a
  stream opens, so the per-agent cap holds across the cluster; a dead replica's streams stop
  counting with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass

from kxm_grpc.domain.leases import Lease
from kxm_grpc.services import leases
from kxm_grpc.services.messages import stream_limit_reached
from kxm_grpc.services.workflows import step_runs
from kxm_grpc.store import Store, Tx

SWEEPER = "sweeper"
"""The role whose holder runs the timers and the sweeps."""


@dataclass(frozen=True, slots=True)
class Joined:
    """What joining found."""

    first: bool
    """No other replica was live: this start began the cluster (and did its start-up work)."""
    agents_marked_offline: int
    """Agents the start marked offline (only the first replica does)."""
    lease_downtime: int
    """Microseconds live leases were pushed back by (only the first replica does)."""


async def watch(store: Store, *, window: float) -> set[str]:
    """The replicas whose heartbeat did not move in ``window`` seconds: the dead (nothing to wait for when
    no replica has a row)."""
    before = await store.read(lambda tx: tx.replicas.heartbeats())
    if not before:
        return set()
    await asyncio.sleep(window)
    after = await store.read(lambda tx: tx.replicas.heartbeats())
    return {replica for replica, expire_time in before.items() if after.get(replica, expire_time) == expire_time}


async def join(
    store: Store,
    replica_id: str,
    host: str,
    pid: int,
    *,
    now: int,
    ttl: int,
    stale_after: int,
    dead: Collection[str] = (),
) -> Joined:
    """Join the cluster, forgetting the ``dead`` (``watch``); the first replica of a cluster start also does
    the start-up work (module docstring)."""

    def work(tx: Tx) -> tuple[Joined, list[Lease]]:
        others = tx.replicas.join(replica_id, host, pid, now, now + ttl, dead)
        if others:
            return Joined(False, 0, 0), []
        retired = tx.agents.mark_all_offline()
        step_runs.resume_after_restart(tx, stale_after=stale_after, now=now)
        shift, resumed = leases.resume(tx, now)
        return Joined(True, retired, shift), resumed

    joined, resumed = await store.write(work)
    leases.log_resumed(joined.lease_downtime, resumed)
    return joined


async def heartbeat(
    store: Store, replica_id: str, host: str, pid: int, streams: dict[str, str], *, now: int, ttl: int
) -> bool:
    """Renew this replica, and claim or renew the sweeper role; return whether it holds the role.

    ``streams`` (stream id → agent id) are this replica's open streams: if the others took it for
    dead (its row was gone: it was paused or cut off for longer than ``ttl``), it joins again with
    them, so they count again.
    """

    def work(tx: Tx) -> bool:
        if not tx.replicas.renew(replica_id, now + ttl):
            tx.replicas.rejoin(replica_id, host, pid, now, now + ttl)
            for stream_id, agent_id in streams.items():
                tx.replicas.add_stream(stream_id, agent_id, replica_id, now)
        return tx.replicas.claim(SWEEPER, replica_id, now, now + ttl)

    return await store.write(work)


async def leave(store: Store, replica_id: str) -> None:
    """Leave the cluster at shutdown: drop this replica, its streams and its roles at once."""
    await store.write(lambda tx: tx.replicas.leave(replica_id))


async def open_stream(store: Store, stream_id: str, agent_id: str, replica_id: str, *, now: int, limit: int) -> None:
    """Record an open stream of ``agent_id`` unless the agent has ``limit`` open on live replicas.

    Raises:
        ResourceExhausted: (STREAM_LIMIT_REACHED) the agent has ``limit`` streams open in the cluster.
    """

    def work(tx: Tx) -> None:
        if tx.replicas.count_streams(agent_id, now) >= limit:
            raise stream_limit_reached(limit)
        tx.replicas.add_stream(stream_id, agent_id, replica_id, now)

    await store.write(work)


async def close_stream(store: Store, stream_id: str) -> None:
    """Forget a closed stream."""
    await store.write(lambda tx: tx.replicas.remove_stream(stream_id))
