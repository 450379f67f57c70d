"""Contract: runtimes and the hashes of their keys."""

from __future__ import annotations

from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.store import Store


async def test_a_runtime_is_found_by_id_and_key_and_a_new_key_replaces_the_old(store: Store) -> None:
    """get and find_by_key_hash return the runtime; put again (re-registration) swaps its key hash."""
    # Prepare
    runtime = Runtime("p", "rt_1", "host-a", 1, None)
    await store.write(lambda tx: tx.runtimes.put(runtime, "sha256:one"))

    # Execute
    by_key = await store.read(lambda tx: tx.runtimes.find_by_key_hash("sha256:one"))
    await store.write(lambda tx: tx.runtimes.put(Runtime("p", "rt_1", "host-b", 5, None), "sha256:two"))

    # Assert
    assert by_key == runtime
    assert await store.read(lambda tx: tx.runtimes.find_by_key_hash("sha256:one")) is None
    assert await store.read(lambda tx: tx.runtimes.get("p", "rt_1")) == Runtime("p", "rt_1", "host-b", 5, None)
    assert await store.read(lambda tx: tx.runtimes.get("q", "rt_1")) is None


async def test_a_heartbeat_records_its_time_and_host(store: Store) -> None:
    """heartbeat sets heartbeat_time and the host it reported."""
    # Prepare
    await store.write(lambda tx: tx.runtimes.put(Runtime("p", "rt_1", "host-a", 1, None), "sha256:k"))

    # Execute
    await store.write(lambda tx: tx.runtimes.heartbeat("p", "rt_1", "host-z", 9))

    # Assert
    assert await store.read(lambda tx: tx.runtimes.get("p", "rt_1")) == Runtime("p", "rt_1", "host-z", 1, 9)


async def test_runtimes_are_listed_by_id_after_the_cursor(store: Store) -> None:
    """list_page: the project's runtimes by id, after ``after``, at most ``limit``."""
    # Prepare
    for runtime_id in ("rt_c", "rt_a", "rt_b"):
        await store.write(
            lambda tx, runtime_id=runtime_id: tx.runtimes.put(Runtime("p", runtime_id, "h", 1, None), runtime_id)
        )

    # Execute
    first = await store.read(lambda tx: tx.runtimes.list_page("p", None, 2))
    rest = await store.read(lambda tx: tx.runtimes.list_page("p", "rt_b", 2))

    # Assert
    assert [r.id for r in first] == ["rt_a", "rt_b"]
    assert [r.id for r in rest] == ["rt_c"]
    assert await store.read(lambda tx: (tx.runtimes.count("p"), tx.runtimes.count("q"))) == (3, 0)
