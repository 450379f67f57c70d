"""The SQLite store, run on a WAL file and on :memory: with one shared suite."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.projects import Project
from kxm_grpc.errors import NotFound, Reason, Unavailable
from kxm_grpc.store import Durability, StoreError, Tx
from kxm_grpc.store.sqlite import SqliteStore
from kxm_grpc.store.sqlite.migrations import MIGRATIONS


@pytest_asyncio.fixture(params=["file", "memory"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqliteStore]:
    """An open store on a WAL file or in memory."""
    path = str(tmp_path / "hub.db") if request.param == "file" else ":memory:"
    opened = SqliteStore(path, durability=Durability.FULL)
    await opened.start()
    yield opened
    await opened.close()


def _agent(agent_id: str, name: str, *, project: str = "p", online: bool = True, seen: int = 10) -> Agent:
    return Agent(
        id=agent_id,
        project=project,
        name=name,
        purpose="x",
        model="",
        host="",
        connect_time=1,
        last_seen_time=seen,
        online=online,
    )


async def test_write_then_read(store: SqliteStore) -> None:
    """A committed write is visible to the next read."""
    await store.write(lambda tx: tx.projects.put(Project("p", 1, 2), "sha256:abc"))

    project = await store.read(lambda tx: tx.projects.find_by_token_hash("sha256:abc"))

    assert project == Project("p", 1, 2)


async def test_failed_work_leaves_nothing_and_other_work_in_the_batch_commits(store: SqliteStore) -> None:
    """A unit of work that raises is rolled back alone, even when committed together with others."""

    def failing(tx: Tx) -> None:
        tx.agents.put(_agent("agt_bad", "bad"))
        raise NotFound("nope", reason=Reason.AGENT_NOT_FOUND)

    results = await asyncio.gather(
        store.write(lambda tx: tx.agents.put(_agent("agt_1", "one"))),
        store.write(failing),
        store.write(lambda tx: tx.agents.put(_agent("agt_2", "two"))),
        return_exceptions=True,
    )

    assert isinstance(results[1], NotFound)
    ids = [a.id for a in await store.read(lambda tx: tx.agents.list_page("p", None, 10, include_offline=True))]
    assert ids == ["agt_1", "agt_2"]


async def test_concurrent_writes_share_commits(store: SqliteStore) -> None:
    """Writes issued together are committed in fewer transactions than writes (group commit)."""
    await asyncio.gather(*(store.write(lambda tx, i=i: tx.meta.put(f"k{i}", "v")) for i in range(200)))

    assert store.committed_jobs >= 200
    assert store.commits < 200


async def test_notify_wakes_waiters_after_commit(store: SqliteStore) -> None:
    """A topic notified in a transaction wakes its waiters once committed."""
    seen = store.notifier.version("agent:x")
    waiter = asyncio.create_task(store.notifier.wait("agent:x", seen, timeout=5))

    await store.write(lambda tx: tx.notify("agent:x"))

    assert await waiter is True


async def test_a_wake_up_hands_its_hint_to_the_waiters_it_wakes(store: SqliteStore) -> None:
    """wait_hint returns the committed hint; None when the topic changed before the call or on timeout."""
    notifier = store.notifier
    seen = notifier.version("message:m")
    waiter = asyncio.create_task(notifier.wait_hint("message:m", seen, timeout=5))
    await asyncio.sleep(0)

    await store.write(lambda tx: tx.notify("message:m", "the end"))

    assert await waiter == "the end"
    assert await notifier.wait_hint("message:m", seen, timeout=5) is None  # changed already: read the store
    assert await notifier.wait_hint("message:m", seen + 1, timeout=0.01) is None  # timed out
    assert await notifier.wait("message:m", seen + 1, timeout=0.01) is False


async def test_forgetting_a_topic_drops_its_counter_but_never_a_waiter(store: SqliteStore) -> None:
    """forget() removes counters of idle topics; an awaited topic keeps its counter and its waiter."""
    notifier = store.notifier
    notifier.publish([("message:idle", None), ("message:awaited", None)])
    waiter = asyncio.create_task(notifier.wait("message:awaited", 1, timeout=5))
    await asyncio.sleep(0)

    notifier.forget(["message:idle", "message:awaited"])
    notifier.publish([("message:awaited", None)])

    assert notifier.version("message:idle") == 0
    assert await waiter is True
    assert notifier.version("message:awaited") == 2


async def test_unique_names_and_offline_marking(store: SqliteStore) -> None:
    """Names are unique per project (case-insensitively) and start-up marks every agent offline."""
    await store.write(lambda tx: tx.agents.put(_agent("agt_1", "Same")))
    await store.write(lambda tx: tx.agents.put(_agent("agt_2", "same", project="q")))

    with pytest.raises(Exception) as caught:
        await store.write(lambda tx: tx.agents.put(_agent("agt_3", "SAME")))
    changed = await store.write(lambda tx: tx.agents.mark_all_offline())

    assert "database" in str(caught.value).lower() or caught.value.__class__.__name__ == "Unavailable"
    assert changed == 2
    assert await store.read(lambda tx: tx.agents.list_online("p")) == []


async def test_stale_query_finds_only_online_agents_seen_before_the_cutoff(store: SqliteStore) -> None:
    """The stale sweep's query."""
    await store.write(
        lambda tx: [
            tx.agents.put(a)
            for a in (
                _agent("agt_old", "old", seen=5),
                _agent("agt_new", "new", seen=50),
                _agent("agt_off", "off", seen=1, online=False),
            )
        ]
    )

    stale = await store.read(lambda tx: tx.agents.list_online_seen_before(10, 100))

    assert [a.id for a in stale] == ["agt_old"]


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    """A database from a newer hub is refused with a clear message."""
    path = tmp_path / "hub.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    store = SqliteStore(path)

    with pytest.raises(StoreError, match="newer than this hub"):
        await store.start()


async def test_older_schema_is_upgraded(tmp_path: Path) -> None:
    """A database at version 1 is migrated to the latest version at start."""
    path = tmp_path / "hub.db"
    with sqlite3.connect(path) as conn:
        import sqlite_utils

        MIGRATIONS[0](sqlite_utils.Database(conn))
        conn.execute("PRAGMA user_version = 1")
    store = SqliteStore(path)

    await store.start()
    await store.close()

    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


async def test_corrupt_file_is_refused(tmp_path: Path) -> None:
    """A file that is not a database is refused at start."""
    path = tmp_path / "hub.db"
    path.write_bytes(b"this is not a database" * 100)
    store = SqliteStore(path)

    with pytest.raises(StoreError):
        await store.start()


async def test_symlinked_database_is_refused(tmp_path: Path) -> None:
    """The database file must not be a symbolic link."""
    (tmp_path / "real.db").write_bytes(b"")
    (tmp_path / "hub.db").symlink_to(tmp_path / "real.db")
    store = SqliteStore(tmp_path / "hub.db")

    with pytest.raises(StoreError, match="symbolic link"):
        await store.start()


async def test_wal_and_full_sync_are_in_force(tmp_path: Path) -> None:
    """File databases run in WAL mode; full durability means synchronous=FULL on the writer."""
    store = SqliteStore(tmp_path / "hub.db", durability=Durability.FULL)
    await store.start()

    mode = await store.read(lambda tx: tx.meta._conn.execute("PRAGMA journal_mode").fetchone()[0])  # type: ignore[attr-defined]
    sync = await store.write(lambda tx: tx.meta._conn.execute("PRAGMA synchronous").fetchone()[0])  # type: ignore[attr-defined]

    assert (mode, sync) == ("wal", 2)
    await store.close()


async def test_full_database_refuses_writes_keeps_reads_and_recovers(tmp_path: Path) -> None:
    """When the database is full, writes fail with STORAGE_FULL (never hang), reads work, and
    writes succeed again once there is room."""
    from kxm_grpc.errors import ResourceExhausted

    store = SqliteStore(tmp_path / "hub.db", durability=Durability.NORMAL)
    await store.start()
    await store.write(lambda tx: tx.projects.put(Project("p", 1, 1), "sha256:p"))
    pages = await store.write(lambda tx: tx.meta._conn.execute("PRAGMA page_count").fetchone()[0])  # type: ignore[attr-defined]
    await store.write(lambda tx: tx.meta._conn.execute(f"PRAGMA max_page_count = {pages}"))  # type: ignore[attr-defined]

    def big(tx: Tx) -> None:
        tx.meta.put("big", "x" * 200_000)

    results = await asyncio.wait_for(
        asyncio.gather(store.write(big), store.write(lambda tx: tx.meta.put("small", "y")), return_exceptions=True),
        timeout=10,
    )
    readable = await store.read(lambda tx: tx.projects.get("p"))
    await store.write(lambda tx: tx.meta._conn.execute("PRAGMA max_page_count = 1073741823"))  # type: ignore[attr-defined]
    await store.write(big)

    assert isinstance(results[0], ResourceExhausted)
    assert results[0].reason is Reason.STORAGE_FULL
    assert readable == Project("p", 1, 1)
    assert await store.read(lambda tx: tx.meta.get("big")) == "x" * 200_000
    await store.close()


def _lock_file(path: Path) -> tuple[str, int]:
    """The text and permission bits of the lock file beside ``path``."""
    lock = Path(f"{path}.lock")
    return lock.read_text().strip(), stat.S_IMODE(lock.stat().st_mode)


async def test_a_second_store_on_the_same_file_is_refused_until_the_first_closes(tmp_path: Path) -> None:
    """One hub per database: a second store (even in the same process) cannot start while the
    first is open, and is told the file and the holder's pid; once the first closes it can."""
    path = tmp_path / "hub.db"
    first, second = SqliteStore(path), SqliteStore(path)
    await first.start()
    await first.write(lambda tx: tx.meta.put("owner", "first"))

    with pytest.raises(StoreError) as caught:
        await second.start()
    holder, mode = _lock_file(path)
    owner = await first.read(lambda tx: tx.meta.get("owner"))
    await first.close()
    await second.start()
    await second.write(lambda tx: tx.meta.put("owner", "second"))

    assert str(path) in str(caught.value)
    assert f"pid {os.getpid()}" in str(caught.value)
    assert "in use by another hub" in str(caught.value)
    assert holder == str(os.getpid())
    assert mode == 0o600
    assert owner == "first"  # the refused store wrote nothing (no migration, no marking)
    assert await second.read(lambda tx: tx.meta.get("owner")) == "second"
    await second.close()


async def test_memory_stores_take_no_lock() -> None:
    """Every :memory: store is a database of its own: two start side by side."""
    first, second = SqliteStore(":memory:"), SqliteStore(":memory:")
    await first.start()
    await second.start()

    await second.write(lambda tx: tx.meta.put("k", "v"))

    assert await first.read(lambda tx: tx.meta.get("k")) is None
    await first.close()
    await second.close()


async def test_health_follows_failing_writes_and_recovers_by_probe(tmp_path: Path) -> None:
    """A write the database refuses (full) makes the store unhealthy and tells its listeners; the
    probe keeps it unhealthy while there is no room, and reports it healthy once there is, with
    no other write. Errors of the work itself (a rule, a constraint) never change health."""
    from kxm_grpc.errors import ResourceExhausted

    store = SqliteStore(tmp_path / "hub.db", durability=Durability.NORMAL, probe_interval=0.05)
    await store.start()
    changes: list[bool] = []
    store.add_health_listener(changes.append)
    await store.write(lambda tx: tx.agents.put(_agent("agt_1", "same")))

    def refused(tx: Tx) -> None:
        raise NotFound("nope", reason=Reason.AGENT_NOT_FOUND)

    with pytest.raises(NotFound):
        await store.write(refused)
    with pytest.raises(Unavailable):  # a UNIQUE violation: the work's fault, not the database's
        await store.write(lambda tx: tx.agents.put(_agent("agt_2", "SAME")))
    healthy_after_caller_errors = store.healthy

    pages = await store.write(lambda tx: tx.meta._conn.execute("PRAGMA page_count").fetchone()[0])  # type: ignore[attr-defined]
    await store.write(lambda tx: tx.meta._conn.execute(f"PRAGMA max_page_count = {pages}"))  # type: ignore[attr-defined]
    with pytest.raises(ResourceExhausted):
        await store.write(lambda tx: tx.meta.put("big", "x" * 200_000))
    unhealthy = store.healthy
    await asyncio.sleep(0.3)  # several probes, all refused: no room
    still_unhealthy = store.healthy
    await store.write(lambda tx: tx.meta._conn.execute("PRAGMA max_page_count = 1073741823"))  # type: ignore[attr-defined]
    for _ in range(100):
        if store.healthy:
            break
        await asyncio.sleep(0.05)

    assert healthy_after_caller_errors is True
    assert (unhealthy, still_unhealthy, store.healthy) == (False, False, True)
    assert changes == [False, True]
    await store.write(lambda tx: tx.meta.put("big", "x" * 200_000))
    await store.close()


async def test_version_3_agent_names_are_rekeyed_with_javascript_semantics(tmp_path: Path) -> None:
    """Migration 4 recomputes name keys as JavaScript's trim + toLowerCase (``ß`` no longer folds to
    ``ss``), keeps a key that would clash, and frees names for retired agents."""
    import sqlite_utils

    path = tmp_path / "hub.db"
    with sqlite3.connect(path) as conn:
        db = sqlite_utils.Database(conn)
        for migration in MIGRATIONS[:3]:
            migration(db)
        conn.execute("PRAGMA user_version = 3")
        for agent_id, name, key in [
            ("agt_street", "Straße", "strasse"),
            ("agt_bob", "bob", "bob"),
            ("agt_bom", "\ufeffbob", "\ufeffbob"),
        ]:
            conn.execute(
                "INSERT INTO agents (id, project, name, name_key, purpose, model, host, key_active, online, "
                "connect_time, last_seen_time) VALUES (?, 'p', ?, ?, '', '', '', 1, 0, 1, 1)",
                (agent_id, name, key),
            )
    store = SqliteStore(path)
    await store.start()

    street = await store.read(lambda tx: tx.agents.find_by_name("p", "straße"))
    folded = await store.read(lambda tx: tx.agents.find_by_name("p", "strasse"))
    bob = await store.read(lambda tx: tx.agents.find_by_name("p", "bob"))
    await store.close()

    assert street is not None and street.id == "agt_street"
    assert folded is None
    assert bob is not None and bob.id == "agt_bob"
    with sqlite3.connect(path) as conn:
        keys = dict(conn.execute("SELECT id, name_key FROM agents").fetchall())
    assert keys == {"agt_street": "straße", "agt_bob": "bob", "agt_bom": "\ufeffbob"}
