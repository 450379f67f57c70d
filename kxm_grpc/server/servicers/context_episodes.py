"""ContextService's episodes RPC: ListEpisodes.

Converts proto ↔ the episodes' values only; the rules live in ``kxm_grpc.services.context.episodes``.
The item conversion is private here until the shared ``kxm_grpc.server.convert_context`` lands.
"""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.domain.context.items import Authority, Confidence, ContextItem, Kind, Scope, SourceType, Status
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import set_timestamp
from kxm_grpc.server.state import HubState
from kxm_grpc.services.context import episodes

Context = grpc.aio.ServicerContext[Any, Any]

_KIND = {kind: getattr(epb, f"CONTEXT_KIND_{kind.name}") for kind in Kind}
_SOURCE = {source: getattr(epb, f"CONTEXT_SOURCE_TYPE_{source.name}") for source in SourceType}
_AUTHORITY = {authority: getattr(epb, f"CONTEXT_AUTHORITY_{authority.name}") for authority in Authority}
_CONFIDENCE = {confidence: getattr(epb, f"CONTEXT_CONFIDENCE_{confidence.name}") for confidence in Confidence}
_SCOPE = {scope: getattr(epb, f"CONTEXT_SCOPE_{scope.name}") for scope in Scope}
_STATUS = {status: getattr(epb, f"CONTEXT_STATUS_{status.name}") for status in Status}


def _item_to_proto(item: ContextItem) -> epb.ContextItem:
    """A context item as the contract shows it (unset enums and times for what it lacks)."""
    proto = epb.ContextItem(
        id=item.id,
        kind=_KIND[item.kind],
        project=item.project,
        summary=item.summary,
        provenance=epb.ContextProvenance(
            source_type=_SOURCE[item.provenance.source_type],
            source_ref=item.provenance.source_ref or "",
            derived_from=item.provenance.derived_from,
        ),
        authority=_AUTHORITY[item.authority],
        confidence=_CONFIDENCE[item.confidence],
        state_key=item.state_key or "",
        supersedes=item.supersedes,
        evidence_refs=item.evidence_refs,
    )
    if item.scope is not None:
        proto.scope = _SCOPE[item.scope]
    if item.status is not None:
        proto.status = _STATUS[item.status]
    for field, moment in (
        ("observe_time", item.observed_at),
        ("valid_from_time", item.valid_from),
        ("valid_until_time", item.valid_until),
    ):
        if moment is not None:
            set_timestamp(getattr(proto, field), moment)
    return proto


class ContextEpisodeMethods:
    """ContextService's episodes RPC; mixed into ContextServicer."""

    _hub: HubState

    async def ListEpisodes(self, request: pb.ListEpisodesRequest, context: Context) -> pb.ListEpisodesResponse:
        listed = await episodes.list_episodes(
            self._hub.store, current_call().caller, project=request.project, run_id=request.workflow_run_id
        )
        return pb.ListEpisodesResponse(items=[_item_to_proto(item) for item in listed.items])
