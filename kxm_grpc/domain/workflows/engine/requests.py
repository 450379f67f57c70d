"""The ``AssignmentRequest`` (``kxm.assignment-request.v1``) a member's agent receives, as proto3 JSON.

The hub sends it as the content of a durable message from ``workflow:<run id>`` to the assignee
(seed 000 §1): what to do (the step's instructions, its declared outcomes, the evidence keys it
must report), where (the repository, the step's own branch ``kxm/<run>/<step>`` for workspace
isolation, the commit to start from), with what (the run's input files with their SHA-256, loop C's
``DiagnosticHandoff``), under which limits (deadline, timeout, tool policy) and, for a gate worker,
the pinned gate's checks. The attempt token (hub-signed, bound to the assignment) rides along: only
the assignee reads its inbox.
"""

from __future__ import annotations

import json

from kxm_grpc.domain.clock import rfc3339
from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.domain.workflows.engine.state import Member, MemberRole, StepRun
from kxm_grpc.domain.workflows.plans.gates import GateDefinition
from kxm_grpc.domain.workflows.plans.model import GateExpect, Step, StepWorkflow

SCHEMA = "kxm.assignment-request.v1"


def branch(run_id: str, step_id: str) -> str:
    """The git branch a step's work goes on (one per step: workspaces never share a branch)."""
    return f"kxm/{run_id}/{step_id}"


def assignment_request(
    run: StepRun,
    member: Member,
    step: Step,
    plan: StepWorkflow,
    gate: GateDefinition | None,
    *,
    attempt_token: str,
) -> dict[str, JsonValue]:
    """The request for ``member`` (proto3 JSON of ``kxm.v1.AssignmentRequest``)."""
    inputs = run.inputs
    timeout_ms = step.timeout_ms or (gate.timeout_ms if gate is not None else 0)
    tools = step.tools
    request: dict[str, JsonValue] = {
        "schema": SCHEMA,
        "assignmentId": member.id,
        "runId": run.id,
        "projectId": run.project,
        "workflowId": run.workflow_id,
        "planHash": run.plan_hash,
        "stepId": step.id,
        "stepKind": step.kind.value,
        "attempt": member.step_attempt,
        "role": member.role.value,
        "agentName": member.agent,
        "agentId": member.agent_id,
        "createTime": rfc3339(member.create_time),
        "routing": {"targetRole": member.role.value, "recommendedModel": step.model or ""},
        "context": {
            "git": {
                "repository": inputs.repository,
                "branch": branch(run.id, step.id),
                "baseCommit": run.head_commit or inputs.base_commit,
            },
            "inputs": [{"type": f.type, "path": f.path, "sha256": f.sha256} for f in inputs.files],
            "privateHandoffNotes": inputs.notes if run.current_step == plan.steps[0].id else "",
        },
        "constraints": {
            "timeoutMs": str(timeout_ms),
            "toolPolicy": {
                "preset": tools.preset or "" if tools is not None else "",
                "allowedTools": list(tools.allow) if tools is not None else [],
                "deniedTools": list(tools.deny) if tools is not None else [],
            },
        },
        "instructions": step.instructions or step.description or "",
        "outcomes": sorted(step.transitions),
        "evidenceKeys": [requirement.key for requirement in step.required_evidence],
        "attemptToken": attempt_token,
    }
    if member.deadline is not None:
        request["expireTime"] = rfc3339(member.deadline)
    if inputs.handoff:
        request["diagnosticHandoff"] = json.loads(inputs.handoff)
    if inputs.skill_id:
        request["skillId"] = inputs.skill_id
    if member.role is MemberRole.GATE and gate is not None:
        request["gate"] = {
            "id": gate.id,
            "kind": gate.kind.value,
            "hash": gate.hash,
            "expect": (step.expect or GateExpect.PASS).value,
            "checks": [
                {"name": check.name, "argv": list(check.argv), "timeoutMs": str(check.timeout_ms)}
                for check in gate.checks
            ],
            "paths": list(gate.paths),
        }
        request["acceptanceGate"] = {"command": " && ".join(" ".join(check.argv) for check in gate.checks)}
    return request
