"""Hub-driven workflow definitions (``kxm.workflow.v1``, workflow-context.md §4.1) and their
compiled plans (``kxm.compiled-workflow.v1``, §4.2). Pure rules: no I/O.

``load_workflow`` parses a decoded document into a ``StepWorkflow`` (collecting every problem,
with field path and issue code, into one ``WorkflowDefinitionError``); ``compile_workflow`` makes
its plan and ``plan_hash`` the plan's stable hash.
"""

from kxm_grpc.domain.workflows.plans.compiler import compile_workflow, plan_hash
from kxm_grpc.domain.workflows.plans.loader import load_workflow
from kxm_grpc.domain.workflows.plans.model import (
    COMPILED_SCHEMA,
    SCHEMA,
    TERMINAL,
    Access,
    Assignments,
    Dimension,
    EvidenceHashConfig,
    EvidenceKind,
    EvidenceRequirement,
    GateExpect,
    Join,
    JoinStrategy,
    Limits,
    Problem,
    ProducerPolicy,
    Step,
    StepKind,
    StepWorkflow,
    TerminalStatus,
    ToolPolicy,
    Transition,
    WorkflowDefinitionError,
)

__all__ = [
    "COMPILED_SCHEMA",
    "SCHEMA",
    "TERMINAL",
    "Access",
    "Assignments",
    "Dimension",
    "EvidenceHashConfig",
    "EvidenceKind",
    "EvidenceRequirement",
    "GateExpect",
    "Join",
    "JoinStrategy",
    "Limits",
    "Problem",
    "ProducerPolicy",
    "Step",
    "StepKind",
    "StepWorkflow",
    "TerminalStatus",
    "ToolPolicy",
    "Transition",
    "WorkflowDefinitionError",
    "compile_workflow",
    "load_workflow",
    "plan_hash",
]
