"""Derived items: summaries of other items, with bounded lineage and no gain of authority (spec §5.3).

Iterated summarisation is the classic way to launder provenance: each hop must re-earn nothing.
A derived item's ``derivedFrom`` is the whole transitive lineage (at most 64 ids), its source type
is ``derived`` and its authority is the least of what was claimed, ``evidence`` (the floor of a
derived origin) and the strongest authority in its lineage.

Deviation (a fix of §5.3, backed by map rule 19): §5.3 says a claim exceeding the strongest lineage
authority "becomes ``evidence``", which would raise a summary of ``hypothesis`` items to
``evidence``. Here the authority never rises above the lineage: it is capped at the strongest
lineage authority (``hypothesis`` over an all-``hypothesis`` or empty lineage).
"""

from __future__ import annotations

from collections.abc import Sequence

from kxm_grpc.domain.context.items import (
    MAX_LINEAGE,
    SHARED_PROJECT,
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    SourceType,
    Status,
    check_item,
)
from kxm_grpc.domain.context.ordering import code_unit_sorted
from kxm_grpc.errors import InvalidArgument, PermissionDenied, Reason

DERIVED_ID_PREFIX = "ctx"


def derived_authority(claimed: Authority, lineage: Sequence[ContextItem]) -> Authority:
    """The least of ``claimed``, ``evidence`` and the strongest lineage authority (``hypothesis``
    when the lineage is empty: content derived from nothing is a guess)."""
    strongest = max((item.authority.rank for item in lineage), default=Authority.HYPOTHESIS.rank)
    rank = min(claimed.rank, Authority.EVIDENCE.rank, strongest)
    return next(authority for authority in Authority if authority.rank == rank)


def lineage_ids(lineage: Sequence[ContextItem]) -> tuple[str, ...]:
    """Every ancestor id: each lineage item's id and its own ``derivedFrom``, deduplicated and in
    code-unit order (each item's ``derivedFrom`` is already its full lineage)."""
    ids: set[str] = set()
    for ancestor in lineage:
        ids.add(ancestor.id)
        ids.update(ancestor.provenance.derived_from)
    return code_unit_sorted(ids)


def derive_item(
    *,
    item_id: str,
    project: str,
    kind: Kind,
    summary: str,
    claimed: Authority,
    lineage: Sequence[ContextItem],
    source_ref: str | None = None,
) -> ContextItem:
    """Mint a derived item (``deriveContextItem``). ``item_id`` comes from the caller (``ctx_…``).

    Raises:
        InvalidArgument: the lineage holds more than 64 ancestors (CONTEXT_LIMITS_EXCEEDED), or a
            field breaks a rule of ``check_item``.
        PermissionDenied: a lineage item belongs to another project (CONTEXT_ISOLATION_VIOLATION):
            deriving must not carry one project's content into another.
    """
    for ancestor in lineage:
        if ancestor.project not in (project, SHARED_PROJECT):
            raise PermissionDenied(
                f"derivation lineage contains cross-project item {ancestor.id}",
                reason=Reason.CONTEXT_ISOLATION_VIOLATION,
                metadata={"itemId": ancestor.id},
            )
    derived_from = lineage_ids(lineage)
    if len(derived_from) > MAX_LINEAGE:
        raise InvalidArgument(
            f"derivation lineage exceeds {MAX_LINEAGE} ancestors",
            reason=Reason.CONTEXT_LIMITS_EXCEEDED,
            metadata={"field": "provenance.derivedFrom", "limit": str(MAX_LINEAGE)},
        )
    item = ContextItem(
        id=item_id,
        kind=kind,
        project=project,
        summary=summary,
        provenance=Provenance(SourceType.DERIVED, source_ref, derived_from),
        authority=derived_authority(claimed, lineage),
        confidence=Confidence.PROBABLE,
    )
    # The hub mints derived items itself: its origin is the workflow control plane.
    return check_item(item, origin=SourceType.WORKFLOW)


def summarize_items(
    *, item_id: str, project: str, summary: str, lineage: Sequence[ContextItem], source_ref: str | None = None
) -> ContextItem:
    """One derived ``knowledge`` item claiming ``evidence`` over the live lineage (superseded and
    rejected items are dropped: dead records are no evidence of current truth)."""
    live = [item for item in lineage if item.status not in (Status.SUPERSEDED, Status.REJECTED)]
    return derive_item(
        item_id=item_id,
        project=project,
        kind=Kind.KNOWLEDGE,
        summary=summary,
        claimed=Authority.EVIDENCE,
        lineage=live,
        source_ref=source_ref,
    )
