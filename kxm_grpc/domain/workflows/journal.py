"""The learning journal: entries and governed promotion (spec §3.1–§3.3, §3.5).

A run's journal is append-only. An agent (the run's coordinator) records plans, decisions,
contradictions, errors and lessons (``record``); the hub records what it decided about the run
(``journal_hub``), in the transaction of the decision; an operator approves, rejects or
quarantines a skill candidate, a hypothesis or an experiment (``promote``). A promotion is a
record of its own, never a change to the entry: an entry's promotion status is the fold of its
promotion records (``promotion_status``). Every record is then sealed into the run's chain
(``journal_chain``), which is why nothing here changes a record after it is built.

The functions are pure: the service passes the run, its pinned definition, the records it read
and ``now``; they return the record to append or raise what the caller sees.
"""

from __future__ import annotations

import enum
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass

from kxm_grpc.domain import validation
from kxm_grpc.domain.workflows.definitions import IMPROVEMENT_AREAS, WorkflowDefinition
from kxm_grpc.domain.workflows.outcomes import NewId
from kxm_grpc.domain.workflows.runs import Run, journal_attempt
from kxm_grpc.errors import InvalidArgument, Reason, invalid_field

ENTRY_SCHEMA = "kxm.journal-entry.v1"
PROMOTION_SCHEMA = "kxm.journal-promotion.v1"
ENTRY_ID_PREFIX = "journal"
PROMOTION_ID_PREFIX = "promotion"

HUB_AUTHOR = "hub"
"""The author of every hub-authored entry (the original used the coordinator's id or ``kxm-admin``)."""

MAX_SUMMARY_CHARS = 1_000
MAX_DETAILS_CHARS = 8_000
MAX_EVIDENCE = 32
MAX_EVIDENCE_CHARS = 1_000
MAX_RELATED = 16
MAX_ENTRY_ID_CHARS = 80
MAX_STAGE_ID_CHARS = 128
MAX_REASON_CHARS = 1_000
MAX_DECIDER_CHARS = 128


class Category(enum.Enum):
    """What an entry records (``JOURNAL_CATEGORIES``, in the spec's order)."""

    PLAN = "plan"
    DECISION = "decision"
    CONTRADICTION = "contradiction"
    ERROR = "error"
    LESSON = "lesson"
    OBSERVATION = "observation"
    HYPOTHESIS = "hypothesis"
    EXPERIMENT = "experiment"
    STATE_CHANGE = "state-change"
    SKILL_CANDIDATE = "skill-candidate"

    @property
    def needs_evidence(self) -> bool:
        """A lesson or a skill candidate is recorded only with at least one evidence string."""
        return self in (Category.LESSON, Category.SKILL_CANDIDATE)

    @property
    def promotable(self) -> bool:
        """An operator may approve, reject or quarantine it (it starts ``proposed``)."""
        return self in (Category.SKILL_CANDIDATE, Category.HYPOTHESIS, Category.EXPERIMENT)


JOURNAL_CATEGORIES = tuple(category.value for category in Category)


class Severity(enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def weight(self) -> int:
        """The report's ordering weight: error 3, warning 2, info 1 (spec §3.6)."""
        return {Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}[self]


class PromotionStatus(enum.Enum):
    PROPOSED = "proposed"
    APPROVED = "approved"
    REJECTED = "rejected"
    QUARANTINED = "quarantined"


PROMOTION_TARGETS = (PromotionStatus.APPROVED, PromotionStatus.REJECTED, PromotionStatus.QUARANTINED)
"""Where a decision takes a proposed entry; each is terminal (it never reopens)."""


@dataclass(frozen=True)
class JournalEntry:
    """One entry of a run's journal, as written (never changed after)."""

    id: str
    run_id: str
    author: str
    """The recording agent's id, or ``hub``."""
    category: Category
    area: str
    """One of ``IMPROVEMENT_AREAS``."""
    severity: Severity
    summary: str
    create_time: int
    details: str = ""
    evidence: tuple[str, ...] = ()
    related_entry_ids: tuple[str, ...] = ()
    stage_id: str | None = None
    attempt: int | None = None
    """The stage's attempt the entry is about (hub-derived, never the caller's)."""


@dataclass(frozen=True)
class Promotion:
    """An operator's decision on a promotable entry: a journal record of its own."""

    id: str
    run_id: str
    entry_id: str
    from_status: PromotionStatus
    to_status: PromotionStatus
    evidence_refs: tuple[str, ...]
    decided_by: str
    """The operator's name."""
    reason: str
    decide_time: int


JournalRecord = JournalEntry | Promotion


# -- agent entries --------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryDraft:
    """What an agent asks to record, as received (``RecordJournal``'s fields; empty means absent)."""

    category: str
    summary: str
    area: str = ""
    severity: str = ""
    details: str = ""
    evidence: Sequence[str] = ()
    related_entry_ids: Sequence[str] = ()
    stage_id: str = ""


def record(
    run: Run,
    definition: WorkflowDefinition,
    draft: EntryDraft,
    *,
    author: str,
    known_entry_ids: Container[str],
    now: int,
    new_id: NewId,
) -> JournalEntry:
    """The entry an agent records in ``run`` (spec §3.3); ``author`` is the caller's agent id.

    A stage-bound entry takes the stage's attempt (``journal_attempt``) and, when it names no
    area, the stage's area. ``known_entry_ids`` holds the ids of the run's entries (the service
    may pass just those of ``draft.related_entry_ids`` it found in the run).

    Raises:
        InvalidArgument: (INVALID_JOURNAL_CATEGORY) (INVALID_JOURNAL_SEVERITY) unknown;
            (PROTOCOL_ERROR) the summary is empty or a text or the evidence breaks a limit;
            (JOURNAL_EVIDENCE_REQUIRED) a lesson or skill candidate has no evidence;
            (INVALID_JOURNAL_RELATION) the stage or a related entry is not the run's, or the
            related ids break a limit; (INVALID_IMPROVEMENT_AREA) the area is unknown, or there
            is neither an area nor a stage that declares one.
    """
    category = parse_category(draft.category)
    severity = parse_severity(draft.severity)
    summary = validation.required_text("summary", draft.summary, MAX_SUMMARY_CHARS)
    details = validation.optional_text("details", draft.details, MAX_DETAILS_CHARS)
    evidence = evidence_strings(draft.evidence)
    if category.needs_evidence and not evidence:
        raise InvalidArgument(
            f"a {category.value} entry needs at least one evidence string",
            reason=Reason.JOURNAL_EVIDENCE_REQUIRED,
            metadata={"field": "evidence", "category": category.value},
        )
    stage_id, attempt, stage_area = _bound_stage(run, definition, draft.stage_id)
    area = _area(draft.area, stage_area, stage_id)
    related = _related(draft.related_entry_ids, known_entry_ids, run.id)
    return JournalEntry(
        id=new_id(ENTRY_ID_PREFIX),
        run_id=run.id,
        author=author,
        category=category,
        area=area,
        severity=severity,
        summary=summary,
        create_time=now,
        details=details,
        evidence=evidence,
        related_entry_ids=related,
        stage_id=stage_id,
        attempt=attempt,
    )


def parse_category(value: str, *, field: str = "category") -> Category:
    """A category from its name (``plan`` … ``skill-candidate``).

    Raises:
        InvalidArgument: (INVALID_JOURNAL_CATEGORY) it is none of the ten.
    """
    try:
        return Category(validation.js_trim(value))
    except ValueError:
        raise invalid_field(
            field, f"must be one of {', '.join(JOURNAL_CATEGORIES)}", reason=Reason.INVALID_JOURNAL_CATEGORY
        ) from None


def parse_severity(value: str, *, field: str = "severity") -> Severity:
    """A severity from its name; empty means ``info``.

    Raises:
        InvalidArgument: (INVALID_JOURNAL_SEVERITY) it is not info, warning or error.
    """
    text = validation.js_trim(value)
    try:
        return Severity(text) if text else Severity.INFO
    except ValueError:
        raise invalid_field(field, "must be info, warning or error", reason=Reason.INVALID_JOURNAL_SEVERITY) from None


def parse_area(value: str, *, field: str = "area") -> str:
    """An improvement area (``IMPROVEMENT_AREAS``).

    Raises:
        InvalidArgument: (INVALID_IMPROVEMENT_AREA) it is none of them.
    """
    text = validation.js_trim(value)
    if text not in IMPROVEMENT_AREAS:
        raise invalid_field(
            field, f"must be one of {', '.join(IMPROVEMENT_AREAS)}", reason=Reason.INVALID_IMPROVEMENT_AREA
        )
    return text


def evidence_strings(values: Sequence[str], *, field: str = "evidence") -> tuple[str, ...]:
    """Evidence strings trimmed, blank ones dropped: at most 32, each at most 1,000 characters.

    Raises:
        InvalidArgument: (PROTOCOL_ERROR) a limit is broken.
    """
    kept = [text for text in (validation.js_trim(value) for value in values) if text]
    if len(kept) > MAX_EVIDENCE:
        raise invalid_field(field, f"has more than {MAX_EVIDENCE} strings")
    for index, text in enumerate(kept):
        validation.optional_text(f"{field}[{index}]", text, MAX_EVIDENCE_CHARS)
    return tuple(kept)


def _bound_stage(run: Run, definition: WorkflowDefinition, raw: str) -> tuple[str | None, int | None, str | None]:
    """The stage an entry is bound to, its journal attempt and its declared area (all None without)."""
    stage_id = validation.js_trim(raw)
    if not stage_id:
        return None, None, None
    stage = run.stage(stage_id) if validation.utf16_length(stage_id) <= MAX_STAGE_ID_CHARS else None
    if stage is None:
        raise InvalidArgument(
            f"run {run.id} has no stage {stage_id[:MAX_STAGE_ID_CHARS]!r}",
            reason=Reason.INVALID_JOURNAL_RELATION,
            metadata={"field": "stage_id", "runId": run.id, "stageId": stage_id[:MAX_STAGE_ID_CHARS]},
        )
    spec = definition.stage(stage_id)
    return stage_id, journal_attempt(stage), spec.area if spec is not None else None


def _area(raw: str, stage_area: str | None, stage_id: str | None) -> str:
    if validation.js_trim(raw):
        return parse_area(raw)
    if stage_area is not None:
        return stage_area
    # Pin 13: no area and no stage declaring one is refused, never filed under "other".
    where = f"stage {stage_id} declares none" if stage_id else "no stage is named"
    raise InvalidArgument(
        f"area is required: {where}",
        reason=Reason.INVALID_IMPROVEMENT_AREA,
        metadata={"field": "area", **({"stageId": stage_id} if stage_id else {})},
    )


def _related(raw: Sequence[str], known: Container[str], run_id: str) -> tuple[str, ...]:
    if len(raw) > MAX_RELATED:
        raise invalid_field(
            "related_entry_ids", f"has more than {MAX_RELATED} ids", reason=Reason.INVALID_JOURNAL_RELATION
        )
    related: list[str] = []
    for index, value in enumerate(raw):
        entry_id = validation.js_trim(value)
        field = f"related_entry_ids[{index}]"
        if not well_formed_id(entry_id):
            raise invalid_field(
                field,
                f"must be 1-{MAX_ENTRY_ID_CHARS} characters, none a control character",
                reason=Reason.INVALID_JOURNAL_RELATION,
            )
        if entry_id in related:
            raise invalid_field(field, "repeats an id", reason=Reason.INVALID_JOURNAL_RELATION)
        if entry_id not in known:
            raise InvalidArgument(
                f"{field}: {entry_id!r} is not an entry of run {run_id}",
                reason=Reason.INVALID_JOURNAL_RELATION,
                metadata={"field": field, "runId": run_id, "entryId": entry_id},
            )
        related.append(entry_id)
    return tuple(related)


def well_formed_id(entry_id: str) -> bool:
    """An entry id a request may name: 1-80 characters, none a control character (checked before
    any lookup: PostgreSQL refuses a NUL as a storage error)."""
    return 0 < validation.utf16_length(entry_id) <= MAX_ENTRY_ID_CHARS and not any(
        ord(c) < 32 or ord(c) == 127 for c in entry_id
    )


# -- governed promotion ---------------------------------------------------------------------------


def promotion_status(entry: JournalEntry, promotions: Iterable[Promotion]) -> PromotionStatus | None:
    """A promotable entry's status: its last promotion record's target, else ``proposed``.

    None for a category that is not promotable. ``promotions`` may hold other entries' records
    (they are skipped); they are folded in the order given, the journal's.
    """
    if not entry.category.promotable:
        return None
    status = PromotionStatus.PROPOSED
    for promotion in promotions:
        if promotion.entry_id == entry.id:
            status = promotion.to_status
    return status


def promotion_states(records: Iterable[JournalRecord]) -> dict[str, PromotionStatus]:
    """Each promotable entry's status (by entry id), folding a run's records in journal order."""
    states: dict[str, PromotionStatus] = {}
    for item in records:
        if isinstance(item, JournalEntry):
            if item.category.promotable:
                states[item.id] = PromotionStatus.PROPOSED
        elif item.entry_id in states:
            states[item.entry_id] = item.to_status
    return states


def promote(
    entry: JournalEntry,
    promotions: Iterable[Promotion],
    *,
    to: str,
    evidence_refs: Sequence[str],
    decided_by: str,
    reason: str = "",
    now: int,
    new_id: NewId,
) -> Promotion:
    """An operator's decision on ``entry`` (spec §3.5): the promotion record to append.

    ``promotions`` are the records already in the journal (the entry's, at least).
    ``decided_by`` is the operator's name, which must not be the entry's author.

    Raises:
        InvalidArgument: (INVALID_JOURNAL_PROMOTION) ``to`` is not approved, rejected or
            quarantined; (PROTOCOL_ERROR) the reason, the decider or an evidence ref breaks a
            limit; (JOURNAL_PROMOTION_INVALID) the category is not promotable, the decider is
            the author, no evidence ref is given, or the entry was already decided.
    """
    target = _target(to)
    decider = validation.required_text("decided_by", decided_by, MAX_DECIDER_CHARS)
    text = validation.optional_text("reason", reason, MAX_REASON_CHARS)
    refs = evidence_strings(evidence_refs, field="evidence_refs")
    meta = {"entryId": entry.id, "runId": entry.run_id}
    if not entry.category.promotable:
        raise InvalidArgument(
            f"a {entry.category.value} entry is not promotable (only skill-candidate, hypothesis, experiment)",
            reason=Reason.JOURNAL_PROMOTION_INVALID,
            metadata={**meta, "category": entry.category.value},
        )
    if decider == entry.author:
        raise InvalidArgument(
            "the entry's author may not decide its promotion",
            reason=Reason.JOURNAL_PROMOTION_INVALID,
            metadata={**meta, "decidedBy": decider},
        )
    if not refs:
        raise InvalidArgument(
            "a promotion decision needs at least one evidence ref",
            reason=Reason.JOURNAL_PROMOTION_INVALID,
            metadata={**meta, "field": "evidence_refs"},
        )
    current = promotion_status(entry, promotions)
    assert current is not None  # the category is promotable
    if current is not PromotionStatus.PROPOSED:
        # Monotonic: approved, rejected and quarantined never reopen (a new entry proposes again).
        raise InvalidArgument(
            f"the entry was already decided: it is {current.value}",
            reason=Reason.JOURNAL_PROMOTION_INVALID,
            metadata={**meta, "status": current.value},
        )
    return Promotion(
        id=new_id(PROMOTION_ID_PREFIX),
        run_id=entry.run_id,
        entry_id=entry.id,
        from_status=current,
        to_status=target,
        evidence_refs=refs,
        decided_by=decider,
        reason=text,
        decide_time=now,
    )


def _target(value: str) -> PromotionStatus:
    text = validation.js_trim(value)
    target = next((status for status in PROMOTION_TARGETS if status.value == text), None)
    if target is None:
        raise invalid_field("to", "must be approved, rejected or quarantined", reason=Reason.INVALID_JOURNAL_PROMOTION)
    return target


# -- JSON ------------------------------------------------------------------------------------------


def record_json(item: JournalRecord) -> dict[str, object]:
    """A record's JSON form (camelCase, times in microseconds, absent fields null): what the chain
    signs, so a field added later needs a new schema."""
    if isinstance(item, JournalEntry):
        return {
            "schema": ENTRY_SCHEMA,
            "id": item.id,
            "runId": item.run_id,
            "author": item.author,
            "category": item.category.value,
            "area": item.area,
            "severity": item.severity.value,
            "summary": item.summary,
            "details": item.details,
            "evidence": list(item.evidence),
            "relatedEntryIds": list(item.related_entry_ids),
            "stageId": item.stage_id,
            "attempt": item.attempt,
            "createTime": item.create_time,
        }
    return {
        "schema": PROMOTION_SCHEMA,
        "id": item.id,
        "runId": item.run_id,
        "entryId": item.entry_id,
        "from": item.from_status.value,
        "to": item.to_status.value,
        "evidenceRefs": list(item.evidence_refs),
        "decidedBy": item.decided_by,
        "reason": item.reason,
        "decideTime": item.decide_time,
    }
