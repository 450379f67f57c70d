"""The learning journal's rules: agent entries, hub-authored entries and governed promotion.

Pure functions (kxm_grpc/domain/workflows/journal.py, journal_hub.py); spec pins 12 and 13 named.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import pytest

from kxm_grpc.domain import validation
from kxm_grpc.domain.workflows import approvals, checkpoints, journal, journal_hub, waits
from kxm_grpc.domain.workflows.checkpoints import CheckpointRequest
from kxm_grpc.domain.workflows.definitions import (
    IMPROVEMENT_AREAS,
    TERMINAL,
    Edge,
    EvidencePolicy,
    Producer,
    StageDefinition,
    WorkflowDefinition,
)
from kxm_grpc.domain.workflows.evidence import EligibleProducer, PeerEvidence, ResolvedPolicy
from kxm_grpc.domain.workflows.journal import (
    Category,
    EntryDraft,
    JournalEntry,
    Promotion,
    PromotionStatus,
    Severity,
)
from kxm_grpc.domain.workflows.outcomes import EventKind, RunEvent, Step
from kxm_grpc.domain.workflows.runs import CheckpointStatus, Run, StageStatus
from kxm_grpc.domain.workflows.waits import SignalRequest, WaitRequest
from kxm_grpc.errors import HubError, InvalidArgument, Reason

PASSED, WARNING, FAILED = CheckpointStatus.PASSED, CheckpointStatus.WARNING, CheckpointStatus.FAILED
SECOND = 1_000_000
RUN_ID = "run_" + "0" * 32
COORDINATOR = "agt_coord"
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
        run_id=RUN_ID,
        coordinator_id=COORDINATOR,
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
    evidence: dict[str, tuple[str, ...]] | None = None,
    **fields: object,
) -> Step:
    request = CheckpointRequest(stage_id, status, evidence=evidence, **fields)  # type: ignore[arg-type]
    return checkpoints.checkpoint(run, spec, request, now=2 * SECOND, new_id=new_id)


def record(
    run: Run,
    spec: WorkflowDefinition,
    category: str = "observation",
    summary: str = "noted",
    *,
    known: Sequence[str] = (),
    author: str = COORDINATOR,
    **fields: object,
) -> JournalEntry:
    draft = EntryDraft(category, summary, **fields)  # type: ignore[arg-type]
    return journal.record(run, spec, draft, author=author, known_entry_ids=known, now=5 * SECOND, new_id=new_id)


def hub(run: Run, spec: WorkflowDefinition, step: Step, **fields: object) -> tuple[JournalEntry, ...]:
    return journal_hub.hub_entries(run, spec, step.events, now=7 * SECOND, new_id=new_id, **fields)  # type: ignore[arg-type]


def refused(expected: Reason, call: object, /, *args: object, **kwargs: object) -> HubError:
    with pytest.raises(HubError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    assert caught.value.reason is expected, caught.value.message
    return caught.value


SPEC = definition(stage("plan", area="gates"), stage("build"))


# -- entries (§3.1–§3.3) --------------------------------------------------------------------------


def test_pin12_the_ten_categories_in_the_specs_order() -> None:
    assert journal.JOURNAL_CATEGORIES == (
        "plan",
        "decision",
        "contradiction",
        "error",
        "lesson",
        "observation",
        "hypothesis",
        "experiment",
        "state-change",
        "skill-candidate",
    )
    assert [c.value for c in Category if c.promotable] == ["hypothesis", "experiment", "skill-candidate"]
    assert [c.value for c in Category if c.needs_evidence] == ["lesson", "skill-candidate"]
    run = started(SPEC)
    for name in journal.JOURNAL_CATEGORIES:
        evidence = ("ci run 42",) if name in ("lesson", "skill-candidate") else ()
        assert record(run, SPEC, name, area="gates", evidence=evidence).category is Category(name)


@pytest.mark.parametrize("category", ["lesson", "skill-candidate"])
def test_pin12_lessons_and_skill_candidates_need_evidence(category: str) -> None:
    run = started(SPEC)
    none = refused(Reason.JOURNAL_EVIDENCE_REQUIRED, record, run, SPEC, category, area="gates")
    blank = refused(Reason.JOURNAL_EVIDENCE_REQUIRED, record, run, SPEC, category, area="gates", evidence=["  ", ""])
    kept = record(run, SPEC, category, area="gates", evidence=["  run_42 passed  "])

    assert isinstance(none, InvalidArgument) and none.metadata["category"] == category
    assert blank.reason is Reason.JOURNAL_EVIDENCE_REQUIRED
    assert kept.evidence == ("run_42 passed",)
    assert record(run, SPEC, "hypothesis", area="gates").evidence == ()  # others need none


def test_pin13_stage_bound_entries_take_the_stage_area_and_attempt() -> None:
    run = started(SPEC)
    bound = record(run, SPEC, "plan", stage_id="plan")
    warned = post(run, SPEC, "plan", WARNING, summary="lint failed")
    (hub_entry,) = hub(warned.run, SPEC, warned)
    passed = post(warned.run, SPEC, "plan", PASSED)
    lesson = record(passed.run, SPEC, "lesson", "pin the linter", stage_id="plan", evidence=["lint log"])

    assert (bound.stage_id, bound.attempt, bound.area) == ("plan", 1, "gates")
    assert (hub_entry.category, hub_entry.severity) == (Category.ERROR, Severity.WARNING)
    assert (hub_entry.stage_id, hub_entry.attempt, hub_entry.area, hub_entry.author) == ("plan", 1, "gates", "hub")
    assert passed.run.stage("plan").status is StageStatus.PASSED  # type: ignore[union-attr]
    assert (lesson.stage_id, lesson.attempt, lesson.area) == ("plan", 2, "gates")


def test_pin13_no_area_and_no_stage_area_is_refused() -> None:
    run = started(SPEC)
    no_stage = refused(Reason.INVALID_IMPROVEMENT_AREA, record, run, SPEC, "plan")
    stage_without = refused(Reason.INVALID_IMPROVEMENT_AREA, record, run, SPEC, "plan", stage_id="build")

    assert no_stage.metadata == {"field": "area"}
    assert stage_without.metadata == {"field": "area", "stageId": "build"}
    assert record(run, SPEC, "plan", area="workflow", stage_id="build").area == "workflow"


def test_an_explicit_area_wins_over_the_stages_and_every_area_is_accepted() -> None:
    run = started(SPEC)
    assert record(run, SPEC, area=" security ", stage_id="plan").area == "security"
    assert [record(run, SPEC, area=a).area for a in IMPROVEMENT_AREAS] == list(IMPROVEMENT_AREAS)
    assert IMPROVEMENT_AREAS == (
        "harness",
        "gates",
        "implementation",
        "workflow",
        "documentation",
        "security",
        "other",
    )


def test_the_attempt_follows_journal_attempt_for_every_stage_status() -> None:
    spec = definition(stage("plan", area="gates"), stage("build", area="implementation"))
    run = started(spec)
    pending = record(run, spec, stage_id="build")
    failed_once = post(run, spec, "plan", FAILED).run
    waiting = waits.wait(failed_once, spec, WaitRequest("plan", "ci"), now=3 * SECOND).run

    assert (pending.stage_id, pending.attempt) == ("build", None)  # pending, never attempted
    assert record(failed_once, spec, stage_id="plan").attempt == 2  # in progress: the active attempt
    assert record(waiting, spec, stage_id="plan").attempt == 2  # waiting: still the active attempt
    assert not hasattr(EntryDraft, "attempt")  # the caller cannot say


def test_an_entry_records_its_fields_trimmed_with_the_callers_identity() -> None:
    run = started(SPEC)
    entry = record(
        run,
        SPEC,
        " decision ",
        "  go with plan B  ",
        area="gates",
        severity=" warning ",
        details="  because A failed  ",
        evidence=[" a ", "", "b"],
        author="agt_someone",
    )
    assert entry == JournalEntry(
        id=entry.id,
        run_id=RUN_ID,
        author="agt_someone",
        category=Category.DECISION,
        area="gates",
        severity=Severity.WARNING,
        summary="go with plan B",
        create_time=5 * SECOND,
        details="because A failed",
        evidence=("a", "b"),
    )
    assert entry.id.startswith("journal_")
    assert record(run, SPEC, area="gates").severity is Severity.INFO  # the default
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.summary = "changed"  # type: ignore[misc]


def test_relations_name_entries_of_the_same_run() -> None:
    run = started(SPEC)
    first = record(run, SPEC, "contradiction", area="gates")
    second = record(run, SPEC, "decision", area="gates", related_entry_ids=[f" {first.id} "], known=[first.id])

    unknown = refused(
        Reason.INVALID_JOURNAL_RELATION, record, run, SPEC, area="gates", related_entry_ids=["journal_x"], known=[]
    )
    repeated = refused(
        Reason.INVALID_JOURNAL_RELATION,
        record,
        run,
        SPEC,
        area="gates",
        related_entry_ids=[first.id, first.id],
        known=[first.id],
    )
    too_many = [f"journal_{i}" for i in range(journal.MAX_RELATED + 1)]
    refused(
        Reason.INVALID_JOURNAL_RELATION, record, run, SPEC, area="gates", related_entry_ids=too_many, known=too_many
    )
    refused(Reason.INVALID_JOURNAL_RELATION, record, run, SPEC, area="gates", related_entry_ids=[" "], known=[" "])
    long_id = "j" * (journal.MAX_ENTRY_ID_CHARS + 1)
    refused(
        Reason.INVALID_JOURNAL_RELATION, record, run, SPEC, area="gates", related_entry_ids=[long_id], known=[long_id]
    )

    assert second.related_entry_ids == (first.id,)
    assert unknown.metadata == {"field": "related_entry_ids[0]", "runId": RUN_ID, "entryId": "journal_x"}
    assert repeated.metadata["field"] == "related_entry_ids[1]"
    ok = [f"journal_{i}" for i in range(journal.MAX_RELATED)]
    assert len(record(run, SPEC, area="gates", related_entry_ids=ok, known=ok).related_entry_ids) == 16


def test_a_stage_outside_the_run_is_an_invalid_relation() -> None:
    run = started(SPEC)
    unknown = refused(Reason.INVALID_JOURNAL_RELATION, record, run, SPEC, area="gates", stage_id="deploy")
    refused(Reason.INVALID_JOURNAL_RELATION, record, run, SPEC, area="gates", stage_id="s" * 129)
    assert unknown.metadata == {"field": "stage_id", "runId": RUN_ID, "stageId": "deploy"}


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"category": "rant"}, Reason.INVALID_JOURNAL_CATEGORY),
        ({"category": "Lesson"}, Reason.INVALID_JOURNAL_CATEGORY),
        ({"category": ""}, Reason.INVALID_JOURNAL_CATEGORY),
        ({"severity": "fatal"}, Reason.INVALID_JOURNAL_SEVERITY),
        ({"area": "infra"}, Reason.INVALID_IMPROVEMENT_AREA),
        ({"summary": "   "}, Reason.PROTOCOL_ERROR),
        ({"summary": "s" * 1_001}, Reason.PROTOCOL_ERROR),
        ({"summary": "s" * 999 + "😀"}, Reason.PROTOCOL_ERROR),  # 1,001 UTF-16 code units
        ({"details": "d" * 8_001}, Reason.PROTOCOL_ERROR),
        ({"evidence": ["e"] * 33}, Reason.PROTOCOL_ERROR),
        ({"evidence": ["e" * 1_001]}, Reason.PROTOCOL_ERROR),
    ],
)
def test_every_refusal_of_an_entry_names_its_reason(fields: dict[str, object], reason: Reason) -> None:
    base: dict[str, object] = {"category": "observation", "summary": "noted", "area": "gates"}
    draft = EntryDraft(**{**base, **fields})  # type: ignore[arg-type]
    refused(
        reason,
        journal.record,
        started(SPEC),
        SPEC,
        draft,
        author=COORDINATOR,
        known_entry_ids=(),
        now=1,
        new_id=new_id,
    )


def test_limits_are_inclusive() -> None:
    entry = record(
        started(SPEC),
        SPEC,
        summary="s" * 1_000,
        area="gates",
        details="d" * 8_000,
        evidence=["e" * 1_000] * 32,
    )
    assert (len(entry.summary), len(entry.details), len(entry.evidence)) == (1_000, 8_000, 32)


# -- hub-authored entries (§3.4) ------------------------------------------------------------------


def only(entries: tuple[JournalEntry, ...]) -> JournalEntry:
    assert len(entries) == 1, entries
    return entries[0]


def test_a_warning_or_failed_checkpoint_is_an_error_entry_with_the_reported_evidence() -> None:
    spec = definition(stage("plan"), stage("build", area="implementation"))
    run = started(spec)
    warned = post(run, spec, "plan", WARNING, {"lint": ("2 errors",), "build": ("ok",)}, summary="lint")
    failed = post(warned.run, spec, "plan", FAILED)

    warning = only(hub(warned.run, spec, warned, reported={"lint": ("2 errors",), "build": ("ok",)}))
    error = only(hub(failed.run, spec, failed))

    assert (warning.category, warning.severity, warning.area) == (Category.ERROR, Severity.WARNING, "workflow")
    assert warning.evidence == ("status:warning", "stage:plan", "lint: 2 errors", "build: ok")
    assert (warning.summary, warning.stage_id, warning.attempt) == ("lint", "plan", 1)
    assert (error.severity, error.attempt, error.summary) == (Severity.ERROR, 2, "stage plan checkpoint failed")


def test_a_signal_that_does_not_pass_defaults_to_the_gates_area() -> None:
    spec = definition(stage("deploy"), stage("verify", area="security"))
    waited = waits.wait(started(spec), spec, WaitRequest("deploy", "ci"), now=2 * SECOND).run
    signalled = waits.resume(
        waited, spec, SignalRequest("ci", FAILED, "ci red", {"job": ("e2e",)}), now=3 * SECOND, new_id=new_id
    )
    entry = only(hub(signalled.run, spec, signalled, via_signal=True, reported={"job": ("e2e",)}))

    assert (entry.category, entry.severity, entry.area) == (Category.ERROR, Severity.ERROR, "gates")
    assert entry.evidence == ("status:failed", "stage:deploy", "job: e2e")


POLICY = ResolvedPolicy(
    key="review",
    min_producers=2,
    eligible=(
        EligibleProducer("agt_r1", "r1", "anthropic"),
        EligibleProducer("agt_r2", "r2", "openai"),
    ),
    degraded_min_producers=1,
)


def reply(producer: str) -> PeerEvidence:
    return PeerEvidence(
        message_id=f"msg_{producer}",
        producer_id=f"agt_{producer}",
        producer_name=producer,
        run_id=RUN_ID,
        stage_id="review",
        requirement_key="review",
        visit=1,
        attempt=1,
        request_sha256="a" * 64,
        reply_sha256="b" * 64,
        create_time=1,
        deliver_time=2,
        reply_time=3,
        verify_time=4,
    )


@pytest.mark.parametrize(("area", "expected"), [(None, "security"), ("gates", "gates")])
def test_a_degraded_pass_and_its_approval_are_warning_decisions(area: str | None, expected: str) -> None:
    policy = EvidencePolicy("review", 2, (Producer("r1"), Producer("r2")), degraded_min_producers=1)
    spec = definition(stage("review", "review", policies={"review": policy}, area=area), stage("ship"))
    run = started(spec, {"review": {"review": POLICY}})
    run, approval, _ = approvals.approve_degradation(
        run,
        spec,
        stage_id="review",
        requirement_key="review",
        reason="r2 is down",
        approved_by="ops",
        now=2,
        new_id=new_id,
    )
    approved = journal_hub.approval_entry(run, spec, approval, now=3, new_id=new_id)
    passed = post(run, spec, "review", PASSED, peer_evidence={"review": (reply("r1"),)})
    used = only(hub(passed.run, spec, passed))

    assert (used.category, used.severity, used.area) == (Category.DECISION, Severity.WARNING, expected)
    assert used.evidence == ("class:workflow_quorum_degradation_used", "requirement:review")
    assert (used.stage_id, used.attempt) == ("review", 1)
    assert (approved.category, approved.severity, approved.area) == (Category.DECISION, Severity.WARNING, expected)
    assert approved.evidence == (
        "class:workflow_quorum_degradation_approved",
        f"approval:{approval.id}",
        "policy-min:2",
        "approved-min:1",
        "requirement:review",
        "by:ops",
    )
    assert (approved.author, approved.stage_id, approved.attempt) == ("hub", "review", 1)
    assert approved.summary == "degraded quorum approved for review on stage review (1 of 2 producers): r2 is down"


def back_edge(**edge: object) -> WorkflowDefinition:
    return definition(
        stage("plan", area="documentation"),
        stage("build", edges={"failed": Edge("failed", "plan", **edge)}),  # type: ignore[arg-type]
        max_transitions=10,
    )


def test_a_transition_is_a_state_change_and_a_spent_budget_an_error() -> None:
    spec = back_edge(max_transitions=1)
    run = post(started(spec), spec, "plan", PASSED).run
    moved = post(run, spec, "build", FAILED, {"result": ("red",)})
    back = post(post(moved.run, spec, "plan", PASSED).run, spec, "build", FAILED)

    not_passed, transition = hub(moved.run, spec, moved)
    *_, exhausted = hub(back.run, spec, back)

    assert not_passed.category is Category.ERROR and not_passed.area == "workflow"
    assert (transition.category, transition.severity, transition.area) == (
        Category.STATE_CHANGE,
        Severity.INFO,
        "workflow",
    )
    assert transition.summary == "typed transition build -> plan (failed)"
    assert transition.evidence == ("requirement:result",)
    assert (transition.stage_id, transition.attempt) == ("build", 1)
    assert [e.kind for e in back.events][-2:] == [EventKind.BUDGET_EXHAUSTED, EventKind.FAILED]
    assert (exhausted.category, exhausted.severity, exhausted.area) == (Category.ERROR, Severity.ERROR, "workflow")
    assert exhausted.evidence == ("class:transition_budget_exhausted", "stage:build")
    assert len(hub(back.run, spec, back)) == 2  # the failure that follows adds nothing


def test_a_transition_from_a_stage_with_an_area_takes_it() -> None:
    spec = definition(
        stage("plan"),
        stage("build", area="implementation", edges={"failed": Edge("failed", "plan")}),
        max_transitions=10,
    )
    run = post(started(spec), spec, "plan", PASSED).run
    moved = post(run, spec, "build", FAILED)
    assert [e.area for e in hub(moved.run, spec, moved)] == ["implementation", "implementation"]


def test_exhausted_attempts_journal_the_failure_and_the_hubs_decision() -> None:
    spec = definition(stage("plan", max_attempts=1, area="gates"))
    failed = post(started(spec), spec, "plan", FAILED, summary="broken")
    error, ended = hub(failed.run, spec, failed)

    assert (error.category, error.severity, error.attempt) == (Category.ERROR, Severity.ERROR, 1)
    assert (ended.category, ended.severity, ended.area) == (Category.STATE_CHANGE, Severity.ERROR, "gates")
    assert ended.evidence == ("class:attempts_exhausted", "stage:plan")
    assert ended.summary == "stage plan used its 1 attempts"


def test_an_expired_wait_is_an_error_in_the_harness_area() -> None:
    spec = definition(stage("deploy"))
    waited = waits.wait(started(spec), spec, WaitRequest("deploy", "ci", timeout_ms=1_000), now=2 * SECOND).run
    expired = waits.expire_wait(waited, now=3 * SECOND)
    assert expired is not None
    entry = only(hub(expired.run, spec, expired))

    assert (entry.category, entry.severity, entry.area) == (Category.ERROR, Severity.ERROR, "harness")
    assert entry.evidence == (f"wait-created:{2 * SECOND}", f"wait-expired:{3 * SECOND}", "signal:ci")
    assert (entry.stage_id, entry.attempt, entry.summary) == ("deploy", 1, "wait for ci timed out")


@pytest.mark.parametrize(
    ("kind", "area"),
    [("prompt_expired", "harness"), ("early_reply", "workflow")],
)
def test_prompt_expiry_and_early_reply_are_errors_in_their_fixed_area(kind: str, area: str) -> None:
    spec = definition(stage("plan", area="gates"))
    failed = waits.fail(started(spec), "settled", now=3 * SECOND, evidence=("message:msg_prompt", f"class:{kind}"))
    entry = only(hub(failed.run, spec, failed))

    assert (entry.category, entry.severity, entry.area) == (Category.ERROR, Severity.ERROR, area)
    assert entry.evidence == ("message:msg_prompt", f"class:{kind}")
    assert (entry.stage_id, entry.attempt) == ("plan", 1)  # the stage the run was at
    plain = waits.fail(started(spec), "other", now=3 * SECOND)
    assert hub(plain.run, spec, plain) == ()


def test_escalation_ruling_and_cancellation_are_journaled() -> None:
    spec = definition(stage("fix", auto_resume_limit=1, max_attempts=5), stage("ship"))
    escalated = post(started(spec), spec, "fix", FAILED, summary="flaky infra")
    ruled = waits.rule(escalated.run, spec, ruling="proceed", status=PASSED, ruled_by="ops", now=4, new_id=new_id)
    cancelled = waits.cancel(ruled.run, reason="", by="ops", now=5)

    error, escalation = hub(escalated.run, spec, escalated)
    ruling = hub(ruled.run, spec, ruled, via_signal=True)
    (cancel,) = hub(cancelled.run, spec, cancelled)

    assert error.category is Category.ERROR
    assert (escalation.category, escalation.severity, escalation.area) == (
        Category.DECISION,
        Severity.WARNING,
        "workflow",
    )
    assert escalation.evidence == ("class:audit_escalation", "stage:fix", "by:hub")
    assert (escalation.summary, escalation.attempt) == ("flaky infra", 2)
    assert [e.category for e in ruling] == [Category.DECISION]
    assert ruling[0].evidence == ("class:audit_ruling", "status:passed", "by:ops")
    assert (cancel.category, cancel.severity, cancel.area) == (Category.STATE_CHANGE, Severity.WARNING, "workflow")
    assert cancel.evidence == ("class:run_cancelled", "by:ops")
    assert (cancel.stage_id, cancel.summary) == ("ship", "cancelled by ops")


def test_waiting_and_completion_are_not_journaled() -> None:
    spec = definition(stage("deploy"))
    run = started(spec)
    waited = waits.wait(run, spec, WaitRequest("deploy", "ci"), now=2 * SECOND)
    done = post(run, spec, "deploy", PASSED)
    assert [e.kind for e in waited.events + done.events] == [EventKind.WAITING, EventKind.COMPLETED]
    assert hub(waited.run, spec, waited) == () and hub(done.run, spec, done) == ()


def test_hub_texts_are_clipped_never_refused() -> None:
    spec = definition(stage("plan"))
    run = started(spec)
    long_summary = "x" * 3_999 + "😀"
    events = (
        RunEvent(
            EventKind.CHECKPOINT_NOT_PASSED, "plan", 1, long_summary, ("status:failed", *(f"e{i}" for i in range(40)))
        ),
        RunEvent(EventKind.TRANSITION, "gone", None, "   "),
    )
    clipped, orphan = journal_hub.hub_entries(run, spec, events, reported={"k": ("v" * 1_000,)}, now=1, new_id=new_id)

    assert len(clipped.summary) == 1_000 and clipped.summary.endswith("…")
    assert clipped.details == long_summary
    assert len(clipped.evidence) == journal.MAX_EVIDENCE
    assert (orphan.stage_id, orphan.attempt, orphan.summary) == (None, None, "(no summary)")
    assert validation.clip("ab😀", 3) == "ab…" and validation.clip("a😀b", 3) == "a…"
    assert validation.clip("abc", 3) == "abc"


def test_every_event_kind_has_a_decided_fate() -> None:
    """A new event kind must be mapped (or deliberately left out) here."""
    spec = definition(stage("plan"))
    run = started(spec)
    kinds = [value for name, value in vars(EventKind).items() if name.isupper()]
    journaled = {
        kind
        for kind in kinds
        if journal_hub.hub_entries(run, spec, [RunEvent(kind, "plan", 1, "s")], now=1, new_id=new_id)
    }
    assert journaled == set(kinds) - {EventKind.WAITING, EventKind.COMPLETED, EventKind.FAILED}


# -- governed promotion (§3.5) --------------------------------------------------------------------


def candidate(category: str = "skill-candidate", author: str = COORDINATOR) -> JournalEntry:
    return record(started(SPEC), SPEC, category, "cache the venv", area="harness", evidence=["ci -40%"], author=author)


def promote(entry: JournalEntry, promotions: Sequence[Promotion] = (), **fields: object) -> Promotion:
    arguments: dict[str, object] = {"to": "approved", "evidence_refs": ["ci run 77"], "decided_by": "ops"}
    arguments.update(fields)
    return journal.promote(entry, promotions, now=9 * SECOND, new_id=new_id, **arguments)  # type: ignore[arg-type]


def test_a_promotion_is_a_record_of_its_own_and_the_entry_never_changes() -> None:
    entry = candidate()
    before = dataclasses.replace(entry)
    decision = promote(entry, to=" approved ", evidence_refs=[" ci run 77 ", ""], reason=" measured ")

    assert decision == Promotion(
        id=decision.id,
        run_id=RUN_ID,
        entry_id=entry.id,
        from_status=PromotionStatus.PROPOSED,
        to_status=PromotionStatus.APPROVED,
        evidence_refs=("ci run 77",),
        decided_by="ops",
        reason="measured",
        decide_time=9 * SECOND,
    )
    assert decision.id.startswith("promotion_")
    assert entry == before
    assert journal.promotion_status(entry, []) is PromotionStatus.PROPOSED
    assert journal.promotion_status(entry, [decision]) is PromotionStatus.APPROVED


@pytest.mark.parametrize("to", ["approved", "rejected", "quarantined"])
def test_pin12_promotion_is_monotonic(to: str) -> None:
    entry = candidate("hypothesis")
    first = promote(entry, to=to)
    again = refused(Reason.JOURNAL_PROMOTION_INVALID, promote, entry, [first], to="approved")
    assert isinstance(again, InvalidArgument) and again.metadata["status"] == to
    assert journal.promotion_status(entry, [first]) is PromotionStatus(to)


def test_pin12_promotion_refuses_self_decision() -> None:
    entry = candidate(author="ops")
    error = refused(Reason.JOURNAL_PROMOTION_INVALID, promote, entry, decided_by="ops")
    assert error.metadata["decidedBy"] == "ops"
    assert promote(entry, decided_by="alice").decided_by == "alice"


@pytest.mark.parametrize("refs", [[], [""], ["   ", "\t"]])
def test_pin12_promotion_requires_evidence(refs: list[str]) -> None:
    error = refused(Reason.JOURNAL_PROMOTION_INVALID, promote, candidate("experiment"), evidence_refs=refs)
    assert error.metadata["field"] == "evidence_refs"


@pytest.mark.parametrize("category", [c.value for c in Category if not c.promotable])
def test_pin12_non_promotable_categories_refuse(category: str) -> None:
    entry = candidate(category)
    error = refused(Reason.JOURNAL_PROMOTION_INVALID, promote, entry)
    assert error.metadata["category"] == category
    assert journal.promotion_status(entry, []) is None


@pytest.mark.parametrize("to", ["proposed", "promoted", ""])
def test_a_promotion_to_an_unknown_target_is_an_invalid_promotion(to: str) -> None:
    refused(Reason.INVALID_JOURNAL_PROMOTION, promote, candidate(), to=to)


@pytest.mark.parametrize(
    "fields",
    [
        {"reason": "r" * 1_001},
        {"decided_by": " "},
        {"evidence_refs": ["e"] * 33},
        {"evidence_refs": ["e" * 1_001]},
    ],
)
def test_promotion_field_limits(fields: dict[str, object]) -> None:
    refused(Reason.PROTOCOL_ERROR, promote, candidate(), **fields)


def test_promotion_states_fold_a_runs_records_in_order() -> None:
    run = started(SPEC)
    skill = record(run, SPEC, "skill-candidate", area="harness", evidence=["e"])
    idea = record(run, SPEC, "hypothesis", area="harness")
    other = record(run, SPEC, "error", area="harness")
    rejected = promote(idea, to="rejected")

    states = journal.promotion_states([skill, idea, other, rejected])
    assert states == {skill.id: PromotionStatus.PROPOSED, idea.id: PromotionStatus.REJECTED}
    # Another entry's record never decides this one.
    assert journal.promotion_status(skill, [rejected]) is PromotionStatus.PROPOSED
    assert promote(skill, [rejected]).to_status is PromotionStatus.APPROVED


def test_record_json_names_every_field() -> None:
    entry = candidate()
    decision = promote(entry)
    assert journal.record_json(entry) == {
        "schema": "kxm.journal-entry.v1",
        "id": entry.id,
        "runId": RUN_ID,
        "author": COORDINATOR,
        "category": "skill-candidate",
        "area": "harness",
        "severity": "info",
        "summary": "cache the venv",
        "details": "",
        "evidence": ["ci -40%"],
        "relatedEntryIds": [],
        "stageId": None,
        "attempt": None,
        "createTime": 5 * SECOND,
    }
    assert journal.record_json(decision) == {
        "schema": "kxm.journal-promotion.v1",
        "id": decision.id,
        "runId": RUN_ID,
        "entryId": entry.id,
        "from": "proposed",
        "to": "approved",
        "evidenceRefs": ["ci run 77"],
        "decidedBy": "ops",
        "reason": "",
        "decideTime": 9 * SECOND,
    }


def test_severity_weights() -> None:
    assert [s.weight for s in Severity] == [1, 2, 3]


def test_a_terminal_edge_transition_is_journaled_but_not_the_completion() -> None:
    spec = definition(stage("plan", edges={"done": Edge("done", TERMINAL)}))
    done = post(started(spec), spec, "plan", PASSED, outcome="done")
    (entry,) = hub(done.run, spec, done)
    assert entry.summary == "typed transition plan -> $terminal (done)"
