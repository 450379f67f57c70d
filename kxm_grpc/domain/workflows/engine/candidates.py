"""Improvement candidates over step runs (§10 pin 24, ``kxm.candidate.v1``'s ``workflow-step`` kind).

Each settled agent or panel result of a step run is one record (from its ``assignment.completed``
event). Records group by (plan hash, step, role): the plan hash pins the step's instructions and
tools, so it stands for the original's (workflow hash, prompt hash). Within a run, a retry of the
step supersedes the earlier result (the run counts once, with its last result); the earlier ones
count as rework. A group is a candidate — work stable enough to turn into a skill or a cheaper
route — when it was decided in at least ``min_recurrence`` runs, passed in at least ``min_pass_rate``
of them, and the step writes no repository (exclusion ``writes-repository``; the others are
``too-few-runs`` and ``pass-rate-low``). Recency orders nothing here: a candidate is decided by
counts only, and groups are ordered candidates first, then by runs, then by key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

MIN_RECURRENCE = 3
MIN_PASS_RATE = 0.8
MAX_EVIDENCE_REFS = 10


@dataclass(frozen=True)
class StepRecord:
    """One settled result of a step run's agent or panel step."""

    run_id: str
    workflow_id: str
    plan_hash: str
    step_id: str
    role: str
    step_attempt: int
    sequence: int
    """The event's sequence in its run (orders a run's retries)."""
    passed: bool
    content_hash: str
    cost_usd: float | None
    duration_ms: int
    writes: bool
    """The step writes a repository."""


@dataclass(frozen=True)
class StepGroup:
    id: str
    """``cand_workflow-step_<step slug>_<10 hex>``, stable for the group's key."""
    workflow_id: str
    plan_hash: str
    step_id: str
    role: str
    runs: int
    pass_rate: float
    mean_cost_usd: float | None
    """Over the records that reported a cost (None: none did)."""
    mean_duration_ms: int
    rework: int
    """Results a later attempt of the same run superseded."""
    candidate: bool
    exclusion: str
    """Why not a candidate (empty for a candidate)."""
    evidence_refs: tuple[str, ...]
    """The content hashes of the runs' final results, newest run first, at most 10."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:16] or "step"


def group_records(
    records: Iterable[StepRecord], *, min_recurrence: int = MIN_RECURRENCE, min_pass_rate: float = MIN_PASS_RATE
) -> list[StepGroup]:
    """The groups of ``records`` (given newest run first), candidates first."""
    by_key: dict[tuple[str, str, str], list[StepRecord]] = {}
    for record in records:
        by_key.setdefault((record.plan_hash, record.step_id, record.role), []).append(record)
    groups = [_group(key, members, min_recurrence, min_pass_rate) for key, members in by_key.items()]
    return sorted(groups, key=lambda g: (not g.candidate, -g.runs, g.plan_hash, g.step_id, g.role))


def _group(
    key: tuple[str, str, str], members: list[StepRecord], min_recurrence: int, min_pass_rate: float
) -> StepGroup:
    final: dict[str, StepRecord] = {}
    for record in members:
        kept = final.get(record.run_id)
        if kept is None or (record.step_attempt, record.sequence) > (kept.step_attempt, kept.sequence):
            final[record.run_id] = record
    runs = len(final)
    pass_rate = sum(record.passed for record in final.values()) / runs
    costs = [record.cost_usd for record in members if record.cost_usd is not None]
    if members[0].writes:
        exclusion = "writes-repository"
    elif runs < min_recurrence:
        exclusion = "too-few-runs"
    elif pass_rate < min_pass_rate:
        exclusion = "pass-rate-low"
    else:
        exclusion = ""
    plan_hash, step_id, role = key
    digest = hashlib.sha256("\n".join(key).encode("utf-8")).hexdigest()[:10]
    return StepGroup(
        id=f"cand_workflow-step_{_slug(step_id)}_{digest}",
        workflow_id=members[0].workflow_id,
        plan_hash=plan_hash,
        step_id=step_id,
        role=role,
        runs=runs,
        pass_rate=pass_rate,
        mean_cost_usd=sum(costs) / len(costs) if costs else None,
        mean_duration_ms=sum(record.duration_ms for record in members) // len(members),
        rework=len(members) - runs,
        candidate=not exclusion,
        exclusion=exclusion,
        evidence_refs=tuple(record.content_hash for record in final.values())[:MAX_EVIDENCE_REFS],
    )
