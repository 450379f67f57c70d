"""The parsed ``kxm.workflow.v1`` definition (workflow-context.md §4.1): frozen values, defaults filled.

What the loader returns is exactly what the hub executes: every field has its compiled default
(§4.1's table), and nothing in it is a feature the hub would refuse at drive time (§11.20).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kxm_grpc.domain.workflows.diversity import Dimension as Dimension
from kxm_grpc.errors import FieldViolation, InvalidArgument, Reason

if TYPE_CHECKING:
    from kxm_grpc.domain.workflows.plans.gates import GateDefinition

SCHEMA = "kxm.workflow.v1"
COMPILED_SCHEMA = "kxm.compiled-workflow.v1"
TERMINAL = "$terminal"
"""The transition target that ends the run with the transition's terminal status."""
DEFAULT_COORDINATOR = "coordinator"
DEFAULT_GATE_WORKER = "gate-worker"
"""Who gate steps are assigned to when a workflow names no ``gateWorkers`` (``kxm gate worker``'s default)."""

# The format's bounds (§4.1).
STEP_ID = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
MAX_STEP_ID_CHARS = 64
MAX_STEPS = 128
MAX_DESCRIPTION_CHARS = 2_000
MAX_INSTRUCTIONS_CHARS = 16_000
MAX_NAME_CHARS = 128
MAX_ATTEMPTS = 20
MAX_TRANSITIONS = 10_000
MAX_EDGE_TRANSITIONS = 1_000
MAX_DURATION_MS = 31_536_000_000
MAX_ON = 32
MAX_REQUIRED_EVIDENCE = 64
MAX_EVIDENCE_MINIMUM = 16
MAX_AGENTS = 32
MAX_ASSIGNMENTS = 64
MAX_REPOSITORIES = 64
MAX_REQUIRE_PLAN_HASH = 128
MAX_TOOLS = 64
MAX_DECLARED_AGENTS = 256
CURRENCY = "USD"
"""The only currency model cost is metered in (``costUsd`` of the routing records)."""
READ_ONLY = "read-only"
ACCEPTED_STATUS = "passed"

STEP_ID_INVALID = "step_id_invalid"
STEP_ID_DUPLICATE = "step_id_duplicate"


class StepKind(enum.Enum):
    AGENT = "agent"
    MOA = "moa"
    GATE = "gate"
    APPROVAL = "approval"
    WAIT = "wait"


class TerminalStatus(enum.Enum):
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


class GateExpect(enum.Enum):
    PASS = "pass"
    FAIL = "fail"


class Access(enum.Enum):
    """A step's access to one repository."""

    NONE = "none"
    READ = "read"
    WRITE = "write"


class JoinStrategy(enum.Enum):
    ALL = "all"
    ALL_SETTLED = "all-settled"
    QUORUM = "quorum"
    FIRST_SUCCESS = "first-success"


class EvidenceKind(enum.Enum):
    ASSIGNMENT_RESULT = "assignment-result"
    GATE = "gate"
    REVIEW = "review"
    RECEIPT = "receipt"
    APPROVAL = "approval"
    ARTIFACT = "artifact"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a definition: its JSON path, the §4.1 issue code, and why.

    ``step_id`` and ``outcome`` order the list as the original does (no step first, then by step
    id, outcome and code); they are None when the problem belongs to no step or no transition.
    """

    field: str
    code: str
    message: str
    step_id: str | None = None
    outcome: str | None = None

    def __str__(self) -> str:
        where = f"{self.field}: " if self.field else ""
        return f"{where}{self.message} ({self.code})"


class WorkflowDefinitionError(InvalidArgument):
    """A ``kxm.workflow.v1`` definition that does not load: every problem, one per line."""

    def __init__(self, problems: tuple[Problem, ...]) -> None:
        if not problems:
            raise ValueError("a WorkflowDefinitionError needs at least one problem")
        first = problems[0]
        super().__init__(
            "\n".join(str(problem) for problem in problems),
            reason=Reason.WORKFLOW_DEFINITION_INVALID,
            metadata={
                "field": first.field,
                "code": first.code,
                "codes": ",".join(sorted({problem.code for problem in problems})),
                "problems": str(len(problems)),
            },
            field_violations=tuple(
                FieldViolation(problem.field, f"{problem.message} ({problem.code})") for problem in problems
            ),
        )
        self.problems = problems


@dataclass(frozen=True)
class AgentDeclaration:
    """What the operator declares an agent runs on (``agents.<name>``): what ``distinctBy`` compares.

    The operator's declaration, never the agent's claim: a quorum of distinct providers counts
    agents by what is declared here."""

    provider: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class Limits:
    max_transitions: int | None = None
    max_run_duration_ms: int | None = None
    max_model_cost: int | float | None = None
    currency: str | None = None
    """Set (``USD``) exactly when ``max_model_cost`` is."""


@dataclass(frozen=True)
class EvidenceHashConfig:
    """``planHash`` / ``reproOracle``: the step whose evidence under ``evidence_key`` is hashed."""

    step_id: str
    evidence_key: str


@dataclass(frozen=True)
class ToolPolicy:
    """The step's tool policy (§8.3), carried into each attempt token the hub signs."""

    preset: str | None = None
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assignments:
    allowed_agents: tuple[str, ...]
    minimum: int
    target: int
    maximum: int
    max_parallel: int
    distinct_by: tuple[Dimension, ...] = ()


@dataclass(frozen=True)
class Join:
    strategy: JoinStrategy = JoinStrategy.ALL
    minimum_passed: int | None = None
    cancel_remaining: bool = False


@dataclass(frozen=True)
class ProducerPolicy:
    minimum_producers: int
    eligible_agents: tuple[str, ...]
    distinct_by: tuple[Dimension, ...] = ()
    accepted_statuses: tuple[str, ...] = ("passed",)
    degraded_minimum_producers: int | None = None


@dataclass(frozen=True)
class EvidenceRequirement:
    key: str
    kind: EvidenceKind
    minimum: int = 1
    reusable_across_attempts: bool = False
    producer_policy: ProducerPolicy | None = None


@dataclass(frozen=True)
class Transition:
    """``on.<outcome>``: to a step (``target`` its id) or ``TERMINAL`` with a terminal status."""

    outcome: str
    target: str
    terminal_status: TerminalStatus | None = None
    max_transitions: int | None = None


@dataclass(frozen=True)
class Step:
    id: str
    kind: StepKind
    transitions: Mapping[str, Transition]
    """By outcome, in declaration order."""
    assignments: Assignments
    join: Join = Join()
    description: str | None = None
    instructions: str | None = None
    agent: str | None = None
    gate: str | None = None
    """The gate registry id a gate step runs (None for an inline ``command``)."""
    command: GateDefinition | None = None
    """An inline gate step's command (``command: "npm run verify"``), pinned with the plan."""
    expect: GateExpect | None = None
    """``pass`` by default on gate steps; None on the others."""
    signal: str | None = None
    model: str | None = None
    max_attempts: int = 1
    """Attempts of the step in one run, across its entries and reassignments. Without ``maxAttempts``:
    1, plus for a step on a cycle the re-entries its back-edges' budgets allow (``loader``)."""
    timeout_ms: int | None = None
    repositories: Mapping[str, Access] = field(default_factory=dict)
    tools: ToolPolicy | None = None
    required_evidence: tuple[EvidenceRequirement, ...] = ()

    @property
    def writes(self) -> bool:
        return any(access is Access.WRITE for access in self.repositories.values())


@dataclass(frozen=True)
class StepWorkflow:
    """A loaded ``kxm.workflow.v1`` definition; ``steps[0]`` is the entry."""

    id: str
    steps: tuple[Step, ...]
    project: str | None = None
    """The project the workflow is registered in, when the document names it."""
    gate_workers: tuple[str, ...] = (DEFAULT_GATE_WORKER,)
    """The agents (gate workers, ``kxm gate worker``) gate steps are assigned to, in order."""
    agents: Mapping[str, AgentDeclaration] = field(default_factory=dict)
    """The operator's declarations of the agents the steps name (``agents``), by name."""
    coordinator: str = DEFAULT_COORDINATOR
    description: str | None = None
    limits: Limits = Limits()
    plan_hash: EvidenceHashConfig | None = None
    repro_oracle: EvidenceHashConfig | None = None
    require_plan_hash: tuple[str, ...] = ()
    """Step ids, unique, sorted by code unit."""
    require_attempt_tokens: bool = False
    """``requireAttemptTokens``: while an agent holds an open assignment of a run of this workflow,
    its calls of tools must present an attempt token (ATTEMPT_TOKEN_REQUIRED otherwise)."""
    signal_secret_env: str | None = None
    """``signalSecretEnv``: the environment variable holding the secret signed signals to its wait
    steps are verified with (each replica reads it; the secret is never in the document)."""

    def step(self, step_id: str) -> Step | None:
        return next((step for step in self.steps if step.id == step_id), None)
