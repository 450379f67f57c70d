"""An assignment's context (spec §5.13): the packet request for a step's agent, and the brief rendered
from the assignment and its packet (``kxm.assignment-packet.v1``).

The role is the one the agent's name implies (``role_for_agent``), the task the step's instructions
(else its id) cut to the request's 2,000 characters, the budget the smaller of the role's and 4,000
unless the agent asks for another. The brief follows the original's rendering: a header, the
objective, the acceptance criteria (one per evidence key), the plan pointer, and the environment,
where at most 5 of the project's own knowledge and evidence items are listed (the rest stay in the
packet; the gap ``assignment_context_render_deferred:<n>`` counts them). Every summary is rendered
on one line, so a summary cannot forge a heading of the brief. Where this differs from the
original (assembled when the agent asks, not at dispatch; a content-derived packet id; no second
packet format): docs/decisions.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from kxm_grpc.domain.context.arbiter import Outcome
from kxm_grpc.domain.context.items import SHARED_PROJECT, ContextItem
from kxm_grpc.domain.context.memory import MEMORY_DRIFT_GAP
from kxm_grpc.domain.context.policies import role_for_agent, role_policy
from kxm_grpc.domain.context.request import MAX_TASK_CHARS, ContextRequest
from kxm_grpc.domain.validation import clip, collapse_whitespace, js_trim
from kxm_grpc.domain.workflows.engine.state import Handoff

SCHEMA = "kxm.assignment-packet.v1"
MAX_DEFAULT_BUDGET_TOKENS = 4_000
"""An assignment's budget when the agent names none: the role's, but at most this (as dispatch)."""
RENDERED_PROJECT_ITEMS = 5
"""The project's own knowledge and evidence items the brief lists; the packet holds them all."""
MAX_RENDERED_SUMMARY_CHARS = 400
"""A summary's length in the brief (the packet holds it whole)."""
RENDERED_PRODUCERS = 8
"""The handoff's results the brief lists, the latest; the packet's handoff holds them all."""
RENDERED_ARTIFACTS = 8
"""A result's artifacts the brief lists."""
RENDER_DEFERRED_GAP = "assignment_context_render_deferred"
HANDOFF_DEFERRED_GAP = "assignment_context_handoff_deferred"
FAILED_GAP = "assignment_context_failed"


@dataclass(frozen=True, slots=True)
class AssignmentFacts:
    """What the brief and the packet request need of one assignment."""

    assignment_id: str
    project: str
    run_id: str
    step_id: str
    attempt: int
    agent_name: str
    instructions: str
    outcomes: tuple[str, ...]
    evidence_keys: tuple[str, ...]
    read_only: bool
    """The step's tool policy is the ``read-only`` preset."""
    step_number: int
    """The step's place in the plan, from 1."""
    step_count: int
    memory_revision: str = ""
    """The run's pinned memory revision (empty: its project's memory was never synced then)."""
    handoff: Handoff | None = None
    """What the step before this one handed over (None: the run's first step)."""
    reviewer: bool = False
    """The assignment reviews (its step requires review evidence)."""


def handoff_id(run_id: str, handoff: Handoff) -> str:
    """``hnd_`` and 16 hex digits derived from the run and the transition: the same handoff, the
    same id (the original's is random)."""
    key = "\0".join((run_id, handoff.from_step, str(handoff.from_attempt), handoff.to_step))
    return "hnd_" + hashlib.sha256(key.encode()).hexdigest()[:16]


def handoff_intent(facts: AssignmentFacts) -> str:
    """What the handoff asks of this assignment: ``request_review`` (it reviews), ``dispatch_fix``
    (its step runs again, so the producers say what to fix) or ``dispatch``."""
    if facts.reviewer:
        return "request_review"
    return "dispatch_fix" if facts.attempt > 1 else "dispatch"


def packet_role(facts: AssignmentFacts) -> str:
    """The role the assignment's packet is for: the one its agent's name implies."""
    return role_for_agent(facts.agent_name)


def packet_request(facts: AssignmentFacts, budget_tokens: int | None) -> ContextRequest:
    """The packet request for ``facts`` (``budget_tokens`` None: the role's budget, at most 4,000)."""
    role = packet_role(facts)
    budget = budget_tokens
    if budget is None:
        budget = min(role_policy(role).budget_tokens, MAX_DEFAULT_BUDGET_TOKENS)
    return ContextRequest(
        project=facts.project,
        role=role,
        task=clip(js_trim(facts.instructions) or facts.step_id, MAX_TASK_CHARS),
        workflow_run_id=facts.run_id,
        stage_id=facts.step_id,
        budget_tokens=budget,
    )


@dataclass(frozen=True, slots=True)
class Brief:
    """The rendered brief and what it leaves out."""

    text: str
    unresolved_gaps: tuple[str, ...]


def render_brief(facts: AssignmentFacts, role: str, packet_id: str, outcome: Outcome | None) -> Brief:
    """The brief of ``facts`` with ``outcome``'s packet (None: none could be assembled)."""
    permission = "read-only" if facts.read_only else "edit"
    lines = [
        f"# Assignment {facts.assignment_id}" + (f" · packet {packet_id}" if packet_id else ""),
        "",
        f"Project `{facts.project}` · role `{role}` · step `{facts.step_id}` attempt {facts.attempt}"
        f" · permission {permission} · outcomes: {', '.join(facts.outcomes) or 'none declared'}",
        "",
        "## 1. Objective",
        "",
        _line(js_trim(facts.instructions)) or f"Complete step `{facts.step_id}`.",
        "",
        "## 2. Acceptance criteria",
        "",
        *([f"- [ ] Provide evidence for `{key}`" for key in facts.evidence_keys] or ["- none declared"]),
        "",
        "## 3. Plan pointer",
        "",
        f"Step {facts.step_number} of {facts.step_count} (`{facts.step_id}`) of run `{facts.run_id}`.",
    ]
    predecessors, handoff_deferred = _predecessors(facts)
    lines += ["", "## 4. Predecessor outputs", "", *predecessors]
    gaps: list[str] = [f"{HANDOFF_DEFERRED_GAP}:{handoff_deferred}"] if handoff_deferred else []
    if outcome is None:
        gaps.append(FAILED_GAP)
        lines += ["", "## 5. Environment and memory", "", "No context could be assembled."]
    else:
        environment, deferred = _environment(outcome)
        if deferred:
            gaps.append(f"{RENDER_DEFERRED_GAP}:{deferred}")
        if MEMORY_DRIFT_GAP in outcome.packet.unresolved_gaps:
            gaps.append(MEMORY_DRIFT_GAP)
            environment.append(
                "Memory changed: the project's memory records were synced to another revision since this run"
                " was created; these are the current ones."
            )
        lines += ["", "## 5. Environment and memory", "", *(environment or ["No context items."])]
    return Brief("\n".join(lines) + "\n", tuple(gaps))


def _predecessors(facts: AssignmentFacts) -> tuple[list[str], int]:
    """The handoff's lines (where the run came from, then two lines per result, the latest
    ``RENDERED_PRODUCERS``), and how many results and artifacts they leave to the packet."""
    handoff = facts.handoff
    if handoff is None:
        return ["None: this is the run's first step."], 0
    lines = [
        f"Step `{handoff.from_step}` attempt {handoff.from_attempt} settled on `{handoff.outcome}`"
        f" ({handoff_intent(facts)})" + (f"; base commit `{handoff.base_commit}`." if handoff.base_commit else "."),
        "",
    ]
    shown = handoff.producers[-RENDERED_PRODUCERS:]
    deferred = len(handoff.producers) - len(shown)
    for producer in shown:
        verdict = "passed" if producer.passed else "not passed"
        counted = "counted" if producer.counted else f"not counted: {_line(producer.why) or 'unknown'}"
        details = [f"outcome `{producer.outcome}`", verdict, counted]
        if producer.blockers:
            details.append(f"{producer.blockers} blocker(s)")
        if producer.commit:
            details.append(f"commit `{producer.commit}`")
        artifacts = sorted(producer.artifacts.items())
        deferred += max(0, len(artifacts) - RENDERED_ARTIFACTS)
        details += [f"artifact `{_line(name)}` sha256 `{digest}`" for name, digest in artifacts[:RENDERED_ARTIFACTS]]
        where = f"step `{producer.step_id}` attempt {producer.step_attempt}"
        lines.append(f"- `{producer.agent}` ({producer.role.value}, {where}): {', '.join(details)}")
        if producer.summary:
            lines.append(f"  {_line(producer.summary)}")
    if not handoff.producers:
        lines.append("No results were returned (an approval or a signal decided).")
    return lines, deferred


def _environment(outcome: Outcome) -> tuple[list[str], int]:
    """The environment section's lines, and how many project items it left to the packet."""
    packet = outcome.packet
    rank = {item_id: position for position, item_id in reversed(list(enumerate(outcome.audit.selected_ids)))}
    general = sorted(
        (item for item in (*packet.knowledge, *packet.evidence) if item.project != SHARED_PROJECT),
        key=lambda item: rank.get(item.id, len(rank)),
    )
    shared = [item for item in (*packet.knowledge, *packet.evidence) if item.project == SHARED_PROJECT]
    lines: list[str] = []
    _section(lines, "Open contradictions", packet.contradictions)
    _section(lines, "Shared defaults", sorted(shared, key=lambda item: rank.get(item.id, len(rank))))
    _section(lines, "Project knowledge and evidence", general[:RENDERED_PROJECT_ITEMS])
    _section(lines, "Current state", packet.current_state)
    _section(lines, "Active skills", packet.skills)
    return lines, max(0, len(general) - RENDERED_PROJECT_ITEMS)


def _section(lines: list[str], title: str, items: Iterable[ContextItem]) -> None:
    rendered = [f"- [{item.authority.value}] {_line(item.summary)} (`{item.id}`)" for item in items]
    if rendered:
        lines += [f"### {title}", "", *rendered, ""]


def _line(text: str) -> str:
    return clip(collapse_whitespace(text), MAX_RENDERED_SUMMARY_CHARS)
