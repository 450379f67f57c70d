"""Workflow checkpoints beside durable sends, in one hub process (issue 14).

Three sessions share one hub and alternate their repetitions (send, checkpoint with refs, plain
checkpoint, send, …), so drift on a shared machine lands in no ratio:

- ``send``: ``SendMessage`` (durability ``full``) by ``checkpoint_runs`` senders, each to a recipient of
  its own (a project per pair; the recipient has no stream open, so the figure is the call's own
  durable write, as in ``bench.percall``);
- ``checkpoint_refs``: ``Checkpoint(passed, evidence_refs={"review": [id1, id2]})``. Every stage
  requires ``review`` from two eligible reviewers (``minProducers: 2``); before each measured
  checkpoint the coordinator sends the two review requests under the run's workflow context
  (one ``FanoutMessages`` waiting for the replies, as ``request_review`` sends it) and both
  reviewers reply: setup, not measured;
- ``checkpoint_plain``: ``Checkpoint(passed, evidence={"k": "v"})`` on stages requiring ``k``: no peer
  evidence to verify, so refs − plain is what verifying and keeping two cited replies costs.

Each of the ``checkpoint_runs`` workers (8 at full scale) has a project of its own with a
coordinator, two reviewers and a definition whose every stage needs the same evidence: a passing
checkpoint moves the run to the next stage (no transition is recorded), the last one completes
the run. A repetition starts ``batch`` runs per coordinator, then goes stage by stage: that
stage's setup for every run (the reviews; nothing for plain), then the measured phase, in which
each worker checkpoints its coordinator's runs back to back (a closed loop of ``checkpoint_runs``
workers, so that many runs have a checkpoint in flight at any time). Hub CPU (``CpuMeter`` of the
hub process), wall time and latencies are taken over the measured phases only; the rate is
checkpoints over their wall time. ``send`` runs in the same phase shape (workers, phases, calls per
phase), so both sides pay the same ramp-up and tail.

Why many runs of a fixed length and not one long run: a run is stored whole (one JSON document
with every stage, its resolved policy and the evidence kept so far) and every step reads, checks,
rewrites and returns it, so a checkpoint's cost grows with the run's stages and with the evidence
already kept (the ``*_quarter_cpu_us_per_op`` extras: the first and last quarter of the stages). A
back-edge loop cannot repeat a passing checkpoint (a passed source stage stays passed, so the run
completes once its target passes again) and a self-edge keeps its attempts (at most 20). So the
scales are a short run (4 stages, like the docs' example) and the longest (32 stages).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench.common import CpuMeter, Rep
from bench.config import Config
from bench.hub import Agent, Fleet
from kxm_grpc.v1 import FanoutStatus, WorkflowMessageContext

REVIEW_KEY = "review"
PLAIN_KEY = "k"
SECRET = "bench-start-secret-0123456789"
SETTLE = 0.02
"""Seconds between a phase's setup and its measurement, for the setup's last answers to leave the hub."""
OP_TIMEOUT = 30.0
SETUP_TIMEOUT = 120.0
SETUP_IN_FLIGHT = 32
"""Review fan-outs in flight during a stage's setup."""

_names = itertools.count(1)


def definition(definition_id: str, project: str, stages: int, reviewers: tuple[str, ...]) -> dict[str, Any]:
    """``stages`` stages all requiring ``review`` from both ``reviewers`` (none: all requiring ``k``)."""
    spec: list[dict[str, Any]] = []
    for i in range(stages):
        stage: dict[str, Any] = {"id": f"s{i:02d}", "instructions": f"Do stage {i}."}
        if reviewers:
            stage["requiredEvidence"] = [REVIEW_KEY]
            stage["evidencePolicies"] = {
                REVIEW_KEY: {"kind": "peer-reply", "minProducers": len(reviewers), "eligibleAgents": list(reviewers)}
            }
        else:
            stage["requiredEvidence"] = [PLAIN_KEY]
        spec.append(stage)
    return {
        "id": definition_id,
        "project": project,
        "target": "coord",
        "secret": SECRET,
        "ttlMs": 86_400_000,
        "promptTemplate": "Benchmark run",
        "stages": spec,
    }


class Phases:
    """The measured phases of one repetition: CPU, wall time, latencies and other load, summed."""

    def __init__(self, pid: int, *, positions: bool = False) -> None:
        self.positions = positions
        self.cpu = CpuMeter(pid)
        self.latencies: list[float] = []
        self.wall = 0.0
        self.cpu_seconds = 0.0
        self.client = 0.0
        self.foreign_weighted = 0.0
        self.setup = 0.0
        self.by_phase: list[float] = []
        """Server CPU seconds of each phase (the stage's position in the run, for checkpoints)."""

    async def run(self, workers: int, per_worker: int, op: Callable[[int, int], Awaitable[None]]) -> None:
        """One measured phase: ``workers`` tasks each awaiting ``op(worker, j)`` for j < ``per_worker``."""

        async def worker(w: int) -> None:
            for j in range(per_worker):
                started = time.perf_counter()
                await asyncio.wait_for(op(w, j), OP_TIMEOUT)
                self.latencies.append(time.perf_counter() - started)

        await asyncio.sleep(SETTLE)
        self.cpu.start()
        started = time.perf_counter()
        await asyncio.gather(*(worker(w) for w in range(workers)))
        wall = time.perf_counter() - started
        cpu = self.cpu.stop()
        self.wall += wall
        self.cpu_seconds += cpu
        self.client += self.cpu.client
        self.foreign_weighted += self.cpu.foreign * wall
        self.by_phase.append(cpu)

    async def untimed(self, work: Awaitable[object]) -> None:
        """Setup between phases: bounded, counted as setup seconds, never measured."""
        started = time.perf_counter()
        await asyncio.wait_for(work, SETUP_TIMEOUT)
        self.setup += time.perf_counter() - started

    def rep(self) -> Rep:
        ops = len(self.latencies)
        extra = {
            "foreign_cpu": self.foreign_weighted / self.wall if self.wall else 0.0,
            "client_cpu_s": self.client,
            "setup_seconds": self.setup,
            "phases": float(len(self.by_phase)),
            "loadavg_1m": os.getloadavg()[0],
        }
        quarter = len(self.by_phase) // 4
        if self.positions and quarter and ops:
            per_phase = ops / len(self.by_phase)
            extra["first_quarter_cpu_us_per_op"] = sum(self.by_phase[:quarter]) / (quarter * per_phase) * 1e6
            extra["last_quarter_cpu_us_per_op"] = sum(self.by_phase[-quarter:]) / (quarter * per_phase) * 1e6
        return Rep(
            rate=ops / self.wall if self.wall else 0.0,
            ops=ops,
            seconds=self.wall,
            latencies=self.latencies,
            cpu_seconds=self.cpu_seconds,
            extra=extra,
        )


class SendSession:
    """Durable ``SendMessage`` in the checkpoints' phase shape (see the module)."""

    def __init__(self, address: str, cfg: Config, pid: int, *, stages: int, batch: int) -> None:
        self.cfg = cfg
        self.pid = pid
        self.stages = stages
        self.batch = batch
        self.fleet = Fleet(address)
        self.pairs: list[tuple[Agent, Agent]] = []

    async def open(self) -> None:
        for i in range(self.cfg.checkpoint_runs):
            token = await self.fleet.project()
            self.pairs.append((await self.fleet.agent(token, f"s{i}"), await self.fleet.agent(token, f"r{i}")))

    async def rep(self) -> Rep:
        content = "x" * self.cfg.payload_size
        phases = Phases(self.pid)

        async def op(w: int, j: int) -> None:
            sender, recipient = self.pairs[w]
            await sender.send(recipient.id, content)

        for _ in range(self.stages):
            await phases.run(len(self.pairs), self.batch, op)
        return phases.rep()

    async def close(self) -> None:
        await self.fleet.close()


class Group:
    """One worker's project: its coordinator, its reviewers (replying to every request) and its definition."""

    def __init__(self, definition_id: str, coordinator: Agent, reviewers: list[Agent]) -> None:
        self.definition_id = definition_id
        self.coordinator = coordinator
        self.reviewers = reviewers
        self.runs: list[str] = []


class CheckpointSession:
    """``Checkpoint`` with two evidence refs (``refs``) or with plain evidence, per the module."""

    def __init__(self, address: str, cfg: Config, pid: int, *, refs: bool, stages: int, batch: int) -> None:
        self.cfg = cfg
        self.pid = pid
        self.refs = refs
        self.batch = batch
        self.fleet = Fleet(address)
        self.groups: list[Group] = []
        self.stage_ids = [f"s{i:02d}" for i in range(stages)]

    async def open(self) -> None:
        fleet = self.fleet
        kind = "refs" if self.refs else "plain"
        for i in range(self.cfg.checkpoint_runs):
            name = f"bench-cp-{kind}-{i}-{next(_names)}-{time.monotonic_ns() % 10**9}"
            token = str((await fleet.admin.admin.create_project(name)).project_token)
            reviewers = [await fleet.agent(token, f"rev-{x}") for x in ("a", "b")] if self.refs else []
            coordinator = await fleet.agent(token, "coord")
            definition_id = f"cp-{kind}-{len(self.stage_ids)}-{i}"
            document = definition(definition_id, name, len(self.stage_ids), tuple(r.name for r in reviewers))
            await fleet.admin.workflows.register_definition(document)
            self.groups.append(Group(definition_id, coordinator, reviewers))
        await asyncio.gather(*(fleet.recipient(r) for g in self.groups for r in g.reviewers))

    async def _start_runs(self) -> None:
        """``batch`` new runs per coordinator (the coordinators' starts concurrently)."""

        async def start(group: Group) -> None:
            group.runs = []
            for _ in range(self.batch):
                started = await self.fleet.admin.workflows.start_run(
                    group.definition_id, delivery_id=f"d-{next(_names)}-{time.monotonic_ns()}", payload={}
                )
                group.runs.append(started.run.id)

        await asyncio.gather(*(start(group) for group in self.groups))

    async def _reviews(self, stage_id: str, cited: dict[tuple[int, int], list[str]]) -> None:
        """Two review requests per run at ``stage_id`` (attempt 1), as ``request_review`` sends them (one
        ``FanoutMessages`` with the workflow context), each waited for until both reviewers replied;
        at most ``SETUP_IN_FLIGHT`` at a time, so that no reply is still on its way when the phase starts."""
        gate = asyncio.Semaphore(SETUP_IN_FLIGHT)

        async def one(w: int, j: int) -> None:
            group = self.groups[w]
            context = WorkflowMessageContext(
                run_id=group.runs[j], stage_id=stage_id, requirement_key=REVIEW_KEY, attempt=1
            )
            async with gate:
                fanned = await group.coordinator.client.messages.fanout(
                    [r.name for r in group.reviewers],
                    "x" * self.cfg.payload_size,
                    workflow_context=context,
                    wait=SETUP_TIMEOUT / 2,
                )
            statuses = [result.status for result in fanned.results]
            if statuses != [FanoutStatus.FANOUT_STATUS_TERMINAL] * len(group.reviewers):
                raise RuntimeError(f"the review requests were not all replied to: {fanned.results}")
            cited[(w, j)] = [result.message.id for result in fanned.results]

        await asyncio.gather(*(one(w, j) for w in range(len(self.groups)) for j in range(self.batch)))

    async def rep(self, *, first_stages: int | None = None, before_measuring: Callable[[], None] | None = None) -> Rep:
        """One repetition: ``batch`` new runs per coordinator through every stage (``first_stages``:
        only that many, the runs left running; ``before_measuring`` is called before each measured
        phase: the profiler's start)."""
        phases = Phases(self.pid, positions=True)
        await phases.untimed(self._start_runs())
        last = self.stage_ids[-1]
        for stage_id in self.stage_ids[:first_stages]:
            cited: dict[tuple[int, int], list[str]] = {}
            if self.refs:
                await phases.untimed(self._reviews(stage_id, cited))
            if before_measuring is not None:
                before_measuring()

            async def op(
                w: int, j: int, stage_id: str = stage_id, cited: dict[tuple[int, int], list[str]] = cited
            ) -> None:
                group = self.groups[w]
                if self.refs:
                    answer = await group.coordinator.client.workflows.checkpoint(
                        group.runs[j], stage_id, "passed", evidence_refs={REVIEW_KEY: cited[(w, j)]}
                    )
                else:
                    answer = await group.coordinator.client.workflows.checkpoint(
                        group.runs[j], stage_id, "passed", evidence={PLAIN_KEY: "v"}
                    )
                if answer.retry or (answer.completed != (stage_id == last)):
                    raise RuntimeError(f"checkpoint of {stage_id} did not pass: {answer}")

            await phases.run(len(self.groups), self.batch, op)
        return phases.rep()

    async def close(self) -> None:
        await self.fleet.close()
