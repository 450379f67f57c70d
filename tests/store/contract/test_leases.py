"""Contract: lease fences (a name's token high-water mark and its current grant)."""

from __future__ import annotations

from kxm_grpc.domain.leases import Fence, Lease
from kxm_grpc.store import Store


def _fence(name: str, token: int, *, expire_time: int | None = 100, project: str = "p") -> Fence:
    """The fence of ``name``: a grant to agt_a until ``expire_time``, or released (None)."""
    lease = None
    if expire_time is not None:
        lease = Lease(project, name, "agt_a", "alice", token, 1, expire_time)
    return Fence(project, name, token, lease)


async def test_a_fence_reads_back_and_a_release_keeps_the_high_water_mark(store: Store) -> None:
    """put then get returns the fence; after a release (no grant) the token high-water mark stays."""
    # Prepare
    await store.write(lambda tx: tx.leases.put(_fence("db", 1)))
    held = await store.read(lambda tx: tx.leases.get("p", "db"))

    # Execute
    await store.write(lambda tx: tx.leases.put(_fence("db", 1, expire_time=None)))

    # Assert
    assert held == _fence("db", 1)
    assert await store.read(lambda tx: tx.leases.get("p", "db")) == Fence("p", "db", 1, None)
    assert await store.read(lambda tx: tx.leases.get("q", "db")) is None


async def test_grants_are_listed_by_name_live_ones_unless_lapsed_are_asked_for(store: Store) -> None:
    """list_page: the project's grants after the cursor by name; lapsed ones only with include_lapsed."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.leases.put(f)
            for f in (
                _fence("c", 1, expire_time=100),
                _fence("a", 2, expire_time=10),
                _fence("b", 3, expire_time=None),
                _fence("d", 1, project="q"),
            )
        ]
    )

    # Execute
    live = await store.read(lambda tx: tx.leases.list_page("p", None, 10, now=50, include_lapsed=False))
    every = await store.read(lambda tx: tx.leases.list_page("p", None, 10, now=50, include_lapsed=True))
    after = await store.read(lambda tx: tx.leases.list_page("p", "a", 10, now=50, include_lapsed=True))

    # Assert
    assert [lease.name for lease in live] == ["c"]
    assert [lease.name for lease in every] == ["a", "c"]
    assert [lease.name for lease in after] == ["c"]
    assert await store.read(lambda tx: (tx.leases.count_live("p", now=50), tx.leases.count_live("p", now=5))) == (1, 2)


async def test_only_grants_live_at_the_mark_are_extended(store: Store) -> None:
    """any_live sees a grant live at the time; extend_live pushes back exactly the grants live at the mark."""
    # Prepare
    await store.write(
        lambda tx: [tx.leases.put(f) for f in (_fence("lapsed", 1, expire_time=40), _fence("live", 1, expire_time=60))]
    )

    # Execute
    live_at_50 = await store.read(lambda tx: tx.leases.any_live(50))
    live_at_60 = await store.read(lambda tx: tx.leases.any_live(60))
    extended = await store.write(lambda tx: tx.leases.extend_live(50, 1_000))

    # Assert
    assert (live_at_50, live_at_60) == (True, False)
    assert [(lease.name, lease.expire_time) for lease in extended] == [("live", 1_060)]
    lapsed = await store.read(lambda tx: tx.leases.get("p", "lapsed"))
    assert lapsed is not None and lapsed.lease is not None and lapsed.lease.expire_time == 40
