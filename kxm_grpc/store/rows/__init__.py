"""Rows ↔ domain objects, one module per area: each table's column declaration and its decoders.

Rows are mapped by column name, not by counting: each table declares its columns once
(``Columns``), queries select ``columns.select`` (or ``qualified(alias)`` in a join), and each
decoder asks for the positions of the columns it reads by name (``positions``) when its module is
imported. The decoders keep those positions in closure variables, so decoding a row costs what
indexing it with literal numbers did (the stream's delivery path decodes every event it sends;
docs/performance.md). Nothing in this package is SQL-dialect specific: every adapter (SQLite now,
PostgreSQL later) selects the declared columns and decodes with the same functions.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

Row = Sequence[Any]
"""A selected row: a tuple from sqlite3 (and from psycopg's default row factory)."""


class Columns:
    """The columns a table's queries select, in select order, with each one's position.

    Raises:
        ValueError: a column is declared twice.
    """

    __slots__ = ("_at", "_in_order", "names", "select", "table", "width")

    def __init__(self, table: str, *names: str) -> None:
        if len(set(names)) != len(names):
            raise ValueError(f"{table}: a column is declared twice in {names}")
        self.table = table
        self.names = names
        self.width = len(names)
        self.select = ", ".join(names)
        """The select (and insert) list: ``id, project, ...``."""
        self._at = {name: index for index, name in enumerate(names)}
        self._in_order = operator.itemgetter(*names)

    def qualified(self, alias: str) -> str:
        """The select list with every column qualified by ``alias`` (``m.id, m.project, ...``), for joins."""
        return ", ".join(f"{alias}.{name}" for name in self.names)

    def positions(self, *names: str) -> tuple[int, ...]:
        """The position of each named column in a selected row, in the order asked.

        Raises:
            KeyError: a name is not a declared column (at import: a decoder reads a column it
                does not select).
        """
        try:
            return tuple(self._at[name] for name in names)
        except KeyError as missing:
            raise KeyError(f"{self.table} declares no column {missing.args[0]!r}") from None

    def values(self, by_name: Mapping[str, object]) -> tuple[object, ...]:
        """``by_name``'s values in select order: the parameters of an insert of ``select``.

        Raises:
            KeyError: a declared column has no value.
        """
        ordered = self._in_order(by_name)
        return ordered if self.width > 1 else (ordered,)
