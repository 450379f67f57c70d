"""``kxm context state|propose|promote|reject``: temporal state (spec §5.9).

``state KEY`` reads what a key held (now, or ``--as-of`` an RFC 3339 instant; ``--history`` adds
every item of the key); a key ending with ``[]`` is set-valued and lists its members. ``propose`` is
the agent's verb (``--as`` a saved agent, else the project token); ``promote`` and ``reject`` are an
operator's (the admin token or a named operator's, naming the project with ``--project``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, add_connection_flags, client_from, emit, message_to_dict, run
from kxm_grpc.cli.identity import add_identity, agent_client

SET_SUFFIX = "[]"


def add_commands(actions: Any) -> None:
    """Add this module's commands to the `kxm context` group's subparsers."""
    state = actions.add_parser("state", help="what a state key held (a key ending with [] lists the set)")
    state.add_argument("key", help="the state key (ending with [] for a set-valued key)")
    state.add_argument("--as-of", metavar="TIME", help="an RFC 3339 instant (default: now)")
    state.add_argument("--history", action="store_true", help="also list every item of the key (not for a set)")
    add_connection_flags(state)
    state.set_defaults(run=_state)

    propose = actions.add_parser("propose", help="propose a change of a state key (an operator promotes it)")
    propose.add_argument("key", help="the state key")
    propose.add_argument("summary", help="the proposed value (1 to 4,000 characters)")
    propose.add_argument("--evidence", nargs="+", required=True, metavar="ID", help="1 to 32 ids supporting it")
    propose.add_argument("--supersedes", nargs="+", default=[], metavar="ID", help="items the change replaces")
    propose.add_argument("--request-id", default="", help="a retry key: a retry returns the same proposal")
    add_identity(propose)
    propose.set_defaults(run=_propose)

    promote = actions.add_parser("promote", help="make a proposal current truth (an operator, not its proposer)")
    promote.add_argument("proposal", help="the proposal's id (ctx_…)")
    promote.add_argument("--evidence", nargs="+", required=True, metavar="ID", help="1 to 32 ids supporting it")
    add_connection_flags(promote, admin=True)
    promote.set_defaults(run=_promote)

    reject = actions.add_parser("reject", help="close a proposal without promoting it (an operator)")
    reject.add_argument("proposal", help="the proposal's id (ctx_…)")
    reject.add_argument("--reason", default="", help="why (at most 1,000 characters; kept in the audit)")
    add_connection_flags(reject, admin=True)
    reject.set_defaults(run=_reject)


def _as_of(args: argparse.Namespace) -> Any:
    """The ``--as-of`` instant as a Timestamp, or None; text that is not RFC 3339 ends the command."""
    if not args.as_of:
        return None
    from google.protobuf import timestamp_pb2

    stamp = timestamp_pb2.Timestamp()
    try:
        stamp.FromJsonString(args.as_of.strip())
    except ValueError:
        print(
            f"error: --as-of must be an RFC 3339 time such as 2026-01-31T12:00:00Z, not {args.as_of!r}", file=sys.stderr
        )
        raise SystemExit(EXIT_ERROR) from None
    return stamp


def _line(item: Any) -> str:
    """One item: id, status, validity, and its value."""
    from kxm_grpc.v1 import ContextStatus

    status = ContextStatus.Name(item.status).removeprefix("CONTEXT_STATUS_").lower() if item.status else "-"
    start = item.valid_from_time.ToJsonString() if item.HasField("valid_from_time") else "-"
    end = item.valid_until_time.ToJsonString() if item.HasField("valid_until_time") else "-"
    return f"{item.id}\t{status}\t{start} .. {end}\t{item.summary}"


def _state(args: argparse.Namespace) -> int:
    as_of = _as_of(args)
    if args.history and args.key.strip().endswith(SET_SUFFIX):
        print("error: --history reads a single-valued key; a key ending with [] is a set", file=sys.stderr)
        return EXIT_ERROR

    async def command() -> int:
        async with client_from(args) as client:
            if args.key.strip().endswith(SET_SUFFIX):
                members = (await client.context.list_state_set(args.key, as_of=as_of)).items
                emit(
                    args,
                    {"items": [message_to_dict(item) for item in members]},
                    "\n".join(_line(item) for item in members),
                )
                return EXIT_OK
            read = await client.context.get_state(args.key, as_of=as_of, include_history=args.history)
        data: dict[str, Any] = {"item": message_to_dict(read.item) if read.HasField("item") else None}
        lines = [_line(read.item) if read.HasField("item") else f"{args.key}: nothing held"]
        if args.history:
            data["history"] = [message_to_dict(item) for item in read.history]
            lines += ["history:", *(_line(item) for item in read.history)]
        emit(args, data, "\n".join(lines))
        return EXIT_OK

    return run(args, command)


def _propose(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await agent_client(args, args.agent_name) if args.agent_name else client_from(args)
        async with client:
            response = await client.context.propose_state(
                args.key,
                args.summary,
                evidence_refs=args.evidence,
                supersedes=args.supersedes,
                request_id=args.request_id,
            )
        emit(args, message_to_dict(response.proposal), _line(response.proposal))
        return EXIT_OK

    return run(args, command)


def _promote(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.promote_state(args.proposal, evidence_refs=args.evidence)
        data = {
            "item": message_to_dict(response.item),
            "proposal": message_to_dict(response.proposal),
            "supersededIds": list(response.superseded_ids),
        }
        superseded = ", ".join(response.superseded_ids) or "nothing"
        emit(args, data, f"{_line(response.item)}\nproposal {response.proposal.id} closed; superseded {superseded}")
        return EXIT_OK

    return run(args, command)


def _reject(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.reject_state(args.proposal, reason=args.reason)
        emit(args, message_to_dict(response.proposal), _line(response.proposal))
        return EXIT_OK

    return run(args, command)
