"""``kxm agent register|list|unregister``."""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli.common import EXIT_OK, add_connection_flags, all_pages, client_from, emit, message_to_dict, run
from kxm_grpc.cli.identity import agent_client, register_saved


def register(commands: Any) -> None:
    """Add ``agent``."""
    agent = commands.add_parser("agent", help="register and list agents")
    actions = agent.add_subparsers(dest="agent_command", required=True, metavar="COMMAND")

    reg = actions.add_parser("register", help="register (or resume) an agent and save its key")
    reg.add_argument("name")
    reg.add_argument("--purpose", default="")
    reg.add_argument("--model", default="")
    reg.add_argument("--host-name", dest="host", default="")
    add_connection_flags(reg)
    reg.set_defaults(run=_register)

    listing = actions.add_parser("list", help="list the project's agents")
    listing.add_argument("--all", action="store_true", help="include offline agents")
    add_connection_flags(listing)
    listing.set_defaults(run=_list)

    unreg = actions.add_parser("unregister", help="take a saved agent offline and revoke its key")
    unreg.add_argument("name")
    add_connection_flags(unreg)
    unreg.set_defaults(run=_unregister)


def _register(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            response = await register_saved(client, args.name, purpose=args.purpose, model=args.model, host=args.host)
        data = message_to_dict(response.agent) | {"resumed": response.resumed}
        emit(args, data, f"{response.agent.id}\t{response.agent.name}\t{'resumed' if response.resumed else 'new'}")
        return EXIT_OK

    return run(args, command)


def _list(args: argparse.Namespace) -> int:
    from kxm_grpc.v1 import types_pb2

    async def command() -> int:
        async with client_from(args) as client:
            agents = await all_pages(lambda t: client.agents.list(include_offline=args.all, page_token=t), "agents")
        lines = [
            f"{a.id}\t{a.name}\t{types_pb2.Presence.Name(a.presence).removeprefix('PRESENCE_').lower()}" for a in agents
        ]
        emit(args, {"agents": [message_to_dict(a) for a in agents]}, "\n".join(lines))
        return EXIT_OK

    return run(args, command)


def _unregister(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await agent_client(args, args.name)
        async with client:
            response = await client.agents.unregister()
        emit(args, message_to_dict(response.agent), f"{response.agent.id}\t{response.agent.name}\toffline")
        return EXIT_OK

    return run(args, command)
