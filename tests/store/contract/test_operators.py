"""Contract: named operators and the hashes of their tokens."""

from __future__ import annotations

import pytest

from kxm_grpc.domain.operators import Operator
from kxm_grpc.errors import HubError
from kxm_grpc.store import Store


async def test_an_operator_is_found_by_name_and_token_hash_and_revoked_keeps_its_row(store: Store) -> None:
    """insert, then get and find_by_token_hash; revoke sets revoke_time once and keeps the row."""
    # Prepare
    await store.write(lambda tx: tx.operators.insert(Operator("alice", 1), "sha256:a"))

    # Execute
    by_hash = await store.read(lambda tx: tx.operators.find_by_token_hash("sha256:a"))
    await store.write(lambda tx: tx.operators.revoke("alice", 7))
    await store.write(lambda tx: tx.operators.revoke("alice", 9))  # already revoked: unchanged

    # Assert
    assert by_hash == Operator("alice", 1)
    assert await store.read(lambda tx: tx.operators.get("alice")) == Operator("alice", 1, 7)
    assert await store.read(lambda tx: tx.operators.find_by_token_hash("sha256:a")) == Operator("alice", 1, 7)
    assert await store.read(lambda tx: tx.operators.get("bob")) is None
    assert await store.read(lambda tx: tx.operators.find_by_token_hash("sha256:b")) is None


async def test_a_name_or_a_token_hash_is_never_inserted_twice(store: Store) -> None:
    """insert refuses a taken name or token hash (the services check first; the store holds the line)."""
    # Prepare
    await store.write(lambda tx: tx.operators.insert(Operator("alice", 1), "sha256:a"))

    # Execute / Assert
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.operators.insert(Operator("alice", 2), "sha256:other"))
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.operators.insert(Operator("bob", 2), "sha256:a"))
    assert await store.read(lambda tx: tx.operators.list_page(None, 10)) == [Operator("alice", 1)]


async def test_operators_are_listed_by_name_after_the_cursor(store: Store) -> None:
    """list_page orders by name (revoked ones too), starts after ``after`` and stops at ``limit``."""
    # Prepare
    for name in ("carol", "alice", "bob"):
        await store.write(lambda tx, name=name: tx.operators.insert(Operator(name, 1), f"sha256:{name}"))
    await store.write(lambda tx: tx.operators.revoke("bob", 5))

    # Execute
    first = await store.read(lambda tx: tx.operators.list_page(None, 2))
    rest = await store.read(lambda tx: tx.operators.list_page("bob", 2))

    # Assert
    assert first == [Operator("alice", 1), Operator("bob", 1, 5)]
    assert rest == [Operator("carol", 1)]
