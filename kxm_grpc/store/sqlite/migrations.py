"""Numbered schema migrations, applied in order at start (``PRAGMA user_version`` holds the last).

sqlite-utils owns schema changes; hot paths use plain SQL against the tables created here.
Append new migrations at the end; never edit one that has shipped. Times are INTEGER
microseconds since the epoch (UTC).
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]


def _0001_foundation(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key", strict=True)
    db.table("projects").create(
        {"name": str, "token_hash": str, "create_time": int, "token_rotate_time": int},
        pk="name",
        not_null={"token_hash", "create_time", "token_rotate_time"},
        strict=True,
    )
    db.table("projects").create_index(["token_hash"], unique=True)
    db.table("agents").create(
        {
            "id": str,
            "project": str,
            "name": str,
            "name_key": str,
            "purpose": str,
            "model": str,
            "host": str,
            "key_hash": str,
            "key_active": int,
            "online": int,
            "connect_time": int,
            "last_seen_time": int,
        },
        pk="id",
        not_null={
            "project",
            "name",
            "name_key",
            "purpose",
            "model",
            "host",
            "key_active",
            "online",
            "connect_time",
            "last_seen_time",
        },
        strict=True,
    )
    db.table("agents").create_index(["project", "name_key"], unique=True)
    db.table("agents").create_index(["online", "last_seen_time"])


def _0002_messaging(db: sqlite_utils.Database) -> None:
    """Messages, per-agent event logs and sequences (MessageService)."""


def _0003_leases_runtimes(db: sqlite_utils.Database) -> None:
    """Leases with per-name fencing high-water marks, runtimes and sync events."""


MIGRATIONS: list[Migration] = [
    _0001_foundation,
    _0002_messaging,
    _0003_leases_runtimes,
]
