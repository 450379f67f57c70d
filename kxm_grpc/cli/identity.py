"""Stable agent identities for the CLI (spec §14).

``kxm agent register NAME`` saves the agent's id and key under the data directory
(``.kxm/agents/<project>/<name>.json``, mode 0600). Later commands acting ``--as NAME`` reuse them,
and re-register with the saved key as proof when the hub no longer accepts it, so the agent keeps
its id, inbox and leases across CLI invocations and hub restarts.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from kxm_grpc.cli.common import client_from
from kxm_grpc.errors import Unauthenticated


def identity_path(project: str, name: str) -> Path:
    """Where the CLI keeps an agent's id and key."""
    base = Path(os.environ.get("KXM_DATA_DIR", ".kxm")) / "agents" / (project or "default")
    return base / f"{name.strip().casefold()}.json"


def load_identity(project: str, name: str) -> dict[str, str] | None:
    """The saved identity, or None."""
    try:
        data = json.loads(identity_path(project, name).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def save_identity(project: str, name: str, agent_id: str, agent_key: str) -> None:
    """Save an identity with mode 0600."""
    path = identity_path(project, name)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"name": name, "agent_id": agent_id, "agent_key": agent_key}, handle)
    os.replace(tmp, path)


async def register_saved(client: Any, project: str, name: str, **fields: str) -> Any:
    """Register ``name`` (resuming with the saved key, if any) and save the new key."""
    saved = load_identity(project, name) or {}
    response = await client.register_agent(name, previous_key=saved.get("agent_key", ""), **fields)
    save_identity(project, name, response.agent.id, response.agent_key)
    return response


async def agent_client(args: argparse.Namespace, name: str) -> Any:
    """A client acting as the saved agent ``name``; registers or resumes it when needed."""
    client = client_from(args)
    project = client.project or "default"
    saved = load_identity(project, name)
    if saved is not None:
        client.use_agent(saved["agent_id"], saved["agent_key"])
        try:
            await client.heartbeat()
            return client
        except Unauthenticated:
            pass  # revoked or replaced: resume below with the saved key as proof
    await register_saved(client, project, name)
    return client
