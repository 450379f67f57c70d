"""The Store protocol: what services may ask of persistence.

A service hands the store a *unit of work*, a plain function that receives a ``Tx`` (one
repository per area, ``kxm_grpc/store/protocols/``) and runs inside one transaction: either all
of its writes commit or none do. ``write`` is acknowledged only once the transaction is durable
at the configured level. Work functions are synchronous and must not block on anything but the
database: the SQLite adapter runs them on its writer thread, committing several concurrent ones
together. Which adapter serves a hub is chosen by its database URL (``kxm_grpc/store/url.py``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Protocol, TypeVar

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.store.notify import Notifier
from kxm_grpc.store.protocols import Tx

T = TypeVar("T")


class Durability(enum.Enum):
    """When a write is acknowledged."""

    FULL = "full"
    """Only after it is on disk (fsync): survives power loss."""

    NORMAL = "normal"
    """Once committed to the WAL: survives a crash of the hub process, not of the machine."""


class StoreError(Exception):
    """A storage failure that is not a rule violation (unreadable, newer schema, corrupt)."""


class Store(Protocol):
    """Persistence for the hub."""

    notifier: Notifier
    description: str
    """The database, as a URL that opens it again (``sqlite:////srv/kxm/hub.db``; a PostgreSQL URL
    without its password); for logs."""
    journal_keys: Keyring | None
    """The hub's journal keyring (``journal_chain.Keyring``), which the hub sets before it serves:
    configuration, never written to the database, handed to every transaction (``Tx.journal_keys``)
    so the services seal hub-authored entries in the transaction of the decision they record."""
    shared: bool
    """Whether other hub processes may use the database at the same time (PostgreSQL replicas):
    then no process may assume it is alone, at start (agents' streams, downtime) or after."""

    @property
    def healthy(self) -> bool:
        """False from a write the database itself refused (full, read-only, failing) until the
        adapter's probe write succeeds again; errors of the work (a rule it broke) never change it."""

    def add_health_listener(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(healthy)`` on the event loop each time ``healthy`` changes."""

    async def start(self) -> None:
        """Open, check and migrate the database.

        Raises:
            StoreError: the database is unreadable, corrupt, newer than this hub, or in use by
                another hub (one hub per SQLite file).
        """

    async def close(self) -> None:
        """Finish pending writes and close."""

    async def write(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in a write transaction; return its result once durable.

        Raises:
            HubError: whatever ``work`` raises (nothing it wrote is kept).
            Unavailable: the database stayed locked past the busy timeout.
            ResourceExhausted: the disk or database is full.
        """

    async def read(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` on a consistent snapshot; it must not write."""

    async def database_time(self) -> tuple[int, int]:
        """The database's clock and this machine's monotonic clock at one instant, in microseconds:
        (time since the epoch, monotonic time). SQLite's clock is this machine's.

        Raises:
            HubError: the database could not be asked.
        """
