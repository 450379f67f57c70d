"""``kxm operator create|list|revoke``: named operators (admin token).

The admin token comes from ``--token``, ``KXM_ADMIN_TOKEN`` or ``.kxm/credentials.json``. A named
operator uses its own token (``kxm_op_…``) the same way, with ``kxm admin project …``.
"""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli.common import EXIT_OK, add_connection_flags, all_pages, client_from, emit, message_to_dict, run


def register(commands: Any) -> None:
    """Add ``operator``."""
    operator = commands.add_parser("operator", help="named operators (admin token)")
    actions = operator.add_subparsers(dest="operator_command", required=True, metavar="COMMAND")

    create = actions.add_parser("create", help="create a named operator and print its token (shown once)")
    create.add_argument("name")
    add_connection_flags(create, admin=True)
    create.set_defaults(run=_create)

    listing = actions.add_parser("list", help="list named operators (revoked ones too)")
    add_connection_flags(listing, admin=True)
    listing.set_defaults(run=_list)

    revoke = actions.add_parser("revoke", help="revoke a named operator; its token stops working at once")
    revoke.add_argument("name")
    add_connection_flags(revoke, admin=True)
    revoke.set_defaults(run=_revoke)


def _create(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.admin.create_operator(args.name)
        emit(args, message_to_dict(response), f"{response.operator.name}\t{response.operator_token}")
        return EXIT_OK

    return run(args, command)


def _state(operator: Any) -> str:
    return "revoked" if operator.HasField("revoke_time") else "active"


def _list(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            operators = await all_pages(lambda t: client.admin.list_operators(page_token=t), "operators")
        emit(
            args,
            {"operators": [message_to_dict(o) for o in operators]},
            "\n".join(f"{o.name}\t{_state(o)}\t{o.create_time.ToJsonString()}" for o in operators),
        )
        return EXIT_OK

    return run(args, command)


def _revoke(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.admin.revoke_operator(args.name)
        emit(args, message_to_dict(response), f"{response.operator.name}\t{_state(response.operator)}")
        return EXIT_OK

    return run(args, command)
