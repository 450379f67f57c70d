"""Checkpoints (spec §2.4): one attempt of the current stage, and where it leads.

A refused checkpoint changes nothing; otherwise one attempt is consumed and the run moves: a
retry, the next stage, a declared transition within its budgets (§2.7), an escalation at the
auto-resume limit, or the run's end. The captured plan hash and reproduction oracle are enforced
on every later checkpoint (§2.8, decision 109). Evidence, cited replies and approvals count only
for the active attempt of the stage's current visit (decision 108). Waits, signals, rulings and
the run's other ends are ``waits``; degradation approvals ``approvals``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kxm_grpc.domain.workflows.definitions import TERMINAL, Edge, StageDefinition, WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import (
    DegradationApproval,
    PeerEvidence,
    QuorumStatus,
    ResolvedPolicy,
    merge_snapshots,
    quorum,
)
from kxm_grpc.domain.workflows.inputs import MAX_TRANSITION_EVIDENCE_KEYS
from kxm_grpc.domain.workflows.outcomes import (
    COMPLETED_INSTRUCTION,
    ESCALATION_INSTRUCTION,
    FAILED_INSTRUCTION,
    RETRY_INSTRUCTION,
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
    EvidenceHash,
    Run,
    RunStatus,
    StageState,
    StageStatus,
    Transition,
    Wait,
    evidence_sha256,
)
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, NotFound, Reason, invalid_field

_STATUSES = frozenset(status.value for status in CheckpointStatus)
ESCALATION_WAIT_MS = 86_400_000
"""How long an audit escalation waits for a ruling before it fails the run (24 h)."""
MICROS_PER_MS = 1_000


@dataclass(frozen=True)
class CheckpointRequest:
    """A checkpoint as the service validated it (``evidence`` canonical, ``peer_evidence`` verified)."""

    stage_id: str
    status: CheckpointStatus
    summary: str = ""
    evidence: Mapping[str, tuple[str, ...]] | None = None
    peer_evidence: Mapping[str, tuple[PeerEvidence, ...]] | None = None
    outcome: str | None = None


def start(
    definition: WorkflowDefinition,
    *,
    run_id: str,
    coordinator_id: str,
    coordinator_name: str,
    delivery_id: str,
    payload_sha256: str,
    prompt_message_id: str,
    policies: dict[str, dict[str, ResolvedPolicy]] | None = None,
    event: str = "",
    now: int,
) -> Run:
    """A new run of ``definition``: its first stage in progress, the others pending."""
    stages = [StageState(stage.id) for stage in definition.stages]
    run = Run(
        id=run_id,
        definition_id=definition.id,
        definition_hash=definition.hash,
        project=definition.project,
        coordinator_id=coordinator_id,
        coordinator_name=coordinator_name,
        delivery_id=delivery_id,
        payload_sha256=payload_sha256,
        prompt_message_id=prompt_message_id,
        stages=stages,
        policies=dict(policies or {}),
        create_time=now,
        update_time=now,
        event=event,
    )
    stages[0].enter(now, reset=True)
    run.current_stage = stages[0].id
    return run


def checkpoint(
    run: Run, definition: WorkflowDefinition, request: CheckpointRequest, *, now: int, new_id: NewId
) -> Step:
    """Apply a checkpoint (spec §2.4): refused without change, or one attempt consumed.

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) the run is not running; (WORKFLOW_STAGE_OUT_OF_ORDER)
            the stage is not the current one in progress; (WORKFLOW_EVIDENCE_POLICY_UNRESOLVED).
        NotFound: (WORKFLOW_STAGE_NOT_FOUND) the definition has no such stage.
        InvalidArgument: (INVALID_WORKFLOW_EVIDENCE_REFS) peer evidence on a non-passing
            checkpoint; (WEAKENED_REPRODUCTION) (PLAN_HASH_REQUIRED) an oracle is not met;
            (WORKFLOW_EVIDENCE_INCOMPLETE) a pass lacks required evidence, listed in metadata.
    """
    if run.status is not RunStatus.RUNNING:
        raise FailedPrecondition(
            f"workflow is {run.status.value}",
            reason=Reason.WORKFLOW_TERMINAL,
            metadata={"runId": run.id, "status": run.status.value},
        )
    if request.outcome in _STATUSES and request.outcome != request.status.value:
        # A failing checkpoint naming the outcome "passed" would take the stage's passed edge
        # without its evidence: an outcome that is a status must be the checkpoint's own.
        raise invalid_field(
            "outcome",
            f"names the status {request.outcome!r}, not the checkpoint's {request.status.value!r}; "
            "a custom outcome is any other word",
        )
    run = run.copy()
    stage, spec = active_stage(run, definition, request.stage_id)
    if request.peer_evidence and request.status is not CheckpointStatus.PASSED:
        raise invalid_field(
            "evidence_refs",
            "are accepted only on a passing checkpoint",
            reason=Reason.INVALID_WORKFLOW_EVIDENCE_REFS,
        )
    evidence = merged_evidence(stage.evidence, request.evidence or {})
    peer = merged_peer_evidence(stage.peer_evidence, request.peer_evidence or {})
    check_oracles(run, definition, stage.id, evidence)
    statuses: dict[str, QuorumStatus] = {}
    if request.status is CheckpointStatus.PASSED:
        statuses = require_complete(run, spec, stage, evidence, peer)

    stage.attempts += 1
    stage.summary = request.summary
    stage.update_time = now
    run.update_time = now
    outcome = request.outcome or request.status.value
    if request.status is CheckpointStatus.PASSED:
        return _passed(run, definition, stage, spec, evidence, peer, statuses, outcome, now=now, new_id=new_id)
    return _not_passed(run, definition, stage, spec, request, evidence, outcome, now=now, new_id=new_id)


def require_active(run: Run, definition: WorkflowDefinition, stage_id: str) -> None:
    """Refuse a step on a run that is not running or a stage that is not the current one in progress
    (what a checkpoint checks first, before any cited reply is verified).

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) (WORKFLOW_STAGE_OUT_OF_ORDER).
        NotFound: (WORKFLOW_STAGE_NOT_FOUND).
    """
    if run.status is not RunStatus.RUNNING:
        raise FailedPrecondition(
            f"workflow is {run.status.value}",
            reason=Reason.WORKFLOW_TERMINAL,
            metadata={"runId": run.id, "status": run.status.value},
        )
    active_stage(run, definition, stage_id)


def active_stage(run: Run, definition: WorkflowDefinition, stage_id: str) -> tuple[StageState, StageDefinition]:
    spec = definition.stage(stage_id)
    stage = run.stage(stage_id)
    if spec is None or stage is None:
        raise NotFound(
            f"workflow {definition.id} has no stage {stage_id!r}",
            reason=Reason.WORKFLOW_STAGE_NOT_FOUND,
            metadata={"runId": run.id, "stageId": stage_id},
        )
    if run.current_stage != stage_id or stage.status is not StageStatus.IN_PROGRESS:
        raise FailedPrecondition(
            f"stage {stage_id} is not currently active (the current stage is {run.current_stage})",
            reason=Reason.WORKFLOW_STAGE_OUT_OF_ORDER,
            metadata={"runId": run.id, "stageId": stage_id, "currentStageId": run.current_stage or ""},
        )
    return stage, spec


def merged_evidence(
    stored: Mapping[str, tuple[str, ...]], incoming: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    merged = dict(stored)
    for key, values in incoming.items():
        seen = list(merged.get(key, ()))
        seen += [value for value in values if value not in seen]
        merged[key] = tuple(seen)
    return merged


def merged_peer_evidence(
    stored: Mapping[str, tuple[PeerEvidence, ...]], incoming: Mapping[str, tuple[PeerEvidence, ...]]
) -> dict[str, tuple[PeerEvidence, ...]]:
    merged = dict(stored)
    for key, snapshots in incoming.items():
        merged[key] = merge_snapshots(merged.get(key, ()), snapshots)
    return merged


def check_oracles(
    run: Run, definition: WorkflowDefinition, stage_id: str, evidence: Mapping[str, tuple[str, ...]]
) -> None:
    """Refuse a checkpoint that drops or changes a captured reproduction or plan (every status).

    Once captured, the reproduction must be presented unchanged by every later checkpoint of
    every stage, and the plan by every later checkpoint of its own stage and of the stages that
    require it: the original checked only when the key was presented, so omitting it passed
    (spec §11.6).
    """
    oracle = run.repro_oracle
    if oracle is not None and evidence_sha256(evidence.get(oracle.evidence_key, ())) != oracle.sha256:
        raise InvalidArgument(
            f"the reproduction captured at stage {oracle.stage_id} must be presented unchanged "
            f"under evidence key {oracle.evidence_key!r}",
            reason=Reason.WEAKENED_REPRODUCTION,
            metadata={"runId": run.id, "stageId": stage_id, "evidenceKey": oracle.evidence_key},
        )
    plan = run.plan_hash
    if (
        plan is not None
        and stage_id == plan.stage_id
        and evidence_sha256(evidence.get(plan.evidence_key, ())) != plan.sha256
    ):
        # Captured once: going back to the plan stage cannot replace the plan the later stages need.
        raise InvalidArgument(
            f"the plan captured at stage {plan.stage_id} must be presented unchanged under evidence key "
            f"{plan.evidence_key!r}; a new plan needs a new run",
            reason=Reason.PLAN_HASH_REQUIRED,
            metadata={"runId": run.id, "stageId": stage_id, "evidenceKey": plan.evidence_key},
        )
    if stage_id in definition.require_plan_hash:
        if plan is None:
            raise FailedPrecondition(
                f"stage {stage_id} needs the plan hash, which no passing checkpoint captured yet",
                reason=Reason.PLAN_HASH_REQUIRED,
                metadata={"runId": run.id, "stageId": stage_id},
            )
        if evidence_sha256(evidence.get(plan.evidence_key, ())) != plan.sha256:
            raise InvalidArgument(
                f"stage {stage_id} must present the plan captured at stage {plan.stage_id} unchanged "
                f"under evidence key {plan.evidence_key!r}",
                reason=Reason.PLAN_HASH_REQUIRED,
                metadata={"runId": run.id, "stageId": stage_id, "evidenceKey": plan.evidence_key},
            )


def quorums(
    run: Run, stage: StageState, peer: Mapping[str, tuple[PeerEvidence, ...]], *, settled: bool = False
) -> dict[str, QuorumStatus]:
    """Each peer requirement's quorum at the stage's active attempt of its current visit; with
    ``settled``, at the attempt the stage ended on (how a passed stage's quorum was met)."""
    attempt = max(1, stage.attempts) if settled else stage.active_attempt
    return {
        key: quorum(
            policy,
            peer.get(key, ()),
            stage_id=stage.id,
            visit=stage.visit,
            attempt=attempt,
            approval=approval_for(run, stage, key, attempt),
        )
        for key, policy in run.policies_of(stage.id).items()
    }


def require_complete(
    run: Run,
    spec: StageDefinition,
    stage: StageState,
    evidence: Mapping[str, tuple[str, ...]],
    peer: Mapping[str, tuple[PeerEvidence, ...]],
) -> dict[str, QuorumStatus]:
    """Every required key satisfied: a quorum for a peer requirement, a value for the others.

    Raises:
        FailedPrecondition: (WORKFLOW_EVIDENCE_POLICY_UNRESOLVED) a declared policy has no
            resolution on the run.
        InvalidArgument: (WORKFLOW_EVIDENCE_INCOMPLETE) keys are missing.
    """
    policies = run.policies_of(stage.id)
    unresolved = [key for key in spec.policies if key not in policies]
    if unresolved:
        raise FailedPrecondition(
            f"the evidence policies for {', '.join(unresolved)} were not resolved when the run started",
            reason=Reason.WORKFLOW_EVIDENCE_POLICY_UNRESOLVED,
            metadata={"runId": run.id, "stageId": stage.id, "requirementKey": unresolved[0]},
        )
    statuses = quorums(run, stage, peer)
    missing = [
        key for key in spec.required_evidence if (not statuses[key].met if key in statuses else not evidence.get(key))
    ]
    if missing:
        provided = [key for key in spec.required_evidence if key not in missing]
        raise InvalidArgument(
            f"missing required evidence: {', '.join(missing)}",
            reason=Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
            metadata={
                "runId": run.id,
                "stageId": stage.id,
                "missingRequirements": ",".join(missing),
                "providedRequirements": ",".join(provided),
                "peerRequirements": ",".join(statuses),
                # How far each peer requirement got, e.g. "review=1/2": the refusal stores nothing.
                "quorum": ",".join(f"{key}={status.counted}/{status.required}" for key, status in statuses.items()),
                "nextAction": "present every required key (peer requirements: cite verified replies)",
            },
        )
    return statuses


def approval_for(run: Run, stage: StageState, key: str, attempt: int | None = None) -> DegradationApproval | None:
    wanted = (stage.id, key, stage.visit, stage.active_attempt if attempt is None else attempt)
    return next(
        (a for a in run.approvals if (a.stage_id, a.requirement_key, a.visit, a.attempt) == wanted),
        None,
    )


def _passed(
    run: Run,
    definition: WorkflowDefinition,
    stage: StageState,
    spec: StageDefinition,
    evidence: dict[str, tuple[str, ...]],
    peer: dict[str, tuple[PeerEvidence, ...]],
    statuses: Mapping[str, QuorumStatus],
    outcome: str,
    *,
    now: int,
    new_id: NewId,
) -> Step:
    # Only a passing checkpoint stores what was accumulated (a failed one presents it again).
    stage.evidence = evidence
    stage.peer_evidence = peer
    stage.degraded_requirements = tuple(key for key, status in statuses.items() if status.degraded)
    stage.status = StageStatus.PASSED
    stage.complete_time = now
    _capture_oracles(run, definition, stage, now)
    events: list[RunEvent] = []
    if stage.degraded_requirements:
        events.append(
            RunEvent(
                EventKind.DEGRADED_PASS,
                stage.id,
                stage.attempts,
                f"stage {stage.id} passed with an approved degraded quorum",
                ("class:workflow_quorum_degradation_used", *(f"requirement:{k}" for k in stage.degraded_requirements)),
            )
        )
    edge = spec.edges.get(outcome)
    if edge is not None:
        step = _take(
            run, definition, stage, spec, edge, outcome, evidence, settled=StageStatus.PASSED, now=now, new_id=new_id
        )
        return with_events(step, events, degraded=stage.degraded_requirements)
    following = next((s for s in run.stages if s.status is StageStatus.PENDING), None)
    if following is None:
        run.end(RunStatus.COMPLETED, now)
        events.append(RunEvent(EventKind.COMPLETED, stage.id, stage.attempts, "workflow run completed"))
        return Step(
            run,
            completed=True,
            degraded_requirements=stage.degraded_requirements,
            instruction=COMPLETED_INSTRUCTION,
            events=tuple(events),
        )
    _enter(run, following, now, reset=False)
    return Step(
        run,
        degraded_requirements=stage.degraded_requirements,
        instruction=f"Continue with stage {following.id}.",
        events=tuple(events),
    )


def _capture_oracles(run: Run, definition: WorkflowDefinition, stage: StageState, now: int) -> None:
    for config, attribute in ((definition.repro_oracle, "repro_oracle"), (definition.plan_hash, "plan_hash")):
        if config is None or config.stage_id != stage.id or not stage.evidence.get(config.evidence_key):
            continue
        if getattr(run, attribute) is not None:
            continue  # captured once: a later pass of the same stage must present it unchanged (checked)
        captured = EvidenceHash(
            stage.id, config.evidence_key, evidence_sha256(stage.evidence[config.evidence_key]), now
        )
        setattr(run, attribute, captured)


def _not_passed(
    run: Run,
    definition: WorkflowDefinition,
    stage: StageState,
    spec: StageDefinition,
    request: CheckpointRequest,
    evidence: Mapping[str, tuple[str, ...]],
    outcome: str,
    *,
    now: int,
    new_id: NewId,
) -> Step:
    note = RunEvent(
        EventKind.CHECKPOINT_NOT_PASSED,
        stage.id,
        stage.attempts,
        request.summary or f"stage {stage.id} checkpoint {request.status.value}",
        (f"status:{request.status.value}", f"stage:{stage.id}"),
    )
    if stage.attempts >= spec.max_attempts:
        stage.status = StageStatus(request.status.value)
        stage.complete_time = now
        run.end(RunStatus.FAILED, now, f"stage {stage.id} used its {spec.max_attempts} attempts")
        return Step(
            run,
            exhausted=True,
            instruction=FAILED_INSTRUCTION,
            events=(
                note,
                RunEvent(
                    EventKind.ATTEMPTS_EXHAUSTED, stage.id, stage.attempts, run.end_reason, (f"stage:{stage.id}",)
                ),
                RunEvent(EventKind.FAILED, stage.id, stage.attempts, run.end_reason),
            ),
        )
    if spec.auto_resume_limit is not None and stage.attempts - stage.resumed_at >= spec.auto_resume_limit:
        reason = request.summary or f"autoResumeLimit of {spec.auto_resume_limit} reached on stage {stage.id}"
        stage.evidence = dict(evidence)  # kept, as a wait keeps it: the ruling judges what was presented
        step = enter_escalation(run, stage, reason, by="hub", now=now)
        return with_events(step, [note])
    edge = spec.edges.get(outcome)
    if edge is not None:
        settled = StageStatus(request.status.value)
        step = _take(run, definition, stage, spec, edge, outcome, evidence, settled=settled, now=now, new_id=new_id)
        return with_events(step, [note])
    stage.status = StageStatus.IN_PROGRESS
    return Step(run, retry=True, instruction=RETRY_INSTRUCTION, events=(note,))


def _enter(run: Run, stage: StageState, now: int, *, reset: bool) -> None:
    stage.enter(now, reset=reset)
    run.current_stage = stage.id


def budget_exhausted(run: Run, definition: WorkflowDefinition, spec: StageDefinition, edge: Edge) -> str | None:
    """Which budget taking ``edge`` from ``spec`` would exceed (edge, stage, run), or None.

    Counted from the run's durable transition list, so budgets hold across restarts.
    """
    from_stage = [t for t in run.transitions if t.from_stage == spec.id]
    on_edge = [t for t in from_stage if (t.outcome, t.to_stage) == (edge.outcome, edge.target)]
    if edge.max_transitions is not None and len(on_edge) >= edge.max_transitions:
        return f"edge {spec.id} -({edge.outcome})-> {edge.target} used its {edge.max_transitions} transitions"
    if spec.max_transitions is not None and len(from_stage) >= spec.max_transitions:
        return f"stage {spec.id} used its {spec.max_transitions} transitions"
    if definition.max_transitions is not None and len(run.transitions) >= definition.max_transitions:
        return f"the run used its {definition.max_transitions} transitions"
    return None


def _take(
    run: Run,
    definition: WorkflowDefinition,
    stage: StageState,
    spec: StageDefinition,
    edge: Edge,
    outcome: str,
    evidence: Mapping[str, tuple[str, ...]],
    *,
    settled: StageStatus,
    now: int,
    new_id: NewId,
) -> Step:
    """Take a declared edge, or fail the run when a budget is spent (then nothing is recorded).

    ``settled`` is the status the checkpoint gave the source stage (passed, warning, failed).
    """
    passed = settled is StageStatus.PASSED
    exhausted = budget_exhausted(run, definition, spec, edge)
    self_edge = edge.target == stage.id
    target_spec = definition.stage(edge.target) if edge.target != TERMINAL else None
    if exhausted is None and self_edge and target_spec is not None and stage.attempts >= target_spec.max_attempts:
        # A self-edge keeps the attempts it consumed: it never buys more than maxAttempts.
        exhausted = f"stage {stage.id} used its {spec.max_attempts} attempts"
    if exhausted is not None:
        stage.complete_time = now
        stage.status = settled
        run.end(RunStatus.FAILED, now, exhausted)
        return Step(
            run,
            exhausted=True,
            instruction=FAILED_INSTRUCTION,
            events=(
                RunEvent(
                    EventKind.BUDGET_EXHAUSTED,
                    stage.id,
                    stage.attempts,
                    exhausted,
                    ("class:transition_budget_exhausted", f"stage:{stage.id}"),
                ),
                RunEvent(EventKind.FAILED, stage.id, stage.attempts, exhausted),
            ),
        )
    keys = tuple(list(evidence)[:MAX_TRANSITION_EVIDENCE_KEYS])
    record = Transition(new_id("trans"), stage.id, edge.target, outcome, stage.attempts, keys, now)
    run.transitions.append(record)
    moved = RunEvent(
        EventKind.TRANSITION,
        stage.id,
        stage.attempts,
        f"typed transition {stage.id} -> {edge.target} ({outcome})",
        tuple(f"requirement:{key}" for key in keys),
    )
    if edge.target == TERMINAL:
        stage.status = settled
        stage.complete_time = now
        run.end(RunStatus.COMPLETED, now)
        completed = RunEvent(EventKind.COMPLETED, stage.id, stage.attempts, "workflow run completed")
        return Step(
            run, completed=True, transition=record, instruction=COMPLETED_INSTRUCTION, events=(moved, completed)
        )
    target = run.stage(edge.target)
    assert target is not None  # the definition's load rules make every target a stage
    if not passed and not self_edge:
        stage.status = StageStatus.PENDING
    _enter(run, target, now, reset=not self_edge)
    return Step(run, transition=record, instruction=f"Continue with stage {target.id}.", events=(moved,))


def enter_escalation(run: Run, stage: StageState, reason: str, *, by: str, now: int) -> Step:
    stage.status = StageStatus.WAITING
    stage.escalation = Escalation(reason, now, by)
    stage.update_time = now
    run.status = RunStatus.WAITING
    run.wait = Wait(stage.id, ESCALATION_SIGNAL_KEY, reason, now, now + ESCALATION_WAIT_MS * MICROS_PER_MS)
    run.update_time = now
    return Step(
        run,
        escalated=True,
        instruction=ESCALATION_INSTRUCTION,
        events=(RunEvent(EventKind.ESCALATED, stage.id, stage.active_attempt, reason, (f"stage:{stage.id}",)),),
    )


def require_not_ended(run: Run) -> None:
    if run.status.ended:
        raise FailedPrecondition(
            f"workflow is {run.status.value}",
            reason=Reason.WORKFLOW_TERMINAL,
            metadata={"runId": run.id, "status": run.status.value},
        )
