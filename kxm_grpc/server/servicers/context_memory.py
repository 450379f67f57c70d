"""ContextService's memory RPCs: SyncMemory, ListMemory, and the candidates' ProposeMemory,
PromoteMemory and RejectMemory.

Converts proto ↔ the memory domain only; the rules live in ``kxm_grpc.services.context.memory``.
"""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as cpb
from kxm_grpc.domain.context.items import Confidence, Scope
from kxm_grpc.domain.context.memory import MemoryFile
from kxm_grpc.domain.context.memory_candidates import Candidate
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import timestamp
from kxm_grpc.server.convert_context import AUTHORITY, CONFIDENCE, SCOPE, SOURCE_TYPE, enum_from_proto
from kxm_grpc.server.state import HubState
from kxm_grpc.services.context import memory

Context = grpc.aio.ServicerContext[Any, Any]


def candidate_to_proto(candidate: Candidate) -> cpb.MemoryCandidate:
    """A candidate as the contract shows it."""
    return cpb.MemoryCandidate(
        id=candidate.id,
        project=candidate.project,
        scope=SCOPE[candidate.scope],
        kind=candidate.kind,
        summary=candidate.summary,
        evidence_refs=candidate.evidence_refs,
        proposed_by=candidate.proposed_by,
        origin=SOURCE_TYPE[candidate.origin],
        create_time=timestamp(candidate.create_time),
        status=candidate.status,
        decided_by=candidate.decided_by,
        record_id=candidate.record_id,
        reason=candidate.reason,
    )


class ContextMemoryMethods:
    """ContextService's memory RPCs; mixed into ContextServicer."""

    _hub: HubState

    async def SyncMemory(self, request: cpb.SyncMemoryRequest, context: Context) -> cpb.SyncMemoryResponse:
        files = [MemoryFile(path=file.path, content=file.content) for file in request.files]
        outcome = await memory.sync(
            self._hub.store,
            current_call().caller,
            request.project,
            files,
            now=self._hub.now(),
            allow_empty=request.allow_empty,
        )
        return cpb.SyncMemoryResponse(
            loaded=outcome.loaded,
            removed=outcome.removed,
            skipped_inactive=outcome.skipped_inactive,
            skipped_unbound_scopes=outcome.skipped_unbound_scopes,
            revision=outcome.revision,
            unchanged=outcome.unchanged,
        )

    async def ListMemory(self, request: cpb.ListMemoryRequest, context: Context) -> cpb.ListMemoryResponse:
        caller = current_call().caller
        listing = await memory.list_memory(self._hub.store, caller, request.project)
        candidates = await memory.open_candidates(self._hub.store, caller, request.project)
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
            candidates=[candidate_to_proto(candidate) for candidate in candidates],
        )

    async def ProposeMemory(self, request: cpb.ProposeMemoryRequest, context: Context) -> cpb.ProposeMemoryResponse:
        candidate = await memory.propose(
            self._hub.store,
            current_call().caller,
            request.project,
            scope_value=enum_from_proto(Scope, SCOPE, request.scope, "scope"),
            kind=request.kind,
            summary=request.summary,
            evidence_refs=list(request.evidence_refs),
            now=self._hub.now(),
        )
        return cpb.ProposeMemoryResponse(candidate=candidate_to_proto(candidate))

    async def PromoteMemory(self, request: cpb.PromoteMemoryRequest, context: Context) -> cpb.PromoteMemoryResponse:
        promotion = await memory.promote(
            self._hub.store,
            current_call().caller,
            request.project,
            request.candidate_id,
            record_id=request.record_id,
            authority=request.authority,
            confidence=enum_from_proto(Confidence, CONFIDENCE, request.confidence, "confidence"),
            now=self._hub.now(),
        )
        return cpb.PromoteMemoryResponse(
            candidate=candidate_to_proto(promotion.candidate),
            path=promotion.file.path,
            content=promotion.file.content,
        )

    async def RejectMemory(self, request: cpb.RejectMemoryRequest, context: Context) -> cpb.RejectMemoryResponse:
        candidate = await memory.reject(
            self._hub.store, current_call().caller, request.project, request.candidate_id, reason=request.reason
        )
        return cpb.RejectMemoryResponse(candidate=candidate_to_proto(candidate))
