"""``kxm context memory sync|list|note|promote|reject``: memory records, loaded by an operator (spec §5.11).

``sync DIR`` sends the top-level ``*.md`` files of DIR (a checkout's ``.kxm/memory``; never
``candidates/`` or another subdirectory, never a hidden or non-``.md`` file) to SyncMemory with an
operator's token: the project's memory becomes exactly those records, or nothing changes when one
file is refused. ``list`` prints the project's stored records (metadata only) and the revision of
the last sync, then the open candidates. ``note SUMMARY`` proposes a candidate (the project token,
as ``kxm memory note`` did); ``promote CANDIDATE RECORD_ID`` (an operator other than the proposer)
closes it and writes the record file it makes into ``--dir`` (a memory directory: sync it next),
or prints it; ``reject CANDIDATE`` closes it. All take ``--project`` and ``--json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, add_connection_flags, client_from, emit, message_to_dict, run


def add_commands(actions: Any) -> None:
    """Add ``memory sync`` and ``memory list`` to the `kxm context` group's subparsers."""
    group = actions.add_parser("memory", help="memory records: an operator's sync of a memory directory, and a list")
    verbs = group.add_subparsers(dest="memory_command", required=True, metavar="COMMAND")

    sync = verbs.add_parser("sync", help="replace the project's memory with DIR's top-level *.md files (an operator)")
    sync.add_argument("directory", metavar="DIR", help="the memory directory (a checkout's .kxm/memory)")
    sync.add_argument(
        "--allow-empty",
        action="store_true",
        help="a DIR without records empties the project's memory (else it is refused)",
    )
    add_connection_flags(sync, admin=True)
    sync.set_defaults(run=_sync)

    listing = verbs.add_parser("list", help="the project's stored memory records and revision")
    add_connection_flags(listing)
    listing.set_defaults(run=_list)

    note = verbs.add_parser("note", help="propose a memory candidate for an operator's review")
    note.add_argument("summary", help="the fact (1 to 4,000 characters)")
    note.add_argument("--scope", default="project", help="agent, project, run or operator (default project)")
    note.add_argument("--kind", default="", help="a label (default learning)")
    note.add_argument("--evidence", action="append", default=[], help="a ref of what supports it (repeat)")
    add_connection_flags(note)
    note.set_defaults(run=_note)

    promote = verbs.add_parser("promote", help="promote a candidate into a record file (an operator)")
    promote.add_argument("candidate_id", metavar="CANDIDATE")
    promote.add_argument("record_id", metavar="RECORD_ID")
    promote.add_argument("--authority", default="", help="promoted (default), instruction or evidence")
    promote.add_argument("--confidence", default=None, help="verified, probable (default) or uncertain")
    promote.add_argument("--dir", type=Path, help="write RECORD_ID.md into this memory directory (else print it)")
    add_connection_flags(promote, admin=True)
    promote.set_defaults(run=_promote)

    reject = verbs.add_parser("reject", help="reject a candidate (an operator)")
    reject.add_argument("candidate_id", metavar="CANDIDATE")
    reject.add_argument("--reason", default="", help="why (at most 1,000 characters)")
    add_connection_flags(reject, admin=True)
    reject.set_defaults(run=_reject)


def _sync(args: argparse.Namespace) -> int:
    from kxm_grpc.client.context import read_memory_dir

    try:
        files = read_memory_dir(args.directory)
    except (OSError, ValueError) as error:
        print(f"error: {args.directory}: {error}", file=sys.stderr)
        return EXIT_ERROR

    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.sync_memory(files, allow_empty=args.allow_empty)
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
        for candidate in response.candidates:
            scope = ContextScope.Name(candidate.scope).removeprefix("CONTEXT_SCOPE_").lower()
            lines.append(f"candidate\t{candidate.id}\t{scope}\t{candidate.kind}\t{candidate.proposed_by}")
        emit(args, message_to_dict(response), "\n".join(lines))
        return EXIT_OK

    return run(args, command)


def _note(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            response = await client.context.propose_memory(
                args.summary, scope=args.scope, kind=args.kind, evidence_refs=args.evidence
            )
        emit(args, message_to_dict(response), f"noted {response.candidate.id}")
        return EXIT_OK

    return _checked(args, command)


def _promote(args: argparse.Namespace) -> int:
    target = None if args.dir is None else args.dir / f"{args.record_id}.md"
    if target is not None and (target.exists() or not args.dir.is_dir()):
        print(
            f"error: {target if target.exists() else args.dir}: "
            f"{'exists already' if target.exists() else 'is not a directory'}",
            file=sys.stderr,
        )
        return EXIT_ERROR

    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.promote_memory(
                args.candidate_id, args.record_id, authority=args.authority, confidence=args.confidence
            )
        if target is None:
            emit(args, message_to_dict(response), response.content.rstrip("\n"))
            return EXIT_OK
        target.write_text(response.content)
        emit(
            args,
            {**message_to_dict(response), "written": str(target)},
            f"promoted {response.candidate.id}: wrote {target}; sync the directory to load it",
        )
        return EXIT_OK

    return _checked(args, command)


def _reject(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.reject_memory(args.candidate_id, reason=args.reason)
        emit(args, message_to_dict(response), f"rejected {response.candidate.id}")
        return EXIT_OK

    return _checked(args, command)


def _checked(args: argparse.Namespace, command: Any) -> int:
    """``run``, with a name the client cannot map (``--scope team``) reported as an error line."""
    try:
        return run(args, command)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
