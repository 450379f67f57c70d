"""Item builders shared by the context tests."""

from __future__ import annotations

from kxm_grpc.domain.context.items import Authority, Confidence, ContextItem, Kind, Provenance, SourceType

PROJECT = "alpha"


def item(
    item_id: str,
    summary: str = "a note",
    kind: Kind = Kind.EVIDENCE,
    *,
    project: str = PROJECT,
    source: SourceType = SourceType.TOOL,
    authority: Authority = Authority.EVIDENCE,
    confidence: Confidence = Confidence.PROBABLE,
    **fields: object,
) -> ContextItem:
    return ContextItem(
        id=item_id,
        kind=kind,
        project=project,
        summary=summary,
        provenance=Provenance(source),
        authority=authority,
        confidence=confidence,
        **fields,  # type: ignore[arg-type]
    )
