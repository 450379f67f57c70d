"""The SQLite transaction: every area's repository bound to one connection (``Tx``)."""

from __future__ import annotations

import sqlite3

from kxm_grpc.store.notify import Change
from kxm_grpc.store.sqlite.agents import SqliteAgents
from kxm_grpc.store.sqlite.audit import SqliteAudit
from kxm_grpc.store.sqlite.credentials import SqliteCredentials
from kxm_grpc.store.sqlite.inbox import SqliteInbox
from kxm_grpc.store.sqlite.leases import SqliteLeases
from kxm_grpc.store.sqlite.messages import SqliteMessages
from kxm_grpc.store.sqlite.meta import SqliteMeta
from kxm_grpc.store.sqlite.operators import SqliteOperators
from kxm_grpc.store.sqlite.projects import SqliteProjects
from kxm_grpc.store.sqlite.runtimes import SqliteRuntimes
from kxm_grpc.store.sqlite.sync_events import SqliteSyncEvents
from kxm_grpc.store.sqlite.timers import SqliteTimers


class SqliteTx:
    """Every repository bound to one connection, plus the topics the current work changed.

    One instance serves a connection for its whole life: the writer thread runs one unit of work
    at a time and collects the topics of each with ``take_topics``.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.meta = SqliteMeta(conn)
        self.projects = SqliteProjects(conn)
        self.agents = SqliteAgents(conn)
        self.messages = SqliteMessages(conn)
        self.inbox = SqliteInbox(conn)
        self.leases = SqliteLeases(conn)
        self.runtimes = SqliteRuntimes(conn)
        self.sync_events = SqliteSyncEvents(conn)
        self.timers = SqliteTimers(conn)
        self.operators = SqliteOperators(conn)
        self.audit = SqliteAudit(conn)
        self.credentials = SqliteCredentials(conn)
        self.topics: list[Change] = []

    def notify(self, topic: str, hint: object | None = None) -> None:
        self.topics.append((topic, hint))

    def take_topics(self) -> list[Change]:
        """Return and forget the changes collected so far."""
        topics, self.topics = self.topics, []
        return topics
