"""Durable timers: ``timers (kind, key, due_time)``, one row per deadline."""

from __future__ import annotations

from collections.abc import Sequence

from kxm_grpc.store.protocols.timers import Timer
from kxm_grpc.store.rows.timers import TIMERS, timer_from_row
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {TIMERS.select} FROM timers"


class SqlTimers:
    """Timers keyed by (kind, key); ``timers_due`` orders each kind by deadline."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def get(self, kind: str, key: str) -> Timer | None:
        row = self._conn.execute(f"{_SELECT} WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        return None if row is None else timer_from_row(row)

    def put(self, timer: Timer) -> None:
        self._conn.execute(
            "INSERT INTO timers (kind, key, due_time) VALUES (?, ?, ?) "
            "ON CONFLICT (kind, key) DO UPDATE SET due_time = excluded.due_time",
            (timer.kind, timer.key, timer.due_time),
        )

    def delete(self, kind: str, key: str) -> None:
        self._conn.execute("DELETE FROM timers WHERE kind = ? AND key = ?", (kind, key))

    def next_due(self, kinds: Sequence[str]) -> int | None:
        # One indexed MIN per kind ((kind, due_time)): an IN list would make SQLite sort every timer.
        earliest = None
        for kind in kinds:
            row = self._conn.execute("SELECT MIN(due_time) FROM timers WHERE kind = ?", (kind,)).fetchone()
            if row[0] is not None and (earliest is None or row[0] < earliest):
                earliest = int(row[0])
        return earliest

    def list_due(self, now: int, kinds: Sequence[str], limit: int) -> list[Timer]:
        due: list[Timer] = []
        for kind in kinds:
            rows = self._conn.execute(
                f"{_SELECT} WHERE kind = ? AND due_time <= ? ORDER BY due_time, key LIMIT ?", (kind, now, limit)
            ).fetchall()
            due.extend(timer_from_row(row) for row in rows)
        due.sort(key=lambda timer: (timer.due_time, timer.kind, timer.key))
        return due[:limit]
