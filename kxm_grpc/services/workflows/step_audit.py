"""Auditing a step run's gate evidence (``AuditGateEvidence``): read what is stored — the run, its
pinned plan document, its whole log, its gate assignments — in one read transaction and let
``domain/workflows/engine/gate_evidence.audit`` re-verify it. Readers as for the run's events."""

from __future__ import annotations

import json

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows.engine import gate_evidence
from kxm_grpc.domain.workflows.engine.gate_evidence import GateAssignment, Verdict
from kxm_grpc.domain.workflows.plans.model import StepKind
from kxm_grpc.services.workflows import step_engine
from kxm_grpc.services.workflows.step_runs import MAX_RUN_ID_CHARS, visible
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.step_runs import AssignmentState


async def audit(store: Store, caller: Caller, run_id: str) -> Verdict:
    """The verdict on a step run's gate evidence (bad evidence is a verdict, never an error).

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND) no step run has this id in the caller's project.
        PermissionDenied: (WORKFLOW_FORBIDDEN) an agent that is not the plan's coordinator.
        DataLoss: (STORAGE_CORRUPTED) the run's snapshot or plan does not decode.
    """
    object_id("run_id", run_id, MAX_RUN_ID_CHARS)

    def read(tx: Tx) -> Verdict:
        loaded = visible(caller, step_engine.load(tx, run_id), run_id)
        document = tx.workflows.definition_version(loaded.stored.plan_hash)
        if document is None:  # load read it a moment ago, in this transaction
            raise step_engine.corrupt("plan version", run_id)
        events = step_engine.all_events(tx, run_id)
        gate_steps = {step.id for step in loaded.plan.steps if step.kind is StepKind.GATE}
        assignments = []
        for event in events:
            payload = json.loads(event.payload)
            if event.type == "assignment.created" and payload.get("stepId") in gate_steps:
                stored = tx.step_runs.get_assignment(str(payload["assignmentId"]))
                if stored is not None and stored.run_id == run_id:
                    kept = step_engine.decode_result(stored.result)
                    assignments.append(
                        GateAssignment(
                            stored.id,
                            stored.step_id,
                            open=stored.state is AssignmentState.OPEN,
                            result_hash=str(kept.get("contentHash", "")),
                        )
                    )
        return gate_evidence.audit(
            run_plan_hash=loaded.stored.plan_hash,
            plan_document=json.loads(document),
            plan=loaded.plan,
            gates=loaded.gates,
            records=[json.loads(e.payload) for e in events if e.type == gate_evidence.EVENT],
            assignments=assignments,
        )

    return await store.read(read)
