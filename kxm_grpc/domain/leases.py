"""Fenced leases (spec §8): the pure decision table, with the original's weaknesses fixed.

A lease is keyed by the pair (project, name), never by a joined string. Each name has a *fence*:
its fencing high-water mark (the last token granted) and its current grant, if any. The
high-water mark survives releases, lapses and restarts, so a token is never issued twice and
never goes down: every new grant (first acquire, takeover of a lapsed lease, acquire after a
release) gets ``high_water + 1``. A lease is *live* while ``now < expire_time`` on the hub's clock.

    acquire  no grant (never leased, or released)       grant high_water + 1
             live, held by another agent                FAILED_PRECONDITION lease_held
             live, held by the caller                   extend: same token and acquire time
             lapsed (any holder, the caller too)        takeover: grant high_water + 1
    renew    no grant                                   NOT_FOUND lease_not_found
             other holder, or token not current         ABORTED lease_superseded
             lapsed                                     FAILED_PRECONDITION lease_expired
             otherwise                                  expire_time = now + ttl
    release  no grant                                   NOT_FOUND lease_not_found
             other holder, or token not current         ABORTED lease_superseded
             otherwise (even lapsed)                    end the grant; high_water kept
    check    never leased                               NOT_FOUND lease_not_found
             token is not the high-water mark           ABORTED lease_superseded
             no grant (released)                        NOT_FOUND lease_not_found
             lapsed                                     FAILED_PRECONDITION lease_expired
             otherwise                                  OK with the grant

Every function here is pure: it receives the fence as read in the transaction and ``now``, and
returns the fence to store or raises the HubError the caller gets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kxm_grpc.domain import validation
from kxm_grpc.domain.clock import MICROS, rfc3339
from kxm_grpc.domain.waits import bounded_duration
from kxm_grpc.errors import Aborted, FailedPrecondition, HubError, NotFound, Reason, invalid_field

MAX_NAME_CHARS = 200
MIN_TTL = 5 * MICROS
MAX_TTL = 600 * MICROS
DEFAULT_TTL = 300 * MICROS
MAX_WAIT = 600 * MICROS


@dataclass(frozen=True, slots=True)
class Holder:
    """The agent asking for a lease."""

    agent_id: str
    agent_name: str


@dataclass(frozen=True, slots=True)
class Lease:
    """One grant of a lease: who holds it, its fencing token, and when it lapses."""

    project: str
    name: str
    holder_agent_id: str
    holder_agent_name: str
    fencing_token: int
    acquire_time: int
    expire_time: int

    def live(self, now: int) -> bool:
        """Whether the grant is still in force on the hub's clock."""
        return now < self.expire_time

    def held_by(self, holder: Holder) -> bool:
        """Whether ``holder`` is the agent this grant was made to."""
        return self.holder_agent_id == holder.agent_id


@dataclass(frozen=True, slots=True)
class Fence:
    """A name's lease state: the last token granted for it, and its current grant (None once released)."""

    project: str
    name: str
    high_water: int
    lease: Lease | None

    def live_lease(self, now: int) -> Lease | None:
        """The current grant if it is live, else None."""
        return self.lease if self.lease is not None and self.lease.live(now) else None


@dataclass(frozen=True, slots=True)
class Acquired:
    """The fence after an acquire, and whether the caller's own live lease was extended."""

    fence: Fence
    renewed: bool

    @property
    def lease(self) -> Lease:
        """The caller's grant."""
        assert self.fence.lease is not None
        return self.fence.lease


def lease_name(value: str) -> str:
    """Return a valid lease name (trimmed; it may contain any character but NUL, ``/`` included).

    Raises:
        InvalidArgument: it is empty or longer than 200 characters.
    """
    return validation.required_text("name", value, MAX_NAME_CHARS)


def ttl(micros: int | None, *, minimum: int = MIN_TTL) -> int:
    """A lease's time to live in microseconds, as a request gave it (None: the 5 min default).

    ``minimum`` is 5 s; only the testing hook ``--testing-lease-min-ttl`` lowers it.

    Raises:
        InvalidArgument: negative, or outside ``minimum`` to 10 min.
    """
    return bounded_duration("ttl", micros, default=DEFAULT_TTL, minimum=minimum, maximum=MAX_TTL)


def presented_token(value: int) -> int:
    """Return the fencing token a renew, release or check presented.

    Raises:
        InvalidArgument: no token was given (LEASE_TOKEN_REQUIRED).
    """
    if value <= 0:
        raise invalid_field(
            "fencing_token", "is required: present the token of your grant", reason=Reason.LEASE_TOKEN_REQUIRED
        )
    return value


def acquire(fence: Fence | None, project: str, name: str, holder: Holder, *, now: int, ttl: int) -> Acquired:
    """Decide an acquire.

    Raises:
        FailedPrecondition: another agent holds a live grant (LEASE_HELD).
    """
    current = fence.live_lease(now) if fence is not None else None
    if current is not None:
        if not current.held_by(holder):
            raise lease_held(current)
        extended = replace(current, holder_agent_name=holder.agent_name, expire_time=now + ttl)
        assert fence is not None
        return Acquired(replace(fence, lease=extended), renewed=True)
    token = (fence.high_water if fence is not None else 0) + 1
    grant = Lease(
        project=project,
        name=name,
        holder_agent_id=holder.agent_id,
        holder_agent_name=holder.agent_name,
        fencing_token=token,
        acquire_time=now,
        expire_time=now + ttl,
    )
    return Acquired(Fence(project, name, token, grant), renewed=False)


def renew(fence: Fence | None, name: str, holder: Holder, token: int, *, now: int, ttl: int) -> Fence:
    """Decide a renew: extend the caller's live grant, keeping its token and acquire time.

    Raises:
        NotFound: no grant exists on the name (LEASE_NOT_FOUND).
        Aborted: the caller is not the holder, or the token is not current (LEASE_SUPERSEDED).
        FailedPrecondition: the grant lapsed; it is never resurrected (LEASE_EXPIRED).
    """
    lease = _held_grant(fence, name, holder, token)
    assert fence is not None
    if not lease.live(now):
        raise lease_expired(lease)
    return replace(fence, lease=replace(lease, expire_time=now + ttl))


def release(fence: Fence | None, name: str, holder: Holder, token: int) -> tuple[Fence, Lease]:
    """Decide a release: end the caller's grant (live or lapsed); the high-water mark stays.

    Raises:
        NotFound: no grant exists on the name (LEASE_NOT_FOUND).
        Aborted: the caller is not the holder, or the token is not current (LEASE_SUPERSEDED).
    """
    lease = _held_grant(fence, name, holder, token)
    assert fence is not None
    return replace(fence, lease=None), lease


def check_fence(fence: Fence | None, name: str, token: int, *, now: int) -> Lease:
    """Decide whether ``token`` is the current, live grant of the name.

    Raises:
        NotFound: the name was never leased, or its last grant was released (LEASE_NOT_FOUND).
        Aborted: the token is not the latest one granted (LEASE_SUPERSEDED).
        FailedPrecondition: the token is the latest but its grant lapsed (LEASE_EXPIRED).
    """
    if fence is None:
        raise lease_not_found(name)
    if token != fence.high_water:
        raise lease_superseded(fence, token)
    if fence.lease is None:
        raise lease_not_found(name)
    if not fence.lease.live(now):
        raise lease_expired(fence.lease)
    return fence.lease


def _held_grant(fence: Fence | None, name: str, holder: Holder, token: int) -> Lease:
    if fence is None or fence.lease is None:
        raise lease_not_found(name)
    lease = fence.lease
    if not lease.held_by(holder) or token != lease.fencing_token:
        raise lease_superseded(fence, token, caller=holder)
    return lease


# -- the errors, with every dynamic part in the metadata ----------------------------------------


def lease_held(current: Lease) -> HubError:
    """Another agent holds ``current``."""
    return FailedPrecondition(
        f"lease on {current.name} is held by {current.holder_agent_name} until {rfc3339(current.expire_time)}",
        reason=Reason.LEASE_HELD,
        metadata={
            "name": current.name,
            "holderAgentId": current.holder_agent_id,
            "holderAgentName": current.holder_agent_name,
            "expireTime": rfc3339(current.expire_time),
            "fencingToken": str(current.fencing_token),
        },
    )


def lease_superseded(fence: Fence, presented: int, *, caller: Holder | None = None) -> HubError:
    """The presented token (or ``caller``, who presented it) is not the current grant's.

    The current grant's holder is named: the fence is of the caller's own project.
    """
    name, current = fence.name, fence.high_water
    metadata = {"name": name, "fencingToken": str(current), "presentedToken": str(presented)}
    grant = fence.lease
    if grant is None:
        latest = f"the hub is now at token {current} and no agent holds the lease"
    else:
        latest = f"token {grant.fencing_token} was granted to {grant.holder_agent_name}"
        metadata |= {"holderAgentId": grant.holder_agent_id, "holderAgentName": grant.holder_agent_name}
    if presented > current:
        message = f"fencing token {presented} for {name} was never granted; {latest}"
    elif presented < current or grant is None or caller is None:
        message = f"fencing token {presented} for {name} was superseded; {latest}"
    else:  # the current token, presented by an agent that does not hold it
        message = (
            f"fencing token {presented} for {name} was granted to {grant.holder_agent_name}, not to {caller.agent_name}"
        )
    return Aborted(message, reason=Reason.LEASE_SUPERSEDED, metadata=metadata)


def lease_expired(lease: Lease) -> HubError:
    """The grant lapsed."""
    return FailedPrecondition(
        f"lease on {lease.name} expired at {rfc3339(lease.expire_time)}; re-acquire it to take it over",
        reason=Reason.LEASE_EXPIRED,
        metadata={
            "name": lease.name,
            "expireTime": rfc3339(lease.expire_time),
            "fencingToken": str(lease.fencing_token),
        },
    )


def lease_not_found(name: str) -> HubError:
    """No grant exists on the name."""
    return NotFound(f"no lease is held on {name}", reason=Reason.LEASE_NOT_FOUND, metadata={"name": name})
