"""LeaseService: fenced leases on named resources."""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import lease_service_pb2, lease_service_pb2_grpc, types_pb2
from kxm_grpc.domain.leases import Lease
from kxm_grpc.domain.waits import Wait
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import answer_within, duration_value, timestamp
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

    async def AcquireLease(
        self, request: lease_service_pb2.AcquireLeaseRequest, context: Context
    ) -> lease_service_pb2.AcquireLeaseResponse:
        hub = self._hub
        ttl = duration_value("ttl", request.ttl, request.HasField("ttl"))
        wait = duration_value("wait", request.wait, request.HasField("wait"))
        acquired = await leases.acquire_lease(
            hub.store,
            current_call().caller,
            request.name,
            ttl=ttl,
            wait=None if wait is None else Wait(wait),
            clock=hub.clock,
            queues=hub.coordination.lease_queues,
            limits=hub.limits,
            # A waiting acquire answers before the call's deadline: LEASE_HELD, not DEADLINE_EXCEEDED.
            time_remaining=answer_within(context.time_remaining()),
        )
        return lease_service_pb2.AcquireLeaseResponse(
            lease=lease_to_proto(acquired.lease, now=hub.now()), renewed=acquired.renewed
        )

    async def RenewLease(
        self, request: lease_service_pb2.RenewLeaseRequest, context: Context
    ) -> lease_service_pb2.RenewLeaseResponse:
        hub = self._hub
        lease = await leases.renew_lease(
            hub.store,
            current_call().caller,
            request.name,
            request.fencing_token,
            ttl=duration_value("ttl", request.ttl, request.HasField("ttl")),
            clock=hub.clock,
            limits=hub.limits,
        )
        return lease_service_pb2.RenewLeaseResponse(lease=lease_to_proto(lease, now=hub.now()))

    async def ReleaseLease(
        self, request: lease_service_pb2.ReleaseLeaseRequest, context: Context
    ) -> lease_service_pb2.ReleaseLeaseResponse:
        now = self._hub.now()
        lease = await leases.release_lease(
            self._hub.store, current_call().caller, request.name, request.fencing_token, now=now
        )
        return lease_service_pb2.ReleaseLeaseResponse(lease=lease_to_proto(lease, now=now))

    async def GetLease(
        self, request: lease_service_pb2.GetLeaseRequest, context: Context
    ) -> lease_service_pb2.GetLeaseResponse:
        lease = await leases.get_lease(self._hub.store, current_call().caller, request.name)
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
        now = self._hub.now()
        lease = await leases.check_fence(
            self._hub.store, current_call().caller, request.name, request.fencing_token, now=now
        )
        return lease_service_pb2.CheckFenceResponse(lease=lease_to_proto(lease, now=now))
