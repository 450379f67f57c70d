"""Copy a hub's whole state from one database to another, offline, and prove the copy (``kxm admin migrate``).

``transfer(source, target)`` works on the databases directly, with no hub running on either:

1. It refuses, before writing anything: ``:memory:`` on either side, the same database on both
   (the same file, however it is spelled; on PostgreSQL the same database of the same server,
   told by a session advisory lock the other connection cannot take), a source that is not a hub
   database, a target that already holds rows, and a PostgreSQL side some hub is connected to
   (a session named ``kxm-hub``; hubs that stopped a moment ago get ``SESSION_GRACE`` seconds to
   disconnect).
2. It opens each side as a hub would (``open_store(url).start()``): a SQLite side takes the
   exclusive ``<db>.lock`` a running hub holds (so a source or target held by a hub is refused
   with the hub's own message) and keeps it until the end, so no hub can start there meanwhile;
   both sides are migrated to this hub's schema version (the source too: an older source is
   upgraded in place, as a hub of this version would on start). A PostgreSQL store has no lock
   to hold, so it is closed as soon as its schema is current, and the ``kxm-hub`` sessions are
   checked again just before the commit.
3. It reads the source in one snapshot (SQLite: one read transaction on a ``query_only``
   connection; PostgreSQL: ``REPEATABLE READ READ ONLY``, rows streamed by a server-side cursor)
   and writes the target in one transaction: every table of ``TABLES`` in order, rows in
   primary-key order, in batches (SQLite: ``executemany``; PostgreSQL: ``COPY FROM STDIN``).
4. Before committing it verifies, inside both transactions: every table's row count and
   ``digest`` equal on both sides. A mismatch names the tables that differ and rolls the target
   back, as does any failure of the copy: the target keeps no row of a failed run.

A fresh schema is not quite empty: its migrations seed ``FRESH_ROWS`` (the credentials version's
one row at 0). The target may hold exactly those; the copy replaces them with the source's.
A refused or failed run may leave the target with an empty hub schema (its ``start`` created
it), which a later run accepts.

Nothing here imports the CLI, grpc or the services; error messages name databases by
``str(parse_database_url(url))``, which leaves a PostgreSQL password out.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from kxm_grpc.store.base import Durability, Store, StoreError
from kxm_grpc.store.sql.connection import Connection
from kxm_grpc.store.tables import TABLES, Table, columns, counts, digest, raw_connection, rows, table_digest
from kxm_grpc.store.url import DatabaseUrl, open_store, parse_database_url

BATCH_ROWS = 2000
"""Rows read from the source per fetch, and written to a SQLite target per ``executemany``."""

FRESH_ROWS: dict[str, list[tuple[object, ...]]] = {"credentials_version": [(1, 0)]}
"""What a freshly created schema holds (seeded by its migrations): a target holding only this is empty."""

HUB_APPLICATION_NAME = "kxm-hub"
"""The ``application_name`` of every pooled connection of a hub's PostgreSQL store (``engine._configure``)."""

SESSION_GRACE = 2.0
"""Seconds a PostgreSQL side's ``kxm-hub`` sessions get to end before they count as a running hub."""


class TransferError(Exception):
    """A migration that did not happen; the message says why, naming databases without passwords."""


class TransferRefused(TransferError):
    """Refused before anything was copied: the target holds no row it did not hold before."""


class TransferFailed(TransferError):
    """The copy or its verification failed; the target's transaction was rolled back."""

    def __init__(self, message: str, tables: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.tables = tuple(tables)
        """The tables that differ between source and target (a verification failure), else empty."""


@dataclass(frozen=True, slots=True)
class TransferReport:
    """What a migration copied and proved."""

    source: str
    """The source database, as ``str(parse_database_url(url))`` (no password)."""
    target: str
    schema_version: int
    """The schema version both sides were at when copied."""
    source_schema_before: int
    """The source's schema version before this run (lower than ``schema_version`` when it was upgraded)."""
    tables: dict[str, int] = field(default_factory=dict)
    """Rows copied per table, in ``TABLES`` order."""
    digest: str = ""
    """``tables.digest`` of both sides (equal, or there is no report)."""
    copy_seconds: float = 0.0
    verify_seconds: float = 0.0
    seconds: float = 0.0
    """The whole run, opening both databases included."""

    @property
    def rows(self) -> int:
        """Rows copied in all."""
        return sum(self.tables.values())

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "source": self.source,
            "target": self.target,
            "schemaVersion": self.schema_version,
            "sourceSchemaBefore": self.source_schema_before,
            "tables": dict(self.tables),
            "rows": self.rows,
            "digest": self.digest,
            "copySeconds": round(self.copy_seconds, 3),
            "verifySeconds": round(self.verify_seconds, 3),
            "seconds": round(self.seconds, 3),
        }


def scrub(text: str, url: str) -> str:
    """``text`` with the password ``url`` carries (in its user info or a ``password=`` query parameter) masked."""
    with contextlib.suppress(ValueError):
        parts = urlsplit(url)
        hidden = [parts.password or ""] + [value for key, value in parse_qsl(parts.query) if key == "password"]
        for secret in filter(None, hidden):
            text = text.replace(secret, "****")
    return text


class _Side:
    """One database of a migration: its URL, a plain connection, and what differs by backend."""

    def __init__(self, role: str, url: str) -> None:
        self.role = role
        self.url = url
        self.parsed = parse_database_url(url)
        self.name = str(self.parsed)
        self.conn: Connection | None = None

    @property
    def postgres(self) -> bool:
        return self.parsed.scheme == "postgresql"

    def exists(self) -> bool:
        """Whether the database is there to connect to (a SQLite file not yet created is not)."""
        return self.postgres or os.path.exists(self.parsed.path)

    def fail(self, message: str) -> TransferRefused:
        return TransferRefused(f"{self.role} {self.name}: {message}")

    def error(self, exc: BaseException) -> str:
        """A driver's error as one line, without the URL's password."""
        return _driver_error(exc, self)

    @contextlib.contextmanager
    def connect(self) -> Iterator[Connection]:
        """A plain connection for the rest of the run (closed on exit).

        Raises:
            TransferRefused: the database cannot be opened.
        """
        with contextlib.ExitStack() as stack:
            try:
                self.conn = stack.enter_context(raw_connection(self.url))
            except Exception as exc:
                raise self.fail(f"cannot open it: {self.error(exc)}") from None
            try:
                yield self.conn
            finally:
                self.conn = None

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        assert self.conn is not None
        return self.conn.execute(sql, parameters)

    def table_names(self) -> set[str]:
        """The tables the database holds now."""
        if self.postgres:
            sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        else:
            sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
        return {str(row[0]) for row in self.execute(sql).fetchall()}

    def schema_version(self) -> int:
        """The hub schema version the database is at (0: none)."""
        if self.postgres:
            if "kxm_schema" not in self.table_names():
                return 0
            row = self.execute("SELECT version FROM kxm_schema").fetchone()
            return 0 if row is None else int(row[0])
        return int(self.execute("PRAGMA user_version").fetchone()[0])

    def occupied(self) -> list[str]:
        """The tables of ``TABLES`` that hold rows beyond ``FRESH_ROWS`` (missing tables hold none)."""
        present = self.table_names()
        assert self.conn is not None
        full = []
        for table in TABLES:
            if table.name not in present:
                continue
            if table.name in FRESH_ROWS:
                if rows(self.conn, table) not in ([], FRESH_ROWS[table.name]):
                    full.append(table.name)
            elif self.execute(f"SELECT 1 FROM {table.name} LIMIT 1").fetchone() is not None:
                full.append(table.name)
        return full

    def hub_sessions(self) -> list[int]:
        """Server pids of the ``kxm-hub`` sessions on this PostgreSQL database, after ``SESSION_GRACE`` at most.

        Each look is a fresh connection: pg_stat_activity is a snapshot per transaction.
        """
        deadline = time.monotonic() + SESSION_GRACE
        while True:
            with raw_connection(self.url) as conn:
                pids = [
                    int(row[0])
                    for row in conn.execute(
                        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                        "AND application_name = ? AND pid <> pg_backend_pid() ORDER BY pid",
                        (HUB_APPLICATION_NAME,),
                    ).fetchall()
                ]
            if not pids or time.monotonic() >= deadline:
                return pids
            time.sleep(0.05)

    def refuse_running_hubs(self, when: str = "") -> None:
        """Refuse a PostgreSQL database a hub is connected to (nothing for SQLite: its lock says so).

        Raises:
            TransferRefused: a hub session is there.
        """
        if not self.postgres:
            return
        try:
            pids = self.hub_sessions()
        except Exception as exc:
            raise self.fail(f"cannot list its sessions: {self.error(exc)}") from None
        if pids:
            listed = ", ".join(str(pid) for pid in pids[:10])
            raise self.fail(
                f"{len(pids)} hub connection(s) are open on it{when} (server pids {listed}): "
                "stop every hub replica using it first"
            )

    def begin_read(self) -> None:
        """Open the snapshot the source is read in."""
        if self.postgres:
            self.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        else:
            self.execute("PRAGMA query_only = 1")
            self.execute("BEGIN")

    def begin_write(self) -> None:
        """Open the target's one transaction."""
        self.execute("BEGIN" if self.postgres else "BEGIN IMMEDIATE")

    def end(self, *, commit: bool) -> None:
        """COMMIT (or ROLLBACK) the open transaction."""
        self.execute("COMMIT" if commit else "ROLLBACK")

    def rollback_quietly(self) -> None:
        """ROLLBACK whatever is open, ignoring a connection that is gone or has nothing open."""
        with contextlib.suppress(Exception):
            self.end(commit=False)

    def stream(self, table: Table) -> Iterator[list[tuple[Any, ...]]]:
        """The table's rows in primary-key order, ``SELECT *`` columns, ``BATCH_ROWS`` at a time."""
        sql = f"SELECT * FROM {table.name} ORDER BY {', '.join(table.key)}"
        if self.postgres:
            # A server-side cursor: the rows come BATCH_ROWS at a time, not the whole table at once.
            with self._pg().cursor(name=f"kxm_migrate_{table.name}") as server_cursor:
                server_cursor.itersize = BATCH_ROWS
                server_cursor.execute(sql)
                while batch := server_cursor.fetchmany(BATCH_ROWS):
                    yield batch
            return
        cursor = self._sqlite().execute(sql)
        while batch := cursor.fetchmany(BATCH_ROWS):
            yield batch

    def write(self, table: Table, names: Sequence[str], batches: Iterator[list[tuple[Any, ...]]]) -> int:
        """Insert every row of ``batches`` (columns ``names``) into ``table``; return how many."""
        written = 0
        column_list = ", ".join(names)
        if self.postgres:
            with self._pg().cursor() as cursor, cursor.copy(f"COPY {table.name} ({column_list}) FROM STDIN") as copy:
                for batch in batches:
                    for row in batch:
                        copy.write_row(row)
                    written += len(batch)
            return written
        sql = f"INSERT INTO {table.name} ({column_list}) VALUES ({', '.join('?' * len(names))})"
        conn = self._sqlite()
        for batch in batches:
            conn.executemany(sql, batch)
            written += len(batch)
        return written

    def _sqlite(self) -> sqlite3.Connection:
        assert isinstance(self.conn, sqlite3.Connection)
        return self.conn

    def _pg(self) -> Any:
        """The psycopg connection under this side's ``PgConnection`` (for COPY and server-side cursors)."""
        from kxm_grpc.store.postgres.connection import PgConnection  # psycopg: only for a PostgreSQL side

        assert isinstance(self.conn, PgConnection)
        return self.conn.raw


def _same_file(source: DatabaseUrl, target: DatabaseUrl) -> bool:
    """Whether two SQLite URLs name one file (whatever the spelling, links included)."""
    if os.path.realpath(source.path) == os.path.realpath(target.path):
        return True
    try:
        return os.path.samefile(source.path, target.path)
    except OSError:
        return False


def _same_postgres_database(source: _Side, target: _Side) -> bool:
    """Whether two PostgreSQL connections reach one database of one server.

    A session advisory lock is scoped to its database: a random key the source's session holds
    cannot be taken by the target's session exactly when both are in the same database.
    """
    key = secrets.randbits(62)
    source.execute("SELECT pg_advisory_lock(?)", (key,))
    try:
        taken = bool(target.execute("SELECT pg_try_advisory_lock(?)", (key,)).fetchone()[0])
        if taken:
            target.execute("SELECT pg_advisory_unlock(?)", (key,))
        return not taken
    finally:
        source.execute("SELECT pg_advisory_unlock(?)", (key,))


def _check_addresses(source: _Side, target: _Side) -> None:
    """Refuse ``:memory:`` and an identical SQLite file before opening anything."""
    for side in (source, target):
        if side.parsed.memory:
            raise side.fail("an in-memory database cannot be migrated from or to (nothing outside its hub sees it)")
    if source.url == target.url or (
        source.parsed.scheme == target.parsed.scheme == "sqlite" and _same_file(source.parsed, target.parsed)
    ):
        raise TransferRefused(f"the source and the target are the same database ({source.name})")


def _check_source(source: _Side) -> int:
    """Refuse a source that is not a hub database; return its schema version (before this run migrates it)."""
    try:
        version = source.schema_version()
    except Exception as exc:
        raise source.fail(f"cannot read it: {source.error(exc)}") from None
    if version == 0:
        raise source.fail("not a kxm hub database (no schema version)")
    source.refuse_running_hubs()
    return version


def _check_target(target: _Side) -> None:
    """Refuse a target that holds any row (beyond ``FRESH_ROWS``) or that a hub is connected to."""
    try:
        full = target.occupied()
    except Exception as exc:
        raise target.fail(f"cannot read it: {target.error(exc)}") from None
    if full:
        raise target.fail(
            f"it already holds rows (in {', '.join(full)}): migrate only into an empty database; nothing was written"
        )
    target.refuse_running_hubs()


async def _start(side: _Side) -> Store:
    """Open ``side`` as a hub would: its lock (SQLite) and its schema migrated to this hub's version.

    Raises:
        TransferRefused: the store refused to start (in use by a hub, newer schema, unreachable).
    """
    store = open_store(side.url, durability=Durability.FULL)
    try:
        await store.start()
    except Exception as exc:
        await store.close()
        raise side.fail(scrub(str(exc), side.url) if isinstance(exc, StoreError) else side.error(exc)) from None
    return store


def _differing(source: Connection, target: Connection) -> list[str]:
    """The tables whose count or rows differ between the two sides (a per-table hash; for diagnosis)."""

    return [table.name for table in TABLES if table_digest(source, table) != table_digest(target, table)]


def _driver_error(exc: BaseException, *sides: _Side) -> str:
    """A driver's error as one line, without the password of any side's URL."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    for side in sides:
        text = scrub(text, side.url)
    return text


def _copy(source: _Side, target: _Side) -> tuple[dict[str, int], str, float, float]:
    """Copy every table in one target transaction and verify before committing.

    Returns rows per table, the digest, and the copy's and the verification's seconds.

    Raises:
        TransferRefused: the two schemas differ (nothing written).
        TransferFailed: the copy or the verification failed; the target was rolled back.
    """
    assert source.conn is not None and target.conn is not None
    names: dict[str, list[str]] = {}
    for table in TABLES:
        mine, theirs = columns(source.conn, table), columns(target.conn, table)
        if sorted(mine) != sorted(theirs):
            raise TransferRefused(
                f"table {table.name} has columns {mine} on the source and {theirs} on the target: "
                "the schemas differ although both claim the same version"
            )
        names[table.name] = mine
    started = time.monotonic()
    copied: dict[str, int] = {}
    source.begin_read()
    try:
        target.begin_write()
        try:
            current = ""
            try:
                for table in TABLES:
                    current = table.name
                    if table.name in FRESH_ROWS:
                        target.execute(f"DELETE FROM {table.name}")
                    copied[table.name] = target.write(table, names[table.name], source.stream(table))
            except Exception as exc:
                raise TransferFailed(
                    f"copying table {current} failed, nothing was kept: {_driver_error(exc, source, target)}",
                    [current],
                ) from None
            copy_seconds = time.monotonic() - started
            verifying = time.monotonic()
            try:
                wanted = digest(source.conn)
                if counts(source.conn) != counts(target.conn) or digest(target.conn) != wanted:
                    differ = _differing(source.conn, target.conn)
                    raise TransferFailed(
                        f"verification failed: {', '.join(differ) or 'the digests'} differ between the source "
                        "and the target; the target was rolled back",
                        differ,
                    )
                for side in (source, target):
                    side.refuse_running_hubs(" now (a hub started during the copy)")
                target.end(commit=True)
            except TransferError:
                raise
            except Exception as exc:
                raise TransferFailed(
                    f"verifying or committing the copy failed, nothing was kept: {_driver_error(exc, source, target)}"
                ) from None
        except BaseException:
            target.rollback_quietly()
            raise
    finally:
        source.rollback_quietly()
    return copied, wanted, copy_seconds, time.monotonic() - verifying


async def transfer(source_url: str, target_url: str) -> TransferReport:
    """Copy every table of the hub's state from ``source_url`` to the empty ``target_url`` and verify it.

    Both are database URLs (``kxm_grpc/store/url.py``). No hub may run on either (see the module
    docstring for what is refused and how). The copy itself runs on the calling thread, blocking
    the event loop (nothing else runs on it): an interrupt then lands in the copy and rolls it back.

    Raises:
        TransferRefused: nothing was copied (the target holds no new row).
        TransferFailed: the copy or its verification failed and the target was rolled back.
    """
    started = time.monotonic()
    try:
        source, target = _Side("source", source_url), _Side("target", target_url)
    except StoreError as exc:  # a malformed URL: parse_database_url's message names no URL
        raise TransferRefused(str(exc)) from None
    _check_addresses(source, target)
    if not source.exists():
        raise source.fail("no such database file")  # asked before connecting, which would create it
    held: list[Store] = []
    try:
        with contextlib.ExitStack() as connections:
            connections.enter_context(source.connect())
            if target.exists():
                connections.enter_context(target.connect())
            if source.postgres and target.postgres and _same_postgres_database(source, target):
                raise TransferRefused(f"the source and the target are the same database ({source.name})")
            before = _check_source(source)
            if target.conn is not None:
                _check_target(target)  # before the target's start migrates an older schema
            for side in (source, target):
                store = await _start(side)
                if side.postgres:
                    await store.close()  # nothing to hold: its schema is current now
                else:
                    held.append(store)  # its lock keeps hubs out until the end
            if target.conn is None:
                connections.enter_context(target.connect())  # the file its start created
            version = source.schema_version()
            if target.schema_version() != version:
                raise TransferRefused(
                    f"the source is at schema version {version} and the target at {target.schema_version()}"
                )
            _check_target(target)  # the schema exists now: the look that counts
            copied, wanted, copy_seconds, verify_seconds = _copy(source, target)
        if target.postgres:
            with contextlib.suppress(Exception), raw_connection(target.url) as conn:
                conn.execute("ANALYZE")  # fresh tables have no planner statistics until autovacuum runs
    finally:
        for store in held:
            await store.close()
    return TransferReport(
        source=source.name,
        target=target.name,
        schema_version=version,
        source_schema_before=before,
        tables=copied,
        digest=wanted,
        copy_seconds=copy_seconds,
        verify_seconds=verify_seconds,
        seconds=time.monotonic() - started,
    )
