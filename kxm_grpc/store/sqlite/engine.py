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
busy timeout) sets ``healthy`` to False and tells the listeners; from then on a probe write runs
every ``probe_interval`` seconds until one succeeds, and ``healthy`` returns to True. Errors of
the work itself (a rule it broke, a constraint) never change it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import os
import queue
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils
import structlog

from kxm_grpc.errors import HubError, Reason, ResourceExhausted, Unavailable
from kxm_grpc.store.base import Durability, StoreError, Tx
from kxm_grpc.store.notify import Change, Notifier
from kxm_grpc.store.sqlite.migrations import MIGRATIONS
from kxm_grpc.store.sqlite.repositories import SqliteTx

T = TypeVar("T")
log = structlog.get_logger("kxm.store")

_MAX_BATCH = 512
_Job = tuple[Callable[[Tx], Any], "asyncio.Future[Any]", bool]

PROBE_HEADROOM = 64 * 1024
"""Bytes a health probe must be able to add to the database (allocated, then rolled back) to call
it writable again: more than the largest message, so a nearly full database does not flap."""
_PROBE_KEY = "storage_probe"

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


def is_storage_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the database failing (full, read-only, I/O, locked out), not the work
    breaking a rule (a constraint) or a bug (a missing table)."""
    if not isinstance(exc, sqlite3.Error):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return isinstance(exc, sqlite3.OperationalError)
    return int(code) & 0xFF in _STORAGE_FAILURES


def _probe_marker(tx: Tx) -> None:
    """Queued in place of work to ask the writer thread for a health probe (never called)."""
    raise AssertionError("the writer thread runs probes itself")


def storage_error(exc: sqlite3.Error) -> HubError:
    """Map an SQLite failure to the error a caller can act on."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return Unavailable("the database is busy; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=0.5)
    if "full" in text:
        return ResourceExhausted("the database is full; writes are refused", reason=Reason.STORAGE_FULL)
    return Unavailable("the database failed; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=1.0)


class SqliteStore:
    """Persistence on one SQLite database (a file in WAL mode, or ``:memory:``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durability: Durability = Durability.FULL,
        busy_timeout: float = 5.0,
        probe_interval: float = 1.0,
    ) -> None:
        self.path = str(path)
        self.memory = self.path == ":memory:"
        self.durability = durability
        self.busy_timeout = busy_timeout
        self.notifier = Notifier()
        self.description = "sqlite::memory:" if self.memory else f"sqlite:{self.path}"
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reader: sqlite3.Connection | None = None
        self._reader_tx: SqliteTx | None = None
        self.commits = 0
        self.committed_jobs = 0
        self.healthy = True
        """False from a write the database itself refused until a probe write succeeds."""
        self.probe_interval = probe_interval
        self._health_listeners: list[Callable[[bool], None]] = []
        self._probe: asyncio.Task[None] | None = None
        self._unhealthy_since = 0.0
        self._lock_fd: int | None = None

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
                self._reader_tx = SqliteTx(self._reader)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Finish queued writes, stop the writer thread, close the connections and release the lock."""
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
        if self._lock_fd is None:
            return
        fd, self._lock_fd = self._lock_fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # no stale pid for whoever reads the file next
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=self.busy_timeout)
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _open_writer(self) -> sqlite3.Connection:
        try:
            conn = self._connect()
            if not self.memory:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"could not enable WAL on {self.path} (journal_mode={mode})")
            level = "FULL" if self.durability is Durability.FULL else "NORMAL"
            conn.execute(f"PRAGMA synchronous = {level}")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"database {self.path} failed its integrity check: {check}")
            self._migrate(conn)
            return conn
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open database {self.path}: {exc}") from exc

    def _migrate(self, conn: sqlite3.Connection) -> None:
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
        tx = SqliteTx(conn)
        ready.set_result(None)
        try:
            while True:
                first = self._jobs.get()
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

    def _run_batch(self, conn: sqlite3.Connection, tx: SqliteTx, batch: list[_Job]) -> None:
        """Run a batch in one transaction; every future of the batch is resolved, whatever fails."""
        try:
            self._run_batch_unguarded(conn, tx, batch)
        except BaseException as exc:  # never leave a caller waiting on a future nobody resolves
            log.exception("store_batch_failed")
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            tx.take_topics()
            failure = (
                storage_error(exc)
                if isinstance(exc, sqlite3.Error)
                else Unavailable("the database failed; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=1.0)
            )
            self._resolve([(fut, None, failure) for _, fut, _ in batch], [], exc)

    def _run_probe(self, conn: sqlite3.Connection, fut: asyncio.Future[Any]) -> None:
        """Find out, in a transaction of its own, whether the database takes writes again: it must
        have room for ``PROBE_HEADROOM`` more bytes (allocated in a savepoint, then rolled back,
        so nothing is kept) and commit one small row (the WAL append and sync)."""
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("SAVEPOINT headroom")
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (f"{_PROBE_KEY}.headroom", "x" * PROBE_HEADROOM),
            )
            conn.execute("ROLLBACK TO headroom")
            conn.execute("RELEASE headroom")
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (_PROBE_KEY, str(time.time_ns())))
            conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            failure = (
                storage_error(exc)
                if isinstance(exc, sqlite3.Error)
                else Unavailable("the database failed; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=1.0)
            )
            self._resolve([(fut, None, failure)], [], exc)
            return
        self._resolve([(fut, None, None)], [])

    def _run_batch_unguarded(self, conn: sqlite3.Connection, tx: SqliteTx, batch: list[_Job]) -> None:
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        topics: list[Change] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self._resolve([(fut, None, storage_error(exc)) for _, fut, _ in batch], [], exc)
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
                    failure = error if isinstance(exc, sqlite3.Error) else storage_error(sqlite3.OperationalError())
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
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            failure = storage_error(exc)
            self._resolve([(fut, None, failure) for fut, _, _ in outcomes], [], exc)
            return
        self.commits += 1
        self.committed_jobs += len(outcomes)
        self._resolve(outcomes, topics, failed)

    def _resolve(
        self,
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]],
        topics: list[Change],
        raised: BaseException | None = None,
    ) -> None:
        """Hand the outcomes to the event loop; ``raised`` is what the database raised, if anything."""
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop closed while the last batch ran
            self._loop.call_soon_threadsafe(self._complete, outcomes, topics, raised)

    def _complete(
        self,
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]],
        topics: list[Change],
        raised: BaseException | None = None,
    ) -> None:
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
        """Call ``listener(healthy)`` on the event loop each time ``healthy`` changes."""
        self._health_listeners.append(listener)

    def _storage_failed(self, exc: BaseException) -> None:
        if not self.healthy:
            return
        self.healthy = False
        self._unhealthy_since = time.monotonic()
        reason = storage_error(exc).reason if isinstance(exc, sqlite3.Error) else None
        log.error(
            "storage_unhealthy",
            database=self.description,
            reason=str(reason or Reason.STORAGE_UNAVAILABLE),
            sqlite_error=getattr(exc, "sqlite_errorname", None) or type(exc).__name__,
        )
        self._notify_health()
        if self._loop is not None and (self._probe is None or self._probe.done()):
            self._probe = self._loop.create_task(self._probe_until_healthy(), name="kxm-storage-probe")

    async def _probe_until_healthy(self) -> None:
        """While unhealthy, probe every ``probe_interval`` (nothing else may be writing)."""
        while not self.healthy:
            await asyncio.sleep(self.probe_interval)
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                return
            fut: asyncio.Future[None] = self._loop.create_future()
            self._jobs.put((_probe_marker, fut, True))
            try:
                await fut
            except HubError:
                continue
            self.healthy = True
            log.info(
                "storage_recovered",
                database=self.description,
                unhealthy_seconds=round(time.monotonic() - self._unhealthy_since, 3),
            )
            self._notify_health()

    def _notify_health(self) -> None:
        for listener in list(self._health_listeners):
            try:
                listener(self.healthy)
            except Exception:
                log.exception("storage_health_listener_failed")

    # -- the Store protocol ---------------------------------------------------------------------

    async def write(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in a write transaction and return its result once committed.

        Raises:
            HubError: what ``work`` raised (its writes are undone), or a storage failure.
        """
        if self._loop is None or self._thread is None or not self._thread.is_alive():
            raise Unavailable("the store is not open", reason=Reason.STORAGE_UNAVAILABLE)
        fut: asyncio.Future[T] = self._loop.create_future()
        self._jobs.put((work, fut, True))
        return await fut

    async def read(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` on a consistent snapshot.

        Raises:
            HubError: what ``work`` raised, or a storage failure.
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
