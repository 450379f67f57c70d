"""Runtimes (spec §9): registration with their own key, presence, and sync-event ingest.

The original let any holder of a project token heartbeat or push as any runtime id it named, and
gave a runtime-side project id to the first hub project that pushed it, forever. Here a runtime is
registered once (a project token may register a new id; only an operator may re-register one,
which rotates its key), every heartbeat and push is authenticated by the runtime's key, the pushed
events must name the caller as their home runtime, and an operator can move a project id to
another hub project. An operator's registration and every move are audited.

Ingest decides each event on its own, in input order (spec §9.3): invalid → rejected
(SYNC_EVENT_INVALID); another home runtime than the caller → rejected (SYNC_RUNTIME_MISMATCH);
project id owned by another hub project → conflict (SYNC_PROJECT_MISMATCH); slot taken by other
bytes → conflict (SYNC_SEQUENCE_REUSED); run homed on another runtime → conflict
(SYNC_HOME_RUNTIME_MISMATCH); same bytes at the slot → duplicate; else accepted. The whole batch
commits in one transaction (a crash loses all of it or none; a retry then sees duplicates).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import structlog

from kxm_grpc.domain import runtimes as rules
from kxm_grpc.domain import sync_events as sync
from kxm_grpc.domain.audit import runtime_target, sync_project_target
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.projects import project_name
from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.domain.secrets import RUNTIME_KEY_PREFIX, hash_secret, new_secret
from kxm_grpc.domain.sync_events import CanonicalEvent, StoredEvent, SyncOutcome, SyncResult, SyncRun
from kxm_grpc.errors import AlreadyExists, FieldViolation, InvalidArgument, NotFound, Reason, invalid_field
from kxm_grpc.services import audit
from kxm_grpc.services.auth import credentials_changed
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.runtimes")

# How many stored sequences a cursor advance reads at a time.
_CURSOR_STEP = 1000


@dataclass(frozen=True, slots=True)
class RegisteredRuntime:
    """The registered runtime and its new key (shown once)."""

    runtime: Runtime
    key: str
    rotated: bool


def _project(caller: Caller) -> str:
    assert caller.project is not None
    return caller.project


async def register_runtime(store: Store, caller: Caller, runtime_id: str, host: str, *, now: int) -> RegisteredRuntime:
    """Register a runtime in the caller's project and issue its key; an operator may re-register (rotate).

    Raises:
        InvalidArgument: the runtime id is not an opaque id (INVALID_RUNTIME_ID), or the host is too long.
        AlreadyExists: the id is registered and the caller is not an operator (RUNTIME_ALREADY_EXISTS).
    """
    project = _project(caller)
    runtime_id = rules.opaque_id("runtime_id", runtime_id)
    host = rules.host(host)
    key = new_secret(RUNTIME_KEY_PREFIX)

    def work(tx: Tx) -> tuple[Runtime, bool]:
        existing = tx.runtimes.get(project, runtime_id)
        if existing is not None and not caller.is_operator:
            raise AlreadyExists(
                f"runtime {runtime_id} is registered in {project}; an operator can re-register it to rotate its key",
                reason=Reason.RUNTIME_ALREADY_EXISTS,
                metadata={"runtimeId": runtime_id, "project": project},
            )
        if existing is None:
            runtime = Runtime(project=project, id=runtime_id, host=host, register_time=now, heartbeat_time=None)
        else:
            runtime = replace(existing, host=host)
        tx.runtimes.put(runtime, hash_secret(key))
        credentials_changed(tx)
        if caller.is_operator:
            audit.record(
                tx,
                caller,
                "RegisterRuntime",
                runtime_target(project, runtime_id),
                now=now,
                metadata={"rotated": str(existing is not None).lower()},
            )
        return runtime, existing is not None

    runtime, rotated = await store.write(work)
    log.info("runtime_key_rotated" if rotated else "runtime_registered", runtime_id=runtime_id, project=project)
    return RegisteredRuntime(runtime, key, rotated)


async def runtime_heartbeat(store: Store, caller: Caller, host: str, *, now: int) -> Runtime:
    """Renew the calling runtime's presence and replace its host (cleared when empty).

    Raises:
        InvalidArgument: the host is too long.
    """
    project = _project(caller)
    runtime_id = caller.runtime_id
    assert runtime_id is not None
    host = rules.host(host)

    def work(tx: Tx) -> Runtime:
        tx.runtimes.heartbeat(project, runtime_id, host, now)
        runtime = tx.runtimes.get(project, runtime_id)
        assert runtime is not None  # authentication just found it
        return runtime

    return await store.write(work)


async def list_runtimes(store: Store, caller: Caller, size: int, token: str) -> tuple[list[Runtime], str]:
    """The caller's project's runtimes by id, one page at a time.

    Raises:
        InvalidArgument: negative page size or a bad page token.
    """
    project = _project(caller)
    limit = page_size(size)
    query = f"runtimes:{project}"
    after = decode_page_token(token, query)
    runtimes = await store.read(lambda tx: tx.runtimes.list_page(project, after, limit + 1))
    if len(runtimes) > limit:
        return runtimes[:limit], encode_page_token(runtimes[limit - 1].id, query)
    return runtimes, ""


# -- sync events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PushOutcome:
    """One result per pushed event, in order, and the cursor of every run touched."""

    results: list[SyncResult]
    cursors: list[SyncRun]


def _prepare(shape: Mapping[str, object], runtime_id: str) -> CanonicalEvent | SyncResult:
    """Validate one event outside the transaction: the canonical event, or its rejection."""
    project_id, run_id, sequence = sync.echo(shape)
    try:
        event = sync.canonicalise(shape)
    except sync.SyncEventInvalid as invalid:
        return SyncResult(project_id, run_id, sequence, SyncOutcome.REJECTED, Reason.SYNC_EVENT_INVALID, str(invalid))
    if event.home_runtime_id != runtime_id:
        log.warning(
            "security_alert",
            alert="sync_runtime_mismatch",
            runtime_id=runtime_id,
            home_runtime_id=event.home_runtime_id,
            project_id=project_id,
            run_id=run_id,
            sequence=sequence,
        )
        return SyncResult(
            project_id,
            run_id,
            sequence,
            SyncOutcome.REJECTED,
            Reason.SYNC_RUNTIME_MISMATCH,
            f"homeRuntimeId {event.home_runtime_id} is not the pushing runtime {runtime_id}",
            event.content_hash,
        )
    return event


def _advance(tx: Tx, run: SyncRun) -> SyncRun:
    """Move the run's cursor over every consecutive sequence now stored."""
    cursor = run.cursor
    while True:
        following = tx.sync_events.sequences_after(run.project_id, run.run_id, cursor, _CURSOR_STEP)
        for sequence in following:
            if sequence != cursor + 1:
                return replace(run, cursor=cursor)
            cursor = sequence
        if len(following) < _CURSOR_STEP:
            return replace(run, cursor=cursor)


def _decide(tx: Tx, hub_project: str, event: CanonicalEvent, now: int) -> SyncResult:
    """Store one valid event, or say why not (spec §9.3 step 5)."""
    project_id, run_id, sequence = event.project_id, event.run_id, event.sequence

    def conflict(code: Reason, message: str, existing_hash: str = "") -> SyncResult:
        return SyncResult(
            project_id, run_id, sequence, SyncOutcome.CONFLICT, code, message, event.content_hash, existing_hash
        )

    owner = tx.sync_events.owner(project_id)
    if owner is not None and owner != hub_project:
        # The owner is not named: another project's ownership is not this caller's business.
        return conflict(Reason.SYNC_PROJECT_MISMATCH, f"project id {project_id} belongs to another hub project")
    existing = tx.sync_events.get_hash(project_id, run_id, sequence)
    if existing is not None:
        if existing == event.content_hash:
            return SyncResult(project_id, run_id, sequence, SyncOutcome.DUPLICATE, content_hash=existing)
        return conflict(Reason.SYNC_SEQUENCE_REUSED, f"sequence {sequence} of run {run_id} holds other bytes", existing)
    run = tx.sync_events.get_run(project_id, run_id)
    if run is not None and run.home_runtime_id != event.home_runtime_id:
        return conflict(Reason.SYNC_HOME_RUNTIME_MISMATCH, f"run {run_id} is homed on another runtime")
    if owner is None:
        tx.sync_events.set_owner(project_id, hub_project)
    tx.sync_events.insert(
        StoredEvent(project_id, run_id, sequence, event.event_type, event.content_hash, now, event.canonical)
    )
    if run is None:
        run = SyncRun(project_id, run_id, hub_project, event.home_runtime_id, cursor=0, last_sequence=0)
    run = replace(run, last_sequence=max(run.last_sequence, sequence))
    if sequence == run.cursor + 1:
        run = _advance(tx, run)
    tx.sync_events.put_run(run)
    return SyncResult(project_id, run_id, sequence, SyncOutcome.ACCEPTED, content_hash=event.content_hash)


def check_batch(events: int) -> None:
    """Refuse a batch of no events or of more than 100, before any of them is looked at.

    A surface calls it on the count alone before it converts the events (a quarter megabyte holds
    over 100,000 empty ones); ``push_sync_events`` calls it again.

    Raises:
        InvalidArgument: the batch is empty (INVALID_SYNC_BATCH) or has more than 100 events
            (SYNC_BATCH_TOO_LARGE).
    """
    if not events:
        raise invalid_field("events", "must hold at least one event", reason=Reason.INVALID_SYNC_BATCH)
    if events > sync.MAX_BATCH_EVENTS:
        raise InvalidArgument(
            f"a batch holds at most {sync.MAX_BATCH_EVENTS} events, not {events}",
            reason=Reason.SYNC_BATCH_TOO_LARGE,
            metadata={"field": "events", "limit": str(sync.MAX_BATCH_EVENTS), "events": str(events)},
            field_violations=(FieldViolation("events", f"holds at most {sync.MAX_BATCH_EVENTS} events"),),
        )


async def push_sync_events(
    store: Store, caller: Caller, shapes: Sequence[Mapping[str, object]], *, now: int
) -> PushOutcome:
    """Ingest a batch of events from the calling runtime (see the module docstring).

    Raises:
        InvalidArgument: the batch is empty (INVALID_SYNC_BATCH) or has more than 100 events
            (SYNC_BATCH_TOO_LARGE).
    """
    hub_project = _project(caller)
    runtime_id = caller.runtime_id
    assert runtime_id is not None
    check_batch(len(shapes))
    prepared = [_prepare(shape, runtime_id) for shape in shapes]

    def work(tx: Tx) -> PushOutcome:
        results: list[SyncResult] = []
        touched: dict[tuple[str, str], None] = {}
        for item in prepared:
            result = item if isinstance(item, SyncResult) else _decide(tx, hub_project, item, now)
            results.append(result)
            if result.outcome in (SyncOutcome.ACCEPTED, SyncOutcome.DUPLICATE):
                touched.setdefault((result.project_id, result.run_id))
        cursors = []
        for project_id, run_id in touched:
            run = tx.sync_events.get_run(project_id, run_id)
            assert run is not None
            cursors.append(run)
        return PushOutcome(results, cursors)

    outcome = await store.write(work)
    for result in outcome.results:
        if result.outcome is SyncOutcome.CONFLICT:
            log.warning(
                "security_alert",
                alert="sync_sequence_conflict",
                reason=str(result.code),
                runtime_id=runtime_id,
                project_id=result.project_id,
                run_id=result.run_id,
                sequence=result.sequence,
                presented_hash=result.content_hash,
                existing_hash=result.existing_hash or None,
            )
    accepted = sum(1 for r in outcome.results if r.outcome is SyncOutcome.ACCEPTED)
    log.info("sync_events_pushed", runtime_id=runtime_id, events=len(shapes), accepted=accepted)
    return outcome


async def list_run_events(
    store: Store, caller: Caller, project_id: str, run_id: str, after: int, size: int
) -> tuple[list[StoredEvent], SyncRun]:
    """A run's accepted events after ``after``, by sequence, and its cursor; runs of other hub
    projects read as empty.

    Raises:
        InvalidArgument: a malformed id, a negative sequence or page size.
    """
    hub_project = _project(caller)
    project_id = rules.opaque_id("project_id", project_id, reason=Reason.PROTOCOL_ERROR)
    run_id = rules.opaque_id("run_id", run_id, reason=Reason.PROTOCOL_ERROR)
    if after < 0:
        raise invalid_field("after_sequence", "must not be negative")
    limit = page_size(size)

    def work(tx: Tx) -> tuple[list[StoredEvent], SyncRun]:
        run = tx.sync_events.get_run(project_id, run_id)
        if run is None or run.hub_project != hub_project:
            return [], SyncRun(project_id, run_id, hub_project, "", 0, 0)
        return tx.sync_events.list_events(project_id, run_id, after, limit), run

    return await store.read(work)


async def reassign_sync_project(store: Store, caller: Caller, project_id: str, project: str, *, now: int) -> int:
    """Give a runtime-side project id (and its runs) to another hub project; return its event count.

    An admin action: audited in its transaction (the previous owner and the events moved in the
    record's metadata).

    Raises:
        InvalidArgument: a malformed project id (INVALID_RUNTIME_ID) or project name.
        NotFound: the hub project does not exist (PROJECT_NOT_FOUND).
    """
    project_id = rules.opaque_id("project_id", project_id)
    project = project_name("project", project)

    def work(tx: Tx) -> tuple[str | None, int]:
        if tx.projects.get(project) is None:
            raise NotFound(
                f"no project named {project}", reason=Reason.PROJECT_NOT_FOUND, metadata={"project": project}
            )
        previous = tx.sync_events.owner(project_id)
        moved = tx.sync_events.set_owner(project_id, project)
        metadata = {"project": project, "previousProject": previous or "", "movedEvents": str(moved)}
        audit.record(tx, caller, "ReassignSyncProject", sync_project_target(project_id), now=now, metadata=metadata)
        return previous, moved

    previous, moved = await store.write(work)
    log.info(
        "sync_project_reassigned",
        project_id=project_id,
        project=project,
        previous=previous,
        moved_events=moved,
        operator=caller.operator,
    )
    return moved
