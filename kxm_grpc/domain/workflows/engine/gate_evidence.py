"""Gate evidence (``kxm.gate-evidence.v1``) and its integrity audit (§6.3).

When a gate worker's result is settled, the run's log gets a ``gate.evidence`` event: which
assignment, step attempt and gate, the pins it ran under (the run's plan hash, the gate
definition's hash), the commit, each check as reported (exit code, duration, observation, the
SHA-256 and byte counts of its output — never the output), the result envelope's hash, the
outcome the hub derived, and ``evidenceHash`` over all of that (``sha256:`` of its canonical JSON).

``audit`` re-verifies a run's gate evidence from what is stored, trusting none of it: the plan
recomputes to the run's plan hash and each pinned gate to its hash; each record recomputes to its
``evidenceHash``, names the pins of its step's gate, answers the outcome the gate's rules derive
from its checks, and binds to exactly one closed gate assignment of the run whose stored result
hash it carries; and every gate assignment that returned a result has its record. Problem codes:

- ``plan_pin_mismatch``: the plan or a pinned gate does not recompute to its hash;
- ``gate_attempt_pin_mismatch``: a record names another plan, gate or gate hash than its step's;
- ``gate_evidence_hash_mismatch``: a record does not recompute to its ``evidenceHash``, or its
  result hash is not the one its assignment stored;
- ``gate_evidence_outcome_mismatch``: the checks do not derive the recorded outcome;
- ``gate_evidence_orphan``: a record whose assignment is not a gate assignment of this run;
- ``gate_evidence_unexpected``: a second record for one assignment;
- ``gate_evidence_missing``: a gate assignment with a result and no record;
- ``gate_capability_open``: a record whose assignment is still open (its attempt token honoured).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kxm_grpc.domain.sync_events import JsonValue, canonical_json
from kxm_grpc.domain.workflows.engine.results import UNCERTAIN, CheckReport, WorkerReport, gate_result
from kxm_grpc.domain.workflows.plans.gates import GateDefinition
from kxm_grpc.domain.workflows.plans.model import GateExpect, Step, StepKind, StepWorkflow
from kxm_grpc.errors import InvalidArgument

SCHEMA = "kxm.gate-evidence.v1"
EVENT = "gate.evidence"


def _sha256(value: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(dict(value)).encode("utf-8")).hexdigest()


def gate_key(step: Step) -> str:
    """The key a step's gate is pinned under in the plan (``step:<id>`` for an inline command)."""
    return step.gate if step.gate is not None else f"step:{step.id}"


def record(
    *,
    assignment_id: str,
    step: Step,
    step_attempt: int,
    gate: GateDefinition,
    plan_hash: str,
    report: WorkerReport,
    outcome: str,
) -> dict[str, JsonValue]:
    """A sealed evidence record of a gate result the hub judged to ``outcome``."""
    body: dict[str, JsonValue] = {
        "schema": SCHEMA,
        "assignmentId": assignment_id,
        "stepId": step.id,
        "stepAttempt": step_attempt,
        "gate": gate_key(step),
        "gateHash": gate.hash,
        "planHash": plan_hash,
        "expect": (step.expect or GateExpect.PASS).value,
        "commit": report.commit,
        "checks": [_check(check) for check in report.checks],
        "uncertain": report.uncertain,
        "resultHash": report.content_hash,
        "outcome": outcome,
    }
    return {**body, "evidenceHash": _sha256(body)}


def _check(check: CheckReport) -> dict[str, JsonValue]:
    return {
        "name": check.name,
        "passed": check.passed,
        "exitCode": check.exit_code,
        "durationMs": check.duration_ms,
        "observation": check.observation,
        "reason": check.reason,
        "stdoutSha256": check.stdout_sha256,
        "stdoutBytes": check.stdout_bytes,
        "stderrSha256": check.stderr_sha256,
        "stderrBytes": check.stderr_bytes,
    }


@dataclass(frozen=True)
class Problem:
    code: str
    assignment_id: str
    """The assignment the problem is about (empty for the plan's)."""
    detail: str


@dataclass(frozen=True)
class Verdict:
    intact: bool
    records: int
    """Evidence records checked."""
    problems: tuple[Problem, ...]


@dataclass(frozen=True)
class GateAssignment:
    """A gate assignment of the run as the store keeps it."""

    id: str
    step_id: str
    open: bool
    result_hash: str
    """The result hash its closing kept (empty: closed without a result)."""


def audit(
    *,
    run_plan_hash: str,
    plan_document: Mapping[str, Any],
    plan: StepWorkflow,
    gates: Mapping[str, GateDefinition],
    records: Sequence[Mapping[str, Any]],
    assignments: Iterable[GateAssignment],
) -> Verdict:
    """Re-verify a run's gate evidence (see the module); never raises on bad evidence, reports it."""
    problems: list[Problem] = []
    _pins(problems, run_plan_hash, plan_document, gates)
    by_id = {assignment.id: assignment for assignment in assignments}
    seen: set[str] = set()
    for raw in records:
        assignment_id = str(raw.get("assignmentId", ""))
        problem = _record(raw, assignment_id, by_id, seen, run_plan_hash, plan, gates)
        if problem is not None:
            problems.append(Problem(problem[0], assignment_id, problem[1]))
        seen.add(assignment_id)
    for assignment in by_id.values():
        if assignment.result_hash and assignment.id not in seen:
            problems.append(
                Problem("gate_evidence_missing", assignment.id, f"step {assignment.step_id}'s result has no record")
            )
    return Verdict(intact=not problems, records=len(records), problems=tuple(problems))


def _pins(
    problems: list[Problem], run_plan_hash: str, document: Mapping[str, Any], gates: Mapping[str, GateDefinition]
) -> None:
    if _sha256(document) != run_plan_hash:
        problems.append(Problem("plan_pin_mismatch", "", "the stored plan does not recompute to the run's plan hash"))
    pinned = document.get("gates", {})
    for key, gate in sorted(gates.items()):
        if not isinstance(pinned, Mapping) or not isinstance(pinned.get(key), Mapping):
            problems.append(Problem("plan_pin_mismatch", "", f"gate {key} is not pinned in the plan"))
        elif pinned[key].get("hash") != gate.hash:
            problems.append(Problem("plan_pin_mismatch", "", f"gate {key} does not recompute to its pinned hash"))


def _record(
    raw: Mapping[str, Any],
    assignment_id: str,
    assignments: Mapping[str, GateAssignment],
    seen: set[str],
    run_plan_hash: str,
    plan: StepWorkflow,
    gates: Mapping[str, GateDefinition],
) -> tuple[str, str] | None:
    """The first problem of one record, or None."""
    body = {key: value for key, value in raw.items() if key != "evidenceHash"}
    if _sha256(body) != raw.get("evidenceHash"):
        return "gate_evidence_hash_mismatch", "the record does not recompute to its evidenceHash"
    assignment = assignments.get(assignment_id)
    step = plan.step(str(raw.get("stepId", "")))
    if assignment is None or step is None or step.kind is not StepKind.GATE or assignment.step_id != step.id:
        return "gate_evidence_orphan", "no gate assignment of this run's step has this id"
    if assignment_id in seen:
        return "gate_evidence_unexpected", "a second record for this assignment"
    gate = gates.get(gate_key(step))
    if gate is None or (raw.get("gate"), raw.get("gateHash"), raw.get("planHash")) != (
        gate_key(step),
        gate.hash,
        run_plan_hash,
    ):
        return "gate_attempt_pin_mismatch", f"the record's pins are not step {step.id}'s gate and the run's plan"
    if assignment.open:
        return "gate_capability_open", "the assignment is still open: its attempt token is still honoured"
    if assignment.result_hash != raw.get("resultHash"):
        return "gate_evidence_hash_mismatch", "the result hash is not the one the assignment kept"
    derived = _derived_outcome(step, gate, raw)
    if derived != raw.get("outcome"):
        return "gate_evidence_outcome_mismatch", f"the checks derive {derived!r}, not {raw.get('outcome')!r}"
    return None


def _derived_outcome(step: Step, gate: GateDefinition, raw: Mapping[str, Any]) -> str | None:
    """The outcome the gate's rules derive from the record's checks (None: they derive none)."""
    try:
        checks = tuple(
            CheckReport(
                name=str(check["name"]),
                passed=bool(check["passed"]),
                exit_code=check.get("exitCode"),
            )
            for check in raw.get("checks", ())
        )
        uncertain = raw.get("uncertain")
        report = WorkerReport(
            outcome=UNCERTAIN if uncertain else "done",
            content_hash=str(raw.get("resultHash", "")),
            checks=checks,
            uncertain=str(uncertain) if uncertain else None,
        )
        return gate_result(step, gate, report).outcome
    except (InvalidArgument, KeyError, TypeError):
        return None
