"""OpsService: the operators' view of a project (``services/ops.py``), converted; its watch
shared per project (``server/ops_watch.py``)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import ops_service_pb2, ops_service_pb2_grpc, workflow_journal_pb2, workflow_types_pb2
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


def ops_run_to_proto(run: ops.OpsRun) -> ops_service_pb2.OpsRun:
    """A run as the dashboard lists it (a status value of either kind of run names its proto status)."""
    return ops_service_pb2.OpsRun(
        id=run.id,
        definition_id=run.definition_id,
        status=workflow_types_pb2.WorkflowRunStatus.Value(f"WORKFLOW_RUN_STATUS_{run.status.upper()}"),
        current_stage_id=run.current_stage_id,
        create_time=timestamp(run.create_time),
        update_time=timestamp(run.update_time),
    )


def snapshot_to_proto(seen: ops.OpsSnapshot, *, stale_after: int) -> ops_service_pb2.GetOpsSnapshotResponse:
    """The snapshot as GetOpsSnapshot and WatchOps send it, presence on the hub clock at its read."""
    now = seen.snapshot_time
    return ops_service_pb2.GetOpsSnapshotResponse(
        project=seen.project,
        snapshot_time=timestamp(now),
        agents=[agent_to_proto(agent, now=now, stale_after=stale_after) for agent in seen.agents.items],
        agent_total=seen.agents.total,
        open_messages=[ops_message_to_proto(message) for message in seen.open_messages.items],
        open_message_total=seen.open_messages.total,
        leases=[lease_to_proto(lease, now=now) for lease in seen.leases.items],
        lease_total=seen.leases.total,
        runtimes=[runtime_to_proto(r, now=now, stale_after=stale_after) for r in seen.runtimes.items],
        runtime_total=seen.runtimes.total,
        runs=[ops_run_to_proto(run) for run in seen.runs.items],
        run_total=seen.runs.total,
        runtime_runs=[
            ops_service_pb2.OpsRuntimeRuns(
                runtime_id=runtime_id,
                runs=[
                    ops_service_pb2.OpsSyncRun(
                        project_id=run.project_id,
                        run_id=run.run_id,
                        cursor=run.cursor,
                        last_sequence=run.last_sequence,
                        pending_gap=run.pending_gap,
                    )
                    for run in capped.items
                ],
                run_total=capped.total,
            )
            for runtime_id, capped in sorted(seen.sync_runs.items())
        ],
        plans=[
            ops_service_pb2.OpsPlan(
                id=plan.id,
                run_id=plan.run_id,
                summary=plan.summary,
                create_time=timestamp(plan.create_time),
                stage_id=plan.stage_id,
                severity=workflow_journal_pb2.JournalSeverity.Value(f"JOURNAL_SEVERITY_{plan.severity.upper()}"),
            )
            for plan in seen.plans
        ],
    )


class OpsServicer(ops_service_pb2_grpc.OpsServiceServicer):
    """Serves kxm.v1.OpsService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub
        self._render = functools.partial(snapshot_to_proto, stale_after=hub.stale_after)

    async def GetOpsSnapshot(
        self, request: ops_service_pb2.GetOpsSnapshotRequest, context: Context
    ) -> ops_service_pb2.GetOpsSnapshotResponse:
        hub = self._hub
        seen = await ops.snapshot(
            hub.store, current_call().caller, request.project, now=hub.now(), stale_after=hub.stale_after
        )
        return snapshot_to_proto(seen, stale_after=hub.stale_after)

    async def WatchOps(
        self, request: ops_service_pb2.WatchOpsRequest, context: Context
    ) -> AsyncIterator[ops_service_pb2.WatchOpsResponse]:
        call = current_call()
        project = ops.watched_project(call.caller, request.project)
        views = self._hub.ops_feeds.watch(call, project, ops.resume_version(request.after_version), self._render)
        async with contextlib.aclosing(views):
            async for view in views:
                snapshot = view.message
                assert isinstance(snapshot, ops_service_pb2.GetOpsSnapshotResponse)
                yield ops_service_pb2.WatchOpsResponse(snapshot=snapshot, version=view.version)
