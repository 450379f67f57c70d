"""Workflow definitions: registered by an operator (or imported at start), stored in the database.

A definition is validated by the domain's loader (``kxm_grpc.domain.workflows.definitions``) and
stored as its normalised JSON with its hash; each version a run may pin is kept by hash. Secrets
named by ``secretEnv`` are resolved where they are used (verifying a signature), by the replica
using them, from its own environment; the structure is loaded without them. Reads never return a
literal secret.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
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


@functools.lru_cache(maxsize=256)
def structure(document: str) -> WorkflowDefinition:
    """The definition a stored document holds, secrets named by ``secretEnv`` left unresolved (cached)."""
    return rules.load_definition(json.loads(document), origin="store", env=None)


def resolved(document: str, env: Mapping[str, str] | None = None) -> WorkflowDefinition:
    """The definition with its secrets resolved from ``env`` (default: this process's environment).

    Raises:
        DefinitionError: a named secret's variable is not set here (this replica cannot verify).
    """
    return rules.load_definition(json.loads(document), origin="store", env=os.environ if env is None else env)


def _document(definition: WorkflowDefinition) -> str:
    return json.dumps(rules.to_json(definition), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


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


def _put(tx: Tx, definition: WorkflowDefinition, by: str, now: int) -> Registered:
    existing = tx.workflows.get_definition(definition.id)
    document = _document(definition)
    if existing is not None and existing.hash == definition.hash and existing.document == document:
        return Registered(existing, definition, created=False, unchanged=True)
    stored = StoredDefinition(
        id=definition.id,
        project=definition.project,
        hash=definition.hash,
        document=document,
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

    Raises:
        InvalidArgument: as ``parse``.
        PermissionDenied: the caller is not an operator (admission admits operators only).
    """
    definition = parse(document, format=format, origin="request", env=os.environ if env is None else env)
    by = caller.operator or "operator"

    def work(tx: Tx) -> Registered:
        registered = _put(tx, definition, by, now)
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
    """Store definitions imported at start (one transaction; unchanged ones write nothing)."""

    def work(tx: Tx) -> list[Registered]:
        return [_put(tx, definition, IMPORTED_BY, now) for definition in imported]

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
