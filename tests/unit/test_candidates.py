"""Improvement candidates over step runs (kxm_grpc.domain.workflows.engine.candidates, §10 pin 24)."""

from __future__ import annotations

from dataclasses import replace

from kxm_grpc.domain.workflows.engine.candidates import StepRecord, group_records

BASE = StepRecord(
    run_id="run_1",
    workflow_id="deliver",
    plan_hash="sha256:" + "a" * 64,
    step_id="write-tests",
    role="worker",
    step_attempt=1,
    sequence=5,
    passed=True,
    content_hash="sha256:" + "1" * 64,
    cost_usd=0.02,
    duration_ms=1_000,
    writes=False,
)


def runs(*passed: bool, **fields: object) -> list[StepRecord]:
    return [
        replace(BASE, run_id=f"run_{i}", passed=p, content_hash=f"sha256:{i:064d}", **fields)  # type: ignore[arg-type]
        for i, p in enumerate(passed)
    ]


def test_a_step_passed_in_enough_runs_is_a_candidate_and_a_retry_counts_its_run_once() -> None:
    records = runs(True, True, True)
    failed_first = replace(records[0], passed=False, step_attempt=1, sequence=3, cost_usd=None, duration_ms=3_000)
    records[0] = replace(records[0], step_attempt=2, sequence=9)

    (group,) = group_records([*records, failed_first])

    assert (group.runs, group.pass_rate, group.rework, group.candidate, group.exclusion) == (3, 1.0, 1, True, "")
    assert group.mean_cost_usd == 0.02 and group.mean_duration_ms == 1_500  # costs only where reported
    assert group.id.startswith("cand_workflow-step_write-tests_") and len(group.evidence_refs) == 3


def test_what_keeps_a_group_from_candidacy() -> None:
    assert group_records(runs(True, True))[0].exclusion == "too-few-runs"
    assert group_records(runs(True, True, True, False))[0].exclusion == "pass-rate-low"  # 0.75
    assert group_records(runs(True, True, True, True, False))[0].candidate is True  # 0.8 is enough
    assert group_records(runs(True, True, True, writes=True))[0].exclusion == "writes-repository"


def test_groups_split_by_plan_step_and_role_candidates_first() -> None:
    other_plan = runs(True, True, True, plan_hash="sha256:" + "b" * 64)
    reviewer = runs(True, role="reviewer")

    groups = group_records([*reviewer, *other_plan, *runs(True, True, True, True)])

    assert [(g.plan_hash[-1], g.role, g.runs, g.candidate) for g in groups] == [
        ("a", "worker", 4, True),
        ("b", "worker", 3, True),
        ("a", "reviewer", 1, False),
    ]
