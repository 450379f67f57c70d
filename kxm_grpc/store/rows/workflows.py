"""Rows of the workflow tables, and the run's JSON document (``run_to_document`` / ``run_from_document``).

A run is stored whole as one JSON document beside the columns its lookups filter and order by
(all derived from the run when it is written). The document holds every field of the run and of
the types in it, under the field's own name; enums as their values, tuples as arrays, None as
null; decoding rebuilds equal dataclasses. Its top-level ``v`` is the document's format (1): a
change of format is a new number that the decoder reads beside the old ones.

A run row carries a checksum over all its columns (``RUN_FIELDS``, ``kxm_grpc/store/checksum.py``):
the decoder verifies it before it reads the document, so a row whose bytes changed on disk raises
``DataLoss`` (``ERROR_REASON_STORAGE_CORRUPTED``, the run id in its metadata) and logs
``run_checksum_mismatch`` (ids only), never serves a changed run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import structlog

from kxm_grpc.domain.workflows.diversity import Dimension
from kxm_grpc.domain.workflows.evidence import DegradationApproval, EligibleProducer, PeerEvidence, ResolvedPolicy
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.runs import (
    CheckpointStatus,
    Escalation,
    EvidenceHash,
    Run,
    RunStatus,
    SignalReceipt,
    StageState,
    StageStatus,
    Transition,
    Wait,
)
from kxm_grpc.errors import DataLoss, Reason
from kxm_grpc.store.checksum import RUN_FIELDS, checksum
from kxm_grpc.store.protocols.workflows import (
    DeliveryKind,
    StoredDefinition,
    StoredDelivery,
    StoredNotification,
    StoredStep,
)
from kxm_grpc.store.rows import Columns, Row

log = structlog.get_logger("kxm.store")

DOCUMENT_FORMAT = 1
"""The run document's format (its ``v``)."""

Object = dict[str, Any]

# -- the run document --------------------------------------------------------------------------------


def run_to_document(run: Run) -> str:
    """The run as its stored JSON document."""
    return _dumps(run_to_object(run))


def run_from_document(text: str) -> Run:
    """The run a document of ``run_to_document`` holds.

    Raises:
        ValueError: the text is not JSON, or not a run document of a known format.
        KeyError: a field is missing.
    """
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("v") != DOCUMENT_FORMAT:
        raise ValueError("not a workflow run document of format 1")
    return run_from_object(data)


def signal_receipt_to_document(receipt: SignalReceipt) -> str:
    """A signal receipt as JSON (in the run document's encoding)."""
    return _dumps(_receipt_to(receipt))


def signal_receipt_from_document(text: str) -> SignalReceipt:
    """The receipt a document of ``signal_receipt_to_document`` holds."""
    data: Object = json.loads(text)
    return _receipt_from(data)


def _dumps(data: Object) -> str:
    # ASCII only: a lone surrogate in a summary (valid JSON input, not UTF-8) is stored escaped.
    return json.dumps(data, separators=(",", ":"))


def run_to_object(run: Run) -> Object:
    """The run as the JSON object its document holds."""
    return {
        "v": DOCUMENT_FORMAT,
        "id": run.id,
        "definition_id": run.definition_id,
        "definition_hash": run.definition_hash,
        "project": run.project,
        "coordinator_id": run.coordinator_id,
        "coordinator_name": run.coordinator_name,
        "delivery_id": run.delivery_id,
        "payload_sha256": run.payload_sha256,
        "prompt_message_id": run.prompt_message_id,
        "stages": [_stage_to(stage) for stage in run.stages],
        "policies": {
            stage_id: {key: _policy_to(policy) for key, policy in by_key.items()}
            for stage_id, by_key in run.policies.items()
        },
        "create_time": run.create_time,
        "update_time": run.update_time,
        "status": run.status.value,
        "current_stage": run.current_stage,
        "wait": None if run.wait is None else _wait_to(run.wait),
        "transitions": [_transition_to(transition) for transition in run.transitions],
        "repro_oracle": None if run.repro_oracle is None else _hash_to(run.repro_oracle),
        "plan_hash": None if run.plan_hash is None else _hash_to(run.plan_hash),
        "approvals": [_approval_to(approval) for approval in run.approvals],
        "end_time": run.end_time,
        "end_reason": run.end_reason,
        "event": run.event,
    }


def run_from_object(data: Object) -> Run:
    """The run of a JSON object of ``run_to_object``."""
    return Run(
        id=data["id"],
        definition_id=data["definition_id"],
        definition_hash=data["definition_hash"],
        project=data["project"],
        coordinator_id=data["coordinator_id"],
        coordinator_name=data["coordinator_name"],
        delivery_id=data["delivery_id"],
        payload_sha256=data["payload_sha256"],
        prompt_message_id=data["prompt_message_id"],
        stages=[_stage_from(stage) for stage in data["stages"]],
        policies={
            stage_id: {key: _policy_from(policy) for key, policy in by_key.items()}
            for stage_id, by_key in data["policies"].items()
        },
        create_time=data["create_time"],
        update_time=data["update_time"],
        status=RunStatus(data["status"]),
        current_stage=data["current_stage"],
        wait=None if data["wait"] is None else _wait_from(data["wait"]),
        transitions=[_transition_from(transition) for transition in data["transitions"]],
        repro_oracle=None if data["repro_oracle"] is None else _hash_from(data["repro_oracle"]),
        plan_hash=None if data["plan_hash"] is None else _hash_from(data["plan_hash"]),
        approvals=[_approval_from(approval) for approval in data["approvals"]],
        end_time=data["end_time"],
        end_reason=data["end_reason"],
        event=data["event"],
    )


def _stage_to(stage: StageState) -> Object:
    return {
        "id": stage.id,
        "status": stage.status.value,
        "attempts": stage.attempts,
        "visit": stage.visit,
        "visit_start_time": stage.visit_start_time,
        "summary": stage.summary,
        "evidence": {key: list(values) for key, values in stage.evidence.items()},
        "peer_evidence": {
            key: [_peer_to(evidence) for evidence in snapshots] for key, snapshots in stage.peer_evidence.items()
        },
        "degraded_requirements": list(stage.degraded_requirements),
        "start_time": stage.start_time,
        "complete_time": stage.complete_time,
        "update_time": stage.update_time,
        "escalation": None if stage.escalation is None else _escalation_to(stage.escalation),
        "resumed_at": stage.resumed_at,
    }


def _stage_from(data: Object) -> StageState:
    return StageState(
        id=data["id"],
        status=StageStatus(data["status"]),
        attempts=data["attempts"],
        visit=data["visit"],
        visit_start_time=data["visit_start_time"],
        summary=data["summary"],
        evidence={key: tuple(values) for key, values in data["evidence"].items()},
        peer_evidence={
            key: tuple(_peer_from(evidence) for evidence in snapshots)
            for key, snapshots in data["peer_evidence"].items()
        },
        degraded_requirements=tuple(data["degraded_requirements"]),
        start_time=data["start_time"],
        complete_time=data["complete_time"],
        update_time=data["update_time"],
        escalation=None if data["escalation"] is None else _escalation_from(data["escalation"]),
        resumed_at=data.get("resumed_at", 0),
    )


def _escalation_to(escalation: Escalation) -> Object:
    return {
        "reason": escalation.reason,
        "escalate_time": escalation.escalate_time,
        "escalated_by": escalation.escalated_by,
        "ruling": escalation.ruling,
        "ruling_status": None if escalation.ruling_status is None else escalation.ruling_status.value,
        "ruled_by": escalation.ruled_by,
        "rule_time": escalation.rule_time,
    }


def _escalation_from(data: Object) -> Escalation:
    return Escalation(
        reason=data["reason"],
        escalate_time=data["escalate_time"],
        escalated_by=data["escalated_by"],
        ruling=data["ruling"],
        ruling_status=None if data["ruling_status"] is None else CheckpointStatus(data["ruling_status"]),
        ruled_by=data["ruled_by"],
        rule_time=data["rule_time"],
    )


def _wait_to(wait: Wait) -> Object:
    return {
        "stage_id": wait.stage_id,
        "signal_key": wait.signal_key,
        "summary": wait.summary,
        "create_time": wait.create_time,
        "expire_time": wait.expire_time,
    }


def _wait_from(data: Object) -> Wait:
    return Wait(
        stage_id=data["stage_id"],
        signal_key=data["signal_key"],
        summary=data["summary"],
        create_time=data["create_time"],
        expire_time=data["expire_time"],
    )


def _transition_to(transition: Transition) -> Object:
    return {
        "id": transition.id,
        "from_stage": transition.from_stage,
        "to_stage": transition.to_stage,
        "outcome": transition.outcome,
        "attempt": transition.attempt,
        "evidence_keys": list(transition.evidence_keys),
        "time": transition.time,
    }


def _transition_from(data: Object) -> Transition:
    return Transition(
        id=data["id"],
        from_stage=data["from_stage"],
        to_stage=data["to_stage"],
        outcome=data["outcome"],
        attempt=data["attempt"],
        evidence_keys=tuple(data["evidence_keys"]),
        time=data["time"],
    )


def _hash_to(captured: EvidenceHash) -> Object:
    return {
        "stage_id": captured.stage_id,
        "evidence_key": captured.evidence_key,
        "sha256": captured.sha256,
        "capture_time": captured.capture_time,
    }


def _hash_from(data: Object) -> EvidenceHash:
    return EvidenceHash(
        stage_id=data["stage_id"],
        evidence_key=data["evidence_key"],
        sha256=data["sha256"],
        capture_time=data["capture_time"],
    )


def _receipt_to(receipt: SignalReceipt) -> Object:
    return {
        "delivery_id": receipt.delivery_id,
        "payload_sha256": receipt.payload_sha256,
        "signal_key": receipt.signal_key,
        "stage_id": receipt.stage_id,
        "status": receipt.status.value,
        "receive_time": receipt.receive_time,
        "resumed": receipt.resumed,
        "degraded_requirements": list(receipt.degraded_requirements),
        "message_id": receipt.message_id,
    }


def _receipt_from(data: Object) -> SignalReceipt:
    return SignalReceipt(
        delivery_id=data["delivery_id"],
        payload_sha256=data["payload_sha256"],
        signal_key=data["signal_key"],
        stage_id=data["stage_id"],
        status=CheckpointStatus(data["status"]),
        receive_time=data["receive_time"],
        resumed=data["resumed"],
        degraded_requirements=tuple(data["degraded_requirements"]),
        message_id=data["message_id"],
    )


def _policy_to(policy: ResolvedPolicy) -> Object:
    return {
        "key": policy.key,
        "min_producers": policy.min_producers,
        "eligible": [_producer_to(producer) for producer in policy.eligible],
        "distinct_by": [dimension.value for dimension in policy.distinct_by],
        "degraded_min_producers": policy.degraded_min_producers,
    }


def _policy_from(data: Object) -> ResolvedPolicy:
    return ResolvedPolicy(
        key=data["key"],
        min_producers=data["min_producers"],
        eligible=tuple(_producer_from(producer) for producer in data["eligible"]),
        distinct_by=tuple(Dimension(dimension) for dimension in data["distinct_by"]),
        degraded_min_producers=data["degraded_min_producers"],
    )


def _producer_to(producer: EligibleProducer) -> Object:
    return {
        "agent_id": producer.agent_id,
        "name": producer.name,
        "provider": producer.provider,
        "model": producer.model,
    }


def _producer_from(data: Object) -> EligibleProducer:
    return EligibleProducer(
        agent_id=data["agent_id"],
        name=data["name"],
        provider=data["provider"],
        model=data["model"],
    )


def _peer_to(evidence: PeerEvidence) -> Object:
    return {
        "message_id": evidence.message_id,
        "producer_id": evidence.producer_id,
        "producer_name": evidence.producer_name,
        "run_id": evidence.run_id,
        "stage_id": evidence.stage_id,
        "requirement_key": evidence.requirement_key,
        "visit": evidence.visit,
        "attempt": evidence.attempt,
        "request_sha256": evidence.request_sha256,
        "reply_sha256": evidence.reply_sha256,
        "create_time": evidence.create_time,
        "deliver_time": evidence.deliver_time,
        "reply_time": evidence.reply_time,
        "verify_time": evidence.verify_time,
    }


def _peer_from(data: Object) -> PeerEvidence:
    return PeerEvidence(
        message_id=data["message_id"],
        producer_id=data["producer_id"],
        producer_name=data["producer_name"],
        run_id=data["run_id"],
        stage_id=data["stage_id"],
        requirement_key=data["requirement_key"],
        visit=data["visit"],
        attempt=data["attempt"],
        request_sha256=data["request_sha256"],
        reply_sha256=data["reply_sha256"],
        create_time=data["create_time"],
        deliver_time=data["deliver_time"],
        reply_time=data["reply_time"],
        verify_time=data["verify_time"],
    )


def _approval_to(approval: DegradationApproval) -> Object:
    return {
        "id": approval.id,
        "stage_id": approval.stage_id,
        "requirement_key": approval.requirement_key,
        "visit": approval.visit,
        "attempt": approval.attempt,
        "policy_min_producers": approval.policy_min_producers,
        "approved_min_producers": approval.approved_min_producers,
        "approved_by": approval.approved_by,
        "reason": approval.reason,
        "approve_time": approval.approve_time,
    }


def _approval_from(data: Object) -> DegradationApproval:
    return DegradationApproval(
        id=data["id"],
        stage_id=data["stage_id"],
        requirement_key=data["requirement_key"],
        visit=data["visit"],
        attempt=data["attempt"],
        policy_min_producers=data["policy_min_producers"],
        approved_min_producers=data["approved_min_producers"],
        approved_by=data["approved_by"],
        reason=data["reason"],
        approve_time=data["approve_time"],
    )


# -- workflow_runs ---------------------------------------------------------------------------------

WORKFLOW_RUNS = Columns("workflow_runs", *RUN_FIELDS, "checksum")
"""Also the insert list: ``run_values`` follow this order."""


def run_values(run: Run) -> tuple[object, ...]:
    """The run's column values in ``WORKFLOW_RUNS`` order (document and checksum computed), for an insert."""
    values: dict[str, Any] = {
        "id": run.id,
        "definition_id": run.definition_id,
        "definition_hash": run.definition_hash,
        "project": run.project,
        "coordinator_id": run.coordinator_id,
        "status": run.status.value,
        "current_stage": run.current_stage,
        "delivery_id": run.delivery_id,
        "payload_sha256": run.payload_sha256,
        "create_time": run.create_time,
        "update_time": run.update_time,
        "end_time": run.end_time,
        "wait_expire_time": None if run.wait is None else run.wait.expire_time,
        "document": run_to_document(run),
    }
    values["checksum"] = checksum([values[name] for name in RUN_FIELDS])
    return WORKFLOW_RUNS.values(values)


def _run_decoder(columns: Columns) -> Callable[[Row], Run]:
    id_, project, document, stored_checksum = columns.positions("id", "project", "document", "checksum")
    covered = columns.positions(*RUN_FIELDS)

    def run_from_row(row: Row) -> Run:
        """The run in a row selecting ``WORKFLOW_RUNS``.

        Raises:
            DataLoss: the row fails its checksum (``ERROR_REASON_STORAGE_CORRUPTED``).
        """
        if row[stored_checksum] != checksum([row[p] for p in covered]):
            log.error("run_checksum_mismatch", run_id=str(row[id_]), project=str(row[project]))
            raise DataLoss(
                f"workflow run {row[id_]} is corrupted in storage (it failed its checksum); restore a backup",
                reason=Reason.STORAGE_CORRUPTED,
                metadata={"runId": str(row[id_])},
            )
        return run_from_document(row[document])

    return run_from_row


run_from_row = _run_decoder(WORKFLOW_RUNS)

# -- workflow_definitions ----------------------------------------------------------------------------

WORKFLOW_DEFINITIONS = Columns(
    "workflow_definitions",
    "id",
    "project",
    "hash",
    "document",
    "register_time",
    "update_time",
    "registered_by",
    "kind",
)
"""Also the insert list: ``definition_values`` follow this order."""

WORKFLOW_DEFINITION_READ = Columns("workflow_definitions", *WORKFLOW_DEFINITIONS.names, "pinned_document")
"""What a read selects: the definition's columns, then its current version's document (a join)."""


def definition_values(definition: StoredDefinition) -> tuple[object, ...]:
    """The definition's column values in ``WORKFLOW_DEFINITIONS`` order."""
    return WORKFLOW_DEFINITIONS.values(
        {
            "id": definition.id,
            "project": definition.project,
            "hash": definition.hash,
            "document": definition.document,
            "register_time": definition.register_time,
            "update_time": definition.update_time,
            "registered_by": definition.registered_by,
            "kind": definition.kind.value,
        }
    )


def _definition_decoder(columns: Columns) -> Callable[[Row], StoredDefinition]:
    id_, project, hash_, document, pinned_document, register_time, update_time, registered_by, kind = columns.positions(
        "id",
        "project",
        "hash",
        "document",
        "pinned_document",
        "register_time",
        "update_time",
        "registered_by",
        "kind",
    )

    def definition_from_row(row: Row) -> StoredDefinition:
        """The definition in a row selecting ``WORKFLOW_DEFINITION_READ``."""
        return StoredDefinition(
            id=row[id_],
            project=row[project],
            hash=row[hash_],
            document=row[document],
            pinned_document=row[pinned_document],
            register_time=row[register_time],
            update_time=row[update_time],
            registered_by=row[registered_by],
            kind=DefinitionKind(row[kind]),
        )

    return definition_from_row


definition_from_row = _definition_decoder(WORKFLOW_DEFINITION_READ)

# -- workflow_deliveries -----------------------------------------------------------------------------

WORKFLOW_DELIVERIES = Columns(
    "workflow_deliveries",
    "definition_id",
    "kind",
    "delivery_id",
    "payload_sha256",
    "run_id",
    "signal_key",
    "receive_time",
    "expire_time",
)
"""Also the insert list: ``delivery_values`` follow this order."""

_KIND = {kind.value: kind for kind in DeliveryKind}


def delivery_values(delivery: StoredDelivery) -> tuple[object, ...]:
    """The delivery's column values in ``WORKFLOW_DELIVERIES`` order."""
    return WORKFLOW_DELIVERIES.values(
        {
            "definition_id": delivery.definition_id,
            "kind": delivery.kind.value,
            "delivery_id": delivery.delivery_id,
            "payload_sha256": delivery.payload_sha256,
            "run_id": delivery.run_id,
            "signal_key": delivery.signal_key,
            "receive_time": delivery.receive_time,
            "expire_time": delivery.expire_time,
        }
    )


def _delivery_decoder(columns: Columns) -> Callable[[Row], StoredDelivery]:
    definition_id, kind, delivery_id, payload_sha256, run_id, signal_key, receive_time, expire_time = columns.positions(
        "definition_id",
        "kind",
        "delivery_id",
        "payload_sha256",
        "run_id",
        "signal_key",
        "receive_time",
        "expire_time",
    )

    def delivery_from_row(row: Row) -> StoredDelivery:
        """The delivery in a row selecting ``WORKFLOW_DELIVERIES``."""
        return StoredDelivery(
            definition_id=row[definition_id],
            kind=_KIND[row[kind]],
            delivery_id=row[delivery_id],
            payload_sha256=row[payload_sha256],
            run_id=row[run_id],
            signal_key=row[signal_key],
            receive_time=row[receive_time],
            expire_time=row[expire_time],
        )

    return delivery_from_row


delivery_from_row = _delivery_decoder(WORKFLOW_DELIVERIES)

# -- workflow_steps ----------------------------------------------------------------------------------

WORKFLOW_STEPS = Columns("workflow_steps", "run_id", "request_id", "kind", "response", "create_time")
"""Also the insert list: ``step_values`` follow this order."""


def step_values(step: StoredStep) -> tuple[object, ...]:
    """The step's column values in ``WORKFLOW_STEPS`` order."""
    return (step.run_id, step.request_id, step.kind, step.response, step.create_time)


def _step_decoder(columns: Columns) -> Callable[[Row], StoredStep]:
    run_id, request_id, kind, response, create_time = columns.positions(
        "run_id", "request_id", "kind", "response", "create_time"
    )

    def step_from_row(row: Row) -> StoredStep:
        """The step in a row selecting ``WORKFLOW_STEPS``."""
        return StoredStep(
            run_id=row[run_id],
            request_id=row[request_id],
            kind=row[kind],
            response=row[response],
            create_time=row[create_time],
        )

    return step_from_row


step_from_row = _step_decoder(WORKFLOW_STEPS)

# -- workflow_notifications --------------------------------------------------------------------------

WORKFLOW_NOTIFICATIONS = Columns(
    "workflow_notifications",
    "id",
    "definition_id",
    "run_id",
    "event",
    "body",
    "create_time",
    "next_time",
    "attempts",
    "deliver_time",
    "last_error",
)
"""Also the insert list: ``notification_values`` follow this order."""


def notification_values(notification: StoredNotification) -> tuple[object, ...]:
    """The notification's column values in ``WORKFLOW_NOTIFICATIONS`` order."""
    return WORKFLOW_NOTIFICATIONS.values(
        {
            "id": notification.id,
            "definition_id": notification.definition_id,
            "run_id": notification.run_id,
            "event": notification.event,
            "body": notification.body,
            "create_time": notification.create_time,
            "next_time": notification.next_time,
            "attempts": notification.attempts,
            "deliver_time": notification.deliver_time,
            "last_error": notification.last_error,
        }
    )


def _notification_decoder(columns: Columns) -> Callable[[Row], StoredNotification]:
    id_, definition_id, run_id, event, body, create_time, next_time, attempts, deliver_time, last_error = (
        columns.positions(
            "id",
            "definition_id",
            "run_id",
            "event",
            "body",
            "create_time",
            "next_time",
            "attempts",
            "deliver_time",
            "last_error",
        )
    )

    def notification_from_row(row: Row) -> StoredNotification:
        """The notification in a row selecting ``WORKFLOW_NOTIFICATIONS``."""
        return StoredNotification(
            id=row[id_],
            definition_id=row[definition_id],
            run_id=row[run_id],
            event=row[event],
            body=row[body],
            create_time=row[create_time],
            next_time=row[next_time],
            attempts=row[attempts],
            deliver_time=row[deliver_time],
            last_error=row[last_error],
        )

    return notification_from_row


notification_from_row = _notification_decoder(WORKFLOW_NOTIFICATIONS)
