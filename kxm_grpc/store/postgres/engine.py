"""The PostgreSQL store: units of work in SERIALIZABLE transactions on a connection pool, for several replicas.

Every hub replica pointed at one database runs its units of work here. Each one runs in a
transaction of its own at ``SERIALIZABLE`` isolation on a pooled connection, on a worker thread
(the work functions are synchronous, as the ``Store`` protocol says): PostgreSQL then guarantees
that concurrent transactions, from this replica or any other, have the effect of running one
after another, which is what the single SQLite writer gives. A transaction PostgreSQL aborts to
keep that guarantee (serialization failure, deadlock) is run again from the start after a short
jittered pause, for as long as ``busy_timeout`` allows and at least ``RETRIES`` times (the budget
SQLite gives a write waiting for its lock), so a unit of work must depend on nothing but its
transaction (every one does: what it writes outside is the topics it notifies, collected afresh
on each attempt). Reads run at ``REPEATABLE READ READ ONLY``: one consistent snapshot.

Wake-ups: a committed transaction's topics are published to this replica's notifier with their
hints (as on SQLite), and sent to every replica by ``pg_notify`` inside the same transaction, so a
notification exists exactly when the change committed; ``listener.py`` feeds them to the other
replicas' notifiers without hints.

Durability ``full`` keeps PostgreSQL's ``synchronous_commit`` (a commit is acknowledged once it is
flushed, and on a standby too when the server is set up so); ``normal`` turns it off for the
hub's sessions (a crash of the database server may lose the last few hundred milliseconds).

Health works as on SQLite: a failure of the database itself (``errors.is_storage_failure``) turns
``healthy`` False until a probe write succeeds again, every ``probe_interval`` seconds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import random
import re
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg
import psycopg_pool
import structlog
from prometheus_client import Histogram

from kxm_grpc import failpoints
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.errors import Reason, Unavailable
from kxm_grpc.store.base import Durability, StoreError
from kxm_grpc.store.notify import Notifier
from kxm_grpc.store.postgres import errors
from kxm_grpc.store.postgres.connection import PgConnection
from kxm_grpc.store.postgres.listener import CHANNEL, ChangeListener, notify_payloads
from kxm_grpc.store.postgres.migrations import FIRST_VERSION, MIGRATIONS
from kxm_grpc.store.protocols import Tx
from kxm_grpc.store.sql.tx import SqlTx
from kxm_grpc.store.url import redact_postgres_url

T = TypeVar("T")
log = structlog.get_logger("kxm.store")

COMMIT_SECONDS = Histogram(
    "kxm_postgres_commit_seconds",
    "Seconds one COMMIT of a write unit of work took (its WAL flush with synchronous_commit on).",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)

_PASSWORD_IN_URL = re.compile(r"(postgres(?:ql)?://[^:/@\s]*):[^@\s]*@")


class _RedactPasswords(logging.Filter):
    """Hide any ``postgresql://user:password@`` in psycopg_pool's own log lines (connection errors quote libpq)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "://" in message:
            record.msg, record.args = _PASSWORD_IN_URL.sub(r"\1:***@", message), None
        return True


logging.getLogger("psycopg.pool").addFilter(_RedactPasswords())

RETRIES = 30
"""How many times a unit of work runs at least before a serialization failure is the caller's (UNAVAILABLE).

Past that count it still runs again until ``busy_timeout`` has gone by since its first attempt: a
count alone gave up on a hot row (one inbox's log head, written by every send to it) after less
than a second of losing races to other writers on a loaded machine, where SQLite's writer would
have waited its turn. The time budget is what bounds the wait; the count keeps a short
``busy_timeout`` from giving up after a single conflict. Between attempts the unit holds neither
a worker thread nor a pooled connection."""

_MIGRATION_LOCK = 0x6B786D_0001
"""The advisory lock key migrations hold (``pg_advisory_xact_lock``): replicas starting together migrate once."""
_PROBE_KEY = "storage_probe"
_READ_BEGIN = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}
"""TCP keepalives on every connection: a half-open connection (a silent network failure) errors
within about 25 s instead of never, the listener's above all."""
_NOW_SQL = "SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT"


class PostgresStore:
    """Persistence on one PostgreSQL database, shared by every hub replica pointed at it.

    ``dsn`` is a ``postgresql://`` URL (libpq's form). ``pool_min``/``pool_max``
    bound this replica's connections (plus one for the listener); ``busy_timeout`` is how long a
    statement waits for a lock, a unit of work for a free connection, and a unit of work losing
    serialization races runs again, before UNAVAILABLE.
    """

    shared = True
    """Other hub processes may use this database at the same time (``Store.shared``)."""

    def __init__(
        self,
        dsn: str,
        *,
        durability: Durability = Durability.FULL,
        pool_min: int = 2,
        pool_max: int = 10,
        busy_timeout: float = 5.0,
        connect_timeout: float = 10.0,
        probe_interval: float = 1.0,
    ) -> None:
        if pool_min < 1 or pool_max < pool_min:
            raise ValueError(f"pool sizes must satisfy 1 <= pool_min <= pool_max, not {pool_min} and {pool_max}")
        self.dsn = dsn
        self.durability = durability
        self.description = redact_postgres_url(dsn)
        self.notifier = Notifier()
        self.journal_keys: Keyring | None = None
        self.replica_id = f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        """This store's name in the notifications it sends (its own are not published twice)."""
        self.healthy = True
        self.probe_interval = probe_interval
        self.commits = 0
        self.retries = 0
        """Units of work run again after a serialization failure or deadlock (for tests and metrics)."""
        self._busy_timeout = busy_timeout
        self._connect_timeout = connect_timeout
        self._pool_min = pool_min
        self._pool_max = pool_max
        self._pool: psycopg_pool.ConnectionPool[psycopg.Connection[Any]] | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: ChangeListener | None = None
        self._health_listeners: list[Callable[[bool], None]] = []
        self._probe: asyncio.Task[None] | None = None
        self._unhealthy_since = 0.0

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect, migrate (once across replicas starting together), and start listening for changes.

        Raises:
            StoreError: the server cannot be reached, refuses the credentials, or holds a schema
                newer than this hub's.
        """
        try:
            psycopg.conninfo.conninfo_to_dict(self.dsn)
        except psycopg.ProgrammingError:
            # libpq's message quotes the URL, password and all: say only what is wrong.
            raise StoreError(f"the postgresql URL {self.description} cannot be parsed by libpq") from None
        self._loop = asyncio.get_running_loop()
        self._executor = concurrent.futures.ThreadPoolExecutor(self._pool_max, thread_name_prefix="kxm-pg")
        self._pool = psycopg_pool.ConnectionPool(
            self.dsn,
            min_size=self._pool_min,
            max_size=self._pool_max,
            kwargs={"autocommit": True, "connect_timeout": max(1, round(self._connect_timeout)), **_KEEPALIVES},
            configure=self._configure,
            timeout=self._busy_timeout,
            open=False,
            name="kxm",
        )
        try:
            await self._in_thread(self._open_and_migrate)
            self._listener = ChangeListener(self.dsn, self.notifier, self.replica_id)
            try:
                await self._listener.start(timeout=self._connect_timeout)
            except psycopg.Error as exc:
                raise StoreError(f"cannot listen for changes on {self.description}: {type(exc).__name__}") from exc
        except BaseException:
            await self.close()
            raise

    def _open_and_migrate(self) -> None:
        assert self._pool is not None
        try:
            self._pool.open(wait=True, timeout=self._connect_timeout)
        except psycopg_pool.PoolTimeout as exc:
            raise StoreError(f"cannot connect to {self.description} within {self._connect_timeout} s") from exc
        try:
            with self._pool.connection() as conn:
                self._migrate(conn)
        except psycopg.Error as exc:
            raise StoreError(f"cannot prepare database {self.description}: {exc}") from exc

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        """Set up each new pooled connection: timeouts, UTC, durability (``synchronous_commit``)."""
        lock_ms = int(self._busy_timeout * 1000)
        conn.execute(f"SET lock_timeout = {lock_ms}")
        conn.execute("SET idle_in_transaction_session_timeout = 60000")
        conn.execute("SET TIME ZONE 'UTC'")
        conn.execute("SET application_name = 'kxm-hub'")
        # Set either way: the server's or the role's default must not decide what --durability means.
        conn.execute(f"SET synchronous_commit = {'off' if self.durability is Durability.NORMAL else 'on'}")

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        """Apply the pending migrations in one transaction holding the migration lock.

        A replica that waited for the lock finds the schema current and applies nothing.

        Raises:
            StoreError: the schema is newer than this hub's, or the database holds tables but no
                schema version (not a hub database).
            psycopg.Error: a migration failed (nothing of it is kept).
        """
        latest = max(MIGRATIONS)
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = 0")  # wait for another replica's migration however long
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS kxm_schema (version BIGINT NOT NULL)")
            row = conn.execute("SELECT version FROM kxm_schema").fetchone()
            current = 0 if row is None else int(row[0])
            if current > latest:
                raise StoreError(
                    f"database {self.description} has schema version {current}, newer than this hub's {latest}; "
                    "upgrade the hub or restore a backup"
                )
            if current == 0:
                tables = conn.execute(
                    "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                    "AND table_name <> 'kxm_schema'"
                ).fetchone()
                if tables is not None and int(tables[0]) > 0:
                    raise StoreError(f"database {self.description} holds tables but is not a kxm hub database")
                conn.execute("INSERT INTO kxm_schema (version) VALUES (0)")
            for version in range(max(current + 1, FIRST_VERSION), latest + 1):
                for statement in MIGRATIONS[version]:
                    conn.execute(statement)
                conn.execute("UPDATE kxm_schema SET version = %s", (version,))
                log.info("schema_migrated", version=version, database=self.description)

    def _keys(self) -> Keyring | None:
        return self.journal_keys

    async def close(self) -> None:
        """Stop listening, close the pool and the worker threads. Idempotent; raises nothing of its own."""
        if self._listener is not None:
            await self._listener.close()
            self._listener = None
        if self._probe is not None:
            self._probe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probe
            self._probe = None
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.close)
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True)

    async def _in_thread(self, fn: Callable[[], T]) -> T:
        assert self._loop is not None and self._executor is not None
        return await self._loop.run_in_executor(self._executor, fn)

    # -- units of work --------------------------------------------------------------------------

    async def _unit(self, work: Callable[[Tx], T], begin: str, *, writes: bool) -> T:
        """Run ``work`` to completion in transactions opened by ``begin``; run it again after a
        serialization failure or deadlock, while ``busy_timeout`` lasts and at least ``RETRIES`` times.

        Each attempt takes a worker thread and a pooled connection and gives both back when it
        ends: the jittered pause between attempts is awaited on the event loop, so a unit of work
        losing races to a hot row never keeps queued calls (reads, heartbeats) from the pool.

        Returns what ``work`` returned. Raises what ``work`` raised, or the psycopg error that ended
        the last attempt (``write``/``read`` map it).
        """
        attempt = 0
        give_up_at = time.monotonic() + self._busy_timeout
        while True:
            try:
                return await self._in_thread(lambda: self._run(work, begin, writes=writes))
            except BaseException as exc:
                attempt += 1
                if not errors.is_retryable(exc) or (attempt >= RETRIES and time.monotonic() >= give_up_at):
                    raise
            self.retries += 1
            await asyncio.sleep(random.uniform(0, min(0.05, 0.001 * 2**attempt)))

    def _run(self, work: Callable[[Tx], T], begin: str, *, writes: bool) -> T:
        """Run one attempt of ``work`` in a transaction opened by ``begin`` (on a worker thread).

        A pooled connection that turns out dead when the transaction begins (the server restarted,
        or an operator ended the session) is dropped and the transaction begun on another, up to
        the pool's size: nothing had run on it yet. A committed write's topics are handed to the
        event loop from here, right after COMMIT, so they are published even if the caller was
        cancelled meanwhile, and before the caller resumes.

        Returns what ``work`` returned. Raises what ``work`` raised, or the psycopg error that ended
        the attempt (rolled back).
        """
        assert self._pool is not None
        for _ in range(self._pool_max):
            with self._pool.connection() as raw:
                try:
                    raw.execute(begin)
                except psycopg.OperationalError:
                    if not raw.closed and not raw.broken:
                        raise
                    continue  # a dead pooled connection: returned broken, the pool discards it
                return self._attempt(raw, work, writes=writes)
        with self._pool.connection() as raw:
            raw.execute(begin)
            return self._attempt(raw, work, writes=writes)

    def _attempt(self, raw: psycopg.Connection[Any], work: Callable[[Tx], T], *, writes: bool) -> T:
        """Run ``work`` in the transaction just begun on ``raw`` and commit it; roll back on any failure."""
        tx = SqlTx(PgConnection(raw), self._keys)
        try:
            result = work(tx)
            topics = tx.take_topics()
            if writes and topics:
                for payload in notify_payloads(self.replica_id, topics):
                    raw.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
            if writes:
                failpoints.hit("before_commit")
            committing = time.perf_counter()
            raw.execute("COMMIT")
            if writes:
                COMMIT_SECONDS.observe(time.perf_counter() - committing)
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                if raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    raw.execute("ROLLBACK")
            raise
        if writes:
            self.commits += 1
            if topics and self._loop is not None:
                with contextlib.suppress(RuntimeError):  # the loop closed while this ran
                    self._loop.call_soon_threadsafe(self.notifier.publish, topics)
        return result

    async def write(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in a SERIALIZABLE transaction and return its result once committed.

        Raises:
            HubError: what ``work`` raised (nothing it wrote is kept); ``errors.storage_error`` of
                what PostgreSQL raised; ``Unavailable`` when the store is not open.
        """
        if self._pool is None or self._executor is None:
            raise Unavailable("the store is not open", reason=Reason.STORAGE_UNAVAILABLE)
        try:
            return await self._unit(work, "BEGIN ISOLATION LEVEL SERIALIZABLE", writes=True)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            self._maybe_failed(exc)
            raise errors.storage_error(exc) from exc

    async def read(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` on one consistent snapshot (REPEATABLE READ, READ ONLY).

        Raises:
            HubError: what ``work`` raised, or ``errors.storage_error`` of what PostgreSQL raised.
        """
        if self._pool is None or self._executor is None:
            raise Unavailable("the store is not open", reason=Reason.STORAGE_UNAVAILABLE)
        try:
            return await self._unit(work, _READ_BEGIN, writes=False)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            self._maybe_failed(exc)
            raise errors.storage_error(exc) from exc

    async def database_time(self) -> tuple[int, int]:
        """The database server's clock (``clock_timestamp()``) and this machine's monotonic clock at one
        instant, both in microseconds: (time since the epoch, monotonic time).

        The server's reading stands for the middle of its query's round trip, timed on the worker
        with the monotonic clock (not around the queue for a worker, nor after the event loop gets
        back to the caller); of three readings, the one with the shortest round trip is kept, so a
        thread preempted mid-query on a busy machine does not skew it (B17 saw replicas ~100 ms apart).

        Raises:
            HubError: the database could not be asked.
        """
        if self._pool is None or self._executor is None:
            raise Unavailable("the store is not open", reason=Reason.STORAGE_UNAVAILABLE)
        pool = self._pool

        def ask() -> tuple[int, int]:
            with pool.connection() as raw:
                best: tuple[int, int, int] | None = None
                for _ in range(3):
                    before = time.monotonic_ns() // 1000
                    row = raw.execute(_NOW_SQL).fetchone()
                    after = time.monotonic_ns() // 1000
                    assert row is not None
                    if best is None or after - before < best[0]:
                        best = (after - before, int(row[0]), (before + after) // 2)
                assert best is not None
                return best[1], best[2]

        try:
            return await self._in_thread(ask)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            self._maybe_failed(exc)
            raise errors.storage_error(exc) from exc

    # -- health ---------------------------------------------------------------------------------

    def add_health_listener(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(healthy)`` on the event loop each time ``healthy`` changes."""
        self._health_listeners.append(listener)

    def _maybe_failed(self, exc: BaseException) -> None:
        if not errors.is_storage_failure(exc) or not self.healthy:
            return
        self.healthy = False
        self._unhealthy_since = time.monotonic()
        log.error(
            "storage_unhealthy",
            database=self.description,
            sqlstate=errors.sqlstate(exc),
            error=type(exc).__name__,
        )
        self._notify_health()
        if self._loop is not None and (self._probe is None or self._probe.done()):
            self._probe = self._loop.create_task(self._probe_until_healthy(), name="kxm-storage-probe")

    def _probe_write(self) -> None:
        assert self._pool is not None
        with self._pool.connection() as raw, raw.transaction():
            raw.execute(
                "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (_PROBE_KEY, str(time.time_ns())),
            )

    async def _probe_until_healthy(self) -> None:
        """Probe every ``probe_interval`` seconds until a committed write succeeds; then turn healthy."""
        while not self.healthy:
            await asyncio.sleep(self.probe_interval)
            if self._pool is None:
                return
            try:
                await self._in_thread(self._probe_write)
            except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
                log.debug("storage_probe_refused", database=self.description, sqlstate=errors.sqlstate(exc))
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
