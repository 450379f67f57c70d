"""Write health of the SQLite store: how SQLite errors are classified, and what the probe checks."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.errors import DataLoss, HubError, Reason, ResourceExhausted, Unavailable
from kxm_grpc.store import Durability, Tx
from kxm_grpc.store.sqlite import SqliteStore
from kxm_grpc.store.sqlite.engine import PROBE_HEADROOM, disk_free, is_storage_failure, sqlite_code, storage_error

GIB = 1024**3


def _raised(action: Callable[[], object]) -> sqlite3.Error:
    """The SQLite error ``action`` raises."""
    with pytest.raises(sqlite3.Error) as caught:
        action()
    return caught.value


def _busy(tmp_path: Path) -> sqlite3.Error:
    """SQLITE_BUSY for real: another connection holds the write lock; no busy timeout."""
    path = tmp_path / "busy.db"
    holder = sqlite3.connect(path, isolation_level=None)
    waiter = sqlite3.connect(path, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        return _raised(lambda: waiter.execute("BEGIN IMMEDIATE"))
    finally:
        holder.close()
        waiter.close()


def _locked(tmp_path: Path) -> sqlite3.Error:
    """SQLITE_LOCKED for real: dropping a table that a pending statement of the connection reads."""
    conn = sqlite3.connect(tmp_path / "locked.db", isolation_level=None)
    conn.execute("CREATE TABLE t (v)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(3)])
    reading = conn.execute("SELECT v FROM t")
    reading.fetchone()
    try:
        return _raised(lambda: conn.execute("DROP TABLE t"))
    finally:
        reading.close()
        conn.close()


def _full(tmp_path: Path) -> sqlite3.Error:
    """SQLITE_FULL for real: ``max_page_count`` at the current size."""
    conn = sqlite3.connect(tmp_path / "full.db", isolation_level=None)
    conn.execute("CREATE TABLE t (v)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    try:
        return _raised(lambda: conn.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,)))
    finally:
        conn.close()


def _ioerr(tmp_path: Path) -> sqlite3.Error:
    """SQLITE_IOERR_WRITE as SQLite raises it (a real one needs a failing disk): extended code 778."""
    exc = sqlite3.OperationalError("disk I/O error")
    exc.sqlite_errorcode = sqlite3.SQLITE_IOERR_WRITE  # type: ignore[attr-defined]
    exc.sqlite_errorname = "SQLITE_IOERR_WRITE"  # type: ignore[attr-defined]
    return exc


def _constraint(tmp_path: Path) -> sqlite3.Error:
    """SQLITE_CONSTRAINT_UNIQUE for real, on a column whose name says "full"."""
    conn = sqlite3.connect(tmp_path / "constraint.db", isolation_level=None)
    conn.execute("CREATE TABLE t (full TEXT UNIQUE)")
    conn.execute("INSERT INTO t VALUES ('a')")
    try:
        return _raised(lambda: conn.execute("INSERT INTO t VALUES ('a')"))
    finally:
        conn.close()


BUSY = (Unavailable, Reason.STORAGE_UNAVAILABLE, 0.5)
FULL = (ResourceExhausted, Reason.STORAGE_FULL, None)
FAILED = (Unavailable, Reason.STORAGE_UNAVAILABLE, 1.0)


@pytest.mark.parametrize(
    ("make", "name", "code", "failure", "mapped"),
    [
        (_busy, "SQLITE_BUSY", sqlite3.SQLITE_BUSY, True, BUSY),
        (_locked, "SQLITE_LOCKED", sqlite3.SQLITE_LOCKED, True, BUSY),
        (_full, "SQLITE_FULL", sqlite3.SQLITE_FULL, True, FULL),
        (_ioerr, "SQLITE_IOERR_WRITE", sqlite3.SQLITE_IOERR, True, FAILED),
        (_constraint, "SQLITE_CONSTRAINT_UNIQUE", sqlite3.SQLITE_CONSTRAINT, False, FAILED),
    ],
    ids=["busy", "locked", "full", "ioerr", "constraint"],
)
def test_both_classifiers_decide_by_the_sqlite_result_code(
    tmp_path: Path,
    make: Callable[[Path], sqlite3.Error],
    name: str,
    code: int,
    failure: bool,
    mapped: tuple[type[HubError], Reason, float | None],
) -> None:
    """storage_error and is_storage_failure read the same primary code (the extended one's low
    byte), so they agree: a UNIQUE violation on a column named "full" is neither STORAGE_FULL nor
    a storage failure, whatever its message says."""
    exc = make(tmp_path)

    error = storage_error(exc)

    assert exc.sqlite_errorname == name  # type: ignore[attr-defined]
    assert sqlite_code(exc) == code
    assert is_storage_failure(exc) is failure
    assert (type(error), error.reason, error.retry_after) == mapped


@pytest.mark.parametrize(
    ("exc", "code", "failure", "mapped"),
    [
        (sqlite3.OperationalError("database is locked"), sqlite3.SQLITE_BUSY, True, BUSY),
        (sqlite3.OperationalError("database table is locked"), sqlite3.SQLITE_LOCKED, True, BUSY),
        (sqlite3.OperationalError("database or disk is full"), sqlite3.SQLITE_FULL, True, FULL),
        (sqlite3.OperationalError("something odd"), None, True, FAILED),
        (sqlite3.ProgrammingError("Cannot operate on a closed database."), None, False, FAILED),
    ],
    ids=["busy", "locked", "full", "unknown-operational", "programming"],
)
def test_an_error_without_a_code_falls_back_to_its_message(
    exc: sqlite3.Error, code: int | None, failure: bool, mapped: tuple[type[HubError], Reason, float | None]
) -> None:
    """Only an error that carries no result code is classified by its text."""
    error = storage_error(exc)

    assert sqlite_code(exc) == code
    assert is_storage_failure(exc) is failure
    assert (type(error), error.reason, error.retry_after) == mapped


def test_the_code_wins_over_the_message_and_non_sqlite_errors_map_to_unavailable() -> None:
    """A code says what the error is, whatever the text; an exception that is not SQLite's (a bug
    of the engine) is a generic retryable UNAVAILABLE and never a storage failure."""
    busy = sqlite3.OperationalError("the disk is full, says the text")
    busy.sqlite_errorcode = sqlite3.SQLITE_BUSY  # type: ignore[attr-defined]
    bug = RuntimeError("bug")

    busy_error, bug_error = storage_error(busy), storage_error(bug)

    assert (type(busy_error), busy_error.retry_after) == (Unavailable, 0.5)
    assert (type(bug_error), bug_error.reason, bug_error.retry_after) == FAILED
    assert is_storage_failure(bug) is False


def test_a_stored_text_that_is_not_utf8_is_data_loss_and_no_storage_failure() -> None:
    """A flipped byte that makes a stored text invalid UTF-8 is damaged data (DATA_LOSS naming the
    column, never the text), not the database refusing writes: health is not turned, and no
    "retry" is suggested (it was UNAVAILABLE before, and turned health NOT_SERVING on a write)."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE messages (content TEXT)")
    conn.execute("INSERT INTO messages VALUES (CAST(X'73656372e974' AS TEXT))")  # 'secr\xe9t'
    with pytest.raises(sqlite3.OperationalError) as caught:
        conn.execute("SELECT content FROM messages").fetchone()

    error = storage_error(caught.value)

    assert (type(error), error.reason, error.metadata) == (DataLoss, Reason.STORAGE_CORRUPTED, {"column": "content"})
    assert error.retry_after is None and "secr" not in error.message
    assert is_storage_failure(caught.value) is False


async def _until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until ``condition()`` holds (or the timeout)."""
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)


async def _until_healthy(store: SqliteStore) -> bool:
    """Wait until the store is healthy (or 5 s); return ``healthy``."""
    await _until(lambda: store.healthy)
    return store.healthy


def _pragma(sql: str) -> Callable[[Tx], Any]:
    """A unit of work running one PRAGMA on the writer connection."""
    return lambda tx: tx.meta._conn.execute(sql).fetchone()  # type: ignore[attr-defined]


async def _fill_once(store: SqliteStore) -> None:
    """Make one write fail with SQLITE_FULL for real (max_page_count at the current size), then lift
    the limit again: the store is unhealthy, and the database itself has room from then on."""
    (pages,) = await store.write(_pragma("PRAGMA page_count"))
    await store.write(_pragma(f"PRAGMA max_page_count = {pages}"))
    with pytest.raises(ResourceExhausted):
        await store.write(lambda tx: tx.meta.put("big", "x" * 200_000))
    await store.write(_pragma("PRAGMA max_page_count = 1073741823"))


async def test_the_probe_keeps_health_down_while_the_filesystem_is_nearly_full(tmp_path: Path) -> None:
    """The reviewer's 3 MB tmpfs, faked: with 24 KiB free, small writes commit (in WAL mode they
    fit in pages already there) but every probe refuses, so health stays down instead of flapping;
    once the filesystem has room again the next probe restores it."""
    free = [24 * 1024]
    asked: list[str] = []

    def free_space(directory: str) -> int:
        asked.append(directory)
        return free[0]

    store = SqliteStore(tmp_path / "hub.db", durability=Durability.NORMAL, probe_interval=0.02, free_space=free_space)
    await store.start()
    changes: list[bool] = []
    store.add_health_listener(changes.append)
    try:
        await _fill_once(store)
        for i in range(5):  # tiny commits succeed all along
            await store.write(lambda tx, i=i: tx.meta.put(f"small{i}", "y"))
        await _until(lambda: len(asked) >= 5)  # several probes, each refused
        probes_while_full = len(asked)
        still_unhealthy = store.healthy
        free[0] = 10 * GIB
        recovered = await _until_healthy(store)
        await store.write(lambda tx: tx.meta.put("big", "x" * 200_000))
    finally:
        await store.close()

    assert probes_while_full >= 5
    assert set(asked) == {str(tmp_path)}
    assert (still_unhealthy, recovered) == (False, True)
    assert changes == [False, True]


async def test_the_probe_wants_the_headroom_on_top_of_the_wal(tmp_path: Path) -> None:
    """Free space one byte short of PROBE_HEADROOM plus the WAL's size keeps health down; exactly
    that much brings it back."""
    wal = Path(f"{tmp_path / 'hub.db'}-wal")
    short = [1]
    wal_sizes: list[int] = []

    def free_space(directory: str) -> int:  # runs on the writer thread, inside the probe
        wal_sizes.append(wal.stat().st_size)
        return PROBE_HEADROOM + wal_sizes[-1] - short[0]

    store = SqliteStore(tmp_path / "hub.db", durability=Durability.NORMAL, probe_interval=0.02, free_space=free_space)
    await store.start()
    try:
        await _fill_once(store)
        await _until(lambda: len(wal_sizes) >= 5)  # several probes, each one byte short
        one_byte_short = store.healthy
        wal_bytes = wal_sizes[-1]
        short[0] = 0
        recovered = await _until_healthy(store)
    finally:
        await store.close()

    assert wal_bytes > 0  # so the WAL term is what the probe fell one byte short of
    assert (one_byte_short, recovered) == (False, True)


async def test_a_memory_store_probes_without_a_filesystem() -> None:
    """:memory: has no file: its probe checks max_page_count and commits, never free space."""

    def free_space(directory: str) -> int:
        raise AssertionError("a :memory: store has no filesystem to ask")

    store = SqliteStore(":memory:", probe_interval=0.02, free_space=free_space)
    await store.start()
    try:
        await _fill_once(store)
        recovered = await _until_healthy(store)
    finally:
        await store.close()

    assert recovered is True


async def test_locked_past_the_busy_timeout_is_unavailable_until_the_lock_goes(tmp_path: Path) -> None:
    """Another process holding the write lock: a write fails at BEGIN with UNAVAILABLE (retry in
    0.5 s), health turns down, probes fail the same way while the lock is held, reads keep
    working, and the first probe after it is released restores health."""
    path = tmp_path / "hub.db"
    store = SqliteStore(path, durability=Durability.NORMAL, busy_timeout=0.02, probe_interval=0.02)
    await store.start()
    await store.write(lambda tx: tx.meta.put("k", "v"))
    changes: list[bool] = []
    store.add_health_listener(changes.append)
    intruder = sqlite3.connect(path, isolation_level=None)
    try:
        intruder.execute("BEGIN IMMEDIATE")
        with pytest.raises(Unavailable) as caught:
            await store.write(lambda tx: tx.meta.put("k", "w"))
        await asyncio.sleep(0.2)
        still_unhealthy = store.healthy
        readable = await store.read(lambda tx: tx.meta.get("k"))
        intruder.execute("ROLLBACK")
        recovered = await _until_healthy(store)
        await store.write(lambda tx: tx.meta.put("k", "w"))
    finally:
        intruder.close()
        await store.close()

    assert (caught.value.reason, caught.value.retry_after) == (Reason.STORAGE_UNAVAILABLE, 0.5)
    assert (still_unhealthy, readable, recovered) == (False, "v", True)
    assert changes == [False, True]


def test_disk_free_reads_statvfs(tmp_path: Path) -> None:
    """The default free_space is statvfs's f_bavail * f_frsize of the directory."""
    st = os.statvfs(tmp_path)

    assert abs(disk_free(str(tmp_path)) - st.f_bavail * st.f_frsize) <= 64 * 1024 * 1024
