"""Contract: the hub's key/value settings."""

from __future__ import annotations

from kxm_grpc.store import Store


async def test_a_value_is_absent_until_put_and_a_put_replaces_it(store: Store) -> None:
    """get is None for an unknown key; put sets it, and a second put replaces the value."""
    # Execute
    before = await store.read(lambda tx: tx.meta.get("k"))
    await store.write(lambda tx: tx.meta.put("k", "one"))
    first = await store.read(lambda tx: tx.meta.get("k"))
    await store.write(lambda tx: tx.meta.put("k", "two"))

    # Assert
    assert (before, first) == (None, "one")
    assert await store.read(lambda tx: tx.meta.get("k")) == "two"
