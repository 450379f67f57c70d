"""Rows of ``gate_registries``."""

from __future__ import annotations

from kxm_grpc.store.protocols.gates import StoredGateRegistry
from kxm_grpc.store.rows import Columns, Row

GATE_REGISTRIES = Columns("gate_registries", "project", "hash", "document", "update_time", "registered_by")
"""Also the insert list: ``gate_registry_values`` follow this order."""

_PROJECT, _HASH, _DOCUMENT, _UPDATE_TIME, _REGISTERED_BY = GATE_REGISTRIES.positions(
    "project", "hash", "document", "update_time", "registered_by"
)


def gate_registry_values(registry: StoredGateRegistry) -> tuple[object, ...]:
    """The registry's column values in ``GATE_REGISTRIES`` order."""
    return GATE_REGISTRIES.values(
        {
            "project": registry.project,
            "hash": registry.hash,
            "document": registry.document,
            "update_time": registry.update_time,
            "registered_by": registry.registered_by,
        }
    )


def gate_registry_from_row(row: Row) -> StoredGateRegistry:
    """The registry in a row selecting ``GATE_REGISTRIES``."""
    return StoredGateRegistry(
        project=row[_PROJECT],
        hash=row[_HASH],
        document=row[_DOCUMENT],
        update_time=row[_UPDATE_TIME],
        registered_by=row[_REGISTERED_BY],
    )
