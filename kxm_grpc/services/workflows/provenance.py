"""Peer provenance: who may ask for evidence under a run's context, and which replies count.

Send side (spec §2.5): a message carrying a workflow context is authorised against the live run
inside the send's transaction (``authorise_send``, called by ``services.messages`` for every
send and every fan-out target): the run must exist in the sender's project with the sender as
its coordinator, the stage must be current and in progress, the requirement must have a
resolved policy, the attempt must be the active one and the target an eligible producer. This
replaces the store-only handling of decision 28. Cite side: ``verify`` turns the message ids a
checkpoint or a wait cites into metadata-only snapshots, checked against the hub's own message
records (``kxm_grpc.domain.workflows.evidence.verify_refs``).
"""

from __future__ import annotations

from collections.abc import Mapping

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Message, WorkflowContext
from kxm_grpc.domain.workflows import evidence
from kxm_grpc.domain.workflows.evidence import PeerEvidence
from kxm_grpc.domain.workflows.runs import Run
from kxm_grpc.errors import PermissionDenied, Reason
from kxm_grpc.store import Tx


def authorise_send(tx: Tx, *, sender_id: str, project: str, target: Agent, context: WorkflowContext) -> None:
    """Authorise one send with a workflow context (see the module), in the send's transaction.

    Raises:
        PermissionDenied: (WORKFLOW_CONTEXT_FORBIDDEN) no such run in the sender's project, or
            the sender is not its coordinator; (WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN).
        FailedPrecondition: (WORKFLOW_CONTEXT_INACTIVE) (WORKFLOW_CONTEXT_ATTEMPT_MISMATCH).
        InvalidArgument: (WORKFLOW_EVIDENCE_POLICY_MISSING).
    """
    run = tx.workflows.get_run(context.run_id)
    if run is None or run.project != project:
        # Reported as a foreign run would be: the sender learns nothing about other projects' ids.
        raise PermissionDenied(
            "the workflow run is not in the sender's project",
            reason=Reason.WORKFLOW_CONTEXT_FORBIDDEN,
            metadata={"runId": context.run_id},
        )
    stage = run.stage(context.stage_id)
    evidence.authorise_context(
        context,
        run_id=run.id,
        run_project=run.project,
        run_status=run.status.value,
        coordinator_id=run.coordinator_id,
        sender_id=sender_id,
        sender_project=project,
        current_stage=run.current_stage,
        stage_status=stage.status.value if stage is not None else "",
        policies=run.policies_of(context.stage_id),
        active_attempt=stage.active_attempt if stage is not None else 0,
        target_agent_id=target.id,
    )


def verify(
    tx: Tx, run: Run, stage_id: str, refs: Mapping[str, tuple[str, ...]], *, now: int
) -> dict[str, tuple[PeerEvidence, ...]]:
    """The cited replies of ``refs`` verified against the hub's records, for the stage's active attempt.

    Raises:
        InvalidArgument: (WORKFLOW_PROVENANCE_INVALID) a cited message fails a check;
            (WORKFLOW_EVIDENCE_POLICY_MISSING) a key has no peer policy.
    """
    if not refs:
        return {}
    stage = run.stage(stage_id)
    assert stage is not None  # the caller checked the stage is the current one
    messages: dict[str, Message] = {}
    for ids in refs.values():
        for message_id in ids:
            message = tx.messages.get(message_id)
            if message is not None:
                messages[message_id] = message
    policies = run.policies_of(stage_id)
    models: dict[str, str] = {}
    for policy in policies.values():
        for producer in policy.eligible:
            if producer.agent_id not in models:
                agent = tx.agents.get(producer.agent_id)
                if agent is not None:
                    models[producer.agent_id] = agent.model
    return evidence.verify_refs(
        refs,
        messages=messages,
        run_id=run.id,
        run_project=run.project,
        coordinator_id=run.coordinator_id,
        stage_id=stage_id,
        visit=stage.visit,
        visit_start_time=stage.visit_start_time,
        active_attempt=stage.active_attempt,
        policies=policies,
        agent_models=models,
        now=now,
    )
