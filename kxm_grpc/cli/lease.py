"""``kxm lease acquire|renew|release|get|list``: fenced leases, acting as a saved agent.

``acquire``, ``renew`` and ``release`` act as the agent named by ``--as`` (or ``KXM_AGENT_NAME``),
whose identity ``kxm agent register`` saved (spec §14); ``get`` and ``list`` need only the project
token. ``acquire`` prints the fencing token to present with every write to the protected resource.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from kxm_grpc.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    add_connection_flags,
    all_pages,
    client_from,
    emit,
    message_to_dict,
    progress,
    run,
)
from kxm_grpc.cli.identity import add_identity, agent_client


def register(commands: Any) -> None:
    """Add ``lease``."""
    lease = commands.add_parser("lease", help="acquire, renew and release fenced leases")
    actions = lease.add_subparsers(dest="lease_command", required=True, metavar="COMMAND")

    acquire = actions.add_parser("acquire", help="acquire a lease (or extend your own) and print its fencing token")
    acquire.add_argument("name")
    acquire.add_argument("--ttl", type=float, default=None, help="seconds the lease lasts (5 to 600; default 300)")
    acquire.add_argument("--wait", type=float, default=None, metavar="SECONDS", help="queue this long if it is held")
    add_identity(acquire)
    acquire.set_defaults(run=_acquire)

    renew = actions.add_parser("renew", help="extend your live lease (the token stays the same)")
    renew.add_argument("name")
    renew.add_argument("fencing_token", type=int, help="your grant's fencing token")
    renew.add_argument("--ttl", type=float, default=None, help="seconds from now (5 to 600; default 300)")
    add_identity(renew)
    renew.set_defaults(run=_renew)

    release = actions.add_parser("release", help="release your lease")
    release.add_argument("name")
    release.add_argument("fencing_token", type=int, help="your grant's fencing token")
    add_identity(release)
    release.set_defaults(run=_release)

    get = actions.add_parser("get", help="show the current grant of a lease")
    get.add_argument("name")
    add_connection_flags(get)
    get.set_defaults(run=_get)

    listing = actions.add_parser("list", help="list the project's live leases")
    listing.add_argument("--all", action="store_true", help="include lapsed grants")
    add_connection_flags(listing)
    listing.set_defaults(run=_list)


def _agent_name(args: argparse.Namespace) -> str:
    if not args.agent_name:
        print("error: name the acting agent with --as NAME (or KXM_AGENT_NAME)", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)
    return str(args.agent_name)


def _line(lease: Any) -> str:
    state = "live" if lease.live else "lapsed"
    expires = lease.expire_time.ToJsonString()
    return f"{lease.name}\ttoken {lease.fencing_token}\t{lease.holder_agent_name}\t{state} until {expires}"


def _acquire(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        # Progress only when it may queue (--wait): an immediate answer needs no line.
        waiting = progress(args, f"waiting for lease {args.name}") if args.wait else contextlib.nullcontext()
        async with client, waiting:
            response = await client.leases.acquire(args.name, ttl=args.ttl, wait=args.wait)
        emit(args, message_to_dict(response.lease) | {"renewed": response.renewed}, _line(response.lease))
        return EXIT_OK

    return run(args, command)


def _renew(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            response = await client.leases.renew(args.name, args.fencing_token, ttl=args.ttl)
        emit(args, message_to_dict(response.lease), _line(response.lease))
        return EXIT_OK

    return run(args, command)


def _release(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            response = await client.leases.release(args.name, args.fencing_token)
        emit(args, message_to_dict(response.lease), f"{response.lease.name}\treleased")
        return EXIT_OK

    return run(args, command)


def _get(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            response = await client.leases.get(args.name)
        emit(args, message_to_dict(response.lease), _line(response.lease))
        return EXIT_OK

    return run(args, command)


def _list(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            leases = await all_pages(lambda t: client.leases.list(include_lapsed=args.all, page_token=t), "leases")
        emit(
            args, {"leases": [message_to_dict(lease) for lease in leases]}, "\n".join(_line(lease) for lease in leases)
        )
        return EXIT_OK

    return run(args, command)
