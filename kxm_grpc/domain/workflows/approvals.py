"""Degradation approvals (spec §2.5): an operator lets one requirement pass with fewer producers.

An approval applies to the active attempt of the stage's current visit only, and never passes
the stage by itself.
"""

from __future__ import annotations

from kxm_grpc.domain import validation
from kxm_grpc.domain.messages import canonical_requirement_key
from kxm_grpc.domain.workflows.checkpoints import approval_for, require_not_ended
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import (
    DegradationApproval,
)
from kxm_grpc.domain.workflows.outcomes import NewId
from kxm_grpc.domain.workflows.runs import (
    Run,
    StageStatus,
)
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, NotFound, Reason


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
    require_not_ended(run)
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
    existing = approval_for(run, stage, key)
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
