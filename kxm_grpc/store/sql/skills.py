"""Governed skills and their append-only histories (``SkillRepository``)."""

from __future__ import annotations

from kxm_grpc.domain.context.skills import Skill, SkillEvent, SkillState
from kxm_grpc.store.rows.skills import (
    SKILL_EVENTS,
    SKILLS,
    event_from_row,
    event_values,
    skill_from_row,
    skill_values,
)
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {SKILLS.select} FROM skills"
_INSERT = f"INSERT INTO skills ({SKILLS.select}) VALUES ({', '.join('?' * SKILLS.width)})"
_INSERT_EVENT = f"INSERT INTO skill_events ({SKILL_EVENTS.select}) VALUES ({', '.join('?' * SKILL_EVENTS.width)})"


class SqlSkills:
    """The skills of every project and their histories."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def insert(self, skill: Skill) -> None:
        self._conn.execute(_INSERT, skill_values(skill))

    def update_state(self, skill: Skill) -> None:
        self._conn.execute(
            "UPDATE skills SET state = ?, decided_by = ?, decided_at = ? WHERE project = ? AND id = ?",
            (skill.state.value, skill.decided_by, skill.decided_at, skill.project, skill.id),
        )

    def get(self, project: str, skill_id: str) -> Skill | None:
        row = self._conn.execute(f"{_SELECT} WHERE project = ? AND id = ?", (project, skill_id)).fetchone()
        return None if row is None else skill_from_row(row)

    def find_by_hash(self, project: str, content_sha256: str) -> str | None:
        row = self._conn.execute(
            "SELECT id FROM skills WHERE project = ? AND content_sha256 = ?", (project, content_sha256)
        ).fetchone()
        return None if row is None else str(row[0])

    def list_page(self, project: str, state: SkillState | None, after: str | None, limit: int) -> list[Skill]:
        where = ["project = ?"]
        params: list[object] = [project]
        if state is not None:
            where.append("state = ?")
            params.append(state.value)
        if after is not None:
            where.append("id > ?")
            params.append(after)
        params.append(limit)
        rows = self._conn.execute(
            f"{_SELECT} WHERE {' AND '.join(where)} ORDER BY id LIMIT ?", tuple(params)
        ).fetchall()
        return [skill_from_row(row) for row in rows]

    def promoted(self, project: str) -> list[Skill]:
        rows = self._conn.execute(
            f"{_SELECT} WHERE project = ? AND state = ? ORDER BY id", (project, SkillState.PROMOTED.value)
        ).fetchall()
        return [skill_from_row(row) for row in rows]

    def append_event(self, project: str, skill_id: str, event: SkillEvent) -> None:
        self._conn.execute(_INSERT_EVENT, event_values(project, skill_id, event))

    def events(self, project: str, skill_id: str) -> list[SkillEvent]:
        rows = self._conn.execute(
            f"SELECT {SKILL_EVENTS.select} FROM skill_events WHERE project = ? AND skill_id = ? ORDER BY sequence",
            (project, skill_id),
        ).fetchall()
        return [event_from_row(row) for row in rows]
