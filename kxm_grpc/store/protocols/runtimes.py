"""Runtimes and the hashes of their keys."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.runtimes import Runtime


class RuntimeRepository(Protocol):
    """Runtimes and the hashes of their keys."""

    def get(self, project: str, runtime_id: str) -> Runtime | None:
        """Return the project's runtime, or None."""

    def find_by_key_hash(self, key_hash: str) -> Runtime | None:
        """Return the runtime whose current key has this hash, or None."""

    def put(self, runtime: Runtime, key_hash: str) -> None:
        """Insert or replace the runtime with a new key hash."""

    def heartbeat(self, project: str, runtime_id: str, host: str, now: int) -> None:
        """Record a heartbeat and the host it reported."""

    def count(self, project: str) -> int:
        """How many runtimes the project has."""

    def list_page(self, project: str, after: str | None, limit: int) -> list[Runtime]:
        """The project's runtimes ordered by id, after ``after``."""
