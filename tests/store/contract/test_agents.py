"""Contract: agents, their key hashes and names."""

from __future__ import annotations

import dataclasses

import pytest

from kxm_grpc.errors import HubError
from kxm_grpc.store import Store
from tests.store.contract.conftest import agent


async def test_unique_names_and_offline_marking(store: Store) -> None:
    """Names are unique per project (by name key) and start-up marks every agent offline."""
    # Prepare
    await store.write(lambda tx: tx.agents.put(agent("agt_1", "Same")))
    await store.write(lambda tx: tx.agents.put(agent("agt_2", "same", project="q")))

    # Execute
    with pytest.raises(Exception) as caught:
        await store.write(lambda tx: tx.agents.put(agent("agt_3", "SAME")))
    changed = await store.write(lambda tx: tx.agents.mark_all_offline())

    # Assert
    assert isinstance(caught.value, HubError)  # the store's own error, never the database driver's
    assert "database" in str(caught.value).lower() or caught.value.__class__.__name__ == "Unavailable"
    assert changed == 2
    assert await store.read(lambda tx: tx.agents.list_online("p")) == []


async def test_an_agent_reads_back_as_stored_and_put_updates_it(store: Store) -> None:
    """get returns every field as put; a second put updates presence and details, by id or by name."""
    # Prepare
    stored = agent("agt_1", "Alice")
    await store.write(lambda tx: tx.agents.put(stored))
    moved = dataclasses.replace(stored, host="h2", online=False, last_seen_time=50)

    # Execute
    first = await store.read(lambda tx: tx.agents.get("agt_1"))
    await store.write(lambda tx: tx.agents.put(moved))

    # Assert
    assert first == stored
    assert await store.read(lambda tx: tx.agents.get("agt_1")) == moved
    assert await store.read(lambda tx: tx.agents.find_by_name("p", "alice")) == moved
    assert await store.read(lambda tx: tx.agents.find_by_name("q", "alice")) is None
    assert await store.read(lambda tx: tx.agents.get("agt_none")) is None


async def test_a_key_is_issued_kept_across_puts_and_revoked_for_good(store: Store) -> None:
    """set_key_hash makes a key active; put keeps it; revoke_key leaves the hash, inactive."""
    # Prepare
    await store.write(lambda tx: tx.agents.put(agent("agt_1", "a")))
    before = await store.read(lambda tx: tx.agents.get_key("agt_1"))

    # Execute
    await store.write(lambda tx: tx.agents.set_key_hash("agt_1", "sha256:k"))
    await store.write(lambda tx: tx.agents.put(agent("agt_1", "a", seen=99)))
    issued = await store.read(lambda tx: tx.agents.get_key("agt_1"))
    await store.write(lambda tx: tx.agents.revoke_key("agt_1"))

    # Assert
    assert before is None  # no key issued yet
    assert issued == ("sha256:k", True)
    assert await store.read(lambda tx: tx.agents.get_key("agt_1")) == ("sha256:k", False)
    assert await store.read(lambda tx: tx.agents.get_key("agt_none")) is None


async def test_a_retired_agent_frees_its_name_and_leaves_the_lists(store: Store) -> None:
    """retire takes the agent offline, kills its key and frees its name for a fresh agent; get still finds it."""
    # Prepare
    await store.write(lambda tx: tx.agents.put(agent("agt_old", "bob")))
    await store.write(lambda tx: tx.agents.set_key_hash("agt_old", "sha256:old"))

    # Execute
    await store.write(lambda tx: tx.agents.retire("agt_old", 5))
    await store.write(lambda tx: tx.agents.put(agent("agt_new", "bob")))

    # Assert
    old = await store.read(lambda tx: tx.agents.get("agt_old"))
    assert old is not None and old.online is False
    assert await store.read(lambda tx: tx.agents.get_key("agt_old")) == ("sha256:old", False)
    found = await store.read(lambda tx: tx.agents.find_by_name("p", "bob"))
    assert found is not None and found.id == "agt_new"
    listed = await store.read(lambda tx: tx.agents.list_page("p", None, 10, include_offline=True))
    assert [a.id for a in listed] == ["agt_new"]


async def test_agents_are_listed_by_id_online_ones_unless_asked(store: Store) -> None:
    """list_page orders by id after the cursor, only online agents unless include_offline."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.agents.put(a)
            for a in (
                agent("agt_c", "c"),
                agent("agt_a", "a", online=False),
                agent("agt_b", "b"),
                agent("agt_x", "x", project="q"),
            )
        ]
    )

    # Execute
    online = await store.read(lambda tx: tx.agents.list_page("p", None, 10, include_offline=False))
    everyone = await store.read(lambda tx: tx.agents.list_page("p", None, 10, include_offline=True))
    after = await store.read(lambda tx: tx.agents.list_page("p", "agt_a", 1, include_offline=True))

    # Assert
    assert [a.id for a in online] == ["agt_b", "agt_c"]
    assert [a.id for a in everyone] == ["agt_a", "agt_b", "agt_c"]
    assert [a.id for a in after] == ["agt_b"]
    assert sorted(a.id for a in await store.read(lambda tx: tx.agents.list_online("p"))) == ["agt_b", "agt_c"]


async def test_stale_query_finds_only_online_agents_seen_before_the_cutoff(store: Store) -> None:
    """The stale sweep's query: online agents of any project last seen before the cutoff, oldest first."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.agents.put(a)
            for a in (
                agent("agt_old", "old", seen=5),
                agent("agt_older", "older", project="q", seen=3),
                agent("agt_new", "new", seen=50),
                agent("agt_off", "off", seen=1, online=False),
            )
        ]
    )

    # Execute
    stale = await store.read(lambda tx: tx.agents.list_online_seen_before(10, 100))

    # Assert
    assert [a.id for a in stale] == ["agt_older", "agt_old"]


async def test_agents_by_presence_come_online_first_then_by_name_and_are_counted(store: Store) -> None:
    """list_by_presence: online agents seen after the mark first, then the others (offline, or online
    but not seen since), each by name then id, at most ``limit``; count: every agent not retired."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.agents.put(a)
            for a in (
                agent("agt_1", "zoe", seen=50),
                agent("agt_2", "amy", seen=10),  # online flag, but not seen since the mark
                agent("agt_3", "bob", online=False, seen=60),
                agent("agt_4", "cat", seen=60),
                agent("agt_5", "ann", project="q"),
                agent("agt_6", "dan", seen=70),
            )
        ]
    )
    await store.write(lambda tx: tx.agents.retire("agt_6", 80))

    # Execute
    ordered = await store.read(lambda tx: tx.agents.list_by_presence("p", 20, 10))
    capped = await store.read(lambda tx: tx.agents.list_by_presence("p", 20, 2))
    counts = await store.read(lambda tx: (tx.agents.count("p"), tx.agents.count("q"), tx.agents.count("none")))

    # Assert
    assert [a.name for a in ordered] == ["cat", "zoe", "amy", "bob"]
    assert [a.name for a in capped] == ["cat", "zoe"]
    assert counts == (4, 1, 0)
