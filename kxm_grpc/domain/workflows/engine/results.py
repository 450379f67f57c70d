"""What a member's answer means: a ``WorkerResult`` or ``ReviewEnvelope`` checked against its step.

The servicer converts the envelopes to these plain values; the hub derives each result's outcome
itself where it can (a review's verdict and blockers, a gate's checks under its ``expect``) and
refuses an envelope that does not fit the assignment, so the producer can correct it and nothing
about the run changes (INVALID_ARGUMENT naming the field):

- a worker reports one of the step's declared outcomes;
- a reviewer a verdict (``PASS``/``FAIL``, or ``approve``/``request_changes``); blockers fail it;
- a gate worker the checks of the pinned gate, in order, up to the first failing one (fail-closed),
  or ``uncertain`` with a reason: the step blocks until an operator recovers it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kxm_grpc.domain.workflows.engine import receipts
from kxm_grpc.domain.workflows.engine.state import Result
from kxm_grpc.domain.workflows.plans.gates import GateDefinition, GateKind
from kxm_grpc.domain.workflows.plans.model import EvidenceKind, GateExpect, Step
from kxm_grpc.errors import InvalidArgument, invalid_field

PASSED = "passed"
UNCERTAIN = "uncertain"
_PASS_VERDICTS = frozenset({"pass", "passed", "approve", "approved", "accept", "accepted"})
_FAIL_VERDICTS = frozenset({"fail", "failed", "request_changes", "changes_requested", "reject", "rejected"})
MAX_SUMMARY_CHARS = 4_000
MAX_ARTIFACTS = 64
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class Telemetry:
    cost_usd: float | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    duration_ms: int = 0


@dataclass(frozen=True)
class CheckReport:
    """One check a gate worker ran."""

    name: str
    passed: bool
    exit_code: int | None = None
    duration_ms: int = 0
    observation: str = ""
    reason: str = ""
    stdout_sha256: str = ""
    stdout_bytes: int = 0
    stderr_sha256: str = ""
    stderr_bytes: int = 0


@dataclass(frozen=True)
class WorkerReport:
    """A ``WorkerResult`` as the engine reads it."""

    outcome: str
    content_hash: str
    summary: str = ""
    model: str = ""
    artifacts: Mapping[str, str] = field(default_factory=dict)
    telemetry: Telemetry = Telemetry()
    checks: tuple[CheckReport, ...] = ()
    uncertain: str | None = None
    """For a gate: why its outcome cannot be known (the worker's ``outcome`` is ``uncertain``)."""
    commit: str = ""
    """The commit the work is on (a writing step's; full hex), or empty."""
    receipt: Mapping[str, Any] | None = None
    """Its terminal receipt as its message's JSON (``receipts.py``), or None."""


@dataclass(frozen=True)
class ReviewReport:
    """A ``ReviewEnvelope`` as the engine reads it."""

    verdict: str
    content_hash: str
    summary: str = ""
    model: str = ""
    blockers: int = 0
    telemetry: Telemetry = Telemetry()


def _invalid(field_name: str, message: str) -> InvalidArgument:
    return invalid_field(field_name, message)


def _telemetry(telemetry: Telemetry) -> Telemetry:
    if telemetry.cost_usd is not None and (not math.isfinite(telemetry.cost_usd) or telemetry.cost_usd < 0):
        raise _invalid("result.telemetry.cost_usd", "must be a finite number of at least 0")
    if min(telemetry.tokens_in, telemetry.tokens_out, telemetry.duration_ms) < 0:
        raise _invalid("result.telemetry", "token counts and duration must not be negative")
    return telemetry


def _result(
    report: WorkerReport | ReviewReport,
    *,
    outcome: str,
    artifacts: Mapping[str, str] | None = None,
    blockers: int = 0,
    uncertain: str | None = None,
    passed: bool | None = None,
) -> Result:
    telemetry = _telemetry(report.telemetry)
    if len(report.summary) > MAX_SUMMARY_CHARS:
        raise _invalid("result.summary", f"exceeds {MAX_SUMMARY_CHARS} characters")
    return Result(
        outcome=outcome,
        passed=outcome == PASSED if passed is None else passed,
        content_hash=report.content_hash,
        summary=report.summary,
        blockers=blockers,
        cost_usd=telemetry.cost_usd,
        tokens_in=telemetry.tokens_in,
        tokens_out=telemetry.tokens_out,
        duration_ms=telemetry.duration_ms,
        model=report.model,
        artifacts=dict(artifacts or {}),
        uncertain=uncertain,
    )


def worker_result(step: Step, report: WorkerReport, *, run_id: str = "") -> Result:
    """The result of an agent step's member (``run_id``: its run, which a receipt must name).

    Raises:
        InvalidArgument: the outcome is not one the step declares; the telemetry or the receipt is
            malformed; a ``passed`` result lacks the step's required evidence (an ``artifact``
            requirement's artifact by its key, an ``accepted`` receipt for a ``receipt`` one).
    """
    if report.outcome not in step.transitions:
        raise _invalid(
            "result.outcome",
            f"{report.outcome!r} is not an outcome of step {step.id} (one of {', '.join(step.transitions)})",
        )
    if len(report.artifacts) > MAX_ARTIFACTS:
        raise _invalid("result.artifacts", f"holds more than {MAX_ARTIFACTS} artifacts")
    if report.commit and not _COMMIT.fullmatch(report.commit):
        raise _invalid("result.commit", "must be a full commit id (40 or 64 lower-case hex digits)")
    kept = receipts.receipt(report.receipt, run_id=run_id, step_id=step.id) if report.receipt else None
    if report.outcome == PASSED:
        _required_evidence(step, report, kept)
    result = _result(report, outcome=report.outcome, artifacts=report.artifacts)
    return replace(result, commit=report.commit, receipt=kept)


def _required_evidence(step: Step, report: WorkerReport, receipt: Mapping[str, Any] | None) -> None:
    """A passing worker result carries what the step's ``artifact`` and ``receipt`` requirements ask.

    Raises:
        InvalidArgument: ``result.artifacts`` lacks a required key; ``result.receipt`` is missing or
            not ``accepted``.
    """
    for requirement in step.required_evidence:
        if requirement.kind is EvidenceKind.ARTIFACT and requirement.key not in report.artifacts:
            raise _invalid(
                "result.artifacts",
                f"step {step.id} requires the artifact {requirement.key!r} (its name and SHA-256) on a passed result",
            )
        if requirement.kind is EvidenceKind.RECEIPT and (receipt is None or receipt["status"] != "accepted"):
            raise _invalid(
                "result.receipt",
                f"step {step.id} requires an accepted terminal receipt ({requirement.key}) on a passed result",
            )


def review_result(step: Step, report: ReviewReport) -> Result:
    """The result of a reviewer: ``passed`` for a passing verdict without blockers, else the
    step's failure outcome (``failed`` when declared, else its first outcome that is not ``passed``).

    Raises:
        InvalidArgument: the verdict is neither a pass nor a fail; the telemetry is malformed.
    """
    verdict = report.verdict.strip().lower()
    if verdict not in _PASS_VERDICTS | _FAIL_VERDICTS:
        raise _invalid("review.verdict", "must be PASS or FAIL (or approve / request_changes)")
    passed = verdict in _PASS_VERDICTS and report.blockers == 0
    return _result(report, outcome=PASSED if passed else failure_outcome(step), blockers=report.blockers)


def failure_outcome(step: Step) -> str:
    """The outcome a failed member stands for: ``failed`` when the step declares it, else
    ``implementation-failure``, else ``failed`` (undeclared: the run ends ``outcome_unknown``)."""
    for outcome in ("failed", "implementation-failure"):
        if outcome in step.transitions:
            return outcome
    return "failed"


def gate_result(step: Step, gate: GateDefinition, report: WorkerReport) -> Result:
    """The result of a gate worker, its outcome derived from the checks under the step's ``expect``
    (§6.3): with ``pass``, all checks passing is ``passed`` and a failing one the step's failure
    outcome; with ``fail`` (repro-before-oracle, pattern C) all passing is ``repro-missing`` and a
    failing one ``passed``.

    Raises:
        InvalidArgument: the checks are not the gate's, in its order, up to the first failure.
    """
    if report.outcome == UNCERTAIN or report.uncertain is not None:
        return _result(report, outcome=UNCERTAIN, uncertain=report.uncertain or "unknown")
    expected = [check.name for check in gate.checks] if gate.kind is GateKind.COMMAND else list(gate.paths)
    names = [check.name for check in report.checks]
    if names != expected[: len(names)] or not names:
        raise _invalid("result.checks", f"must report the gate's checks in order ({', '.join(expected)})")
    failed_at = next((index for index, check in enumerate(report.checks) if not check.passed), None)
    if gate.kind is GateKind.COMMAND and failed_at is not None and failed_at != len(names) - 1:
        raise _invalid("result.checks", "a gate stops at its first failing check (fail-closed)")
    if failed_at is None and len(names) != len(expected):
        raise _invalid("result.checks", f"reports {len(names)} of the gate's {len(expected)} checks, all passing")
    succeeded = failed_at is None
    if (step.expect or GateExpect.PASS) is GateExpect.FAIL:
        outcome = "repro-missing" if succeeded else PASSED
    else:
        outcome = PASSED if succeeded else failure_outcome(step)
    return _result(report, outcome=outcome)
