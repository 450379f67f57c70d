"""``kxm runtime list``: the project's runtimes and their presence."""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli.common import EXIT_OK, add_connection_flags, all_pages, client_from, emit, message_to_dict, run


def register(commands: Any) -> None:
    """Add ``runtime``."""
    runtime = commands.add_parser("runtime", help="list runtimes (machine clients that push run events)")
    actions = runtime.add_subparsers(dest="runtime_command", required=True, metavar="COMMAND")

    listing = actions.add_parser("list", help="list the project's runtimes and their presence")
    add_connection_flags(listing)
    listing.set_defaults(run=_list)


def _list(args: argparse.Namespace) -> int:
    from kxm_grpc.v1 import types_pb2

    async def command() -> int:
        async with client_from(args) as client:
            runtimes = await all_pages(lambda t: client.runtimes.list(page_token=t), "runtimes")

        def line(runtime: Any) -> str:
            presence = types_pb2.RuntimePresenceState.Name(runtime.presence)
            return f"{runtime.id}\t{presence.removeprefix('RUNTIME_PRESENCE_STATE_').lower()}\t{runtime.host or '-'}"

        emit(args, {"runtimes": [message_to_dict(r) for r in runtimes]}, "\n".join(line(r) for r in runtimes))
        return EXIT_OK

    return run(args, command)
