"""The run state machine: checkpoints, transitions and budgets, oracles, waits, signals, rulings.

Pure functions on runs (kxm_grpc/domain/workflows/checkpoints.py); spec pins named where they apply.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools

import pytest

from kxm_grpc.domain.workflows import approvals, checkpoints, inputs, outcomes, waits
from kxm_grpc.domain.workflows.checkpoints import CheckpointRequest
from kxm_grpc.domain.workflows.definitions import (
    TERMINAL,
    Edge,
    EvidenceHashConfig,
    EvidencePolicy,
    Producer,
    StageDefinition,
    WorkflowDefinition,
)
from kxm_grpc.domain.workflows.evidence import EligibleProducer, PeerEvidence, ResolvedPolicy
from kxm_grpc.domain.workflows.runs import CheckpointStatus, Run, RunStatus, StageStatus, evidence_sha256
from kxm_grpc.domain.workflows.waits import SignalRequest, WaitRequest
from kxm_grpc.errors import FailedPrecondition, HubError, InvalidArgument, NotFound, Reason

PASSED, WARNING, FAILED = CheckpointStatus.PASSED, CheckpointStatus.WARNING, CheckpointStatus.FAILED
SECOND = 1_000_000
_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):032x}"


def stage(stage_id: str, *required: str, **fields: object) -> StageDefinition:
    return StageDefinition(
        id=stage_id, label=stage_id, instructions=f"do {stage_id}", required_evidence=required, **fields
    )  # type: ignore[arg-type]


def definition(*stages: StageDefinition, **fields: object) -> WorkflowDefinition:
    return WorkflowDefinition(
        id="fix",
        project="alpha",
        target="coordinator",
        secret="s" * 16,
        prompt_template="Fix {{issue.key}}",
        stages=stages,
        hash="h" * 64,
        **fields,  # type: ignore[arg-type]
    )


def started(spec: WorkflowDefinition, policies: dict[str, dict[str, ResolvedPolicy]] | None = None) -> Run:
    return checkpoints.start(
        spec,
        run_id="run_" + "0" * 32,
        coordinator_id="agt_coord",
        coordinator_name="coordinator",
        delivery_id="d-1",
        payload_sha256="p" * 64,
        prompt_message_id="msg_prompt",
        policies=policies,
        now=1 * SECOND,
    )


def post(
    run: Run,
    spec: WorkflowDefinition,
    stage_id: str,
    status: CheckpointStatus,
    evidence: dict[str, str] | None = None,
    *,
    now: int = 2 * SECOND,
    **fields: object,
) -> outcomes.Step:
    request = CheckpointRequest(stage_id, status, evidence=inputs.parse_evidence(evidence or {}), **fields)  # type: ignore[arg-type]
    return checkpoints.checkpoint(run, spec, request, now=now, new_id=new_id)


def refused(expected: Reason, call: object, /, *args: object, **kwargs: object) -> HubError:
    with pytest.raises(HubError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    assert caught.value.reason is expected, caught.value.message
    return caught.value


# -- pin 3: order, retry, completion, terminal --------------------------------------------------


def test_pin3_checkpoints_move_through_the_stages_in_order_and_a_completed_run_refuses_more() -> None:
    spec = definition(stage("plan"), stage("build"))
    run = started(spec)

    out_of_order = refused(Reason.WORKFLOW_STAGE_OUT_OF_ORDER, post, run, spec, "build", PASSED)
    warned = post(run, spec, "plan", WARNING)
    moved = post(warned.run, spec, "plan", PASSED)
    done = post(moved.run, spec, "build", PASSED)
    after = refused(Reason.WORKFLOW_TERMINAL, post, done.run, spec, "build", PASSED)

    assert "not currently active" in out_of_order.message
    assert warned.retry and warned.run.stage("plan").attempts == 1  # type: ignore[union-attr]
    assert warned.run.stage("plan").status is StageStatus.IN_PROGRESS  # type: ignore[union-attr]
    assert moved.run.current_stage == "build" and not moved.completed
    assert moved.instruction == "Continue with stage build."
    assert done.completed and done.run.status is RunStatus.COMPLETED and done.run.end_time == 2 * SECOND
    assert after.message == "workflow is completed"
    assert run.current_stage == "plan" and run.stage("plan").attempts == 0  # type: ignore[union-attr]  # never changed


def test_an_unknown_stage_is_not_found() -> None:
    spec = definition(stage("plan"))
    with pytest.raises(NotFound) as caught:
        post(started(spec), spec, "deploy", PASSED)
    assert caught.value.reason is Reason.WORKFLOW_STAGE_NOT_FOUND


# -- pin 4: evidence --------------------------------------------------------------------------------


def test_pin4_unrelated_keys_never_satisfy_and_consume_no_attempt() -> None:
    spec = definition(stage("check", "lint", "build"))
    run = started(spec)

    error = refused(Reason.WORKFLOW_EVIDENCE_INCOMPLETE, post, run, spec, "check", PASSED, {"tests": "ok"})

    assert "missing required evidence: lint, build" in error.message
    assert error.metadata["missingRequirements"] == "lint,build"
    assert run.stage("check").attempts == 0  # type: ignore[union-attr]


def test_pin4_keys_equal_once_canonicalised_are_one_duplicate_identity() -> None:
    with pytest.raises(InvalidArgument) as caught:
        inputs.parse_evidence({"Lint": "ok", " lint ": "ok"})
    assert caught.value.reason is Reason.INVALID_WORKFLOW_EVIDENCE


def test_evidence_keys_canonicalise_and_values_trim() -> None:
    assert inputs.parse_evidence({"  Local   Review ": "  fine "}) == {"local review": ("fine",)}


@pytest.mark.parametrize(
    "raw", [{"k": ""}, {"k": "x" * 1001}, {"": "x"}, {"k" * 129: "x"}, {f"k{i}": "x" for i in range(65)}]
)
def test_evidence_limits(raw: dict[str, str]) -> None:
    with pytest.raises(InvalidArgument) as caught:
        inputs.parse_evidence(raw)
    assert caught.value.reason is Reason.INVALID_WORKFLOW_EVIDENCE


def test_only_a_passing_checkpoint_stores_the_evidence() -> None:
    spec = definition(stage("check", "lint", "build"), stage("ship"))
    run = started(spec)

    failed = post(run, spec, "check", FAILED, {"lint": "red"})
    incomplete = refused(Reason.WORKFLOW_EVIDENCE_INCOMPLETE, post, failed.run, spec, "check", PASSED, {"build": "ok"})
    passed = post(failed.run, spec, "check", PASSED, {"lint": "green", "build": "ok"})

    assert failed.run.stage("check").evidence == {}  # type: ignore[union-attr]
    assert "lint" in incomplete.message  # the failed checkpoint's lint was not kept
    assert passed.run.stage("check").evidence == {"lint": ("green",), "build": ("ok",)}  # type: ignore[union-attr]


# -- pin 5: attempts ------------------------------------------------------------------------------


def test_pin5_max_attempts_two_fails_the_run_after_two_failures() -> None:
    spec = definition(stage("check", max_attempts=2), stage("ship"))
    first = post(started(spec), spec, "check", FAILED)
    second = post(first.run, spec, "check", FAILED)

    assert first.retry and not first.exhausted
    assert second.exhausted and second.run.status is RunStatus.FAILED
    assert second.run.current_stage is None
    assert second.run.stage("check").status is StageStatus.FAILED  # type: ignore[union-attr]
    assert [e.kind for e in second.events] == ["checkpoint_not_passed", "attempts_exhausted", "failed"]


# -- pin 7: no `on` -----------------------------------------------------------------------------------


def test_pin7_without_declared_edges_no_transition_is_recorded() -> None:
    spec = definition(stage("a"), stage("b"), stage("c"))
    run = started(spec)
    for stage_id in ("a", "b"):
        run = post(run, spec, stage_id, FAILED).run
        run = post(run, spec, stage_id, PASSED).run
    assert run.transitions == [] and run.current_stage == "c"


# -- pins 9-11: typed transitions and budgets -------------------------------------------------------


def back_edge_definition(*, edge_budget: int | None = None, run_budget: int = 10) -> WorkflowDefinition:
    return definition(
        stage("reproduce"),
        stage("fix", edges={"failed": Edge("failed", "reproduce", edge_budget)}, max_attempts=5),
        max_transitions=run_budget,
    )


def test_pin9_a_back_edge_records_the_transition_and_resets_the_target() -> None:
    spec = back_edge_definition()
    run = post(started(spec), spec, "reproduce", WARNING).run  # attempt 1 consumed
    run = post(run, spec, "reproduce", PASSED, now=3 * SECOND).run

    step = post(run, spec, "fix", FAILED, {"result": "still broken"}, now=4 * SECOND)

    [record] = step.run.transitions
    assert (record.from_stage, record.to_stage, record.outcome, record.attempt, record.evidence_keys) == (
        "fix",
        "reproduce",
        "failed",
        1,
        ("result",),
    )
    target = step.run.stage("reproduce")
    assert target is not None and target.status is StageStatus.IN_PROGRESS and target.attempts == 0
    assert target.evidence == {} and target.visit == 2 and target.visit_start_time == 4 * SECOND
    assert step.run.current_stage == "reproduce"
    assert step.run.stage("fix").status is StageStatus.PENDING  # type: ignore[union-attr]
    assert step.events[-1].summary == "typed transition fix -> reproduce (failed)"


def test_pin10_an_edge_budget_of_one_fails_the_run_on_its_second_use_with_one_record() -> None:
    spec = back_edge_definition(edge_budget=1)
    run = started(spec)
    run = post(run, spec, "reproduce", PASSED).run
    run = post(run, spec, "fix", FAILED).run  # back to reproduce
    run = post(run, spec, "reproduce", PASSED).run

    step = post(run, spec, "fix", FAILED)

    assert step.exhausted and step.run.status is RunStatus.FAILED and len(step.run.transitions) == 1
    assert step.events[1].evidence == ("class:transition_budget_exhausted", "stage:fix")


def test_pin10_a_run_budget_of_two_fails_on_the_third_back_edge_and_budgets_come_from_the_records() -> None:
    spec = back_edge_definition(run_budget=2)
    run = started(spec)
    for _ in range(2):
        run = post(run, spec, "reproduce", PASSED).run
        run = post(run, spec, "fix", FAILED).run
    # A store restart is a run rebuilt from its records: budgets are counted from them.
    rebuilt = dataclasses.replace(run, transitions=list(run.transitions))
    rebuilt = post(rebuilt, spec, "reproduce", PASSED).run

    step = post(rebuilt, spec, "fix", FAILED)

    assert step.exhausted and len(step.run.transitions) == 2


def test_a_stage_budget_bounds_transitions_leaving_it() -> None:
    spec = definition(
        stage("a"),
        stage("b", edges={"warning": Edge("warning", "a")}, max_transitions=1),
        max_transitions=10,
    )
    run = post(started(spec), spec, "a", PASSED).run
    run = post(run, spec, "b", WARNING).run
    run = post(run, spec, "a", PASSED).run
    assert post(run, spec, "b", WARNING).exhausted


def test_pin11_a_custom_outcome_to_terminal_completes_the_run() -> None:
    spec = definition(stage("triage", edges={"wontfix": Edge("wontfix", TERMINAL)}), stage("fix"))
    step = post(started(spec), spec, "triage", WARNING, outcome="wontfix", now=5 * SECOND)

    assert step.completed and step.run.status is RunStatus.COMPLETED and step.run.end_time == 5 * SECOND
    assert step.run.transitions[0].to_stage == TERMINAL


def test_after_a_back_edge_stages_already_passed_are_skipped() -> None:
    spec = definition(
        stage("a"),
        stage("b"),
        stage("c", edges={"passed": Edge("passed", "a")}),
        stage("d"),
        max_transitions=3,
    )
    run = started(spec)
    for stage_id in ("a", "b", "c"):
        run = post(run, spec, stage_id, PASSED).run
    assert run.current_stage == "a"
    run = post(run, spec, "a", PASSED).run
    assert run.current_stage == "d"  # b and c passed already


def test_a_self_edge_keeps_its_attempts_so_max_attempts_still_bounds_it() -> None:
    spec = definition(stage("poll", edges={"warning": Edge("warning", "poll")}, max_attempts=3), max_transitions=50)
    run = started(spec)
    steps = []
    for _ in range(3):
        step = post(run, spec, "poll", WARNING)
        steps.append(step)
        run = step.run

    assert [s.run.stage("poll").attempts for s in steps] == [1, 2, 3]  # type: ignore[union-attr]
    assert [s.run.stage("poll").visit for s in steps[:2]] == [2, 3]  # type: ignore[union-attr]
    assert steps[-1].exhausted and run.status is RunStatus.FAILED


# -- oracles ----------------------------------------------------------------------------------------


def oracle_definition() -> WorkflowDefinition:
    return definition(
        stage("reproduce", "repro"),
        stage("plan", "plan"),
        stage("fix", "patch"),
        repro_oracle=EvidenceHashConfig("reproduce", "repro"),
        plan_hash=EvidenceHashConfig("plan", "plan"),
        require_plan_hash=("fix",),
    )


def test_the_reproduction_is_captured_as_a_json_array_hash_and_required_unchanged_after() -> None:
    spec = oracle_definition()
    run = post(started(spec), spec, "reproduce", PASSED, {"repro": "curl -X POST /crash"}).run

    dropped = refused(Reason.WEAKENED_REPRODUCTION, post, run, spec, "plan", FAILED)
    changed = refused(Reason.WEAKENED_REPRODUCTION, post, run, spec, "plan", FAILED, {"repro": "something easier"})
    kept = post(run, spec, "plan", FAILED, {"repro": "curl -X POST /crash"})

    assert run.repro_oracle is not None
    assert run.repro_oracle.sha256 == hashlib.sha256(b'["curl -X POST /crash"]').hexdigest()
    assert dropped.metadata["evidenceKey"] == "repro" and changed.metadata["stageId"] == "plan"
    assert kept.retry


def test_a_stage_requiring_the_plan_hash_refuses_until_captured_and_then_needs_it_unchanged() -> None:
    spec = definition(
        stage("plan", "plan"),
        stage("fix", "patch"),
        plan_hash=EvidenceHashConfig("plan", "plan"),
        require_plan_hash=("fix",),
    )
    early = definition(
        stage("fix", "patch"),
        stage("plan", "plan"),
        plan_hash=EvidenceHashConfig("plan", "plan"),
        require_plan_hash=("fix",),
    )

    refused(Reason.PLAN_HASH_REQUIRED, post, started(early), early, "fix", FAILED)
    run = post(started(spec), spec, "plan", PASSED, {"plan": "step 1\nstep 2"}).run
    refused(Reason.PLAN_HASH_REQUIRED, post, run, spec, "fix", PASSED, {"patch": "diff"})
    done = post(run, spec, "fix", PASSED, {"patch": "diff", "plan": "step 1\nstep 2"})

    assert done.completed


def test_evidence_hash_is_unambiguous_for_values_holding_newlines() -> None:
    assert evidence_sha256(["a\nb"]) != evidence_sha256(["a", "b"])
    assert evidence_sha256(["b", "a", "a"]) == evidence_sha256(["a", "b"])


# -- peer evidence and quorum ------------------------------------------------------------------------


POLICY = ResolvedPolicy(
    key="review",
    min_producers=2,
    eligible=(
        EligibleProducer("agt_r1", "r1", "anthropic"),
        EligibleProducer("agt_r2", "r2", "openai"),
        EligibleProducer("agt_r3", "r3", "anthropic"),
    ),
    degraded_min_producers=1,
)


def peer_definition() -> WorkflowDefinition:
    policy = EvidencePolicy("review", 2, (Producer("r1"), Producer("r2"), Producer("r3")), degraded_min_producers=1)
    return definition(stage("review", "review", policies={"review": policy}), stage("ship"))


def reply(producer: str, *, visit: int = 1, attempt: int = 1, message: str | None = None) -> PeerEvidence:
    return PeerEvidence(
        message_id=message or f"msg_{producer}_{visit}_{attempt}",
        producer_id=f"agt_{producer}",
        producer_name=producer,
        run_id="run_" + "0" * 32,
        stage_id="review",
        requirement_key="review",
        visit=visit,
        attempt=attempt,
        request_sha256="a" * 64,
        reply_sha256="b" * 64,
        create_time=1,
        deliver_time=2,
        reply_time=3,
        verify_time=4,
    )


def test_a_peer_requirement_passes_on_a_quorum_of_distinct_producers_and_never_on_strings() -> None:
    spec = peer_definition()
    run = started(spec, {"review": {"review": POLICY}})

    strings = refused(Reason.WORKFLOW_EVIDENCE_INCOMPLETE, post, run, spec, "review", PASSED, {"review": "looks good"})
    same_twice = refused(
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        post,
        run,
        spec,
        "review",
        PASSED,
        peer_evidence={"review": (reply("r1"), reply("r1", message="msg_other"))},
    )
    passed = post(run, spec, "review", PASSED, peer_evidence={"review": (reply("r1"), reply("r2"))})

    assert strings.metadata["peerRequirements"] == "review" and same_twice.metadata["missingRequirements"] == "review"
    assert (strings.metadata["quorum"], same_twice.metadata["quorum"]) == ("review=0/2", "review=1/2")
    assert passed.run.current_stage == "ship"
    assert [e.message_id for e in passed.run.stage("review").peer_evidence["review"]] == ["msg_r1_1_1", "msg_r2_1_1"]  # type: ignore[union-attr]


def test_peer_evidence_is_refused_on_a_checkpoint_that_does_not_pass() -> None:
    spec = peer_definition()
    run = started(spec, {"review": {"review": POLICY}})
    refused(
        Reason.INVALID_WORKFLOW_EVIDENCE_REFS,
        post,
        run,
        spec,
        "review",
        FAILED,
        peer_evidence={"review": (reply("r1"),)},
    )


def test_replies_bound_to_another_attempt_or_an_earlier_visit_never_count() -> None:
    spec = peer_definition()
    run = started(spec, {"review": {"review": POLICY}})
    run = post(run, spec, "review", FAILED).run  # the active attempt is now 2

    stale = refused(
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        post,
        run,
        spec,
        "review",
        PASSED,
        peer_evidence={"review": (reply("r1", attempt=1), reply("r2", attempt=1))},
    )
    earlier_visit = refused(
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        post,
        run,
        spec,
        "review",
        PASSED,
        peer_evidence={"review": (reply("r1", visit=0, attempt=2), reply("r2", visit=0, attempt=2))},
    )
    assert stale.reason is earlier_visit.reason


def test_a_degradation_approval_counts_for_its_attempt_only_and_marks_the_pass_degraded() -> None:
    spec = peer_definition()
    run = started(spec, {"review": {"review": POLICY}})
    run, approval, duplicate = approvals.approve_degradation(
        run,
        spec,
        stage_id="review",
        requirement_key=" Review ",
        reason="r2 is down",
        approved_by="admin",
        now=2,
        new_id=new_id,
    )
    again = approvals.approve_degradation(
        run,
        spec,
        stage_id="review",
        requirement_key="review",
        reason="r2 is down",
        approved_by="admin",
        now=3,
        new_id=new_id,
    )
    conflict = refused(
        Reason.WORKFLOW_DEGRADATION_CONFLICT,
        approvals.approve_degradation,
        run,
        spec,
        stage_id="review",
        requirement_key="review",
        reason="another",
        approved_by="admin",
        now=3,
        new_id=new_id,
    )

    failed_once = post(run, spec, "review", FAILED).run  # attempt 2: the approval was for attempt 1
    not_counted = refused(
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        post,
        failed_once,
        spec,
        "review",
        PASSED,
        peer_evidence={"review": (reply("r1", attempt=2),)},
    )
    degraded = post(run, spec, "review", PASSED, peer_evidence={"review": (reply("r1"),)})

    assert not duplicate and again[2] and again[1] == approval and conflict.metadata["approvalId"] == approval.id
    assert (approval.visit, approval.attempt, approval.approved_min_producers) == (1, 1, 1)
    assert not_counted.reason is Reason.WORKFLOW_EVIDENCE_INCOMPLETE
    assert degraded.degraded_requirements == ("review",)
    assert degraded.events[0].evidence[0] == "class:workflow_quorum_degradation_used"


def test_a_policy_without_degradation_refuses_an_approval() -> None:
    spec = peer_definition()
    strict = dataclasses.replace(POLICY, degraded_min_producers=None)
    run = started(spec, {"review": {"review": strict}})
    refused(
        Reason.WORKFLOW_DEGRADATION_FORBIDDEN,
        approvals.approve_degradation,
        run,
        spec,
        stage_id="review",
        requirement_key="review",
        reason="x",
        approved_by="admin",
        now=2,
        new_id=new_id,
    )


# -- pin 6: waits and signals --------------------------------------------------------------------------


def test_pin6_wait_evidence_survives_a_failed_signal_and_a_pass_needs_it_complete() -> None:
    spec = definition(stage("deploy", "build", "canary", max_attempts=5))
    run = started(spec)
    waited = waits.wait(
        run,
        spec,
        WaitRequest("deploy", "ci:done", "waiting for CI", inputs.parse_evidence({"build": "ok"}), timeout_ms=60_000),
        now=2 * SECOND,
    )
    wrong_key = refused(
        Reason.WORKFLOW_SIGNAL_MISMATCH,
        waits.resume,
        waited.run,
        spec,
        SignalRequest("other", PASSED),
        now=3,
        new_id=new_id,
    )
    incomplete = refused(
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        waits.resume,
        waited.run,
        spec,
        SignalRequest("ci:done", PASSED),
        now=3 * SECOND,
        new_id=new_id,
    )
    failed = waits.resume(waited.run, spec, SignalRequest("ci:done", FAILED, "flaky"), now=3 * SECOND, new_id=new_id)

    assert waited.run.status is RunStatus.WAITING and waited.run.wait is not None
    assert waited.run.wait.expire_time == 2 * SECOND + 60 * SECOND
    assert wrong_key.message == "the run is waiting for ci:done"
    assert "canary" in incomplete.message
    assert failed.retry and failed.run.status is RunStatus.RUNNING
    assert failed.run.stage("deploy").evidence == {"build": ("ok",)}  # type: ignore[union-attr]  # kept through the wait

    again = waits.wait(failed.run, spec, WaitRequest("deploy", "ci:done"), now=4 * SECOND)
    done = waits.resume(
        again.run,
        spec,
        SignalRequest("ci:done", PASSED, evidence=inputs.parse_evidence({"canary": "green"})),
        now=5,
        new_id=new_id,
    )
    assert done.completed
    assert done.run.stage("deploy").evidence == {"build": ("ok",), "canary": ("green",)}  # type: ignore[union-attr]


def test_a_signal_naming_another_run_stage_or_key_in_its_evidence_is_refused() -> None:
    spec = definition(stage("deploy"))
    waited = waits.wait(started(spec), spec, WaitRequest("deploy", "ci"), now=2).run
    refused(
        Reason.WORKFLOW_SIGNAL_CONTEXT_MISMATCH,
        waits.resume,
        waited,
        spec,
        SignalRequest("ci", PASSED, evidence={"workflow.stage": ("other",)}),
        now=3,
        new_id=new_id,
    )


def test_waits_refuse_bad_keys_timeouts_and_runs_not_running() -> None:
    spec = definition(stage("deploy"))
    run = started(spec)
    refused(Reason.INVALID_SIGNAL_KEY, waits.wait, run, spec, WaitRequest("deploy", "-bad"), now=2)
    refused(Reason.INVALID_SIGNAL_KEY, waits.wait, run, spec, WaitRequest("deploy", "audit_escalation"), now=2)
    refused(Reason.WORKFLOW_WAIT_INVALID, waits.wait, run, spec, WaitRequest("deploy", "ci", timeout_ms=999), now=2)
    waited = waits.wait(run, spec, WaitRequest("deploy", "ci"), now=2).run
    refused(Reason.WORKFLOW_NOT_RUNNING, waits.wait, waited, spec, WaitRequest("deploy", "ci"), now=3)
    refused(Reason.WORKFLOW_TERMINAL, post, waited, spec, "deploy", PASSED)
    refused(Reason.WORKFLOW_NOT_WAITING, waits.resume, run, spec, SignalRequest("ci", PASSED), now=3, new_id=new_id)


def test_an_overdue_wait_fails_the_run() -> None:
    spec = definition(stage("deploy"))
    waited = waits.wait(started(spec), spec, WaitRequest("deploy", "ci", timeout_ms=1_000), now=2 * SECOND).run

    assert waits.expire_wait(waited, now=2 * SECOND + 999_999) is None
    expired = waits.expire_wait(waited, now=3 * SECOND)

    assert expired is not None and expired.run.status is RunStatus.FAILED
    assert expired.run.stage("deploy").status is StageStatus.FAILED  # type: ignore[union-attr]
    assert expired.events[0].evidence[:2] == (f"wait-created:{2 * SECOND}", f"wait-expired:{3 * SECOND}")


# -- escalation and ruling ------------------------------------------------------------------------


def test_the_auto_resume_limit_escalates_and_only_an_operator_ruling_with_a_status_resumes() -> None:
    spec = definition(stage("fix", auto_resume_limit=2, max_attempts=5), stage("ship"))
    run = post(started(spec), spec, "fix", FAILED).run
    escalated = post(run, spec, "fix", FAILED, summary="stuck on flaky infra")

    by_signal = refused(
        Reason.WORKFLOW_RULING_REQUIRED,
        waits.resume,
        escalated.run,
        spec,
        SignalRequest("audit_escalation", PASSED),
        now=3,
        new_id=new_id,
    )
    ruled = waits.rule(
        escalated.run, spec, ruling="infra issue, proceed", status=PASSED, ruled_by="admin", now=4, new_id=new_id
    )

    assert escalated.escalated and escalated.run.status is RunStatus.WAITING
    assert escalated.run.wait is not None and escalated.run.wait.signal_key == "audit_escalation"
    fix = escalated.run.stage("fix")
    assert fix is not None and fix.escalation is not None and fix.escalation.reason == "stuck on flaky infra"
    assert by_signal.metadata["nextAction"] == "ask an operator to rule"
    assert ruled.run.current_stage == "ship"
    ruled_fix = ruled.run.stage("fix")
    assert ruled_fix is not None and ruled_fix.escalation is not None
    assert (ruled_fix.escalation.ruling, ruled_fix.escalation.ruling_status) == ("infra issue, proceed", PASSED)
    assert ruled_fix.summary == "Resumed by operator ruling: infra issue, proceed"


def test_a_ruling_refuses_a_run_that_waits_on_a_signal() -> None:
    spec = definition(stage("deploy"))
    waited = waits.wait(started(spec), spec, WaitRequest("deploy", "ci"), now=2).run
    refused(
        Reason.WORKFLOW_SIGNAL_MISMATCH,
        waits.rule,
        waited,
        spec,
        ruling="x",
        status=PASSED,
        ruled_by="admin",
        now=3,
        new_id=new_id,
    )


def test_an_explicit_escalation_and_cancel_and_fail() -> None:
    spec = definition(stage("fix"))
    run = started(spec)
    escalated = waits.escalate(run, spec, "fix", "needs a human", by="agt_coord", now=2)
    cancelled = waits.cancel(escalated.run, reason="", by="admin", now=3)

    assert escalated.run.wait is not None and escalated.run.wait.escalation
    assert cancelled.run.status is RunStatus.CANCELLED and cancelled.run.end_reason == "cancelled by admin"
    refused(Reason.WORKFLOW_TERMINAL, waits.cancel, cancelled.run, reason="", by="admin", now=4)
    failed = waits.fail(run, "the prompt expired", now=5, evidence=("message:msg_prompt",))
    assert failed.run.status is RunStatus.FAILED and failed.events[0].evidence == ("message:msg_prompt",)
    with pytest.raises(FailedPrecondition):
        waits.escalate(failed.run, spec, "fix", "late", by="agt_coord", now=6)


def test_no_step_changes_the_run_it_was_given() -> None:
    """Steps work on ``Run.copy()``: the given run (and what it shares) reads back as before."""
    spec = peer_definition()
    run = started(spec, {"review": {"review": POLICY}})
    run, _, _ = approvals.approve_degradation(
        run,
        spec,
        stage_id="review",
        requirement_key="review",
        reason="r2 down",
        approved_by="admin",
        now=2,
        new_id=new_id,
    )
    before = dataclasses.replace(run, stages=[dataclasses.replace(s) for s in run.stages])
    snapshot = repr(run)

    post(run, spec, "review", PASSED, {"note": "x"}, peer_evidence={"review": (reply("r1"), reply("r2"))})
    post(run, spec, "review", FAILED)
    waits.wait(run, spec, WaitRequest("review", "ci", evidence={"note": ("y",)}), now=3)
    waits.escalate(run, spec, "review", "audit", by="agt_coord", now=3)
    approvals.approve_degradation(
        run,
        spec,
        stage_id="review",
        requirement_key="review",
        reason="r2 down",
        approved_by="admin",
        now=3,
        new_id=new_id,
    )
    waits.cancel(run, reason="", by="admin", now=4)

    assert repr(run) == snapshot
    assert run == before


def test_an_outcome_naming_another_status_is_refused() -> None:
    """A failing checkpoint cannot name the outcome "passed" to take the passed edge without evidence."""
    spec = definition(stage("build"), stage("review", "approval", edges={"passed": Edge("passed", TERMINAL)}))
    run = post(started(spec), spec, "build", PASSED).run

    error = refused(Reason.PROTOCOL_ERROR, post, run, spec, "review", FAILED, outcome="passed")
    custom = post(run, spec, "review", FAILED, outcome="flaky")

    assert error.metadata["field"] == "outcome"
    assert custom.retry and custom.run.status is RunStatus.RUNNING


def test_going_back_to_the_plan_stage_cannot_replace_the_captured_plan() -> None:
    spec = definition(
        stage("plan", "plan"),
        stage("fix", "patch", edges={"failed": Edge("failed", "plan")}),
        plan_hash=EvidenceHashConfig("plan", "plan"),
        require_plan_hash=("fix",),
        max_transitions=3,
    )
    run = post(started(spec), spec, "plan", PASSED, {"plan": "v1"}).run
    run = post(run, spec, "fix", FAILED, {"plan": "v1"}).run  # back to plan

    changed = refused(Reason.PLAN_HASH_REQUIRED, post, run, spec, "plan", PASSED, {"plan": "v2"})
    again = post(run, spec, "plan", PASSED, {"plan": "v1"})

    assert changed.metadata["stageId"] == "plan"
    assert again.run.current_stage == "fix"


def test_a_ruling_that_sends_the_stage_back_restarts_the_auto_resume_count() -> None:
    """The escalation keeps the evidence presented; a warning ruling returns the stage to the
    coordinator, which gets autoResumeLimit attempts again before the next escalation."""
    spec = definition(stage("fix", "patch", auto_resume_limit=2, max_attempts=10))
    run = post(started(spec), spec, "fix", FAILED, {"patch": "diff-1"}).run
    escalated = post(run, spec, "fix", FAILED, {"patch": "diff-2"})
    ruled = waits.rule(
        escalated.run, spec, ruling="try once more", status=WARNING, ruled_by="admin", now=3, new_id=new_id
    )
    first = post(ruled.run, spec, "fix", FAILED)
    second = post(first.run, spec, "fix", FAILED)

    assert escalated.escalated
    assert escalated.run.stage("fix").evidence == {"patch": ("diff-2",)}  # type: ignore[union-attr]
    assert ruled.retry and ruled.run.status is RunStatus.RUNNING
    assert first.retry and not first.escalated
    assert second.escalated and second.run.wait is not None and second.run.wait.signal_key == "audit_escalation"
