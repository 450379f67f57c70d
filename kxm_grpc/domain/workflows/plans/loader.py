"""Loading a ``kxm.workflow.v1`` document (workflow-context.md §4.1) into a ``StepWorkflow``.

The document is a mapping already decoded from JSON or YAML. Every problem is collected with its
JSON path and issue code (§4.1's codes where the original has one, the loader's own otherwise),
then the graph rules run (``graph``), and one ``WorkflowDefinitionError`` lists them all.

Per §11.20 nothing is accepted here that the hub would refuse later: fields of the original that
the hub does not execute (``maxAgentTimeMs``, ``secrets``, ``safeSpeculation``,
``maxAttemptsPerAssignment``, ``maxWriteRepositories``, ``distinctBy: profile``) are refused
with ``field_unsupported``, unknown fields with ``field_unknown``, and an unknown join strategy
or evidence kind is an error rather than silently compiled to a default.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from kxm_grpc.domain.projects import PROJECT_NAME
from kxm_grpc.domain.workflows import diversity
from kxm_grpc.domain.workflows.plans import graph
from kxm_grpc.domain.workflows.plans.assignments import read_agents
from kxm_grpc.domain.workflows.plans.gates import GateKind, GateRegistry
from kxm_grpc.domain.workflows.plans.model import (
    CURRENCY,
    DEFAULT_COORDINATOR,
    DEFAULT_GATE_WORKER,
    MAX_DECLARED_AGENTS,
    MAX_DESCRIPTION_CHARS,
    MAX_DURATION_MS,
    MAX_NAME_CHARS,
    MAX_REQUIRE_PLAN_HASH,
    MAX_STEP_ID_CHARS,
    MAX_STEPS,
    MAX_TRANSITIONS,
    SCHEMA,
    STEP_ID,
    TERMINAL,
    AgentDeclaration,
    Dimension,
    EvidenceHashConfig,
    GateExpect,
    Limits,
    Problem,
    Step,
    StepKind,
    StepWorkflow,
    WorkflowDefinitionError,
)
from kxm_grpc.domain.workflows.plans.reader import COUNT_INVALID, Reader, as_integer, path
from kxm_grpc.domain.workflows.plans.steps import read_step

_TOP_FIELDS = (
    "schema",
    "id",
    "project",
    "description",
    "agents",
    "gateWorkers",
    "coordinator",
    "limits",
    "planHash",
    "reproOracle",
    "requirePlanHash",
    "requireAttemptTokens",
    "signalSecretEnv",
    "steps",
)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_LIMIT_FIELDS = ("maxTransitions", "maxRunDurationMs", "maxModelCost", "currency")
_HASH_FIELDS = ("stageId", "evidenceKey")
MAX_CYCLE_ATTEMPTS = 10_000
"""The most attempts a step's derived default allows (the run's transition budget bounds it anyway)."""
_DECLARATION_FIELDS = ("provider", "model")


def load_workflow(raw: object, *, workflow_id: str | None = None, gates: GateRegistry | None = None) -> StepWorkflow:
    """Load one ``kxm.workflow.v1`` document.

    Its id is ``workflow_id`` when given (the document may repeat it as ``id``, which must then
    be equal), else the document's ``id``. With ``gates`` (the project's gate registry) every gate
    step's ``gate`` must name one of its gates and suit it (``gates.check_gate_steps``); without,
    gate references are not checked (an offline ``kxm workflow validate`` given no registry).

    Raises:
        WorkflowDefinitionError: (INVALID_ARGUMENT, WORKFLOW_DEFINITION_INVALID) listing every
            problem with its field path and issue code.
    """
    r = Reader()
    workflow = _workflow(r, raw, workflow_id)
    if workflow is not None and not r.problems:
        graph.check(r, workflow)
        if gates is not None:
            check_gate_steps(r, workflow, gates)
    if r.problems or workflow is None:
        raise WorkflowDefinitionError(sort_problems(r.problems))
    return workflow


def check_gate_steps(r: Reader, workflow: StepWorkflow, registry: GateRegistry) -> None:
    """Every registry gate a step names exists and suits the step (§6.2): an ``artifacts-exist``
    gate expects ``pass`` and takes no ``timeoutMs``; a command gate's step ``timeoutMs``, when
    set, is not narrower than the gate's own timeouts."""
    for position, step in enumerate(workflow.steps):
        if step.kind is not StepKind.GATE or step.gate is None:
            continue
        r.step_id = step.id
        at = f"steps[{position}]"
        gate = registry.gates.get(step.gate)
        if gate is None:
            r.problem(f"{at}.gate", "step_gate_unknown", f"the project's gate registry has no gate {step.gate}")
        elif gate.kind is GateKind.ARTIFACTS_EXIST:
            if step.expect is GateExpect.FAIL:
                r.problem(f"{at}.expect", "gate_expect_invalid", "an artifacts-exist gate only expects pass")
            if step.timeout_ms is not None:
                r.problem(f"{at}.timeoutMs", "gate_timeout_invalid", "an artifacts-exist gate runs no command")
        elif step.timeout_ms is not None and step.timeout_ms < gate.timeout_ms:
            r.problem(
                f"{at}.timeoutMs",
                "gate_timeout_invalid",
                f"is narrower than the gate's own timeouts ({gate.timeout_ms} ms): the step would end first",
            )
    r.step_id = None


def sort_problems(problems: list[Problem]) -> tuple[Problem, ...]:
    """§4.1's order: problems of no step first, then by step id, outcome, code (stable otherwise)."""

    def key(problem: Problem) -> tuple[bool, str, str, str]:
        return (problem.step_id is not None, problem.step_id or "", problem.outcome or "", problem.code)

    return tuple(sorted(problems, key=key))


def _workflow(r: Reader, raw: object, workflow_id: str | None) -> StepWorkflow | None:
    value = r.mapping(raw, "", required=True)
    if value is None:
        return None
    declared_id = value.get("id")
    if workflow_id is None:
        workflow_id = r.text(declared_id, "id", MAX_STEP_ID_CHARS, required=True, code="workflow_id_invalid")
    elif declared_id is not None and declared_id != workflow_id:
        r.problem("id", "workflow_id_invalid", f"must equal the id the workflow is registered under ({workflow_id})")
    if workflow_id is not None and not STEP_ID.fullmatch(workflow_id):
        r.problem("id", "workflow_id_invalid", f"the workflow id {workflow_id!r} must match {STEP_ID.pattern}")
        workflow_id = None
    project = r.pattern(
        value.get("project"), "project", PROJECT_NAME, 128, "project_invalid", "a project name", required=False
    )
    r.only(value, "", _TOP_FIELDS, {"maxAgentTimeMs": "is a limit, and the hub does not execute it"})
    schema = value.get("schema")
    if schema != SCHEMA:
        r.problem("schema", "workflow_schema_unsupported", f"must be {SCHEMA}")
    description = r.text(value.get("description"), "description", MAX_DESCRIPTION_CHARS)
    coordinator = r.text(value.get("coordinator"), "coordinator", MAX_NAME_CHARS)
    agents = _agents(r, value.get("agents"))
    gate_workers = read_agents(r, value.get("gateWorkers"), "gateWorkers", required=False)
    limits = _limits(r, value.get("limits"))
    require_tokens = r.boolean(value.get("requireAttemptTokens"), "requireAttemptTokens")
    signal_secret_env = r.pattern(
        value.get("signalSecretEnv"),
        "signalSecretEnv",
        _ENV_NAME,
        128,
        "signal_secret_env_invalid",
        "an environment variable's name (letters, digits, _; not a digit first)",
        required=False,
    )
    if value.get("signalSecret") is not None:
        r.problem(
            "signalSecret",
            "field_unsupported",
            "a step workflow names its signal secret by environment variable (signalSecretEnv), never literally",
        )

    steps: list[Step] = []
    first: dict[str, int] = {}
    raw_steps = r.array(value.get("steps"), "steps", required=True)
    if raw_steps is not None and not raw_steps:
        r.problem("steps", "steps_empty", "must hold at least one step (the first is the entry)")
    elif raw_steps is not None and len(raw_steps) > MAX_STEPS:
        r.problem("steps", COUNT_INVALID, f"must hold at most {MAX_STEPS} steps")
    for index, raw_step in enumerate(raw_steps or []):
        step = read_step(r, raw_step, f"steps[{index}]", first, index)
        if step is not None:
            steps.append(step)
    r.step_id = None
    if r.problems or workflow_id is None:
        # The cross-step rules below need every step; they run once the steps load.
        _top_refs(r, value, {}, ())
        return None
    ids = {step.id: index for index, step in enumerate(steps)}
    _check_targets(r, steps, ids)
    plan_hash, repro_oracle, require = _top_refs(r, value, ids, tuple(steps))
    _check_cycles(r, steps, ids, limits)
    _check_diversity(r, steps, agents)
    steps = _default_attempts(steps, ids)
    return StepWorkflow(
        id=workflow_id,
        steps=tuple(steps),
        project=project,
        agents=agents,
        gate_workers=gate_workers or (DEFAULT_GATE_WORKER,),
        coordinator=coordinator or DEFAULT_COORDINATOR,
        description=description,
        limits=limits or Limits(),
        plan_hash=plan_hash,
        repro_oracle=repro_oracle,
        require_plan_hash=require,
        require_attempt_tokens=bool(require_tokens),
        signal_secret_env=signal_secret_env,
    )


def _agents(r: Reader, raw: object) -> dict[str, AgentDeclaration]:
    """``agents``: each agent's declared provider and model, by name."""
    value = r.mapping(raw, "agents")
    if value is None:
        return {}
    if len(value) > MAX_DECLARED_AGENTS:
        r.problem("agents", COUNT_INVALID, f"must declare at most {MAX_DECLARED_AGENTS} agents")
    declared: dict[str, AgentDeclaration] = {}
    for name, raw_declaration in value.items():
        at = path("agents", name)
        if not name.strip() or len(name) > MAX_NAME_CHARS:
            r.problem(at, "agent_invalid", f"an agent name is 1 to {MAX_NAME_CHARS} characters")
        entry = r.mapping(raw_declaration, at, required=True)
        if entry is None:
            continue
        r.only(entry, at, _DECLARATION_FIELDS)
        provider = r.text(entry.get("provider"), f"{at}.provider", MAX_NAME_CHARS)
        model = r.text(entry.get("model"), f"{at}.model", MAX_NAME_CHARS)
        declared[name] = AgentDeclaration(provider, model)
    return declared


def _default_attempts(steps: list[Step], ids: Mapping[str, int]) -> list[Step]:
    """Fill ``maxAttempts`` where a step omits it: 1, plus the ``maxTransitions`` of every back-edge
    closing a cycle through the step. So a step's default never ends a run its cycle's budgets
    allow (the original's default of 1 failed the second entry of every step on a budgeted cycle,
    such as the seeds' verify gate, with ``budget_step_attempts``)."""
    extra = dict.fromkeys((step.id for step in steps), 0)
    for index, step in enumerate(steps):
        for transition in step.transitions.values():
            target = ids.get(transition.target)
            if target is None or target > index or transition.max_transitions is None:
                continue
            # The back-edge step → target closes a cycle through every step on a path target ⇝ step.
            for member in _between(steps, ids, transition.target, step.id):
                extra[member] += transition.max_transitions
    return [
        step if step.max_attempts else replace(step, max_attempts=min(MAX_CYCLE_ATTEMPTS, 1 + extra[step.id]))
        for step in steps
    ]


def _between(steps: list[Step], ids: Mapping[str, int], start: str, end: str) -> set[str]:
    """The steps on some path from ``start`` to ``end`` (both included)."""

    def successors(step_id: str) -> list[str]:
        return [t.target for t in steps[ids[step_id]].transitions.values() if t.target in ids]

    def reach(origin: str, follow: Callable[[str], list[str]]) -> set[str]:
        seen, stack = {origin}, [origin]
        while stack:
            for following in follow(stack.pop()):
                if following not in seen:
                    seen.add(following)
                    stack.append(following)
        return seen

    predecessors: dict[str, list[str]] = {step.id: [] for step in steps}
    for step in steps:
        for target in successors(step.id):
            predecessors[target].append(step.id)
    return reach(start, successors) & reach(end, lambda step_id: predecessors[step_id])


def _check_diversity(r: Reader, steps: list[Step], agents: Mapping[str, AgentDeclaration]) -> None:
    """A ``distinctBy`` that no set of the declared agents can meet is refused (the original
    validated ``distinctBy`` and never enforced it, §11.10): every agent it ranges over declares
    each listed dimension in ``agents``, and enough of them differ pairwise — ``assignments.target``
    members for ``assignments.distinctBy``, ``minimumProducers`` for a producer policy's."""
    for position, step in enumerate(steps):
        r.step_id = step.id
        assignments = step.assignments
        if assignments.distinct_by:
            _diverse(
                r,
                f"steps[{position}].assignments.distinctBy",
                assignments.allowed_agents,
                assignments.distinct_by,
                assignments.target,
                agents,
            )
        for index, requirement in enumerate(step.required_evidence):
            policy = requirement.producer_policy
            if policy is not None and policy.distinct_by:
                _diverse(
                    r,
                    f"steps[{position}].requiredEvidence[{index}].producerPolicy.distinctBy",
                    policy.eligible_agents,
                    policy.distinct_by,
                    policy.minimum_producers,
                    agents,
                )
    r.step_id = None


def _diverse(
    r: Reader,
    at: str,
    names: tuple[str, ...],
    dimensions: tuple[Dimension, ...],
    needed: int,
    agents: Mapping[str, AgentDeclaration],
) -> None:
    undeclared = [
        f"{name} ({dimension.value})"
        for name in names
        for dimension in dimensions
        if diversity.declared(_declaration(agents.get(name)), dimension) is None
    ]
    if undeclared:
        r.problem(
            at,
            "distinct_by_undeclared",
            f"needs agents.<name>.{'/'.join(d.value for d in dimensions)} declared for: {', '.join(undeclared)}",
        )
        return
    reachable = diversity.distinct_count((_declaration(agents.get(name)) for name in names), dimensions)
    if reachable < needed:
        r.problem(
            at,
            "distinct_by_unreachable",
            f"needs {needed} agents distinct by {', '.join(d.value for d in dimensions)};"
            f" the declared agents give {reachable}",
        )


def _declaration(declaration: AgentDeclaration | None) -> diversity.Declaration:
    return (declaration.provider, declaration.model) if declaration is not None else (None, None)


def _limits(r: Reader, raw: object) -> Limits | None:
    value = r.mapping(raw, "limits")
    if value is None:
        return None
    r.only(
        value,
        "limits",
        _LIMIT_FIELDS,
        {"maxAgentTimeMs": "is not executed by the hub (bound steps with timeoutMs, runs with maxRunDurationMs)"},
    )
    transitions = r.integer(value.get("maxTransitions"), "limits.maxTransitions", 1, MAX_TRANSITIONS)
    duration = r.integer(
        value.get("maxRunDurationMs"), "limits.maxRunDurationMs", 1, MAX_DURATION_MS, code="duration_invalid"
    )
    cost: int | float | None = None
    raw_cost = value.get("maxModelCost")
    if raw_cost is not None:
        if isinstance(raw_cost, bool) or not isinstance(raw_cost, int | float) or not math.isfinite(raw_cost):
            r.problem("limits.maxModelCost", "cost_invalid", "must be a finite number greater than 0")
        elif raw_cost <= 0:
            r.problem("limits.maxModelCost", "cost_invalid", "must be greater than 0")
        else:
            cost = as_integer(raw_cost) if as_integer(raw_cost) is not None else raw_cost
    currency = r.text(value.get("currency"), "limits.currency", 3, code="cost_invalid")
    if currency is not None:
        if not re.fullmatch(r"[A-Z]{3}", currency):
            r.problem("limits.currency", "cost_invalid", "must be 3 upper-case letters (ISO 4217)")
        elif currency != CURRENCY:
            r.problem("limits.currency", "cost_currency_unsupported", f"model cost is metered in {CURRENCY} only")
        if raw_cost is None:
            r.problem("limits.currency", "cost_invalid", "needs maxModelCost")
    return Limits(transitions, duration, cost, CURRENCY if cost is not None else None)


def _check_targets(r: Reader, steps: list[Step], ids: Mapping[str, int]) -> None:
    for index, step in enumerate(steps):
        r.step_id = step.id
        for transition in step.transitions.values():
            if transition.target != TERMINAL and transition.target not in ids:
                r.problem(
                    path(f"steps[{index}].on", transition.outcome),
                    "transition_target_unknown",
                    f"targets unknown step {transition.target}",
                    outcome=transition.outcome,
                )
    r.step_id = None


def _check_cycles(r: Reader, steps: list[Step], ids: Mapping[str, int], limits: Limits | None) -> None:
    """A back-edge (to the step itself or an earlier one) needs its own budget; any back-edge needs
    ``limits.maxTransitions``. Every cycle holds a back-edge, so this bounds them all."""
    back_edges: list[str] = []
    for index, step in enumerate(steps):
        r.step_id = step.id
        for transition in step.transitions.values():
            target = ids.get(transition.target)
            if target is None or target > index:
                continue
            back_edges.append(f"steps[{index}].on.{transition.outcome}")
            if transition.max_transitions is None:
                r.problem(
                    path(f"steps[{index}].on", transition.outcome),
                    "back_edge_unbounded",
                    f"is a back-edge to {transition.target} and needs maxTransitions (or backEdgeBudget)",
                    outcome=transition.outcome,
                )
    r.step_id = None
    if back_edges and (limits is None or limits.max_transitions is None):
        r.problem(
            "limits.maxTransitions",
            "workflow_cycle_unbounded",
            f"is required: {back_edges[0]} is a back-edge, and a cycle needs a run transition budget",
        )


def _hash_config(
    r: Reader, raw: object, at: str, ids: Mapping[str, int], steps: tuple[Step, ...], prefix: str
) -> EvidenceHashConfig | None:
    value = r.mapping(raw, at)
    if value is None:
        return None
    r.only(value, at, _HASH_FIELDS)
    step_id = r.text(value.get("stageId"), f"{at}.stageId", MAX_STEP_ID_CHARS, required=True)
    key = r.text(value.get("evidenceKey"), f"{at}.evidenceKey", MAX_NAME_CHARS, required=True)
    if step_id is None or key is None or not steps:
        return None
    if step_id not in ids:
        r.problem(f"{at}.stageId", f"{prefix}_stage_unknown", f"names no step ({step_id})")
        return None
    step = steps[ids[step_id]]
    if key not in [requirement.key for requirement in step.required_evidence]:
        r.problem(
            f"{at}.evidenceKey", f"{prefix}_evidence_unknown", f"{key} is not a requiredEvidence key of {step_id}"
        )
        return None
    return EvidenceHashConfig(step_id, key)


def _top_refs(
    r: Reader, value: Mapping[str, object], ids: Mapping[str, int], steps: tuple[Step, ...]
) -> tuple[EvidenceHashConfig | None, EvidenceHashConfig | None, tuple[str, ...]]:
    """``planHash``, ``reproOracle`` and ``requirePlanHash`` (shapes always; references once the
    steps loaded)."""
    plan_hash = _hash_config(r, value.get("planHash"), "planHash", ids, steps, "plan_hash")
    oracle = _hash_config(r, value.get("reproOracle"), "reproOracle", ids, steps, "oracle")
    items = r.array(value.get("requirePlanHash"), "requirePlanHash")
    if items is None:
        items = []
    if len(items) > MAX_REQUIRE_PLAN_HASH:
        r.problem("requirePlanHash", COUNT_INVALID, f"must hold at most {MAX_REQUIRE_PLAN_HASH} step ids")
    if items and value.get("planHash") is None:
        r.problem("requirePlanHash", "require_plan_hash_invalid", "needs planHash: no plan hash is ever captured")
    chosen: set[str] = set()
    for index, item in enumerate(items):
        field = f"requirePlanHash[{index}]"
        step_id = r.text(item, field, MAX_STEP_ID_CHARS, required=True)
        if step_id is None or not steps:
            continue
        if step_id not in ids:
            r.problem(field, "require_plan_hash_step_unknown", f"names no step ({step_id})")
        elif plan_hash is not None and ids[step_id] <= ids[plan_hash.step_id]:
            r.problem(field, "require_plan_hash_invalid", f"{step_id} does not come after the planHash step")
        else:
            chosen.add(step_id)
    if plan_hash is not None:
        for index in range(ids[plan_hash.step_id] + 1, len(steps)):
            step = steps[index]
            if step.writes and step.id not in chosen:
                r.problem(
                    "requirePlanHash",
                    "require_plan_hash_missing",
                    f"must list {step.id}: it writes a repository after the planHash step {plan_hash.step_id}",
                )
    if not steps:
        return None, None, ()
    return plan_hash, oracle, tuple(sorted(chosen, key=lambda text: text.encode("utf-16-be", "surrogatepass")))


__all__ = ["check_gate_steps", "load_workflow", "sort_problems"]
