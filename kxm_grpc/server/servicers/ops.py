"""OpsService: the operators' view of a project (``services/ops.py``), converted."""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import ops_service_pb2, ops_service_pb2_grpc
from kxm_grpc.domain.messages import Message
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import agent_to_proto, timestamp
from kxm_grpc.server.servicers.leases import lease_to_proto
from kxm_grpc.server.servicers.messages import DELIVERY_TO_PROTO, STATE_TO_PROTO
from kxm_grpc.server.servicers.runtimes import runtime_to_proto
from kxm_grpc.server.state import HubState
from kxm_grpc.services import ops

Context = grpc.aio.ServicerContext[Any, Any]


def ops_message_to_proto(message: Message) -> ops_service_pb2.OpsMessage:
    """An open message as the dashboard shows it: never its content or reply."""
    return ops_service_pb2.OpsMessage(
        id=message.id,
        state=STATE_TO_PROTO[message.state],
        from_agent_name=message.from_agent_name,
        to_agent_name=message.to_agent_name,
        delivery=DELIVERY_TO_PROTO[message.delivery],
        create_time=timestamp(message.create_time),
        expire_time=timestamp(message.expire_time),
        correlation_id=message.correlation_id,
    )


class OpsServicer(ops_service_pb2_grpc.OpsServiceServicer):
    """Serves kxm.v1.OpsService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub

    async def GetOpsSnapshot(
        self, request: ops_service_pb2.GetOpsSnapshotRequest, context: Context
    ) -> ops_service_pb2.GetOpsSnapshotResponse:
        hub = self._hub
        now = hub.now()
        stale_after = hub.stale_after
        seen = await ops.snapshot(hub.store, current_call().caller, request.project, now=now, stale_after=stale_after)
        return ops_service_pb2.GetOpsSnapshotResponse(
            project=seen.project,
            snapshot_time=timestamp(seen.snapshot_time),
            agents=[agent_to_proto(agent, now=now, stale_after=stale_after) for agent in seen.agents.items],
            agent_total=seen.agents.total,
            open_messages=[ops_message_to_proto(message) for message in seen.open_messages.items],
            open_message_total=seen.open_messages.total,
            leases=[lease_to_proto(lease, now=now) for lease in seen.leases.items],
            lease_total=seen.leases.total,
            runtimes=[runtime_to_proto(r, now=now, stale_after=stale_after) for r in seen.runtimes.items],
            runtime_total=seen.runtimes.total,
        )
