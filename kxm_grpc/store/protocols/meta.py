"""The hub's own small settings (key/value)."""

from __future__ import annotations

from typing import Protocol


class MetaRepository(Protocol):
    """Small key/value settings of the hub itself."""

    def get(self, key: str) -> str | None:
        """Return the value, or None."""

    def put(self, key: str, value: str) -> None:
        """Set the value."""
