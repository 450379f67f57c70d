"""Assembling a packet and ranking a recall from the stored pool.

``assemble`` and ``recall`` are what the RPCs call: the indexed forms, which read the index's
statistics, the query terms' postings and only as many items as first fit or the recall limit
needs (decisions 216–223). The brute-force forms read the whole pool of the project (its items
and ``_shared``'s) and hand it to the pure rules (``kxm_grpc.domain.context.arbiter.arbitrate``
and ``recall.rank_recall``): they are the oracle the indexed forms are held to, byte for byte
(``tests/store/contract/test_context_oracle.py``).

The indexed packet
------------------
1. The pool's statistics per (project, kind, status), less the ``_shared`` items the project
   shadows (``shadowed``: the project holds their id), give the candidate and excluded counts and
   the eligible corpus' document count and total length; open contradictions outside the eligible
   partitions (another kind, or inert) are read whole and added from their own text.
2. The task's terms' postings in the eligible partitions are the matched items; ``relevance.bm25``
   scores them from those statistics, the same float operations as the brute force's.
3. First fit walks the arbiter's order as runs whose first five keys are equal or known: the open
   contradictions (read whole, sorted by ``rank_key``); then per project (its own, then
   ``_shared``) the matched items by kind rank and score, their remaining keys read in batches that
   end on a tie; then per kind in the role's order the unmatched items, which the store walks in
   its rank index (``Stream``), skipping in the database those too large for what is left.
4. An item that does not fit is deferred and later ones still fill, as in ``arbitrate``. Fewer than
   256 selected: every eligible item not selected was visited and deferred, so the count is the
   corpus size less the selection, and the walk can stop as soon as nothing can fit any more
   (``MIN_ITEM_CHARACTERS``). The 256th selected: the deferred are the items ranked before it not
   selected, counted from its position (``count_before`` in a store run).
5. The selected items are read whole, and ``arbiter.finish`` builds the packet and audit, as it
   does for ``arbitrate``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kxm_grpc.domain.context.arbiter import (
    Outcome,
    arbitrate,
    budget_and_kinds,
    budget_characters,
    finish,
    is_inert_partition,
    rank_key,
    tail_key,
)
from kxm_grpc.domain.context.items import MAX_ITEMS, SHARED_PROJECT, ContextItem, Kind, Status
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.context.recall import RecallHit, rank_recall, recall_corpus
from kxm_grpc.domain.context.relevance import bm25, item_text, query_terms, relevance_tokens
from kxm_grpc.domain.context.request import ContextRequest, check_request
from kxm_grpc.domain.context.tokens import item_characters
from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.domain.validation import js_lower
from kxm_grpc.store import Tx
from kxm_grpc.store.protocols.context_items import ContextItemRepository, RankEntry, RankKey, Stream

_POOL_PAGE = 1_000
_ENDED = (Status.SUPERSEDED, Status.REJECTED)
_LIVE: tuple[Status | None, ...] = (None, *(status for status in Status if status not in _ENDED))
"""The statuses of candidates (an item without a status included)."""
MIN_ITEM_CHARACTERS = min(len(kind.value) for kind in Kind) + 2
"""The least a checked item costs (``tokens.item_characters``): its kind, and an id and a summary
of at least one code unit each. With less left of a budget, nothing more fits."""
_FIRST_PAGE = 64
_LAST_PAGE = 1_024
_ANY_COST = 1 << 62
_MATCHED_BATCH = 256
_PHRASE_BATCHES = 4
"""Batches of the best-scored items recall phrase-tests before it scans the pool instead."""
"""Matched items whose remaining ordering keys are read at once (more, to end on a tie)."""

Key = tuple[str, str]
"""(project, item id)."""


def status_value(status: Status | None) -> str:
    """A status as ``Match.status`` holds it (``''``: none)."""
    return "" if status is None else status.value


# -- the brute force (the oracle) ------------------------------------------------------------------


def read_pool(tx: Tx, project: str) -> list[ContextItem]:
    """Every item of ``project`` and of ``_shared``, in (project, id) order."""
    items: list[ContextItem] = []
    after: tuple[str, str] | None = None
    while True:
        page = tx.context_items.list_items(project, after=after, limit=_POOL_PAGE)
        items.extend(stored.item for stored in page)
        if len(page) < _POOL_PAGE:
            return items
        after = (page[-1].item.project, page[-1].item.id)


def assemble_brute_force(
    tx: Tx,
    request: ContextRequest,
    *,
    contradiction_ids: Collection[str] = (),
    working_state: Mapping[str, JsonValue] | None = None,
) -> Outcome:
    """The packet of ``request`` over the whole pool read at once (``arbitrate``'s raises)."""
    return arbitrate(
        request, read_pool(tx, request.project), contradiction_ids=contradiction_ids, working_state=working_state
    )


def recall_brute_force(
    tx: Tx, project: str, query: str, *, kinds: Collection[Kind] | None, limit: int
) -> list[RecallHit]:
    """The hits of ``query`` over the whole pool read at once."""
    return rank_recall(query, recall_corpus(read_pool(tx, project), project=project, kinds=kinds), limit=limit)


# -- the statistics ----------------------------------------------------------------------------------


@dataclass
class _Pool:
    """The pool's statistics, net of the ``_shared`` items the project shadows."""

    project: str
    owners: tuple[str, ...]
    """The project, then ``_shared`` (the project alone when it is ``_shared``)."""
    partitions: dict[tuple[str, Kind, Status | None], list[int]] = field(default_factory=dict)
    """(project, kind, status) → [documents, total length]."""
    shadowed: frozenset[str] = frozenset()

    @classmethod
    def read(cls, repo: ContextItemRepository, project: str) -> _Pool:
        owners = (project,) if project == SHARED_PROJECT else (project, SHARED_PROJECT)
        pool = cls(project, owners)
        for stats in repo.index_stats(project):
            pool.partitions[(stats.project, stats.kind, stats.status)] = [stats.documents, stats.total_length]
        hidden = repo.shadowed(project)
        for item in hidden:
            totals = pool.partitions[(item.project, item.kind, item.status)]
            totals[0] -= 1
            totals[1] -= item.length
        pool.shadowed = frozenset(item.item_id for item in hidden)
        return pool

    def shadowed_by(self, owner: str) -> str | None:
        """The project whose ids hide ``owner``'s items (for ``_shared``), else None."""
        return self.project if owner != self.project else None

    def hidden(self, owner: str, item_id: str) -> bool:
        return owner != self.project and item_id in self.shadowed

    def totals(self, wanted: Iterable[tuple[str, Kind, Status | None]]) -> tuple[int, int]:
        documents = length = 0
        for key in wanted:
            found = self.partitions.get(key)
            if found is not None:
                documents += found[0]
                length += found[1]
        return documents, length


def _scored(
    terms: Sequence[str], count: int, total: int, documents: Mapping[Key, Mapping[str, int]], lengths: Mapping[Key, int]
) -> dict[Key, float]:
    """BM25 of ``documents`` (the corpus' documents sharing a term) in a corpus of ``count``
    documents of ``total`` length, by ``relevance.bm25``."""
    frequency: Counter[str] = Counter()
    for frequencies in documents.values():
        frequency.update(frequencies.keys())
    keys = list(documents)
    scores = bm25(terms, count, total, frequency, [(lengths[key], documents[key]) for key in keys])
    return dict(zip(keys, scores, strict=True))


def _own_terms(item: ContextItem, terms: Collection[str]) -> tuple[int, dict[str, int]]:
    """An item's length and its frequencies of ``terms``, from its text (as the index has them)."""
    frequencies = Counter(relevance_tokens(item_text(item)))
    return sum(frequencies.values()), {term: count for term, count in frequencies.items() if term in terms}


# -- the indexed packet ----------------------------------------------------------------------------------


@dataclass
class _Fill:
    """First fit over the arbiter's order, visited as runs (see the module docstring, step 4)."""

    room: int
    corpus: int
    selected: list[Key] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    last_position: int | None = None
    """The position of the 256th selected item in the whole order, once there is one."""

    @property
    def done(self) -> bool:
        return self.last_position is not None or self.room < MIN_ITEM_CHARACTERS

    def offer(self, key: Key, cost: int, score: float) -> bool:
        """Select the item if it fits; True when it was the 256th."""
        if cost > self.room:
            return False
        self.room -= cost
        self.selected.append(key)
        self.scores[key[1]] = score
        return len(self.selected) == MAX_ITEMS

    def deferred_and_limit(self) -> tuple[int, bool]:
        if self.last_position is None:
            return self.corpus - len(self.selected), False
        return self.last_position + 1 - MAX_ITEMS, self.last_position + 1 < self.corpus


def assemble_indexed(
    tx: Tx,
    request: ContextRequest,
    *,
    contradiction_ids: Collection[str] = (),
    working_state: Mapping[str, JsonValue] | None = None,
) -> Outcome:
    """The packet of ``request``, byte-identical to ``assemble_brute_force``'s, from the index.

    Raises:
        InvalidArgument: the request breaks a rule of §5.2 (INVALID_CONTEXT_REQUEST).
    """
    request = check_request(request)
    budget, kinds = budget_and_kinds(request)
    kind_ranks = {kind: index for index, kind in enumerate(kinds)}
    contradictions = frozenset(contradiction_ids)
    repo = tx.context_items
    pool = _Pool.read(repo, request.project)

    def eligible(kind: Kind, status: Status | None) -> bool:
        return kind in kind_ranks and status not in _ENDED and not is_inert_partition(kind, status)

    candidates = sum(totals[0] for (_, _, status), totals in pool.partitions.items() if status not in _ENDED)
    excluded = sum(totals[0] for (_, _, status), totals in pool.partitions.items() if status in _ENDED)

    # The open contradictions, read whole (the project's own first: a _shared one it holds is shadowed).
    contra: list[ContextItem] = []
    wanted = set(contradictions)
    for owner in pool.owners:
        found = [stored.item for stored in repo.get(owner, wanted)] if wanted else []
        wanted -= {item.id for item in found}
        contra += [item for item in found if item.status not in _ENDED]
    outside = [item for item in contra if not eligible(item.kind, item.status)]

    count, total = pool.totals(key for key in pool.partitions if eligible(key[1], key[2]))
    count += len(outside)
    terms = query_terms(request.task)
    documents: dict[Key, dict[str, int]] = {}
    lengths: dict[Key, int] = {}
    partition_of: dict[Key, tuple[Kind, Status | None]] = {}
    for item in outside:
        length, frequencies = _own_terms(item, terms)
        total += length
        if frequencies:
            documents[(item.project, item.id)] = frequencies
            lengths[(item.project, item.id)] = length
            partition_of[(item.project, item.id)] = (item.kind, item.status)
    scores: dict[Key, float] = {}
    if terms and count:
        columns = {
            (kind.value, status_value(status)): (kind, status)
            for kind in kind_ranks
            for status in _LIVE
            if eligible(kind, status)
        }
        for match in repo.matches(request.project, terms, kinds=kind_ranks.keys()):
            partition = columns.get((match.kind, match.status))
            if partition is None or pool.hidden(match.project, match.item_id):
                continue
            key = (match.project, match.item_id)
            documents.setdefault(key, {})[match.term] = match.frequency
            lengths[key] = match.length
            partition_of[key] = partition
        scores = _scored(terms, count, total, documents, lengths)

    fill = _Fill(room=budget_characters(budget), corpus=count)
    position = 0

    def score_of(key: Key) -> float:
        return scores.get(key, 0.0)

    # Run 1: the open contradictions.
    contra.sort(
        key=lambda item: rank_key(
            item,
            project=request.project,
            contradiction=True,
            kind_rank=kind_ranks.get(item.kind, len(kinds)),
            score=score_of((item.project, item.id)),
        )
    )
    for index, item in enumerate(contra):
        if fill.done:
            break
        key = (item.project, item.id)
        if fill.offer(key, item_characters(item), score_of(key)):
            fill.last_position = position + index
    position += len(contra)
    contra_keys = {(item.project, item.id): item for item in contra}
    unmatched_contra = {key: item for key, item in contra_keys.items() if key not in documents}
    elsewhere: Counter[tuple[str, Kind]] = Counter()
    """Per (project, kind): its eligible items ranked in runs 1 and 2 (matched or contradictions)."""
    for key in {*documents, *contra_keys}:
        kind, status = partition_of[key] if key in partition_of else _partition(contra_keys[key])
        if eligible(kind, status):
            elsewhere[(key[0], kind)] += 1

    for owner in pool.owners:
        # Run 2: the owner's matched items, by kind rank and score, then their remaining keys.
        matched = sorted(
            (key for key in scores if key[0] == owner and key not in contra_keys and scores[key] > 0),
            key=lambda key: (kind_ranks[partition_of[key][0]], -scores[key]),
        )
        start = 0
        while start < len(matched) and not fill.done:
            end = min(start + _MATCHED_BATCH, len(matched))
            head = (kind_ranks[partition_of[matched[end - 1]][0]], -scores[matched[end - 1]])
            while end < len(matched) and (kind_ranks[partition_of[matched[end]][0]], -scores[matched[end]]) == head:
                end += 1
            ids = [key[1] for key in matched[start:end]]
            # Items costing more than what is left are deferred: the store leaves them out.
            entries = {entry.item_id: entry for entry in repo.rank_rows(owner, ids, most_cost=fill.room)}

            def order(key: Key, entries: Mapping[str, RankEntry] = entries) -> tuple[int, float, RankKey]:
                return (kind_ranks[partition_of[key][0]], -scores[key], entries[key[1]].key)

            for key in sorted((key for key in matched[start:end] if key[1] in entries), key=order):
                if fill.done:
                    break
                if fill.offer(key, entries[key[1]].cost, scores[key]):
                    # The 256th: its position counts the batch's items before it, fitting or not.
                    every = {entry.item_id: entry for entry in repo.rank_rows(owner, ids, most_cost=_ANY_COST)}
                    mine = (kind_ranks[partition_of[key][0]], -scores[key], every[key[1]].key)
                    before = sum(1 for other in matched[start:end] if order(other, every) < mine)
                    fill.last_position = position + start + before
            start = end
        position += len(matched)

        # Run 3: the owner's unmatched items, kind by kind, walked by the store.
        for kind in kinds:
            statuses = tuple(status for status in _LIVE if eligible(kind, status))
            size = pool.totals((owner, kind, status) for status in statuses)[0] - elsewhere[(owner, kind)]
            if not fill.done and size > 0:
                stream = Stream(owner, kind, statuses, tuple(terms), pool.shadowed_by(owner))
                _walk(repo, stream, fill, position, unmatched_contra)
            position += size

    deferred, limit_reached = fill.deferred_and_limit()
    items: dict[Key, ContextItem] = {}
    for owner in pool.owners:
        ids = [item_id for project, item_id in fill.selected if project == owner]
        items.update({(owner, stored.item.id): stored.item for stored in repo.get(owner, ids)} if ids else {})
    return finish(
        request,
        [items[key] for key in fill.selected],
        scores=fill.scores,
        contradiction_ids=contradictions,
        deferred_count=deferred,
        limit_reached=limit_reached,
        candidate_count=candidates,
        excluded_superseded=excluded,
        matched_candidates=sum(1 for score in scores.values() if score > 0),
        working_state=working_state,
    )


def _partition(item: ContextItem) -> tuple[Kind, Status | None]:
    return item.kind, item.status


def _walk(
    repo: ContextItemRepository, stream: Stream, fill: _Fill, start: int, contra: Mapping[Key, ContextItem]
) -> None:
    """First fit over one store run of unmatched items, from position ``start`` of the whole order
    (``contra``: the unmatched open contradictions, which the run skips)."""
    after = None
    page = _FIRST_PAGE
    while not fill.done:
        entries = repo.rank_entries(stream, after=after, most_cost=fill.room, limit=page)
        for entry in entries:
            key = (entry.project, entry.item_id)
            if key in contra:
                continue  # ranked with the contradictions
            if fill.offer(key, entry.cost, 0.0):
                fill.last_position = start + _position(repo, stream, entry, contra)
                return
            if fill.done:
                return
        if len(entries) < page:
            return
        after = entries[-1].key
        page = min(page * 4, _LAST_PAGE)


def _position(repo: ContextItemRepository, stream: Stream, entry: RankEntry, skipped: Mapping[Key, ContextItem]) -> int:
    """The entry's position in its run: the store's items before it, less the contradictions
    among them (ranked in run 1)."""
    return repo.count_before(stream, entry.key) - sum(
        1
        for (project, _), item in skipped.items()
        if project == stream.project
        and item.kind is stream.kind
        and item.status in stream.statuses
        and tail_key(item) < entry.key
    )


# -- the indexed recall ----------------------------------------------------------------------------------


def recall_indexed(tx: Tx, project: str, query: str, *, kinds: Collection[Kind] | None, limit: int) -> list[RecallHit]:
    """The hits of ``query``, equal to ``recall_brute_force``'s, from the index: the terms'
    postings for the scores, the store's scan of the folded text for the phrase hits (a non-empty
    query), its code-unit index for an empty one."""
    folded = js_lower(query)
    try:
        folded.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no backend holds it as text (check_text refuses it)
        return recall_brute_force(tx, project, query, kinds=kinds, limit=limit)
    wanted = None if kinds is None else frozenset(kinds)
    repo = tx.context_items
    pool = _Pool.read(repo, project)

    def in_corpus(kind: Kind, status: Status | None) -> bool:
        return status not in _ENDED and (wanted is None or kind in wanted)

    count, total = pool.totals(key for key in pool.partitions if in_corpus(key[1], key[2]))
    terms = query_terms(query)
    scores: dict[Key, float] = {}
    if terms and count:
        documents: dict[Key, dict[str, int]] = {}
        lengths: dict[Key, int] = {}
        columns = {(kind.value, status_value(status)) for kind in Kind for status in _LIVE if in_corpus(kind, status)}
        for match in repo.matches(project, terms, kinds=wanted):
            if (match.kind, match.status) not in columns or pool.hidden(match.project, match.item_id):
                continue
            key = (match.project, match.item_id)
            documents.setdefault(key, {})[match.term] = match.frequency
            lengths[key] = match.length
        scores = _scored(terms, count, total, documents, lengths)

    def order(key: Key) -> tuple[float, bytes, str]:
        return (-scores.get(key, 0.0), code_unit_key(key[1]), key[1])

    phrase: set[Key] = set()
    if not folded:  # every item is a phrase hit, and scores 0: the first by code units
        for owner in pool.owners:
            found = repo.first_by_code_units(
                owner, kinds=wanted, statuses=_LIVE, shadowed_by=pool.shadowed_by(owner), limit=limit
            )
            phrase.update((owner, item_id) for item_id in found)
        hits = sorted(phrase, key=order)[:limit]
    else:
        # The scored items by score, phrase-tested a batch at a time: when the first batches hold
        # ``limit`` phrase hits, those are the answer (phrase hits first, then by score).
        scored = sorted((key for key, score in scores.items() if score > 0), key=order)
        found_scored: list[Key] = []
        for start in range(0, min(len(scored), _PHRASE_BATCHES * _MATCHED_BATCH), _MATCHED_BATCH):
            batch = scored[start : start + _MATCHED_BATCH]
            inside: set[Key] = set()
            for owner in pool.owners:
                among = [item_id for project_, item_id in batch if project_ == owner]
                if among:
                    ids = repo.phrase_hits(owner, folded, kinds=wanted, statuses=_LIVE, among=among)
                    inside.update((owner, item_id) for item_id in ids)
            found_scored += [key for key in batch if key in inside]
            if len(found_scored) >= limit:
                break
        if len(found_scored) >= limit:
            phrase = set(found_scored)
            hits = found_scored[:limit]
        else:
            # Else every phrase hit: one scan of the pool's folded text in the database.
            for owner in pool.owners:
                ids = repo.phrase_hits(owner, folded, kinds=wanted, statuses=_LIVE, shadowed_by=pool.shadowed_by(owner))
                phrase.update((owner, item_id) for item_id in ids)
            hits = sorted(phrase.union(scored), key=lambda key: (0 if key in phrase else 1, *order(key)))[:limit]
    items: dict[Key, ContextItem] = {}
    for owner in pool.owners:
        ids = [item_id for project_, item_id in hits if project_ == owner]
        items.update({(owner, stored.item.id): stored.item for stored in repo.get(owner, ids)} if ids else {})
    return [RecallHit(items[key], key in phrase, scores.get(key, 0.0)) for key in hits]


assemble = assemble_indexed
recall = recall_indexed
