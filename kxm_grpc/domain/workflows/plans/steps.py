"""Reading one step of a ``kxm.workflow.v1`` document (workflow-context.md §4.1): its kind and the
fields each kind may carry, repositories, tool policy and typed transitions. Who produces a step's
outcome (assignments, join, required evidence) is read by ``assignments``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kxm_grpc.domain import tool_policy
from kxm_grpc.domain.workflows.plans import gates
from kxm_grpc.domain.workflows.plans.assignments import read_assignments, read_evidence, read_join
from kxm_grpc.domain.workflows.plans.model import (
    MAX_ATTEMPTS,
    MAX_DESCRIPTION_CHARS,
    MAX_DURATION_MS,
    MAX_EDGE_TRANSITIONS,
    MAX_INSTRUCTIONS_CHARS,
    MAX_NAME_CHARS,
    MAX_ON,
    MAX_REPOSITORIES,
    MAX_STEP_ID_CHARS,
    MAX_TOOLS,
    READ_ONLY,
    STEP_ID,
    STEP_ID_DUPLICATE,
    STEP_ID_INVALID,
    TERMINAL,
    Access,
    EvidenceKind,
    EvidenceRequirement,
    GateExpect,
    Join,
    Step,
    StepKind,
    TerminalStatus,
    ToolPolicy,
    Transition,
)
from kxm_grpc.domain.workflows.plans.reader import COUNT_INVALID, FIELD_TYPE_INVALID, Reader, path
from kxm_grpc.errors import InvalidArgument

_STEP_FIELDS = (
    "id",
    "kind",
    "description",
    "instructions",
    "agent",
    "gate",
    "command",
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
}
_TRANSITION_FIELDS = ("target", "maxTransitions", "backEdgeBudget", "terminalStatus")
_TOOL_FIELDS = ("preset", "allow", "deny")
_TOOL_NAME = re.compile(r"\*|[a-z][a-z0-9_]*\*?")
_AGENT_KINDS = (StepKind.AGENT, StepKind.MOA)


_EVIDENCE_BY_KIND = {
    StepKind.AGENT: (EvidenceKind.ASSIGNMENT_RESULT, EvidenceKind.REVIEW, EvidenceKind.ARTIFACT, EvidenceKind.RECEIPT),
    StepKind.MOA: (EvidenceKind.ASSIGNMENT_RESULT, EvidenceKind.REVIEW, EvidenceKind.ARTIFACT, EvidenceKind.RECEIPT),
    StepKind.GATE: (EvidenceKind.GATE,),
    StepKind.APPROVAL: (EvidenceKind.APPROVAL,),
    StepKind.WAIT: (),
}
"""The evidence each kind of step can produce (and so be required to): whatever a definition may
require is checked when the step settles (§11.20), so what no step of that kind can produce is
refused here, not left unmet later."""


def _evidence_fits(r: Reader, kind: StepKind, evidence: tuple[EvidenceRequirement, ...], at: str) -> None:
    for index, requirement in enumerate(evidence):
        if requirement.kind not in _EVIDENCE_BY_KIND[kind]:
            allowed = ", ".join(k.value for k in _EVIDENCE_BY_KIND[kind]) or "none"
            r.problem(
                f"{at}[{index}].kind",
                "evidence_kind_invalid",
                f"a {kind.value} step cannot produce {requirement.kind.value} evidence (it can: {allowed})",
            )


def read_step(r: Reader, raw: object, at: str, first: dict[str, int], index: int) -> Step | None:
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
    transitions = read_transitions(r, value.get("on"), f"{at}.on")

    expect: GateExpect | None = None
    command = None
    if kind is not None:
        _kind_fields(r, kind, value, at, agent=agent, gate=gate, signal=signal)
        if kind is StepKind.GATE:
            expect = GateExpect(expect_text) if expect_text is not None else GateExpect.PASS
            if value.get("command") is not None and step_id is not None:
                command = gates.inline_gate(r, step_id, value.get("command"), timeout_ms, f"{at}.command")
    assignments = read_assignments(r, value.get("assignments"), f"{at}.assignments", kind, agent)
    join = read_join(r, value.get("join"), f"{at}.join", assignments)
    evidence = read_evidence(r, value.get("requiredEvidence"), f"{at}.requiredEvidence", assignments)
    if kind is not None:
        _evidence_fits(r, kind, evidence, f"{at}.requiredEvidence")

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
        command=command,
        expect=expect,
        signal=signal,
        model=model,
        max_attempts=max_attempts or 0,  # 0: not declared (the loader fills the default)
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
    if kind is StepKind.GATE:
        named = [name for name in ("gate", "command") if value.get(name) is not None]
        if not named:
            r.problem(f"{at}.gate", "step_gate_missing", "a gate step names a registry gate (gate) or a command")
        elif len(named) == 2:
            r.problem(f"{at}.command", "step_gate_ambiguous", "give either gate (a registry id) or command, not both")
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
        "command": (StepKind.GATE,),
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
    try:
        # The hub's own rules for a policy it signs into attempt tokens: entries canonical
        # (``send`` is ``kxm_send``), so what the plan pins is what admission evaluates.
        canonical = tool_policy.make_policy(preset=preset or "", allow=lists["allow"], deny=lists["deny"], field=at)
    except InvalidArgument as error:
        r.problem(at, "tool_policy_invalid", error.message)
        return None
    return ToolPolicy(preset, tuple(sorted(canonical.allow)), tuple(sorted(canonical.deny)))


def read_transitions(r: Reader, raw: object, at: str) -> dict[str, Transition]:
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
