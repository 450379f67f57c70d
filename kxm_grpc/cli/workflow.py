"""``kxm workflow``: evidence-gated workflow definitions and their durable runs.

``validate FILE...`` checks files without a hub: stage workflows, step workflows
(``kxm.workflow.v1``, with ``--gates`` the project's gate registry) and gate registries
(``cli/workflow_validate.py`` says how).

The other verbs talk to a hub, each with the credentials its RPC takes:

- an operator's token (``--token``, ``KXM_ADMIN_TOKEN`` or ``.kxm/credentials.json``: the admin
  token or a named operator's): ``register FILE`` (a stage workflow, a step workflow or, by its
  ``schema``, the ``--project``'s gate registry), ``start``, ``cancel``, ``rerun``, ``degrade``,
  ``rule``, ``signal --operator`` and ``promote`` (a journal entry);
- the run's coordinator, a saved agent named by ``--as`` (or ``KXM_AGENT_NAME``): ``checkpoint``,
  ``wait``, ``escalate`` and ``record`` (a journal entry);
- the project token, or a saved agent with ``--as`` (which sees only the runs it coordinates):
  ``list`` (definitions of both kinds), ``gates`` (the project's gate registry), ``runs``, ``run``,
  and the journal's ``journal`` (every record of a run's journal), ``report`` (the project's
  improvement report), ``export`` (an ended run's retrospective, Markdown or its JSON) and
  ``verify`` (exit 0 when the journal is intact, 1 when it
  is not, naming the problem and the first bad record).

``signal`` without ``--operator`` needs no hub credential at all: it signs its request with the
definition's signal secret exactly as an external sender must (``kxm-webhook-v1``,
``kxm_grpc.domain.workflows.signatures.sign``) and POSTs it to the hub's webhook listener with the
standard library only, so it doubles as the sender reference. Each verb prints one line (or a few)
per result, or JSON with ``--json``; a hub error is one line on standard error and exit 1 (2 when
the hub cannot be reached).

Each verb is a ``(name, help, add_arguments, run)`` row of ``VERBS``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from kxm_grpc.cli import workflow_steps, workflow_validate
from kxm_grpc.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNREACHABLE,
    add_connection_flags,
    all_pages,
    client_from,
    emit,
    message_to_dict,
    run,
)
from kxm_grpc.cli.identity import add_identity, agent_client
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import (
    IMPROVEMENT_AREAS,
)
from kxm_grpc.domain.workflows.journal import Category, PromotionStatus, Severity

EXIT_USAGE = EXIT_UNREACHABLE
"""2: argparse's status for a usage error, and ours for a file that cannot be read."""


def register(commands: Any) -> None:
    """Add ``workflow``."""
    workflow = commands.add_parser("workflow", help="workflow definitions and their durable runs")
    actions = workflow.add_subparsers(dest="workflow_command", required=True, metavar="COMMAND")
    for name, help_text, add_arguments, handler in VERBS:
        verb = actions.add_parser(name, help=help_text, description=help_text)
        add_arguments(verb)
        verb.set_defaults(run=handler)


# -- shared by the hub verbs -----------------------------------------------------------------------

_CHECKPOINT_STATUSES = ("passed", "warning", "failed")
_RUN_STATUSES = ("running", "waiting", "completed", "failed", "cancelled")


def _pair(value: str) -> tuple[str, str]:
    """The ``KEY=VALUE`` type of ``--evidence`` and ``--ref`` (split at the first ``=``)."""
    key, separator, rest = value.partition("=")
    if not separator or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {value!r}")
    return key, rest


def _add_evidence(parser: argparse.ArgumentParser, *, refs: bool = False) -> None:
    parser.add_argument(
        "--evidence",
        type=_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="evidence by key (repeat for more keys)",
    )
    if refs:
        parser.add_argument(
            "--ref",
            type=_pair,
            action="append",
            default=[],
            metavar="KEY=MESSAGE_ID",
            help="cite a peer's reply for a requirement key (repeat: several ids for one key, or several keys)",
        )


def _evidence(args: argparse.Namespace) -> dict[str, str]:
    return dict(args.evidence)


def _refs(args: argparse.Namespace) -> dict[str, list[str]]:
    refs: dict[str, list[str]] = {}
    for key, message_id in args.ref:
        refs.setdefault(key, []).append(message_id)
    return refs


def _usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _acting_agent(args: argparse.Namespace) -> str:
    if not args.agent_name:
        print("error: name the run's coordinator with --as NAME (or KXM_AGENT_NAME)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    return str(args.agent_name)


async def _reader(args: argparse.Namespace) -> Any:
    """The saved agent of ``--as`` (it sees the runs it coordinates), else the project token's client."""
    if args.agent_name:
        return await agent_client(args, str(args.agent_name))
    return client_from(args)


def _name(value: int, enum: Any, prefix: str) -> str:
    """``WORKFLOW_RUN_STATUS_RUNNING`` -> ``running``."""
    return str(enum.Name(value)).removeprefix(prefix).lower()


def _run_status(value: int) -> str:
    from kxm_grpc.v1 import WorkflowRunStatus

    return _name(value, WorkflowRunStatus, "WORKFLOW_RUN_STATUS_")


def _stage_status(value: int) -> str:
    from kxm_grpc.v1 import WorkflowStageStatus

    return _name(value, WorkflowStageStatus, "WORKFLOW_STAGE_STATUS_")


def _checkpoint_status(value: int) -> str:
    from kxm_grpc.v1 import CheckpointStatus

    return _name(value, CheckpointStatus, "CHECKPOINT_STATUS_")


def _run_line(run: Any) -> str:
    """``run_id  definition  status  stage  coordinator`` (``-`` for no current stage)."""
    stage = run.current_stage_id or "-"
    return f"{run.id}\t{run.definition_id}\t{_run_status(run.status)}\t{stage}\t{run.coordinator_name}"


def _run_text(run: Any) -> str:
    """The run's line, then one line per stage, its wait and why it ended."""
    lines = [_run_line(run)]
    for stage in run.stages:
        line = f"  {stage.id}\t{_stage_status(stage.status)}\tattempts {stage.attempts}"
        for quorum in stage.quorum:
            line += f"\t{quorum.requirement_key} {quorum.counted}/{quorum.required}"
        lines.append(line)
    if run.HasField("steps"):
        lines.extend(workflow_steps.step_run_lines(run))
    if run.HasField("wait"):
        lines.append(f"  waiting on {run.wait.signal_key} until {run.wait.expire_time.ToJsonString()}")
    if run.end_reason:
        lines.append(f"  ended: {run.end_reason}")
    return "\n".join(lines)


def _flags(response: Any, *names: str) -> str:
    """The tab-separated names of the response's boolean fields that are set."""
    return "".join(f"\t{name}" for name in names if getattr(response, name))


def step_text(response: Any, *flags: str) -> str:
    """A step's run line, the flags it set, and the instruction the hub gave the coordinator."""
    text = _run_line(response.run) + _flags(response, *flags)
    transition = getattr(response, "transition", None)
    if transition is not None and response.HasField("transition"):
        text += f"\ttransition {transition.from_stage_id} -> {transition.to_stage_id} ({transition.outcome})"
    degraded = list(getattr(response, "degraded_requirements", ()))
    if degraded:
        text += f"\tdegraded: {', '.join(degraded)}"
    return text + (f"\n{response.instruction}" if response.instruction else "")


def _emit(args: argparse.Namespace, response: Any, text: str) -> int:
    emit(args, message_to_dict(response), text)
    return EXIT_OK


# -- definitions -----------------------------------------------------------------------------------


def _register_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help="one definition or gate registry (.json, .yaml or .yml; told apart by its schema): a stage workflow,"
        " a step workflow (kxm.workflow.v1) or the project's gate registry (kxm.gate-registry.v1, for --project)",
    )
    parser.add_argument("--format", choices=("json", "yaml"), help="read FILE as this (default: by suffix)")
    parser.add_argument(
        "--validate-only", action="store_true", help="have the hub check it as a registration would, storing nothing"
    )
    add_connection_flags(parser, admin=True)


def _register(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "rb") as file:
            document = file.read().decode("utf-8-sig")
    except OSError as error:
        return _usage(f"cannot read {args.file}: {error.strerror or error}")
    except UnicodeDecodeError as error:
        return _usage(f"cannot read {args.file}: not UTF-8 text ({error.reason} at byte {error.start})")
    suffix = os.path.splitext(args.file)[1].lower()
    format = args.format or {".json": "json", ".yaml": "yaml", ".yml": "yaml"}.get(suffix)

    registry = _is_gate_registry(document, args.file, format)

    async def command() -> int:
        async with client_from(args, admin=True) as client:
            if registry:
                answer = await client.workflows.register_gate_registry(
                    document, format=format, validate_only=args.validate_only
                )
                gates = answer.registry
                text = f"gates {gates.project}\t{_state(args, answer)}\tgates: {', '.join(gates.gate_ids)}"
                return _emit(args, answer, f"{text}\thash {gates.hash}")
            response = await client.workflows.register_definition(
                document, format=format, validate_only=args.validate_only
            )
        definition = response.definition
        text = f"{definition.id}\t{_state(args, response)}\t{_parts(definition)}\thash {definition.hash}"
        return _emit(args, response, text)

    return run(args, command)


def _is_gate_registry(document: str, path: str, format: str | None) -> bool:
    """Whether the document is a gate registry (by its ``schema``); one that does not decode is sent
    as a definition, and the hub says what is wrong with it."""
    from kxm_grpc.domain.workflows import documents
    from kxm_grpc.domain.workflows.kinds import DocumentKind, document_kind

    try:
        return document_kind(documents.decode(document, origin=path, format=format)) is DocumentKind.GATE_REGISTRY
    except (documents.DocumentError, ValueError):
        return False


def _state(args: argparse.Namespace, response: Any) -> str:
    if args.validate_only:
        return "valid"
    return "unchanged" if response.unchanged else "created" if response.created else "replaced"


def _parts(definition: Any) -> str:
    """``stages: a, b`` or ``steps: a, b``: the definition's kind and its parts."""
    from kxm_grpc.v1 import WorkflowKind

    if definition.kind == WorkflowKind.WORKFLOW_KIND_STEPS:
        return f"steps: {', '.join(definition.step_ids)}"
    return f"stages: {', '.join(definition.stage_ids)}"


def _list_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_flags(parser)


def _list(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            found = await all_pages(lambda t: client.workflows.list_definitions(page_token=t), "definitions")
        emit(
            args,
            {"definitions": [message_to_dict(d) for d in found]},
            "\n".join(f"{d.id}\t{d.project}\t{d.source or '-'}\t{_parts(d)}\thash {d.hash}" for d in found),
        )
        return EXIT_OK

    return run(args, command)


def _gates_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_flags(parser)


def _gates(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args) as client:
            response = await client.workflows.get_gate_registry()
        registry = response.registry
        lines = [
            f"{registry.project}\thash {registry.hash}\tby {registry.registered_by}"
            f"\tat {registry.update_time.ToJsonString()}"
        ]
        for gate_id, gate in sorted(json.loads(registry.document).get("gates", {}).items()):
            if gate.get("kind") == "command":
                checks = "; ".join(f"{' '.join(c['argv'])} ({c['timeoutMs']} ms)" for c in gate.get("checks", []))
                lines.append(f"  {gate_id}\tcommand\t{checks}")
            else:
                lines.append(f"  {gate_id}\t{gate.get('kind')}\t{', '.join(gate.get('paths', []))}")
        return _emit(args, response, "\n".join(lines))

    return run(args, command)


# -- runs ------------------------------------------------------------------------------------------


def _runs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--status", choices=_RUN_STATUSES, help="only runs in this status")
    parser.add_argument("--definition", default="", metavar="ID", help="only runs of this definition")
    add_identity(parser)


def _runs(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await _reader(args)
        async with client:
            found = await all_pages(
                lambda t: client.workflows.list_runs(status=args.status, definition_id=args.definition, page_token=t),
                "runs",
            )
        emit(args, {"runs": [message_to_dict(r) for r in found]}, "\n".join(_run_line(r) for r in found))
        return EXIT_OK

    return run(args, command)


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    add_identity(parser)


def _run(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await _reader(args)
        async with client:
            response = await client.workflows.get_run(args.run_id)
        return _emit(args, response.run, _run_text(response.run))

    return run(args, command)


def _start_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("definition", metavar="DEFINITION", help="the definition id")
    parser.add_argument("--delivery-id", required=True, metavar="ID", help="de-duplicates starts (1-128 characters)")
    parser.add_argument("--payload", metavar="FILE", help="the start payload, a JSON object; '-' reads standard input")
    parser.add_argument("--event", default="", help="the event the delivery is for")
    parser.add_argument("--repository", default="", help="a step workflow's repository (URL or path)")
    parser.add_argument("--base-commit", default="", metavar="SHA", help="a step workflow's starting commit (full hex)")
    parser.add_argument(
        "--skill",
        default="",
        metavar="SKILL_ID",
        help="a skill candidate the step run evaluates (its gates that declare evaluates record evaluations of it)",
    )
    add_connection_flags(parser, admin=True)


def _payload(source: str | None) -> dict[str, Any] | None:
    """The JSON object of ``--payload`` (None when not given).

    Raises:
        ValueError: it cannot be read, or is not a JSON object.
    """
    if source is None:
        return None
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8-sig") as file:
                text = file.read()
    except OSError as error:
        raise ValueError(f"cannot read {source}: {error.strerror or error}") from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{source}: not JSON ({error})") from None
    if not isinstance(payload, dict):
        raise ValueError(f"{source}: the payload must be a JSON object")
    return payload


def _start(args: argparse.Namespace) -> int:
    try:
        payload = _payload(args.payload)
    except ValueError as error:
        return _usage(str(error))

    async def command() -> int:
        async with client_from(args, admin=True) as client:
            inputs = None
            if args.repository or args.base_commit or args.skill:
                from kxm_grpc._gen.kxm.v1 import workflow_steps_pb2

                inputs = workflow_steps_pb2.StepRunInputs(
                    repository=args.repository, base_commit=args.base_commit, skill_id=args.skill
                )
            response = await client.workflows.start_run(
                args.definition, delivery_id=args.delivery_id, payload=payload, event=args.event, inputs=inputs
            )
        if not response.started:
            text = f"not started: the delivery does not match {args.definition}'s event or filter"
        else:
            text = _run_line(response.run) + _flags(response, "duplicate")
        return _emit(args, response, text)

    return run(args, command)


def _cancel_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("--reason", default="", help="why (at most 1,000 characters)")
    add_connection_flags(parser, admin=True)


def _cancel(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.cancel_run(args.run_id, reason=args.reason)
        return _emit(args, response, _run_line(response.run))

    return run(args, command)


def _rerun_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID", help="the run whose start payload starts the new run")
    parser.add_argument("--delivery-id", required=True, metavar="ID", help="the new run's delivery id")
    add_connection_flags(parser, admin=True)


def _rerun(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.rerun_run(args.run_id, delivery_id=args.delivery_id)
        return _emit(args, response, _run_line(response.run) + _flags(response, "duplicate"))

    return run(args, command)


# -- the coordinator's steps -----------------------------------------------------------------------


def _checkpoint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("stage_id", metavar="STAGE")
    parser.add_argument("status", metavar="STATUS", choices=_CHECKPOINT_STATUSES, help="passed, warning or failed")
    parser.add_argument("--summary", default="", help="what was done (at most 4,000 characters)")
    _add_evidence(parser, refs=True)
    parser.add_argument("--outcome", default="", help="a custom outcome choosing a declared transition")
    parser.add_argument("--request-id", default=None, help="repeat a checkpoint safely with the same id (default: new)")
    add_identity(parser)


def _checkpoint(args: argparse.Namespace) -> int:
    name = _acting_agent(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            response = await client.workflows.checkpoint(
                args.run_id,
                args.stage_id,
                args.status,
                summary=args.summary,
                evidence=_evidence(args),
                evidence_refs=_refs(args),
                outcome=args.outcome,
                request_id=args.request_id,
            )
        text = step_text(response, "retry", "completed", "exhausted", "escalated", "repeated")
        return _emit(args, response, text)

    return run(args, command)


def _wait_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("stage_id", metavar="STAGE")
    parser.add_argument("signal_key", metavar="SIGNAL_KEY")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long the wait lasts before it fails the run (1 s to 30 days; hub default 24 h)",
    )
    parser.add_argument("--summary", default="", help="what it waits for (at most 4,000 characters)")
    _add_evidence(parser, refs=True)
    parser.add_argument("--request-id", default=None, help="repeat a wait safely with the same id (default: new)")
    add_identity(parser)


def _wait(args: argparse.Namespace) -> int:
    name = _acting_agent(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            response = await client.workflows.wait(
                args.run_id,
                args.stage_id,
                args.signal_key,
                ttl=args.timeout,
                summary=args.summary,
                evidence=_evidence(args),
                evidence_refs=_refs(args),
                request_id=args.request_id,
            )
        return _emit(args, response, step_text(response, "repeated"))

    return run(args, command)


def _escalate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("stage_id", metavar="STAGE")
    parser.add_argument("--reason", required=True, help="why (at most 4,000 characters)")
    add_identity(parser)


def _escalate(args: argparse.Namespace) -> int:
    name = _acting_agent(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            response = await client.workflows.escalate_stage(args.run_id, args.stage_id, args.reason)
        return _emit(args, response, step_text(response))

    return run(args, command)


# -- an operator's steps ---------------------------------------------------------------------------


def _degrade_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("stage_id", metavar="STAGE")
    parser.add_argument("requirement_key", metavar="KEY", help="a peer requirement whose policy declares a degradation")
    parser.add_argument("--reason", required=True, help="why (at most 1,000 characters)")
    add_connection_flags(parser, admin=True)


def _degrade(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.approve_degradation(
                args.run_id, args.stage_id, args.requirement_key, args.reason
            )
        approval = response.approval
        text = (
            f"{approval.id}\t{approval.stage_id}\t{approval.requirement_key}\tattempt {approval.attempt}"
            f"\tmin {approval.approved_min_producers} (policy {approval.policy_min_producers})"
        )
        return _emit(args, response, text + _flags(response, "duplicate"))

    return run(args, command)


def _rule_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--status", required=True, choices=_CHECKPOINT_STATUSES, help="the status the ruling applies (no default)"
    )
    parser.add_argument("--ruling", required=True, help="the ruling (at most 4,000 characters)")
    _add_evidence(parser)
    add_connection_flags(parser, admin=True)


def _rule(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.resolve_escalation(
                args.run_id, args.status, args.ruling, evidence=_evidence(args)
            )
        return _emit(args, response, step_text(response, "retry", "completed"))

    return run(args, command)


# -- the journal -----------------------------------------------------------------------------------

_CATEGORIES = tuple(category.value for category in Category)
_SEVERITIES = tuple(severity.value for severity in Severity)
_DECISIONS = tuple(status.value for status in PromotionStatus if status is not PromotionStatus.PROPOSED)


def _rfc3339(value: str) -> str:
    """The ``--since`` type: an RFC 3339 time (checked when the command line is parsed)."""
    from google.protobuf import timestamp_pb2

    try:
        timestamp_pb2.Timestamp().FromJsonString(value.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an RFC 3339 time (2025-01-31T12:00:00Z), got {value!r}") from None
    return value.strip()


def _journal_name(value: int, enum: Any, prefix: str) -> str:
    """``JOURNAL_CATEGORY_SKILL_CANDIDATE`` -> ``skill-candidate``; ``-`` for unspecified."""
    return _name(value, enum, prefix).replace("_", "-") if value else "-"


def _one_line(text: str) -> str:
    return " ".join(text.splitlines())


def _record_line(record: Any) -> str:
    """One journal record. An entry: ``sequence  id  category  area  severity  stage  author  status
    summary`` (``-`` for no stage, and for the status of an entry that is not promotable); a
    promotion: ``sequence  id  promotion  entry  decision  decided-by  reason``."""
    from kxm_grpc.v1 import ImprovementArea, JournalCategory, JournalSeverity
    from kxm_grpc.v1 import PromotionStatus as Status  # the domain's PromotionStatus is the module's

    if record.WhichOneof("record") == "promotion":
        decision = record.promotion
        to = _journal_name(decision.to_status, Status, "PROMOTION_STATUS_")
        return (
            f"{record.sequence}\t{decision.id}\tpromotion\t{decision.entry_id}\t{to}\t{decision.decided_by}"
            f"\t{_one_line(decision.reason)}"
        )
    entry = record.entry
    fields = (
        str(record.sequence),
        entry.id,
        _journal_name(entry.category, JournalCategory, "JOURNAL_CATEGORY_"),
        _journal_name(entry.area, ImprovementArea, "IMPROVEMENT_AREA_"),
        _journal_name(entry.severity, JournalSeverity, "JOURNAL_SEVERITY_"),
        entry.stage_id or "-",
        entry.author,
        _journal_name(entry.promotion_status, Status, "PROMOTION_STATUS_"),
        _one_line(entry.summary),
    )
    return "\t".join(fields)


def _record_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("--category", required=True, choices=_CATEGORIES, help="what the entry records")
    parser.add_argument("--summary", required=True, help="at most 1,000 characters")
    parser.add_argument(
        "--area", choices=IMPROVEMENT_AREAS, help="where improvement is needed (default: the stage's declared area)"
    )
    parser.add_argument("--severity", choices=_SEVERITIES, help="how much it weighs (default: info)")
    parser.add_argument("--details", default="", help="at most 8,000 characters")
    parser.add_argument(
        "--evidence",
        action="append",
        default=[],
        metavar="TEXT",
        help="evidence (repeat for more; class:NAME names a recurring class); lessons and skill candidates need one",
    )
    parser.add_argument(
        "--related", action="append", default=[], metavar="ENTRY_ID", help="an entry of the run it relates to (repeat)"
    )
    parser.add_argument("--stage", default="", metavar="STAGE", help="the stage it is about (the hub adds its attempt)")
    parser.add_argument("--request-id", default=None, help="repeat a record safely with the same id (default: new)")
    add_identity(parser)


def _record(args: argparse.Namespace) -> int:
    name = _acting_agent(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            response = await client.workflows.journal.record(
                args.run_id,
                args.category,
                args.summary,
                area=args.area,
                severity=args.severity,
                details=args.details,
                evidence=args.evidence,
                related_entry_ids=args.related,
                stage_id=args.stage,
                request_id=args.request_id,
            )
        return _emit(args, response, _record_line(response.record) + _flags(response, "repeated"))

    return run(args, command)


def _journal_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    add_identity(parser)


def _journal(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await _reader(args)
        async with client:
            found = [record async for record in client.workflows.journal.records(args.run_id)]
        emit(args, {"records": [message_to_dict(r) for r in found]}, "\n".join(_record_line(r) for r in found))
        return EXIT_OK

    return run(args, command)


def _promote_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("entry_id", metavar="ENTRY_ID", help="a skill candidate, hypothesis or experiment")
    parser.add_argument("--to", required=True, choices=_DECISIONS, help="the decision (terminal)")
    parser.add_argument(
        "--evidence-ref",
        dest="evidence_refs",
        action="append",
        required=True,
        metavar="REF",
        help="what the decision rests on (repeat for more)",
    )
    parser.add_argument("--reason", default="", help="why (at most 1,000 characters)")
    add_connection_flags(parser, admin=True)


def _promote(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.journal.promote(
                args.entry_id, args.to, evidence_refs=args.evidence_refs, reason=args.reason
            )
        return _emit(args, response, _record_line(response.record))

    return run(args, command)


def _report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--since", type=_rfc3339, metavar="RFC3339", help="only entries recorded at or after this time")
    parser.add_argument(
        "--max-entries",
        type=int,
        default=0,
        metavar="N",
        help="the newest entries read (default 10,000; at most 50,000)",
    )
    parser.add_argument("--signals", type=int, default=0, metavar="N", help="signals shown (default 20; at most 100)")
    add_identity(parser)  # its --project names the report's project (an operator's --token must name one)


def _report_text(response: Any) -> str:
    """``entries N``, then per area its counts and its priorities, then the signals, most pressing first."""
    from kxm_grpc.v1 import ImprovementArea, JournalCategory, JournalSeverity

    lines = [f"entries {response.entries}" + _flags(response, "truncated")]
    for area in response.areas:
        lines.append(
            f"{_journal_name(area.area, ImprovementArea, 'IMPROVEMENT_AREA_')}\ttotal {area.total}"
            f"\terrors {area.errors}\tcontradictions {area.contradictions}\tlessons {area.lessons}"
        )
        for entry in area.priorities:
            category = _journal_name(entry.category, JournalCategory, "JOURNAL_CATEGORY_")
            severity = _journal_name(entry.severity, JournalSeverity, "JOURNAL_SEVERITY_")
            lines.append(f"  {entry.id}\t{category}\t{severity}\t{_one_line(entry.summary)}")
    for signal in response.signals:
        severity = _journal_name(signal.severity, JournalSeverity, "JOURNAL_SEVERITY_")
        lines.append(
            f"signal {signal.key}\tpriority {signal.priority:g}\tfrequency {signal.frequency}\t{severity}"
            + _flags(signal, "security")
            + f"\t{_one_line(signal.summary)}"
        )
    for group in response.step_groups:
        verdict = "candidate" if group.candidate else f"not a candidate ({group.exclusion})"
        cost = f"${group.mean_cost_usd:.4f}" if group.cost_reported else "-"
        lines.append(
            f"step {group.workflow_id}/{group.step_id}	{group.role}	runs {group.runs}"
            f"	passed {group.pass_rate:.0%}	cost {cost}	rework {group.rework}	{verdict}	{group.id}"
        )
    return "\n".join(lines)


def _report(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await _reader(args)
        async with client:
            response = await client.workflows.journal.report(
                project=args.project or "", since=args.since, max_entries=args.max_entries, signal_limit=args.signals
            )
        return _emit(args, response, _report_text(response))

    return run(args, command)


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID", help="an ended run")
    parser.add_argument(
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="print the retrospective's Markdown (default) or its JSON document (--json: the whole answer)",
    )
    add_identity(parser)


def _export(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await _reader(args)
        async with client:
            response = await client.workflows.journal.export(args.run_id)
        text = response.json if args.format == "json" else response.markdown
        return _emit(args, response, text.removesuffix("\n"))

    return run(args, command)


def _verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    add_identity(parser)


def _verify_text(verdict: Any) -> str:
    """``run  intact  N records  head S`` (and whether it was held to the retrospective's head), or
    ``run  not intact  problem  sequence S  record ID  key K  verified N``."""
    from kxm_grpc.v1 import JournalVerdict

    if verdict.intact:
        held = "\theld to the retrospective" if verdict.held_to_retrospective else ""
        return f"{verdict.run_id}\tintact\t{verdict.verified_records} records\thead {verdict.head_sequence}{held}"
    problem = _name(verdict.problem, JournalVerdict.Problem, "PROBLEM_")
    return (
        f"{verdict.run_id}\tnot intact\t{problem}\tsequence {verdict.breach_sequence}"
        f"\trecord {verdict.breach_record_id or '-'}\tkey {verdict.breach_key_id or '-'}"
        f"\tverified {verdict.verified_records}"
    )


def _verify(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await _reader(args)
        async with client:
            response = await client.workflows.journal.verify(args.run_id)
        emit(args, message_to_dict(response), _verify_text(response.verdict))
        return EXIT_OK if response.verdict.intact else EXIT_ERROR

    return run(args, command)


# -- signals ---------------------------------------------------------------------------------------

HTTP_TIMEOUT = 30.0
"""Seconds a signed signal's HTTP request may take."""


def _signal_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="the hub's webhook listener, http(s)://HOST:PORT (signed mode)")
    parser.add_argument("--definition", metavar="ID", help="the run's definition (signed mode)")
    # dest run_id: ``run`` is the verb's handler (``set_defaults(run=...)``).
    parser.add_argument("--run", dest="run_id", required=True, metavar="RUN_ID", help="the waiting run")
    parser.add_argument("--key", required=True, metavar="SIGNAL_KEY", help="the signal key it waits for")
    parser.add_argument(
        "--secret-env", metavar="VAR", help="the environment variable holding the definition's signal secret"
    )
    parser.add_argument("--delivery-id", metavar="ID", help="de-duplicates signals (default: a new random id)")
    parser.add_argument("--status", required=True, choices=_CHECKPOINT_STATUSES)
    parser.add_argument("--summary", default="", help="at most 4,000 characters")
    parser.add_argument(
        "--outcome", default="", help="a step run's wait step: the outcome it resolves with (default: the status's)"
    )
    _add_evidence(parser)
    parser.add_argument(
        "--operator",
        action="store_true",
        help="call SignalWorkflowRun with an operator's token instead of signing an HTTP request",
    )
    add_connection_flags(parser, admin=True)


def _signal_line(answer: Mapping[str, Any], delivery_id: str) -> str:
    """One line of a signal's answer: the HTTP route's (camelCase) or the RPC's (snake_case)."""
    status = str(answer.get("status", "")).removeprefix("CHECKPOINT_STATUS_").lower()
    stage = answer.get("stageId", answer.get("stage_id", ""))
    key = answer.get("signalKey", answer.get("signal_key", ""))
    flags = "".join(f"\t{name}" for name in ("duplicate", "retry", "completed", "resumed") if answer.get(name))
    return f"{key}\t{status}\tstage {stage}{flags}\tdelivery {delivery_id}"


def _signal(args: argparse.Namespace) -> int:
    delivery_id = args.delivery_id or uuid.uuid4().hex
    if args.operator:
        if args.url or args.secret_env:
            return _usage("--operator calls the RPC with an operator's token: leave out --url and --secret-env")
        return _signal_by_rpc(args, delivery_id)
    missing = [flag for flag, value in (("--url", args.url), ("--definition", args.definition)) if not value]
    missing += ["--secret-env"] if not args.secret_env else []
    if missing:
        return _usage(f"a signed signal needs {', '.join(missing)} (or call the RPC with --operator)")
    return _signal_by_http(args, delivery_id)


def _signal_by_rpc(args: argparse.Namespace, delivery_id: str) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.signal_run(
                args.run_id,
                args.key,
                args.status,
                delivery_id=delivery_id,
                summary=args.summary,
                evidence=_evidence(args),
                outcome=args.outcome,
            )
        answer = message_to_dict(response)
        emit(args, answer, _signal_line(answer, delivery_id))
        return EXIT_OK

    return run(args, command)


def signal_request(
    url: str,
    secret: str,
    *,
    definition_id: str,
    run_id: str,
    signal_key: str,
    delivery_id: str,
    status: str,
    summary: str = "",
    evidence: Mapping[str, str] | None = None,
    now: int | None = None,
) -> urllib.request.Request:
    """The signed signal request an external sender POSTs (``kxm-webhook-v1``, kind ``signal``).

    The body is JSON ``{status, summary, evidence}``; the headers are ``x-kxm-delivery-id``,
    ``x-kxm-timestamp`` (``now``, default this machine's clock, in Unix seconds) and
    ``x-kxm-signature``, over the seven signed fields and the exact body bytes. The path's
    segments are percent-encoded; the signature covers them as given.

    Raises:
        ValueError: ``url`` is not ``http://`` or ``https://``; a field ``signatures.sign`` refuses
            (an empty or padded delivery id, a line break).
    """
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise ValueError(f"--url must be http://HOST:PORT or https://HOST:PORT, not {url!r}")
    body = json.dumps(
        {"status": status, "summary": summary, "evidence": dict(evidence or {})},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    timestamp = int(time.time()) if now is None else now
    headers = signatures.sign(
        secret, signatures.Kind.SIGNAL, timestamp, delivery_id, definition_id, run_id, signal_key, body
    )
    path = "/".join(
        ("v1", "webhooks", _segment(definition_id), "runs", _segment(run_id), "signals", _segment(signal_key))
    )
    return urllib.request.Request(  # noqa: S310 (the scheme is http or https, checked above)
        f"{url.rstrip('/')}/{path}",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", **headers},
    )


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _signal_by_http(args: argparse.Namespace, delivery_id: str) -> int:
    secret = os.environ.get(args.secret_env)
    if not secret:
        return _usage(f"${args.secret_env} is not set (it must hold the definition's signal secret)")
    try:
        request = signal_request(
            args.url,
            secret,
            definition_id=args.definition,
            run_id=args.run_id,
            signal_key=args.key,
            delivery_id=delivery_id,
            status=args.status,
            summary=args.summary,
            evidence=_evidence(args),
        )
    except ValueError as error:
        return _usage(str(error))
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:  # noqa: S310 (http or https)
            code, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        code, raw = error.code, error.read()
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        print(f"error: cannot reach {args.url}: {reason}", file=sys.stderr)
        return EXIT_UNREACHABLE
    try:
        answer = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        answer = {"error": raw.decode("utf-8", "replace")}
    if not isinstance(answer, dict):
        answer = {"answer": answer}
    if code >= 400:
        return _http_error(args, code, answer)
    if args.json:
        print(json.dumps(answer, indent=2, sort_keys=True))
    else:
        print(_signal_line(answer, delivery_id))
    return EXIT_OK


def _http_error(args: argparse.Namespace, code: int, answer: dict[str, Any]) -> int:
    """Print the route's error answer as ``run`` prints a hub error; exit 2 for 503, else 1."""
    reason, message = str(answer.get("code", "")), str(answer.get("error", ""))
    if args.json:
        metadata = {k: v for k, v in answer.items() if k not in ("code", "error")}
        payload = {"ok": False, "httpStatus": code, "reason": reason, "message": message, "metadata": metadata}
        print(json.dumps(payload), file=sys.stderr)
    else:
        print(f"error: HTTP {code} {reason}: {message}", file=sys.stderr)
    return EXIT_UNREACHABLE if code == 503 else EXIT_ERROR


Verb = tuple[str, str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]

VERBS: list[Verb] = [
    (
        "validate",
        "check definition files without a hub: print each file's definitions, or every problem",
        workflow_validate.add_arguments,
        workflow_validate.validate,
    ),
    (
        "register",
        "register a definition file with the hub (an operator; --validate-only stores nothing)",
        _register_arguments,
        _register,
    ),
    ("list", "list the project's workflow definitions, each with its kind (stages or steps)", _list_arguments, _list),
    ("gates", "show the project's gate registry (the gates its step workflows name)", _gates_arguments, _gates),
    ("runs", "list runs, newest first (with --as: the runs that agent coordinates)", _runs_arguments, _runs),
    ("run", "show a run: its stages, attempts, quorums and wait", _run_arguments, _run),
    ("start", "start a run of a definition as a signed start would (an operator)", _start_arguments, _start),
    ("cancel", "cancel a running or waiting run (an operator)", _cancel_arguments, _cancel),
    ("rerun", "start a new run from a run's start payload (an operator)", _rerun_arguments, _rerun),
    (
        "checkpoint",
        "checkpoint the current stage with its evidence and cited replies (the run's coordinator, --as)",
        _checkpoint_arguments,
        _checkpoint,
    ),
    ("wait", "put the current stage into a wait for a signal (the run's coordinator, --as)", _wait_arguments, _wait),
    (
        "signal",
        "signal a waiting run: a signed HTTP request as an external sender sends it, or --operator: the RPC",
        _signal_arguments,
        _signal,
    ),
    (
        "degrade",
        "approve a smaller quorum for a peer requirement at the active attempt (an operator)",
        _degrade_arguments,
        _degrade,
    ),
    (
        "escalate",
        "escalate the current stage for an operator's ruling (the run's coordinator, --as)",
        _escalate_arguments,
        _escalate,
    ),
    ("rule", "rule on an escalated stage with an explicit status (an operator)", _rule_arguments, _rule),
    (
        "record",
        "record an entry in a run's journal: a plan, decision, error, lesson, ... (the run's coordinator, --as)",
        _record_arguments,
        _record,
    ),
    ("journal", "list every record of a run's journal, in order", _journal_arguments, _journal),
    (
        "promote",
        "decide a skill candidate, hypothesis or experiment: approved, rejected or quarantined (an operator)",
        _promote_arguments,
        _promote,
    ),
    (
        "report",
        "the project's improvement report: per area what keeps going wrong, and the recurring problems ranked",
        _report_arguments,
        _report,
    ),
    ("export", "print an ended run's retrospective, as Markdown or its JSON", _export_arguments, _export),
    (
        "verify",
        "verify a run's journal chain: exit 0 when intact, 1 naming the first record that is not",
        _verify_arguments,
        _verify,
    ),
    *workflow_steps.VERBS,
]
