"""Workflow definitions: registered by an operator (or imported at start), stored in the database.

One definition resource holds two kinds (``kinds.DefinitionKind``), told apart by the document's
``schema``: stage workflows (this module) and step workflows (``kxm.workflow.v1``,
``step_definitions``, loaded with the project's gate registry). Whatever runs a stage workflow
reads it through ``stage_structure``, which refuses a step workflow (WORKFLOW_KIND_MISMATCH).

A stage definition is validated by the domain's loader (``kxm_grpc.domain.workflows.definitions``) and
stored as its normalised JSON with its hash; each version a run may pin is kept by hash, redacted
(``pinned_document``: literal secrets read ``***``), so a rotated literal secret is gone from the
database once its definition is replaced. Secrets named by ``secretEnv`` are resolved where they
are used (verifying a signature), by the replica using them, from its own environment; the
structure is loaded without them. Reads never return a literal secret. A definition's project
never changes: an id is taken by one project until its definition is deleted.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.projects import PROJECT_NAME
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows import definitions as rules
from kxm_grpc.domain.workflows import documents
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.kinds import DefinitionKind, DocumentKind, document_kind
from kxm_grpc.domain.workflows.plans import StepWorkflow, WorkflowDefinitionError
from kxm_grpc.domain.workflows.plans.gates import GateRegistry, load_gate_registry
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, NotFound, Reason
from kxm_grpc.services import audit
from kxm_grpc.services.workflows import gate_registries, step_definitions
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import StoredDefinition

log = structlog.get_logger("kxm.workflows")

MAX_DOCUMENT_BYTES = 256 * 1024
IMPORTED_BY = "--workflows"


@dataclass(frozen=True, slots=True)
class Registered:
    """A registration's outcome: the stored definition, whether it is new, whether it changed."""

    stored: StoredDefinition
    definition: WorkflowDefinition | StepWorkflow
    created: bool
    unchanged: bool


def not_found(definition_id: str) -> NotFound:
    return NotFound(
        f"no workflow definition {definition_id!r}",
        reason=Reason.WEBHOOK_NOT_FOUND,
        metadata={"definitionId": definition_id},
    )


def kind_mismatch(stored: StoredDefinition) -> FailedPrecondition:
    """The refusal of running a step workflow as a stage workflow (a start, a webhook, a rerun)."""
    return FailedPrecondition(
        f"workflow {stored.id} is a {stored.kind.value} workflow: the hub drives its runs, which start with "
        "StartWorkflowRun (an operator), never by a signed start, a rerun or a stage's signal",
        reason=Reason.WORKFLOW_KIND_MISMATCH,
        metadata={"definitionId": stored.id, "kind": stored.kind.value},
    )


def stage_structure(stored: StoredDefinition) -> WorkflowDefinition:
    """The stage workflow a stored definition holds (``structure`` of its document).

    Raises:
        FailedPrecondition: (WORKFLOW_KIND_MISMATCH) it is a step workflow.
    """
    if stored.kind is not DefinitionKind.STAGES:
        raise kind_mismatch(stored)
    return structure(stored.document)


REDACTED = "***"
"""A literal secret in a redacted document (``to_json(redacted=True)``): never a valid secret (too short)."""

_STAND_INS = {
    ("secret",): "redacted-start-secret",
    ("signalSecret",): "redacted-signal-secret",
    ("notify", "secret"): "redacted-notify-secret",
}
"""What a redacted literal secret is loaded as: valid secrets, distinct (the start and the signal
secret must differ), replaced by ``REDACTED`` again in the loaded structure."""


@functools.lru_cache(maxsize=256)
def structure(document: str) -> WorkflowDefinition:
    """The definition a stored document holds, secrets named by ``secretEnv`` left unresolved (cached).

    The document is a current definition's (``StoredDefinition.document``) or a pinned version's
    (``pinned_document``, redacted): a literal secret redacted to ``***`` loads as ``***``, a
    structure no signature may be verified with (verifying uses ``resolved`` on ``document``).
    """
    data: dict[str, Any] = json.loads(document)
    redacted = [path for path in _STAND_INS if _at(data, path) == REDACTED]
    if not redacted:
        return rules.load_definition(data, origin="store", env=None)
    loadable = json.loads(document)
    for path in redacted:
        _at(loadable, path[:-1])[path[-1]] = _STAND_INS[path]
    definition = rules.load_definition(loadable, origin="store", env=None)
    notify = definition.notify
    if notify is not None and ("notify", "secret") in redacted:
        notify = replace(notify, secret=REDACTED)
    return replace(
        definition,
        secret=REDACTED if ("secret",) in redacted else definition.secret,
        signal_secret=REDACTED if ("signalSecret",) in redacted else definition.signal_secret,
        notify=notify,
    )


def _at(data: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in nested JSON objects, or None."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def pinned_document(definition: WorkflowDefinition) -> str:
    """The document of the definition's version, which runs pin: its literal secrets redacted to ``***``.

    ``structure`` loads it (a pinned version is never used to verify a signature); it names the
    variables of ``secretEnv`` secrets, which are no secrets.
    """
    return _dumps(rules.to_json(definition, redacted=True))


def resolved(document: str, env: Mapping[str, str] | None = None) -> WorkflowDefinition:
    """The definition with its secrets resolved from ``env`` (default: this process's environment).

    Raises:
        DefinitionError: a named secret's variable is not set here (this replica cannot verify).
    """
    return rules.load_definition(json.loads(document), origin="store", env=os.environ if env is None else env)


def _dumps(data: dict[str, object]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _document(definition: WorkflowDefinition) -> str:
    return _dumps(rules.to_json(definition))


def _check_size(document: str) -> None:
    if len(document.encode()) > MAX_DOCUMENT_BYTES:
        raise InvalidArgument(
            f"document: exceeds {MAX_DOCUMENT_BYTES} bytes",
            reason=Reason.WORKFLOW_DEFINITION_INVALID,
            metadata={"field": "document"},
        )


def parse(document: str, *, format: str | None, origin: str, env: Mapping[str, str] | None) -> WorkflowDefinition:
    """One stage definition from an operator's document.

    Raises:
        InvalidArgument: the document is too large or holds more or less than one definition;
            ``DefinitionError`` (WORKFLOW_DEFINITION_INVALID) listing every problem.
    """
    _check_size(document)
    loaded = rules.load_text(document, origin=origin, env=env, format=format)
    if len(loaded) != 1:
        raise InvalidArgument(
            f"document: holds {len(loaded)} definitions; register one at a time",
            reason=Reason.WORKFLOW_DEFINITION_INVALID,
            metadata={"field": "document"},
        )
    return loaded[0]


OTHER_PROJECTS_ID = "the id belongs to another project's definition; delete it first or choose another id"


def _put(tx: Tx, definition: WorkflowDefinition, by: str, now: int, *, origin: str) -> Registered:
    """Store ``definition`` as its id's current version, for every caller (an operator, an import).

    Raises:
        DefinitionError: (WORKFLOW_DEFINITION_INVALID, field ``project``) the id is another
            project's definition: a definition's project never changes, so what pinned to it
            (runs, their reruns, signals and notifications) stays in its project.
    """
    existing = tx.workflows.get_definition(definition.id)
    if existing is not None and existing.project != definition.project:
        raise rules.DefinitionError([rules.Problem(origin, definition.id, "project", OTHER_PROJECTS_ID)])
    step_definitions.check_kind(existing, definition.id, DefinitionKind.STAGES, origin=origin)
    document = _document(definition)
    pinned = pinned_document(definition)
    if (
        existing is not None
        and existing.hash == definition.hash
        and existing.document == document
        and existing.pinned_document == pinned
    ):
        return Registered(existing, definition, created=False, unchanged=True)
    stored = StoredDefinition(
        id=definition.id,
        project=definition.project,
        hash=definition.hash,
        document=document,
        pinned_document=pinned,
        register_time=existing.register_time if existing is not None else now,
        update_time=now,
        registered_by=by,
    )
    tx.workflows.put_definition(stored)
    return Registered(stored, definition, created=existing is None, unchanged=False)


async def register(
    store: Store,
    caller: Caller,
    document: str,
    *,
    format: str | None,
    validate_only: bool,
    env: Mapping[str, str] | None = None,
    now: int,
) -> Registered:
    """Validate and store an operator's definition (replacing one of the same id); audited.

    Secrets named by ``secretEnv`` must be set in this replica's environment (``env``, default
    ``os.environ``): a definition no replica could verify is refused here, not at the first webhook.
    An operator naming a project (``x-kxm-project``) acts in that project only: the document must
    be of that project, and must not replace another project's definition of the same id.

    Raises:
        InvalidArgument: as ``parse``; (WORKFLOW_DEFINITION_INVALID) for an operator naming a
            project, a document of another project (field ``project``), or an id another
            project's definition has (field ``id``); for an operator naming no project, an id
            another project's definition has (field ``project``, as ``_put``).
        PermissionDenied: the caller is not an operator (admission admits operators only).
    """
    _check_size(document)
    kind = _document_kind(document, format)
    if kind is DocumentKind.GATE_REGISTRY:
        message = "is kxm.gate-registry.v1: a gate registry is registered with RegisterGateRegistry"
        raise rules.DefinitionError([rules.Problem("request", "", "schema", message)])
    if kind is DocumentKind.STEP_WORKFLOW:
        raw = documents.decode(document, origin="request", format=format)
        return await _register_steps(store, caller, raw, validate_only=validate_only, now=now)
    definition = parse(document, format=format, origin="request", env=os.environ if env is None else env)
    by = caller.operator or "operator"
    if caller.project is not None and definition.project != caller.project:
        raise rules.DefinitionError(
            [
                rules.Problem(
                    "request",
                    definition.id,
                    "project",
                    f"must be {caller.project}, the project this call names (x-kxm-project)",
                )
            ]
        )

    def work(tx: Tx) -> Registered:
        if caller.project is not None:
            existing = tx.workflows.get_definition(definition.id)
            if existing is not None and existing.project != caller.project:
                # Named by the caller's request only: which project holds the id is not said.
                raise rules.DefinitionError(
                    [rules.Problem("request", definition.id, "id", "is the id of another project's definition")]
                )
        registered = _put(tx, definition, by, now, origin="request")
        if validate_only:
            raise _Rollback(registered)
        if not registered.unchanged:
            audit.record(
                tx,
                caller,
                "workflow.register",
                f"workflow:{definition.id}",
                now=now,
                metadata={"hash": definition.hash, "project": definition.project},
            )
        return registered

    try:
        registered = await store.write(work)
    except _Rollback as rollback:
        return rollback.registered
    if not registered.unchanged:
        log.info(
            "workflow_registered",
            definition_id=definition.id,
            project=definition.project,
            hash=definition.hash,
            created=registered.created,
            operator=by,
        )
    return registered


def _document_kind(document: str, format: str | None) -> DocumentKind:
    """What the document holds; one that does not decode is read as stage definitions, whose
    loader reports why."""
    try:
        return document_kind(documents.decode(document, origin="request", format=format))
    except documents.DocumentError:
        return DocumentKind.STAGE_WORKFLOW


def _declared(raw: object, key: str) -> str | None:
    value = raw.get(key) if isinstance(raw, dict) else None
    return value if isinstance(value, str) else None


async def _register_steps(store: Store, caller: Caller, raw: object, *, validate_only: bool, now: int) -> Registered:
    """Validate and store a step workflow (``step_definitions``); audited as a stage definition is.

    The registry it loads with is its project's: for an operator naming a project, that project's
    (a document of another project is refused before any registry is read, so no other project's
    gates are probed); else the project the document names.

    Raises:
        InvalidArgument: ``WorkflowDefinitionError`` (WORKFLOW_DEFINITION_INVALID) every problem
            of the loader (``step_gate_unknown`` for a gate the registry lacks), ``project_missing``;
            ``DefinitionError`` (WORKFLOW_DEFINITION_INVALID) on ``project`` or ``id`` as for a
            stage definition, on ``schema`` for an id a stage workflow holds.
    """
    declared_id = _declared(raw, "id") or ""
    declared_project = _declared(raw, "project")
    if caller.project is not None:
        if declared_project is not None and declared_project != caller.project:
            message = f"must be {caller.project}, the project this call names (x-kxm-project)"
            raise rules.DefinitionError([rules.Problem("request", declared_id, "project", message)])
        project: str | None = caller.project
    else:
        project = declared_project if declared_project and PROJECT_NAME.fullmatch(declared_project) else None
    if project is not None:
        named = project
        registry = await store.read(lambda tx: gate_registries.current(tx, named))
    else:
        registry = gate_registries.EMPTY
    compiled = step_definitions.compile_document(raw, registry)
    by = caller.operator or "operator"
    definition_id = compiled.workflow.id

    def work(tx: Tx) -> Registered:
        existing = tx.workflows.get_definition(definition_id)
        if caller.project is not None and existing is not None and existing.project != caller.project:
            # Named by the caller's request only: which project holds the id is not said.
            problem = rules.Problem("request", definition_id, "id", "is the id of another project's definition")
            raise rules.DefinitionError([problem])
        if existing is not None and existing.project != compiled.project:
            raise rules.DefinitionError([rules.Problem("request", definition_id, "project", OTHER_PROJECTS_ID)])
        step_definitions.check_kind(existing, definition_id, DefinitionKind.STEPS, origin="request")
        current = compiled
        if gate_registries.current(tx, compiled.project).hash != compiled.registry_hash:
            current = step_definitions.compile_in(tx, raw, compiled.project)  # replaced since it was read
        if step_definitions.unchanged(existing, current):
            assert existing is not None
            registered = Registered(existing, current.workflow, created=False, unchanged=True)
        else:
            row = step_definitions.stored(current, existing, by, now)
            tx.workflows.put_definition(row)
            registered = Registered(row, current.workflow, created=existing is None, unchanged=False)
        if validate_only:
            raise _Rollback(registered)
        if not registered.unchanged:
            audit.record(
                tx,
                caller,
                "workflow.register",
                f"workflow:{definition_id}",
                now=now,
                metadata={"hash": current.hash, "project": current.project, "kind": DefinitionKind.STEPS.value},
            )
        return registered

    try:
        registered = await store.write(work)
    except _Rollback as rollback:
        return rollback.registered
    if not registered.unchanged:
        log.info(
            "workflow_registered",
            definition_id=definition_id,
            project=registered.stored.project,
            hash=registered.stored.hash,
            kind=DefinitionKind.STEPS.value,
            created=registered.created,
            operator=by,
        )
    return registered


class _Rollback(Exception):
    """Raised inside a unit of work to answer as a registration would and keep nothing."""

    def __init__(self, registered: Registered) -> None:
        super().__init__("validate only")
        self.registered = registered


GATES_SUFFIXES = (".gates.yaml", ".gates.yml", ".gates.json")
"""The names of gate registry files in a ``--workflows`` directory: ``<project>.gates.yaml``."""


@dataclass(frozen=True, slots=True)
class StepSource:
    """A step workflow of an imported file: loaded in the import's transaction, with its
    project's registry as that transaction has it (an imported one, else the stored one)."""

    origin: str
    raw: object
    definition_id: str
    project: str | None


@dataclass(frozen=True, slots=True)
class ImportedRegistry:
    """A project's gate registry from ``<project>.gates.yaml``."""

    origin: str
    project: str
    registry: GateRegistry


@dataclass(frozen=True, slots=True)
class Imported:
    """What a ``--workflows`` directory holds: stage workflows (loaded), step workflows (decoded)
    and gate registries (loaded), each told apart by its ``schema``."""

    stages: tuple[WorkflowDefinition, ...] = ()
    steps: tuple[StepSource, ...] = ()
    registries: tuple[ImportedRegistry, ...] = ()


def _step_problems(origin: str, name: str, error: WorkflowDefinitionError) -> list[rules.Problem]:
    return [rules.Problem(origin, name, p.field, f"{p.message} ({p.code})") for p in error.problems]


def _registry_project(path: Path) -> str | None:
    """The project of a gate registry file (``alpha.gates.yaml`` is alpha's), or None."""
    name = path.name
    for suffix in GATES_SUFFIXES:
        if name.endswith(suffix) and PROJECT_NAME.fullmatch(name.removesuffix(suffix)):
            return name.removesuffix(suffix)
    return None


def import_files(paths: Iterable[Path], *, env: Mapping[str, str] | None = None) -> Imported:
    """Every definition and gate registry of the given files (``--workflows DIR``), all problems of
    all files at once. A gate registry's file is named after its project (``alpha.gates.yaml``).

    Raises:
        DefinitionError: a file breaks a rule (the hub does not start), two files declare one
            id, or two registries one project.
    """
    problems: list[rules.Problem] = []
    stages: dict[str, WorkflowDefinition] = {}
    steps: dict[str, StepSource] = {}
    registries: dict[str, ImportedRegistry] = {}
    environment = os.environ if env is None else env

    def claim(origin: str, definition_id: str) -> None:
        if definition_id in stages or definition_id in steps:
            problems.append(rules.Problem(origin, definition_id, "id", "is declared by another file too"))

    for path in sorted(paths):
        origin = str(path)
        try:
            text = path.read_text()
            raw = documents.decode(text, origin=origin, format=None)
        except documents.DocumentError as error:
            problems.append(rules.Problem(origin, "", "", str(error)))
            continue
        kind = document_kind(raw)
        if kind is DocumentKind.GATE_REGISTRY:
            project = _registry_project(path)
            if project is None:
                message = "is a gate registry: name its file after its project (<project>.gates.yaml)"
                problems.append(rules.Problem(origin, "", "", message))
                continue
            if project in registries:
                problems.append(rules.Problem(origin, "", "", f"is a second gate registry of project {project}"))
                continue
            try:
                registries[project] = ImportedRegistry(origin, project, load_gate_registry(raw))
            except WorkflowDefinitionError as error:
                problems.extend(_step_problems(origin, "gates", error))
        elif kind is DocumentKind.STEP_WORKFLOW:
            definition_id = _declared(raw, "id") or "#0"
            claim(origin, definition_id)
            steps[definition_id] = StepSource(origin, raw, definition_id, _declared(raw, "project"))
        else:
            try:
                for definition in rules.load_text(text, origin=origin, env=environment):
                    claim(origin, definition.id)
                    stages[definition.id] = definition
            except rules.DefinitionError as error:
                problems.extend(error.problems)
    if problems:
        raise rules.DefinitionError(problems)
    return Imported(tuple(stages.values()), tuple(steps.values()), tuple(registries.values()))


def import_directory(directory: Path, *, env: Mapping[str, str] | None = None) -> Imported:
    """The definitions and gate registries of every ``*.json``, ``*.yaml`` and ``*.yml`` file in
    ``directory`` (not recursive).

    Raises:
        DefinitionError: as ``import_files``; also when the directory cannot be read.
    """
    try:
        paths = [path for path in directory.iterdir() if path.suffix in (".json", ".yaml", ".yml") and path.is_file()]
    except OSError as error:
        raise rules.DefinitionError(
            [rules.Problem(str(directory), "", "", f"cannot be read: {error.strerror or error}")]
        ) from None
    return import_files(paths, env=env)


def _import_steps(tx: Tx, imported: Imported, now: int) -> tuple[list[Registered], list[rules.Problem]]:
    """Store the imported registries, then the step workflows loaded with them (every problem collected)."""
    problems: list[rules.Problem] = []
    skip = frozenset(source.definition_id for source in imported.steps)  # loaded again below
    for entry in imported.registries:
        found = gate_registries.conflicts(tx, entry.project, entry.registry, skip=skip)
        problems += [rules.Problem(entry.origin, c.definition_id, f"gates.{c.gate_id}", c.message) for c in found]
        if not found:
            gate_registries.put(tx, entry.project, entry.registry, IMPORTED_BY, now)
    registered: list[Registered] = []
    for source in imported.steps:
        project = source.project if source.project and PROJECT_NAME.fullmatch(source.project) else None
        try:
            if project is None:
                compiled = step_definitions.compile_document(source.raw, gate_registries.EMPTY)
            else:
                compiled = step_definitions.compile_in(tx, source.raw, project)
        except WorkflowDefinitionError as error:
            problems.extend(_step_problems(source.origin, source.definition_id, error))
            continue
        existing = tx.workflows.get_definition(compiled.workflow.id)
        if existing is not None and existing.project != compiled.project:
            problems.append(rules.Problem(IMPORTED_BY, compiled.workflow.id, "project", OTHER_PROJECTS_ID))
            continue
        try:
            step_definitions.check_kind(existing, compiled.workflow.id, DefinitionKind.STEPS, origin=IMPORTED_BY)
        except rules.DefinitionError as error:
            problems.extend(error.problems)
            continue
        if step_definitions.unchanged(existing, compiled):
            assert existing is not None
            registered.append(Registered(existing, compiled.workflow, created=False, unchanged=True))
            continue
        row = step_definitions.stored(compiled, existing, IMPORTED_BY, now)
        tx.workflows.put_definition(row)
        registered.append(Registered(row, compiled.workflow, created=existing is None, unchanged=False))
    return registered, problems


async def store_imported(store: Store, imported: Imported, *, now: int) -> list[Registered]:
    """Store what was imported at start (one transaction; unchanged ones write nothing): stage
    workflows, then gate registries, then step workflows loaded with their projects' registries.

    Raises:
        DefinitionError: as ``_put``: an imported id is another project's definition or of the
            other kind; a step workflow does not load with its project's registry; an imported
            registry would break a registered step workflow the import does not replace. Nothing
            is stored, and the hub does not start.
    """

    def work(tx: Tx) -> list[Registered]:
        registered = [_put(tx, definition, IMPORTED_BY, now, origin=IMPORTED_BY) for definition in imported.stages]
        steps, problems = _import_steps(tx, imported, now)
        if problems:
            raise rules.DefinitionError(problems)
        return registered + steps

    registered = await store.write(work)
    for entry in registered:
        if not entry.unchanged:
            log.info(
                "workflow_imported",
                definition_id=entry.stored.id,
                hash=entry.stored.hash,
                kind=entry.stored.kind.value,
                created=entry.created,
            )
    for registry in imported.registries:
        log.info("gate_registry_imported", project=registry.project, hash=registry.registry.hash)
    return registered


def visible(caller: Caller, stored: StoredDefinition) -> bool:
    """An operator naming no project sees every definition; any other caller its project's."""
    if caller.is_operator and caller.project is None:
        return True
    return stored.project == caller.project


async def get(store: Store, caller: Caller, definition_id: str) -> StoredDefinition:
    """The caller's project's definition (another project's reads as missing).

    Raises:
        NotFound: (WEBHOOK_NOT_FOUND).
    """
    object_id("definition_id", definition_id, rules.MAX_DEFINITION_ID_CHARS)
    stored = await store.read(lambda tx: tx.workflows.get_definition(definition_id))
    if stored is None or not visible(caller, stored):
        raise not_found(definition_id)
    return stored


async def list_page(store: Store, caller: Caller, size: int, token: str) -> tuple[list[StoredDefinition], str]:
    """A page of the definitions the caller sees, by id.

    Raises:
        InvalidArgument: (INVALID_PAGE_TOKEN) a bad token; a negative size.
    """
    limit = page_size(size)
    project = None if caller.is_operator and caller.project is None else caller.project
    query = f"workflow-definitions:{project or '*'}"
    after = decode_page_token(token, query)
    rows = await store.read(lambda tx: tx.workflows.list_definitions(project, after, limit + 1))
    page = rows[:limit]
    next_token = encode_page_token(page[-1].id, query) if len(rows) > limit else ""
    return page, next_token


def redacted_document(stored: StoredDefinition) -> str:
    """The stored document with literal secrets replaced by ``***`` (what reads return); a step
    workflow's source holds no secret (its loader refuses ``secrets``) and is returned as stored."""
    if stored.kind is DefinitionKind.STEPS:
        return stored.document
    return json.dumps(
        rules.to_json(structure(stored.document), redacted=True), ensure_ascii=False, separators=(",", ":")
    )
