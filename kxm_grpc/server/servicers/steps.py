"""WorkflowService's step-run RPCs: the assignee's (next assignment, complete one), the operator's
(approve a step, recover a blocked run), a run's events, and the step-run view of GetWorkflowRun.

Converts proto ↔ the engine's values only; the rules live in ``kxm_grpc.services.workflows.step_runs``.
An envelope's content hash is ``sha256:`` over its deterministic serialization, the evidence
reference the run records.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import grpc
from google.protobuf import json_format, struct_pb2

from kxm_grpc._gen.kxm.v1 import envelopes_pb2, workflow_steps_pb2, workflow_types_pb2
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc.domain.context.assignments import handoff_id, handoff_intent
from kxm_grpc.domain.workflows.engine.machine import Recovery
from kxm_grpc.domain.workflows.engine.results import CheckReport, ReviewReport, Telemetry, WorkerReport
from kxm_grpc.domain.workflows.engine.state import (
    Handoff,
    InputFile,
    Member,
    MemberStatus,
    RunInputs,
    RunStatus,
    run_inputs,
)
from kxm_grpc.domain.workflows.runs import CheckpointStatus
from kxm_grpc.errors import invalid_field
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import check_timestamp, struct_json, timestamp
from kxm_grpc.server.convert_context import packet_to_proto
from kxm_grpc.server.state import HubState
from kxm_grpc.services import tokens
from kxm_grpc.services.context import assignments
from kxm_grpc.services.workflows import step_audit, step_runs, step_signals
from kxm_grpc.services.workflows.runs import delivery_id
from kxm_grpc.services.workflows.step_engine import EngineSettings, Loaded, decode_result
from kxm_grpc.store.protocols.step_runs import AssignmentState, StoredRunEvent

Context = grpc.aio.ServicerContext[Any, Any]

STEP_RUN_STATUS = {
    RunStatus.QUEUED: workflow_types_pb2.WORKFLOW_RUN_STATUS_QUEUED,
    RunStatus.RUNNING: workflow_types_pb2.WORKFLOW_RUN_STATUS_RUNNING,
    RunStatus.BLOCKED: workflow_types_pb2.WORKFLOW_RUN_STATUS_BLOCKED,
    RunStatus.COMPLETED: workflow_types_pb2.WORKFLOW_RUN_STATUS_COMPLETED,
    RunStatus.FAILED: workflow_types_pb2.WORKFLOW_RUN_STATUS_FAILED,
    RunStatus.CANCELLED: workflow_types_pb2.WORKFLOW_RUN_STATUS_CANCELLED,
}
_PHASE = {
    "assigning": workflow_steps_pb2.STEP_PHASE_ASSIGNING,
    "working": workflow_steps_pb2.STEP_PHASE_WORKING,
    "awaiting_approval": workflow_steps_pb2.STEP_PHASE_AWAITING_APPROVAL,
    "awaiting_signal": workflow_steps_pb2.STEP_PHASE_AWAITING_SIGNAL,
}
_MEMBER_STATE = {
    MemberStatus.OPEN: workflow_steps_pb2.ASSIGNMENT_STATE_OPEN,
    MemberStatus.COMPLETED: workflow_steps_pb2.ASSIGNMENT_STATE_COMPLETED,
    MemberStatus.EXPIRED: workflow_steps_pb2.ASSIGNMENT_STATE_EXPIRED,
    MemberStatus.SUPERSEDED: workflow_steps_pb2.ASSIGNMENT_STATE_SUPERSEDED,
    MemberStatus.CANCELLED: workflow_steps_pb2.ASSIGNMENT_STATE_CANCELLED,
}
_ASSIGNMENT_STATE = {
    AssignmentState.OPEN: workflow_steps_pb2.ASSIGNMENT_STATE_OPEN,
    AssignmentState.COMPLETED: workflow_steps_pb2.ASSIGNMENT_STATE_COMPLETED,
    AssignmentState.EXPIRED: workflow_steps_pb2.ASSIGNMENT_STATE_EXPIRED,
    AssignmentState.SUPERSEDED: workflow_steps_pb2.ASSIGNMENT_STATE_SUPERSEDED,
    AssignmentState.CANCELLED: workflow_steps_pb2.ASSIGNMENT_STATE_CANCELLED,
}
_RECOVERY = {
    pb.RECOVERY_ACTION_RETRY: Recovery.RETRY,
    pb.RECOVERY_ACTION_FAIL: Recovery.FAIL,
    pb.RECOVERY_ACTION_CANCEL: Recovery.CANCEL,
}


def content_hash(message: Any) -> str:
    """``sha256:`` over the message's deterministic serialization."""
    return "sha256:" + hashlib.sha256(message.SerializeToString(deterministic=True)).hexdigest()


def _member(member: Member) -> workflow_steps_pb2.StepAssignment:
    result = member.result
    view = workflow_steps_pb2.StepAssignment(
        id=member.id,
        step_id=member.step_id,
        step_attempt=member.step_attempt,
        index=member.index,
        agent_name=member.agent,
        agent_id=member.agent_id,
        role=member.role.value,
        state=_MEMBER_STATE[member.status],
        create_time=timestamp(member.create_time),
        expire_time=timestamp(member.deadline) if member.deadline is not None else None,
        end_time=timestamp(member.end_time) if member.end_time is not None else None,
        end_reason=member.end_reason,
    )
    if result is not None:
        view.outcome = result.outcome
        view.passed = result.passed
        view.content_hash = result.content_hash
        if result.cost_usd is not None:
            view.cost_usd = result.cost_usd
    return view


def step_run_to_proto(loaded: Loaded, *, with_handoff: bool = True) -> workflow_types_pb2.WorkflowRun:
    """A step run as the one run resource shows it (``kind`` steps, its state in ``steps``); a
    list's row leaves the handoff out (its summaries could make a page outgrow a message)."""
    run, stored, plan = loaded.run, loaded.stored, loaded.plan
    budget = plan.limits.max_transitions if plan.limits.max_transitions is not None else len(plan.steps)
    return workflow_types_pb2.WorkflowRun(
        id=run.id,
        kind=workflow_types_pb2.WORKFLOW_KIND_STEPS,
        definition_id=stored.definition_id,
        definition_hash=run.plan_hash,
        project=run.project,
        coordinator_name=plan.coordinator,
        status=STEP_RUN_STATUS[run.status],
        current_stage_id=run.current_step or "",
        create_time=timestamp(run.create_time),
        update_time=timestamp(run.update_time),
        end_time=timestamp(run.end_time) if run.end_time is not None else None,
        end_reason=run.end_reason,
        delivery_id=stored.start_request_id.partition("/")[2],
        steps=workflow_steps_pb2.StepRunState(
            current_step_id=run.current_step or "" if not run.status.ended else "",
            step_attempt=run.step_attempt,
            phase=_PHASE[run.phase.value],
            assignments=[_member(member) for member in run.members],
            attempts=dict(run.attempts),
            edge_uses=dict(run.edge_uses),
            transitions=run.transitions,
            transition_budget=budget,
            cost_usd=run.cost_usd,
            unmetered_results=run.unmetered,
            plan_value=run.plan_value or "",
            head_commit=run.head_commit or "",
            blocked_assignment_id=run.blocked_member or "",
            last_outcome=run.last_outcome or "",
            sequence=run.sequence,
            receipts=[_receipt(run.receipts[step.id]) for step in loaded.plan.steps if step.id in run.receipts],
            memory_revision=run.memory_revision,
            handoff=handoff_to_proto(run.id, run.handoff) if with_handoff and run.handoff is not None else None,
            skill_id=run.inputs.skill_id,
        ),
    )


def handoff_to_proto(run_id: str, handoff: Handoff, intent: str = "") -> workflow_steps_pb2.HandoffManifest:
    """A run's handoff as its manifest (``intent``: as an assignment's packet carries it)."""
    return workflow_steps_pb2.HandoffManifest(
        handoff_id=handoff_id(run_id, handoff),
        from_step_id=handoff.from_step,
        from_step_attempt=handoff.from_attempt,
        outcome=handoff.outcome,
        to_step_id=handoff.to_step,
        base_commit=handoff.base_commit,
        producers=[
            workflow_steps_pb2.HandoffProducer(
                assignment_id=p.assignment_id,
                agent_name=p.agent,
                role=p.role.value,
                outcome=p.outcome,
                passed=p.passed,
                counted=p.counted,
                why=p.why,
                summary=p.summary,
                blockers=p.blockers,
                artifacts=dict(p.artifacts),
                commit=p.commit,
                content_hash=p.content_hash,
                step_id=p.step_id,
                step_attempt=p.step_attempt,
            )
            for p in handoff.producers
        ],
        create_time=timestamp(handoff.create_time),
        intent=intent,
    )


def _receipt(kept: Any) -> envelopes_pb2.TerminalReceipt:
    """A kept receipt as its message (its status back to the enum's name)."""
    value = {**kept, "status": "TERMINAL_RECEIPT_STATUS_" + str(kept["status"]).upper()}
    return json_format.ParseDict(value, envelopes_pb2.TerminalReceipt())


def inputs_from_proto(request: workflow_steps_pb2.StepRunInputs) -> RunInputs:
    """A start's step run inputs.

    Raises:
        InvalidArgument: as ``engine.state.run_inputs``; a handoff number that is NaN or infinite.
    """
    handoff = ""
    if request.HasField("diagnostic_handoff"):
        document = struct_json(request.diagnostic_handoff, "inputs.diagnostic_handoff")
        try:  # it reaches assignees as a DiagnosticHandoff message: it must be one
            json_format.ParseDict(document, envelopes_pb2.DiagnosticHandoff())
        except json_format.ParseError as error:
            raise invalid_field(
                "inputs.diagnostic_handoff", f"is not a kxm.diagnostic-handoff.v1 envelope: {error}"
            ) from None
        handoff = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return run_inputs(
        repository=request.repository,
        base_commit=request.base_commit,
        files=tuple(InputFile(f.type, f.path, f.sha256) for f in request.files),
        handoff=handoff,
        notes=request.notes,
        skill_id=request.skill_id,
    )


def _telemetry(message: envelopes_pb2.WorkerResult | envelopes_pb2.ReviewEnvelope) -> Telemetry:
    if not message.HasField("telemetry"):
        return Telemetry()  # unmetered
    usage = message.telemetry
    return Telemetry(usage.cost_usd, usage.tokens_in, usage.tokens_out, usage.duration_ms)


def worker_report(result: envelopes_pb2.WorkerResult) -> WorkerReport:
    uncertain = None
    if result.outcome == "uncertain":
        uncertain = next((check.reason for check in result.checks if check.observation == "uncertain"), "") or "unknown"
    return WorkerReport(
        outcome=result.outcome,
        content_hash=content_hash(result),
        summary=result.summary,
        model=result.worker.model,
        artifacts={artifact.name: artifact.sha256 for artifact in result.artifacts},
        telemetry=_telemetry(result),
        checks=tuple(
            CheckReport(
                check.name,
                check.passed,
                check.exit_code if check.HasField("exit_code") else None,
                duration_ms=check.duration_ms,
                observation=check.observation,
                reason=check.reason,
                stdout_sha256=check.stdout_sha256,
                stdout_bytes=check.stdout_bytes,
                stderr_sha256=check.stderr_sha256,
                stderr_bytes=check.stderr_bytes,
            )
            for check in result.checks
        ),
        uncertain=uncertain,
        commit=result.commit,
        receipt=_receipt_json(result),
    )


def _receipt_json(result: envelopes_pb2.WorkerResult) -> dict[str, Any] | None:
    """A result's receipt as its JSON (its time checked first: JSON has no out-of-range time).

    Raises:
        InvalidArgument: (``result.receipt.time``) a time outside the Timestamp range.
    """
    if not result.HasField("receipt"):
        return None
    if result.receipt.HasField("time"):
        check_timestamp("result.receipt.time", result.receipt.time)
    return json_format.MessageToDict(result.receipt)


def review_report(review: envelopes_pb2.ReviewEnvelope) -> ReviewReport:
    return ReviewReport(
        verdict=review.verdict,
        content_hash=content_hash(review),
        summary=review.summary,
        model=review.reviewer.model,
        blockers=len(review.blockers),
        telemetry=_telemetry(review),
    )


def event_to_proto(event: StoredRunEvent) -> workflow_steps_pb2.WorkflowRunEvent:
    payload = struct_pb2.Struct()
    payload.update(json.loads(event.payload))
    return workflow_steps_pb2.WorkflowRunEvent(
        sequence=event.sequence, type=event.type, payload=payload, time=timestamp(event.event_time)
    )


class StepMethods:
    """The step-run RPCs of WorkflowServicer."""

    _hub: HubState

    @property
    def _settings(self) -> EngineSettings:
        return self._hub.engine_settings

    async def signal_step_run(
        self, request: pb.SignalWorkflowRunRequest, status: CheckpointStatus | None
    ) -> pb.SignalWorkflowRunResponse:
        """SignalWorkflowRun for a step run: the request's outcome, else the one ``status`` (the
        request's status as the domain's; None when unset or unknown) names.

        Raises:
            InvalidArgument, NotFound, FailedPrecondition: as ``step_signals.signal`` (neither an
                outcome nor a status: the empty outcome is refused).
        """
        outcome = request.outcome or (step_signals.STATUS_OUTCOME[status] if status is not None else "")
        signalled = await step_signals.signal(
            self._hub.store,
            current_call().caller,
            step_signals.StepSignal(
                run_id=request.run_id,
                signal_key=request.signal_key,
                delivery_id=delivery_id(request.delivery_id),
                outcome=outcome,
                body_sha256=content_hash(request),
            ),
            settings=self._settings,
            replay_horizon=self._hub.replay_horizon,
            now=self._hub.now(),
        )
        return pb.SignalWorkflowRunResponse(
            duplicate=signalled.duplicate,
            status=request.status,
            stage_id=signalled.step_id,
            signal_key=request.signal_key,
            completed=signalled.run.status is RunStatus.COMPLETED,
            resumed=not signalled.duplicate,
        )

    async def CompleteAssignment(
        self, request: pb.CompleteAssignmentRequest, context: Context
    ) -> pb.CompleteAssignmentResponse:
        attempt = current_call().attempt_token
        if attempt is not None:
            tokens.check_assignment_scope(attempt, request.assignment_id)
        which = request.WhichOneof("result")
        if request.review.assignment_id and request.review.assignment_id != request.assignment_id:
            raise invalid_field(
                "review.assignment_id", "names another assignment than assignment_id (or leave it empty)"
            )
        if which == "worker_result":
            report: WorkerReport | ReviewReport = worker_report(request.worker_result)
        elif which == "review":
            report = review_report(request.review)
        else:
            raise invalid_field("result", "give worker_result or review")
        completed = await step_runs.complete(
            self._hub.store,
            current_call().caller,
            request.assignment_id,
            report,
            settings=self._settings,
            now=self._hub.now(),
        )
        member = completed.run.member(request.assignment_id)
        if member is not None:
            assignment = _member(member)
        else:  # its step moved on: what the assignment row kept
            stored = completed.assignment
            kept = decode_result(stored.result)
            assignment = workflow_steps_pb2.StepAssignment(
                id=stored.id,
                step_id=stored.step_id,
                step_attempt=stored.step_attempt,
                agent_id=stored.agent_id,
                state=_ASSIGNMENT_STATE[stored.state],
                create_time=timestamp(stored.create_time),
                end_time=timestamp(stored.end_time) if stored.end_time is not None else None,
                outcome=str(kept.get("outcome", "")),
                passed=bool(kept.get("passed", False)),
                content_hash=str(kept.get("contentHash", "")),
            )
        return pb.CompleteAssignmentResponse(
            assignment=assignment, duplicate=completed.duplicate, run_status=STEP_RUN_STATUS[completed.run.status]
        )

    async def NextAssignment(self, request: pb.NextAssignmentRequest, context: Context) -> pb.NextAssignmentResponse:
        caller = current_call().caller
        budget = assignments.packet_budget(request.context_budget_tokens)
        found = await step_runs.next_assignment(
            self._hub.store, caller, after=request.after_assignment_id, settings=self._settings, now=self._hub.now()
        )
        if found is None:
            return pb.NextAssignmentResponse()
        assignment = json_format.ParseDict(found.request, envelopes_pb2.AssignmentRequest())
        response = pb.NextAssignmentResponse(assignment=assignment)
        if request.include_context:
            packet = await assignments.assignment_packet(self._hub.store, caller, found.facts, budget_tokens=budget)
            response.packet.CopyFrom(
                pb.AssignmentPacket(
                    packet_id=packet.assembled.packet_id if packet.assembled is not None else "",
                    packet=packet_to_proto(packet.assembled.outcome) if packet.assembled is not None else None,
                    role=packet.role,
                    brief=packet.brief,
                    unresolved_gaps=packet.unresolved_gaps,
                    memory_revision=found.facts.memory_revision,
                    handoff=(
                        handoff_to_proto(found.facts.run_id, found.facts.handoff, handoff_intent(found.facts))
                        if found.facts.handoff is not None
                        else None
                    ),
                )
            )
        return response

    async def ApproveStep(self, request: pb.ApproveStepRequest, context: Context) -> pb.ApproveStepResponse:
        await step_runs.approve(
            self._hub.store,
            current_call().caller,
            request.run_id,
            request.step_id,
            request.outcome,
            request.reason,
            settings=self._settings,
            now=self._hub.now(),
        )
        return pb.ApproveStepResponse(run=await self._step_view(request.run_id))

    async def RecoverStepRun(self, request: pb.RecoverStepRunRequest, context: Context) -> pb.RecoverStepRunResponse:
        action = _RECOVERY.get(request.action)
        if action is None:
            raise invalid_field("action", "must be RECOVERY_ACTION_RETRY, _FAIL or _CANCEL")
        await step_runs.recover(
            self._hub.store,
            current_call().caller,
            request.run_id,
            action,
            request.reason,
            settings=self._settings,
            now=self._hub.now(),
        )
        return pb.RecoverStepRunResponse(run=await self._step_view(request.run_id))

    async def ListWorkflowRunEvents(
        self, request: pb.ListWorkflowRunEventsRequest, context: Context
    ) -> pb.ListWorkflowRunEventsResponse:
        page, last = await step_runs.events(
            self._hub.store,
            current_call().caller,
            request.run_id,
            after=request.after_sequence,
            size=request.page_size,
        )
        return pb.ListWorkflowRunEventsResponse(events=[event_to_proto(event) for event in page], last_sequence=last)

    async def AuditGateEvidence(
        self, request: pb.AuditGateEvidenceRequest, context: Context
    ) -> pb.AuditGateEvidenceResponse:
        verdict = await step_audit.audit(self._hub.store, current_call().caller, request.run_id)
        return pb.AuditGateEvidenceResponse(
            intact=verdict.intact,
            records=verdict.records,
            problems=[
                pb.GateEvidenceProblem(code=p.code, assignment_id=p.assignment_id, detail=p.detail)
                for p in verdict.problems
            ],
        )

    async def _step_view(self, run_id: str) -> workflow_types_pb2.WorkflowRun:
        loaded = await step_runs.get(self._hub.store, current_call().caller, run_id)
        if loaded is None:
            raise step_runs.run_not_found(run_id)
        return step_run_to_proto(loaded)
