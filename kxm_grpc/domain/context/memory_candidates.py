"""Memory candidates: notes waiting for an operator, and the record file a promotion makes (spec §5.11).

In the original, ``kxm memory note`` writes ``.kxm/memory/candidates/cand_<scope>_<12 hex>.md``
(kind default ``learning``, provenance ``command``, authority ``evidence``, confidence
``probable``), which the loader never reads. Here ``ProposeMemory`` keeps the note in the hub,
never in the pool, and ``PromoteMemory`` (an operator other than the proposer) turns it into the
text of a ``kxm.memory.v1`` file: the operator adds it to the memory directory and syncs, so
memory stays what a sync loads and the revision covers it.

The promoted record's source type is ``human``: the operator's promotion is what vouches for it,
whoever noted it; its source ref says ``memory-candidate:<id> proposed-by:<who> promoted-by:<op>``,
its authority is ``promoted`` unless the operator chooses ``instruction`` or ``evidence``, its
confidence ``probable`` unless chosen, its timestamp the promotion's. The file is parsed back with
the sync's own parser before it is returned, so it always syncs (unless its id is taken).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from kxm_grpc.domain.clock import rfc3339
from kxm_grpc.domain.context.items import (
    MAX_EVIDENCE_REF_CHARS,
    MAX_ID_REFS,
    MAX_SUMMARY_CHARS,
    Confidence,
    Scope,
    SourceType,
    check_text,
    redact,
)
from kxm_grpc.domain.context.memory import (
    MAX_KIND_CHARS,
    MAX_RECORD_ID_CHARS,
    SCHEMA,
    MemoryFile,
    RecordAuthority,
    parse_file,
    record_id_valid,
)
from kxm_grpc.errors import FieldViolation, InvalidArgument, Reason, invalid_field

CANDIDATE_PREFIX = "cand_"
DEFAULT_KIND = "learning"
MAX_OPEN = 64
"""Open candidates of one project."""
MAX_DECIDED = 64
"""Decided candidates a project keeps (the newest), for the record of who decided."""
MAX_REASON_CHARS = 1_000
MAX_CANDIDATE_ID_CHARS = 64


class Status:
    """A candidate's status."""

    OPEN = "open"
    PROMOTED = "promoted"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One noted fact and what became of it."""

    id: str
    project: str
    scope: Scope
    kind: str
    summary: str
    evidence_refs: tuple[str, ...]
    proposed_by: str
    origin: SourceType
    create_time: int
    status: str = Status.OPEN
    decided_by: str = ""
    record_id: str = ""
    reason: str = ""


def _invalid(field: str, description: str) -> InvalidArgument:
    return invalid_field(field, description, reason=Reason.INVALID_MEMORY_RECORD)


def check_note(
    scope: Scope | None, kind: str, summary: str, evidence_refs: Sequence[str]
) -> tuple[Scope, str, str, tuple[str, ...]]:
    """A note's scope (default project), kind (default ``learning``), summary (redacted) and refs.

    Raises:
        InvalidArgument: (INVALID_MEMORY_RECORD) an empty or over-long summary or kind, an empty,
            over-long or repeated ref; (CONTEXT_LIMITS_EXCEEDED) more than 64 refs.
    """
    label = (
        DEFAULT_KIND
        if not kind.strip()
        else check_text("kind", kind, MAX_KIND_CHARS, reason=Reason.INVALID_MEMORY_RECORD)
    )
    text = redact(check_text("summary", summary, MAX_SUMMARY_CHARS, reason=Reason.INVALID_MEMORY_RECORD))
    if len(evidence_refs) > MAX_ID_REFS:
        description = f"exceeds {MAX_ID_REFS} references"
        raise InvalidArgument(
            f"evidence_refs: {description}",
            reason=Reason.CONTEXT_LIMITS_EXCEEDED,
            metadata={"field": "evidence_refs", "limit": str(MAX_ID_REFS)},
            field_violations=(FieldViolation("evidence_refs", description),),
        )
    refs: list[str] = []
    for ref in evidence_refs:
        checked = check_text("evidence_refs", ref, MAX_EVIDENCE_REF_CHARS, reason=Reason.INVALID_MEMORY_RECORD)
        if checked in refs:
            raise _invalid("evidence_refs", f"names {checked} twice")
        refs.append(checked)
    return scope or Scope.PROJECT, label, text, tuple(refs)


def candidate_id(scope: Scope, project: str, proposer: str, create_time: int, summary: str, attempt: int = 0) -> str:
    """``cand_<scope>_`` and 12 hex digits of the SHA-256 of what makes the note (``attempt`` moves
    it on the rare collision)."""
    material = "\0".join((project, proposer, str(create_time), summary, str(attempt)))
    return (
        f"{CANDIDATE_PREFIX}{scope.value}_{hashlib.sha256(material.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"
    )


def check_candidate_id(value: str) -> str:
    """A candidate id as a request names it.

    Raises:
        InvalidArgument: (INVALID_MEMORY_RECORD, ``candidate_id``) empty, over-long, or not ``cand_…``.
    """
    text = check_text("candidate_id", value, MAX_CANDIDATE_ID_CHARS, reason=Reason.INVALID_MEMORY_RECORD)
    if not text.startswith(CANDIDATE_PREFIX):
        raise _invalid("candidate_id", "must start with cand_")
    return text


def check_reason(value: str) -> str:
    """A rejection's reason: at most 1,000 characters, redacted (empty allowed).

    Raises:
        InvalidArgument: (INVALID_MEMORY_RECORD, ``reason``) over-long, or holding NUL.
    """
    if not value.strip():
        return ""
    return redact(check_text("reason", value, MAX_REASON_CHARS, reason=Reason.INVALID_MEMORY_RECORD))


_NOT_YAML_PRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")
"""What JSON leaves as is but YAML cannot print, or folds as a line break (NEL, LS, PS)."""


def _yaml(value: str) -> str:
    """A YAML double-quoted scalar: JSON's escapes are YAML's, non-ASCII is kept as is, and what
    YAML cannot print or would fold is escaped as ``\\uXXXX``, so the record reads back as written."""
    return _NOT_YAML_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def record_file(
    candidate: Candidate,
    *,
    record_id: str,
    authority: str,
    confidence: Confidence | None,
    promoted_by: str,
    now: int,
) -> MemoryFile:
    """The ``kxm.memory.v1`` file a promotion of ``candidate`` makes, checked by the sync's parser.

    Raises:
        InvalidArgument: (INVALID_MEMORY_RECORD) a malformed record id or authority (fields
            ``record_id``, ``authority``), or a record the candidate cannot make.
    """
    rid = check_text("record_id", record_id, MAX_RECORD_ID_CHARS, reason=Reason.INVALID_MEMORY_RECORD)
    if not record_id_valid(rid):
        raise _invalid("record_id", "must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$ (any case)")
    chosen = authority.strip() or RecordAuthority.PROMOTED.value
    if chosen not in {member.value for member in RecordAuthority}:
        raise _invalid("authority", "must be promoted, instruction or evidence")
    source_ref = f"memory-candidate:{candidate.id} proposed-by:{candidate.proposed_by} promoted-by:{promoted_by}"
    lines = [
        "---",
        f"schema: {SCHEMA}",
        f"id: {_yaml(rid)}",
        f"scope: {candidate.scope.value}",
        f"kind: {_yaml(candidate.kind)}",
        f"summary: {_yaml(candidate.summary)}",
        "provenance:",
        f"  sourceType: {SourceType.HUMAN.value}",
        f"  sourceRef: {_yaml(source_ref)}",
        f"  timestamp: {rfc3339(now)}",
        f"authority: {chosen}",
        f"confidence: {(confidence or Confidence.PROBABLE).value}",
        "lifecycle: active",
    ]
    if candidate.evidence_refs:
        lines.append(f"evidenceRefs: [{', '.join(_yaml(ref) for ref in candidate.evidence_refs)}]")
    lines += ["---", ""]
    made = MemoryFile(f"{rid}.md", "\n".join(lines))
    try:
        parse_file(made, project=candidate.project)
    except InvalidArgument as error:
        field = error.metadata.get("field", "record")
        raise _invalid("record_id", f"the candidate makes no valid record ({field})") from None
    return made
