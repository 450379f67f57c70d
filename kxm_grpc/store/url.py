"""Database URLs: which adapter serves the hub, and on what.

The forms accepted (``--database``, ``KXM_DATABASE``):

==============================  ===============================================================
``sqlite:///RELATIVE/PATH``     a SQLite file, relative to the working directory (three slashes)
``sqlite:////ABSOLUTE/PATH``    a SQLite file at an absolute path (four slashes)
``sqlite://:memory:``           an in-memory SQLite database: nothing persists (also ``sqlite:///:memory:``)
``PATH``, ``:memory:``          a bare path (no ``scheme:`` prefix) is a SQLite file, as before URLs
``postgresql://USER@HOST/DB``   a PostgreSQL database (also ``postgres://``): libpq's URL form,
                                with its query parameters (``?sslmode=require``, …); replicas of
                                the hub may share it (the ``postgres`` extra)
==============================  ===============================================================

These follow SQLAlchemy's SQLite URLs: after ``sqlite://`` comes an empty host, then ``/``, then the
path as given. Anything that starts with a URL scheme (letters, digits, ``+``, ``-`` or ``.``, at
least two characters, then ``:``) is read as a URL, so a relative file whose name holds a colon is
written ``./name:with:colons.db`` or ``sqlite:///name:with:colons.db``. A SQLite URL with a host
(``sqlite://host/x``), an empty path, a query or a fragment is refused, as is every other scheme.
A PostgreSQL URL is handed to libpq as it is (libpq checks it when connecting). Error messages
name the scheme, never the URL: a PostgreSQL URL may carry a password.

Adding an adapter adds its scheme to ``_OPENERS``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from kxm_grpc.store.base import Durability, Store, StoreError

MEMORY = ":memory:"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")

SUPPORTED = (
    "sqlite:///RELATIVE/PATH, sqlite:////ABSOLUTE/PATH, sqlite://:memory:, a bare SQLite file path, "
    "or postgresql://USER@HOST:PORT/DATABASE"
)
"""The forms accepted, as error messages list them."""


POSTGRES_SCHEMES = frozenset({"postgresql", "postgres"})


@dataclass(frozen=True, slots=True)
class DatabaseUrl:
    """A parsed database URL: the adapter's scheme and what it opens.

    For SQLite ``path`` is a file path or ``:memory:``; for PostgreSQL (scheme ``postgresql``) it
    is the whole URL as given, password included: never log it (``str()`` leaves it out).
    """

    scheme: str
    path: str

    @property
    def shared(self) -> bool:
        """Whether several hub processes may use this database at once (PostgreSQL)."""
        return self.scheme == "postgresql"

    @property
    def memory(self) -> bool:
        """Whether nothing persists."""
        return self.path == MEMORY

    def __str__(self) -> str:
        """The URL in its canonical form (a relative path stays relative; a PostgreSQL password left out)."""
        if self.scheme == "postgresql":
            return redact_postgres_url(self.path)
        return f"{self.scheme}://{MEMORY}" if self.memory else f"{self.scheme}:///{self.path}"


def redact_postgres_url(url: str) -> str:
    """A PostgreSQL URL without its password or query (which may hold one): ``postgresql://user@host:port/db``."""
    rest = url.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0]
    authority, _, database = rest.partition("/")
    user_info, at, host = authority.rpartition("@")
    user = user_info.split(":", 1)[0] if at else ""
    return f"postgresql://{user + '@' if user else ''}{host}/{database}"


def sqlite_description(path: str) -> str:
    """The canonical URL of a SQLite database (absolute for a file), as stores describe themselves in logs."""
    return str(DatabaseUrl("sqlite", path if path == MEMORY else os.path.abspath(path)))


def parse_database_url(text: str) -> DatabaseUrl:
    """Parse a database URL or bare SQLite path (see the module docstring for the forms).

    Raises:
        StoreError: an unknown scheme (the message names the supported forms) or a malformed
            SQLite URL.
    """
    match = _SCHEME.match(text)
    if match is None:
        if not text:
            raise StoreError(f"the database URL is empty; supported: {SUPPORTED}")
        return DatabaseUrl("sqlite", text)
    scheme = match.group(1).lower()
    if scheme in POSTGRES_SCHEMES:
        if not text[match.end() :].startswith("//"):
            raise StoreError(f"a {scheme} URL starts {scheme}:// ({SUPPORTED})")
        return DatabaseUrl("postgresql", text)
    if scheme not in _OPENERS:
        raise StoreError(
            f"unsupported database URL scheme {scheme!r}: the supported schemes are sqlite and postgresql ({SUPPORTED})"
        )
    rest = text[match.end() :]
    if not rest.startswith("//"):
        raise StoreError(f"a {scheme} URL starts {scheme}:// ({SUPPORTED})")
    rest = rest[2:]
    if "?" in rest or "#" in rest:
        raise StoreError(f"a {scheme} database URL takes no query or fragment ({SUPPORTED})")
    if rest == MEMORY:
        return DatabaseUrl(scheme, MEMORY)
    if not rest:
        raise StoreError(f"the {scheme} database URL names no file ({SUPPORTED})")
    if not rest.startswith("/"):
        raise StoreError(f"a {scheme} database URL names no host: write {scheme}:/// then the path ({SUPPORTED})")
    path = rest[1:]
    if not path or path.endswith("/"):
        raise StoreError(f"the {scheme} database URL names no file ({SUPPORTED})")
    return DatabaseUrl(scheme, path)


SQLITE_BUSY_TIMEOUT = 5.0
"""Seconds a SQLite write waits for another connection's lock before it fails (UNAVAILABLE)."""


def _open_sqlite(url: DatabaseUrl, durability: Durability, busy_timeout: float) -> Store:
    from kxm_grpc.store.sqlite import SqliteStore  # only the adapter a URL names is imported

    return SqliteStore(url.path, durability=durability, busy_timeout=busy_timeout)


def _open_postgres(url: DatabaseUrl, durability: Durability, busy_timeout: float) -> Store:
    """PostgreSQL's store; ``busy_timeout`` is SQLite's and is not used (row locks wait in the server)."""
    try:
        from kxm_grpc.store.postgres import PostgresStore
    except ImportError as exc:
        raise StoreError(
            f"a postgresql database needs psycopg: pip install 'kxm-hub[postgres]' ({exc.name} is missing)"
        ) from None
    return PostgresStore(url.path, durability=durability)


_OPENERS: dict[str, Callable[[DatabaseUrl, Durability, float], Store]] = {
    "sqlite": _open_sqlite,
    "postgresql": _open_postgres,
}


def open_store(
    url: str, *, durability: Durability = Durability.FULL, sqlite_busy_timeout: float = SQLITE_BUSY_TIMEOUT
) -> Store:
    """The store (not yet started) for a database URL or bare SQLite path.

    ``sqlite_busy_timeout``: how long a SQLite write waits for another process's lock.

    Raises:
        StoreError: the URL is not one of the supported forms.
    """
    parsed = parse_database_url(url)
    return _OPENERS[parsed.scheme](parsed, durability, sqlite_busy_timeout)
