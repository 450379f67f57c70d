"""WorkflowService's journal RPCs: record, list, promote, report, export and verify.

Converts proto ↔ the journal's values only; the rules live in
``kxm_grpc.services.workflows.journal``. Categories, areas, severities and promotion statuses are
enums outside and their spec names inside (``skill-candidate``); the retrospective is the JSON
document the hub wrote, parsed into its message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from google.protobuf import json_format

from kxm_grpc._gen.kxm.v1 import workflow_journal_pb2 as jpb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.workflows.definitions import IMPROVEMENT_AREAS
from kxm_grpc.domain.workflows.engine.candidates import StepGroup
from kxm_grpc.domain.workflows.journal import (
    Category,
    EntryDraft,
    JournalEntry,
    Promotion,
    PromotionStatus,
    Severity,
)
from kxm_grpc.domain.workflows.journal_chain import ChainLink, Problem, Verdict
from kxm_grpc.domain.workflows.redaction import redact, redact_all
from kxm_grpc.domain.workflows.reports import AreaReport, ImprovementSignal, ReportEntry
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import check_timestamp, timestamp
from kxm_grpc.server.state import HubState
from kxm_grpc.services.workflows import journal, step_candidates

Context = grpc.aio.ServicerContext[Any, Any]

_CATEGORY = {category: getattr(jpb, f"JOURNAL_CATEGORY_{category.name}") for category in Category}
_CATEGORY_NAME = {value: key.value for key, value in _CATEGORY.items()}
_SEVERITY = {severity: getattr(jpb, f"JOURNAL_SEVERITY_{severity.name}") for severity in Severity}
_SEVERITY_NAME = {value: key.value for key, value in _SEVERITY.items()}
_AREA = {name: getattr(jpb, f"IMPROVEMENT_AREA_{name.upper()}") for name in IMPROVEMENT_AREAS}
_AREA_NAME = {value: key for key, value in _AREA.items()}
_PROMOTION = {status: getattr(jpb, f"PROMOTION_STATUS_{status.name}") for status in PromotionStatus}
_PROMOTION_NAME = {value: key.value for key, value in _PROMOTION.items()}
_PROBLEM = {problem: getattr(jpb.JournalVerdict, f"PROBLEM_{problem.name}") for problem in Problem}


def _named(names: Mapping[int, str], value: int) -> str:
    """An enum value's spec name; UNSPECIFIED is empty (the rules then default or refuse it), an
    unknown number a name no rule accepts, so the rules refuse it naming the field."""
    return names.get(value, "" if value == 0 else f"#{value}")


def entry_to_proto(entry: JournalEntry, status: PromotionStatus | None = None) -> jpb.JournalEntry:
    """An entry as the contract shows it, with its promotion status (for a promotable one)."""
    proto = jpb.JournalEntry(
        id=entry.id,
        run_id=entry.run_id,
        author=entry.author,
        category=_CATEGORY[entry.category],
        area=_AREA.get(entry.area, 0),
        severity=_SEVERITY[entry.severity],
        summary=entry.summary,
        details=entry.details,
        evidence=entry.evidence,
        related_entry_ids=entry.related_entry_ids,
        stage_id=entry.stage_id or "",
        create_time=timestamp(entry.create_time),
    )
    if entry.attempt is not None:
        proto.attempt = entry.attempt
    if entry.category.promotable:
        proto.promotion_status = _PROMOTION[status or PromotionStatus.PROPOSED]
    return proto


def _report_entry_to_proto(entry: ReportEntry) -> jpb.JournalEntry:
    """A report's priority entry, its texts redacted: the report goes to every caller of the
    project, who may not read the entry's run (as the signals and the retrospective are)."""
    shown = JournalEntry(
        id=entry.id,
        run_id=entry.run_id,
        author=entry.author,
        category=Category(entry.category),
        area=entry.area,
        severity=Severity(entry.severity),
        summary=redact(entry.summary),
        create_time=entry.create_time,
        evidence=redact_all(entry.evidence),
        related_entry_ids=entry.related_entry_ids,
        stage_id=entry.stage_id,
        attempt=entry.attempt,
    )
    state = PromotionStatus(entry.promotion_state) if entry.promotion_state else None
    return entry_to_proto(shown, state)


def record_to_proto(link: ChainLink, states: Mapping[str, PromotionStatus]) -> jpb.JournalRecord:
    """A sealed record (entry or promotion) with its position and chain."""
    proto = jpb.JournalRecord(sequence=link.sequence, key_id=link.key_id, chain=link.chain)
    item = link.record
    if isinstance(item, JournalEntry):
        proto.entry.CopyFrom(entry_to_proto(item, states.get(item.id)))
    else:
        proto.promotion.CopyFrom(_promotion_to_proto(item))
    return proto


def _promotion_to_proto(item: Promotion) -> jpb.JournalPromotion:
    return jpb.JournalPromotion(
        id=item.id,
        run_id=item.run_id,
        entry_id=item.entry_id,
        from_status=_PROMOTION[item.from_status],
        to_status=_PROMOTION[item.to_status],
        evidence_refs=item.evidence_refs,
        decided_by=item.decided_by,
        reason=item.reason,
        decide_time=timestamp(item.decide_time),
    )


def _area_to_proto(report: AreaReport) -> jpb.AreaReport:
    return jpb.AreaReport(
        area=_AREA[report.area],
        total=report.total,
        errors=report.errors,
        contradictions=report.contradictions,
        lessons=report.lessons,
        priorities=[_report_entry_to_proto(entry) for entry in report.priorities],
    )


def _signal_to_proto(signal: ImprovementSignal) -> jpb.ImprovementSignal:
    proto = jpb.ImprovementSignal(
        key=signal.key,
        basis=signal.basis,
        category=_CATEGORY[Category(signal.category)],
        area=_AREA.get(signal.area, 0),
        security=signal.override_tier is not None,
        frequency=signal.frequency,
        run_ids=signal.run_ids,
        entry_ids=signal.entry_ids,
        severity=_SEVERITY[Severity(signal.severity)],
        severity_weight=signal.severity_weight,
        cost_basis=signal.cost_basis,
        confidence=signal.confidence,
        priority=signal.priority,
        summary=signal.summary,
    )
    if signal.workflow_cost is not None:
        proto.workflow_cost = signal.workflow_cost
    return proto


def verdict_to_proto(verdict: Verdict, *, held: bool) -> jpb.JournalVerdict:
    """A verification's verdict (``held``: the journal was held to the retrospective's head)."""
    proto = jpb.JournalVerdict(
        run_id=verdict.run_id,
        intact=verdict.intact,
        verified_records=verdict.verified,
        head_sequence=verdict.head.sequence if verdict.head is not None else -1,
        head_chain=verdict.head.chain if verdict.head is not None else "",
        key_ids=verdict.key_ids,
        held_to_retrospective=held,
    )
    if verdict.breach is not None:
        proto.problem = _PROBLEM[verdict.breach.problem]
        proto.breach_sequence = verdict.breach.position
        proto.breach_record_id = verdict.breach.record_id or ""
        proto.breach_key_id = verdict.breach.key_id or ""
    return proto


class JournalMethods:
    """WorkflowService's journal RPCs (``WorkflowServicer`` inherits them)."""

    _hub: HubState

    async def RecordJournal(self, request: pb.RecordJournalRequest, context: Context) -> pb.RecordJournalResponse:
        draft = EntryDraft(
            category=_named(_CATEGORY_NAME, request.category),
            summary=request.summary,
            area=_named(_AREA_NAME, request.area),
            severity=_named(_SEVERITY_NAME, request.severity),
            details=request.details,
            evidence=tuple(request.evidence),
            related_entry_ids=tuple(request.related_entry_ids),
            stage_id=request.stage_id,
        )
        recorded = await journal.record(
            self._hub.store,
            current_call().caller,
            request.run_id,
            draft,
            request_id=request.request_id,
            now=self._hub.now(),
        )
        return pb.RecordJournalResponse(record=record_to_proto(recorded.link, {}), repeated=recorded.repeated)

    async def ListJournal(self, request: pb.ListJournalRequest, context: Context) -> pb.ListJournalResponse:
        page = await journal.list_journal(
            self._hub.store, current_call().caller, request.run_id, size=request.page_size, token=request.page_token
        )
        return pb.ListJournalResponse(
            records=[record_to_proto(link, page.states) for link in page.links], next_page_token=page.next_page_token
        )

    async def PromoteJournalEntry(
        self, request: pb.PromoteJournalEntryRequest, context: Context
    ) -> pb.PromoteJournalEntryResponse:
        promoted = await journal.promote(
            self._hub.store,
            current_call().caller,
            request.entry_id,
            to=_named(_PROMOTION_NAME, request.to),
            evidence_refs=tuple(request.evidence_refs),
            reason=request.reason,
            now=self._hub.now(),
        )
        decision = promoted.link.record
        assert isinstance(decision, Promotion)
        return pb.PromoteJournalEntryResponse(
            record=record_to_proto(promoted.link, {}), entry=entry_to_proto(promoted.entry, decision.to_status)
        )

    async def GetImprovementReport(
        self, request: pb.GetImprovementReportRequest, context: Context
    ) -> pb.GetImprovementReportResponse:
        since = None
        if request.HasField("since"):
            check_timestamp("since", request.since)
            since = request.since.seconds * MICROS + request.since.nanos // 1000
        report = await journal.improvement_report(
            self._hub.store,
            current_call().caller,
            project=request.project,
            since=since,
            max_entries=request.max_entries,
            signal_limit=request.signal_limit,
        )
        groups, more_runs = await step_candidates.step_groups(
            self._hub.store, journal.report_project(current_call().caller, request.project), since=since
        )
        return pb.GetImprovementReportResponse(
            areas=[_area_to_proto(area) for area in report.areas],
            signals=[_signal_to_proto(signal) for signal in report.signals],
            entries=report.entries,
            truncated=report.truncated,
            step_groups=[_group_to_proto(group) for group in groups],
            step_runs_truncated=more_runs,
        )

    async def ExportRetrospective(
        self, request: pb.ExportRetrospectiveRequest, context: Context
    ) -> pb.ExportRetrospectiveResponse:
        exported = await journal.export_retrospective(
            self._hub.store, current_call().caller, request.run_id, now=self._hub.now()
        )
        message = json_format.ParseDict(
            dict(exported.document), jpb.WorkflowRetrospective(), ignore_unknown_fields=True
        )
        return pb.ExportRetrospectiveResponse(retrospective=message, json=exported.json, markdown=exported.markdown)

    async def VerifyJournal(self, request: pb.VerifyJournalRequest, context: Context) -> pb.VerifyJournalResponse:
        checked = await journal.verify(self._hub.store, current_call().caller, request.run_id)
        return pb.VerifyJournalResponse(verdict=verdict_to_proto(checked.verdict, held=checked.held))


def _group_to_proto(group: StepGroup) -> pb.StepImprovementGroup:
    return pb.StepImprovementGroup(
        id=group.id,
        workflow_id=group.workflow_id,
        plan_hash=group.plan_hash,
        step_id=group.step_id,
        role=group.role,
        runs=group.runs,
        pass_rate=group.pass_rate,
        mean_cost_usd=group.mean_cost_usd or 0.0,
        cost_reported=group.mean_cost_usd is not None,
        mean_duration_ms=group.mean_duration_ms,
        rework=group.rework,
        candidate=group.candidate,
        exclusion=group.exclusion,
        evidence_refs=list(group.evidence_refs),
    )
