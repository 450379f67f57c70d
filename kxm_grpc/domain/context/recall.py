"""Recall (§5.8, pin 18): items found by a query, as metadata only, never their summaries.

The corpus is the pool less superseded and rejected items (and ``_shared`` defaults a project item
shadows), of the requested kinds. An item is a *phrase hit* when the query is empty or occurs, as
a whole and ignoring case (JavaScript lower-casing), in its summary or state key; items that are
neither a phrase hit nor scored above 0 by BM25 are left out. Phrase hits come first, then the
score descending, then the id by UTF-16 code unit; the first ``limit`` are returned.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from kxm_grpc.domain.context.items import ContextItem, Kind, SourceType, Status
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.context.relevance import item_text, round_relevance, score_relevance
from kxm_grpc.domain.validation import js_lower

MAX_QUERY_CHARS = 500
DEFAULT_LIMIT = 25
MAX_LIMIT = 100
GAP_NO_MATCH = "no matching context records"


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One item found: its metadata and why it was found."""

    item: ContextItem
    """The item (the service returns its metadata only)."""
    phrase_hit: bool
    score: float
    """Unrounded BM25 score (``relevance`` is what responses show)."""

    @property
    def relevance(self) -> float:
        """The score rounded to three decimals, as the original reports it."""
        return round_relevance(self.score)

    @property
    def derived(self) -> bool:
        """Derived from other items: its source type is ``derived`` or it has a lineage."""
        provenance = self.item.provenance
        return provenance.source_type is SourceType.DERIVED or bool(provenance.derived_from)


def recall_corpus(pool: Sequence[ContextItem], *, project: str, kinds: Collection[Kind] | None) -> list[ContextItem]:
    """The items recall ranks: the pool less superseded and rejected items, less ``_shared``
    items a project item with the same id shadows, of ``kinds`` (None: every kind)."""
    own = {item.id for item in pool if item.project == project}
    return [
        item
        for item in pool
        if not (item.project != project and item.id in own)
        and item.status not in (Status.SUPERSEDED, Status.REJECTED)
        and (kinds is None or item.kind in kinds)
    ]


def is_phrase_hit(item: ContextItem, folded_query: str) -> bool:
    """The query (already lower-cased) is empty or inside the item's summary or state key."""
    if not folded_query:
        return True
    if folded_query in js_lower(item.summary):
        return True
    return item.state_key is not None and folded_query in js_lower(item.state_key)


def rank_recall(query: str, corpus: Sequence[ContextItem], *, limit: int) -> list[RecallHit]:
    """The first ``limit`` hits of ``query`` among ``corpus`` (see the module docstring); the
    query and limit are assumed checked."""
    folded = js_lower(query)
    scores = score_relevance(query, [item_text(item) for item in corpus])
    hits = [
        RecallHit(item, phrase, score)
        for item, score in zip(corpus, scores, strict=True)
        for phrase in [is_phrase_hit(item, folded)]
        if phrase or score > 0
    ]
    hits.sort(key=lambda hit: (0 if hit.phrase_hit else 1, -hit.score, code_unit_key(hit.item.id), hit.item.id))
    return hits[:limit]
