"""The journal's reports: the area report, ranked cross-run signals and the retrospective.

Pure functions over journal entries (workflow-context.md §3.6–§3.8). The services adapt their
stored entries to ``ReportEntry`` (the fields the reports read, nothing more) and their runs to
``RunFacts``, so the reports do not depend on how the journal is stored.

Every order is total. The original broke some ties by insertion order (§11.15); here each sort
names its keys and ends on the code units of an id or key, so the same entries give the same
report whatever order the store returns them in. Text that leaves a report is redacted
(``redaction.redact``); a signal's summary key is redacted before it is normalised (§3.7).

The retrospective is ``kxm.retrospective.v1``: the original's ``pi-mesh.retrospective.v1`` under
this hub's schema prefix, with additions named in ``build_retrospective``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kxm_grpc.domain import validation
from kxm_grpc.domain.clock import rfc3339
from kxm_grpc.domain.workflows.definitions import IMPROVEMENT_AREAS, WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import DegradationApproval, quorum
from kxm_grpc.domain.workflows.journal import JOURNAL_CATEGORIES, Category, PromotionStatus, Severity
from kxm_grpc.domain.workflows.redaction import redact
from kxm_grpc.domain.workflows.runs import Run, StageState, journal_attempt
from kxm_grpc.errors import FailedPrecondition, Reason, invalid_field

JsonValue = Any
"""A plain JSON value: dict, list, str, int/float, bool or None."""

PROMOTABLE_CATEGORIES = frozenset(category.value for category in Category if category.promotable)
PROPOSED = PromotionStatus.PROPOSED.value

SEVERITY_WEIGHT = {severity.value: severity.weight for severity in Severity}
"""The entries' severities by name; the reports read names (``ReportEntry``), the journal enums."""
REPORTED_CATEGORIES = ("error", "contradiction", "lesson", "skill-candidate")
"""The categories an area report's priorities and the signals draw from, in priority tie order."""
RESOLVING_CATEGORIES = frozenset({"decision", "lesson"})
"""A decision or lesson that relates to a contradiction resolves it."""

MAX_PRIORITIES = 10
DEFAULT_SIGNAL_LIMIT = 20
MAX_SIGNAL_IDS = 16
MAX_SUMMARY_KEY_CHARS = 160
SIGNAL_CLASS = re.compile(r"[a-z0-9_]{1,64}")
UNKNOWN_CLASS = "unknown"
SECURITY_AREA = "security"
SECURITY_SIGNAL_CLASSES = frozenset({"invalid_auth", "invalid_identity", "signal_mismatch"})
SECURITY_TIER = "security"

RETROSPECTIVE_SCHEMA = "kxm.retrospective.v1"
"""The original's ``pi-mesh.retrospective.v1`` under this hub's prefix."""
REVIEW_DECISION = "proposed"
MAX_RETROSPECTIVE_ENTRIES = 500
MAX_EXPORTED_EVIDENCE = 32
MAX_EXPORTED_EVIDENCE_CHARS = 500
MAX_EXPORTED_RELATIONS = 16
MAX_PROPOSED_IMPROVEMENTS = 12
SUCCESS_MEASURE = "reduce recurrence of this class in the next comparable run"
MICROS_PER_MS = 1_000


def _units(text: str) -> bytes:
    """A sort key that orders strings by UTF-16 code unit, as JavaScript compares them."""
    return text.encode("utf-16-be", "surrogatepass")


def _utf16_prefix(text: str, limit: int) -> str:
    """The first ``limit`` UTF-16 code units of ``text``, never half a surrogate pair."""
    if text.isascii():
        return text[:limit]
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:index]
    return text


def js_round(value: float, digits: int = 0) -> float:
    """``Math.round(value * 10**digits) / 10**digits`` as JavaScript computes it.

    ``Math.round`` rounds half toward +∞ (``2.5`` → 3, ``-2.5`` → -2); Python's ``round`` rounds
    half to even and, with digits, on the decimal value rather than the scaled double
    (``round(1.0005, 3)`` is 1.0, JavaScript's 1.001). The scaling and the division are the same
    double operations as JavaScript's, so the result is the same double.

    Raises:
        ValueError: ``value`` is NaN or infinite.
    """
    if not math.isfinite(value):
        raise ValueError("NaN and infinities cannot be rounded")
    scale = float(10**digits)
    scaled = value * scale
    # floor(x + 0.5) is wrong for 0.49999999999999994 (the sum rounds up to 1.0); the difference
    # from the floor is exact for every double, so compare it instead.
    whole = math.floor(scaled)
    rounded = whole + 1 if scaled - whole >= 0.5 else whole
    return rounded / scale


# -- inputs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportEntry:
    """What the reports read of one journal entry (the services adapt their stored entries to it)."""

    id: str
    run_id: str
    category: str
    area: str
    severity: str
    summary: str
    create_time: int
    evidence: tuple[str, ...] = ()
    related_entry_ids: tuple[str, ...] = ()
    stage_id: str | None = None
    attempt: int | None = None
    author: str = ""
    promotion_state: str | None = None
    """The last promotion record's ``to``; None for no record (a promotable entry is then ``proposed``)."""


@dataclass(frozen=True)
class RunFacts:
    """What the signals read of a run: its definition (for a stage key) and its attempt cost."""

    run_id: str
    definition_id: str
    cost: int
    """max(1, the stages' consumed attempts + the declared transitions taken)."""


def run_facts(run: Run) -> RunFacts:
    """A run's facts for ``rank_signals``."""
    attempts = sum(stage.attempts for stage in run.stages)
    return RunFacts(run_id=run.id, definition_id=run.definition_id, cost=max(1, attempts + len(run.transitions)))


def promotion_state(entry: ReportEntry) -> str | None:
    """The entry's promotion state: None for a category that is not promotable (§3.5)."""
    if entry.category not in PROMOTABLE_CATEGORIES:
        return None
    return entry.promotion_state or PROPOSED


def _weight(severity: str) -> int:
    return SEVERITY_WEIGHT.get(severity, 0)


def _rank(order: Sequence[str], value: str) -> int:
    """``value``'s position in ``order``; values not in it rank after all that are."""
    try:
        return order.index(value)
    except ValueError:
        return len(order)


def _chronological(entry: ReportEntry) -> tuple[int, bytes]:
    return entry.create_time, _units(entry.id)


# -- area report (§3.6) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AreaReport:
    area: str
    total: int
    errors: int
    contradictions: int
    lessons: int
    priorities: tuple[ReportEntry, ...]
    """Up to 10 error, contradiction, lesson and skill-candidate entries, most pressing first."""


def _priority_order(entry: ReportEntry) -> tuple[int, int, int, bytes]:
    # Severity first (the spec's only key; pin 14: error entries first). The original then kept
    # insertion order (§11.15); these keys state it: category in the spec's order, oldest first
    # (a journal's insertion order is its creation order), then the id by code unit.
    return -_weight(entry.severity), _rank(REPORTED_CATEGORIES, entry.category), entry.create_time, _units(entry.id)


def area_report(entries: Iterable[ReportEntry]) -> tuple[AreaReport, ...]:
    """Per improvement area, in the spec's order (``harness``, ``gates``, ``implementation``, …).

    Areas without entries are left out, as are entries whose area is not one of the seven.
    """
    by_area: dict[str, list[ReportEntry]] = {area: [] for area in IMPROVEMENT_AREAS}
    for entry in entries:
        if entry.area in by_area:
            by_area[entry.area].append(entry)
    reports: list[AreaReport] = []
    for area, matching in by_area.items():
        if not matching:
            continue
        categories = Counter(entry.category for entry in matching)
        reported = sorted((e for e in matching if e.category in REPORTED_CATEGORIES), key=_priority_order)
        reports.append(
            AreaReport(
                area=area,
                total=len(matching),
                errors=categories["error"],
                contradictions=categories["contradiction"],
                lessons=categories["lesson"],
                priorities=tuple(reported[:MAX_PRIORITIES]),
            )
        )
    return tuple(reports)


# -- ranked cross-run signals (§3.7) --------------------------------------------------------------

_ID_TOKEN = re.compile(r"\b[a-z]+_[0-9a-f]{8,}\b", re.ASCII)
_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}t\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?", re.ASCII)
_HEX_RUN = re.compile(r"\b[0-9a-f]{7,}\b", re.ASCII)
_DIGITS = re.compile(r"\d+", re.ASCII)


def normalise_summary(summary: str) -> str:
    """Fold what differs between runs of one problem, in the spec's order (§3.7 step 4).

    Lower-case; ``word_<8+ hex>`` → ``<id>``; ISO timestamps → ``<ts>``; 7+ hex → ``<hex>``;
    other digit runs → ``#``; whitespace collapsed and trimmed; the first 160 code units. The
    caller redacts first (``redaction`` says why). ``\\b`` and ``\\d`` are ASCII, as in JavaScript.
    """
    text = validation.js_lower(summary)
    text = _ID_TOKEN.sub("<id>", text)
    text = _TIMESTAMP.sub("<ts>", text)
    text = _HEX_RUN.sub("<hex>", text)
    text = _DIGITS.sub("#", text)
    return _utf16_prefix(validation.collapse_whitespace(text), MAX_SUMMARY_KEY_CHARS)


def _class_of(entry: ReportEntry) -> str | None:
    """The class named by the entry's first ``class:`` evidence, when it is a valid class."""
    reference = next((item for item in entry.evidence if item.startswith("class:")), None)
    if reference is None:
        return None
    name = reference[len("class:") :]
    return name if SIGNAL_CLASS.fullmatch(name) and name != UNKNOWN_CLASS else None


def signal_key(entry: ReportEntry, runs: Mapping[str, RunFacts]) -> tuple[str, str, str | None]:
    """(key, basis, class) of an entry (§3.7 step 3): its evidence class, else an error's stage
    in a known run, else its redacted and normalised summary."""
    name = _class_of(entry)
    if name is not None:
        return f"{entry.category}|class:{name}", "class", name
    run = runs.get(entry.run_id)
    if entry.category == "error" and entry.stage_id is not None and run is not None:
        return f"error|stage:{run.definition_id}/{entry.stage_id}", "stage", None
    return f"{entry.category}|summary:{normalise_summary(redact(entry.summary))}", "summary", None


@dataclass(frozen=True)
class ImprovementSignal:
    """Entries from one or more runs that share a key, scored (§3.7 step 5)."""

    key: str
    basis: str
    """``class``, ``stage`` or ``summary``: which rule made the key."""
    category: str
    area: str
    """The entries' modal area; ties follow the spec's area order (unknown areas last, then by name)."""
    override_tier: str | None
    """``security`` ranks the signal ahead of every priority."""
    frequency: int
    """Distinct runs."""
    run_ids: tuple[str, ...]
    entry_ids: tuple[str, ...]
    severity: str
    severity_weight: int
    workflow_cost: float | None
    """The mean cost of the known runs; None when no run is known."""
    cost_basis: str
    """``run-attempts``, or ``unknown`` when no run is known."""
    confidence: float
    priority: float
    summary: str
    """The latest entry's summary, redacted."""


def _signal(
    key: str, basis: str, category: str, name: str | None, group: list[ReportEntry], runs: Mapping[str, RunFacts]
) -> ImprovementSignal:
    run_ids = sorted({entry.run_id for entry in group}, key=_units)
    entry_ids = sorted((entry.id for entry in group), key=_units)
    severity = "info"
    for entry in group:
        if _weight(entry.severity) > _weight(severity):
            severity = entry.severity
    weight = _weight(severity)
    # Summed in run id order, so the float mean does not depend on the entries' order.
    costs = [runs[run_id].cost for run_id in run_ids if run_id in runs]
    cost = sum(costs) / len(costs) if costs else None
    with_evidence = sum(1 for entry in group if entry.evidence)
    confidence = 0.5 + 0.5 * (with_evidence / len(group))
    areas = Counter(entry.area for entry in group)
    area = min(areas, key=lambda a: (-areas[a], _rank(IMPROVEMENT_AREAS, a), _units(a)))
    latest = max(group, key=_chronological)
    security = area == SECURITY_AREA or (name is not None and name in SECURITY_SIGNAL_CLASSES)
    frequency = len(run_ids)
    return ImprovementSignal(
        key=key,
        basis=basis,
        category=category,
        area=area,
        override_tier=SECURITY_TIER if security else None,
        frequency=frequency,
        run_ids=tuple(run_ids[:MAX_SIGNAL_IDS]),
        entry_ids=tuple(entry_ids[:MAX_SIGNAL_IDS]),
        severity=severity,
        severity_weight=weight,
        workflow_cost=cost,
        cost_basis="unknown" if cost is None else "run-attempts",
        confidence=confidence,
        priority=js_round(frequency * weight * (cost if cost is not None else 1) * confidence, 3),
        summary=redact(latest.summary),
    )


def rank_signals(
    entries: Iterable[ReportEntry], runs: Mapping[str, RunFacts], limit: int = DEFAULT_SIGNAL_LIMIT
) -> tuple[ImprovementSignal, ...]:
    """The problems that recur across runs, most pressing first (§3.7).

    Counts errors, contradictions no decision or lesson of the same run resolved, lessons, and
    skill candidates still ``proposed``. Sorted: the security tier first, then priority, then
    frequency (both descending), then the key by code unit; keys are unique, so the order is
    total. ``runs`` maps run id → facts; an entry of a run not in it counts at cost 1.

    Raises:
        InvalidArgument: ``limit`` is below 1.
    """
    if limit < 1:
        raise invalid_field("limit", "must be at least 1")
    entries = list(entries)
    resolved = {
        (entry.run_id, related)
        for entry in entries
        if entry.category in RESOLVING_CATEGORIES
        for related in entry.related_entry_ids
    }
    groups: dict[str, tuple[str, str, str | None, list[ReportEntry]]] = {}
    for entry in entries:
        if entry.category not in REPORTED_CATEGORIES:
            continue
        if entry.category == "contradiction" and (entry.run_id, entry.id) in resolved:
            continue
        state = promotion_state(entry)
        if state is not None and state != PROPOSED:
            continue
        key, basis, name = signal_key(entry, runs)
        # The key fixes the basis, the category and the class, so the first entry's stand for all.
        groups.setdefault(key, (basis, entry.category, name, []))[3].append(entry)
    signals = [
        _signal(key, basis, category, name, group, runs) for key, (basis, category, name, group) in groups.items()
    ]
    signals.sort(key=lambda s: (s.override_tier != SECURITY_TIER, -s.priority, -s.frequency, _units(s.key)))
    return tuple(signals[:limit])


# -- retrospective (§3.8) -------------------------------------------------------------------------


def _class_name(evidence: Sequence[str]) -> str:
    """The class a retrospective counts an entry under: its first ``class:`` evidence, else ``unknown``."""
    reference = next((item for item in evidence if item.startswith("class:")), None)
    return (reference[len("class:") :] if reference is not None else "") or UNKNOWN_CLASS


def _exported_entry(entry: ReportEntry) -> dict[str, JsonValue]:
    exported: dict[str, JsonValue] = {
        "id": entry.id,
        "category": entry.category,
        "area": entry.area,
        "severity": entry.severity,
        "summary": redact(entry.summary),
        "evidence": [
            _utf16_prefix(redact(item), MAX_EXPORTED_EVIDENCE_CHARS) for item in entry.evidence[:MAX_EXPORTED_EVIDENCE]
        ],
        "relatedEntryIds": list(entry.related_entry_ids[:MAX_EXPORTED_RELATIONS]),
        "createdAt": rfc3339(entry.create_time),
    }
    if entry.author:
        exported["author"] = entry.author
    if entry.stage_id is not None:
        exported["stageId"] = entry.stage_id
    if entry.attempt is not None:
        exported["attempt"] = entry.attempt
    state = promotion_state(entry)
    if state is not None:
        exported["promotionState"] = state
    return exported


def _counted(counts: Counter[str], order: Sequence[str]) -> dict[str, int]:
    """Counts keyed in ``order``, then the names not in it by code unit (JSON keeps the order)."""
    return {name: counts[name] for name in sorted(counts, key=lambda n: (_rank(order, n), _units(n)))}


def _stage(stage: StageState, area: str | None) -> dict[str, JsonValue]:
    exported: dict[str, JsonValue] = {"id": stage.id}
    if area is not None:
        exported["area"] = area
    exported["status"] = stage.status.value
    exported["attempts"] = stage.attempts
    if stage.start_time is not None:
        exported["startedAt"] = rfc3339(stage.start_time)
    if stage.complete_time is not None:
        exported["completedAt"] = rfc3339(stage.complete_time)
    if stage.start_time is not None and stage.complete_time is not None and stage.complete_time >= stage.start_time:
        exported["durationMs"] = (stage.complete_time - stage.start_time) // MICROS_PER_MS
    if stage.update_time is not None:
        exported["updatedAt"] = rfc3339(stage.update_time)
    if stage.summary:
        exported["summary"] = redact(stage.summary)
    return exported


def _approval(approval: DegradationApproval) -> dict[str, JsonValue]:
    return {
        "id": approval.id,
        "requirementKey": approval.requirement_key,
        "visit": approval.visit,
        "attempt": approval.attempt,
        "policyMinProducers": approval.policy_min_producers,
        "approvedMinProducers": approval.approved_min_producers,
        "approvedBy": approval.approved_by,
        "reason": validation.collapse_whitespace(redact(approval.reason)),
        "approvedAt": rfc3339(approval.approve_time),
    }


def _evidence_audit(run: Run) -> list[dict[str, JsonValue]]:
    """Per stage entered and peer requirement: the policy, who was eligible, what was verified at
    the stage's last attempt (metadata and hashes, never bodies) and the approvals applied."""
    audit: list[dict[str, JsonValue]] = []
    for stage in run.stages:
        attempt = journal_attempt(stage)
        if stage.visit == 0 or attempt is None:
            continue
        for key, policy in sorted(run.policies_of(stage.id).items(), key=lambda item: _units(item[0])):
            snapshots = sorted(
                (
                    s
                    for s in stage.peer_evidence.get(key, ())
                    if s.stage_id == stage.id and s.visit == stage.visit and s.attempt == attempt
                ),
                key=lambda s: _units(s.message_id),
            )
            approvals = sorted(
                (
                    a
                    for a in run.approvals
                    if a.stage_id == stage.id
                    and a.requirement_key == key
                    and a.visit == stage.visit
                    and a.attempt == attempt
                ),
                key=lambda a: (a.approve_time, _units(a.id)),
            )
            status = quorum(
                policy,
                snapshots,
                stage_id=stage.id,
                visit=stage.visit,
                attempt=attempt,
                approval=approvals[-1] if approvals else None,
            )
            policy_view: dict[str, JsonValue] = {
                "minProducers": policy.min_producers,
                "effectiveMinProducers": status.required,
            }
            if policy.degraded_min_producers is not None:
                policy_view["degradedMinProducers"] = policy.degraded_min_producers
            if policy.distinct_by:
                policy_view["distinctBy"] = [dimension.value for dimension in policy.distinct_by]
            eligible: list[dict[str, JsonValue]] = []
            for producer in sorted(policy.eligible, key=lambda p: (_units(p.agent_id), _units(p.name))):
                view: dict[str, JsonValue] = {"id": producer.agent_id, "name": producer.name}
                if producer.provider is not None:
                    view["provider"] = producer.provider
                if producer.model is not None:
                    view["model"] = producer.model
                eligible.append(view)
            verified: list[dict[str, JsonValue]] = []
            for snapshot in snapshots:
                message: dict[str, JsonValue] = {
                    "messageId": snapshot.message_id,
                    "producerId": snapshot.producer_id,
                    "producerName": snapshot.producer_name,
                    "visit": snapshot.visit,
                    "attempt": snapshot.attempt,
                    "requestSha256": snapshot.request_sha256,
                    "replySha256": snapshot.reply_sha256,
                    "createdAt": rfc3339(snapshot.create_time),
                }
                if snapshot.deliver_time is not None:
                    message["deliveredAt"] = rfc3339(snapshot.deliver_time)
                message["repliedAt"] = rfc3339(snapshot.reply_time)
                message["verifiedAt"] = rfc3339(snapshot.verify_time)
                verified.append(message)
            audit.append(
                {
                    "stageId": stage.id,
                    "requirementKey": key,
                    "visit": stage.visit,
                    "attempt": attempt,
                    "policy": policy_view,
                    "eligibleProducers": eligible,
                    "verifiedProducerIds": sorted({s.producer_id for s in snapshots}, key=_units),
                    "countedProducers": status.counted,
                    "verifiedMessages": verified,
                    "degraded": key in stage.degraded_requirements,
                    "degradationApprovals": [_approval(a) for a in approvals],
                }
            )
    return audit


def build_retrospective(
    run: Run, definition: WorkflowDefinition | None, journal: Iterable[ReportEntry], *, exported_at: int
) -> dict[str, JsonValue]:
    """The retrospective of an ended run (``kxm.retrospective.v1``), as plain JSON values.

    The shape is the original's (§3.8) in proto3 JSON form: camelCase names, times as RFC 3339
    strings, so it parses straight into a protobuf message and is the JSON export as it stands.
    Added to the original: ``definitionHash``, ``startedAt``, ``endedAt``, ``endReason``, the run's
    ``transitions``, each entry's ``author``, each proposed improvement's ``entryId``, and in the
    evidence audit the visit and the counted producers. Entries of other runs in ``journal`` are
    ignored; the newest 500 are exported, oldest first. ``definition`` is the pinned version (for
    the stages' areas); None when it is gone.

    Raises:
        FailedPrecondition: the run has not ended.
    """
    if not run.status.ended:
        raise FailedPrecondition(
            f"workflow run {run.id} is {run.status.value}: a retrospective is written when it ends",
            reason=Reason.PROTOCOL_ERROR,
            metadata={"runId": run.id, "status": run.status.value},
        )
    own = sorted((entry for entry in journal if entry.run_id == run.id), key=_chronological)
    resolved = {
        related for entry in own if entry.category in RESOLVING_CATEGORIES for related in entry.related_entry_ids
    }
    bounded = own[-MAX_RETROSPECTIVE_ENTRIES:]
    entries = [_exported_entry(entry) for entry in bounded]
    by_class = Counter(_class_name(item["evidence"]) for item in entries)

    def brief(item: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
        return {"id": item["id"], "summary": item["summary"], "area": item["area"]}

    improvable = [item for item in entries if item["category"] in ("lesson", "error")]
    areas = {stage.id: stage.area for stage in definition.stages} if definition is not None else {}
    retrospective: dict[str, JsonValue] = {
        "schema": RETROSPECTIVE_SCHEMA,
        "runId": run.id,
        "definitionId": run.definition_id,
        "definitionHash": run.definition_hash,
        "status": run.status.value,
        "startedAt": rfc3339(run.create_time),
    }
    if run.end_time is not None:
        retrospective["endedAt"] = rfc3339(run.end_time)
    if run.end_reason:
        retrospective["endReason"] = redact(run.end_reason)
    retrospective.update(
        {
            "exportedAt": rfc3339(exported_at),
            "reviewDecision": REVIEW_DECISION,
            "stages": [_stage(stage, areas.get(stage.id)) for stage in run.stages],
            "transitions": [
                {
                    "id": t.id,
                    "fromStage": t.from_stage,
                    "toStage": t.to_stage,
                    "outcome": t.outcome,
                    "attempt": t.attempt,
                    "evidenceKeys": list(t.evidence_keys),
                    "at": rfc3339(t.time),
                }
                for t in sorted(run.transitions, key=lambda t: (t.time, _units(t.id)))
            ],
            "counts": {
                "byCategory": _counted(Counter(item["category"] for item in entries), JOURNAL_CATEGORIES),
                "byArea": _counted(Counter(item["area"] for item in entries), IMPROVEMENT_AREAS),
                "byClass": _counted(by_class, ()),
            },
            "openContradictions": [
                brief(item) for item in entries if item["category"] == "contradiction" and item["id"] not in resolved
            ],
            "decisions": [brief(item) for item in entries if item["category"] == "decision"],
            # Every class the run's entries name (``unknown`` for none), most frequent first, as the
            # original counts them; ties by class name (the original compared with localeCompare).
            "recurringErrorClasses": [
                {"class": name, "count": count}
                for name, count in sorted(by_class.items(), key=lambda item: (-item[1], _units(item[0])))
            ],
            "entries": entries,
            "proposedImprovements": [
                {
                    "entryId": item["id"],
                    "area": item["area"],
                    "summary": item["summary"],
                    "successMeasure": SUCCESS_MEASURE,
                    "status": PROPOSED,
                }
                for item in improvable[:MAX_PROPOSED_IMPROVEMENTS]
            ],
        }
    )
    audit = _evidence_audit(run)
    if audit:
        retrospective["evidenceAudit"] = audit
    degraded = [stage.id for stage in run.stages if stage.degraded_requirements]
    if degraded:
        retrospective["degradedStageIds"] = degraded
    return retrospective


# -- Markdown -------------------------------------------------------------------------------------


def _line(value: JsonValue) -> str:
    # One line per item: a summary's newlines would otherwise start a heading or a list of its own.
    return validation.collapse_whitespace(str(value))


def _entry_line(entry: Mapping[str, JsonValue]) -> str:
    where = ""
    if "stageId" in entry:
        where = f", stage {_line(entry['stageId'])}"
    if "attempt" in entry:
        where += f", attempt {entry['attempt']}"
    text = (
        f"- {entry['id']} [{entry['category']}/{entry['area']}/{entry['severity']}{where}]: {_line(entry['summary'])}"
    )
    if "author" in entry:
        text += f"; by {_line(entry['author'])}"
    if entry.get("promotionState"):
        text += f"; promotion: {entry['promotionState']}"
    if entry["relatedEntryIds"]:
        text += "; related: " + ", ".join(entry["relatedEntryIds"])
    if entry["evidence"]:
        text += "; evidence: " + ", ".join(_line(item) for item in entry["evidence"])
    return text


def _list(lines: Sequence[str]) -> list[str]:
    return [*lines] if lines else ["- none"]


def _stage_section(stage: Mapping[str, JsonValue], entries: Sequence[Mapping[str, JsonValue]]) -> list[str]:
    lines = [f"### {_line(stage['id'])}", ""]
    if "area" in stage:
        lines.append(f"- Area: {stage['area']}")
    lines.append(f"- Status: {stage['status']}")
    lines.append(f"- Attempts: {stage['attempts']}")
    for name, label in (("startedAt", "Started"), ("completedAt", "Completed")):
        if name in stage:
            lines.append(f"- {label}: {stage[name]}")
    if "durationMs" in stage:
        lines.append(f"- Duration: {stage['durationMs']} ms")
    if "summary" in stage:
        lines.append(f"- Summary: {_line(stage['summary'])}")
    bound = [_entry_line(entry) for entry in entries if entry.get("stageId") == stage["id"]]
    lines += ["", "Journal:", "", *_list(bound), ""]
    return lines


def _audit_lines(audit: Mapping[str, JsonValue]) -> list[str]:
    policy = audit["policy"]
    eligible = ", ".join(f"{_line(p['name'])} ({p['id']})" for p in audit["eligibleProducers"]) or "none"
    lines = [
        f"- {_line(audit['stageId'])} / {_line(audit['requirementKey'])} / visit {audit['visit']}, attempt "
        f"{audit['attempt']}: {audit['countedProducers']}/{policy['effectiveMinProducers']} producers counted; "
        f"policy minimum {policy['minProducers']}; degraded: {'yes' if audit['degraded'] else 'no'}",
        f"  - eligible: {eligible}",
    ]
    for message in audit["verifiedMessages"]:
        lines.append(
            f"  - {message['messageId']}: producer {_line(message['producerName'])} ({message['producerId']}), "
            f"attempt {message['attempt']}, request {message['requestSha256']}, reply {message['replySha256']}, "
            f"replied {message['repliedAt']}, verified {message['verifiedAt']}"
        )
    if not audit["verifiedMessages"]:
        lines.append("  - no verified messages")
    for approval in audit["degradationApprovals"]:
        lines.append(
            f"  - approval {approval['id']}: {approval['policyMinProducers']} -> {approval['approvedMinProducers']}"
            f" producers by {_line(approval['approvedBy'])} at {approval['approvedAt']};"
            f" reason: {_line(approval['reason'])}"
        )
    return lines


def to_markdown(retrospective: Mapping[str, JsonValue]) -> str:
    """The retrospective as Markdown: the run, a heading per stage with its journal, the transitions,
    errors, lessons, decisions, open contradictions, classes, the evidence audit, the whole
    journal and the proposed improvements. The same retrospective always gives the same text."""
    doc = retrospective
    entries: list[Mapping[str, JsonValue]] = doc["entries"]
    lines = [f"# Workflow retrospective {doc['runId']}", ""]
    lines.append(f"- Schema: {doc['schema']}")
    lines.append(f"- Definition: {_line(doc['definitionId'])} ({doc['definitionHash']})")
    lines.append(f"- Status: {doc['status']}")
    lines.append(f"- Started: {doc['startedAt']}")
    if "endedAt" in doc:
        lines.append(f"- Ended: {doc['endedAt']}")
    if "endReason" in doc:
        lines.append(f"- End reason: {_line(doc['endReason'])}")
    lines.append(f"- Exported: {doc['exportedAt']}")
    lines.append(f"- Review decision: {doc['reviewDecision']}")
    if "degradedStageIds" in doc:
        lines.append("- Degraded stages: " + ", ".join(doc["degradedStageIds"]))
    lines += ["", "## Stages", ""]
    for stage in doc["stages"]:
        lines += _stage_section(stage, entries)
    transitions = [
        f"- {t['id']}: {_line(t['fromStage'])} -> {_line(t['toStage'])} on {_line(t['outcome'])} "
        f"(attempt {t['attempt']}, {t['at']})"
        + ("; evidence keys: " + ", ".join(t["evidenceKeys"]) if t["evidenceKeys"] else "")
        for t in doc["transitions"]
    ]
    lines += ["## Transitions", "", *_list(transitions), ""]
    lines += ["## Errors", "", *_list([_entry_line(e) for e in entries if e["category"] == "error"]), ""]
    lines += ["## Lessons", "", *_list([_entry_line(e) for e in entries if e["category"] == "lesson"]), ""]
    briefs = {
        "Decisions": doc["decisions"],
        "Open contradictions": doc["openContradictions"],
    }
    for title, items in briefs.items():
        lines += [f"## {title}", "", *_list([f"- {i['id']} ({i['area']}): {_line(i['summary'])}" for i in items]), ""]
    classes = [f"- {_line(c['class'])}: {c['count']}" for c in doc["recurringErrorClasses"]]
    lines += ["## Recurring error classes", "", *_list(classes), ""]
    if "evidenceAudit" in doc:
        lines += [
            "## Peer-evidence audit",
            "",
            "Provenance metadata and content hashes only; request and reply bodies are never exported.",
            "",
        ]
        for audit in doc["evidenceAudit"]:
            lines += _audit_lines(audit)
        lines.append("")
    lines += ["## Journal", "", *_list([_entry_line(e) for e in entries]), ""]
    improvements = [
        f"- [{i['status']}] ({i['area']}) {_line(i['summary'])} (from {i['entryId']}; success: {i['successMeasure']})"
        for i in doc["proposedImprovements"]
    ]
    lines += ["## Proposed improvements", "", *_list(improvements), ""]
    lines += [
        "Proposed improvements are evidence, not policy: apply none before an explicit review decision.",
        "",
    ]
    return "\n".join(lines)
