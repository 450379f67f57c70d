"""ContextService's temporal-state RPCs: GetState, ListStateSet, ProposeState, PromoteState, RejectState.

Converts proto ↔ the state rules' values only; the rules live in ``kxm_grpc.services.context.state``.
An unset enum is None (the rules default it); an unknown enum number is refused naming its field.
The item conversion is private here until the shared ``kxm_grpc.server.convert_context`` lands.
"""

from __future__ import annotations

from typing import Any, TypeVar

import grpc
from google.protobuf import timestamp_pb2

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.context.items import Authority, Confidence, ContextItem, Kind, Scope, SourceType, Status
from kxm_grpc.domain.context.state import Change
from kxm_grpc.errors import Reason, invalid_field
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import check_timestamp, timestamp
from kxm_grpc.server.state import HubState
from kxm_grpc.services.context import state

Context = grpc.aio.ServicerContext[Any, Any]
_E = TypeVar("_E", Kind, SourceType, Authority, Confidence, Scope, Status)

_KIND = {kind: getattr(epb, f"CONTEXT_KIND_{kind.name}") for kind in Kind}
_SOURCE = {source: getattr(epb, f"CONTEXT_SOURCE_TYPE_{source.name}") for source in SourceType}
_AUTHORITY = {authority: getattr(epb, f"CONTEXT_AUTHORITY_{authority.name}") for authority in Authority}
_AUTHORITY_OF = {value: key for key, value in _AUTHORITY.items()}
_CONFIDENCE = {confidence: getattr(epb, f"CONTEXT_CONFIDENCE_{confidence.name}") for confidence in Confidence}
_CONFIDENCE_OF = {value: key for key, value in _CONFIDENCE.items()}
_SCOPE = {scope: getattr(epb, f"CONTEXT_SCOPE_{scope.name}") for scope in Scope}
_STATUS = {status: getattr(epb, f"CONTEXT_STATUS_{status.name}") for status in Status}


def _optional(names: dict[int, _E], value: int, field: str) -> _E | None:
    """The enum member of ``value``; None for UNSPECIFIED; an unknown number refused naming ``field``."""
    if value == 0:
        return None
    if value not in names:
        raise invalid_field(field, f"holds unknown value {value}", reason=Reason.INVALID_STATE_REQUEST)
    return names[value]


def _as_of(request: pb.GetStateRequest | pb.ListStateSetRequest) -> int | None:
    if not request.HasField("as_of_time"):
        return None
    moment: timestamp_pb2.Timestamp = request.as_of_time
    check_timestamp("as_of_time", moment)
    return moment.seconds * MICROS + moment.nanos // 1000


def item_to_proto(item: ContextItem) -> epb.ContextItem:
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
            getattr(proto, field).CopyFrom(timestamp(moment))
    return proto


class ContextStateMethods:
    """ContextService's state RPCs; mixed into ContextServicer."""

    _hub: HubState

    async def GetState(self, request: pb.GetStateRequest, context: Context) -> pb.GetStateResponse:
        read = await state.get_state(
            self._hub.store,
            current_call().caller,
            project=request.project,
            state_key=request.state_key,
            as_of=_as_of(request),
            include_history=request.include_history,
            now=self._hub.now(),
        )
        response = pb.GetStateResponse(history=[item_to_proto(item) for item in read.history])
        if read.item is not None:
            response.item.CopyFrom(item_to_proto(read.item))
        return response

    async def ListStateSet(self, request: pb.ListStateSetRequest, context: Context) -> pb.ListStateSetResponse:
        members = await state.list_state_set(
            self._hub.store,
            current_call().caller,
            project=request.project,
            state_key=request.state_key,
            as_of=_as_of(request),
            now=self._hub.now(),
        )
        return pb.ListStateSetResponse(items=[item_to_proto(item) for item in members])

    async def ProposeState(self, request: pb.ProposeStateRequest, context: Context) -> pb.ProposeStateResponse:
        change = Change(
            state_key=request.state_key,
            summary=request.summary,
            evidence_refs=tuple(request.evidence_refs),
            authority=_optional(_AUTHORITY_OF, request.authority, "authority"),
            confidence=_optional(_CONFIDENCE_OF, request.confidence, "confidence"),
            supersedes=tuple(request.supersedes),
        )
        proposal = await state.propose_state(
            self._hub.store,
            current_call().caller,
            change,
            project=request.project,
            proposed_by=request.proposed_by,
            request_id=request.request_id,
            now=self._hub.now(),
        )
        return pb.ProposeStateResponse(proposal=item_to_proto(proposal))

    async def PromoteState(self, request: pb.PromoteStateRequest, context: Context) -> pb.PromoteStateResponse:
        promoted = await state.promote_state(
            self._hub.store,
            current_call().caller,
            project=request.project,
            proposal_id=request.proposal_id,
            evidence_refs=tuple(request.evidence_refs),
            now=self._hub.now(),
        )
        return pb.PromoteStateResponse(
            item=item_to_proto(promoted.item),
            proposal=item_to_proto(promoted.proposal),
            superseded_ids=promoted.superseded_ids,
        )

    async def RejectState(self, request: pb.RejectStateRequest, context: Context) -> pb.RejectStateResponse:
        closed = await state.reject_state(
            self._hub.store,
            current_call().caller,
            project=request.project,
            proposal_id=request.proposal_id,
            reason=request.reason,
            now=self._hub.now(),
        )
        return pb.RejectStateResponse(proposal=item_to_proto(closed))
