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

from collections.abc import Iterable
from dataclasses import dataclass

from kxm_grpc.domain.context.arbiter import Outcome
from kxm_grpc.domain.context.items import SHARED_PROJECT, ContextItem
from kxm_grpc.domain.context.memory import MEMORY_DRIFT_GAP
from kxm_grpc.domain.context.policies import role_for_agent, role_policy
from kxm_grpc.domain.context.request import MAX_TASK_CHARS, ContextRequest
from kxm_grpc.domain.validation import clip, collapse_whitespace, js_trim

SCHEMA = "kxm.assignment-packet.v1"
MAX_DEFAULT_BUDGET_TOKENS = 4_000
"""An assignment's budget when the agent names none: the role's, but at most this (as dispatch)."""
RENDERED_PROJECT_ITEMS = 5
"""The project's own knowledge and evidence items the brief lists; the packet holds them all."""
MAX_RENDERED_SUMMARY_CHARS = 400
"""A summary's length in the brief (the packet holds it whole)."""
RENDER_DEFERRED_GAP = "assignment_context_render_deferred"
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
    gaps: list[str] = []
    if outcome is None:
        gaps.append(FAILED_GAP)
        lines += ["", "## 4. Environment and memory", "", "No context could be assembled."]
    else:
        environment, deferred = _environment(outcome)
        if deferred:
            gaps.append(f"{RENDER_DEFERRED_GAP}:{deferred}")
        if MEMORY_DRIFT_GAP in outcome.packet.unresolved_gaps:
            gaps.append(MEMORY_DRIFT_GAP)
            environment.append(
                "Memory records withheld: the project's memory was synced to another revision since this run"
                " was created."
            )
        lines += ["", "## 4. Environment and memory", "", *(environment or ["No context items."])]
    return Brief("\n".join(lines) + "\n", tuple(gaps))


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
