"""Signals (spec §2.10): a waiting run resumed by a signed route or an operator's RPC.

A signal is de-duplicated by its delivery id (same key and body: the first answer, also after
the run was purged; otherwise a conflict), before anything else; an overdue wait is expired
first, in a transaction of its own; then the signal is applied as the waiting stage's
checkpoint, and a signal that leaves the run running queues a resume prompt to the coordinator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.workflows import inputs, waits
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.outcomes import RunEvent
from kxm_grpc.domain.workflows.runs import CheckpointStatus, Run, RunStatus
from kxm_grpc.domain.workflows.waits import SignalRequest
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, Reason
from kxm_grpc.services import audit
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.workflows.deadlines import expire_if_due
from kxm_grpc.services.workflows.events import log_events
from kxm_grpc.services.workflows.runs import (
    DEFAULT_REPLAY_HORIZON,
    check_visible,
    pinned,
    run_not_found,
)
from kxm_grpc.services.workflows.steps import SIGNAL_STEP_PREFIX, check_ids, prompt_resume, status_of, store_step
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import DeliveryKind, StoredDelivery, StoredStep

log = structlog.get_logger("kxm.workflows")


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
    check_ids(received.run_id)
    key = inputs.signal_key(received.signal_key)
    status = status_of(received.status)
    summary = inputs.summary_text(received.summary)
    given = inputs.parse_evidence(received.evidence)
    remembered = f"{SIGNAL_STEP_PREFIX}{received.delivery_id}"

    def find(tx: Tx) -> Run:
        run = tx.workflows.get_run(received.run_id)
        if run is None or run.definition_id != received.definition_id:
            raise run_not_found(received.run_id)
        current = tx.workflows.get_definition(received.definition_id)
        if current is None or current.project != run.project or current.kind is not DefinitionKind.STAGES:
            # The id was taken over by another project's definition (or, deleted, by a step workflow).
            raise run_not_found(received.run_id)
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
        step = waits.resume(run, definition, SignalRequest(key, status, summary, given), now=now, new_id=new_id)
        resumed = step.run.status is RunStatus.RUNNING
        if resumed:
            result = "passed" if status is CheckpointStatus.PASSED else status.value
            step = prompt_resume(
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
        store_step(tx, definition, run, step, now, via_signal=True, reported=given)
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
