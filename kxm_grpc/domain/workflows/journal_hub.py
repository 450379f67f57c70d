"""Hub-authored journal entries (spec §3.4): what the hub decided about a run, in its words.

A step of a run (``checkpoints``, ``waits``) returns ``RunEvent`` records; ``hub_entries`` turns
them into the entries the spec's table prescribes, authored ``hub``, for the service to append in
the step's own transaction. An operator's degradation approval is not a step: ``approval_entry``
journals it. The table, by event:

    event                    category / severity       area: the stage's, else    evidence (besides the event's)
    checkpoint_not_passed    error / warning or error  workflow (signal: gates)   "key: value" of the reported evidence
    degraded_pass            decision / warning        security
    transition               state-change / info       workflow
    budget_exhausted         error / error             workflow
    wait_expired             error / error             harness
    failed (prompt_expired)  error / error             harness, always
    failed (early_reply)     error / error             workflow, always
    attempts_exhausted       state-change / error      workflow                   class:attempts_exhausted
    escalated                decision / warning        workflow                   class:audit_escalation, by:<who>
    ruled                    decision / info           workflow                   class:audit_ruling
    cancelled                state-change / warning    workflow                   class:run_cancelled
    (an approval)            decision / warning        security                   class:workflow_quorum_degradation_
                                                                                  approved, approval:, policy-min:,
                                                                                  approved-min:, requirement:, by:

The events' own evidence is the spec's (``class:transition_budget_exhausted``, ``stage:<id>``,
``requirement:<key>``, ``wait-created:``/``wait-expired:``, ``message:<id>``…).

The rows from attempts_exhausted to cancelled are this hub's additions (decisions the journal would not show
otherwise); waiting, completed and the other failures are not journaled (the coordinator
records its plans, the run says it ended, and a failure after exhausted attempts, a spent
budget or an expired wait has that entry already).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kxm_grpc.domain import validation
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import DegradationApproval
from kxm_grpc.domain.workflows.journal import (
    ENTRY_ID_PREFIX,
    HUB_AUTHOR,
    MAX_DETAILS_CHARS,
    MAX_EVIDENCE,
    MAX_EVIDENCE_CHARS,
    MAX_SUMMARY_CHARS,
    Category,
    JournalEntry,
    Severity,
)
from kxm_grpc.domain.workflows.outcomes import EventKind, NewId, RunEvent
from kxm_grpc.domain.workflows.runs import Run, journal_attempt


@dataclass(frozen=True)
class _Rule:
    """How a step's event becomes a hub entry (spec §3.4's table)."""

    category: Category
    severity: Severity
    area: str
    """The default area, used when the event's stage declares none."""
    fixed_area: bool = False
    """The area is the rule's even for a stage that declares one (prompt expiry, early reply)."""
    evidence: tuple[str, ...] = ()
    """Evidence strings put before the event's own."""


_WORKFLOW, _GATES, _SECURITY, _HARNESS = "workflow", "gates", "security", "harness"

_RULES: Mapping[str, _Rule] = {
    # Severity is the checkpoint's status (warning or error), read from the event's evidence.
    EventKind.CHECKPOINT_NOT_PASSED: _Rule(Category.ERROR, Severity.ERROR, _WORKFLOW),
    EventKind.DEGRADED_PASS: _Rule(Category.DECISION, Severity.WARNING, _SECURITY),
    EventKind.TRANSITION: _Rule(Category.STATE_CHANGE, Severity.INFO, _WORKFLOW),
    EventKind.BUDGET_EXHAUSTED: _Rule(Category.ERROR, Severity.ERROR, _WORKFLOW),
    EventKind.WAIT_EXPIRED: _Rule(Category.ERROR, Severity.ERROR, _HARNESS),
    # Not in the spec's table: hub and operator decisions the journal would otherwise not show.
    # Categories outside the ranked ones (error, contradiction, lesson, skill-candidate), so the
    # failure each follows is not counted twice in the signals.
    EventKind.ATTEMPTS_EXHAUSTED: _Rule(
        Category.STATE_CHANGE, Severity.ERROR, _WORKFLOW, evidence=("class:attempts_exhausted",)
    ),
    EventKind.ESCALATED: _Rule(Category.DECISION, Severity.WARNING, _WORKFLOW, evidence=("class:audit_escalation",)),
    EventKind.RULED: _Rule(Category.DECISION, Severity.INFO, _WORKFLOW, evidence=("class:audit_ruling",)),
    EventKind.CANCELLED: _Rule(Category.STATE_CHANGE, Severity.WARNING, _WORKFLOW, evidence=("class:run_cancelled",)),
}

# A failure ends the run with a FAILED event; only the two failures that no other event of the
# step explains are journaled (after attempts, budget or wait expiry their own entry says why).
_FAILURES: Mapping[str, _Rule] = {
    "class:prompt_expired": _Rule(Category.ERROR, Severity.ERROR, _HARNESS, fixed_area=True),
    "class:early_reply": _Rule(Category.ERROR, Severity.ERROR, _WORKFLOW, fixed_area=True),
}


def hub_entries(
    run: Run,
    definition: WorkflowDefinition,
    events: Iterable[RunEvent],
    *,
    via_signal: bool = False,
    reported: Mapping[str, tuple[str, ...]] | None = None,
    now: int,
    new_id: NewId,
) -> tuple[JournalEntry, ...]:
    """The hub-authored entries of a step's events (spec §3.4), in the events' order.

    ``run`` is the run after the step, ``definition`` its pinned definition. ``via_signal``: the
    step applied a signal or a ruling (a checkpoint that did not pass defaults to area ``gates``,
    not ``workflow``). ``reported``: the checkpoint's or signal's evidence, journaled on a
    checkpoint that did not pass as ``key: value`` strings. Waiting and completion are not
    journaled (the coordinator records its plans; the run says it ended). Texts over an entry's
    limits are clipped (the summary's whole text goes to the details): a hub entry never refuses
    the step it records.
    """
    entries: list[JournalEntry] = []
    for event in events:
        rule = _rule(event, via_signal)
        if rule is None:
            continue
        extra: tuple[str, ...] = ()
        severity = rule.severity
        if event.kind == EventKind.CHECKPOINT_NOT_PASSED:
            severity = Severity.WARNING if "status:warning" in event.evidence else Severity.ERROR
            extra = tuple(f"{key}: {value}" for key, values in (reported or {}).items() for value in values)
        elif event.kind == EventKind.ESCALATED:
            escalation = _escalation_by(run, event.stage_id)
            extra = (f"by:{escalation}",) if escalation else ()
        entries.append(
            _hub_entry(
                run,
                definition,
                rule,
                severity,
                event.stage_id,
                event.attempt,
                event.summary,
                (*rule.evidence, *event.evidence, *extra),
                now=now,
                new_id=new_id,
            )
        )
    return tuple(entries)


def approval_entry(
    run: Run, definition: WorkflowDefinition, approval: DegradationApproval, *, now: int, new_id: NewId
) -> JournalEntry:
    """The hub's entry for an operator's degradation approval (spec §3.4: a warning decision)."""
    rule = _Rule(Category.DECISION, Severity.WARNING, _SECURITY)
    summary = (
        f"degraded quorum approved for {approval.requirement_key} on stage {approval.stage_id} "
        f"({approval.approved_min_producers} of {approval.policy_min_producers} producers): {approval.reason}"
    )
    evidence = (
        "class:workflow_quorum_degradation_approved",
        f"approval:{approval.id}",
        f"policy-min:{approval.policy_min_producers}",
        f"approved-min:{approval.approved_min_producers}",
        f"requirement:{approval.requirement_key}",
        f"by:{approval.approved_by}",
    )
    return _hub_entry(
        run,
        definition,
        rule,
        rule.severity,
        approval.stage_id,
        approval.attempt,
        summary,
        evidence,
        now=now,
        new_id=new_id,
    )


def _rule(event: RunEvent, via_signal: bool) -> _Rule | None:
    if event.kind == EventKind.FAILED:
        return next((_FAILURES[text] for text in event.evidence if text in _FAILURES), None)
    rule = _RULES.get(event.kind)
    if rule is not None and via_signal and event.kind == EventKind.CHECKPOINT_NOT_PASSED:
        return _Rule(rule.category, rule.severity, _GATES)
    return rule


def _escalation_by(run: Run, stage_id: str | None) -> str | None:
    stage = run.stage(stage_id) if stage_id else None
    return stage.escalation.escalated_by if stage is not None and stage.escalation is not None else None


def _hub_entry(
    run: Run,
    definition: WorkflowDefinition,
    rule: _Rule,
    severity: Severity,
    stage_id: str | None,
    attempt: int | None,
    summary: str,
    evidence: tuple[str, ...],
    *,
    now: int,
    new_id: NewId,
) -> JournalEntry:
    stage = run.stage(stage_id) if stage_id else None
    spec = definition.stage(stage_id) if stage_id else None
    area = rule.area if rule.fixed_area or spec is None or spec.area is None else spec.area
    if attempt is None and stage is not None:
        attempt = journal_attempt(stage)  # a failure names no attempt: the one the stage was at
    text = validation.js_trim(summary) or "(no summary)"
    clipped = validation.clip(text, MAX_SUMMARY_CHARS)
    kept = [validation.clip(value, MAX_EVIDENCE_CHARS) for value in evidence if validation.js_trim(value)]
    return JournalEntry(
        id=new_id(ENTRY_ID_PREFIX),
        run_id=run.id,
        author=HUB_AUTHOR,
        category=rule.category,
        area=area,
        severity=severity,
        summary=clipped,
        create_time=now,
        details=validation.clip(text, MAX_DETAILS_CHARS) if clipped != text else "",
        evidence=tuple(kept[:MAX_EVIDENCE]),
        stage_id=stage_id if stage is not None else None,
        attempt=attempt if stage is not None else None,
    )
