"""Rows of ``operators`` (token hashes are written and matched, never decoded)."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.operators import Operator
from kxm_grpc.store.rows import Columns, Row

OPERATORS = Columns("operators", "name", "create_time", "revoke_time")


def _decoder(columns: Columns) -> Callable[[Row], Operator]:
    name, create_time, revoke_time = columns.positions("name", "create_time", "revoke_time")

    def operator_from_row(row: Row) -> Operator:
        """The operator in a row selecting ``OPERATORS``."""
        return Operator(name=row[name], create_time=row[create_time], revoke_time=row[revoke_time])

    return operator_from_row


operator_from_row = _decoder(OPERATORS)
