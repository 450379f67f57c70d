"""Rows of ``projects`` (the token hash is written and matched, never decoded)."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.projects import Project
from kxm_grpc.store.rows import Columns, Row

PROJECTS = Columns("projects", "name", "create_time", "token_rotate_time")


def _decoder(columns: Columns) -> Callable[[Row], Project]:
    name, create_time, token_rotate_time = columns.positions("name", "create_time", "token_rotate_time")

    def project_from_row(row: Row) -> Project:
        """The project in a row selecting ``PROJECTS``."""
        return Project(name=row[name], create_time=row[create_time], token_rotate_time=row[token_rotate_time])

    return project_from_row


project_from_row = _decoder(PROJECTS)
