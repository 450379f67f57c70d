"""Projects and their token hashes."""

from __future__ import annotations

from kxm_grpc.domain.projects import Project
from kxm_grpc.store.rows.projects import PROJECTS, project_from_row
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {PROJECTS.select} FROM projects"


class SqlProjects:
    """Projects and token hashes."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def get(self, name: str) -> Project | None:
        row = self._conn.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone()
        return None if row is None else project_from_row(row)

    def find_by_token_hash(self, token_hash: str) -> Project | None:
        row = self._conn.execute(f"{_SELECT} WHERE token_hash = ?", (token_hash,)).fetchone()
        return None if row is None else project_from_row(row)

    def put(self, project: Project, token_hash: str) -> None:
        self._conn.execute(
            "INSERT INTO projects (name, token_hash, create_time, token_rotate_time) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash, "
            "token_rotate_time = excluded.token_rotate_time",
            (project.name, token_hash, project.create_time, project.token_rotate_time),
        )

    def list_page(self, after: str | None, limit: int) -> list[Project]:
        rows = self._conn.execute(f"{_SELECT} WHERE name > ? ORDER BY name LIMIT ?", (after or "", limit)).fetchall()
        return [project_from_row(row) for row in rows]
