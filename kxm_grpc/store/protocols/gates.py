"""Gate registries: one ``kxm.gate-registry.v1`` document per project, replaced whole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class StoredGateRegistry:
    """A project's gate registry: its normalised JSON and the hash step plans pin it by."""

    project: str
    hash: str
    document: str
    """Canonical JSON of the loaded registry (``GateRegistry.to_json``), opaque to the store."""
    update_time: int
    registered_by: str
    """The operator who registered it (``--workflows`` for an import at start)."""


class GateRegistryRepository(Protocol):
    """Each project's gate registry (none until one is registered)."""

    def get(self, project: str) -> StoredGateRegistry | None:
        """The project's registry, or None."""

    def put(self, registry: StoredGateRegistry) -> None:
        """Insert or replace the project's registry."""
