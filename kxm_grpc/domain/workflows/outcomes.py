"""What a step of a run returns: the new run, what it means for the coordinator, what to journal.

Every rule of ``checkpoints``, ``waits`` and ``approvals`` returns a ``Step``: the new run (the
argument is never changed), the flags a coordinator acts on, the instruction it is told, and the
``RunEvent`` records the hub journals and notifies (``kxm_grpc.services.workflows.events``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kxm_grpc.domain.workflows.runs import (
    Run,
    Transition,
)

NewId = Callable[[str], str]

RETRY_INSTRUCTION = "Correct the stage and checkpoint it again."

COMPLETED_INSTRUCTION = "The workflow run is completed."

FAILED_INSTRUCTION = "The workflow run failed; stop working on it."

WAIT_INSTRUCTION = "The run waits for signal {key}; you may settle your turn: a resume prompt will follow."

ESCALATION_INSTRUCTION = "The stage is escalated for audit; an operator's ruling resumes it."


class EventKind:
    """What a step reports for the journal and the outbound notifications (plain strings)."""

    CHECKPOINT_NOT_PASSED = "checkpoint_not_passed"
    TRANSITION = "transition"
    BUDGET_EXHAUSTED = "budget_exhausted"
    ATTEMPTS_EXHAUSTED = "attempts_exhausted"
    ESCALATED = "escalated"
    RULED = "ruled"
    DEGRADED_PASS = "degraded_pass"
    WAITING = "waiting"
    WAIT_EXPIRED = "wait_expired"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class RunEvent:
    kind: str
    stage_id: str | None
    attempt: int | None
    summary: str
    evidence: tuple[str, ...] = ()
    """Short ``class:value`` strings (never bodies) naming what the event is about."""


@dataclass(frozen=True)
class Step:
    """A step's result: the new run, what it means for the coordinator, and what to journal."""

    run: Run
    retry: bool = False
    completed: bool = False
    exhausted: bool = False
    escalated: bool = False
    transition: Transition | None = None
    degraded_requirements: tuple[str, ...] = ()
    instruction: str = ""
    events: tuple[RunEvent, ...] = ()


def with_events(step: Step, before: list[RunEvent], *, degraded: tuple[str, ...] = ()) -> Step:
    return Step(
        step.run,
        retry=step.retry,
        completed=step.completed,
        exhausted=step.exhausted,
        escalated=step.escalated,
        transition=step.transition,
        degraded_requirements=degraded or step.degraded_requirements,
        instruction=step.instruction,
        events=(*before, *step.events),
    )
