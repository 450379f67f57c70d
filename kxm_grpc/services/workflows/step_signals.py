"""Signals to step runs: what resolves a run's current ``wait`` step.

A signal names the run, the key its wait step declares (``signal:``), a delivery id and an
outcome, one of the step's ``on`` keys, which takes the step's transition. It comes from an
operator (``SignalWorkflowRun``) or from a signed request on the webhook listener's signal route
(the stage runs' signatures, with the step workflow's ``signalSecret``).

A delivery id is remembered per definition for the replay horizon, as for stage runs: the same
delivery again (same key, outcome and body) answers ``duplicate`` without a second transition, the
same id with another key or body is refused. The delivery is remembered in the transaction that
applies it, so a hub killed in between leaves neither.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows.engine import machine
from kxm_grpc.domain.workflows.engine.state import StepRun
from kxm_grpc.domain.workflows.runs import CheckpointStatus
from kxm_grpc.errors import FailedPrecondition, Reason, invalid_field
from kxm_grpc.services import audit
from kxm_grpc.services.workflows.step_engine import EngineSettings, apply, context, load
from kxm_grpc.services.workflows.step_runs import MAX_RUN_ID_CHARS, run_not_found, visible
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import DeliveryKind, StoredDelivery

log = structlog.get_logger("kxm.workflows")

MAX_OUTCOME_CHARS = 64

STATUS_OUTCOME = {
    CheckpointStatus.PASSED: "pass",
    CheckpointStatus.WARNING: "warning",
    CheckpointStatus.FAILED: "fail",
}
"""The outcome a signal's status names when the signal names no outcome (operator or webhook)."""


@dataclass(frozen=True)
class StepSignal:
    """A signal as received; ``body_sha256`` hashes what was signed (or the request) for replays."""

    run_id: str
    signal_key: str
    delivery_id: str
    outcome: str
    body_sha256: str


@dataclass(frozen=True)
class Signalled:
    run: StepRun
    step_id: str
    """The wait step it resolved (for a duplicate: the run's current step)."""
    duplicate: bool


async def signal(
    store: Store,
    caller: Caller | None,
    received: StepSignal,
    *,
    definition_id: str | None = None,
    settings: EngineSettings,
    replay_horizon: int,
    now: int,
) -> Signalled:
    """Resolve a step run's current wait step; ``caller`` is the operator (None for a signed route,
    which names the run's ``definition_id`` instead).

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND) no such run (in the caller's project, of this definition).
        InvalidArgument: an empty or over-long outcome (``outcome``); one the step does not declare.
        FailedPrecondition: (WORKFLOW_SIGNAL_DELIVERY_CONFLICT) the delivery id was used with
            another key or body; (WORKFLOW_TERMINAL) the run ended; (WORKFLOW_NOT_WAITING) its
            current step is not a wait step awaiting this key.
    """
    object_id("run_id", received.run_id, MAX_RUN_ID_CHARS)
    if not received.outcome or len(received.outcome) > MAX_OUTCOME_CHARS:
        raise invalid_field(
            "outcome", f"must name one of the wait step's outcomes (1 to {MAX_OUTCOME_CHARS} characters)"
        )

    def work(tx: Tx) -> Signalled:
        loaded = load(tx, received.run_id)
        if loaded is None or (definition_id is not None and loaded.stored.definition_id != definition_id):
            raise run_not_found(received.run_id)
        if caller is not None:
            visible(caller, loaded, received.run_id)
        seen = tx.workflows.get_delivery(loaded.stored.definition_id, DeliveryKind.SIGNAL, received.delivery_id)
        if seen is not None:
            first = (seen.signal_key, seen.payload_sha256, seen.run_id)
            if first != (received.signal_key, received.body_sha256, received.run_id):
                raise FailedPrecondition(
                    f"signal delivery {received.delivery_id!r} was received with another key or body",
                    reason=Reason.WORKFLOW_SIGNAL_DELIVERY_CONFLICT,
                    metadata={"runId": received.run_id, "deliveryId": received.delivery_id},
                )
            return Signalled(loaded.run, loaded.run.current_step or "", duplicate=True)
        # The engine refuses a run whose current step is not a wait step awaiting this key.
        step_id = loaded.run.current_step or ""
        change = machine.signal(
            loaded.run,
            context(tx, loaded.stored.project, loaded.plan, loaded.gates, settings, now),
            step_id,
            received.signal_key,
            received.outcome,
        )
        apply(tx, loaded.stored, change, loaded.plan, loaded.gates, settings, definition_id="", now=now)
        tx.workflows.put_delivery(
            StoredDelivery(
                definition_id=loaded.stored.definition_id,
                kind=DeliveryKind.SIGNAL,
                delivery_id=received.delivery_id,
                payload_sha256=received.body_sha256,
                run_id=received.run_id,
                signal_key=received.signal_key,
                receive_time=now,
                expire_time=now + replay_horizon,
            )
        )
        if caller is not None:
            audit.record(
                tx,
                caller,
                "workflow.signal",
                f"run:{received.run_id}",
                now=now,
                metadata={"signalKey": received.signal_key, "outcome": received.outcome},
            )
        return Signalled(change.run, step_id, duplicate=False)

    signalled = await store.write(work)
    if not signalled.duplicate:
        log.info(
            "step_run_signalled",
            run_id=received.run_id,
            step_id=signalled.step_id,
            signal_key=received.signal_key,
            status=signalled.run.status.value,
        )
    return signalled
