"""Gate registries: ``gate_registries``, one row per project."""

from __future__ import annotations

from kxm_grpc.store.protocols.gates import StoredGateRegistry
from kxm_grpc.store.rows.gates import GATE_REGISTRIES, gate_registry_from_row, gate_registry_values
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {GATE_REGISTRIES.select} FROM gate_registries"
_UPSERT = (
    f"INSERT INTO gate_registries ({GATE_REGISTRIES.select}) VALUES ({', '.join('?' * GATE_REGISTRIES.width)}) "
    "ON CONFLICT (project) DO UPDATE SET hash = excluded.hash, document = excluded.document, "
    "update_time = excluded.update_time, registered_by = excluded.registered_by"
)


class SqlGateRegistries:
    """Each project's gate registry."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def get(self, project: str) -> StoredGateRegistry | None:
        row = self._conn.execute(f"{_SELECT} WHERE project = ?", (project,)).fetchone()
        return None if row is None else gate_registry_from_row(row)

    def put(self, registry: StoredGateRegistry) -> None:
        self._conn.execute(_UPSERT, gate_registry_values(registry))
