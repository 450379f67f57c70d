"""The hub's settings (key/value)."""

from __future__ import annotations

from kxm_grpc.store.sql.connection import Connection


class SqlMeta:
    """Hub settings (key/value)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def get(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
