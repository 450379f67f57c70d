"""``kxm context get|recall|explain|put|delete``: a role's context packet and the items it is made of.

``get`` prints the packet a role gets for a task (its id, each section's items, the gaps); ``recall``
finds items by a query (metadata only, never summaries); ``explain`` says where an item came from;
``put`` stores items from a JSON file or standard input (``kxm.context-item.v1``: one item, a list,
or ``{"items": [...]}``); ``delete`` removes items (an operator). The project token is the
caller (origin ``peer``); ``put --operator`` writes with an operator's token (origin ``human``, the
only one that may claim ``instruction`` or ``policy`` or write ``_shared``). The state and episode
verbs join this group from their own modules (``context_state``, ``context_episodes``,
``context_skills``), and so do the memory records' (``context_memory``: ``memory sync DIR``,
``memory list``, ``memory note``, ``memory promote``, ``memory reject``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kxm_grpc.cli import context_episodes, context_memory, context_skills, context_state
from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, add_connection_flags, client_from, emit, message_to_dict, run

SECTIONS = ("contradictions", "current_state", "knowledge", "evidence", "episodes", "skills")


def register(commands: Any) -> None:
    """Add ``context``."""
    group = commands.add_parser("context", help="role-aware context: packets, recall, items, state, episodes")
    actions = group.add_subparsers(dest="context_command", required=True, metavar="COMMAND")

    get = actions.add_parser("get", help="the context packet of a role for a task")
    get.add_argument("role", help="planner, critic, implementer, verifier, repro, or any other role")
    get.add_argument("task", help="the task the context should serve (at most 2,000 characters)")
    get.add_argument("--budget", type=int, default=0, help="token budget, 512 to 200,000 (default: the role's)")
    get.add_argument("--kind", action="append", default=[], help="a kind to include, replacing the role's (repeat)")
    get.add_argument("--run", dest="run_id", default="", help="a workflow run id, echoed in the audit")
    get.add_argument("--stage", default="", help="a stage id, echoed in the audit")
    get.add_argument("--working-state", type=Path, help="a JSON object file returned verbatim in the packet")
    add_connection_flags(get)
    get.set_defaults(run=_get)

    recall = actions.add_parser("recall", help="find items by a query (metadata only)")
    recall.add_argument("query", nargs="?", default="", help="at most 500 characters (none: every item)")
    recall.add_argument("--kind", action="append", default=[], help="only this kind (repeat)")
    recall.add_argument("--limit", type=int, default=0, help="1 to 100 (default 25)")
    add_connection_flags(recall)
    recall.set_defaults(run=_recall)

    explain = actions.add_parser("explain", help="where an item came from: lineage, evidence and sources")
    explain.add_argument("item_id")
    add_connection_flags(explain)
    explain.set_defaults(run=_explain)

    put = actions.add_parser("put", help="store items from a JSON file (or - for standard input)")
    put.add_argument("file", nargs="?", default="-", help="one item, a list of items, or {'items': [...]} (default -)")
    put.add_argument("--operator", action="store_true", help="write with an operator's token (origin human)")
    add_connection_flags(put, admin=True)
    put.set_defaults(run=_put)

    delete = actions.add_parser("delete", help="remove items (an operator)")
    delete.add_argument("item_ids", nargs="+", metavar="ITEM_ID")
    delete.add_argument("--shared", action="store_true", help="remove _shared defaults instead of the project's items")
    add_connection_flags(delete, admin=True)
    delete.set_defaults(run=_delete)

    context_state.add_commands(actions)
    context_episodes.add_commands(actions)
    context_skills.add_commands(actions)
    context_memory.add_commands(actions)


def _name(value: int, enum: Any, prefix: str) -> str:
    """An enum number as its spec name (``CONTEXT_KIND_EVIDENCE`` -> ``evidence``); unset is ``-``."""
    return enum.Name(value).removeprefix(prefix).lower() if value else "-"


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _item_line(section: str, item: Any) -> str:
    from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb

    kind = _name(item.kind, epb.ContextKind, "CONTEXT_KIND_")
    authority = _name(item.authority, epb.ContextAuthority, "CONTEXT_AUTHORITY_")
    source = _name(item.provenance.source_type, epb.ContextSourceType, "CONTEXT_SOURCE_TYPE_")
    shared = " (_shared)" if item.project == "_shared" else ""
    return f"{section}\t{item.id}{shared}\t{kind}\t{authority}\t{source}\t{item.summary}"


def _get(args: argparse.Namespace) -> int:
    working_state = None
    if args.working_state is not None:
        try:
            working_state = json.loads(args.working_state.read_text())
        except (OSError, ValueError) as error:
            return _error(f"--working-state: {error}")
        if not isinstance(working_state, dict):
            return _error("--working-state must hold a JSON object")

    async def command() -> int:
        async with client_from(args) as client:
            response = await client.context.get_packet(
                args.role,
                args.task,
                budget_tokens=args.budget,
                include_kinds=args.kind,
                workflow_run_id=args.run_id,
                stage_id=args.stage,
                working_state=working_state,
            )
        packet = response.packet
        lines = [
            f"packet {response.packet_id}\t{packet.estimated_tokens}/{packet.audit.budget_tokens} tokens",
            f"ranked\t{' '.join(packet.audit.selected_ids) or '-'}",
        ]
        for section in SECTIONS:
            lines += [_item_line(section, item) for item in getattr(packet, section)]
        lines += [f"gap\t{gap}" for gap in packet.unresolved_gaps]
        emit(args, {"packetId": response.packet_id, "packet": message_to_dict(packet)}, "\n".join(lines))
        return EXIT_OK

    return _run_checked(args, command)


def _run_checked(args: argparse.Namespace, command: Any) -> int:
    """``run``, with a name the client cannot map (``--kind fact``) reported as an error line."""
    try:
        return run(args, command)
    except ValueError as error:
        return _error(str(error))


def _recall(args: argparse.Namespace) -> int:
    from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb

    async def command() -> int:
        async with client_from(args) as client:
            response = await client.context.recall(args.query, kinds=args.kind, limit=args.limit)
        lines = [
            "\t".join(
                (
                    item.id,
                    _name(item.kind, epb.ContextKind, "CONTEXT_KIND_"),
                    _name(item.authority, epb.ContextAuthority, "CONTEXT_AUTHORITY_"),
                    _name(item.confidence, epb.ContextConfidence, "CONTEXT_CONFIDENCE_"),
                    f"{item.relevance:.3f}",
                    "phrase" if item.phrase_hit else "-",
                )
            )
            for item in response.items
        ]
        lines += [f"gap\t{gap}" for gap in response.unresolved_gaps]
        emit(args, message_to_dict(response), "\n".join(lines))
        return EXIT_OK

    return _run_checked(args, command)


def _explain(args: argparse.Namespace) -> int:
    from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb

    async def command() -> int:
        async with client_from(args) as client:
            response = await client.context.explain_item(args.item_id)
        if not response.found:
            emit(args, {"found": False}, f"{args.item_id}\tnot found")
            return EXIT_OK
        lines = [
            f"lineage\t{' '.join(response.lineage) or '-'}",
            f"evidence\t{' '.join(response.evidence_refs) or '-'}",
        ]
        for source in response.sources:
            kind = _name(source.source_type, epb.ContextSourceType, "CONTEXT_SOURCE_TYPE_")
            lines.append(f"source\t{source.id}\t{kind}\t{source.source_ref or '-'}")
        emit(args, message_to_dict(response), "\n".join(lines))
        return EXIT_OK

    return _run_checked(args, command)


def _read_items(source: str) -> list[Any]:
    """The item documents of a file (``-``: standard input).

    Raises:
        ValueError: not JSON, or not an item, a list of items or ``{"items": [...]}``.
    """
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text()
    except OSError as error:
        raise ValueError(f"{source}: {error.strerror}") from None
    document = json.loads(text)
    if isinstance(document, dict) and set(document) == {"items"}:
        document = document["items"]
    documents = document if isinstance(document, list) else [document]
    if not all(isinstance(entry, dict) for entry in documents):
        raise ValueError('expected an item object, a list of them, or {"items": [...]}')
    return documents


def _put(args: argparse.Namespace) -> int:
    from kxm_grpc.client.context import item_from_json

    try:
        items = [item_from_json(document) for document in _read_items(args.file)]
    except ValueError as error:
        return _error(str(error))

    async def command() -> int:
        async with client_from(args, admin=args.operator) as client:
            response = await client.context.put_items(items)
        stored = [f"{item.project}/{item.id}" for item in response.items]
        emit(args, message_to_dict(response), f"stored {len(stored)} items: {' '.join(stored)}")
        return EXIT_OK

    return run(args, command)


def _delete(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.delete_items(args.item_ids, shared=args.shared)
        emit(args, {"deletedCount": response.deleted_count}, f"deleted {response.deleted_count}")
        return EXIT_OK

    return run(args, command)
