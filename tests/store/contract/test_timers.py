"""Contract: durable timers, one per (kind, key)."""

from __future__ import annotations

from kxm_grpc.store import Store, Timer
from tests.store.contract.conftest import StoreFactory


async def test_a_timer_is_put_moved_and_deleted_by_kind_and_key(store: Store) -> None:
    """put inserts, put again moves the deadline, delete removes it (deleting a missing one is a no-op)."""
    # Execute
    await store.write(lambda tx: tx.timers.put(Timer("k", "a", 10)))
    first = await store.read(lambda tx: tx.timers.get("k", "a"))
    await store.write(lambda tx: tx.timers.put(Timer("k", "a", 30)))
    moved = await store.read(lambda tx: tx.timers.get("k", "a"))
    await store.write(lambda tx: [tx.timers.delete("k", "a"), tx.timers.delete("k", "none")])

    # Assert
    assert (first, moved) == (Timer("k", "a", 10), Timer("k", "a", 30))
    assert await store.read(lambda tx: tx.timers.get("k", "a")) is None


async def test_due_timers_of_the_asked_kinds_come_earliest_first(store: Store) -> None:
    """next_due and list_due consider only the kinds asked for; list_due takes those at or before now."""
    # Prepare
    timers = [Timer("k", "late", 30), Timer("k", "b", 10), Timer("k", "a", 10), Timer("other", "x", 5)]
    await store.write(lambda tx: [tx.timers.put(t) for t in timers])

    # Execute
    earliest = await store.read(lambda tx: (tx.timers.next_due(["k"]), tx.timers.next_due(["k", "other"])))
    due = await store.read(lambda tx: tx.timers.list_due(10, ["k"], 10))
    limited = await store.read(lambda tx: tx.timers.list_due(30, ["k", "other"], 2))
    unknown = await store.read(lambda tx: (tx.timers.next_due(["none"]), tx.timers.list_due(99, [], 10)))

    # Assert
    assert earliest == (10, 5)
    assert due == [Timer("k", "a", 10), Timer("k", "b", 10)]  # at the deadline is due; ties by key
    assert limited == [Timer("other", "x", 5), Timer("k", "a", 10)]
    assert unknown == (None, [])


async def test_timers_survive_a_restart(store_factory: StoreFactory) -> None:
    """A timer written before a restart is there after it, with its deadline."""
    # Prepare
    store = await store_factory.open()
    await store.write(lambda tx: tx.timers.put(Timer("k", "a", 10)))

    # Execute
    store = await store_factory.reopen(store)

    # Assert
    assert await store.read(lambda tx: tx.timers.next_due(["k"])) == 10
    assert await store.read(lambda tx: tx.timers.get("k", "a")) == Timer("k", "a", 10)
