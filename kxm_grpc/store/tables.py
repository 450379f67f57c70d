"""The hub's tables as data, the same on every backend: what a copy moves and what a digest covers.

``kxm admin migrate`` copies a hub's state table by table (``TABLES``, in an order that keeps
references valid) and proves the copy by comparing ``digest`` of both sides; tests prove that a
refused call wrote nothing the same way. ``raw_connection`` opens a database by URL as a plain
``Connection`` (``kxm_grpc/store/sql/connection.py``) for such tools: no migrations, no hub.

A digest is a SHA-256 over every table in ``TABLES`` order, each row in primary-key order,
written as JSON arrays of its columns in ``SELECT *`` order: SQLite's INTEGER and PostgreSQL's
BIGINT both read as Python ints and text as str, so equal contents give equal digests across
backends. Tables of per-process state that a copy leaves behind are not in ``TABLES``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from kxm_grpc.store.base import StoreError
from kxm_grpc.store.sql.connection import Connection
from kxm_grpc.store.url import parse_database_url


@dataclass(frozen=True, slots=True)
class Table:
    """A table and its primary key (the order its rows are copied and digested in)."""

    name: str
    key: tuple[str, ...]


TABLES: tuple[Table, ...] = (
    Table("meta", ("key",)),
    Table("credentials_version", ("id",)),
    Table("projects", ("name",)),
    Table("operators", ("name",)),
    Table("audit_records", ("seq",)),
    Table("session_tokens", ("session_id",)),
    Table("agents", ("id",)),
    Table("messages", ("id",)),
    Table("log_heads", ("log", "owner")),
    Table("inbox_entries", ("owner", "seq")),
    Table("leases", ("project", "name")),
    Table("timers", ("kind", "key")),
    Table("runtimes", ("project", "id")),
    Table("sync_projects", ("project_id",)),
    Table("sync_runs", ("project_id", "run_id")),
    Table("sync_events", ("project_id", "run_id", "sequence")),
    Table("gate_registries", ("project",)),
    Table("workflow_definitions", ("id",)),
    Table("workflow_definition_versions", ("hash",)),
    Table("workflow_runs", ("id",)),
    Table("workflow_journal", ("run_id", "sequence")),
    Table("workflow_retrospectives", ("run_id",)),
    Table("workflow_payloads", ("run_id",)),
    Table("workflow_deliveries", ("definition_id", "kind", "delivery_id")),
    Table("workflow_steps", ("run_id", "request_id")),
    Table("workflow_notifications", ("id",)),
    Table("step_runs", ("id",)),
    Table("step_run_events", ("run_id", "sequence")),
    Table("step_run_assignments", ("id",)),
    Table("context_items", ("project", "id")),
    Table("context_postings", ("project", "term", "kind", "status", "item_id")),
    Table("context_index_stats", ("project", "kind", "status")),
    Table("skills", ("project", "id")),
    Table("skill_events", ("project", "skill_id", "sequence")),
)
"""Every table of the hub's state, parents before the tables that refer to them."""


def columns(conn: Connection, table: Table) -> list[str]:
    """The table's column names in ``SELECT *`` order."""
    cursor = conn.execute(f"SELECT * FROM {table.name} WHERE 1 = 0")
    description = getattr(cursor, "description", None) or ()
    return [str(column[0]) for column in description]


def rows(conn: Connection, table: Table) -> list[tuple[object, ...]]:
    """Every row of the table in primary-key order, columns in ``SELECT *`` order."""
    return [
        tuple(row) for row in conn.execute(f"SELECT * FROM {table.name} ORDER BY {', '.join(table.key)}").fetchall()
    ]


def counts(conn: Connection) -> dict[str, int]:
    """The number of rows of each table of ``TABLES``."""
    return {table.name: int(conn.execute(f"SELECT COUNT(*) FROM {table.name}").fetchone()[0]) for table in TABLES}


def _hash_table(hashed: hashlib._Hash, conn: Connection, table: Table) -> None:
    """Feed ``table``'s name, columns and rows (in primary-key order) to ``hashed``."""
    hashed.update(json.dumps([table.name, columns(conn, table)]).encode())
    for row in rows(conn, table):
        hashed.update(json.dumps(row, separators=(",", ":"), default=json_blob).encode())


def json_blob(value: object) -> str:
    """A BLOB (SQLite ``bytes``, PostgreSQL ``bytea`` as ``bytes`` or ``memoryview``) as hex, so
    both backends digest it alike.

    Raises:
        TypeError: any other value JSON cannot write.
    """
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    raise TypeError(f"{type(value).__name__} in a row")


def digest(conn: Connection) -> str:
    """The SHA-256 of every row of every table (see the module docstring), as hex."""
    hashed = hashlib.sha256()
    for table in TABLES:
        _hash_table(hashed, conn, table)
    return hashed.hexdigest()


def table_digest(conn: Connection, table: Table) -> str:
    """The SHA-256 of one table as ``digest`` hashes it, as hex: which table of two databases differs."""
    hashed = hashlib.sha256()
    _hash_table(hashed, conn, table)
    return hashed.hexdigest()


@contextlib.contextmanager
def raw_connection(url: str) -> Iterator[Connection]:
    """A plain connection to the database at ``url`` (autocommit; closed on exit), for tools and tests.

    Raises:
        StoreError: the URL is not supported, names an in-memory database, or psycopg is missing.
    """
    parsed = parse_database_url(url)
    if parsed.memory:
        raise StoreError("an in-memory database cannot be opened from outside its hub")
    if parsed.scheme == "sqlite":
        conn = sqlite3.connect(parsed.path, isolation_level=None, timeout=5)
        try:
            yield conn
        finally:
            conn.close()
        return
    try:
        import psycopg

        from kxm_grpc.store.postgres.connection import PgConnection
    except ImportError as exc:
        raise StoreError(f"a postgresql database needs psycopg: pip install 'kxm-hub[postgres]' ({exc})") from None
    with psycopg.connect(parsed.path, autocommit=True) as raw:
        yield PgConnection(raw)
