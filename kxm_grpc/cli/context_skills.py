"""``kxm context skill create|evaluate|promote|reject|get|list``: governed skills (spec §5.12).

``create`` is the agent's verb (``--as`` a saved agent, else the project token): it sends a SKILL.md
file as a candidate. ``evaluate``, ``promote`` and ``reject`` are an operator's (the admin token or a
named operator's, naming the project with ``--project``); ``promote`` needs an operator other than
the skill's author. ``get`` and ``list`` read. Each prints JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, add_connection_flags, client_from, emit, message_to_dict, run
from kxm_grpc.cli.identity import add_identity, agent_client

KINDS = ("static-review", "sandbox", "functional", "safety", "optimization")
STATES = ("candidate", "promoted", "quarantined", "rejected")


def add_commands(actions: Any) -> None:
    """Add ``skill`` and its verbs to the `kxm context` group's subparsers."""
    skill = actions.add_parser("skill", help="governed skills: create, evaluate, promote, reject, get, list")
    verbs = skill.add_subparsers(dest="skill_command", required=True, metavar="VERB")

    create = verbs.add_parser("create", help="send a SKILL.md as a skill candidate")
    create.add_argument("--name", required=True, help="the skill's name (1 to 64 characters)")
    create.add_argument("--file", required=True, type=Path, metavar="SKILL.md", help="the skill's text")
    create.add_argument("--description", default="", help="when the front matter has none")
    create.add_argument("--harness", required=True, help="the harness it is for")
    create.add_argument("--model", nargs="+", required=True, metavar="MODEL", help="1 to 16 models")
    create.add_argument("--run-id", nargs="+", default=[], metavar="ID", help="runs it was learned from")
    create.add_argument("--journal-entry", nargs="+", default=[], metavar="ID", help="journal entries it came from")
    create.add_argument("--evidence-receipt", nargs="+", default=[], metavar="REF", help="evidence receipts")
    create.add_argument("--supersedes", default="", metavar="SKILL_ID", help="the skill it replaces")
    create.add_argument("--version", type=int, default=0, help="its version (default 1)")
    add_identity(create)
    create.set_defaults(run=_create)

    evaluate = verbs.add_parser("evaluate", help="record an evaluation (an operator)")
    evaluate.add_argument("skill_id", metavar="ID")
    evaluate.add_argument("--kind", required=True, choices=KINDS)
    verdict = evaluate.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--passed", dest="passed", action="store_true", help="it passed")
    verdict.add_argument("--failed", dest="passed", action="store_false", help="it failed")
    evaluate.add_argument("--details", default="", help="at most 2,000 characters")
    add_connection_flags(evaluate, admin=True)
    evaluate.set_defaults(run=_evaluate)

    promote = verbs.add_parser("promote", help="promote a candidate (an operator, not its author)")
    promote.add_argument("skill_id", metavar="ID")
    promote.add_argument("--evidence", nargs="+", required=True, metavar="REF", help="1 to 32 refs supporting it")
    add_connection_flags(promote, admin=True)
    promote.set_defaults(run=_promote)

    reject = verbs.add_parser("reject", help="reject a candidate or a quarantined skill, or retire a promoted one")
    reject.add_argument("skill_id", metavar="ID")
    reject.add_argument("--reason", default="", help="why (at most 1,000 characters)")
    add_connection_flags(reject, admin=True)
    reject.set_defaults(run=_reject)

    get = verbs.add_parser("get", help="a skill and its history")
    get.add_argument("skill_id", metavar="ID")
    get.add_argument("--content", action="store_true", help="print its SKILL.md too")
    add_connection_flags(get)
    get.set_defaults(run=_get)

    listing = verbs.add_parser("list", help="the project's skills")
    listing.add_argument("--state", choices=STATES, help="only this state")
    listing.add_argument("--page-size", type=int, default=0)
    listing.add_argument("--page-token", default="")
    add_connection_flags(listing)
    listing.set_defaults(run=_list)


def _state(skill: Any) -> str:
    from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb

    return pb.SkillState.Name(skill.state).removeprefix("SKILL_STATE_").lower()


def _line(skill: Any) -> str:
    """One skill: id, state, version, and its name."""
    return f"{skill.id}\t{_state(skill)}\tv{skill.version}\t{skill.name}"


def _event_line(event: Any) -> str:
    from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb

    kind = pb.SkillEventType.Name(event.type).removeprefix("SKILL_EVENT_TYPE_").lower()
    text = f"{event.sequence}\t{event.event_time.ToJsonString()}\t{kind}\t{event.actor}"
    if event.evaluation_kind:
        evaluated = pb.SkillEvaluationKind.Name(event.evaluation_kind).removeprefix("SKILL_EVALUATION_KIND_")
        text += f"\t{evaluated.lower().replace('_', '-')} {'passed' if event.passed else 'failed'}"
    if event.evidence_refs:
        text += f"\tevidence {', '.join(event.evidence_refs)}"
    return text


def _create(args: argparse.Namespace) -> int:
    try:
        content = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
        return EXIT_ERROR

    async def command() -> int:
        client = await agent_client(args, args.agent_name) if args.agent_name else client_from(args)
        async with client:
            response = await client.context.create_skill(
                args.name,
                content,
                harness=args.harness,
                models=args.model,
                run_ids=args.run_id,
                journal_entry_ids=args.journal_entry,
                evidence_receipts=args.evidence_receipt,
                description=args.description,
                supersedes=args.supersedes,
                version=args.version,
            )
        skill = response.skill
        emit(args, message_to_dict(skill), f"{_line(skill)}\nsha256 {skill.content_sha256}")
        return EXIT_OK

    return run(args, command)


def _evaluate(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.evaluate_skill(
                args.skill_id, args.kind, passed=args.passed, details=args.details
            )
        data = {"skill": message_to_dict(response.skill), "event": message_to_dict(response.event)}
        emit(args, data, f"{_line(response.skill)}\n{_event_line(response.event)}")
        return EXIT_OK

    return run(args, command)


def _promote(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.promote_skill(args.skill_id, evidence_refs=args.evidence)
        data = {"skill": message_to_dict(response.skill), "item": message_to_dict(response.item)}
        emit(args, data, f"{_line(response.skill)}\ncontext item {response.item.id}")
        return EXIT_OK

    return run(args, command)


def _reject(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.context.reject_skill(args.skill_id, reason=args.reason)
        emit(args, message_to_dict(response.skill), _line(response.skill))
        return EXIT_OK

    return run(args, command)


def _get(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            response = await client.context.get_skill(args.skill_id)
        data = {
            "skill": message_to_dict(response.skill),
            "history": [message_to_dict(event) for event in response.history],
        }
        lines = [_line(response.skill), f"sha256 {response.skill.content_sha256}", "history:"]
        lines += [_event_line(event) for event in response.history]
        if args.content:
            lines += ["", response.skill.content]
        emit(args, data, "\n".join(lines))
        return EXIT_OK

    return run(args, command)


def _list(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            response = await client.context.list_skills(
                state=args.state, page_size=args.page_size, page_token=args.page_token
            )
        data = {
            "skills": [message_to_dict(skill) for skill in response.skills],
            "nextPageToken": response.next_page_token,
        }
        lines = [_line(skill) for skill in response.skills]
        if response.next_page_token:
            lines.append(f"next page: --page-token {response.next_page_token}")
        emit(args, data, "\n".join(lines) or "no skills")
        return EXIT_OK

    return run(args, command)
