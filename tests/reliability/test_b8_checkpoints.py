"""B8: durable workflow runs apply each checkpoint exactly once across hub kills (reliability.md §5.2;
Temporal's exactly-once activity completion).

Several coordinators (one definition each) work their runs concurrently on a hub armed with one
failpoint that SIGKILLs it: ``checkpoint_mid_write`` (inside a checkpoint's transaction, after the
run's new state is written and before its answer is remembered under the request id: nothing of
it commits) or ``after_commit_before_ack`` (the checkpoint committed, its answer not sent). The
hub is restarted whenever the point kills it, until it has fired 50 times (PR) or 250 (long).

Each run follows a seeded plan of logical checkpoints over ``reproduce → build → ship``: warnings
(a retry of the stage), failures of ``build`` (the declared back-edge to ``reproduce``) and passes.
Every logical checkpoint has one fixed ``request_id`` and is repeated on an indeterminate outcome
(UNAVAILABLE, a cut connection) until the hub answers; a start is repeated with its delivery id.
A pure model of the plan says what each answer and the final run must show:

- every logical checkpoint answered, none refused (a repeat after a commit is answered with the
  first answer, ``repeated``, never WORKFLOW_STAGE_OUT_OF_ORDER);
- each answer's stage ``attempts`` is the model's: per stage and visit the attempts seen are
  dense, 1, 2, 3, …, with no gap and none consumed twice; the answer's retry and transition flags
  are the plan's;
- the final run (read after a clean restart) is ``completed``, each stage's attempts and visit are
  the model's, and its transitions are the plan's back-edges, each recorded once;
- ``PRAGMA integrity_check`` is ``ok`` after every kill.

Figures: kills, logical checkpoints, calls (with the repeats), answers marked ``repeated``,
restart-to-ready times.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from kxm_grpc.v1 import WorkflowRunStatus, WorkflowStageStatus
from tests.reliability.battery import Battery, tier
from tests.reliability.fenced import fast_client
from tests.reliability.history import History, outcome_of
from tests.reliability.hubs import ADMIN_TOKEN, CrashHub, keep_up

pytestmark = pytest.mark.timeout(600 if tier() == "pr" else 5400)

T = TypeVar("T")

# Each point's chance of firing per hit. checkpoint_mid_write is hit by checkpoints only;
# after_commit_before_ack by every write RPC (checkpoints, starts, presence renewals).
POINTS = {"checkpoint_mid_write": 4, "after_commit_before_ack": 3}

STAGES = ("reproduce", "build", "ship")
COMPLETED = WorkflowRunStatus.WORKFLOW_RUN_STATUS_COMPLETED
PASSED = WorkflowStageStatus.WORKFLOW_STAGE_STATUS_PASSED
REPRO = "pytest tests/test_bug.py -k empty_input"


def definition(index: int) -> dict[str, Any]:
    """``b8-<index>``, coordinated by ``coord-<index>``: reproduce → build (up to 20 attempts, its
    failures go back to reproduce, at most twice) → ship."""
    return {
        "id": f"b8-{index}",
        "project": "battery",
        "target": f"coord-{index}",
        "secret": "b8-start-secret-0123456789",
        "maxTransitions": 4,
        "ttlMs": 3_600_000,
        "reproOracle": {"stageId": "reproduce", "evidenceKey": "repro"},
        "promptTemplate": "Work run {{n}}",
        "stages": [
            {"id": "reproduce", "instructions": "Reproduce it.", "requiredEvidence": ["repro"]},
            {
                "id": "build",
                "instructions": "Build the fix.",
                "requiredEvidence": ["patch"],
                "maxAttempts": 20,
                "on": {"failed": {"target": "reproduce", "maxTransitions": 2}},
            },
            {"id": "ship", "instructions": "Ship it.", "requiredEvidence": ["release"]},
        ],
    }


# -- the plan and its model -----------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One logical checkpoint and what the model says its answer shows."""

    index: int
    stage: str
    status: str
    attempts: int
    """The stage's attempts once it is applied."""
    visit: int
    transition: bool
    """Whether it takes the back-edge."""


@dataclass
class Plan:
    steps: list[Step]
    attempts: dict[str, int]
    visits: dict[str, int]
    transitions: list[tuple[str, str, str, int]]


def plan(battery: Battery) -> Plan:
    """A run's logical checkpoints (seeded) and the model's replay of them: a checkpoint consumes
    one attempt of its stage; a back-edge resets its target's attempts and enters both stages
    again (a new visit); the source keeps its attempts (docs/workflows.md, Visits and attempts)."""
    backs = battery.random.choice((0, 1, 1, 2))
    script: list[tuple[str, str]] = [("reproduce", "passed")]
    for round_ in range(backs + 1):
        script += [("build", "warning")] * battery.random.randint(1, 5)
        script += [("build", "failed"), ("reproduce", "passed")] if round_ < backs else []
    script += [("build", "passed"), ("ship", "passed")]
    attempts = dict.fromkeys(STAGES, 0)
    visits = {"reproduce": 1, "build": 1, "ship": 1}
    transitions: list[tuple[str, str, str, int]] = []
    steps: list[Step] = []
    for index, (stage, status) in enumerate(script):
        attempts[stage] += 1
        back = stage == "build" and status == "failed"
        steps.append(Step(index, stage, status, attempts[stage], visits[stage], back))
        if back:
            transitions.append(("build", "reproduce", "failed", attempts["build"]))
            attempts["reproduce"] = 0
            visits["reproduce"] += 1
            visits["build"] += 1
    return Plan(steps, attempts, visits, transitions)


def evidence(step: Step) -> dict[str, str]:
    given = {"repro": REPRO}  # the oracle: every checkpoint presents it unchanged
    if step.status == "passed" and step.stage == "build":
        given["patch"] = "fix.diff"
    if step.status == "passed" and step.stage == "ship":
        given["release"] = "v1.0.1"
    return given


def stage_of(run: Any, stage_id: str) -> Any:
    return next(s for s in run.stages if s.id == stage_id)


# -- the coordinators -----------------------------------------------------------------------------


@dataclass
class Tally:
    """What the coordinators saw, across every run."""

    checkpoints: int = 0
    calls: Counter[str] = field(default_factory=Counter)
    repeated: int = 0
    refused: list[tuple[str, int, str]] = field(default_factory=list)
    unanswered: list[tuple[str, int]] = field(default_factory=list)
    wrong_answers: list[tuple[Any, ...]] = field(default_factory=list)
    attempts_seen: dict[tuple[str, str, int], list[int]] = field(default_factory=dict)
    runs: dict[str, Plan] = field(default_factory=dict)


async def until_answered(
    battery: Battery, history: History, tally: Tally, op: str, call: Callable[[], Awaitable[T]], **fields: str
) -> T | HubError | None:
    """``call`` repeated (the same request each time) until the hub answers: its answer, the
    definite refusal it answered, or None when 60 s passed without one."""
    backoff = 0.05
    for _ in battery.bounded(10_000, 60.0):
        tally.calls[op] += 1
        try:
            async with history.record(op, **fields) as entry:
                answer = await call()
                entry.value = "repeated" if getattr(answer, "repeated", False) else "ok"
            return answer
        except HubError as error:
            if outcome_of(error) == "fail":
                return error
        await asyncio.sleep(battery.random.uniform(backoff / 2, backoff))
        backoff = min(0.5, backoff * 2)
    return None


async def coordinate(
    battery: Battery,
    history: History,
    tally: Tally,
    admin: HubClient,
    client: HubClient,
    index: int,
    enough: Callable[[], bool],
) -> None:
    """Coordinator ``index``: runs of ``b8-<index>``, one after another, until ``enough()``."""
    for number in battery.bounded(10_000, battery.size(pr=240.0, long=1500.0)):
        if enough():
            return
        delivery = f"b8-{index}-{number}"
        started = await until_answered(
            battery,
            history,
            tally,
            "start",
            lambda d=delivery, n=number: admin.workflows.start_run(
                f"b8-{index}", delivery_id=d, payload={"n": n}, timeout=5.0
            ),
            key=delivery,
        )
        if not hasattr(started, "run"):
            tally.refused.append((delivery, -1, repr(started)))
            return
        run_id = started.run.id  # type: ignore[union-attr]
        model = tally.runs[run_id] = plan(battery)
        for step in model.steps:
            request = f"{run_id}:{step.index}"
            answer = await until_answered(
                battery,
                history,
                tally,
                "checkpoint",
                lambda s=step, r=request, run=run_id: client.workflows.checkpoint(
                    run,
                    s.stage,
                    s.status,
                    summary=f"step {s.index}",
                    evidence=evidence(s),
                    request_id=r,
                    timeout=5.0,
                ),
                agent=f"coord-{index}",
                key=run_id,
                idem=request,
            )
            if answer is None:
                tally.unanswered.append((run_id, step.index))
                return
            if isinstance(answer, HubError):
                tally.refused.append((run_id, step.index, f"{answer.reason}: {answer.message}"))
                return
            tally.checkpoints += 1
            tally.repeated += answer.repeated
            seen = stage_of(answer.run, step.stage)
            tally.attempts_seen.setdefault((run_id, step.stage, step.visit), []).append(seen.attempts)
            shown = (seen.attempts, seen.visit, answer.retry, answer.HasField("transition"))
            expected = (step.attempts, step.visit, step.status == "warning", step.transition)
            if shown != expected:
                tally.wrong_answers.append((run_id, step.index, step.stage, step.status, shown, expected))


# -- the battery ----------------------------------------------------------------------------------


@pytest.mark.parametrize("point", sorted(POINTS))
@pytest.mark.battery("B8", "each workflow checkpoint is applied exactly once across hub kills")
async def test_each_checkpoint_applies_once_across_hub_kills(battery: Battery, point: str) -> None:
    fires = battery.size(pr=50, long=250)
    coordinators = battery.size(pr=6, long=24)
    history = History(battery.dir / "history.jsonl")
    hub = CrashHub(battery.dir / "data", seed=battery.seed)
    hub.start()
    admin = fast_client(hub.address, token=ADMIN_TOKEN, timeout=5.0)
    clients: list[HubClient] = []
    tally = Tally()
    try:
        token = (await admin.admin.create_project("battery")).project_token
        for index in range(coordinators):
            client = fast_client(hub.address, token=token, timeout=5.0)
            await client.agents.register(f"coord-{index}")
            await admin.workflows.register_definition(definition(index))
            clients.append(client)
        # Armed once the coordinators and definitions are in (a restart on the same data directory).
        hub.failpoints = f"{point}={POINTS[point]}%kill"
        await asyncio.to_thread(hub.restart)
        stop = asyncio.Event()
        keeper = asyncio.create_task(keep_up(hub, stop))
        began = time.monotonic()
        try:
            await asyncio.gather(
                *(
                    coordinate(battery, history, tally, admin, client, index, lambda: hub.failpoint_kills >= fires)
                    for index, client in enumerate(clients)
                )
            )
        finally:
            stop.set()
            await keeper
        battery.figure("load_seconds", round(time.monotonic() - began, 1))
        # Disarmed for the final read: a last restart without the failpoint.
        hub.failpoints = ""
        await asyncio.to_thread(hub.restart)
        finals = {}
        for run_id in tally.runs:
            read = await until_answered(
                battery, history, tally, "read", lambda r=run_id: admin.workflows.get_run(r, timeout=5.0)
            )
            finals[run_id] = None if read is None or isinstance(read, HubError) else read.run
    finally:
        for client in clients:
            await client.close()
        await admin.close()
        hub.stop()
        history.close()
    hub.kill()  # reaps it and runs the final integrity check

    # The runs a coordinator was still in when the kills were enough are checked as far as they went.
    finished = {r: p for r, p in tally.runs.items() if len(tally.attempts_seen.get((r, "ship", 1), [])) == 1}
    final_state = {
        run_id: (
            finals[run_id].status if finals[run_id] is not None else None,
            {s: (stage_of(finals[run_id], s).attempts, stage_of(finals[run_id], s).visit) for s in STAGES}
            if finals[run_id] is not None
            else {},
            [(t.from_stage_id, t.to_stage_id, t.outcome, t.attempt) for t in finals[run_id].transitions]
            if finals[run_id] is not None
            else [],
        )
        for run_id in finished
    }
    modelled = {
        run_id: (COMPLETED, {s: (p.attempts[s], p.visits[s]) for s in STAGES}, p.transitions)
        for run_id, p in finished.items()
    }
    transition_ids_twice = {
        run_id: ids
        for run_id, run in finals.items()
        if run is not None and len(ids := [t.id for t in run.transitions]) != len(set(ids))
    }
    gaps = {key: seen for key, seen in tally.attempts_seen.items() if seen != list(range(seen[0], seen[0] + len(seen)))}
    hub.record(battery)
    battery.figure("failpoint", point)
    battery.figure("coordinators", coordinators)
    battery.figure("runs", len(tally.runs))
    battery.figure("runs_completed", len(finished))
    battery.figure("checkpoints", tally.checkpoints)
    battery.figure("checkpoint_calls", tally.calls["checkpoint"])
    battery.figure("start_calls", tally.calls["start"])
    battery.figure("answered_repeated", tally.repeated)
    battery.figure("transitions", sum(len(p.transitions) for p in finished.values()))
    battery.invariant("logical checkpoints refused", tally.refused, [])
    battery.invariant("logical checkpoints never answered", tally.unanswered, [])
    battery.invariant("answers unlike the model (attempts, visit, retry, transition)", tally.wrong_answers, [])
    battery.invariant("attempts consumed twice or skipped (per stage and visit)", gaps, {})
    battery.invariant("final runs unlike the model (status, attempts, visits, transitions)", final_state, modelled)
    battery.invariant("transitions recorded twice", transition_ids_twice, {})
    battery.invariant("integrity_check after every kill", {r for r in hub.integrity if r != "ok"}, set())
    battery.at_least("failpoint kills", hub.failpoint_kills, fires)
    battery.at_least("runs completed", len(finished), coordinators)
    if point == "after_commit_before_ack":
        # A kill between commit and answer leaves the answer lost: its repeat must be answered `repeated`.
        battery.at_least("repeats answered repeated", tally.repeated, 1)
