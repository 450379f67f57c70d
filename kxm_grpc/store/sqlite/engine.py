"""The SQLite store: a single writer thread with group commit, and WAL snapshot reads.

Writes are queued to one thread that owns the write connection. It takes every job waiting,
opens one ``BEGIN IMMEDIATE`` transaction, runs each job inside its own SAVEPOINT (so one job's
error undoes only that job), and commits once: concurrent requests share one fsync in ``full``
durability instead of paying one each. Futures resolve only after COMMIT returns, so an
acknowledged write is durable at the configured level.

Reads of a file database run on the event loop's thread on a separate read-only connection:
WAL lets them proceed while the writer commits. An in-memory database has a single connection,
so its reads are queued to the writer thread too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import queue
import sqlite3
import stat
import threading
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
        self, path: str | os.PathLike[str], *, durability: Durability = Durability.FULL, busy_timeout: float = 5.0
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

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Open, check and migrate the database; start the writer thread.

        Raises:
            StoreError: the file is a symlink, unreadable, corrupt, or newer than this hub.
        """
        self._loop = asyncio.get_running_loop()
        if not self.memory:
            self._prepare_path()
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._writer_main, args=(ready,), name="kxm-sqlite-writer", daemon=True)
        self._thread.start()
        await asyncio.wrap_future(ready)
        if not self.memory:
            self._reader = self._connect()
            self._reader.execute("PRAGMA query_only = 1")
            self._reader_tx = SqliteTx(self._reader)

    async def close(self) -> None:
        """Finish queued writes, stop the writer thread and close the connections."""
        if self._thread is not None:
            self._jobs.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _prepare_path(self) -> None:
        path = Path(self.path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISLNK(candidate.lstat().st_mode):
                    raise StoreError(f"refusing to open {candidate}: it is a symbolic link")

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
                self._run_batch(conn, tx, batch)
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
            self._resolve([(fut, None, failure) for _, fut, _ in batch], [])

    def _run_batch_unguarded(self, conn: sqlite3.Connection, tx: SqliteTx, batch: list[_Job]) -> None:
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        topics: list[Change] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self._resolve([(fut, None, storage_error(exc)) for _, fut, _ in batch], [])
            return
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
                    self._resolve(lost, [])
                    return
                if savepoints:
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                else:
                    conn.execute("ROLLBACK")
                    self._resolve([(fut, None, error)], [])
                    return
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
            self._resolve([(fut, None, failure) for fut, _, _ in outcomes], [])
            return
        self.commits += 1
        self.committed_jobs += len(outcomes)
        self._resolve(outcomes, topics)

    def _resolve(
        self, outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]], topics: list[Change]
    ) -> None:
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop closed while the last batch ran
            self._loop.call_soon_threadsafe(self._complete, outcomes, topics)

    def _complete(
        self, outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]], topics: list[Change]
    ) -> None:
        if topics:
            self.notifier.publish(topics)
        for fut, result, error in outcomes:
            if fut.done():
                continue
            if error is None:
                fut.set_result(result)
            else:
                fut.set_exception(error)

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
