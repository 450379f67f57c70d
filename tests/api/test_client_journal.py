"""``hub.workflows.journal`` against a real hub: every journal method, async and blocking.

The coordinator (the agent the definition's ``target`` names) records entries on its run and
reads them back page by page; an operator (the admin token) promotes the promotable ones; the
project's improvement report is read by both; a run that ends (``cancel_run``) has a
retrospective to export, and its journal verifies intact. Enums are given as the proto values and
as their spec names. None of these calls reaches a deprecated flat name.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import re
from typing import Any

import pytest
from google.protobuf import timestamp_pb2

from kxm_grpc import FailedPrecondition, InvalidArgument, PermissionDenied, Reason
from kxm_grpc._gen.kxm.v1 import workflow_journal_pb2 as jpb
from kxm_grpc.client import HubClient, SyncHubClient
from kxm_grpc.client.journal import (
    WorkflowJournal,
    improvement_area,
    journal_category,
    journal_severity,
    promotion_decision,
    timestamp,
)
from kxm_grpc.client.retries import NOT_RETRIED, RETRIED_WRITES, retried_methods
from kxm_grpc.client.sync import SyncWorkflowJournal
from kxm_grpc.client.workflows import REQUEST_ID_PREFIX
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project
from tests.workflows import define

pytestmark = pytest.mark.filterwarnings("error::DeprecationWarning")

ENTRY, PROMOTION = "entry", "promotion"


def staged() -> dict[str, Any]:
    """``plain``: ``build`` (area implementation) then ``ship`` (no area), coordinated by ``coordinator``."""
    document = define("plain", stages=("build", "ship"))
    document["stages"][0]["area"] = "implementation"
    return document


def kinds(records: list[Any]) -> list[tuple[int, str, str]]:
    """(sequence, entry or promotion, id) of each record."""
    return [(r.sequence, r.WhichOneof("record"), getattr(r, r.WhichOneof("record")).id) for r in records]


async def test_record_list_and_records(hub: Hub, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """record by name and by enum (the stage's area and attempt for a stage-bound entry, info by
    default), once under a repeated request id, a request id made per call otherwise; list pages in
    sequence order; records reads every page; a lesson without evidence and another agent are refused."""
    coordinator = await make_agent("coordinator")
    other = await make_agent("other")
    requests: list[Any] = []
    real_call = coordinator._call

    async def spying(method: Any, request: Any, timeout: Any = None, metadata: Any = None) -> Any:
        requests.append(request)
        return await real_call(method, request, timeout, metadata)

    monkeypatch.setattr(coordinator, "_call", spying)
    journal = coordinator.workflows.journal
    async with hub.admin() as admin:
        await admin.workflows.register_definition(staged())
        run = (await admin.workflows.start_run("plain", delivery_id="d-1")).run
        plan = (await journal.record(run.id, "plan", "fix the parser first", area="workflow")).record
        contradiction = (
            await journal.record(
                run.id,
                jpb.JOURNAL_CATEGORY_CONTRADICTION,
                "the spec and the tests disagree",
                area=jpb.IMPROVEMENT_AREA_GATES,
                severity=jpb.JOURNAL_SEVERITY_WARNING,
                details="spec §3 says 2, the test says 3",
            )
        ).record
        lesson = await journal.record(
            run.id,
            "LESSON",
            "read the spec before the tests",
            severity="Error",
            evidence="class:spec_drift",
            related_entry_ids=contradiction.entry.id,
            stage_id="build",
            request_id="rec-1",
        )
        again = await journal.record(
            run.id,
            "lesson",
            "read the spec before the tests",
            severity="error",
            evidence=["class:spec_drift"],
            related_entry_ids=[contradiction.entry.id],
            stage_id="build",
            request_id="rec-1",
        )
        skill = (
            await journal.record(
                run.id,
                "skill-candidate",
                "diff the spec's tables against the tests",
                area="IMPROVEMENT_AREA_HARNESS",
                evidence=["caught 2 drifts", "class:spec_drift"],
            )
        ).record
        first = await journal.list(run.id, page_size=3)
        rest = await journal.list(run.id, page_token=first.next_page_token)
        everything = [record async for record in journal.records(run.id, page_size=2)]
        read_by_admin = [record async for record in admin.workflows.journal.records(run.id)]
        with pytest.raises(InvalidArgument) as no_evidence:
            await journal.record(run.id, "lesson", "no proof", area="gates")
        with pytest.raises(PermissionDenied) as stranger:
            await other.workflows.journal.record(run.id, "plan", "mine now", area="workflow")
        with pytest.raises(PermissionDenied) as not_listed:
            await other.workflows.journal.list(run.id)

    assert (plan.sequence, plan.entry.run_id, plan.entry.author) == (0, run.id, coordinator.agent_id)
    assert (plan.entry.category, plan.entry.area, plan.entry.severity) == (
        jpb.JOURNAL_CATEGORY_PLAN,
        jpb.IMPROVEMENT_AREA_WORKFLOW,
        jpb.JOURNAL_SEVERITY_INFO,
    )
    assert (plan.entry.summary, plan.entry.stage_id, plan.entry.HasField("attempt")) == (
        "fix the parser first",
        "",
        False,
    )
    assert plan.entry.promotion_status == jpb.PROMOTION_STATUS_UNSPECIFIED
    assert len(plan.chain) == 64 and plan.key_id
    assert (contradiction.sequence, contradiction.entry.details) == (1, "spec §3 says 2, the test says 3")
    assert (contradiction.entry.area, contradiction.entry.severity) == (
        jpb.IMPROVEMENT_AREA_GATES,
        jpb.JOURNAL_SEVERITY_WARNING,
    )
    learnt = lesson.record.entry
    assert (lesson.record.sequence, lesson.repeated, learnt.category) == (2, False, jpb.JOURNAL_CATEGORY_LESSON)
    assert (learnt.area, learnt.severity, learnt.stage_id, learnt.attempt) == (
        jpb.IMPROVEMENT_AREA_IMPLEMENTATION,  # the stage's declared area
        jpb.JOURNAL_SEVERITY_ERROR,
        "build",
        1,
    )
    assert (list(learnt.evidence), list(learnt.related_entry_ids)) == (["class:spec_drift"], [contradiction.entry.id])
    assert (again.repeated, again.record.entry.id, again.record.sequence) == (True, learnt.id, 2)
    assert (skill.sequence, skill.entry.category, skill.entry.area) == (
        3,
        jpb.JOURNAL_CATEGORY_SKILL_CANDIDATE,
        jpb.IMPROVEMENT_AREA_HARNESS,
    )
    assert skill.entry.promotion_status == jpb.PROMOTION_STATUS_PROPOSED
    ids = [plan.entry.id, contradiction.entry.id, learnt.id, skill.entry.id]
    assert kinds(list(first.records)) == [(i, ENTRY, ids[i]) for i in range(3)] and first.next_page_token
    assert kinds(list(rest.records)) == [(3, ENTRY, ids[3])] and rest.next_page_token == ""
    assert kinds(everything) == kinds(read_by_admin) == [(i, ENTRY, ids[i]) for i in range(4)]
    assert [r.chain for r in everything] == [plan.chain, contradiction.chain, lesson.record.chain, skill.chain]
    assert no_evidence.value.reason is Reason.JOURNAL_EVIDENCE_REQUIRED
    assert stranger.value.reason is Reason.WORKFLOW_FORBIDDEN
    assert not_listed.value.reason is Reason.WORKFLOW_FORBIDDEN
    recorded = [r.request_id for r in requests if type(r).__name__ == "RecordJournalRequest"]
    made = [r for r in recorded if r != "rec-1"]
    assert recorded[2:4] == ["rec-1", "rec-1"] and len(made) == len(recorded) - 2 == 4
    assert all(r.startswith(REQUEST_ID_PREFIX) and len(r) == len(REQUEST_ID_PREFIX) + 32 for r in made)
    assert len(set(made)) == 4


async def test_promote_report_export_and_verify(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    """An operator approves a skill candidate (by name, one evidence ref as a str) and quarantines a
    hypothesis (by enum); a second decision, an agent's and a plan's are refused; the report reads
    the project's entries (the operator names the project); a run not ended has no retrospective,
    a cancelled one has, holding the journal's head; verify says intact, held to it."""
    coordinator = await make_agent("coordinator")
    journal = coordinator.workflows.journal
    async with hub.admin() as admin, HubClient(hub.address, token=project.token) as reader:
        await admin.workflows.register_definition(staged())
        run = (await admin.workflows.start_run("plain", delivery_id="d-1")).run
        skill = (
            await journal.record(
                run.id, "skill-candidate", "cache the build", area="harness", evidence=["ci 40% faster"]
            )
        ).record.entry
        hypothesis = (await journal.record(run.id, "hypothesis", "the flake is a race", area="gates")).record.entry
        error = (
            await journal.record(
                run.id,
                "error",
                "the build timed out",
                area="harness",
                severity="error",
                evidence=["class:build_timeout"],
                stage_id="build",
            )
        ).record.entry
        plan = (await journal.record(run.id, "plan", "retry the build", area="workflow")).record.entry
        approved = await admin.workflows.journal.promote(
            skill.id, "approved", evidence_refs="bench-3", reason="measured"
        )
        quarantined = await admin.workflows.journal.promote(
            hypothesis.id, jpb.PROMOTION_STATUS_QUARANTINED, evidence_refs=["ci-run-7", "ci-run-8"]
        )
        with pytest.raises(InvalidArgument) as decided:
            await admin.workflows.journal.promote(skill.id, "rejected", evidence_refs=["late"])
        with pytest.raises(InvalidArgument) as not_promotable:
            await admin.workflows.journal.promote(plan.id, "approved", evidence_refs=["x"])
        with pytest.raises(PermissionDenied) as by_agent:
            await journal.promote(hypothesis.id, "rejected", evidence_refs=["x"])
        journaled = [record async for record in journal.records(run.id)]
        by_operator = await admin.workflows.journal.report(project="alpha")
        by_coordinator = await journal.report()
        by_project = await reader.workflows.journal.report(signal_limit=1, max_entries=2)
        future = await reader.workflows.journal.report(since=datetime.datetime(2999, 1, 1, tzinfo=datetime.UTC))
        with pytest.raises(InvalidArgument) as no_project:
            await admin.workflows.journal.report()
        with pytest.raises(FailedPrecondition) as not_ended:
            await journal.export(run.id)
        running = await journal.verify(run.id)
        await admin.workflows.cancel_run(run.id, reason="done for now")
        exported = await reader.workflows.journal.export(run.id)
        ended = await journal.verify(run.id)
        journaled_at_end = [record async for record in reader.workflows.journal.records(run.id)]

    decision = approved.record.promotion
    assert (approved.record.sequence, decision.entry_id, decision.run_id) == (4, skill.id, run.id)
    assert (decision.from_status, decision.to_status) == (jpb.PROMOTION_STATUS_PROPOSED, jpb.PROMOTION_STATUS_APPROVED)
    assert (list(decision.evidence_refs), decision.decided_by, decision.reason) == (["bench-3"], "admin", "measured")
    assert (approved.entry.id, approved.entry.promotion_status) == (skill.id, jpb.PROMOTION_STATUS_APPROVED)
    assert quarantined.record.sequence == 5
    assert quarantined.record.promotion.to_status == jpb.PROMOTION_STATUS_QUARANTINED
    assert list(quarantined.record.promotion.evidence_refs) == ["ci-run-7", "ci-run-8"]
    assert decided.value.reason is Reason.JOURNAL_PROMOTION_INVALID and decided.value.metadata["status"] == "approved"
    assert not_promotable.value.reason is Reason.JOURNAL_PROMOTION_INVALID
    assert by_agent.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert kinds(journaled) == [
        (0, ENTRY, skill.id),
        (1, ENTRY, hypothesis.id),
        (2, ENTRY, error.id),
        (3, ENTRY, plan.id),
        (4, PROMOTION, decision.id),
        (5, PROMOTION, quarantined.record.promotion.id),
    ]
    assert [r.entry.promotion_status for r in journaled[:4]] == [
        jpb.PROMOTION_STATUS_APPROVED,
        jpb.PROMOTION_STATUS_QUARANTINED,
        jpb.PROMOTION_STATUS_UNSPECIFIED,
        jpb.PROMOTION_STATUS_UNSPECIFIED,
    ]

    assert by_operator == by_coordinator
    assert (by_operator.entries, by_operator.truncated) == (4, False)
    assert [a.area for a in by_operator.areas] == [
        jpb.IMPROVEMENT_AREA_HARNESS,
        jpb.IMPROVEMENT_AREA_GATES,
        jpb.IMPROVEMENT_AREA_WORKFLOW,
    ]
    harness = by_operator.areas[0]
    assert (harness.total, harness.errors, harness.contradictions, harness.lessons) == (2, 1, 0, 0)
    assert [p.id for p in harness.priorities] == [error.id, skill.id]
    assert [a.total for a in by_operator.areas[1:]] == [1, 1]
    # The approved skill candidate is no signal any more: only the error's class is.
    assert [s.key for s in by_operator.signals] == ["error|class:build_timeout"]
    top = by_operator.signals[0]
    assert (top.basis, top.category, top.area, top.frequency, list(top.run_ids), list(top.entry_ids)) == (
        "class",
        jpb.JOURNAL_CATEGORY_ERROR,
        jpb.IMPROVEMENT_AREA_HARNESS,
        1,
        [run.id],
        [error.id],
    )
    assert (top.severity, top.severity_weight, top.security, top.summary) == (
        jpb.JOURNAL_SEVERITY_ERROR,
        3,
        False,
        "the build timed out",
    )
    # 1 run × weight 3 × cost 1 (no attempt consumed yet) × confidence 1 (every entry has evidence).
    assert (top.workflow_cost, top.cost_basis, top.confidence, top.priority) == (1.0, "run-attempts", 1.0, 3.0)
    assert (by_project.entries, by_project.truncated, len(by_project.signals)) == (2, True, 1)
    assert (future.entries, list(future.areas), list(future.signals)) == (0, [], [])
    assert no_project.value.reason is Reason.PROTOCOL_ERROR

    assert not_ended.value.reason is Reason.WORKFLOW_NOT_ENDED
    assert (running.verdict.run_id, running.verdict.intact, running.verdict.verified_records) == (run.id, True, 6)
    assert (running.verdict.head_sequence, running.verdict.head_chain) == (5, journaled[-1].chain)
    assert (running.verdict.problem, running.verdict.held_to_retrospective) == (
        jpb.JournalVerdict.PROBLEM_UNSPECIFIED,
        False,
    )
    assert list(running.verdict.key_ids) == [journaled[0].key_id]

    retrospective = exported.retrospective
    assert (retrospective.schema, retrospective.run_id, retrospective.definition_id) == (
        "kxm.retrospective.v1",
        run.id,
        "plain",
    )
    assert (retrospective.status, retrospective.end_reason, retrospective.review_decision) == (
        "cancelled",
        "done for now",
        "proposed",
    )
    # The cancel added the hub's entry; the journal's head is that entry's.
    (cancel,) = [r for r in journaled_at_end if r.WhichOneof("record") == ENTRY and r.entry.author == "hub"]
    assert kinds(journaled_at_end) == [*kinds(journaled), (6, ENTRY, cancel.entry.id)]
    assert [e.id for e in retrospective.entries] == [skill.id, hypothesis.id, error.id, plan.id, cancel.entry.id]
    assert [e.promotion_state for e in retrospective.entries[:2]] == ["approved", "quarantined"]
    assert (retrospective.journal.records, retrospective.journal.head_sequence, retrospective.journal.head_chain) == (
        7,
        6,
        cancel.chain,
    )
    assert json.loads(exported.json)["runId"] == run.id and exported.json.startswith('{"schema":"kxm.retrospective.v1"')
    assert exported.markdown.startswith(f"# Workflow retrospective {run.id}\n")
    assert (ended.verdict.intact, ended.verdict.verified_records, ended.verdict.head_sequence) == (True, 7, 6)
    assert (ended.verdict.head_chain, ended.verdict.held_to_retrospective) == (cancel.chain, True)


def test_names_and_times() -> None:
    """The enums or their spec names, any case, ``-`` or ``_``, with or without the prefix; anything
    else is a ValueError before a call is made."""
    assert journal_category("skill-candidate") == jpb.JOURNAL_CATEGORY_SKILL_CANDIDATE
    assert journal_category("STATE_CHANGE") == jpb.JOURNAL_CATEGORY_STATE_CHANGE
    assert journal_category(" journal_category_lesson ") == jpb.JOURNAL_CATEGORY_LESSON
    assert journal_category(jpb.JOURNAL_CATEGORY_PLAN) == jpb.JOURNAL_CATEGORY_PLAN
    assert improvement_area(None) == jpb.IMPROVEMENT_AREA_UNSPECIFIED
    assert improvement_area("Gates") == jpb.IMPROVEMENT_AREA_GATES
    assert improvement_area("IMPROVEMENT_AREA_SECURITY") == jpb.IMPROVEMENT_AREA_SECURITY
    assert journal_severity(None) == jpb.JOURNAL_SEVERITY_UNSPECIFIED
    assert journal_severity("warning") == jpb.JOURNAL_SEVERITY_WARNING
    assert promotion_decision("approved") == jpb.PROMOTION_STATUS_APPROVED
    assert promotion_decision("PROMOTION_STATUS_QUARANTINED") == jpb.PROMOTION_STATUS_QUARANTINED
    assert promotion_decision(jpb.PROMOTION_STATUS_REJECTED) == jpb.PROMOTION_STATUS_REJECTED
    categories = "plan, decision, contradiction, error, lesson, observation, hypothesis, experiment, state-change"
    with pytest.raises(
        ValueError, match=re.escape(f"category must be one of {categories}, skill-candidate, not 'idea'")
    ):
        journal_category("idea")
    areas = "harness, gates, implementation, workflow, documentation, security, other"
    with pytest.raises(ValueError, match=re.escape(f"area must be one of {areas}, not 'unspecified'")):
        improvement_area("unspecified")
    with pytest.raises(ValueError, match="severity must be one of info, warning, error, not 'fatal'"):
        journal_severity("fatal")
    with pytest.raises(ValueError, match="to must be one of approved, rejected, quarantined, not 'proposed'"):
        promotion_decision("proposed")
    expected = timestamp_pb2.Timestamp(seconds=1_738_324_800)
    assert timestamp("2025-01-31T12:00:00Z") == expected
    assert timestamp(datetime.datetime(2025, 1, 31, 12, 0)) == expected  # naive: UTC
    tz = datetime.timezone(datetime.timedelta(hours=2))
    assert timestamp(datetime.datetime(2025, 1, 31, 14, 0, tzinfo=tz)) == expected
    assert timestamp(expected) is expected
    with pytest.raises(ValueError, match="since must be an RFC 3339 time"):
        timestamp("yesterday")


def test_the_retry_policy_of_the_journal_rpcs() -> None:
    """The reads are retried; RecordJournal is (the client's request id makes a repeat the first
    entry); PromoteJournalEntry is not (a decided entry refuses a second decision)."""
    retried = set(retried_methods())
    service = "kxm.v1.WorkflowService/"
    reads = ("ListJournal", "GetImprovementReport", "ExportRetrospective", "VerifyJournal")

    assert {service + name for name in reads} <= retried
    assert service + "RecordJournal" in RETRIED_WRITES and service + "RecordJournal" in retried
    assert service + "PromoteJournalEntry" in NOT_RETRIED and service + "PromoteJournalEntry" not in retried


async def test_the_sync_journal_area(hub: Hub, project: Project) -> None:
    """SyncHubClient.workflows.journal: the same methods, blocking (``records`` a plain iterator)."""

    def blocking() -> dict[str, Any]:
        with (
            SyncHubClient(hub.address, token=ADMIN_TOKEN) as admin,
            SyncHubClient(hub.address, token=project.token) as coordinator,
        ):
            coordinator.agents.register("coordinator")
            admin.workflows.register_definition(staged())
            run = admin.workflows.start_run("plain", delivery_id="d-1").run
            journal = coordinator.workflows.journal
            plan = journal.record(run.id, "plan", "build then ship", area="workflow", request_id="s-1")
            again = journal.record(run.id, "plan", "build then ship", area="workflow", request_id="s-1")
            skill = journal.record(run.id, "skill-candidate", "pin the toolchain", stage_id="build", evidence="ci log")
            promoted = admin.workflows.journal.promote(skill.record.entry.id, "rejected", evidence_refs=["no gain"])
            page = journal.list(run.id, page_size=1)
            records = list(journal.records(run.id, page_size=2))
            report = journal.report(since="2000-01-01T00:00:00Z")
            admin.workflows.cancel_run(run.id)
            exported = journal.export(run.id)
            verified = journal.verify(run.id)
            return {
                "area": (type(coordinator.workflows.journal).__name__, type(journal._target).__name__),
                "plan": (
                    plan.record.sequence,
                    plan.repeated,
                    again.repeated,
                    again.record.entry.id == plan.record.entry.id,
                ),
                "skill": (skill.record.entry.area, skill.record.entry.attempt),
                "promoted": (promoted.record.sequence, promoted.entry.promotion_status),
                "page": ([r.sequence for r in page.records], bool(page.next_page_token)),
                "records": [(r.sequence, r.WhichOneof("record")) for r in records],
                "report": (report.entries, [a.area for a in report.areas]),
                "exported": (exported.retrospective.status, exported.retrospective.journal.records),
                "verified": (
                    verified.verdict.intact,
                    verified.verdict.verified_records,
                    verified.verdict.held_to_retrospective,
                ),
            }

    # On a thread: the hub serves on this test's event loop.
    result = await asyncio.to_thread(blocking)

    assert result == {
        "area": (SyncWorkflowJournal.__name__, WorkflowJournal.__name__),
        "plan": (0, False, True, True),
        "skill": (jpb.IMPROVEMENT_AREA_IMPLEMENTATION, 1),
        "promoted": (2, jpb.PROMOTION_STATUS_REJECTED),
        "page": ([0], True),
        "records": [(0, ENTRY), (1, ENTRY), (2, PROMOTION)],
        "report": (2, [jpb.IMPROVEMENT_AREA_IMPLEMENTATION, jpb.IMPROVEMENT_AREA_WORKFLOW]),
        "exported": ("cancelled", 4),
        "verified": (True, 4, True),
    }
