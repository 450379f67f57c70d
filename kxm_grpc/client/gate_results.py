"""A gate's ``kxm.worker-result.v1`` (``kxm_grpc.gates.result``) as the ``WorkerResult`` message.

The message has fewer fields than the document: each ``GateCheck`` carries its name, ``passed``
and a summary line that spells out the rest (outcome, exit code or reason, duration, each stream's
SHA-256 and byte count). ``verifier_outcome`` is set only when the last check that ran was
observed complete, since only then is there an exit code to report. The document's content hash
is not a field of the message: send it as evidence beside it.
"""

from __future__ import annotations

from kxm_grpc._gen.kxm.v1 import envelopes_pb2
from kxm_grpc.gates.result import CheckResult, WorkerResult
from kxm_grpc.gates.runner import Status, StreamDigest


def _stream(name: str, digest: StreamDigest) -> str:
    state = "" if digest.complete else ", incomplete"
    return f"{name} sha256:{digest.sha256} {digest.size} B{state}"


def check_summary(check: CheckResult) -> str:
    """``outcome (exit N | reason) · D ms · stdout sha256:… N B · stderr sha256:… N B``."""
    return " · ".join(
        (
            check.line().removeprefix(f"{check.name}: "),
            f"{check.duration_ms} ms",
            _stream("stdout", check.stdout),
            _stream("stderr", check.stderr),
        )
    )


def check_message(check: CheckResult) -> envelopes_pb2.GateCheck:
    """One check as the ``GateCheck`` message: its facts in their fields, and the summary line."""
    message = envelopes_pb2.GateCheck(
        name=check.name,
        passed=check.passed,
        summary=check_summary(check),
        duration_ms=check.duration_ms,
        observation=check.observation.value,
        reason=check.reason.value if check.reason is not None else "",
        stdout_sha256=check.stdout.sha256,
        stdout_bytes=check.stdout.size,
        stderr_sha256=check.stderr.sha256,
        stderr_bytes=check.stderr.size,
    )
    if check.exit_code is not None:
        message.exit_code = check.exit_code
    return message


def worker_result_message(result: WorkerResult) -> envelopes_pb2.WorkerResult:
    """``result`` as the ``WorkerResult`` message."""
    message = envelopes_pb2.WorkerResult(
        worker=envelopes_pb2.WorkerIdentity(
            kind=result.worker.kind, driver=result.worker.driver, name=result.worker.name
        ),
        command=result.command,
        ok=result.ok,
        outcome=result.outcome.value,
        summary=result.summary,
        telemetry=envelopes_pb2.UsageMetrics(duration_ms=result.duration_ms),
        checks=[check_message(check) for check in result.checks],
        schema="kxm.worker-result.v1",
    )
    message.create_time.FromMicroseconds(result.create_time)
    last = result.checks[-1] if result.checks else None
    if last is not None and last.observation is Status.COMPLETE and last.exit_code is not None:
        message.verifier_outcome.CopyFrom(
            envelopes_pb2.VerifierOutcome(gate_command=result.command, exit_code=last.exit_code, passed=result.ok)
        )
    return message
