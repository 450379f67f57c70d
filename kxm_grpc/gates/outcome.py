"""Evidence outcomes (spec §6.3) and a gate of several checks, fail-closed.

A complete observation's outcome follows its expectation: ``expect: pass`` is ``passed`` on exit 0,
else ``implementation-failure``; ``expect: fail`` (repro-before-oracle, loop C) is ``repro-missing``
on exit 0 (the failure did not reproduce), else ``passed``. An observation that is not complete has
no evidence outcome: its check is ``no-start`` or ``uncertain``, and so is the gate — never
``passed``. ``run_gate`` runs the checks in order and stops at the first one that did not pass.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from kxm_grpc.gates.runner import Command, Observation, Status, run_check


class Expect(StrEnum):
    """What a check's exit should be."""

    PASS = "pass"
    FAIL = "fail"


class Outcome(StrEnum):
    """A check's or a gate's outcome."""

    PASSED = "passed"
    IMPLEMENTATION_FAILURE = "implementation-failure"
    REPRO_MISSING = "repro-missing"
    UNCERTAIN = "uncertain"
    NO_START = "no-start"

    @property
    def failed(self) -> bool:
        """A complete observation that did not pass: the code's fault, not the run's."""
        return self in (Outcome.IMPLEMENTATION_FAILURE, Outcome.REPRO_MISSING)


def evidence_outcome(observation: Observation, expect: Expect) -> Outcome:
    """The outcome of one observation under ``expect`` (``no-start``/``uncertain`` when not complete)."""
    if observation.status is Status.NO_START:
        return Outcome.NO_START
    if observation.status is not Status.COMPLETE:
        return Outcome.UNCERTAIN
    succeeded = observation.exit_code == 0
    if expect is Expect.PASS:
        return Outcome.PASSED if succeeded else Outcome.IMPLEMENTATION_FAILURE
    return Outcome.REPRO_MISSING if succeeded else Outcome.PASSED


@dataclass(frozen=True)
class Check:
    """A named check of a gate."""

    name: str
    command: Command
    expect: Expect = Expect.PASS


@dataclass(frozen=True)
class CheckRun:
    """A check that ran (or was refused), what was observed and its outcome."""

    check: Check
    observation: Observation
    outcome: Outcome


@dataclass(frozen=True)
class GateRun:
    """A gate's checks, and those that ran, in order up to the first that did not pass."""

    checks: tuple[Check, ...]
    runs: tuple[CheckRun, ...]
    outcome: Outcome
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.PASSED

    @property
    def skipped(self) -> tuple[str, ...]:
        """The names of the checks not run, after the one that stopped the gate."""
        return tuple(check.name for check in self.checks[len(self.runs) :])


Runner = Callable[..., Awaitable[Observation]]


async def run_gate(
    checks: Sequence[Check], *, stop: asyncio.Event | None = None, runner: Runner = run_check
) -> GateRun:
    """Run ``checks`` in order, stopping at the first whose outcome is not ``passed``.

    Raises:
        ValueError: no checks, or two with one name.
        asyncio.CancelledError: the awaiting task was cancelled (the running check's group stopped).
    """
    if not checks:
        raise ValueError("a gate needs at least one check")
    names = [check.name for check in checks]
    if len(set(names)) != len(names):
        raise ValueError("check names must be unique")
    runs: list[CheckRun] = []
    for check in checks:
        observation = await runner(check.command, stop=stop)
        runs.append(CheckRun(check, observation, evidence_outcome(observation, check.expect)))
        if runs[-1].outcome is not Outcome.PASSED:
            break
    return GateRun(tuple(checks), tuple(runs), runs[-1].outcome, sum(run.observation.duration_ms for run in runs))
