"""Gate registries: each project's ``kxm.gate-registry.v1``, registered by an operator, replaced whole.

A step workflow is loaded and compiled with its project's registry when it is registered, and its
plan embeds every gate it runs with the gate's hash: replacing the registry changes no registered
plan, and registering the workflow again pins the new gates. So that nothing registered becomes
unrunnable, a new registry that drops a gate a registered step workflow of the project names,
changes that gate's kind, or no longer suits its step (``loader.check_gate_steps``) is refused,
naming every such definition and gate.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.projects import project_name
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.workflows import documents
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.plans import Problem, WorkflowDefinitionError, load_workflow
from kxm_grpc.domain.workflows.plans.gates import GateRegistry, load_gate_registry
from kxm_grpc.domain.workflows.plans.loader import check_gate_steps
from kxm_grpc.domain.workflows.plans.reader import Reader
from kxm_grpc.errors import FailedPrecondition, FieldViolation, InvalidArgument, NotFound, Reason, invalid_field
from kxm_grpc.services import audit
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.gates import StoredGateRegistry
from kxm_grpc.store.protocols.workflows import StoredDefinition

log = structlog.get_logger("kxm.workflows")

MAX_DOCUMENT_BYTES = 256 * 1024
EMPTY = GateRegistry({})
"""What a project without a registry has: a gate step naming any gate is refused (``step_gate_unknown``)."""
_PAGE = 500


@dataclass(frozen=True, slots=True)
class RegisteredRegistry:
    """A registration's outcome: the stored registry, whether the project had none, whether it changed."""

    stored: StoredGateRegistry
    registry: GateRegistry
    created: bool
    unchanged: bool


@functools.lru_cache(maxsize=64)
def loaded(document: str) -> GateRegistry:
    """The registry a stored document holds (cached: a document never changes under its text).

    Raises:
        WorkflowDefinitionError: it no longer loads (a stored registry always does).
    """
    return load_gate_registry(json.loads(document))


def registry_document(registry: GateRegistry) -> str:
    """The document a registry is stored as: its normalised JSON (``to_json``) without each gate's
    ``id`` (the gate's key already), so that ``load_gate_registry`` reads it back to an equal registry
    of the same hash (the loader refuses ``id`` inside a gate)."""
    data = registry.to_json()
    gates = data["gates"]
    assert isinstance(gates, dict)
    data["gates"] = {gate_id: {k: v for k, v in gate.items() if k != "id"} for gate_id, gate in gates.items()}
    return canonical_json(data)


def current(tx: Tx, project: str) -> GateRegistry:
    """The project's registry in this transaction (``EMPTY`` when it has none)."""
    stored = tx.gate_registries.get(project)
    return EMPTY if stored is None else loaded(stored.document)


def not_found(project: str) -> NotFound:
    return NotFound(
        f"project {project} has no gate registry (an operator registers one with RegisterGateRegistry)",
        reason=Reason.GATE_REGISTRY_NOT_FOUND,
        metadata={"project": project},
    )


def parse(document: str, *, format: str | None, origin: str = "request") -> GateRegistry:
    """One registry from an operator's document.

    Raises:
        WorkflowDefinitionError: (INVALID_ARGUMENT, WORKFLOW_DEFINITION_INVALID) the document is
            too large, does not decode, or breaks a load rule (every problem with its field).
    """
    if len(document.encode()) > MAX_DOCUMENT_BYTES:
        raise WorkflowDefinitionError(
            (Problem("document", "document_too_large", f"exceeds {MAX_DOCUMENT_BYTES} bytes"),)
        )
    try:
        raw = documents.decode(document, origin=origin, format=format)
    except documents.DocumentError as error:
        raise WorkflowDefinitionError((Problem("document", "document_invalid", str(error)),)) from None
    return load_gate_registry(raw)


def registry_project(caller: Caller, project: str) -> str:
    """The project a registration is for: the request's, else the one the operator names.

    Raises:
        InvalidArgument: (PROTOCOL_ERROR, field ``project``) none is named, the name is malformed,
            or it is not the project the call names (``x-kxm-project``).
    """
    if not project:
        if caller.project is None:
            raise invalid_field("project", "name the project whose gate registry this is (or x-kxm-project)")
        return caller.project
    project_name("project", project)
    if caller.project is not None and project != caller.project:
        raise invalid_field("project", f"must be {caller.project}, the project this call names (x-kxm-project)")
    return project


def step_definitions(tx: Tx, project: str) -> Iterator[StoredDefinition]:
    """Every step workflow of the project, by id (a page at a time)."""
    after: str | None = None
    while True:
        page = tx.workflows.list_definitions(project, after, _PAGE, kind=DefinitionKind.STEPS)
        yield from page
        if len(page) < _PAGE:
            return
        after = page[-1].id


@dataclass(frozen=True, slots=True)
class Conflict:
    """A registered step workflow's gate the new registry would break."""

    definition_id: str
    gate_id: str
    message: str


def conflicts(tx: Tx, project: str, registry: GateRegistry, *, skip: frozenset[str] = frozenset()) -> list[Conflict]:
    """What ``registry`` would break of the project's registered step workflows (but those in ``skip``,
    which an import registers again): each registry gate a plan pinned that ``registry`` drops or
    changes the kind of, and each gate step the new gate no longer suits."""
    found: list[Conflict] = []
    for stored in step_definitions(tx, project):
        if stored.id in skip:
            continue
        plan = json.loads(stored.pinned_document)
        for gate_id, pinned in sorted(plan.get("gates", {}).items()):
            if gate_id.startswith("step:"):  # an inline command: pinned by the plan alone
                continue
            gate = registry.gates.get(gate_id)
            if gate is None:
                found.append(Conflict(stored.id, gate_id, "the new registry drops it"))
            elif gate.kind.value != pinned.get("kind"):
                message = f"the new registry changes its kind from {pinned.get('kind')} to {gate.kind.value}"
                found.append(Conflict(stored.id, gate_id, message))
        found.extend(_unsuited(stored, plan, registry))
    return found


def _unsuited(stored: StoredDefinition, plan: dict[str, object], registry: GateRegistry) -> list[Conflict]:
    """The gate steps of ``stored`` that a gate of ``registry`` (present, of the same kind) no longer suits."""
    try:
        workflow = load_workflow(json.loads(stored.document))
    except WorkflowDefinitionError:  # loaded when registered; a newer loader's rule is no gate's problem
        return []
    r = Reader()
    check_gate_steps(r, workflow, registry)
    gates = {step.id: step.gate for step in workflow.steps if step.gate is not None}
    return [
        Conflict(stored.id, gates.get(problem.step_id or "", ""), f"{problem.field}: {problem.message}")
        for problem in r.problems
        if problem.code != "step_gate_unknown"  # reported above, as a dropped gate
    ]


def in_use(project: str, found: list[Conflict]) -> FailedPrecondition:
    """The refusal of a registry that would break registered step workflows (every conflict listed)."""
    lines = [f"step workflow {c.definition_id}: gates.{c.gate_id}: {c.message}" for c in found]
    return FailedPrecondition(
        f"the gate registry would leave registered step workflows of {project} unrunnable; register them "
        "without these gates first:\n" + "\n".join(lines),
        reason=Reason.GATE_REGISTRY_IN_USE,
        metadata={
            "project": project,
            "definitions": ",".join(sorted({c.definition_id for c in found})),
            "gates": ",".join(sorted({c.gate_id for c in found})),
            "problems": str(len(found)),
        },
        field_violations=tuple(
            FieldViolation(f"gates.{c.gate_id}", f"step workflow {c.definition_id}: {c.message}") for c in found
        ),
    )


def put(tx: Tx, project: str, registry: GateRegistry, by: str, now: int) -> RegisteredRegistry:
    """Store ``registry`` as the project's (unless it is the same), for every caller (an operator, an import)."""
    existing = tx.gate_registries.get(project)
    document = registry_document(registry)
    if existing is not None and existing.hash == registry.hash and existing.document == document:
        return RegisteredRegistry(existing, registry, created=False, unchanged=True)
    stored = StoredGateRegistry(project, registry.hash, document, now, by)
    tx.gate_registries.put(stored)
    return RegisteredRegistry(stored, registry, created=existing is None, unchanged=False)


async def register(
    store: Store,
    caller: Caller,
    document: str,
    *,
    format: str | None,
    project: str,
    validate_only: bool,
    now: int,
) -> RegisteredRegistry:
    """Validate and store a project's gate registry (replacing the project's); audited.

    Raises:
        InvalidArgument: as ``parse`` and ``registry_project``.
        FailedPrecondition: (GATE_REGISTRY_IN_USE) it would break a registered step workflow of
            the project (``conflicts``); nothing is stored.
        PermissionDenied: the caller is not an operator (admission admits operators only).
    """
    target = registry_project(caller, project)
    registry = parse(document, format=format)
    by = caller.operator or "operator"

    def work(tx: Tx) -> RegisteredRegistry:
        found = conflicts(tx, target, registry)
        if found:
            raise in_use(target, found)
        registered = put(tx, target, registry, by, now)
        if validate_only:
            raise _Rollback(registered)
        if not registered.unchanged:
            audit.record(
                tx, caller, "workflow.gates.register", f"gates:{target}", now=now, metadata={"hash": registry.hash}
            )
        return registered

    try:
        registered = await store.write(work)
    except _Rollback as rollback:
        return rollback.registered
    if not registered.unchanged:
        log.info(
            "gate_registry_registered",
            project=target,
            hash=registry.hash,
            gates=len(registry.gates),
            created=registered.created,
            operator=by,
        )
    return registered


class _Rollback(Exception):
    """Raised inside a unit of work to answer as a registration would and keep nothing."""

    def __init__(self, registered: RegisteredRegistry) -> None:
        super().__init__("validate only")
        self.registered = registered


async def get(store: Store, caller: Caller) -> StoredGateRegistry:
    """The caller's project's registry.

    Raises:
        InvalidArgument: (PROTOCOL_ERROR) the caller names no project (admission admits only those that do).
        NotFound: (GATE_REGISTRY_NOT_FOUND) the project has none.
    """
    project = caller.project
    if project is None:
        raise InvalidArgument(
            "name the project (x-kxm-project) whose gate registry to read",
            reason=Reason.PROTOCOL_ERROR,
            metadata={"field": "x-kxm-project"},
            field_violations=(FieldViolation("x-kxm-project", "name the project"),),
        )
    stored = await store.read(lambda tx: tx.gate_registries.get(project))
    if stored is None:
        raise not_found(project)
    return stored
