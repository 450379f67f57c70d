"""Step runs: the hub-driven runs of ``kxm.workflow.v1`` plans, their event logs and their assignments.

A step run is stored as its snapshot (``StoredStepRun.snapshot``: the service's JSON of the
engine's ``StepRun``, which the store keeps without reading) beside the columns its lookups need.
Every change to a run appends its events to the run's log in the transaction that saves the new
snapshot: the log's sequence numbers are contiguous from 1 (``append_events`` refuses a gap or a
repeat), so the log is the run's history and the snapshot its fold, and a step reads one snapshot,
never the log (§11.17).

Each assignment the engine dispatches is also a row (``StoredAssignment``): the one way to find an
assignment by its id (``CompleteAssignment``), the open assignments of an agent (``NextAssignment``,
and the presence sweep that supersedes an offline agent's), and whether an attempt token is still
good (an assignment that is no longer open revokes its token).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class StepRunState(enum.Enum):
    """The run's status column (the snapshot's ``RunStatus``)."""

    QUEUED = "queued"
    RUNNING = "running"
    BLOCKED = "blocked"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def active(self) -> bool:
        """Counts against its project's ``maxConcurrentRuns``."""
        return self in (StepRunState.RUNNING, StepRunState.BLOCKED)

    @property
    def ended(self) -> bool:
        return self in (StepRunState.COMPLETED, StepRunState.FAILED, StepRunState.CANCELLED)


@dataclass(frozen=True, slots=True)
class StoredStepRun:
    """A step run: its identity, what it pinned, its status, and its snapshot."""

    id: str
    """``run_`` + 32 hex, unique among every run (stage runs included)."""
    project: str
    definition_id: str
    plan_hash: str
    """The compiled plan it pinned (``sha256:`` + hex): the definition version it runs."""
    status: StepRunState
    create_time: int
    update_time: int
    end_time: int | None
    sequence: int
    """Its log's last sequence number (0: no event yet)."""
    snapshot: str
    """The service's JSON of the run's state; opaque to the store."""
    start_request_id: str = ""
    """The start's idempotency key (empty: none): a start retried with it returns this run."""


class AssignmentState(enum.Enum):
    OPEN = "open"
    COMPLETED = "completed"
    EXPIRED = "expired"
    SUPERSEDED = "superseded"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class StoredAssignment:
    """One assignment of a step run: who holds it and whether it is open."""

    id: str
    """``asg_`` + 32 hex."""
    run_id: str
    project: str
    step_id: str
    step_attempt: int
    agent_id: str
    state: AssignmentState
    create_time: int
    deadline: int | None
    """When it expires (clock microseconds), or None."""
    message_id: str
    """The inbox message that carried its ``AssignmentRequest`` to the agent."""
    end_time: int | None = None
    result: str = ""
    """The result the assignee returned, as the service encoded it (empty until completed): a
    completion retried with the same result is answered with it, never applied twice."""


@dataclass(frozen=True, slots=True)
class StoredRunEvent:
    """One entry of a step run's log (``kxm.run-event.v1``)."""

    run_id: str
    sequence: int
    """1, 2, … per run, contiguous."""
    type: str
    """``run.created``, ``step.entered``, ``assignment.completed``, …"""
    payload: str
    """The event's JSON payload; opaque to the store."""
    event_time: int


class StepRunRepository(Protocol):
    """Step runs, their event logs and their assignments."""

    # -- runs ----------------------------------------------------------------------------------------

    def insert_run(self, run: StoredStepRun) -> None:
        """Store a new run.

        Raises:
            HubError: (the store's integrity error) a run with its id exists, or (a non-empty
                ``start_request_id``) the project has a run started with that key.
        """

    def save_run(self, run: StoredStepRun) -> None:
        """Replace the stored run's status, times, sequence and snapshot with ``run``'s.

        Raises:
            LookupError: no run with its id is stored.
            ValueError: ``run`` differs from the stored run in what never changes (project,
                definition, plan hash, create time, start request id).
        """

    def get_run(self, run_id: str) -> StoredStepRun | None:
        """The run (of any project), or None."""

    def run_by_request(self, project: str, start_request_id: str) -> StoredStepRun | None:
        """The project's run started with this idempotency key, or None."""

    def list_runs(
        self,
        *,
        project: str | None = None,
        status: StepRunState | None = None,
        definition_id: str | None = None,
        before: tuple[int, str] | None = None,
        limit: int,
    ) -> list[StoredStepRun]:
        """Runs matching every filter given, newest first by (create_time, id), strictly before ``before``."""

    def count_runs(self, project: str) -> int:
        """How many step runs the project has (every status)."""

    def count_active(self, project: str) -> int:
        """How many of the project's runs are running or blocked (admission)."""

    def oldest_queued(self, project: str, limit: int) -> list[StoredStepRun]:
        """The project's queued runs, oldest first by (create_time, id): the next to admit."""

    def purge_run(self, run_id: str) -> bool:
        """Delete the run, its log and its assignments; whether it existed."""

    # -- the log ---------------------------------------------------------------------------------------

    def append_events(self, events: Sequence[StoredRunEvent]) -> None:
        """Append events of one run, in order.

        Raises:
            ValueError: the events are of more than one run, or their sequences do not continue
                the run's log without a gap (the first must be the log's last + 1, each next + 1).
            HubError: (the store's integrity error) a sequence is taken (a concurrent writer).
        """

    def list_events(self, run_id: str, *, after: int = 0, limit: int) -> list[StoredRunEvent]:
        """The run's events with sequence > ``after``, in order, at most ``limit``."""

    # -- assignments -----------------------------------------------------------------------------------

    def put_assignment(self, assignment: StoredAssignment) -> None:
        """Store a new assignment.

        Raises:
            HubError: (the store's integrity error) an assignment with its id exists.
        """

    def get_assignment(self, assignment_id: str) -> StoredAssignment | None:
        """The assignment (of any project), or None."""

    def close_assignment(self, assignment_id: str, state: AssignmentState, *, end_time: int, result: str = "") -> bool:
        """Close an open assignment (any state but ``open``); whether it was open.

        Raises:
            ValueError: ``state`` is ``open``.
        """

    def open_assignments(
        self, *, agent_id: str | None = None, run_id: str | None = None, limit: int
    ) -> list[StoredAssignment]:
        """Open assignments of the agent and/or the run (at least one given), oldest first by (create_time, id).

        Raises:
            ValueError: neither an agent id nor a run id is given.
        """

    def open_assignees(self) -> list[str]:
        """The ids of the agents holding open assignments, sorted."""
