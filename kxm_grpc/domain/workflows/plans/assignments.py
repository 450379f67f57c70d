"""Who produces a step's outcome (workflow-context.md §4.1): ``assignments`` with their compiled
defaults, the ``join`` that derives the outcome from them, and the ``requiredEvidence`` with its
producer policy (``minimumProducers``, ``eligibleAgents``, ``distinctBy``).
"""

from __future__ import annotations

from kxm_grpc.domain.workflows.plans.model import (
    ACCEPTED_STATUS,
    MAX_AGENTS,
    MAX_ASSIGNMENTS,
    MAX_EVIDENCE_MINIMUM,
    MAX_NAME_CHARS,
    MAX_REQUIRED_EVIDENCE,
    Assignments,
    Dimension,
    EvidenceKind,
    EvidenceRequirement,
    Join,
    JoinStrategy,
    ProducerPolicy,
    StepKind,
)
from kxm_grpc.domain.workflows.plans.reader import COUNT_INVALID, FIELD_REQUIRED, FIELD_UNSUPPORTED, Reader

_ASSIGNMENT_FIELDS = ("allowedAgents", "minimum", "target", "maximum", "maxParallel", "distinctBy")
_ASSIGNMENT_UNSUPPORTED = {
    "maxAttemptsPerAssignment": "is not executed by the hub (an attempt is one assignment; use maxAttempts)",
    "maxWriteRepositories": "is not executed by the hub (a step writes the repositories it declares write)",
}
_JOIN_FIELDS = ("strategy", "minimumPassed", "cancelRemaining")
_EVIDENCE_FIELDS = ("key", "kind", "minimum", "reusableAcrossAttempts", "producerPolicy")
_POLICY_FIELDS = ("minimumProducers", "eligibleAgents", "distinctBy", "acceptedStatuses", "degradation")
_POLICY_KINDS = (EvidenceKind.ASSIGNMENT_RESULT, EvidenceKind.REVIEW)


def read_agents(r: Reader, raw: object, at: str, *, required: bool) -> tuple[str, ...] | None:
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


def read_distinct_by(r: Reader, raw: object, at: str) -> tuple[Dimension, ...]:
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


def read_assignments(r: Reader, raw: object, at: str, kind: StepKind | None, agent: str | None) -> Assignments | None:
    """Assignments with §4.1's defaults: allowed ``[agent]``, target = minimum, maximum = target,
    maxParallel = maximum; and minimum ≤ target ≤ maximum, maxParallel ≤ maximum."""
    value = r.mapping(raw, at) or {}
    r.only(value, at, _ASSIGNMENT_FIELDS, _ASSIGNMENT_UNSUPPORTED)
    allowed = read_agents(r, value.get("allowedAgents"), f"{at}.allowedAgents", required=False)
    minimum = r.integer(value.get("minimum"), f"{at}.minimum", 1, MAX_ASSIGNMENTS)
    target = r.integer(value.get("target"), f"{at}.target", 1, MAX_ASSIGNMENTS)
    maximum = r.integer(value.get("maximum"), f"{at}.maximum", 1, MAX_ASSIGNMENTS)
    parallel = r.integer(value.get("maxParallel"), f"{at}.maxParallel", 1, MAX_ASSIGNMENTS)
    distinct_by = read_distinct_by(r, value.get("distinctBy"), f"{at}.distinctBy")
    if any(
        value.get(name) is not None and found is None
        for name, found in (("minimum", minimum), ("target", target), ("maximum", maximum), ("maxParallel", parallel))
    ):
        return None
    minimum = minimum or 1
    target = target or minimum
    if maximum is not None and maximum != target:
        # The hub fills exactly target places (a reassignment replaces a member, never adds one).
        r.problem(f"{at}.maximum", FIELD_UNSUPPORTED, f"must equal target ({target}) or be left out: no step runs more")
    maximum = target
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
    return Assignments(agents, minimum, target, maximum, parallel, distinct_by)


def read_join(r: Reader, raw: object, at: str, assignments: Assignments | None) -> Join | None:
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


def read_evidence(r: Reader, raw: object, at: str, assignments: Assignments | None) -> tuple[EvidenceRequirement, ...]:
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
        if minimum is not None and minimum != 1 and kind not in _POLICY_KINDS:
            r.problem(f"{field}.minimum", FIELD_UNSUPPORTED, "counts only results and reviews: leave it out here")
        reusable = r.boolean(value.get("reusableAcrossAttempts"), f"{field}.reusableAcrossAttempts")
        if reusable:
            r.problem(
                f"{field}.reusableAcrossAttempts",
                FIELD_UNSUPPORTED,
                "a step's evidence is its current attempt's: every attempt produces its own",
            )
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
    eligible = read_agents(r, value.get("eligibleAgents"), f"{at}.eligibleAgents", required=False)
    distinct_by = read_distinct_by(r, value.get("distinctBy"), f"{at}.distinctBy")
    statuses = value.get("acceptedStatuses")
    if statuses is not None and statuses != [ACCEPTED_STATUS]:
        r.problem(f"{at}.acceptedStatuses", "producer_policy_invalid", f'must be ["{ACCEPTED_STATUS}"]')
    degraded = None
    degradation = r.mapping(value.get("degradation"), f"{at}.degradation")
    if degradation is not None:
        r.problem(
            f"{at}.degradation",
            FIELD_UNSUPPORTED,
            "no operator approves a degraded quorum of a step run (that is ApproveDegradation of stage runs)",
        )
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
