"""``kxm gate``: run a code gate here, as a gate worker would (``docs/gates.md``).

``worker`` is a gate worker for step runs (``cli/gate_worker.py``).

``run [--check NAME=CMD ...] -- CMD ARGS...`` runs the checks in order (each ``--check`` first,
its CMD split into words as a POSIX shell would but never run by one; then the command after
``--``, named ``command``), stopping at the first that does not pass, and prints the
``kxm.worker-result.v1`` (``--json``: ``{"worker_result", "content_hash"[, "checkpoint"]}``; else a
line per check and the summary). Exit status: 0 when the gate's outcome is ``passed``, 1 when it
failed (``implementation-failure``, ``repro-missing``), 2 when it is ``uncertain`` or ``no-start``,
on a usage error, and when a checkpoint was asked for and the hub refused it or could not be
reached (so 1 always means the code failed).

With ``--run RUN --stage STAGE`` (and the run's coordinator, ``--as``), the result is checkpointed
into that coordinator-driven run: a passed gate as ``passed``; a failed one only with
``--status-from-outcome``, as ``failed`` (which consumes an attempt and may take the stage's
``failed`` edge); an uncertain or no-start result never (it is not evidence either way). The
evidence is ``KEY`` (``--evidence-key``, default ``gate``): the result's content hash,
``KEY.outcome``: its outcome, and ``KEY.checks``: each check's outcome, plus any ``--evidence``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any

from kxm_grpc.cli import gate_worker
from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, EXIT_UNREACHABLE, message_to_dict, print_hub_error
from kxm_grpc.cli.identity import NoSavedKey, add_identity, open_agent_client
from kxm_grpc.client.addresses import AddressError
from kxm_grpc.errors import HubError
from kxm_grpc.gates.outcome import Check, Expect, GateRun, Outcome, run_gate
from kxm_grpc.gates.result import CheckResult, WorkerResult, worker_result
from kxm_grpc.gates.runner import DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, Command, Observation, run_check

EXIT_UNSETTLED = EXIT_UNREACHABLE
"""2: uncertain, no-start, a usage error, or a checkpoint that was not recorded."""
DEFAULT_NAME = "kxm-gate-run"
COMMAND_CHECK = "command"
TAIL_BYTES = 2_048
MAX_EVIDENCE_CHARS = 1_000


def register(commands: Any) -> None:
    """Add ``gate``."""
    gate = commands.add_parser("gate", help="run code gates: checks without a shell, fail-closed")
    actions = gate.add_subparsers(dest="gate_command", required=True, metavar="COMMAND")
    for name, help_text, add_arguments, handler in VERBS:
        verb = actions.add_parser(name, help=help_text, description=help_text)
        add_arguments(verb)
        verb.set_defaults(run=handler)


def _named_command(value: str) -> tuple[str, list[str]]:
    """The ``NAME=CMD`` type of ``--check``: CMD split into shell words (never run by a shell)."""
    name, separator, text = value.partition("=")
    if not separator or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=CMD, got {value!r}")
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{name}: {error}") from None
    if not argv:
        raise argparse.ArgumentTypeError(f"{name}: the command is empty")
    return name.strip(), argv


def _pair(value: str) -> tuple[str, str]:
    key, separator, rest = value.partition("=")
    if not separator or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {value!r}")
    return key, rest


def _timeout(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if not 1 <= number <= MAX_TIMEOUT_MS:
        raise argparse.ArgumentTypeError(f"must be 1-{MAX_TIMEOUT_MS}")
    return number


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=DEFAULT_NAME, help=f"the gate's name, the worker's (default {DEFAULT_NAME})")
    parser.add_argument(
        "--expect",
        choices=[e.value for e in Expect],
        default=Expect.PASS.value,
        help="pass: exit 0 passes (default); fail: a non-zero exit passes (a reproduction before its fix)",
    )
    parser.add_argument(
        "--timeout-ms", type=_timeout, default=DEFAULT_TIMEOUT_MS, metavar="MS", help="per check (default 600000)"
    )
    parser.add_argument(
        "--check",
        type=_named_command,
        action="append",
        default=[],
        metavar="NAME=CMD",
        help="a named check, run before the command (repeat; in order; CMD is split into words, no shell)",
    )
    parser.add_argument("--cwd", default=None, metavar="DIR", help="where the checks run (default: here)")
    parser.add_argument(
        "--tail", action="store_true", help="print the end of a failing check's output here (never in the result)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log each check's start and end on stderr")
    hub = parser.add_argument_group("checkpoint into a coordinator-driven run")
    hub.add_argument("--run", dest="run_id", metavar="RUN_ID", help="the run to checkpoint (with --stage and --as)")
    hub.add_argument("--stage", metavar="STAGE", help="its current stage")
    hub.add_argument(
        "--status-from-outcome",
        action="store_true",
        help="checkpoint a failed gate too, as failed (default: only a passed gate is checkpointed)",
    )
    hub.add_argument("--evidence-key", default="gate", metavar="KEY", help="the evidence key (default gate)")
    hub.add_argument(
        "--evidence", type=_pair, action="append", default=[], metavar="KEY=VALUE", help="more evidence (repeat)"
    )
    hub.add_argument("--request-id", default=None, help="repeat a checkpoint safely with the same id")
    add_identity(parser)
    parser.add_argument("command", nargs="*", metavar="-- CMD ARGS", help="the last check, after --")


def _checks(args: argparse.Namespace) -> list[Check]:
    expect = Expect(args.expect)

    def check(name: str, argv: list[str]) -> Check:
        return Check(name, Command(argv, cwd=args.cwd, timeout_ms=args.timeout_ms), expect)

    checks = [check(name, argv) for name, argv in args.check]
    if args.command:
        checks.append(check(COMMAND_CHECK, list(args.command)))
    return checks


def _configure_logging(verbose: bool) -> None:
    """The gate's structured events on stderr (stdout is the result's)."""
    import structlog

    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO if verbose else logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def _usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_UNSETTLED


def _exit_code(outcome: Outcome) -> int:
    if outcome is Outcome.PASSED:
        return EXIT_OK
    return EXIT_ERROR if outcome.failed else EXIT_UNSETTLED


def _check_line(check: CheckResult) -> str:
    how = f"exit {check.exit_code}" if check.exit_code is not None else str(check.reason or "-")
    return f"  {check.name}\t{check.outcome.value}\t{how}\t{check.duration_ms} ms"


def _text(result: WorkerResult) -> str:
    lines = [f"{result.worker.name}\t{result.outcome.value}\t{result.content_hash()}"]
    lines += [_check_line(check) for check in result.checks]
    lines += [f"  {name}\tskipped" for name in result.skipped]
    lines.append(result.summary)
    return "\n".join(lines)


def _print_tail(gate: GateRun) -> None:
    """The end of the failing check's output, on this terminal only."""
    last = gate.runs[-1]
    for label, digest in (("stdout", last.observation.stdout), ("stderr", last.observation.stderr)):
        if digest.tail:
            sys.stderr.write(f"--- {last.check.name} {label} (last {len(digest.tail)} of {digest.size} bytes) ---\n")
            sys.stderr.write(digest.tail.decode("utf-8", "replace") + "\n")


def _checks_evidence(result: WorkerResult) -> str:
    """``name=outcome(exit N); …; name=skipped``, cut to the hub's 1,000 characters."""
    parts = [
        f"{c.name}={c.outcome.value}({f'exit {c.exit_code}' if c.exit_code is not None else c.reason})"
        for c in result.checks
    ]
    parts += [f"{name}=skipped" for name in result.skipped]
    text = "; ".join(parts)
    return text if len(text) <= MAX_EVIDENCE_CHARS else text[: MAX_EVIDENCE_CHARS - 1] + "…"


def checkpoint_evidence(result: WorkerResult, key: str, extra: list[tuple[str, str]]) -> dict[str, str]:
    """The checkpoint's evidence: ``key`` the content hash, ``key.outcome``, ``key.checks`` and ``extra``.

    Raises:
        ValueError: an ``extra`` key is one of the three.
    """
    evidence = {
        key: result.content_hash(),
        f"{key}.outcome": result.outcome.value,
        f"{key}.checks": _checks_evidence(result),
    }
    for name, value in extra:
        if name in evidence:
            raise ValueError(f"--evidence {name} is the gate's own key")
        evidence[name] = value
    return evidence


def _checkpoint_status(result: WorkerResult, args: argparse.Namespace) -> str | None:
    """``passed``, ``failed`` (with ``--status-from-outcome``), or None: not checkpointed."""
    if result.ok:
        return "passed"
    if result.outcome.failed and args.status_from_outcome:
        return "failed"
    return None


def _run(args: argparse.Namespace) -> int:
    _configure_logging(args.verbose)
    checks = _checks(args)
    if not checks:
        return _usage("give a command after -- or at least one --check NAME=CMD")
    if len({check.name for check in checks}) != len(checks):
        return _usage(f"check names must be unique (the command after -- is named {COMMAND_CHECK!r})")
    if (args.run_id is None) != (args.stage is None):
        return _usage("--run and --stage go together")
    if args.run_id is not None and not args.agent_name:
        return _usage("checkpointing needs the run's coordinator: --as NAME (or KXM_AGENT_NAME)")
    if args.cwd is not None and not os.path.isdir(args.cwd):
        return _usage(f"--cwd {args.cwd}: not a directory")
    own = {args.evidence_key, f"{args.evidence_key}.outcome", f"{args.evidence_key}.checks"}
    if any(key in own for key, _ in args.evidence):
        return _usage(f"--evidence may not name the gate's own keys ({', '.join(sorted(own))})")

    async def command() -> int:
        gate = await _run_gate(checks, keep_tail=TAIL_BYTES if args.tail else 0)
        result = worker_result(gate, name=args.name)
        output: dict[str, Any] = {"workerResult": result.to_document(), "contentHash": result.content_hash()}
        code = _exit_code(result.outcome)
        text = _text(result)
        if args.run_id is not None:
            try:
                checkpointed = await _checkpoint(args, result)
            except HubError as error:  # CREDENTIAL_MISSING included: the checkpoint was refused
                print_hub_error(args, error)
                code = EXIT_UNSETTLED
            except (AddressError, NoSavedKey) as refusal:
                print(f"error: {refusal}", file=sys.stderr)
                code = EXIT_UNSETTLED
            else:
                if checkpointed is not None:
                    output["checkpoint"], line = checkpointed
                    text += f"\ncheckpoint {args.stage}: {line}"
        if args.json:
            print(json.dumps(output, indent=2, sort_keys=True))
        else:
            print(text)
        if args.tail and not result.ok:
            _print_tail(gate)
        return code

    try:
        return asyncio.run(command())
    except KeyboardInterrupt:
        return 130


async def _run_gate(checks: list[Check], *, keep_tail: int) -> GateRun:
    async def runner(command: Command, *, stop: asyncio.Event | None = None) -> Observation:
        return await run_check(command, stop=stop, keep_tail=keep_tail)

    return await run_gate(checks, runner=runner)


async def _checkpoint(args: argparse.Namespace, result: WorkerResult) -> tuple[dict[str, Any], str] | None:
    """Checkpoint ``result`` as the run's coordinator: the response as data and its line, or None
    when the result is not checkpointed (said on stderr).

    Raises:
        HubError: the hub refused the checkpoint or could not be reached, or no token was found
            (``Unauthenticated``, CREDENTIAL_MISSING).
        AddressError: the address from ``KXM_ADDR`` or the credentials file cannot be dialled.
        NoSavedKey: ``--as`` names an agent with no saved key (and ``--register`` was not given).
    """
    from kxm_grpc.cli.workflow import step_text

    status = _checkpoint_status(result, args)
    if status is None:
        why = (
            "the gate failed (--status-from-outcome checkpoints it as failed)"
            if result.outcome.failed
            else f"its outcome is {result.outcome.value}, which is evidence of nothing"
        )
        print(f"not checkpointed: {why}", file=sys.stderr)
        return None
    client = await open_agent_client(args, str(args.agent_name))
    async with client:
        response = await client.workflows.checkpoint(
            args.run_id,
            args.stage,
            status,
            summary=result.summary,
            evidence=checkpoint_evidence(result, args.evidence_key, args.evidence),
            request_id=args.request_id,
        )
    return message_to_dict(response), step_text(response, "retry", "completed", "exhausted", "escalated", "repeated")


Verb = tuple[str, str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]

VERBS: list[Verb] = [
    (
        "run",
        "run a gate's checks here, fail-closed, print its WorkerResult; optionally checkpoint it into a run",
        _run_arguments,
        _run,
    ),
    (
        "worker",
        "be a gate worker: take the gate assignments of step runs, run their checks, return their WorkerResults",
        gate_worker.add_arguments,
        gate_worker.main,
    ),
]
