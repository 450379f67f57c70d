"""Context items: the vocabulary, the ContextItem type and its validation (spec §5.1, §11.4a).

An item is one unit of context with explicit provenance and authority. ``check_item`` applies
every limit of §5.1 to a typed item; ``parse_item`` does the same to a JSON-shaped mapping (a
memory file's front matter, a tool call's arguments) and first refuses control-plane field names.

Authority is capped twice. The item's own ``sourceType`` has a grant floor (§5.1), and so has the
*origin* of the write, which the caller derives from the verified credential and passes in: an
agent writes as ``peer``, an operator or the admin as ``human``, the hub itself (journal entries,
verified evidence) as ``workflow``. The origin is never read from the item: a label an agent writes
(``sourceType: human``, ``proposedBy: …``) grants nothing (§11.4a). The label itself is refused
(403) when its grant floor is above the origin's, even if the authority claimed is within both
floors: an agent cannot write an ``evidence`` item labelled ``human`` or ``git``.

Text fields follow the hub's rule (``check_text``): trimmed, not empty, no NUL, no surrogate code
point, limits in UTF-16 code units on the text as written (secrets are redacted after the check;
long hex is spared: items carry content hashes). Times are microseconds in UTC years 0001-9999;
the JSON shape takes strict RFC 3339 text with ASCII digits only.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TypeVar

from kxm_grpc.domain import validation
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.workflows import redaction
from kxm_grpc.errors import InvalidArgument, PermissionDenied, Reason, invalid_field

SCHEMA = "kxm.context-item.v1"
SHARED_PROJECT = "_shared"
"""The project of operator-scope defaults: visible to every project, ranked after its own items."""

MAX_ID_CHARS = 128
MAX_PROJECT_CHARS = 200
MAX_SUMMARY_CHARS = 4_000
MAX_SOURCE_REF_CHARS = 512
MAX_STATE_KEY_CHARS = 200
MAX_ID_REFS = 64
MAX_EVIDENCE_REF_CHARS = 200
"""One ``evidenceRefs`` entry: a reference (``peer:msg_…``, a journal's evidence ref of 1-200
characters, §5.10), not an item id; ``supersedes`` and ``derivedFrom`` hold item ids."""
MAX_ITEMS = 256
"""Items in one packet (``MAX_CONTEXT_ITEMS``)."""
MAX_LINEAGE = 64
"""Ancestors of one derived item (``MAX_CONTEXT_LINEAGE``)."""
MIN_TIME = -62_135_596_800_000_000
"""0001-01-01T00:00:00Z in microseconds: item times are UTC years 0001-9999, the range RFC 3339
text (four-digit years) and a protobuf Timestamp can hold."""
MAX_TIME = 253_402_300_799_999_999
"""9999-12-31T23:59:59.999999Z in microseconds."""


class Kind(enum.Enum):
    """What an item is."""

    EVIDENCE = "evidence"
    STATE = "state"
    EPISODE = "episode"
    KNOWLEDGE = "knowledge"
    SKILL = "skill"


class SourceType(enum.Enum):
    """Where an item came from; also the origin of a write (see the module docstring)."""

    HUMAN = "human"
    GIT = "git"
    WORKFLOW = "workflow"
    TOOL = "tool"
    PEER = "peer"
    EXTERNAL = "external"
    DERIVED = "derived"


class Authority(enum.Enum):
    """How binding an item is: policy > instruction > evidence > hypothesis."""

    POLICY = "policy"
    INSTRUCTION = "instruction"
    EVIDENCE = "evidence"
    HYPOTHESIS = "hypothesis"

    @property
    def rank(self) -> int:
        """3 for policy down to 0 for hypothesis (``authorityRank``)."""
        return _AUTHORITY_RANK[self]


class Confidence(enum.Enum):
    """How sure the source is: verified > probable > uncertain."""

    VERIFIED = "verified"
    PROBABLE = "probable"
    UNCERTAIN = "uncertain"

    @property
    def rank(self) -> int:
        """3 for verified down to 1 for uncertain (``CONFIDENCE_RANK``)."""
        return _CONFIDENCE_RANK[self]


class Scope(enum.Enum):
    """Who an item applies to."""

    AGENT = "agent"
    PROJECT = "project"
    RUN = "run"
    OPERATOR = "operator"


class Status(enum.Enum):
    """An item's standing."""

    CURRENT = "current"
    SUPERSEDED = "superseded"
    PROPOSED = "proposed"
    REJECTED = "rejected"


_AUTHORITY_RANK = {Authority.POLICY: 3, Authority.INSTRUCTION: 2, Authority.EVIDENCE: 1, Authority.HYPOTHESIS: 0}
_CONFIDENCE_RANK = {Confidence.VERIFIED: 3, Confidence.PROBABLE: 2, Confidence.UNCERTAIN: 1}

GRANT_FLOOR: Mapping[SourceType, Authority] = {
    SourceType.HUMAN: Authority.POLICY,
    SourceType.WORKFLOW: Authority.POLICY,
    SourceType.GIT: Authority.INSTRUCTION,
    SourceType.PEER: Authority.EVIDENCE,
    SourceType.TOOL: Authority.EVIDENCE,
    SourceType.EXTERNAL: Authority.EVIDENCE,
    SourceType.DERIVED: Authority.EVIDENCE,
}
"""The most authority content of each origin can carry (``AUTHORITY_GRANT_FLOOR``)."""

CONTROL_PLANE_FIELDS = frozenset(
    {
        "permissions",
        "tools",
        "allow",
        "deny",
        "grants",
        "approval",
        "policy",
        "scopes",
        "credentials",
        "secrets",
        "token",
        "apiKey",
        "password",
    }
)
"""Field names an item may never carry: context informs behaviour, it never grants anything."""
_CONTROL_PLANE_FOLDED = frozenset(name.lower() for name in CONTROL_PLANE_FIELDS)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where an item came from; never changes for the lifetime of an item id."""

    source_type: SourceType
    source_ref: str | None = None
    derived_from: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One unit of context (``kxm.context-item.v1``). Times are microseconds since the epoch, the
    hub's unit (the original compares milliseconds: two times within one millisecond order here by
    time, there by id)."""

    id: str
    kind: Kind
    project: str
    summary: str
    provenance: Provenance
    authority: Authority
    confidence: Confidence
    scope: Scope | None = None
    status: Status | None = None
    state_key: str | None = None
    observed_at: int | None = None
    valid_from: int | None = None
    valid_until: int | None = None
    supersedes: tuple[str, ...] = ()
    evidence_refs: tuple[str, ...] = ()


# -- checks -----------------------------------------------------------------------------------------


def refuse_control_plane_fields(names: Iterable[str], *, where: str = "item") -> None:
    """Refuse a control-plane field name (``permissions``, ``apiKey``, …), compared without case,
    ``_`` or ``-`` (so ``api_key`` and ``Permissions`` are refused too).

    Raises:
        PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION) naming the field.
    """
    for name in names:
        if name.replace("_", "").replace("-", "").lower() in _CONTROL_PLANE_FOLDED:
            raise PermissionDenied(
                f"context {where} may not carry control-plane field {name!r}",
                reason=Reason.CONTEXT_AUTHORITY_VIOLATION,
                metadata={"field": name},
            )


def check_item(item: ContextItem, *, origin: SourceType) -> ContextItem:
    """Return ``item`` with its strings trimmed and redacted, once every rule of §5.1 holds.

    ``origin`` is the source of the write as the verified credential says (agent → ``PEER``,
    operator or admin → ``HUMAN``, the hub itself → ``WORKFLOW``).

    Raises:
        InvalidArgument: a field is empty, too long or malformed (INVALID_CONTEXT_FIELD); a state
            item lacks a key or a status, or an item supersedes itself (INVALID_CONTEXT_ITEM); a
            list holds more than 64 ids (CONTEXT_LIMITS_EXCEEDED).
        PermissionDenied: the item claims a source or an authority above the origin's grant floor
            (CONTEXT_AUTHORITY_VIOLATION); a non-operator writes ``_shared``
            (CONTEXT_ISOLATION_VIOLATION).
    """
    item_id = _text("id", item.id, MAX_ID_CHARS)
    project = _text("project", item.project, MAX_PROJECT_CHARS)
    # The limit applies to what the caller wrote; the redacted text may be a little longer (as the
    # original's redactSecrets(requireString(..., {max}))).
    summary = _redact(_text("summary", item.summary, MAX_SUMMARY_CHARS))
    source_ref = (
        None
        if item.provenance.source_ref is None
        else _redact(_text("provenance.sourceRef", item.provenance.source_ref, MAX_SOURCE_REF_CHARS))
    )
    derived_from = _id_refs("provenance.derivedFrom", item.provenance.derived_from, MAX_ID_CHARS)
    supersedes = _id_refs("supersedes", item.supersedes, MAX_ID_CHARS)
    evidence_refs = _id_refs("evidenceRefs", item.evidence_refs, MAX_EVIDENCE_REF_CHARS)
    state_key = None if item.state_key is None else _text("stateKey", item.state_key, MAX_STATE_KEY_CHARS)
    for field, moment in (
        ("observedAt", item.observed_at),
        ("validFrom", item.valid_from),
        ("validUntil", item.valid_until),
    ):
        if moment is not None and not MIN_TIME <= moment <= MAX_TIME:
            raise invalid_field(field, "must be in UTC years 0001-9999", reason=Reason.INVALID_CONTEXT_FIELD)
    if item_id in supersedes:
        raise _invalid_item("a context item cannot supersede itself", "supersedes")
    if item.kind is Kind.STATE and state_key is None:
        raise _invalid_item("state items require a stateKey", "stateKey")
    if item.kind is Kind.STATE and item.status is None:
        raise _invalid_item("state items require an explicit lifecycle status", "status")
    source = item.provenance.source_type
    if GRANT_FLOOR[source].rank > GRANT_FLOOR[origin].rank:
        raise _authority(f"a {origin.value} origin cannot write content of source type {source.value}")
    if item.authority.rank > GRANT_FLOOR[source].rank:
        raise _authority(f"content of origin {source.value} cannot claim {item.authority.value} authority")
    if project == SHARED_PROJECT and origin is not SourceType.HUMAN:
        raise PermissionDenied(
            f"only an operator writes {SHARED_PROJECT} context",
            reason=Reason.CONTEXT_ISOLATION_VIOLATION,
            metadata={"project": project},
        )
    return replace(
        item,
        id=item_id,
        project=project,
        summary=summary,
        provenance=Provenance(source, source_ref, derived_from),
        state_key=state_key,
        supersedes=supersedes,
        evidence_refs=evidence_refs,
    )


def project_for_scope(scope: Scope | None, project: str) -> str:
    """The project an item of ``scope`` lives in: operator scope is ``_shared``, else ``project``."""
    return SHARED_PROJECT if scope is Scope.OPERATOR else project


def check_text(field: str, value: str, max_chars: int, *, reason: Reason) -> str:
    """Return ``value`` trimmed, under the hub's rule for text (``validation.required_text``): not
    empty, no NUL, at most ``max_chars`` UTF-16 code units; other control characters (an ANSI
    escape in a gate's output) are kept. A surrogate code point is refused too, as the hub's plan,
    definition and webhook readers do: UTF-8 cannot store it, it has no UTF-16 length of its own,
    and ``"\\ud83d\\ude00"`` would order equal to the ``"\\U0001f600"`` it spells.

    Raises:
        InvalidArgument: (``reason``) naming ``field``.
    """
    text = validation.js_trim(value)
    if not text:
        raise invalid_field(field, "must not be empty", reason=reason)
    if "\x00" in text:
        raise invalid_field(field, "must not contain NUL characters", reason=reason)
    if _SURROGATE.search(text):
        raise invalid_field(field, "must not contain unpaired surrogates", reason=reason)
    if validation.utf16_length(text) > max_chars:
        raise invalid_field(field, f"exceeds {max_chars} characters", reason=reason)
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(field: str, value: str, max_chars: int) -> str:
    return check_text(field, value, max_chars, reason=Reason.INVALID_CONTEXT_FIELD)


def _id_refs(field: str, values: tuple[str, ...], max_chars: int) -> tuple[str, ...]:
    if len(values) > MAX_ID_REFS:
        raise InvalidArgument(
            f"{field}: exceeds {MAX_ID_REFS} references",
            reason=Reason.CONTEXT_LIMITS_EXCEEDED,
            metadata={"field": field, "limit": str(MAX_ID_REFS)},
        )
    refs: list[str] = []
    for value in values:
        ref = _text(field, value, max_chars)
        if ref in refs:
            raise invalid_field(field, f"contains duplicate reference {ref}", reason=Reason.INVALID_CONTEXT_FIELD)
        refs.append(ref)
    return tuple(refs)


# Every redaction pattern but the standalone long hex: items carry content hashes and commit ids by
# design (a promoted skill's sourceRef is ``skill:<id>@<sha256>``), and hiding them breaks lookups.
_ITEM_PATTERNS = tuple(pattern for pattern in redaction.PATTERNS if pattern[0] != "hex")


def _redact(text: str) -> str:
    for _, pattern, replacement in _ITEM_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact(text: str) -> str:
    """``text`` with secrets redacted as an item's summary and source ref are (long hex spared)."""
    return _redact(text)


def _invalid_item(description: str, field: str) -> InvalidArgument:
    return invalid_field(field, description, reason=Reason.INVALID_CONTEXT_ITEM)


def _authority(message: str) -> PermissionDenied:
    return PermissionDenied(message, reason=Reason.CONTEXT_AUTHORITY_VIOLATION)


# -- the JSON shape ---------------------------------------------------------------------------------

_ITEM_FIELDS = frozenset(
    {
        "id",
        "kind",
        "project",
        "summary",
        "provenance",
        "authority",
        "confidence",
        "scope",
        "status",
        "stateKey",
        "observedAt",
        "validFrom",
        "validUntil",
        "supersedes",
        "evidenceRefs",
    }
)
_E = TypeVar("_E", bound=enum.Enum)
_PROVENANCE_FIELDS = frozenset({"sourceType", "sourceRef", "derivedFrom"})
# ASCII digits only: ``\d`` would match any Unicode digit (Arabic-Indic, fullwidth) and ``int``
# reads them.
_RFC3339 = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_item(raw: Mapping[str, object], *, origin: SourceType) -> ContextItem:
    """Build and check an item from its JSON shape (camelCase names, times as RFC 3339 text).

    Control-plane names are refused before anything else, at the top level and in ``provenance``;
    a name that is neither a field nor control-plane is refused too (never silently dropped).

    Raises:
        PermissionDenied: as ``check_item``, or a control-plane field (CONTEXT_AUTHORITY_VIOLATION).
        InvalidArgument: as ``check_item``; an unknown field, a wrong type, an unknown enum value or
            a time that is not strict RFC 3339 (INVALID_CONTEXT_FIELD / INVALID_CONTEXT_ITEM).
    """
    refuse_control_plane_fields(raw)
    provenance = raw.get("provenance")
    if not isinstance(provenance, Mapping):
        raise _invalid_item("must be an object", "provenance")
    refuse_control_plane_fields(provenance, where="provenance")
    unknown = sorted(set(raw) - _ITEM_FIELDS, key=code_unit_key)
    if unknown:
        raise invalid_field(unknown[0], "is not a context item field", reason=Reason.INVALID_CONTEXT_FIELD)
    unknown = sorted(set(provenance) - _PROVENANCE_FIELDS, key=code_unit_key)
    if unknown:
        raise invalid_field(
            f"provenance.{unknown[0]}", "is not a provenance field", reason=Reason.INVALID_CONTEXT_FIELD
        )
    item = ContextItem(
        id=_string(raw, "id"),
        kind=_enum(Kind, raw, "kind"),
        project=_string(raw, "project"),
        summary=_string(raw, "summary"),
        provenance=Provenance(
            source_type=_enum(SourceType, provenance, "sourceType", "provenance."),
            source_ref=_optional_string(provenance, "sourceRef", "provenance."),
            derived_from=_strings(provenance, "derivedFrom", "provenance."),
        ),
        authority=_enum(Authority, raw, "authority"),
        confidence=_enum(Confidence, raw, "confidence"),
        scope=None if raw.get("scope") is None else _enum(Scope, raw, "scope"),
        status=None if raw.get("status") is None else _enum(Status, raw, "status"),
        state_key=_optional_string(raw, "stateKey"),
        observed_at=_time(raw, "observedAt"),
        valid_from=_time(raw, "validFrom"),
        valid_until=_time(raw, "validUntil"),
        supersedes=_strings(raw, "supersedes"),
        evidence_refs=_strings(raw, "evidenceRefs"),
    )
    return check_item(item, origin=origin)


def _string(raw: Mapping[str, object], name: str, prefix: str = "") -> str:
    value = raw.get(name)
    if not isinstance(value, str):
        raise invalid_field(prefix + name, "must be a string", reason=Reason.INVALID_CONTEXT_FIELD)
    return value


def _optional_string(raw: Mapping[str, object], name: str, prefix: str = "") -> str | None:
    return None if raw.get(name) is None else _string(raw, name, prefix)


def _strings(raw: Mapping[str, object], name: str, prefix: str = "") -> tuple[str, ...]:
    value = raw.get(name)
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise invalid_field(prefix + name, "must be an array of identifiers", reason=Reason.INVALID_CONTEXT_FIELD)
    return tuple(value)


def _enum(cls: type[_E], raw: Mapping[str, object], name: str, prefix: str = "") -> _E:
    value = raw.get(name)
    for member in cls:
        if member.value == value:
            return member
    allowed = ", ".join(str(member.value) for member in cls)
    raise invalid_field(prefix + name, f"must be one of {allowed}", reason=Reason.INVALID_CONTEXT_FIELD)


def time_field(raw: Mapping[str, object], name: str, prefix: str = "") -> int | None:
    """``raw[name]`` as microseconds: None when absent, else strict RFC 3339 text in UTC years
    0001-9999 (a memory record's ``provenance.timestamp``).

    Raises:
        InvalidArgument: (INVALID_CONTEXT_FIELD) naming ``prefix + name``.
    """
    try:
        moment = _time(raw, name)
    except InvalidArgument:
        raise invalid_field(
            prefix + name, "must be an RFC 3339 timestamp", reason=Reason.INVALID_CONTEXT_FIELD
        ) from None
    if moment is not None and not MIN_TIME <= moment <= MAX_TIME:
        raise invalid_field(prefix + name, "must be in UTC years 0001-9999", reason=Reason.INVALID_CONTEXT_FIELD)
    return moment


def _time(raw: Mapping[str, object], name: str) -> int | None:
    value = raw.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise invalid_field(name, "must be an RFC 3339 timestamp", reason=Reason.INVALID_CONTEXT_FIELD)
    text, _, fraction = value.partition(".")
    digits = ""
    if fraction:
        digits = fraction[: len(fraction) - len(fraction.lstrip("0123456789"))]
        text += fraction[len(digits) :]
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise invalid_field(name, "must be an RFC 3339 timestamp", reason=Reason.INVALID_CONTEXT_FIELD) from None
    elapsed = moment - _EPOCH
    return (elapsed.days * 86_400 + elapsed.seconds) * 1_000_000 + int((digits + "000000")[:6])
