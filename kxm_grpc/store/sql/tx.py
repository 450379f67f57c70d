"""One transaction: every area's repository bound to one connection (``Tx``)."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.store.notify import Change, project_topic
from kxm_grpc.store.sql.agents import SqlAgents
from kxm_grpc.store.sql.audit import SqlAudit
from kxm_grpc.store.sql.census import SqlCensus
from kxm_grpc.store.sql.connection import Connection
from kxm_grpc.store.sql.context_items import SqlContextItems
from kxm_grpc.store.sql.credentials import SqlCredentials
from kxm_grpc.store.sql.gates import SqlGateRegistries
from kxm_grpc.store.sql.inbox import SqlInbox
from kxm_grpc.store.sql.journal import SqlJournal
from kxm_grpc.store.sql.leases import SqlLeases
from kxm_grpc.store.sql.messages import SqlMessages
from kxm_grpc.store.sql.meta import SqlMeta
from kxm_grpc.store.sql.operators import SqlOperators
from kxm_grpc.store.sql.projects import SqlProjects
from kxm_grpc.store.sql.replicas import SqlReplicas
from kxm_grpc.store.sql.runtimes import SqlRuntimes
from kxm_grpc.store.sql.session_tokens import SqlSessionTokens
from kxm_grpc.store.sql.skills import SqlSkills
from kxm_grpc.store.sql.step_runs import SqlStepRuns
from kxm_grpc.store.sql.sync_events import SqlSyncEvents
from kxm_grpc.store.sql.timers import SqlTimers
from kxm_grpc.store.sql.workflows import SqlWorkflows


class SqlTx:
    """Every repository bound to one connection, plus the topics the current work changed.

    One instance serves a connection for its whole life: the writer thread runs one unit of work
    at a time and collects the topics of each with ``take_topics``.
    """

    def __init__(self, conn: Connection, journal_keys: Callable[[], Keyring | None] = lambda: None) -> None:
        self._journal_keys = journal_keys
        self.meta = SqlMeta(conn)
        self.projects = SqlProjects(conn)
        self.agents = SqlAgents(conn, self._project_changed)
        self.messages = SqlMessages(conn, self._project_changed)
        self.inbox = SqlInbox(conn)
        self.leases = SqlLeases(conn, self._project_changed)
        self.runtimes = SqlRuntimes(conn, self._project_changed)
        self.sync_events = SqlSyncEvents(conn, self._project_changed)
        self.timers = SqlTimers(conn)
        self.operators = SqlOperators(conn)
        self.audit = SqlAudit(conn)
        self.credentials = SqlCredentials(conn)
        self.replicas = SqlReplicas(conn)
        self.workflows = SqlWorkflows(conn, self._project_changed)
        self.journal = SqlJournal(conn, self._project_changed)
        self.session_tokens = SqlSessionTokens(conn)
        self.gate_registries = SqlGateRegistries(conn)
        self.step_runs = SqlStepRuns(conn, self._project_changed)
        self.context_items = SqlContextItems(conn)
        self.skills = SqlSkills(conn)
        self.census = SqlCensus(conn)
        self.topics: list[Change] = []

    @property
    def journal_keys(self) -> Keyring | None:
        return self._journal_keys()

    def notify(self, topic: str, hint: object | None = None) -> None:
        self.topics.append((topic, hint))

    def _project_changed(self, project: str) -> None:
        self.topics.append((project_topic(project), None))

    def take_topics(self) -> list[Change]:
        """Return and forget the changes collected so far."""
        topics, self.topics = self.topics, []
        return topics
