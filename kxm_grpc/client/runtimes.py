"""``hub.runtimes``: RuntimeService calls, registration, presence and sync events.

A runtime acts with its own key as the bearer token: register with a project token (or the admin
token naming a project), then ``use_runtime_key`` with the key the hub returned (or register with
``adopt=True``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from kxm_grpc._gen.kxm.v1 import envelopes_pb2, runtime_service_pb2, runtime_service_pb2_grpc
from kxm_grpc.client.base import Area


class Runtimes(Area):
    """kxm.v1.RuntimeService: ``register``, ``heartbeat``, ``list``, ``push_sync_events``, ``list_run_events``,
    ``reassign_sync_project``."""

    SERVICE: ClassVar[str] = "kxm.v1.RuntimeService"

    def _rpc(self) -> runtime_service_pb2_grpc.RuntimeServiceAsyncStub:
        return self._hub._stub(runtime_service_pb2_grpc.RuntimeServiceStub)

    async def register(
        self, runtime_id: str, *, host: str = "", adopt: bool = False, timeout: float | None = None
    ) -> runtime_service_pb2.RegisterRuntimeResponse:
        """Register a runtime (the admin may re-register one, rotating its key); with ``adopt`` the
        client then acts as it."""
        response = await self._hub._call(
            self._rpc().RegisterRuntime,
            runtime_service_pb2.RegisterRuntimeRequest(runtime_id=runtime_id, host=host),
            timeout=timeout,
            metadata=self._hub.bearer_metadata,
        )
        if adopt:
            self._hub.use_runtime_key(response.runtime_key)
        return response

    async def heartbeat(
        self, *, host: str = "", timeout: float | None = None
    ) -> runtime_service_pb2.RuntimeHeartbeatResponse:
        """Renew this runtime's presence (and replace its host): the RuntimeHeartbeat RPC."""
        return await self._hub._call(
            self._rpc().RuntimeHeartbeat, runtime_service_pb2.RuntimeHeartbeatRequest(host=host), timeout=timeout
        )

    async def list(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> runtime_service_pb2.ListRuntimesResponse:
        """One page of the project's runtimes by id."""
        return await self._hub._call(
            self._rpc().ListRuntimes,
            runtime_service_pb2.ListRuntimesRequest(page_size=page_size, page_token=page_token),
            timeout=timeout,
        )

    async def push_sync_events(
        self, events: Iterable[envelopes_pb2.SyncEvent], *, timeout: float | None = None
    ) -> runtime_service_pb2.PushSyncEventsResponse:
        """Push 1 to 100 run events; one result per event, in order, and the touched runs' cursors."""
        return await self._hub._call(
            self._rpc().PushSyncEvents,
            runtime_service_pb2.PushSyncEventsRequest(events=[*events]),
            timeout=timeout,
        )

    async def list_run_events(
        self,
        project_id: str,
        run_id: str,
        *,
        after_sequence: int = 0,
        page_size: int = 0,
        timeout: float | None = None,
    ) -> runtime_service_pb2.ListRunEventsResponse:
        """A run's accepted events after a sequence, and its cursor."""
        return await self._hub._call(
            self._rpc().ListRunEvents,
            runtime_service_pb2.ListRunEventsRequest(
                project_id=project_id, run_id=run_id, after_sequence=after_sequence, page_size=page_size
            ),
            timeout=timeout,
        )

    async def reassign_sync_project(
        self, project_id: str, project: str, *, timeout: float | None = None
    ) -> runtime_service_pb2.ReassignSyncProjectResponse:
        """Move a runtime-side project id to another hub project (admin token)."""
        return await self._hub._call(
            self._rpc().ReassignSyncProject,
            runtime_service_pb2.ReassignSyncProjectRequest(project_id=project_id, project=project),
            timeout=timeout,
        )
