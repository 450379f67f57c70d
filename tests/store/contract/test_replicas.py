"""Contract: the replicas of a shared database, their roles and their open streams."""

from __future__ import annotations

from kxm_grpc.store import Store


async def test_a_replica_joins_counting_the_others_and_forgetting_the_dead(store: Store) -> None:
    """join drops the replicas it is told are dead (their streams and roles too) and counts the rest."""
    # Prepare
    await store.write(lambda tx: tx.replicas.join("r1", "h", 1, 0, 100, ()))
    await store.write(lambda tx: tx.replicas.join("r2", "h", 2, 0, 50, ()))
    await store.write(lambda tx: tx.replicas.add_stream("s2", "agt_a", "r2", 0))
    await store.write(lambda tx: tx.replicas.claim("sweeper", "r2", 0, 50))

    # Execute
    seen = await store.read(lambda tx: tx.replicas.heartbeats())
    others = await store.write(lambda tx: tx.replicas.join("r3", "h", 3, 10, 160, {"r2"}))

    # Assert
    assert seen == {"r1": 100, "r2": 50}
    assert others == 1  # r1
    assert await store.read(lambda tx: tx.replicas.count_streams("agt_a", 10)) == 0
    assert await store.read(lambda tx: tx.replicas.holder("sweeper", 10)) is None
    assert await store.write(lambda tx: tx.replicas.renew("r2", 200)) is False  # r2 was taken for dead
    assert await store.write(lambda tx: tx.replicas.renew("r1", 200)) is True


async def test_a_role_has_one_holder_until_it_lapses(store: Store) -> None:
    """claim succeeds for a free role, its holder again, and anyone once it lapsed; nobody else meanwhile."""
    # Execute
    first = await store.write(lambda tx: tx.replicas.claim("sweeper", "r1", 0, 10))
    other = await store.write(lambda tx: tx.replicas.claim("sweeper", "r2", 5, 15))
    renewed = await store.write(lambda tx: tx.replicas.claim("sweeper", "r1", 9, 20))
    taken = await store.write(lambda tx: tx.replicas.claim("sweeper", "r2", 20, 30))

    # Assert
    assert (first, other, renewed, taken) == (True, False, True, True)
    assert await store.read(lambda tx: (tx.replicas.holder("sweeper", 25), tx.replicas.holder("sweeper", 30))) == (
        "r2",
        None,
    )


async def test_streams_count_only_on_live_replicas_and_leave_takes_everything(store: Store) -> None:
    """count_streams counts an agent's streams on live replicas; leave removes the replica, its streams and roles."""
    # Prepare
    await store.write(lambda tx: tx.replicas.join("r1", "h", 1, 0, 100, ()))
    await store.write(lambda tx: tx.replicas.join("r2", "h", 2, 0, 100, ()))
    await store.write(lambda tx: [tx.replicas.add_stream(f"s{i}", "agt_a", f"r{1 + i % 2}", 0) for i in range(4)])
    await store.write(lambda tx: tx.replicas.claim("sweeper", "r2", 0, 100))

    # Execute
    before = await store.read(lambda tx: tx.replicas.count_streams("agt_a", 10))
    await store.write(lambda tx: [tx.replicas.remove_stream("s0"), tx.replicas.remove_stream("missing")])
    await store.write(lambda tx: tx.replicas.leave("r2"))

    # Assert
    assert before == 4
    assert await store.read(lambda tx: tx.replicas.count_streams("agt_a", 10)) == 1  # s2 on r1
    assert await store.read(lambda tx: tx.replicas.holder("sweeper", 10)) is None
    assert await store.read(lambda tx: tx.replicas.count_streams("agt_a", 100)) == 0  # r1 lapsed at 100
