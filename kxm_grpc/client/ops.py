"""``hub.ops``: OpsService, the operators' view of a project (an operator's token)."""

from __future__ import annotations

from typing import ClassVar

from kxm_grpc._gen.kxm.v1 import ops_service_pb2, ops_service_pb2_grpc
from kxm_grpc.client.base import Area


class Ops(Area):
    """kxm.v1.OpsService: ``get_snapshot``."""

    SERVICE: ClassVar[str] = "kxm.v1.OpsService"

    def _rpc(self) -> ops_service_pb2_grpc.OpsServiceAsyncStub:
        return self._hub._stub(ops_service_pb2_grpc.OpsServiceStub)

    async def get_snapshot(
        self, *, project: str = "", timeout: float | None = None
    ) -> ops_service_pb2.GetOpsSnapshotResponse:
        """One project's agents, newest open messages (never their content), live leases and runtimes,
        each capped and counted: the GetOpsSnapshot RPC (``project`` may be left to ``x-kxm-project``)."""
        return await self._hub._call(
            self._rpc().GetOpsSnapshot, ops_service_pb2.GetOpsSnapshotRequest(project=project), timeout=timeout
        )
