"""Rows of ``timers``: one per deadline."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.store.protocols.timers import Timer
from kxm_grpc.store.rows import Columns, Row

TIMERS = Columns("timers", "kind", "key", "due_time")


def _decoder(columns: Columns) -> Callable[[Row], Timer]:
    kind, key, due_time = columns.positions("kind", "key", "due_time")

    def timer_from_row(row: Row) -> Timer:
        """The timer in a row selecting ``TIMERS``."""
        return Timer(kind=row[kind], key=row[key], due_time=row[due_time])

    return timer_from_row


timer_from_row = _decoder(TIMERS)
