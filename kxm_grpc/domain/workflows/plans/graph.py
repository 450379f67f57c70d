"""The graph and outcome rules of workflow-context.md §4.1, run on a loaded workflow.

- every step is reachable from the entry (``step_unreachable``);
- every reachable step can reach a ``$terminal`` transition (``step_cannot_terminate``);
- no path to a ``completed`` terminal avoids a ``gate`` or ``approval`` step (``required_step_bypass``):
  each such step lies on every path from the entry to ``completed``;
- a gate declares exactly the outcomes it can produce: ``passed`` and ``implementation-failure``
  (or ``failed``) for ``expect: pass``, ``passed`` and ``repro-missing`` (``implementation-failure``
  / ``failed`` allowed) for ``expect: fail`` (``gate_outcome_renamed``, ``gate_outcome_impossible``,
  ``gate_outcome_undeclared``);
- a quorum join declares ``passed`` and ``quorum-not-met`` (``join_outcome_undeclared``), the two
  outcomes it derives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kxm_grpc.domain.workflows.plans.model import (
    TERMINAL,
    GateExpect,
    JoinStrategy,
    Step,
    StepKind,
    StepWorkflow,
    TerminalStatus,
)
from kxm_grpc.domain.workflows.plans.reader import Reader, path

QUORUM_NOT_MET = "quorum-not-met"
PASSED = "passed"
_GATE_OUTCOMES = {
    GateExpect.PASS: ({PASSED, "implementation-failure", "failed"}, ({PASSED}, {"implementation-failure", "failed"})),
    GateExpect.FAIL: (
        {PASSED, "repro-missing", "implementation-failure", "failed"},
        ({PASSED}, {"repro-missing"}),
    ),
}
_RENAMED = {"implementation_failure": "implementation-failure", "repro_missing": "repro-missing"}


def check(r: Reader, workflow: StepWorkflow) -> None:
    """Record every graph and outcome problem of ``workflow`` (whose steps and targets are valid)."""
    steps = workflow.steps
    index = {step.id: position for position, step in enumerate(steps)}
    for position, step in enumerate(steps):
        r.step_id = step.id
        _outcomes(r, step, position)
    r.step_id = None

    reachable = _reach(steps[0].id, lambda step_id: _targets(steps[index[step_id]]))
    terminating = _terminating(steps)
    for position, step in enumerate(steps):
        r.step_id = step.id
        if step.id not in reachable:
            r.problem(
                f"steps[{position}]",
                "step_unreachable",
                f"no transition from the entry {steps[0].id} reaches {step.id}",
            )
        elif step.id not in terminating:
            r.problem(
                f"steps[{position}].on",
                "step_cannot_terminate",
                f"no path from {step.id} reaches a $terminal transition",
            )
    r.step_id = None

    for position, required in enumerate(steps):
        if required.kind not in (StepKind.GATE, StepKind.APPROVAL) or required.id not in reachable or position == 0:
            continue
        # Without ``required``: can the entry still reach a transition to ``completed``?
        around = _reach(steps[0].id, _avoiding(steps, index, required.id))
        for source in steps:
            if source.id not in around or source.id == required.id:
                continue
            for transition in source.transitions.values():
                if transition.terminal_status is TerminalStatus.COMPLETED:
                    r.step_id = source.id
                    r.problem(
                        path(f"steps[{index[source.id]}].on", transition.outcome),
                        "required_step_bypass",
                        f"completes the run on a path that bypasses the {required.kind.value} step {required.id}",
                        outcome=transition.outcome,
                    )
    r.step_id = None


def _avoiding(steps: tuple[Step, ...], index: dict[str, int], avoided: str) -> Callable[[str], list[str]]:
    """Successors of a step in the graph without the step ``avoided``."""

    def successors(step_id: str) -> list[str]:
        if step_id == avoided:
            return []
        return [target for target in _targets(steps[index[step_id]]) if target != avoided]

    return successors


def _targets(step: Step) -> list[str]:
    return [t.target for t in step.transitions.values() if t.target != TERMINAL]


def _reach(start: str, successors: Callable[[str], Iterable[str]]) -> set[str]:
    seen = {start}
    stack = [start]
    while stack:
        for following in successors(stack.pop()):
            if following not in seen:
                seen.add(following)
                stack.append(following)
    return seen


def _terminating(steps: Iterable[Step]) -> set[str]:
    """Steps from which some path takes a ``$terminal`` transition (a fixpoint over predecessors)."""
    steps = list(steps)
    done = {step.id for step in steps if any(t.target == TERMINAL for t in step.transitions.values())}
    changed = True
    while changed:
        changed = False
        for step in steps:
            if step.id not in done and any(t in done for t in _targets(step)):
                done.add(step.id)
                changed = True
    return done


def _outcomes(r: Reader, step: Step, position: int) -> None:
    at = f"steps[{position}].on"
    declared = set(step.transitions)
    if step.kind is StepKind.GATE:
        expect = step.expect or GateExpect.PASS
        possible, required = _GATE_OUTCOMES[expect]
        for outcome in step.transitions:
            if outcome in _RENAMED:
                r.problem(path(at, outcome), "gate_outcome_renamed", f"is spelled {_RENAMED[outcome]}", outcome=outcome)
            elif outcome not in possible:
                r.problem(
                    path(at, outcome),
                    "gate_outcome_impossible",
                    f"a gate with expect: {expect.value} produces only {', '.join(sorted(possible))}",
                    outcome=outcome,
                )
        for group in required:
            if not declared & group:
                r.problem(
                    at,
                    "gate_outcome_undeclared",
                    f"must declare {' or '.join(sorted(group))} (a gate with expect: {expect.value} produces it)",
                )
    if step.join.strategy is JoinStrategy.QUORUM:
        for outcome in (PASSED, QUORUM_NOT_MET):
            if outcome not in declared:
                r.problem(at, "join_outcome_undeclared", f"must declare {outcome} (a quorum join derives it)")
