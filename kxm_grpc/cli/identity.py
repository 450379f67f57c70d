"""Stable agent identities for the CLI (spec §14).

``kxm agent register NAME`` saves the agent's id and key under the data directory
(``.kxm/agents/<project>/<name>.json``, mode 0600; ``<project>`` is the one the hub says the token
belongs to, asked with ``GetCallerIdentity``). Later commands acting ``--as NAME`` reuse them,
and re-register with the saved key as proof when the hub no longer accepts it, so the agent keeps
its id, inbox and leases across CLI invocations and hub restarts.

A name with no saved key is refused (a typo must not register a new agent) unless the command
says ``--register``; the error lists the saved names and where they are kept.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, add_connection_flags, client_from
from kxm_grpc.client.identity import load_identity, project_dir, saved_names
from kxm_grpc.errors import Unauthenticated


def add_identity(parser: argparse.ArgumentParser) -> None:
    """Add ``--as NAME`` (env ``KXM_AGENT_NAME``) and the connection flags to a command acting as an agent."""
    parser.add_argument(
        "--as",
        dest="agent_name",
        default=os.environ.get("KXM_AGENT_NAME"),
        help="act as this saved agent (env KXM_AGENT_NAME)",
    )
    parser.add_argument(
        "--register",
        action="store_true",
        help="register the --as agent (and save its key) when no key is saved for it",
    )
    add_connection_flags(parser)


async def register_saved(client: Any, name: str, **fields: str) -> Any:
    """Register ``name`` (resuming with the saved key, if any) and save the new key."""
    return await client.agents.register(name, remember=True, **fields)


async def agent_client(args: argparse.Namespace, name: str) -> Any:
    """A client acting as the saved agent ``name``; resumes it when needed, and registers it only
    with ``--register`` when no key is saved for it.

    Raises:
        SystemExit: no key is saved for ``name`` and ``--register`` was not given (exit 1; the
            error lists the saved names and their folder).
    """
    client = client_from(args)
    project = await client.agents.caller_project()
    saved = load_identity(project, name)
    if saved is None and not getattr(args, "register", False):
        await client.close()
        names = ", ".join(saved_names(project)) if project else ""
        print(
            f"error: no saved agent {name!r} under {project_dir(project or 'default').absolute()};"
            f" saved names: {names or 'none'}. Register it with --register or 'kxm agent register {name}'",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_ERROR)
    if saved is not None:
        client.use_agent(saved["agent_id"], saved["agent_key"])
        try:
            await client.agents.heartbeat()
            return client
        except Unauthenticated:
            pass  # revoked or replaced: resume below with the saved key as proof
    await register_saved(client, name)
    return client
