"""A workflow run's state: its stages, waits, transitions, captured hashes and approvals.

A run pins its definition (the hash, and the stages as they were when it started) and is the
only mutable record of a workflow: the checkpoint rules (``checkpoints``) take a run and return
a new one, and the services store it whole, in one transaction with whatever else the step wrote.

Attempts and visits. ``StageState.attempts`` counts the checkpoints a stage consumed since it was
last reset (by being the target of a declared transition to another stage); the active attempt
is ``attempts + 1``, the number agents put in a workflow context (1–20). ``visit`` counts every
entry into the stage and is the hub's alone: peer evidence and degradation approvals are bound
to (visit, attempt), and a cited message must be newer than the visit's start, so an earlier
visit's replies and approvals never count again, and a self-edge keeps the attempts it consumed
(spec §11.5: re-entry made attempt-bound evidence reusable and let a self-edge bypass
``maxAttempts``).
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from kxm_grpc.domain.workflows.evidence import DegradationApproval, PeerEvidence, ResolvedPolicy


class RunStatus(enum.Enum):
    RUNNING = "running"
    WAITING = "waiting"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def ended(self) -> bool:
        return self in (RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED)


class StageStatus(enum.Enum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    WAITING = "waiting"
    PASSED = "passed"
    WARNING = "warning"
    FAILED = "failed"


class CheckpointStatus(enum.Enum):
    """What a coordinator (or a signal, or a ruling) reports for a stage's attempt."""

    PASSED = "passed"
    WARNING = "warning"
    FAILED = "failed"


ESCALATION_SIGNAL_KEY = "audit_escalation"
"""The wait an audit escalation puts the stage in; only an operator's ruling resolves it."""


@dataclass(frozen=True)
class Wait:
    """The run waits on a signal (external work) or an operator's ruling (an escalation)."""

    stage_id: str
    signal_key: str
    summary: str
    create_time: int
    expire_time: int

    @property
    def escalation(self) -> bool:
        return self.signal_key == ESCALATION_SIGNAL_KEY


@dataclass(frozen=True)
class Escalation:
    """An audit escalation of a stage and, once an operator ruled, the ruling."""

    reason: str
    escalate_time: int
    escalated_by: str
    """``hub`` (the stage reached its ``autoResumeLimit``) or the coordinator's agent id."""
    ruling: str | None = None
    ruling_status: CheckpointStatus | None = None
    ruled_by: str | None = None
    rule_time: int | None = None


@dataclass
class StageState:
    """One stage of a run (the definition's stage is found by ``id`` in the pinned definition)."""

    id: str
    status: StageStatus = StageStatus.PENDING
    attempts: int = 0
    visit: int = 0
    visit_start_time: int = 0
    summary: str = ""
    evidence: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Canonical key → distinct values, as accumulated by passing checkpoints and waits."""
    peer_evidence: dict[str, tuple[PeerEvidence, ...]] = field(default_factory=dict)
    degraded_requirements: tuple[str, ...] = ()
    start_time: int | None = None
    complete_time: int | None = None
    update_time: int | None = None
    escalation: Escalation | None = None
    resumed_at: int = 0
    """``attempts`` when an operator's ruling last resumed the stage: ``autoResumeLimit`` counts the
    attempts since (a ruling that sends the stage back does not escalate it again at once)."""

    @property
    def active_attempt(self) -> int:
        return self.attempts + 1

    def enter(self, now: int, *, reset: bool) -> None:
        """Begin a new visit: in progress, evidence cleared; ``reset`` also clears the attempts."""
        self.status = StageStatus.IN_PROGRESS
        self.visit += 1
        self.visit_start_time = now
        if reset:
            self.attempts = 0
            self.resumed_at = 0
        self.summary = ""
        self.evidence = {}
        self.peer_evidence = {}
        self.degraded_requirements = ()
        self.start_time = now
        self.complete_time = None
        self.update_time = now
        self.escalation = None


@dataclass(frozen=True)
class Transition:
    """A declared transition taken (default forward and retry edges are not recorded)."""

    id: str
    from_stage: str
    to_stage: str
    outcome: str
    attempt: int
    evidence_keys: tuple[str, ...]
    time: int


@dataclass(frozen=True)
class EvidenceHash:
    """A captured plan hash or reproduction oracle: the hash of a stage's values under one key."""

    stage_id: str
    evidence_key: str
    sha256: str
    capture_time: int


@dataclass(frozen=True)
class SignalReceipt:
    """A signal the hub accepted, kept to refuse its replay (de-duplicated by delivery id)."""

    delivery_id: str
    payload_sha256: str
    signal_key: str
    stage_id: str
    status: CheckpointStatus
    receive_time: int
    resumed: bool
    degraded_requirements: tuple[str, ...] = ()
    message_id: str | None = None


@dataclass
class Run:
    id: str
    definition_id: str
    definition_hash: str
    project: str
    coordinator_id: str
    coordinator_name: str
    delivery_id: str
    payload_sha256: str
    prompt_message_id: str
    """The latest message prompting the coordinator (the start prompt, or a resume notice)."""
    stages: list[StageState]
    policies: dict[str, dict[str, ResolvedPolicy]]
    """Stage id → canonical key → the evidence policy resolved at start."""
    create_time: int
    update_time: int
    status: RunStatus = RunStatus.RUNNING
    current_stage: str | None = None
    wait: Wait | None = None
    transitions: list[Transition] = field(default_factory=list)
    repro_oracle: EvidenceHash | None = None
    plan_hash: EvidenceHash | None = None
    approvals: list[DegradationApproval] = field(default_factory=list)
    end_time: int | None = None
    end_reason: str = ""
    event: str = ""
    """The start delivery's event name (``x-github-event``, …), empty when it carried none."""

    def stage(self, stage_id: str) -> StageState | None:
        return next((stage for stage in self.stages if stage.id == stage_id), None)

    def end(self, status: RunStatus, now: int, reason: str = "") -> None:
        self.status = status
        self.current_stage = None
        self.wait = None
        self.end_time = now
        self.end_reason = reason
        self.update_time = now

    def policies_of(self, stage_id: str) -> Mapping[str, ResolvedPolicy]:
        return self.policies.get(stage_id, {})

    def copy(self) -> Run:
        """A copy a step may change without changing this run.

        Only what steps change is copied (the run, its stages with their evidence maps, the
        transition and approval lists); the rest is frozen and shared: the resolved policies,
        which never change after the start, and every snapshot, wait and record. A deep copy was
        a third of a 32-stage checkpoint's CPU (docs/performance.md).
        """
        return replace(
            self,
            stages=[replace(s, evidence=dict(s.evidence), peer_evidence=dict(s.peer_evidence)) for s in self.stages],
            transitions=list(self.transitions),
            approvals=list(self.approvals),
        )


def evidence_sha256(values: Iterable[str]) -> str:
    """sha256 hex of the values as a canonical JSON array, sorted by UTF-16 code unit.

    A JSON array, not the values joined by newlines (the original's form, ambiguous when a
    value holds a newline: spec §11.6).
    """
    ordered = sorted(set(values), key=lambda value: value.encode("utf-16-be"))
    encoded = json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()


def journal_attempt(stage: StageState) -> int | None:
    """The attempt a journal entry bound to ``stage`` carries (spec §2.3 ``journalAttemptFor``)."""
    if stage.status in (StageStatus.IN_PROGRESS, StageStatus.WAITING):
        return stage.active_attempt
    if stage.status is StageStatus.PENDING:
        return stage.attempts or None
    return max(1, stage.attempts)
