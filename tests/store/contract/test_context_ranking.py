"""Contract: what the indexed packet and recall read of the store (version 17, decisions 218–222).

The ranking reads on every backend: ``shadowed``, ``matches``, ``rank_entries`` (the arbiter's keys
6 to 9 in order, costs filtered in the database, keyset pages), ``count_before``, ``rank_rows``,
``phrase_hits`` (exact, case-folded as JavaScript does) and ``first_by_code_units`` (UTF-16 order).
"""

from __future__ import annotations

import dataclasses

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
from kxm_grpc.domain.context.tokens import item_characters
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.context_items import IndexedItem, Match, StoredContextItem, Stream

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
