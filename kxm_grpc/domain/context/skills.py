"""Governed skills: candidates, evaluations, promotion, quarantine, verification (spec §5.12, §11.9).

A skill is a SKILL.md text of a project, stored by the hub (not files under ``.kxm/skills``,
decision 241). Its life::

    CreateSkill ──► candidate ──EvaluateSkill (failed functional or safety)──► quarantined
                        │  ▲                                                       │
                        │  └── EvaluateSkill (anything else: recorded) ─┐          │
                        ├──PromoteSkill (author ≠ operator, evidence,   │          │
                        │   latest static-review, sandbox, functional,  │          │
                        │   safety passed, content verifies) ──► promoted          │
                        └──RejectSkill ──► rejected ◄──RejectSkill─────────────────┘
                                              ▲
                          promoted ──RejectSkill (retired: its item closed)

Every step appends an event to the skill's history, which is never cut (§11.9 names the
original's 500-line cap a weakness). This module holds the rules, pure: the text of a skill
(front matter ensured, hashed), its id, the checks of each request, which evaluations a promotion
still lacks, and the context item a promoted skill becomes (``skill_<id>``, seed 004).
"""

from __future__ import annotations

import enum
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from kxm_grpc.domain import validation
from kxm_grpc.domain.context.items import (
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    SourceType,
    Status,
    check_text,
)
from kxm_grpc.domain.workflows.redaction import redact
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, Reason, invalid_field

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1_024
MAX_CONTENT_CHARS = 32_000
"""The content as the author sends it; the front matter the hub adds may make the stored text longer."""
MAX_SOURCES = 32
"""Each of a skill's source lists."""
MAX_REF_CHARS = 200
MAX_HARNESS_CHARS = 64
MAX_MODELS = 16
MAX_MODEL_CHARS = 128
MAX_VERSION = 1_000_000
MAX_DETAILS_CHARS = 2_000
MAX_REASON_CHARS = 1_000
MAX_EVIDENCE_REFS = 32
SLUG_CHARS = 40
HASH_PREFIX_CHARS = 12
ITEM_PREFIX = "skill_"
"""A promoted skill's context item is ``skill_<skill id>`` (seed 004)."""
SOURCE_REF_PREFIX = "skill:"
"""Its source ref is ``skill:<skill id>@<content sha256>`` (seed 004)."""
EVALUATOR = "evaluator"
"""Who quarantines a skill after a failed functional or safety evaluation (its history's actor)."""
DEFAULT_SLUG = "skill"
"""The slug of a name holding no ASCII letter or digit."""

SKILL_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\.[0-9a-f]{12}$")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_KEY_LINE = re.compile(r"^([A-Za-z0-9_-]+):(?:[ \t]+(.*))?$")
_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.,()/+-]*$")


class SkillState(enum.Enum):
    """Where a skill stands."""

    CANDIDATE = "candidate"
    PROMOTED = "promoted"
    QUARANTINED = "quarantined"
    REJECTED = "rejected"


class EvaluationKind(enum.Enum):
    """What an evaluation examined."""

    STATIC_REVIEW = "static-review"
    SANDBOX = "sandbox"
    FUNCTIONAL = "functional"
    SAFETY = "safety"
    OPTIMIZATION = "optimization"


REQUIRED_EVALUATIONS = (
    EvaluationKind.STATIC_REVIEW,
    EvaluationKind.SANDBOX,
    EvaluationKind.FUNCTIONAL,
    EvaluationKind.SAFETY,
)
"""The kinds whose latest evaluation must have passed before a promotion, in this order."""
QUARANTINING = frozenset({EvaluationKind.FUNCTIONAL, EvaluationKind.SAFETY})
"""A failed evaluation of these kinds quarantines the skill."""


class EventType(enum.Enum):
    """What happened to a skill (``kxm.skill-history-event.v1``'s ``event``)."""

    CREATED = "created"
    EVALUATED = "evaluated"
    PROMOTED = "promoted"
    QUARANTINED = "quarantined"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class Sources:
    """What a skill was learned from (each list trimmed, deduplicated, at most 32)."""

    run_ids: tuple[str, ...] = ()
    journal_entry_ids: tuple[str, ...] = ()
    evidence_receipts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Compatibility:
    """Where a skill applies."""

    harness: str
    models: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Skill:
    """A governed skill (``kxm.skill-candidate.v1`` with its state and decision)."""

    project: str
    id: str
    name: str
    description: str
    content: str
    content_sha256: str
    version: int
    sources: Sources
    compatibility: Compatibility
    created_by: str
    created_at: int
    supersedes: str | None = None
    state: SkillState = SkillState.CANDIDATE
    decided_by: str | None = None
    decided_at: int | None = None


@dataclass(frozen=True, slots=True)
class SkillEvent:
    """One entry of a skill's history; ``sequence`` from 1, in the order they happened."""

    sequence: int
    type: EventType
    actor: str
    at: int
    kind: EvaluationKind | None = None
    passed: bool | None = None
    details: str = ""
    evidence_refs: tuple[str, ...] = field(default=())
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Draft:
    """What CreateSkill asks for, as the request carries it (checked by ``candidate``)."""

    name: str
    content: str
    description: str = ""
    sources: Sources = Sources()
    compatibility: Compatibility = Compatibility("", ())
    supersedes: str = ""
    version: int = 0


def _invalid(field_name: str, message: str) -> InvalidArgument:
    return invalid_field(field_name, message, reason=Reason.INVALID_SKILL_REQUEST)


def _text(field_name: str, value: str, max_chars: int) -> str:
    return check_text(field_name, value, max_chars, reason=Reason.INVALID_SKILL_REQUEST)


def _line(field_name: str, value: str, max_chars: int) -> str:
    """A one-line text: ``_text`` and no control character (it goes into a front matter line)."""
    text = _text(field_name, value, max_chars)
    if any(ord(char) < 32 or char == "\x7f" for char in text):
        raise _invalid(field_name, "must be one line without control characters")
    return text


# -- the text ---------------------------------------------------------------------------------------


def slug(name: str) -> str:
    """The name lower-cased, each run of characters other than ASCII letters and digits one ``-``,
    ``-`` trimmed from both ends, at most 40 characters (``skill`` when nothing is left)."""
    text = _NON_ALNUM.sub("-", name.lower()).strip("-")[:SLUG_CHARS].strip("-")
    return text or DEFAULT_SLUG


def content_sha256(content: str) -> str:
    """The SHA-256 of the text in UTF-8, as 64 lower-case hex digits."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def skill_id(name: str, sha256: str) -> str:
    """``slug(name)`` ``.`` the first 12 hex digits of the content's hash."""
    return f"{slug(name)}.{sha256[:HASH_PREFIX_CHARS]}"


def check_skill_id(value: str, field_name: str = "skill_id") -> str:
    """A skill id as ``skill_id`` makes them.

    Raises:
        InvalidArgument: (INVALID_SKILL_REQUEST) anything else, naming ``field_name``.
    """
    text = validation.js_trim(value)
    if not SKILL_ID.match(text) or len(text) > SLUG_CHARS + 1 + HASH_PREFIX_CHARS:
        raise _invalid(field_name, "must be a skill id: a slug, '.', and 12 lower-case hex digits")
    return text


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A SKILL.md's front matter: its lines between the ``---`` fences, and the text after them."""

    lines: tuple[str, ...]
    body: str
    present: bool

    def value(self, field_name: str) -> str:
        """The value of the top-level ``field_name`` (quotes removed), or ``''``."""
        for line in self.lines:
            match = _KEY_LINE.match(line)
            if match and match.group(1) == field_name:
                return _unquote((match.group(2) or "").strip())
        return ""


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            loaded = json.loads(value)
        except ValueError:
            return value[1:-1]
        return loaded if isinstance(loaded, str) else value
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def _quote(value: str) -> str:
    return value if _PLAIN.match(value) else json.dumps(value, ensure_ascii=False)


def front_matter(content: str) -> FrontMatter:
    """The front matter of ``content``: none unless its first line is ``---``; then every line up to
    the next ``---`` line. A line of it is blank, a comment (``#``), indented or a list item (kept,
    not read), or ``key: value``.

    Raises:
        InvalidArgument: (INVALID_SKILL_FRONTMATTER, field ``content``) a block that never closes,
            or a line of another shape.
    """
    lines = content.split("\n")
    if lines[0].rstrip("\r") != "---":
        return FrontMatter((), content, present=False)
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r") == "---":
            block = tuple(line.rstrip("\r") for line in lines[1:end])
            for line in block:
                if line.strip() and not line.startswith(("#", " ", "\t", "- ")) and not _KEY_LINE.match(line):
                    raise invalid_field(
                        "content",
                        "front matter lines must be 'key: value' (or blank, comments, indented, list items)",
                        reason=Reason.INVALID_SKILL_FRONTMATTER,
                    )
            return FrontMatter(block, "\n".join(lines[end + 1 :]), present=True)
    raise invalid_field(
        "content", "opens a front matter block ('---') that never closes", reason=Reason.INVALID_SKILL_FRONTMATTER
    )


def default_description(name: str) -> str:
    """The description a skill without one gets."""
    return f"Governed skill for {name}"


def ensure_front_matter(content: str, name: str, description: str) -> tuple[str, str]:
    """The SKILL.md text with ``name`` and ``description`` in its front matter (added when missing
    or empty; the author's own non-empty values are kept), and the description it holds.

    Raises:
        InvalidArgument: (INVALID_SKILL_FRONTMATTER) as ``front_matter``.
    """
    matter = front_matter(content)
    kept = [line for line in matter.lines if not _empty_key(line, ("name", "description"))]
    added = []
    if not matter.value("name"):
        added.append(f"name: {_quote(name)}")
    described = matter.value("description") or description or default_description(name)
    if not matter.value("description"):
        added.append(f"description: {_quote(described)}")
    if matter.present and not added and len(kept) == len(matter.lines):
        return content, described
    block = "\n".join(["---", *added, *kept, "---"])
    body = matter.body if matter.present else content
    return f"{block}\n{body}", described


def _empty_key(line: str, keys: Iterable[str]) -> bool:
    match = _KEY_LINE.match(line)
    return match is not None and match.group(1) in keys and not _unquote((match.group(2) or "").strip())


# -- creating ---------------------------------------------------------------------------------------


def _refs(field_name: str, values: Sequence[str]) -> tuple[str, ...]:
    """Trimmed, deduplicated (first kept), empties dropped; at most 32, each at most 200 printable characters."""
    seen: dict[str, None] = {}
    for index, value in enumerate(values):
        text = validation.js_trim(value)
        if not text:
            continue
        if validation.utf16_length(text) > MAX_REF_CHARS or any(ord(c) < 32 or c == "\x7f" for c in text):
            raise _invalid(f"{field_name}[{index}]", f"must be at most {MAX_REF_CHARS} printable characters")
        if "\x00" in text or re.search("[\ud800-\udfff]", text):
            raise _invalid(f"{field_name}[{index}]", "must be printable text")
        seen.setdefault(text, None)
    if len(seen) > MAX_SOURCES:
        raise invalid_field(
            field_name, f"holds more than {MAX_SOURCES} distinct references", reason=Reason.SKILL_SOURCES_REQUIRED
        )
    return tuple(seen)


def check_sources(sources: Sources) -> Sources:
    """The sources trimmed and deduplicated.

    Raises:
        InvalidArgument: (SKILL_SOURCES_REQUIRED) none at all, or more than 32 in a list;
            (INVALID_SKILL_REQUEST) a reference over 200 characters or not printable.
    """
    checked = Sources(
        _refs("sources.run_ids", sources.run_ids),
        _refs("sources.journal_entry_ids", sources.journal_entry_ids),
        _refs("sources.evidence_receipts", sources.evidence_receipts),
    )
    if not (checked.run_ids or checked.journal_entry_ids or checked.evidence_receipts):
        raise invalid_field(
            "sources",
            "must name at least one run id, journal entry id or evidence receipt",
            reason=Reason.SKILL_SOURCES_REQUIRED,
        )
    return checked


def check_compatibility(compatibility: Compatibility) -> Compatibility:
    """The harness trimmed, the models trimmed and deduplicated.

    Raises:
        InvalidArgument: (INVALID_SKILL_REQUEST) no harness or one over 64 characters; no model,
            more than 16, or one over 128 characters.
    """
    harness = _line("compatibility.harness", compatibility.harness, MAX_HARNESS_CHARS)
    models: dict[str, None] = {}
    for index, model in enumerate(compatibility.models):
        text = validation.js_trim(model)
        if text:
            models.setdefault(_line(f"compatibility.models[{index}]", text, MAX_MODEL_CHARS), None)
    if not 1 <= len(models) <= MAX_MODELS:
        raise _invalid("compatibility.models", f"must name 1 to {MAX_MODELS} distinct models")
    return Compatibility(harness, tuple(models))


def candidate(draft: Draft, *, project: str, created_by: str, now: int) -> Skill:
    """The candidate ``draft`` makes: its text redacted with its front matter ensured, hashed, and
    its id from its name and that hash.

    Raises:
        InvalidArgument: (INVALID_SKILL_REQUEST) a name, description, content, harness, model,
            version or supersedes breaking its rule; (INVALID_SKILL_FRONTMATTER) a malformed front
            matter; (SKILL_SOURCES_REQUIRED) as ``check_sources``.
    """
    name = _line("name", draft.name, MAX_NAME_CHARS)
    description = (
        _line("description", draft.description, MAX_DESCRIPTION_CHARS) if validation.js_trim(draft.description) else ""
    )
    if not draft.content.strip():
        raise _invalid("content", "must not be empty")
    if "\x00" in draft.content or re.search("[\ud800-\udfff]", draft.content):
        raise _invalid("content", "must not contain NUL characters or unpaired surrogates")
    if validation.utf16_length(draft.content) > MAX_CONTENT_CHARS:
        raise _invalid("content", f"exceeds {MAX_CONTENT_CHARS} characters")
    version = draft.version or 1
    if not 1 <= version <= MAX_VERSION:
        raise _invalid("version", f"must be between 1 and {MAX_VERSION} (0: 1)")
    supersedes = check_skill_id(draft.supersedes, "supersedes") if validation.js_trim(draft.supersedes) else None
    sources = check_sources(draft.sources)
    compatibility = check_compatibility(draft.compatibility)
    text, described = ensure_front_matter(redact(draft.content), name, description)
    digest = content_sha256(text)
    return Skill(
        project=project,
        id=skill_id(name, digest),
        name=name,
        description=described,
        content=text,
        content_sha256=digest,
        version=version,
        sources=sources,
        compatibility=compatibility,
        created_by=created_by,
        created_at=now,
        supersedes=supersedes,
    )


# -- evaluating and deciding -------------------------------------------------------------------------


def check_details(details: str) -> str:
    """Evaluation details: at most 2,000 characters, stored redacted (may be empty).

    Raises:
        InvalidArgument: (INVALID_SKILL_REQUEST, ``details``) longer, or holding NUL.
    """
    if validation.utf16_length(details) > MAX_DETAILS_CHARS:
        raise _invalid("details", f"exceeds {MAX_DETAILS_CHARS} characters")
    if "\x00" in details or re.search("[\ud800-\udfff]", details):
        raise _invalid("details", "must not contain NUL characters or unpaired surrogates")
    return redact(validation.js_trim(details))


def check_reason(reason: str) -> str:
    """A rejection's reason: at most 1,000 characters, stored redacted (may be empty).

    Raises:
        InvalidArgument: (INVALID_SKILL_REQUEST, ``reason``) longer, or holding NUL.
    """
    if validation.utf16_length(reason) > MAX_REASON_CHARS:
        raise _invalid("reason", f"exceeds {MAX_REASON_CHARS} characters")
    if "\x00" in reason or re.search("[\ud800-\udfff]", reason):
        raise _invalid("reason", "must not contain NUL characters or unpaired surrogates")
    return redact(validation.js_trim(reason))


def check_evidence(evidence_refs: Sequence[str]) -> tuple[str, ...]:
    """A promotion's evidence: 1 to 32 refs, each 1 to 200 printable characters, trimmed, deduplicated.

    Raises:
        InvalidArgument: (SKILL_PROMOTION_INVALID, ``evidence_refs``) none, more, or a malformed one.
    """
    refs: dict[str, None] = {}
    for value in evidence_refs:
        text = validation.js_trim(value)
        if (
            not text
            or validation.utf16_length(text) > MAX_REF_CHARS
            or any(ord(c) < 32 or c == "\x7f" for c in text)
            or re.search("[\ud800-\udfff]", text)
        ):
            raise invalid_field(
                "evidence_refs",
                f"each must be 1 to {MAX_REF_CHARS} printable characters",
                reason=Reason.SKILL_PROMOTION_INVALID,
            )
        refs.setdefault(text, None)
    if not 1 <= len(refs) <= MAX_EVIDENCE_REFS:
        raise invalid_field(
            "evidence_refs",
            f"a promotion needs 1 to {MAX_EVIDENCE_REFS} evidence refs",
            reason=Reason.SKILL_PROMOTION_INVALID,
        )
    return tuple(refs)


def not_promotable(skill: Skill, action: str) -> FailedPrecondition:
    """The refusal of ``action`` on a skill whose state does not allow it."""
    return FailedPrecondition(
        f"skill {skill.id!r} is {skill.state.value}: it cannot be {action}",
        reason=Reason.SKILL_NOT_PROMOTABLE,
        metadata={"skillId": skill.id, "state": skill.state.value},
    )


def evaluated(
    skill: Skill, kind: EvaluationKind, passed: bool, *, actor: str, details: str, now: int
) -> tuple[Skill, tuple[SkillEvent, ...]]:
    """A candidate after an evaluation, and the events to append to its history (numbered by the
    caller): the evaluation by ``actor``, then, when it is a failed functional or safety one, the
    quarantine by ``EVALUATOR``. The one rule of every evaluation, an operator's or a gate's.
    ``details`` are checked already (``check_details``)."""
    assert skill.state is SkillState.CANDIDATE, "only a candidate is evaluated"
    events = [SkillEvent(0, EventType.EVALUATED, actor, now, kind=kind, passed=passed, details=details)]
    if not passed and kind in QUARANTINING:
        skill = replace(skill, state=SkillState.QUARANTINED, decided_by=EVALUATOR, decided_at=now)
        events.append(SkillEvent(0, EventType.QUARANTINED, EVALUATOR, now, reason=f"failed {kind.value} evaluation"))
    return skill, tuple(events)


GATE_EVALUATOR_PREFIX = "gate:"
"""A gate-recorded evaluation's actor is ``gate:<gate id>@<run id>``: the hub acting for the run."""


def gate_evaluator(gate_id: str, run_id: str) -> str:
    """Who records the evaluation a gate of a run made: the hub, for that gate of that run."""
    return f"{GATE_EVALUATOR_PREFIX}{gate_id}@{run_id}"


def gate_details(*, run_id: str, step_id: str, step_attempt: int, gate_id: str, gate_hash: str, outcome: str) -> str:
    """A gate-recorded evaluation's details: the run, step, attempt, gate and its pinned hash, and
    the step outcome the verdict was (redacted and within ``MAX_DETAILS_CHARS``, as every evaluation's)."""
    text = f"gate {gate_id} ({gate_hash}) of run {run_id}, step {step_id} attempt {step_attempt}: outcome {outcome}"
    return check_details(text)


def evaluation_gaps(history: Sequence[SkillEvent]) -> tuple[list[str], list[str]]:
    """The required kinds without an evaluation, and those whose latest evaluation failed (in
    ``REQUIRED_EVALUATIONS`` order). Only the latest evaluation of a kind counts: a failure
    followed by a pass is a pass; a pass followed by a failure a failure."""
    latest: dict[EvaluationKind, bool] = {}
    for event in sorted(history, key=lambda event: event.sequence):
        if event.type is EventType.EVALUATED and event.kind is not None:
            latest[event.kind] = bool(event.passed)
    missing = [kind.value for kind in REQUIRED_EVALUATIONS if kind not in latest]
    failed = [kind.value for kind in REQUIRED_EVALUATIONS if latest.get(kind) is False]
    return missing, failed


def check_evaluations(skill: Skill, history: Sequence[SkillEvent]) -> None:
    """Raises:
    FailedPrecondition: (SKILL_EVALUATIONS_INCOMPLETE) a required kind's latest evaluation is
        missing or failed (metadata ``missing``, ``failed``: comma-separated kinds)."""
    missing, failed = evaluation_gaps(history)
    if missing or failed:
        raise FailedPrecondition(
            f"skill {skill.id!r} needs a passing latest evaluation of each of "
            f"{', '.join(kind.value for kind in REQUIRED_EVALUATIONS)}",
            reason=Reason.SKILL_EVALUATIONS_INCOMPLETE,
            metadata={"skillId": skill.id, "missing": ",".join(missing), "failed": ",".join(failed)},
        )


def verify(skill: Skill) -> None:
    """The stored text is what was hashed, and its front matter names and describes it (§5.12 ``verify``).

    Raises:
        FailedPrecondition: (SKILL_INTEGRITY_VIOLATION) the content does not hash to
            ``content_sha256``; (INVALID_SKILL_FRONTMATTER) its front matter lacks a non-empty
            ``name`` or ``description`` (or is malformed).
    """
    if content_sha256(skill.content) != skill.content_sha256:
        raise FailedPrecondition(
            f"skill {skill.id!r}: its content no longer hashes to its content_sha256",
            reason=Reason.SKILL_INTEGRITY_VIOLATION,
            metadata={"skillId": skill.id, "contentSha256": skill.content_sha256},
        )
    try:
        matter = front_matter(skill.content)
    except InvalidArgument:
        matter = FrontMatter((), "", present=False)
    if not (matter.value("name") and matter.value("description")):
        raise FailedPrecondition(
            f"skill {skill.id!r}: its front matter lacks a non-empty name or description",
            reason=Reason.INVALID_SKILL_FRONTMATTER,
            metadata={"skillId": skill.id},
        )


def verified(skill: Skill) -> bool:
    """Whether ``verify`` passes."""
    try:
        verify(skill)
    except FailedPrecondition:
        return False
    return True


def item_id(skill_id_value: str) -> str:
    """The context item a promoted skill is in packets."""
    return ITEM_PREFIX + skill_id_value


def skill_item(skill: Skill, evidence_refs: Sequence[str]) -> ContextItem:
    """The context item of a promoted skill (seed 004): kind skill, the skill's project, summary
    ``name: description``, source ``human`` (the promoting operator's credential is what grants
    ``instruction``, decision 246) with ref ``skill:<id>@<sha256>``, authority instruction,
    confidence verified, status current, the promotion's evidence refs."""
    return ContextItem(
        id=item_id(skill.id),
        kind=Kind.SKILL,
        project=skill.project,
        summary=f"{skill.name}: {skill.description}" if skill.description else skill.name,
        provenance=Provenance(SourceType.HUMAN, f"{SOURCE_REF_PREFIX}{skill.id}@{skill.content_sha256}"),
        authority=Authority.INSTRUCTION,
        confidence=Confidence.VERIFIED,
        status=Status.CURRENT,
        evidence_refs=tuple(evidence_refs),
    )


def gap_unverified(skill_id_value: str) -> str:
    """The packet gap of a promoted skill left out because it no longer verifies."""
    return f"promoted skill {skill_id_value} failed verification and was omitted"
