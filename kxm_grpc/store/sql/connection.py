"""What the shared repositories need of a database connection: ``execute`` returning a cursor.

``sqlite3.Connection`` is one as it is. The PostgreSQL adapter wraps a psycopg connection
(``kxm_grpc/store/postgres/connection.py``) to take the same ``?`` placeholders, so every
repository's SQL is written once, in the subset both dialects share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    """The result of one statement."""

    @property
    def rowcount(self) -> int:
        """Rows the statement changed (an UPDATE or DELETE)."""
        ...

    def fetchone(self) -> Any:
        """The next row (a tuple), or None."""
        ...

    def fetchall(self) -> list[Any]:
        """The remaining rows (tuples)."""
        ...


class Connection(Protocol):
    """A connection whose ``execute`` takes SQL with ``?`` placeholders and their values."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor:
        """Run one statement.

        Raises:
            Exception: the adapter's database error (``sqlite3.Error``, ``psycopg.Error``).
        """
        ...
