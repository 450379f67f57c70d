"""Terminal receipts (``kxm.terminal-receipt.v1``): how a worker's seat finished its step.

A worker may hand one in with its ``WorkerResult`` (``receipt``); a step whose ``requiredEvidence``
has a ``receipt`` requirement needs one on a passing result. The hub validates it (the original's
rules, §7.1, with its weaknesses fixed: the run and step must be the assignment's — filled in when
left empty — the timestamp is RFC 3339 and parsed by the contract, every list is bounded) and keeps
the latest of each step in the run's snapshot, so it is returned with the run, and in the
``assignment.completed`` event.

The receipt arrives as the JSON of its message (camelCase, enums by name); what is kept is that
JSON with the status lower-cased (``accepted``, ``audit_escalation``, ``rejected``, ``error``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.errors import InvalidArgument, invalid_field

SCHEMA = "kxm.terminal-receipt.v1"
STATUSES = ("accepted", "audit_escalation", "rejected", "error")
MAX_VERIFIED_FILES = 256
MAX_FINDINGS = 32
_TEXT_LIMITS = {"seat": 64, "host": 64, "model": 128, "escalationReason": 1_024, "ruling": 2_048}
_FINDING_LIMITS = {"rule": 128, "severity": 32, "message": 1_024}
_GIT_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_FIELD = "result.receipt"


def _invalid(name: str, message: str) -> InvalidArgument:
    return invalid_field(f"{_FIELD}.{name}" if name else _FIELD, message)


def receipt(raw: Mapping[str, Any], *, run_id: str, step_id: str) -> dict[str, JsonValue]:
    """The receipt to keep, validated against its assignment's run and step.

    Raises:
        InvalidArgument: a field (named) breaks the rules: another schema, no status, another run
            or step than the assignment's, an over-long text, too many files or findings, a git
            hash that is not a full commit id, a negative or non-finite metric.
    """
    kept: dict[str, JsonValue] = {"schema": SCHEMA}
    if raw.get("schema", SCHEMA) != SCHEMA:
        raise _invalid("schema", f"must be {SCHEMA} (or left empty)")
    status = str(raw.get("status", "")).removeprefix("TERMINAL_RECEIPT_STATUS_").lower()
    if status not in STATUSES:
        raise _invalid("status", f"must be one of {', '.join(s.upper() for s in STATUSES)}")
    kept["status"] = status
    for name, expected in (("runId", run_id), ("stageId", step_id)):
        given = raw.get(name) or expected
        if given != expected:
            raise _invalid(name, f"must be the assignment's ({expected}) or left empty")
        kept[name] = expected
    for name, limit in _TEXT_LIMITS.items():
        text = str(raw.get(name, ""))
        if len(text) > limit:
            raise _invalid(name, f"exceeds {limit} characters")
        if text:
            kept[name] = text
    if raw.get("time"):
        kept["time"] = str(raw["time"])
    if raw.get("evidence"):
        kept["evidence"] = _evidence(raw["evidence"])
    if raw.get("metrics"):
        kept["metrics"] = _metrics(raw["metrics"])
    return kept


def _evidence(raw: Mapping[str, Any]) -> dict[str, JsonValue]:
    files = [str(path) for path in raw.get("verifiedFiles", ())]
    if len(files) > MAX_VERIFIED_FILES or any(not path or len(path) > 512 for path in files):
        raise _invalid("evidence.verifiedFiles", f"must hold at most {MAX_VERIFIED_FILES} paths of 1 to 512 characters")
    kept: dict[str, JsonValue] = {"verifiedFiles": list(files)}
    git_hash = str(raw.get("gitHash", ""))
    if git_hash and not _GIT_HASH.fullmatch(git_hash):
        raise _invalid("evidence.gitHash", "must be a full commit id (40 or 64 lower-case hex digits)")
    if git_hash:
        kept["gitHash"] = git_hash
    if raw.get("testSummary"):
        counts = {name: int(raw["testSummary"].get(name, 0)) for name in ("passed", "failed", "skipped")}
        if min(counts.values()) < 0:
            raise _invalid("evidence.testSummary", "counts must not be negative")
        kept["testSummary"] = dict(counts)
    findings = list(raw.get("findings", ()))
    if len(findings) > MAX_FINDINGS:
        raise _invalid("evidence.findings", f"must hold at most {MAX_FINDINGS} findings")
    kept_findings: list[JsonValue] = []
    for index, finding in enumerate(findings):
        entry: dict[str, JsonValue] = {}
        for name, limit in _FINDING_LIMITS.items():
            text = str(finding.get(name, ""))
            if len(text) > limit:
                raise _invalid(f"evidence.findings[{index}].{name}", f"exceeds {limit} characters")
            entry[name] = text
        kept_findings.append(entry)
    kept["findings"] = kept_findings
    return kept


def _metrics(raw: Mapping[str, Any]) -> dict[str, JsonValue]:
    kept: dict[str, JsonValue] = {}
    for name in ("durationMs", "tokensIn", "tokensOut", "cacheReadTokens"):
        value = int(raw.get(name, 0))
        if value < 0:
            raise _invalid(f"metrics.{name}", "must not be negative")
        kept[name] = value
    cost = float(raw.get("costUsd", 0.0))
    if not math.isfinite(cost) or cost < 0:
        raise _invalid("metrics.costUsd", "must be a finite number of at least 0")
    kept["costUsd"] = cost
    return kept
