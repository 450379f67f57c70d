"""Stable agent identities for the CLI (spec §14).

``kxm agent register NAME`` saves the agent's id and key under the data directory
(``.kxm/agents/<project>/<name>.json``, mode 0600; ``<project>`` is the one the hub says the token
belongs to, asked with ``GetCallerIdentity``). Later commands acting ``--as NAME`` reuse them,
and re-register with the saved key as proof when the hub no longer accepts it, so the agent keeps
its id, inbox and leases across CLI invocations and hub restarts.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from kxm_grpc.cli.common import add_connection_flags, client_from
from kxm_grpc.client.identity import load_identity
from kxm_grpc.errors import Unauthenticated


def add_identity(parser: argparse.ArgumentParser) -> None:
    """Add ``--as NAME`` (env ``KXM_AGENT_NAME``) and the connection flags to a command acting as an agent."""
    parser.add_argument(
        "--as",
        dest="agent_name",
        default=os.environ.get("KXM_AGENT_NAME"),
        help="act as this saved agent (env KXM_AGENT_NAME)",
    )
    add_connection_flags(parser)


async def register_saved(client: Any, name: str, **fields: str) -> Any:
    """Register ``name`` (resuming with the saved key, if any) and save the new key."""
    return await client.agents.register(name, remember=True, **fields)


async def agent_client(args: argparse.Namespace, name: str) -> Any:
    """A client acting as the saved agent ``name``; registers or resumes it when needed."""
    client = client_from(args)
    saved = load_identity(await client.agents.caller_project(), name)
    if saved is not None:
        client.use_agent(saved["agent_id"], saved["agent_key"])
        try:
            await client.agents.heartbeat()
            return client
        except Unauthenticated:
            pass  # revoked or replaced: resume below with the saved key as proof
    await register_saved(client, name)
    return client
