"""The step runs' part of the improvement report (``GetImprovementReport``): the project's newest
step runs, their settled agent and panel results, grouped into candidates
(``domain/workflows/engine/candidates.py``). One read transaction; a run's plan is read once."""

from __future__ import annotations

import json

from kxm_grpc.domain.workflows.engine.candidates import StepGroup, StepRecord, group_records
from kxm_grpc.domain.workflows.engine.machine import role_of
from kxm_grpc.domain.workflows.plans.model import StepKind
from kxm_grpc.services.workflows import step_engine
from kxm_grpc.store import Store, Tx

MAX_RUNS = 500
"""The newest step runs read (a report, not an export: enough runs to see what recurs)."""


async def step_groups(store: Store, project: str, *, since: int | None) -> tuple[list[StepGroup], bool]:
    """The candidate groups of ``project``'s newest step runs created at or after ``since``, and
    whether more runs than were read match.

    Raises:
        DataLoss: (STORAGE_CORRUPTED) a run's pinned plan does not decode.
    """

    def read(tx: Tx) -> tuple[list[StepRecord], bool]:
        runs = tx.step_runs.list_runs(project=project, limit=MAX_RUNS + 1)
        runs = [run for run in runs if since is None or run.create_time >= since]
        records: list[StepRecord] = []
        for run in runs[:MAX_RUNS]:
            plan, _ = step_engine.pinned_plan(tx, run.plan_hash, run.id)
            for event in step_engine.all_events(tx, run.id):
                if event.type != "assignment.completed":
                    continue
                payload = json.loads(event.payload)
                step = plan.step(str(payload.get("stepId", "")))
                if step is None or step.kind not in (StepKind.AGENT, StepKind.MOA):
                    continue
                cost = payload.get("costUsd")
                records.append(
                    StepRecord(
                        run_id=run.id,
                        workflow_id=plan.id,
                        plan_hash=run.plan_hash,
                        step_id=step.id,
                        role=role_of(step).value,
                        step_attempt=int(payload.get("stepAttempt", 0)),
                        sequence=event.sequence,
                        passed=payload.get("passed") is True,
                        content_hash=str(payload.get("contentHash", "")),
                        cost_usd=float(cost) if cost is not None else None,
                        duration_ms=int(payload.get("durationMs") or 0),
                        writes=step.writes,
                    )
                )
        return records, len(runs) > MAX_RUNS

    records, truncated = await store.read(read)
    return group_records(records), truncated
