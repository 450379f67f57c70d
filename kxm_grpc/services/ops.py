"""The operators' view of a project (OpsService): what an operations dashboard shows, read at once.

Metadata only: agents and their presence, open messages without their content or reply, live leases,
runtimes, the newest workflow runs (what runs and where it stands; the page reads a run's detail
with GetWorkflowRun). Each list is capped in SQL and counted, so a page can say "16 of 230" without reading the
rest; every count and list comes from one read transaction, so they agree with each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from kxm_grpc.domain import dashboard_sessions
from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.dashboard_sessions import DashboardSession
from kxm_grpc.domain.leases import Lease
from kxm_grpc.domain.messages import Message
from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.domain.sync_events import SyncRun
from kxm_grpc.domain.workflows.journal import Category, JournalEntry
from kxm_grpc.errors import PermissionDenied, Reason, Unauthenticated, invalid_field
from kxm_grpc.services.projects import operator_project, require_project
from kxm_grpc.store import Store, Tx

MAX_AGENTS = 500
MAX_OPEN_MESSAGES = 16
MAX_LEASES = 100
MAX_RUNTIMES = 100
MAX_RUNS = 8
MAX_SYNC_RUNS = 16
"""Sync runs shown per home runtime (the spec's home-runtime view; at most ``MAX_RUNTIMES`` homes)."""
MAX_PLANS = 16
PLAN_SUMMARY_CHARS = 120
MAX_VERSION_LENGTH = 64

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Capped(Generic[T]):
    """The first items of a list, and how many it has."""

    items: list[T]
    total: int


@dataclass(frozen=True, slots=True)
class OpsRun:
    """A workflow run (stage or step run) as the dashboard lists it: what it runs and where it stands."""

    id: str
    definition_id: str
    status: str
    """Its status's value (``running``, ``waiting``, ``queued``, ``blocked``, ``completed``, ...)."""
    current_stage_id: str
    """The stage a stage run is on (empty for a step run, and once a run ended)."""
    create_time: int
    update_time: int


@dataclass(frozen=True, slots=True)
class OpsPlan:
    """A run's plan as the journal recorded it, its summary cut to ``PLAN_SUMMARY_CHARS``."""

    id: str
    run_id: str
    summary: str
    create_time: int
    stage_id: str
    severity: str


@dataclass(frozen=True, slots=True)
class OpsSnapshot:
    """One project's state as one read saw it (``snapshot_time``, the hub clock)."""

    project: str
    snapshot_time: int
    agents: Capped[Agent]
    open_messages: Capped[Message]
    leases: Capped[Lease]
    runtimes: Capped[Runtime]
    runs: Capped[OpsRun]
    sync_runs: dict[str, Capped[SyncRun]]
    """Each listed runtime's sync runs (as their home runtime), with their cursors and gaps."""
    plans: list[OpsPlan]
    """The newest plans the journal recorded across the project's runs (at most ``MAX_PLANS``)."""


def watched_project(caller: Caller, project: str) -> str:
    """The project an operator's view is of (named in the request or with ``x-kxm-project``).

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) the caller is not an operator.
        InvalidArgument: (PROTOCOL_ERROR) ``project`` is malformed, missing when the call names
            none, or another than the call names.
    """
    if caller.operator is None:
        raise PermissionDenied("the ops view is an operator's", reason=Reason.CREDENTIAL_KIND_DENIED)
    return operator_project(caller, project)


def resume_version(after_version: str) -> str:
    """The version a watch resumes after (empty: none); opaque, only compared.

    Raises:
        InvalidArgument: (PROTOCOL_ERROR) it is longer than ``MAX_VERSION_LENGTH`` characters.
    """
    if len(after_version) > MAX_VERSION_LENGTH:
        raise invalid_field(
            "after_version", f"must be at most {MAX_VERSION_LENGTH} characters (a version WatchOps sent)"
        )
    return after_version


async def snapshot(store: Store, caller: Caller, project: str, *, now: int, stale_after: int) -> OpsSnapshot:
    """The project's agents (online on the hub's clock first, then by name), newest open messages,
    live leases (by name) and runtimes (by id).

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) the caller is not an operator.
        InvalidArgument: (PROTOCOL_ERROR) ``project`` is malformed, missing when the call names
            none, or another than the call names.
        NotFound: (PROJECT_NOT_FOUND) no such project.
    """
    return await read_snapshot(store, watched_project(caller, project), now=now, stale_after=stale_after)


async def read_snapshot(store: Store, project: str, *, now: int, stale_after: int) -> OpsSnapshot:
    """``snapshot`` of a project whose caller was checked already (``watched_project``).

    Raises:
        NotFound: (PROJECT_NOT_FOUND) no such project.
    """

    def read(tx: Tx) -> OpsSnapshot:
        require_project(tx, project)
        # Online on the hub's clock: seen within the presence window (Agent.presence).
        agents = tx.agents.list_by_presence(project, now - stale_after, MAX_AGENTS)
        return OpsSnapshot(
            project=project,
            snapshot_time=now,
            agents=Capped(agents, tx.agents.count(project)),
            open_messages=Capped(
                tx.messages.list_open_in(project, MAX_OPEN_MESSAGES), tx.messages.count_open_in(project)
            ),
            leases=Capped(
                tx.leases.list_page(project, None, MAX_LEASES, now=now, include_lapsed=False),
                tx.leases.count_live(project, now=now),
            ),
            runtimes=Capped(tx.runtimes.list_page(project, None, MAX_RUNTIMES), tx.runtimes.count(project)),
            runs=Capped(_newest_runs(tx, project), tx.workflows.count_runs(project) + tx.step_runs.count_runs(project)),
            sync_runs=_sync_runs(tx, project),
            plans=_plans(tx, project),
        )

    return await store.read(read)


def _plans(tx: Tx, project: str) -> list[OpsPlan]:
    """The project's newest plan entries, their summaries on one line and cut short (spec hub §4.8)."""
    plans = []
    for link in tx.journal.recent(project=project, categories=(Category.PLAN.value,), limit=MAX_PLANS):
        entry = link.record
        if not isinstance(entry, JournalEntry):
            continue
        summary = " ".join(entry.summary.split())
        if len(summary) > PLAN_SUMMARY_CHARS:
            summary = summary[: PLAN_SUMMARY_CHARS - 1] + "…"
        plans.append(
            OpsPlan(entry.id, entry.run_id, summary, entry.create_time, entry.stage_id or "", entry.severity.value)
        )
    return plans


def _sync_runs(tx: Tx, project: str) -> dict[str, Capped[SyncRun]]:
    """The project's sync runs by home runtime (the first ``MAX_RUNTIMES`` homes by id), ``MAX_SYNC_RUNS``
    of each, counted."""
    shown: dict[str, list[SyncRun]] = {}
    for run in tx.sync_events.runs_by_home(project, MAX_SYNC_RUNS):
        shown.setdefault(run.home_runtime_id, []).append(run)
    homes = sorted(tx.sync_events.count_by_home(project).items())[:MAX_RUNTIMES]
    return {runtime: Capped(shown.get(runtime, []), total) for runtime, total in homes}


def _newest_runs(tx: Tx, project: str) -> list[OpsRun]:
    """The project's ``MAX_RUNS`` newest runs of either kind, newest first by (create time, id)."""
    runs = [
        OpsRun(run.id, run.definition_id, run.status.value, run.current_stage or "", run.create_time, run.update_time)
        for run in tx.workflows.list_runs(project=project, limit=MAX_RUNS)
    ]
    runs += [
        OpsRun(run.id, run.definition_id, run.status.value, "", run.create_time, run.update_time)
        for run in tx.step_runs.list_runs(project=project, limit=MAX_RUNS)
    ]
    runs.sort(key=lambda run: (run.create_time, run.id), reverse=True)
    return runs[:MAX_RUNS]


def next_lapse(seen: OpsSnapshot, stale_after: int) -> int | None:
    """The first hub-clock time after the snapshot at which what it shows changes with no write: an
    agent's or a runtime's presence window ending, a lease lapsing (None: nothing shown lapses).

    Only what the snapshot lists is looked at: a lease past the cap lapsing changes the count alone,
    which a watcher's periodic re-read catches.
    """
    now = seen.snapshot_time
    times = [
        *(agent.presence_expire_time(stale_after) for agent in seen.agents.items if agent.online),
        *(lease.expire_time for lease in seen.leases.items),
        *(runtime.presence_expire_time(stale_after) or 0 for runtime in seen.runtimes.items),
    ]
    later = [time for time in times if time > now]
    return min(later) if later else None


async def check_watcher(store: Store, caller: Caller, session: DashboardSession | None) -> None:
    """Check that an operator's long-lived call may go on: a named operator not revoked, and a
    dashboard session not signed out (the admin token itself cannot change while a hub runs).

    Raises:
        Unauthenticated: (INVALID_AUTH) the operator was revoked, or the session signed out, since
            the call was admitted.
    """
    name = caller.operator_name if caller.kind is CredentialKind.OPERATOR else None

    def read(tx: Tx) -> str | None:
        if name is not None:
            operator = tx.operators.get(name)
            if operator is None or not operator.active:
                return "the operator was revoked"
        if session is not None and dashboard_sessions.ended_by_sign_out(
            session, tx.meta.get(dashboard_sessions.signed_out_key(session.operator))
        ):
            return "the dashboard session was signed out"
        return None

    if name is None and session is None:
        return
    ended = await store.read(read)
    if ended is not None:
        raise Unauthenticated(ended, reason=Reason.INVALID_AUTH)
