"""Agents and their key hashes."""

from __future__ import annotations

from kxm_grpc.domain.agents import Agent
from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.rows.agents import AGENTS, agent_from_row
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {AGENTS.select} FROM agents"


class SqlAgents:
    """Agents and key hashes."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    def get(self, agent_id: str) -> Agent | None:
        row = self._conn.execute(f"{_SELECT} WHERE id = ?", (agent_id,)).fetchone()
        return None if row is None else agent_from_row(row)

    def get_key(self, agent_id: str) -> tuple[str, bool] | None:
        row = self._conn.execute("SELECT key_hash, key_active FROM agents WHERE id = ?", (agent_id,)).fetchone()
        return None if row is None or row[0] is None else (str(row[0]), bool(row[1]))

    def find_by_name(self, project: str, name_key: str) -> Agent | None:
        row = self._conn.execute(
            f"{_SELECT} WHERE project = ? AND name_key = ? AND retire_time IS NULL", (project, name_key)
        ).fetchone()
        return None if row is None else agent_from_row(row)

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
        self._changed(agent.project)

    def set_key_hash(self, agent_id: str, key_hash: str) -> None:
        self._conn.execute("UPDATE agents SET key_hash = ?, key_active = 1 WHERE id = ?", (key_hash, agent_id))

    def revoke_key(self, agent_id: str) -> None:
        self._conn.execute("UPDATE agents SET key_active = 0 WHERE id = ?", (agent_id,))

    def retire(self, agent_id: str, now: int) -> None:
        row = self._conn.execute(
            "UPDATE agents SET retire_time = ?, online = 0, key_active = 0 WHERE id = ? RETURNING project",
            (now, agent_id),
        ).fetchone()
        if row is not None:
            self._changed(str(row[0]))

    def list_page(self, project: str, after: str | None, limit: int, *, include_offline: bool) -> list[Agent]:
        online_filter = "" if include_offline else " AND online = 1"
        rows = self._conn.execute(
            f"{_SELECT} WHERE project = ? AND id > ? AND retire_time IS NULL{online_filter} ORDER BY id LIMIT ?",
            (project, after or "", limit),
        ).fetchall()
        return [agent_from_row(row) for row in rows]

    def list_by_presence(self, project: str, seen_after: int, limit: int) -> list[Agent]:
        rows = self._conn.execute(
            f"{_SELECT} WHERE project = ? AND retire_time IS NULL "
            "ORDER BY CASE WHEN online = 1 AND last_seen_time > ? THEN 0 ELSE 1 END, name, id LIMIT ?",
            (project, seen_after, limit),
        ).fetchall()
        return [agent_from_row(row) for row in rows]

    def count(self, project: str) -> int:
        row = self._conn.execute(
            "SELECT COUNT(*) FROM agents WHERE project = ? AND retire_time IS NULL", (project,)
        ).fetchone()
        return int(row[0])

    def list_online_seen_before(self, cutoff: int, limit: int) -> list[Agent]:
        rows = self._conn.execute(
            f"{_SELECT} WHERE online = 1 AND last_seen_time < ? ORDER BY last_seen_time LIMIT ?", (cutoff, limit)
        ).fetchall()
        return [agent_from_row(row) for row in rows]

    def list_online(self, project: str) -> list[Agent]:
        rows = self._conn.execute(f"{_SELECT} WHERE project = ? AND online = 1", (project,)).fetchall()
        return [agent_from_row(row) for row in rows]

    def mark_all_offline(self) -> int:
        return self._conn.execute("UPDATE agents SET online = 0 WHERE online = 1").rowcount
