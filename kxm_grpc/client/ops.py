"""``hub.ops``: OpsService, the operators' view of a project (an operator's token)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator
from typing import ClassVar

import grpc

from kxm_grpc._gen.kxm.v1 import ops_service_pb2, ops_service_pb2_grpc
from kxm_grpc.client.base import Area
from kxm_grpc.client.retries import resumable


class Ops(Area):
    """kxm.v1.OpsService: ``get_snapshot``, ``watch``."""

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

    async def watch(
        self,
        *,
        project: str = "",
        after_version: str = "",
        reconnect: bool = True,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> AsyncGenerator[ops_service_pb2.WatchOpsResponse, None]:
        """Yield the project's snapshot each time what it shows changes (the WatchOps RPC), for as long
        as the caller iterates: the current one first, unless its version is ``after_version``.

        When the stream ends (the hub stopping, a network failure) it is opened again after a
        jittered, growing backoff on the client's channel (another address, for a client of several),
        resuming after the last version yielded, so a state is neither repeated nor missed.
        Authentication and argument errors, and a revoked operator, are raised.
        """
        last_version = after_version
        backoff = initial_backoff
        stub = self._rpc()
        while True:
            request = ops_service_pb2.WatchOpsRequest(project=project, after_version=last_version)
            # A stream has no deadline; keepalive detects a dead connection.
            call = stub.WatchOps(request, metadata=self._hub.metadata)
            try:
                async for update in call:
                    backoff = initial_backoff
                    last_version = update.version
                    yield update
            except grpc.aio.AioRpcError as exc:
                error = self._hub._error(exc)
                if not reconnect or not resumable(error):
                    raise error from None
            finally:
                call.cancel()
            if not reconnect:
                return
            await asyncio.sleep(random.uniform(backoff / 2, backoff))
            backoff = min(max_backoff, backoff * 2)
