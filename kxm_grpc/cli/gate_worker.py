"""``kxm gate worker``: a gate worker, the agent gate steps of step runs are assigned to.

It registers as an agent (``--name``, default ``gate-worker``: the workflows' default
``gateWorkers``) with the project token, then takes its assignments one at a time
(``hub.workflows.assignments()``): for each, it checks the assignment's commit out into a fresh
workspace of its own (``--workdir``; none when the run names no repository: the checks run in
``--cwd``), runs the pinned gate's checks in order without a shell, each in its own process group
and stopped at its timeout, and completes the assignment with a ``WorkerResult`` of the checks
(their exit codes and the SHA-256 and byte counts of their output, never the output).

It reports what the commands did, never what that means: each check ``passed`` when its command
exited 0, the gate stopping at the first that did not; the hub applies the step's ``expect`` (a repro
gate passes when its command fails). A check that could not start or whose end is uncertain (a
timeout, a lost close, a signal, a workspace that could not be prepared) is reported ``uncertain``
with its reason: the hub blocks the run until an operator recovers it. ``--once`` handles one
assignment and exits (0 when it was completed, 2 otherwise); without it the worker runs until
interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path

import structlog

from kxm_grpc._gen.kxm.v1 import envelopes_pb2
from kxm_grpc.cli.common import EXIT_OK, EXIT_UNREACHABLE, add_connection_flags, open_client, print_hub_error
from kxm_grpc.client import AddressError, HubClient
from kxm_grpc.client.assignments import Assignment
from kxm_grpc.client.gate_results import worker_result_message
from kxm_grpc.errors import HubError
from kxm_grpc.gates.outcome import Check, Expect, GateRun, Outcome, run_gate
from kxm_grpc.gates.result import worker_result
from kxm_grpc.gates.runner import Command
from kxm_grpc.gates.workspace import Checkout, WorkspaceError, workspace

log = structlog.get_logger("kxm.gates")

DEFAULT_NAME = "gate-worker"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=DEFAULT_NAME, help=f"the agent name to register as (default {DEFAULT_NAME})")
    parser.add_argument(
        "--workdir", default=".kxm/gate-workspaces", help="where each assignment's checkout is made (and removed)"
    )
    parser.add_argument("--cwd", default=".", help="where checks run when the run names no repository")
    parser.add_argument("--keep", action="store_true", help="keep each workspace after its gate (for debugging)")
    parser.add_argument("--once", action="store_true", help="handle one assignment, then exit")
    add_connection_flags(parser)


async def handle(assignment: Assignment, args: argparse.Namespace) -> envelopes_pb2.WorkerResult:
    """Run the assignment's gate and return its ``WorkerResult`` (uncertain when it cannot tell)."""
    request = assignment.request
    spec = request.gate
    git = request.context.git
    if git.repository and git.base_commit:
        try:
            checkout = Checkout(git.repository, git.base_commit, None)
            async with workspace(Path(args.workdir), request.assignment_id, checkout, keep=args.keep) as prepared:
                result = await _run(spec, str(prepared.path), args.name)
                result.commit = git.base_commit  # what was checked (the hub refuses another)
                return result
        except WorkspaceError as error:
            log.warning("gate_workspace_failed", assignment_id=request.assignment_id, step=error.step)
            return envelopes_pb2.WorkerResult(
                schema="kxm.worker-result.v1",
                outcome="uncertain",
                summary=f"the workspace could not be prepared ({error.step})",
                checks=[envelopes_pb2.GateCheck(name="workspace", observation="uncertain", reason="workspace-error")],
            )
    return await _run(spec, args.cwd, args.name)


async def _run(spec: envelopes_pb2.GateSpec, cwd: str, name: str) -> envelopes_pb2.WorkerResult:
    if spec.kind == "artifacts-exist":
        checks = [
            envelopes_pb2.GateCheck(name=path, passed=(Path(cwd) / path).exists(), observation="complete")
            for path in spec.paths
        ]
        failed = next((index for index, check in enumerate(checks) if not check.passed), None)
        reported = checks if failed is None else checks[: failed + 1]
        return envelopes_pb2.WorkerResult(
            schema="kxm.worker-result.v1",
            worker=envelopes_pb2.WorkerIdentity(kind="gate", driver="code", name=name),
            outcome="done",
            ok=failed is None,
            summary="every artifact exists" if failed is None else f"missing: {reported[-1].name}",
            checks=reported,
        )
    # Each command's own success: the hub applies the step's expect (a repro gate's failure passes it).
    commands = [
        Check(check.name, Command(list(check.argv), cwd=cwd, timeout_ms=int(check.timeout_ms)), Expect.PASS)
        for check in spec.checks
    ]
    run: GateRun = await run_gate(commands)
    message = worker_result_message(worker_result(run, name=name))
    message.outcome = "uncertain" if run.outcome in (Outcome.UNCERTAIN, Outcome.NO_START) else "done"
    return message


async def serve(args: argparse.Namespace, client: HubClient) -> int:
    """Register, then complete assignments until stopped (or one, with ``--once``)."""
    # Stopping is armed before anything is saved: a SIGTERM that arrives once the key is on disk
    # (a supervisor, a test waiting for the file) stops the worker cleanly instead of killing it.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    # Remembered: a restarted worker resumes its agent (its id and open assignments), and no other
    # process takes the name while it lives.
    await client.agents.register(args.name, purpose="gate worker", remember=True)
    async for assignment in client.workflows.assignments(stop=stop):
        if assignment.request.role != "gate":
            log.warning("gate_worker_not_a_gate", assignment_id=assignment.id, role=assignment.request.role)
            continue
        result = await handle(assignment, args)
        try:
            answer = await assignment.complete(result)
        except HubError as error:
            print_hub_error(args, error)
            if args.once:
                return EXIT_UNREACHABLE
            continue
        log.info(
            "gate_assignment_completed",
            assignment_id=assignment.id,
            outcome=answer.assignment.outcome,
            run_status=answer.run_status,
        )
        if args.once:
            return EXIT_OK
    return EXIT_OK


def main(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with open_client(args) as client:
            return await serve(args, client)

    try:
        return asyncio.run(command())
    except HubError as error:  # a token found nowhere (CREDENTIAL_MISSING) too: 2, never 1
        print_hub_error(args, error)
        return EXIT_UNREACHABLE
    except AddressError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except KeyboardInterrupt:
        return EXIT_OK
