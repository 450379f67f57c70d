"""The JSON shapes of items, packets and audits, and the packet id derived from content (§11.14).

Shapes follow the original (camelCase names, absent fields left out, times as RFC 3339 text; a
time is rendered from the item's microseconds as UTC with six fractional digits,
``2026-01-01T00:00:01.250000Z``, not as the text the caller wrote);
``canonical_json`` (keys in UTF-16 code-unit order, JavaScript numbers) makes them bytes, so "the
same packet" can be checked byte for byte. A packet id is ``ctxpkt_`` and the first 16 hex digits
of the SHA-256 of the canonical packet and audit: the same content always has the same id, and the
original's random id (and its clock read) is gone.
"""

from __future__ import annotations

import hashlib

from kxm_grpc.domain.clock import rfc3339
from kxm_grpc.domain.context.arbiter import Audit, Outcome, Packet
from kxm_grpc.domain.context.items import ContextItem
from kxm_grpc.domain.context.request import ContextRequest
from kxm_grpc.domain.sync_events import JsonValue, canonical_json

PACKET_ID_PREFIX = "ctxpkt_"


def item_document(item: ContextItem) -> dict[str, JsonValue]:
    """An item's JSON shape (``kxm.context-item.v1``)."""
    provenance: dict[str, JsonValue] = {"sourceType": item.provenance.source_type.value}
    if item.provenance.source_ref is not None:
        provenance["sourceRef"] = item.provenance.source_ref
    if item.provenance.derived_from:
        provenance["derivedFrom"] = list(item.provenance.derived_from)
    document: dict[str, JsonValue] = {
        "id": item.id,
        "kind": item.kind.value,
        "project": item.project,
        "summary": item.summary,
        "provenance": provenance,
        "authority": item.authority.value,
        "confidence": item.confidence.value,
    }
    optional: dict[str, JsonValue] = {
        "scope": None if item.scope is None else item.scope.value,
        "status": None if item.status is None else item.status.value,
        "stateKey": item.state_key,
        "observedAt": None if item.observed_at is None else rfc3339(item.observed_at),
        "validFrom": None if item.valid_from is None else rfc3339(item.valid_from),
        "validUntil": None if item.valid_until is None else rfc3339(item.valid_until),
        "supersedes": list(item.supersedes) or None,
        "evidenceRefs": list(item.evidence_refs) or None,
    }
    document.update({name: value for name, value in optional.items() if value is not None})
    return document


def request_document(request: ContextRequest) -> dict[str, JsonValue]:
    """The request as the audit echoes it: project, role, task, and the run and stage if given."""
    document: dict[str, JsonValue] = {"project": request.project, "role": request.role, "task": request.task}
    if request.workflow_run_id is not None:
        document["workflowRunId"] = request.workflow_run_id
    if request.stage_id is not None:
        document["stageId"] = request.stage_id
    return document


def packet_document(packet: Packet) -> dict[str, JsonValue]:
    """The packet's JSON shape, without an id."""
    return {
        "contradictions": [item_document(item) for item in packet.contradictions],
        "currentState": [item_document(item) for item in packet.current_state],
        "knowledge": [item_document(item) for item in packet.knowledge],
        "evidence": [item_document(item) for item in packet.evidence],
        "episodes": [item_document(item) for item in packet.episodes],
        "skills": [item_document(item) for item in packet.skills],
        "workingState": dict(packet.working_state),
        "unresolvedGaps": list(packet.unresolved_gaps),
        "provenanceSummary": dict(packet.provenance_summary),
        "estimatedTokens": packet.estimated_tokens,
    }


def audit_document(audit: Audit) -> dict[str, JsonValue]:
    """The audit's JSON shape: metadata only, never an item's summary."""
    return {
        "request": request_document(audit.request),
        "selectedIds": list(audit.selected_ids),
        "deferredCount": audit.deferred_count,
        "provenanceSummary": dict(audit.provenance_summary),
        "estimatedTokens": audit.estimated_tokens,
        "budgetTokens": audit.budget_tokens,
        "candidateCount": audit.candidate_count,
        "excludedSuperseded": audit.excluded_superseded,
        "unresolvedGaps": list(audit.unresolved_gaps),
        "relevance": {
            "taskTokens": audit.task_tokens,
            "matchedCandidates": audit.matched_candidates,
            "selected": list(audit.selected_relevance),
        },
        "reasons": [
            {
                "id": reason.id,
                "contradiction": reason.contradiction,
                "shared": reason.shared,
                "taskMatched": reason.task_matched,
                "kindRank": reason.kind_rank,
                "relevance": reason.relevance,
            }
            for reason in audit.reasons
        ],
    }


def packet_id(outcome: Outcome) -> str:
    """``ctxpkt_`` and 16 hex digits of the SHA-256 of the canonical packet and audit."""
    body = canonical_json({"packet": packet_document(outcome.packet), "audit": audit_document(outcome.audit)})
    return PACKET_ID_PREFIX + hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def outcome_bytes(outcome: Outcome) -> bytes:
    """The canonical bytes of the packet (with its id) and the audit: what "byte-identical" compares."""
    packet = packet_document(outcome.packet)
    packet["packetId"] = packet_id(outcome)
    return canonical_json({"packet": packet, "audit": audit_document(outcome.audit)}).encode("utf-8")
