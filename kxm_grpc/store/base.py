"""The Store protocol: what services may ask of persistence.

A service hands the store a *unit of work*, a plain function that receives a ``Tx`` (one
repository per table) and runs inside one transaction: either all of its writes commit or none
do. ``write`` is acknowledged only once the transaction is durable at the configured level.
Work functions are synchronous and must not block on anything but the database: the SQLite
adapter runs them on its writer thread, committing several concurrent ones together.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.leases import Fence, Lease
from kxm_grpc.domain.messages import Event, EventKind, Message
from kxm_grpc.domain.projects import Project
from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.domain.sync_events import StoredEvent, SyncRun
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
        """Return the project's agent (not retired) with this case-insensitive name, or None."""

    def put(self, agent: Agent) -> None:
        """Insert or update the agent (its key is kept)."""

    def set_key_hash(self, agent_id: str, key_hash: str) -> None:
        """Issue a new key: store its hash and make it active."""

    def revoke_key(self, agent_id: str) -> None:
        """Stop the agent's key from authenticating, or proving anything (it is dead for good)."""

    def retire(self, agent_id: str, now: int) -> None:
        """Release the name of an unregistered agent for a fresh one; its row stays for its history."""

    def list_page(self, project: str, after: str | None, limit: int, *, include_offline: bool) -> list[Agent]:
        """The project's agents (not retired) ordered by id, after ``after``."""

    def list_online_seen_before(self, cutoff: int, limit: int) -> list[Agent]:
        """Online agents (any project) last seen before ``cutoff``."""

    def list_online(self, project: str) -> list[Agent]:
        """The project's agents whose online flag is set."""

    def mark_all_offline(self) -> int:
        """Turn every online flag off (at start: presence never survives a restart)."""


class MessageRepository(Protocol):
    """Peer messages."""

    def get(self, message_id: str) -> Message | None:
        """Return the message (of any project), or None."""

    def find_by_key(self, from_agent_id: str, idempotency_key: str) -> Message | None:
        """Return the sender's retained message with this idempotency key, or None."""

    def insert(self, message: Message) -> None:
        """Store a new message."""

    def update(self, message: Message) -> None:
        """Store a message's new state, times, reply and error."""

    def list_open_to(
        self, agent_id: str, after_seq: int, limit: int, *, queued_only: bool = False, through_seq: int | None = None
    ) -> list[Message]:
        """The agent's queued and delivered (or only queued) inbound messages with
        ``after_seq < seq <= through_seq`` (no upper bound when None), by seq."""

    def list_due(self, now: int, limit: int) -> list[Message]:
        """Open messages whose deadline is at or before ``now``, earliest first."""

    def next_deadline(self) -> int | None:
        """The earliest deadline of any open message, or None."""

    def list_ended_before(self, cutoff: int, limit: int) -> list[str]:
        """Ids of terminal messages that ended at or before ``cutoff``, oldest first."""

    def delete(self, message_ids: Iterable[str]) -> int:
        """Delete messages; return how many."""


class EventRepository(Protocol):
    """Per-agent event logs with durable, gapless sequence numbers."""

    def next_seq(self, agent_id: str) -> int:
        """Issue the agent's next sequence number (1, 2, …; never reused)."""

    def append(
        self,
        agent_id: str,
        seq: int,
        kind: EventKind,
        event_time: int,
        *,
        message_id: str | None = None,
        subject: Agent | None = None,
    ) -> None:
        """Record an event under a sequence number from ``next_seq``."""

    def read_after(self, agent_id: str, after_seq: int, limit: int, *, presence_only: bool = False) -> list[Event]:
        """The agent's retained events after ``after_seq`` in order, with their messages as they are now."""

    def log_state(self, agent_id: str) -> tuple[int, int, int]:
        """The agent's head seq, oldest retained seq and highest purged seq (0 when none)."""

    def delete_for_messages(self, message_ids: Iterable[str]) -> int:
        """Delete every event about these messages; return how many."""

    def delete_presence_before(self, cutoff: int) -> int:
        """Delete presence events recorded before ``cutoff``; return how many."""


class LeaseRepository(Protocol):
    """Lease fences: one per (project, name), kept after release as the name's high-water mark."""

    def get(self, project: str, name: str) -> Fence | None:
        """Return the name's fence (high-water mark and current grant), or None if never leased."""

    def put(self, fence: Fence) -> None:
        """Insert or replace the fence."""

    def list_page(self, project: str, after: str | None, limit: int, *, now: int, include_lapsed: bool) -> list[Lease]:
        """The project's current grants ordered by name, after ``after``; live ones only unless asked."""

    def any_live(self, now: int) -> bool:
        """Whether any grant (any project) is live at ``now``."""

    def next_expiry_after(self, after: int) -> int | None:
        """The earliest expiry of a held grant later than ``after``, or None."""

    def extend_live(self, live_after: int, shift: int) -> list[Lease]:
        """Push back by ``shift`` every grant that was live at ``live_after``; return them."""


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

    def list_page(self, project: str, after: str | None, limit: int) -> list[Runtime]:
        """The project's runtimes ordered by id, after ``after``."""


class SyncEventRepository(Protocol):
    """Accepted sync events, per-run cursors and the owner of each runtime-side project id."""

    def owner(self, project_id: str) -> str | None:
        """The hub project that owns the project id, or None."""

    def set_owner(self, project_id: str, hub_project: str) -> int:
        """Give the project id (and its runs) to a hub project; return how many events it has."""

    def get_run(self, project_id: str, run_id: str) -> SyncRun | None:
        """Return the run's ingest state, or None."""

    def put_run(self, run: SyncRun) -> None:
        """Insert or replace the run's ingest state."""

    def get_hash(self, project_id: str, run_id: str, sequence: int) -> str | None:
        """The content hash stored at the slot, or None."""

    def insert(self, event: StoredEvent) -> None:
        """Store an accepted event."""

    def sequences_after(self, project_id: str, run_id: str, after: int, limit: int) -> list[int]:
        """Stored sequences of the run above ``after``, ascending."""

    def list_events(self, project_id: str, run_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Stored events of the run above ``after``, by sequence."""


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

    @property
    def messages(self) -> MessageRepository:
        """Peer messages."""

    @property
    def events(self) -> EventRepository:
        """Per-agent event logs."""

    @property
    def leases(self) -> LeaseRepository:
        """Lease fences."""

    @property
    def runtimes(self) -> RuntimeRepository:
        """Runtimes."""

    @property
    def sync_events(self) -> SyncEventRepository:
        """Sync events and run cursors."""

    def notify(self, topic: str, hint: object | None = None) -> None:
        """Wake waiters of ``topic`` once this transaction commits, handing them ``hint`` (see ``Notifier``)."""


class Store(Protocol):
    """Persistence for the hub."""

    notifier: Notifier
    description: str

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
