"""B18: the step engine loses no assignment and settles none twice across hub kills (reliability.md
§5.2; Temporal's activities, run at least once and recorded exactly once).

Step workflows (``kxm.workflow.v1``) run on a hub subprocess on real SQLite: the hub dispatches each
step's ``AssignmentRequest`` as a durable message, scripted agents answer with ``CompleteAssignment``,
a scripted gate worker answers the gate. Two plans:

- loop A: plan → implement → a command gate whose failure goes back to implement (a back-edge,
  budget 1); a run's gate fails its first 0, 1 or 2 visits (completed directly, completed after a
  failing-then-passing gate, failed by the back-edge budget);
- loop B: propose → a review panel of two critics of distinct providers joined by a quorum of two
  PASS verdicts; one critic blocks the first 0–3 rounds (each back to propose, at most twice).

Each run's answers are a pure function of its case and the assignment (step, attempt), so the
same run undisturbed ends the same way. First every case runs once on an undisturbed hub (the
baseline). Then runners start runs on a hub armed with one failpoint at a time that SIGKILLs it:
``step_dispatch`` (an assignment's message written, its transaction not committed), ``step_settle``
(a result recorded, the step settled and the next one dispatched, nothing committed) or
``after_commit_before_ack`` (a completion or start committed, its answer lost). The hub is restarted
on the same data directory after every kill, the next point armed, until the points fired 50 times
(long 250). The agents keep polling ``NextAssignment`` through the restarts (their channels
reconnect to the same port), and repeat an unanswered ``CompleteAssignment`` with the same result
until the hub answers; a runner repeats its start with its delivery id. Then, with the failpoints
disarmed, every run is read back:

- no assignment lost: every run reaches a terminal status, every assignment created is closed
  exactly once (completed, cancelled, expired or superseded), every open assignment row closed;
- none settled twice: at most one ``assignment.completed`` per assignment, at most one answer that
  is not ``duplicate`` per assignment, every answered result in the log, no repeat of a committed
  result refused;
- each dispatched assignment has exactly one message (idempotency key = the assignment id);
- every run's event log is contiguous (1..n, n the run's last sequence), opens with ``run.created``
  and has one ``run.ended``, last;
- each run's trajectory (its steps' outcomes in order, its terminal status and reason) is the
  baseline's for its case; one run per delivery id;
- ``PRAGMA integrity_check`` is ``ok`` after every kill.

Figures: kills per point, runs per case, completions (with the repeats and duplicates), restart-to-ready
times. Why it compares trajectories and names exactly two critics: docs/decisions.md 161.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from google.protobuf import json_format

from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as env
from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from kxm_grpc.v1 import WorkflowRunStatus
from tests.reliability.battery import Battery, tier
from tests.reliability.fenced import fast_client
from tests.reliability.history import History, outcome_of
from tests.reliability.hubs import ADMIN_TOKEN, CrashHub

pytestmark = pytest.mark.timeout(900 if tier() == "pr" else 5400)

T = TypeVar("T")

PROJECT = "battery"
# Each point's chance of firing per hit. The step points are hit by the engine's changes only;
# after_commit_before_ack by every write RPC (completions, starts, presence renewals).
POINTS = {"step_dispatch": 12, "step_settle": 12, "after_commit_before_ack": 4}
# Fewer active runs than runners: some runs wait queued and are admitted as another ends.
MAX_CONCURRENT_RUNS = 4
TERMINAL = {
    WorkflowRunStatus.WORKFLOW_RUN_STATUS_COMPLETED,
    WorkflowRunStatus.WORKFLOW_RUN_STATUS_FAILED,
    WorkflowRunStatus.WORKFLOW_RUN_STATUS_CANCELLED,
}
PLAN_SHA = "ab" * 32
FAILED_END = {"target": "$terminal", "terminalStatus": "failed"}
COMPLETED_END = {"target": "$terminal", "terminalStatus": "completed"}

GATE_REGISTRY = {
    "schema": "kxm.gate-registry.v1",
    "gates": {
        "verify": {
            "kind": "command",
            "checks": [
                {"name": "build", "argv": ["make", "build"], "timeoutMs": 600_000},
                {"name": "tests", "argv": ["make", "test"], "timeoutMs": 600_000},
            ],
        }
    },
}

LOOP_A = {
    "schema": "kxm.workflow.v1",
    "id": "b18-a",
    "project": PROJECT,
    "description": "Loop A: plan, implement, a code gate with a back-edge",
    "limits": {"maxTransitions": 10},
    "planHash": {"stageId": "plan", "evidenceKey": "plan"},
    "requirePlanHash": ["implement"],
    "steps": [
        {
            "id": "plan",
            "kind": "agent",
            "agent": "planner",
            "requiredEvidence": [{"key": "plan", "kind": "artifact"}],
            "on": {"passed": "implement", "failed": FAILED_END},
        },
        {
            "id": "implement",
            "kind": "agent",
            "agent": "writer",
            "maxAttempts": 2,
            "on": {"passed": "verify", "failed": FAILED_END},
        },
        {
            "id": "verify",
            "kind": "gate",
            "gate": "verify",
            "on": {"passed": COMPLETED_END, "failed": {"target": "implement", "backEdgeBudget": 1}},
        },
    ],
}

LOOP_B = {
    "schema": "kxm.workflow.v1",
    "id": "b18-b",
    "project": PROJECT,
    "description": "Loop B: a draft reviewed by a quorum of two critics of distinct providers",
    "agents": {
        "fable-critic": {"provider": "anthropic", "model": "claude-fable"},
        "sol-critic": {"provider": "openai", "model": "gpt-sol"},
    },
    "limits": {"maxTransitions": 8},
    "steps": [
        {"id": "propose", "kind": "agent", "agent": "author", "on": {"passed": "review", "failed": FAILED_END}},
        {
            "id": "review",
            "kind": "moa",
            "assignments": {"allowedAgents": ["fable-critic", "sol-critic"], "minimum": 2, "target": 2},
            "join": {"strategy": "quorum", "minimumPassed": 2, "cancelRemaining": True},
            "requiredEvidence": [
                {
                    "key": "review",
                    "kind": "review",
                    "producerPolicy": {"minimumProducers": 2, "distinctBy": ["provider"]},
                }
            ],
            "on": {"passed": COMPLETED_END, "quorum-not-met": {"target": "propose", "maxTransitions": 2}},
        },
    ],
}

AGENTS = ("planner", "writer", "gate-worker", "author", "fable-critic", "sol-critic")


@dataclass(frozen=True)
class Case:
    """A run's script: its plan, and how many times its failing member fails before it passes."""

    definition: str
    failures: int

    @property
    def label(self) -> str:
        return f"{self.definition}/{self.failures}"


# Loop A's gate fails 0, 1 (the failing-then-passing gate) or 2 visits (its back-edge budget spent);
# loop B's critic blocks 0..3 rounds (3: the quorum-not-met edge's budget spent). Weighted to the
# back-edges.
CASES = (
    *(Case("b18-a", n) for n in (0, 1, 1, 1, 2)),
    *(Case("b18-b", n) for n in (0, 1, 1, 2, 3)),
)


def answer(case: Case, agent: str, request: env.AssignmentRequest) -> env.WorkerResult | env.ReviewEnvelope:
    """The agent's result for this assignment: a function of the run's case and the assignment's
    step and attempt only, so a repeat is the same result and a replayed run the same run."""
    plan = [env.Artifact(name="plan", path="docs/plan.md", sha256=PLAN_SHA)]
    if agent == "gate-worker":
        passed = request.attempt > case.failures
        checks = [env.GateCheck(name="build", passed=True, exit_code=0)]
        checks.append(env.GateCheck(name="tests", passed=passed, exit_code=0 if passed else 1))
        return env.WorkerResult(outcome="done", checks=checks)
    if agent in ("fable-critic", "sol-critic"):
        blocked = agent == "sol-critic" and request.attempt <= case.failures
        return env.ReviewEnvelope(
            assignment_id=request.assignment_id,
            verdict="FAIL" if blocked else "PASS",
            blockers=[f"round {request.attempt}: the retry loop has no backoff"] if blocked else [],
        )
    summary = f"{agent} {request.step_id} attempt {request.attempt}"
    return env.WorkerResult(outcome="passed", summary=summary, artifacts=plan if agent != "author" else [])


# -- what the agents and runners saw --------------------------------------------------------------


@dataclass
class Seen:
    """One hub's runs as its clients saw them."""

    cases: dict[str, Case] = field(default_factory=dict)
    """Run id → its case (set once its start was answered)."""
    deliveries: dict[str, str] = field(default_factory=dict)
    """Run id → the delivery id it was started with."""
    finals: dict[str, Any] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    accepted: Counter[str] = field(default_factory=Counter)
    """Assignment id → answers to its completion that were not ``duplicate``."""
    answered: set[str] = field(default_factory=set)
    """Assignments whose completion the hub answered OK (first or duplicate)."""
    duplicates: int = 0
    refused: dict[str, str] = field(default_factory=dict)
    """Assignment id → the definite refusal its completion got."""
    odd: list[str] = field(default_factory=list)
    """Unexpected refusals of reads and starts."""
    unanswered: list[str] = field(default_factory=list)


async def until_answered(
    battery: Battery, history: History, seen: Seen, op: str, call: Callable[[], Awaitable[T]], **fields: str
) -> T | HubError | None:
    """``call`` repeated (the same request each time) until the hub answers: its answer, the
    definite refusal it answered, or None when 120 s passed without one."""
    backoff = 0.05
    for _ in battery.bounded(100_000, 120.0):
        seen.calls[op] += 1
        try:
            async with history.record(op, **fields):
                return await call()
        except HubError as error:
            if outcome_of(error) == "fail":
                return error
        await asyncio.sleep(battery.random.uniform(backoff / 2, backoff))
        backoff = min(0.5, backoff * 2)
    return None


async def pause(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def agent_loop(
    battery: Battery, history: History, seen: Seen, name: str, client: HubClient, stop: asyncio.Event
) -> None:
    """One scripted agent: reads its oldest open assignment, answers it, repeats an unanswered
    completion with the same result; through the hub's restarts, until ``stop``."""
    backoff = 0.05
    while not stop.is_set():
        try:
            response = await client.workflows.next_assignment(timeout=5.0)
        except HubError as error:
            if outcome_of(error) == "fail":
                seen.odd.append(f"{name} NextAssignment: {error.reason}: {error.message}")
            await pause(stop, battery.random.uniform(backoff / 2, backoff))
            backoff = min(0.5, backoff * 2)
            continue
        backoff = 0.05
        request = response.assignment
        case = seen.cases.get(request.run_id) if response.HasField("assignment") else None
        if case is None or request.assignment_id in seen.refused:
            # None open, its run's start not answered yet, or refused (its run moved on meanwhile).
            await pause(stop, 0.05)
            continue
        result = answer(case, name, request)
        done = await until_answered(
            battery,
            history,
            seen,
            "complete",
            lambda a=request.assignment_id, r=result: client.workflows.complete_assignment(a, r, timeout=5.0),
            agent=name,
            key=request.run_id,
            idem=request.assignment_id,
        )
        if done is None:
            seen.unanswered.append(request.assignment_id)
        elif isinstance(done, HubError):
            seen.refused[request.assignment_id] = str(done.reason)
        else:
            seen.answered.add(request.assignment_id)
            seen.duplicates += done.duplicate
            if not done.duplicate:
                seen.accepted[request.assignment_id] += 1


async def run_cases(
    battery: Battery,
    history: History,
    seen: Seen,
    admin: HubClient,
    runner: int,
    cases: Callable[[int], Case | None],
) -> None:
    """Runner ``runner``: starts a run of ``cases(n)``, waits for it to end, then the next, until None."""
    for number in battery.bounded(10_000, battery.size(pr=300.0, long=1800.0)):
        case = cases(number)
        if case is None:
            return
        delivery = f"b18-{runner}-{number}"
        started = await until_answered(
            battery,
            history,
            seen,
            "start",
            lambda c=case, d=delivery: admin.workflows.start_run(c.definition, delivery_id=d, timeout=5.0),
            key=delivery,
        )
        if started is None or isinstance(started, HubError):
            seen.odd.append(f"start {delivery}: {started!r}")
            return
        run_id = started.run.id
        seen.cases[run_id] = case
        seen.deliveries[run_id] = delivery
        final = await wait_ended(battery, history, seen, admin, run_id)
        if final is None:
            seen.unanswered.append(run_id)
            return
        seen.finals[run_id] = final


async def wait_ended(battery: Battery, history: History, seen: Seen, admin: HubClient, run_id: str) -> Any | None:
    """The run once it reached a terminal status (None after 180 s without)."""
    for _ in battery.bounded(100_000, 180.0):
        read = await until_answered(
            battery, history, seen, "get", lambda: admin.workflows.get_run(run_id, timeout=5.0), key=run_id
        )
        if isinstance(read, HubError):
            seen.odd.append(f"get {run_id}: {read.reason}")
            return None
        if read is not None and read.run.status in TERMINAL:
            return read.run
        await asyncio.sleep(0.1)
    return None


async def events_of(battery: Battery, history: History, seen: Seen, admin: HubClient, run_id: str) -> list[Any]:
    """Every event of the run's log, in order, read page by page."""
    events: list[Any] = []
    for _ in battery.bounded(1_000, 60.0):
        after = events[-1].sequence if events else 0
        page = await until_answered(
            battery,
            history,
            seen,
            "events",
            lambda a=after: admin.workflows.list_run_events(run_id, after_sequence=a, page_size=500, timeout=5.0),
            key=run_id,
        )
        if page is None or isinstance(page, HubError):
            seen.odd.append(f"events {run_id}: {page!r}")
            return events
        events += list(page.events)
        if not page.events or events[-1].sequence >= page.last_sequence:
            return events
    return events


# -- a hub with the project, plans and agents -----------------------------------------------------


@dataclass
class World:
    hub: CrashHub
    admin: HubClient
    agents: dict[str, HubClient]

    async def close(self) -> None:
        for client in self.agents.values():
            await client.close()
        await self.admin.close()


async def world(hub: CrashHub) -> World:
    """The project, its gate registry, both plans and every agent, on ``hub`` (not yet armed)."""
    admin = fast_client(hub.address, token=ADMIN_TOKEN, timeout=5.0)
    token = (await admin.admin.create_project(PROJECT)).project_token
    await admin.close()
    admin = fast_client(hub.address, token=ADMIN_TOKEN, project=PROJECT, timeout=5.0)
    await admin.workflows.register_gate_registry(GATE_REGISTRY, project=PROJECT)
    for document in (LOOP_A, LOOP_B):
        await admin.workflows.register_definition(document)
    agents = {}
    for name in AGENTS:
        agents[name] = fast_client(hub.address, token=token, timeout=5.0)
        await agents[name].agents.register(name)
    return World(hub, admin, agents)


@dataclass(frozen=True)
class Trajectory:
    """What must not depend on the kills: the steps' outcomes in order and how the run ended."""

    outcomes: tuple[tuple[str, int, str], ...]
    status: str
    reason: str


def payload(event: Any) -> dict[str, Any]:
    return dict(json_format.MessageToDict(event.payload))


def trajectory(events: list[Any]) -> Trajectory:
    outcomes = tuple(
        (p["stepId"], int(p["stepAttempt"]), p["outcome"])
        for p in (payload(e) for e in events if e.type == "step.outcome")
    )
    ended = [payload(e) for e in events if e.type == "run.ended"]
    last = ended[-1] if ended else {}
    return Trajectory(outcomes, str(last.get("status", "")), str(last.get("reason", "")))


CLOSING = ("assignment.completed", "assignment.cancelled", "assignment.expired", "assignment.superseded")


@dataclass
class LogCheck:
    """What the runs' event logs show, across every run."""

    not_contiguous: dict[str, list[int]] = field(default_factory=dict)
    badly_framed: dict[str, list[str]] = field(default_factory=dict)
    completed_twice: dict[str, int] = field(default_factory=dict)
    not_closed_once: dict[str, int] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)
    completed: set[str] = field(default_factory=set)
    cancelled: set[str] = field(default_factory=set)
    trajectories: dict[str, Trajectory] = field(default_factory=dict)

    def add(self, run_id: str, events: list[Any], last_sequence: int) -> None:
        sequences = [e.sequence for e in events]
        if sequences != list(range(1, last_sequence + 1)):
            self.not_contiguous[run_id] = sequences
        types = [e.type for e in events]
        if not types or types[0] != "run.created" or types[-1] != "run.ended" or types.count("run.ended") != 1:
            self.badly_framed[run_id] = types
        created = [payload(e)["assignmentId"] for e in events if e.type == "assignment.created"]
        closings = Counter(payload(e)["assignmentId"] for e in events if e.type in CLOSING)
        completions = Counter(payload(e)["assignmentId"] for e in events if e.type == "assignment.completed")
        self.created.update(created)
        self.completed.update(completions)
        self.cancelled.update(payload(e)["assignmentId"] for e in events if e.type == "assignment.cancelled")
        self.completed_twice.update({a: n for a, n in completions.items() if n > 1})
        self.not_closed_once.update({a: closings[a] for a in created if closings[a] != 1})
        self.trajectories[run_id] = trajectory(events)


async def read_back(battery: Battery, history: History, seen: Seen, admin: HubClient) -> LogCheck:
    """Every run's final state and log (after a restart with nothing armed)."""
    check = LogCheck()
    for run_id in sorted(seen.cases):
        read = await until_answered(
            battery, history, seen, "get", lambda r=run_id: admin.workflows.get_run(r, timeout=5.0), key=run_id
        )
        if read is None or isinstance(read, HubError):
            seen.odd.append(f"final get {run_id}: {read!r}")
            continue
        seen.finals[run_id] = read.run
        events = await events_of(battery, history, seen, admin, run_id)
        # Contiguous up to the snapshot's own last sequence: no event missing at the end either.
        check.add(run_id, events, read.run.steps.sequence)
    return check


def database_check(path: Path) -> dict[str, Any]:
    """The stored assignments and their messages, read from the stopped hub's database."""
    conn = sqlite3.connect(path, timeout=10)
    try:
        rows = conn.execute("SELECT id, run_id, state, message_id FROM step_run_assignments").fetchall()
        messages = Counter(
            key for (key,) in conn.execute("SELECT idempotency_key FROM messages WHERE from_agent_id LIKE 'workflow:%'")
        )
        message_ids = {mid for (mid,) in conn.execute("SELECT id FROM messages WHERE from_agent_id LIKE 'workflow:%'")}
        starts = Counter(
            key for (key,) in conn.execute("SELECT start_request_id FROM step_runs WHERE start_request_id != ''")
        )
    finally:
        conn.close()
    return {
        "assignment_rows": {row[0] for row in rows},
        "open_rows": sorted(row[0] for row in rows if row[2] == "open"),
        "messages_not_one": {row[0]: messages[row[0]] for row in rows if messages[row[0]] != 1},
        "message_missing": sorted(row[0] for row in rows if row[3] not in message_ids),
        "starts_twice": {key: n for key, n in starts.items() if n > 1},
    }


# -- the battery ----------------------------------------------------------------------------------


async def undisturbed(battery: Battery, root: Path) -> dict[Case, Trajectory]:
    """Each case run once on a hub nobody kills: the trajectories the chaos runs must repeat."""
    hub = CrashHub(root / "baseline", extra_args=("--max-concurrent-runs", str(MAX_CONCURRENT_RUNS)))
    hub.start()
    history = History(root / "baseline-history.jsonl")
    seen = Seen()
    stop = asyncio.Event()
    here = await world(hub)
    try:
        agents = [
            asyncio.create_task(agent_loop(battery, history, seen, name, client, stop))
            for name, client in here.agents.items()
        ]
        distinct = sorted(set(CASES), key=lambda c: c.label)
        await asyncio.gather(
            *(
                run_cases(battery, history, seen, here.admin, index, lambda n, c=case: c if n == 0 else None)
                for index, case in enumerate(distinct)
            )
        )
        check = await read_back(battery, history, seen, here.admin)
        stop.set()
        await asyncio.gather(*agents)
    finally:
        stop.set()
        await here.close()
        hub.stop()
        history.close()
    by_case = {seen.cases[run_id]: path for run_id, path in check.trajectories.items()}
    battery.invariant("baseline: every case ended, nothing refused", (len(by_case), seen.odd), (len(distinct), []))
    return by_case


@pytest.mark.battery("B18", "step runs lose no assignment and settle none twice across hub kills")
async def test_step_runs_survive_hub_kills(battery: Battery) -> None:
    fires = battery.size(pr=50, long=250)
    runners = battery.size(pr=6, long=12)
    baseline = await undisturbed(battery, battery.dir)
    battery.figure("baseline", {case.label: f"{t.status} {t.reason}" for case, t in baseline.items()})
    # The plans must exercise what this battery is about: a failing-then-passing gate, a quorum
    # met after a back-edge, and both ways a back-edge budget ends a run.
    battery.invariant(
        "baseline terminal statuses",
        {case.label: t.status for case, t in baseline.items()},
        {
            "b18-a/0": "completed",
            "b18-a/1": "completed",
            "b18-a/2": "failed",
            "b18-b/0": "completed",
            "b18-b/1": "completed",
            "b18-b/2": "completed",
            "b18-b/3": "failed",
        },
    )

    history = History(battery.dir / "history.jsonl")
    hub = CrashHub(
        battery.dir / "data",
        seed=battery.seed,
        extra_args=("--max-concurrent-runs", str(MAX_CONCURRENT_RUNS)),
    )
    hub.start()
    here = await world(hub)
    seen = Seen()
    stop_agents = asyncio.Event()
    order = sorted(POINTS)
    battery.random.shuffle(order)
    kills_by_point: Counter[str] = Counter()
    armed = [order[0]]

    def spec(point: str) -> str:
        return f"{point}={POINTS[point]}%kill"

    def next_start() -> None:
        """Reap the dead hub (its point fired), arm the next point, start it again."""
        before = hub.failpoint_kills
        hub.kill()
        kills_by_point[armed[0]] += hub.failpoint_kills - before
        armed[0] = order[(order.index(armed[0]) + 1) % len(order)]
        hub.failpoints = spec(armed[0])
        before = hub.failpoint_kills
        hub.start()
        # A start the armed point ended before the hub served (its first timers' dispatches).
        kills_by_point[armed[0]] += hub.failpoint_kills - before

    stop_keeper = asyncio.Event()

    async def keeper() -> None:
        while not stop_keeper.is_set():
            if not hub.alive():
                await asyncio.to_thread(next_start)
            await asyncio.sleep(0.05)

    rngs = [random.Random(battery.seed + 1 + index) for index in range(runners)]

    def chaos_case(runner: int) -> Callable[[int], Case | None]:
        return lambda n: None if hub.failpoint_kills >= fires else rngs[runner].choice(CASES)

    try:
        agents = [
            asyncio.create_task(agent_loop(battery, history, seen, name, client, stop_agents))
            for name, client in here.agents.items()
        ]
        # Armed once the project, plans and agents are in (a restart on the same data directory).
        hub.failpoints = spec(armed[0])
        await asyncio.to_thread(hub.restart)
        guard = asyncio.create_task(keeper())
        began = time.monotonic()
        try:
            await asyncio.gather(
                *(run_cases(battery, history, seen, here.admin, index, chaos_case(index)) for index in range(runners))
            )
        finally:
            stop_keeper.set()
            await guard
        battery.figure("load_seconds", round(time.monotonic() - began, 1))
        # Disarmed for the read back: a last restart without a failpoint.
        hub.failpoints = ""
        await asyncio.to_thread(hub.restart)
        check = await read_back(battery, history, seen, here.admin)
        stop_agents.set()
        await asyncio.gather(*agents)
    finally:
        stop_keeper.set()
        stop_agents.set()
        await here.close()
        hub.stop()
        history.close()
    hub.kill()  # reaps it and runs the final integrity check
    stored = database_check(hub.db_path)

    hub.record(battery)
    runs_by_case = Counter(case.label for case in seen.cases.values())
    battery.figure("failpoint_kills_by_point", dict(kills_by_point))
    battery.figure("runners", runners)
    battery.figure("runs", len(seen.cases))
    battery.figure("runs_by_case", dict(sorted(runs_by_case.items())))
    battery.figure("assignments", len(check.created))
    battery.figure("completions_accepted", sum(seen.accepted.values()))
    battery.figure("completion_calls", seen.calls["complete"])
    battery.figure("answered_duplicate", seen.duplicates)
    battery.figure("refused_cancelled_by_join", len(seen.refused))
    battery.figure("start_calls", seen.calls["start"])

    ended = {run_id for run_id, run in seen.finals.items() if run.status in TERMINAL}
    diverged = {
        run_id: (seen.cases[run_id].label, check.trajectories.get(run_id), baseline[seen.cases[run_id]])
        for run_id in seen.cases
        if check.trajectories.get(run_id) != baseline[seen.cases[run_id]]
    }
    battery.invariant("unexpected refusals of starts and reads", seen.odd, [])
    battery.invariant("calls never answered (assignments, runs)", seen.unanswered, [])
    battery.invariant("runs not in a terminal status", sorted(set(seen.cases) - ended), [])
    battery.invariant("assignments not closed exactly once in their run's log", check.not_closed_once, {})
    battery.invariant("assignments completed twice in the log", check.completed_twice, {})
    battery.invariant("assignments accepted more than once", {a: n for a, n in seen.accepted.items() if n > 1}, {})
    battery.invariant("answered completions missing from the log", sorted(seen.answered - check.completed), [])
    # A completion is refused only when its assignment was cancelled first (the quorum was decided
    # without it): a refused repeat of a committed result would be a lost answer.
    battery.invariant(
        "refusals other than of an assignment cancelled first",
        {a: r for a, r in seen.refused.items() if a not in check.cancelled or a in check.completed},
        {},
    )
    battery.invariant("event logs not contiguous", check.not_contiguous, {})
    battery.invariant("event logs not framed by run.created ... run.ended", check.badly_framed, {})
    battery.invariant("trajectories unlike the undisturbed run's", diverged, {})
    battery.invariant("assignment rows unlike the logs' assignments", stored["assignment_rows"], check.created)
    battery.invariant("assignment rows left open", stored["open_rows"], [])
    battery.invariant("assignments without exactly one message", stored["messages_not_one"], {})
    battery.invariant("assignments whose message is missing", stored["message_missing"], [])
    battery.invariant("runs started twice under one delivery id", stored["starts_twice"], {})
    battery.invariant("integrity_check after every kill", {r for r in hub.integrity if r != "ok"}, set())
    battery.at_least("failpoint kills", hub.failpoint_kills, fires)
    for point in POINTS:
        battery.at_least(f"failpoint kills ({point})", kills_by_point[point], 1)
    battery.at_least("runs through a failing-then-passing gate", runs_by_case["b18-a/1"], 1)
    battery.at_least(
        "runs whose quorum was met after a back-edge", runs_by_case["b18-b/1"] + runs_by_case["b18-b/2"], 1
    )
    battery.at_least("completions answered duplicate", seen.duplicates, 1)
