"""The learning journal through the API: recording, the hub's own entries, promotion, reports,
retrospectives and the tamper-evident chain (workflow-context.md §3, §10 pins 12-14).

A real hub (the ``hub`` fixture, on SQLite and PostgreSQL); the coordinator records through
WorkflowService's journal RPCs, the hub writes its entries in the transaction of each step, an
operator (the admin token, or a named operator) promotes. Every hub-authored entry is observed
through ListJournal after the call that causes it. The generated stub is called through the
client's ``_call`` (the error mapping every client method uses).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from kxm_grpc import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Reason,
    Unauthenticated,
)
from kxm_grpc._gen.kxm.v1 import workflow_journal_pb2 as jpb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc.client import HubClient
from kxm_grpc.domain.workflows import journal_chain
from kxm_grpc.domain.workflows.journal import Category
from kxm_grpc.errors import DataLoss
from kxm_grpc.store.rows.journal import record_to_json
from kxm_grpc.v1 import WorkflowRunStatus
from tests.conftest import AgentFactory, Hub
from tests.workflows import call, define

E = jpb
FAILED = WorkflowRunStatus.WORKFLOW_RUN_STATUS_FAILED
COMPLETED = WorkflowRunStatus.WORKFLOW_RUN_STATUS_COMPLETED
SECRET_TEXT = "retry with password=hunter2-hunter2"


async def records(client: HubClient, run_id: str) -> list[Any]:
    """Every record of the run's journal, paging 2 at a time (so paging is exercised)."""
    found: list[Any] = []
    token = ""
    while True:
        page = await call(client, "ListJournal", pb.ListJournalRequest(run_id=run_id, page_size=2, page_token=token))
        found += page.records
        token = page.next_page_token
        if not token:
            return found


def hub_entries(found: list[Any]) -> list[Any]:
    return [r.entry for r in found if r.WhichOneof("record") == "entry" and r.entry.author == "hub"]


def staged(**fields: Any) -> dict[str, Any]:
    """``build`` (area implementation, 3 attempts) then ``review`` (area gates) then ``ship``."""
    document = define("area-flow", stages=("build", "review", "ship"), **fields)
    document["stages"][0].update(area="implementation", maxAttempts=3)
    document["stages"][1]["area"] = "gates"
    return document


_deliveries = itertools.count(1)


async def start(admin: HubClient, document: dict[str, Any], delivery: str = "") -> Any:
    """Register ``document`` and start a run of it (a new delivery id unless one is given)."""
    await admin.workflows.register_definition(document)
    return (await admin.workflows.start_run(document["id"], delivery_id=delivery or f"d-{next(_deliveries)}")).run


async def checkpoint(coordinator: HubClient, run_id: str, stage: str, status: str, **fields: Any) -> Any:
    return await coordinator.workflows.checkpoint(run_id, stage, status, **fields)


# -- pins 12-14 ------------------------------------------------------------------------------------


def test_pin_12_the_ten_categories_in_order_and_which_need_evidence_or_are_promotable() -> None:
    """Pin 12: the ten categories in the spec's order, the contract's enum in the same order;
    lesson and skill-candidate need evidence; skill-candidate, hypothesis, experiment are promotable."""
    names = [c.value for c in Category]
    enum = [E.JournalCategory.Name(v) for v in E.JournalCategory.values()][1:]

    assert names == [
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
    ]
    assert enum == ["JOURNAL_CATEGORY_" + n.upper().replace("-", "_") for n in names]
    assert [c.value for c in Category if c.needs_evidence] == ["lesson", "skill-candidate"]
    assert [c.value for c in Category if c.promotable] == ["hypothesis", "experiment", "skill-candidate"]


async def test_pin_12_promotion_is_monotonic_needs_evidence_and_refuses_the_author_and_the_unpromotable(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """Pin 12: a lesson without evidence is refused; a promotion by an operator named as the author
    agent is refused, as are one without evidence refs, one of a non-promotable entry, a second
    decision, a bad token (UNAUTHENTICATED) and an agent; the decision is a record of its own and
    the entry is never changed."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await start(admin, staged())
        with pytest.raises(InvalidArgument) as no_evidence:
            await call(coordinator, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_LESSON, "learnt", evidence=[]))
        skill = (
            await call(
                coordinator,
                "RecordJournal",
                _entry(run.id, E.JOURNAL_CATEGORY_SKILL_CANDIDATE, "cache the build", evidence=["ci 12 faster"]),
            )
        ).record.entry
        plan = (await call(coordinator, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_PLAN, "go"))).record.entry
        operator = await admin.admin.create_operator("coordinator")  # named as the author agent
        async with HubClient(hub.address, token=operator.operator_token, project="alpha") as namesake:
            with pytest.raises(InvalidArgument) as self_decided:
                await call(namesake, "PromoteJournalEntry", _promotion(skill.id))
        with pytest.raises(InvalidArgument) as no_refs:
            await call(admin, "PromoteJournalEntry", _promotion(skill.id, refs=[" "]))
        with pytest.raises(InvalidArgument) as not_promotable:
            await call(admin, "PromoteJournalEntry", _promotion(plan.id))
        with pytest.raises(InvalidArgument) as bad_target:
            await call(admin, "PromoteJournalEntry", _promotion(skill.id, to=E.PROMOTION_STATUS_PROPOSED))
        with pytest.raises(PermissionDenied) as agent:
            await call(coordinator, "PromoteJournalEntry", _promotion(skill.id))
        async with HubClient(hub.address, token="kxm_admin_wrong-token-0123456789") as stranger:
            with pytest.raises(Unauthenticated):
                await call(stranger, "PromoteJournalEntry", _promotion(skill.id))
        decided = await call(admin, "PromoteJournalEntry", _promotion(skill.id))
        with pytest.raises(InvalidArgument) as second:
            await call(admin, "PromoteJournalEntry", _promotion(skill.id, to=E.PROMOTION_STATUS_REJECTED))
        with pytest.raises(NotFound) as unknown:
            await call(admin, "PromoteJournalEntry", _promotion("journal_nope"))
        with pytest.raises(NotFound) as a_promotion:
            await call(admin, "PromoteJournalEntry", _promotion(decided.record.promotion.id))
        found = await records(admin, run.id)

    assert no_evidence.value.reason is Reason.JOURNAL_EVIDENCE_REQUIRED
    assert self_decided.value.reason is Reason.JOURNAL_PROMOTION_INVALID
    assert no_refs.value.reason is Reason.JOURNAL_PROMOTION_INVALID
    assert not_promotable.value.reason is Reason.JOURNAL_PROMOTION_INVALID
    assert bad_target.value.reason is Reason.INVALID_JOURNAL_PROMOTION
    assert agent.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert second.value.reason is Reason.JOURNAL_PROMOTION_INVALID
    assert second.value.metadata["status"] == "approved"
    assert unknown.value.reason is a_promotion.value.reason is Reason.JOURNAL_NOT_FOUND
    promotion = decided.record.promotion
    assert (promotion.entry_id, promotion.from_status, promotion.to_status) == (
        skill.id,
        E.PROMOTION_STATUS_PROPOSED,
        E.PROMOTION_STATUS_APPROVED,
    )
    assert (list(promotion.evidence_refs), promotion.decided_by) == (["bench 3: 40% faster"], "admin")
    assert decided.entry.promotion_status == E.PROMOTION_STATUS_APPROVED
    assert skill.promotion_status == E.PROMOTION_STATUS_PROPOSED
    assert plan.promotion_status == E.PROMOTION_STATUS_UNSPECIFIED
    kinds = [(r.sequence, r.WhichOneof("record")) for r in found]
    assert kinds == [(0, "entry"), (1, "entry"), (2, "promotion")]
    assert found[0].entry.summary == "cache the build"  # the entry as written, its status folded
    assert found[0].entry.promotion_status == E.PROMOTION_STATUS_APPROVED


def _entry(run_id: str, category: int, summary: str, **fields: Any) -> pb.RecordJournalRequest:
    fields.setdefault("area", E.IMPROVEMENT_AREA_WORKFLOW)
    return pb.RecordJournalRequest(run_id=run_id, category=category, summary=summary, **fields)  # type: ignore[arg-type]


def _promotion(entry_id: str, *, to: int = E.PROMOTION_STATUS_APPROVED, refs: Any = None) -> Any:
    return pb.PromoteJournalEntryRequest(
        entry_id=entry_id,
        to=to,  # type: ignore[arg-type]
        evidence_refs=refs if refs is not None else ["bench 3: 40% faster"],
        reason="measured",
    )


async def test_pin_13_stage_bound_entries_take_the_stage_area_and_the_hubs_attempt(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """Pin 13: a stage-bound entry takes the stage's area and attempt 1; the hub's warning-checkpoint
    entry carries the stage, attempt 1 and the stage's area (severity warning, the evidence as
    "key: value"); after the stage passes on attempt 2 a lesson binds attempt 2; no area and no
    stage is refused; a stage that is not the run's is refused."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await start(admin, staged())
        bound = await call(
            coordinator,
            "RecordJournal",
            pb.RecordJournalRequest(
                run_id=run.id, category=E.JOURNAL_CATEGORY_OBSERVATION, summary="slow", stage_id="build"
            ),
        )
        await checkpoint(coordinator, run.id, "build", "warning", summary="lint warns", evidence={"lint": "3 warnings"})
        await checkpoint(coordinator, run.id, "build", "passed", summary="clean", evidence={"lint": "ok"})
        lesson = await call(
            coordinator,
            "RecordJournal",
            pb.RecordJournalRequest(
                run_id=run.id,
                category=E.JOURNAL_CATEGORY_LESSON,
                summary="run lint first",
                evidence=["attempt 1 warned"],
                stage_id="build",
            ),
        )
        with pytest.raises(InvalidArgument) as no_area:
            await call(
                coordinator,
                "RecordJournal",
                pb.RecordJournalRequest(run_id=run.id, category=E.JOURNAL_CATEGORY_PLAN, summary="go"),
            )
        with pytest.raises(InvalidArgument) as no_stage:
            await call(coordinator, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_PLAN, "go", stage_id="deploy"))
        found = await records(coordinator, run.id)

    first = bound.record.entry
    assert (first.stage_id, first.attempt, first.area) == ("build", 1, E.IMPROVEMENT_AREA_IMPLEMENTATION)
    (warned,) = [e for e in hub_entries(found) if e.category == E.JOURNAL_CATEGORY_ERROR]
    assert (warned.stage_id, warned.attempt, warned.area, warned.severity) == (
        "build",
        1,
        E.IMPROVEMENT_AREA_IMPLEMENTATION,
        E.JOURNAL_SEVERITY_WARNING,
    )
    assert "lint: 3 warnings" in warned.evidence
    assert (lesson.record.entry.attempt, lesson.record.entry.area) == (2, E.IMPROVEMENT_AREA_IMPLEMENTATION)
    assert no_area.value.reason is Reason.INVALID_IMPROVEMENT_AREA
    assert no_stage.value.reason is Reason.INVALID_JOURNAL_RELATION


async def test_pin_14_the_area_report_keeps_areas_with_entries_in_order_errors_first(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """Pin 14: only areas with entries, gates before implementation, error entries first in the
    priorities; the signals rank the recurring class first."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await start(admin, define("plain", stages=("build",)))
        for category, area, severity, summary, evidence in [
            (E.JOURNAL_CATEGORY_LESSON, E.IMPROVEMENT_AREA_IMPLEMENTATION, E.JOURNAL_SEVERITY_INFO, "l1", ["x"]),
            (E.JOURNAL_CATEGORY_ERROR, E.IMPROVEMENT_AREA_IMPLEMENTATION, E.JOURNAL_SEVERITY_ERROR, "e1", []),
            (E.JOURNAL_CATEGORY_CONTRADICTION, E.IMPROVEMENT_AREA_GATES, E.JOURNAL_SEVERITY_WARNING, "c1", []),
            (E.JOURNAL_CATEGORY_ERROR, E.IMPROVEMENT_AREA_GATES, E.JOURNAL_SEVERITY_ERROR, "flaky", ["class:flaky"]),
            (E.JOURNAL_CATEGORY_LESSON, E.IMPROVEMENT_AREA_GATES, E.JOURNAL_SEVERITY_INFO, SECRET_TEXT, [SECRET_TEXT]),
        ]:
            request = pb.RecordJournalRequest(
                run_id=run.id, category=category, area=area, severity=severity, summary=summary, evidence=evidence
            )
            await call(coordinator, "RecordJournal", request)
        report = await call(coordinator, "GetImprovementReport", pb.GetImprovementReportRequest())

    assert [a.area for a in report.areas] == [E.IMPROVEMENT_AREA_GATES, E.IMPROVEMENT_AREA_IMPLEMENTATION]
    gates, implementation = report.areas
    assert (gates.total, gates.errors, gates.contradictions, gates.lessons) == (3, 1, 1, 1)
    assert [p.summary for p in gates.priorities][:2] == ["flaky", "c1"]
    assert [p.summary for p in implementation.priorities] == ["e1", "l1"]
    assert (report.entries, report.truncated) == (5, False)
    # The report goes to every caller of the project: its texts are redacted, as the signals' are.
    assert "hunter2-hunter2" not in str(report)
    assert report.signals[0].key == "error|class:flaky"


# -- hub-authored entries ---------------------------------------------------------------------------


async def test_the_hub_journals_each_decision_after_the_step_that_makes_it(hub: Hub, make_agent: AgentFactory) -> None:
    """Observed through ListJournal after each call: a failed checkpoint (error/error), the
    declared back-edge (state-change), the exhausted budget (error, class:transition_budget_exhausted)
    and, once the run ended, its retrospective; every hub entry is authored ``hub``."""
    coordinator = await make_agent("coordinator")
    document = staged(maxTransitions=1)
    document["stages"][1]["on"] = {"failed": {"target": "build"}}
    async with hub.admin() as admin:
        run = await start(admin, document)
        await checkpoint(coordinator, run.id, "build", "passed", evidence={"build": "ok"})
        await checkpoint(coordinator, run.id, "review", "failed", summary="bad", evidence={"review": "nack"})
        after_back_edge = hub_entries(await records(coordinator, run.id))
        await checkpoint(coordinator, run.id, "build", "passed", evidence={"build": "ok"})
        ended = await checkpoint(coordinator, run.id, "review", "failed", summary="bad", evidence={"review": "nack"})
        after_budget = hub_entries(await records(coordinator, run.id))
        exported = await call(coordinator, "ExportRetrospective", pb.ExportRetrospectiveRequest(run_id=run.id))

    assert [(e.category, e.stage_id) for e in after_back_edge] == [
        (E.JOURNAL_CATEGORY_ERROR, "review"),
        (E.JOURNAL_CATEGORY_STATE_CHANGE, "review"),
    ]
    assert after_back_edge[0].severity == E.JOURNAL_SEVERITY_ERROR
    assert after_back_edge[0].area == E.IMPROVEMENT_AREA_GATES  # the stage's area
    assert "review: nack" in after_back_edge[0].evidence
    assert ended.run.status == FAILED and ended.exhausted
    budget = [e for e in after_budget if "class:transition_budget_exhausted" in e.evidence]
    assert len(budget) == 1 and budget[0].severity == E.JOURNAL_SEVERITY_ERROR
    retrospective = exported.retrospective
    assert (retrospective.schema, retrospective.run_id, retrospective.status) == (
        "kxm.retrospective.v1",
        run.id,
        "failed",
    )
    assert [e.category for e in after_budget] == [
        E.JOURNAL_CATEGORY_ERROR,
        E.JOURNAL_CATEGORY_STATE_CHANGE,
        E.JOURNAL_CATEGORY_ERROR,
        E.JOURNAL_CATEGORY_ERROR,
    ]
    assert (retrospective.journal.records, retrospective.counts.by_category["error"]) == (4, 3)
    assert exported.markdown.startswith(f"# Workflow retrospective {run.id}")
    assert '"schema":"kxm.retrospective.v1"' in exported.json


async def test_approvals_signals_escalations_rulings_waits_and_cancellation_are_journaled(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """The degradation approval (decision/warning, security, its class), the degraded pass, a
    warning signal (area gates by default: a signal), the escalation and the ruling, a wait that
    expires (error, harness) and a cancellation: each entry is there after its call."""
    coordinator = await make_agent("coordinator")
    alice = await make_agent("alice")
    await make_agent("bob")
    document = define("fix", reviewers=("alice", "bob"), min_producers=2, stages=("review", "ci", "audit", "ship"))
    document["stages"][0]["evidencePolicies"]["Unit Tests"]["degradation"] = {"minProducers": 1}
    async with hub.admin() as admin:
        run = await start(admin, document)
        await admin.workflows.approve_degradation(run.id, "review", "Unit Tests", "bob is away")
        after_approval = hub_entries(await records(coordinator, run.id))
        (message_id,) = await coordinator.workflows.request_review(run, "review", "Unit Tests", "alice", "review it")
        await alice.messages.reply(message_id, "fine")
        await coordinator.workflows.checkpoint(run.id, "review", "passed", evidence_refs={"Unit Tests": message_id})
        after_degraded = hub_entries(await records(coordinator, run.id))
        await coordinator.workflows.wait(run.id, "ci", "ci-green", ttl=600)
        await admin.workflows.signal_run(run.id, "ci-green", "warning", delivery_id="s-1", evidence={"ci": "flaky"})
        after_signal = hub_entries(await records(coordinator, run.id))
        await coordinator.workflows.checkpoint(run.id, "ci", "passed", evidence={"ci": "green"})
        await coordinator.workflows.escalate_stage(run.id, "audit", "needs a human")
        await admin.workflows.resolve_escalation(run.id, "passed", "looks fine")
        after_ruling = hub_entries(await records(coordinator, run.id))
        await coordinator.workflows.wait(run.id, "ship", "deployed", ttl=1)
        expired = await _until(lambda: _status(coordinator, run.id), FAILED)
        after_expiry = hub_entries(await records(coordinator, run.id))
        exported = await call(coordinator, "ExportRetrospective", pb.ExportRetrospectiveRequest(run_id=run.id))
        other = await start(admin, define("plain", stages=("build",)), delivery="d-2")
        await admin.workflows.cancel_run(other.id, reason="not needed")
        cancelled = hub_entries(await records(coordinator, other.id))

    (approval,) = after_approval
    assert (approval.category, approval.severity, approval.area) == (
        E.JOURNAL_CATEGORY_DECISION,
        E.JOURNAL_SEVERITY_WARNING,
        E.IMPROVEMENT_AREA_SECURITY,
    )
    assert approval.evidence[0] == "class:workflow_quorum_degradation_approved" and "by:admin" in approval.evidence
    degraded = after_degraded[len(after_approval) :]
    assert [e.category for e in degraded][:1] == [E.JOURNAL_CATEGORY_DECISION]
    assert "class:workflow_quorum_degradation_used" in degraded[0].evidence
    warned = after_signal[len(after_degraded) :]
    assert [(e.category, e.area, e.severity) for e in warned] == [
        (E.JOURNAL_CATEGORY_ERROR, E.IMPROVEMENT_AREA_GATES, E.JOURNAL_SEVERITY_WARNING)
    ]
    assert "ci: flaky" in warned[0].evidence
    ruled = after_ruling[len(after_signal) :]
    assert [c for e in ruled for c in e.evidence if c in ("class:audit_escalation", "class:audit_ruling")] == [
        "class:audit_escalation",
        "class:audit_ruling",
    ]
    assert expired == FAILED
    timed_out = after_expiry[len(after_ruling) :]
    assert [(e.category, e.area, e.stage_id) for e in timed_out] == [
        (E.JOURNAL_CATEGORY_ERROR, E.IMPROVEMENT_AREA_HARNESS, "ship")
    ]
    assert [e.evidence[0] for e in cancelled] == ["class:run_cancelled"]
    # The retrospective of the expired run parses whole into its message, evidence audit included.
    (audit,) = exported.retrospective.evidence_audit
    assert (audit.stage_id, audit.requirement_key, audit.degraded, audit.counted_producers) == (
        "review",
        "unit tests",
        True,
        1,
    )
    assert [m.message_id for m in audit.verified_messages] == [message_id]
    assert [a.approved_by for a in audit.degradation_approvals] == ["admin"]
    assert list(exported.retrospective.degraded_stage_ids) == ["review"]
    assert exported.retrospective.journal.records == len(after_expiry)
    assert "## Peer-evidence audit" in exported.markdown


async def _status(client: HubClient, run_id: str) -> Any:
    return (await client.workflows.get_run(run_id)).run.status


async def _until(read: Any, wanted: Any, *, seconds: float = 15.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    value = await read()
    while value != wanted and loop.time() < deadline:
        await asyncio.sleep(0.1)
        value = await read()
    return value


# -- the chain ------------------------------------------------------------------------------------


async def _journaled_run(hub: Hub, coordinator: HubClient, admin: HubClient, *, end: bool) -> Any:
    run = await start(admin, define("plain", stages=("build",)))
    for summary in ("one", "two", "three"):
        await call(coordinator, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_OBSERVATION, summary))
    if end:
        await admin.workflows.cancel_run(run.id, reason="done")
    return run


async def _verdict(client: HubClient, run_id: str) -> Any:
    return (await call(client, "VerifyJournal", pb.VerifyJournalRequest(run_id=run_id))).verdict


async def test_verify_names_the_first_record_altered_in_the_database(hub: Hub, make_agent: AgentFactory) -> None:
    """A summary changed directly in the database (the record still decodes): VerifyJournal reports
    ALTERED at that record, having verified the ones before it; an intact journal verifies whole."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await _journaled_run(hub, coordinator, admin, end=False)
        before = await _verdict(coordinator, run.id)
        found = await records(coordinator, run.id)
        await hub.server.store.write(
            lambda tx: tx.journal._conn.execute(  # type: ignore[attr-defined]
                "UPDATE workflow_journal SET record = replace(record, '\"two\"', '\"2\"') WHERE run_id = ?",
                (run.id,),
            )
        )
        after = await _verdict(coordinator, run.id)

    assert (before.intact, before.verified_records, before.head_sequence) == (True, 3, 2)
    assert before.key_ids == [hub.server.store.journal_keys.current]  # type: ignore[union-attr]
    assert (after.intact, after.problem, after.verified_records) == (False, E.JournalVerdict.PROBLEM_ALTERED, 1)
    assert (after.breach_sequence, after.breach_record_id) == (1, found[1].entry.id)


async def test_a_chain_recomputed_without_the_hub_key_is_refused(hub: Hub, make_agent: AgentFactory) -> None:
    """An attacker with the database alone rewrites a record and re-seals the whole journal under a
    key of their own (even reusing the hub's key id): VerifyJournal reports ALTERED at the first
    record, and UNKNOWN_KEY for a key id the hub does not hold."""
    coordinator = await make_agent("coordinator")
    keys = hub.server.store.journal_keys
    assert keys is not None
    forged_same_id = journal_chain.Keyring({keys.current: b"f" * 32}, current=keys.current)
    forged_new_id = journal_chain.Keyring({"attacker": b"a" * 32}, current="attacker")
    verdicts = []
    async with hub.admin() as admin:
        for forged in (forged_same_id, forged_new_id):
            run = await _journaled_run(hub, coordinator, admin, end=False)

            def reseal(tx: Any, run_id: str = run.id, forged: Any = forged) -> None:
                links = tx.journal.links(run_id, limit=100)
                resealed = journal_chain.seal_all([link.record for link in links], None, forged)
                for link in resealed:
                    tx.journal._conn.execute(
                        "UPDATE workflow_journal SET record = ?, key_id = ?, chain = ? "
                        "WHERE run_id = ? AND sequence = ?",
                        (record_to_json(link.record), link.key_id, link.chain, run_id, link.sequence),
                    )

            await hub.server.store.write(reseal)
            verdicts.append(await _verdict(coordinator, run.id))

    same_id, new_id = verdicts
    assert (same_id.intact, same_id.problem, same_id.breach_sequence) == (
        False,
        E.JournalVerdict.PROBLEM_ALTERED,
        0,
    )
    assert (new_id.problem, new_id.breach_key_id) == (E.JournalVerdict.PROBLEM_UNKNOWN_KEY, "attacker")


async def test_records_removed_from_the_end_of_an_ended_runs_journal_are_found(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """The retrospective written at the end holds the journal's head: deleting the last records
    (whose chains go with them) is TRUNCATED; a lesson recorded after the end still verifies."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await _journaled_run(hub, coordinator, admin, end=True)
        later = await call(
            coordinator,
            "RecordJournal",
            _entry(run.id, E.JOURNAL_CATEGORY_LESSON, "afterwards", evidence=["the cancel"]),
        )
        grown = await _verdict(coordinator, run.id)
        await hub.server.store.write(
            lambda tx: tx.journal._conn.execute(  # type: ignore[attr-defined]
                "DELETE FROM workflow_journal WHERE run_id = ? AND sequence >= ?",
                (run.id, later.record.sequence - 1),
            )
        )
        cut = await _verdict(coordinator, run.id)

    assert (grown.intact, grown.held_to_retrospective, grown.verified_records) == (True, True, 5)
    assert (cut.intact, cut.problem, cut.breach_sequence) == (
        False,
        E.JournalVerdict.PROBLEM_TRUNCATED,
        later.record.sequence - 1,
    )


# -- access and idempotency ------------------------------------------------------------------------


async def test_only_the_coordinator_records_and_a_request_id_records_once(hub: Hub, make_agent: AgentFactory) -> None:
    """Another agent is refused (WORKFLOW_FORBIDDEN) and an operator too; the same request id
    returns the first entry (repeated) and a reused id for another request is ABORTED; a run
    not ended has no retrospective yet."""
    coordinator = await make_agent("coordinator")
    other = await make_agent("other")
    async with hub.admin() as admin:
        run = await start(admin, define("plain", stages=("build",)))
        request = _entry(run.id, E.JOURNAL_CATEGORY_PLAN, "go", request_id="rec-1")
        first = await call(coordinator, "RecordJournal", request)
        again = await call(coordinator, "RecordJournal", request)
        with pytest.raises(Aborted) as reused:
            await call(coordinator, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_PLAN, "no", request_id="rec-1"))
        with pytest.raises(PermissionDenied) as stranger:
            await call(other, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_PLAN, "go"))
        with pytest.raises(PermissionDenied) as operator:
            await call(admin, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_PLAN, "go"))
        with pytest.raises(FailedPrecondition) as not_ended:
            await call(coordinator, "ExportRetrospective", pb.ExportRetrospectiveRequest(run_id=run.id))
        found = await records(coordinator, run.id)

    assert (again.repeated, again.record.entry.id) == (True, first.record.entry.id)
    assert reused.value.reason is Reason.IDEMPOTENCY_CONFLICT
    assert stranger.value.reason is Reason.WORKFLOW_FORBIDDEN
    assert operator.value.reason is Reason.CREDENTIAL_KIND_DENIED  # the contract's access: an agent
    assert not_ended.value.reason is Reason.WORKFLOW_NOT_ENDED
    assert [r.entry.summary for r in found] == ["go"]


async def test_an_ended_runs_head_is_sealed_so_dropping_or_editing_it_is_found(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """The retrospective's head carries its own HMAC: editing its sequence (to hide records cut from
    the end) or deleting the row, for a run that ended with records, is HEAD_UNVERIFIED."""
    coordinator = await make_agent("coordinator")
    verdicts = []
    async with hub.admin() as admin:
        for change in (
            "UPDATE workflow_retrospectives SET document = replace(document, '\"headSequence\":3', "
            "'\"headSequence\":2') WHERE run_id = ?",
            "DELETE FROM workflow_retrospectives WHERE run_id = ?",
        ):
            run = await _journaled_run(hub, coordinator, admin, end=True)
            await hub.server.store.write(
                lambda tx, sql=change, run_id=run.id: tx.journal._conn.execute(sql, (run_id,))  # type: ignore[attr-defined]
            )
            verdicts.append(await _verdict(coordinator, run.id))

    assert [(v.intact, v.problem, v.held_to_retrospective, v.verified_records) for v in verdicts] == [
        (False, E.JournalVerdict.PROBLEM_HEAD_UNVERIFIED, False, 4),
        (False, E.JournalVerdict.PROBLEM_HEAD_UNVERIFIED, False, 4),
    ]


async def test_pages_and_retrospectives_stay_within_the_answer_limit(hub: Hub, make_agent: AgentFactory) -> None:
    """Entries at their limits (8,000 details, 32 evidence strings of 1,000): a ListJournal page ends
    before 2 MiB (the next page goes on), and the retrospective leaves the oldest entries out to
    stay within 768 KiB, counting them."""
    coordinator = await make_agent("coordinator")
    big = {"details": "d" * 8_000, "evidence": [f"{i:02d}" + "z" * 998 for i in range(32)]}  # not hex: kept
    async with hub.admin() as admin:
        run = await start(admin, define("plain", stages=("build",)))
        for index in range(60):
            await call(coordinator, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_OBSERVATION, f"n{index}", **big))
        first = await call(coordinator, "ListJournal", pb.ListJournalRequest(run_id=run.id))
        everything = await records(coordinator, run.id)
        await admin.workflows.cancel_run(run.id, reason="done")
        exported = await call(coordinator, "ExportRetrospective", pb.ExportRetrospectiveRequest(run_id=run.id))

    assert 0 < len(first.records) < 60 and first.ByteSize() <= 2 * 1024 * 1024 + 100_000 and first.next_page_token
    assert len(everything) == 60
    retrospective = exported.retrospective
    kept = [e.summary for e in retrospective.entries]
    # The 60 and the hub's cancellation entry, the oldest left out.
    assert retrospective.omitted_entries > 0 and len(kept) + retrospective.omitted_entries == 61
    assert (retrospective.entries[-1].author, kept[-2]) == ("hub", "n59")
    assert len(exported.json.encode()) <= 768 * 1024


async def test_a_record_that_no_longer_decodes_never_stops_the_run(hub: Hub, make_agent: AgentFactory) -> None:
    """The journal's last record made undecodable in the database: the next entry still appends
    (the head is read without its record), the run still ends (no retrospective is written), and
    VerifyJournal and ExportRetrospective refuse with DATA_LOSS naming the record."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await _journaled_run(hub, coordinator, admin, end=False)
        await hub.server.store.write(
            lambda tx: tx.journal._conn.execute(  # type: ignore[attr-defined]
                "UPDATE workflow_journal SET record = '{' WHERE run_id = ? AND sequence = 2", (run.id,)
            )
        )
        after = await call(coordinator, "RecordJournal", _entry(run.id, E.JOURNAL_CATEGORY_PLAN, "still"))
        cancelled = (await admin.workflows.cancel_run(run.id, reason="done")).run
        with pytest.raises(DataLoss) as verify:
            await _verdict(coordinator, run.id)
        with pytest.raises(DataLoss) as export:
            await call(coordinator, "ExportRetrospective", pb.ExportRetrospectiveRequest(run_id=run.id))

    assert after.record.sequence == 3
    assert cancelled.status == WorkflowRunStatus.WORKFLOW_RUN_STATUS_CANCELLED
    assert verify.value.reason is export.value.reason is Reason.STORAGE_CORRUPTED
    assert verify.value.metadata == {"runId": run.id, "sequence": "2"}


async def test_control_characters_in_ids_are_refused_before_any_lookup(hub: Hub, make_agent: AgentFactory) -> None:
    """A NUL in a related entry id or in the report's project is INVALID_ARGUMENT naming the field,
    on PostgreSQL too (whose driver would refuse it as a storage error)."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await start(admin, define("plain", stages=("build",)))
        with pytest.raises(InvalidArgument) as related:
            await call(
                coordinator,
                "RecordJournal",
                _entry(run.id, E.JOURNAL_CATEGORY_DECISION, "x", related_entry_ids=["journal_\x00"]),
            )
        with pytest.raises(InvalidArgument) as project:
            await call(admin, "GetImprovementReport", pb.GetImprovementReportRequest(project="al\x00pha"))

    assert (related.value.reason, related.value.metadata["field"]) == (
        Reason.INVALID_JOURNAL_RELATION,
        "related_entry_ids[0]",
    )
    assert project.value.metadata["field"] == "project"
