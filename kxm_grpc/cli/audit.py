"""``kxm audit list``: the audit of admin actions, newest first (admin token)."""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli.common import EXIT_OK, add_connection_flags, client_from, emit, message_to_dict, run


def register(commands: Any) -> None:
    """Add ``audit``."""
    audit = commands.add_parser("audit", help="the audit of admin actions (admin token)")
    actions = audit.add_subparsers(dest="audit_command", required=True, metavar="COMMAND")

    listing = actions.add_parser("list", help="list audit records, newest first")
    listing.add_argument("--operator", default="", help="only this operator's records ('admin': the bootstrap admin)")
    listing.add_argument("--action", default="", help="only this action's records (an RPC name: CreateProject, ...)")
    listing.add_argument("--limit", type=int, default=100, help="at most this many records (default 100; 0: all)")
    add_connection_flags(listing, admin=True)
    listing.set_defaults(run=_list)


def _list(args: argparse.Namespace) -> int:
    async def command() -> int:
        records: list[Any] = []
        async with client_from(args, admin=True) as client:
            token = ""
            while True:
                page = await client.admin.list_audit_records(
                    operator=args.operator, action=args.action, page_token=token
                )
                records.extend(page.audit_records)
                token = page.next_page_token
                if not token or (args.limit and len(records) >= args.limit):
                    break
        if args.limit:
            records = records[: args.limit]

        def line(record: Any) -> str:
            details = ",".join(f"{k}={v}" for k, v in sorted(record.metadata.items()))
            return "\t".join(
                (record.create_time.ToJsonString(), record.operator, record.action, record.target, details or "-")
            )

        emit(args, {"records": [message_to_dict(r) for r in records]}, "\n".join(line(r) for r in records))
        return EXIT_OK

    return run(args, command)
