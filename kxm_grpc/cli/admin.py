"""``kxm admin project create|list|rotate-token`` (over gRPC) and ``kxm admin migrate`` (offline, ``migrate.py``)."""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli import migrate
from kxm_grpc.cli.common import EXIT_OK, add_connection_flags, all_pages, client_from, emit, message_to_dict, run
from kxm_grpc.client.config import update_project_token


def register(commands: Any) -> None:
    """Add ``admin``."""
    admin = commands.add_parser(
        "admin",
        help="project management (an operator's token: the admin token or a named operator's); "
        "migrate: offline, on the databases",
    )
    groups = admin.add_subparsers(dest="admin_group", required=True, metavar="GROUP")
    migrate.register(groups)
    project = groups.add_parser("project", help="projects and their tokens")
    actions = project.add_subparsers(dest="project_command", required=True, metavar="COMMAND")

    create = actions.add_parser("create", help="create a project and print its token (shown once)")
    create.add_argument("name")
    add_connection_flags(create, admin=True)
    create.set_defaults(run=_create)

    listing = actions.add_parser("list", help="list projects")
    add_connection_flags(listing, admin=True)
    listing.set_defaults(run=_list)

    rotate = actions.add_parser("rotate-token", help="issue a new project token; the old one stops working")
    rotate.add_argument("name")
    add_connection_flags(rotate, admin=True)
    rotate.set_defaults(run=_rotate)


def _create(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.admin.create_project(args.name)
        emit(args, message_to_dict(response), f"{response.project.name}\t{response.project_token}")
        return EXIT_OK

    return run(args, command)


def _list(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            projects = await all_pages(lambda t: client.admin.list_projects(page_token=t), "projects")
        emit(args, {"projects": [message_to_dict(p) for p in projects]}, "\n".join(p.name for p in projects))
        return EXIT_OK

    return run(args, command)


def _rotate(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.admin.rotate_project_token(args.name)
        # Keep local tools working: the credentials file read for this hub gets the new token
        # (never the per-user profile of another hub).
        update_project_token(response.project.name, response.project_token, address=client.address)
        emit(args, message_to_dict(response), f"{response.project.name}\t{response.project_token}")
        return EXIT_OK

    return run(args, command)
