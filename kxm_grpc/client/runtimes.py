"""RuntimeService calls: registration, presence and sync events.

A runtime acts with its own key as the bearer token: register with a project token (or the admin
token naming a project), then ``use_runtime_key`` with the key the hub returned.
"""

from __future__ import annotations

from collections.abc import Iterable

from kxm_grpc._gen.kxm.v1 import envelopes_pb2, runtime_service_pb2, runtime_service_pb2_grpc
from kxm_grpc.client.base import ClientBase


class RuntimeCalls(ClientBase):
    """kxm.v1.RuntimeService."""

    def use_runtime_key(self, runtime_key: str) -> None:
        """Act as the runtime this key was issued to from now on (the key replaces the bearer token)."""
        self.token = runtime_key
        self.use_agent(None, None)

    async def register_runtime(
        self, runtime_id: str, *, host: str = "", adopt: bool = False
    ) -> runtime_service_pb2.RegisterRuntimeResponse:
        """Register a runtime (the admin may re-register one, rotating its key); with ``adopt`` this
        client then acts as it."""
        response = await self._call(
            self._stub(runtime_service_pb2_grpc.RuntimeServiceStub).RegisterRuntime,
            runtime_service_pb2.RegisterRuntimeRequest(runtime_id=runtime_id, host=host),
            metadata=self.bearer_metadata,
        )
        if adopt:
            self.use_runtime_key(response.runtime_key)
        return response

    async def runtime_heartbeat(self, *, host: str = "") -> runtime_service_pb2.RuntimeHeartbeatResponse:
        """Renew this runtime's presence (and replace its host)."""
        return await self._call(
            self._stub(runtime_service_pb2_grpc.RuntimeServiceStub).RuntimeHeartbeat,
            runtime_service_pb2.RuntimeHeartbeatRequest(host=host),
        )

    async def list_runtimes(
        self, *, page_size: int = 0, page_token: str = ""
    ) -> runtime_service_pb2.ListRuntimesResponse:
        """One page of the project's runtimes by id."""
        return await self._call(
            self._stub(runtime_service_pb2_grpc.RuntimeServiceStub).ListRuntimes,
            runtime_service_pb2.ListRuntimesRequest(page_size=page_size, page_token=page_token),
        )

    async def push_sync_events(
        self, events: Iterable[envelopes_pb2.SyncEvent]
    ) -> runtime_service_pb2.PushSyncEventsResponse:
        """Push 1 to 100 run events; one result per event, in order, and the touched runs' cursors."""
        return await self._call(
            self._stub(runtime_service_pb2_grpc.RuntimeServiceStub).PushSyncEvents,
            runtime_service_pb2.PushSyncEventsRequest(events=list(events)),
        )

    async def list_run_events(
        self, project_id: str, run_id: str, *, after_sequence: int = 0, page_size: int = 0
    ) -> runtime_service_pb2.ListRunEventsResponse:
        """A run's accepted events after a sequence, and its cursor."""
        return await self._call(
            self._stub(runtime_service_pb2_grpc.RuntimeServiceStub).ListRunEvents,
            runtime_service_pb2.ListRunEventsRequest(
                project_id=project_id, run_id=run_id, after_sequence=after_sequence, page_size=page_size
            ),
        )

    async def reassign_sync_project(
        self, project_id: str, project: str
    ) -> runtime_service_pb2.ReassignSyncProjectResponse:
        """Move a runtime-side project id to another hub project (admin token)."""
        return await self._call(
            self._stub(runtime_service_pb2_grpc.RuntimeServiceStub).ReassignSyncProject,
            runtime_service_pb2.ReassignSyncProjectRequest(project_id=project_id, project=project),
        )
