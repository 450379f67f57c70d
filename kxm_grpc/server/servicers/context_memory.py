"""ContextService's memory RPCs: SyncMemory and ListMemory.

Converts proto ↔ the memory domain only; the rules live in ``kxm_grpc.services.context.memory``.
"""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as cpb
from kxm_grpc.domain.context.items import Scope
from kxm_grpc.domain.context.memory import MemoryFile
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import timestamp
from kxm_grpc.server.convert_context import AUTHORITY, CONFIDENCE, SCOPE, SOURCE_TYPE
from kxm_grpc.server.state import HubState
from kxm_grpc.services.context import memory

Context = grpc.aio.ServicerContext[Any, Any]


class ContextMemoryMethods:
    """ContextService's memory RPCs; mixed into ContextServicer."""

    _hub: HubState

    async def SyncMemory(self, request: cpb.SyncMemoryRequest, context: Context) -> cpb.SyncMemoryResponse:
        files = [MemoryFile(path=file.path, content=file.content) for file in request.files]
        outcome = await memory.sync(self._hub.store, current_call().caller, request.project, files, now=self._hub.now())
        return cpb.SyncMemoryResponse(
            loaded=outcome.loaded,
            removed=outcome.removed,
            skipped_inactive=outcome.skipped_inactive,
            skipped_unbound_scopes=outcome.skipped_unbound_scopes,
            revision=outcome.revision,
            unchanged=outcome.unchanged,
        )

    async def ListMemory(self, request: cpb.ListMemoryRequest, context: Context) -> cpb.ListMemoryResponse:
        listing = await memory.list_memory(self._hub.store, current_call().caller, request.project)
        return cpb.ListMemoryResponse(
            records=[
                cpb.MemoryRecord(
                    record_id=entry.record.record_id,
                    item_id=entry.item.id,
                    project=entry.item.project,
                    path=entry.record.path,
                    scope=SCOPE[Scope(entry.record.scope)],
                    record_kind=entry.record.kind,
                    record_authority=entry.record.authority,
                    authority=AUTHORITY[entry.item.authority],
                    confidence=CONFIDENCE[entry.item.confidence],
                    lifecycle=entry.record.lifecycle,
                    source_type=SOURCE_TYPE[entry.item.provenance.source_type],
                    source_ref=entry.record.source_ref or "",
                    summary_chars=memory.summary_chars(entry.item),
                )
                for entry in listing.records
            ],
            revision=listing.revision or "",
            sync_time=timestamp(listing.sync_time),
        )
