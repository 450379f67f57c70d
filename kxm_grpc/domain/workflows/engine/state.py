"""A step run's state: the snapshot the hub folds its events into (workflow-context.md §4.3, §11.17).

A step run executes a compiled ``kxm.workflow.v1`` plan: one step at a time, each step in numbered
attempts, each attempt as one or more members (assignments) given to agents, whose results a join
turns into the step's outcome, which picks a typed transition. The state is small and bounded: the
current step's attempt and its members, counters for every budget, and the run's totals. Its
history lives in the run's event log; the snapshot is what each step reads (a bounded number of
reads, never a refold of the log).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kxm_grpc.domain.context.skills import check_skill_id
from kxm_grpc.errors import invalid_field


class RunStatus(enum.Enum):
    """Where a step run stands."""

    QUEUED = "queued"
    """Admitted once fewer than ``maxConcurrentRuns`` runs of its project are active."""
    RUNNING = "running"
    BLOCKED = "blocked"
    """A gate's outcome is uncertain (a timeout, a lost close, a signal): an operator recovers it."""
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def ended(self) -> bool:
        return self in (RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED)

    @property
    def active(self) -> bool:
        """Counts against the project's ``maxConcurrentRuns`` (running or blocked)."""
        return self in (RunStatus.RUNNING, RunStatus.BLOCKED)


class StepPhase(enum.Enum):
    """What the current step waits for."""

    ASSIGNING = "assigning"
    """Members to dispatch (or eligible agents to come online)."""
    WORKING = "working"
    """Every member it needs is dispatched; results are awaited."""
    AWAITING_APPROVAL = "awaiting_approval"
    AWAITING_SIGNAL = "awaiting_signal"


class MemberStatus(enum.Enum):
    OPEN = "open"
    """Dispatched; its result is awaited (its attempt token is valid)."""
    COMPLETED = "completed"
    EXPIRED = "expired"
    """Its deadline passed: a failed member."""
    SUPERSEDED = "superseded"
    """Its agent went offline past the stale period; its token is revoked and its place reassigned."""
    CANCELLED = "cancelled"
    """Cancelled by the join (``cancelRemaining``), a cancel, or the run's end."""

    @property
    def open(self) -> bool:
        return self is MemberStatus.OPEN


class MemberRole(enum.Enum):
    WORKER = "worker"
    """Answers with a ``WorkerResult`` (agent steps)."""
    REVIEWER = "reviewer"
    """Answers with a ``ReviewEnvelope`` (panel steps whose evidence is a review)."""
    GATE = "gate"
    """A gate worker running the step's gate; answers with a ``WorkerResult`` of checks."""


@dataclass(frozen=True)
class Result:
    """What a member's answer means for the join, as the hub derived it (never a producer's say-so)."""

    outcome: str
    """A declared outcome of the step (``passed`` for a PASS review with no blockers)."""
    passed: bool
    content_hash: str
    """``sha256:`` of the envelope the member returned (the evidence reference)."""
    summary: str = ""
    blockers: int = 0
    cost_usd: float | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    duration_ms: int = 0
    model: str = ""
    """The model the producer reports it used (the routing record; diversity uses declarations)."""
    artifacts: Mapping[str, str] = field(default_factory=dict)
    """Artifact name → ``sha256`` hex, as reported."""
    uncertain: str | None = None
    """A gate whose outcome cannot be known: why (``timeout``, ``lost-close``, …)."""
    commit: str = ""
    """The commit a writing step's work is on (full hex), as reported; empty: none."""
    receipt: Mapping[str, Any] | None = field(default=None, compare=False)
    """The terminal receipt the worker handed in, as kept (``receipts.py``); not kept with the
    member in the snapshot: the run's ``receipts`` hold the latest of each step."""


@dataclass(frozen=True)
class Member:
    """One assignment of the current attempt: an agent's share of the step."""

    id: str
    """``asg_`` + 32 hex: the idempotent assignment id the assignee completes."""
    step_id: str
    step_attempt: int
    index: int
    """Its place in the attempt (0-based); a superseded member's replacement takes its place."""
    agent: str
    """The agent's name as the plan names it."""
    agent_id: str
    role: MemberRole
    status: MemberStatus
    create_time: int
    deadline: int | None
    """When it expires (clock microseconds), or None without a ``timeoutMs``."""
    result: Result | None = None
    end_time: int | None = None
    end_reason: str = ""


@dataclass(frozen=True)
class Producer:
    """One member's returned result, as a handoff keeps it."""

    assignment_id: str
    step_id: str
    step_attempt: int
    agent: str
    role: MemberRole
    outcome: str
    passed: bool
    counted: bool
    """Whether the join counted its result toward the outcome."""
    why: str
    """``counted``, or why not (the join's words)."""
    summary: str
    """Redacted (``domain.workflows.redaction``): other agents read it."""
    blockers: int
    artifacts: Mapping[str, str]
    """Artifact name → ``sha256`` hex, as reported."""
    commit: str
    content_hash: str
    """``sha256:`` of the envelope it returned: the evidence reference."""


@dataclass(frozen=True)
class Handoff:
    """What the step a run moved on from handed to the step it entered (``kxm.handoff-manifest.v1``,
    §5.13): its outcome and each producer's result; after a step whose members did no work (a
    gate, an approval, a wait), the work handed to that step too."""

    from_step: str
    from_attempt: int
    outcome: str
    to_step: str
    create_time: int
    base_commit: str
    """The run's head commit when it moved on (the next step's base); empty: none."""
    producers: tuple[Producer, ...] = ()


@dataclass(frozen=True)
class InputFile:
    """A file the run's work depends on, pinned by hash (an ``AssignmentRequest`` input)."""

    type: str
    path: str
    sha256: str


@dataclass(frozen=True)
class RunInputs:
    """What the run was started with; every assignment carries it."""

    repository: str = ""
    """The repository (URL or path) the steps work on; empty: none."""
    base_commit: str = ""
    """The commit the first step starts from (full hex); empty: none."""
    files: tuple[InputFile, ...] = ()
    handoff: str = ""
    """A ``DiagnosticHandoff`` as JSON text (loop C's incident), or empty."""
    notes: str = ""
    """Handoff notes for the first step (``privateHandoffNotes``)."""
    skill_id: str = ""
    """The skill candidate of the run's project the run evaluates (its gates that declare
    ``evaluates`` record evaluations of it); empty: none."""


@dataclass(frozen=True)
class StepRun:
    """The snapshot of one step run."""

    id: str
    project: str
    workflow_id: str
    plan_hash: str
    status: RunStatus
    create_time: int
    update_time: int
    sequence: int
    """The last event's sequence number (1, 2, … contiguous)."""
    current_step: str | None = None
    step_attempt: int = 0
    """The current step's attempt (1-based); 0 before the first."""
    phase: StepPhase = StepPhase.ASSIGNING
    members: tuple[Member, ...] = ()
    """The current attempt's members, in birth order."""
    attempts: Mapping[str, int] = field(default_factory=dict)
    """Attempts started per step (``maxAttempts``)."""
    edge_uses: Mapping[str, int] = field(default_factory=dict)
    """Transitions taken per ``<step>/<outcome>`` edge (``maxTransitions`` of the edge)."""
    transitions: int = 0
    """Transitions taken in all (``transitionBudget``)."""
    cost_usd: float = 0.0
    """Model cost summed from the results' telemetry (``maxModelCost``)."""
    unmetered: int = 0
    """Results that reported no cost."""
    plan_value: str | None = None
    repro_value: str | None = None
    """The reproduction's artifact hash, once captured at the ``reproOracle`` step: every later
    worker result must report it unchanged."""
    """The plan step's artifact hash, once captured (gate 3: ``requirePlanHash`` steps must match it)."""
    running_since: int | None = None
    end_time: int | None = None
    end_reason: str = ""
    blocked_member: str | None = None
    """The member whose uncertain gate blocked the run."""
    last_outcome: str | None = None
    head_commit: str | None = None
    """The commit the latest writing step reported (the next steps' base, a gate's checkout)."""
    inputs: RunInputs = field(default_factory=lambda: RunInputs())
    receipts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The latest terminal receipt of each step that returned one, by step id."""
    handoff: Handoff | None = None
    """What the last step the run moved on from handed over (None before its first transition)."""
    memory_revision: str = ""
    """The project's memory revision when the run was created (``ctxrev_…``; empty: its memory was
    never synced), pinned for its assignments' packets (§5.14)."""

    def member(self, member_id: str) -> Member | None:
        return next((member for member in self.members if member.id == member_id), None)

    @property
    def open_members(self) -> tuple[Member, ...]:
        return tuple(member for member in self.members if member.status.open)


_HEX_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
MAX_INPUT_FILES = 64
MAX_REPOSITORY_CHARS = 2_048
MAX_PATH_CHARS = 1_024
MAX_NOTES_CHARS = 16_000
MAX_HANDOFF_BYTES = 64 * 1024


def run_inputs(
    *, repository: str, base_commit: str, files: tuple[InputFile, ...], handoff: str, notes: str, skill_id: str = ""
) -> RunInputs:
    """A step run's validated inputs.

    Raises:
        InvalidArgument: a field is too long or malformed (``inputs.repository``, ``inputs.base_commit``:
            empty or a full hex commit, ``inputs.files[i]``: a SHA-256 of 64 hex digits,
            ``inputs.diagnostic_handoff``: at most 64 KiB of JSON, ``inputs.notes``);
            (INVALID_SKILL_REQUEST) ``inputs.skill_id`` is not a skill id.
    """
    if len(repository) > MAX_REPOSITORY_CHARS or any(ord(c) < 32 for c in repository):
        raise invalid_field(
            "inputs.repository", f"must be at most {MAX_REPOSITORY_CHARS} characters, no control characters"
        )
    if base_commit and not _HEX_COMMIT.fullmatch(base_commit):
        raise invalid_field("inputs.base_commit", "must be empty or a full commit id (40 or 64 lower-case hex digits)")
    if len(files) > MAX_INPUT_FILES:
        raise invalid_field("inputs.files", f"must hold at most {MAX_INPUT_FILES} files")
    for index, file in enumerate(files):
        if not file.path or len(file.path) > MAX_PATH_CHARS or len(file.type) > 64:
            raise invalid_field(
                f"inputs.files[{index}]", f"needs a path of 1 to {MAX_PATH_CHARS} characters and a short type"
            )
        if not _SHA256.fullmatch(file.sha256):
            raise invalid_field(f"inputs.files[{index}].sha256", "must be 64 lower-case hex digits")
    if len(handoff.encode()) > MAX_HANDOFF_BYTES:
        raise invalid_field("inputs.diagnostic_handoff", f"exceeds {MAX_HANDOFF_BYTES} bytes of JSON")
    if len(notes) > MAX_NOTES_CHARS:
        raise invalid_field("inputs.notes", f"exceeds {MAX_NOTES_CHARS} characters")
    if skill_id:
        skill_id = check_skill_id(skill_id, "inputs.skill_id")
    return RunInputs(repository, base_commit, files, handoff, notes, skill_id)
