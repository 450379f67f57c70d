"""The replicas sharing one database: their heartbeats, the roles one holds at a time, their open streams.

Only a hub on a shared database (``Store.shared``: PostgreSQL) writes here; each replica is a row
whose ``expire_time`` its heartbeat keeps pushing forward, and a replica whose time has passed
counts as gone (its streams no longer count, its roles may be taken). Times are the hub's clock
(on a shared database, the database server's: ``kxm_grpc/server/replicas.py``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol


class ReplicaRepository(Protocol):
    """Replica heartbeats, roles and open streams."""

    def heartbeats(self) -> dict[str, int]:
        """Every replica's row: id → the expiry its last heartbeat set."""

    def join(self, replica_id: str, host: str, pid: int, now: int, expire_time: int, dead: Collection[str]) -> int:
        """Forget the ``dead`` replicas (their streams and roles too), add this one; return how many others remain."""

    def renew(self, replica_id: str, expire_time: int) -> bool:
        """Push this replica's expiry to ``expire_time``; False if its row was gone (it was taken for dead)."""

    def rejoin(self, replica_id: str, host: str, pid: int, now: int, expire_time: int) -> None:
        """Add this replica's row again after others took it for dead (its streams were forgotten)."""

    def leave(self, replica_id: str) -> None:
        """Remove this replica, its streams and every role it holds."""

    def claim(self, role: str, holder: str, now: int, expire_time: int) -> bool:
        """Hold ``role`` until ``expire_time`` if it is free, lapsed by ``now``, or ``holder``'s already."""

    def holder(self, role: str, now: int) -> str | None:
        """Who holds ``role`` at ``now``, or None."""

    def add_stream(self, stream_id: str, agent_id: str, replica_id: str, now: int) -> None:
        """Record an open stream."""

    def remove_stream(self, stream_id: str) -> None:
        """Forget a stream (nothing if it is not recorded)."""

    def count_streams(self, agent_id: str, now: int) -> int:
        """The agent's open streams on replicas live at ``now``."""
