"""Stable agent identities for the CLI (spec §14).

``kxm agent register NAME`` saves the agent's id and key in ``<agents>/<project>/<name>.json``
(mode 0600; ``<project>`` is the one the hub says the token belongs to, asked with
``GetCallerIdentity``). ``<agents>`` is the folder ``kxm_grpc.client.config.state_for`` picks for the
hub dialled, by the same rule as its credentials: ``.kxm/agents`` (``$KXM_DATA_DIR/agents``) for
local state, else the per-user profile's ``~/.config/kxm/agents`` when the profile is that hub's.
Later commands acting ``--as NAME`` reuse them,
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

from kxm_grpc.cli.common import EXIT_ERROR, add_connection_flags, open_client, print_hub_error
from kxm_grpc.client.identity import load_identity, project_dir, saved_names
from kxm_grpc.errors import Reason, Unauthenticated


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


class NoSavedKey(Exception):
    """``--as NAME`` names an agent with no saved key (and ``--register`` was not given)."""


async def agent_client(args: argparse.Namespace, name: str) -> Any:
    """A client acting as the saved agent ``name``; resumes it when needed, and registers it only
    with ``--register`` when no key is saved for it.

    Raises:
        SystemExit: no token was found, or no key is saved for ``name`` and ``--register`` was not
            given (exit 1; the error says where it looked and lists the saved names).
    """
    from kxm_grpc.client import AddressError

    try:
        return await open_agent_client(args, name)
    except AddressError as error:
        raise SystemExit(f"error: {error}") from None
    except Unauthenticated as missing:
        if missing.reason is not Reason.CREDENTIAL_MISSING:
            raise
        print_hub_error(args, missing)
        raise SystemExit(EXIT_ERROR) from None
    except NoSavedKey as refusal:
        print(f"error: {refusal}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR) from None


async def open_agent_client(args: argparse.Namespace, name: str) -> Any:
    """``agent_client``'s client, for a command with exit codes of its own (``kxm gate run``).

    Raises:
        AddressError, Unauthenticated: as ``open_client``.
        NoSavedKey: no key is saved for ``name`` and ``--register`` was not given; its message says
            where it looked and the saved names (and offers ``--register`` when the command has it).
    """
    client = open_client(args)
    address = client.address
    try:
        project = await client.agents.caller_project()
    except BaseException:
        await client.close()
        raise
    saved = load_identity(project, name, address=address)
    if saved is None and not getattr(args, "register", False):
        await client.close()
        names = ", ".join(saved_names(project, address=address)) if project else ""
        folder = project_dir(project or "default", address=address).absolute()
        if hasattr(args, "register"):
            message = (
                f"no saved agent {name!r} under {folder}; saved names: {names or 'none'}."
                f" Register it with --register or 'kxm agent register {name}'"
            )
        else:  # unregister: nothing to offer but the names saved
            message = f"agent {name!r} has no saved key; looked in {folder}; saved names: {names or 'none'}"
        raise NoSavedKey(message)
    if saved is not None:
        client.use_agent(saved["agent_id"], saved["agent_key"])
        try:
            await client.agents.heartbeat()
            return client
        except Unauthenticated:
            pass  # revoked or replaced: resume below with the saved key as proof
    try:
        await register_saved(client, name)
    except BaseException:
        await client.close()
        raise
    return client
