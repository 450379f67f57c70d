"""What is SQLite's own in the SQLite store: group commit, schema and migrations, WAL, locks, full disks.

The store contract every adapter keeps (units of work, each area's repository) is tested in
``tests/store/contract/``, on a SQLite file and on ``:memory:``.
"""

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
from kxm_grpc.store import Durability, LogState, StoreError, Timer, Tx
from kxm_grpc.store.sqlite import SqliteStore
from kxm_grpc.store.sqlite.engine import WAL_CHECK_INTERVAL, WAL_LIMIT
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


async def test_concurrent_writes_share_commits(store: SqliteStore) -> None:
    """Writes issued together are committed in fewer transactions than writes (group commit)."""
    await asyncio.gather(*(store.write(lambda tx, i=i: tx.meta.put(f"k{i}", "v")) for i in range(200)))

    assert store.committed_jobs >= 200
    assert store.commits < 200


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


async def test_a_database_with_a_zeroed_page_is_refused_as_failing_its_integrity_check(tmp_path: Path) -> None:
    """A zeroed b-tree page makes quick_check itself raise (malformed): the refusal still says the
    integrity check failed and to restore a backup (it said only "cannot open database" before)."""
    path = tmp_path / "hub.db"
    store = SqliteStore(path)
    await store.start()
    await store.write(lambda tx: [tx.meta.put(f"k{i}", "x" * 500) for i in range(200)])  # pages beyond the root
    await store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'meta'").fetchone()[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * page_size : root * page_size] = bytes(page_size)
    path.write_bytes(bytes(data))

    with pytest.raises(StoreError, match=r"failed its integrity check .*restore a backup"):
        await SqliteStore(path).start()


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


def _size(path: Path) -> int:
    return path.stat().st_size


async def test_a_wal_grown_behind_a_long_reader_shrinks_once_it_ends_even_on_an_idle_hub(tmp_path: Path) -> None:
    """Checkpoint starvation: while another connection holds a read snapshot the WAL grows past
    WAL_LIMIT (nothing can be checkpointed behind it) and the forced checkpoint gives up at once
    (writes are not held up by it); once the reader ends, the WAL file is truncated within a couple
    of WAL_CHECK_INTERVALs with no write needed (before, it kept its largest size for good)."""
    path = tmp_path / "hub.db"
    store = SqliteStore(path, durability=Durability.NORMAL)
    await store.start()
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM meta").fetchone()
    wal = Path(f"{path}-wal")
    for batch in range(6):  # about 1.6 MiB of pages each, past WAL_LIMIT in all
        await store.write(lambda tx, b=batch: [tx.meta.put(f"k{b}.{i}", "x" * 4000) for i in range(400)])
    await asyncio.sleep(WAL_CHECK_INTERVAL * 1.5)  # a forced checkpoint was tried behind the reader
    grown, blocked = _size(wal), store.wal_checkpoints_blocked
    written = await asyncio.wait_for(store.write(lambda tx: tx.meta.put("during", "y")), 1.0)

    reader.execute("COMMIT")
    reader.close()
    for _ in range(int(4 * WAL_CHECK_INTERVAL / 0.05)):
        if _size(wal) <= WAL_LIMIT and store.wal_checkpoints >= 1:  # the count follows the truncation
            break
        await asyncio.sleep(0.05)

    assert grown > WAL_LIMIT and blocked >= 1 and written is None
    assert _size(wal) <= WAL_LIMIT
    assert store.wal_checkpoints >= 1
    assert await store.read(lambda tx: tx.meta.get("k5.399")) == "x" * 4000
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


async def test_a_write_waits_for_a_foreign_lock_at_most_the_busy_timeout_from_when_it_was_queued(
    tmp_path: Path,
) -> None:
    """While another process holds the write lock, each write is refused (busy, UNAVAILABLE) once it
    has waited the busy timeout since it was queued: not more because batches before it waited
    (before, a write queued behind a waiting batch, or a waiting health probe, waited for it and
    then a whole timeout of its own: 1.4 s and 1.7 s here), and never less (a refusal sooner would be a BUSY nothing
    waited for). Once the lock is released, writes go through."""
    # Probes every 50 ms: one waiting a whole busy timeout would hold up the writes queued behind it.
    store = SqliteStore(tmp_path / "hub.db", durability=Durability.NORMAL, busy_timeout=1.0, probe_interval=0.05)
    await store.start()
    foreign = sqlite3.connect(tmp_path / "hub.db", isolation_level=None)
    foreign.execute("BEGIN IMMEDIATE")

    async def timed_write(delay: float) -> tuple[float, BaseException | None]:
        await asyncio.sleep(delay)
        began = asyncio.get_running_loop().time()
        try:
            await store.write(lambda tx: tx.meta.put(f"k{delay}", "v"))
        except Unavailable as error:
            return asyncio.get_running_loop().time() - began, error
        return asyncio.get_running_loop().time() - began, None

    waits = await asyncio.gather(*(timed_write(delay) for delay in (0.0, 0.3, 0.6)))
    foreign.execute("ROLLBACK")
    foreign.close()
    after = await asyncio.wait_for(store.write(lambda tx: tx.meta.put("after", "v")), 2.0)

    assert all(isinstance(error, Unavailable) for _, error in waits)
    assert min(wait for wait, _ in waits) >= 0.95
    assert max(wait for wait, _ in waits) < 1.3
    assert after is None
    await store.close()


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
    """Migration 4 recomputes every name key as JavaScript's trim + toLowerCase (``ß`` no longer folds
    to ``ss``) whatever the order of the rows; of two names JavaScript treats as one, the earlier
    agent keeps it."""
    import sqlite_utils

    path = tmp_path / "hub.db"
    with sqlite3.connect(path) as conn:
        db = sqlite_utils.Database(conn)
        for migration in MIGRATIONS[:3]:
            migration(db)
        conn.execute("PRAGMA user_version = 3")
        for connected, (agent_id, name, key) in enumerate(
            [
                ("agt_bomstreet", "strasse\ufeff", "strasse\ufeff"),  # its new key is Straße's old one
                ("agt_street", "Straße", "strasse"),
                ("agt_bob", "bob", "bob"),
                ("agt_bom", "\ufeffbob", "\ufeffbob"),  # the same name as bob for JavaScript
            ]
        ):
            conn.execute(
                "INSERT INTO agents (id, project, name, name_key, purpose, model, host, key_active, online, "
                "connect_time, last_seen_time) VALUES (?, 'p', ?, ?, '', '', '', 1, 0, ?, 1)",
                (agent_id, name, key, connected),
            )
    store = SqliteStore(path)
    await store.start()

    street = await store.read(lambda tx: tx.agents.find_by_name("p", "straße"))
    unfolded = await store.read(lambda tx: tx.agents.find_by_name("p", "strasse"))
    bob = await store.read(lambda tx: tx.agents.find_by_name("p", "bob"))
    await store.close()

    assert street is not None and street.id == "agt_street"
    assert unfolded is not None and unfolded.id == "agt_bomstreet"
    assert bob is not None and bob.id == "agt_bob"
    with sqlite3.connect(path) as conn:
        keys = dict(conn.execute("SELECT id, name_key FROM agents").fetchall())
    assert keys == {
        "agt_bomstreet": "strasse",
        "agt_street": "straße",
        "agt_bob": "bob",
        "agt_bom": "bob\x00agt_bom",  # the later of two equal names keeps no name
    }


async def test_version_4_deadlines_become_timers_and_agent_logs_become_the_inbox_log(tmp_path: Path) -> None:
    """Migrations 5 and 6 on a version-4 database: every open message gets its expiry timer and every
    grant live at the alive mark its lapse timer; the agent logs move into log_heads (log 'inbox') and
    inbox_entries with their numbers, so the log reads as before and numbering goes on."""
    import sqlite_utils

    # Prepare
    path = tmp_path / "hub.db"
    with sqlite3.connect(path) as conn:
        db = sqlite_utils.Database(conn)
        for migration in MIGRATIONS[:4]:
            migration(db)
        conn.execute("PRAGMA user_version = 4")
        columns = (
            "id, project, from_agent_id, from_agent_name, to_agent_id, to_agent_name, content, delivery, hops, "
            "max_hops, correlation_id, reply_to, allow_offline, seq, create_time, expire_time, state, error"
        )
        for message_id, seq, state, expire_time in (
            ("msg_q", 2, "queued", 100),
            ("msg_d", 3, "delivered", 200),
            ("msg_r", 1, "replied", 300),
        ):
            conn.execute(
                f"INSERT INTO messages ({columns}) VALUES "
                "(?, 'p', 'agt_a', 'a', 'agt_b', 'b', 'x', 'follow_up', 0, 5, '', '', 0, ?, 1, ?, ?, '')",
                (message_id, seq, expire_time, state),
            )
        for name, holder, expire_time in (("live", "agt_a", 500), ("lapsed", "agt_a", 50), ("free", None, None)):
            conn.execute(
                "INSERT INTO leases (project, name, fencing_token, holder_agent_id, holder_agent_name, "
                "acquire_time, expire_time) VALUES ('p', ?, 1, ?, ?, 1, ?)",
                (name, holder, holder and "a", expire_time),
            )
        conn.execute("INSERT INTO meta (key, value) VALUES ('leases.alive_time', '100')")
        conn.execute("INSERT INTO agent_logs (agent_id, head_seq, purged_seq) VALUES ('agt_b', 3, 1)")
        for seq, message_id in ((2, "msg_q"), (3, "msg_d")):
            conn.execute(
                "INSERT INTO agent_events (agent_id, seq, kind, event_time, message_id) "
                "VALUES ('agt_b', ?, 'message', 5, ?)",
                (seq, message_id),
            )
    store = SqliteStore(path)

    # Execute
    await store.start()
    timers = await store.read(lambda tx: tx.timers.list_due(10_000, ["message_expiry", "lease_lapse"], 10))
    state = await store.read(lambda tx: tx.inbox.state("agt_b"))
    events = await store.read(lambda tx: tx.inbox.read_after("agt_b", 0, 10))
    next_seq = await store.write(lambda tx: tx.inbox.next_seq("agt_b"))
    await store.close()

    # Assert
    assert timers == [
        Timer("message_expiry", "msg_q", 100),
        Timer("message_expiry", "msg_d", 200),
        Timer("lease_lapse", "p/live", 500),
    ]
    assert state == LogState(3, 2, 1)
    assert [(e.seq, e.message.id if e.message else None) for e in events] == [(2, "msg_q"), (3, "msg_d")]
    assert next_seq == 4
    with sqlite3.connect(path) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    assert {"timers", "timers_due", "log_heads", "inbox_entries", "inbox_entries_message"} <= tables
    assert not {"agent_logs", "agent_events", "messages_open_deadline"} & tables
