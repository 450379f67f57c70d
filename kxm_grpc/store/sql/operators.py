"""Named operators and their token hashes."""

from __future__ import annotations

from kxm_grpc.domain.operators import Operator
from kxm_grpc.store.rows.operators import OPERATORS, operator_from_row
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {OPERATORS.select} FROM operators"


class SqlOperators:
    """Named operators and the hashes of their tokens."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def get(self, name: str) -> Operator | None:
        row = self._conn.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone()
        return None if row is None else operator_from_row(row)

    def find_by_token_hash(self, token_hash: str) -> Operator | None:
        row = self._conn.execute(f"{_SELECT} WHERE token_hash = ?", (token_hash,)).fetchone()
        return None if row is None else operator_from_row(row)

    def insert(self, operator: Operator, token_hash: str) -> None:
        self._conn.execute(
            "INSERT INTO operators (name, token_hash, create_time, revoke_time) VALUES (?, ?, ?, ?)",
            (operator.name, token_hash, operator.create_time, operator.revoke_time),
        )

    def revoke(self, name: str, now: int) -> None:
        self._conn.execute("UPDATE operators SET revoke_time = ? WHERE name = ? AND revoke_time IS NULL", (now, name))

    def list_page(self, after: str | None, limit: int) -> list[Operator]:
        rows = self._conn.execute(f"{_SELECT} WHERE name > ? ORDER BY name LIMIT ?", (after or "", limit)).fetchall()
        return [operator_from_row(row) for row in rows]
