"""Peer evidence: policies resolved at run start, cited replies verified into snapshots, quorum.

A coordinator asks eligible peers for reviews with a workflow context the hub authorises
(``authorise_context``), then cites the replies' message ids on a passing checkpoint or a wait.
The hub verifies each cited message against its own record (``verify_refs``) into a metadata-only
``PeerEvidence`` snapshot (hashes, never bodies), which outlives message retention. A requirement
is met when enough distinct eligible producers replied at the active attempt of the current visit
(``quorum``); with ``distinct_by`` the counted producers must also differ pairwise in each listed
dimension (provider, model), as the operator declared them: an agent's own claim never decides.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kxm_grpc.domain import validation
from kxm_grpc.domain.messages import (
    MAX_MESSAGE_ID_CHARS,
    MAX_REQUIREMENT_KEY_CHARS,
    Message,
    MessageState,
    WorkflowContext,
    canonical_requirement_key,
)
from kxm_grpc.domain.workflows import diversity
from kxm_grpc.domain.workflows.diversity import Dimension
from kxm_grpc.errors import FailedPrecondition, FieldViolation, InvalidArgument, PermissionDenied, Reason

PEER_EVIDENCE_SCHEMA = "kxm.verified-peer-evidence.v1"
CONTEXT_SCHEMA = "kxm.workflow-message-context.v1"

MAX_REFS_KEYS = 32
"""Requirements one batch of evidence references may cite."""
MAX_REFS_IDS = 16
"""Message ids one requirement may cite."""

# The statuses the send-side checks need (plain strings until runs.py has its enums).
RUN_RUNNING = "running"
STAGE_IN_PROGRESS = "in_progress"

_HASH = re.compile(r"[a-f0-9]{64}")


@dataclass(frozen=True)
class EligibleProducer:
    """A policy selector resolved at run start to one agent, with the operator's declaration."""

    agent_id: str
    name: str
    provider: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class ResolvedPolicy:
    """An evidence policy with its selectors resolved (snapshotted on the run, never re-resolved)."""

    key: str
    min_producers: int
    eligible: tuple[EligibleProducer, ...]
    distinct_by: tuple[Dimension, ...] = ()
    degraded_min_producers: int | None = None

    def producer(self, agent_id: str) -> EligibleProducer | None:
        return next((p for p in self.eligible if p.agent_id == agent_id), None)


@dataclass(frozen=True)
class PeerEvidence:
    """A verified peer reply: who produced it, for which run, stage, visit and attempt, and hashes.

    Times are microseconds since the epoch. ``visit`` is the hub's count of entries into the
    stage (never sent by agents); ``attempt`` the 1-based attempt within that visit.
    """

    message_id: str
    producer_id: str
    producer_name: str
    run_id: str
    stage_id: str
    requirement_key: str
    visit: int
    attempt: int
    request_sha256: str
    reply_sha256: str
    create_time: int
    deliver_time: int | None
    reply_time: int
    verify_time: int


@dataclass(frozen=True)
class DegradationApproval:
    """An operator's approval to accept fewer producers for one requirement at one attempt of one visit."""

    id: str
    stage_id: str
    requirement_key: str
    visit: int
    attempt: int
    policy_min_producers: int
    approved_min_producers: int
    approved_by: str
    reason: str
    approve_time: int


@dataclass(frozen=True)
class QuorumStatus:
    """How one requirement stands at the active attempt."""

    key: str
    counted: int
    """Distinct eligible producers counted (with ``distinct_by``: the largest pairwise-distinct set)."""
    required: int
    """The policy minimum, or the approved minimum when an approval exists for this attempt."""
    met: bool
    degraded: bool
    """Met only thanks to an approval (policy minimum > counted >= approved minimum)."""


# -- send side -------------------------------------------------------------------------------------


def authorise_context(
    context: WorkflowContext,
    *,
    run_id: str,
    run_project: str,
    run_status: str,
    coordinator_id: str,
    sender_id: str,
    sender_project: str,
    current_stage: str | None,
    stage_status: str,
    policies: Mapping[str, ResolvedPolicy],
    active_attempt: int,
    target_agent_id: str,
) -> None:
    """Authorise a send with a workflow context against the live run (§2.5), in the spec's order.

    The caller has loaded the run named by ``context.run_id`` (NOT_FOUND when there is none) and
    resolved the target to an agent; ``policies`` are the named stage's resolved policies by
    canonical key, ``active_attempt`` its ``attempts + 1``.

    Raises:
        PermissionDenied: WORKFLOW_CONTEXT_FORBIDDEN when the run is in another project or the
            sender is not its coordinator; WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN when the target is
            not an eligible producer for the requirement.
        FailedPrecondition: WORKFLOW_CONTEXT_INACTIVE when the stage is not the current one, the
            run is not running or the stage not in progress; WORKFLOW_CONTEXT_ATTEMPT_MISMATCH
            when the attempt is not the active one.
        InvalidArgument: (WORKFLOW_EVIDENCE_POLICY_MISSING) the stage has no policy for the key.
    """
    key = canonical_requirement_key(context.requirement_key)
    metadata = {"runId": run_id, "stageId": context.stage_id, "requirementKey": key}
    if sender_project != run_project:
        raise PermissionDenied(
            "the workflow run is not in the sender's project",
            reason=Reason.WORKFLOW_CONTEXT_FORBIDDEN,
            metadata={"runId": run_id},
        )
    if sender_id != coordinator_id:
        raise PermissionDenied(
            "only the run's coordinator may send with its workflow context",
            reason=Reason.WORKFLOW_CONTEXT_FORBIDDEN,
            metadata={"runId": run_id},
        )
    if current_stage != context.stage_id:
        raise FailedPrecondition(
            "the workflow context's stage is not the run's current stage",
            reason=Reason.WORKFLOW_CONTEXT_INACTIVE,
            metadata={**metadata, "currentStage": current_stage or ""},
        )
    if run_status != RUN_RUNNING:
        raise FailedPrecondition(
            f"the workflow run is {run_status}",
            reason=Reason.WORKFLOW_CONTEXT_INACTIVE,
            metadata={**metadata, "runStatus": run_status},
        )
    if stage_status != STAGE_IN_PROGRESS:
        raise FailedPrecondition(
            f"the workflow stage is {stage_status}",
            reason=Reason.WORKFLOW_CONTEXT_INACTIVE,
            metadata={**metadata, "stageStatus": stage_status},
        )
    policy = policies.get(key)
    if policy is None:
        raise _policy_missing(run_id, context.stage_id, key)
    if context.attempt != active_attempt:
        raise FailedPrecondition(
            f"the workflow context's attempt is {context.attempt}, the stage's active attempt is {active_attempt}",
            reason=Reason.WORKFLOW_CONTEXT_ATTEMPT_MISMATCH,
            metadata={**metadata, "attempt": str(context.attempt), "activeAttempt": str(active_attempt)},
        )
    if policy.producer(target_agent_id) is None:
        raise PermissionDenied(
            "the target is not an eligible evidence producer for the requirement",
            reason=Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN,
            metadata={**metadata, "targetAgentId": target_agent_id},
        )


def _policy_missing(run_id: str, stage_id: str, key: str) -> InvalidArgument:
    return InvalidArgument(
        "the stage has no peer evidence policy for the requirement",
        reason=Reason.WORKFLOW_EVIDENCE_POLICY_MISSING,
        metadata={"runId": run_id, "stageId": stage_id, "requirementKey": key},
    )


# -- cite side -------------------------------------------------------------------------------------


def _invalid_refs(field: str, description: str, key: str, **extra: str) -> InvalidArgument:
    return InvalidArgument(
        f"{field}: {description}",
        reason=Reason.INVALID_WORKFLOW_EVIDENCE_REFS,
        metadata={"field": field, "requirementKey": key, **extra},
        field_violations=(FieldViolation(field, description),),
    )


def parse_refs(raw: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """Check the shape of cited evidence: canonical key → the message ids cited for it.

    Keys are canonicalised; ids are trimmed. At most 32 keys, each non-empty, at most 128
    characters and unique after canonicalisation; 1 to 16 ids per key, each non-empty and at most
    80 characters, and no id twice in the whole batch (one reply counts for one requirement once).

    Raises:
        InvalidArgument: (INVALID_WORKFLOW_EVIDENCE_REFS) any of those is broken; metadata names
            the requirement key (and the message id when it is a duplicate).
    """
    if len(raw) > MAX_REFS_KEYS:
        raise _invalid_refs("evidence_refs", f"cites more than {MAX_REFS_KEYS} requirements", "")
    refs: dict[str, tuple[str, ...]] = {}
    seen: set[str] = set()
    for given, ids in raw.items():
        key = canonical_requirement_key(given)
        field = f"evidence_refs[{key}]"
        if not key:
            raise _invalid_refs("evidence_refs", "requirement keys must not be empty", "")
        if "\x00" in key or validation.utf16_length(key) > MAX_REQUIREMENT_KEY_CHARS:
            # Named by a prefix only: the metadata of an error stays small whatever was sent.
            raise _invalid_refs(
                "evidence_refs",
                f"requirement keys must be at most {MAX_REQUIREMENT_KEY_CHARS} characters",
                key[:MAX_REQUIREMENT_KEY_CHARS],
            )
        if key in refs:
            raise _invalid_refs(field, "the requirement is cited twice (keys are equal after canonicalisation)", key)
        if not 1 <= len(ids) <= MAX_REFS_IDS:
            raise _invalid_refs(f"{field}.message_ids", f"must cite between 1 and {MAX_REFS_IDS} messages", key)
        cited: list[str] = []
        for i, value in enumerate(ids):
            message_id = validation.js_trim(value)
            item = f"{field}.message_ids[{i}]"
            if not message_id:
                raise _invalid_refs(item, "must not be empty", key)
            if "\x00" in message_id or validation.utf16_length(message_id) > MAX_MESSAGE_ID_CHARS:
                raise _invalid_refs(item, f"exceeds {MAX_MESSAGE_ID_CHARS} characters", key)
            if message_id in seen:
                raise _invalid_refs(item, "the message is cited twice in this batch", key, messageId=message_id)
            seen.add(message_id)
            cited.append(message_id)
        refs[key] = tuple(cited)
    return refs


def _provenance(message_id: str, key: str, check: str) -> InvalidArgument:
    # Says which check failed, never what the message says: a reference is refused on metadata.
    return InvalidArgument(
        f"evidence message {message_id} for {key!r}: {check}",
        reason=Reason.WORKFLOW_PROVENANCE_INVALID,
        metadata={"messageId": message_id, "requirementKey": key},
    )


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def verify_refs(
    refs: Mapping[str, tuple[str, ...]],
    *,
    messages: Mapping[str, Message],
    run_id: str,
    run_project: str,
    coordinator_id: str,
    stage_id: str,
    visit: int,
    visit_start_time: int,
    active_attempt: int,
    policies: Mapping[str, ResolvedPolicy],
    agent_models: Mapping[str, str],
    now: int,
) -> dict[str, tuple[PeerEvidence, ...]]:
    """Verify parsed references against the hub's own message records into snapshots (§2.5).

    ``messages`` holds the cited messages the store found, by id; ``policies`` the stage's
    resolved policies by canonical key; ``agent_models`` the registered model of each eligible
    producer (by agent id; an agent missing from it has no registered model). ``visit`` and
    ``visit_start_time`` name the stage's current visit: a message created before the visit
    began never counts, even at the same attempt number, so a back-edge or a self-edge never
    revives an earlier visit's replies. Nothing is changed; the first failure refuses the batch.

    Raises:
        InvalidArgument: WORKFLOW_EVIDENCE_POLICY_MISSING when the stage has no policy for a key
            (metadata stageId, requirementKey); WORKFLOW_PROVENANCE_INVALID when a cited message
            fails a check (metadata messageId, requirementKey; the message says which check). A
            message of another project than ``run_project`` is refused exactly as a missing one
            ("no such message"), before any other check.
    """
    verified: dict[str, tuple[PeerEvidence, ...]] = {}
    for key, ids in refs.items():
        policy = policies.get(key)
        if policy is None:
            raise _policy_missing(run_id, stage_id, key)
        snapshots: list[PeerEvidence] = []
        for message_id in ids:
            message = messages.get(message_id)
            if message is None or message.project != run_project:
                # Another project's message answers exactly as a missing one (decision 14): the
                # project is checked before anything its record says, so its ids cannot be probed.
                raise _provenance(message_id, key, "no such message")
            attempt, reply, reply_time = _check_provenance(
                message,
                key,
                policy,
                run_id=run_id,
                coordinator_id=coordinator_id,
                stage_id=stage_id,
                visit_start_time=visit_start_time,
                active_attempt=active_attempt,
                agent_models=agent_models,
            )
            snapshots.append(
                PeerEvidence(
                    message_id=message.id,
                    producer_id=message.to_agent_id,
                    producer_name=message.to_agent_name,
                    run_id=run_id,
                    stage_id=stage_id,
                    requirement_key=key,
                    visit=visit,
                    attempt=attempt,
                    request_sha256=_sha256(message.content),
                    reply_sha256=_sha256(reply),
                    create_time=message.create_time,
                    deliver_time=message.deliver_time,
                    reply_time=reply_time,
                    verify_time=now,
                )
            )
        verified[key] = tuple(snapshots)
    return verified


def _check_provenance(
    message: Message,
    key: str,
    policy: ResolvedPolicy,
    *,
    run_id: str,
    coordinator_id: str,
    stage_id: str,
    visit_start_time: int,
    active_attempt: int,
    agent_models: Mapping[str, str],
) -> tuple[int, str, int]:
    """Every check of the §2.5 cite table for one message of the run's project, in the table's order
    (the project is checked first, by ``verify_refs``: another project's message reads as missing).

    Returns its attempt, its reply and its reply time (all three checked present).
    """

    def refuse(check: str) -> InvalidArgument:
        return _provenance(message.id, key, check)

    context = message.workflow_context
    if context is None:
        raise refuse("the message was not sent with a workflow context")
    if context.run_id != run_id:
        raise refuse("its workflow context names another run")
    if context.stage_id != stage_id:
        raise refuse("its workflow context names another stage")
    if canonical_requirement_key(context.requirement_key) != key:
        raise refuse("its workflow context names another requirement")
    if context.attempt != active_attempt:
        raise refuse(f"its workflow context is for attempt {context.attempt}, the active attempt is {active_attempt}")
    if message.create_time < visit_start_time:
        raise refuse("it was sent before the current visit of the stage began")
    if message.from_agent_id != coordinator_id:
        raise refuse("it was not sent by the run's coordinator")
    if message.to_agent_id == coordinator_id:
        raise refuse("it was sent to the run's coordinator")
    producer = policy.producer(message.to_agent_id)
    if producer is None:
        raise refuse("its recipient is not an eligible producer for the requirement")
    registered = agent_models.get(message.to_agent_id)
    if producer.model is not None and (
        registered is None or diversity.normal(registered) != diversity.normal(producer.model)
    ):
        # The operator's declaration decides what a producer is; an agent registered with another
        # model is not the producer the operator declared, so its reply is not evidence.
        raise refuse("its recipient's registered model disagrees with the operator's declaration")
    if message.correlation_id != run_id:
        raise refuse("its correlation id is not the run id")
    if message.state is not MessageState.REPLIED:
        raise refuse(f"it is {message.state.value}, not replied")
    reply = message.reply_content
    if reply is None or not validation.js_trim(reply):
        raise refuse("its reply is empty")
    reply_time = message.reply_time
    if reply_time is None or not _coherent(message.create_time, message.deliver_time, reply_time):
        raise refuse("its timestamps are incoherent (created, delivered and replied out of order)")
    return context.attempt, reply, reply_time


def _coherent(create_time: int, deliver_time: int | None, reply_time: int) -> bool:
    """created ≤ delivered ≤ replied when delivered, and created ≤ replied."""
    if deliver_time is not None and not create_time <= deliver_time <= reply_time:
        return False
    return 0 < create_time <= reply_time


def merge_snapshots(existing: Iterable[PeerEvidence], incoming: Iterable[PeerEvidence]) -> tuple[PeerEvidence, ...]:
    """One requirement's snapshots: the existing ones, then the incoming ones not already there.

    De-duplicated by message id; the first snapshot of a message is kept (its verify time is the
    first verification's).
    """
    merged: dict[str, PeerEvidence] = {}
    for snapshot in (*existing, *incoming):
        merged.setdefault(snapshot.message_id, snapshot)
    return tuple(merged.values())


# -- quorum ----------------------------------------------------------------------------------------


def quorum(
    policy: ResolvedPolicy,
    snapshots: Iterable[PeerEvidence],
    *,
    stage_id: str,
    visit: int,
    attempt: int,
    approval: DegradationApproval | None,
) -> QuorumStatus:
    """How the requirement ``policy.key`` stands at ``attempt`` of ``visit`` of the stage.

    Counts the distinct eligible producers among the snapshots for this stage, visit, attempt
    and key whose hashes are well formed and whose times are coherent. With ``distinct_by`` the
    count is the size of the largest set of those producers pairwise distinct in every listed
    dimension, as the operator declared them (a producer without a declaration in a listed
    dimension cannot be shown distinct, so it is not counted). An approval lowers the minimum
    only when it is for this stage, key, visit and attempt.
    """
    producers: dict[str, EligibleProducer] = {}
    for snapshot in snapshots:
        producer = policy.producer(snapshot.producer_id)
        if (
            producer is not None
            and snapshot.stage_id == stage_id
            and snapshot.visit == visit
            and snapshot.attempt == attempt
            and snapshot.requirement_key == policy.key
            and _HASH.fullmatch(snapshot.request_sha256)
            and _HASH.fullmatch(snapshot.reply_sha256)
            and _coherent(snapshot.create_time, snapshot.deliver_time, snapshot.reply_time)
        ):
            producers[producer.agent_id] = producer
    counted = _distinct_count(tuple(producers.values()), policy.distinct_by)
    approved = _approved_min(policy, approval, stage_id=stage_id, visit=visit, attempt=attempt)
    required = policy.min_producers if approved is None else approved
    return QuorumStatus(
        key=policy.key,
        counted=counted,
        required=required,
        met=counted >= required,
        degraded=approved is not None and policy.min_producers > counted >= approved,
    )


def _approved_min(
    policy: ResolvedPolicy, approval: DegradationApproval | None, *, stage_id: str, visit: int, attempt: int
) -> int | None:
    """The approved minimum when ``approval`` applies here, else None."""
    if (
        approval is None
        or policy.degraded_min_producers is None
        or approval.stage_id != stage_id
        or approval.requirement_key != policy.key
        or approval.visit != visit
        or approval.attempt != attempt
    ):
        return None
    # Never below what the policy lets an operator approve (the approval copied it when it was
    # made; a policy without degradation accepts no approval at all).
    return max(approval.approved_min_producers, policy.degraded_min_producers)


def _distinct_count(producers: tuple[EligibleProducer, ...], distinct_by: tuple[Dimension, ...]) -> int:
    """The size of the largest subset of ``producers`` pairwise distinct in every dimension."""
    return diversity.distinct_count(((p.provider, p.model) for p in producers), distinct_by)
