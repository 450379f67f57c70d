"""The SQLite store: a single writer thread with group commit, and WAL snapshot reads.

Writes are queued to one thread that owns the write connection. It takes every job waiting,
opens one ``BEGIN IMMEDIATE`` transaction, runs each job inside its own SAVEPOINT (so one job's
error undoes only that job), and commits once: concurrent requests share one fsync in ``full``
durability instead of paying one each. Futures resolve only after COMMIT returns, so an
acknowledged write is durable at the configured level.

Reads of a file database run on the event loop's thread on a separate read-only connection:
WAL lets them proceed while the writer commits. An in-memory database has a single connection,
so its reads are queued to the writer thread too.

One hub per database file: ``start`` takes an exclusive ``flock`` on ``<db>.lock`` (holding the
owner's pid) before any write, ``close`` releases it, and the kernel releases it when the process
dies, so a ``kill -9`` never leaves a stale lock.

Write health: a write the database itself refuses (full, read-only, an I/O error, locked past the
busy timeout) sets ``healthy`` to False and tells the listeners; from then on a probe runs every
``probe_interval`` seconds until one succeeds, and only then does ``healthy`` return to True. The
probe checks real free space on the database's filesystem, room below ``max_page_count``, and
commits one row (see ``_run_probe``). Errors of the work itself (a rule it broke, a constraint)
never change health. Both classifiers (``storage_error``, ``is_storage_failure``) decide by the
SQLite result code, so they cannot disagree.

WAL size: SQLite's automatic checkpoint (PASSIVE, after a commit that leaves 1,000 pages in the
WAL) never waits for readers, so a reader that holds one snapshot, or readers that always overlap,
starve it and the WAL grows without bound. The hub's own reads are short (one transaction per
``read``, never across an await), and the writer thread enforces a bound besides: at most once per
``WAL_CHECK_INTERVAL``, between batches or while idle, it looks at the WAL file's size and, past
``WAL_LIMIT``, runs ``PRAGMA wal_checkpoint(TRUNCATE)`` with no busy wait (a reader in the way makes
it give up at once, after copying what it can; it is tried again at the next look).
``journal_size_limit`` also truncates the WAL to ``WAL_LIMIT`` whenever SQLite resets it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import os
import queue
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils
import structlog
from prometheus_client import Counter, Gauge, Histogram

from kxm_grpc import failpoints
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.errors import DataLoss, HubError, Reason, ResourceExhausted, Unavailable
from kxm_grpc.store.base import Durability, StoreError
from kxm_grpc.store.notify import Change, Notifier
from kxm_grpc.store.protocols import Tx
from kxm_grpc.store.sql.tx import SqlTx
from kxm_grpc.store.sqlite.migrations import MIGRATIONS
from kxm_grpc.store.url import sqlite_description

T = TypeVar("T")
log = structlog.get_logger("kxm.store")

_MAX_BATCH = 512
_Job = tuple[Callable[[Tx], Any], "asyncio.Future[Any]", float]
"""The work, its future, and when it was queued (``time.monotonic``)."""

_BACKLOG = 0.01
"""Seconds a batch's oldest job may have waited in the queue before its lock wait is shortened by as much."""

PROBE_HEADROOM = 1024 * 1024
"""Bytes of room a health probe demands before it calls the database writable again: free on the
filesystem (on top of the WAL's current size) and left below ``max_page_count``.

Every page a transaction touches is appended to the WAL whole (page size plus a 24-byte frame
header), so even a small message with its event rows and index entries costs tens of KiB, and the
largest request the hub accepts is 256 KiB. 1 MiB is four maximal requests or dozens of ordinary
ones: the writes that follow a recovery do not fail at once and flip health back, yet a disk is
not held NOT_SERVING while it has real space."""
_PROBE_KEY = "storage_probe"

WAL_LIMIT = 4 * 1024 * 1024
"""Bytes of WAL file past which the writer forces a TRUNCATE checkpoint; also ``journal_size_limit``.

About what SQLite's automatic checkpoint (every 1,000 pages of 4 KiB) leaves in steady state, so a
healthy hub rarely passes it, and a WAL grown behind a long reader shrinks back to nothing within
``WAL_CHECK_INTERVAL`` of the reader's end."""

WAL_CHECK_INTERVAL = 1.0
"""Seconds between two looks at the WAL's size by the writer thread (one ``stat``)."""

_STARVED_LOG_INTERVAL = 60.0
"""Seconds between two ``wal_checkpoint_blocked`` warnings while a reader keeps a checkpoint out."""

COMMITS = Counter(
    "kxm_sqlite_commits",
    "SQLite write transactions committed: each a batch of writes sharing one commit (and, in full"
    " durability, one fsync).",
)
COMMITTED_WRITES = Counter("kxm_sqlite_committed_writes", "Writes committed to SQLite (the jobs of all batches).")
COMMIT_SECONDS = Histogram(
    "kxm_sqlite_commit_seconds",
    "Seconds one COMMIT of a batch took (with its fsync in full durability).",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
BATCH_SIZE = Histogram(
    "kxm_sqlite_batch_size",
    "Writes per committed batch (group commit: how many writes shared one commit).",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)
WRITE_QUEUE = Gauge(
    "kxm_sqlite_write_queue",
    "Writes (and reads of the writer connection) queued for the writer thread as the scrape is answered.",
)
WAL_CHECKPOINTS = Counter(
    "kxm_sqlite_wal_checkpoints",
    "Forced TRUNCATE checkpoints of a WAL past its limit: truncated, or blocked by a reader.",
    ["outcome"],
)
_CHECKPOINT_TRUNCATED = WAL_CHECKPOINTS.labels("truncated")
_CHECKPOINT_BLOCKED = WAL_CHECKPOINTS.labels("blocked")

# Primary SQLite result codes that mean the database itself refuses writes, not the work.
_STORAGE_FAILURES = frozenset(
    {
        sqlite3.SQLITE_PERM,
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_NOMEM,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
        sqlite3.SQLITE_NOTADB,
    }
)


# Only for an error that carries no result code (raised by Python's sqlite3 module itself, or built
# by hand): the code its message stands for, first match wins ("database is locked" is SQLITE_BUSY).
_CODES_BY_TEXT = (
    ("table is locked", sqlite3.SQLITE_LOCKED),
    ("locked", sqlite3.SQLITE_BUSY),
    ("busy", sqlite3.SQLITE_BUSY),
    ("full", sqlite3.SQLITE_FULL),
    ("disk i/o", sqlite3.SQLITE_IOERR),
    ("readonly", sqlite3.SQLITE_READONLY),
)


def sqlite_code(exc: sqlite3.Error) -> int | None:
    """Return the primary SQLite result code of ``exc`` (``SQLITE_FULL``, ``SQLITE_BUSY``, …), or None.

    SQLite's own errors carry their extended code (``sqlite_errorcode``, Python 3.11+, e.g.
    ``SQLITE_IOERR_WRITE``); its low 8 bits are the primary code. Only an error without one (raised
    by the sqlite3 module itself, or built by hand) is classified by its message text, as a
    fallback; None when that says nothing either. Never raises.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return int(code) & 0xFF
    text = str(exc).lower()
    return next((value for needle, value in _CODES_BY_TEXT if needle in text), None)


def is_storage_failure(exc: BaseException) -> bool:
    """Return whether ``exc`` is the database refusing writes, which makes the store unhealthy.

    True for the primary codes in ``_STORAGE_FAILURES`` (full, read-only, I/O error, corrupt,
    busy or locked past the busy timeout, …); False for the work breaking a rule (a constraint),
    a bug (an SQL error, a missing table) and anything that is not an ``sqlite3.Error``. An error
    with no code at all counts when it is an ``OperationalError``. Decided by the same code as
    ``storage_error``, so an error it maps to STORAGE_FULL or "busy" always counts. Never raises.
    """
    if not isinstance(exc, sqlite3.Error) or undecodable_text(exc) is not None:
        return False
    code = sqlite_code(exc)
    if code is None:
        return isinstance(exc, sqlite3.OperationalError)
    return code in _STORAGE_FAILURES


_UNDECODABLE = re.compile(r"^Could not decode to UTF-8 column '([^']*)'")


def undecodable_text(exc: BaseException) -> str | None:
    """Return the column whose stored text is not UTF-8 if ``exc`` says so, else None. Never raises.

    Python's sqlite3 raises ``OperationalError("Could not decode to UTF-8 column 'content' with
    text '...'")``, with no SQLite result code, when a stored text's bytes changed (bit rot): the
    data is damaged, the database is not refusing anything. Only the column is kept: the message
    quotes the text itself, which must reach neither the caller nor the logs.
    """
    if not isinstance(exc, sqlite3.OperationalError) or getattr(exc, "sqlite_errorcode", None) is not None:
        return None
    match = _UNDECODABLE.match(str(exc))
    return None if match is None else match.group(1)


def _probe_marker(tx: Tx) -> None:
    """Stand in for work, to ask the writer thread for a health probe; never called.

    Raises:
        AssertionError: always (the writer thread picks probes out of a batch and runs them itself).
    """
    raise AssertionError("the writer thread runs probes itself")


def storage_error(exc: BaseException) -> HubError:
    """Return the error a caller sees when the database failed with ``exc``: the one mapping.

    By primary result code (``sqlite_code``): BUSY and LOCKED are UNAVAILABLE with
    ``retry_after`` 0.5 s; FULL is RESOURCE_EXHAUSTED ``STORAGE_FULL``; any other SQLite error (a
    constraint included), an SQLite error without a recognisable code, and an exception that is
    not SQLite's at all (a bug of the engine) are UNAVAILABLE ``STORAGE_UNAVAILABLE`` with
    ``retry_after`` 1 s. A stored text that is not UTF-8 (``undecodable_text``) is DATA_LOSS
    ``STORAGE_CORRUPTED`` naming the column (and logged, without the text): retrying never helps.
    Never raises: it returns the error for the caller to raise.
    """
    column = undecodable_text(exc)
    if column is not None:
        log.error("stored_text_undecodable", column=column)
        return DataLoss(
            f"a stored text (column {column}) is not valid UTF-8: the database is damaged; restore a backup",
            reason=Reason.STORAGE_CORRUPTED,
            metadata={"column": column},
        )
    code = sqlite_code(exc) if isinstance(exc, sqlite3.Error) else None
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return Unavailable("the database is busy; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=0.5)
    if code == sqlite3.SQLITE_FULL:
        return ResourceExhausted("the database is full; writes are refused", reason=Reason.STORAGE_FULL)
    return Unavailable("the database failed; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=1.0)


def _error_name(exc: BaseException) -> str:
    """SQLite's name of the error (``SQLITE_BUSY``), or the exception's type name."""
    return getattr(exc, "sqlite_errorname", None) or type(exc).__name__


def disk_free(directory: str) -> int:
    """Return the bytes an unprivileged process may still write on ``directory``'s filesystem.

    ``statvfs`` ``f_bavail * f_frsize``: the blocks reserved for root are not counted, so a hub
    run as root is told less than it could use, never more.

    Raises:
        OSError: the directory cannot be examined (gone, no permission).
    """
    st = os.statvfs(directory)
    return st.f_bavail * st.f_frsize


class SqliteStore:
    """Persistence on one SQLite database (a file in WAL mode, or ``:memory:``).

    ``busy_timeout`` is how long a write waits for another connection's lock before it fails
    (SQLITE_BUSY), counted from when it was queued (``_begin``); ``probe_interval`` is the pause
    between health probes while unhealthy;
    ``free_space(directory)`` returns the bytes free on a filesystem (``disk_free``; tests swap in
    a fake, here or later through the ``free_space`` attribute, to play a nearly full disk).
    """

    shared = False
    """One hub per SQLite file (``Store.shared``): the lock file keeps others out."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durability: Durability = Durability.FULL,
        busy_timeout: float = 5.0,
        probe_interval: float = 1.0,
        free_space: Callable[[str], int] = disk_free,
    ) -> None:
        self.path = str(path)
        self.memory = self.path == ":memory:"
        self.durability = durability
        self.busy_timeout = busy_timeout
        self.notifier = Notifier()
        self.journal_keys: Keyring | None = None
        self.description = sqlite_description(self.path)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        WRITE_QUEUE.set_function(self._jobs.qsize)  # the store open last in the process is the one shown
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reader: sqlite3.Connection | None = None
        self._reader_tx: SqlTx | None = None
        self.commits = 0
        self.committed_jobs = 0
        self.healthy = True
        """False from a write the database itself refused until a probe passes (``_run_probe``)."""
        self.probe_interval = probe_interval
        self.free_space = free_space
        """Bytes free on a directory's filesystem; called by the probe on the writer thread."""
        self._health_listeners: list[Callable[[bool], None]] = []
        self._probe: asyncio.Task[None] | None = None
        self._unhealthy_since = 0.0
        self._lock_fd: int | None = None
        self.wal_checkpoints = 0
        """Forced TRUNCATE checkpoints that emptied the WAL (``_bound_wal``)."""
        self.wal_checkpoints_blocked = 0
        """Forced checkpoints a reader kept from finishing."""
        self._next_wal_check = 0.0
        self._blocked_in_a_row = 0
        self._blocked_logged = -_STARVED_LOG_INTERVAL

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Open, check and migrate the database; start the writer thread.

        Raises:
            StoreError: the file is a symlink, unreadable, corrupt, newer than this hub, or in use
                by another hub (another process, or another store of this one).
        """
        self._loop = asyncio.get_running_loop()
        if not self.memory:
            self._prepare_path()
            self._lock()  # before anything is written: migrations, marking agents offline
        try:
            ready: concurrent.futures.Future[None] = concurrent.futures.Future()
            self._thread = threading.Thread(
                target=self._writer_main, args=(ready,), name="kxm-sqlite-writer", daemon=True
            )
            self._thread.start()
            await asyncio.wrap_future(ready)
            if not self.memory:
                self._reader = self._connect()
                self._reader.execute("PRAGMA query_only = 1")
                self._reader_tx = SqlTx(self._reader, self._keys)
        except BaseException:
            await self.close()
            raise

    def _keys(self) -> Keyring | None:
        return self.journal_keys

    async def close(self) -> None:
        """Finish queued writes, stop the writer thread, close the connections and release the lock.

        Idempotent, and safe after a ``start`` that failed half-way. Raises nothing of its own.
        """
        if self._thread is not None:
            if self._thread.is_alive():  # not if it never opened the database
                self._jobs.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._probe is not None:  # after the join: no failure can start another one now
            self._probe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probe
            self._probe = None
        self._unlock()

    def _prepare_path(self) -> None:
        """Create the database's directory (mode 0700) and refuse symbolic links.

        Raises:
            StoreError: the database, its WAL, its shared-memory file or its lock file is a symlink.
            OSError: the directory cannot be created.
        """
        path = Path(self.path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}.lock")):
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISLNK(candidate.lstat().st_mode):
                    raise StoreError(f"refusing to open {candidate}: it is a symbolic link")

    def _lock(self) -> None:
        """Hold ``<db>.lock`` exclusively (flock) while open, the holder's pid written in it.

        flock belongs to the open file description: a second store of this same process
        conflicts too, and the kernel releases it when the process dies (even by SIGKILL).
        The file is never removed: unlinking a lock file lets two processes lock two inodes.

        Raises:
            StoreError: another hub holds the lock, or the lock file cannot be opened or locked.
        """
        lock_path = f"{self.path}.lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise StoreError(f"cannot open lock file {lock_path}: {exc.strerror}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            if isinstance(exc, BlockingIOError):
                pid = f"pid {holder}" if holder.isdigit() else "pid unknown"
                raise StoreError(
                    f"database {os.path.abspath(self.path)} is in use by another hub ({pid}); "
                    "stop it first or choose another --data-dir"
                ) from None
            raise StoreError(f"cannot lock {lock_path}: {exc.strerror}") from exc
        os.fchmod(fd, 0o600)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def _unlock(self) -> None:
        """Empty and release the lock file taken by ``_lock``; nothing if none is held. Raises nothing."""
        if self._lock_fd is None:
            return
        fd, self._lock_fd = self._lock_fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # no stale pid for whoever reads the file next
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def _connect(self) -> sqlite3.Connection:
        """Open a connection with the busy timeout and foreign keys on (autocommit; usable across threads).

        Raises:
            sqlite3.Error: the database cannot be opened.
        """
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=self.busy_timeout)
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _open_writer(self) -> sqlite3.Connection:
        """Open the write connection: WAL, the durability's ``synchronous``, a quick check, migrations.

        Raises:
            StoreError: WAL cannot be enabled, the check fails, the schema is newer than this hub,
                or SQLite refuses the file.
        """
        try:
            conn = self._connect()
            if not self.memory:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"could not enable WAL on {self.path} (journal_mode={mode})")
                conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
            level = "FULL" if self.durability is Durability.FULL else "NORMAL"
            conn.execute(f"PRAGMA synchronous = {level}")
            began = time.monotonic()
            try:
                check = conn.execute("PRAGMA quick_check").fetchone()[0]
            except sqlite3.DatabaseError as exc:  # damage the check itself trips over (a zeroed page)
                check = str(exc)
            if check != "ok":
                raise StoreError(
                    f"database {self.path} failed its integrity check (PRAGMA quick_check: {check}); "
                    "it is damaged: restore a backup (docs/operations.md, Backup and restore)"
                )
            if not self.memory:
                log.info(
                    "database_checked",
                    database=self.description,
                    check="quick_check",
                    bytes=os.path.getsize(self.path),
                    seconds=round(time.monotonic() - began, 3),
                )
            self._migrate(conn)
            return conn
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open database {self.path}: {exc}") from exc

    def _migrate(self, conn: sqlite3.Connection) -> None:
        """Apply the migrations after ``user_version``, one transaction each.

        Raises:
            StoreError: the database's schema is newer than this hub's.
            sqlite3.Error: a migration failed (its transaction is rolled back).
        """
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])
        latest = len(MIGRATIONS)
        if current > latest:
            raise StoreError(
                f"database {self.path} has schema version {current}, newer than this hub's {latest}; "
                "upgrade the hub or restore a backup"
            )
        db = sqlite_utils.Database(conn)
        for version in range(current + 1, latest + 1):
            conn.execute("BEGIN IMMEDIATE")
            try:
                MIGRATIONS[version - 1](db)
                conn.execute(f"PRAGMA user_version = {version}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            log.info("schema_migrated", version=version, database=self.description)

    # -- the writer thread ----------------------------------------------------------------------

    def _writer_main(self, ready: concurrent.futures.Future[None]) -> None:
        """Run the writer thread: open the database, then take batches of jobs until told to stop.

        A failure to open is handed to ``ready`` as a ``StoreError``; after that nothing escapes:
        every job's future is resolved by ``_run_batch`` or ``_run_probe``.
        """
        try:
            conn = self._open_writer()
        except BaseException as exc:
            ready.set_exception(exc if isinstance(exc, StoreError) else StoreError(str(exc)))
            return
        if not self.memory:
            # The database holds message bodies and credential hashes: owner-only, like its directory.
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.chmod(self.path + suffix, 0o600)
        tx = SqlTx(conn, self._keys)
        ready.set_result(None)
        try:
            while True:
                if self.memory:
                    first = self._jobs.get()
                else:
                    self._bound_wal(conn)
                    try:
                        first = self._jobs.get(timeout=WAL_CHECK_INTERVAL)
                    except queue.Empty:
                        continue
                if first is None:
                    break
                batch = [first]
                stop = False
                while len(batch) < _MAX_BATCH:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if job is None:
                        stop = True
                        break
                    batch.append(job)
                # Probes are queued only while unhealthy, and health returns only once one ran:
                # a healthy store's batches are not scanned for them.
                probes = [] if self.healthy else [job for job in batch if job[0] is _probe_marker]
                if probes:
                    batch = [job for job in batch if job[0] is not _probe_marker]
                if batch:
                    self._run_batch(conn, tx, batch)
                for _, fut, _ in probes:
                    self._run_probe(conn, fut)
                if stop:
                    break
        finally:
            conn.close()

    def _run_batch(self, conn: sqlite3.Connection, tx: SqlTx, batch: list[_Job]) -> None:
        """Run a batch in one transaction; every future of the batch is resolved, whatever fails.

        Raises nothing: an unexpected exception (a bug of the engine) is logged, the transaction
        rolled back, and every future of the batch fails with ``storage_error`` of it.
        """
        try:
            self._run_batch_unguarded(conn, tx, batch)
        except BaseException as exc:  # never leave a caller waiting on a future nobody resolves
            log.exception("store_batch_failed")
            tx.take_topics()
            self._fail(conn, [fut for _, fut, _ in batch], exc)

    def _fail(self, conn: sqlite3.Connection, futures: list[asyncio.Future[Any]], exc: BaseException) -> None:
        """Roll back the open transaction, if any, and fail every future with ``storage_error(exc)``.

        ``exc`` goes along as what the database raised, so a storage failure turns health. Raises
        nothing (a failing ROLLBACK is ignored: SQLite has rolled back already, or the connection
        is gone).
        """
        with contextlib.suppress(sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        failure = storage_error(exc)
        self._resolve([(fut, None, failure) for fut in futures], [], exc)

    def _run_probe(self, conn: sqlite3.Connection, fut: asyncio.Future[Any]) -> None:
        """Find out whether the database takes writes again, and resolve ``fut`` with the answer.

        In a transaction of its own (``BEGIN IMMEDIATE`` without a busy wait, so a database locked
        by another process fails it at once), the probe demands, in order:

        1. ``PROBE_HEADROOM`` bytes plus the WAL file's current size free on the database's
           filesystem (``free_space``; the WAL term because a checkpoint may grow the database
           file by as much as the WAL holds). Skipped for ``:memory:``.
        2. ``PROBE_HEADROOM`` bytes of pages left below ``max_page_count`` (pages on the free list
           count, being reused without growing the file).
        3. A committed write of one small row (``meta.storage_probe``): the WAL append and, in
           full durability, its fsync.

        A tiny commit alone proves little: in WAL mode it is written over space the WAL file
        already occupies, so it succeeds on a disk with no room left for a real message; checks 1
        and 2 are what keep a nearly full database NOT_SERVING.

        Raises nothing: ``fut`` resolves to None when every check passes, or fails with
        ``ResourceExhausted`` (``STORAGE_FULL``) for too little room, or with ``storage_error``
        of what SQLite (or ``free_space``) raised.
        """
        try:
            # No busy wait: a lock another process holds fails the probe at once (the next one is
            # an interval away) rather than holding up, for a whole busy timeout, the writes
            # queued behind it.
            conn.execute("PRAGMA busy_timeout = 0")
            try:
                conn.execute("BEGIN IMMEDIATE")
            finally:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            refusal = self._disk_refusal() or self._page_refusal(conn)
            if refusal is None:
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (_PROBE_KEY, str(time.time_ns()))
                )
                conn.execute("COMMIT")
            else:
                conn.execute("ROLLBACK")
        except BaseException as exc:
            self._fail(conn, [fut], exc)
            return
        self._resolve([(fut, None, refusal)], [])

    def _disk_refusal(self) -> HubError | None:
        """Return why the filesystem lacks room for ``PROBE_HEADROOM`` plus the WAL, or None if it has it.

        Raises:
            OSError: ``free_space`` could not examine the database's directory.
        """
        if self.memory:
            return None
        try:
            wal = os.stat(f"{self.path}-wal").st_size
        except FileNotFoundError:
            wal = 0
        needed = PROBE_HEADROOM + wal
        free = self.free_space(os.path.dirname(os.path.abspath(self.path)))
        if free >= needed:
            return None
        return ResourceExhausted(
            f"the database's filesystem has {free} bytes free; writable again from {needed} "
            f"({PROBE_HEADROOM} bytes of headroom and the {wal}-byte WAL)",
            reason=Reason.STORAGE_FULL,
        )

    def _page_refusal(self, conn: sqlite3.Connection) -> HubError | None:
        """Return why ``max_page_count`` leaves less than ``PROBE_HEADROOM`` of room, or None if it does not.

        Raises:
            sqlite3.Error: a PRAGMA failed.
        """
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
        limit = int(conn.execute("PRAGMA max_page_count").fetchone()[0])
        free_pages = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
        room = (limit - pages + free_pages) * page_size
        if room >= PROBE_HEADROOM:
            return None
        return ResourceExhausted(
            f"the database has {room} bytes left below max_page_count; writable again from {PROBE_HEADROOM}",
            reason=Reason.STORAGE_FULL,
        )

    def _run_batch_unguarded(self, conn: sqlite3.Connection, tx: SqlTx, batch: list[_Job]) -> None:
        """Run each job in a savepoint of one transaction, commit once, and resolve every future.

        A job's own error undoes only that job (its future fails with it; an SQLite error through
        ``storage_error``). When SQLite rolls the whole transaction back (a full disk, an I/O
        error), or BEGIN or COMMIT fails, every job of the batch fails with ``storage_error``.

        Raises:
            sqlite3.Error: a SAVEPOINT, ROLLBACK TO or RELEASE statement failed; ``_run_batch``
                then fails every future of the batch.
        """
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        topics: list[Change] = []
        try:
            batch = self._begin(conn, batch)
        except sqlite3.Error as exc:
            self._fail(conn, [fut for _, fut, _ in batch], exc)
            return
        failed: BaseException | None = None  # a storage failure of one job of a batch
        # A lone job needs no savepoint: on its error the whole transaction is rolled back instead.
        savepoints = len(batch) > 1
        for index, (work, fut, _) in enumerate(batch):
            if fut.cancelled():
                continue
            if savepoints:
                conn.execute("SAVEPOINT job")
            try:
                result = work(tx)
            except Exception as exc:
                tx.take_topics()
                error: BaseException = storage_error(exc) if isinstance(exc, sqlite3.Error) else exc
                if not conn.in_transaction:
                    # SQLite rolled back the whole transaction (a full disk, an I/O error): the
                    # work already done in this batch is gone too, so every job of it fails.
                    failure = storage_error(exc)
                    lost: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = [
                        (f, None, failure) for f, _, _ in outcomes
                    ]
                    lost.append((fut, None, error))
                    lost += [(f, None, failure) for _, f, _ in batch[index + 1 :]]
                    self._resolve(lost, [], exc)
                    return
                if savepoints:
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                else:
                    conn.execute("ROLLBACK")
                    self._resolve([(fut, None, error)], [], exc)
                    return
                if is_storage_failure(exc):
                    failed = exc
                outcomes.append((fut, None, error))
                continue
            if savepoints:
                conn.execute("RELEASE job")
            topics.extend(tx.take_topics())
            outcomes.append((fut, result, None))
        failpoints.hit("before_commit")
        committing = time.perf_counter()
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._fail(conn, [fut for fut, _, _ in outcomes], exc)
            return
        COMMIT_SECONDS.observe(time.perf_counter() - committing)
        self.commits += 1
        self.committed_jobs += len(outcomes)
        COMMITS.inc()
        COMMITTED_WRITES.inc(len(outcomes))
        BATCH_SIZE.observe(len(outcomes))
        self._resolve(outcomes, topics, failed)

    def _begin(self, conn: sqlite3.Connection, batch: list[_Job]) -> list[_Job]:
        """``BEGIN IMMEDIATE`` for ``batch``; return the jobs it runs (the batch, less any refused here).

        A write waits at most ``busy_timeout`` for another connection's lock, counted from when it
        was queued: while the lock is held the batches before it waited too (and a health probe
        may have), so the wait is shortened by the time the batch's oldest job (its first: the
        queue is first in, first out) spent queued. When that shortened wait runs out, the jobs
        whose whole wait is spent fail with SQLITE_BUSY's error and the younger ones wait on
        for what is left of theirs. Only a backlog (past ``_BACKLOG``) costs the extra PRAGMAs.

        Raises:
            sqlite3.Error: BEGIN failed for every job left (each then fails with ``storage_error``).
        """
        full = int(self.busy_timeout * 1000)
        while True:
            queued = time.monotonic() - batch[0][2]
            if queued < _BACKLOG:
                conn.execute("BEGIN IMMEDIATE")  # a whole busy timeout: every job waits it out
                return batch
            conn.execute(f"PRAGMA busy_timeout = {max(0, int((self.busy_timeout - queued) * 1000))}")
            try:
                conn.execute("BEGIN IMMEDIATE")
                return batch
            except sqlite3.Error as exc:
                if sqlite_code(exc) not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                    raise
                now = time.monotonic()
                spent = [job for job in batch if now - job[2] >= self.busy_timeout - _BACKLOG / 2]
                if not spent or len(spent) == len(batch):
                    raise  # every job's wait is spent (or the lock was refused without waiting)
                batch = batch[len(spent) :]
                failure = storage_error(exc)
                self._resolve([(fut, None, failure) for _, fut, _ in spent], [], exc)
            finally:
                conn.execute(f"PRAGMA busy_timeout = {full}")

    def _bound_wal(self, conn: sqlite3.Connection) -> None:
        """Force a TRUNCATE checkpoint if the WAL file has passed ``WAL_LIMIT`` (looked at once per interval).

        On the writer thread, between batches (no transaction open). The checkpoint runs with the
        busy timeout at 0: a reader holding an older snapshot makes it stop at once, after copying
        the frames it can (``blocked``, counted; warned about, at most once a minute, when it happens
        twice in a row), instead of stalling every write behind it for the busy timeout. Raises
        nothing: a failure is logged and the next interval tries again.
        """
        now = time.monotonic()
        if now < self._next_wal_check:
            return
        self._next_wal_check = now + WAL_CHECK_INTERVAL
        try:
            wal = os.stat(f"{self.path}-wal").st_size
        except OSError:
            return
        if wal <= WAL_LIMIT:
            return
        try:
            conn.execute("PRAGMA busy_timeout = 0")
            try:
                busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        except sqlite3.Error as exc:
            log.warning("wal_checkpoint_failed", database=self.description, sqlite_error=_error_name(exc))
            return
        seconds = round(time.monotonic() - now, 4)
        if not busy:
            self.wal_checkpoints += 1
            self._blocked_in_a_row = 0
            _CHECKPOINT_TRUNCATED.inc()
            log.info("wal_checkpointed", database=self.description, wal_bytes=wal, seconds=seconds)
            return
        self.wal_checkpoints_blocked += 1
        self._blocked_in_a_row += 1
        _CHECKPOINT_BLOCKED.inc()
        # Once may be one of the hub's own short reads, caught at the wrong instant; twice running,
        # a second apart, is a reader that stays.
        if self._blocked_in_a_row >= 2 and now - self._blocked_logged >= _STARVED_LOG_INTERVAL:
            self._blocked_logged = now
            log.warning(
                "wal_checkpoint_blocked",
                database=self.description,
                wal_bytes=wal,
                wal_frames=frames,
                frames_copied=copied,
                hint="another connection holds an old read snapshot (a long read transaction or backup)",
            )

    def _resolve(
        self,
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]],
        topics: list[Change],
        raised: BaseException | None = None,
    ) -> None:
        """Hand the outcomes to the event loop (from the writer thread).

        ``raised`` is what the database raised, if anything: a storage failure turns health before
        any caller hears of it. Raises nothing (outcomes are dropped once the loop is closed).
        """
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop closed while the last batch ran
            self._loop.call_soon_threadsafe(self._complete, outcomes, topics, raised)

    def _complete(
        self,
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]],
        topics: list[Change],
        raised: BaseException | None = None,
    ) -> None:
        """Resolve the futures and publish the topics, on the event loop; note a storage failure first.

        Raises nothing (a future cancelled meanwhile is skipped).
        """
        if raised is not None and is_storage_failure(raised):
            self._storage_failed(raised)  # before the callers hear of it: health already says so
        if topics:
            self.notifier.publish(topics)
        for fut, result, error in outcomes:
            if fut.done():
                continue
            if error is None:
                fut.set_result(result)
            else:
                fut.set_exception(error)

    # -- write health ---------------------------------------------------------------------------

    def add_health_listener(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(healthy)`` on the event loop each time ``healthy`` changes.

        A listener that raises is logged and does not stop the others.
        """
        self._health_listeners.append(listener)

    def _storage_failed(self, exc: BaseException) -> None:
        """Turn unhealthy on a storage failure: log it, tell the listeners, start the probe.

        Nothing if unhealthy already (the running probe decides recovery). Raises nothing.
        """
        if not self.healthy:
            return
        self.healthy = False
        self._unhealthy_since = time.monotonic()
        log.error(
            "storage_unhealthy",
            database=self.description,
            reason=str(storage_error(exc).reason or Reason.STORAGE_UNAVAILABLE),
            sqlite_error=_error_name(exc),
        )
        self._notify_health()
        if self._loop is not None and (self._probe is None or self._probe.done()):
            self._probe = self._loop.create_task(self._probe_until_healthy(), name="kxm-storage-probe")

    async def _probe_until_healthy(self) -> None:
        """Probe every ``probe_interval`` seconds until a probe succeeds, then turn healthy again.

        Client writes and sweeps go on meanwhile: the probe is queued to the writer thread like
        any write and runs between batches. A write that succeeds while unhealthy does not restore
        health (a nearly full database takes small writes); only a probe (``_run_probe``) does.
        Returns when healthy, or when the writer thread is gone (the store closed). Raises
        nothing but ``CancelledError`` (``close`` cancels it).
        """
        while not self.healthy:
            await asyncio.sleep(self.probe_interval)
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                return
            fut: asyncio.Future[None] = self._loop.create_future()
            self._jobs.put((_probe_marker, fut, time.monotonic()))
            try:
                await fut
            except HubError as exc:
                log.debug("storage_probe_refused", database=self.description, reason=str(exc.reason), detail=str(exc))
                continue
            self.healthy = True
            log.info(
                "storage_recovered",
                database=self.description,
                unhealthy_seconds=round(time.monotonic() - self._unhealthy_since, 3),
            )
            self._notify_health()

    def _notify_health(self) -> None:
        """Call every health listener with ``healthy``; one that raises is logged. Raises nothing."""
        for listener in list(self._health_listeners):
            try:
                listener(self.healthy)
            except Exception:
                log.exception("storage_health_listener_failed")

    # -- the Store protocol ---------------------------------------------------------------------

    async def write(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in a write transaction and return its result once committed.

        Raises:
            HubError: what ``work`` raised (its writes are undone); ``storage_error`` of what SQLite
                raised; ``Unavailable`` when the store is not open.
        """
        if self._loop is None or self._thread is None or not self._thread.is_alive():
            raise Unavailable("the store is not open", reason=Reason.STORAGE_UNAVAILABLE)
        fut: asyncio.Future[T] = self._loop.create_future()
        self._jobs.put((work, fut, time.monotonic()))
        return await fut

    async def database_time(self) -> tuple[int, int]:
        """This machine's clock (an embedded database has no other) and its monotonic clock, in
        microseconds: (time since the epoch, monotonic time)."""
        return time.time_ns() // 1000, time.monotonic_ns() // 1000

    async def read(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` on a consistent snapshot.

        Raises:
            HubError: what ``work`` raised, or ``storage_error`` of what SQLite raised (a failed
                read never changes ``healthy``).
        """
        if self._reader_tx is None or self._reader is None:
            return await self.write(work)
        conn = self._reader
        try:
            conn.execute("BEGIN")
            try:
                return work(self._reader_tx)
            finally:
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise storage_error(exc) from exc
