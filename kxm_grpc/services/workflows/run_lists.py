"""Listing runs of both kinds: stage runs and step runs, one newest-first listing.

The two kinds live in their own tables; a page takes up to ``size + 1`` of each strictly before the
cursor (the last listed run's (create time, id)), merges them newest first and keeps ``size``, so
pages neither skip nor repeat a run whichever kind it is. An agent lists the stage runs it
coordinates (as before step runs existed); operators and the project token list every run.
"""

from __future__ import annotations

from dataclasses import dataclass

from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.pagination import encode_page_token, page_size
from kxm_grpc.domain.workflows.runs import Run, RunStatus
from kxm_grpc.services.workflows import step_engine, step_runs
from kxm_grpc.services.workflows.step_engine import Loaded
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.step_runs import StepRunState


@dataclass(frozen=True)
class Listed:
    """One run of a page: a stage run or a step run."""

    create_time: int
    id: str
    stage: Run | None = None
    step: Loaded | None = None


async def list_page(
    store: Store,
    caller: Caller,
    *,
    stage_status: RunStatus | None,
    step_status: StepRunState | None,
    only_steps: bool,
    only_stages: bool,
    definition_id: str,
    size: int,
    token: str,
) -> tuple[list[Listed], str]:
    """A page of runs newest first (see the module docstring). A status that only one kind has
    lists that kind only (``only_steps``: queued, blocked; ``only_stages``: waiting).

    Raises:
        InvalidArgument: (INVALID_PAGE_TOKEN) a bad token; a negative size.
    """
    limit = page_size(size)
    project = None if caller.is_operator and caller.project is None else caller.project
    coordinator = caller.agent_id if caller.kind is CredentialKind.AGENT else None
    status_text = (stage_status.value if stage_status else "") + "/" + (step_status.value if step_status else "")
    query = (
        f"workflow-runs:{project or '*'}:{coordinator or '*'}:{status_text}:{only_steps}:{only_stages}:{definition_id}"
    )
    before = step_runs.decode_before(token, query)

    def read(tx: Tx) -> list[Listed]:
        rows: list[Listed] = []
        if not only_steps:
            for run in tx.workflows.list_runs(
                project=project,
                coordinator_id=coordinator,
                status=stage_status,
                definition_id=definition_id or None,
                before=before,
                limit=limit + 1,
            ):
                rows.append(Listed(run.create_time, run.id, stage=run))
        if not only_stages and coordinator is None:
            for stored in tx.step_runs.list_runs(
                project=project, status=step_status, definition_id=definition_id or None, before=before, limit=limit + 1
            ):
                loaded = step_engine.load(tx, stored.id)
                if loaded is not None:
                    rows.append(Listed(stored.create_time, stored.id, step=loaded))
        rows.sort(key=lambda row: (row.create_time, row.id), reverse=True)
        return rows[: limit + 1]

    rows = await store.read(read)
    page = rows[:limit]
    next_token = encode_page_token(f"{page[-1].create_time}/{page[-1].id}", query) if len(rows) > limit else ""
    return page, next_token
