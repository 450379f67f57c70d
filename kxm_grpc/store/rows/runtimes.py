"""Rows of ``runtimes`` (key hashes are written and matched, never decoded)."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.store.rows import Columns, Row

RUNTIMES = Columns("runtimes", "project", "id", "host", "register_time", "heartbeat_time")


def _decoder(columns: Columns) -> Callable[[Row], Runtime]:
    project, id_, host, register_time, heartbeat_time = columns.positions(
        "project", "id", "host", "register_time", "heartbeat_time"
    )

    def runtime_from_row(row: Row) -> Runtime:
        """The runtime in a row selecting ``RUNTIMES``."""
        return Runtime(
            project=row[project],
            id=row[id_],
            host=row[host],
            register_time=row[register_time],
            heartbeat_time=row[heartbeat_time],
        )

    return runtime_from_row


runtime_from_row = _decoder(RUNTIMES)
