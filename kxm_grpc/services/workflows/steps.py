"""A run's steps: checkpoints, waits, escalations, approvals and rulings.

Each step is one write transaction: read the run, check the caller, verify cited replies, apply
the pure rules (``domain.workflows``: checkpoints, waits, approvals), store the run, keep its
wait's timer in step, publish the step's events (journal, notifications) and remember the answer
under the request id; its events are logged once it committed. A refused step raises before
anything is kept, so it consumes no attempt. A request id seen before for the run returns the
first answer, with the run as it is now, and applies nothing again: a client retrying after a
lost answer (or a hub killed between commit and answer) checkpoints once; a request id reused for
another request is refused. Signals are ``signals``; waits' deadlines and the prompts' reactions
``deadlines``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field

import structlog

from kxm_grpc import failpoints
from kxm_grpc.domain import validation
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.messages import Delivery
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows import approvals, checkpoints, inputs, waits
from kxm_grpc.domain.workflows import evidence as evidence_rules
from kxm_grpc.domain.workflows.checkpoints import CheckpointRequest
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import DegradationApproval
from kxm_grpc.domain.workflows.outcomes import RunEvent, Step
from kxm_grpc.domain.workflows.runs import CheckpointStatus, Run, RunStatus, Transition
from kxm_grpc.domain.workflows.waits import WaitRequest
from kxm_grpc.errors import Aborted, FailedPrecondition, Reason, invalid_field
from kxm_grpc.services import audit
from kxm_grpc.services.context import pool
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.messages import send_from_hub
from kxm_grpc.services.workflows import provenance
from kxm_grpc.services.workflows.events import log_events
from kxm_grpc.services.workflows.journal_writes import write_approval_entry
from kxm_grpc.services.workflows.runs import (
    MAX_RUN_ID_CHARS,
    MAX_STAGE_ID_CHARS,
    check_visible,
    forbidden,
    pinned,
    prompt_ttl,
    save,
)
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import StoredStep

log = structlog.get_logger("kxm.workflows")


MAX_REQUEST_ID_CHARS = 80


MAX_RULING_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a step did, as every surface answers it."""

    run: Run
    retry: bool = False
    completed: bool = False
    exhausted: bool = False
    escalated: bool = False
    transition: Transition | None = None
    degraded_requirements: tuple[str, ...] = ()
    instruction: str = ""
    repeated: bool = False
    events: tuple[RunEvent, ...] = ()
    """What the step reported (logged once it committed); empty for a repeat."""


@dataclass(frozen=True, slots=True)
class Report:
    """A checkpoint's, wait's or ruling's fields as the caller gave them (validated here)."""

    run_id: str
    stage_id: str = ""
    status: CheckpointStatus | None = None
    summary: str = ""
    evidence: Mapping[str, str] = field(default_factory=dict)
    evidence_refs: Mapping[str, Sequence[str]] = field(default_factory=dict)
    outcome: str = ""
    request_id: str = ""


def status_of(value: CheckpointStatus | None, *, field: str = "status") -> CheckpointStatus:
    """Raises InvalidArgument (INVALID_CHECKPOINT_STATUS) when no status was given."""
    if value is None:
        raise invalid_field(field, "must be passed, warning or failed", reason=Reason.INVALID_CHECKPOINT_STATUS)
    return value


SIGNAL_STEP_PREFIX = "signal:"
"""The prefix of a signal's remembered answer (``signal:<delivery id>``), reserved in request ids."""


def request_id(value: str) -> str:
    """Raises InvalidArgument when it is longer than 80 characters, holds control characters or
    starts with the reserved ``signal:``."""
    text = value.strip()
    if len(text) > MAX_REQUEST_ID_CHARS or any(ord(c) < 32 for c in text):
        raise invalid_field("request_id", f"must be at most {MAX_REQUEST_ID_CHARS} printable characters")
    if text.startswith(SIGNAL_STEP_PREFIX):
        raise invalid_field(
            "request_id", f"must not start with {SIGNAL_STEP_PREFIX!r} (the hub's signal receipts use it)"
        )
    return text


def _outcome_text(value: str) -> str | None:
    text = validation.js_trim(value)
    if validation.utf16_length(text) > inputs.MAX_OUTCOME_CHARS:
        raise invalid_field("outcome", f"exceeds {inputs.MAX_OUTCOME_CHARS} characters")
    return text or None


def check_ids(run_id: str, stage_id: str | None = None) -> None:
    """Raises InvalidArgument for a malformed run or stage id, before any lookup."""
    object_id("run_id", run_id, MAX_RUN_ID_CHARS)
    if stage_id is not None:
        object_id("stage_id", stage_id, MAX_STAGE_ID_CHARS)


def _coordinator_run(tx: Tx, caller: Caller, run_id: str) -> Run:
    """The run, for its coordinator only.

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND). PermissionDenied: (WORKFLOW_FORBIDDEN).
    """
    run = check_visible(caller, tx.workflows.get_run(run_id), run_id)
    if caller.kind is not CredentialKind.AGENT or caller.agent_id != run.coordinator_id:
        raise forbidden(run)
    return run


def fingerprint(kind: str, report: Report, *extra: object) -> str:
    """sha256 of what a step request asked (its kind and fields), to tell a retry from a reuse."""
    return request_digest(
        kind,
        report.stage_id,
        report.status.value if report.status else "",
        report.summary,
        sorted(report.evidence.items()),
        sorted((key, list(ids)) for key, ids in report.evidence_refs.items()),
        report.outcome,
        *extra,
    )


def request_digest(*fields: object) -> str:
    """sha256 of a request's fields as JSON, remembered with its request id to tell a retry from a reuse."""
    return hashlib.sha256(json.dumps(fields, separators=(",", ":"), default=str).encode()).hexdigest()


def reused_request_id(run: Run, request: str) -> Aborted:
    """The refusal of a request id answered before for another request on this run."""
    return Aborted(
        "request_id was already used for another request on this run",
        reason=Reason.IDEMPOTENCY_CONFLICT,
        metadata={"runId": run.id, "requestId": request, "nextAction": "use a new request_id per request"},
    )


def _recalled(tx: Tx, run: Run, request: str, asked: str) -> Outcome | None:
    """The answer a request id got before, with the run as it is now.

    Raises:
        Aborted: (IDEMPOTENCY_CONFLICT) the id was used for another request on this run.
    """
    if not request:
        return None
    stored = tx.workflows.get_step(run.id, request)
    if stored is None:
        return None
    answer = json.loads(stored.response)
    if answer.get("request") != asked:
        raise reused_request_id(run, request)
    transition = next((t for t in run.transitions if t.id == answer.get("transition")), None)
    return Outcome(
        run,
        retry=answer["retry"],
        completed=answer["completed"],
        exhausted=answer["exhausted"],
        escalated=answer["escalated"],
        transition=transition,
        degraded_requirements=tuple(answer["degraded"]),
        instruction=answer["instruction"],
        repeated=True,
    )


def _remember(tx: Tx, run: Run, request: str, kind: str, step: Step, now: int, asked: str = "") -> Outcome:
    if request:
        answer = {
            "request": asked,
            "retry": step.retry,
            "completed": step.completed,
            "exhausted": step.exhausted,
            "escalated": step.escalated,
            "transition": step.transition.id if step.transition else None,
            "degraded": list(step.degraded_requirements),
            "instruction": step.instruction,
        }
        tx.workflows.put_step(StoredStep(run.id, request, kind, json.dumps(answer, separators=(",", ":")), now))
    return Outcome(
        step.run,
        retry=step.retry,
        completed=step.completed,
        exhausted=step.exhausted,
        escalated=step.escalated,
        transition=step.transition,
        degraded_requirements=step.degraded_requirements,
        instruction=step.instruction,
        events=step.events,
    )


async def _logged(outcome: Awaitable[Outcome]) -> Outcome:
    """Await a step's transaction, then log its events (never for a rolled-back attempt)."""
    done = await outcome
    log_events(done.run, done.events)
    return done


def store_step(
    tx: Tx,
    definition: WorkflowDefinition,
    before: Run,
    step: Step,
    now: int,
    *,
    via_signal: bool = False,
    reported: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Store the step's run and publish its events (``runs.save``)."""
    save(tx, definition, before, step.run, step.events, now, via_signal=via_signal, reported=reported)


async def checkpoint(store: Store, caller: Caller, report: Report, *, now: int) -> Outcome:
    """Apply the coordinator's checkpoint (see the module and ``checkpoints.checkpoint``).

    Raises:
        InvalidArgument: a malformed field (INVALID_CHECKPOINT_STATUS, INVALID_WORKFLOW_EVIDENCE,
            INVALID_WORKFLOW_EVIDENCE_REFS, PROTOCOL_ERROR); WORKFLOW_PROVENANCE_INVALID; as
            ``checkpoints.checkpoint``.
        NotFound, PermissionDenied, FailedPrecondition: as ``checkpoints.checkpoint``; WORKFLOW_FORBIDDEN.
    """
    check_ids(report.run_id, report.stage_id)
    status = status_of(report.status)
    summary = inputs.summary_text(report.summary)
    evidence = inputs.parse_evidence(report.evidence)
    refs = evidence_rules.parse_refs(report.evidence_refs)
    outcome = _outcome_text(report.outcome)
    request = request_id(report.request_id)
    asked = fingerprint("checkpoint", report)

    def work(tx: Tx) -> Outcome:
        run = _coordinator_run(tx, caller, report.run_id)
        recalled = _recalled(tx, run, request, asked)
        if recalled is not None:
            return recalled
        definition = pinned(tx, run)
        checkpoints.require_active(run, definition, report.stage_id)
        if refs and status is not CheckpointStatus.PASSED:
            raise invalid_field(
                "evidence_refs",
                "are accepted only on a passing checkpoint",
                reason=Reason.INVALID_WORKFLOW_EVIDENCE_REFS,
            )
        peer = provenance.verify(tx, run, report.stage_id, refs, now=now)
        step = checkpoints.checkpoint(
            run,
            definition,
            CheckpointRequest(report.stage_id, status, summary, evidence, peer, outcome),
            now=now,
            new_id=new_id,
        )
        store_step(tx, definition, run, step, now, reported=evidence)
        pool.put_peer_evidence(tx, run, peer, now=now)
        failpoints.hit("checkpoint_mid_write")
        return _remember(tx, step.run, request, "checkpoint", step, now, asked)

    return await _logged(store.write(work))


async def wait(
    store: Store, caller: Caller, report: Report, signal_key: str, timeout_ms: int | None, *, now: int
) -> Outcome:
    """Put the coordinator's current stage into a wait for ``signal_key`` (``waits.wait``).

    Raises:
        InvalidArgument: INVALID_SIGNAL_KEY, WORKFLOW_WAIT_INVALID, the evidence errors.
        NotFound, PermissionDenied, FailedPrecondition: as ``checkpoint``; WORKFLOW_NOT_RUNNING.
    """
    check_ids(report.run_id, report.stage_id)
    summary = inputs.summary_text(report.summary)
    evidence = inputs.parse_evidence(report.evidence)
    refs = evidence_rules.parse_refs(report.evidence_refs)
    request = request_id(report.request_id)
    asked = fingerprint("wait", report, signal_key, timeout_ms)

    def work(tx: Tx) -> Outcome:
        run = _coordinator_run(tx, caller, report.run_id)
        recalled = _recalled(tx, run, request, asked)
        if recalled is not None:
            return recalled
        definition = pinned(tx, run)
        if run.status is not RunStatus.RUNNING:
            raise FailedPrecondition(
                f"workflow is {run.status.value}",
                reason=Reason.WORKFLOW_NOT_RUNNING,
                metadata={"runId": run.id, "status": run.status.value},
            )
        checkpoints.require_active(run, definition, report.stage_id)
        peer = provenance.verify(tx, run, report.stage_id, refs, now=now)
        step = waits.wait(
            run,
            definition,
            WaitRequest(report.stage_id, signal_key, summary, evidence, peer, timeout_ms),
            now=now,
        )
        store_step(tx, definition, run, step, now)
        pool.put_peer_evidence(tx, run, peer, now=now)
        return _remember(tx, step.run, request, "wait", step, now, asked)

    return await _logged(store.write(work))


async def escalate(store: Store, caller: Caller, run_id: str, stage_id: str, reason: str, *, now: int) -> Outcome:
    """Escalate the coordinator's current stage for audit (``waits.escalate``).

    Raises:
        InvalidArgument: the reason is empty or too long.
        NotFound, PermissionDenied, FailedPrecondition: as ``checkpoint``.
    """
    check_ids(run_id, stage_id)
    text = validation.required_text("reason", reason, inputs.MAX_SUMMARY_CHARS)

    def work(tx: Tx) -> Outcome:
        run = _coordinator_run(tx, caller, run_id)
        definition = pinned(tx, run)
        step = waits.escalate(run, definition, stage_id, text, by=run.coordinator_id, now=now)
        store_step(tx, definition, run, step, now)
        return _remember(tx, step.run, "", "escalate", step, now)

    return await _logged(store.write(work))


def _operator_run(tx: Tx, caller: Caller, run_id: str) -> Run:
    return check_visible(caller, tx.workflows.get_run(run_id), run_id)


async def approve_degradation(
    store: Store, caller: Caller, run_id: str, stage_id: str, requirement_key: str, reason: str, *, now: int
) -> tuple[DegradationApproval, bool]:
    """An operator's approval of a smaller quorum at the active attempt; audited. Returns it and
    whether it existed.

    Raises:
        NotFound, FailedPrecondition, InvalidArgument: as ``approvals.approve_degradation``.
    """

    check_ids(run_id, stage_id)

    def work(tx: Tx) -> tuple[DegradationApproval, bool]:
        run = _operator_run(tx, caller, run_id)
        definition = pinned(tx, run)
        approved, approval, duplicate = approvals.approve_degradation(
            run,
            definition,
            stage_id=stage_id,
            requirement_key=requirement_key,
            reason=reason,
            approved_by=caller.operator or "operator",
            now=now,
            new_id=new_id,
        )
        if not duplicate:
            save(tx, definition, run, approved, (), now)
            write_approval_entry(tx, definition, approved, approval, now)
            audit.record(
                tx,
                caller,
                "workflow.approve_degradation",
                f"run:{run_id}",
                now=now,
                metadata={"stageId": stage_id, "requirementKey": approval.requirement_key, "approvalId": approval.id},
            )
        return approval, duplicate

    return await store.write(work)


async def resolve_escalation(
    store: Store,
    caller: Caller,
    run_id: str,
    ruling: str,
    status: CheckpointStatus | None,
    evidence: Mapping[str, str],
    *,
    limits: Limits,
    now: int,
) -> Outcome:
    """An operator's ruling on an escalated stage (``waits.rule``); audited; the coordinator
    is prompted to resume when the run goes on.

    Raises:
        InvalidArgument: INVALID_CHECKPOINT_STATUS (no status: there is no default); the evidence errors.
        NotFound: (WORKFLOW_NOT_FOUND). FailedPrecondition: as ``waits.rule``.
    """
    check_ids(run_id)
    decided = status_of(status)
    text = validation.required_text("ruling", ruling, MAX_RULING_CHARS)
    given = inputs.parse_evidence(evidence)
    by = caller.operator or "operator"

    def work(tx: Tx) -> Outcome:
        run = _operator_run(tx, caller, run_id)
        definition = pinned(tx, run)
        stage_id = run.wait.stage_id if run.wait is not None else ""
        step = waits.rule(
            run, definition, ruling=text, status=decided, ruled_by=by, evidence=given, now=now, new_id=new_id
        )
        if step.run.status is RunStatus.RUNNING:
            step = prompt_resume(
                tx,
                definition,
                step,
                sender=f"ruling:{definition.id}",
                key=f"{definition.id}:ruling:{run_id}:{now}",
                lines=(f"Operator ruling: {text}", f"Status: {decided.value}"),
                stage_id=stage_id,
                limits=limits,
                now=now,
            )
        store_step(tx, definition, run, step, now, via_signal=True, reported=given)
        audit.record(
            tx,
            caller,
            "workflow.rule",
            f"run:{run_id}",
            now=now,
            metadata={"status": decided.value, "stageId": stage_id},
        )
        return _remember(tx, step.run, "", "ruling", step, now)

    return await _logged(store.write(work))


def prompt_resume(
    tx: Tx,
    definition: WorkflowDefinition,
    step: Step,
    *,
    sender: str,
    key: str,
    lines: tuple[str, ...],
    stage_id: str,
    limits: Limits,
    now: int,
) -> Step:
    """Queue the resume prompt of a run that goes on after a signal or a ruling; it becomes the run's prompt."""
    run = step.run
    coordinator = tx.agents.get(run.coordinator_id)
    if coordinator is None:
        return step  # the coordinator was deleted: nobody to prompt (the prompt's expiry cannot fire either)
    follow = "correct the stage and checkpoint it again" if step.retry else f"continue with stage {run.current_stage}"
    content = "\n".join(
        (
            f"Durable workflow run: {run.id}",
            f"Workflow: {definition.id}",
            f"Stage: {stage_id}",
            *lines,
            f"Next: {follow}.",
        )
    )
    ttl = prompt_ttl(definition, limits)
    message = send_from_hub(
        tx,
        run_id=run.id,
        sender_name=sender,
        target=coordinator,
        content=content,
        delivery=Delivery.FOLLOW_UP,
        idempotency_key=key,
        ttl=ttl,
        now=now,
    )
    run.prompt_message_id = message.id
    return step
