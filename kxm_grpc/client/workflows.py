"""``hub.workflows``: WorkflowService calls, durable evidence-gated runs, plus ``request_review``.

One method per RPC, named after it without the word "workflow": definitions (``register_definition``,
``get_definition``, ``list_definitions``: stage and step workflows), the project's gate registry
(``register_gate_registry``, ``get_gate_registry``), runs of both kinds (``start_run``, ``get_run``,
``list_runs``, ``cancel_run``, ``rerun_run``), the assignee's side of a step run (``next_assignment``,
``assignments``, ``complete_assignment``), an operator's step-run verbs (``approve_step``,
``recover_step_run``), a step run's events (``list_run_events``), the coordinator's steps
(``checkpoint``, ``wait``, ``escalate_stage``) and an operator's (``signal_run``,
``approve_degradation``, ``resolve_escalation``). Who may call which is in
``proto/kxm/v1/workflow_service.proto``: the coordinator's steps need the run's coordinator agent
identity, the rest of the writes an operator (the admin token or a named operator's), and an agent
reads only the runs it coordinates.

Statuses may be given as the proto enums or as their short names (``"passed"``, ``"warning"``,
``"failed"``; ``"running"``, ``"waiting"``, ... for runs). ``checkpoint`` and ``wait`` always carry
a ``request_id`` (one made per call, ``req_`` and 32 hex digits, when the caller gives none): the hub
answers a request id it has seen before with its first answer and applies nothing again, so a call
repeated after a lost answer checkpoints once.

``request_review`` sends a peer review request with the workflow context the hub needs to count
its reply as evidence, and returns the message ids to cite in a later ``checkpoint``.

``journal`` (``hub.workflows.journal``, ``kxm_grpc.client.journal``) holds the journal RPCs: a run's
learning journal (``record``, ``list``, ``records``), an operator's ``promote``, the project's
improvement ``report``, an ended run's retrospective (``export``) and the chain's ``verify``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from google.protobuf import struct_pb2

from kxm_grpc._gen.kxm.v1 import (
    envelopes_pb2,
    types_pb2,
    workflow_service_pb2,
    workflow_service_pb2_grpc,
    workflow_steps_pb2,
    workflow_types_pb2,
)
from kxm_grpc.client.assignments import Assignment, assignments
from kxm_grpc.client.base import Area, duration
from kxm_grpc.client.messages import Messages
from kxm_grpc.domain.messages import canonical_requirement_key
from kxm_grpc.errors import HubError

if TYPE_CHECKING:
    from kxm_grpc.client.journal import WorkflowJournal

pb = workflow_service_pb2

#: What a request id the client made up starts with (the rest is a random UUID's hex).
REQUEST_ID_PREFIX = "req_"

_CHECKPOINT_STATUSES: dict[str, workflow_types_pb2.CheckpointStatus.ValueType] = {
    "passed": workflow_types_pb2.CHECKPOINT_STATUS_PASSED,
    "warning": workflow_types_pb2.CHECKPOINT_STATUS_WARNING,
    "failed": workflow_types_pb2.CHECKPOINT_STATUS_FAILED,
}
_RUN_STATUSES: dict[str, workflow_types_pb2.WorkflowRunStatus.ValueType] = {
    "running": workflow_types_pb2.WORKFLOW_RUN_STATUS_RUNNING,
    "waiting": workflow_types_pb2.WORKFLOW_RUN_STATUS_WAITING,
    "completed": workflow_types_pb2.WORKFLOW_RUN_STATUS_COMPLETED,
    "failed": workflow_types_pb2.WORKFLOW_RUN_STATUS_FAILED,
    "cancelled": workflow_types_pb2.WORKFLOW_RUN_STATUS_CANCELLED,
}
_FORMATS: dict[str, pb.DefinitionFormat.ValueType] = {
    "json": pb.DEFINITION_FORMAT_JSON,
    "yaml": pb.DEFINITION_FORMAT_YAML,
    "yml": pb.DEFINITION_FORMAT_YAML,
}

CheckpointStatusLike: TypeAlias = "workflow_types_pb2.CheckpointStatus.ValueType | str"
"""A checkpoint, signal or ruling status: the enum, or ``"passed"``, ``"warning"``, ``"failed"``."""
RunStatusLike: TypeAlias = "workflow_types_pb2.WorkflowRunStatus.ValueType | str"
"""A run status: the enum, or ``"running"``, ``"waiting"``, ``"completed"``, ``"failed"``, ``"cancelled"``."""
EvidenceRefs: TypeAlias = Mapping[str, Iterable[str]]
"""Replies cited for peer requirements: requirement key -> the message ids (a single id may be a str)."""


def checkpoint_status(value: CheckpointStatusLike) -> workflow_types_pb2.CheckpointStatus.ValueType:
    """The ``CheckpointStatus`` of an enum value or its name (``passed``, ``CHECKPOINT_STATUS_PASSED``, any case).

    Raises:
        ValueError: a string that names no status.
    """
    if not isinstance(value, str):
        return value
    name = value.strip().lower().removeprefix("checkpoint_status_")
    try:
        return _CHECKPOINT_STATUSES[name]
    except KeyError:
        raise ValueError(f"status must be passed, warning or failed, not {value!r}") from None


def run_status(value: RunStatusLike | None) -> workflow_types_pb2.WorkflowRunStatus.ValueType:
    """The ``WorkflowRunStatus`` of an enum value or its name (None: unspecified, any status).

    Raises:
        ValueError: a string that names no status.
    """
    if value is None:
        return workflow_types_pb2.WORKFLOW_RUN_STATUS_UNSPECIFIED
    if not isinstance(value, str):
        return value
    name = value.strip().lower().removeprefix("workflow_run_status_")
    try:
        return _RUN_STATUSES[name]
    except KeyError:
        raise ValueError(f"status must be one of {', '.join(_RUN_STATUSES)}, not {value!r}") from None


def new_request_id() -> str:
    """A fresh request id: ``req_`` and 32 random hex digits."""
    return REQUEST_ID_PREFIX + uuid.uuid4().hex


def _refs(refs: EvidenceRefs | None) -> dict[str, pb.MessageIds]:
    return {
        key: pb.MessageIds(message_ids=[ids] if isinstance(ids, str) else [*ids]) for key, ids in (refs or {}).items()
    }


def _document(
    document: str | bytes | Mapping[str, Any], format: pb.DefinitionFormat.ValueType | str | None
) -> tuple[str, pb.DefinitionFormat.ValueType]:
    """An operator document's text and format: a mapping is sent as JSON, bytes decoded as UTF-8.

    Raises:
        ValueError: ``format`` names neither JSON nor YAML.
    """
    if isinstance(document, Mapping):
        document, format = json.dumps(document), format or "json"
    elif isinstance(document, bytes):
        document = document.decode("utf-8-sig")
    if isinstance(format, str):
        try:
            format = _FORMATS[format.strip().lower()]
        except KeyError:
            raise ValueError(f"format must be json or yaml, not {format!r}") from None
    return document, format if format is not None else pb.DEFINITION_FORMAT_UNSPECIFIED


def _evidence(evidence: Mapping[str, str] | None) -> dict[str, str]:
    return dict(evidence or {})


def active_attempt(run: workflow_types_pb2.WorkflowRun, stage_id: str) -> int:
    """The attempt a workflow context must name now for ``stage_id`` of ``run`` (its ``active_attempt``).

    Raises:
        ValueError: the run has no such stage.
    """
    for stage in run.stages:
        if stage.id == stage_id:
            return stage.active_attempt
    raise ValueError(f"run {run.id} has no stage {stage_id!r}")


class ReviewNotSent(HubError):
    """``request_review`` to several targets: the hub refused the request to some of them.

    ``reason`` and the message are the first refused target's; ``refused`` maps each refused
    target to its (reason, message); ``message_ids`` are the requests that were sent (their replies
    can still be cited).
    """

    def __init__(self, refused: dict[str, tuple[str, str]], message_ids: list[str]) -> None:
        target, (reason, message) = next(iter(refused.items()))
        super().__init__(
            f"the review request to {target} was refused: {message}",
            reason=reason,
            metadata={"target": target, "refused": ",".join(refused), "sent": str(len(message_ids))},
        )
        self.refused = refused
        self.message_ids = message_ids


class Workflows(Area):
    """kxm.v1.WorkflowService: definitions, runs, the coordinator's and an operator's steps,
    ``request_review``, and the journal RPCs under ``journal``."""

    SERVICE: ClassVar[str] = "kxm.v1.WorkflowService"

    def _rpc(self) -> workflow_service_pb2_grpc.WorkflowServiceAsyncStub:
        return self._hub._stub(workflow_service_pb2_grpc.WorkflowServiceStub)

    @cached_property
    def journal(self) -> WorkflowJournal:
        """The journal RPCs (``kxm_grpc.client.journal.WorkflowJournal``), on this client's channel
        and credentials: ``record``, ``list``, ``records``, ``promote``, ``report``, ``export``, ``verify``."""
        from kxm_grpc.client.journal import WorkflowJournal  # it imports this module (new_request_id)

        return WorkflowJournal(self._hub)

    # -- definitions ------------------------------------------------------------------------------

    async def register_definition(
        self,
        document: str | bytes | Mapping[str, Any],
        *,
        format: pb.DefinitionFormat.ValueType | str | None = None,
        validate_only: bool = False,
        timeout: float | None = None,
    ) -> pb.RegisterWorkflowDefinitionResponse:
        """Register one definition (an operator): its JSON or YAML text, or a mapping (sent as JSON).

        ``format`` is ``"json"``, ``"yaml"`` or the enum (left out: guessed, JSON when the text is
        JSON). Registering again replaces the definition; the same document again answers
        ``unchanged``. With ``validate_only`` nothing is stored and the answer is what a
        registration would be.

        A stage workflow or a step workflow (``schema: kxm.workflow.v1``, loaded with its
        project's gate registry and compiled: the answer's ``hash`` is its plan hash).

        Raises:
            InvalidArgument: (WORKFLOW_DEFINITION_INVALID) every problem, each with its field.
        """
        text, chosen = _document(document, format)
        return await self._hub._call(
            self._rpc().RegisterWorkflowDefinition,
            pb.RegisterWorkflowDefinitionRequest(document=text, format=chosen, validate_only=validate_only),
            timeout=timeout,
        )

    async def get_definition(
        self, definition_id: str, *, timeout: float | None = None
    ) -> pb.GetWorkflowDefinitionResponse:
        """A registered definition of the caller's project (literal secrets read ``***``)."""
        return await self._hub._call(
            self._rpc().GetWorkflowDefinition,
            pb.GetWorkflowDefinitionRequest(definition_id=definition_id),
            timeout=timeout,
        )

    async def list_definitions(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> pb.ListWorkflowDefinitionsResponse:
        """One page of the caller's project's definitions by id (an operator naming no project: all)."""
        return await self._hub._call(
            self._rpc().ListWorkflowDefinitions,
            pb.ListWorkflowDefinitionsRequest(page_size=page_size, page_token=page_token),
            timeout=timeout,
        )

    async def register_gate_registry(
        self,
        document: str | bytes | Mapping[str, Any],
        *,
        project: str = "",
        format: pb.DefinitionFormat.ValueType | str | None = None,
        validate_only: bool = False,
        timeout: float | None = None,
    ) -> pb.RegisterGateRegistryResponse:
        """Register a project's gate registry (an operator), replacing the project's: a
        ``kxm.gate-registry.v1`` JSON or YAML text, or a mapping (sent as JSON).

        ``project`` left empty is the project this client names (``x-kxm-project``). The same
        registry again answers ``unchanged``; with ``validate_only`` nothing is stored.

        Raises:
            InvalidArgument: (WORKFLOW_DEFINITION_INVALID) every problem, each with its field;
                (PROTOCOL_ERROR) no project, or another than the one this client names.
            FailedPrecondition: (GATE_REGISTRY_IN_USE) it would break a registered step workflow
                (the message lists each definition and gate).
        """
        text, chosen = _document(document, format)
        return await self._hub._call(
            self._rpc().RegisterGateRegistry,
            pb.RegisterGateRegistryRequest(document=text, format=chosen, validate_only=validate_only, project=project),
            timeout=timeout,
        )

    async def get_gate_registry(self, *, timeout: float | None = None) -> pb.GetGateRegistryResponse:
        """The gate registry of this client's project (NOT_FOUND, GATE_REGISTRY_NOT_FOUND, when it has none)."""
        return await self._hub._call(self._rpc().GetGateRegistry, pb.GetGateRegistryRequest(), timeout=timeout)

    # -- runs -------------------------------------------------------------------------------------

    async def start_run(
        self,
        definition_id: str,
        *,
        delivery_id: str,
        payload: Mapping[str, Any] | struct_pb2.Struct | None = None,
        event: str = "",
        inputs: workflow_steps_pb2.StepRunInputs | None = None,
        timeout: float | None = None,
    ) -> pb.StartWorkflowRunResponse:
        """Start a run as a signed start webhook would (an operator), of either kind.

        ``delivery_id`` de-duplicates starts: the same id again returns its run with ``duplicate``
        set (and another payload under it is WEBHOOK_DELIVERY_CONFLICT). For a stage workflow,
        ``payload`` is what the prompt template renders (a JSON object), and ``started`` is false
        (``run`` unset) when the definition's ``event`` or filter does not match; a step workflow
        takes ``inputs`` (repository, base commit, files, a diagnostic handoff) instead.
        """
        if payload is not None and not isinstance(payload, struct_pb2.Struct):
            struct = struct_pb2.Struct()
            struct.update(payload)
            payload = struct
        return await self._hub._call(
            self._rpc().StartWorkflowRun,
            pb.StartWorkflowRunRequest(
                definition_id=definition_id, delivery_id=delivery_id, payload=payload, event=event, inputs=inputs
            ),
            timeout=timeout,
        )

    async def get_run(self, run_id: str, *, timeout: float | None = None) -> pb.GetWorkflowRunResponse:
        """A run: an agent reads only the runs it coordinates (WORKFLOW_FORBIDDEN otherwise)."""
        return await self._hub._call(
            self._rpc().GetWorkflowRun, pb.GetWorkflowRunRequest(run_id=run_id), timeout=timeout
        )

    async def list_runs(
        self,
        *,
        status: RunStatusLike | None = None,
        definition_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> pb.ListWorkflowRunsResponse:
        """One page of runs, newest first: an agent's own, or every run of the project; optionally
        only those in ``status`` or of ``definition_id``."""
        return await self._hub._call(
            self._rpc().ListWorkflowRuns,
            pb.ListWorkflowRunsRequest(
                status=run_status(status), definition_id=definition_id, page_size=page_size, page_token=page_token
            ),
            timeout=timeout,
        )

    async def cancel_run(
        self, run_id: str, *, reason: str = "", timeout: float | None = None
    ) -> pb.CancelWorkflowRunResponse:
        """End a running or waiting run as cancelled (an operator). Not retried by a failover client:
        a repeat would answer WORKFLOW_TERMINAL for a cancel that happened."""
        return await self._hub._call(
            self._rpc().CancelWorkflowRun, pb.CancelWorkflowRunRequest(run_id=run_id, reason=reason), timeout=timeout
        )

    # -- step runs --------------------------------------------------------------------------------

    async def next_assignment(
        self,
        *,
        after_assignment_id: str = "",
        include_context: bool = False,
        context_budget_tokens: int = 0,
        timeout: float | None = None,
    ) -> pb.NextAssignmentResponse:
        """This agent's oldest open assignment, or the oldest after ``after_assignment_id``
        (``assignment`` unset when it has none); with ``include_context``, its context packet and
        brief too (``packet``; ``context_budget_tokens`` 0: the role's budget, at most 4,000)."""
        return await self._hub._call(
            self._rpc().NextAssignment,
            pb.NextAssignmentRequest(
                after_assignment_id=after_assignment_id,
                include_context=include_context,
                context_budget_tokens=context_budget_tokens,
            ),
            timeout=timeout,
        )

    def assignments(
        self, *, poll: float = 1.0, stop: Any = None, include_context: bool = False
    ) -> AsyncIterator[Assignment]:
        """Each open assignment of this agent, oldest first, waiting while there is none; one still
        open after it was yielded comes again after a wait (``kxm_grpc.client.assignments``). With
        ``include_context``, each carries its context packet and brief (``Assignment.packet``)."""
        return assignments(self, poll=poll, stop=stop, include_context=include_context)

    async def complete_assignment(
        self,
        assignment_id: str,
        result: envelopes_pb2.WorkerResult | envelopes_pb2.ReviewEnvelope,
        *,
        timeout: float | None = None,
    ) -> pb.CompleteAssignmentResponse:
        """Return this agent's result for one of its assignments: a ``WorkerResult`` or, for a
        reviewer's assignment, a ``ReviewEnvelope``. Exactly one result per assignment."""
        if isinstance(result, envelopes_pb2.ReviewEnvelope):
            request = pb.CompleteAssignmentRequest(assignment_id=assignment_id, review=result)
        else:
            request = pb.CompleteAssignmentRequest(assignment_id=assignment_id, worker_result=result)
        return await self._hub._call(self._rpc().CompleteAssignment, request, timeout=timeout)

    async def approve_step(
        self, run_id: str, step_id: str, outcome: str, *, reason: str = "", timeout: float | None = None
    ) -> pb.ApproveStepResponse:
        """Decide a step run's current approval step with one of its outcomes (an operator)."""
        return await self._hub._call(
            self._rpc().ApproveStep,
            pb.ApproveStepRequest(run_id=run_id, step_id=step_id, outcome=outcome, reason=reason),
            timeout=timeout,
        )

    async def recover_step_run(
        self, run_id: str, action: str, *, reason: str = "", timeout: float | None = None
    ) -> pb.RecoverStepRunResponse:
        """Recover a run an uncertain gate blocked: ``retry`` the gate, ``fail`` or ``cancel`` the run (an operator).

        Raises:
            ValueError: ``action`` is none of those.
        """
        actions = {
            "retry": pb.RECOVERY_ACTION_RETRY,
            "fail": pb.RECOVERY_ACTION_FAIL,
            "cancel": pb.RECOVERY_ACTION_CANCEL,
        }
        if action not in actions:
            raise ValueError(f"unknown recovery action {action!r} (retry, fail or cancel)")
        return await self._hub._call(
            self._rpc().RecoverStepRun,
            pb.RecoverStepRunRequest(run_id=run_id, action=actions[action], reason=reason),
            timeout=timeout,
        )

    async def list_run_events(
        self, run_id: str, *, after_sequence: int = 0, page_size: int = 0, timeout: float | None = None
    ) -> pb.ListWorkflowRunEventsResponse:
        """A page of a step run's events after ``after_sequence``, in order, and its last sequence."""
        return await self._hub._call(
            self._rpc().ListWorkflowRunEvents,
            pb.ListWorkflowRunEventsRequest(run_id=run_id, after_sequence=after_sequence, page_size=page_size),
            timeout=timeout,
        )

    async def audit_gate_evidence(self, run_id: str, *, timeout: float | None = None) -> pb.AuditGateEvidenceResponse:
        """Re-verify a step run's gate evidence against its pins and recomputed hashes: a verdict
        (``intact``, the records checked, the problems found), never an error for bad evidence."""
        return await self._hub._call(
            self._rpc().AuditGateEvidence, pb.AuditGateEvidenceRequest(run_id=run_id), timeout=timeout
        )

    async def rerun_run(
        self, run_id: str, *, delivery_id: str, timeout: float | None = None
    ) -> pb.RerunWorkflowRunResponse:
        """Start a new run of the definition's current version from ``run_id``'s start payload (an
        operator); ``delivery_id`` de-duplicates it as a start's does."""
        return await self._hub._call(
            self._rpc().RerunWorkflowRun,
            pb.RerunWorkflowRunRequest(run_id=run_id, delivery_id=delivery_id),
            timeout=timeout,
        )

    # -- the coordinator's steps ------------------------------------------------------------------

    async def checkpoint(
        self,
        run_id: str,
        stage_id: str,
        status: CheckpointStatusLike,
        *,
        summary: str = "",
        evidence: Mapping[str, str] | None = None,
        evidence_refs: EvidenceRefs | None = None,
        outcome: str = "",
        request_id: str | None = None,
        timeout: float | None = None,
    ) -> pb.CheckpointResponse:
        """Report the current stage's attempt (the run's coordinator): ``status`` as the enum or
        ``"passed"``, ``"warning"``, ``"failed"``.

        ``evidence`` is evidence by key; ``evidence_refs`` cites peer replies by requirement key
        (the ids ``request_review`` returned), on a passing checkpoint only; ``outcome`` chooses a
        declared transition. The hub verifies each cited reply against its own records. A refused
        checkpoint consumes no attempt and changes nothing.

        ``request_id`` makes the call safe to repeat: the hub answers an id it has seen for this
        run with its first answer (``repeated`` set) and applies nothing again. Left out, the
        call gets one of its own (``req_`` and 32 hex digits), which the channel's retries resend;
        pass your own to repeat a checkpoint yourself after a lost answer.

        Raises:
            ValueError: ``status`` names no status.
            PermissionDenied: (WORKFLOW_FORBIDDEN) the caller is not the run's coordinator.
            InvalidArgument: a malformed field, a cited reply that fails verification
                (WORKFLOW_PROVENANCE_INVALID), a pass lacking evidence (WORKFLOW_EVIDENCE_INCOMPLETE).
            FailedPrecondition: the run is not running, or the stage is not the current one.
        """
        return await self._hub._call(
            self._rpc().Checkpoint,
            pb.CheckpointRequest(
                run_id=run_id,
                stage_id=stage_id,
                status=checkpoint_status(status),
                summary=summary,
                evidence=_evidence(evidence),
                evidence_refs=_refs(evidence_refs),
                outcome=outcome,
                request_id=request_id or new_request_id(),
            ),
            timeout=timeout,
        )

    async def wait(
        self,
        run_id: str,
        stage_id: str,
        signal_key: str,
        *,
        ttl: float | None = None,
        summary: str = "",
        evidence: Mapping[str, str] | None = None,
        evidence_refs: EvidenceRefs | None = None,
        request_id: str | None = None,
        timeout: float | None = None,
    ) -> pb.WaitResponse:
        """Put the current stage into a wait for the signal ``signal_key`` (the run's coordinator).

        ``ttl`` is how long the wait lasts, in seconds, before it fails the run (1 s to 30 days;
        the hub's default, 24 h, when left out): the request's ``timeout`` field, named here as
        the client names every lifetime, since ``timeout=`` is always the call's deadline. The
        evidence and cited replies given are kept through the wait. ``request_id`` as in
        ``checkpoint``. The call returns at once; the signal (``signal_run`` or the signed route)
        resumes the run, and the hub prompts the coordinator again.

        Raises:
            InvalidArgument: (INVALID_SIGNAL_KEY) a malformed key or ``audit_escalation``;
                (WORKFLOW_WAIT_INVALID) ``ttl`` out of range; the evidence errors of ``checkpoint``.
            FailedPrecondition: (WORKFLOW_NOT_RUNNING) the run is not running; the stage is not current.
        """
        return await self._hub._call(
            self._rpc().Wait,
            pb.WaitRequest(
                run_id=run_id,
                stage_id=stage_id,
                signal_key=signal_key,
                summary=summary,
                evidence=_evidence(evidence),
                evidence_refs=_refs(evidence_refs),
                timeout=duration(ttl),
                request_id=request_id or new_request_id(),
            ),
            timeout=timeout,
        )

    async def escalate_stage(
        self, run_id: str, stage_id: str, reason: str, *, timeout: float | None = None
    ) -> pb.EscalateStageResponse:
        """Escalate the current stage for audit (the run's coordinator): the run waits up to 24 h on
        ``audit_escalation`` for an operator's ruling (``resolve_escalation``). Not retried by a
        failover client: a repeat would answer WORKFLOW_NOT_RUNNING for an escalation that happened."""
        return await self._hub._call(
            self._rpc().EscalateStage,
            pb.EscalateStageRequest(run_id=run_id, stage_id=stage_id, reason=reason),
            timeout=timeout,
        )

    # -- an operator's steps ----------------------------------------------------------------------

    async def signal_run(
        self,
        run_id: str,
        signal_key: str,
        status: CheckpointStatusLike,
        *,
        delivery_id: str,
        summary: str = "",
        evidence: Mapping[str, str] | None = None,
        outcome: str = "",
        timeout: float | None = None,
    ) -> pb.SignalWorkflowRunResponse:
        """Deliver a signal to a waiting run as a signed signal webhook would (an operator).

        For a step run it resolves the current wait step with ``outcome`` (one of the step's
        ``on`` keys; empty: the status's, ``pass``, ``warning`` or ``fail``).

        ``delivery_id`` de-duplicates signals: the same id with the same key and fields returns
        the first answer with ``duplicate`` set; with others it is WORKFLOW_SIGNAL_DELIVERY_CONFLICT.
        A signal resumes the run as a checkpoint with its status would; the answer never carries
        the run. An ``audit_escalation`` wait takes ``resolve_escalation`` instead.
        """
        return await self._hub._call(
            self._rpc().SignalWorkflowRun,
            pb.SignalWorkflowRunRequest(
                run_id=run_id,
                signal_key=signal_key,
                delivery_id=delivery_id,
                status=checkpoint_status(status),
                summary=summary,
                evidence=_evidence(evidence),
                outcome=outcome,
            ),
            timeout=timeout,
        )

    async def approve_degradation(
        self, run_id: str, stage_id: str, requirement_key: str, reason: str, *, timeout: float | None = None
    ) -> pb.ApproveDegradationResponse:
        """Let a peer requirement pass with its policy's smaller minimum at the stage's active attempt
        (an operator). The same approval again returns it with ``duplicate`` set. It does not pass
        the stage: the coordinator's next passing checkpoint does."""
        return await self._hub._call(
            self._rpc().ApproveDegradation,
            pb.ApproveDegradationRequest(
                run_id=run_id, stage_id=stage_id, requirement_key=requirement_key, reason=reason
            ),
            timeout=timeout,
        )

    async def resolve_escalation(
        self,
        run_id: str,
        status: CheckpointStatusLike,
        ruling: str,
        *,
        evidence: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> pb.ResolveEscalationResponse:
        """Rule on an escalated stage (an operator): ``status`` is required (there is no default) and
        applies to the stage as a checkpoint's would; ``evidence`` is added. Not retried by a
        failover client: a repeat would answer WORKFLOW_NOT_WAITING for a ruling that applied."""
        return await self._hub._call(
            self._rpc().ResolveEscalation,
            pb.ResolveEscalationRequest(
                run_id=run_id, ruling=ruling, status=checkpoint_status(status), evidence=_evidence(evidence)
            ),
            timeout=timeout,
        )

    # -- helpers ----------------------------------------------------------------------------------

    async def request_review(
        self,
        run: workflow_types_pb2.WorkflowRun | str,
        stage_id: str,
        requirement_key: str,
        targets: str | Iterable[str],
        content: str,
        *,
        attempt: int | None = None,
        wait: float | None = None,
        ttl: float | None = None,
        allow_offline: bool = False,
        idempotency_key: str = "",
        timeout: float | None = None,
    ) -> list[str]:
        """Ask one to three peers for a review that counts as evidence for ``requirement_key`` of
        ``stage_id``; return the ids of the requests sent, in target order, to cite once replied::

            ids = await hub.workflows.request_review(run, "review", "Unit Tests", ["alice", "bob"], diff)
            ...  # the reviewers reply
            await hub.workflows.checkpoint(run.id, "review", "passed", evidence_refs={"unit tests": ids})

        Each request carries the workflow context the hub checks: the run id, the stage id, the
        requirement key canonicalised (trimmed, whitespace collapsed, lower case) and the stage's
        attempt: ``attempt`` if given, else the stage's ``active_attempt`` read from ``run`` (a
        ``WorkflowRun``; a run id is read with ``get_run`` first). One target is one
        ``messages.send``; several are one ``messages.fanout``. With ``wait`` seconds the call also
        waits that long for the replies (ids are returned whether or not they came).
        ``idempotency_key`` is the send's key (the fanout's prefix).

        The hub refuses the context unless the caller is the run's coordinator and the run is
        running with ``stage_id`` current and in progress at that attempt, the requirement has a
        peer policy, and each target is one of its eligible agents.

        Raises:
            PermissionDenied: one target: (WORKFLOW_CONTEXT_FORBIDDEN) the caller is not the
                coordinator of a run of its project; (WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN) the
                target is not eligible.
            FailedPrecondition: one target: (WORKFLOW_CONTEXT_INACTIVE, WORKFLOW_CONTEXT_ATTEMPT_MISMATCH).
            InvalidArgument: one target: (WORKFLOW_EVIDENCE_POLICY_MISSING) no peer policy for the key.
            ReviewNotSent: several targets: some were refused (for the reasons above); the others were sent.
            ValueError: ``run`` has no stage ``stage_id``.
        """
        if attempt is None:
            if isinstance(run, str):
                run = (await self.get_run(run, timeout=timeout)).run
            attempt = active_attempt(run, stage_id)
        run_id = run if isinstance(run, str) else run.id
        context = types_pb2.WorkflowMessageContext(
            run_id=run_id,
            stage_id=stage_id,
            requirement_key=canonical_requirement_key(requirement_key),
            attempt=attempt,
        )
        names = [targets] if isinstance(targets, str) else [*targets]
        messages = Messages(self._hub)
        if len(names) == 1:
            sent = await messages.send(
                names[0],
                content,
                idempotency_key=idempotency_key,
                ttl=ttl,
                allow_offline=allow_offline,
                workflow_context=context,
                timeout=timeout,
            )
            if wait:
                await messages.wait(sent.message.id, wait=wait)
            return [sent.message.id]
        fanned = await messages.fanout(
            names,
            content,
            idempotency_key_prefix=idempotency_key,
            workflow_context=context,
            ttl=ttl,
            wait=wait or 0.0,
            allow_offline=allow_offline,
        )
        ids = [result.message.id for result in fanned.results if result.HasField("message")]
        refused = {
            result.target: (result.error_reason, result.error_message)
            for result in fanned.results
            if not result.HasField("message")
        }
        if refused:
            raise ReviewNotSent(refused, ids)
        return ids
