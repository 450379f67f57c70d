"""Step runs: starting, reading, approving, recovering and cancelling the hub-driven runs of step
workflows, and the assignee's side (the next assignment, completing one).

Each command is one transaction: load the run (``step_engine.load``), let the engine decide
(``domain/workflows/engine/machine``), apply what it returns (``step_engine.apply``). What ends a
run while nobody calls (a member's deadline, the run-duration budget, an assignee going offline,
agents coming online) arrives as durable timers and presence reactions (``register``).

Who may do what: an operator (named project, or none) starts, approves, recovers and cancels, and
reads every run of the project; the project token reads them; an agent reads the runs whose plan
names it coordinator, and completes only its own assignments. Another project's run or assignment
reads as missing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import structlog

from kxm_grpc.domain.agents import Agent, name_key
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.context import skills as skill_rules
from kxm_grpc.domain.context.assignments import AssignmentFacts
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows.engine import gate_evidence, machine
from kxm_grpc.domain.workflows.engine.machine import Change, Recovery
from kxm_grpc.domain.workflows.engine.results import (
    ReviewReport,
    WorkerReport,
    gate_result,
    review_result,
    worker_result,
)
from kxm_grpc.domain.workflows.engine.state import Member, MemberRole, RunInputs, StepRun
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.plans.gates import GateDefinition
from kxm_grpc.domain.workflows.plans.model import GateExpect, StepKind, StepWorkflow
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, Reason, invalid_field
from kxm_grpc.services import audit, timers
from kxm_grpc.services.agents import register_presence_reaction
from kxm_grpc.services.context import memory, skills
from kxm_grpc.services.workflows import definitions, step_engine
from kxm_grpc.services.workflows.step_engine import (
    ASSIGNMENT_TIMER,
    MAX_EVENTS_PAGE,
    RETRY_TIMER,
    RUN_TIMER,
    SUPERSEDE_TIMER,
    EngineSettings,
    Loaded,
    apply,
    context,
    load,
)
from kxm_grpc.store import Store, Timer, Tx
from kxm_grpc.store.protocols.step_runs import AssignmentState, StepRunState, StoredAssignment, StoredRunEvent

log = structlog.get_logger("kxm.workflows")

MAX_RUN_ID_CHARS = 64
MAX_REQUEST_ID_CHARS = 128
T = TypeVar("T")


def run_not_found(run_id: str) -> NotFound:
    return NotFound(f"no workflow run {run_id!r}", reason=Reason.WORKFLOW_NOT_FOUND, metadata={"runId": run_id})


def assignment_not_found(assignment_id: str) -> NotFound:
    return NotFound(
        f"no assignment {assignment_id!r}",
        reason=Reason.ASSIGNMENT_NOT_FOUND,
        metadata={"assignmentId": assignment_id},
    )


def visible(caller: Caller, loaded: Loaded | None, run_id: str) -> Loaded:
    """The run if ``caller`` may read it.

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND) no such run in the caller's project.
        PermissionDenied: (WORKFLOW_FORBIDDEN) an agent that is not the plan's coordinator.
    """
    if loaded is None or not (
        caller.project == loaded.stored.project or (caller.is_operator and caller.project is None)
    ):
        raise run_not_found(run_id)
    if caller.kind is CredentialKind.AGENT and name_key(caller.agent_name or "") != name_key(loaded.plan.coordinator):
        raise PermissionDenied(
            f"only the plan's coordinator, {loaded.plan.coordinator}, reads step run {run_id}",
            reason=Reason.WORKFLOW_FORBIDDEN,
            metadata={"runId": run_id, "assignedCoordinatorName": loaded.plan.coordinator},
        )
    return loaded


@dataclass(frozen=True)
class Started:
    run: StepRun
    duplicate: bool


async def start(
    store: Store,
    caller: Caller,
    definition_id: str,
    *,
    request_id: str,
    inputs: RunInputs,
    settings: EngineSettings,
    now: int,
) -> Started | None:
    """Start a run of a step workflow (queued when its project has ``maxConcurrentRuns`` active);
    a ``request_id`` already used in the project returns that run (``duplicate``); audited. None,
    writing nothing, when the definition is a stage workflow (``runs.start`` starts those).

    A run started for a skill (``inputs.skill_id``) records the verdicts of its gates that declare
    ``evaluates`` as evaluations of that skill (``complete``).

    Raises:
        NotFound: (WEBHOOK_NOT_FOUND) no definition has this id in the caller's project;
            (SKILL_NOT_FOUND) no skill of the definition's project has ``inputs.skill_id``.
        InvalidArgument: (PROTOCOL_ERROR) the request id is too long; ``inputs.skill_id`` given for a
            workflow none of whose gates declares ``evaluates``.
        FailedPrecondition: (SKILL_NOT_PROMOTABLE) the skill is not a candidate.
        DataLoss: the definition's pinned plan does not decode.
    """
    if not request_id or len(request_id) > MAX_REQUEST_ID_CHARS:
        raise invalid_field("delivery_id", f"must be 1 to {MAX_REQUEST_ID_CHARS} characters (it de-duplicates starts)")

    object_id("definition_id", definition_id, MAX_RUN_ID_CHARS)

    def work(tx: Tx) -> Started | None:
        definition = tx.workflows.get_definition(definition_id)
        if definition is None or not definitions.visible(caller, definition):
            raise definitions.not_found(definition_id)
        if definition.kind is not DefinitionKind.STEPS:
            return None
        # A delivery id de-duplicates the starts of one definition (as for stage runs).
        key = f"{definition.id}/{request_id}"
        existing = tx.step_runs.run_by_request(definition.project, key)
        if existing is not None:
            loaded = load(tx, existing.id)
            assert loaded is not None
            return Started(loaded.run, duplicate=True)
        plan, gates = step_engine.pinned_plan(tx, definition.hash, definition.id)
        if inputs.skill_id:
            _check_skill_run(tx, definition.project, inputs.skill_id, gates)
        admitted = tx.step_runs.count_active(definition.project) < settings.max_concurrent_runs
        change = machine.create(
            new_id("run"),
            definition.project,
            definition.hash,
            context(tx, definition.project, plan, gates, settings, now),
            admitted=admitted,
            inputs=inputs,
            memory_revision=memory.current_revision(tx, definition.project),
        )
        apply(
            tx,
            None,
            change,
            plan,
            gates,
            settings,
            definition_id=definition.id,
            start_request_id=key,
            now=now,
        )
        facts = {"definitionId": definition.id, **({"skillId": inputs.skill_id} if inputs.skill_id else {})}
        audit.record(tx, caller, "workflow.start", f"run:{change.run.id}", now=now, metadata=facts)
        return Started(change.run, duplicate=False)

    started = await store.write(work)
    if started is not None and not started.duplicate:
        log.info(
            "step_run_started",
            run_id=started.run.id,
            definition_id=definition_id,
            project=started.run.project,
            status=started.run.status.value,
        )
    return started


def _check_skill_run(tx: Tx, project: str, skill_id: str, gates: Mapping[str, GateDefinition]) -> None:
    """A run may be started for ``skill_id``: the plan has a gate that evaluates, and the skill is a
    candidate of the run's project (another project's reads as missing).

    Raises:
        InvalidArgument: (PROTOCOL_ERROR, ``inputs.skill_id``) no gate of the plan declares ``evaluates``.
        NotFound, FailedPrecondition: as ``skills.evaluated_candidate``.
    """
    if not any(gate.evaluates is not None for gate in gates.values()):
        raise invalid_field(
            "inputs.skill_id",
            "the workflow has no gate that declares evaluates: its runs would record no evaluation of the skill",
        )
    skills.evaluated_candidate(tx, project, skill_id)


async def _command(
    store: Store,
    caller: Caller,
    run_id: str,
    decide: Callable[[StepRun, machine.Context], Change],
    *,
    settings: EngineSettings,
    action: str,
    now: int,
    metadata: dict[str, str] | None = None,
) -> StepRun:
    """An operator's command on a run: load, decide, apply, audit."""
    object_id("run_id", run_id, MAX_RUN_ID_CHARS)

    def work(tx: Tx) -> StepRun:
        loaded = visible(caller, load(tx, run_id), run_id)
        change = decide(loaded.run, context(tx, loaded.run.project, loaded.plan, loaded.gates, settings, now))
        apply(tx, loaded.stored, change, loaded.plan, loaded.gates, settings, definition_id="", now=now)
        audit.record(tx, caller, action, f"run:{run_id}", now=now, metadata=metadata or {})
        return change.run

    run = await store.write(work)
    log.info("step_run_" + action.rsplit(".", 1)[-1], run_id=run_id, status=run.status.value, operator=caller.operator)
    return run


async def approve(
    store: Store,
    caller: Caller,
    run_id: str,
    step_id: str,
    outcome: str,
    reason: str,
    *,
    settings: EngineSettings,
    now: int,
) -> StepRun:
    """An operator decides the run's current approval step (journaled in the run's events).

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND) no such run in the caller's project.
        FailedPrecondition: (WORKFLOW_TERMINAL) the run ended; (WORKFLOW_NOT_WAITING) its current
            step is not this approval step.
        InvalidArgument: the outcome is not one the step declares.
    """
    operator = caller.operator or "operator"
    return await _command(
        store,
        caller,
        run_id,
        lambda run, ctx: machine.approve(run, ctx, step_id, outcome, operator, reason),
        settings=settings,
        action="workflow.approve",
        now=now,
        metadata={"stepId": step_id, "outcome": outcome},
    )


async def recover(
    store: Store, caller: Caller, run_id: str, action: Recovery, reason: str, *, settings: EngineSettings, now: int
) -> StepRun:
    """An operator recovers a run an uncertain gate blocked (retry the gate, fail or cancel).

    Raises:
        NotFound: as ``approve``.
        FailedPrecondition: (WORKFLOW_TERMINAL) the run ended; (WORKFLOW_NOT_BLOCKED) it is not blocked.
    """
    operator = caller.operator or "operator"
    return await _command(
        store,
        caller,
        run_id,
        lambda run, ctx: machine.recover(run, ctx, action, operator, reason),
        settings=settings,
        action="workflow.recover",
        now=now,
        metadata={"action": action.value},
    )


async def cancel(
    store: Store, caller: Caller, run_id: str, reason: str, *, settings: EngineSettings, now: int
) -> StepRun:
    """Cancel a run (its open assignments cancelled, their tokens no longer honoured).

    Raises:
        NotFound: as ``approve``.
        FailedPrecondition: (WORKFLOW_TERMINAL) the run ended.
    """
    by = caller.operator or "operator"
    return await _command(
        store,
        caller,
        run_id,
        lambda run, ctx: machine.cancel(run, ctx, reason or "cancelled", by),
        settings=settings,
        action="workflow.cancel",
        now=now,
    )


# -- reads ----------------------------------------------------------------------------------------


async def get(store: Store, caller: Caller, run_id: str) -> Loaded | None:
    """The step run, or None when no step run has this id (a stage run may).

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND) a step run of another project.
        PermissionDenied: (WORKFLOW_FORBIDDEN) an agent that is not the plan's coordinator.
    """
    object_id("run_id", run_id, MAX_RUN_ID_CHARS)
    loaded = await store.read(lambda tx: load(tx, run_id))
    return None if loaded is None else visible(caller, loaded, run_id)


async def events(
    store: Store, caller: Caller, run_id: str, *, after: int, size: int
) -> tuple[list[StoredRunEvent], int]:
    """A page of the run's events after sequence ``after``, and the run's last sequence.

    Raises:
        NotFound, PermissionDenied: as ``get`` (and NotFound when no step run has this id).
        InvalidArgument: a negative ``after`` or size.
    """
    if after < 0:
        raise invalid_field("after_sequence", "must not be negative")
    limit = min(page_size(size), MAX_EVENTS_PAGE)

    def read(tx: Tx) -> tuple[list[StoredRunEvent], int]:
        loaded = visible(caller, load(tx, run_id), run_id)
        return tx.step_runs.list_events(run_id, after=after, limit=limit), loaded.stored.sequence

    object_id("run_id", run_id, MAX_RUN_ID_CHARS)
    return await store.read(read)


# -- the assignee's side --------------------------------------------------------------------------


def _own_assignment(tx: Tx, caller: Caller, assignment_id: str) -> StoredAssignment:
    """The caller's assignment.

    Raises:
        NotFound: (ASSIGNMENT_NOT_FOUND) none with this id in the caller's project.
        PermissionDenied: (ASSIGNMENT_FORBIDDEN) another agent's.
    """
    assignment = tx.step_runs.get_assignment(assignment_id)
    if assignment is None or assignment.project != caller.project:
        raise assignment_not_found(assignment_id)
    if caller.agent_id != assignment.agent_id:
        raise PermissionDenied(
            f"assignment {assignment_id} is another agent's",
            reason=Reason.ASSIGNMENT_FORBIDDEN,
            metadata={"assignmentId": assignment_id},
        )
    return assignment


@dataclass(frozen=True)
class Completed:
    assignment: StoredAssignment
    run: StepRun
    duplicate: bool
    expired: bool = False
    """The result came at or after the deadline: the assignment was expired instead (committed)."""
    skill_event: machine.Event | None = None
    """The ``skill.evaluated`` or ``skill.evaluation_skipped`` event a gate of a skill's run logged."""


def _closed(assignment_id: str, state: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"assignment {assignment_id} is {state}: its result is no longer accepted",
        reason=Reason.ASSIGNMENT_CLOSED,
        metadata={"assignmentId": assignment_id, "state": state},
    )


async def complete(
    store: Store,
    caller: Caller,
    assignment_id: str,
    report: WorkerReport | ReviewReport,
    *,
    settings: EngineSettings,
    now: int,
) -> Completed:
    """Record the result of the caller's open assignment (exactly one per assignment: the same
    result again is answered as first, ``duplicate``) and move its run on.

    Raises:
        NotFound: (ASSIGNMENT_NOT_FOUND) no such assignment in the caller's project.
        PermissionDenied: (ASSIGNMENT_FORBIDDEN) another agent's.
        FailedPrecondition: (ASSIGNMENT_CLOSED) it is no longer open (another result, expired,
            superseded, cancelled); (WORKFLOW_TERMINAL) its run ended.
        InvalidArgument: the envelope does not fit the assignment (a reviewer's assignment
            answered with a WorkerResult, an undeclared outcome, a gate's checks out of order).
    """
    object_id("assignment_id", assignment_id, MAX_RUN_ID_CHARS)

    def work(tx: Tx) -> Completed:
        assignment = _own_assignment(tx, caller, assignment_id)
        kept = step_engine.decode_result(assignment.result)
        if assignment.state is not AssignmentState.OPEN and kept.get("contentHash") == report.content_hash:
            loaded = load(tx, assignment.run_id)
            assert loaded is not None
            return Completed(assignment, loaded.run, duplicate=True)
        loaded = load(tx, assignment.run_id)
        if loaded is None:
            raise assignment_not_found(assignment_id)
        member = loaded.run.member(assignment_id)
        if member is None or not member.status.open or assignment.state is not AssignmentState.OPEN:
            raise _closed(assignment_id, member.status.value if member is not None else assignment.state.value)
        ctx = context(tx, loaded.run.project, loaded.plan, loaded.gates, settings, now)
        if member.deadline is not None and now >= member.deadline:
            # Exact to the microsecond: a result at the deadline is late, whether or not the
            # deadline's timer has fired yet; the expiry it would apply is applied now.
            change = machine.expire(loaded.run, ctx, assignment_id)
            apply(tx, loaded.stored, change, loaded.plan, loaded.gates, settings, definition_id="", now=now)
            return Completed(assignment, change.run, duplicate=False, expired=True)
        step = loaded.plan.step(member.step_id)
        assert step is not None
        # The commit a gate was sent to check (its request's base commit), whatever it reports.
        checked = loaded.run.head_commit or loaded.run.inputs.base_commit or ""
        gate_commit = report.commit if isinstance(report, WorkerReport) else ""
        if member.role is MemberRole.GATE and gate_commit and gate_commit != checked:
            raise invalid_field("result.commit", f"the gate ran on {gate_commit}, not its assignment's {checked}")
        result = _judge(loaded, member.role, step, report)
        evidence = None
        if member.role is MemberRole.GATE:
            assert isinstance(report, WorkerReport)
            evidence = gate_evidence.record(
                assignment_id=assignment_id,
                step=step,
                step_attempt=member.step_attempt,
                gate=_gate(loaded, step),
                plan_hash=loaded.stored.plan_hash,
                report=replace(report, commit=checked),
                outcome=result.outcome,
            )
        change = machine.complete(loaded.run, ctx, assignment_id, result, evidence)
        noted = None
        if member.role is MemberRole.GATE and loaded.run.inputs.skill_id:
            change, noted = _evaluate_skill(tx, loaded, member, _gate(loaded, step), change, settings, now)
        apply(tx, loaded.stored, change, loaded.plan, loaded.gates, settings, definition_id="", now=now)
        closed = tx.step_runs.get_assignment(assignment_id)
        assert closed is not None
        return Completed(closed, change.run, duplicate=False, skill_event=noted)

    completed = await store.write(work)
    if completed.expired:
        raise _closed(assignment_id, "expired")
    if not completed.duplicate:
        log.info(
            "step_assignment_completed",
            run_id=completed.assignment.run_id,
            assignment_id=assignment_id,
            run_status=completed.run.status.value,
        )
    if completed.skill_event is not None:
        payload = completed.skill_event.payload
        log.info(
            "step_skill_evaluated"
            if completed.skill_event.type == SKILL_EVALUATED
            else "step_skill_evaluation_skipped",
            run_id=completed.assignment.run_id,
            skill_id=payload["skillId"],
            kind=payload["kind"],
            passed=payload["passed"],
            reason=payload.get("reason", ""),
        )
    return completed


SKILL_EVALUATED = "skill.evaluated"
"""A run event: a gate of a skill's run recorded an evaluation of the skill."""
SKILL_EVALUATION_SKIPPED = "skill.evaluation_skipped"
"""A run event: a gate of a skill's run reached a verdict but recorded no evaluation, and why."""


def _evaluate_skill(
    tx: Tx,
    loaded: Loaded,
    member: Member,
    gate: GateDefinition,
    change: Change,
    settings: EngineSettings,
    now: int,
) -> tuple[Change, machine.Event | None]:
    """A gate of a run started for a skill took a verdict (``change`` completed its member): when
    the gate declares ``evaluates``, record the verdict as an evaluation of that kind in this
    transaction (``skills.record_gate_evaluation``) and log it after ``assignment.completed``; an
    uncertain gate (blocked, nothing completed) and a gate that declares nothing record nothing; a
    gate of a step that expects it to fail (a repro step) is logged as skipped, ``expect_fail``:
    its verdict says the failure was reproduced, not that the skill passed."""
    completed = next(
        (e for e in change.events if e.type == "assignment.completed" and e.payload.get("assignmentId") == member.id),
        None,
    )
    if gate.evaluates is None or completed is None:
        return change, None
    run = loaded.run
    outcome, passed = str(completed.payload["outcome"]), completed.payload["passed"] is True
    facts: dict[str, JsonValue] = {
        "skillId": run.inputs.skill_id,
        "kind": gate.evaluates.value,
        "passed": passed,
        "stepId": member.step_id,
        "stepAttempt": member.step_attempt,
        "assignmentId": member.id,
        "gate": gate.id,
        "gateHash": gate.hash,
    }
    step = loaded.plan.step(member.step_id)
    if step is not None and step.expect is GateExpect.FAIL:
        skipped = machine.Event(SKILL_EVALUATION_SKIPPED, {**facts, "reason": "expect_fail", "skillState": None})
        return machine.noted(change, completed, skipped), skipped
    kept = skills.record_gate_evaluation(
        tx,
        project=run.project,
        skill_id=run.inputs.skill_id,
        kind=gate.evaluates,
        passed=passed,
        evaluator=skill_rules.gate_evaluator(gate.id, run.id),
        details=skill_rules.gate_details(
            run_id=run.id,
            step_id=member.step_id,
            step_attempt=member.step_attempt,
            gate_id=gate.id,
            gate_hash=gate.hash,
            outcome=outcome,
        ),
        optimization_enabled=settings.skill_optimization,
        now=now,
    )
    if kept.evaluated is not None:
        event = machine.Event(
            SKILL_EVALUATED,
            {
                **facts,
                "evaluator": kept.evaluated.event.actor,
                "skillEventSequence": kept.evaluated.event.sequence,
                "skillState": kept.evaluated.skill.state.value,
            },
        )
    else:
        assert kept.skipped is not None
        event = machine.Event(
            SKILL_EVALUATION_SKIPPED,
            {**facts, "reason": kept.skipped.value, "skillState": kept.state.value if kept.state else None},
        )
    return machine.noted(change, completed, event), event


def _gate(loaded: Loaded, step: Any) -> GateDefinition:
    gate = step_engine.gate_of(step.gate, step.command, loaded.gates)
    assert gate is not None and step.kind is StepKind.GATE  # the plan pins every gate step's gate
    return gate


def _judge(loaded: Loaded, role: MemberRole, step: Any, report: WorkerReport | ReviewReport) -> Any:
    """The hub's reading of the envelope (see ``engine/results.py``).

    Raises:
        InvalidArgument: the envelope's kind is not what the assignment asked for, or it does not fit.
    """
    if role is MemberRole.REVIEWER:
        if not isinstance(report, ReviewReport):
            raise _wrong_envelope("review", "a reviewer's assignment is answered with a ReviewEnvelope")
        return review_result(step, report)
    if not isinstance(report, WorkerReport):
        raise _wrong_envelope("worker_result", "this assignment is answered with a WorkerResult")
    if role is MemberRole.GATE:
        return gate_result(step, _gate(loaded, step), report)
    return worker_result(step, report, run_id=loaded.run.id)


def _wrong_envelope(field: str, message: str) -> InvalidArgument:
    return invalid_field(field, message)


MAX_OPEN_READ = 64
"""Open assignments of one agent ``next_assignment`` looks through."""


@dataclass(frozen=True, slots=True)
class OpenAssignment:
    """An open assignment as its agent reads it: the ``AssignmentRequest`` and what its context needs."""

    request: dict[str, Any]
    facts: AssignmentFacts


def _facts(run: StepRun, member: Member, plan: StepWorkflow) -> AssignmentFacts:
    step = plan.step(member.step_id)
    assert step is not None
    return AssignmentFacts(
        assignment_id=member.id,
        project=run.project,
        run_id=run.id,
        step_id=step.id,
        attempt=member.step_attempt,
        agent_name=member.agent,
        instructions=step.instructions or step.description or "",
        outcomes=tuple(sorted(step.transitions)),
        evidence_keys=tuple(requirement.key for requirement in step.required_evidence),
        read_only=step.tools is not None and step.tools.preset == "read-only",
        step_number=[candidate.id for candidate in plan.steps].index(step.id) + 1,
        step_count=len(plan.steps),
        memory_revision=run.memory_revision,
        handoff=run.handoff if run.handoff is not None and run.handoff.to_step == step.id else None,
        reviewer=member.role is MemberRole.REVIEWER,
    )


async def next_assignment(
    store: Store, caller: Caller, *, after: str = "", settings: EngineSettings, now: int
) -> OpenAssignment | None:
    """The caller's oldest open assignment (after ``after``, in that order) as its
    ``AssignmentRequest`` with a fresh attempt token (the one sent with it is not kept), or None.
    One past its deadline is not handed out (its timer is about to expire it).

    Raises:
        InvalidArgument: ``after`` is malformed (``after_assignment_id``).
    """
    if after:
        object_id("after_assignment_id", after, MAX_RUN_ID_CHARS)

    def read(tx: Tx) -> OpenAssignment | None:
        assert caller.agent_id is not None
        found = tx.step_runs.open_assignments(agent_id=caller.agent_id, limit=MAX_OPEN_READ)
        start = tx.step_runs.get_assignment(after) if after else None
        if start is not None and start.agent_id == caller.agent_id:
            found = [a for a in found if (a.create_time, a.id) > (start.create_time, start.id)]
        for assignment in found:
            if assignment.deadline is not None and assignment.deadline <= now:
                continue
            loaded = load(tx, assignment.run_id)
            member = loaded.run.member(assignment.id) if loaded is not None else None
            if loaded is not None and member is not None and member.status.open:
                request = step_engine.request_for(loaded.run, member, loaded.plan, loaded.gates, settings, now)
                return OpenAssignment(request, _facts(loaded.run, member, loaded.plan))
        return None

    return await store.read(read)


# -- timers and presence --------------------------------------------------------------------------


@dataclass
class StepTimers:
    """The handlers of the step engine's timers."""

    settings: EngineSettings

    def _run(
        self, tx: Tx, run_id: str, decide: Callable[[StepRun, machine.Context], Change], now: int
    ) -> StepRun | None:
        loaded = load(tx, run_id)
        if loaded is None or loaded.run.status.ended:
            return None
        change = decide(loaded.run, context(tx, loaded.run.project, loaded.plan, loaded.gates, self.settings, now))
        apply(tx, loaded.stored, change, loaded.plan, loaded.gates, self.settings, definition_id="", now=now)
        return change.run

    def assignment_deadline(self, tx: Tx, timer: Timer, now: int) -> StepRun | None:
        assignment = tx.step_runs.get_assignment(timer.key)
        if assignment is None or assignment.state is not AssignmentState.OPEN:
            return None
        return self._run(tx, assignment.run_id, lambda run, ctx: machine.expire(run, ctx, timer.key), now)

    def run_deadline(self, tx: Tx, timer: Timer, now: int) -> StepRun | None:
        return self._run(tx, timer.key, machine.deadline, now)

    def retry(self, tx: Tx, timer: Timer, now: int) -> StepRun | None:
        return self._run(tx, timer.key, machine.advance, now)

    def supersede_offline(self, tx: Tx, timer: Timer, now: int) -> None:
        """An agent went offline (``offline_noticed``): each of its open assignments is superseded,
        unless it came back meanwhile."""
        agent = tx.agents.get(timer.key)
        if agent is not None and agent.online:
            return
        for assignment in tx.step_runs.open_assignments(agent_id=timer.key, limit=64):
            try:
                run = self._run(tx, assignment.run_id, functools.partial(_supersede, assignment_id=assignment.id), now)
            except FailedPrecondition as refused:
                # The engine decides before anything is written: one assignment it will not
                # supersede (its run moved on) must not keep the others of this agent open.
                log.warning("step_supersede_skipped", assignment_id=assignment.id, reason=str(refused.reason))
                continue
            if run is not None:
                log.info("step_assignment_superseded", run_id=assignment.run_id, assignment_id=assignment.id)


def _supersede(run: StepRun, ctx: machine.Context, *, assignment_id: str) -> Change:
    return machine.supersede(run, ctx, assignment_id)


def offline_noticed(tx: Tx, agent: Agent, now: int) -> None:
    """A presence reaction: an agent gone offline with open assignments gets them superseded by
    its hub's scheduler (``SUPERSEDE_TIMER``, now), which holds the keys a reassignment signs with."""
    if not agent.online and tx.step_runs.open_assignments(agent_id=agent.id, limit=1):
        timers.schedule(tx, SUPERSEDE_TIMER, agent.id, now)


def resume_after_restart(tx: Tx, *, stale_after: int, now: int) -> int:
    """At start, once every agent was marked offline: each agent holding open assignments gets
    them superseded one presence window from now unless it called again by then (``SUPERSEDE_TIMER``
    checks). Returns how many agents hold open assignments.

    A start marks agents offline without their presence reactions (``offline_noticed``), and the
    sweep only retires agents that are online, so without this an assignee that never came back
    after a hub crash held its assignment forever and its run never moved (found building B18;
    ``tests/faults/test_step_runs_crash.py``).
    """
    assignees = tx.step_runs.open_assignees()
    for agent_id in assignees:
        timers.schedule(tx, SUPERSEDE_TIMER, agent_id, now + stale_after)
    return len(assignees)


def register(kinds: timers.TimerKinds, settings: EngineSettings) -> StepTimers:
    """Register the step engine's timers with a hub's scheduler, and (once per process) its
    reaction to agents going offline."""
    handlers = StepTimers(settings)
    kinds.register(ASSIGNMENT_TIMER, handlers.assignment_deadline)
    kinds.register(RUN_TIMER, handlers.run_deadline)
    kinds.register(RETRY_TIMER, handlers.retry)
    kinds.register(SUPERSEDE_TIMER, handlers.supersede_offline)
    register_presence_reaction(offline_noticed)
    return handlers


# -- listing both kinds ---------------------------------------------------------------------------


def page_rows(
    tx: Tx,
    *,
    project: str | None,
    status: StepRunState | None,
    definition_id: str | None,
    before: tuple[int, str] | None,
    limit: int,
) -> list[Loaded]:
    """Step runs for a merged listing (newest first), loaded."""
    rows = tx.step_runs.list_runs(
        project=project, status=status, definition_id=definition_id, before=before, limit=limit
    )
    loaded = [load(tx, row.id) for row in rows]
    return [item for item in loaded if item is not None]


def decode_before(token: str, query: str) -> tuple[int, str] | None:
    """The (create time, run id) a listing continues before, or None for the first page.

    Raises:
        InvalidArgument: (INVALID_PAGE_TOKEN) the token is malformed, hand-made or another query's.
    """
    after = decode_page_token(token, query)
    if after is None:
        return None
    time, _, run_id = after.partition("/")
    if not time.isdigit() or not run_id:
        raise invalid_field("page_token", "is malformed", reason=Reason.INVALID_PAGE_TOKEN)
    return int(time), run_id


def encode_before(create_time: int, run_id: str, query: str) -> str:
    return encode_page_token(f"{create_time}/{run_id}", query)
