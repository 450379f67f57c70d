"""Token estimates (spec §5.6): about four UTF-16 code units per token, for budgets only."""

from __future__ import annotations

from collections.abc import Iterable

from kxm_grpc.domain.context.items import ContextItem
from kxm_grpc.domain.validation import utf16_length


def item_characters(item: ContextItem) -> int:
    """What one item costs: its summary, id, kind and sourceRef, in UTF-16 code units."""
    return (
        utf16_length(item.summary)
        + utf16_length(item.id)
        + len(item.kind.value)
        + utf16_length(item.provenance.source_ref or "")
    )


def tokens_for(characters: int) -> int:
    """``ceil(characters / 4)`` in integers (no float rounding)."""
    return -(-characters // 4)


def estimate_tokens(items: Iterable[ContextItem]) -> int:
    """The estimate of a selection: ``ceil(Σ item_characters / 4)``."""
    return tokens_for(sum(item_characters(item) for item in items))
