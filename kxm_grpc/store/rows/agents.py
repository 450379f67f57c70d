"""Rows of ``agents`` (key hashes and name keys are written and matched, never decoded)."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.agents import Agent
from kxm_grpc.store.rows import Columns, Row

AGENTS = Columns(
    "agents", "id", "project", "name", "purpose", "model", "host", "connect_time", "last_seen_time", "online"
)


def _decoder(columns: Columns) -> Callable[[Row], Agent]:
    id_, project, name, purpose, model, host, connect_time, last_seen_time, online = columns.positions(
        "id", "project", "name", "purpose", "model", "host", "connect_time", "last_seen_time", "online"
    )

    def agent_from_row(row: Row) -> Agent:
        """The agent in a row selecting ``AGENTS``."""
        return Agent(
            id=row[id_],
            project=row[project],
            name=row[name],
            purpose=row[purpose],
            model=row[model],
            host=row[host],
            connect_time=row[connect_time],
            last_seen_time=row[last_seen_time],
            online=bool(row[online]),
        )

    return agent_from_row


agent_from_row = _decoder(AGENTS)
