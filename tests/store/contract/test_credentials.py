"""Contract: the durable credentials version."""

from __future__ import annotations

import pytest

from kxm_grpc.errors import HubError
from kxm_grpc.store import Store
from tests.store.contract.conftest import StoreFactory


async def test_the_version_starts_at_zero_and_each_bump_moves_it_by_one(store: Store) -> None:
    """version is 0 on a new database; bump returns the new version, which version then reads."""
    # Execute
    before = await store.read(lambda tx: tx.credentials.version())
    first = await store.write(lambda tx: tx.credentials.bump())
    second = await store.write(lambda tx: tx.credentials.bump())

    # Assert
    assert (before, first, second) == (0, 1, 2)
    assert await store.read(lambda tx: tx.credentials.version()) == 2


async def test_a_bump_is_undone_with_its_transaction(store: Store) -> None:
    """A unit of work that fails after bumping leaves the version where it was."""

    def work(tx: object) -> None:
        tx.credentials.bump()  # type: ignore[attr-defined]
        raise HubError("boom")

    # Execute
    with pytest.raises(HubError):
        await store.write(work)

    # Assert
    assert await store.read(lambda tx: tx.credentials.version()) == 0


async def test_the_version_survives_a_restart(store_factory: StoreFactory) -> None:
    """A persistent store reads back the version it had (a restarted replica must not go back)."""
    # Prepare
    store = await store_factory.open()
    await store.write(lambda tx: tx.credentials.bump())

    # Execute
    reopened = await store_factory.reopen(store)

    # Assert
    assert await reopened.read(lambda tx: tx.credentials.version()) == 1
