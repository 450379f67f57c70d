"""Memory records (``kxm.memory.v1``) as context items, and the memory revision (spec §5.11, §5.14, §11.8).

In the original, memory records are Markdown files with YAML front matter in a project's Git
checkout (``.kxm/memory/*.md``) that the hub reads itself. Here an operator loads them
(``SyncMemory``, ``kxm context memory sync DIR``): the client sends the text of the top-level
``*.md`` files of a directory, and this module parses and checks each one and maps it to an item.

A file is ``---``, YAML front matter, ``---``, then an optional body (kept in the revision, never
stored). The front matter's fields (every other name refused, a control-plane name with
CONTEXT_AUTHORITY_VIOLATION as for any item):

- ``schema``: ``kxm.memory.v1``;
- ``id``: ``^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$`` without case, at most 124 characters (the item's
  ``mem_<id>`` is at most 128);
- ``scope``: ``agent``, ``project``, ``run`` or ``operator``;
- ``kind``: a non-empty label of at most 64 characters (``convention``, ``learning``);
- ``summary``: 1 to 4,000 characters, stored redacted;
- ``provenance``: ``sourceType`` from the closed set ``RECORD_SOURCE_TYPES`` (the context source
  types but ``derived``: §11.8 says the original's free text is a weakness), optional
  ``sourceRef`` (at most 512, redacted), ``runId`` (at most 128) and ``timestamp`` (RFC 3339: the
  item's ``observedAt``);
- ``authority``: ``instruction``, ``evidence`` or ``promoted``;
- ``confidence``: ``verified``, ``probable`` or ``uncertain``;
- ``lifecycle``: ``active``, ``deprecated`` or ``superseded``;
- ``evidenceRefs``: optional list of strings or integers (stringified), at most 64, unique.

Record → item (§5.11, seed 004): id ``mem_<id>``; project ``_shared`` for ``operator`` scope, else the
syncing project; kind ``knowledge``; authority ``instruction`` for ``instruction`` and ``promoted``,
``evidence`` for ``evidence``; confidence copied; status ``current``; scope copied; provenance
source type the record's, source ref ``memory:<syncing project>/<path>`` (which names the project
that owns a ``_shared`` memory item); evidence refs copied. The write's origin is ``human``: the
operator's credential grants ``instruction``, never the file; the record's source type still caps
its authority (an ``instruction`` record of source ``peer`` is refused, as any item would be).
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from kxm_grpc.domain.context.items import (
    MAX_ID_CHARS,
    MAX_SOURCE_REF_CHARS,
    MAX_SUMMARY_CHARS,
    SHARED_PROJECT,
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    Scope,
    SourceType,
    Status,
    check_item,
    check_text,
    redact,
    refuse_control_plane_fields,
    time_field,
)
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.workflows.documents import DocumentError, decode
from kxm_grpc.errors import FieldViolation, HubError, InvalidArgument, Reason, invalid_field

SCHEMA = "kxm.memory.v1"
MEMORY_ITEM_PREFIX = "mem_"
"""Every memory item's id starts with it; only SyncMemory writes such ids (PutItems refuses them)."""
MEMORY_SOURCE_PREFIX = "memory:"
REVISION_PREFIX = "ctxrev_"
MEMORY_DRIFT_GAP = "memory_revision_drift"
"""The gap of a packet for a run that pinned another memory revision than its project's now (§5.14):
the packet holds the project's current memory, not the one the run started with."""
MAX_FILES = 128
"""Files of one sync."""
MAX_FILE_BYTES = 16 * 1024
"""One file's text, in UTF-8 bytes."""
MAX_SYNC_BYTES = 192 * 1024
"""All files of one sync, in UTF-8 bytes (a request is at most 256 KiB)."""
MAX_PATH_CHARS = 128
MAX_RECORD_ID_CHARS = MAX_ID_CHARS - len(MEMORY_ITEM_PREFIX)
MAX_KIND_CHARS = 64
MAX_RUN_ID_CHARS = 128

RECORD_SOURCE_TYPES = (
    SourceType.HUMAN,
    SourceType.GIT,
    SourceType.WORKFLOW,
    SourceType.TOOL,
    SourceType.PEER,
    SourceType.EXTERNAL,
)
"""The closed set of a record's ``provenance.sourceType``: the context source types but ``derived``
(a record has no lineage to derive from)."""

_E = TypeVar("_E", bound=enum.Enum)
_RECORD_ID = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*", re.IGNORECASE)
_FIELDS = frozenset(
    {"schema", "id", "scope", "kind", "summary", "provenance", "authority", "confidence", "lifecycle", "evidenceRefs"}
)
_PROVENANCE_FIELDS = frozenset({"sourceType", "sourceRef", "runId", "timestamp"})


class RecordAuthority(enum.Enum):
    """A record's authority as written."""

    INSTRUCTION = "instruction"
    EVIDENCE = "evidence"
    PROMOTED = "promoted"


class Lifecycle(enum.Enum):
    """A record's lifecycle: only ``active`` records become items."""

    ACTIVE = "active"
    DEPRECATED = "deprecated"
    SUPERSEDED = "superseded"


STORED_SCOPES = (Scope.PROJECT, Scope.OPERATOR)
"""The scopes a sync stores; ``agent`` and ``run`` records bind to nothing here (counted, not stored)."""


@dataclass(frozen=True, slots=True)
class MemoryFile:
    """One file of a sync: its name in the memory directory and its text."""

    path: str
    content: str


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One checked record and the item it maps to (checked too, even when it is not stored)."""

    path: str
    record_id: str
    scope: Scope
    kind: str
    authority: RecordAuthority
    lifecycle: Lifecycle
    source_ref: str | None
    """The record's own ``provenance.sourceRef``, redacted."""
    run_id: str | None
    item: ContextItem

    @property
    def stored(self) -> bool:
        """Whether a sync stores it: active, and of project or operator scope."""
        return self.lifecycle is Lifecycle.ACTIVE and self.scope in STORED_SCOPES


def memory_item_id(record_id: str) -> str:
    """The id of a record's item: ``mem_<id>``."""
    return MEMORY_ITEM_PREFIX + record_id


def record_id_valid(record_id: str) -> bool:
    """Whether ``record_id`` matches ``^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$`` (any case)."""
    return _RECORD_ID.fullmatch(record_id) is not None


def memory_source_ref(project: str, path: str, *, shared_record_id: str | None = None) -> str:
    """A memory item's source ref: ``memory:<project>/<path>`` (the project whose sync wrote it),
    or for a ``_shared`` item, which every project reads, ``memory:_shared/<record id>``: neither
    the owning project nor its file names are another project's to read (the owner is kept in the
    hub's settings, ``services.context.memory``)."""
    if shared_record_id is not None:
        return f"{MEMORY_SOURCE_PREFIX}{SHARED_PROJECT}/{shared_record_id}"
    return f"{MEMORY_SOURCE_PREFIX}{project}/{path}"


def memory_owner(item: ContextItem) -> str | None:
    """The project a memory item's source ref names (``_shared`` for a shared item synced since
    its owner moved out of the ref); None for any other item."""
    ref = item.provenance.source_ref
    if not item.id.startswith(MEMORY_ITEM_PREFIX) or ref is None or not ref.startswith(MEMORY_SOURCE_PREFIX):
        return None
    owner, slash, _ = ref[len(MEMORY_SOURCE_PREFIX) :].partition("/")
    return owner if slash and owner else None


def revision(files: Sequence[MemoryFile]) -> str:
    """``ctxrev_`` and the SHA-256 hex over the files by path (UTF-16 code units), each as
    ``memory:<path>`` NUL, its UTF-8 bytes, NUL (§5.14's memory part): the same files in any
    order give the same revision, and one byte changed changes it."""
    hashed = hashlib.sha256()
    for file in sorted(files, key=lambda f: code_unit_key(f.path)):
        hashed.update(f"memory:{file.path}".encode() + b"\0")
        hashed.update(file.content.encode("utf-8", "surrogatepass") + b"\0")
    return REVISION_PREFIX + hashed.hexdigest()


# -- checks -----------------------------------------------------------------------------------------


def _limit(field: str, description: str, limit: int) -> InvalidArgument:
    return InvalidArgument(
        f"{field}: {description}",
        reason=Reason.CONTEXT_LIMITS_EXCEEDED,
        metadata={"field": field, "limit": str(limit)},
        field_violations=(FieldViolation(field, description),),
    )


def check_limits(files: Sequence[MemoryFile], *, allow_empty: bool = False) -> None:
    """The sync's size: 1 to 128 files (0 with ``allow_empty``), each at most 16 KiB, 192 KiB in all.

    Raises:
        InvalidArgument: (CONTEXT_LIMITS_EXCEEDED) naming ``files`` or ``files[i].content``; no
            file without ``allow_empty`` (naming ``allow_empty``: a sync of the wrong folder must
            not empty a project's memory).
    """
    if not files and not allow_empty:
        raise _limit(
            "allow_empty",
            "no file was sent: set allow_empty (kxm context memory sync --allow-empty) to empty the memory",
            MAX_FILES,
        )
    if len(files) > MAX_FILES:
        raise _limit("files", f"at most {MAX_FILES} files are allowed, not {len(files)}", MAX_FILES)
    total = 0
    for index, file in enumerate(files):
        size = len(file.content.encode("utf-8", "surrogatepass"))
        if size > MAX_FILE_BYTES:
            error = _limit(f"files[{index}].content", f"exceeds {MAX_FILE_BYTES} bytes", MAX_FILE_BYTES)
            error.metadata["index"] = str(index)
            raise error
        total += size
    if total > MAX_SYNC_BYTES:
        raise _limit("files", f"the files exceed {MAX_SYNC_BYTES} bytes in all", MAX_SYNC_BYTES)


@contextlib.contextmanager
def in_file(index: int, path: str) -> Iterator[None]:
    """Name the file (``path``, ``index``) in any error raised inside; an InvalidArgument becomes
    INVALID_MEMORY_RECORD naming ``files[index].content`` and the record's field."""
    try:
        yield
    except InvalidArgument as error:
        if error.reason is Reason.CONTEXT_LIMITS_EXCEEDED and error.metadata.get("field", "").startswith("files"):
            raise
        field = error.metadata.get("field", "content")
        description = error.field_violations[0].description if error.field_violations else error.message
        raise InvalidArgument(
            f"files[{index}] ({path}): {field}: {description}",
            reason=Reason.INVALID_MEMORY_RECORD,
            metadata={"path": path, "index": str(index), "field": field},
            field_violations=(FieldViolation(f"files[{index}].content", f"{field}: {description}"),),
        ) from None
    except HubError as error:
        error.metadata.setdefault("path", path)
        error.metadata.setdefault("index", str(index))
        raise


def _record_error(field: str, description: str) -> InvalidArgument:
    return invalid_field(field, description, reason=Reason.INVALID_MEMORY_RECORD)


def check_path(index: int, path: str) -> str:
    """A file's name: 1 to 128 characters, ending with ``.md``, no ``/``, ``\\`` or NUL.

    Raises:
        InvalidArgument: (INVALID_MEMORY_RECORD) naming ``files[index].path``.
    """
    field = f"files[{index}].path"
    try:
        name = check_text(field, path, MAX_PATH_CHARS, reason=Reason.INVALID_MEMORY_RECORD)
    except InvalidArgument as error:
        error.metadata.update({"index": str(index), "path": path[:MAX_PATH_CHARS]})
        raise
    if name != path or "/" in name or "\\" in name or not name.endswith(".md") or name.startswith("."):
        refused = _record_error(field, "must be a file name ending with .md (no directory, not hidden)")
        refused.metadata.update({"index": str(index), "path": path[:MAX_PATH_CHARS]})
        raise refused
    return name


def front_matter(content: str) -> Mapping[str, object]:
    """The front matter of a file: the YAML between a first line ``---`` and the next ``---`` line.

    Raises:
        InvalidArgument: (INVALID_MEMORY_RECORD, field ``frontMatter``) none, or not a YAML mapping.
    """
    lines = content.removeprefix("\ufeff").split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        raise _record_error("frontMatter", "a memory file starts with a --- line")
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r") == "---":
            break
    else:
        raise _record_error("frontMatter", "the front matter has no closing --- line")
    try:
        value = decode("\n".join(lines[1:end]), origin="memory.yaml", format="yaml")
    except DocumentError as error:
        raise _record_error("frontMatter", str(error)) from None
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise _record_error("frontMatter", "must be a YAML mapping with text keys")
    return value


def parse_file(file: MemoryFile, *, project: str) -> MemoryRecord:
    """Check one file (its path checked already) and map its record to an item of ``project``.

    Raises:
        InvalidArgument: (INVALID_MEMORY_RECORD and the item rules' reasons) a malformed record.
        PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION) a control-plane field, or an authority above
            the record's source type's.
    """
    raw = front_matter(file.content)
    refuse_control_plane_fields(raw, where="memory record")
    provenance = raw.get("provenance")
    if not isinstance(provenance, Mapping) or not all(isinstance(key, str) for key in provenance):
        raise _record_error("provenance", "must be a mapping with a sourceType")
    refuse_control_plane_fields(provenance, where="memory record provenance")
    unknown = sorted((str(name) for name in raw if name not in _FIELDS), key=code_unit_key)
    if unknown:
        raise _record_error(unknown[0], "is not a kxm.memory.v1 field")
    unknown = sorted((str(name) for name in provenance if name not in _PROVENANCE_FIELDS), key=code_unit_key)
    if unknown:
        raise _record_error(f"provenance.{unknown[0]}", "is not a provenance field")
    if raw.get("schema") != SCHEMA:
        raise _record_error("schema", f"must be {SCHEMA}")
    record_id = _string(raw, "id", MAX_RECORD_ID_CHARS)
    if not record_id_valid(record_id):
        raise _record_error("id", "must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$ (any case)")
    scope = _choice(Scope, raw, "scope", tuple(Scope))
    kind = _string(raw, "kind", MAX_KIND_CHARS)
    summary = _string(raw, "summary", MAX_SUMMARY_CHARS)
    source_type = _choice(SourceType, provenance, "sourceType", RECORD_SOURCE_TYPES, "provenance.")
    source_ref = _optional_string(provenance, "sourceRef", MAX_SOURCE_REF_CHARS, "provenance.")
    run_id = _optional_string(provenance, "runId", MAX_RUN_ID_CHARS, "provenance.")
    observed_at = time_field(provenance, "timestamp", "provenance.")
    authority = _choice(RecordAuthority, raw, "authority", tuple(RecordAuthority))
    confidence = _choice(Confidence, raw, "confidence", tuple(Confidence))
    lifecycle = _choice(Lifecycle, raw, "lifecycle", tuple(Lifecycle))
    evidence_refs = _refs(raw)
    item = ContextItem(
        id=memory_item_id(record_id),
        kind=Kind.KNOWLEDGE,
        project=SHARED_PROJECT if scope is Scope.OPERATOR else project,
        summary=summary,
        provenance=Provenance(
            source_type,
            memory_source_ref(project, file.path, shared_record_id=record_id if scope is Scope.OPERATOR else None),
        ),
        authority=Authority.EVIDENCE if authority is RecordAuthority.EVIDENCE else Authority.INSTRUCTION,
        confidence=confidence,
        scope=scope,
        status=Status.CURRENT,
        observed_at=observed_at,
        evidence_refs=evidence_refs,
    )
    checked = check_item(item, origin=SourceType.HUMAN)
    redacted_ref = None if source_ref is None else redact(source_ref)
    return MemoryRecord(file.path, record_id, scope, kind, authority, lifecycle, redacted_ref, run_id, checked)


def parse_files(files: Sequence[MemoryFile], *, project: str, allow_empty: bool = False) -> list[MemoryRecord]:
    """Every file's record, in request order, once the whole set is valid: limits, paths (each
    once), records (each id once). One bad file refuses them all.

    Raises:
        InvalidArgument, PermissionDenied: as ``check_limits``, ``check_path`` and ``parse_file``,
            naming the file (metadata ``path``, ``index``).
    """
    check_limits(files, allow_empty=allow_empty)
    paths: set[str] = set()
    for index, file in enumerate(files):
        path = check_path(index, file.path)
        if path in paths:
            error = _record_error(f"files[{index}].path", f"names file {path} twice")
            error.metadata.update({"index": str(index), "path": path})
            raise error
        paths.add(path)
    records: list[MemoryRecord] = []
    ids: set[str] = set()
    for index, file in enumerate(files):
        with in_file(index, file.path):
            record = parse_file(file, project=project)
            if record.record_id in ids:
                raise _record_error("id", f"record id {record.record_id} is in another file of this sync too")
        ids.add(record.record_id)
        records.append(record)
    return records


# -- field readers ----------------------------------------------------------------------------------


def _string(raw: Mapping[str, object], name: str, max_chars: int, prefix: str = "") -> str:
    value = raw.get(name)
    if not isinstance(value, str):
        raise _record_error(prefix + name, "is required and must be text")
    return check_text(prefix + name, value, max_chars, reason=Reason.INVALID_MEMORY_RECORD)


def _optional_string(raw: Mapping[str, object], name: str, max_chars: int, prefix: str = "") -> str | None:
    return None if raw.get(name) is None else _string(raw, name, max_chars, prefix)


def _choice(cls: type[_E], raw: Mapping[str, object], name: str, allowed: tuple[_E, ...], prefix: str = "") -> _E:
    value = raw.get(name)
    for member in allowed:
        if member.value == value:
            return member
    names = ", ".join(str(member.value) for member in allowed)
    raise _record_error(prefix + name, f"must be one of {names}")


def _refs(raw: Mapping[str, object]) -> tuple[str, ...]:
    value = raw.get("evidenceRefs")
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(ref, str) or (isinstance(ref, int) and not isinstance(ref, bool)) for ref in value
    ):
        raise _record_error("evidenceRefs", "must be a list of strings or integers")
    return tuple(str(ref) for ref in value)
