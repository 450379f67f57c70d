"""The Store protocol: what services may ask of persistence.

A service hands the store a *unit of work*, a plain function that receives a ``Tx`` (one
repository per table) and runs inside one transaction: either all of its writes commit or none
do. ``write`` is acknowledged only once the transaction is durable at the configured level.
Work functions are synchronous and must not block on anything but the database: the SQLite
adapter runs them on its writer thread, committing several concurrent ones together.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Protocol, TypeVar

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.projects import Project
from kxm_grpc.store.notify import Notifier

T = TypeVar("T")


class Durability(enum.Enum):
    """When a write is acknowledged."""

    FULL = "full"
    """Only after it is on disk (fsync): survives power loss."""

    NORMAL = "normal"
    """Once committed to the WAL: survives a crash of the hub process, not of the machine."""


class StoreError(Exception):
    """A storage failure that is not a rule violation (unreadable, newer schema, corrupt)."""


class MetaRepository(Protocol):
    """Small key/value settings of the hub itself."""

    def get(self, key: str) -> str | None:
        """Return the value, or None."""

    def put(self, key: str, value: str) -> None:
        """Set the value."""


class ProjectRepository(Protocol):
    """Projects and the hashes of their tokens."""

    def get(self, name: str) -> Project | None:
        """Return the project, or None."""

    def find_by_token_hash(self, token_hash: str) -> Project | None:
        """Return the project whose current token has this hash, or None."""

    def put(self, project: Project, token_hash: str) -> None:
        """Insert or replace the project and its token hash."""

    def list_page(self, after: str | None, limit: int) -> list[Project]:
        """Projects ordered by name, after ``after``."""


class AgentRepository(Protocol):
    """Agents and the hashes of their keys."""

    def get(self, agent_id: str) -> Agent | None:
        """Return the agent, or None."""

    def get_key(self, agent_id: str) -> tuple[str, bool] | None:
        """Return the hash of the agent's last key and whether it is still active (None: no agent)."""

    def find_by_name(self, project: str, name_key: str) -> Agent | None:
        """Return the project's agent with this case-insensitive name, or None."""

    def put(self, agent: Agent) -> None:
        """Insert or update the agent (its key is kept)."""

    def set_key_hash(self, agent_id: str, key_hash: str) -> None:
        """Issue a new key: store its hash and make it active."""

    def revoke_key(self, agent_id: str) -> None:
        """Stop the agent's key from authenticating; its hash still proves a name reclaim."""

    def list_page(self, project: str, after: str | None, limit: int, *, include_offline: bool) -> list[Agent]:
        """The project's agents ordered by id, after ``after``."""

    def list_online_seen_before(self, cutoff: int, limit: int) -> list[Agent]:
        """Online agents (any project) last seen before ``cutoff``."""

    def list_online(self, project: str) -> list[Agent]:
        """The project's agents whose online flag is set."""

    def mark_all_offline(self) -> int:
        """Turn every online flag off (at start: presence never survives a restart)."""


class Tx(Protocol):
    """One transaction's view of the store."""

    @property
    def meta(self) -> MetaRepository:
        """Hub settings."""

    @property
    def projects(self) -> ProjectRepository:
        """Projects."""

    @property
    def agents(self) -> AgentRepository:
        """Agents."""

    def notify(self, topic: str) -> None:
        """Wake waiters of ``topic`` once this transaction commits."""


class Store(Protocol):
    """Persistence for the hub."""

    notifier: Notifier
    description: str

    async def start(self) -> None:
        """Open, check and migrate the database.

        Raises:
            StoreError: the database is unreadable, corrupt, or newer than this hub.
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
