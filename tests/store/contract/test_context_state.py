"""Contract: temporal state's reads of context items: a key's items, and the crowded keys (issue 17, §5.9).

A state key's history and its competing items are found through ``context_items_state`` (schema
16), an index over state items by (project, state key, status): the plans below must use it on
every backend, so a state read never scans a project's pool.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import sqlite_utils

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
from kxm_grpc.store import Store
from kxm_grpc.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from kxm_grpc.store.protocols.context_items import StoredContextItem
from kxm_grpc.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from kxm_grpc.store.tables import raw_connection
from tests.store.contract.conftest import StoreFactory


def _state(item_id: str, key: str, status: Status, *, project: str = "p", **fields: Any) -> StoredContextItem:
    """A state item of ``key`` with ``status``, stored with ``superseded_by`` when given."""
    superseded_by = fields.pop("superseded_by", None)
    item = ContextItem(
        id=item_id,
        kind=Kind.STATE,
        project=project,
        summary=f"value of {key}",
        provenance=Provenance(SourceType.HUMAN, "promoted-by:ops"),
        authority=Authority.EVIDENCE,
        confidence=Confidence.PROBABLE,
        status=status,
        state_key=key,
    )
    return StoredContextItem(dataclasses.replace(item, **fields), 1, superseded_by=superseded_by)


async def _put(store: Store, *items: StoredContextItem) -> None:
    await store.write(lambda tx: tx.context_items.put(list(items)))


async def test_state_items_are_every_item_of_the_key_in_the_project_by_id(store: Store) -> None:
    """A key's items of every status, by id, with what is stored beside them; never another key's,
    another project's, ``_shared``'s, or an item of another kind that names the key."""
    mine = [
        _state("ctx_c", "deploy.target", Status.CURRENT, valid_from=5),
        _state("ctx_a", "deploy.target", Status.SUPERSEDED, valid_from=1, valid_until=5, superseded_by="ctx_c"),
        _state("ctx_b", "deploy.target", Status.REJECTED, valid_until=5, superseded_by="ctx_c"),
        _state("ctx_d", "deploy.target", Status.PROPOSED, valid_from=6),
    ]
    others = [
        _state("ctx_e", "deploy.region", Status.CURRENT),
        _state("ctx_f", "deploy.target", Status.CURRENT, project="q"),
        _state("ctx_g", "deploy.target", Status.CURRENT, project=SHARED_PROJECT),
        StoredContextItem(
            dataclasses.replace(_state("ctx_h", "deploy.target", Status.CURRENT).item, kind=Kind.EVIDENCE), 1
        ),
    ]
    await _put(store, *mine, *others)

    found = await store.read(lambda tx: tx.context_items.state_items("p", "deploy.target"))
    none = await store.read(lambda tx: tx.context_items.state_items("p", "deploy.nothing"))

    assert found == sorted(mine, key=lambda stored: stored.item.id)
    assert none == []


async def test_state_items_filter_by_status_and_by_the_instant_their_interval_holds(store: Store) -> None:
    """``statuses`` keeps those statuses (an empty collection none); ``active_at`` keeps the items
    whose ``[valid_from, valid_until)`` holds the instant, a missing bound open."""
    items = [
        _state("ctx_a", "k", Status.SUPERSEDED, valid_from=1, valid_until=5),
        _state("ctx_b", "k", Status.CURRENT, valid_from=5),
        _state("ctx_c", "k", Status.CURRENT, valid_from=9),
        _state("ctx_d", "k", Status.PROPOSED),
        _state("ctx_e", "k", Status.SUPERSEDED),
    ]
    await _put(store, *items)

    def ids(**filters: Any) -> Any:
        return store.read(lambda tx: [s.item.id for s in tx.context_items.state_items("p", "k", **filters)])

    assert await ids(statuses=(Status.CURRENT,)) == ["ctx_b", "ctx_c"]
    assert await ids(statuses=(Status.CURRENT, Status.PROPOSED)) == ["ctx_b", "ctx_c", "ctx_d"]
    assert await ids(statuses=()) == []
    assert await ids(active_at=4) == ["ctx_a", "ctx_d", "ctx_e"]
    assert await ids(active_at=5, statuses=(Status.CURRENT, Status.SUPERSEDED)) == ["ctx_b", "ctx_e"]
    assert await ids(active_at=9, statuses=(Status.CURRENT, Status.SUPERSEDED)) == ["ctx_b", "ctx_c", "ctx_e"]


async def test_crowded_keys_hold_two_current_or_two_proposed_items(store: Store) -> None:
    """A key is crowded with two current items or two proposals; one of each, superseded or rejected
    items, another project's and another kind's items crowd nothing."""
    await _put(
        store,
        _state("ctx_1", "two.current", Status.CURRENT),
        _state("ctx_2", "two.current", Status.CURRENT),
        _state("ctx_3", "two.proposed", Status.PROPOSED),
        _state("ctx_4", "two.proposed", Status.PROPOSED),
        _state("ctx_5", "two.proposed", Status.CURRENT),
        _state("ctx_6", "one.each", Status.CURRENT),
        _state("ctx_7", "one.each", Status.PROPOSED),
        _state("ctx_8", "history", Status.CURRENT),
        _state("ctx_9", "history", Status.SUPERSEDED),
        _state("ctx_10", "history", Status.REJECTED),
        _state("ctx_11", "history", Status.REJECTED),
        _state("ctx_12", "members[]", Status.CURRENT),
        _state("ctx_13", "members[]", Status.CURRENT),
        _state("ctx_14", "history", Status.CURRENT, project="q"),
        StoredContextItem(
            dataclasses.replace(_state("ctx_15", "one.each", Status.CURRENT).item, kind=Kind.KNOWLEDGE), 1
        ),
    )

    crowded = await store.read(lambda tx: tx.context_items.crowded_state_keys("p"))
    elsewhere = await store.read(lambda tx: tx.context_items.crowded_state_keys("r"))

    assert crowded == ["members[]", "two.current", "two.proposed"]
    assert elsewhere == []


_PLANS = {
    "state_items": ("SELECT id FROM context_items WHERE project = 'p' AND state_key = 'k' AND kind = 'state'"),
    "crowded_state_keys": (
        "SELECT DISTINCT state_key FROM context_items WHERE project = 'p' AND kind = 'state' "
        "AND status IN ('current', 'proposed') GROUP BY state_key, status HAVING COUNT(*) > 1"
    ),
}


def _plan(url: str, query: str) -> str:
    """The backend's plan of ``query`` (PostgreSQL told to avoid sequential scans where it can:
    on a table this small it would rather read it all)."""
    with raw_connection(url) as conn:
        if url.startswith("sqlite"):
            return " ".join(str(row[-1]) for row in conn.execute(f"EXPLAIN QUERY PLAN {query}").fetchall())
        conn.execute("SET enable_seqscan = off")
        return " ".join(str(row[0]) for row in conn.execute(f"EXPLAIN {query}").fetchall())


@pytest.mark.parametrize("query", sorted(_PLANS))
async def test_state_reads_use_the_state_index_not_a_scan(store_factory: StoreFactory, query: str) -> None:
    """The planner of every backend answers a state read from ``context_items_state`` (the queries
    the adapter runs, as it spells them: the state kind as a literal)."""
    if not store_factory.persistent:
        pytest.skip(f"{store_factory.name} has no second connection to explain with")
    store = await store_factory.open()
    await _put(store, *(_state(f"ctx_{n}", f"key{n % 7}", Status.CURRENT) for n in range(50)))
    await store_factory.close(store)

    plan = _plan(store_factory.url, _PLANS[query])

    assert "context_items_state" in plan, plan


def _version_15_database(url: str) -> None:
    """Create the schema of version 15 at ``url`` (the migrations a hub of version 15 applied)."""
    with raw_connection(url) as conn:
        if url.startswith("sqlite"):
            db = sqlite_utils.Database(conn)  # type: ignore[arg-type]
            for migration in SQLITE_MIGRATIONS[:15]:
                migration(db)
            conn.execute("PRAGMA user_version = 15")
            return
        conn.execute("CREATE TABLE kxm_schema (version BIGINT NOT NULL)")
        conn.execute("INSERT INTO kxm_schema (version) VALUES (15)")
        for version in range(7, 16):
            for statement in POSTGRES_MIGRATIONS[version]:
                conn.execute(statement)


async def test_a_database_of_version_15_migrates_to_the_state_index(store_factory: StoreFactory) -> None:
    """A database of version 15 opens at this hub's version with the state index, and finds a key's items."""
    if not store_factory.persistent:
        pytest.skip(f"{store_factory.name} has no database to migrate")
    _version_15_database(store_factory.url)

    store = await store_factory.open()
    await _put(store, _state("ctx_old", "deploy.target", Status.CURRENT))
    found = await store.read(lambda tx: tx.context_items.state_items("p", "deploy.target"))

    await store_factory.close(store)

    assert [stored.item.id for stored in found] == ["ctx_old"]
    assert "context_items_state" in _plan(store_factory.url, _PLANS["state_items"])
