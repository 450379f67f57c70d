"""A psycopg connection that takes the shared repositories' SQL (``?`` placeholders) as it is."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import psycopg


@functools.lru_cache(maxsize=4096)
def to_psycopg(sql: str) -> str:
    """``sql`` with each ``?`` placeholder as psycopg's ``%s`` (and a literal ``%`` doubled).

    The shared SQL never puts ``?`` inside a string literal, so every ``?`` is a placeholder.
    """
    return sql.replace("%", "%%").replace("?", "%s")


class PgConnection:
    """The ``Connection`` of ``kxm_grpc/store/sql/`` over one psycopg connection."""

    __slots__ = ("raw",)

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> psycopg.Cursor[Any]:
        """Run one statement (``?`` placeholders).

        Raises:
            psycopg.Error: what PostgreSQL or the driver raised.
        """
        # Always a parameter sequence, even empty: psycopg then reads ``%%`` as ``%`` in every statement.
        return self.raw.execute(to_psycopg(sql), tuple(parameters))
