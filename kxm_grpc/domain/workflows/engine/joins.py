"""Joins: how a step's members become its outcome (workflow-context.md §4.4, seed 000 pattern B).

- ``all``: every member settles with one outcome, which is the step's (members that disagree end
  the run: ``join_conflict``);
- ``all-settled``: every member settles; ``passed`` when at least ``minimumPassed`` (else
  ``minimum``) passed, else the first other outcome reached that often, else ``quorum-not-met``;
- ``quorum``: ``passed`` as soon as ``minimumPassed`` passing members from producers distinct by
  ``assignments.distinctBy`` are in, ``quorum-not-met`` as soon as the open members can no longer
  bring it there; ``cancelRemaining`` cancels the members still open then;
- ``first-success``: ``passed`` at the first passing member (with ``cancelRemaining`` the others
  are cancelled then; without, the step waits for them and their results are recorded), else the
  first member's failure once all failed.

A review with blockers never passes (its member's ``passed`` is False). Beyond the original, which
validated ``distinctBy`` but never enforced it (§11.10): passing members whose declared providers
(or models) coincide count once, and a producer policy on the step's evidence
(``minimumProducers`` eligible producers distinct by its ``distinctBy``) must hold too for
``passed``. The decision says which producers counted and why the others did not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kxm_grpc.domain.workflows import diversity
from kxm_grpc.domain.workflows.engine.state import Member, MemberStatus
from kxm_grpc.domain.workflows.plans.model import (
    AgentDeclaration,
    Dimension,
    EvidenceKind,
    JoinStrategy,
    Step,
    StepWorkflow,
)

PASSED = "passed"
QUORUM_NOT_MET = "quorum-not-met"
JOIN_CONFLICT = "join_conflict"


@dataclass(frozen=True)
class Counted:
    """A settled member as the join saw it."""

    member_id: str
    agent: str
    counted: bool
    why: str
    """``counted``, or why not: ``not passed``, ``same provider as <agent>``, ``not an eligible producer``…"""


@dataclass(frozen=True)
class Decision:
    """A join's verdict: the step's outcome, or (``conflict``) the run ends."""

    outcome: str
    counted: tuple[Counted, ...] = ()
    conflict: bool = False
    """``all`` members disagreed: the run fails with ``join_conflict``."""
    cancel_open: bool = True
    """Whether members still open are cancelled (always, but for ``first-success`` without ``cancelRemaining``)."""


def live(members: Sequence[Member]) -> list[Member]:
    """The member holding each place: the latest one born for it (superseded members are replaced)."""
    latest: dict[int, Member] = {}
    for member in members:
        latest[member.index] = member
    return [latest[index] for index in sorted(latest)]


def decide(step: Step, members: Sequence[Member], plan: StepWorkflow) -> Decision | None:
    """The step's outcome once its join can tell, else None (more results are awaited).

    ``members`` are the current attempt's, possibly fewer places than ``assignments.target``
    (``maxParallel``, agents offline): ``all`` and ``all-settled`` wait for every place, a quorum
    counts the places left as possible passes, ``first-success`` waits while any place is left.
    """
    places = live(members)
    settled = [member for member in places if not member.status.open]
    open_members = [member for member in places if member.status.open]
    strategy = step.join.strategy
    if strategy is JoinStrategy.QUORUM:
        unfilled = max(0, step.assignments.target - len(places))
        return _quorum(step, settled, open_members, plan.agents, unfilled)
    if strategy is JoinStrategy.FIRST_SUCCESS:
        return _first_success(step, settled, open_members, plan.agents)
    if open_members or len(places) < step.assignments.target:
        return None
    outcomes = [_outcome(member) for member in settled]
    if strategy is JoinStrategy.ALL:
        if len(set(outcomes)) != 1:
            return Decision(JOIN_CONFLICT, _explain(settled, set(), "disagrees"), conflict=True)
        return _policy(step, outcomes[0], settled, plan.agents)
    threshold = step.join.minimum_passed or step.assignments.minimum
    if outcomes.count(PASSED) >= threshold:
        return _policy(step, PASSED, settled, plan.agents)
    for outcome in outcomes:
        if outcome != PASSED and outcomes.count(outcome) >= threshold:
            return Decision(outcome, _explain(settled, set(), "not passed"))
    return Decision(QUORUM_NOT_MET, _explain(settled, set(), "not passed"))


def _outcome(member: Member) -> str:
    result = member.result
    return result.outcome if result is not None else "failed"


def _passed(member: Member) -> bool:
    return member.status is MemberStatus.COMPLETED and member.result is not None and member.result.passed


def _quorum(
    step: Step,
    settled: list[Member],
    open_members: list[Member],
    agents: Mapping[str, AgentDeclaration],
    unfilled: int = 0,
) -> Decision | None:
    """``unfilled``: places not dispatched yet (``maxParallel``, agents offline), each counted as a
    producer that may still pass and be distinct: a quorum is never given up while places remain."""
    needed = step.join.minimum_passed or step.assignments.minimum
    dimensions = step.assignments.distinct_by
    passing = [member for member in settled if _passed(member)]
    counted = _distinct(passing, dimensions, agents)
    if len(counted) >= needed:
        decision = _policy(step, PASSED, settled, agents, counted={m.id for m in counted})
        if decision.outcome == PASSED or not open_members:
            return decision
    # Could the open members and the places still to fill reach it? Count as if every one passed.
    hopeful = _distinct(passing + open_members, dimensions, agents)
    if len(hopeful) + unfilled >= needed and (open_members or unfilled):
        return None
    return Decision(
        QUORUM_NOT_MET, _explain(settled, {m.id for m in counted}, "not passed", passing, agents, dimensions)
    )


def _first_success(
    step: Step, settled: list[Member], open_members: list[Member], agents: Mapping[str, AgentDeclaration]
) -> Decision | None:
    passing = [member for member in settled if _passed(member)]
    if passing and (step.join.cancel_remaining or not open_members):
        return _policy(step, PASSED, settled, agents, counted={passing[0].id})
    if open_members or (len(settled) < step.assignments.target and not passing):
        return None
    return Decision(_outcome(settled[0]), _explain(settled, set(), "not passed"))


def _distinct(
    members: list[Member], dimensions: tuple[Dimension, ...], agents: Mapping[str, AgentDeclaration]
) -> list[Member]:
    """A largest set of ``members`` pairwise distinct in ``dimensions`` (by the operator's
    declarations), earlier members preferred: the members that count, in order. One member per
    agent; a member whose agent does not declare a listed dimension never counts."""
    chosen = _one_per_agent(members)
    if not dimensions:
        return chosen

    def count(subset: list[Member]) -> int:
        return diversity.distinct_count((_declaration(m, agents) for m in subset), dimensions)

    best = count(chosen)
    # Drop members (latest first) while the largest distinct set keeps its size: what remains is
    # one such set (count == len), the earliest members kept.
    for member in reversed(list(chosen)):
        if count(chosen) == len(chosen):
            break
        rest = [m for m in chosen if m.id != member.id]
        if count(rest) == best:
            chosen = rest
    return chosen


def _one_per_agent(members: list[Member]) -> list[Member]:
    seen: set[str] = set()
    unique: list[Member] = []
    for member in members:
        if member.agent not in seen:
            seen.add(member.agent)
            unique.append(member)
    return unique


def _declaration(member: Member, agents: Mapping[str, AgentDeclaration]) -> diversity.Declaration:
    declared = agents.get(member.agent)
    return (declared.provider, declared.model) if declared is not None else (None, None)


def _policy(
    step: Step,
    outcome: str,
    settled: list[Member],
    agents: Mapping[str, AgentDeclaration],
    *,
    counted: set[str] | None = None,
) -> Decision:
    """``outcome``, unless it is ``passed`` and a producer policy of the step's evidence is not
    met: then ``quorum-not-met`` (the producers that counted are named either way)."""
    passing = [member for member in settled if _passed(member)]
    ids = counted if counted is not None else {member.id for member in passing}
    if outcome != PASSED:
        return Decision(outcome, _explain(settled, ids, "not passed"))
    for requirement in step.required_evidence:
        if requirement.kind not in (EvidenceKind.ASSIGNMENT_RESULT, EvidenceKind.REVIEW):
            continue
        if len(passing) < requirement.minimum:  # ``minimum``: passing results or reviews, of anyone
            return Decision(QUORUM_NOT_MET, _explain(settled, ids, "not passed"))
        policy = requirement.producer_policy
        if policy is None:
            continue
        eligible = [member for member in passing if member.agent in policy.eligible_agents]
        distinct = _distinct(eligible, policy.distinct_by, agents)
        if len(distinct) < policy.minimum_producers:
            return Decision(
                QUORUM_NOT_MET,
                _explain(settled, {m.id for m in distinct}, "not passed", passing, agents, policy.distinct_by),
            )
    return Decision(PASSED, _explain(settled, ids, "not passed"))


def _explain(
    settled: list[Member],
    counted: set[str],
    otherwise: str,
    passing: list[Member] | None = None,
    agents: Mapping[str, AgentDeclaration] | None = None,
    dimensions: tuple[Dimension, ...] = (),
) -> tuple[Counted, ...]:
    """Each settled member, counted or with why not."""
    explained: list[Counted] = []
    passing_ids = {member.id for member in passing or ()}
    counted_members = [member for member in settled if member.id in counted]
    for member in settled:
        if member.id in counted:
            explained.append(Counted(member.id, member.agent, True, "counted"))
            continue
        why = otherwise
        if member.id in passing_ids and agents is not None:
            why = _why_not(member, counted_members, agents, dimensions)
        elif member.status is not MemberStatus.COMPLETED:
            why = member.status.value
        elif member.result is not None and member.result.blockers:
            why = f"{member.result.blockers} blocker(s)"
        explained.append(Counted(member.id, member.agent, False, why))
    return tuple(explained)


def _why_not(
    member: Member, counted: list[Member], agents: Mapping[str, AgentDeclaration], dimensions: tuple[Dimension, ...]
) -> str:
    mine = _declaration(member, agents)
    for dimension in dimensions:
        value = diversity.declared(mine, dimension)
        if value is None:
            return f"{member.agent} declares no {dimension.value}"
        for other in counted:
            if diversity.declared(_declaration(other, agents), dimension) == value:
                return f"same {dimension.value} as {other.agent}"
    if any(other.agent == member.agent for other in counted):
        return f"{member.agent} counted already"
    return "not an eligible producer"
