"""Evidence outcomes (spec §6.3), gates of several checks (fail-closed), the ``kxm.worker-result.v1``
document with its content hash, and its ``WorkerResult`` message."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from dataclasses import replace
from typing import Any

import pytest

from kxm_grpc.client.gate_results import worker_result_message
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.gates.outcome import Check, Expect, Outcome, evidence_outcome, run_gate
from kxm_grpc.gates.result import SCHEMA, command_text, worker_result
from kxm_grpc.gates.runner import Command, Observation, Reason, Status, StreamDigest

PY = sys.executable
DIGEST = StreamDigest(hashlib.sha256(b"out").hexdigest(), 3, True)


def complete(code: int) -> Observation:
    return Observation(Status.COMPLETE, exit_code=code, duration_ms=5, stdout=DIGEST, stderr=DIGEST, pid=1)


UNCERTAIN = Observation(Status.UNCERTAIN, Reason.TIMEOUT, "stopped", signal=15, duration_ms=7, pid=2)
NO_START = Observation(Status.NO_START, Reason.REFUSED, "git push with --force", rule="git-force-push")


@pytest.mark.parametrize(
    ("observation", "expect", "outcome"),
    [
        (complete(0), Expect.PASS, Outcome.PASSED),
        (complete(1), Expect.PASS, Outcome.IMPLEMENTATION_FAILURE),
        (complete(2), Expect.PASS, Outcome.IMPLEMENTATION_FAILURE),
        (complete(0), Expect.FAIL, Outcome.REPRO_MISSING),
        (complete(1), Expect.FAIL, Outcome.PASSED),
        (UNCERTAIN, Expect.PASS, Outcome.UNCERTAIN),
        (UNCERTAIN, Expect.FAIL, Outcome.UNCERTAIN),
        (NO_START, Expect.PASS, Outcome.NO_START),
        (NO_START, Expect.FAIL, Outcome.NO_START),
        # an uncertain observation never passes, even with the exit code an expectation wants
        (replace(complete(1), status=Status.UNCERTAIN, reason=Reason.LOST_CLOSE), Expect.FAIL, Outcome.UNCERTAIN),
    ],
)
def test_evidence_outcomes(observation: Observation, expect: Expect, outcome: Outcome) -> None:
    assert evidence_outcome(observation, expect) is outcome


def scripted(*observations: Observation) -> tuple[Any, list[list[str]]]:
    """A runner answering ``observations`` in order, and the argvs it was asked to run."""
    queue = list(observations)
    ran: list[list[str]] = []

    async def runner(command: Command, *, stop: asyncio.Event | None = None) -> Observation:
        ran.append(list(command.argv))
        return queue.pop(0)

    return runner, ran


def checks(*names: str, expect: Expect = Expect.PASS) -> list[Check]:
    return [Check(name, Command([name]), expect) for name in names]


@pytest.mark.parametrize(
    ("observations", "outcome", "ran", "skipped"),
    [
        ((complete(0), complete(0), complete(0)), Outcome.PASSED, 3, ()),
        ((complete(0), complete(1)), Outcome.IMPLEMENTATION_FAILURE, 2, ("c",)),
        ((complete(1),), Outcome.IMPLEMENTATION_FAILURE, 1, ("b", "c")),
        ((complete(0), UNCERTAIN), Outcome.UNCERTAIN, 2, ("c",)),
        ((NO_START,), Outcome.NO_START, 1, ("b", "c")),
    ],
)
async def test_a_gate_stops_at_its_first_failing_check(
    observations: tuple[Observation, ...], outcome: Outcome, ran: int, skipped: tuple[str, ...]
) -> None:
    runner, argvs = scripted(*observations)

    gate = await run_gate(checks("a", "b", "c"), runner=runner)

    assert (gate.outcome, len(gate.runs), gate.skipped, gate.ok) == (outcome, ran, skipped, outcome is Outcome.PASSED)
    assert argvs == [["a"], ["b"], ["c"]][:ran]


async def test_a_repro_gate_passes_when_the_failure_reproduces() -> None:
    runner, _ = scripted(complete(1), complete(0))

    reproduced = await run_gate(checks("repro", expect=Expect.FAIL), runner=runner)
    missing = await run_gate(checks("repro", expect=Expect.FAIL), runner=runner)

    assert (reproduced.outcome, missing.outcome) == (Outcome.PASSED, Outcome.REPRO_MISSING)


async def test_a_gate_needs_checks_with_distinct_names() -> None:
    with pytest.raises(ValueError, match="at least one"):
        await run_gate([])
    with pytest.raises(ValueError, match="unique"):
        await run_gate(checks("a", "a"))


async def test_a_real_gate_and_its_worker_result_document() -> None:
    """Two real checks, the second failing: the document of the seed's shape, fail-closed."""
    gate = await run_gate(
        [
            Check("lint", Command([PY, "-c", "print('clean')"])),
            Check("tests", Command([PY, "-c", "import sys; sys.stderr.write('1 fail' + 'ed'); sys.exit(1)"])),
            Check("drift", Command([PY, "-c", "pass"])),
        ]
    )

    result = worker_result(gate, name="verify-gate", now=1_767_225_600_000_000)
    document = result.to_document()

    assert document["schema"] == SCHEMA == "kxm.worker-result.v1"
    assert document["worker"] == {"schema": "kxm.worker.v1", "kind": "gate", "driver": "code", "name": "verify-gate"}
    assert (document["ok"], document["outcome"]) == (False, "implementation-failure")
    assert document["createdAt"] == "2026-01-01T00:00:00.000000Z"
    assert document["summary"] == "Gate failed at check 2 of 3, tests: implementation-failure (exit 1)."
    assert document["skipped"] == ["drift"]
    assert document["command"].startswith(f"{PY} -c ") and document["command"].count(" && ") == 2
    lint, tests = document["checks"]
    assert (lint["name"], lint["passed"], lint["exitCode"], lint["observation"]) == ("lint", True, 0, "complete")
    assert lint["stdout"] == {"sha256": hashlib.sha256(b"clean\n").hexdigest(), "bytes": 6, "complete": True}
    assert (tests["passed"], tests["outcome"], tests["exitCode"]) == (False, "implementation-failure", 1)
    assert tests["stderr"]["bytes"] == 8 and "1 failed" not in json.dumps(document)  # output never kept
    assert document["telemetry"]["durationMs"] == lint["durationMs"] + tests["durationMs"]
    assert result.content_hash() == "sha256:" + hashlib.sha256(canonical_json(document).encode()).hexdigest()
    assert result.canonical_json() == json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


async def test_the_content_hash_changes_with_any_field() -> None:
    runner, _ = scripted(complete(0), complete(0))
    gate = await run_gate(checks("a"), runner=runner)
    first = worker_result(gate, name="g", now=1)

    assert first.content_hash() == worker_result(gate, name="g", now=1).content_hash()
    assert first.content_hash() != worker_result(gate, name="g", now=2).content_hash()
    assert first.content_hash() != worker_result(gate, name="h", now=1).content_hash()


async def test_no_start_and_uncertain_summaries() -> None:
    refused, _ = scripted(NO_START)
    stopped, _ = scripted(complete(0), UNCERTAIN)

    no_start = worker_result(await run_gate(checks("push"), runner=refused), name="g", now=0)
    uncertain = worker_result(await run_gate(checks("a", "b"), runner=stopped), name="g", now=0)

    assert no_start.summary == "Gate stopped at check 1 of 1, push: it did not start (refused: git push with --force)."
    assert no_start.to_document()["checks"][0]["rule"] == "git-force-push"
    assert uncertain.summary == "Gate stopped at check 2 of 2, b: the observation is uncertain (timeout)."
    assert (uncertain.ok, uncertain.outcome) == (False, Outcome.UNCERTAIN)


def test_command_text_is_shell_quoted() -> None:
    assert command_text([["npm", "run", "verify"], ["echo", "a b"]]) == "npm run verify && echo 'a b'"


async def test_the_worker_result_message() -> None:
    runner, _ = scripted(complete(0), complete(3))
    result = worker_result(await run_gate(checks("lint", "test"), runner=runner), name="g", now=1_500_000)

    message = worker_result_message(result)

    assert (message.worker.kind, message.worker.driver, message.worker.name) == ("gate", "code", "g")
    assert (message.command, message.ok, message.outcome) == ("lint && test", False, "implementation-failure")
    assert message.create_time.ToMicroseconds() == 1_500_000
    assert message.summary == result.summary and message.telemetry.duration_ms == 10
    assert [(c.name, c.passed) for c in message.checks] == [("lint", True), ("test", False)]
    streams = f"stdout sha256:{DIGEST.sha256} 3 B · stderr sha256:{DIGEST.sha256} 3 B"
    assert message.checks[1].summary == f"implementation-failure (exit 3) · 5 ms · {streams}"
    assert (message.verifier_outcome.exit_code, message.verifier_outcome.passed) == (3, False)
    assert message.verifier_outcome.gate_command == "lint && test"


async def test_an_uncertain_result_has_no_verifier_outcome() -> None:
    runner, _ = scripted(UNCERTAIN)
    message = worker_result_message(worker_result(await run_gate(checks("a"), runner=runner), name="g", now=0))

    assert not message.HasField("verifier_outcome")
    assert message.checks[0].summary.startswith("uncertain (timeout) · 7 ms · stdout sha256:")
    assert "incomplete" in message.checks[0].summary
