"""LeaseService: fenced leases on named resources."""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import lease_service_pb2, lease_service_pb2_grpc, types_pb2
from kxm_grpc.domain import leases as rules
from kxm_grpc.domain.clock import MICROS, seconds
from kxm_grpc.domain.leases import Lease
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import duration_micros, timestamp, within_deadline
from kxm_grpc.server.state import HubState
from kxm_grpc.services import leases

Context = grpc.aio.ServicerContext[Any, Any]


def lease_to_proto(lease: Lease, *, now: int) -> types_pb2.Lease:
    """The public view of a grant, with liveness on the hub's clock."""
    return types_pb2.Lease(
        project=lease.project,
        name=lease.name,
        holder_agent_id=lease.holder_agent_id,
        holder_agent_name=lease.holder_agent_name,
        fencing_token=lease.fencing_token,
        acquire_time=timestamp(lease.acquire_time),
        expire_time=timestamp(lease.expire_time),
        live=lease.live(now),
    )


class LeaseServicer(lease_service_pb2_grpc.LeaseServiceServicer):
    """Serves kxm.v1.LeaseService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub
        self._queues = leases.LeaseQueues()

    def _ttl(self, request: Any) -> int:
        return duration_micros(
            "ttl",
            request.ttl,
            request.HasField("ttl"),
            default=rules.DEFAULT_TTL,
            minimum=seconds(self._hub.settings.lease_min_ttl),
            maximum=rules.MAX_TTL,
        )

    async def AcquireLease(
        self, request: lease_service_pb2.AcquireLeaseRequest, context: Context
    ) -> lease_service_pb2.AcquireLeaseResponse:
        name = rules.lease_name(request.name)
        ttl = self._ttl(request)
        wait = duration_micros(
            "wait", request.wait, request.HasField("wait"), default=0, minimum=0, maximum=rules.MAX_WAIT
        )
        # A waiting acquire answers before the call's deadline: the caller gets LEASE_HELD, not DEADLINE_EXCEEDED.
        wait_seconds = within_deadline(wait / MICROS, context.time_remaining())
        acquired = await leases.acquire_lease(
            self._hub.store,
            current_call().caller,
            name,
            ttl=ttl,
            wait=wait_seconds,
            clock=self._hub.now,
            queues=self._queues,
        )
        self._hub.lapses.note(acquired.lease.expire_time)
        return lease_service_pb2.AcquireLeaseResponse(
            lease=lease_to_proto(acquired.lease, now=self._hub.now()), renewed=acquired.renewed
        )

    async def RenewLease(
        self, request: lease_service_pb2.RenewLeaseRequest, context: Context
    ) -> lease_service_pb2.RenewLeaseResponse:
        name = rules.lease_name(request.name)
        token = rules.presented_token(request.fencing_token)
        ttl = self._ttl(request)
        now = self._hub.now()
        lease = await leases.renew_lease(self._hub.store, current_call().caller, name, token, ttl=ttl, now=now)
        self._hub.lapses.note(lease.expire_time)
        return lease_service_pb2.RenewLeaseResponse(lease=lease_to_proto(lease, now=now))

    async def ReleaseLease(
        self, request: lease_service_pb2.ReleaseLeaseRequest, context: Context
    ) -> lease_service_pb2.ReleaseLeaseResponse:
        name = rules.lease_name(request.name)
        token = rules.presented_token(request.fencing_token)
        now = self._hub.now()
        lease = await leases.release_lease(self._hub.store, current_call().caller, name, token, now=now)
        return lease_service_pb2.ReleaseLeaseResponse(lease=lease_to_proto(lease, now=now))

    async def GetLease(
        self, request: lease_service_pb2.GetLeaseRequest, context: Context
    ) -> lease_service_pb2.GetLeaseResponse:
        name = rules.lease_name(request.name)
        lease = await leases.get_lease(self._hub.store, current_call().caller, name)
        return lease_service_pb2.GetLeaseResponse(lease=lease_to_proto(lease, now=self._hub.now()))

    async def ListLeases(
        self, request: lease_service_pb2.ListLeasesRequest, context: Context
    ) -> lease_service_pb2.ListLeasesResponse:
        now = self._hub.now()
        page, next_token = await leases.list_leases(
            self._hub.store,
            current_call().caller,
            request.page_size,
            request.page_token,
            include_lapsed=request.include_lapsed,
            now=now,
        )
        return lease_service_pb2.ListLeasesResponse(
            leases=[lease_to_proto(lease, now=now) for lease in page], next_page_token=next_token
        )

    async def CheckFence(
        self, request: lease_service_pb2.CheckFenceRequest, context: Context
    ) -> lease_service_pb2.CheckFenceResponse:
        name = rules.lease_name(request.name)
        token = rules.presented_token(request.fencing_token)
        now = self._hub.now()
        lease = await leases.check_fence(self._hub.store, current_call().caller, name, token, now=now)
        return lease_service_pb2.CheckFenceResponse(lease=lease_to_proto(lease, now=now))
