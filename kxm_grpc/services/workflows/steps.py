"""A run's steps: checkpoints, waits, escalations, approvals, rulings and signals; wait expiry.

Each step is one write transaction: read the run, check the caller, verify cited replies, apply
the pure rules (``kxm_grpc.domain.workflows.checkpoints``), store the run, keep its wait's timer
in step, publish the step's events (journal, notifications, log) and remember the answer under
the request id. A refused step raises before anything is kept, so it consumes no attempt. A
request id seen before for the run returns the first answer, with the run as it is now, and
applies nothing again: a client retrying after a lost answer (or a hub killed between commit and
answer) checkpoints once.

A signal (spec §2.10) is de-duplicated by its delivery id (same key and body: the first answer;
otherwise a conflict); an overdue wait is expired first, in a transaction of its own; a signal
that leaves the run running queues a resume prompt to the coordinator. Waits expire exactly, by
a durable timer (``WAIT_TIMER``, fired by one replica at a time), with a timeout notice.

Hub-written prompts react to their messages (``PromptReactions``): the coordinator replying to
the current prompt while the run is running settled too early, and the current prompt expiring
while it runs leaves no one working on it; both fail the run.
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
from kxm_grpc.domain.messages import Delivery, Message, hub_sender_run
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.workflows import checkpoints
from kxm_grpc.domain.workflows import evidence as evidence_rules
from kxm_grpc.domain.workflows.checkpoints import CheckpointRequest, RunEvent, SignalRequest, Step, WaitRequest
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import DegradationApproval
from kxm_grpc.domain.workflows.runs import CheckpointStatus, Run, RunStatus, Transition
from kxm_grpc.errors import Aborted, FailedPrecondition, InvalidArgument, Reason, invalid_field
from kxm_grpc.services import audit, timers
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.messages import register_hub_message_reactions, send_from_hub
from kxm_grpc.services.workflows import provenance
from kxm_grpc.services.workflows.events import log_events
from kxm_grpc.services.workflows.runs import (
    DEFAULT_REPLAY_HORIZON,
    MAX_RUN_ID_CHARS,
    MAX_STAGE_ID_CHARS,
    WAIT_TIMER,
    check_visible,
    forbidden,
    object_id,
    pinned,
    run_not_found,
    save,
)
from kxm_grpc.store import Store, Timer, Tx
from kxm_grpc.store.protocols.workflows import DeliveryKind, StoredDelivery, StoredStep

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
class SignalOutcome:
    """What a signal did (never the run or its evidence: a signal's sender is outside the project)."""

    duplicate: bool
    status: CheckpointStatus
    stage_id: str
    signal_key: str
    retry: bool = False
    completed: bool = False
    degraded_requirements: tuple[str, ...] = ()
    resumed: bool = False
    receive_time: int = 0
    """When the hub accepted the signal (for a duplicate: the first time)."""


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
    if validation.utf16_length(text) > checkpoints.MAX_OUTCOME_CHARS:
        raise invalid_field("outcome", f"exceeds {checkpoints.MAX_OUTCOME_CHARS} characters")
    return text or None


def _ids(run_id: str, stage_id: str | None = None) -> None:
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
    fields = [
        kind,
        report.stage_id,
        report.status.value if report.status else "",
        report.summary,
        sorted(report.evidence.items()),
        sorted((key, list(ids)) for key, ids in report.evidence_refs.items()),
        report.outcome,
        *extra,
    ]
    return hashlib.sha256(json.dumps(fields, separators=(",", ":"), default=str).encode()).hexdigest()


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
        raise Aborted(
            "request_id was already used for another request on this run",
            reason=Reason.IDEMPOTENCY_CONFLICT,
            metadata={"runId": run.id, "requestId": request, "nextAction": "use a new request_id per request"},
        )
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


def _store(tx: Tx, definition: WorkflowDefinition, before: Run, step: Step, now: int) -> None:
    save(tx, definition, before, step.run, step.events, now)


# -- the coordinator's steps ----------------------------------------------------------------------


async def checkpoint(store: Store, caller: Caller, report: Report, *, now: int) -> Outcome:
    """Apply the coordinator's checkpoint (see the module and ``checkpoints.checkpoint``).

    Raises:
        InvalidArgument: a malformed field (INVALID_CHECKPOINT_STATUS, INVALID_WORKFLOW_EVIDENCE,
            INVALID_WORKFLOW_EVIDENCE_REFS, PROTOCOL_ERROR); WORKFLOW_PROVENANCE_INVALID; as
            ``checkpoints.checkpoint``.
        NotFound, PermissionDenied, FailedPrecondition: as ``checkpoints.checkpoint``; WORKFLOW_FORBIDDEN.
    """
    _ids(report.run_id, report.stage_id)
    status = status_of(report.status)
    summary = checkpoints.summary_text(report.summary)
    evidence = checkpoints.parse_evidence(report.evidence)
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
        _store(tx, definition, run, step, now)
        failpoints.hit("checkpoint_mid_write")
        return _remember(tx, step.run, request, "checkpoint", step, now, asked)

    return await _logged(store.write(work))


async def wait(
    store: Store, caller: Caller, report: Report, signal_key: str, timeout_ms: int | None, *, now: int
) -> Outcome:
    """Put the coordinator's current stage into a wait for ``signal_key`` (``checkpoints.wait``).

    Raises:
        InvalidArgument: INVALID_SIGNAL_KEY, WORKFLOW_WAIT_INVALID, the evidence errors.
        NotFound, PermissionDenied, FailedPrecondition: as ``checkpoint``; WORKFLOW_NOT_RUNNING.
    """
    _ids(report.run_id, report.stage_id)
    summary = checkpoints.summary_text(report.summary)
    evidence = checkpoints.parse_evidence(report.evidence)
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
        step = checkpoints.wait(
            run,
            definition,
            WaitRequest(report.stage_id, signal_key, summary, evidence, peer, timeout_ms),
            now=now,
        )
        _store(tx, definition, run, step, now)
        return _remember(tx, step.run, request, "wait", step, now, asked)

    return await _logged(store.write(work))


async def escalate(store: Store, caller: Caller, run_id: str, stage_id: str, reason: str, *, now: int) -> Outcome:
    """Escalate the coordinator's current stage for audit (``checkpoints.escalate``).

    Raises:
        InvalidArgument: the reason is empty or too long.
        NotFound, PermissionDenied, FailedPrecondition: as ``checkpoint``.
    """
    _ids(run_id, stage_id)
    text = validation.required_text("reason", reason, checkpoints.MAX_SUMMARY_CHARS)

    def work(tx: Tx) -> Outcome:
        run = _coordinator_run(tx, caller, run_id)
        definition = pinned(tx, run)
        step = checkpoints.escalate(run, definition, stage_id, text, by=run.coordinator_id, now=now)
        _store(tx, definition, run, step, now)
        return _remember(tx, step.run, "", "escalate", step, now)

    return await _logged(store.write(work))


# -- an operator's steps --------------------------------------------------------------------------


def _operator_run(tx: Tx, caller: Caller, run_id: str) -> Run:
    return check_visible(caller, tx.workflows.get_run(run_id), run_id)


async def approve_degradation(
    store: Store, caller: Caller, run_id: str, stage_id: str, requirement_key: str, reason: str, *, now: int
) -> tuple[DegradationApproval, bool]:
    """An operator's approval of a smaller quorum at the active attempt; audited. Returns it and
    whether it existed.

    Raises:
        NotFound, FailedPrecondition, InvalidArgument: as ``checkpoints.approve_degradation``.
    """

    _ids(run_id, stage_id)

    def work(tx: Tx) -> tuple[DegradationApproval, bool]:
        run = _operator_run(tx, caller, run_id)
        definition = pinned(tx, run)
        approved, approval, duplicate = checkpoints.approve_degradation(
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
    """An operator's ruling on an escalated stage (``checkpoints.rule``); audited; the coordinator
    is prompted to resume when the run goes on.

    Raises:
        InvalidArgument: INVALID_CHECKPOINT_STATUS (no status: there is no default); the evidence errors.
        NotFound: (WORKFLOW_NOT_FOUND). FailedPrecondition: as ``checkpoints.rule``.
    """
    _ids(run_id)
    decided = status_of(status)
    text = validation.required_text("ruling", ruling, MAX_RULING_CHARS)
    given = checkpoints.parse_evidence(evidence)
    by = caller.operator or "operator"

    def work(tx: Tx) -> Outcome:
        run = _operator_run(tx, caller, run_id)
        definition = pinned(tx, run)
        stage_id = run.wait.stage_id if run.wait is not None else ""
        step = checkpoints.rule(
            run, definition, ruling=text, status=decided, ruled_by=by, evidence=given, now=now, new_id=new_id
        )
        if step.run.status is RunStatus.RUNNING:
            step = _prompt_resume(
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
        _store(tx, definition, run, step, now)
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


def _prompt_resume(
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
    ttl = definition.ttl_ms * 1_000 if definition.ttl_ms is not None else limits.message_ttl
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


# -- signals --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Signal:
    """A signal as a surface received it (the signed route, or an operator's RPC)."""

    definition_id: str
    run_id: str
    signal_key: str
    delivery_id: str
    body_sha256: str
    status: CheckpointStatus | None
    summary: str = ""
    evidence: Mapping[str, str] = field(default_factory=dict)


async def signal(
    store: Store,
    caller: Caller | None,
    received: Signal,
    *,
    limits: Limits,
    replay_horizon: int = DEFAULT_REPLAY_HORIZON,
    now: int,
) -> SignalOutcome:
    """Apply a signal (see the module). ``caller`` is the operator for the RPC, None for a signed route.

    Raises:
        InvalidArgument: INVALID_SIGNAL_KEY, INVALID_CHECKPOINT_STATUS, the evidence errors;
            WORKFLOW_EVIDENCE_INCOMPLETE (the run keeps waiting).
        NotFound: (WORKFLOW_NOT_FOUND) no such run of this definition (in the caller's project).
        FailedPrecondition: WORKFLOW_SIGNAL_DELIVERY_CONFLICT, WORKFLOW_NOT_WAITING,
            WORKFLOW_SIGNAL_MISMATCH, WORKFLOW_WAIT_INCONSISTENT, WORKFLOW_SIGNAL_CONTEXT_MISMATCH,
            WORKFLOW_RULING_REQUIRED.
    """
    _ids(received.run_id)
    key = checkpoints.signal_key(received.signal_key)
    status = status_of(received.status)
    summary = checkpoints.summary_text(received.summary)
    given = checkpoints.parse_evidence(received.evidence)
    remembered = f"{SIGNAL_STEP_PREFIX}{received.delivery_id}"

    def find(tx: Tx) -> Run:
        run = tx.workflows.get_run(received.run_id)
        if run is None or run.definition_id != received.definition_id:
            raise run_not_found(received.run_id)
        current = tx.workflows.get_definition(received.definition_id)
        if current is None or current.project != run.project:
            raise run_not_found(received.run_id)  # the id was taken over by another project's definition
        if caller is not None:
            check_visible(caller, run, received.run_id)
        return run

    def duplicate(tx: Tx) -> SignalOutcome | None:
        # Before the run is read: a receipt outlives its run, so a replay after the purge is
        # still answered as the duplicate it is.
        seen = tx.workflows.get_delivery(received.definition_id, DeliveryKind.SIGNAL, received.delivery_id)
        if seen is None:
            return None
        same = (seen.signal_key, seen.payload_sha256, seen.run_id) == (key, received.body_sha256, received.run_id)
        if not same:
            raise FailedPrecondition(
                f"signal delivery {received.delivery_id!r} was received with another key or body",
                reason=Reason.WORKFLOW_SIGNAL_DELIVERY_CONFLICT,
                metadata={"runId": received.run_id, "deliveryId": received.delivery_id},
            )
        if caller is not None:
            run = tx.workflows.get_run(received.run_id)
            if run is not None:
                check_visible(caller, run, received.run_id)
        stored = tx.workflows.get_step(received.run_id, remembered)
        answer = json.loads(stored.response) if stored is not None else {}
        return SignalOutcome(
            duplicate=True,
            status=CheckpointStatus(answer.get("status", status.value)),
            stage_id=answer.get("stageId", ""),
            signal_key=key,
            retry=answer.get("retry", False),
            completed=answer.get("completed", False),
            degraded_requirements=tuple(answer.get("degraded", ())),
            resumed=answer.get("resumed", False),
            receive_time=seen.receive_time,
        )

    # Receipts first (a retried signal is answered again even after its wait expired), then an
    # overdue wait is expired in its own transaction, so the expiry stays whatever the signal meets.
    early = await store.read(duplicate)
    if early is not None:
        return early
    await expire_if_due(store, received.run_id, limits=limits, now=now)

    def work(tx: Tx) -> SignalOutcome:
        again = duplicate(tx)
        if again is not None:
            return again
        run = find(tx)
        definition = pinned(tx, run)
        stage_id = run.wait.stage_id if run.wait is not None else (run.current_stage or "")
        step = checkpoints.resume(run, definition, SignalRequest(key, status, summary, given), now=now, new_id=new_id)
        resumed = step.run.status is RunStatus.RUNNING
        if resumed:
            result = "passed" if status is CheckpointStatus.PASSED else status.value
            step = _prompt_resume(
                tx,
                definition,
                step,
                sender=f"signal:{definition.id}",
                key=f"{definition.id}:signal:{received.delivery_id}",
                lines=(
                    f"Signal: {key}",
                    f"Result: {result}",
                    f"Summary: {summary}",
                    *(f"{k}: {v[0]}" for k, v in given.items()),
                ),
                stage_id=stage_id,
                limits=limits,
                now=now,
            )
        _store(tx, definition, run, step, now)
        outcome = SignalOutcome(
            duplicate=False,
            status=status,
            stage_id=stage_id,
            signal_key=key,
            retry=step.retry,
            completed=step.completed,
            degraded_requirements=step.degraded_requirements,
            resumed=resumed,
            receive_time=now,
        )
        tx.workflows.put_delivery(
            StoredDelivery(
                definition_id=definition.id,
                kind=DeliveryKind.SIGNAL,
                delivery_id=received.delivery_id,
                payload_sha256=received.body_sha256,
                run_id=run.id,
                signal_key=key,
                receive_time=now,
                expire_time=now + replay_horizon,
            )
        )
        answer = {
            "status": status.value,
            "stageId": stage_id,
            "retry": step.retry,
            "completed": step.completed,
            "degraded": list(step.degraded_requirements),
            "resumed": resumed,
        }
        tx.workflows.put_step(StoredStep(run.id, remembered, "signal", json.dumps(answer, separators=(",", ":")), now))
        if caller is not None and caller.operator is not None:
            audit.record(tx, caller, "workflow.signal", f"run:{run.id}", now=now, metadata={"signalKey": key})
        stepped.append((step.run, step.events))
        return outcome

    stepped: list[tuple[Run, tuple[RunEvent, ...]]] = []
    outcome = await store.write(work)
    if stepped:
        log_events(*stepped[-1])  # the committed attempt's (a retried transaction appended again)
    log.info(
        "workflow_signal",
        run_id=received.run_id,
        definition_id=received.definition_id,
        signal_key=key,
        status=status.value,
        resumed=outcome.resumed,
        duplicate=outcome.duplicate,
    )
    return outcome


# -- waits' deadlines -----------------------------------------------------------------------------


def _expire(tx: Tx, run: Run, *, limits: Limits, now: int) -> Step | None:
    step = checkpoints.expire_wait(run, now=now)
    if step is None:
        return None
    definition = pinned(tx, run)
    waiting = run.wait
    assert waiting is not None
    coordinator = tx.agents.get(run.coordinator_id)
    if coordinator is not None:
        ttl = definition.ttl_ms * 1_000 if definition.ttl_ms is not None else limits.message_ttl
        send_from_hub(
            tx,
            run_id=run.id,
            sender_name=f"timeout:{definition.id}",
            target=coordinator,
            content=(
                f"Durable workflow run: {run.id}\nWorkflow: {definition.id}\n"
                f"The wait for signal {waiting.signal_key} on stage {waiting.stage_id} timed out; the run failed."
            ),
            delivery=Delivery.FOLLOW_UP,
            idempotency_key=f"{definition.id}:timeout:{waiting.signal_key}:{waiting.expire_time}",
            ttl=ttl,
            now=now,
        )
    _store(tx, definition, run, step, now)
    return step


async def expire_if_due(store: Store, run_id: str, *, limits: Limits, now: int) -> bool:
    """Expire the run's wait now if it is overdue (before a signal is handled). Returns whether it did."""

    def work(tx: Tx) -> Step | None:
        run = tx.workflows.get_run(run_id)
        return None if run is None else _expire(tx, run, limits=limits, now=now)

    step = await store.write(work)
    if step is not None:
        log_events(step.run, step.events)
    return step is not None


@dataclass
class WaitTimers:
    """The handler of ``WAIT_TIMER`` (it needs the hub's limits for the timeout notice's TTL)."""

    limits: Limits

    def fire(self, tx: Tx, timer: Timer, now: int) -> Step | None:
        run = tx.workflows.get_run(timer.key)
        if run is None or run.wait is None:
            return None
        if run.wait.expire_time > now:  # moved later meanwhile: fire at the new deadline
            timers.schedule(tx, WAIT_TIMER, run.id, run.wait.expire_time)
            return None
        return _expire(tx, run, limits=self.limits, now=now)

    @staticmethod
    def fired(steps: list[Step | None]) -> None:
        """After the firing transactions committed: log what they did."""
        for step in steps:
            if step is not None:
                log.info("workflow_wait_expired", run_id=step.run.id)
                log_events(step.run, step.events)


def register(kinds: timers.TimerKinds, limits: Limits) -> None:
    """Register what happens at a run's wait deadline with the hub's scheduler, and the prompts'
    reactions to replies and expiries with messaging (once per process)."""
    handler = WaitTimers(limits)
    kinds.register(WAIT_TIMER, handler.fire, fired=handler.fired)
    register_hub_message_reactions(PROMPTS)


# -- the prompts' reactions -----------------------------------------------------------------------


class PromptReactions:
    """A reply to, or the expiry of, a run's current prompt while the run is running fails it."""

    def replied(self, tx: Tx, message: Message, now: int) -> None:
        self._settled(
            tx, message, now, "the coordinator replied before every required checkpoint passed", "early_reply"
        )

    def expired(self, tx: Tx, message: Message, now: int) -> None:
        self._settled(tx, message, now, "the coordinator's prompt expired before the run ended", "prompt_expired")

    def _settled(self, tx: Tx, message: Message, now: int, reason: str, kind: str) -> None:
        run_id = hub_sender_run(message.from_agent_id)
        run = tx.workflows.get_run(run_id) if run_id else None
        if run is None or run.status is not RunStatus.RUNNING or run.prompt_message_id != message.id:
            return  # a reply after a wait (or to an older prompt) is expected
        definition = pinned(tx, run)
        step = checkpoints.fail(run, reason, now=now, evidence=(f"message:{message.id}", f"class:{kind}"))
        _store(tx, definition, run, step, now)
        # Inside the reply's or expiry's transaction (messaging offers no after-commit hook): a
        # rolled-back reply would leave this line behind, which the run's state then contradicts.
        log_events(step.run, step.events)


PROMPTS = PromptReactions()


def reject_unknown_status(value: str) -> CheckpointStatus:
    """A status from its text (the signed route's JSON body).

    Raises:
        InvalidArgument: (INVALID_CHECKPOINT_STATUS).
    """
    try:
        return CheckpointStatus(value)
    except ValueError:
        raise InvalidArgument(
            "status must be passed, warning or failed",
            reason=Reason.INVALID_CHECKPOINT_STATUS,
            metadata={"field": "status"},
        ) from None
