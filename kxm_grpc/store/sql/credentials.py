"""The credentials version: one row, bumped by an atomic increment."""

from __future__ import annotations

from kxm_grpc.store.sql.connection import Connection


class SqlCredentials:
    """The durable credentials version (``credentials_version``, one row, seeded by its migration)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def version(self) -> int:
        row = self._conn.execute("SELECT version FROM credentials_version WHERE id = 1").fetchone()
        return 0 if row is None else int(row[0])

    def bump(self) -> int:
        row = self._conn.execute(
            "UPDATE credentials_version SET version = version + 1 WHERE id = 1 RETURNING version"
        ).fetchone()
        return int(row[0])
