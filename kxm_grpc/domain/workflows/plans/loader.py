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
from collections.abc import Mapping

from kxm_grpc.domain.workflows.plans import graph
from kxm_grpc.domain.workflows.plans.model import (
    DEFAULT_COORDINATOR,
    SCHEMA,
    TERMINAL,
    Access,
    Assignments,
    Dimension,
    EvidenceHashConfig,
    EvidenceKind,
    EvidenceRequirement,
    GateExpect,
    Join,
    JoinStrategy,
    Limits,
    Problem,
    ProducerPolicy,
    Step,
    StepKind,
    StepWorkflow,
    TerminalStatus,
    ToolPolicy,
    Transition,
    WorkflowDefinitionError,
)
from kxm_grpc.domain.workflows.plans.reader import (
    COUNT_INVALID,
    FIELD_REQUIRED,
    FIELD_TYPE_INVALID,
    FIELD_UNSUPPORTED,
    Reader,
    as_integer,
    path,
)

STEP_ID = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
MAX_STEP_ID_CHARS = 64
MAX_STEPS = 128
MAX_DESCRIPTION_CHARS = 2_000
MAX_INSTRUCTIONS_CHARS = 16_000
MAX_NAME_CHARS = 128
MAX_ATTEMPTS = 20
MAX_TRANSITIONS = 10_000
MAX_EDGE_TRANSITIONS = 1_000
MAX_DURATION_MS = 31_536_000_000
MAX_ON = 32
MAX_REQUIRED_EVIDENCE = 64
MAX_EVIDENCE_MINIMUM = 16
MAX_AGENTS = 32
MAX_ASSIGNMENTS = 64
MAX_REPOSITORIES = 64
MAX_REQUIRE_PLAN_HASH = 128
MAX_TOOLS = 64
CURRENCY = "USD"
"""The only currency model cost is metered in (``costUsd`` of the routing records)."""
READ_ONLY = "read-only"
ACCEPTED_STATUS = "passed"

STEP_ID_INVALID = "step_id_invalid"
STEP_ID_DUPLICATE = "step_id_duplicate"

_TOP_FIELDS = (
    "schema",
    "id",
    "description",
    "coordinator",
    "limits",
    "planHash",
    "reproOracle",
    "requirePlanHash",
    "steps",
)
_LIMIT_FIELDS = ("maxTransitions", "maxRunDurationMs", "maxModelCost", "currency")
_STEP_FIELDS = (
    "id",
    "kind",
    "description",
    "instructions",
    "agent",
    "gate",
    "expect",
    "signal",
    "model",
    "maxAttempts",
    "timeoutMs",
    "repositories",
    "tools",
    "assignments",
    "join",
    "requiredEvidence",
    "on",
)
_STEP_UNSUPPORTED = {
    "secrets": "is not executed by the hub (no secret delivery to attempts)",
    "safeSpeculation": "is not executed by the hub",
    "command": "is not a step field: declare the command in the gate registry and name it with gate",
}
_ASSIGNMENT_FIELDS = ("allowedAgents", "minimum", "target", "maximum", "maxParallel", "distinctBy")
_ASSIGNMENT_UNSUPPORTED = {
    "maxAttemptsPerAssignment": "is not executed by the hub (an attempt is one assignment; use maxAttempts)",
    "maxWriteRepositories": "is not executed by the hub (a step writes the repositories it declares write)",
}
_JOIN_FIELDS = ("strategy", "minimumPassed", "cancelRemaining")
_EVIDENCE_FIELDS = ("key", "kind", "minimum", "reusableAcrossAttempts", "producerPolicy")
_POLICY_FIELDS = ("minimumProducers", "eligibleAgents", "distinctBy", "acceptedStatuses", "degradation")
_TRANSITION_FIELDS = ("target", "maxTransitions", "backEdgeBudget", "terminalStatus")
_HASH_FIELDS = ("stageId", "evidenceKey")
_TOOL_FIELDS = ("preset", "allow", "deny")
_TOOL_NAME = re.compile(r"\*|[a-z][a-z0-9_]*\*?")
_POLICY_KINDS = (EvidenceKind.ASSIGNMENT_RESULT, EvidenceKind.REVIEW)
_AGENT_KINDS = (StepKind.AGENT, StepKind.MOA)


def load_workflow(raw: object, *, workflow_id: str) -> StepWorkflow:
    """Load one ``kxm.workflow.v1`` document registered under ``workflow_id``.

    The document may repeat its id as ``id``; it must then equal ``workflow_id``.

    Raises:
        WorkflowDefinitionError: (INVALID_ARGUMENT, WORKFLOW_DEFINITION_INVALID) listing every
            problem with its field path and issue code.
    """
    r = Reader()
    workflow = _workflow(r, raw, workflow_id)
    if workflow is not None and not r.problems:
        graph.check(r, workflow)
    if r.problems or workflow is None:
        raise WorkflowDefinitionError(sort_problems(r.problems))
    return workflow


def sort_problems(problems: list[Problem]) -> tuple[Problem, ...]:
    """§4.1's order: problems of no step first, then by step id, outcome, code (stable otherwise)."""

    def key(problem: Problem) -> tuple[bool, str, str, str]:
        return (problem.step_id is not None, problem.step_id or "", problem.outcome or "", problem.code)

    return tuple(sorted(problems, key=key))


def _workflow(r: Reader, raw: object, workflow_id: str) -> StepWorkflow | None:
    if not STEP_ID.fullmatch(workflow_id) or len(workflow_id) > MAX_STEP_ID_CHARS:
        r.problem("id", "workflow_id_invalid", f"the workflow id {workflow_id!r} must match {STEP_ID.pattern}")
    value = r.mapping(raw, "", required=True)
    if value is None:
        return None
    r.only(value, "", _TOP_FIELDS, {"maxAgentTimeMs": "is a limit, and the hub does not execute it"})
    schema = value.get("schema")
    if schema != SCHEMA:
        r.problem("schema", "workflow_schema_unsupported", f"must be {SCHEMA}")
    declared_id = value.get("id")
    if declared_id is not None and declared_id != workflow_id:
        r.problem("id", "workflow_id_invalid", f"must equal the id the workflow is registered under ({workflow_id})")
    description = r.text(value.get("description"), "description", MAX_DESCRIPTION_CHARS)
    coordinator = r.text(value.get("coordinator"), "coordinator", MAX_NAME_CHARS)
    limits = _limits(r, value.get("limits"))

    steps: list[Step] = []
    first: dict[str, int] = {}
    raw_steps = r.array(value.get("steps"), "steps", required=True)
    if raw_steps is not None and not raw_steps:
        r.problem("steps", "steps_empty", "must hold at least one step (the first is the entry)")
    elif raw_steps is not None and len(raw_steps) > MAX_STEPS:
        r.problem("steps", COUNT_INVALID, f"must hold at most {MAX_STEPS} steps")
    for index, raw_step in enumerate(raw_steps or []):
        step = _step(r, raw_step, f"steps[{index}]", first, index)
        if step is not None:
            steps.append(step)
    r.step_id = None
    if r.problems:
        # The cross-step rules below need every step; they run once the steps load.
        _top_refs(r, value, {}, ())
        return None
    ids = {step.id: index for index, step in enumerate(steps)}
    _check_targets(r, steps, ids)
    plan_hash, repro_oracle, require = _top_refs(r, value, ids, tuple(steps))
    _check_cycles(r, steps, ids, limits)
    return StepWorkflow(
        id=workflow_id,
        steps=tuple(steps),
        coordinator=coordinator or DEFAULT_COORDINATOR,
        description=description,
        limits=limits or Limits(),
        plan_hash=plan_hash,
        repro_oracle=repro_oracle,
        require_plan_hash=require,
    )


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


def _step(r: Reader, raw: object, at: str, first: dict[str, int], index: int) -> Step | None:
    r.step_id = None
    start = r.mark()
    value = r.mapping(raw, at, required=True)
    if value is None:
        return None
    step_id = r.pattern(
        value.get("id"),
        f"{at}.id",
        STEP_ID,
        MAX_STEP_ID_CHARS,
        STEP_ID_INVALID,
        "lower-case letters and digits in words joined by '-' or '_', starting with a letter",
        required=True,
    )
    if step_id is not None and step_id in first:
        r.problem(f"{at}.id", STEP_ID_DUPLICATE, f"duplicates steps[{first[step_id]}].id ({step_id})")
    elif step_id is not None:
        first[step_id] = index
    r.step_id = step_id
    r.only(value, at, _STEP_FIELDS, _STEP_UNSUPPORTED)
    kind = _kind(r, value.get("kind"), f"{at}.kind")
    description = r.text(value.get("description"), f"{at}.description", MAX_DESCRIPTION_CHARS)
    instructions = r.text(value.get("instructions"), f"{at}.instructions", MAX_INSTRUCTIONS_CHARS)
    agent = r.text(value.get("agent"), f"{at}.agent", MAX_NAME_CHARS)
    gate = r.text(value.get("gate"), f"{at}.gate", MAX_NAME_CHARS)
    expect_text = r.choice(value.get("expect"), f"{at}.expect", [e.value for e in GateExpect], "gate_expect_invalid")
    signal = r.text(value.get("signal"), f"{at}.signal", MAX_NAME_CHARS)
    model = r.text(value.get("model"), f"{at}.model", MAX_NAME_CHARS)
    max_attempts = r.integer(value.get("maxAttempts"), f"{at}.maxAttempts", 1, MAX_ATTEMPTS)
    timeout_ms = r.integer(value.get("timeoutMs"), f"{at}.timeoutMs", 1, MAX_DURATION_MS, code="duration_invalid")
    repositories = _repositories(r, value.get("repositories"), f"{at}.repositories")
    tools = _tools(r, value.get("tools"), f"{at}.tools")
    transitions = _transitions(r, value.get("on"), f"{at}.on")

    expect: GateExpect | None = None
    if kind is not None:
        _kind_fields(r, kind, value, at, agent=agent, gate=gate, signal=signal)
        if kind is StepKind.GATE:
            expect = GateExpect(expect_text) if expect_text is not None else GateExpect.PASS
    assignments = _assignments(r, value.get("assignments"), f"{at}.assignments", kind, agent)
    join = _join(r, value.get("join"), f"{at}.join", assignments)
    evidence = _evidence(r, value.get("requiredEvidence"), f"{at}.requiredEvidence", assignments)

    if not r.clean_since(start) or step_id is None or kind is None or assignments is None:
        return None
    return Step(
        id=step_id,
        kind=kind,
        transitions=transitions,
        assignments=assignments,
        join=join or Join(),
        description=description,
        instructions=instructions,
        agent=agent,
        gate=gate,
        expect=expect,
        signal=signal,
        model=model,
        max_attempts=max_attempts or 1,
        timeout_ms=timeout_ms,
        repositories=repositories,
        tools=tools,
        required_evidence=evidence,
    )


def _kind(r: Reader, raw: object, field: str) -> StepKind | None:
    text = r.text(raw, field, 64, required=True, code="step_kind_unknown")
    if text is None:
        return None
    if text == "workflow":
        r.problem(field, "step_kind_reserved", "workflow is reserved (sub-workflows are not supported)")
        return None
    try:
        return StepKind(text)
    except ValueError:
        r.problem(field, "step_kind_unknown", f"must be one of {', '.join(k.value for k in StepKind)}")
        return None


def _kind_fields(
    r: Reader,
    kind: StepKind,
    value: Mapping[str, object],
    at: str,
    *,
    agent: str | None,
    gate: str | None,
    signal: str | None,
) -> None:
    """What each kind requires, and the fields only some kinds may carry (a field a kind ignores
    would be accepted here and never executed)."""
    assignments = value.get("assignments")
    has_allowed = isinstance(assignments, Mapping) and assignments.get("allowedAgents") is not None
    if kind in _AGENT_KINDS and agent is None and not has_allowed and value.get("agent") is None:
        r.problem(
            f"{at}.agent", "step_agent_missing", f"is required for a {kind.value} step (or assignments.allowedAgents)"
        )
    if kind is StepKind.GATE and gate is None and value.get("gate") is None:
        r.problem(f"{at}.gate", "step_gate_missing", "is required for a gate step (a gate registry id)")
    if kind is StepKind.WAIT and signal is None and value.get("signal") is None:
        r.problem(f"{at}.signal", "step_signal_missing", "is required for a wait step")
    only_for = {
        "agent": _AGENT_KINDS,
        "model": _AGENT_KINDS,
        "instructions": _AGENT_KINDS,
        "assignments": _AGENT_KINDS,
        "join": _AGENT_KINDS,
        "tools": _AGENT_KINDS,
        "gate": (StepKind.GATE,),
        "expect": (StepKind.GATE,),
        "signal": (StepKind.WAIT,),
    }
    for name, kinds in only_for.items():
        if value.get(name) is not None and kind not in kinds:
            allowed = " or ".join(k.value for k in kinds)
            r.problem(path(at, name), "step_field_forbidden", f"is only for {allowed} steps, not {kind.value}")


def _repositories(r: Reader, raw: object, at: str) -> dict[str, Access]:
    value = r.mapping(raw, at)
    if value is None:
        return {}
    if len(value) > MAX_REPOSITORIES:
        r.problem(at, COUNT_INVALID, f"must name at most {MAX_REPOSITORIES} repositories")
    result: dict[str, Access] = {}
    for repository, raw_access in value.items():
        field = path(at, repository)
        if not STEP_ID.fullmatch(repository) or len(repository) > MAX_STEP_ID_CHARS:
            r.problem(field, "repository_id_invalid", f"the repository id must match {STEP_ID.pattern}")
        access = r.choice(raw_access, field, [a.value for a in Access], "repository_access_invalid", required=True)
        if access is not None:
            result[repository] = Access(access)
    return result


def _tools(r: Reader, raw: object, at: str) -> ToolPolicy | None:
    value = r.mapping(raw, at)
    if value is None:
        return None
    r.only(value, at, _TOOL_FIELDS)
    preset = r.choice(value.get("preset"), f"{at}.preset", [READ_ONLY], "tool_policy_invalid")
    lists: dict[str, tuple[str, ...]] = {}
    for name in ("allow", "deny"):
        items = r.array(value.get(name), f"{at}.{name}") or []
        if len(items) > MAX_TOOLS:
            r.problem(f"{at}.{name}", COUNT_INVALID, f"must hold at most {MAX_TOOLS} tool names")
        names: list[str] = []
        for index, item in enumerate(items):
            tool = r.pattern(
                item,
                f"{at}.{name}[{index}]",
                _TOOL_NAME,
                MAX_NAME_CHARS,
                "tool_policy_invalid",
                "a tool name (kxm_send), a prefix pattern (kxm_workflow_*) or *",
                required=True,
            )
            if tool is not None and tool not in names:
                names.append(tool)
        lists[name] = tuple(sorted(names))
    return ToolPolicy(preset, lists["allow"], lists["deny"])


def _agents(r: Reader, raw: object, at: str, *, required: bool) -> tuple[str, ...] | None:
    items = r.array(raw, at, required=required)
    if items is None:
        return None
    if not 1 <= len(items) <= MAX_AGENTS:
        r.problem(at, COUNT_INVALID, f"must hold 1 to {MAX_AGENTS} agents")
    agents: list[str] = []
    for index, item in enumerate(items):
        agent = r.text(item, f"{at}[{index}]", MAX_NAME_CHARS, required=True)
        if agent is not None and agent in agents:
            r.problem(f"{at}[{index}]", "agent_duplicate", f"lists {agent} twice")
        elif agent is not None:
            agents.append(agent)
    return tuple(agents)


def _distinct_by(r: Reader, raw: object, at: str) -> tuple[Dimension, ...]:
    items = r.array(raw, at)
    if items is None:
        return ()
    chosen: set[Dimension] = set()
    for index, item in enumerate(items):
        field = f"{at}[{index}]"
        if item == "profile":
            r.problem(
                field, FIELD_UNSUPPORTED, "profile is not a dimension the hub knows of an agent (provider, model)"
            )
            continue
        name = r.choice(item, field, [d.value for d in Dimension], "distinct_by_invalid", required=True)
        if name is not None:
            chosen.add(Dimension(name))
    return tuple(member for member in Dimension if member in chosen)


def _assignments(r: Reader, raw: object, at: str, kind: StepKind | None, agent: str | None) -> Assignments | None:
    """Assignments with §4.1's defaults: allowed ``[agent]``, target = minimum, maximum = target,
    maxParallel = maximum; and minimum ≤ target ≤ maximum, maxParallel ≤ maximum."""
    value = r.mapping(raw, at) or {}
    r.only(value, at, _ASSIGNMENT_FIELDS, _ASSIGNMENT_UNSUPPORTED)
    allowed = _agents(r, value.get("allowedAgents"), f"{at}.allowedAgents", required=False)
    minimum = r.integer(value.get("minimum"), f"{at}.minimum", 1, MAX_ASSIGNMENTS)
    target = r.integer(value.get("target"), f"{at}.target", 1, MAX_ASSIGNMENTS)
    maximum = r.integer(value.get("maximum"), f"{at}.maximum", 1, MAX_ASSIGNMENTS)
    parallel = r.integer(value.get("maxParallel"), f"{at}.maxParallel", 1, MAX_ASSIGNMENTS)
    distinct_by = _distinct_by(r, value.get("distinctBy"), f"{at}.distinctBy")
    if any(
        value.get(name) is not None and found is None
        for name, found in (("minimum", minimum), ("target", target), ("maximum", maximum), ("maxParallel", parallel))
    ):
        return None
    minimum = minimum or 1
    target = target or minimum
    maximum = maximum or target
    parallel = parallel or maximum
    if target < minimum:
        r.problem(f"{at}.target", "assignments_invalid", f"must be at least minimum ({minimum})")
    if maximum < target:
        r.problem(f"{at}.maximum", "assignments_invalid", f"must be at least target ({target})")
    if parallel > maximum:
        r.problem(f"{at}.maxParallel", "assignments_invalid", f"must not exceed maximum ({maximum})")
    agents = allowed if allowed is not None else ((agent,) if agent is not None else ())
    if kind is StepKind.MOA and agents and maximum > len(agents):
        r.problem(f"{at}.maximum", "assignments_invalid", f"a panel has at most its {len(agents)} allowed agents")
    if distinct_by and agents and maximum > len(agents):
        r.problem(f"{at}.distinctBy", "assignments_invalid", "needs at least maximum distinct allowed agents")
    return Assignments(agents, minimum, target, maximum, parallel, distinct_by)


def _join(r: Reader, raw: object, at: str, assignments: Assignments | None) -> Join | None:
    value = r.mapping(raw, at)
    if value is None:
        return None
    r.only(value, at, _JOIN_FIELDS)
    name = r.choice(value.get("strategy"), f"{at}.strategy", [s.value for s in JoinStrategy], "join_strategy_unknown")
    strategy = JoinStrategy(name) if name is not None else JoinStrategy.ALL
    if value.get("strategy") is not None and name is None:
        return None
    minimum_passed = r.integer(value.get("minimumPassed"), f"{at}.minimumPassed", 1, MAX_ASSIGNMENTS)
    cancel = r.boolean(value.get("cancelRemaining"), f"{at}.cancelRemaining")
    if strategy is JoinStrategy.QUORUM and value.get("minimumPassed") is None:
        r.problem(f"{at}.minimumPassed", FIELD_REQUIRED, "is required for a quorum join")
    if strategy in (JoinStrategy.ALL, JoinStrategy.FIRST_SUCCESS) and value.get("minimumPassed") is not None:
        r.problem(f"{at}.minimumPassed", "join_invalid", f"means nothing to an {strategy.value} join")
    if cancel and strategy in (JoinStrategy.ALL, JoinStrategy.ALL_SETTLED):
        r.problem(
            f"{at}.cancelRemaining", "join_invalid", f"means nothing to an {strategy.value} join (it waits for all)"
        )
    if minimum_passed is not None and assignments is not None and minimum_passed > assignments.target:
        r.problem(
            f"{at}.minimumPassed",
            "join_minimum_unreachable",
            f"{minimum_passed} passes cannot come from assignments.target {assignments.target} assignments",
        )
    return Join(strategy, minimum_passed, bool(cancel))


def _evidence(r: Reader, raw: object, at: str, assignments: Assignments | None) -> tuple[EvidenceRequirement, ...]:
    items = r.array(raw, at)
    if items is None:
        return ()
    if len(items) > MAX_REQUIRED_EVIDENCE:
        r.problem(at, COUNT_INVALID, f"must hold at most {MAX_REQUIRED_EVIDENCE} requirements")
    result: list[EvidenceRequirement] = []
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        field = f"{at}[{index}]"
        value = r.mapping(item, field, required=True)
        if value is None:
            continue
        r.only(value, field, _EVIDENCE_FIELDS)
        key = r.text(value.get("key"), f"{field}.key", MAX_NAME_CHARS, required=True)
        if key is not None and key in first:
            r.problem(f"{field}.key", "evidence_key_duplicate", f"duplicates {at}[{first[key]}].key ({key})")
        elif key is not None:
            first[key] = index
        kind_name = r.choice(
            value.get("kind"), f"{field}.kind", [k.value for k in EvidenceKind], "evidence_kind_unknown", required=True
        )
        kind = EvidenceKind(kind_name) if kind_name is not None else None
        minimum = r.integer(value.get("minimum"), f"{field}.minimum", 1, MAX_EVIDENCE_MINIMUM)
        reusable = r.boolean(value.get("reusableAcrossAttempts"), f"{field}.reusableAcrossAttempts")
        policy = None
        if value.get("producerPolicy") is not None:
            if kind is not None and kind not in _POLICY_KINDS:
                r.problem(
                    f"{field}.producerPolicy",
                    "producer_policy_invalid",
                    f"only {' and '.join(k.value for k in _POLICY_KINDS)} evidence has producers",
                )
            policy = _producer_policy(r, value.get("producerPolicy"), f"{field}.producerPolicy", assignments)
        if key is not None and kind is not None:
            result.append(EvidenceRequirement(key, kind, minimum or 1, bool(reusable), policy))
    return tuple(result)


def _producer_policy(r: Reader, raw: object, at: str, assignments: Assignments | None) -> ProducerPolicy | None:
    value = r.mapping(raw, at, required=True)
    if value is None:
        return None
    start = r.mark()
    r.only(value, at, _POLICY_FIELDS)
    minimum = r.integer(value.get("minimumProducers"), f"{at}.minimumProducers", 1, 16, required=True)
    eligible = _agents(r, value.get("eligibleAgents"), f"{at}.eligibleAgents", required=False)
    distinct_by = _distinct_by(r, value.get("distinctBy"), f"{at}.distinctBy")
    statuses = value.get("acceptedStatuses")
    if statuses is not None and statuses != [ACCEPTED_STATUS]:
        r.problem(f"{at}.acceptedStatuses", "producer_policy_invalid", f'must be ["{ACCEPTED_STATUS}"]')
    degraded = None
    degradation = r.mapping(value.get("degradation"), f"{at}.degradation")
    if degradation is not None:
        r.only(degradation, f"{at}.degradation", ("minimumProducers",))
        degraded = r.integer(
            degradation.get("minimumProducers"), f"{at}.degradation.minimumProducers", 1, 16, required=True
        )
        if degraded is not None and minimum is not None and degraded >= minimum:
            r.problem(f"{at}.degradation.minimumProducers", "producer_policy_invalid", "must be below minimumProducers")
    allowed = assignments.allowed_agents if assignments is not None else ()
    agents = eligible if eligible is not None else allowed
    if eligible is not None and assignments is not None:
        for index, agent in enumerate(eligible):
            if agent not in allowed:
                r.problem(
                    f"{at}.eligibleAgents[{index}]",
                    "producer_policy_invalid",
                    f"{agent} is not in assignments.allowedAgents",
                )
    if minimum is not None and assignments is not None:
        if minimum > assignments.target:
            r.problem(
                f"{at}.minimumProducers",
                "producer_policy_unreachable",
                f"exceeds assignments.target ({assignments.target}): so many producers are never assigned",
            )
        if agents and minimum > len(agents):
            r.problem(
                f"{at}.minimumProducers",
                "producer_policy_unreachable",
                f"exceeds the {len(agents)} eligible agents",
            )
    if not r.clean_since(start) or minimum is None:
        return None
    return ProducerPolicy(minimum, tuple(agents), distinct_by, (ACCEPTED_STATUS,), degraded)


def _transitions(r: Reader, raw: object, at: str) -> dict[str, Transition]:
    value = r.mapping(raw, at)
    if value is None:
        r.problem(at, "transitions_missing", "is required: a step must declare its outcomes")
        return {}
    if not 1 <= len(value) <= MAX_ON:
        r.problem(at, "transitions_missing" if not value else COUNT_INVALID, f"must declare 1 to {MAX_ON} outcomes")
    result: dict[str, Transition] = {}
    for outcome, raw_target in value.items():
        field = path(at, outcome)
        if not re.fullmatch(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*", outcome) or len(outcome) > 64:
            r.problem(field, "outcome_invalid", "an outcome is lower-case words joined by '-' or '_'", outcome=outcome)
            continue
        budget: int | None = None
        status: TerminalStatus | None = None
        if isinstance(raw_target, Mapping):
            rule = r.mapping(raw_target, field) or {}
            r.only(rule, field, _TRANSITION_FIELDS)
            target = r.text(rule.get("target"), f"{field}.target", MAX_STEP_ID_CHARS, required=True)
            if rule.get("maxTransitions") is not None and rule.get("backEdgeBudget") is not None:
                r.problem(
                    f"{field}.backEdgeBudget",
                    "count_invalid",
                    "set only one of maxTransitions and backEdgeBudget",
                    outcome=outcome,
                )
            spelling = "backEdgeBudget" if rule.get("backEdgeBudget") is not None else "maxTransitions"
            budget = r.integer(rule.get(spelling), f"{field}.{spelling}", 1, MAX_EDGE_TRANSITIONS)
            raw_status = rule.get("terminalStatus")
            if target == TERMINAL and raw_status is None:
                r.problem(
                    field,
                    "transition_terminal_status_missing",
                    "a $terminal target needs terminalStatus",
                    outcome=outcome,
                )
            elif target == TERMINAL:
                if raw_status not in [s.value for s in TerminalStatus]:
                    r.problem(
                        f"{field}.terminalStatus",
                        "transition_terminal_status_invalid",
                        f"must be one of {', '.join(s.value for s in TerminalStatus)}",
                        outcome=outcome,
                    )
                else:
                    status = TerminalStatus(raw_status)
            elif raw_status is not None:
                r.problem(
                    f"{field}.terminalStatus",
                    "transition_terminal_status_unexpected",
                    "only a $terminal target has a terminal status",
                    outcome=outcome,
                )
        elif isinstance(raw_target, str):
            target = r.text(raw_target, field, MAX_STEP_ID_CHARS, required=True)
            if target == TERMINAL:
                r.problem(
                    field,
                    "transition_terminal_status_missing",
                    "a $terminal target needs terminalStatus ({target: $terminal, terminalStatus})",
                    outcome=outcome,
                )
        else:
            r.problem(
                field,
                FIELD_TYPE_INVALID,
                "must be a step id or {target, maxTransitions, terminalStatus}",
                outcome=outcome,
            )
            continue
        if target is not None:
            result[outcome] = Transition(outcome, target, status, budget)
    return result


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


__all__ = ["FIELD_TYPE_INVALID", "load_workflow", "sort_problems"]
