"""Projects and the hashes of their tokens."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.projects import Project


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
