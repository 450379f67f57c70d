"""The workflow journal (issue 15): ``RecordJournal`` beside a durable send, and ``GetImprovementReport``
over a project of 1,000 runs × 20 entries, in one hub process.

Two rows measured in alternating repetitions (send, record, send, …), so drift on a shared machine
lands in neither side of their ratio:

- ``journal_send``: ``SendMessage`` (durability ``full``, 128 bytes) by ``journal_workers`` senders in a
  closed loop, each to a recipient of its own (a project per pair, no stream open: the call's own
  durable write, as ``bench.percall`` and the checkpoint group's ``send`` measure it);
- ``record_journal``: ``RecordJournal`` by ``journal_workers`` coordinators in a closed loop, each into a
  run of its own (a project per worker), cycling through the same 20-entry mix the report's project
  is seeded with (``entry_mix``), each with a fresh ``request_id`` as the client's calls carry one.
  The ratio is ``record_journal`` p50 ÷ ``journal_send`` p50 (basis ``p50_cost``: a cost multiple).

Then ``improvement_report``: one project holding ``journal_runs`` runs of one definition, each with
``journal_entries_per_run`` entries recorded by the coordinator through ``RecordJournal`` (the hub is a
process of its own, so the seeding goes through the RPC, ``SEED_IN_FLIGHT`` runs at a time, each run's
entries in order: a decision or lesson names the contradiction it resolves by the id the hub gave it),
and a third of the runs with one or two failed checkpoints of their first stage (attempt costs 1–3,
and the hub's own entries for them). Seeding is setup: its seconds are in the JSON, in no figure.
After one unmeasured call, each repetition is one ``GetImprovementReport(max_entries=50_000)`` by the
coordinator: the whole RPC, which reads every entry of the project (the default reads 10,000), folds
the promotable entries' status, reads every run's facts, builds the area reports and ranks the
signals in the one call.

The generated stubs are called directly on each ``HubClient``'s channel, with its credentials
metadata (``HubClient._call``), since the client has no journal methods yet.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from dataclasses import dataclass, field

from bench.common import CpuMeter, Rep, closed_loop
from bench.config import Config
from bench.hub import Agent, Fleet
from kxm_grpc._gen.kxm.v1 import workflow_journal_pb2 as jpb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2_grpc
from kxm_grpc.client import HubClient
from kxm_grpc.client.workflows import new_request_id

SECRET = "bench-start-secret-0123456789"
STAGES = ("build", "test", "review", "release")
"""The report definition's stages; ``build`` declares the area ``implementation``."""
REPORT_MAX_ENTRIES = 50_000
"""The most a report reads (the default is 10,000): every seeded entry is read."""
SEED_IN_FLIGHT = 32
"""Runs whose entries are being recorded at once while seeding."""
SEED_TIMEOUT = 600.0
REPORT_TIMEOUT = 120.0

_names = itertools.count(1)

# -- the entry mix --------------------------------------------------------------------------------

CLASSES: tuple[tuple[str, str, int], ...] = (
    # (class, its usual area, its usual severity 1..3), most frequent first: drawn Zipf-like.
    ("pytest_timeout", "harness", 3),
    ("flaky_test", "implementation", 2),
    ("dependency_resolution", "harness", 3),
    ("lint_failure", "implementation", 2),
    ("type_error", "implementation", 3),
    ("missing_evidence", "gates", 2),
    ("prompt_too_long", "harness", 2),
    ("merge_conflict", "workflow", 2),
    ("stale_docs", "documentation", 1),
    ("rate_limited", "harness", 2),
    ("schema_drift", "implementation", 3),
    ("review_disagreement", "gates", 2),
    ("budget_exhausted", "workflow", 3),
    ("tool_crash", "harness", 3),
    ("network_partition", "other", 2),
    ("migration_failed", "implementation", 3),
    ("wrong_branch", "workflow", 1),
    ("docs_link_rot", "documentation", 1),
    ("oom_killed", "harness", 3),
    ("invalid_auth", "security", 3),
    ("secret_in_log", "security", 3),
    ("slow_ci", "harness", 1),
    ("api_break", "implementation", 3),
    ("signal_mismatch", "security", 3),
)
AREAS = ("harness", "gates", "implementation", "workflow", "documentation", "security", "other")
_AREA = {name: getattr(jpb, f"IMPROVEMENT_AREA_{name.upper()}") for name in AREAS}
_SEVERITY: dict[int, jpb.JournalSeverity.ValueType] = {
    1: jpb.JOURNAL_SEVERITY_INFO,
    2: jpb.JOURNAL_SEVERITY_WARNING,
    3: jpb.JOURNAL_SEVERITY_ERROR,
}
_WEIGHTS = [1 / (rank + 1) for rank in range(len(CLASSES))]

SLOTS: tuple[jpb.JournalCategory.ValueType, ...] = (
    jpb.JOURNAL_CATEGORY_PLAN,
    jpb.JOURNAL_CATEGORY_OBSERVATION,
    jpb.JOURNAL_CATEGORY_ERROR,  # class evidence
    jpb.JOURNAL_CATEGORY_ERROR,  # class evidence, stage-bound
    jpb.JOURNAL_CATEGORY_DECISION,
    jpb.JOURNAL_CATEGORY_ERROR,  # stage-bound, no class, no area: the stage's area and the stage key
    jpb.JOURNAL_CATEGORY_CONTRADICTION,  # resolved by the lesson in slot 7
    jpb.JOURNAL_CATEGORY_LESSON,
    jpb.JOURNAL_CATEGORY_ERROR,  # summary only, with ids and numbers the key folds away
    jpb.JOURNAL_CATEGORY_HYPOTHESIS,
    jpb.JOURNAL_CATEGORY_EXPERIMENT,
    jpb.JOURNAL_CATEGORY_CONTRADICTION,  # resolved by the decision in slot 12 in half of the runs
    jpb.JOURNAL_CATEGORY_DECISION,
    jpb.JOURNAL_CATEGORY_ERROR,  # class evidence
    jpb.JOURNAL_CATEGORY_LESSON,
    jpb.JOURNAL_CATEGORY_SKILL_CANDIDATE,
    jpb.JOURNAL_CATEGORY_OBSERVATION,
    jpb.JOURNAL_CATEGORY_STATE_CHANGE,
    jpb.JOURNAL_CATEGORY_ERROR,  # class evidence
    jpb.JOURNAL_CATEGORY_LESSON,
)
"""One run's 20 entries, in the order they are recorded: 6 errors, 3 lessons, 2 contradictions,
2 decisions, a skill candidate, a hypothesis, an experiment, a plan, 2 observations, a state change."""


def _klass(rng: random.Random) -> tuple[str, str, int]:
    return rng.choices(CLASSES, weights=_WEIGHTS)[0]


def _area(rng: random.Random, usual: str) -> str:
    return usual if rng.random() < 0.8 else rng.choice(AREAS[:5])


def _severity(rng: random.Random, usual: int) -> int:
    return max(1, min(3, usual + rng.choice((-1, 0, 0, 0, 1))))


def _entry(
    category: jpb.JournalCategory.ValueType,
    summary: str,
    severity: int,
    *,
    area: str = "",
    stage_id: str = "",
    evidence: tuple[str, ...] = (),
    related: str | None = None,
    details: str = "",
) -> pb.RecordJournalRequest:
    return pb.RecordJournalRequest(
        category=category,
        summary=summary,
        area=_AREA[area] if area else jpb.IMPROVEMENT_AREA_UNSPECIFIED,
        severity=_SEVERITY[severity],
        stage_id=stage_id,
        evidence=evidence,
        related_entry_ids=[related] if related else [],
        details=details,
    )


def entry_mix(run: int, slot: int, ids: dict[int, str]) -> pb.RecordJournalRequest:
    """Entry ``slot`` (mod 20) of the ``run``-th run, without its run id and request id; ``ids`` maps
    the run's earlier slots to the entry ids the hub gave them (for the relations).

    Deterministic per (run, slot): classes recur across runs Zipf-like (the commonest in about a
    quarter of the class-bearing entries), each mostly in its usual area and at its usual severity.
    """
    slot %= len(SLOTS)
    rng = random.Random(run * 1_000 + slot)
    category = SLOTS[slot]
    klass, usual_area, usual_severity = _klass(rng)
    words = klass.replace("_", " ")
    hexid = f"{rng.getrandbits(40):010x}"
    if category == jpb.JOURNAL_CATEGORY_ERROR and slot == 5:
        # No area: the stage's declared one; no class: keyed by the stage.
        summary = f"checkpoint of build refused: evidence 'tests' missing after {rng.randint(1, 9)} tries"
        return _entry(category, summary, 2, stage_id=STAGES[0], evidence=(f"log:ci/{hexid}",))
    if category == jpb.JOURNAL_CATEGORY_ERROR and slot == 8:
        # No evidence: keyed by the summary, whose ids, timestamps and numbers the key folds away.
        summary = f"worker_{hexid} exited with code {rng.randint(1, 255)} at 2026-11-{rng.randint(10, 28)}T10:00Z"
        return _entry(category, summary, _severity(rng, 2), area="harness")
    if category == jpb.JOURNAL_CATEGORY_ERROR:
        return _entry(
            category,
            f"{words} in job {hexid} after {rng.randint(2, 900)} s",
            _severity(rng, usual_severity),
            area=_area(rng, usual_area),
            stage_id=STAGES[1] if slot == 3 else "",
            evidence=(f"class:{klass}", f"log:ci/{hexid}"),
        )
    if category == jpb.JOURNAL_CATEGORY_LESSON:
        evidence = (f"class:{klass}", f"run-diff:{hexid}") if rng.random() < 0.6 else (f"run-diff:{hexid}",)
        return _entry(
            category,
            f"retry {words} once with a longer timeout before failing the stage",
            2,
            area=_area(rng, usual_area),
            evidence=evidence,
            related=ids.get(6) if slot == 7 else None,
        )
    if category == jpb.JOURNAL_CATEGORY_CONTRADICTION:
        first = slot == 6
        return _entry(
            category,
            "reviewer a passed the change, reviewer b found a failing migration"
            if first
            else "the docs say retries are safe, the test log shows a duplicate write",
            2,
            area="gates" if first else "documentation",
            stage_id=STAGES[2],
            evidence=(f"message:{hexid}",),
        )
    if category == jpb.JOURNAL_CATEGORY_DECISION:
        return _entry(
            category,
            "keep the second reviewer's finding and rerun the migration test",
            1,
            area="workflow",
            related=ids.get(11) if slot == 12 and run % 2 == 0 else None,
        )
    if category == jpb.JOURNAL_CATEGORY_SKILL_CANDIDATE:
        return _entry(
            category, "cache the pip wheels between attempts", 1, area="harness", evidence=(f"bench:{hexid}",)
        )
    if category == jpb.JOURNAL_CATEGORY_HYPOTHESIS:
        return _entry(category, f"{words} comes from the shared runner", 1, area=usual_area)
    if category == jpb.JOURNAL_CATEGORY_EXPERIMENT:
        return _entry(category, "pin the runner image and rerun the stage", 1, area=usual_area, related=ids.get(9))
    # plan, observation, state change
    return _entry(
        category,
        f"{'plan' if category == jpb.JOURNAL_CATEGORY_PLAN else 'noted'}: stage {STAGES[slot % 4]} "
        f"took {rng.randint(5, 600)} s on runner {hexid}",
        1,
        area=rng.choice(AREAS[:5]),
        details="x" * rng.randint(0, 400),
    )


def _stub(client: HubClient) -> workflow_service_pb2_grpc.WorkflowServiceAsyncStub:
    return client._stub(workflow_service_pb2_grpc.WorkflowServiceStub)


@dataclass
class RunJournal:
    """One run and the entries recorded into it so far (slot → entry id)."""

    run_id: str
    index: int
    recorded: int = 0
    ids: dict[int, str] = field(default_factory=dict)

    async def record_next(self, coordinator: Agent) -> None:
        slot = self.recorded % len(SLOTS)
        if slot == 0:
            self.ids = {}
        request = entry_mix(self.index, slot, self.ids)
        request.run_id = self.run_id
        request.request_id = new_request_id()
        client = coordinator.client
        answer = await client._call(_stub(client).RecordJournal, request)
        if answer.repeated or not answer.record.entry.id:
            raise RuntimeError(f"RecordJournal recorded nothing: {answer}")
        self.ids[slot] = answer.record.entry.id
        self.recorded += 1


def definition(definition_id: str, project: str) -> dict[str, object]:
    """Four stages needing plain evidence; the first declares its area and allows 5 attempts."""
    stages: list[dict[str, object]] = []
    for i, stage_id in enumerate(STAGES):
        stage: dict[str, object] = {"id": stage_id, "instructions": f"Do {stage_id}.", "requiredEvidence": ["k"]}
        if i == 0:
            stage["area"] = "implementation"
            stage["maxAttempts"] = 5
        stages.append(stage)
    return {
        "id": definition_id,
        "project": project,
        "target": "coord",
        "secret": SECRET,
        "ttlMs": 86_400_000,
        "promptTemplate": "Benchmark run",
        "stages": stages,
    }


async def _project_with_definition(fleet: Fleet, kind: str) -> tuple[Agent, str]:
    """A new project with its coordinator and a registered definition: (coordinator, definition id)."""
    name = f"bench-journal-{kind}-{next(_names)}-{time.monotonic_ns() % 10**9}"
    token = str((await fleet.admin.admin.create_project(name)).project_token)
    coordinator = await fleet.agent(token, "coord")
    definition_id = f"journal-{kind}-{next(_names)}"
    await fleet.admin.workflows.register_definition(definition(definition_id, name))
    return coordinator, definition_id


async def _start_run(fleet: Fleet, definition_id: str) -> str:
    started = await fleet.admin.workflows.start_run(
        definition_id, delivery_id=f"d-{next(_names)}-{time.monotonic_ns()}", payload={}
    )
    return str(started.run.id)


# -- RecordJournal beside a durable send ----------------------------------------------------------


class SendLoop:
    """Durable ``SendMessage`` in a closed loop of ``journal_workers`` senders, a recipient each."""

    def __init__(self, address: str, cfg: Config, pid: int) -> None:
        self.cfg = cfg
        self.pid = pid
        self.fleet = Fleet(address)
        self.pairs: list[tuple[Agent, Agent]] = []

    async def open(self) -> None:
        for i in range(self.cfg.journal_workers):
            token = await self.fleet.project()
            self.pairs.append((await self.fleet.agent(token, f"s{i}"), await self.fleet.agent(token, f"r{i}")))

    async def rep(self) -> Rep:
        content = "x" * self.cfg.payload_size

        async def op(w: int) -> None:
            sender, recipient = self.pairs[w]
            await sender.send(recipient.id, content)

        return await closed_loop(
            len(self.pairs), op, warmup=self.cfg.warmup, duration=self.cfg.duration, cpu=CpuMeter(self.pid)
        )

    async def close(self) -> None:
        await self.fleet.close()


class RecordLoop:
    """``RecordJournal`` in a closed loop of ``journal_workers`` coordinators, each into a run of its own."""

    def __init__(self, address: str, cfg: Config, pid: int) -> None:
        self.cfg = cfg
        self.pid = pid
        self.fleet = Fleet(address)
        self.workers: list[tuple[Agent, RunJournal]] = []

    async def open(self) -> None:
        for i in range(self.cfg.journal_workers):
            coordinator, definition_id = await _project_with_definition(self.fleet, f"record{i}")
            self.workers.append((coordinator, RunJournal(await _start_run(self.fleet, definition_id), i)))

    async def rep(self) -> Rep:
        async def op(w: int) -> None:
            coordinator, journal = self.workers[w]
            await journal.record_next(coordinator)

        return await closed_loop(
            len(self.workers), op, warmup=self.cfg.warmup, duration=self.cfg.duration, cpu=CpuMeter(self.pid)
        )

    async def close(self) -> None:
        await self.fleet.close()


# -- GetImprovementReport over a seeded project ----------------------------------------------------


async def _seed(fleet: Fleet, coordinator: Agent, definition_id: str, runs: int, per_run: int) -> dict[str, float]:
    """``runs`` runs of ``per_run`` entries each, through the RPCs; returns the seeding's figures."""
    gate = asyncio.Semaphore(SEED_IN_FLIGHT)
    checkpoints = 0

    async def one(index: int) -> None:
        nonlocal checkpoints
        async with gate:
            journal = RunJournal(await _start_run(fleet, definition_id), index)
            # A third of the runs fail their first stage once, a third twice (attempts 2–3): run costs vary.
            for _ in range(index % 3):
                answer = await coordinator.client.workflows.checkpoint(
                    journal.run_id, STAGES[0], "failed", summary="tests failed"
                )
                if not answer.retry:
                    raise RuntimeError(f"a failed checkpoint of {STAGES[0]} was not a retry: {answer}")
                checkpoints += 1
            for _ in range(per_run):
                await journal.record_next(coordinator)

    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(runs))), SEED_TIMEOUT)
    seconds = time.perf_counter() - started
    return {
        "seed_seconds": seconds,
        "seed_record_rpcs": float(runs * per_run),
        "seed_failed_checkpoints": float(checkpoints),
        "seed_rpcs_per_s": (runs * (per_run + 1) + checkpoints) / seconds,
    }


async def improvement_report(address: str, cfg: Config, pid: int) -> list[Rep]:
    """Seed a project (see the module), then ``journal_report_calls`` measured reports, one at a time."""
    fleet = Fleet(address)
    try:
        coordinator, definition_id = await _project_with_definition(fleet, "report")
        seeded = await _seed(fleet, coordinator, definition_id, cfg.journal_runs, cfg.journal_entries_per_run)
        request = pb.GetImprovementReportRequest(max_entries=REPORT_MAX_ENTRIES, signal_limit=20)
        client = coordinator.client
        rpc = _stub(client).GetImprovementReport

        async def call() -> pb.GetImprovementReportResponse:
            return await client._call(rpc, request, timeout=REPORT_TIMEOUT)

        first = await call()  # unmeasured: the hub's caches and SQLite's pages warmed
        expected = cfg.journal_runs * cfg.journal_entries_per_run
        if first.truncated or first.entries < expected:
            raise RuntimeError(f"the report read {first.entries} entries (truncated={first.truncated}), not all")
        reps: list[Rep] = []
        for _ in range(cfg.journal_report_calls):
            cpu = CpuMeter(pid)
            cpu.start()
            started = time.perf_counter()
            answer = await call()
            seconds = time.perf_counter() - started
            cpu_seconds = cpu.stop()
            reps.append(
                Rep(
                    rate=1 / seconds,
                    ops=1,
                    seconds=seconds,
                    latencies=[seconds],
                    cpu_seconds=cpu_seconds,
                    extra={
                        **seeded,
                        "entries_read": float(answer.entries),
                        "signals": float(len(answer.signals)),
                        "areas": float(len(answer.areas)),
                        "response_kib": answer.ByteSize() / 1024,
                        "foreign_cpu": cpu.foreign,
                        "client_cpu_s": cpu.client,
                    },
                )
            )
        return reps
    finally:
        await fleet.close()
