"""The step-run verbs of ``kxm workflow``: ``events RUN`` (a step run's event log, ``--follow`` to
keep reading it), ``approve RUN STEP OUTCOME`` (an operator decides an approval step) and ``recover
RUN retry|fail|cancel`` (an operator recovers a run an uncertain gate blocked), ``audit RUN`` (a
step run's gate evidence re-verified, exit 1 when it is not intact); and how ``run``
shows a step run (its current step, attempt, assignments and budgets)."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from google.protobuf import json_format

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, add_connection_flags, client_from, emit, message_to_dict, run
from kxm_grpc.cli.identity import add_identity, agent_client


def step_run_lines(run: Any) -> list[str]:
    """A step run's state under its run line: the current step and its assignments, the budgets."""
    steps = run.steps
    lines = []
    if steps.current_step_id:
        lines.append(f"  step {steps.current_step_id} attempt {steps.step_attempt} ({_phase(steps.phase)})")
    for assignment in steps.assignments:
        state = _enum_name(assignment.state, "ASSIGNMENT_STATE_")
        outcome = f"\t{assignment.outcome}" if assignment.outcome else ""
        lines.append(f"  {assignment.id}\t{assignment.agent_name}\t{assignment.role}\t{state}{outcome}")
    lines.append(
        f"  transitions {steps.transitions}/{steps.transition_budget}\tcost ${steps.cost_usd:.4f}"
        f"\tunmetered {steps.unmetered_results}\tevents {steps.sequence}"
    )
    return lines


def _phase(value: int) -> str:
    return _enum_name(value, "STEP_PHASE_")


def _enum_name(value: int, prefix: str) -> str:
    from kxm_grpc._gen.kxm.v1 import workflow_steps_pb2  # grpc is slow to import: only when printing

    if prefix == "STEP_PHASE_":
        return str(workflow_steps_pb2.StepPhase.Name(value)).removeprefix(prefix).lower()  # type: ignore[arg-type]
    return str(workflow_steps_pb2.AssignmentState.Name(value)).removeprefix(prefix).lower()  # type: ignore[arg-type]


def _events_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("--after", type=int, default=0, metavar="SEQ", help="events after this sequence (default 0)")
    parser.add_argument("--follow", action="store_true", help="keep reading new events until the run ends")
    add_identity(parser)


def _events(args: argparse.Namespace) -> int:
    async def command() -> int:
        # The saved agent of --as (the plan's coordinator), else the project token.
        client = await agent_client(args, str(args.agent_name)) if args.agent_name else client_from(args)
        async with client:
            after = args.after
            collected: list[dict[str, Any]] = []
            while True:
                page = await client.workflows.list_run_events(args.run_id, after_sequence=after, page_size=500)
                for event in page.events:
                    document = {
                        "sequence": str(event.sequence),  # int64: a string, as in the proto3 JSON mapping
                        "type": event.type,
                        "time": event.time.ToJsonString(),
                        "payload": json_format.MessageToDict(event.payload),
                    }
                    collected.append(document)
                    if not args.json:
                        print(f"{event.sequence}\t{document['time']}\t{event.type}\t{json.dumps(document['payload'])}")
                    after = event.sequence
                if page.events and after < page.last_sequence:
                    continue
                ended = any(event.type == "run.ended" for event in page.events)
                if not args.follow or ended:
                    break
                await asyncio.sleep(0.5)
        if args.json:
            print(json.dumps({"events": collected}))
        return EXIT_OK

    return run(args, command)


def _approve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("step_id", metavar="STEP")
    parser.add_argument("outcome", metavar="OUTCOME", help="one of the approval step's declared outcomes")
    parser.add_argument("--reason", default="", help="why (recorded in the run's events)")
    add_connection_flags(parser, admin=True)


def _approve(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.approve_step(args.run_id, args.step_id, args.outcome, reason=args.reason)
        emit(args, message_to_dict(response), f"{response.run.id}\t{args.step_id}\t{args.outcome}")
        return EXIT_OK

    return run(args, command)


def _recover_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("action", choices=("retry", "fail", "cancel"), help="run the gate again, or end the run")
    parser.add_argument("--reason", default="", help="why (recorded in the run's events)")
    add_connection_flags(parser, admin=True)


def _recover(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.workflows.recover_step_run(args.run_id, args.action, reason=args.reason)
        emit(args, message_to_dict(response), f"{response.run.id}\t{args.action}")
        return EXIT_OK

    return run(args, command)


def _audit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    add_identity(parser)


def _audit(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await agent_client(args, str(args.agent_name)) if args.agent_name else client_from(args)
        async with client:
            response = await client.workflows.audit_gate_evidence(args.run_id)
        lines = [f"{'intact' if response.intact else 'NOT INTACT'}\trecords {response.records}"]
        lines += [f"  {p.code}\t{p.assignment_id or '-'}\t{p.detail}" for p in response.problems]
        emit(args, message_to_dict(response), "\n".join(lines))
        return EXIT_OK if response.intact else EXIT_ERROR

    return run(args, command)


VERBS = [
    ("events", "print a step run's event log (--follow to keep reading it)", _events_arguments, _events),
    ("approve", "decide a step run's approval step with an outcome (an operator)", _approve_arguments, _approve),
    (
        "recover",
        "recover a step run an uncertain gate blocked: retry, fail or cancel (an operator)",
        _recover_arguments,
        _recover,
    ),
    (
        "audit",
        "re-verify a step run's gate evidence against its pins and hashes (exit 1: not intact)",
        _audit_arguments,
        _audit,
    ),
]
