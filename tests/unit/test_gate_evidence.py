"""Gate evidence records and their integrity audit (kxm_grpc.domain.workflows.engine.gate_evidence):
an honest run's evidence is intact, and each kind of tampering or loss is found and named."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kxm_grpc.domain.workflows.engine import gate_evidence
from kxm_grpc.domain.workflows.engine.gate_evidence import GateAssignment
from kxm_grpc.domain.workflows.engine.results import CheckReport, WorkerReport, gate_result
from kxm_grpc.domain.workflows.plans import compile_workflow, load_workflow
from kxm_grpc.domain.workflows.plans.compiler import plan_hash
from kxm_grpc.domain.workflows.plans.reload import load_plan
from tests.unit.test_step_engine import REGISTRY, loop_a

DOCUMENT = compile_workflow(load_workflow(loop_a(), gates=REGISTRY), gates=REGISTRY)
PLAN_HASH = plan_hash(DOCUMENT)
PLAN, GATES = load_plan(DOCUMENT)
STEP = PLAN.step("verify")
assert STEP is not None
GATE = GATES["verify"]


def evidence(assignment_id: str, passed: bool, attempt: int = 1) -> dict[str, Any]:
    checks = [CheckReport("typecheck", True, 0, stdout_sha256="ab" * 32, stdout_bytes=12)]
    checks.append(CheckReport("tests", passed, 0 if passed else 1, duration_ms=40))
    report = WorkerReport(outcome="done", content_hash=f"sha256:{assignment_id[-1] * 64}", checks=tuple(checks))
    outcome = gate_result(STEP, GATE, report).outcome
    return gate_evidence.record(
        assignment_id=assignment_id,
        step=STEP,
        step_attempt=attempt,
        gate=GATE,
        plan_hash=PLAN_HASH,
        report=report,
        outcome=outcome,
    )


def closed(assignment_id: str) -> GateAssignment:
    return GateAssignment(assignment_id, "verify", open=False, result_hash=f"sha256:{assignment_id[-1] * 64}")


def audit(records: list[dict[str, Any]], assignments: list[GateAssignment], **overrides: Any) -> list[str]:
    verdict = gate_evidence.audit(
        run_plan_hash=overrides.get("run_plan_hash", PLAN_HASH),
        plan_document=overrides.get("plan_document", DOCUMENT),
        plan=PLAN,
        gates=overrides.get("gates", GATES),
        records=records,
        assignments=assignments,
    )
    assert verdict.intact is (not verdict.problems) and verdict.records == len(records)
    return [problem.code for problem in verdict.problems]


def honest() -> tuple[list[dict[str, Any]], list[GateAssignment]]:
    return [evidence("asg_1", False), evidence("asg_2", True, attempt=2)], [closed("asg_1"), closed("asg_2")]


def test_an_honest_runs_evidence_is_intact_and_records_what_the_gate_saw() -> None:
    records, assignments = honest()

    assert audit(records, assignments) == []
    assert [r["outcome"] for r in records] == ["failed", "passed"]
    assert records[0]["checks"][0]["stdoutSha256"] == "ab" * 32 and "stdout" not in records[0]["checks"][0]
    assert records[0]["gateHash"] == GATE.hash and records[0]["planHash"] == PLAN_HASH


def tampered_outcome(records: list[dict[str, Any]]) -> None:
    records[0]["outcome"] = "passed"  # a failing gate reported as passing, the hash left as it was


def resealed_outcome(records: list[dict[str, Any]]) -> None:
    # The forger recomputes the record's hash too: the checks still derive "failed".
    body = {k: v for k, v in records[0].items() if k != "evidenceHash"} | {"outcome": "passed"}
    records[0] = {**body, "evidenceHash": gate_evidence._sha256(body)}


def other_gate_hash(records: list[dict[str, Any]]) -> None:
    body = {k: v for k, v in records[1].items() if k != "evidenceHash"} | {"gateHash": "sha256:" + "9" * 64}
    records[1] = {**body, "evidenceHash": gate_evidence._sha256(body)}


@pytest.mark.parametrize(
    ("tamper", "code"),
    [
        (tampered_outcome, "gate_evidence_hash_mismatch"),
        (resealed_outcome, "gate_evidence_outcome_mismatch"),
        (other_gate_hash, "gate_attempt_pin_mismatch"),
    ],
)
def test_a_tampered_record_is_found(tamper: Any, code: str) -> None:
    records, assignments = honest()
    tamper(records)

    assert audit(records, assignments) == [code]


def test_lost_orphaned_duplicated_and_open_evidence_is_found() -> None:
    records, assignments = honest()

    assert audit(records[:1], assignments) == ["gate_evidence_missing"]
    assert audit([*records, evidence("asg_3", True)], assignments) == ["gate_evidence_orphan"]
    assert audit([*records, records[1]], assignments) == ["gate_evidence_unexpected"]
    assert audit(records, [closed("asg_1"), replace(closed("asg_2"), open=True)]) == ["gate_capability_open"]
    other_result = [closed("asg_1"), replace(closed("asg_2"), result_hash="sha256:" + "7" * 64)]
    assert audit(records, other_result) == ["gate_evidence_hash_mismatch"]


def test_a_plan_or_gate_that_does_not_recompute_to_its_pin_is_found() -> None:
    records, assignments = honest()
    edited = {**DOCUMENT, "transitionBudget": 99}
    other_gate = {"verify": replace(GATE, checks=GATE.checks[:1])}

    assert audit(records, assignments, plan_document=edited) == ["plan_pin_mismatch"]
    assert "plan_pin_mismatch" in audit(records, assignments, gates=other_gate)
