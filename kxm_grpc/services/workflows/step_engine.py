"""Carrying out the step engine's changes: one transaction per command, snapshot, log and effects.

The engine (``domain/workflows/engine/machine.py``) decides; this module loads what it decides on
(the run's snapshot, its pinned plan, the project's agents as the hub sees them now) and applies
what it returns in the caller's transaction: the new snapshot, the events appended to the run's
log at the next sequences, and each effect —

- ``DISPATCH``: mint the member's attempt token, send its ``AssignmentRequest`` as a durable
  message from ``workflow:<run id>`` to the agent (delivered on its inbox stream like any message),
  record the assignment and arm its deadline;
- ``REVOKE``: close the assignment (its token is no longer honoured) and disarm its deadline;
- ``RETRY_DISPATCH``: try again shortly (no eligible agent is online);
- ``ARM_RUN_DEADLINE``: the run-duration budget's timer;
- ``ENDED``: disarm the run's timers and admit the project's next queued runs.

So a change and all it causes commit together or not at all: a hub killed anywhere leaves either
the step before it or the step after it, never an assignment sent twice or lost.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass

import structlog

from kxm_grpc import failpoints
from kxm_grpc.domain.agents import Presence, name_key
from kxm_grpc.domain.clock import seconds
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.messages import Delivery
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.tokens import mint_attempt_token
from kxm_grpc.domain.tool_policy import make_policy
from kxm_grpc.domain.workflows.engine import codec, machine
from kxm_grpc.domain.workflows.engine.machine import Candidate, Change, Context, Effect, EffectKind
from kxm_grpc.domain.workflows.engine.requests import assignment_request
from kxm_grpc.domain.workflows.engine.state import Member, MemberStatus, RunStatus, StepRun
from kxm_grpc.domain.workflows.plans.gates import GateDefinition
from kxm_grpc.domain.workflows.plans.model import StepKind, StepWorkflow
from kxm_grpc.domain.workflows.plans.reload import PlanCorrupt, load_plan
from kxm_grpc.errors import DataLoss, Reason
from kxm_grpc.services import timers
from kxm_grpc.services.auth import credentials_changed
from kxm_grpc.services.messages import send_from_hub
from kxm_grpc.store import Tx
from kxm_grpc.store.protocols.step_runs import (
    AssignmentState,
    StepRunState,
    StoredAssignment,
    StoredRunEvent,
    StoredStepRun,
)

log = structlog.get_logger("kxm.workflows")

ASSIGNMENT_TIMER = "step_assignment_deadline"
"""Key: the assignment id. At the deadline the member expires (a gate's: the run blocks)."""
RUN_TIMER = "step_run_deadline"
"""Key: the run id. At the run-duration budget the run is cancelled."""
RETRY_TIMER = "step_dispatch_retry"
"""Key: the run id. Dispatch again: an eligible agent may be online now."""
SUPERSEDE_TIMER = "step_assignee_offline"
"""Key: an agent id. Its open assignments are superseded (it went offline past the stale period)."""
RETRY_AFTER = seconds(2)
DEFAULT_TOKEN_TTL = seconds(86_400)
"""An attempt token's lifetime when its assignment has no deadline (re-minted by NextAssignment)."""
MAX_EVENTS_PAGE = 500
"""The most events one read of a run's log returns (a ListWorkflowRunEvents page; ``all_events``'s step)."""


@dataclass(frozen=True)
class EngineSettings:
    """What carrying out changes needs from the hub's settings."""

    stale_after: int
    """An agent is online when it renewed its presence within this window."""
    max_concurrent_runs: int
    """Active (running or blocked) step runs per project; more wait queued."""
    token_keys: Keyring
    """Signs the attempt tokens."""
    message_ttl: int
    """The lifetime of an assignment's message when it has no deadline."""
    skill_optimization: bool = False
    """Whether a gate declaring ``evaluates: optimization`` records its verdict (``--skill-optimization``)."""


@dataclass(frozen=True)
class Loaded:
    """A step run with what its commands need."""

    stored: StoredStepRun
    run: StepRun
    plan: StepWorkflow
    gates: Mapping[str, GateDefinition]


def corrupt(what: str, run_id: str) -> DataLoss:
    return DataLoss(
        f"step run {run_id}: the stored {what} does not decode",
        reason=Reason.STORAGE_CORRUPTED,
        metadata={"runId": run_id},
    )


@functools.lru_cache(maxsize=128)
def _parse_plan(document: str) -> tuple[StepWorkflow, Mapping[str, GateDefinition]]:
    return load_plan(json.loads(document))


def pinned_plan(tx: Tx, plan_hash: str, run_id: str) -> tuple[StepWorkflow, Mapping[str, GateDefinition]]:
    """The plan a run pinned (cached by its document).

    Raises:
        DataLoss: (STORAGE_CORRUPTED) the version is gone or does not decode as a plan.
    """
    document = tx.workflows.definition_version(plan_hash)
    if document is None:
        raise corrupt("plan version", run_id)
    try:
        return _parse_plan(document)
    except (PlanCorrupt, ValueError):
        raise corrupt("plan", run_id) from None


def load(tx: Tx, run_id: str) -> Loaded | None:
    """The step run with its snapshot and plan, or None.

    Raises:
        DataLoss: (STORAGE_CORRUPTED) its snapshot or plan does not decode.
    """
    stored = tx.step_runs.get_run(run_id)
    if stored is None:
        return None
    try:
        run = codec.decode(json.loads(stored.snapshot))
    except (codec.SnapshotCorrupt, ValueError):
        raise corrupt("snapshot", run_id) from None
    plan, gates = pinned_plan(tx, stored.plan_hash, run_id)
    return Loaded(stored, run, plan, gates)


def all_events(tx: Tx, run_id: str) -> list[StoredRunEvent]:
    """The run's whole log in sequence order (empty for an unknown run), read a page at a time."""
    events: list[StoredRunEvent] = []
    while page := tx.step_runs.list_events(run_id, after=events[-1].sequence if events else 0, limit=MAX_EVENTS_PAGE):
        events.extend(page)
    return events


def _named(plan: StepWorkflow) -> set[str]:
    names = {plan.coordinator, *plan.gate_workers}
    for step in plan.steps:
        names.update(step.assignments.allowed_agents)
    return names


def context(
    tx: Tx, project: str, plan: StepWorkflow, gates: Mapping[str, GateDefinition], settings: EngineSettings, now: int
) -> Context:
    """The engine's context: the plan's agents of the project with their presence now."""
    roster: dict[str, Candidate] = {}
    for name in _named(plan):
        agent = tx.agents.find_by_name(project, name_key(name))
        if agent is not None:
            online = agent.presence(now, settings.stale_after) is Presence.ONLINE
            roster[name] = Candidate(name, agent.id, online)
    return Context(plan, now, roster, lambda: new_id("asg"), gates)


def apply(
    tx: Tx,
    stored: StoredStepRun | None,
    change: Change,
    plan: StepWorkflow,
    gates: Mapping[str, GateDefinition],
    settings: EngineSettings,
    *,
    definition_id: str,
    start_request_id: str = "",
    now: int,
) -> StoredStepRun:
    """Persist ``change`` (the snapshot, its events) and carry out its effects, in ``tx``."""
    run = change.run
    first = (stored.sequence if stored is not None else 0) + 1
    saved = StoredStepRun(
        id=run.id,
        project=run.project,
        definition_id=stored.definition_id if stored is not None else definition_id,
        plan_hash=run.plan_hash,
        status=StepRunState(run.status.value),
        create_time=run.create_time,
        update_time=run.update_time,
        end_time=run.end_time,
        sequence=run.sequence,
        snapshot=canonical_json(codec.encode(run)),
        start_request_id=stored.start_request_id if stored is not None else start_request_id,
    )
    if stored is None:
        tx.step_runs.insert_run(saved)
    else:
        tx.step_runs.save_run(saved)
    if change.events:
        tx.step_runs.append_events(
            [
                StoredRunEvent(run.id, first + offset, event.type, canonical_json(dict(event.payload)), now)
                for offset, event in enumerate(change.events)
            ]
        )
    for effect in change.effects:
        _carry_out(tx, run, effect, plan, gates, settings, now)
    if any(event.type in _SETTLING for event in change.events):
        failpoints.hit("step_settle")
    if change.events:
        tx.notify(run_topic(run.id))
    return saved


_SETTLING = frozenset({"assignment.completed", "step.outcome"})
"""The events of a change that takes a result or settles a step (``step_settle`` is hit after them)."""


def encode_result(member: Member) -> str:
    """What a closed assignment keeps of its result: its envelope's hash (a completion retried with
    it is a duplicate) and the outcome the hub derived; empty without a result."""
    result = member.result
    if result is None or not result.content_hash:
        return ""
    return canonical_json({"contentHash": result.content_hash, "outcome": result.outcome, "passed": result.passed})


def decode_result(text: str) -> dict[str, object]:
    """``encode_result``'s fields (empty for an assignment closed without a result)."""
    return dict(json.loads(text)) if text else {}


def run_topic(run_id: str) -> str:
    """Notified when the run's log grows (a stream of its events wakes)."""
    return f"step-run:{run_id}"


_CLOSED = {
    MemberStatus.COMPLETED: AssignmentState.COMPLETED,
    MemberStatus.EXPIRED: AssignmentState.EXPIRED,
    MemberStatus.SUPERSEDED: AssignmentState.SUPERSEDED,
    MemberStatus.CANCELLED: AssignmentState.CANCELLED,
}


def _carry_out(
    tx: Tx,
    run: StepRun,
    effect: Effect,
    plan: StepWorkflow,
    gates: Mapping[str, GateDefinition],
    settings: EngineSettings,
    now: int,
) -> None:
    if effect.kind is EffectKind.DISPATCH:
        assert effect.member is not None
        dispatch(tx, run, effect.member, plan, gates, settings, now)
        if plan.require_attempt_tokens:
            credentials_changed(tx)  # the assignee is now bound to its token (``token_bound``)
    elif effect.kind is EffectKind.REVOKE:
        assert effect.member is not None
        member = effect.member
        tx.step_runs.close_assignment(member.id, _CLOSED[member.status], end_time=now, result=encode_result(member))
        timers.cancel(tx, ASSIGNMENT_TIMER, member.id)
        if plan.require_attempt_tokens:
            credentials_changed(tx)
    elif effect.kind is EffectKind.RETRY_DISPATCH:
        timers.schedule(tx, RETRY_TIMER, run.id, now + RETRY_AFTER)
    elif effect.kind is EffectKind.ARM_RUN_DEADLINE:
        assert effect.due is not None
        timers.schedule(tx, RUN_TIMER, run.id, effect.due)
    elif effect.kind is EffectKind.ENDED:
        timers.cancel(tx, RUN_TIMER, run.id)
        timers.cancel(tx, RETRY_TIMER, run.id)
        admit_queued(tx, run.project, settings, now)


def gate_of(
    step_gate: str | None, command: GateDefinition | None, gates: Mapping[str, GateDefinition]
) -> GateDefinition | None:
    return command if command is not None else gates.get(step_gate or "")


def request_for(
    run: StepRun,
    member: Member,
    plan: StepWorkflow,
    gates: Mapping[str, GateDefinition],
    settings: EngineSettings,
    now: int,
    *,
    with_token: bool = True,
) -> dict[str, object]:
    """The member's ``AssignmentRequest``, with a freshly minted attempt token unless ``with_token``
    is false (the inbox copy: a stored message never holds a bearer token)."""
    step = plan.step(member.step_id)
    assert step is not None
    gate = gate_of(step.gate, step.command, gates) if step.kind is StepKind.GATE else None
    if not with_token:
        request = dict(assignment_request(run, member, step, plan, gate, attempt_token=""))
        del request["attemptToken"]
        return request
    ttl = (member.deadline - now) if member.deadline is not None and member.deadline > now else DEFAULT_TOKEN_TTL
    tools = step.tools
    policy = make_policy(
        preset=(tools.preset or "") if tools is not None else "",
        allow=tools.allow if tools is not None else (),
        deny=tools.deny if tools is not None else (),
    )
    token, _claims = mint_attempt_token(
        settings.token_keys,
        project=run.project,
        run_id=run.id,
        step_id=step.id,
        step_attempt=member.step_attempt,
        assignment_id=member.id,
        attempt_id=member.id,
        agent_id=member.agent_id,
        tool_policy=policy,
        now=now,
        ttl=ttl,
    )
    return dict(assignment_request(run, member, step, plan, gate, attempt_token=token))


def dispatch(
    tx: Tx,
    run: StepRun,
    member: Member,
    plan: StepWorkflow,
    gates: Mapping[str, GateDefinition],
    settings: EngineSettings,
    now: int,
) -> None:
    """Send the member's assignment to its agent and record it (see the module docstring)."""
    agent = tx.agents.get(member.agent_id)
    request = request_for(run, member, plan, gates, settings, now, with_token=False)
    ttl = (member.deadline - now) if member.deadline is not None else settings.message_ttl
    message_id = ""
    if agent is not None:
        message_id = send_from_hub(
            tx,
            run_id=run.id,
            sender_name=f"{run.workflow_id}/{member.step_id}",
            target=agent,
            content=json.dumps(request, ensure_ascii=False, separators=(",", ":")),
            delivery=Delivery.FOLLOW_UP,
            idempotency_key=member.id,
            ttl=max(ttl, seconds(1)),
            now=now,
        ).id
    else:
        # Retired since the roster was read (another replica's sweep): recorded like any
        # assignment, and superseded at once, so its place is reassigned.
        log.warning("step_assignment_undeliverable", run_id=run.id, assignment_id=member.id)
        timers.schedule(tx, SUPERSEDE_TIMER, member.agent_id, now)
    tx.step_runs.put_assignment(
        StoredAssignment(
            id=member.id,
            run_id=run.id,
            project=run.project,
            step_id=member.step_id,
            step_attempt=member.step_attempt,
            agent_id=member.agent_id,
            state=AssignmentState.OPEN,
            create_time=now,
            deadline=member.deadline,
            message_id=message_id,
        )
    )
    if member.deadline is not None:
        timers.schedule(tx, ASSIGNMENT_TIMER, member.id, member.deadline)
    failpoints.hit("step_dispatch")


def admit_queued(tx: Tx, project: str, settings: EngineSettings, now: int) -> None:
    """Start the project's oldest queued runs while it has room under ``maxConcurrentRuns``."""
    room = settings.max_concurrent_runs - tx.step_runs.count_active(project)
    if room <= 0:
        return
    for queued in tx.step_runs.oldest_queued(project, room):
        loaded = load(tx, queued.id)
        if loaded is None or loaded.run.status is not RunStatus.QUEUED:
            continue
        change = machine.admit(loaded.run, context(tx, project, loaded.plan, loaded.gates, settings, now))
        apply(
            tx, loaded.stored, change, loaded.plan, loaded.gates, settings, definition_id=queued.definition_id, now=now
        )
        log.info("step_run_admitted", run_id=queued.id, project=project)
