"""Reading a pinned plan back: a ``kxm.compiled-workflow.v1`` document to the workflow it compiled.

A run pins its plan by hash (the definition version holds the compiled plan's JSON); the engine
works on the loaded ``StepWorkflow`` and the gates the plan pinned. The plan was made by
``compile_workflow`` from a workflow the loader accepted, so nothing here re-checks a rule: it is a
faithful inverse (``compile_workflow(load_plan(plan)) == plan``) that refuses only a document that
is not such a plan (a stored row altered or of another schema).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kxm_grpc.domain.context.skills import EvaluationKind
from kxm_grpc.domain.workflows.plans.gates import GateCheck, GateDefinition, GateKind
from kxm_grpc.domain.workflows.plans.model import (
    COMPILED_SCHEMA,
    TERMINAL,
    Access,
    AgentDeclaration,
    Assignments,
    Dimension,
    EvidenceHashConfig,
    EvidenceKind,
    EvidenceRequirement,
    GateExpect,
    Join,
    JoinStrategy,
    Limits,
    ProducerPolicy,
    Step,
    StepKind,
    StepWorkflow,
    TerminalStatus,
    ToolPolicy,
    Transition,
)

INLINE_PREFIX = "step:"


class PlanCorrupt(ValueError):
    """The document is not a compiled plan this hub made (the message says what is wrong)."""


def load_plan(plan: Mapping[str, Any]) -> tuple[StepWorkflow, dict[str, GateDefinition]]:
    """The workflow ``plan`` compiled, and its pinned gates by the id its steps name them with.

    Raises:
        PlanCorrupt: the document is not a ``kxm.compiled-workflow.v1`` plan.
    """
    try:
        if plan.get("schema") != COMPILED_SCHEMA:
            raise PlanCorrupt(f"schema is {plan.get('schema')!r}, not {COMPILED_SCHEMA}")
        gates = {gate_id: _gate(raw) for gate_id, raw in plan["gates"].items()}
        steps = tuple(_step(plan["steps"][step_id], gates) for step_id in plan["order"])
        limits = plan["limits"]
        workflow = StepWorkflow(
            id=plan["workflowId"],
            steps=steps,
            project=plan.get("project"),
            gate_workers=tuple(plan["gateWorkers"]),
            agents={
                name: AgentDeclaration(declared.get("provider"), declared.get("model"))
                for name, declared in plan.get("agents", {}).items()
            },
            coordinator=plan["coordinator"],
            description=plan.get("description"),
            limits=Limits(
                limits.get("maxTransitions"),
                limits.get("maxRunDurationMs"),
                limits.get("maxModelCost"),
                limits.get("currency"),
            ),
            plan_hash=_hash_config(plan.get("planHash")),
            repro_oracle=_hash_config(plan.get("reproOracle")),
            require_plan_hash=tuple(plan["requirePlanHash"]),
            require_attempt_tokens=plan.get("requireAttemptTokens", False) is True,
            signal_secret_env=plan.get("signalSecretEnv"),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        if isinstance(error, PlanCorrupt):
            raise
        raise PlanCorrupt(f"not a compiled plan: {error.__class__.__name__} {error}") from None
    return workflow, gates


def _gate(raw: Mapping[str, Any]) -> GateDefinition:
    kind = GateKind(raw["kind"])
    checks = tuple(
        GateCheck(check["name"], tuple(check["argv"]), check["timeoutMs"]) for check in raw.get("checks", ())
    )
    evaluates = raw.get("evaluates")
    return GateDefinition(
        raw["id"],
        kind,
        checks,
        tuple(raw.get("paths", ())),
        raw.get("description"),
        EvaluationKind(evaluates) if evaluates is not None else None,
    )


def _hash_config(raw: Mapping[str, Any] | None) -> EvidenceHashConfig | None:
    return EvidenceHashConfig(raw["stageId"], raw["evidenceKey"]) if raw is not None else None


def _step(raw: Mapping[str, Any], gates: Mapping[str, GateDefinition]) -> Step:
    assignments = raw["assignments"]
    join = raw["join"]
    gate_id = raw.get("gate")
    inline = gate_id is not None and gate_id.startswith(INLINE_PREFIX)
    tools = raw.get("tools")
    return Step(
        id=raw["id"],
        kind=StepKind(raw["kind"]),
        transitions={outcome: _transition(outcome, rule) for outcome, rule in raw["transitions"].items()},
        assignments=Assignments(
            tuple(assignments["allowedAgents"]),
            assignments["minimum"],
            assignments["target"],
            assignments["maximum"],
            assignments["maxParallel"],
            tuple(Dimension(d) for d in assignments["distinctBy"]),
        ),
        join=Join(JoinStrategy(join["strategy"]), join.get("minimumPassed"), join.get("cancelRemaining", False)),
        description=raw.get("description"),
        instructions=raw.get("instructions"),
        agent=raw.get("agent"),
        gate=None if inline else gate_id,
        command=gates[gate_id] if inline and gate_id is not None else None,
        expect=GateExpect(raw["expect"]) if raw.get("expect") is not None else None,
        signal=raw.get("signal"),
        model=raw.get("model"),
        max_attempts=raw["maxAttempts"],
        timeout_ms=raw.get("timeoutMs"),
        repositories={repository: Access(access) for repository, access in raw["repositories"].items()},
        tools=ToolPolicy(tools.get("preset"), tuple(tools.get("allow", ())), tuple(tools.get("deny", ())))
        if tools is not None
        else None,
        required_evidence=tuple(_requirement(requirement) for requirement in raw["requiredEvidence"]),
    )


def _transition(outcome: str, raw: Mapping[str, Any]) -> Transition:
    if raw["to"] == "terminal":
        return Transition(outcome, TERMINAL, TerminalStatus(raw["terminalStatus"]), raw.get("maxTransitions"))
    return Transition(outcome, raw["target"], None, raw.get("maxTransitions"))


def _requirement(raw: Mapping[str, Any]) -> EvidenceRequirement:
    policy = raw.get("producerPolicy")
    return EvidenceRequirement(
        raw["key"],
        EvidenceKind(raw["kind"]),
        raw["minimum"],
        raw["reusableAcrossAttempts"],
        ProducerPolicy(
            policy["minimumProducers"],
            tuple(policy["eligibleAgents"]),
            tuple(Dimension(d) for d in policy["distinctBy"]),
            tuple(policy["acceptedStatuses"]),
            (policy.get("degradation") or {}).get("minimumProducers"),
        )
        if policy is not None
        else None,
    )
