"""Sync events (``kxm.sync-event.v1``, spec §9.2–§9.3): validation, canonical bytes, content hash.

A runtime pushes each run event as a protobuf message; the servicer turns it into the JSON shape
the original runtime produces (camelCase names, ``occurredAt`` as an RFC 3339 string, the payload
as plain JSON values) and everything here works on that shape:

- ``validate`` applies the rules of the original ``sync-event.schema.json`` and the parts of
  ``common.schema.json`` / ``run-event.schema.json`` it references (no additional properties at
  any level, the payload allow-list, patterns, bounds, and the conditional requirements of effect,
  lease and approval events). The rules are restated in Python rather than loaded from the schema
  files; string lengths count code points, as a JSON Schema validator does.
- ``canonical_json`` reproduces the original's canonical JSON byte for byte: object keys sorted by
  UTF-16 code units, recursively; arrays in order; no whitespace; strings and numbers exactly as
  JavaScript's ``JSON.stringify`` writes them.
- ``content_hash`` is ``sha256:`` and the hex SHA-256 of the canonical bytes (UTF-8).

``occurredAt`` comes from a protobuf Timestamp, so its text is normalised: three fraction digits
(as JavaScript's ``toISOString`` writes) unless the time needs six or nine.
"""

from __future__ import annotations

import decimal
import enum
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kxm_grpc.errors import Reason

SCHEMA = "kxm.sync-event.v1"
MAX_BATCH_EVENTS = 100
ECHO_CHARS = 144
# JavaScript numbers are doubles: a sequence beyond 2^53 - 1 could not be compared exactly.
MAX_SEQUENCE = 2**53 - 1

JsonValue = Any
"""A decoded JSON value: dict, list, str, float/int, bool or None."""


class SyncEventInvalid(ValueError):
    """The event breaks a rule of the schema; the message names the field (``payload.lease.id``)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'event'}: {problem}")
        self.path = path
        self.problem = problem


# -- timestamps ---------------------------------------------------------------------------------


def occurred_at(seconds: int, nanos: int) -> str:
    """The RFC 3339 text of a Timestamp: milliseconds unless finer digits are needed."""
    import time

    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    if nanos % 1_000_000 == 0:
        return f"{base}.{nanos // 1_000_000:03d}Z"
    if nanos % 1_000 == 0:
        return f"{base}.{nanos // 1_000:06d}Z"
    return f"{base}.{nanos:09d}Z"


# -- canonical JSON -------------------------------------------------------------------------------


def js_number(value: float | int) -> str:
    """Format a number as JavaScript's ``Number.prototype.toString`` (and so ``JSON.stringify``) does.

    Raises:
        ValueError: the number is NaN or infinite (JSON cannot carry it).
    """
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        value = float(value) if abs(value) > MAX_SEQUENCE else value
        if isinstance(value, int):
            return str(value)
    if not math.isfinite(value):
        raise ValueError("NaN and infinities have no JSON form")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr() gives the shortest digits that round-trip, the same digits JavaScript chooses.
    _, digit_tuple, exponent = decimal.Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = exponent + k  # value = 0.digits × 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + f"e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + text


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def canonical_json(value: JsonValue) -> str:
    """The canonical text of a JSON value (see the module docstring).

    Raises:
        ValueError: it holds NaN or an infinity.
        TypeError: it holds something JSON cannot represent.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        # ensure_ascii=False escapes exactly what JSON.stringify escapes: quote, backslash and
        # control characters (\b \f \n \r \t, the rest as lowercase \u00xx).
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, Mapping):
        items = sorted(value.items(), key=lambda item: _utf16_key(item[0]))
        return "{" + ",".join(f"{canonical_json(k)}:{canonical_json(v)}" for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    raise TypeError(f"{type(value).__name__} has no JSON form")


def content_hash(canonical: str) -> str:
    """``sha256:`` and the hex SHA-256 of the canonical text's UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# -- the event ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CanonicalEvent:
    """A valid event: the fields the hub indexes, its canonical text and its content hash."""

    project_id: str
    run_id: str
    sequence: int
    home_runtime_id: str
    event_type: str
    canonical: str
    content_hash: str


def echo(shape: Mapping[str, JsonValue]) -> tuple[str, str, int]:
    """The project id, run id (cut to 144 characters) and sequence to report back, valid or not."""
    project_id = shape.get("projectId")
    run_id = shape.get("runId")
    sequence = shape.get("sequence")
    return (
        project_id[:ECHO_CHARS] if isinstance(project_id, str) else "",
        run_id[:ECHO_CHARS] if isinstance(run_id, str) else "",
        sequence if isinstance(sequence, int) and not isinstance(sequence, bool) else 0,
    )


def canonicalise(shape: Mapping[str, JsonValue]) -> CanonicalEvent:
    """Validate an event in its JSON shape and compute its canonical text and hash.

    Raises:
        SyncEventInvalid: it breaks a rule of ``kxm.sync-event.v1``.
    """
    validate(shape)
    try:
        text = canonical_json(shape)
    except (ValueError, TypeError) as exc:
        raise SyncEventInvalid("", str(exc)) from None
    return CanonicalEvent(
        project_id=shape["projectId"],
        run_id=shape["runId"],
        sequence=int(shape["sequence"]),
        home_runtime_id=shape["homeRuntimeId"],
        event_type=shape["eventType"],
        canonical=text,
        content_hash=content_hash(text),
    )


def validate(shape: Mapping[str, JsonValue]) -> None:
    """Check an event against ``kxm.sync-event.v1``.

    Raises:
        SyncEventInvalid: the first rule it breaks, naming the field.
    """
    _EVENT(shape, "")
    event_type = shape["eventType"]
    payload = shape["payload"]
    required: list[str] = []
    if event_type in _EFFECT_EVENTS:
        required.append("effect")
    if event_type in ("effect.intent_recorded", "effect.dispatched"):
        policy = payload.get("effect", {}).get("policy", {})
        if policy.get("sharedMutable") is True:
            required.append("lease")
    if event_type == "effect.uncertainty_resolved":
        required += ["resolvedBy", "resolutionAction", "reason", "suppliedRefs"]
    if event_type in ("lease.acquired", "lease.released", "lease.lost"):
        required.append("lease")
    if event_type == "approval.recorded":
        required += ["actor", "outcome", "suppliedRefs"]
    for key in required:
        if key not in payload:
            raise SyncEventInvalid(f"payload.{key}", f"is required for {event_type} events")


# -- a small rule language (the subset of JSON Schema the event uses) ----------------------------

Rule = Callable[[JsonValue, str], None]


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _is_number(value: JsonValue) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def string(*, min_length: int = 0, max_length: int | None = None, pattern: str | None = None) -> Rule:
    """A string of bounded length (code points) matching ``pattern`` in full."""
    compiled = re.compile(pattern) if pattern is not None else None

    def check(value: JsonValue, path: str) -> None:
        if not isinstance(value, str):
            raise SyncEventInvalid(path, "must be a string")
        if len(value) < min_length:
            raise SyncEventInvalid(path, f"must have at least {min_length} characters")
        if max_length is not None and len(value) > max_length:
            raise SyncEventInvalid(path, f"must have at most {max_length} characters")
        if compiled is not None and not compiled.fullmatch(value):
            raise SyncEventInvalid(path, "has the wrong format")

    return check


def integer(minimum: int | None = None, maximum: int | None = None) -> Rule:
    """A whole number within bounds (``3.0`` counts, as in JavaScript)."""

    def check(value: JsonValue, path: str) -> None:
        if not _is_number(value) or (isinstance(value, float) and not value.is_integer()):
            raise SyncEventInvalid(path, "must be an integer")
        _bounds(value, path, minimum, maximum)

    return check


def number(minimum: float | None = None) -> Rule:
    """A finite number at least ``minimum``."""

    def check(value: JsonValue, path: str) -> None:
        if not _is_number(value) or not math.isfinite(value):
            raise SyncEventInvalid(path, "must be a number")
        _bounds(value, path, minimum, None)

    return check


def _bounds(value: float, path: str, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise SyncEventInvalid(path, f"must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise SyncEventInvalid(path, f"must be at most {maximum}")


def boolean(value: JsonValue, path: str) -> None:
    """true or false."""
    if not isinstance(value, bool):
        raise SyncEventInvalid(path, "must be a boolean")


def const(expected: JsonValue) -> Rule:
    """Exactly ``expected``."""

    def check(value: JsonValue, path: str) -> None:
        if value != expected or type(value) is not type(expected):
            raise SyncEventInvalid(path, f"must be {expected!r}")

    return check


def one_of(*choices: str) -> Rule:
    """One of the listed strings."""
    allowed = frozenset(choices)

    def check(value: JsonValue, path: str) -> None:
        if not isinstance(value, str) or value not in allowed:
            raise SyncEventInvalid(path, "is not an allowed value")

    return check


def array(item: Rule, *, max_items: int, min_items: int = 0, unique: bool = False) -> Rule:
    """A list of items, each checked by ``item``."""

    def check(value: JsonValue, path: str) -> None:
        if not isinstance(value, list):
            raise SyncEventInvalid(path, "must be an array")
        if not min_items <= len(value) <= max_items:
            raise SyncEventInvalid(path, f"must have {min_items} to {max_items} items")
        for index, entry in enumerate(value):
            item(entry, _join(path, index))
        if unique and len({canonical_json(v) for v in value}) != len(value):
            raise SyncEventInvalid(path, "must not repeat items")

    return check


def record(
    properties: Mapping[str, Rule],
    *,
    required: Iterable[str] = (),
    min_properties: int = 0,
    also: Iterable[Callable[[Mapping[str, JsonValue], str], None]] = (),
) -> Rule:
    """An object with only the listed properties (no additional properties)."""
    needed = tuple(required)
    extra_checks = tuple(also)

    def check(value: JsonValue, path: str) -> None:
        if not isinstance(value, Mapping):
            raise SyncEventInvalid(path, "must be an object")
        for key in needed:
            if key not in value:
                raise SyncEventInvalid(_join(path, key), "is required")
        for key, entry in value.items():
            rule = properties.get(key)
            if rule is None:
                raise SyncEventInvalid(_join(path, key), "is not an allowed property")
            rule(entry, _join(path, key))
        if len(value) < min_properties:
            raise SyncEventInvalid(path, f"must have at least {min_properties} properties")
        for extra in extra_checks:
            extra(value, path)

    return check


def mapping(key: Rule, value: Rule, *, max_properties: int) -> Rule:
    """An object whose keys and values follow rules (``counts``)."""

    def check(entry: JsonValue, path: str) -> None:
        if not isinstance(entry, Mapping):
            raise SyncEventInvalid(path, "must be an object")
        if len(entry) > max_properties:
            raise SyncEventInvalid(path, f"must have at most {max_properties} properties")
        for name, item in entry.items():
            key(name, _join(path, name))
            value(item, _join(path, name))

    return check


# -- common definitions (common.schema.json) -------------------------------------------------

IDENTIFIER = string(min_length=1, max_length=64, pattern=r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
OPAQUE_ID = string(max_length=144, pattern=r"[a-z][a-z0-9]{1,15}_[A-Za-z0-9][A-Za-z0-9_-]{5,127}")
SHA256 = string(pattern=r"sha256:[a-f0-9]{64}")
TIMESTAMP = string(pattern=r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z")
DURATION_MS = integer(0, 31_536_000_000)
# A relative path: ".", or segments without Windows device names, reserved characters, "." or
# ".." segments, empty segments, trailing dots or spaces, or control characters.
RELATIVE_PATH = string(
    min_length=1,
    max_length=1024,
    pattern=(
        r"(?:\.|(?!(?:.*/)?(?:[Cc][Oo][Nn]|[Pp][Rr][Nn]|[Aa][Uu][Xx]|[Nn][Uu][Ll]|[Cc][Oo][Mm][1-9¹²³]"
        r"|[Ll][Pp][Tt][1-9¹²³]|[Cc][Oo][Nn][Ii][Nn]\$|[Cc][Oo][Nn][Oo][Uu][Tt]\$|[Cc][Ll][Oo][Cc][Kk]\$)"
        r"[ ]*(?:\.[^/]*)?(?:/|$))(?!.*[<>:\"\\|?*])(?!.*(?:^|/)\.{1,2}(?:/|$))(?!.*//)(?!.*[. ](?:/|$))"
        r"[^/\x00-\x1f]+(?:/[^/\x00-\x1f]+)*)"
    ),
)
LIFECYCLE_STATUS = one_of(
    "queued", "offered", "accepted", "declined", "expired", "created", "preparing", "pending", "running",
    "waiting", "blocked_uncertain", "cancelling", "cancelled", "completed", "failed", "skipped", "passed",
    "dispatched", "executing", "reattaching", "retry_pending", "result_recorded", "terminal", "starting",
    "settling", "connection_lost", "intent_recorded", "observed", "receipt_recorded", "settled", "planned",
    "delivering", "partial", "delivered", "outbox_pending", "acknowledged", "rejected", "omitted", "active",
    "idle", "closed",
)  # fmt: skip
RUN_EVENT_TYPES = (
    "run.created", "run.status_changed", "run.cancel_requested", "run.drive_opened", "step.entered",
    "step.status_changed", "step.outcome_recorded", "step.transitioned", "assignment.created",
    "assignment.accepted", "assignment.dispatched", "assignment.executing", "assignment.reattaching",
    "assignment.retry_pending", "assignment.result_recorded", "assignment.terminal", "attempt.created",
    "attempt.status_changed", "attempt.connection_lost", "effect.intent_recorded", "effect.dispatched",
    "effect.observed", "effect.receipt_recorded", "effect.settled", "effect.blocked_uncertain",
    "effect.uncertainty_resolved", "workspace.snapshot_pinned", "workspace.materialized", "model.resolved",
    "session.scope_rotated", "approval.recorded", "lease.acquired", "lease.released", "lease.lost",
    "delivery.status_changed", "candidate.created", "routing.attempt.recorded", "routing.route_switched",
)  # fmt: skip
_EFFECT_EVENTS = frozenset(t for t in RUN_EVENT_TYPES if t.startswith("effect."))


def _effect_policy_rules(policy: Mapping[str, JsonValue], path: str) -> None:
    kind = policy.get("class")
    if kind == "external-idempotent":
        for key in ("idempotencyKey", "receiptQuery"):
            if key not in policy:
                raise SyncEventInvalid(_join(path, key), "is required for external-idempotent effects")
    if kind == "receipt-queryable" and "receiptQuery" not in policy:
        raise SyncEventInvalid(_join(path, "receiptQuery"), "is required for receipt-queryable effects")
    if kind in ("read-only", "workspace-mutation") and policy.get("sharedMutable") is not False:
        raise SyncEventInvalid(_join(path, "sharedMutable"), f"must be false for {kind} effects")
    if kind in ("external-non-idempotent", "unknown"):
        for key in ("idempotencyKey", "receiptQuery"):
            if key in policy:
                raise SyncEventInvalid(_join(path, key), f"is not allowed for {kind} effects")


EFFECT_POLICY = record(
    {
        "class": one_of(
            "read-only",
            "workspace-mutation",
            "external-idempotent",
            "receipt-queryable",
            "external-non-idempotent",
            "unknown",
        ),
        "idempotencyKey": one_of("run", "step", "assignment", "attempt", "explicit"),
        "receiptQuery": IDENTIFIER,
        "sharedMutable": boolean,
    },
    required=("class", "sharedMutable"),
    also=(_effect_policy_rules,),
)


def _effect_rules(effect: Mapping[str, JsonValue], path: str) -> None:
    if effect["policy"].get("class") == "external-idempotent" and "idempotencyKeyHash" not in effect:
        raise SyncEventInvalid(_join(path, "idempotencyKeyHash"), "is required for external-idempotent effects")


EFFECT = record(
    {"id": OPAQUE_ID, "policy": EFFECT_POLICY, "idempotencyKeyHash": SHA256},
    required=("id", "policy"),
    also=(_effect_rules,),
)
ACTOR = record(
    {"kind": one_of("human", "runtime", "hub", "agent", "adapter"), "id": string(min_length=1, max_length=200)},
    required=("kind", "id"),
)
EXECUTOR = record(
    {
        "id": IDENTIFIER,
        "kind": one_of("local", "ssh"),
        "executorVersion": string(min_length=1, max_length=128),
        "harness": IDENTIFIER,
        "harnessVersion": string(min_length=1, max_length=128),
        "helperGeneration": string(min_length=1, max_length=256),
    },
    required=("id", "kind", "executorVersion", "harness", "harnessVersion"),
)
LEASE = record(
    {
        "id": OPAQUE_ID,
        "fencingToken": string(min_length=1, max_length=256),
        "acquiredAt": TIMESTAMP,
        "expiresAt": TIMESTAMP,
        "operation": IDENTIFIER,
    },
    required=("id", "fencingToken", "acquiredAt", "expiresAt"),
)
EVIDENCE_REF = record(
    {"id": OPAQUE_ID, "kind": IDENTIFIER, "hash": SHA256, "status": IDENTIFIER, "producerId": OPAQUE_ID},
    required=("id", "kind"),
)
ARTIFACT_REF = record(
    {
        "id": OPAQUE_ID,
        "kind": IDENTIFIER,
        "hash": SHA256,
        "size": integer(0, 1_099_511_627_776),
        "classification": one_of("public", "project", "sensitive", "secret"),
        "availability": one_of("local", "online-runtime", "hub", "external"),
    },
    required=("id", "kind", "hash", "size", "availability"),
)
SAFE_RECEIPT = record(
    {
        "provider": IDENTIFIER,
        "kind": IDENTIFIER,
        "id": string(min_length=1, max_length=512),
        "hash": SHA256,
        "observedAt": TIMESTAMP,
    },
    required=("provider", "kind", "id"),
)
TIMING = record(
    {
        "startedAt": TIMESTAMP,
        "finishedAt": TIMESTAMP,
        "durationMs": DURATION_MS,
        "queueMs": DURATION_MS,
        "agentMs": DURATION_MS,
    },
    required=("durationMs",),
)
USAGE = record(
    {
        "inputTokens": integer(0),
        "outputTokens": integer(0),
        "cacheReadTokens": integer(0),
        "cacheWriteTokens": integer(0),
        "cost": number(0),
        "currency": string(pattern=r"[A-Z]{3}"),
        "costKind": one_of("reported", "estimated", "unknown"),
    }
)
MODEL = record(
    {
        "profile": IDENTIFIER,
        "provider": IDENTIFIER,
        "model": string(min_length=1, max_length=200),
        "tags": array(IDENTIFIER, max_items=32, unique=True),
        "thinking": string(min_length=1, max_length=64),
    },
    required=("provider", "model"),
)
FILE_CHANGES = record(
    {
        "repositoryId": IDENTIFIER,
        "added": array(RELATIVE_PATH, max_items=1000, unique=True),
        "modified": array(RELATIVE_PATH, max_items=1000, unique=True),
        "deleted": array(RELATIVE_PATH, max_items=1000, unique=True),
        "redactedPathCount": integer(0),
    },
    required=("repositoryId",),
)
ENVIRONMENT = record(
    {
        "name": string(max_length=128, pattern=r"[A-Z_][A-Z0-9_]*"),
        "scope": string(min_length=1, max_length=160),
        "status": one_of("resolved", "missing", "denied", "not-required"),
        "source": one_of("default", "host", "project", "repository", "secret-ref", "runtime"),
        "version": string(min_length=1, max_length=200),
    },
    required=("name", "scope", "status", "source"),
)
ERROR_SUMMARY = record(
    {"class": IDENTIFIER, "component": string(min_length=1, max_length=128), "retryable": boolean},
    required=("class", "component", "retryable"),
)
CANDIDATE = record(
    {
        "id": OPAQUE_ID,
        "type": one_of("knowledge", "skill", "workflow", "agent", "model", "environment", "template", "temporal-state"),
        "summary": string(min_length=1, max_length=1000),
        "confidence": one_of("verified", "probable", "uncertain"),
        "status": one_of("proposed", "evaluating", "review-required", "promoted", "rejected", "quarantined"),
    },
    required=("id", "type", "summary", "confidence", "status"),
)

PAYLOAD = record(
    {
        "workflowId": IDENTIFIER,
        "displayTitle": string(min_length=1, max_length=200),
        "promptHash": SHA256,
        "status": LIFECYCLE_STATUS,
        "previousStatus": LIFECYCLE_STATUS,
        "outcome": IDENTIFIER,
        "summary": string(min_length=1, max_length=1000),
        "stepId": IDENTIFIER,
        "stepAttempt": integer(1),
        "fromStepId": IDENTIFIER,
        "toStepId": IDENTIFIER,
        "assignmentId": OPAQUE_ID,
        "attemptId": OPAQUE_ID,
        "agentId": IDENTIFIER,
        "instanceNo": integer(1, 64),
        "scopeEpoch": integer(1),
        "executor": EXECUTOR,
        "model": MODEL,
        "timing": TIMING,
        "usage": USAGE,
        "fileChanges": array(FILE_CHANGES, max_items=64),
        "evidenceRefs": array(EVIDENCE_REF, max_items=64),
        "artifacts": array(ARTIFACT_REF, max_items=64),
        "receipts": array(SAFE_RECEIPT, max_items=64),
        "environment": array(ENVIRONMENT, max_items=256),
        "error": ERROR_SUMMARY,
        "effect": EFFECT,
        "lease": LEASE,
        "actor": ACTOR,
        "resolvedBy": ACTOR,
        "resolutionAction": one_of(
            "mark-completed", "confirm-absent-and-retry", "compensate-and-retry", "mark-failed", "cancel"
        ),
        "reason": string(min_length=1, max_length=1000),
        "suppliedRefs": array(EVIDENCE_REF, max_items=64),
        "candidate": CANDIDATE,
        "counts": mapping(IDENTIFIER, integer(0), max_properties=32),
        "degraded": boolean,
    },
    min_properties=1,
)

_EVENT = record(
    {
        "schema": const(SCHEMA),
        "sourceEventId": OPAQUE_ID,
        "eventType": one_of(*RUN_EVENT_TYPES),
        "projectId": OPAQUE_ID,
        "runId": OPAQUE_ID,
        "homeRuntimeId": OPAQUE_ID,
        "sequence": integer(1, MAX_SEQUENCE),
        "occurredAt": TIMESTAMP,
        "configRevision": SHA256,
        "memoryRevision": OPAQUE_ID,
        "executorPolicyRevision": SHA256,
        "toolPolicyRevision": SHA256,
        "syncPolicyRevision": SHA256,
        "redaction": record(
            {
                "version": IDENTIFIER,
                "fieldsOmitted": array(string(min_length=1, max_length=128), max_items=128, unique=True),
                "valuesReplaced": integer(0, 100_000),
            },
            required=("version", "fieldsOmitted", "valuesReplaced"),
        ),
        "payload": PAYLOAD,
    },
    required=(
        "schema", "sourceEventId", "eventType", "projectId", "runId", "homeRuntimeId", "sequence", "occurredAt",
        "configRevision", "memoryRevision", "executorPolicyRevision", "toolPolicyRevision", "syncPolicyRevision",
        "redaction", "payload",
    ),
)  # fmt: skip


# -- outcomes and what the hub keeps ---------------------------------------------------------------------------


class SyncOutcome(enum.Enum):
    """What the hub decided for one pushed event."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    CONFLICT = "conflict"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class SyncResult:
    """The outcome of one pushed event, echoing its slot."""

    project_id: str
    run_id: str
    sequence: int
    outcome: SyncOutcome
    code: Reason | None = None
    message: str = ""
    content_hash: str = ""
    existing_hash: str = ""


@dataclass(frozen=True, slots=True)
class SyncRun:
    """One run's ingest state: its owner, home runtime and gapless cursor."""

    project_id: str
    run_id: str
    hub_project: str
    home_runtime_id: str
    cursor: int
    last_sequence: int

    @property
    def pending_gap(self) -> bool:
        """Whether events beyond the cursor are stored (a sequence is missing)."""
        return self.last_sequence > self.cursor


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An accepted event as stored: its slot, hash, receive time and canonical text."""

    project_id: str
    run_id: str
    sequence: int
    event_type: str
    content_hash: str
    receive_time: int
    canonical: str
