"""Workflow runs: start (signed webhook or operator), read, list, cancel, rerun, retention.

A start (spec §2.1) is one transaction: the delivery is de-duplicated (the same id returns its
run; the same id with another body is a conflict; for GitHub and Jira a body already used under
another id is a replay), the coordinator and every evidence policy's agents are resolved (online
or not), the prompt is rendered and queued from ``workflow:<run id>``, and the run and the
delivery's replay record are written. A definition whose ``event`` or ``filter`` the delivery
does not match starts nothing. Delivery records outlive the run (``replay_horizon``), so a replay
is refused after a restart and after the run is purged.

Reads are scoped: an agent sees only the runs it coordinates, a project token or an operator
naming the project every run of the project; another project's run reads as missing.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from dataclasses import dataclass

import structlog

from kxm_grpc.domain import agents as agent_rules
from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import seconds
from kxm_grpc.domain.messages import Delivery
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows import checkpoints, outcomes, prompts, waits
from kxm_grpc.domain.workflows.definitions import PromptDelivery, Source, WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import EligibleProducer, ResolvedPolicy
from kxm_grpc.domain.workflows.outcomes import RunEvent
from kxm_grpc.domain.workflows.runs import Run, RunStatus
from kxm_grpc.domain.workflows.signatures import body_sha256
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, Reason, invalid_field
from kxm_grpc.services import audit, timers
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.messages import send_from_hub
from kxm_grpc.services.workflows import definitions
from kxm_grpc.services.workflows.events import log_events, publish
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import DeliveryKind, StoredDelivery

log = structlog.get_logger("kxm.workflows")

MAX_DELIVERY_ID_CHARS = 128
MAX_PAYLOAD_BYTES = 256 * 1024
DEFAULT_REPLAY_HORIZON = seconds(90 * 86_400)
DEFAULT_RETENTION = seconds(7 * 86_400)
_PURGE_BATCH = 200

WAIT_TIMER = "workflow_wait"
"""The timer kind of a run's wait deadline (key: the run id; fired by ``deadlines.WaitTimers``)."""


@dataclass(frozen=True, slots=True)
class Started:
    """A start's outcome: the run (None when the event or filter did not match), whether it is old."""

    run: Run | None
    duplicate: bool = False
    started: bool = True
    run_id: str = ""
    """The run's id, also for a duplicate whose run was purged since (``run`` is None then)."""

    def __post_init__(self) -> None:
        if self.run is not None and not self.run_id:
            object.__setattr__(self, "run_id", self.run.id)


def run_not_found(run_id: str) -> NotFound:
    return NotFound(f"no workflow run {run_id!r}", reason=Reason.WORKFLOW_NOT_FOUND, metadata={"runId": run_id})


def delivery_id(value: str, *, field: str = "delivery_id") -> str:
    """A delivery id: 1–128 characters, no control characters.

    Raises:
        InvalidArgument: it is not.
    """
    text = value.strip()
    if not text or len(text) > MAX_DELIVERY_ID_CHARS or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise invalid_field(field, f"must be 1-{MAX_DELIVERY_ID_CHARS} printable characters")
    return text


MAX_RUN_ID_CHARS = 80
MAX_DEFINITION_ID_CHARS = 64
MAX_STAGE_ID_CHARS = 64


def prompt_ttl(definition: WorkflowDefinition, limits: Limits) -> int:
    """The time to live of the hub's prompts and notices for a run: the definition's ``ttlMs``,
    else the hub's message TTL (clock microseconds)."""
    return definition.ttl_ms * 1_000 if definition.ttl_ms is not None else limits.message_ttl


def payload_bytes(payload: object) -> bytes:
    """The canonical JSON bytes of a payload given as a value (an operator's start), for its hash.

    Raises:
        InvalidArgument: it is larger than 256 KiB.
    """
    body = canonical_json(payload).encode()
    if len(body) > MAX_PAYLOAD_BYTES:
        raise invalid_field("payload", f"exceeds {MAX_PAYLOAD_BYTES} bytes as JSON")
    return body


# -- start ----------------------------------------------------------------------------------------


def _agent(tx: Tx, project: str, selector: str) -> Agent | None:
    """The project's agent with this id, else with this name (any case), online or not."""
    agent = tx.agents.get(selector)
    if agent is not None and agent.project == project:
        return agent
    return tx.agents.find_by_name(project, agent_rules.name_key(selector))


def _target_unavailable(definition: WorkflowDefinition, selector: str, **where: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"agent {selector!r} of workflow {definition.id} is not registered in project {definition.project}",
        reason=Reason.WORKFLOW_TARGET_UNAVAILABLE,
        metadata={"definitionId": definition.id, "agent": selector, **where},
    )


def _resolve_policies(
    tx: Tx, definition: WorkflowDefinition, coordinator: Agent
) -> dict[str, dict[str, ResolvedPolicy]]:
    """Every stage's evidence policies with their selectors resolved to agents (spec §1.3).

    Raises:
        FailedPrecondition: (WORKFLOW_TARGET_UNAVAILABLE) a selector names no agent;
            (WORKFLOW_EVIDENCE_POLICY_INVALID) it names the coordinator;
            (WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE) fewer distinct agents than the minimum.
    """
    resolved: dict[str, dict[str, ResolvedPolicy]] = {}
    for stage in definition.stages:
        for key, policy in stage.policies.items():
            where = {"stageId": stage.id, "requirementKey": key}
            eligible: dict[str, EligibleProducer] = {}
            for producer in policy.eligible:
                agent = _agent(tx, definition.project, producer.selector)
                if agent is None:
                    raise _target_unavailable(definition, producer.selector, **where)
                if agent.id == coordinator.id:
                    raise FailedPrecondition(
                        f"eligible agent {producer.selector!r} of {stage.id}/{key} is the run's coordinator",
                        reason=Reason.WORKFLOW_EVIDENCE_POLICY_INVALID,
                        metadata={"definitionId": definition.id, **where},
                    )
                eligible.setdefault(agent.id, EligibleProducer(agent.id, agent.name, producer.provider, producer.model))
            if len(eligible) < policy.min_producers:
                raise FailedPrecondition(
                    f"the eligible agents of {stage.id}/{key} are {len(eligible)} distinct agents, "
                    f"fewer than its {policy.min_producers}",
                    reason=Reason.WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE,
                    metadata={"definitionId": definition.id, **where},
                )
            resolved.setdefault(stage.id, {})[key] = ResolvedPolicy(
                key=key,
                min_producers=policy.min_producers,
                eligible=tuple(eligible.values()),
                distinct_by=policy.distinct_by,
                degraded_min_producers=policy.degraded_min_producers,
            )
    return resolved


def _matches(definition: WorkflowDefinition, payload: object, event: str) -> bool:
    if definition.event is not None and event != definition.event:
        return False
    condition = definition.filter
    return condition is None or prompts.payload_text(payload, condition.path) == condition.equals


def start_in(
    tx: Tx,
    definition: WorkflowDefinition,
    *,
    delivery: str,
    body: bytes,
    payload: object,
    event: str,
    limits: Limits,
    replay_horizon: int,
    now: int,
    provider_replay: bool = True,
) -> Started:
    """Start a run in ``tx`` (see the module). The caller verified the delivery's signature.

    ``provider_replay``: refuse a GitHub or Jira body that already started a run under another
    delivery id (spec §2.1 step 6). Only signed deliveries need it; an operator's start or rerun
    of the same payload is deliberate.

    Raises:
        FailedPrecondition: WEBHOOK_DELIVERY_CONFLICT, WEBHOOK_PAYLOAD_REPLAYED,
            WORKFLOW_TARGET_UNAVAILABLE, WORKFLOW_EVIDENCE_POLICY_INVALID,
            WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE.
        InvalidArgument: (WORKFLOW_PROMPT_TOO_LONG).
    """
    if not _matches(definition, payload, event):
        return Started(None, started=False)
    digest = body_sha256(body)
    seen = tx.workflows.get_delivery(definition.id, DeliveryKind.START, delivery)
    if seen is not None:
        if seen.payload_sha256 != digest:
            raise FailedPrecondition(
                f"delivery {delivery!r} started a run with another body",
                reason=Reason.WEBHOOK_DELIVERY_CONFLICT,
                metadata={"definitionId": definition.id, "deliveryId": delivery, "runId": seen.run_id},
            )
        return Started(tx.workflows.get_run(seen.run_id), duplicate=True, run_id=seen.run_id)
    if provider_replay and definition.source in (Source.GITHUB, Source.JIRA):
        replayed = tx.workflows.delivery_by_payload(definition.id, DeliveryKind.START, digest)
        if replayed is not None:
            raise FailedPrecondition(
                "this body already started a run under another delivery id",
                reason=Reason.WEBHOOK_PAYLOAD_REPLAYED,
                metadata={"definitionId": definition.id, "deliveryId": delivery},
            )
    coordinator = _agent(tx, definition.project, definition.target)
    if coordinator is None:
        raise _target_unavailable(definition, definition.target)
    policies = _resolve_policies(tx, definition, coordinator)
    run_id = new_id("run")
    try:
        prompt = prompts.coordinator_prompt(definition, run_id, payload)
    except InvalidArgument as error:
        raise InvalidArgument(
            error.message, reason=Reason.WORKFLOW_PROMPT_TOO_LONG, metadata={"definitionId": definition.id}
        ) from None
    ttl = prompt_ttl(definition, limits)
    message = send_from_hub(
        tx,
        run_id=run_id,
        sender_name=f"webhook:{definition.id}",
        target=coordinator,
        content=prompt,
        delivery=Delivery.STEER if definition.delivery is PromptDelivery.STEER else Delivery.FOLLOW_UP,
        idempotency_key=f"{definition.id}:{delivery}",
        ttl=ttl,
        now=now,
    )
    run = checkpoints.start(
        definition,
        run_id=run_id,
        coordinator_id=coordinator.id,
        coordinator_name=coordinator.name,
        delivery_id=delivery,
        payload_sha256=digest,
        prompt_message_id=message.id,
        policies=policies,
        event=event,
        now=now,
    )
    tx.workflows.insert_run(run, payload=body.decode())
    tx.workflows.put_delivery(
        StoredDelivery(
            definition_id=definition.id,
            kind=DeliveryKind.START,
            delivery_id=delivery,
            payload_sha256=digest,
            run_id=run_id,
            signal_key="",
            receive_time=now,
            expire_time=now + replay_horizon,
        )
    )
    publish(tx, definition, run, (), now)
    return Started(run)


def _log_started(started: Started, via: str) -> None:
    if started.run is not None and not started.duplicate:
        log.info(
            "workflow_started",
            run_id=started.run.id,
            definition_id=started.run.definition_id,
            project=started.run.project,
            coordinator_id=started.run.coordinator_id,
            via=via,
        )


async def start(
    store: Store,
    caller: Caller,
    definition_id: str,
    *,
    delivery: str,
    payload: object,
    event: str,
    limits: Limits,
    replay_horizon: int = DEFAULT_REPLAY_HORIZON,
    now: int,
) -> Started:
    """Start a run for an operator (StartWorkflowRun), as a signed start would; audited.

    Raises:
        NotFound: (WEBHOOK_NOT_FOUND).
        InvalidArgument: a bad delivery id or a payload over 256 KiB; as ``start_in``.
        FailedPrecondition: (WORKFLOW_KIND_MISMATCH) the definition is a step workflow; as ``start_in``.
    """
    object_id("definition_id", definition_id, MAX_DEFINITION_ID_CHARS)
    delivery = delivery_id(delivery)
    body = payload_bytes(payload)

    def work(tx: Tx) -> Started:
        stored = tx.workflows.get_definition(definition_id)
        if stored is None or not definitions.visible(caller, stored):
            raise definitions.not_found(definition_id)
        started = start_in(
            tx,
            definitions.stage_structure(stored),
            delivery=delivery,
            body=body,
            payload=payload,
            event=event,
            limits=limits,
            replay_horizon=replay_horizon,
            now=now,
            provider_replay=False,
        )
        if started.run is not None and not started.duplicate:
            audit.record(
                tx, caller, "workflow.start", f"run:{started.run.id}", now=now, metadata={"definitionId": definition_id}
            )
        return started

    started = await store.write(work)
    _log_started(started, "rpc")
    return started


# -- reads ----------------------------------------------------------------------------------------


def check_visible(caller: Caller, run: Run | None, run_id: str) -> Run:
    """The run if ``caller`` may read it.

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND) no such run in the caller's project.
        PermissionDenied: (WORKFLOW_FORBIDDEN) an agent that is not the run's coordinator.
    """
    if run is None or not (caller.project == run.project or (caller.is_operator and caller.project is None)):
        raise run_not_found(run_id)
    if caller.kind is CredentialKind.AGENT and caller.agent_id != run.coordinator_id:
        raise forbidden(run)
    return run


def forbidden(run: Run) -> PermissionDenied:
    return PermissionDenied(
        f"only the run's coordinator, {run.coordinator_name}, may act on run {run.id}",
        reason=Reason.WORKFLOW_FORBIDDEN,
        metadata={
            "runId": run.id,
            "assignedCoordinatorName": run.coordinator_name,
            "nextAction": "use_assigned_coordinator",
        },
    )


async def get(store: Store, caller: Caller, run_id: str) -> Run:
    """A run the caller may read.

    Raises:
        NotFound, PermissionDenied: as ``check_visible``.
    """
    object_id("run_id", run_id, MAX_RUN_ID_CHARS)
    return check_visible(caller, await store.read(lambda tx: tx.workflows.get_run(run_id)), run_id)


async def list_page(
    store: Store, caller: Caller, *, status: RunStatus | None, definition_id: str, size: int, token: str
) -> tuple[list[Run], str]:
    """Runs newest first: an agent's own, or every run of the caller's project (an operator naming none: all).

    Raises:
        InvalidArgument: (INVALID_PAGE_TOKEN) a bad token; a negative size.
    """
    limit = page_size(size)
    project = None if caller.is_operator and caller.project is None else caller.project
    coordinator = caller.agent_id if caller.kind is CredentialKind.AGENT else None
    query = f"workflow-runs:{project or '*'}:{coordinator or '*'}:{status.value if status else '*'}:{definition_id}"
    after = decode_page_token(token, query)
    before = None
    if after is not None:
        time, _, run_id = after.partition("/")
        before = (int(time), run_id)

    def read(tx: Tx) -> list[Run]:
        return tx.workflows.list_runs(
            project=project,
            coordinator_id=coordinator,
            status=status,
            definition_id=definition_id or None,
            before=before,
            limit=limit + 1,
        )

    rows = await store.read(read)
    page = rows[:limit]
    next_token = encode_page_token(f"{page[-1].create_time}/{page[-1].id}", query) if len(rows) > limit else ""
    return page, next_token


# -- operator changes -----------------------------------------------------------------------------


async def cancel(store: Store, caller: Caller, run_id: str, reason: str, *, now: int) -> Run:
    """Cancel a running or waiting run; audited.

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND).
        FailedPrecondition: (WORKFLOW_TERMINAL) it has ended.
    """
    object_id("run_id", run_id, MAX_RUN_ID_CHARS)
    text = reason.strip()
    if len(text) > 1_000:
        raise invalid_field("reason", "exceeds 1000 characters")

    def work(tx: Tx) -> outcomes.Step:
        run = check_visible(caller, tx.workflows.get_run(run_id), run_id)
        definition = definitions.structure(_pinned(tx, run))
        step = waits.cancel(run, reason=text, by=caller.operator or "operator", now=now)
        save(tx, definition, run, step.run, step.events, now)
        audit.record(tx, caller, "workflow.cancel", f"run:{run_id}", now=now)
        return step

    step = await store.write(work)
    log_events(step.run, step.events)
    return step.run


async def rerun(
    store: Store,
    caller: Caller,
    run_id: str,
    *,
    delivery: str,
    limits: Limits,
    replay_horizon: int = DEFAULT_REPLAY_HORIZON,
    now: int,
) -> Started:
    """Start a new run of the definition's current version from a run's start payload; audited.

    Raises:
        NotFound: (WORKFLOW_NOT_FOUND) no such run, or it was purged with its payload;
            (WEBHOOK_NOT_FOUND) its definition was deleted.
        FailedPrecondition: (WORKFLOW_KIND_MISMATCH) its id holds a step workflow now (never while
            an id keeps its kind); as ``start_in``.
        InvalidArgument: as ``start_in``.
    """
    object_id("run_id", run_id, MAX_RUN_ID_CHARS)
    delivery = delivery_id(delivery)

    def work(tx: Tx) -> Started:
        run = check_visible(caller, tx.workflows.get_run(run_id), run_id)
        body = tx.workflows.run_payload(run_id)
        if body is None:
            raise run_not_found(run_id)
        stored = tx.workflows.get_definition(run.definition_id)
        if stored is None or stored.project != run.project:
            raise definitions.not_found(run.definition_id)
        started = start_in(
            tx,
            definitions.stage_structure(stored),
            delivery=delivery,
            body=body.encode(),
            payload=json.loads(body),
            event=run.event,
            limits=limits,
            replay_horizon=replay_horizon,
            now=now,
            provider_replay=False,
        )
        if started.run is not None and not started.duplicate:
            audit.record(tx, caller, "workflow.rerun", f"run:{started.run.id}", now=now, metadata={"fromRunId": run_id})
        return started

    started = await store.write(work)
    _log_started(started, "rerun")
    return started


# -- shared by the steps --------------------------------------------------------------------------


def _pinned(tx: Tx, run: Run) -> str:
    """The document of the definition version the run pinned."""
    document = tx.workflows.definition_version(run.definition_hash)
    assert document is not None, f"run {run.id} pins a definition version that is gone"
    return document


_PINNED: collections.OrderedDict[str, WorkflowDefinition] = collections.OrderedDict()
_PINNED_MAX = 256


def cached_pinned(definition_hash: str) -> WorkflowDefinition | None:
    """The pinned version with this hash, if this process read it before (a version never changes)."""
    definition = _PINNED.get(definition_hash)
    if definition is not None:
        _PINNED.move_to_end(definition_hash)
    return definition


def pinned(tx: Tx, run: Run) -> WorkflowDefinition:
    """The definition version ``run`` pinned at start (read once per process: versions are immutable)."""
    definition = cached_pinned(run.definition_hash)
    if definition is None:
        definition = definitions.structure(_pinned(tx, run))
        _PINNED[run.definition_hash] = definition
        while len(_PINNED) > _PINNED_MAX:
            _PINNED.popitem(last=False)
    return definition


def save(
    tx: Tx,
    definition: WorkflowDefinition,
    before: Run,
    after: Run,
    events: tuple[RunEvent, ...],
    now: int,
    *,
    via_signal: bool = False,
    reported: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Store a run a step changed, keep its wait's timer in step, and publish the step's events
    (``via_signal`` and ``reported`` as ``events.publish``)."""
    tx.workflows.save_run(after)
    follow_wait(tx, before, after)
    publish(tx, definition, after, events, now, via_signal=via_signal, reported=reported)


def follow_wait(tx: Tx, before: Run, after: Run) -> None:
    """Keep the run's wait timer (``WAIT_TIMER``) in step with its wait: scheduled, moved or deleted."""
    if after.wait is not None:
        if before.wait is None or before.wait.expire_time != after.wait.expire_time:
            timers.schedule(tx, WAIT_TIMER, after.id, after.wait.expire_time)
    elif before.wait is not None:
        timers.cancel(tx, WAIT_TIMER, after.id)


async def purge(store: Store, *, now: int, retention: int = DEFAULT_RETENTION) -> int:
    """Delete runs ended more than ``retention`` ago (with their context items) and delivery
    records past their horizon.

    Returns how many runs were purged.
    """
    purged = 0
    while True:
        ids = await store.read(lambda tx: tx.workflows.ended_before(now - retention, _PURGE_BATCH))
        if not ids:
            break

        def work(tx: Tx, ids: list[str] = ids) -> int:
            # A run's context items (its journal's, its verified evidence's) go with it.
            for run_id in ids:
                tx.context_items.purge_run(run_id)
            return sum(tx.workflows.purge_run(run_id) for run_id in ids)

        purged += await store.write(work)
        if len(ids) < _PURGE_BATCH:
            break
    while await store.write(lambda tx: tx.workflows.purge_deliveries(now, _PURGE_BATCH)) >= _PURGE_BATCH:
        pass
    if purged:
        log.info("workflow_runs_purged", runs=purged)
    return purged
