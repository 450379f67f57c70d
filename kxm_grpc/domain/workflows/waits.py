"""Waits, signals, audit escalations and rulings, and the run's other ends (spec §2.9–§2.12).

A wait keeps the evidence given with it; a signal resumes the run as that stage's checkpoint (a
passing one with incomplete evidence is refused and the run keeps waiting); an escalation waits
24 h for an operator's ruling, which states its status (decision 110) and restarts the
auto-resume count. An overdue wait, an expired prompt, an early reply and a cancel end the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kxm_grpc.domain.workflows.checkpoints import (
    MICROS_PER_MS,
    CheckpointRequest,
    active_stage,
    check_oracles,
    checkpoint,
    enter_escalation,
    merged_evidence,
    merged_peer_evidence,
    require_complete,
    require_not_ended,
)
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import (
    PeerEvidence,
)
from kxm_grpc.domain.workflows.inputs import signal_key
from kxm_grpc.domain.workflows.outcomes import (
    FAILED_INSTRUCTION,
    WAIT_INSTRUCTION,
    EventKind,
    NewId,
    RunEvent,
    Step,
    with_events,
)
from kxm_grpc.domain.workflows.runs import (
    ESCALATION_SIGNAL_KEY,
    CheckpointStatus,
    Escalation,
    Run,
    RunStatus,
    StageStatus,
    Wait,
)
from kxm_grpc.errors import FailedPrecondition, Reason, invalid_field

WAIT_MIN_MS = 1_000

WAIT_MAX_MS = 2_592_000_000

WAIT_DEFAULT_MS = 86_400_000


@dataclass(frozen=True)
class WaitRequest:
    stage_id: str
    signal_key: str
    summary: str = ""
    evidence: Mapping[str, tuple[str, ...]] | None = None
    peer_evidence: Mapping[str, tuple[PeerEvidence, ...]] | None = None
    timeout_ms: int | None = None


def wait(run: Run, definition: WorkflowDefinition, request: WaitRequest, *, now: int) -> Step:
    """Put the current stage into a wait for ``signal_key`` (spec §2.9); evidence given is kept.

    Raises:
        FailedPrecondition: (WORKFLOW_NOT_RUNNING) the run is not running;
            (WORKFLOW_STAGE_OUT_OF_ORDER) the stage is not the current one.
        NotFound: (WORKFLOW_STAGE_NOT_FOUND).
        InvalidArgument: (INVALID_SIGNAL_KEY), (WORKFLOW_WAIT_INVALID) the timeout is out of range;
            (WEAKENED_REPRODUCTION) (PLAN_HASH_REQUIRED) as a checkpoint.
    """
    if run.status is not RunStatus.RUNNING:
        raise FailedPrecondition(
            f"workflow is {run.status.value}",
            reason=Reason.WORKFLOW_NOT_RUNNING,
            metadata={"runId": run.id, "status": run.status.value},
        )
    key = signal_key(request.signal_key)
    if key == ESCALATION_SIGNAL_KEY:
        raise invalid_field(
            "signal_key", "audit_escalation is the hub's: escalate the stage instead", reason=Reason.INVALID_SIGNAL_KEY
        )
    timeout = WAIT_DEFAULT_MS if request.timeout_ms is None else request.timeout_ms
    if not WAIT_MIN_MS <= timeout <= WAIT_MAX_MS:
        raise invalid_field(
            "timeout",
            f"must be between {WAIT_MIN_MS} ms and {WAIT_MAX_MS} ms",
            reason=Reason.WORKFLOW_WAIT_INVALID,
        )
    run = run.copy()
    stage, _ = active_stage(run, definition, request.stage_id)
    evidence = merged_evidence(stage.evidence, request.evidence or {})
    check_oracles(run, definition, stage.id, evidence)
    # Kept through the wait (unlike a failed checkpoint's): the signal's checkpoint counts them.
    stage.evidence = evidence
    stage.peer_evidence = merged_peer_evidence(stage.peer_evidence, request.peer_evidence or {})
    stage.status = StageStatus.WAITING
    stage.update_time = now
    run.status = RunStatus.WAITING
    run.wait = Wait(stage.id, key, request.summary, now, now + timeout * MICROS_PER_MS)
    run.update_time = now
    return Step(
        run,
        instruction=WAIT_INSTRUCTION.format(key=key),
        events=(RunEvent(EventKind.WAITING, stage.id, stage.active_attempt, request.summary, (f"signal:{key}",)),),
    )


@dataclass(frozen=True)
class SignalRequest:
    signal_key: str
    status: CheckpointStatus
    summary: str = ""
    evidence: Mapping[str, tuple[str, ...]] | None = None


def resume(run: Run, definition: WorkflowDefinition, signal: SignalRequest, *, now: int, new_id: NewId) -> Step:
    """Resume a waiting run with a signal, applied as that stage's checkpoint (spec §2.10 step 5).

    A passing signal whose evidence is still incomplete leaves the run waiting (refused).

    Raises:
        FailedPrecondition: (WORKFLOW_NOT_WAITING), (WORKFLOW_SIGNAL_MISMATCH) another key is
            awaited, (WORKFLOW_RULING_REQUIRED) the wait is an audit escalation,
            (WORKFLOW_WAIT_INCONSISTENT), (WORKFLOW_SIGNAL_CONTEXT_MISMATCH) the evidence names
            another run, stage or signal.
        InvalidArgument: as ``checkpoint`` (WORKFLOW_EVIDENCE_INCOMPLETE, oracles).
    """
    waiting = _awaited(run, signal.signal_key)
    if waiting.escalation:
        raise FailedPrecondition(
            "the stage waits on an audit escalation: only an operator's ruling resolves it",
            reason=Reason.WORKFLOW_RULING_REQUIRED,
            metadata={"runId": run.id, "stageId": waiting.stage_id, "nextAction": "ask an operator to rule"},
        )
    _check_signal_context(run, waiting, signal.evidence or {})
    return _resume(
        run, definition, waiting, signal.status, signal.summary, signal.evidence or {}, now=now, new_id=new_id
    )


def _awaited(run: Run, key: str) -> Wait:
    if run.status is not RunStatus.WAITING or run.wait is None:
        raise FailedPrecondition(
            f"workflow is {run.status.value}, not waiting",
            reason=Reason.WORKFLOW_NOT_WAITING,
            metadata={"runId": run.id, "status": run.status.value},
        )
    if key != run.wait.signal_key:
        raise FailedPrecondition(
            f"the run is waiting for {run.wait.signal_key}",
            reason=Reason.WORKFLOW_SIGNAL_MISMATCH,
            metadata={"runId": run.id, "signalKey": key, "awaitedSignalKey": run.wait.signal_key},
        )
    stage = run.stage(run.wait.stage_id)
    if run.current_stage != run.wait.stage_id or stage is None or stage.status is not StageStatus.WAITING:
        raise FailedPrecondition(
            "the run's wait and its current stage disagree",
            reason=Reason.WORKFLOW_WAIT_INCONSISTENT,
            metadata={"runId": run.id, "stageId": run.wait.stage_id},
        )
    return run.wait


def _check_signal_context(run: Run, waiting: Wait, evidence: Mapping[str, tuple[str, ...]]) -> None:
    expected = {"workflow.run": run.id, "workflow.stage": waiting.stage_id, "workflow.signal": waiting.signal_key}
    for key, value in expected.items():
        given = evidence.get(key)
        if given is not None and given != (value,):
            raise FailedPrecondition(
                f"evidence {key} names {given[0]!r}, not {value!r}",
                reason=Reason.WORKFLOW_SIGNAL_CONTEXT_MISMATCH,
                metadata={"runId": run.id, "evidenceKey": key},
            )


def _resume(
    run: Run,
    definition: WorkflowDefinition,
    waiting: Wait,
    status: CheckpointStatus,
    summary: str,
    evidence: Mapping[str, tuple[str, ...]],
    *,
    now: int,
    new_id: NewId,
) -> Step:
    resumed = run.copy()
    stage = resumed.stage(waiting.stage_id)
    assert stage is not None
    if status is CheckpointStatus.PASSED:
        spec = definition.stage(stage.id)
        assert spec is not None
        require_complete(resumed, spec, stage, merged_evidence(stage.evidence, evidence), stage.peer_evidence)
    resumed.status = RunStatus.RUNNING
    resumed.wait = None
    stage.status = StageStatus.IN_PROGRESS
    return checkpoint(
        resumed,
        definition,
        CheckpointRequest(stage.id, status, summary, evidence),
        now=now,
        new_id=new_id,
    )


def escalate(run: Run, definition: WorkflowDefinition, stage_id: str, reason: str, *, by: str, now: int) -> Step:
    """Escalate the current stage for audit: it waits for an operator's ruling for 24 h (spec §2.12).

    Raises:
        FailedPrecondition: (WORKFLOW_NOT_RUNNING), (WORKFLOW_STAGE_OUT_OF_ORDER).
        NotFound: (WORKFLOW_STAGE_NOT_FOUND).
    """
    if run.status is not RunStatus.RUNNING:
        raise FailedPrecondition(
            f"workflow is {run.status.value}",
            reason=Reason.WORKFLOW_NOT_RUNNING,
            metadata={"runId": run.id, "status": run.status.value},
        )
    run = run.copy()
    stage, _ = active_stage(run, definition, stage_id)
    return enter_escalation(run, stage, reason, by=by, now=now)


def rule(
    run: Run,
    definition: WorkflowDefinition,
    *,
    ruling: str,
    status: CheckpointStatus,
    ruled_by: str,
    evidence: Mapping[str, tuple[str, ...]] | None = None,
    now: int,
    new_id: NewId,
) -> Step:
    """An operator's ruling on an audit escalation, applied as the stage's checkpoint.

    ``status`` has no default (the original defaulted to passed: spec §11.3).

    Raises:
        FailedPrecondition: (WORKFLOW_NOT_WAITING), (WORKFLOW_SIGNAL_MISMATCH) the run waits on
            something else than an escalation; as ``checkpoint``.
    """
    waiting = _awaited(run, ESCALATION_SIGNAL_KEY)
    ruled = run.copy()
    stage = ruled.stage(waiting.stage_id)
    assert stage is not None and stage.escalation is not None
    stage.escalation = Escalation(
        stage.escalation.reason,
        stage.escalation.escalate_time,
        stage.escalation.escalated_by,
        ruling=ruling,
        ruling_status=status,
        ruled_by=ruled_by,
        rule_time=now,
    )
    # The ruling's own checkpoint is the first attempt since it: the auto-resume count starts again.
    stage.resumed_at = stage.attempts + 1
    step = _resume(
        ruled,
        definition,
        waiting,
        status,
        f"Resumed by operator ruling: {ruling}",
        evidence or {},
        now=now,
        new_id=new_id,
    )
    kept = step.run.stage(waiting.stage_id)
    if kept is not None and kept.escalation is None:
        kept.escalation = stage.escalation  # a transition re-entered the stage: keep the record of the ruling
    event = RunEvent(
        EventKind.RULED, waiting.stage_id, stage.active_attempt, ruling, (f"status:{status.value}", f"by:{ruled_by}")
    )
    return with_events(step, [event])


def expire_wait(run: Run, *, now: int) -> Step | None:
    """Fail a run whose wait is overdue (spec §2.11); None when it is not waiting or not due."""
    if run.status is not RunStatus.WAITING or run.wait is None or run.wait.expire_time > now:
        return None
    run = run.copy()
    waiting = run.wait
    assert waiting is not None
    stage = run.stage(waiting.stage_id)
    summary = f"wait for {waiting.signal_key} timed out"
    if stage is not None:
        stage.status = StageStatus.FAILED
        stage.summary = summary
        stage.complete_time = now
        stage.update_time = now
    run.end(RunStatus.FAILED, now, summary)
    return Step(
        run,
        instruction=FAILED_INSTRUCTION,
        events=(
            RunEvent(
                EventKind.WAIT_EXPIRED,
                waiting.stage_id,
                stage.active_attempt if stage else None,
                summary,
                (
                    f"wait-created:{waiting.create_time}",
                    f"wait-expired:{waiting.expire_time}",
                    f"signal:{waiting.signal_key}",
                ),
            ),
            RunEvent(EventKind.FAILED, waiting.stage_id, None, summary),
        ),
    )


def fail(run: Run, reason: str, *, now: int, evidence: tuple[str, ...] = ()) -> Step:
    """End a running or waiting run as failed (its prompt expired, its coordinator settled early).

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) it has ended.
    """
    require_not_ended(run)
    run = run.copy()
    stage_id = run.current_stage
    run.end(RunStatus.FAILED, now, reason)
    return Step(
        run, instruction=FAILED_INSTRUCTION, events=(RunEvent(EventKind.FAILED, stage_id, None, reason, evidence),)
    )


def cancel(run: Run, *, reason: str, by: str, now: int) -> Step:
    """End a run at an operator's request (CancelWorkflowRun).

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) it has ended.
    """
    require_not_ended(run)
    run = run.copy()
    stage_id = run.current_stage
    run.end(RunStatus.CANCELLED, now, reason or f"cancelled by {by}")
    return Step(
        run,
        instruction=FAILED_INSTRUCTION,
        events=(RunEvent(EventKind.CANCELLED, stage_id, None, run.end_reason, (f"by:{by}",)),),
    )
