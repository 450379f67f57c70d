"""Workflow definitions: registered by an operator (or imported at start), stored in the database.

A definition is validated by the domain's loader (``kxm_grpc.domain.workflows.definitions``) and
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
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows import definitions as rules
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.errors import InvalidArgument, NotFound, Reason
from kxm_grpc.services import audit
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import StoredDefinition

log = structlog.get_logger("kxm.workflows")

MAX_DOCUMENT_BYTES = 256 * 1024
IMPORTED_BY = "--workflows"


@dataclass(frozen=True, slots=True)
class Registered:
    """A registration's outcome: the stored definition, whether it is new, whether it changed."""

    stored: StoredDefinition
    definition: WorkflowDefinition
    created: bool
    unchanged: bool


def not_found(definition_id: str) -> NotFound:
    return NotFound(
        f"no workflow definition {definition_id!r}",
        reason=Reason.WEBHOOK_NOT_FOUND,
        metadata={"definitionId": definition_id},
    )


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


def parse(document: str, *, format: str | None, origin: str, env: Mapping[str, str] | None) -> WorkflowDefinition:
    """One definition from an operator's document.

    Raises:
        InvalidArgument: the document is too large or holds more or less than one definition;
            ``DefinitionError`` (WORKFLOW_DEFINITION_INVALID) listing every problem.
    """
    if len(document.encode()) > MAX_DOCUMENT_BYTES:
        raise InvalidArgument(
            f"document: exceeds {MAX_DOCUMENT_BYTES} bytes",
            reason=Reason.WORKFLOW_DEFINITION_INVALID,
            metadata={"field": "document"},
        )
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


class _Rollback(Exception):
    """Raised inside a unit of work to answer as a registration would and keep nothing."""

    def __init__(self, registered: Registered) -> None:
        super().__init__("validate only")
        self.registered = registered


def import_files(paths: Iterable[Path], *, env: Mapping[str, str] | None = None) -> list[WorkflowDefinition]:
    """Every definition of the given files (``--workflows DIR``), all problems of all files at once.

    Raises:
        DefinitionError: a file breaks a rule (the hub does not start), or two files declare one id.
    """
    problems: list[rules.Problem] = []
    loaded: dict[str, WorkflowDefinition] = {}
    environment = os.environ if env is None else env
    for path in sorted(paths):
        try:
            for definition in rules.load_text(path.read_text(), origin=str(path), env=environment):
                if definition.id in loaded:
                    problems.append(rules.Problem(str(path), definition.id, "id", "is declared by another file too"))
                loaded[definition.id] = definition
        except rules.DefinitionError as error:
            problems.extend(error.problems)
    if problems:
        raise rules.DefinitionError(problems)
    return list(loaded.values())


def import_directory(directory: Path, *, env: Mapping[str, str] | None = None) -> list[WorkflowDefinition]:
    """The definitions of every ``*.json``, ``*.yaml`` and ``*.yml`` file in ``directory`` (not recursive).

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


async def store_imported(store: Store, imported: list[WorkflowDefinition], *, now: int) -> list[Registered]:
    """Store definitions imported at start (one transaction; unchanged ones write nothing).

    Raises:
        DefinitionError: as ``_put``: an imported id is another project's definition (nothing is
            stored, and the hub does not start).
    """

    def work(tx: Tx) -> list[Registered]:
        return [_put(tx, definition, IMPORTED_BY, now, origin=IMPORTED_BY) for definition in imported]

    registered = await store.write(work)
    for entry in registered:
        if not entry.unchanged:
            log.info("workflow_imported", definition_id=entry.stored.id, hash=entry.stored.hash, created=entry.created)
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
    """The stored document with literal secrets replaced by ``***`` (what reads return)."""
    return json.dumps(
        rules.to_json(structure(stored.document), redacted=True), ensure_ascii=False, separators=(",", ":")
    )
