"""Contract: what the indexed packet and recall read of the store (versions 17, 19 and 22,
decisions 218–222, 257, 258, 300, 301).

The ranking reads on every backend: ``shadowed``, ``matches``, ``document_frequencies``,
``scored`` (BM25 summed in the database, within the tolerance), ``term_postings`` (the packet's
exact scores), ``term_frequencies``,
``least_cost``, ``rank_entries`` (the arbiter's keys 6 to 9 in order, costs filtered in the
database, keyset pages), ``count_before``, ``rank_rows``,
``phrase_hits`` (exact, case-folded as JavaScript does; narrowed by the query's joints) and
``first_by_code_units`` (UTF-16 order).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest
import sqlite_utils

from kxm_grpc.domain.context.arbiter import tail_key
from kxm_grpc.domain.context.items import (
    SHARED_PROJECT,
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    SourceType,
    Status,
)
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.context.recall import is_phrase_hit
from kxm_grpc.domain.context.relevance import (
    SCORE_TOLERANCE,
    average_length,
    bm25,
    bm25_postings,
    inverse_document_frequency,
    relevance_tokens,
)
from kxm_grpc.domain.context.tokens import item_characters
from kxm_grpc.domain.validation import js_lower
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.context_items import IndexedItem, Match, StoredContextItem, Stream, TermPosting
from kxm_grpc.store.rows.context_items import index_entries, item_joints
from kxm_grpc.store.sql.connection import Connection
from kxm_grpc.store.sql.context_items import SqlContextItems
from kxm_grpc.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from kxm_grpc.store.tables import raw_connection
from kxm_grpc.store.url import open_store

_LIVE = (None, Status.CURRENT, Status.PROPOSED)


def _item(item_id: str, summary: str = "flaky gate", *, project: str = "p", **fields: object) -> ContextItem:
    made = ContextItem(
        id=item_id,
        kind=Kind.EVIDENCE,
        project=project,
        summary=summary,
        provenance=Provenance(SourceType.PEER),
        authority=Authority.EVIDENCE,
        confidence=Confidence.PROBABLE,
    )
    return dataclasses.replace(made, **fields)  # type: ignore[arg-type]


async def _put(store: Store, items: list[ContextItem]) -> None:
    await store.write(lambda tx: tx.context_items.put([StoredContextItem(item, 1) for item in items]))


async def test_shadowed_lists_the_shared_defaults_the_project_holds_an_id_of(store: Store) -> None:
    await _put(
        store,
        [
            _item("ctx_a", status=Status.SUPERSEDED),
            _item("ctx_a", "deploy target here", project=SHARED_PROJECT, kind=Kind.STATE, status=Status.CURRENT),
            _item("ctx_b", project=SHARED_PROJECT),
            _item("ctx_b", project="q"),
        ],
    )
    assert await store.read(lambda tx: tx.context_items.shadowed("p")) == [
        IndexedItem(SHARED_PROJECT, "ctx_a", Kind.STATE, Status.CURRENT, 3)
    ]
    assert [i.item_id for i in await store.read(lambda tx: tx.context_items.shadowed("q"))] == ["ctx_b"]
    assert await store.read(lambda tx: tx.context_items.shadowed(SHARED_PROJECT)) == []


async def test_matches_are_the_terms_postings_of_the_project_and_shared(store: Store) -> None:
    await _put(
        store,
        [
            _item("ctx_1", "gate gates flaky"),
            _item("ctx_2", "gate", project=SHARED_PROJECT, kind=Kind.KNOWLEDGE),
            _item("ctx_3", "gate", project="q"),
        ],
    )
    found = await store.read(lambda tx: tx.context_items.matches("p", ["gate", "nothing"], kinds=None))
    assert sorted(found) == [
        Match(SHARED_PROJECT, "ctx_2", "gate", "knowledge", "", 1, 1),
        Match("p", "ctx_1", "gate", "evidence", "", 2, 3),
    ]
    only = await store.read(lambda tx: tx.context_items.matches("p", ["gate"], kinds=[Kind.EVIDENCE]))
    assert [m.item_id for m in only] == ["ctx_1"]
    assert await store.read(lambda tx: tx.context_items.matches("p", ["gate"], kinds=[])) == []


async def test_rank_entries_walk_keys_six_to_nine_skipping_what_does_not_fit(store: Store) -> None:
    items = [
        _item("ctx_old", observed_at=1),
        _item("ctx_new", observed_at=9),
        _item("ctx_undated"),
        _item("ctx_\ue000", observed_at=5),
        _item("ctx_😀", observed_at=5),  # a surrogate pair: before U+E000 in code units
        _item("ctx_sure", confidence=Confidence.VERIFIED),
        _item("ctx_policy", authority=Authority.POLICY),
        _item("ctx_big", "x" * 500, observed_at=10),
        _item("ctx_gone", status=Status.SUPERSEDED),
        _item("ctx_matched", "deploy", observed_at=3),
    ]
    await _put(store, items)
    expected = sorted((i for i in items if i.status is None and i.id != "ctx_matched"), key=lambda item: tail_key(item))
    stream = Stream("p", Kind.EVIDENCE, _LIVE, ("deploy",))

    def walk(tx: Tx, most_cost: int) -> list[str]:
        found, after = [], None
        while True:
            page = tx.context_items.rank_entries(stream, after=after, most_cost=most_cost, limit=2)
            found += [entry.item_id for entry in page]
            if len(page) < 2:
                return found
            after = page[-1].key

    assert await store.read(lambda tx: walk(tx, 10_000)) == [i.id for i in expected]
    assert await store.read(lambda tx: walk(tx, 100)) == [i.id for i in expected if i.id != "ctx_big"]
    entries = await store.read(lambda tx: tx.context_items.rank_entries(stream, after=None, most_cost=10_000, limit=1))
    assert entries[0].cost == item_characters(expected[0]) and entries[0].key == tail_key(expected[0])
    counts = await store.read(lambda tx: [tx.context_items.count_before(stream, tail_key(item)) for item in expected])
    assert counts == list(range(len(expected)))
    rows = await store.read(
        lambda tx: tx.context_items.rank_rows("p", ["ctx_matched", "ctx_unknown", "ctx_big"], most_cost=100)
    )
    assert [(r.item_id, r.key) for r in rows] == [("ctx_matched", tail_key(items[-1]))]


async def test_a_shared_stream_leaves_out_the_defaults_the_project_shadows(store: Store) -> None:
    await _put(store, [_item("ctx_a"), _item("ctx_a", project=SHARED_PROJECT), _item("ctx_b", project=SHARED_PROJECT)])
    stream = Stream(SHARED_PROJECT, Kind.EVIDENCE, _LIVE, shadowed_by="p")
    entries = await store.read(lambda tx: tx.context_items.rank_entries(stream, after=None, most_cost=999, limit=9))
    assert [e.item_id for e in entries] == ["ctx_b"]


async def test_phrase_hits_and_code_unit_order(store: Store) -> None:
    await _put(
        store,
        [
            _item("ctx_\ue000", "Deploy TARGET now"),
            _item("ctx_😀", "nothing here", kind=Kind.STATE, status=Status.CURRENT, state_key="Deploy.Target"),
            _item("ctx_a", "ΣΑΣ deploy"),
            _item("ctx_gone", "deploy target", status=Status.REJECTED),
            _item("ctx_b", "deploy target", project=SHARED_PROJECT),
        ],
    )
    live = (None, Status.CURRENT, Status.PROPOSED)

    def hits(tx: Tx, query: str, kinds: list[Kind] | None = None) -> list[str]:
        return tx.context_items.phrase_hits("p", query, kinds=kinds, statuses=live)

    assert await store.read(lambda tx: hits(tx, "deploy target")) == ["ctx_\ue000"]
    assert await store.read(lambda tx: hits(tx, "deploy.target")) == ["ctx_😀"]
    assert await store.read(lambda tx: hits(tx, "σας")) == ["ctx_a"]  # JavaScript's final sigma rule
    assert await store.read(lambda tx: hits(tx, "deploy", [Kind.STATE])) == ["ctx_😀"]
    assert await store.read(lambda tx: hits(tx, "deploy", [Kind.SKILL])) == []
    first = await store.read(lambda tx: tx.context_items.first_by_code_units("p", kinds=None, statuses=live, limit=9))
    assert first == sorted(["ctx_\ue000", "ctx_😀", "ctx_a"], key=code_unit_key)


async def test_scored_sums_bm25_in_the_database_within_the_tolerance(store: Store) -> None:
    """``scored`` is one row per matched item of the partitions asked for (shadowed defaults left
    out), its score within SCORE_TOLERANCE of relevance.bm25's, highest first; the statistics it
    needs come from ``document_frequencies`` and the exact scores' inputs from ``term_frequencies``."""
    rng = random.Random(7)
    words = ["gate", "flaky", "deploy", "target", "cache", "retry", "node", "x"]
    items = [
        _item(f"ctx_{index:03d}", " ".join(rng.choices(words, k=rng.randint(1, 30))), kind=kind)
        for index, kind in enumerate([Kind.EVIDENCE, Kind.KNOWLEDGE] * 40)
    ]
    items += [
        _item("ctx_000", "gate gate gate", project=SHARED_PROJECT),
        _item("def_1", "gate", project=SHARED_PROJECT),
    ]
    await _put(store, items)
    terms = ["gate", "deploy", "retry", "absent"]
    partitions = [(Kind.EVIDENCE, None), (Kind.KNOWLEDGE, None)]
    own = [item for item in items if item.project == "p"]
    counted = {item.id: Counter(relevance_tokens(item.summary)) for item in own}
    count, total = len(own), sum(sum(c.values()) for c in counted.values())
    frequency = {term: sum(1 for c in counted.values() if term in c) for term in terms}
    weights = [(term, inverse_document_frequency(count, frequency[term])) for term in terms]

    def read(tx: Tx) -> tuple[dict[str, int], list[tuple[str, str, str, float]], dict[str, int], list[Match]]:
        repo = tx.context_items
        return (
            repo.document_frequencies("p", terms, partitions=partitions),
            repo.scored("p", weights, average=average_length(count, total), partitions=partitions),
            repo.document_frequencies(SHARED_PROJECT, terms, partitions=partitions, shadowed_by="p"),
            repo.term_frequencies("p", terms, ["ctx_001", "ctx_002", "nothing"]),
        )

    frequencies, rows, shared, postings = await store.read(read)

    assert frequencies == {term: value for term, value in frequency.items() if value}
    assert shared == {"gate": 1}  # ctx_000 of _shared is shadowed by the project's
    matched = [item.id for item in own if any(term in counted[item.id] for term in terms)]
    assert sorted(row[0] for row in rows) == sorted(matched)
    assert [row[3] for row in rows] == sorted((row[3] for row in rows), reverse=True)
    exact = dict(
        zip(
            matched,
            bm25(terms, count, total, frequency, [(sum(counted[i].values()), counted[i]) for i in matched]),
            strict=True,
        )
    )
    for item_id, kind, status, score in rows:
        assert abs(score - exact[item_id]) <= SCORE_TOLERANCE * exact[item_id]
        assert (kind, status) == (next(i.kind.value for i in own if i.id == item_id), "")
    assert sorted((m.item_id, m.term, m.frequency) for m in postings) == sorted(
        (item_id, term, counted[item_id][term])
        for item_id in ("ctx_001", "ctx_002")
        for term in terms
        if counted[item_id][term]
    )
    assert await store.read(lambda tx: tx.context_items.scored("p", weights, average=1.0, partitions=[])) == []


async def test_term_postings_hold_each_terms_postings_together_and_score_exactly(store: Store) -> None:
    """``term_postings`` (decision 300): every posting of the terms in the partitions asked for,
    shadowed defaults and other kinds left out, each term's in a row; counted, they are the
    document frequencies, and summed by bm25_postings, bm25's exact scores."""
    rng = random.Random(8)
    words = ["gate", "flaky", "deploy", "target", "cache", "retry", "node", "x"]
    items = [
        _item(f"ctx_{index:03d}", " ".join(rng.choices(words, k=rng.randint(1, 30))), kind=kind)
        for index, kind in enumerate([Kind.EVIDENCE, Kind.KNOWLEDGE, Kind.EPISODE] * 30)
    ]
    items += [
        _item("ctx_000", "gate gate gate", project=SHARED_PROJECT),
        _item("def_1", "gate retry", project=SHARED_PROJECT),
        # 600 terms of its own: the terms asked for span two chunks of 512
        _item("ctx_many", " ".join(f"w{index:03d}" for index in range(600)) + " gate"),
    ]
    await _put(store, items)
    terms = ["retry", "gate", "deploy", "absent", *(f"w{index:03d}" for index in range(599, -1, -1))]
    partitions = [(Kind.EVIDENCE, None), (Kind.KNOWLEDGE, None)]
    own = [item for item in items if item.project == "p" and item.kind in (Kind.EVIDENCE, Kind.KNOWLEDGE)]
    counted = {item.id: Counter(relevance_tokens(item.summary)) for item in own}

    def read(tx: Tx) -> tuple[list[TermPosting], list[TermPosting], list[TermPosting]]:
        repo = tx.context_items
        return (
            repo.term_postings("p", terms, partitions=partitions),
            repo.term_postings(SHARED_PROJECT, terms, partitions=partitions, shadowed_by="p"),
            repo.term_postings("p", terms, partitions=[]),
        )

    rows, shared, nothing = await store.read(read)

    assert sorted(rows) == sorted(
        (term, item.id, counted[item.id][term], sum(counted[item.id].values()), item.kind.value)
        for item in own
        for term in terms
        if counted[item.id][term]
    )
    runs = [term for term, _ in itertools.groupby(row[0] for row in rows)]
    assert len(runs) == len(set(runs))  # each term's postings in a row
    assert sorted(shared) == [("gate", "def_1", 1, 2, "evidence"), ("retry", "def_1", 1, 2, "evidence")]
    assert nothing == []
    by_term: dict[str, list[tuple[str, int, int]]] = {}
    for term, item_id, tf, length, _ in rows:
        by_term.setdefault(term, []).append((item_id, tf, length))
    count, total = len(own), sum(sum(c.values()) for c in counted.values())
    frequency = {term: len(found) for term, found in by_term.items()}
    scores = bm25_postings(terms, count, total, frequency, by_term)
    matched = [item.id for item in own if any(term in counted[item.id] for term in terms)]
    expected = bm25(terms, count, total, frequency, [(sum(counted[i].values()), counted[i]) for i in matched])
    assert scores == dict(zip(matched, expected, strict=True))


async def test_least_cost_is_the_cheapest_item_of_the_partitions(store: Store) -> None:
    await _put(
        store,
        [
            _item("ctx_1", "x" * 40),
            _item("ctx_2", "x" * 9, status=Status.SUPERSEDED),
            _item("ctx_3", "x" * 20, kind=Kind.KNOWLEDGE),
            _item("ctx_4", "x", project="q"),
        ],
    )

    found = await store.read(
        lambda tx: [
            tx.context_items.least_cost([("p", Kind.EVIDENCE, None)]),
            tx.context_items.least_cost([("p", Kind.EVIDENCE, None), ("p", Kind.KNOWLEDGE, None)]),
            tx.context_items.least_cost([("p", Kind.EVIDENCE, Status.SUPERSEDED), ("p", Kind.EVIDENCE, None)]),
            tx.context_items.least_cost([("p", Kind.STATE, None)]),
            tx.context_items.least_cost([]),
        ]
    )

    evidence, knowledge = (
        item_characters(_item("ctx_1", "x" * 40)),
        item_characters(_item("ctx_3", "x" * 20, kind=Kind.KNOWLEDGE)),
    )
    superseded = item_characters(_item("ctx_2", "x" * 9))
    assert found == [evidence, min(evidence, knowledge), superseded, None, None]


_PHRASE_TEXTS = (
    "Gate flaky deploy",
    'the "quoted" gate',
    "ÉLAN vital ﬁle",
    "ci 😀 run gate",
    "gate\nflaky",
    "x",
    "ab",
    "abcabc",
)


def _expected_hits(items: Iterable[ContextItem], project: str, query: str) -> list[str]:
    return sorted(item.id for item in items if item.project == project and is_phrase_hit(item, js_lower(query)))


async def test_phrase_hits_narrowed_by_the_trigram_index_are_every_phrase_hit(store: Store) -> None:
    """A scan for a query of 3 characters or more goes through SQLite's trigram index (decision
    259) and finds exactly the phrase hits the rule defines, also after replacing and deleting
    items (the triggers keep the index in step); shorter queries, and PostgreSQL, scan."""
    items = [
        _item(f"ctx_{index}", text, state_key="deploy.target" if index % 3 == 0 else None)
        for index, text in enumerate(_PHRASE_TEXTS)
    ]
    items += [_item("ctx_q", "gate flaky deploy", project="q"), _item("ctx_s", "flaky gate", project=SHARED_PROJECT)]
    await _put(store, items)
    queries = ["gate", "gate fl", "flaky", '"quoted"', 'd" g', "élan", "ﬁle", "😀 r", "a😀", "t\nf", "abc", "bca"]
    queries += ["ab", "x", "deploy.t", "oy.", "nothing"]
    # Joints narrow these (decision 301): a space with three characters on both sides.
    queries += ["gate flaky", "ate fla", "LAN vital ﬁ", "ci 😀 run", "run gate", 'the "quoted" g', "x gate flaky y"]

    await _assert_phrase_hits(store, items, queries)
    replaced = [dataclasses.replace(items[0], summary="nothing at all"), _item("ctx_new", "a new gate flaky one")]
    await _put(store, replaced)
    await store.write(lambda tx: tx.context_items.delete("p", ["ctx_1"]))
    current = [item for item in items if item.project != "p" or item.id not in ("ctx_0", "ctx_1")] + replaced

    await _assert_phrase_hits(store, current, queries)


async def test_joints_narrow_phrase_hits_in_state_keys_by_kind_and_leave_with_their_items(store: Store) -> None:
    """Decision 301 on every backend: a hit in a state key alone is found through its joints, a
    kind filter keeps to its kinds, a query of more than 512 joints is narrowed by 512 of them, and
    an item's joints go when it is purged by run or as superseded."""
    long_text = " ".join(f"w{index:03d}" for index in range(600))
    items = [
        _item("ctx_key", "nothing here", state_key="deploy target now", kind=Kind.STATE, status=Status.CURRENT),
        _item("ctx_kn", "the deploy target now", kind=Kind.KNOWLEDGE),
        _item("ctx_ev", "the deploy target now"),
        _item("ctx_long", long_text),
        _item("ctx_run", "gate flaky from a run"),
        _item("ctx_old", "gate flaky and old", status=Status.SUPERSEDED, valid_until=5),
    ]
    await store.write(
        lambda tx: tx.context_items.put(
            [StoredContextItem(item, 1, run_id="run_1" if item.id == "ctx_run" else None) for item in items]
        )
    )

    def hits(tx: Tx, query: str, kinds: list[Kind] | None, statuses: tuple[Status | None, ...] = _LIVE) -> list[str]:
        return sorted(tx.context_items.phrase_hits("p", js_lower(query), kinds=kinds, statuses=statuses))

    def joints_of(tx: Tx, item_ids: Iterable[str]) -> list[str]:
        joints = sorted({joint for item in items if item.id in item_ids for joint in item_joints(item)})
        return sorted({posting.item_id for posting in tx.context_items.postings("p", joints, include_shared=False)})

    assert await store.read(lambda tx: hits(tx, "Deploy Target", None)) == ["ctx_ev", "ctx_key", "ctx_kn"]
    assert await store.read(lambda tx: hits(tx, "deploy target", [Kind.KNOWLEDGE])) == ["ctx_kn"]
    assert await store.read(lambda tx: hits(tx, "deploy target", [Kind.STATE])) == ["ctx_key"]
    assert await store.read(lambda tx: hits(tx, long_text, None)) == ["ctx_long"]
    assert await store.read(lambda tx: hits(tx, long_text + "x", None)) == []
    every = (None, *Status)
    assert await store.read(lambda tx: hits(tx, "gate flaky", None, every)) == ["ctx_old", "ctx_run"]
    assert await store.read(lambda tx: joints_of(tx, ["ctx_run", "ctx_old"])) == ["ctx_old", "ctx_run"]

    await store.write(lambda tx: tx.context_items.purge_run("run_1"))
    await store.write(lambda tx: tx.context_items.purge_superseded(ended_before=10, kinds=list(Kind)))

    assert await store.read(lambda tx: hits(tx, "gate flaky", None, every)) == []
    assert await store.read(lambda tx: joints_of(tx, ["ctx_run", "ctx_old"])) == []
    assert await store.read(lambda tx: joints_of(tx, ["ctx_key"])) == ["ctx_ev", "ctx_key", "ctx_kn"]


async def _assert_phrase_hits(store: Store, items: list[ContextItem], queries: Iterable[str]) -> None:
    def found(tx: Tx) -> dict[tuple[str, str], list[str]]:
        return {
            (project, query): sorted(tx.context_items.phrase_hits(project, js_lower(query), kinds=None, statuses=_LIVE))
            for project in ("p", "q", SHARED_PROJECT)
            for query in queries
        }

    expected = {
        (project, query): _expected_hits(items, project, query)
        for project in ("p", "q", SHARED_PROJECT)
        for query in queries
    }
    assert await store.read(found) == expected


def _put_before_version_22(conn: Connection, items: list[ContextItem]) -> None:
    """Store ``items`` as a hub of version 21 or older did: no joints, no ``joints_indexed``."""
    conn.execute("ALTER TABLE context_items ADD COLUMN joints_indexed INTEGER NOT NULL DEFAULT 0")
    SqlContextItems(conn).put([StoredContextItem(item, 1) for item in items])
    conn.execute("DELETE FROM context_postings WHERE frequency = 0")
    conn.execute("ALTER TABLE context_items DROP COLUMN joints_indexed")  # no index on it yet


async def test_version_19_fills_the_trigram_index_from_the_items_already_stored(tmp_path: Path) -> None:
    """SQLite: a database of version 18 holding items gets its trigram index filled by the
    migration, and a scan through it finds what the rule finds."""
    url = f"sqlite:///{tmp_path / 'hub.db'}"
    items = [_item(f"ctx_{index}", text) for index, text in enumerate(_PHRASE_TEXTS)]
    with raw_connection(url) as conn:
        db = sqlite_utils.Database(conn)  # type: ignore[arg-type]
        for migration in SQLITE_MIGRATIONS[:18]:
            migration(db)
        conn.execute("PRAGMA user_version = 18")
        _put_before_version_22(conn, items)
        conn.commit()
    store = open_store(url)
    await store.start()
    try:
        names = await store.read(lambda tx: tx.context_items.phrase_hits("p", "gate", kinds=None, statuses=_LIVE))
        assert sorted(names) == _expected_hits(items, "p", "gate")
        await _assert_phrase_hits(store, items, ("gate fl", "abc", "😀 r", "ab", "gate flaky", "ci 😀 run"))
    finally:
        await store.close()
    with raw_connection(url) as conn:
        assert conn.execute("SELECT COUNT(*) FROM context_text").fetchone()[0] == len(items)


_JOINT_TEXTS = (
    "Gate flaky deploy",
    "a  b  two spaces",
    "ÉLAN vital ﬁle run",
    "ci 😀 run gate 😀😀 x",
    "gate\nflaky gate",
    "ends with ",
    " starts",
    "abc def",
    "ab cd",
)


@pytest.mark.parametrize("engine", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_version_22_fills_the_joints_put_writes(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Decision 301: every item's joints (``joints.text_joints`` of its folded summary and state
    key) are postings of frequency 0 beside its terms; version 22 gives the items stored before it
    the very postings ``put`` writes now, on both backends (SQLite's migration in Python,
    PostgreSQL's in SQL), replacing or deleting an item removes its joints, and an item put
    without them (by a replica of version 21 during a rolling upgrade) is still found."""
    url = (
        f"sqlite:///{tmp_path / 'hub.db'}" if engine == "sqlite" else str(request.getfixturevalue("postgres_database"))
    )
    items = [
        _item(f"ctx_{index}", text, state_key="deploy.target now" if index % 2 else None)
        for index, text in enumerate(_JOINT_TEXTS)
    ] + [_item("ctx_q", "other project here", project="q", kind=Kind.KNOWLEDGE)]
    store = open_store(url)
    await store.start()
    await store.close()
    with raw_connection(url) as conn:  # the schema of version 21, holding the items
        conn.execute("DROP INDEX context_items_unjointed")
        conn.execute("ALTER TABLE context_items DROP COLUMN joints_indexed")
        if engine == "sqlite":
            conn.execute("PRAGMA user_version = 21")
        else:
            conn.execute("UPDATE kxm_schema SET version = 21")
        _put_before_version_22(conn, items)
    store = open_store(url)  # migrates to version 22
    await store.start()
    await store.close()
    joints = (
        "SELECT project, term, kind, status, item_id, frequency, length FROM context_postings WHERE term LIKE '% %'"
    )
    with raw_connection(url) as conn:
        written = sorted(conn.execute(joints).fetchall())
        lengths = {(item.project, item.id): sum(index_entries(item)[1].values()) for item in items}
        assert written == sorted(
            (item.project, joint, item.kind.value, "", item.id, 0, lengths[(item.project, item.id)])
            for item in items
            for joint in item_joints(item)
        )
        assert {row[1] for row in written} >= {"ate fla", "  b  tw", "lan vit", "i 😀 run", "get now"}
        assert conn.execute("SELECT COUNT(*) FROM context_items WHERE joints_indexed = 0").fetchone()[0] == 0
    store = open_store(url)
    await store.start()
    try:
        replaced = dataclasses.replace(items[0], summary="another text entirely", state_key="now here too")
        await _put(store, [replaced, *(item for item in items if item.id != "ctx_0")])  # as version 22 writes them
        assert await _joint_rows(url) == sorted(
            (item.project, joint, item.id) for item in [replaced, *items[1:]] for joint in item_joints(item)
        )
        await store.write(lambda tx: tx.context_items.delete("p", ["ctx_1", "ctx_2"]))
        current = [replaced, *(item for item in items if item.id not in ("ctx_0", "ctx_1", "ctx_2"))]
        assert await _joint_rows(url) == sorted(
            (item.project, joint, item.id) for item in current for joint in item_joints(item)
        )
        # ctx_3 as a replica of version 21 rewrites it: no joints, joints_indexed 0. Found all the same.
        with raw_connection(url) as conn:
            conn.execute("DELETE FROM context_postings WHERE project = 'p' AND item_id = 'ctx_3' AND frequency = 0")
            conn.execute("UPDATE context_items SET joints_indexed = 0 WHERE project = 'p' AND id = 'ctx_3'")
        await _assert_phrase_hits(store, current, ["gate flaky", "ci 😀 run", "run gate", "un gate 😀", "t now"])
        # Marked as holding its joints, which it does not: the phrase test never sees it (it reads
        # only the items holding the joints), so this proves the narrowing is what answers.
        with raw_connection(url) as conn:
            conn.execute("UPDATE context_items SET joints_indexed = 1 WHERE project = 'p' AND id = 'ctx_3'")
        found = await store.read(lambda tx: tx.context_items.phrase_hits("p", "ci 😀 run", kinds=None, statuses=_LIVE))
        assert "ctx_3" not in found
    finally:
        await store.close()


async def _joint_rows(url: str) -> list[tuple[str, str, str]]:
    with raw_connection(url) as conn:
        rows = conn.execute("SELECT project, term, item_id FROM context_postings WHERE term LIKE '% %'").fetchall()
    return sorted((str(project), str(term), str(item_id)) for project, term, item_id in rows)
