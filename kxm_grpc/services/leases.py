"""Fenced leases (spec §8): every decision in one write transaction on the hub's clock.

The rules live in ``kxm_grpc.domain.leases``; this module reads the fence, applies a rule and
stores the result in the same transaction, logs the outcome, and adds what needs the event loop:

- **Requests.** Every function takes a request's values as given (names untrimmed, durations in
  microseconds, None when unset) and applies the rules itself: validation, the TTL default and
  bounds (the minimum from ``Limits.lease_min_ttl``), the wait's bound and its cut to the time the
  caller still listens. Each grant's and renewal's deadline is a durable timer written in its
  transaction, which wakes the hub's timer scheduler by itself (``services.timers.schedule``).
- **Waiting acquires.** An acquire with a wait joins a FIFO queue for its (project, name) in this
  process (the hub's ``Coordination.lease_queues``). Only the head of the queue tries; it wakes when
  a release is published on the ``lease:<project>/<name>`` topic, when the blocking grant's expiry
  passes on the hub's clock, or at least once a second, and gives up when its wait ends. An acquire
  without a wait never queues: it gets a free lease at once, even with waiters queued (fairness is
  among waiters).
- **Restarts.** Leases are decided on the hub's clock, which keeps running while the hub is down.
  The hub records when it was last alive (``leases.alive_time``): on every lease write, refused
  renewals included, by a sweep while leases are live, and at the moment each grant lapses (its
  ``lease_lapse`` timer, ``LAPSE_TIMER``: written with the grant, moved by each renewal, deleted
  by the release; ``services.timers``). At start it pushes back by the downtime every grant that
  was live at that mark (and its timer), so no lease loses time to a crash, and a grant that
  lapsed while the hub was alive stays lapsed: its expiry is at or before the mark. A refused
  renewal commits its mark with the refusal, so it holds across any restart. The window left is the
  lapse timer's latency: a crash after a grant's expiry but before the timer's mark commits
  (about a millisecond on an idle hub; longer when the event loop lags or the writer is busy)
  gives that grant back for what it had left at the previous mark, and a ``CheckFence`` (which
  writes nothing) that called it lapsed inside that window may then be contradicted.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from dataclasses import dataclass
from typing import Protocol

import structlog

from kxm_grpc import failpoints
from kxm_grpc.domain import leases as rules
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.clock import MICROS, Clock
from kxm_grpc.domain.leases import Acquired, Fence, Holder, Lease
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.waits import Wait, bounded_wait, wait_seconds
from kxm_grpc.errors import FailedPrecondition, HubError, Reason
from kxm_grpc.services import timers
from kxm_grpc.services.limits import LIMITS, Limits
from kxm_grpc.store import Store, Timer, Tx

log = structlog.get_logger("kxm.leases")

ALIVE_KEY = "leases.alive_time"
LAPSE_TIMER = "lease_lapse"
"""The timer kind of a grant's expiry (key: ``project/name``): marks the hub alive when it lapses."""

# A queued head re-checks at least this often (seconds), whatever woke it or not.
_RECHECK = 1.0

LeaseKey = tuple[str, str]


def lease_topic(project: str, name: str) -> str:
    """The notifier topic of one lease (project names never contain ``/``, so this is unambiguous)."""
    return f"lease:{project}/{name}"


def _holder(caller: Caller) -> Holder:
    assert caller.agent_id is not None and caller.agent_name is not None
    return Holder(caller.agent_id, caller.agent_name)


def _project(caller: Caller) -> str:
    assert caller.project is not None
    return caller.project


def _mark_alive(tx: Tx, now: int) -> None:
    """Record that the hub was alive at ``now``. The mark never moves back: a sweep's older reading of
    the clock, or a replica whose clock is a little behind, must not undo a later mark (a restart would
    then take a grant that lapsed after the earlier mark for live and give it back)."""
    current = tx.meta.get(ALIVE_KEY)
    if current is None or int(current) < now:
        tx.meta.put(ALIVE_KEY, str(now))


def _lapse_key(project: str, name: str) -> str:
    """The ``lease_lapse`` timer key of a name (project names never contain ``/``)."""
    return f"{project}/{name}"


def _granted(tx: Tx, lease: Lease) -> None:
    """Set the grant's lapse timer to its expiry (a new grant, a renewal, a restart's extension)."""
    timers.schedule(tx, LAPSE_TIMER, _lapse_key(lease.project, lease.name), lease.expire_time)


class WaitQueues(Protocol):
    """Arrival-order queues of waiting acquires, one per (project, name): what ``acquire_lease`` needs.

    ``LeaseQueues`` holds them in this process; a hub of several replicas needs queues they share.
    """

    def waiting(self, key: LeaseKey) -> int:
        """How many acquires wait for the lease."""
        ...

    def join(self, key: LeaseKey) -> asyncio.Event:
        """Queue a waiter; its event is set when it reaches the head."""
        ...

    def leave(self, key: LeaseKey, turn: asyncio.Event) -> None:
        """Remove a waiter (served, timed out or cancelled) and wake the next head."""
        ...


class LeaseQueues:
    """FIFO queues of waiting acquires, one per (project, name), in this process.

    A waiter joins with ``join`` and may try for the lease only once its turn event is set (it is
    at the head). ``leave`` hands the turn to the next waiter.
    """

    def __init__(self) -> None:
        self._queues: dict[LeaseKey, deque[asyncio.Event]] = {}

    def waiting(self, key: LeaseKey) -> int:
        """How many acquires wait for the lease."""
        return len(self._queues.get(key, ()))

    def join(self, key: LeaseKey) -> asyncio.Event:
        """Queue a waiter; its event is set when it reaches the head."""
        turn = asyncio.Event()
        queue = self._queues.setdefault(key, deque())
        queue.append(turn)
        if len(queue) == 1:
            turn.set()
        return turn

    def leave(self, key: LeaseKey, turn: asyncio.Event) -> None:
        """Remove a waiter (served, timed out or cancelled) and wake the next head."""
        queue = self._queues.get(key)
        if queue is None or turn not in queue:
            return
        was_head = queue[0] is turn
        queue.remove(turn)
        if not queue:
            del self._queues[key]
        elif was_head:
            queue[0].set()


@dataclass(frozen=True, slots=True)
class _Blocked:
    """An attempt found the lease held by another agent (or free but promised to earlier waiters)."""

    lease: Lease | None


async def _attempt(
    store: Store, project: str, name: str, holder: Holder, *, clock: Clock, ttl: int, take_free: bool
) -> Acquired | _Blocked:
    def work(tx: Tx) -> Acquired | _Blocked:
        now = clock.now()  # when the transaction runs, not when the call arrived (see renew_lease)
        fence = tx.leases.get(project, name)
        live = fence.live_lease(now) if fence is not None else None
        if live is not None and not live.held_by(holder):
            return _Blocked(live)
        if live is None and not take_free:
            return _Blocked(None)
        acquired = rules.acquire(fence, project, name, holder, now=now, ttl=ttl)
        tx.leases.put(acquired.fence)
        failpoints.hit("lease_grant_after_token")
        _granted(tx, acquired.lease)
        _mark_alive(tx, now)
        return acquired

    return await store.write(work)


def _log_acquired(acquired: Acquired) -> Acquired:
    lease = acquired.lease
    log.info(
        "lease_acquired",
        project=lease.project,
        name=lease.name,
        holder_agent_id=lease.holder_agent_id,
        fencing_token=lease.fencing_token,
        acquire_time=lease.acquire_time,
        expire_time=lease.expire_time,
        renewed=acquired.renewed,
    )
    return acquired


def _denied(action: str, project: str, name: str, caller: Caller, error: HubError) -> HubError:
    log.info(
        "lease_denied",
        action=action,
        project=project,
        name=name,
        agent_id=caller.agent_id,
        reason=str(error.reason),
        fencing_token=error.metadata.get("fencingToken"),
        presented_token=error.metadata.get("presentedToken"),
    )
    return error


def _ttl(ttl: int | None, limits: Limits) -> int:
    return rules.ttl(ttl, minimum=limits.lease_min_ttl)


async def acquire_lease(
    store: Store,
    caller: Caller,
    name: str,
    *,
    ttl: int | None,
    wait: Wait | None = None,
    clock: Clock,
    queues: WaitQueues,
    limits: Limits = LIMITS,
    time_remaining: float | None = None,
) -> Acquired:
    """Acquire (or extend the caller's own) lease; with a ``wait``, queue until it is free.

    ``ttl`` is in microseconds (None: 5 min); ``wait`` is at most 10 min (None: no wait), and is cut
    to ``time_remaining`` (seconds the caller still listens), so a wait that ends answers LEASE_HELD
    before the caller gives up. Every argument is checked before anything is written. ``clock`` is
    the hub's (a ``Clock``, as for every service that waits): each attempt reads it again.

    Raises:
        InvalidArgument: the name is empty or too long; ``ttl`` is outside ``limits.lease_min_ttl``
            to 10 min; ``wait`` is negative or longer than 10 min.
        FailedPrecondition: another agent holds it, still after the wait if there was one (LEASE_HELD).
    """
    name = rules.lease_name(name)
    granted_ttl = _ttl(ttl, limits)
    waiting = wait_seconds(bounded_wait(wait, default=0, maximum=rules.MAX_WAIT), time_remaining)
    return await _acquire(store, caller, name, ttl=granted_ttl, wait=waiting, clock=clock, queues=queues)


async def _acquire(
    store: Store,
    caller: Caller,
    name: str,
    *,
    ttl: int,
    wait: float,
    clock: Clock,
    queues: WaitQueues,
) -> Acquired:
    """Acquire a valid name for ``ttl`` microseconds, queueing for up to ``wait`` seconds (counted from now)."""
    project, holder = _project(caller), _holder(caller)
    key = (project, name)
    loop = asyncio.get_running_loop()
    began = loop.time()
    wait_until = began + wait  # the first attempt's write comes out of the wait
    first = await _attempt(
        store, project, name, holder, clock=clock, ttl=ttl, take_free=wait <= 0 or not queues.waiting(key)
    )
    if isinstance(first, Acquired):
        return _log_acquired(first)
    if wait <= 0:
        assert first.lease is not None  # without a wait a free lease is always taken
        raise _denied("acquire", project, name, caller, rules.lease_held(first.lease))
    took = loop.time() - began
    acquired = await _wait_in_line(
        store,
        project,
        name,
        holder,
        ttl=ttl,
        wait=max(0.0, wait_until - loop.time()),
        clock=clock,
        queues=queues,
        took=took,
    )
    if acquired is not None:
        return _log_acquired(acquired)
    raise _denied("acquire", project, name, caller, await _refusal(store, project, name, holder, clock.now()))


async def _wait_in_line(
    store: Store,
    project: str,
    name: str,
    holder: Holder,
    *,
    ttl: int,
    wait: float,
    clock: Clock,
    queues: WaitQueues,
    took: float = 0.0,
) -> Acquired | None:
    """Queue for the lease until granted (the grant) or the wait ends (None).

    ``took`` is how long the last attempt (a write) took: one started with less of the wait left
    than that would likely answer after the caller stopped listening, so none is (B16-waits, slow
    commits); each attempt here updates it.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    topic = lease_topic(project, name)
    key = (project, name)
    turn = queues.join(key)
    try:
        while (remaining := deadline - loop.time()) > took:
            if not turn.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(turn.wait(), remaining)
                continue
            seen = store.notifier.version(topic)
            began = loop.time()
            outcome = await _attempt(store, project, name, holder, clock=clock, ttl=ttl, take_free=True)
            took = loop.time() - began
            if isinstance(outcome, Acquired):
                return outcome
            # Sleep until a release is published, the blocking grant lapses, or the wait ends.
            delay = min(deadline - loop.time(), _RECHECK)
            if outcome.lease is not None:
                delay = min(delay, max(0.0, (outcome.lease.expire_time - clock.now()) / MICROS) + 0.001)
            if delay > 0:
                await store.notifier.wait(topic, seen, delay)
        return None
    finally:
        queues.leave(key, turn)


async def _refusal(store: Store, project: str, name: str, holder: Holder, now: int) -> HubError:
    """The LEASE_HELD error describing who holds the lease now."""
    fence = await store.read(lambda tx: tx.leases.get(project, name))
    live = fence.live_lease(now) if fence is not None else None
    if live is not None and not live.held_by(holder):
        return rules.lease_held(live)
    # Free, but promised to acquires that queued earlier (the caller's wait ended first).
    return FailedPrecondition(
        f"lease on {name} is free but earlier waiters are queued for it",
        reason=Reason.LEASE_HELD,
        metadata={"name": name},
    )


async def renew_lease(
    store: Store, caller: Caller, name: str, token: int, *, ttl: int | None, clock: Clock, limits: Limits = LIMITS
) -> Lease:
    """Extend the caller's live lease to ``now + ttl``; its token and acquire time stay.

    ``ttl`` is in microseconds (None: 5 min). ``now`` is read from ``clock`` when the transaction runs,
    not when the call arrived: a renewal that waited for the writer past the lease's expiry is refused
    (LEASE_EXPIRED), as a ``CheckFence`` in the meantime said, instead of reviving the lease.

    Raises:
        InvalidArgument: the name is empty or too long; no token (LEASE_TOKEN_REQUIRED); ``ttl``
            is outside ``limits.lease_min_ttl`` to 10 min.
        NotFound: no lease is held on the name (LEASE_NOT_FOUND).
        Aborted: the caller is not the holder or the token is not current (LEASE_SUPERSEDED).
        FailedPrecondition: the lease lapsed (LEASE_EXPIRED).
    """
    name = rules.lease_name(name)
    token = rules.presented_token(token)
    renewed_ttl = _ttl(ttl, limits)
    project, holder = _project(caller), _holder(caller)

    def work(tx: Tx) -> Lease | HubError:
        now = clock.now()
        try:
            fence = rules.renew(tx.leases.get(project, name), name, holder, token, now=now, ttl=renewed_ttl)
        except HubError as refused:
            if refused.reason is Reason.LEASE_EXPIRED:
                # Committed with the refusal: a grant the hub has called lapsed must never be given
                # back by a restart (see the module docstring). Other refusals write nothing, so a
                # caller renewing random names cannot make the hub commit.
                _mark_alive(tx, now)
            return refused
        tx.leases.put(fence)
        assert fence.lease is not None
        _granted(tx, fence.lease)
        _mark_alive(tx, now)
        return fence.lease

    outcome = await store.write(work)
    if isinstance(outcome, HubError):
        raise _denied("renew", project, name, caller, outcome) from None
    lease = outcome
    log.info(
        "lease_renewed",
        project=project,
        name=name,
        holder_agent_id=lease.holder_agent_id,
        fencing_token=lease.fencing_token,
        expire_time=lease.expire_time,
    )
    return lease


async def release_lease(store: Store, caller: Caller, name: str, token: int, *, now: int) -> Lease:
    """End the caller's lease (live or lapsed); the name's token high-water mark stays.

    Raises:
        InvalidArgument: the name is empty or too long; no token (LEASE_TOKEN_REQUIRED).
        NotFound: no lease is held on the name (LEASE_NOT_FOUND).
        Aborted: the caller is not the holder or the token is not current (LEASE_SUPERSEDED).
    """
    name = rules.lease_name(name)
    token = rules.presented_token(token)
    project, holder = _project(caller), _holder(caller)

    def work(tx: Tx) -> Lease:
        fence, released = rules.release(tx.leases.get(project, name), name, holder, token)
        tx.leases.put(fence)
        timers.cancel(tx, LAPSE_TIMER, _lapse_key(project, name))
        tx.notify(lease_topic(project, name))
        return released

    try:
        lease = await store.write(work)
    except HubError as error:
        raise _denied("release", project, name, caller, error) from None
    log.info(
        "lease_released",
        project=project,
        name=name,
        holder_agent_id=lease.holder_agent_id,
        fencing_token=lease.fencing_token,
        release_time=now,
    )
    return lease


async def get_lease(store: Store, caller: Caller, name: str) -> Lease:
    """The current grant of a name in the caller's project, live or lapsed.

    Raises:
        InvalidArgument: the name is empty or too long.
        NotFound: no lease is held on the name (LEASE_NOT_FOUND).
    """
    name = rules.lease_name(name)
    project = _project(caller)
    fence = await store.read(lambda tx: tx.leases.get(project, name))
    if fence is None or fence.lease is None:
        raise rules.lease_not_found(name)
    return fence.lease


async def list_leases(
    store: Store, caller: Caller, size: int, token: str, *, include_lapsed: bool, now: int
) -> tuple[list[Lease], str]:
    """The caller's project's leases by name, one page at a time.

    Raises:
        InvalidArgument: negative page size or a bad page token.
    """
    project = _project(caller)
    limit = page_size(size)
    query = f"leases:{project}:{include_lapsed}"
    after = decode_page_token(token, query)
    leases = await store.read(
        lambda tx: tx.leases.list_page(project, after, limit + 1, now=now, include_lapsed=include_lapsed)
    )
    if len(leases) > limit:
        return leases[:limit], encode_page_token(leases[limit - 1].name, query)
    return leases, ""


async def check_fence(store: Store, caller: Caller, name: str, token: int, *, now: int) -> Lease:
    """The grant ``token`` belongs to, if it is the name's current, live grant.

    Raises:
        InvalidArgument: the name is empty or too long; no token (LEASE_TOKEN_REQUIRED).
        NotFound: the name was never leased in the project, or its grant was released (LEASE_NOT_FOUND).
        Aborted: a newer token was granted (LEASE_SUPERSEDED).
        FailedPrecondition: the token is the latest but its lease lapsed (LEASE_EXPIRED).
    """
    name = rules.lease_name(name)
    token = rules.presented_token(token)
    project = _project(caller)
    fence: Fence | None = await store.read(lambda tx: tx.leases.get(project, name))
    return rules.check_fence(fence, name, token, now=now)


def resume(tx: Tx, now: int) -> tuple[int, list[Lease]]:
    """Push back every grant that was live when the hub was last alive by the downtime, in ``tx``.

    Returns the downtime added (microseconds) and the grants it moved; ``log_resumed`` logs them
    once the transaction committed.
    """
    alive = tx.meta.get(ALIVE_KEY)
    shift, resumed = 0, []
    if alive is not None:
        shift = max(0, now - int(alive))
        if shift:
            resumed = tx.leases.extend_live(int(alive), shift)
            for lease in resumed:
                _granted(tx, lease)
    _mark_alive(tx, now)
    return shift, resumed


async def resume_after_restart(store: Store, *, now: int) -> int:
    """At start: push back every grant that was live when the hub was last alive by the downtime.

    Returns the downtime added, in microseconds.
    """
    shift, resumed = await store.write(lambda tx: resume(tx, now))
    log_resumed(shift, resumed)
    return shift


def log_resumed(shift: int, resumed: list[Lease]) -> None:
    """Log each grant ``resume`` moved by ``shift``."""
    for lease in resumed:
        log.info(
            "lease_resumed",
            project=lease.project,
            name=lease.name,
            holder_agent_id=lease.holder_agent_id,
            fencing_token=lease.fencing_token,
            acquire_time=lease.acquire_time,
            expire_time=lease.expire_time,
            shift=shift,
        )


def _fire_lapse(tx: Tx, timer: Timer, now: int) -> None:
    """At a grant's expiry (its ``lease_lapse`` timer): record that the hub was alive when it lapsed."""
    _mark_alive(tx, now)


def register_timers(kinds: timers.TimerKinds) -> None:
    """Register what happens when a grant lapses (``LAPSE_TIMER``) with the hub's scheduler."""
    kinds.register(LAPSE_TIMER, _fire_lapse)


async def keep_alive(store: Store, *, now: int) -> bool:
    """Record that the hub is alive, while any grant would need it after a crash; True if written."""

    def work(tx: Tx) -> bool:
        alive = tx.meta.get(ALIVE_KEY)
        # Idle hubs stop writing once no grant was live at the last mark.
        if alive is not None and not tx.leases.any_live(int(alive)):
            return False
        _mark_alive(tx, now)
        return True

    return await store.write(work)
