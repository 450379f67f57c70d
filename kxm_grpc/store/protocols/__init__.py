"""The store contract, one module per area: each area's repository protocol, and ``Tx``, one of each.

A unit of work receives a ``Tx``: one transaction's view of the store, with one repository per
area. An area (a table or a few that change together) is one module here declaring its repository
protocol, one module implementing it for every SQL adapter (``kxm_grpc/store/sql/``), its rows and
decoders (``kxm_grpc/store/rows/``), and its part of the contract suite
(``tests/store/contract/``). Adding an area adds those, its tables to each adapter's migrations, and one
property to ``Tx`` (and to ``SqlTx``); it touches no other area.
"""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.store.protocols.agents import AgentRepository
from kxm_grpc.store.protocols.audit import AuditRepository
from kxm_grpc.store.protocols.census import CensusRepository
from kxm_grpc.store.protocols.context_items import ContextItemRepository
from kxm_grpc.store.protocols.credentials import CredentialsRepository
from kxm_grpc.store.protocols.gates import GateRegistryRepository
from kxm_grpc.store.protocols.inbox import InboxRepository
from kxm_grpc.store.protocols.journal import JournalRepository
from kxm_grpc.store.protocols.leases import LeaseRepository
from kxm_grpc.store.protocols.logs import LogState, SequencedLog
from kxm_grpc.store.protocols.messages import MessageRepository
from kxm_grpc.store.protocols.meta import MetaRepository
from kxm_grpc.store.protocols.operators import OperatorRepository
from kxm_grpc.store.protocols.projects import ProjectRepository
from kxm_grpc.store.protocols.replicas import ReplicaRepository
from kxm_grpc.store.protocols.runtimes import RuntimeRepository
from kxm_grpc.store.protocols.session_tokens import SessionTokenRepository
from kxm_grpc.store.protocols.skills import SkillRepository
from kxm_grpc.store.protocols.step_runs import StepRunRepository
from kxm_grpc.store.protocols.sync_events import SyncEventRepository
from kxm_grpc.store.protocols.timers import Timer, TimerRepository
from kxm_grpc.store.protocols.workflows import WorkflowRepository

__all__ = [
    "AgentRepository",
    "AuditRepository",
    "ContextItemRepository",
    "CredentialsRepository",
    "GateRegistryRepository",
    "InboxRepository",
    "JournalRepository",
    "LeaseRepository",
    "LogState",
    "MessageRepository",
    "MetaRepository",
    "OperatorRepository",
    "ProjectRepository",
    "ReplicaRepository",
    "RuntimeRepository",
    "SequencedLog",
    "SessionTokenRepository",
    "SkillRepository",
    "StepRunRepository",
    "SyncEventRepository",
    "Timer",
    "TimerRepository",
    "Tx",
    "WorkflowRepository",
]


class Tx(Protocol):
    """One transaction's view of the store: a repository per area, and post-commit wake-ups."""

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
    def inbox(self) -> InboxRepository:
        """Each agent's inbox log."""

    @property
    def leases(self) -> LeaseRepository:
        """Lease fences."""

    @property
    def runtimes(self) -> RuntimeRepository:
        """Runtimes."""

    @property
    def sync_events(self) -> SyncEventRepository:
        """Sync events and run cursors."""

    @property
    def timers(self) -> TimerRepository:
        """Durable timers (every deadline)."""

    @property
    def operators(self) -> OperatorRepository:
        """Named operators."""

    @property
    def audit(self) -> AuditRepository:
        """The audit of admin actions."""

    @property
    def credentials(self) -> CredentialsRepository:
        """The durable credentials version."""

    @property
    def replicas(self) -> ReplicaRepository:
        """The replicas sharing the database (only a shared database's hubs write it)."""

    @property
    def workflows(self) -> WorkflowRepository:
        """Workflow definitions, runs, deliveries, steps and notifications."""

    @property
    def journal(self) -> JournalRepository:
        """The workflow runs' learning journals (records as chain links)."""

    @property
    def session_tokens(self) -> SessionTokenRepository:
        """The session tokens minted (their facts, never the tokens)."""

    @property
    def gate_registries(self) -> GateRegistryRepository:
        """Each project's gate registry (the gates its step workflows name)."""

    @property
    def step_runs(self) -> StepRunRepository:
        """The hub-driven step runs of ``kxm.workflow.v1`` plans: snapshots, event logs and assignments."""

    @property
    def context_items(self) -> ContextItemRepository:
        """Context items and the inverted index BM25 ranks them with."""

    @property
    def skills(self) -> SkillRepository:
        """Governed skills and their append-only histories."""

    @property
    def census(self) -> CensusRepository:
        """Counts of what the database holds (the metrics' domain gauges)."""

    @property
    def journal_keys(self) -> Keyring | None:
        """The store's ``journal_keys`` (the hub's journal keyring), for the services that seal and
        verify journal records inside a transaction; None until the hub hands them over."""

    def notify(self, topic: str, hint: object | None = None) -> None:
        """Wake waiters of ``topic`` once this transaction commits, handing them ``hint`` (see ``Notifier``)."""
