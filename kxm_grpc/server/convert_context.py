"""Context items, packets and recall hits between the contract (envelopes.proto) and the domain.

Conversion only, shared by every ContextService servicer (items, state, episodes): enums map by
name (``CONTEXT_KIND_EVIDENCE`` ↔ ``Kind.EVIDENCE``), an empty string or an unset enum or time is
an absent field, a Timestamp is microseconds. The rules (limits, authority, defaults that depend on
the caller) are ``kxm_grpc.domain.context`` and ``kxm_grpc.services.context``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TypeVar

from google.protobuf import struct_pb2, timestamp_pb2

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as cpb
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.context.arbiter import Audit, Outcome, Packet
from kxm_grpc.domain.context.items import (
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    Scope,
    SourceType,
    Status,
)
from kxm_grpc.domain.context.recall import RecallHit
from kxm_grpc.domain.context.request import ContextRequest
from kxm_grpc.errors import InvalidArgument, Reason, invalid_field
from kxm_grpc.server.convert import check_timestamp, timestamp

_E = TypeVar("_E", bound=enum.Enum)


KIND: dict[Kind, epb.ContextKind.ValueType] = {m: epb.ContextKind.Value(f"CONTEXT_KIND_{m.name}") for m in Kind}
SOURCE_TYPE: dict[SourceType, epb.ContextSourceType.ValueType] = {
    m: epb.ContextSourceType.Value(f"CONTEXT_SOURCE_TYPE_{m.name}") for m in SourceType
}
AUTHORITY: dict[Authority, epb.ContextAuthority.ValueType] = {
    m: epb.ContextAuthority.Value(f"CONTEXT_AUTHORITY_{m.name}") for m in Authority
}
CONFIDENCE: dict[Confidence, epb.ContextConfidence.ValueType] = {
    m: epb.ContextConfidence.Value(f"CONTEXT_CONFIDENCE_{m.name}") for m in Confidence
}
SCOPE: dict[Scope, epb.ContextScope.ValueType] = {m: epb.ContextScope.Value(f"CONTEXT_SCOPE_{m.name}") for m in Scope}
STATUS: dict[Status, epb.ContextStatus.ValueType] = {
    m: epb.ContextStatus.Value(f"CONTEXT_STATUS_{m.name}") for m in Status
}
"""Domain enum → proto enum number, one map per enum; 0 (UNSPECIFIED) is in none of them."""

DEFAULT_AUTHORITY = Authority.EVIDENCE
"""An item's authority when the message leaves it unset: the most a peer may claim."""
DEFAULT_CONFIDENCE = Confidence.PROBABLE
"""An item's confidence when the message leaves it unset (as ProposeState's)."""


def enum_from_proto(cls: type[_E], values: Mapping[_E, int], value: int, field: str) -> _E | None:
    """The domain member of a proto enum number; None for 0 (unset).

    Raises:
        InvalidArgument: (INVALID_CONTEXT_FIELD, ``field``) a number the contract does not define.
    """
    if value == 0:
        return None
    for member, number in values.items():
        if number == value:
            return member
    raise invalid_field(field, f"is not a known {cls.__name__.lower()} ({value})", reason=Reason.INVALID_CONTEXT_FIELD)


def _required(cls: type[_E], values: Mapping[_E, int], value: int, field: str) -> _E:
    member = enum_from_proto(cls, values, value, field)
    if member is None:
        raise invalid_field(field, "is required", reason=Reason.INVALID_CONTEXT_FIELD)
    return member


def micros(field: str, value: timestamp_pb2.Timestamp, *, reason: Reason = Reason.INVALID_CONTEXT_FIELD) -> int:
    """A Timestamp as microseconds since the epoch (sub-microsecond nanos dropped).

    Raises:
        InvalidArgument: (``reason``, ``field``) a Timestamp outside its definition's range.
    """
    try:
        check_timestamp(field, value)
    except InvalidArgument as error:
        raise invalid_field(field, error.field_violations[0].description, reason=reason) from None
    return value.seconds * MICROS + value.nanos // 1000


def item_from_proto(proto: epb.ContextItem, *, source_type: SourceType) -> ContextItem:
    """An item as the caller wrote it, not yet checked (``items.check_item`` does that).

    ``source_type`` stands in for an unset ``provenance.source_type`` (the caller's origin); an unset
    authority is evidence, an unset confidence probable. ``kind`` is required.

    Raises:
        InvalidArgument: (INVALID_CONTEXT_FIELD) no kind, an enum number the contract does not
            define, or a time out of range; naming the field.
    """
    provenance = proto.provenance
    return ContextItem(
        id=proto.id,
        kind=_required(Kind, KIND, proto.kind, "kind"),
        project=proto.project,
        summary=proto.summary,
        provenance=Provenance(
            source_type=enum_from_proto(SourceType, SOURCE_TYPE, provenance.source_type, "provenance.sourceType")
            or source_type,
            source_ref=provenance.source_ref or None,
            derived_from=tuple(provenance.derived_from),
        ),
        authority=enum_from_proto(Authority, AUTHORITY, proto.authority, "authority") or DEFAULT_AUTHORITY,
        confidence=enum_from_proto(Confidence, CONFIDENCE, proto.confidence, "confidence") or DEFAULT_CONFIDENCE,
        scope=enum_from_proto(Scope, SCOPE, proto.scope, "scope"),
        status=enum_from_proto(Status, STATUS, proto.status, "status"),
        state_key=proto.state_key or None,
        observed_at=micros("observedAt", proto.observe_time) if proto.HasField("observe_time") else None,
        valid_from=micros("validFrom", proto.valid_from_time) if proto.HasField("valid_from_time") else None,
        valid_until=micros("validUntil", proto.valid_until_time) if proto.HasField("valid_until_time") else None,
        supersedes=tuple(proto.supersedes),
        evidence_refs=tuple(proto.evidence_refs),
    )


def item_to_proto(item: ContextItem) -> epb.ContextItem:
    """An item as the contract shows it (absent fields unset)."""
    return epb.ContextItem(
        id=item.id,
        kind=KIND[item.kind],
        project=item.project,
        summary=item.summary,
        provenance=epb.ContextProvenance(
            source_type=SOURCE_TYPE[item.provenance.source_type],
            source_ref=item.provenance.source_ref or "",
            derived_from=item.provenance.derived_from,
        ),
        authority=AUTHORITY[item.authority],
        confidence=CONFIDENCE[item.confidence],
        scope=SCOPE[item.scope] if item.scope is not None else epb.CONTEXT_SCOPE_UNSPECIFIED,
        status=STATUS[item.status] if item.status is not None else epb.CONTEXT_STATUS_UNSPECIFIED,
        state_key=item.state_key or "",
        observe_time=timestamp(item.observed_at),
        valid_from_time=timestamp(item.valid_from),
        valid_until_time=timestamp(item.valid_until),
        supersedes=item.supersedes,
        evidence_refs=item.evidence_refs,
    )


def request_from_proto(proto: epb.ContextRequest) -> ContextRequest:
    """A packet request as written (``request.check_request`` checks it); 0 budget is the role's,
    no kinds the role's.

    Raises:
        InvalidArgument: (INVALID_CONTEXT_REQUEST, ``includeKinds``) an unset or unknown kind.
    """
    kinds = tuple(request_kind(value, "includeKinds") for value in proto.include_kinds)
    return ContextRequest(
        project=proto.project,
        role=proto.role,
        task=proto.task,
        workflow_run_id=proto.workflow_run_id or None,
        stage_id=proto.stage_id or None,
        budget_tokens=proto.budget_tokens or None,
        include_kinds=kinds or None,
    )


def request_kind(value: int, field: str) -> Kind:
    """A kind a request names (``includeKinds``, recall's ``kinds``).

    Raises:
        InvalidArgument: (INVALID_CONTEXT_REQUEST, ``field``) unset or not a kind the contract defines.
    """
    for member, number in KIND.items():
        if number == value:
            return member
    raise invalid_field(field, f"names no context kind ({value})", reason=Reason.INVALID_CONTEXT_REQUEST)


def request_to_proto(request: ContextRequest) -> epb.ContextRequest:
    """The request as the audit echoes it: project, role, task, and the run and stage if given."""
    return epb.ContextRequest(
        project=request.project,
        role=request.role,
        task=request.task,
        workflow_run_id=request.workflow_run_id or "",
        stage_id=request.stage_id or "",
    )


def _provenance(counts: tuple[tuple[str, int], ...]) -> list[epb.ProvenanceCount]:
    return [epb.ProvenanceCount(source_type=SOURCE_TYPE[SourceType(name)], count=count) for name, count in counts]


def audit_to_proto(audit: Audit) -> epb.ContextAudit:
    """The audit: ids, counts, scores and reasons, never an item's body."""
    return epb.ContextAudit(
        request=request_to_proto(audit.request),
        selected_ids=audit.selected_ids,
        provenance_summary=_provenance(audit.provenance_summary),
        estimated_tokens=audit.estimated_tokens,
        budget_tokens=audit.budget_tokens,
        candidate_count=audit.candidate_count,
        excluded_superseded=audit.excluded_superseded,
        unresolved_gaps=audit.unresolved_gaps,
        task_tokens=audit.task_tokens,
        matched_candidates=audit.matched_candidates,
        selected_scores=[
            epb.RelevanceScore(id=item_id, score=score)
            for item_id, score in zip(audit.selected_ids, audit.selected_relevance, strict=True)
        ],
        reasons=[
            epb.SelectionReason(
                id=reason.id,
                contradiction=reason.contradiction,
                shared=reason.shared,
                task_matched=reason.task_matched,
                kind_rank=reason.kind_rank,
                relevance=reason.relevance,
            )
            for reason in audit.reasons
        ],
        deferred_count=audit.deferred_count,
    )


def packet_to_proto(outcome: Outcome) -> epb.ContextPacket:
    """The packet with its audit and the caller's working state."""
    packet: Packet = outcome.packet
    working_state = struct_pb2.Struct()
    working_state.update(dict(packet.working_state))
    return epb.ContextPacket(
        contradictions=[item_to_proto(item) for item in packet.contradictions],
        current_state=[item_to_proto(item) for item in packet.current_state],
        knowledge=[item_to_proto(item) for item in packet.knowledge],
        evidence=[item_to_proto(item) for item in packet.evidence],
        episodes=[item_to_proto(item) for item in packet.episodes],
        skills=[item_to_proto(item) for item in packet.skills],
        unresolved_gaps=packet.unresolved_gaps,
        provenance_summary=_provenance(packet.provenance_summary),
        estimated_tokens=packet.estimated_tokens,
        audit=audit_to_proto(outcome.audit),
        working_state=working_state,
    )


def recall_item_to_proto(hit: RecallHit) -> cpb.RecallItem:
    """A recall hit's metadata: never its summary."""
    item = hit.item
    return cpb.RecallItem(
        id=item.id,
        project=item.project,
        kind=KIND[item.kind],
        authority=AUTHORITY[item.authority],
        confidence=CONFIDENCE[item.confidence],
        status=STATUS[item.status] if item.status is not None else epb.CONTEXT_STATUS_UNSPECIFIED,
        source_type=SOURCE_TYPE[item.provenance.source_type],
        source_ref=item.provenance.source_ref or "",
        derived=hit.derived,
        lineage_depth=len(item.provenance.derived_from),
        relevance=hit.relevance,
        phrase_hit=hit.phrase_hit,
    )
