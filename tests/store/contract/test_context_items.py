"""Contract: context items by (project, id) and the inverted index BM25 ranks them with (issue 17 item 6).

The oracle is the domain's brute force: ``relevance.relevance_tokens`` over ``relevance.item_text``
for the statistics and postings, ``relevance.score_relevance`` for the scores. On random pools the
index read from the store equals what the brute force computes over the same items, and BM25
computed from the index alone equals the brute-force scores bit for bit, on every backend.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import random
from collections import Counter
from collections.abc import Collection, Iterable
from typing import Any

import pytest
import sqlite_utils

from kxm_grpc.domain.context.arbiter import is_inert
from kxm_grpc.domain.context.items import (
    SHARED_PROJECT,
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    Scope,
    SourceType,
    Status,
)
from kxm_grpc.domain.context.relevance import K1, B, item_text, query_terms, relevance_tokens, score_relevance
from kxm_grpc.errors import DataLoss, Reason
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from kxm_grpc.store.protocols.context_items import IndexStats, Posting, StoredContextItem
from kxm_grpc.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from kxm_grpc.store.tables import raw_connection
from tests.store.contract.conftest import StoreFactory

Key = tuple[str, Kind, Status | None]
"""A partition of the index: (project, kind, status)."""


def _item(item_id: str, summary: str = "flaky playwright gate", *, project: str = "p", **fields: Any) -> ContextItem:
    """An evidence item of ``project`` from a peer (no status unless given)."""
    made = ContextItem(
        id=item_id,
        kind=Kind.EVIDENCE,
        project=project,
        summary=summary,
        provenance=Provenance(SourceType.PEER),
        authority=Authority.EVIDENCE,
        confidence=Confidence.PROBABLE,
    )
    return dataclasses.replace(made, **fields)


def _stored(item: ContextItem, *, write_time: int = 1, **fields: Any) -> StoredContextItem:
    return StoredContextItem(item, write_time, **fields)


def full_context_item(*, project: str = "p") -> StoredContextItem:
    """Every field set, with text JSON must escape and text beyond the BMP (UTF-16 surrogate pairs)."""
    item = ContextItem(
        id="ctx_𝒳\ue000full",
        kind=Kind.STATE,
        project=project,
        summary='Gates 😀 "quoted" \\ back\nslash, é, 𠀀𠀁 and a lone \ud800 surrogate',
        provenance=Provenance(SourceType.HUMAN, "promoted-by:ops ✓", ("ctx_a", "ctx_😀")),
        authority=Authority.POLICY,
        confidence=Confidence.VERIFIED,
        scope=Scope.PROJECT,
        status=Status.CURRENT,
        state_key="deploy.target 🚀",
        observed_at=1_700_000_000_000_001,
        valid_from=1_700_000_000_000_002,
        valid_until=1_800_000_000_000_003,
        supersedes=("ctx_old", "ctx_older"),
        evidence_refs=("ci run 1", "incident 😀"),
    )
    return StoredContextItem(item, 1_700_000_000_000_009, run_id="wfr_1", superseded_by="ctx_next")


# -- the brute force -----------------------------------------------------------------------------------


def _key(project: str, kind: Kind, status: Status | None) -> Key:
    return (project, kind, status)


def _brute_stats(items: Iterable[ContextItem]) -> list[IndexStats]:
    """Each non-empty partition's count and total length, in (project, kind value, status value) order."""
    totals: dict[Key, list[int]] = {}
    for item in items:
        total = totals.setdefault(_key(item.project, item.kind, item.status), [0, 0])
        total[0] += 1
        total[1] += len(relevance_tokens(item_text(item)))
    return [
        IndexStats(project, kind, status, documents, length)
        for (project, kind, status), (documents, length) in sorted(
            totals.items(),
            key=lambda pair: (pair[0][0], pair[0][1].value, "" if pair[0][2] is None else pair[0][2].value),
        )
    ]


def _brute_postings(items: Iterable[ContextItem], terms: Collection[str]) -> list[Posting]:
    """Every posting of ``terms`` in ``items``, in (term, project, item id) order."""
    found = []
    for item in items:
        tokens = relevance_tokens(item_text(item))
        for term, frequency in Counter(tokens).items():
            if term in terms:
                found.append(Posting(term, item.project, item.id, item.kind, item.status, frequency, len(tokens)))
    return sorted(found, key=lambda p: (p.term.encode(), p.project.encode(), p.item_id.encode()))


def _indexed_scores(
    stats: Iterable[IndexStats], postings: Iterable[Posting], query: str, corpus: Collection[Key]
) -> dict[tuple[str, str], float]:
    """BM25 from the index alone, for the corpus made of the partitions ``corpus``: the brute
    force's float operations in its order (``relevance.score_relevance``)."""
    terms = query_terms(query)
    count = sum(s.documents for s in stats if _key(s.project, s.kind, s.status) in corpus)
    total = sum(s.total_length for s in stats if _key(s.project, s.kind, s.status) in corpus)
    if not terms or count == 0:
        return {}
    average = total / count if total > 0 else 1
    by_term: dict[str, list[Posting]] = {term: [] for term in terms}
    for posting in postings:
        if _key(posting.project, posting.kind, posting.status) in corpus and posting.term in by_term:
            by_term[posting.term].append(posting)
    scores: dict[tuple[str, str], float] = {}
    for term in terms:
        frequency = len(by_term[term])
        inverse = math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))
        for posting in by_term[term]:
            norm = 1 - B + B * (posting.length / average)
            tf = posting.frequency
            key = (posting.project, posting.item_id)
            scores[key] = scores.get(key, 0.0) + inverse * ((tf * (K1 + 1)) / (tf + K1 * norm))
    return scores


def _every_term(items: Iterable[ContextItem]) -> set[str]:
    return {term for item in items for term in relevance_tokens(item_text(item))}


async def _index(store: Store, project: str, terms: Collection[str]) -> tuple[list[IndexStats], list[Posting]]:
    """The project's (and ``_shared``'s) statistics and the postings of ``terms``."""
    stats, postings = await store.read(
        lambda tx: (tx.context_items.index_stats(project), tx.context_items.postings(project, terms))
    )
    return stats, postings


async def _everything(store: Store, project: str) -> list[ContextItem]:
    """Every item of the project's pool, read in pages of 7."""
    found: list[StoredContextItem] = []
    after = None
    while True:
        page = await store.read(lambda tx, after=after: tx.context_items.list_items(project, after=after, limit=7))
        found += page
        if len(page) < 7:
            return [stored.item for stored in found]
        after = (page[-1].item.project, page[-1].item.id)


async def _assert_index_matches(store: Store, items: Collection[ContextItem], *, project: str = "p") -> None:
    """The store's index for ``project``'s pool equals the brute force over ``items`` (its pool)."""
    pool = [item for item in items if item.project in (project, SHARED_PROJECT)]
    terms = _every_term(items) | {"absent"}
    stats, postings = await _index(store, project, terms)
    assert stats == _brute_stats(pool)
    assert postings == _brute_postings(pool, terms)


# -- items -------------------------------------------------------------------------------------------------


async def test_an_item_with_every_field_and_astral_text_reads_back_as_written(store: Store) -> None:
    """Every field, times to the microsecond, the run, the superseding id, text with surrogate pairs,
    quotes, a newline and a lone surrogate: get and list hand back exactly what put stored."""
    # Prepare
    full = full_context_item()
    bare = _stored(_item("ctx_bare"))

    # Execute
    await store.write(lambda tx: tx.context_items.put([full, bare]))
    got = await store.read(lambda tx: tx.context_items.get("p", ["ctx_bare", full.item.id, "ctx_unknown"]))
    listed = await store.read(lambda tx: tx.context_items.list_items("p", limit=10))

    # Assert
    assert got == [bare, full]
    assert listed == [bare, full]
    assert listed[1].item.summary.count("😀") == 1


async def test_put_replaces_an_item_by_project_and_id_and_its_index_with_it(store: Store) -> None:
    """A second put of (project, id) replaces the item: the old text's postings go, the new text's
    come, and the statistics move between partitions when the kind or status changes."""
    # Prepare
    first = _item("ctx_1", "flaky playwright gates fail", status=Status.PROPOSED)
    await store.write(lambda tx: tx.context_items.put([_stored(first), _stored(_item("ctx_2", "docs build slow"))]))

    # Execute
    second = dataclasses.replace(first, kind=Kind.KNOWLEDGE, summary="gate owner is QA", status=Status.CURRENT)
    await store.write(lambda tx: tx.context_items.put([_stored(second, write_time=2)]))

    # Assert
    assert await store.read(lambda tx: tx.context_items.get("p", ["ctx_1"])) == [_stored(second, write_time=2)]
    await _assert_index_matches(store, [second, _item("ctx_2", "docs build slow")])
    stats, postings = await _index(store, "p", ["flaky", "gate", "qa"])
    assert [(s.kind, s.status, s.documents, s.total_length) for s in stats] == [
        (Kind.EVIDENCE, None, 1, 3),
        (Kind.KNOWLEDGE, Status.CURRENT, 1, 3),
    ]
    assert [(p.term, p.item_id, p.frequency) for p in postings] == [("gate", "ctx_1", 1), ("qa", "ctx_1", 1)]


async def test_a_batch_naming_one_item_twice_is_refused_and_writes_nothing(store: Store) -> None:
    """One (project, id) twice in a batch is a ValueError, and the unit of work stores nothing; the
    same id in two projects is two items."""
    # Execute
    with pytest.raises(ValueError, match="ctx_1"):
        await store.write(
            lambda tx: tx.context_items.put([_stored(_item("ctx_0")), _stored(_item("ctx_1")), _stored(_item("ctx_1"))])
        )
    await store.write(lambda tx: tx.context_items.put([_stored(_item("ctx_1")), _stored(_item("ctx_1", project="q"))]))

    # Assert
    assert [s.item.id for s in await store.read(lambda tx: tx.context_items.list_items("p", limit=10))] == ["ctx_1"]
    assert [s.item.project for s in await store.read(lambda tx: tx.context_items.list_items("q", limit=10))] == ["q"]


async def test_a_unit_of_work_that_fails_after_a_put_leaves_items_and_index_as_they_were(store: Store) -> None:
    """Items and their index change in one transaction: a unit of work raising after its put (a
    replacement, a new item and a delete) rolls all of it back."""
    # Prepare
    before = [_item("ctx_1", "flaky gate"), _item("ctx_2", "owner qa", project=SHARED_PROJECT, kind=Kind.KNOWLEDGE)]
    await store.write(lambda tx: tx.context_items.put([_stored(i) for i in before]))

    def failing(tx: Tx) -> None:
        tx.context_items.put([_stored(_item("ctx_1", "replaced text")), _stored(_item("ctx_3", "new gate"))])
        tx.context_items.delete(SHARED_PROJECT, ["ctx_2"])
        raise RuntimeError("the service refused after writing")

    # Execute
    with pytest.raises(RuntimeError):
        await store.write(failing)

    # Assert
    assert await _everything(store, "p") == sorted(before, key=lambda i: (i.project, i.id))
    await _assert_index_matches(store, before)


async def test_delete_removes_the_items_and_their_index_entries(store: Store) -> None:
    """Deleting ids of a project removes those items (unknown ids and another project's ignored),
    their postings and their share of the statistics; a partition left empty is gone."""
    # Prepare
    items = [
        _item("ctx_1", "flaky gate"),
        _item("ctx_2", "flaky gate again", kind=Kind.KNOWLEDGE),
        _item("ctx_3", "gate owner"),
        _item("ctx_2", "flaky elsewhere", project="q"),
    ]
    await store.write(lambda tx: tx.context_items.put([_stored(i) for i in items]))

    # Execute
    deleted = await store.write(lambda tx: tx.context_items.delete("p", ["ctx_2", "ctx_3", "ctx_9"]))

    # Assert
    assert deleted == 2
    await _assert_index_matches(store, [items[0], items[3]])
    await _assert_index_matches(store, [items[0], items[3]], project="q")
    assert await store.read(lambda tx: tx.context_items.delete("p", [])) == 0


async def test_purge_run_removes_the_runs_items_of_every_project_and_their_index(store: Store) -> None:
    """Retention: the items a purged run brought (any project) go with their index entries."""
    # Prepare
    items = [
        _stored(_item("journal_1", "lesson flaky gate"), run_id="wfr_a"),
        _stored(_item("journal_2", "lesson flaky gate", project="q"), run_id="wfr_a"),
        _stored(_item("journal_3", "observation"), run_id="wfr_b"),
        _stored(_item("ctx_4", "gate")),
    ]
    await store.write(lambda tx: tx.context_items.put(items))

    # Execute
    purged = await store.write(lambda tx: tx.context_items.purge_run("wfr_a"))

    # Assert
    assert purged == 2
    assert await store.write(lambda tx: tx.context_items.purge_run("wfr_a")) == 0
    await _assert_index_matches(store, [items[2].item, items[3].item])
    await _assert_index_matches(store, [], project="q")


async def test_purge_superseded_removes_ended_items_of_the_kinds_past_the_horizon(store: Store) -> None:
    """Superseded and rejected items of the kinds named whose end — ``valid_until``, else their
    write time — is before the horizon go; current, proposed and unended ones, and other kinds, stay."""
    # Prepare
    state = {"kind": Kind.STATE, "state_key": "deploy.target"}
    items = [
        _stored(_item("s_old", "old target", status=Status.SUPERSEDED, valid_until=50, **state), write_time=90),
        _stored(_item("s_closed", "closed proposal", status=Status.REJECTED, **state), write_time=40),
        _stored(_item("s_recent", "recent", status=Status.SUPERSEDED, valid_until=150, **state), write_time=10),
        _stored(_item("s_now", "now", status=Status.CURRENT, valid_until=10, **state), write_time=10),
        _stored(_item("s_open", "open", status=Status.PROPOSED, **state), write_time=10),
        _stored(_item("k_old", "old knowledge", kind=Kind.KNOWLEDGE, status=Status.SUPERSEDED), write_time=10),
    ]
    await store.write(lambda tx: tx.context_items.put(items))

    # Execute
    none = await store.write(lambda tx: tx.context_items.purge_superseded(ended_before=100, kinds=[]))
    purged = await store.write(lambda tx: tx.context_items.purge_superseded(ended_before=100, kinds=[Kind.STATE]))

    # Assert
    assert (none, purged) == (0, 2)
    kept = sorted((s.item for s in items if s.item.id not in ("s_old", "s_closed")), key=lambda item: item.id)
    assert await _everything(store, "p") == kept
    await _assert_index_matches(store, kept)


async def test_purge_superseded_with_a_limit_takes_those_that_ended_first(store: Store) -> None:
    """``limit`` bounds one purge to the items that ended first (by end, then project, then id);
    the index stays exact after each batch."""
    # Prepare
    ends = {"k_c": 30, "k_a": 10, "k_d": 10, "k_b": 20, "k_e": 90}
    items = [
        _stored(_item(item_id, item_id, kind=Kind.KNOWLEDGE, status=Status.SUPERSEDED, valid_until=end), write_time=1)
        for item_id, end in ends.items()
    ]
    await store.write(lambda tx: tx.context_items.put(items))

    def purge(limit: int) -> Any:
        return store.write(
            lambda tx: tx.context_items.purge_superseded(ended_before=50, kinds=[Kind.KNOWLEDGE], limit=limit)
        )

    # Execute
    first, after_first = await purge(2), [item.id for item in await _everything(store, "p")]
    second, third = await purge(2), await purge(2)

    # Assert
    assert (first, second, third) == (2, 2, 0)
    assert after_first == ["k_b", "k_c", "k_e"]
    kept = [s.item for s in items if s.item.id == "k_e"]
    assert await _everything(store, "p") == kept
    await _assert_index_matches(store, kept)


async def test_a_project_sees_its_own_items_and_shared_ones_never_another_projects(store: Store) -> None:
    """A pool is the project's items and ``_shared``'s: list, statistics and postings of ``p`` never
    hold ``q``'s; without ``_shared`` only the project's; ``get`` looks in the one project named."""
    # Prepare
    items = [
        _item("ctx_p", "flaky gate"),
        _item("ctx_q", "flaky gate", project="q"),
        _item("ctx_s", "flaky gate default", project=SHARED_PROJECT, scope=Scope.OPERATOR),
    ]
    await store.write(lambda tx: tx.context_items.put([_stored(i) for i in items]))

    # Execute
    def reads(tx: Tx) -> list[object]:
        repo = tx.context_items
        return [
            [s.item.id for s in repo.list_items("p", limit=10)],
            [s.item.id for s in repo.list_items("p", include_shared=False, limit=10)],
            [(s.project, s.documents) for s in repo.index_stats("q")],
            [(s.project, s.documents) for s in repo.index_stats("q", include_shared=False)],
            [(p.project, p.item_id) for p in repo.postings("p", ["flaky", "default"])],
            [(p.project, p.item_id) for p in repo.postings("p", ["flaky"], include_shared=False)],
            [s.item.id for s in repo.get("p", ["ctx_q", "ctx_s", "ctx_p"])],
            [s.item.id for s in repo.list_items(SHARED_PROJECT, limit=10)],
        ]

    got = await store.read(reads)

    # Assert
    assert got == [
        ["ctx_s", "ctx_p"],  # "_" (0x5f) sorts before "p"
        ["ctx_p"],
        [("_shared", 1), ("q", 1)],
        [("q", 1)],
        [("_shared", "ctx_s"), ("_shared", "ctx_s"), ("p", "ctx_p")],
        [("p", "ctx_p")],
        ["ctx_p"],
        ["ctx_s"],
    ]


async def test_lists_are_in_code_point_order_and_pages_resume_after_the_last(store: Store) -> None:
    """(project, id) in UTF-8 byte order (code point order, astral ids after U+E000..U+FFFF ones) on
    every backend, whatever the insertion order; pages of any size read the same sequence; kind and
    status filters (a status None is an item without one; an empty collection matches nothing)."""
    # Prepare
    ids = ["ctx_b", "ctx_B", "ctx_a1", "ctx_a", "ctx_\ue000", "ctx_😀", "ctx_é", "ctx_z"]
    statuses = [None, Status.CURRENT, Status.PROPOSED, None, Status.SUPERSEDED, None, Status.CURRENT, None]
    kinds = [Kind.EVIDENCE, Kind.KNOWLEDGE] * 4
    items = [_item(i, status=s, kind=k) for i, s, k in zip(ids, statuses, kinds, strict=True)]
    shuffled = random.Random(7).sample(items, len(items))
    await store.write(lambda tx: tx.context_items.put([_stored(i) for i in shuffled]))
    expected = sorted(items, key=lambda item: item.id.encode())

    # Execute
    whole = await store.read(lambda tx: tx.context_items.list_items("p", limit=100))
    paged = await _everything(store, "p")
    filtered = await store.read(
        lambda tx: [
            [s.item.id for s in tx.context_items.list_items("p", kinds=[Kind.KNOWLEDGE], limit=100)],
            [s.item.id for s in tx.context_items.list_items("p", statuses=[None, Status.PROPOSED], limit=100)],
            tx.context_items.list_items("p", kinds=[], limit=100),
            tx.context_items.list_items("p", statuses=[], limit=100),
            tx.context_items.postings("p", ["flaky"], kinds=[]),
        ]
    )

    # Assert
    assert [s.item for s in whole] == paged == expected
    assert [i.id for i in expected] == ["ctx_B", "ctx_a", "ctx_a1", "ctx_b", "ctx_z", "ctx_é", "ctx_\ue000", "ctx_😀"]
    assert filtered == [
        [i.id for i in expected if i.kind is Kind.KNOWLEDGE],
        [i.id for i in expected if i.status in (None, Status.PROPOSED)],
        [],
        [],
        [],
    ]


async def test_a_document_that_does_not_decode_is_refused_with_data_loss(store: Store) -> None:
    """A row whose JSON document or enum column was changed behind the store raises DataLoss naming
    the project and item (STORAGE_CORRUPTED); other items read as before."""
    # Prepare
    await store.write(lambda tx: tx.context_items.put([_stored(_item("ctx_1")), _stored(_item("ctx_2"))]))
    await store.write(
        lambda tx: tx.context_items._conn.execute(  # type: ignore[attr-defined]
            "UPDATE context_items SET document = '{\"summary\":1}' WHERE id = 'ctx_1'"
        )
    )

    # Execute
    with pytest.raises(DataLoss) as caught:
        await store.read(lambda tx: tx.context_items.get("p", ["ctx_1"]))

    # Assert
    assert (caught.value.reason, caught.value.metadata) == (
        Reason.STORAGE_CORRUPTED,
        {"project": "p", "itemId": "ctx_1"},
    )
    assert await store.read(lambda tx: tx.context_items.get("p", ["ctx_2"])) == [_stored(_item("ctx_2"))]


# -- the index against the brute force -------------------------------------------------------------------

_WORDS = [
    "gate",
    "gates",
    "Gate",
    "flaky",
    "playwright",
    "the",
    "of",
    "CI",
    "retries",
    "classes",
    "status",
    "ÉCOLE",
    "straße",
    "日本語",
    "𠀀𠀁",
    "ﬁle",
    "42",
    "x",
    "timed-out",
    "owner",
    "QA",
    "deploy",
]
_SEPARATORS = [" ", " ", "; ", "-", "/", " 😀 ", "\n"]
_PROJECTS = ["p", "p", "p", "q", SHARED_PROJECT]
_STATUSES = [None, None, Status.CURRENT, Status.PROPOSED, Status.SUPERSEDED, Status.REJECTED]


def _text(rng: random.Random, low: int = 0) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(low, 9))]
    return "".join(word + rng.choice(_SEPARATORS) for word in words).strip() or "x"


def _random_item(rng: random.Random, item_id: str, project: str) -> ContextItem:
    kind = rng.choice(list(Kind))
    status = rng.choice(_STATUSES[2:] if kind is Kind.STATE else _STATUSES)
    state_key = _text(rng, 1) if kind is Kind.STATE else None
    return _item(item_id, _text(rng), project=project, kind=kind, status=status, state_key=state_key)


def _eligible_partitions(project: str, kinds: Collection[Kind]) -> set[Key]:
    """The partitions the arbiter's eligible set is made of (no contradictions): the pool's
    candidates of ``kinds`` that are not inert."""
    return {
        _key(owner, kind, status)
        for owner in (project, SHARED_PROJECT)
        for kind in kinds
        for status in (None, *Status)
        if status not in (Status.SUPERSEDED, Status.REJECTED)
        and not is_inert(_item("probe", kind=kind, status=status, state_key="k"))
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_on_random_pools_the_index_equals_the_brute_force_and_scores_are_identical(
    store: Store, seed: int
) -> None:
    """Random pools over three projects (plural folding, NFKC, stopwords, astral letters, one-letter
    words), then random replacements, deletions and purges: after each write the statistics and
    postings read from the store equal the brute force's over the same items, and BM25 computed
    from the index alone equals ``score_relevance`` over the arbiter's eligible set (and over a
    recall-like corpus) exactly, float for float."""
    rng = random.Random(seed)
    live: dict[tuple[str, str], StoredContextItem] = {}

    async def put(batch: list[StoredContextItem]) -> None:
        await store.write(lambda tx: tx.context_items.put(batch))
        live.update({(s.item.project, s.item.id): s for s in batch})

    async def check() -> None:
        items = [stored.item for stored in live.values()]
        await _assert_index_matches(store, items)
        await _assert_index_matches(store, items, project="q")
        pool = [item for item in items if item.project in ("p", SHARED_PROJECT)]
        stats, postings = await _index(store, "p", _every_term(items))
        for _ in range(4):
            kinds = rng.sample(list(Kind), rng.randint(1, 5))
            query = _text(rng, 1)
            eligible = [
                item
                for item in pool
                if item.status not in (Status.SUPERSEDED, Status.REJECTED) and item.kind in kinds and not is_inert(item)
            ]
            recall = [i for i in pool if i.status not in (Status.SUPERSEDED, Status.REJECTED) and i.kind in kinds]
            recall_partitions = {
                _key(i.project, i.kind, i.status) for i in recall
            }  # the partitions of (p and _shared) × kinds × live statuses
            for corpus, partitions in ((eligible, _eligible_partitions("p", kinds)), (recall, recall_partitions)):
                brute = score_relevance(query, [item_text(item) for item in corpus])
                indexed = _indexed_scores(stats, postings, query, partitions)
                assert [indexed.get((i.project, i.id), 0.0) for i in corpus] == brute
                assert set(indexed) <= {(i.project, i.id) for i in corpus}

    # Prepare: a pool of 80 items, 160 ids to choose from
    await put([_stored(_random_item(rng, f"ctx_{n}", rng.choice(_PROJECTS)), write_time=n) for n in range(80)])
    await check()

    for step in range(4):
        # Execute: replace some, add some, delete some, purge a run's and the ended ones
        chosen = rng.sample(sorted(live), 15)
        batch = [
            _stored(_random_item(rng, item_id, project), write_time=100 + step, run_id=rng.choice([None, "wfr_x"]))
            for project, item_id in chosen
        ]
        batch += [_stored(_random_item(rng, f"ctx_new{step}_{n}", rng.choice(_PROJECTS))) for n in range(5)]
        await put(batch)
        await check()
        doomed = rng.sample(sorted(live), 6)
        deleted = await store.write(lambda tx, doomed=doomed: sum(tx.context_items.delete(p, [i]) for p, i in doomed))
        assert deleted == 6
        for key in doomed:
            del live[key]
        await check()
    purged_run = await store.write(lambda tx: tx.context_items.purge_run("wfr_x"))
    assert purged_run == sum(1 for s in live.values() if s.run_id == "wfr_x")
    live = {key: s for key, s in live.items() if s.run_id != "wfr_x"}
    await check()
    purged = await store.write(lambda tx: tx.context_items.purge_superseded(ended_before=10**18, kinds=list(Kind)))
    assert purged == sum(1 for s in live.values() if s.item.status in (Status.SUPERSEDED, Status.REJECTED))
    live = {key: s for key, s in live.items() if s.item.status not in (Status.SUPERSEDED, Status.REJECTED)}
    await check()


async def test_large_batches_span_many_statements_and_keep_the_index_exact(store: Store) -> None:
    """A batch of 1,100 items (more rows than one INSERT takes, more ids than one IN list, postings by
    the thousand) is stored whole; replacing 700 of them and deleting 520 keeps the index exact."""
    # Prepare
    rng = random.Random(11)
    items = [_random_item(rng, f"ctx_{n:04}", rng.choice(["p", SHARED_PROJECT])) for n in range(1_100)]

    # Execute
    await store.write(lambda tx: tx.context_items.put([_stored(i) for i in items]))
    replaced = [_random_item(rng, i.id, i.project) for i in items[:700]]
    await store.write(lambda tx: tx.context_items.put([_stored(i, write_time=2) for i in replaced]))
    mine = [i.id for i in items if i.project == "p"]
    deleted = await store.write(lambda tx: tx.context_items.delete("p", mine[:520]))

    # Assert
    assert deleted == 520
    live = [i for i in replaced + items[700:] if i.project != "p" or i.id not in set(mine[:520])]
    assert await _everything(store, "p") == sorted(live, key=lambda i: (i.project, i.id))
    await _assert_index_matches(store, live)


async def test_concurrent_writers_of_one_project_leave_the_statistics_exact(store: Store) -> None:
    """Eight units of work putting and replacing items of one project and kind at once all commit
    (SQLite serialises them; PostgreSQL runs a loser of a serialization race again) and the
    statistics they all updated count every item once."""
    # Prepare
    await store.write(lambda tx: tx.context_items.put([_stored(_item(f"ctx_{n}", "gate")) for n in range(8)]))

    # Execute
    async def writer(n: int) -> None:
        batch = [_stored(_item(f"ctx_{n}", "flaky gates " * (n + 1))), _stored(_item(f"ctx_new{n}", "owner qa"))]
        await store.write(lambda tx: tx.context_items.put(batch))

    await asyncio.gather(*(writer(n) for n in range(8)))

    # Assert
    items = [_item(f"ctx_{n}", "flaky gates " * (n + 1)) for n in range(8)]
    items += [_item(f"ctx_new{n}", "owner qa") for n in range(8)]
    await _assert_index_matches(store, items)
    stats, _ = await _index(store, "p", [])
    assert [(s.documents, s.total_length) for s in stats] == [(16, 2 * sum(range(1, 9)) + 16)]


async def test_the_index_survives_a_restart(store_factory: StoreFactory) -> None:
    """Items, postings and statistics are durable: a reopened store reads the same index."""
    store = await store_factory.open()
    items = [_item("ctx_1", "flaky gates"), _item("ctx_2", "gate owner", project=SHARED_PROJECT)]
    await store.write(lambda tx: tx.context_items.put([_stored(i) for i in items]))

    reopened = await store_factory.reopen(store)

    await _assert_index_matches(reopened, items)


# -- migration -------------------------------------------------------------------------------------------


def _version_14_database(url: str) -> None:
    """Create the schema of version 14 at ``url`` (no hub: the migrations a hub of version 14 applied)."""
    with raw_connection(url) as conn:
        if url.startswith("sqlite"):
            db = sqlite_utils.Database(conn)  # type: ignore[arg-type]
            for migration in SQLITE_MIGRATIONS[:14]:
                migration(db)
            conn.execute("PRAGMA user_version = 14")
            return
        conn.execute("CREATE TABLE kxm_schema (version BIGINT NOT NULL)")
        conn.execute("INSERT INTO kxm_schema (version) VALUES (14)")
        for version in range(7, 15):
            for statement in POSTGRES_MIGRATIONS[version]:
                conn.execute(statement)


async def test_a_database_of_version_14_migrates_to_hold_context_items(store_factory: StoreFactory) -> None:
    """A database of version 14 opens at this hub's version and stores and indexes context items."""
    if not store_factory.persistent:
        pytest.skip(f"{store_factory.name} has no database to migrate")
    _version_14_database(store_factory.url)

    store = await store_factory.open()
    await store.write(lambda tx: tx.context_items.put([_stored(_item("ctx_1"))]))

    assert await store.read(lambda tx: tx.context_items.get("p", ["ctx_1"])) == [_stored(_item("ctx_1"))]
    await _assert_index_matches(store, [_item("ctx_1")])
