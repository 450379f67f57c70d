"""Compiling a loaded workflow to its plan ``kxm.compiled-workflow.v1`` and the plan's hash (§4.2).

The plan is JSON (camelCase, every default filled in, so equal definitions give equal plans
however they were spelled: ``backEdgeBudget`` compiles to ``maxTransitions``, an omitted
``maxAttempts`` to 1). Its hash is ``sha256:`` + the SHA-256 hex of its canonical JSON
(``sync_events.canonical_json``: keys sorted by UTF-16 code unit, no whitespace), so it is stable
across key order and pinned on each run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from kxm_grpc.domain.sync_events import JsonValue, canonical_json
from kxm_grpc.domain.workflows.plans.gates import GateDefinition, GateRegistry
from kxm_grpc.domain.workflows.plans.model import (
    COMPILED_SCHEMA,
    TERMINAL,
    EvidenceHashConfig,
    EvidenceRequirement,
    Step,
    StepWorkflow,
    Transition,
)


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def compile_workflow(
    workflow: StepWorkflow, *, gates: GateRegistry | None = None, source_path: str | None = None
) -> dict[str, JsonValue]:
    """The plan of ``workflow`` (§4.2): ``transitionBudget`` is ``limits.maxTransitions``, else the
    number of steps; ``order`` the step ids in declaration order; ``steps`` by id; ``gates`` every
    gate a step runs (registry gates from ``gates``, inline commands as ``step:<id>``) with its
    hash, and ``gateRegistryHash`` the registry's, so the plan hash pins what each gate executes.

    Raises:
        ValueError: a step names a registry gate and ``gates`` does not hold it (load the
            workflow with the registry first: ``load_workflow(..., gates=)`` refuses that).
    """
    pinned = pinned_gates(workflow, gates)
    index = {step.id: position for position, step in enumerate(workflow.steps)}
    has_back_edges = any(
        transition.target != TERMINAL and index[transition.target] <= position
        for position, step in enumerate(workflow.steps)
        for transition in step.transitions.values()
    )
    limits = workflow.limits
    plan: dict[str, JsonValue] = {
        "schema": COMPILED_SCHEMA,
        "workflowId": workflow.id,
        "coordinator": workflow.coordinator,
        "gateWorkers": list(workflow.gate_workers),
        "limits": _without_none(
            {
                "maxTransitions": limits.max_transitions,
                "maxRunDurationMs": limits.max_run_duration_ms,
                "maxModelCost": limits.max_model_cost,
                "currency": limits.currency,
            }
        ),
        "transitionBudget": limits.max_transitions if limits.max_transitions is not None else len(workflow.steps),
        "hasBackEdges": has_back_edges,
        "entryStepId": workflow.steps[0].id,
        "order": [step.id for step in workflow.steps],
        "steps": {step.id: _step(step, position, index) for position, step in enumerate(workflow.steps)},
        "requirePlanHash": list(workflow.require_plan_hash),
        "gates": {gate_id: {**gate.to_json(), "hash": gate.hash} for gate_id, gate in sorted(pinned.items())},
    }
    if gates is not None and any(step.gate is not None for step in workflow.steps):
        plan["gateRegistryHash"] = gates.hash
    if workflow.project is not None:
        plan["project"] = workflow.project
    if workflow.agents:
        plan["agents"] = {
            name: _without_none({"provider": declared.provider, "model": declared.model})
            for name, declared in sorted(workflow.agents.items())
        }
    if source_path is not None:
        plan["sourcePath"] = source_path
    if workflow.description is not None:
        plan["description"] = workflow.description
    if workflow.plan_hash is not None:
        plan["planHash"] = _hash_config(workflow.plan_hash)
    if workflow.repro_oracle is not None:
        plan["reproOracle"] = _hash_config(workflow.repro_oracle)
    if workflow.require_attempt_tokens:  # only when set: the plans of workflows without it keep their hash
        plan["requireAttemptTokens"] = True
    if workflow.signal_secret_env is not None:
        plan["signalSecretEnv"] = workflow.signal_secret_env
    return plan


def pinned_gates(workflow: StepWorkflow, gates: GateRegistry | None) -> dict[str, GateDefinition]:
    """The gates ``workflow``'s steps run, by the id its plan names them with.

    Raises:
        ValueError: a step names a registry gate ``gates`` does not hold.
    """
    pinned: dict[str, GateDefinition] = {}
    for step in workflow.steps:
        if step.command is not None:
            pinned[step.command.id] = step.command
        elif step.gate is not None:
            gate = gates.gates.get(step.gate) if gates is not None else None
            if gate is None:
                raise ValueError(f"step {step.id} names gate {step.gate}, which the registry given does not hold")
            pinned[gate.id] = gate
    return pinned


def plan_hash(plan: Mapping[str, JsonValue]) -> str:
    """``sha256:`` + the SHA-256 hex of the plan's canonical JSON."""
    return "sha256:" + hashlib.sha256(canonical_json(plan).encode("utf-8")).hexdigest()


def _without_none(values: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    return {key: value for key, value in values.items() if value is not None}


def _hash_config(config: EvidenceHashConfig) -> JsonValue:
    return {"stageId": config.step_id, "evidenceKey": config.evidence_key}


def _step(step: Step, position: int, index: Mapping[str, int]) -> JsonValue:
    assignments = step.assignments
    join = step.join
    data: dict[str, JsonValue] = {
        "id": step.id,
        "index": position,
        "kind": step.kind.value,
        "maxAttempts": step.max_attempts,
        "repositories": {repository: access.value for repository, access in step.repositories.items()},
        "assignments": {
            "allowedAgents": list(assignments.allowed_agents),
            "minimum": assignments.minimum,
            "target": assignments.target,
            "maximum": assignments.maximum,
            "maxParallel": assignments.max_parallel,
            "distinctBy": [dimension.value for dimension in assignments.distinct_by],
        },
        "join": _without_none(
            {
                "strategy": join.strategy.value,
                "minimumPassed": join.minimum_passed,
                "cancelRemaining": join.cancel_remaining,
            }
        ),
        "requiredEvidence": [_requirement(requirement) for requirement in step.required_evidence],
        "outcomes": sorted(step.transitions, key=_utf16),
        "transitions": {
            outcome: _transition(transition, position, index) for outcome, transition in step.transitions.items()
        },
    }
    optional: dict[str, JsonValue] = {
        "description": step.description,
        "instructions": step.instructions,
        "agent": step.agent,
        "gate": step.command.id if step.command is not None else step.gate,
        "expect": step.expect.value if step.expect is not None else None,
        "signal": step.signal,
        "model": step.model,
        "timeoutMs": step.timeout_ms,
    }
    data.update(_without_none(optional))
    if step.tools is not None:
        data["tools"] = _without_none(
            {"preset": step.tools.preset, "allow": list(step.tools.allow), "deny": list(step.tools.deny)}
        )
    return data


def _requirement(requirement: EvidenceRequirement) -> JsonValue:
    data: dict[str, JsonValue] = {
        "key": requirement.key,
        "kind": requirement.kind.value,
        "minimum": requirement.minimum,
        "reusableAcrossAttempts": requirement.reusable_across_attempts,
    }
    policy = requirement.producer_policy
    if policy is not None:
        data["producerPolicy"] = _without_none(
            {
                "minimumProducers": policy.minimum_producers,
                "eligibleAgents": list(policy.eligible_agents),
                "distinctBy": [dimension.value for dimension in policy.distinct_by],
                "acceptedStatuses": list(policy.accepted_statuses),
                "degradation": {"minimumProducers": policy.degraded_minimum_producers}
                if policy.degraded_minimum_producers is not None
                else None,
            }
        )
    return data


def _transition(transition: Transition, position: int, index: Mapping[str, int]) -> JsonValue:
    if transition.target == TERMINAL:
        assert transition.terminal_status is not None
        data: dict[str, JsonValue] = {"to": "terminal", "terminalStatus": transition.terminal_status.value}
    else:
        edge = "back" if index[transition.target] <= position else "forward"
        data = {"to": "step", "target": transition.target, "edge": edge}
    if transition.max_transitions is not None:
        data["maxTransitions"] = transition.max_transitions
    return data
