"""The ``kxm.worker-result.v1`` document a gate reports, its canonical JSON and content hash.

Plain dataclasses (no generated code): ``kxm_grpc.client.gate_results`` converts one to the
``WorkerResult`` message. The document holds, per check that ran, its outcome, its observation
(status, reason, exit code, signal, duration) and the SHA-256 and byte count of each output
stream, never the output. Checks after the first failing one are listed as ``skipped``.

``content_hash`` is ``sha256:`` and the hex SHA-256 of the document's canonical JSON
(``kxm_grpc.domain.sync_events.canonical_json``: keys sorted, no whitespace), so anyone holding the
document can recompute it.
"""

from __future__ import annotations

import hashlib
import shlex
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kxm_grpc.domain.clock import rfc3339
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.gates.outcome import CheckRun, GateRun, Outcome
from kxm_grpc.gates.runner import Reason, Status, StreamDigest

SCHEMA = "kxm.worker-result.v1"
WORKER_SCHEMA = "kxm.worker.v1"
KIND = "gate"
DRIVER = "code"


@dataclass(frozen=True)
class WorkerIdentity:
    """Who ran the gate: kind ``gate``, driver ``code``."""

    name: str
    kind: str = KIND
    driver: str = DRIVER

    def to_dict(self) -> dict[str, Any]:
        return {"schema": WORKER_SCHEMA, "kind": self.kind, "driver": self.driver, "name": self.name}


@dataclass(frozen=True)
class CheckResult:
    """One check's result: ``passed`` when its outcome is ``passed``."""

    name: str
    outcome: Outcome
    expect: str
    observation: Status
    reason: Reason | None
    detail: str
    rule: str | None
    exit_code: int | None
    signal: int | None
    duration_ms: int
    stdout: StreamDigest
    stderr: StreamDigest

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED

    @classmethod
    def of(cls, run: CheckRun) -> CheckResult:
        seen = run.observation
        return cls(
            run.check.name,
            run.outcome,
            run.check.expect.value,
            seen.status,
            seen.reason,
            seen.detail,
            seen.rule,
            seen.exit_code,
            seen.signal,
            seen.duration_ms,
            seen.stdout,
            seen.stderr,
        )

    def line(self) -> str:
        """``name: outcome`` and what decided it (the exit code, or the reason)."""
        if self.observation is Status.COMPLETE:
            return f"{self.name}: {self.outcome.value} (exit {self.exit_code})"
        return f"{self.name}: {self.outcome.value} ({self.reason.value if self.reason else 'unknown'})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "outcome": self.outcome.value,
            "expect": self.expect,
            "observation": self.observation.value,
            "reason": self.reason.value if self.reason else None,
            "detail": self.detail,
            "rule": self.rule,
            "exitCode": self.exit_code,
            "signal": self.signal,
            "durationMs": self.duration_ms,
            "stdout": self.stdout.to_dict(),
            "stderr": self.stderr.to_dict(),
        }


@dataclass(frozen=True)
class WorkerResult:
    """A gate's ``kxm.worker-result.v1``; ``create_time`` in Unix microseconds."""

    worker: WorkerIdentity
    command: str
    outcome: Outcome
    create_time: int
    summary: str
    checks: tuple[CheckResult, ...]
    skipped: tuple[str, ...] = ()
    duration_ms: int = 0

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.PASSED

    def to_document(self) -> dict[str, Any]:
        """The JSON document (camelCase, as the seeds write it)."""
        return {
            "schema": SCHEMA,
            "worker": self.worker.to_dict(),
            "command": self.command,
            "ok": self.ok,
            "outcome": self.outcome.value,
            "createdAt": rfc3339(self.create_time),
            "summary": self.summary,
            "checks": [check.to_dict() for check in self.checks],
            "skipped": list(self.skipped),
            "telemetry": {"durationMs": self.duration_ms},
        }

    def canonical_json(self) -> str:
        return canonical_json(self.to_document())

    def content_hash(self) -> str:
        """``sha256:`` and the hex SHA-256 of the canonical JSON (UTF-8)."""
        return "sha256:" + hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


def command_text(argvs: Iterable[Sequence[str]]) -> str:
    """The checks' argvs as one line a person can read and paste: shell-quoted, joined by ``&&``
    (the checks run in order and stop at the first failure, as ``&&`` does)."""
    return " && ".join(shlex.join(argv) for argv in argvs)


def summarize(run: GateRun) -> str:
    """One sentence: every check passed, or where the gate stopped and why."""
    total = len(run.runs) + len(run.skipped)
    last = CheckResult.of(run.runs[-1])
    if run.ok:
        return f"All {total} check{'s' if total != 1 else ''} passed."
    position = f"check {len(run.runs)} of {total}"
    if run.outcome is Outcome.NO_START:
        return f"Gate stopped at {position}, {last.name}: it did not start ({last.reason}: {last.detail})."
    if run.outcome is Outcome.UNCERTAIN:
        return f"Gate stopped at {position}, {last.name}: the observation is uncertain ({last.reason})."
    return f"Gate failed at {position}, {last.name}: {last.outcome.value} (exit {last.exit_code})."


def worker_result(run: GateRun, *, name: str, command: str | None = None, now: int | None = None) -> WorkerResult:
    """The result of ``run`` for worker ``name``; ``command`` defaults to ``command_text`` of the
    checks, ``now`` (Unix microseconds) to this machine's clock."""
    return WorkerResult(
        WorkerIdentity(name),
        command if command is not None else command_text(check.command.argv for check in run.checks),
        run.outcome,
        time.time_ns() // 1000 if now is None else now,
        summarize(run),
        tuple(CheckResult.of(check_run) for check_run in run.runs),
        run.skipped,
        run.duration_ms,
    )
