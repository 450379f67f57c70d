"""Plain-SQL repositories over one SQLite connection (the hot paths; no layout reflection)."""

from __future__ import annotations

import sqlite3

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.projects import Project
from kxm_grpc.store.notify import Change
from kxm_grpc.store.sqlite.leases import SqliteLeases
from kxm_grpc.store.sqlite.messages import SqliteEvents, SqliteMessages
from kxm_grpc.store.sqlite.runtimes import SqliteRuntimes, SqliteSyncEvents


class SqliteMeta:
    """Hub settings (key/value)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


_PROJECT_COLUMNS = "name, create_time, token_rotate_time"


def _project(row: tuple[str, int, int]) -> Project:
    return Project(name=row[0], create_time=row[1], token_rotate_time=row[2])


class SqliteProjects:
    """Projects and token hashes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, name: str) -> Project | None:
        row = self._conn.execute(f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE name = ?", (name,)).fetchone()
        return None if row is None else _project(row)

    def find_by_token_hash(self, token_hash: str) -> Project | None:
        row = self._conn.execute(
            f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return None if row is None else _project(row)

    def put(self, project: Project, token_hash: str) -> None:
        self._conn.execute(
            "INSERT INTO projects (name, token_hash, create_time, token_rotate_time) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash, "
            "token_rotate_time = excluded.token_rotate_time",
            (project.name, token_hash, project.create_time, project.token_rotate_time),
        )

    def list_page(self, after: str | None, limit: int) -> list[Project]:
        rows = self._conn.execute(
            f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE name > ? ORDER BY name LIMIT ?",
            (after or "", limit),
        ).fetchall()
        return [_project(row) for row in rows]


_AGENT_COLUMNS = "id, project, name, purpose, model, host, connect_time, last_seen_time, online"


def _agent(row: tuple[str, str, str, str, str, str, int, int, int]) -> Agent:
    return Agent(
        id=row[0],
        project=row[1],
        name=row[2],
        purpose=row[3],
        model=row[4],
        host=row[5],
        connect_time=row[6],
        last_seen_time=row[7],
        online=bool(row[8]),
    )


class SqliteAgents:
    """Agents and key hashes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, agent_id: str) -> Agent | None:
        row = self._conn.execute(f"SELECT {_AGENT_COLUMNS} FROM agents WHERE id = ?", (agent_id,)).fetchone()
        return None if row is None else _agent(row)

    def get_key(self, agent_id: str) -> tuple[str, bool] | None:
        row = self._conn.execute("SELECT key_hash, key_active FROM agents WHERE id = ?", (agent_id,)).fetchone()
        return None if row is None or row[0] is None else (str(row[0]), bool(row[1]))

    def find_by_name(self, project: str, name_key: str) -> Agent | None:
        row = self._conn.execute(
            f"SELECT {_AGENT_COLUMNS} FROM agents WHERE project = ? AND name_key = ? AND retire_time IS NULL",
            (project, name_key),
        ).fetchone()
        return None if row is None else _agent(row)

    def put(self, agent: Agent) -> None:
        self._conn.execute(
            "INSERT INTO agents (id, project, name, name_key, purpose, model, host, key_active, online, "
            "connect_time, last_seen_time) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "name = excluded.name, name_key = excluded.name_key, purpose = excluded.purpose, "
            "model = excluded.model, host = excluded.host, online = excluded.online, "
            "connect_time = excluded.connect_time, last_seen_time = excluded.last_seen_time",
            (
                agent.id,
                agent.project,
                agent.name,
                agent.name_key,
                agent.purpose,
                agent.model,
                agent.host,
                int(agent.online),
                agent.connect_time,
                agent.last_seen_time,
            ),
        )

    def set_key_hash(self, agent_id: str, key_hash: str) -> None:
        self._conn.execute("UPDATE agents SET key_hash = ?, key_active = 1 WHERE id = ?", (key_hash, agent_id))

    def revoke_key(self, agent_id: str) -> None:
        self._conn.execute("UPDATE agents SET key_active = 0 WHERE id = ?", (agent_id,))

    def retire(self, agent_id: str, now: int) -> None:
        self._conn.execute(
            "UPDATE agents SET retire_time = ?, online = 0, key_active = 0 WHERE id = ?", (now, agent_id)
        )

    def list_page(self, project: str, after: str | None, limit: int, *, include_offline: bool) -> list[Agent]:
        online_filter = "" if include_offline else " AND online = 1"
        rows = self._conn.execute(
            f"SELECT {_AGENT_COLUMNS} FROM agents WHERE project = ? AND id > ? AND retire_time IS NULL{online_filter} "
            "ORDER BY id LIMIT ?",
            (project, after or "", limit),
        ).fetchall()
        return [_agent(row) for row in rows]

    def list_online_seen_before(self, cutoff: int, limit: int) -> list[Agent]:
        rows = self._conn.execute(
            f"SELECT {_AGENT_COLUMNS} FROM agents WHERE online = 1 AND last_seen_time < ? "
            "ORDER BY last_seen_time LIMIT ?",
            (cutoff, limit),
        ).fetchall()
        return [_agent(row) for row in rows]

    def list_online(self, project: str) -> list[Agent]:
        rows = self._conn.execute(
            f"SELECT {_AGENT_COLUMNS} FROM agents WHERE project = ? AND online = 1", (project,)
        ).fetchall()
        return [_agent(row) for row in rows]

    def mark_all_offline(self) -> int:
        return self._conn.execute("UPDATE agents SET online = 0 WHERE online = 1").rowcount


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
        self.events = SqliteEvents(conn)
        self.leases = SqliteLeases(conn)
        self.runtimes = SqliteRuntimes(conn)
        self.sync_events = SqliteSyncEvents(conn)
        self.topics: list[Change] = []

    def notify(self, topic: str, hint: object | None = None) -> None:
        self.topics.append((topic, hint))

    def take_topics(self) -> list[Change]:
        """Return and forget the changes collected so far."""
        topics, self.topics = self.topics, []
        return topics
