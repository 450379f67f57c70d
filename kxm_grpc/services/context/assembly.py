"""Assembling a packet and ranking a recall from the stored pool.

``assemble`` and ``recall`` are what the RPCs call: the indexed forms, which read the index's
statistics, the query terms' postings (a packet) or the matched items' scores as the database
sums them (a recall), and only as many items as first fit or the recall limit needs (decisions
216–223, 257, 258, 300). The brute-force forms read the whole
pool of the project (its items and ``_shared``'s) and hand it to the pure rules
(``kxm_grpc.domain.context.arbiter.arbitrate`` and ``recall.rank_recall``): they are the oracle
the indexed forms are held to, byte for byte (``tests/store/contract/test_context_oracle.py``).

The indexed packet
------------------
1. The pool's statistics per (project, kind, status), less the ``_shared`` items the project
   shadows (``shadowed``: the project holds their id), give the candidate and excluded counts and
   the eligible corpus' document count and total length; open contradictions outside the eligible
   partitions (another kind, or inert) are read whole and added from their own text.
2. The task's terms' postings in the eligible partitions are read once, per project
   (``term_postings``: four numbers and an id each, no item): their counts are the terms'
   document frequencies, and ``relevance.bm25_postings`` sums them into every matched item's
   exact score, term by term in query order as ``relevance.bm25`` does (decision 300). Summing in
   the database (``scored``, which recall still uses) cost more than reading the postings: its
   ``GROUP BY`` sorts them, and its sums are only approximate (decision 257).
3. First fit walks the arbiter's order as runs whose first five keys are equal or known: the open
   contradictions (read whole, scored from their own text, sorted by ``rank_key``); then per
   project (its own, then ``_shared``) the matched items by kind rank and score, in batches of
   256 that end only where the next item's kind or score differs, so a batch holds exactly the
   next items of the exact order; the remaining keys of the items of a batch that still fit are
   read, and they are ordered; then per kind in the role's order the unmatched items, which the
   store walks in its rank index (``Stream``), skipping in the database those too large for what
   is left.
4. An item that does not fit is deferred and later ones still fill, as in ``arbitrate``. Fewer than
   256 selected: every eligible item not selected was visited and deferred, so the count is the
   corpus size less the selection, and the walk stops as soon as nothing can fit any more: what
   is left is under the least cost of an eligible item or contradiction (``least_cost``, one
   index probe per partition; decision 258). The 256th selected: the deferred are the items
   ranked before it not selected, counted from its position (``count_before`` in a store run).
5. The selected items are read whole, and ``arbiter.finish`` builds the packet and audit, as it
   does for ``arbitrate``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from typing import TypeVar

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
from kxm_grpc.domain.context.relevance import (
    average_length,
    bm25,
    bm25_postings,
    certainly_above,
    inverse_document_frequency,
    item_text,
    query_terms,
    relevance_tokens,
    settled,
)
from kxm_grpc.domain.context.request import ContextRequest, check_request
from kxm_grpc.domain.context.tokens import item_characters
from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.domain.validation import js_lower
from kxm_grpc.store import Tx
from kxm_grpc.store.protocols.context_items import ContextItemRepository, RankEntry, RankKey, Scored, Stream

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
"""Matched items whose remaining ordering keys a packet reads at once (more, to end where the kind
or the score changes), and the batch of best-scored items recall phrase-tests after its first."""
_PHRASE_BATCHES = 1
"""Batches of ``_MATCHED_BATCH`` best-scored items recall phrase-tests, beyond its first of twice
the limit, before it scans the pool instead."""
_NARROW_FROM = 2_000
"""Items from which an owner's phrase scan goes through the text index: the index's matches cost
about what a scan of 10,000 items does at 100,000 items in all."""
_BEST_ROWS = 2 * _PHRASE_BATCHES * _MATCHED_BATCH
"""Scored items a one-word recall reads per owner first: the batches it phrase-tests, and room for
the batches to end where the scores are certainly apart."""

Key = tuple[str, str]
"""(project, item id)."""
_Ranked = tuple[str, str, float]
"""A matched item of the packet's corpus: its id, its kind as the kind column holds it, and its
exact score."""
_K = TypeVar("_K")


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


@dataclass
class _Scoring:
    """BM25 over one corpus. A packet scores every matched item exactly from the terms' postings
    (``read_every``, decision 300). Recall works top-k style (decision 257): the database sums
    every matched item's score (``scored``, approximate: its own summation order), and only the
    hits returned are scored exactly, by ``relevance.bm25`` from their postings (``exact``); an
    ordering by approximate scores is cut only where they are ``certainly_above`` one another, so
    the exact order of what is taken is the brute force's."""

    terms: list[str]
    count: int
    total: int
    frequency: Counter[str]
    """Each term's document frequency in the corpus."""

    @classmethod
    def read(
        cls,
        repo: ContextItemRepository,
        pool: _Pool,
        terms: list[str],
        count: int,
        total: int,
        partitions: Sequence[tuple[Kind, Status | None]],
        extra: Iterable[Mapping[str, int]] = (),
    ) -> _Scoring:
        """The statistics of the corpus of ``partitions`` of the pool (``count`` documents of
        ``total`` length), and of ``extra`` documents outside them (their term frequencies)."""
        frequency: Counter[str] = Counter()
        for owner in pool.owners:
            frequency.update(
                repo.document_frequencies(owner, terms, partitions=partitions, shadowed_by=pool.shadowed_by(owner))
            )
        for frequencies in extra:
            frequency.update(frequencies.keys())
        return cls(terms, count, total, frequency)

    @classmethod
    def read_every(
        cls,
        repo: ContextItemRepository,
        pool: _Pool,
        terms: list[str],
        count: int,
        total: int,
        partitions: Sequence[tuple[Kind, Status | None]],
        extra: Iterable[Mapping[str, int]] = (),
    ) -> tuple[_Scoring, dict[str, list[_Ranked]]]:
        """The statistics as ``read`` has them, and per owner every matched item of
        ``partitions`` with its exact score, best first (ties in no particular order): the owner's
        postings of the terms are read once, their counts are the document frequencies, and
        ``bm25_postings`` sums them as ``bm25`` would (decision 300)."""
        frequency: Counter[str] = Counter()
        postings: dict[str, dict[str, list[tuple[str, int, int]]]] = {}
        kinds: dict[str, dict[str, str]] = {}
        for owner in pool.owners:
            rows = repo.term_postings(owner, terms, partitions=partitions, shadowed_by=pool.shadowed_by(owner))
            by_term = {term: [row[1:4] for row in group] for term, group in groupby(rows, key=itemgetter(0))}
            frequency.update({term: len(found) for term, found in by_term.items()})
            postings[owner] = by_term
            kinds[owner] = dict(zip(map(itemgetter(1), rows), map(itemgetter(4), rows), strict=True))
        for frequencies in extra:
            frequency.update(frequencies.keys())
        ranked: dict[str, list[_Ranked]] = {}
        for owner, by_term in postings.items():
            scores = bm25_postings(terms, count, total, frequency, by_term)
            of_kind = kinds[owner]
            ranked[owner] = sorted(
                ((item_id, of_kind[item_id], score) for item_id, score in scores.items()),
                key=itemgetter(2),
                reverse=True,
            )
        return cls(terms, count, total, frequency), ranked

    def approximate(
        self,
        repo: ContextItemRepository,
        pool: _Pool,
        owner: str,
        partitions: Sequence[tuple[Kind, Status | None]],
        *,
        limit: int | None = None,
    ) -> list[Scored]:
        """The owner's matched items of ``partitions`` (the best ``limit`` only, when given), with
        their scores as the database sums them, best first."""
        weights = [(term, inverse_document_frequency(self.count, self.frequency.get(term, 0))) for term in self.terms]
        return repo.scored(
            owner,
            weights,
            average=float(average_length(self.count, self.total)),
            partitions=partitions,
            shadowed_by=pool.shadowed_by(owner),
            limit=limit,
        )

    def exact(self, repo: ContextItemRepository, owner: str, item_ids: Collection[str]) -> dict[str, float]:
        """The exact scores of the owner's items among ``item_ids`` (each in the corpus)."""
        documents: dict[str, tuple[int, dict[str, int]]] = {}
        for match in repo.term_frequencies(owner, self.terms, item_ids):
            documents.setdefault(match.item_id, (match.length, {}))[1][match.term] = match.frequency
        return self.of(documents)

    def of(self, documents: Mapping[_K, tuple[int, Mapping[str, int]]]) -> dict[_K, float]:
        """The exact scores of ``documents`` (each its length and term frequencies)."""
        keys = list(documents)
        scores = bm25(self.terms, self.count, self.total, self.frequency, [documents[key] for key in keys])
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
    floor: int = MIN_ITEM_CHARACTERS
    """At most the cost of every item first fit has yet to visit: with less room, nothing fits."""
    selected: list[Key] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    last_position: int | None = None
    """The position of the 256th selected item in the whole order, once there is one."""

    @property
    def done(self) -> bool:
        return self.last_position is not None or self.room < self.floor

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
    own = {(item.project, item.id): _own_terms(item, terms) for item in contra}
    total += sum(own[(item.project, item.id)][0] for item in outside)
    partitions = [(kind, status) for kind in kind_ranks for status in _LIVE if eligible(kind, status)]
    rank_of = {kind.value: rank for kind, rank in kind_ranks.items()}
    scoring = _Scoring(terms, count, total, Counter())
    matched: dict[str, list[_Ranked]] = {owner: [] for owner in pool.owners}
    if terms and count:
        outside_terms = [own[(item.project, item.id)][1] for item in outside]
        scoring, matched = _Scoring.read_every(repo, pool, terms, count, total, partitions, outside_terms)
    exact_scores = {owner: {row[0]: row[2] for row in rows} for owner, rows in matched.items()}
    contra_keys = {(item.project, item.id): item for item in contra}
    contra_scores = scoring.of({key: own[key] for key in contra_keys})

    def score_of(key: Key) -> float:
        return contra_scores[key]

    least = repo.least_cost(
        [
            (owner, kind, status)
            for owner in pool.owners
            for kind, status in partitions
            if (owner, kind, status) in pool.partitions
        ]
    )
    costs = [item_characters(item) for item in contra] + ([] if least is None else [least])
    fill = _Fill(room=budget_characters(budget), corpus=count, floor=max(MIN_ITEM_CHARACTERS, min(costs, default=0)))
    position = 0

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
    unmatched_contra = {key: item for key, item in contra_keys.items() if not own[key][1]}
    elsewhere: Counter[tuple[str, Kind]] = Counter()
    """Per (project, kind): its eligible items ranked in runs 1 and 2 (matched or contradictions)."""
    runs: dict[str, list[_Ranked]] = {}
    """Per project, its run 2: its matched items less the contradictions, by kind rank, then by
    exact score descending."""
    for owner, owned in matched.items():
        by_kind: dict[str, list[_Ranked]] = {kind.value: [] for kind in kinds}
        for row in owned:
            by_kind[row[1]].append(row)
        for value, rows in by_kind.items():
            elsewhere[(owner, Kind(value))] += len(rows)
        skipped = {item_id for project_, item_id in contra_keys if project_ == owner}
        runs[owner] = [row for rows in by_kind.values() for row in rows if not skipped or row[0] not in skipped]
    for key, item in unmatched_contra.items():
        if eligible(item.kind, item.status):
            elsewhere[(key[0], item.kind)] += 1
    matched_candidates = sum(len(rows) for rows in matched.values()) + sum(
        1 for item in outside if own[(item.project, item.id)][1]
    )

    for owner in pool.owners:
        # Run 2: the owner's matched items, by kind rank and score, then their remaining keys.
        rows = runs[owner]
        owner_scores = exact_scores[owner]
        start = 0
        while start < len(rows) and not fill.done:
            # The batch ends where the next item ranks after it whatever its remaining keys:
            # another kind, or a lower score, so it holds the next items of the exact order.
            end = min(start + _MATCHED_BATCH, len(rows))
            while end < len(rows) and rows[end][1] == rows[end - 1][1] and rows[end][2] == rows[end - 1][2]:
                end += 1
            batch = {row[0]: rank_of[row[1]] for row in rows[start:end]}
            # Items costing more than what is left are deferred: the store leaves them out.
            entries = {entry.item_id: entry for entry in repo.rank_rows(owner, batch, most_cost=fill.room)}
            exact = {item_id: owner_scores[item_id] for item_id in entries}

            def order(
                item_id: str,
                entries: Mapping[str, RankEntry] = entries,
                exact: Mapping[str, float] = exact,
                batch: Mapping[str, int] = batch,
            ) -> tuple[int, float, RankKey]:
                return (batch[item_id], -exact[item_id], entries[item_id].key)

            for item_id in sorted(entries, key=order):
                if fill.done:
                    break
                if fill.offer((owner, item_id), entries[item_id].cost, exact[item_id]):
                    # The 256th: its position counts the batch's items before it, fitting or not.
                    every = {entry.item_id: entry for entry in repo.rank_rows(owner, batch, most_cost=_ANY_COST)}
                    scores = {other: owner_scores[other] for other in batch}
                    mine = order(item_id, every, scores)
                    before = sum(1 for other in batch if order(other, every, scores) < mine)
                    fill.last_position = position + start + before
            start = end
        position += len(rows)

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
        matched_candidates=matched_candidates,
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
    """The hits of ``query``, equal to ``recall_brute_force``'s, from the index: the scores as
    the database sums them, exact ones for the hits returned (decision 257), the store's scan of
    the folded text for the phrase hits (a non-empty query), its code-unit index for an empty one."""
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
    partitions = [(kind, status) for kind in Kind for status in _LIVE if in_corpus(kind, status)]
    scoring = _Scoring(terms, count, total, Counter())
    if terms and count:
        scoring = _Scoring.read(repo, pool, terms, count, total, partitions)
    ranked: list[tuple[float, Key]] = []
    """The matched items by approximate score, descending (ties in no particular order), once read."""
    approximate: dict[Key, float] = {}
    exact: dict[Key, float] = {}

    complete = False
    """Whether ``ranked`` holds every matched item, not only the best (``rank_best``)."""

    def rank() -> list[Key]:
        nonlocal complete
        if terms and count and not complete:
            ranked.clear()
            for owner in pool.owners:
                ranked.extend((row[3], (owner, row[0])) for row in scoring.approximate(repo, pool, owner, partitions))
            ranked.sort(key=itemgetter(0), reverse=True)  # the owners' descending runs, merged
            approximate.update((key, score) for score, key in ranked)
        complete = True
        return [key for _, key in ranked]

    def rank_best(rows: int) -> list[Key]:
        """The best-scored items, as ``rank`` has them, read ``rows`` at most per owner (the
        database keeps the best ``rows``, not every matched item): ``ranked`` keeps only those
        no unread item can outrank (``certainly_above`` the best score an owner left unread), and
        ``complete`` says whether that is every matched item."""
        nonlocal complete
        if not (terms and count):
            complete = True
            return []
        unread_best: float | None = None
        for owner in pool.owners:
            found = scoring.approximate(repo, pool, owner, partitions, limit=rows)
            ranked.extend((row[3], (owner, row[0])) for row in found)
            if len(found) == rows:  # the owner may have more, each scoring at most its last one
                unread_best = max(found[-1][3], unread_best if unread_best is not None else found[-1][3])
        ranked.sort(key=itemgetter(0), reverse=True)
        if unread_best is not None:
            del ranked[sum(1 for score, _ in ranked if certainly_above(score, unread_best)) :]
        approximate.update((key, score) for score, key in ranked)
        complete = unread_best is None
        return [key for _, key in ranked]

    def score(keys: Collection[Key]) -> None:
        for owner in pool.owners:
            ids = [item_id for project_, item_id in keys if project_ == owner]
            if ids and terms and count:
                exact.update(((owner, item_id), value) for item_id, value in scoring.exact(repo, owner, ids).items())

    def best(keys: Iterable[Key], count: int, *, in_order: bool = False) -> list[Key]:
        """The first ``count`` of ``keys`` (already by approximate score with ``in_order``) by
        exact score, then code units: the exact scores of a prefix of the approximate order that
        ``settled`` cuts, never of them all. ``settled`` never cuts between equal scores, so the
        order of ties does not matter."""
        ordered = list(keys) if in_order else sorted(keys, key=lambda key: -approximate.get(key, 0.0))
        head = ordered[: settled([approximate.get(key, 0.0) for key in ordered], count)]
        score([key for key in head if key in approximate])
        return sorted(head, key=lambda key: (-exact.get(key, 0.0), code_unit_key(key[1]), key[1]))[:count]

    def every_phrase_hit() -> set[Key]:
        """Every phrase hit: one scan of the pool's folded text in the database, narrowed by the
        query's joints (decision 301) or else by SQLite's trigram index (decision 259)."""
        found: set[Key] = set()
        for owner in pool.owners:
            # The trigram index's matches are the whole database's: an owner of a few items (the
            # _shared defaults, most often) is cheaper to scan.
            size = pool.totals(partition for partition in pool.partitions if partition[0] == owner)[0]
            ids = repo.phrase_hits(
                owner,
                folded,
                kinds=wanted,
                statuses=_LIVE,
                shadowed_by=pool.shadowed_by(owner),
                narrow=size >= _NARROW_FROM,
            )
            found.update((owner, item_id) for item_id in ids)
        return found

    phrase: set[Key] = set()
    if not folded:  # every item is a phrase hit, and scores 0: the first by code units
        for owner in pool.owners:
            found = repo.first_by_code_units(
                owner, kinds=wanted, statuses=_LIVE, shadowed_by=pool.shadowed_by(owner), limit=limit
            )
            phrase.update((owner, item_id) for item_id in found)
        hits = sorted(phrase, key=lambda key: (code_unit_key(key[1]), key[1]))[:limit]
    elif len(terms) > 1:
        # Several words, which seldom stand together as written: every phrase hit first. With
        # ``limit`` of them the answer is theirs, by their exact scores; with fewer, all of them,
        # then the best-scored of the other matched items (decision 259), read as for one word.
        phrase = every_phrase_hit()
        if len(phrase) <= _MATCHED_BATCH:
            score(phrase)
            hits = sorted(phrase, key=lambda key: (-exact.get(key, 0.0), code_unit_key(key[1]), key[1]))[:limit]
            if len(hits) < limit:
                needed = limit - len(hits)
                # Twice what is needed beyond the phrase hits: room for the cut to settle, and no
                # more rows sorted and read than that.
                rows = max(_MATCHED_BATCH // 4, len(phrase) + 2 * needed)
                rest = [key for key in rank_best(rows) if key not in phrase]
                if not complete and settled([approximate[key] for key in rest], needed) >= len(rest):
                    rest = [key for key in rank() if key not in phrase]  # no settled cut among them
                hits += best(rest, needed, in_order=True)
        else:  # many: exact scores for a settled prefix only
            scored = rank()
            hits = best(phrase, limit)
            # More phrase hits than a batch and still fewer than the limit (a limit above
            # recall_limit's, which no request reaches): the other matched items follow.
            hits += best((key for key in scored if key not in phrase), limit - len(hits), in_order=True)
    else:
        # The scored items by approximate score, phrase-tested a batch at a time, each batch ending
        # where the scores are certainly apart: when the tested ones hold ``limit`` phrase hits,
        # every phrase hit not tested scores below them, and the answer is among them. Only the
        # best-scored items are read for that (a common word matches a tenth of the pool); every
        # one only when the batch does not settle among them, or the pool must be scanned.
        scored = rank_best(_BEST_ROWS)
        values = [value for value, _ in ranked]
        found_scored: list[Key] = []
        start = 0
        # The first batch twice the limit: the best-scored items of one word mostly hold it as
        # written, so that batch most often ends the search.
        step = max(2 * limit, _MATCHED_BATCH // 8)
        while start < min(len(scored), _PHRASE_BATCHES * _MATCHED_BATCH) and len(found_scored) < limit:
            end = settled(values, start + step)
            if end >= len(values) and not complete:
                # The batch does not settle among the items read: read them all. The items before
                # ``start`` are the same ones (a batch ends where the scores are certainly apart).
                scored = rank()
                values = [value for value, _ in ranked]
                end = settled(values, start + step)
            step = _MATCHED_BATCH
            batch = scored[start:end]
            inside: set[Key] = set()
            for owner in pool.owners:
                among = [item_id for project_, item_id in batch if project_ == owner]
                if among:
                    ids = repo.phrase_hits(owner, folded, kinds=wanted, statuses=_LIVE, among=among)
                    inside.update((owner, item_id) for item_id in ids)
            found_scored += [key for key in batch if key in inside]
            start = end
        if len(found_scored) >= limit:
            phrase = set(found_scored)
            hits = best(found_scored, limit, in_order=True)
        else:
            scored = rank()  # every phrase hit needs its score: every matched item's
            phrase = every_phrase_hit()
            hits = best(phrase, limit)
            hits += best((key for key in scored if key not in phrase), limit - len(hits), in_order=True)
    items: dict[Key, ContextItem] = {}
    for owner in pool.owners:
        ids = [item_id for project_, item_id in hits if project_ == owner]
        items.update({(owner, stored.item.id): stored.item for stored in repo.get(owner, ids)} if ids else {})
    return [RecallHit(items[key], key in phrase, exact.get(key, 0.0)) for key in hits]


assemble = assemble_indexed
recall = recall_indexed
