"""kxm.sync-event.v1 rules: validation, canonical JSON (as JavaScript writes it) and content hash."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest

from kxm_grpc.domain import sync_events as sync

SHA = "sha256:" + "ab" * 32


def event(**changes: Any) -> dict[str, Any]:
    """A valid ``run.status_changed`` event in its JSON shape, with top-level fields replaced."""
    shape: dict[str, Any] = {
        "schema": "kxm.sync-event.v1",
        "sourceEventId": "evt_000000000001",
        "projectId": "prj_alpha000001",
        "runId": "run_000000000001",
        "homeRuntimeId": "rtm_laptop000001",
        "eventType": "run.status_changed",
        "sequence": 1,
        "occurredAt": "2026-01-01T00:00:00.000Z",
        "configRevision": SHA,
        "executorPolicyRevision": SHA,
        "toolPolicyRevision": SHA,
        "syncPolicyRevision": SHA,
        "memoryRevision": "mem_000000000001",
        "redaction": {"version": "redactor-v1", "fieldsOmitted": [], "valuesReplaced": 0},
        "payload": {"status": "running", "workflowId": "fix-bug", "stepAttempt": 2.0},
    }
    shape.update(changes)
    return shape


def with_payload(event_type: str, **payload: Any) -> dict[str, Any]:
    """A valid envelope of ``event_type`` carrying exactly ``payload``."""
    return event(eventType=event_type, payload=payload)


LEASE = {
    "id": "lse_000000000001",
    "fencingToken": "7",
    "acquiredAt": "2026-01-01T00:00:00Z",
    "expiresAt": "2026-01-01T00:05:00.5Z",
}
EFFECT = {"id": "eff_000000000001", "policy": {"class": "workspace-mutation", "sharedMutable": False}}
SHARED_EFFECT = {"id": "eff_000000000001", "policy": {"class": "unknown", "sharedMutable": True}}
ACTOR = {"kind": "human", "id": "ops@example"}
REFS = [{"id": "evd_000000000001", "kind": "test-report", "hash": SHA}]


VALID = {
    "status change": event(),
    "effect with its effect": with_payload("effect.settled", effect=EFFECT),
    "shared-mutable intent with a lease": with_payload("effect.intent_recorded", effect=SHARED_EFFECT, lease=LEASE),
    "lease acquired": with_payload("lease.acquired", lease=LEASE),
    "approval": with_payload("approval.recorded", actor=ACTOR, outcome="approved", suppliedRefs=REFS),
    "uncertainty resolved": with_payload(
        "effect.uncertainty_resolved",
        effect=EFFECT,
        resolvedBy=ACTOR,
        resolutionAction="mark-completed",
        reason="checked by hand",
        suppliedRefs=REFS,
    ),
    "counts and usage": with_payload("run.created", counts={"steps": 3.0}, usage={"cost": 0.25, "currency": "EUR"}),
    "file changes": with_payload("step.status_changed", fileChanges=[{"repositoryId": "app", "added": ["src/a.py"]}]),
    "nine fraction digits": event(occurredAt="2026-01-01T00:00:00.123456789Z"),
    "largest safe sequence": event(sequence=2**53 - 1),
}


@pytest.mark.parametrize("shape", VALID.values(), ids=VALID.keys())
def test_valid_events_pass(shape: dict[str, Any]) -> None:
    """Events the original schema accepts are accepted."""
    sync.validate(shape)


def without(key: str) -> dict[str, Any]:
    """The valid event without one top-level field."""
    shape = event()
    del shape[key]
    return shape


def nested(path: list[str], value: Any) -> dict[str, Any]:
    """The valid event with one nested field replaced (or removed when value is ...)."""
    shape = copy.deepcopy(event())
    target = shape
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return shape


INVALID = {
    "missing schema": (without("schema"), "schema"),
    "missing payload": (without("payload"), "payload"),
    "missing redaction": (without("redaction"), "redaction"),
    "missing occurredAt": (without("occurredAt"), "occurredAt"),
    "wrong schema": (event(schema="kxm.sync-event.v2"), "schema"),
    "extra top-level property": (event(extra="x"), "extra"),
    "extra payload key": (nested(["payload", "prompt"], "the whole prompt"), "payload.prompt"),
    "empty payload": (event(payload={}), "payload"),
    "unknown event type": (event(eventType="run.exploded"), "eventType"),
    "bad runtime id": (event(homeRuntimeId="RTM_x"), "homeRuntimeId"),
    "opaque id too short": (event(runId="run_abc"), "runId"),
    "sequence zero": (event(sequence=0), "sequence"),
    "sequence beyond 2^53": (event(sequence=2**53), "sequence"),
    "fractional sequence": (event(sequence=1.5), "sequence"),
    "boolean sequence": (event(sequence=True), "sequence"),
    "bad revision": (event(configRevision="sha256:ABC"), "configRevision"),
    "timestamp without zone": (event(occurredAt="2026-01-01T00:00:00"), "occurredAt"),
    "timestamp with newline": (event(occurredAt="2026-01-01T00:00:00Z\n"), "occurredAt"),
    "redaction extra key": (nested(["redaction", "by"], "me"), "redaction.by"),
    "redaction repeated fields": (nested(["redaction", "fieldsOmitted"], ["a", "a"]), "redaction.fieldsOmitted"),
    "redaction too many replaced": (nested(["redaction", "valuesReplaced"], 100_001), "redaction.valuesReplaced"),
    "redaction missing version": (nested(["redaction", "version"], ...), "redaction.version"),
    "bad lifecycle status": (nested(["payload", "status"], "exploded"), "payload.status"),
    "display title too long": (nested(["payload", "displayTitle"], "x" * 201), "payload.displayTitle"),
    "stepAttempt zero": (nested(["payload", "stepAttempt"], 0.0), "payload.stepAttempt"),
    "null value": (nested(["payload", "summary"], None), "payload.summary"),
    "effect event without effect": (with_payload("effect.settled", status="settled"), "payload.effect"),
    "lease event without lease": (with_payload("lease.lost", status="expired"), "payload.lease"),
    "shared-mutable dispatch without lease": (
        with_payload("effect.dispatched", effect=SHARED_EFFECT),
        "payload.lease",
    ),
    "approval without actor": (with_payload("approval.recorded", outcome="ok", suppliedRefs=REFS), "payload.actor"),
    "resolution without reason": (
        with_payload(
            "effect.uncertainty_resolved",
            effect=EFFECT,
            resolvedBy=ACTOR,
            resolutionAction="cancel",
            suppliedRefs=REFS,
        ),
        "payload.reason",
    ),
    "read-only effect that is shared": (
        with_payload(
            "effect.observed",
            effect={"id": "eff_000000000001", "policy": {"class": "read-only", "sharedMutable": True}},
        ),
        "payload.effect.policy.sharedMutable",
    ),
    "idempotent effect without key hash": (
        with_payload(
            "effect.observed",
            effect={
                "id": "eff_000000000001",
                "policy": {
                    "class": "external-idempotent",
                    "sharedMutable": False,
                    "idempotencyKey": "run",
                    "receiptQuery": "github-pr",
                },
            },
        ),
        "payload.effect.idempotencyKeyHash",
    ),
    "lease extra key": (with_payload("lease.acquired", lease={**LEASE, "holder": "me"}), "payload.lease.holder"),
    "counts negative": (with_payload("run.created", counts={"steps": -1.0}), "payload.counts.steps"),
    "counts bad key": (with_payload("run.created", counts={"Steps": 1.0}), "payload.counts.Steps"),
    "path escaping the repository": (
        with_payload("step.status_changed", fileChanges=[{"repositoryId": "app", "added": ["../etc/passwd"]}]),
        "payload.fileChanges[0].added[0]",
    ),
    "absolute path": (
        with_payload("step.status_changed", fileChanges=[{"repositoryId": "app", "deleted": ["/etc/passwd"]}]),
        "payload.fileChanges[0].deleted[0]",
    ),
    "device name path": (
        with_payload("step.status_changed", fileChanges=[{"repositoryId": "app", "modified": ["src/con.txt"]}]),
        "payload.fileChanges[0].modified[0]",
    ),
    "infinite cost": (with_payload("run.created", usage={"cost": float("inf")}), "payload.usage.cost"),
}


@pytest.mark.parametrize(("shape", "path"), INVALID.values(), ids=INVALID.keys())
def test_invalid_events_name_the_field(shape: dict[str, Any], path: str) -> None:
    """Every rule the original schema states refuses the event, naming the offending field."""
    with pytest.raises(sync.SyncEventInvalid) as caught:
        sync.validate(shape)

    assert caught.value.path == path


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-2.5, "-2.5"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (2**53 + 2.0, "9007199254740994"),
        (12, "12"),
    ],
)
def test_numbers_are_written_as_javascript_writes_them(value: float, text: str) -> None:
    """Number.prototype.toString: no trailing .0, exponent past 1e21 and below 1e-6."""
    assert sync.js_number(value) == text


def test_canonical_json_sorts_keys_by_utf16_code_units_and_drops_whitespace() -> None:
    """Keys sort by UTF-16 code units (an astral character sorts before U+FF5E), recursively."""
    value = {"b": [3.0, {"z": True, "a": None}], "a": 'é\n"\x01', "～": 1, "😀": 2}

    text = sync.canonical_json(value)

    assert text == '{"a":"é\\n\\"\\u0001","b":[3,{"a":null,"z":true}],"😀":2,"～":1}'


def test_content_hash_is_sha256_of_the_utf8_canonical_text() -> None:
    """The hash is ``sha256:`` + hex digest of the canonical bytes."""
    shape = event()
    canonical = sync.canonicalise(shape)

    # For ASCII-only integer data the canonical text equals Python's sorted compact JSON.
    expected_text = json.dumps(
        {**shape, "payload": {**shape["payload"], "stepAttempt": 2}}, sort_keys=True, separators=(",", ":")
    )
    assert canonical.canonical == expected_text
    assert canonical.content_hash == "sha256:" + hashlib.sha256(expected_text.encode()).hexdigest()
    assert (canonical.project_id, canonical.run_id, canonical.sequence) == ("prj_alpha000001", "run_000000000001", 1)


def test_any_change_changes_the_hash_and_key_order_does_not() -> None:
    """Reordered keys hash the same; one changed value does not."""
    shape = event()
    reordered = dict(reversed(list(shape.items())))
    changed = event(payload={**shape["payload"], "status": "failed"})

    assert sync.canonicalise(reordered).content_hash == sync.canonicalise(shape).content_hash
    assert sync.canonicalise(changed).content_hash != sync.canonicalise(shape).content_hash


@pytest.mark.parametrize(
    ("seconds", "nanos", "text"),
    [
        (1_767_225_600, 0, "2026-01-01T00:00:00.000Z"),
        (1_767_225_600, 5_000_000, "2026-01-01T00:00:00.005Z"),
        (1_767_225_600, 5_000, "2026-01-01T00:00:00.000005Z"),
        (1_767_225_600, 5, "2026-01-01T00:00:00.000000005Z"),
    ],
)
def test_occurred_at_uses_milliseconds_unless_finer_digits_are_needed(seconds: int, nanos: int, text: str) -> None:
    """A Timestamp becomes the text JavaScript's toISOString would write (milliseconds)."""
    assert sync.occurred_at(seconds, nanos) == text


def test_echo_cuts_ids_and_ignores_non_integers() -> None:
    """Results echo the project and run ids cut to 144 characters and an integer sequence."""
    assert sync.echo({"projectId": "p" * 200, "runId": 5, "sequence": 2.5}) == ("p" * 144, "", 0)
