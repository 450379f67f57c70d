"""``kxm context memory sync|list``: memory records, loaded by an operator (spec §5.11).

``sync DIR`` sends the top-level ``*.md`` files of DIR (a checkout's ``.kxm/memory``; never
``candidates/`` or another subdirectory, never a hidden or non-``.md`` file) to SyncMemory with an
operator's token: the project's memory becomes exactly those records, or nothing changes when one
file is refused. ``list`` prints the project's stored records (metadata only) and the revision of
the last sync. Both take ``--project`` and ``--json``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, add_connection_flags, client_from, emit, message_to_dict, run


def add_commands(actions: Any) -> None:
    """Add ``memory sync`` and ``memory list`` to the `kxm context` group's subparsers."""
    group = actions.add_parser("memory", help="memory records: an operator's sync of a memory directory, and a list")
    verbs = group.add_subparsers(dest="memory_command", required=True, metavar="COMMAND")

    sync = verbs.add_parser("sync", help="replace the project's memory with DIR's top-level *.md files (an operator)")
    sync.add_argument("directory", metavar="DIR", help="the memory directory (a checkout's .kxm/memory)")
    add_connection_flags(sync, admin=True)
    sync.set_defaults(run=_sync)

    listing = verbs.add_parser("list", help="the project's stored memory records and revision")
    add_connection_flags(listing)
    listing.set_defaults(run=_list)


def _sync(args: argparse.Namespace) -> int:
    from kxm_grpc.client.context import read_memory_dir

    try:
        files = read_memory_dir(args.directory)
    except (OSError, ValueError) as error:
        print(f"error: {args.directory}: {error}", file=sys.stderr)
        return EXIT_ERROR

    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.sync_memory(files)
        text = (
            f"{'unchanged' if response.unchanged else 'synced'} {response.revision}: {response.loaded} loaded,"
            f" {response.removed} removed, {response.skipped_inactive} inactive and"
            f" {response.skipped_unbound_scopes} agent or run scope skipped ({len(files)} files)"
        )
        document = message_to_dict(response)
        document["files"] = [file.path for file in files]
        emit(args, document, text)
        return EXIT_OK

    return run(args, command)


def _list(args: argparse.Namespace) -> int:
    from kxm_grpc.v1 import ContextAuthority, ContextScope

    async def command() -> int:
        async with client_from(args) as client:
            response = await client.context.list_memory()
        lines = [f"revision\t{response.revision or '-'}"]
        for record in response.records:
            scope = ContextScope.Name(record.scope).removeprefix("CONTEXT_SCOPE_").lower()
            authority = ContextAuthority.Name(record.authority).removeprefix("CONTEXT_AUTHORITY_").lower()
            lines.append(
                f"{record.item_id}\t{record.project}\t{scope}\t{record.record_kind}\t{authority}"
                f"\t{record.lifecycle}\t{record.path}\t{record.summary_chars} chars"
            )
        emit(args, message_to_dict(response), "\n".join(lines))
        return EXIT_OK

    return run(args, command)
