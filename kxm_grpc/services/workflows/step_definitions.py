"""Step workflows (``kxm.workflow.v1``): registered beside stage workflows as one definition resource.

A step workflow names its ``id`` and ``project``; it is loaded with its project's current gate
registry (a gate step naming a gate the registry lacks is refused with the loader's
``step_gate_unknown``) and compiled. Stored: ``document`` is its source as canonical JSON,
``pinned_document`` its compiled plan (``kxm.compiled-workflow.v1``, canonical JSON) and ``hash``
the plan hash, so its runs pin the plan by hash as stage runs pin a definition version. Ids are
global and held by one project, as for stage workflows (``definitions._put``), and an id keeps its
kind: what pinned to a stage workflow (runs, reruns, deliveries, signals, notifications) never finds
a step workflow under its id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.workflows import definitions as rules
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.plans import (
    Problem,
    StepWorkflow,
    WorkflowDefinitionError,
    compile_workflow,
    load_workflow,
    plan_hash,
)
from kxm_grpc.domain.workflows.plans.gates import GateRegistry
from kxm_grpc.domain.workflows.plans.loader import sort_problems
from kxm_grpc.services.workflows import gate_registries
from kxm_grpc.store import Tx
from kxm_grpc.store.protocols.workflows import StoredDefinition

PROJECT_MISSING = "project_missing"
"""The issue code of a step workflow registered without ``project`` (``load_workflow`` leaves it optional)."""


@dataclass(frozen=True, slots=True)
class Compiled:
    """A loaded step workflow, its source and plan as stored, and the hash of the registry it was loaded with."""

    workflow: StepWorkflow
    project: str
    source: str
    plan: str
    hash: str
    registry_hash: str
    """The hash of the registry the plan was compiled with (``EMPTY``'s when the project has none)."""


def compile_document(raw: object, registry: GateRegistry) -> Compiled:
    """Load ``raw`` (a decoded ``kxm.workflow.v1`` document) with ``registry`` and compile it.

    Raises:
        WorkflowDefinitionError: (INVALID_ARGUMENT, WORKFLOW_DEFINITION_INVALID) every problem of the
            loader, and ``project_missing`` when the document names no project.
    """
    problems: list[Problem] = []
    if not (isinstance(raw, dict) and raw.get("project") is not None):
        problems.append(Problem("project", PROJECT_MISSING, "is required: the project the workflow's runs belong to"))
    workflow = None
    try:
        workflow = load_workflow(raw, gates=registry)
    except WorkflowDefinitionError as error:
        problems.extend(error.problems)
    if problems or workflow is None or workflow.project is None:
        raise WorkflowDefinitionError(sort_problems(problems))
    try:
        source = canonical_json(raw)
    except (TypeError, ValueError) as error:  # a YAML value JSON cannot hold, in a field the loader allows
        raise WorkflowDefinitionError((Problem("", "document_invalid", f"has no JSON form: {error}"),)) from None
    plan = compile_workflow(workflow, gates=registry)
    return Compiled(workflow, workflow.project, source, canonical_json(plan), plan_hash(plan), registry.hash)


def compile_in(tx: Tx, raw: object, project: str) -> Compiled:
    """``compile_document`` with ``project``'s registry as this transaction reads it.

    Raises:
        WorkflowDefinitionError: as ``compile_document``.
    """
    return compile_document(raw, gate_registries.current(tx, project))


def check_kind(existing: StoredDefinition | None, definition_id: str, kind: DefinitionKind, *, origin: str) -> None:
    """An id keeps its kind: refuse registering ``kind`` under an id a definition of the other kind holds.

    Raises:
        DefinitionError: (WORKFLOW_DEFINITION_INVALID, field ``schema``).
    """
    if existing is not None and existing.kind is not kind:
        message = (
            f"the id is a {existing.kind.value} workflow's: an id keeps its kind (its runs, deliveries and "
            "signals pinned to it); choose another id"
        )
        raise rules.DefinitionError([rules.Problem(origin, definition_id, "schema", message)])


def stored(compiled: Compiled, existing: StoredDefinition | None, by: str, now: int) -> StoredDefinition:
    """The row of ``compiled`` replacing ``existing`` (its first registration time kept)."""
    return StoredDefinition(
        id=compiled.workflow.id,
        project=compiled.project,
        hash=compiled.hash,
        document=compiled.source,
        pinned_document=compiled.plan,
        register_time=existing.register_time if existing is not None else now,
        update_time=now,
        registered_by=by,
        kind=DefinitionKind.STEPS,
    )


def unchanged(existing: StoredDefinition | None, compiled: Compiled) -> bool:
    """Whether ``existing`` already is ``compiled`` (same plan, same source): nothing to write."""
    if existing is None or existing.kind is not DefinitionKind.STEPS:
        return False
    stored = (existing.hash, existing.document, existing.pinned_document)
    return stored == (compiled.hash, compiled.source, compiled.plan)


def step_ids(stored: StoredDefinition) -> list[str]:
    """The step ids of a stored step workflow's plan, in order."""
    return list(plan_of(stored).get("order", []))


def plan_of(stored: StoredDefinition) -> dict[str, Any]:
    """A stored step workflow's compiled plan."""
    plan: dict[str, Any] = json.loads(stored.pinned_document)
    return plan
