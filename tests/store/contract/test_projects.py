"""Contract: projects and the hashes of their tokens."""

from __future__ import annotations

from kxm_grpc.domain.projects import Project
from kxm_grpc.store import Store


async def test_a_new_token_hash_replaces_the_old_one_and_keeps_the_creation_time(store: Store) -> None:
    """put again (a rotation) finds the project by its new hash only; its create time stays."""
    # Prepare
    await store.write(lambda tx: tx.projects.put(Project("p", 1, 1), "sha256:old"))

    # Execute
    await store.write(lambda tx: tx.projects.put(Project("p", 99, 5), "sha256:new"))

    # Assert
    assert await store.read(lambda tx: tx.projects.find_by_token_hash("sha256:old")) is None
    assert await store.read(lambda tx: tx.projects.find_by_token_hash("sha256:new")) == Project("p", 1, 5)
    assert await store.read(lambda tx: tx.projects.get("p")) == Project("p", 1, 5)
    assert await store.read(lambda tx: tx.projects.get("q")) is None


async def test_projects_are_listed_by_name_after_the_cursor(store: Store) -> None:
    """list_page orders by name, starts after ``after`` and stops at ``limit``."""
    # Prepare
    for name in ("c", "a", "b"):
        await store.write(lambda tx, name=name: tx.projects.put(Project(name, 1, 1), f"sha256:{name}"))

    # Execute
    first = await store.read(lambda tx: tx.projects.list_page(None, 2))
    rest = await store.read(lambda tx: tx.projects.list_page("b", 2))

    # Assert
    assert [p.name for p in first] == ["a", "b"]
    assert [p.name for p in rest] == ["c"]
