"""``hub.leases``: LeaseService calls, fenced leases, plus ``hold`` to keep one for the length of a block."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import ClassVar

from kxm_grpc._gen.kxm.v1 import lease_service_pb2, lease_service_pb2_grpc, types_pb2
from kxm_grpc.client.base import Area, duration
from kxm_grpc.errors import Aborted, FailedPrecondition, HubError, NotFound, Reason


class LeaseLost(Aborted):
    """The lease held by ``leases.hold`` was lost (superseded, lapsed, or not renewable in time).

    Raised in the task running the ``async with`` block; ``cause`` is the hub's answer to the
    failed renewal, or None when the hub could not be reached before the lease lapsed.
    """

    def __init__(self, name: str, fencing_token: int, cause: HubError | None) -> None:
        reason = cause.reason if isinstance(cause, Aborted | FailedPrecondition | NotFound) else Reason.LEASE_EXPIRED
        detail = cause.message if cause is not None else "the hub could not be reached to renew it before it lapsed"
        super().__init__(
            f"lease on {name} (fencing token {fencing_token}) was lost: {detail}",
            reason=reason,
            metadata={"name": name, "fencingToken": str(fencing_token)},
        )
        self.name = name
        self.fencing_token = fencing_token
        self.cause = cause


@dataclass
class HeldLease:
    """A lease held by ``leases.hold``: the latest grant the hub returned (renewed in the background)."""

    lease: types_pb2.Lease

    @property
    def name(self) -> str:
        """The lease name."""
        return self.lease.name

    @property
    def fencing_token(self) -> int:
        """The token to present with every write to the protected resource."""
        return self.lease.fencing_token


class Leases(Area):
    """kxm.v1.LeaseService: ``acquire``, ``renew``, ``release``, ``get``, ``list``, ``check_fence``, and ``hold``."""

    SERVICE: ClassVar[str] = "kxm.v1.LeaseService"

    def _rpc(self) -> lease_service_pb2_grpc.LeaseServiceAsyncStub:
        return self._hub._stub(lease_service_pb2_grpc.LeaseServiceStub)

    async def acquire(
        self, name: str, *, ttl: float | None = None, wait: float | None = None, timeout: float | None = None
    ) -> lease_service_pb2.AcquireLeaseResponse:
        """Acquire (or extend this agent's own) lease; with ``wait`` seconds, queue until it is free.

        The call's deadline is raised to cover the wait (unless ``timeout`` is given), so a wait
        that ends returns LEASE_HELD.
        """
        if timeout is None and wait is not None:
            timeout = self._hub.timeout + wait
        return await self._hub._call(
            self._rpc().AcquireLease,
            lease_service_pb2.AcquireLeaseRequest(name=name, ttl=duration(ttl), wait=duration(wait)),
            timeout=timeout,
        )

    async def renew(
        self, name: str, fencing_token: int, *, ttl: float | None = None, timeout: float | None = None
    ) -> lease_service_pb2.RenewLeaseResponse:
        """Extend this agent's live lease; the token stays the same."""
        return await self._hub._call(
            self._rpc().RenewLease,
            lease_service_pb2.RenewLeaseRequest(name=name, fencing_token=fencing_token, ttl=duration(ttl)),
            timeout=timeout,
        )

    async def release(
        self, name: str, fencing_token: int, *, timeout: float | None = None
    ) -> lease_service_pb2.ReleaseLeaseResponse:
        """End this agent's lease; the next grant of the name gets a higher token."""
        return await self._hub._call(
            self._rpc().ReleaseLease,
            lease_service_pb2.ReleaseLeaseRequest(name=name, fencing_token=fencing_token),
            timeout=timeout,
        )

    async def get(self, name: str, *, timeout: float | None = None) -> lease_service_pb2.GetLeaseResponse:
        """The current grant of a name (live or lapsed)."""
        return await self._hub._call(
            self._rpc().GetLease, lease_service_pb2.GetLeaseRequest(name=name), timeout=timeout
        )

    async def list(
        self, *, include_lapsed: bool = False, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> lease_service_pb2.ListLeasesResponse:
        """One page of the project's leases by name."""
        return await self._hub._call(
            self._rpc().ListLeases,
            lease_service_pb2.ListLeasesRequest(
                include_lapsed=include_lapsed, page_size=page_size, page_token=page_token
            ),
            timeout=timeout,
        )

    async def check_fence(
        self, name: str, fencing_token: int, *, timeout: float | None = None
    ) -> lease_service_pb2.CheckFenceResponse:
        """OK if ``fencing_token`` is the name's current, live grant; else the refusal (see docs/leases.md)."""
        return await self._hub._call(
            self._rpc().CheckFence,
            lease_service_pb2.CheckFenceRequest(name=name, fencing_token=fencing_token),
            timeout=timeout,
        )

    @contextlib.asynccontextmanager
    async def hold(
        self, name: str, *, ttl: float = 60.0, wait: float | None = None, renew_every: float | None = None
    ) -> AsyncIterator[HeldLease]:
        """Hold a lease for the length of an ``async with`` block, renewing it in the background.

        Renewals run every ``renew_every`` seconds (a third of the TTL by default). If the lease
        is lost (a renewal is refused, or none succeeds before it lapses) the block's task is
        cancelled and ``LeaseLost`` is raised in it. The lease is released when the block ends.

        Raises:
            FailedPrecondition: the lease is held by another agent (LEASE_HELD), after ``wait``.
            LeaseLost: the lease was lost while the block ran.
        """
        asked = time.monotonic()
        acquired = await self.acquire(name, ttl=ttl, wait=wait)
        if wait:
            asked = time.monotonic()  # granted at the end of the wait, moments ago
        held = HeldLease(acquired.lease)
        token = held.fencing_token
        period = renew_every if renew_every is not None else ttl / 3
        block = asyncio.current_task()
        assert block is not None
        lost: list[HubError | None] = []

        async def keep() -> None:
            # Count the TTL from before the grant was asked for: the lease lapses no later than that.
            lapses = asked + ttl
            delay = period
            while True:
                await asyncio.sleep(delay)
                started = time.monotonic()
                try:
                    renewed = await self.renew(name, token, ttl=ttl)
                except (Aborted, FailedPrecondition, NotFound) as refused:
                    lost.append(refused)
                    break
                except HubError:
                    if time.monotonic() >= lapses:
                        lost.append(None)
                        break
                    delay = min(period, max(0.05, (lapses - time.monotonic()) / 4))
                    continue
                held.lease = renewed.lease
                lapses = started + ttl
                delay = period
            block.cancel()

        keeper = asyncio.create_task(keep(), name=f"kxm-hold-lease:{name}")
        try:
            yield held
        except asyncio.CancelledError:
            if lost and block.uncancel() == 0:
                raise LeaseLost(name, token, lost[0]) from None
            raise
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
            if not lost:
                with contextlib.suppress(HubError):
                    await self.release(name, token)
