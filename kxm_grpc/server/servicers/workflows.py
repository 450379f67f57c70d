"""WorkflowService: definitions, runs, coordinator steps, operator steps and signals.

Converts proto ↔ the services' values only; the rules live in ``kxm_grpc.services.workflows``.
Times are clock microseconds inside, ``Timestamp`` outside; a start payload is a ``Struct``
turned into plain JSON values.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import struct_pb2

from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2_grpc, workflow_types_pb2
from kxm_grpc.domain.workflows import definitions as definition_rules
from kxm_grpc.domain.workflows.checkpoints import quorums
from kxm_grpc.domain.workflows.evidence import DegradationApproval, PeerEvidence
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.runs import (
    CheckpointStatus,
    EvidenceHash,
    Run,
    RunStatus,
    StageState,
    StageStatus,
    Transition,
)
from kxm_grpc.domain.workflows.signatures import body_sha256
from kxm_grpc.errors import invalid_field
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import duration_value, struct_json, timestamp
from kxm_grpc.server.servicers.journal import JournalMethods
from kxm_grpc.server.servicers.steps import StepMethods, inputs_from_proto, step_run_to_proto
from kxm_grpc.server.state import HubState
from kxm_grpc.services.workflows import (
    definitions,
    gate_registries,
    run_lists,
    runs,
    signals,
    step_definitions,
    step_runs,
    steps,
)
from kxm_grpc.store.protocols.gates import StoredGateRegistry
from kxm_grpc.store.protocols.step_runs import StepRunState
from kxm_grpc.store.protocols.workflows import StoredDefinition

Context = grpc.aio.ServicerContext[Any, Any]

_RUN_STATUS = {
    RunStatus.RUNNING: workflow_types_pb2.WORKFLOW_RUN_STATUS_RUNNING,
    RunStatus.WAITING: workflow_types_pb2.WORKFLOW_RUN_STATUS_WAITING,
    RunStatus.COMPLETED: workflow_types_pb2.WORKFLOW_RUN_STATUS_COMPLETED,
    RunStatus.FAILED: workflow_types_pb2.WORKFLOW_RUN_STATUS_FAILED,
    RunStatus.CANCELLED: workflow_types_pb2.WORKFLOW_RUN_STATUS_CANCELLED,
}
_RUN_STATUS_IN = {value: key for key, value in _RUN_STATUS.items()}
_STEP_STATUS_IN = {
    workflow_types_pb2.WORKFLOW_RUN_STATUS_QUEUED: StepRunState.QUEUED,
    workflow_types_pb2.WORKFLOW_RUN_STATUS_RUNNING: StepRunState.RUNNING,
    workflow_types_pb2.WORKFLOW_RUN_STATUS_BLOCKED: StepRunState.BLOCKED,
    workflow_types_pb2.WORKFLOW_RUN_STATUS_COMPLETED: StepRunState.COMPLETED,
    workflow_types_pb2.WORKFLOW_RUN_STATUS_FAILED: StepRunState.FAILED,
    workflow_types_pb2.WORKFLOW_RUN_STATUS_CANCELLED: StepRunState.CANCELLED,
}
_STEP_ONLY = (workflow_types_pb2.WORKFLOW_RUN_STATUS_QUEUED, workflow_types_pb2.WORKFLOW_RUN_STATUS_BLOCKED)
_STAGE_STATUS = {
    StageStatus.PENDING: workflow_types_pb2.WORKFLOW_STAGE_STATUS_PENDING,
    StageStatus.IN_PROGRESS: workflow_types_pb2.WORKFLOW_STAGE_STATUS_IN_PROGRESS,
    StageStatus.WAITING: workflow_types_pb2.WORKFLOW_STAGE_STATUS_WAITING,
    StageStatus.PASSED: workflow_types_pb2.WORKFLOW_STAGE_STATUS_PASSED,
    StageStatus.WARNING: workflow_types_pb2.WORKFLOW_STAGE_STATUS_WARNING,
    StageStatus.FAILED: workflow_types_pb2.WORKFLOW_STAGE_STATUS_FAILED,
}
_CHECKPOINT_STATUS = {
    CheckpointStatus.PASSED: workflow_types_pb2.CHECKPOINT_STATUS_PASSED,
    CheckpointStatus.WARNING: workflow_types_pb2.CHECKPOINT_STATUS_WARNING,
    CheckpointStatus.FAILED: workflow_types_pb2.CHECKPOINT_STATUS_FAILED,
}
_FORMAT = {pb.DEFINITION_FORMAT_JSON: "json", pb.DEFINITION_FORMAT_YAML: "yaml"}


def checkpoint_status(value: int) -> CheckpointStatus | None:
    """The status a request carries (None when unset or unknown: the service refuses it)."""
    for status, number in _CHECKPOINT_STATUS.items():
        if number == value:
            return status
    return None


def definition_to_proto(stored: StoredDefinition) -> workflow_types_pb2.WorkflowDefinition:
    """The public view of a stored definition: its summary and its document, literal secrets redacted."""
    if stored.kind is DefinitionKind.STEPS:
        return _step_definition(stored)
    definition = definitions.structure(stored.document)
    return workflow_types_pb2.WorkflowDefinition(
        kind=workflow_types_pb2.WORKFLOW_KIND_STAGES,
        id=stored.id,
        project=stored.project,
        source=definition.source.value,
        target=definition.target,
        hash=stored.hash,
        stage_ids=[stage.id for stage in definition.stages],
        accepts_signals=definition.signal_secret is not None or definition.signal_secret_env is not None,
        document=definitions.redacted_document(stored),
        register_time=timestamp(stored.register_time),
        update_time=timestamp(stored.update_time),
        registered_by=stored.registered_by,
    )


def _step_definition(stored: StoredDefinition) -> workflow_types_pb2.WorkflowDefinition:
    """A step workflow's view: its source, its plan and the step ids and registry hash the plan holds."""
    plan = step_definitions.plan_of(stored)
    return workflow_types_pb2.WorkflowDefinition(
        id=stored.id,
        project=stored.project,
        kind=workflow_types_pb2.WORKFLOW_KIND_STEPS,
        hash=stored.hash,
        step_ids=list(plan.get("order", [])),
        document=stored.document,
        plan=stored.pinned_document,
        gate_registry_hash=str(plan.get("gateRegistryHash", "")),
        register_time=timestamp(stored.register_time),
        update_time=timestamp(stored.update_time),
        registered_by=stored.registered_by,
    )


def gate_registry_to_proto(stored: StoredGateRegistry) -> workflow_types_pb2.GateRegistry:
    """The public view of a project's gate registry."""
    return workflow_types_pb2.GateRegistry(
        project=stored.project,
        hash=stored.hash,
        document=stored.document,
        gate_ids=sorted(gate_registries.loaded(stored.document).gates),
        update_time=timestamp(stored.update_time),
        registered_by=stored.registered_by,
    )


def _peer(evidence: PeerEvidence) -> workflow_types_pb2.PeerEvidence:
    return workflow_types_pb2.PeerEvidence(
        message_id=evidence.message_id,
        producer_agent_id=evidence.producer_id,
        producer_name=evidence.producer_name,
        requirement_key=evidence.requirement_key,
        visit=evidence.visit,
        attempt=evidence.attempt,
        request_sha256=evidence.request_sha256,
        reply_sha256=evidence.reply_sha256,
        create_time=timestamp(evidence.create_time),
        deliver_time=timestamp(evidence.deliver_time),
        reply_time=timestamp(evidence.reply_time),
        verify_time=timestamp(evidence.verify_time),
    )


def _stage(run: Run, stage: StageState, required: tuple[str, ...], label: str) -> workflow_types_pb2.WorkflowStage:
    view = workflow_types_pb2.WorkflowStage(
        id=stage.id,
        label=label,
        status=_STAGE_STATUS[stage.status],
        attempts=stage.attempts,
        active_attempt=stage.active_attempt,
        visit=stage.visit,
        summary=stage.summary,
        required_evidence=list(required),
        degraded_requirements=list(stage.degraded_requirements),
        start_time=timestamp(stage.start_time),
        complete_time=timestamp(stage.complete_time),
    )
    for key, values in stage.evidence.items():
        view.evidence[key].values.extend(values)
    for key, snapshots in stage.peer_evidence.items():
        view.peer_evidence[key].evidence.extend(_peer(s) for s in snapshots)
    settled = stage.status in (StageStatus.PASSED, StageStatus.WARNING, StageStatus.FAILED)
    for key, status in quorums(run, stage, stage.peer_evidence, settled=settled).items():
        view.quorum.add(
            requirement_key=key,
            counted=status.counted,
            required=status.required,
            met=status.met,
            degraded=status.degraded,
        )
    if stage.escalation is not None:
        escalation = stage.escalation
        view.escalation.CopyFrom(
            workflow_types_pb2.WorkflowEscalation(
                reason=escalation.reason,
                escalate_time=timestamp(escalation.escalate_time),
                escalated_by=escalation.escalated_by,
                ruling=escalation.ruling or "",
                ruling_status=_CHECKPOINT_STATUS.get(
                    escalation.ruling_status, workflow_types_pb2.CHECKPOINT_STATUS_UNSPECIFIED
                )
                if escalation.ruling_status is not None
                else workflow_types_pb2.CHECKPOINT_STATUS_UNSPECIFIED,
                ruled_by=escalation.ruled_by or "",
                rule_time=timestamp(escalation.rule_time),
            )
        )
    return view


def _transition(transition: Transition) -> workflow_types_pb2.WorkflowTransition:
    return workflow_types_pb2.WorkflowTransition(
        id=transition.id,
        from_stage_id=transition.from_stage,
        to_stage_id=transition.to_stage,
        outcome=transition.outcome,
        attempt=transition.attempt,
        evidence_keys=list(transition.evidence_keys),
        time=timestamp(transition.time),
    )


def _hash(captured: EvidenceHash | None) -> workflow_types_pb2.EvidenceHash | None:
    if captured is None:
        return None
    return workflow_types_pb2.EvidenceHash(
        stage_id=captured.stage_id,
        evidence_key=captured.evidence_key,
        sha256=captured.sha256,
        capture_time=timestamp(captured.capture_time),
    )


def approval_to_proto(approval: DegradationApproval) -> workflow_types_pb2.DegradationApproval:
    return workflow_types_pb2.DegradationApproval(
        id=approval.id,
        stage_id=approval.stage_id,
        requirement_key=approval.requirement_key,
        visit=approval.visit,
        attempt=approval.attempt,
        policy_min_producers=approval.policy_min_producers,
        approved_min_producers=approval.approved_min_producers,
        approved_by=approval.approved_by,
        reason=approval.reason,
        approve_time=timestamp(approval.approve_time),
    )


def run_to_proto(run: Run, definition: definition_rules.WorkflowDefinition) -> workflow_types_pb2.WorkflowRun:
    """The public view of a run (its pinned definition gives labels and required keys)."""
    specs = {stage.id: stage for stage in definition.stages}
    view = workflow_types_pb2.WorkflowRun(
        id=run.id,
        definition_id=run.definition_id,
        definition_hash=run.definition_hash,
        project=run.project,
        coordinator_agent_id=run.coordinator_id,
        coordinator_name=run.coordinator_name,
        status=_RUN_STATUS[run.status],
        current_stage_id=run.current_stage or "",
        stages=[
            _stage(run, stage, specs[stage.id].required_evidence, specs[stage.id].label)
            for stage in run.stages
            if stage.id in specs
        ],
        transitions=[_transition(t) for t in run.transitions],
        repro_oracle=_hash(run.repro_oracle),
        plan_hash=_hash(run.plan_hash),
        approvals=[approval_to_proto(a) for a in run.approvals],
        delivery_id=run.delivery_id,
        payload_sha256=run.payload_sha256,
        event=run.event,
        prompt_message_id=run.prompt_message_id,
        create_time=timestamp(run.create_time),
        update_time=timestamp(run.update_time),
        end_time=timestamp(run.end_time),
        end_reason=run.end_reason,
    )
    if run.wait is not None:
        view.wait.CopyFrom(
            workflow_types_pb2.WorkflowWait(
                stage_id=run.wait.stage_id,
                signal_key=run.wait.signal_key,
                summary=run.wait.summary,
                create_time=timestamp(run.wait.create_time),
                expire_time=timestamp(run.wait.expire_time),
            )
        )
    return view


def _payload(struct: struct_pb2.Struct) -> dict[str, Any]:
    """A start payload as plain JSON values.

    Raises:
        InvalidArgument: a number is NaN or infinite (``convert.struct_json``).
    """
    return struct_json(struct, "payload")


def _refs(refs: Any) -> dict[str, list[str]]:
    return {key: list(value.message_ids) for key, value in refs.items()}


def _stage_run(row: run_lists.Listed) -> Run:
    assert row.stage is not None
    return row.stage


class WorkflowServicer(JournalMethods, StepMethods, workflow_service_pb2_grpc.WorkflowServiceServicer):
    """Serves kxm.v1.WorkflowService (its journal RPCs are ``JournalMethods``, its step-run RPCs ``StepMethods``)."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub

    async def _view(self, run: Run) -> workflow_types_pb2.WorkflowRun:
        definition = runs.cached_pinned(run.definition_hash)
        if definition is None:
            definition = await self._hub.store.read(lambda tx: runs.pinned(tx, run))
        return run_to_proto(run, definition)

    async def _outcome(self, outcome: steps.Outcome) -> dict[str, Any]:
        return {
            "run": await self._view(outcome.run),
            "retry": outcome.retry,
            "completed": outcome.completed,
            "instruction": outcome.instruction,
        }

    async def RegisterWorkflowDefinition(
        self, request: pb.RegisterWorkflowDefinitionRequest, context: Context
    ) -> pb.RegisterWorkflowDefinitionResponse:
        registered = await definitions.register(
            self._hub.store,
            current_call().caller,
            request.document,
            format=_FORMAT.get(request.format),
            validate_only=request.validate_only,
            now=self._hub.now(),
        )
        return pb.RegisterWorkflowDefinitionResponse(
            definition=definition_to_proto(registered.stored),
            created=registered.created,
            unchanged=registered.unchanged,
        )

    async def GetWorkflowDefinition(
        self, request: pb.GetWorkflowDefinitionRequest, context: Context
    ) -> pb.GetWorkflowDefinitionResponse:
        stored = await definitions.get(self._hub.store, current_call().caller, request.definition_id)
        return pb.GetWorkflowDefinitionResponse(definition=definition_to_proto(stored))

    async def ListWorkflowDefinitions(
        self, request: pb.ListWorkflowDefinitionsRequest, context: Context
    ) -> pb.ListWorkflowDefinitionsResponse:
        page, token = await definitions.list_page(
            self._hub.store, current_call().caller, request.page_size, request.page_token
        )
        return pb.ListWorkflowDefinitionsResponse(
            definitions=[definition_to_proto(s) for s in page], next_page_token=token
        )

    async def RegisterGateRegistry(
        self, request: pb.RegisterGateRegistryRequest, context: Context
    ) -> pb.RegisterGateRegistryResponse:
        registered = await gate_registries.register(
            self._hub.store,
            current_call().caller,
            request.document,
            format=_FORMAT.get(request.format),
            project=request.project,
            validate_only=request.validate_only,
            now=self._hub.now(),
        )
        return pb.RegisterGateRegistryResponse(
            registry=gate_registry_to_proto(registered.stored),
            created=registered.created,
            unchanged=registered.unchanged,
        )

    async def GetGateRegistry(self, request: pb.GetGateRegistryRequest, context: Context) -> pb.GetGateRegistryResponse:
        stored = await gate_registries.get(self._hub.store, current_call().caller)
        return pb.GetGateRegistryResponse(registry=gate_registry_to_proto(stored))

    async def StartWorkflowRun(
        self, request: pb.StartWorkflowRunRequest, context: Context
    ) -> pb.StartWorkflowRunResponse:
        caller = current_call().caller
        step_started = await step_runs.start(
            self._hub.store,
            caller,
            request.definition_id,
            request_id=request.delivery_id,
            inputs=inputs_from_proto(request.inputs),
            settings=self._hub.engine_settings,
            now=self._hub.now(),
        )
        if step_started is not None:
            return pb.StartWorkflowRunResponse(
                run=await self._step_view(step_started.run.id), duplicate=step_started.duplicate, started=True
            )
        if request.HasField("inputs"):
            raise invalid_field("inputs", "a stage workflow takes a payload, not step run inputs")
        started = await runs.start(
            self._hub.store,
            current_call().caller,
            request.definition_id,
            delivery=request.delivery_id,
            payload=_payload(request.payload),
            event=request.event,
            limits=self._hub.limits,
            replay_horizon=self._hub.replay_horizon,
            now=self._hub.now(),
        )
        run = await self._view(started.run) if started.run is not None else None
        return pb.StartWorkflowRunResponse(run=run, duplicate=started.duplicate, started=started.started)

    async def GetWorkflowRun(self, request: pb.GetWorkflowRunRequest, context: Context) -> pb.GetWorkflowRunResponse:
        caller = current_call().caller
        step = await step_runs.get(self._hub.store, caller, request.run_id)
        if step is not None:
            return pb.GetWorkflowRunResponse(run=step_run_to_proto(step))
        run = await runs.get(self._hub.store, caller, request.run_id)
        return pb.GetWorkflowRunResponse(run=await self._view(run))

    async def ListWorkflowRuns(
        self, request: pb.ListWorkflowRunsRequest, context: Context
    ) -> pb.ListWorkflowRunsResponse:
        status = request.status
        page, token = await run_lists.list_page(
            self._hub.store,
            current_call().caller,
            stage_status=_RUN_STATUS_IN.get(status),
            step_status=_STEP_STATUS_IN.get(status),
            only_steps=status in _STEP_ONLY,
            only_stages=status == workflow_types_pb2.WORKFLOW_RUN_STATUS_WAITING,
            definition_id=request.definition_id,
            size=request.page_size,
            token=request.page_token,
        )
        views = [
            step_run_to_proto(row.step, with_handoff=False)
            if row.step is not None
            else await self._view(_stage_run(row))
            for row in page
        ]
        return pb.ListWorkflowRunsResponse(runs=views, next_page_token=token)

    async def CancelWorkflowRun(
        self, request: pb.CancelWorkflowRunRequest, context: Context
    ) -> pb.CancelWorkflowRunResponse:
        caller = current_call().caller
        if await step_runs.get(self._hub.store, caller, request.run_id) is not None:
            await step_runs.cancel(
                self._hub.store,
                caller,
                request.run_id,
                request.reason,
                settings=self._hub.engine_settings,
                now=self._hub.now(),
            )
            return pb.CancelWorkflowRunResponse(run=await self._step_view(request.run_id))
        run = await runs.cancel(self._hub.store, caller, request.run_id, request.reason, now=self._hub.now())
        return pb.CancelWorkflowRunResponse(run=await self._view(run))

    async def RerunWorkflowRun(
        self, request: pb.RerunWorkflowRunRequest, context: Context
    ) -> pb.RerunWorkflowRunResponse:
        started = await runs.rerun(
            self._hub.store,
            current_call().caller,
            request.run_id,
            delivery=request.delivery_id,
            limits=self._hub.limits,
            replay_horizon=self._hub.replay_horizon,
            now=self._hub.now(),
        )
        run = await self._view(started.run) if started.run is not None else None
        return pb.RerunWorkflowRunResponse(run=run, duplicate=started.duplicate)

    async def Checkpoint(self, request: pb.CheckpointRequest, context: Context) -> pb.CheckpointResponse:
        outcome = await steps.checkpoint(
            self._hub.store,
            current_call().caller,
            steps.Report(
                run_id=request.run_id,
                stage_id=request.stage_id,
                status=checkpoint_status(request.status),
                summary=request.summary,
                evidence=dict(request.evidence),
                evidence_refs=_refs(request.evidence_refs),
                outcome=request.outcome,
                request_id=request.request_id,
            ),
            now=self._hub.now(),
        )
        return pb.CheckpointResponse(
            **await self._outcome(outcome),
            exhausted=outcome.exhausted,
            escalated=outcome.escalated,
            transition=_transition(outcome.transition) if outcome.transition else None,
            degraded_requirements=list(outcome.degraded_requirements),
            repeated=outcome.repeated,
        )

    async def Wait(self, request: pb.WaitRequest, context: Context) -> pb.WaitResponse:
        timeout = duration_value("timeout", request.timeout, request.HasField("timeout"))
        outcome = await steps.wait(
            self._hub.store,
            current_call().caller,
            steps.Report(
                run_id=request.run_id,
                stage_id=request.stage_id,
                summary=request.summary,
                evidence=dict(request.evidence),
                evidence_refs=_refs(request.evidence_refs),
                request_id=request.request_id,
            ),
            request.signal_key,
            None if timeout is None else timeout // 1_000,
            now=self._hub.now(),
        )
        return pb.WaitResponse(
            run=await self._view(outcome.run), instruction=outcome.instruction, repeated=outcome.repeated
        )

    async def SignalWorkflowRun(
        self, request: pb.SignalWorkflowRunRequest, context: Context
    ) -> pb.SignalWorkflowRunResponse:
        if await step_runs.get(self._hub.store, current_call().caller, request.run_id) is not None:
            return await self.signal_step_run(request, checkpoint_status(request.status))
        run = await runs.get(self._hub.store, current_call().caller, request.run_id)
        body = request.SerializeToString(deterministic=True)
        outcome = await signals.signal(
            self._hub.store,
            current_call().caller,
            signals.Signal(
                definition_id=run.definition_id,
                run_id=request.run_id,
                signal_key=request.signal_key,
                delivery_id=runs.delivery_id(request.delivery_id),
                body_sha256=body_sha256(body),
                status=checkpoint_status(request.status),
                summary=request.summary,
                evidence=dict(request.evidence),
            ),
            limits=self._hub.limits,
            replay_horizon=self._hub.replay_horizon,
            now=self._hub.now(),
        )
        return pb.SignalWorkflowRunResponse(
            duplicate=outcome.duplicate,
            status=_CHECKPOINT_STATUS[outcome.status],
            stage_id=outcome.stage_id,
            signal_key=outcome.signal_key,
            retry=outcome.retry,
            completed=outcome.completed,
            degraded_requirements=list(outcome.degraded_requirements),
            resumed=outcome.resumed,
        )

    async def ApproveDegradation(
        self, request: pb.ApproveDegradationRequest, context: Context
    ) -> pb.ApproveDegradationResponse:
        approval, duplicate = await steps.approve_degradation(
            self._hub.store,
            current_call().caller,
            request.run_id,
            request.stage_id,
            request.requirement_key,
            request.reason,
            now=self._hub.now(),
        )
        return pb.ApproveDegradationResponse(approval=approval_to_proto(approval), duplicate=duplicate)

    async def EscalateStage(self, request: pb.EscalateStageRequest, context: Context) -> pb.EscalateStageResponse:
        outcome = await steps.escalate(
            self._hub.store,
            current_call().caller,
            request.run_id,
            request.stage_id,
            request.reason,
            now=self._hub.now(),
        )
        return pb.EscalateStageResponse(run=await self._view(outcome.run), instruction=outcome.instruction)

    async def ResolveEscalation(
        self, request: pb.ResolveEscalationRequest, context: Context
    ) -> pb.ResolveEscalationResponse:
        outcome = await steps.resolve_escalation(
            self._hub.store,
            current_call().caller,
            request.run_id,
            request.ruling,
            checkpoint_status(request.status),
            dict(request.evidence),
            limits=self._hub.limits,
            now=self._hub.now(),
        )
        return pb.ResolveEscalationResponse(**await self._outcome(outcome))
