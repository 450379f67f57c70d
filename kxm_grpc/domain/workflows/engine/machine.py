"""The step engine: how a step run moves, one pure function per thing that can happen to it.

Each function takes the run's snapshot and a ``Context`` (the pinned plan, the clock, the project's
agents as the hub sees them now, an id source) and returns a ``Change``: the new snapshot, the
events to append to the run's log (in order; the store numbers them), and the effects the service
carries out in the same transaction (dispatch an assignment, revoke one, arm a timer, admit the
next queued run). Nothing here does I/O, so every rule is a unit test and a replayed command
gives the same answer.

The rules (workflow-context.md §4.3–§4.5, seed 000 loops A–C):

- **Admission**: a run starts ``queued`` and runs once its project has fewer than
  ``maxConcurrentRuns`` active runs (``admit``).
- **Steps** run one at a time from the entry. Entering a step starts its next attempt
  (``maxAttempts`` bounds the attempts of a step across every entry: a back-edge's re-entry and a
  reassignment each take one). ``agent`` and ``moa`` steps are dispatched to their allowed agents,
  ``gate`` steps to the plan's gate workers, ``approval`` steps wait for an operator's decision,
  ``wait`` steps for their signal.
- **Dispatch** fills ``assignments.target`` places with eligible online agents (in the order the
  plan lists them, one place per agent, pairwise distinct by ``assignments.distinctBy``, at most
  ``maxParallel`` open at once); without enough, the step waits for agents to come online.
- **Members** end by a result (``complete``), their deadline (``expire``: a failed member; for a
  gate, an uncertain one), their agent going offline (``supersede``: the place is reassigned as a
  new attempt while ``maxAttempts`` allows, else the member fails) or a cancel.
- **Joins** (``joins.decide``) make the step's outcome; the outcome's transition is taken within
  the edge's ``maxTransitions``, the run's transition budget and the target's ``maxAttempts``.
- **Budgets**: model cost (``maxModelCost``, summed from results) and run duration
  (``maxRunDurationMs``, from the first time the run ran) end the run when spent.
- **Uncertain gates** block the run until an operator recovers it (retry, fail or cancel).
- **Plan integrity** (gate 3): the ``planHash`` step's artifact named by its evidence key is
  captured; a later step listed in ``requirePlanHash`` whose result reports another hash (or none)
  fails.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.domain.workflows import diversity
from kxm_grpc.domain.workflows.engine import gate_evidence, joins
from kxm_grpc.domain.workflows.engine.results import UNCERTAIN, failure_outcome
from kxm_grpc.domain.workflows.engine.state import (
    Handoff,
    Member,
    MemberRole,
    MemberStatus,
    Producer,
    Result,
    RunInputs,
    RunStatus,
    StepPhase,
    StepRun,
)
from kxm_grpc.domain.workflows.plans.gates import GateDefinition
from kxm_grpc.domain.workflows.plans.model import (
    TERMINAL,
    Dimension,
    EvidenceKind,
    Step,
    StepKind,
    StepWorkflow,
)
from kxm_grpc.domain.workflows.redaction import redact
from kxm_grpc.errors import FailedPrecondition, Reason, invalid_field

GATE_DEADLINE_MARGIN_US = 300_000_000
"""How long past its checks' timeouts a gate assignment may take (checkout, reporting): 5 minutes."""


@dataclass(frozen=True)
class Candidate:
    """An agent of the run's project, as the hub sees it now."""

    name: str
    agent_id: str
    online: bool


@dataclass(frozen=True)
class Context:
    plan: StepWorkflow
    now: int
    """Clock microseconds."""
    roster: Mapping[str, Candidate]
    """The project's agents the plan names, by the plan's name for them."""
    new_id: Callable[[], str]
    """A fresh assignment id (``asg_`` + 32 hex)."""
    gates: Mapping[str, GateDefinition] = field(default_factory=dict)
    """The gates the plan pinned, by the id its steps name them with (``compiler.pinned_gates``)."""


@dataclass(frozen=True)
class Event:
    """One entry of the run's event log (``kxm.run-event.v1``): a type and its payload."""

    type: str
    payload: Mapping[str, JsonValue]


class EffectKind(enum.Enum):
    DISPATCH = "dispatch"
    """Send the member's assignment to its agent (a durable message), mint its token, arm its deadline."""
    REVOKE = "revoke"
    """The member is no longer open: revoke its token, disarm its deadline, tell its agent."""
    RETRY_DISPATCH = "retry_dispatch"
    """No eligible agent is online: try again when one comes online (or at the retry timer)."""
    ARM_RUN_DEADLINE = "arm_run_deadline"
    ENDED = "ended"
    """The run ended: disarm its timers, admit the project's next queued run, journal it."""


@dataclass(frozen=True)
class Effect:
    kind: EffectKind
    member: Member | None = None
    due: int | None = None


@dataclass(frozen=True)
class Change:
    """What one command did: the new snapshot, its events, the effects to carry out."""

    run: StepRun
    events: tuple[Event, ...] = ()
    effects: tuple[Effect, ...] = ()


def _closed(message: str, **metadata: str) -> FailedPrecondition:
    return FailedPrecondition(message, reason=Reason.WORKFLOW_TERMINAL, metadata=metadata)


class _Builder:
    """Accumulates one command's snapshot changes, events and effects."""

    def __init__(self, run: StepRun, context: Context) -> None:
        self.run = run
        self.context = context
        self.events: list[Event] = []
        self.effects: list[Effect] = []

    @property
    def plan(self) -> StepWorkflow:
        return self.context.plan

    @property
    def now(self) -> int:
        return self.context.now

    def emit(self, type: str, **payload: JsonValue) -> None:
        self.events.append(Event(type, payload))

    def effect(self, kind: EffectKind, member: Member | None = None, due: int | None = None) -> None:
        self.effects.append(Effect(kind, member, due))

    def set(self, **changes: object) -> None:
        self.run = replace(self.run, **changes)  # type: ignore[arg-type]

    def change(self) -> Change:
        run = replace(self.run, update_time=self.now, sequence=self.run.sequence + len(self.events))
        return Change(run, tuple(self.events), tuple(self.effects))

    def step(self) -> Step:
        assert self.run.current_step is not None
        step = self.plan.step(self.run.current_step)
        assert step is not None, "the snapshot names a step of its own plan"
        return step

    def update_member(self, member: Member) -> None:
        self.set(members=tuple(member if m.id == member.id else m for m in self.run.members))


# -- commands -------------------------------------------------------------------------------------


def create(
    run_id: str,
    project: str,
    plan_hash: str,
    context: Context,
    *,
    admitted: bool,
    inputs: RunInputs | None = None,
    memory_revision: str = "",
) -> Change:
    """A new run of the plan with its ``inputs`` and the project's ``memory_revision`` pinned:
    queued, or (``admitted``) running its entry step."""
    plan = context.plan
    run = StepRun(
        id=run_id,
        project=project,
        workflow_id=plan.id,
        plan_hash=plan_hash,
        status=RunStatus.QUEUED,
        create_time=context.now,
        update_time=context.now,
        sequence=0,
        inputs=inputs or RunInputs(),
        head_commit=(inputs.base_commit or None) if inputs is not None else None,
        memory_revision=memory_revision,
    )
    b = _Builder(run, context)
    b.emit(
        "run.created",
        workflowId=plan.id,
        planHash=plan_hash,
        status=RunStatus.QUEUED.value,
        memoryRevision=memory_revision,
        **({"skillId": run.inputs.skill_id} if run.inputs.skill_id else {}),
    )
    if admitted:
        _start(b)
    return b.change()


def admit(run: StepRun, context: Context) -> Change:
    """Start a queued run (its project has room under ``maxConcurrentRuns``).

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) the run is not queued.
    """
    if run.status is not RunStatus.QUEUED:
        raise _closed(f"run {run.id} is {run.status.value}, not queued", runId=run.id)
    b = _Builder(run, context)
    _start(b)
    return b.change()


def advance(run: StepRun, context: Context) -> Change:
    """Dispatch what the current step still needs (agents came online); nothing when nothing is due."""
    b = _Builder(run, context)
    if run.status is RunStatus.RUNNING and run.phase is StepPhase.ASSIGNING:
        _assign(b)
    return b.change()


def complete(
    run: StepRun, context: Context, member_id: str, result: Result, evidence: Mapping[str, JsonValue] | None = None
) -> Change:
    """Record an open member's result and move the run on as its join decides; a gate's
    ``evidence`` record (``gate_evidence.record``) goes into the log first.

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) the run ended; (ASSIGNMENT_CLOSED) the member
            is not open (expired, superseded, cancelled, completed), so the result is refused.
    """
    member = _open_member(run, member_id)
    b = _Builder(run, context)
    step = b.step()
    if evidence is not None:
        b.emit(gate_evidence.EVENT, **evidence)
    result = _plan_integrity(b, step, result)
    if result.uncertain is not None or result.outcome == UNCERTAIN:
        return _block(b, member, result, result.uncertain or "unknown")
    ended = replace(member, status=MemberStatus.COMPLETED, result=result, end_time=b.now, end_reason="completed")
    b.update_member(ended)
    b.effect(EffectKind.REVOKE, ended)
    cost = result.cost_usd
    b.set(cost_usd=b.run.cost_usd + (cost or 0.0), unmetered=b.run.unmetered + (cost is None))
    if result.commit and step.writes:
        b.set(head_commit=result.commit)
    if result.receipt is not None:
        b.set(receipts={**b.run.receipts, step.id: result.receipt})
    b.emit(
        "assignment.completed",
        assignmentId=member.id,
        stepId=member.step_id,
        stepAttempt=member.step_attempt,
        agent=member.agent,
        outcome=result.outcome,
        passed=result.passed,
        contentHash=result.content_hash,
        costUsd=cost,
        tokensIn=result.tokens_in,
        tokensOut=result.tokens_out,
        durationMs=result.duration_ms,
        model=result.model,
        commit=result.commit,
        receipt=dict(result.receipt) if result.receipt is not None else None,
    )
    limit = b.plan.limits.max_model_cost
    if limit is not None and b.run.cost_usd >= limit:
        _end(b, RunStatus.FAILED, "budget_model_cost", costUsd=b.run.cost_usd, maxModelCost=float(limit))
        return b.change()
    _join(b)
    return b.change()


def noted(change: Change, after: Event, event: Event) -> Change:
    """``change`` with ``event`` logged right after its event ``after``: what the service decided
    in the same transaction about a result this change took (a skill evaluation its gate recorded,
    or why none), numbered in the log with the engine's own events."""
    position = change.events.index(after) + 1
    events = (*change.events[:position], event, *change.events[position:])
    return replace(change, run=replace(change.run, sequence=change.run.sequence + 1), events=events)


def expire(run: StepRun, context: Context, member_id: str) -> Change:
    """A member's deadline passed: it failed (a gate's is uncertain: the run blocks).

    Raises:
        FailedPrecondition: as ``complete``.
    """
    member = _open_member(run, member_id)
    b = _Builder(run, context)
    if member.role is MemberRole.GATE:
        return _block(b, member, None, "deadline")
    _fail_member(b, member, MemberStatus.EXPIRED, "deadline")
    _join(b)
    return b.change()


def supersede(run: StepRun, context: Context, member_id: str) -> Change:
    """A member's agent went offline past the stale period: its token is revoked and its place
    reassigned as a new attempt of the step while ``maxAttempts`` allows; else it failed. A gate
    worker lost mid-gate leaves the gate's outcome unknown: the run blocks.

    Raises:
        FailedPrecondition: as ``complete``.
    """
    member = _open_member(run, member_id)
    b = _Builder(run, context)
    step = b.step()
    if member.role is MemberRole.GATE:
        return _block(b, member, None, "gate_worker_lost")
    ended = replace(member, status=MemberStatus.SUPERSEDED, end_time=b.now, end_reason="assignee_offline")
    b.update_member(ended)
    b.effect(EffectKind.REVOKE, ended)
    b.emit("assignment.superseded", assignmentId=member.id, agent=member.agent, reason="assignee_offline")
    if b.run.attempts.get(step.id, 0) < step.max_attempts:
        # The place is reassigned as a new attempt: now, or once an eligible agent is online.
        attempts = dict(b.run.attempts)
        attempts[step.id] = attempts.get(step.id, 0) + 1
        b.set(attempts=attempts, step_attempt=attempts[step.id], phase=StepPhase.ASSIGNING)
        b.emit("step.attempt_started", stepId=step.id, stepAttempt=attempts[step.id], cause="reassignment")
        _assign(b)
        return b.change()
    # No attempt left: the place fails, and the join decides.
    b.update_member(replace(ended, result=_failure(step, "assignee_offline")))
    _join(b)
    return b.change()


def approve(run: StepRun, context: Context, step_id: str, outcome: str, operator: str, reason: str) -> Change:
    """An operator decides the current approval step with one of its declared outcomes.

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) the run ended; (WORKFLOW_NOT_WAITING) the
            current step is not this approval step awaiting a decision.
        InvalidArgument: the outcome is not one the step declares.
    """
    b = _awaiting(run, context, step_id, StepPhase.AWAITING_APPROVAL)
    step = b.step()
    _declared(step, outcome, "outcome")
    b.emit(
        "step.approved", stepId=step_id, stepAttempt=run.step_attempt, outcome=outcome, operator=operator, reason=reason
    )
    _settle(b, joins.Decision(outcome))
    return b.change()


def signal(run: StepRun, context: Context, step_id: str, key: str, outcome: str) -> Change:
    """A signed signal resolves the current wait step.

    Raises:
        FailedPrecondition: as ``approve`` (the step must be this wait step, awaiting ``key``).
        InvalidArgument: the outcome is not one the step declares.
    """
    b = _awaiting(run, context, step_id, StepPhase.AWAITING_SIGNAL)
    step = b.step()
    if step.signal != key:
        raise FailedPrecondition(
            f"step {step_id} waits for signal {step.signal}, not {key}",
            reason=Reason.WORKFLOW_NOT_WAITING,
            metadata={"stepId": step_id, "expectedSignal": step.signal or ""},
        )
    _declared(step, outcome, "outcome")
    b.emit("step.signalled", stepId=step_id, stepAttempt=run.step_attempt, signal=key, outcome=outcome)
    _settle(b, joins.Decision(outcome))
    return b.change()


def cancel(run: StepRun, context: Context, reason: str, by: str) -> Change:
    """End the run cancelled (its open assignments cancelled, their tokens revoked).

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) the run already ended.
    """
    _not_ended(run)
    b = _Builder(run, context)
    _end(b, RunStatus.CANCELLED, reason, by=by)
    return b.change()


class Recovery(enum.Enum):
    RETRY = "retry"
    """Run the blocked gate again (a new assignment; the gate never produced an outcome)."""
    FAIL = "fail"
    CANCEL = "cancel"


def recover(run: StepRun, context: Context, action: Recovery, operator: str, reason: str) -> Change:
    """An operator recovers a run an uncertain gate blocked.

    Raises:
        FailedPrecondition: (WORKFLOW_TERMINAL) the run ended; (WORKFLOW_NOT_BLOCKED) it is not blocked.
    """
    _not_ended(run)
    if run.status is not RunStatus.BLOCKED:
        raise FailedPrecondition(
            f"run {run.id} is {run.status.value}: only a blocked run is recovered",
            reason=Reason.WORKFLOW_NOT_BLOCKED,
            metadata={"runId": run.id, "status": run.status.value},
        )
    b = _Builder(run, context)
    b.emit("run.recovered", action=action.value, operator=operator, reason=reason, assignmentId=run.blocked_member)
    if action is Recovery.FAIL:
        _end(b, RunStatus.FAILED, "gate_uncertain", by=operator)
    elif action is Recovery.CANCEL:
        _end(b, RunStatus.CANCELLED, "gate_uncertain", by=operator)
    else:
        blocked = run.member(run.blocked_member or "")
        b.set(status=RunStatus.RUNNING, blocked_member=None, phase=StepPhase.ASSIGNING)
        _assign(b, replace_index=blocked.index if blocked is not None else None)
    return b.change()


def deadline(run: StepRun, context: Context) -> Change:
    """The run-duration budget (``maxRunDurationMs``) is spent: the run ends cancelled."""
    _not_ended(run)
    b = _Builder(run, context)
    limit = context.plan.limits.max_run_duration_ms
    since = run.running_since
    if limit is None or since is None or context.now < since + limit * 1000:
        return b.change()
    _end(b, RunStatus.CANCELLED, "budget_run_duration", budgetMs=limit, elapsedMs=(context.now - since) // 1000)
    return b.change()


# -- the moves -------------------------------------------------------------------------------------


def _start(b: _Builder) -> None:
    b.set(status=RunStatus.RUNNING, running_since=b.now)
    b.emit("run.started", status=RunStatus.RUNNING.value)
    limit = b.plan.limits.max_run_duration_ms
    if limit is not None:
        b.effect(EffectKind.ARM_RUN_DEADLINE, due=b.now + limit * 1000)
    _enter(b, b.plan.steps[0].id)


def _enter(b: _Builder, step_id: str) -> None:
    step = b.plan.step(step_id)
    assert step is not None
    attempts = dict(b.run.attempts)
    attempts[step_id] = attempts.get(step_id, 0) + 1
    phase = {
        StepKind.APPROVAL: StepPhase.AWAITING_APPROVAL,
        StepKind.WAIT: StepPhase.AWAITING_SIGNAL,
    }.get(step.kind, StepPhase.ASSIGNING)
    b.set(current_step=step_id, step_attempt=attempts[step_id], attempts=attempts, members=(), phase=phase)
    b.emit("step.entered", stepId=step_id, stepAttempt=attempts[step_id], kind=step.kind.value)
    if phase is StepPhase.ASSIGNING:
        _assign(b)


def role_of(step: Step) -> MemberRole:
    """The role of a step's members: a gate worker, a reviewer (review evidence), else a worker."""
    if step.kind is StepKind.GATE:
        return MemberRole.GATE
    if any(requirement.kind is EvidenceKind.REVIEW for requirement in step.required_evidence):
        return MemberRole.REVIEWER
    return MemberRole.WORKER


def _pool(b: _Builder, step: Step) -> tuple[str, ...]:
    if step.kind is StepKind.GATE:
        return b.plan.gate_workers
    return step.assignments.allowed_agents or (b.plan.coordinator,)


def _assign(b: _Builder, *, replace_index: int | None = None) -> None:
    """Fill the step's empty places with eligible online agents (see the module docstring)."""
    step = b.step()
    target = 1 if step.kind is StepKind.GATE else step.assignments.target
    parallel = 1 if step.kind is StepKind.GATE else step.assignments.max_parallel
    places = {member.index: member for member in joins.live(b.run.members)}
    # A place is empty when nobody was born for it yet, its member was superseded or blocked the
    # run (an uncertain gate, being retried), or it is the place being redone.
    empty = [
        index for index in range(target) if index not in places or _vacated(places[index]) or index == replace_index
    ]
    holders = [m for index, m in places.items() if index not in empty]
    taken = {m.agent for m in holders}
    for index in empty:
        if sum(1 for m in b.run.members if m.status.open) >= parallel:
            break
        agent = _eligible(b, step, taken, holders)
        if agent is None:
            break
        member = Member(
            id=b.context.new_id(),
            step_id=step.id,
            step_attempt=b.run.step_attempt,
            index=index,
            agent=agent.name,
            agent_id=agent.agent_id,
            role=role_of(step),
            status=MemberStatus.OPEN,
            create_time=b.now,
            deadline=_deadline(b, step),
        )
        b.set(members=(*b.run.members, member))
        taken.add(agent.name)
        holders.append(member)
        b.effect(EffectKind.DISPATCH, member)
        b.emit(
            "assignment.created",
            assignmentId=member.id,
            stepId=step.id,
            stepAttempt=member.step_attempt,
            index=index,
            agent=agent.name,
            agentId=agent.agent_id,
            role=member.role.value,
            deadline=member.deadline,
        )
    filled = {m.index for m in joins.live(b.run.members) if not _vacated(m)}
    if all(index in filled for index in range(target)):
        b.set(phase=StepPhase.WORKING)
    else:
        b.set(phase=StepPhase.ASSIGNING)
        b.effect(EffectKind.RETRY_DISPATCH)


def _vacated(member: Member) -> bool:
    """Whether a place's latest member left it to be filled again (superseded, or an uncertain gate)."""
    return member.status is MemberStatus.SUPERSEDED or member.end_reason.startswith(UNCERTAIN_END)


def _eligible(b: _Builder, step: Step, taken: set[str], holders: list[Member]) -> Candidate | None:
    """The first online agent of the step's pool not holding a place, distinct from the holders
    by ``assignments.distinctBy`` (required) and, where possible, by the ``distinctBy`` of the
    step's producer policies (preferred: a quorum of distinct producers needs them, but a step
    whose distinct agents are offline still runs, and its join says why it was not met)."""
    if step.kind is StepKind.GATE:
        return _first(b, _pool(b, step), taken, holders, ())
    required = step.assignments.distinct_by
    preferred = tuple(
        dict.fromkeys(
            (
                *required,
                *(
                    dimension
                    for requirement in step.required_evidence
                    if requirement.producer_policy is not None
                    for dimension in requirement.producer_policy.distinct_by
                ),
            )
        )
    )
    pool = _pool(b, step)
    if preferred != required:
        found = _first(b, pool, taken, holders, preferred)
        if found is not None:
            return found
    return _first(b, pool, taken, holders, required)


def _first(
    b: _Builder, pool: tuple[str, ...], taken: set[str], holders: list[Member], dimensions: tuple[Dimension, ...]
) -> Candidate | None:
    for name in pool:
        candidate = b.context.roster.get(name)
        if candidate is None or not candidate.online or name in taken:
            continue
        if dimensions:
            declarations = [_declaration(b, m.agent) for m in holders] + [_declaration(b, name)]
            if diversity.distinct_count(declarations, dimensions) < len(declarations):
                continue
        return candidate
    return None


def _declaration(b: _Builder, agent: str) -> diversity.Declaration:
    declared = b.plan.agents.get(agent)
    return (declared.provider, declared.model) if declared is not None else (None, None)


def _deadline(b: _Builder, step: Step) -> int | None:
    if step.timeout_ms is not None:
        return b.now + step.timeout_ms * 1000
    if step.kind is StepKind.GATE:
        gate = step.command if step.command is not None else b.context.gates.get(step.gate or "")
        if gate is not None:
            return b.now + gate.timeout_ms * 1000 + GATE_DEADLINE_MARGIN_US
    return None


def _failure(step: Step, why: str) -> Result:
    return Result(outcome=failure_outcome(step), passed=False, content_hash="", summary=why)


def _fail_member(b: _Builder, member: Member, status: MemberStatus, why: str) -> None:
    step = b.step()
    ended = replace(member, status=status, result=_failure(step, why), end_time=b.now, end_reason=why)
    b.update_member(ended)
    b.effect(EffectKind.REVOKE, ended)
    b.emit(f"assignment.{status.value}", assignmentId=member.id, agent=member.agent, reason=why)


def _repro_integrity(b: _Builder, step: Step, result: Result) -> Result:
    config = b.plan.repro_oracle
    if config is None or not result.passed or role_of(step) is not MemberRole.WORKER:
        return result
    value = result.artifacts.get(config.evidence_key)
    if step.id == config.step_id and b.run.repro_value is None:
        if value is None:
            return replace(result, outcome=failure_outcome(step), passed=False, summary="repro_missing")
        b.set(repro_value=value)
        b.emit("repro.captured", stepId=step.id, evidenceKey=config.evidence_key, sha256=value)
    elif b.run.repro_value is not None and value != b.run.repro_value:
        b.emit("repro.mismatch", stepId=step.id, expected=b.run.repro_value, reported=value)
        return replace(result, outcome=failure_outcome(step), passed=False, summary="repro_weakened")
    return result


UNCERTAIN_END = "uncertain:"
"""The end reason prefix of a member whose uncertain gate blocked the run."""


def _block(b: _Builder, member: Member, result: Result | None, why: str) -> Change:
    """An uncertain gate: the member ends, the run blocks until an operator recovers it."""
    ended = replace(
        member, status=MemberStatus.CANCELLED, result=result, end_time=b.now, end_reason=f"{UNCERTAIN_END}{why}"
    )
    b.update_member(ended)
    b.effect(EffectKind.REVOKE, ended)
    b.set(status=RunStatus.BLOCKED, blocked_member=member.id)
    b.emit("run.blocked", assignmentId=member.id, stepId=member.step_id, reason=why)
    return b.change()


def _plan_integrity(b: _Builder, step: Step, result: Result) -> Result:
    """Capture the plan hash at the ``planHash`` step; refuse another at a ``requirePlanHash`` step;
    and the reproduction (``reproOracle``) the same way, which every later worker must then report
    unchanged (a fix may not weaken the test that reproduced the bug)."""
    result = _repro_integrity(b, step, result)
    config = b.plan.plan_hash
    if config is None or not result.passed or step.kind is StepKind.GATE:
        return result  # a gate authors nothing: it checks the commit the steps before it wrote
    value = result.artifacts.get(config.evidence_key)
    if step.id == config.step_id:
        if value is None:
            return replace(result, outcome=failure_outcome(step), passed=False, summary="plan_hash_missing")
        b.set(plan_value=value)
        b.emit("plan.captured", stepId=step.id, evidenceKey=config.evidence_key, sha256=value)
    elif step.id in b.plan.require_plan_hash and b.run.plan_value is not None and value != b.run.plan_value:
        b.emit("plan.mismatch", stepId=step.id, expected=b.run.plan_value, reported=value)
        return replace(result, outcome=failure_outcome(step), passed=False, summary="plan_hash_mismatch")
    return result


def _join(b: _Builder) -> None:
    step = b.step()
    # Every join waits for places still to fill unless it is already decided (a quorum met, or out
    # of reach even if every place left passed; a first success).
    decision = joins.decide(step, b.run.members, b.plan)
    if decision is None:
        if b.run.phase is StepPhase.ASSIGNING:
            _assign(b)  # the places still to fill (maxParallel, agents offline) go out now
        return
    _settle(b, decision)


def _settle(b: _Builder, decision: joins.Decision) -> None:
    step = b.step()
    if decision.cancel_open:
        for member in b.run.open_members:
            ended = replace(member, status=MemberStatus.CANCELLED, end_time=b.now, end_reason="join_decided")
            b.update_member(ended)
            b.effect(EffectKind.REVOKE, ended)
            b.emit("assignment.cancelled", assignmentId=member.id, agent=member.agent, reason="join_decided")
    b.emit(
        "step.outcome",
        stepId=step.id,
        stepAttempt=b.run.step_attempt,
        outcome=decision.outcome,
        producers=[
            {"assignmentId": c.member_id, "agent": c.agent, "counted": c.counted, "why": c.why}
            for c in decision.counted
        ],
    )
    b.set(last_outcome=decision.outcome)
    if decision.conflict:
        _end(b, RunStatus.FAILED, joins.JOIN_CONFLICT, stepId=step.id)
        return
    transition = step.transitions.get(decision.outcome)
    if transition is None:
        _end(b, RunStatus.FAILED, "outcome_unknown", stepId=step.id, outcome=decision.outcome)
        return
    edge = f"{step.id}/{decision.outcome}"
    uses = b.run.edge_uses.get(edge, 0) + 1
    budget = b.plan.limits.max_transitions if b.plan.limits.max_transitions is not None else len(b.plan.steps)
    if transition.max_transitions is not None and uses > transition.max_transitions:
        _end(b, RunStatus.FAILED, "budget_edge", edge=edge, maxTransitions=transition.max_transitions)
        return
    if b.run.transitions + 1 > budget:
        _end(b, RunStatus.FAILED, "budget_transitions", transitionBudget=budget)
        return
    if transition.target != TERMINAL:
        target = b.plan.step(transition.target)
        assert target is not None
        if b.run.attempts.get(target.id, 0) >= target.max_attempts:
            _end(b, RunStatus.FAILED, "budget_step_attempts", stepId=target.id, maxAttempts=target.max_attempts)
            return
    edge_uses = dict(b.run.edge_uses)
    edge_uses[edge] = uses
    b.set(edge_uses=edge_uses, transitions=b.run.transitions + 1)
    if transition.target == TERMINAL:
        assert transition.terminal_status is not None
        b.emit(
            "step.transitioned",
            fromStepId=step.id,
            outcome=decision.outcome,
            terminalStatus=transition.terminal_status.value,
        )
        _end(b, RunStatus(transition.terminal_status.value), f"{step.id}:{decision.outcome}")
        return
    b.emit("step.transitioned", fromStepId=step.id, outcome=decision.outcome, toStepId=transition.target)
    b.set(handoff=_handoff(b, decision, transition.target))
    _enter(b, transition.target)


MAX_HANDOFF_PRODUCERS = 64
"""The results a handoff keeps, the latest: a step's own members are at most 64."""


def _handoff(b: _Builder, decision: joins.Decision, target: str) -> Handoff:
    """What the current step hands to ``target``: its outcome, and each member that returned a
    result (counted or not, as the join saw it; not one that expired or was superseded), before
    entering the target replaces them. A step whose members did no work (a gate, an approval, a
    wait) also passes on the work handed to it, so a review after a gate still sees the work."""
    seen = {counted.member_id: counted for counted in decision.counted}
    producers = []
    for member in b.run.members:
        result = member.result
        if result is None or not result.content_hash:  # an expired or superseded member returned nothing
            continue
        counted = seen.get(member.id)
        producers.append(
            Producer(
                assignment_id=member.id,
                step_id=member.step_id,
                step_attempt=member.step_attempt,
                agent=member.agent,
                role=member.role,
                outcome=result.outcome,
                passed=result.passed,
                counted=counted.counted if counted is not None else False,
                why=redact(counted.why) if counted is not None else "",
                summary=redact(result.summary),
                blockers=result.blockers,
                artifacts=dict(result.artifacts),
                commit=result.commit,
                content_hash=result.content_hash,
            )
        )
    previous = b.run.handoff
    if previous is not None and not any(p.role is not MemberRole.GATE for p in producers):
        # Bounded: a chain of steps without work is as long as the transition budget allows.
        producers = [*previous.producers, *producers][-MAX_HANDOFF_PRODUCERS:]
    return Handoff(
        from_step=b.step().id,
        from_attempt=b.run.step_attempt,
        outcome=decision.outcome,
        to_step=target,
        create_time=b.now,
        base_commit=b.run.head_commit or "",
        producers=tuple(producers),
    )


def _end(b: _Builder, status: RunStatus, reason: str, **detail: JsonValue) -> None:
    for member in b.run.open_members:
        ended = replace(member, status=MemberStatus.CANCELLED, end_time=b.now, end_reason="run_ended")
        b.update_member(ended)
        b.effect(EffectKind.REVOKE, ended)
        b.emit("assignment.cancelled", assignmentId=member.id, agent=member.agent, reason="run_ended")
    b.set(status=status, end_time=b.now, end_reason=reason, blocked_member=None)
    b.emit("run.ended", status=status.value, reason=reason, **detail)
    b.effect(EffectKind.ENDED)


# -- checks ----------------------------------------------------------------------------------------


def _not_ended(run: StepRun) -> None:
    if run.status.ended:
        raise _closed(f"run {run.id} ended {run.status.value}", runId=run.id, status=run.status.value)


def _open_member(run: StepRun, member_id: str) -> Member:
    _not_ended(run)
    member = run.member(member_id)
    if member is None or not member.status.open:
        state = member.status.value if member is not None else "closed"
        raise FailedPrecondition(
            f"assignment {member_id} is {state}: its result is no longer accepted",
            reason=Reason.ASSIGNMENT_CLOSED,
            metadata={"assignmentId": member_id, "state": state},
        )
    return member


def _awaiting(run: StepRun, context: Context, step_id: str, phase: StepPhase) -> _Builder:
    _not_ended(run)
    if run.current_step != step_id or run.phase is not phase or run.status is not RunStatus.RUNNING:
        raise FailedPrecondition(
            f"run {run.id} is not awaiting step {step_id} ({phase.value}); it is at {run.current_step}",
            reason=Reason.WORKFLOW_NOT_WAITING,
            metadata={"stepId": step_id, "currentStepId": run.current_step or ""},
        )
    return _Builder(run, context)


def _declared(step: Step, outcome: str, field_name: str) -> None:
    if outcome not in step.transitions:
        raise invalid_field(
            field_name, f"{outcome!r} is not an outcome of step {step.id} (one of {', '.join(step.transitions)})"
        )


__all__ = [
    "Candidate",
    "Change",
    "Context",
    "Effect",
    "EffectKind",
    "Event",
    "Recovery",
    "admit",
    "advance",
    "approve",
    "cancel",
    "complete",
    "create",
    "deadline",
    "expire",
    "recover",
    "signal",
    "supersede",
]
