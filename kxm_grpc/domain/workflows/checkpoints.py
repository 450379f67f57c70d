"""How a run moves: checkpoints, declared transitions and budgets, waits, signals, escalations.

Every function takes a run and its pinned definition and returns a new run (the argument is
never changed), so a refused step leaves nothing half done and a service stores the result in
one transaction. The order of checks and effects is the spec's (workflow-context.md §2.4, §2.7,
§2.9–§2.12), with the fixes decided in docs/decisions.md: a visit counter binds evidence,
approvals and cited replies to one entry into a stage; the reproduction oracle and the plan hash
are enforced on every later checkpoint, presented or not, and hash a JSON array; the signal
secret is separate and an audit escalation is resolved by an operator's ruling only.

Each step also returns ``RunEvent`` records: what the hub journals about it (the journal issue
writes them in the same transaction) and what outbound notifications report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kxm_grpc.domain import validation
from kxm_grpc.domain.messages import canonical_requirement_key
from kxm_grpc.domain.workflows.definitions import TERMINAL, Edge, StageDefinition, WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import (
    DegradationApproval,
    PeerEvidence,
    QuorumStatus,
    ResolvedPolicy,
    merge_snapshots,
    quorum,
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

NewId = Callable[[str], str]
_STATUSES = frozenset(status.value for status in CheckpointStatus)

MAX_EVIDENCE_KEYS = 64
MAX_EVIDENCE_KEY_CHARS = 128
MAX_EVIDENCE_VALUE_CHARS = 1_000
MAX_SUMMARY_CHARS = 4_000
MAX_OUTCOME_CHARS = 64
MAX_TRANSITION_EVIDENCE_KEYS = 32
MAX_SIGNAL_KEY_CHARS = 128
SIGNAL_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
WAIT_MIN_MS = 1_000
WAIT_MAX_MS = 2_592_000_000
WAIT_DEFAULT_MS = 86_400_000
ESCALATION_WAIT_MS = 86_400_000
MICROS_PER_MS = 1_000

RETRY_INSTRUCTION = "Correct the stage and checkpoint it again."
COMPLETED_INSTRUCTION = "The workflow run is completed."
FAILED_INSTRUCTION = "The workflow run failed; stop working on it."
WAIT_INSTRUCTION = "The run waits for signal {key}; you may settle your turn: a resume prompt will follow."
ESCALATION_INSTRUCTION = "The stage is escalated for audit; an operator's ruling resumes it."


class EventKind:
    """What a step reports for the journal and the outbound notifications (plain strings)."""

    CHECKPOINT_NOT_PASSED = "checkpoint_not_passed"
    TRANSITION = "transition"
    BUDGET_EXHAUSTED = "budget_exhausted"
    ATTEMPTS_EXHAUSTED = "attempts_exhausted"
    ESCALATED = "escalated"
    RULED = "ruled"
    DEGRADED_PASS = "degraded_pass"
    WAITING = "waiting"
    WAIT_EXPIRED = "wait_expired"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class RunEvent:
    kind: str
    stage_id: str | None
    attempt: int | None
    summary: str
    evidence: tuple[str, ...] = ()
    """Short ``class:value`` strings (never bodies) naming what the event is about."""


@dataclass(frozen=True)
class CheckpointRequest:
    """A checkpoint as the service validated it (``evidence`` canonical, ``peer_evidence`` verified)."""

    stage_id: str
    status: CheckpointStatus
    summary: str = ""
    evidence: Mapping[str, tuple[str, ...]] | None = None
    peer_evidence: Mapping[str, tuple[PeerEvidence, ...]] | None = None
    outcome: str | None = None


@dataclass(frozen=True)
class Step:
    """A step's result: the new run, what it means for the coordinator, and what to journal."""

    run: Run
    retry: bool = False
    completed: bool = False
    exhausted: bool = False
    escalated: bool = False
    transition: Transition | None = None
    degraded_requirements: tuple[str, ...] = ()
    instruction: str = ""
    events: tuple[RunEvent, ...] = ()


# -- request fields -------------------------------------------------------------------------------


def parse_evidence(raw: Mapping[str, str], *, field: str = "evidence") -> dict[str, tuple[str, ...]]:
    """Canonicalise an evidence map (key → one value): ≤ 64 keys, keys ≤ 128, values 1–1,000.

    Raises:
        InvalidArgument: (INVALID_WORKFLOW_EVIDENCE) a limit is broken, or two keys are equal
            once canonicalised (``Lint`` and `` lint ``).
    """
    if len(raw) > MAX_EVIDENCE_KEYS:
        raise invalid_field(field, f"has more than {MAX_EVIDENCE_KEYS} keys", reason=Reason.INVALID_WORKFLOW_EVIDENCE)
    parsed: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        canonical = canonical_requirement_key(key)
        if not canonical or validation.utf16_length(canonical) > MAX_EVIDENCE_KEY_CHARS:
            raise invalid_field(
                f"{field}[{key!r}]",
                f"keys are 1-{MAX_EVIDENCE_KEY_CHARS} characters",
                reason=Reason.INVALID_WORKFLOW_EVIDENCE,
            )
        if canonical in parsed:
            raise invalid_field(
                f"{field}[{key!r}]",
                f"names the same requirement as another key ({canonical!r}) once canonicalised",
                reason=Reason.INVALID_WORKFLOW_EVIDENCE,
            )
        text = validation.js_trim(value)
        if not text or validation.utf16_length(text) > MAX_EVIDENCE_VALUE_CHARS:
            raise invalid_field(
                f"{field}[{key!r}]",
                f"values are 1-{MAX_EVIDENCE_VALUE_CHARS} characters",
                reason=Reason.INVALID_WORKFLOW_EVIDENCE,
            )
        parsed[canonical] = (text,)
    return parsed


def summary_text(value: str, *, field: str = "summary") -> str:
    """A trimmed summary of at most 4,000 characters (empty allowed).

    Raises:
        InvalidArgument: it is longer.
    """
    return validation.optional_text(field, value, MAX_SUMMARY_CHARS)


def signal_key(value: str, *, field: str = "signal_key") -> str:
    """A signal key: ``[A-Za-z0-9][A-Za-z0-9._:-]*``, at most 128 characters.

    Raises:
        InvalidArgument: (INVALID_SIGNAL_KEY) it is not.
    """
    text = validation.js_trim(value)
    if len(text) > MAX_SIGNAL_KEY_CHARS or not SIGNAL_KEY.fullmatch(text):
        raise invalid_field(
            field,
            f"must match [A-Za-z0-9][A-Za-z0-9._:-]* and be at most {MAX_SIGNAL_KEY_CHARS} characters",
            reason=Reason.INVALID_SIGNAL_KEY,
        )
    return text


# -- start ----------------------------------------------------------------------------------------


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


# -- checkpoint -----------------------------------------------------------------------------------


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
    stage, spec = _active_stage(run, definition, request.stage_id)
    if request.peer_evidence and request.status is not CheckpointStatus.PASSED:
        raise invalid_field(
            "evidence_refs",
            "are accepted only on a passing checkpoint",
            reason=Reason.INVALID_WORKFLOW_EVIDENCE_REFS,
        )
    evidence = _merged(stage.evidence, request.evidence or {})
    peer = _merged_peer(stage.peer_evidence, request.peer_evidence or {})
    _check_oracles(run, definition, stage.id, evidence)
    statuses: dict[str, QuorumStatus] = {}
    if request.status is CheckpointStatus.PASSED:
        statuses = _require_complete(run, spec, stage, evidence, peer)

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
    _active_stage(run, definition, stage_id)


def _active_stage(run: Run, definition: WorkflowDefinition, stage_id: str) -> tuple[StageState, StageDefinition]:
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


def _merged(
    stored: Mapping[str, tuple[str, ...]], incoming: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    merged = dict(stored)
    for key, values in incoming.items():
        seen = list(merged.get(key, ()))
        seen += [value for value in values if value not in seen]
        merged[key] = tuple(seen)
    return merged


def _merged_peer(
    stored: Mapping[str, tuple[PeerEvidence, ...]], incoming: Mapping[str, tuple[PeerEvidence, ...]]
) -> dict[str, tuple[PeerEvidence, ...]]:
    merged = dict(stored)
    for key, snapshots in incoming.items():
        merged[key] = merge_snapshots(merged.get(key, ()), snapshots)
    return merged


def _check_oracles(
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
            approval=_approval(run, stage, key, attempt),
        )
        for key, policy in run.policies_of(stage.id).items()
    }


def _require_complete(
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


def _approval(run: Run, stage: StageState, key: str, attempt: int | None = None) -> DegradationApproval | None:
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
        return _with(step, events, degraded=stage.degraded_requirements)
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
        step = _escalate(run, stage, reason, by="hub", now=now)
        return _with(step, [note])
    edge = spec.edges.get(outcome)
    if edge is not None:
        settled = StageStatus(request.status.value)
        step = _take(run, definition, stage, spec, edge, outcome, evidence, settled=settled, now=now, new_id=new_id)
        return _with(step, [note])
    stage.status = StageStatus.IN_PROGRESS
    return Step(run, retry=True, instruction=RETRY_INSTRUCTION, events=(note,))


def _with(step: Step, before: list[RunEvent], *, degraded: tuple[str, ...] = ()) -> Step:
    return Step(
        step.run,
        retry=step.retry,
        completed=step.completed,
        exhausted=step.exhausted,
        escalated=step.escalated,
        transition=step.transition,
        degraded_requirements=degraded or step.degraded_requirements,
        instruction=step.instruction,
        events=(*before, *step.events),
    )


def _enter(run: Run, stage: StageState, now: int, *, reset: bool) -> None:
    stage.enter(now, reset=reset)
    run.current_stage = stage.id


# -- transitions and budgets ----------------------------------------------------------------------


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


# -- waits, signals, escalations and rulings -------------------------------------------------------


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
    stage, _ = _active_stage(run, definition, request.stage_id)
    evidence = _merged(stage.evidence, request.evidence or {})
    _check_oracles(run, definition, stage.id, evidence)
    # Kept through the wait (unlike a failed checkpoint's): the signal's checkpoint counts them.
    stage.evidence = evidence
    stage.peer_evidence = _merged_peer(stage.peer_evidence, request.peer_evidence or {})
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
        _require_complete(resumed, spec, stage, _merged(stage.evidence, evidence), stage.peer_evidence)
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
    stage, _ = _active_stage(run, definition, stage_id)
    return _escalate(run, stage, reason, by=by, now=now)


def _escalate(run: Run, stage: StageState, reason: str, *, by: str, now: int) -> Step:
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
    return _with(step, [event])


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
    _not_ended(run)
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
    _not_ended(run)
    run = run.copy()
    stage_id = run.current_stage
    run.end(RunStatus.CANCELLED, now, reason or f"cancelled by {by}")
    return Step(
        run,
        instruction=FAILED_INSTRUCTION,
        events=(RunEvent(EventKind.CANCELLED, stage_id, None, run.end_reason, (f"by:{by}",)),),
    )


def _not_ended(run: Run) -> None:
    if run.status.ended:
        raise FailedPrecondition(
            f"workflow is {run.status.value}",
            reason=Reason.WORKFLOW_TERMINAL,
            metadata={"runId": run.id, "status": run.status.value},
        )


# -- degradation approvals ------------------------------------------------------------------------


def approve_degradation(
    run: Run,
    definition: WorkflowDefinition,
    *,
    stage_id: str,
    requirement_key: str,
    reason: str,
    approved_by: str,
    now: int,
    new_id: NewId,
) -> tuple[Run, DegradationApproval, bool]:
    """An operator's approval of a smaller quorum for one requirement at the active attempt.

    Returns the run, the approval and whether it already existed (same reason: answered again).

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL), (WORKFLOW_STAGE_OUT_OF_ORDER) the stage is not
            current, (WORKFLOW_DEGRADATION_CONFLICT) another reason was approved for this attempt.
        NotFound: (WORKFLOW_STAGE_NOT_FOUND).
        InvalidArgument: (WORKFLOW_DEGRADATION_FORBIDDEN) the policy declares no degradation.
    """
    _not_ended(run)
    key = canonical_requirement_key(requirement_key)
    text = validation.required_text("reason", reason, 1_000)
    run = run.copy()
    spec = definition.stage(stage_id)
    stage = run.stage(stage_id)
    if spec is None or stage is None:
        raise NotFound(
            f"workflow {definition.id} has no stage {stage_id!r}",
            reason=Reason.WORKFLOW_STAGE_NOT_FOUND,
            metadata={"runId": run.id, "stageId": stage_id},
        )
    if run.current_stage != stage_id or stage.status not in (StageStatus.IN_PROGRESS, StageStatus.WAITING):
        raise FailedPrecondition(
            f"stage {stage_id} is not currently active",
            reason=Reason.WORKFLOW_STAGE_OUT_OF_ORDER,
            metadata={"runId": run.id, "stageId": stage_id},
        )
    policy = run.policies_of(stage_id).get(key)
    if policy is None or policy.degraded_min_producers is None:
        raise InvalidArgument(
            f"the evidence policy for {key!r} on stage {stage_id} declares no degradation",
            reason=Reason.WORKFLOW_DEGRADATION_FORBIDDEN,
            metadata={"runId": run.id, "stageId": stage_id, "requirementKey": key},
        )
    existing = _approval(run, stage, key)
    if existing is not None:
        if existing.reason != text:
            raise FailedPrecondition(
                "another degradation was approved for this requirement and attempt",
                reason=Reason.WORKFLOW_DEGRADATION_CONFLICT,
                metadata={"runId": run.id, "stageId": stage_id, "requirementKey": key, "approvalId": existing.id},
            )
        return run, existing, True
    approval = DegradationApproval(
        id=new_id("approval"),
        stage_id=stage_id,
        requirement_key=key,
        visit=stage.visit,
        attempt=stage.active_attempt,
        policy_min_producers=policy.min_producers,
        approved_min_producers=policy.degraded_min_producers,
        approved_by=approved_by,
        reason=text,
        approve_time=now,
    )
    run.approvals.append(approval)
    run.update_time = now
    return run, approval, False
