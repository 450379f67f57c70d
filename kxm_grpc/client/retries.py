"""Which calls a failover channel retries, and the gRPC service config that says so.

A client given several hub addresses (``kxm_grpc.client.addresses``) dials them as one gRPC channel
with this service config: ``pick_first`` (every call goes to the first address that connects; when
that connection breaks, the next call connects again, in the same order) and a ``retryPolicy``
(gRFC A6) that repeats a call failing with UNAVAILABLE, on whatever address the channel connects to
next, for the calls below only. gRPC also retries by itself, for every method, a call that never
left the client or that a server refused before its application saw it ("transparent retries").

A call is retried when repeating it leaves the hub and the caller where one call would:

- every unary read (the RPC's ``read_only`` fact in ``proto/kxm/v1``);
- the writes the hub deduplicates: ``SendMessage`` and ``FanoutMessages`` (by the idempotency key
  or prefix; a failover client fills one in when the caller gave none, see ``messages.send``),
  ``PushSyncEvents`` (an event already stored at its slot answers DUPLICATE), ``AckMessages`` and
  ``CancelMessage`` (a repeat is a documented no-op), ``ReplyToMessage`` (the same reply again
  returns the replied message; only another content is DUPLICATE_REPLY);
- the workflow writes that carry their own de-duplication: ``Checkpoint``, ``Wait`` and
  ``RecordJournal`` (by the ``request_id`` the client sets on every call, see ``workflows.checkpoint``
  and ``workflows.journal.record``), ``StartWorkflowRun``, ``RerunWorkflowRun`` and
  ``SignalWorkflowRun`` (by their delivery id), ``RegisterWorkflowDefinition`` (the same document
  again is answered ``unchanged``), ``ProposeState`` (by the ``request_id`` the client sets);
- ``PromoteState`` (the same promotion again answers the first);
- renewals, where a repeat is the renewal a moment later: ``Heartbeat``, ``RuntimeHeartbeat``,
  ``RenewLease`` (same token, same acquire time).

Every other write is ``NOT_RETRIED``: repeating it after a lost answer would do it twice or answer
an error for what succeeded. Streams are not retried by gRPC: ``messages.subscribe`` opens its
stream again itself and resumes after the last sequence it yielded, as the agent channel does;
``resumable`` says after which errors. ``tests/api/test_client_addresses.py`` fails when an RPC of
the contract is in neither set.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import descriptor

from kxm_grpc._gen.kxm.v1 import (
    admin_service_pb2,
    agent_service_pb2,
    context_service_pb2,
    lease_service_pb2,
    message_service_pb2,
    ops_service_pb2,
    options_pb2,
    runtime_service_pb2,
    workflow_service_pb2,
)
from kxm_grpc.errors import HubError, Reason

#: The services of the contract, as their generated modules describe them.
SERVICES: tuple[descriptor.ServiceDescriptor, ...] = tuple(
    service
    for module in (
        agent_service_pb2,
        message_service_pb2,
        lease_service_pb2,
        runtime_service_pb2,
        admin_service_pb2,
        workflow_service_pb2,
        context_service_pb2,
        ops_service_pb2,
    )
    for service in module.DESCRIPTOR.services_by_name.values()
)

#: Writes that are safe to repeat (``Service/Method``), and why.
RETRIED_WRITES: dict[str, str] = {
    "kxm.v1.MessageService/SendMessage": "deduplicated by its idempotency key",
    "kxm.v1.MessageService/FanoutMessages": "deduplicated by its idempotency key prefix",
    "kxm.v1.MessageService/AckMessages": "acknowledging twice is a no-op",
    "kxm.v1.MessageService/CancelMessage": "cancelling again returns the message unchanged",
    "kxm.v1.MessageService/ReplyToMessage": "the same reply again returns the replied message unchanged",
    "kxm.v1.RuntimeService/PushSyncEvents": "an event already stored at its slot answers DUPLICATE",
    "kxm.v1.AgentService/Heartbeat": "a repeat is a heartbeat a moment later",
    "kxm.v1.RuntimeService/RuntimeHeartbeat": "a repeat is a heartbeat a moment later",
    "kxm.v1.LeaseService/RenewLease": "a repeat is a renewal a moment later (same token)",
    "kxm.v1.WorkflowService/Checkpoint": "the client sets a request_id per call: a repeat gets the first answer"
    " (repeated), applied once",
    "kxm.v1.WorkflowService/Wait": "the client sets a request_id per call: a repeat gets the first answer (repeated)",
    "kxm.v1.WorkflowService/RecordJournal": "the client sets a request_id per call: a repeat gets the first entry"
    " (repeated), recorded once",
    "kxm.v1.WorkflowService/StartWorkflowRun": "deduplicated by its delivery id: a repeat returns the run (duplicate)",
    "kxm.v1.WorkflowService/RerunWorkflowRun": "deduplicated by its delivery id: a repeat returns the run (duplicate)",
    "kxm.v1.WorkflowService/SignalWorkflowRun": "deduplicated by its delivery id: the same signal again gets the first"
    " answer (duplicate)",
    "kxm.v1.WorkflowService/RegisterWorkflowDefinition": "the same document again answers unchanged",
    "kxm.v1.WorkflowService/RegisterGateRegistry": "the same document again answers unchanged",
    "kxm.v1.WorkflowService/CompleteAssignment": "the same result again answers duplicate, settled once",
    "kxm.v1.AdminService/RevokeSessionToken": "a revoked token stays revoked: the repeat answers it unchanged",
    "kxm.v1.ContextService/ProposeState": "the client sets a request_id per call: a repeat gets the first proposal",
    "kxm.v1.ContextService/PromoteState": "the same proposal with the same evidence again returns the first promotion",
}

#: Writes that are never retried (``Service/Method``), and what a repeat would do.
NOT_RETRIED: dict[str, str] = {
    "kxm.v1.ContextService/ProposeMemory": "notes a second candidate (the first stays open)",
    "kxm.v1.ContextService/PromoteMemory": "the promoted candidate answers MEMORY_CANDIDATE_NOT_PROMOTABLE",
    "kxm.v1.ContextService/RejectMemory": "the rejected candidate answers MEMORY_CANDIDATE_NOT_PROMOTABLE",
    "kxm.v1.ContextService/SyncMemory": (
        "replaces the project's whole memory: a repeat after a lost answer could undo a sync made in between "
        "(the same files again are only answered unchanged)"
    ),
    "kxm.v1.ContextService/PutItems": (
        "replaces by (project, id) whatever was written meanwhile: a repeat after a lost answer could undo an "
        "operator's replacement or deletion made in between"
    ),
    "kxm.v1.WorkflowService/ApproveDegradation": (
        "approves the active attempt: after a lost answer the coordinator may have moved on, and a repeat "
        "would approve an attempt the operator never saw"
    ),
    "kxm.v1.AgentService/RegisterAgent": "issues another key (revoking the first) or refuses the name",
    "kxm.v1.AgentService/UnregisterAgent": "the key it revoked no longer authenticates the repeat",
    "kxm.v1.LeaseService/AcquireLease": "a waiting acquire loses its place; a granted one answers renewed",
    "kxm.v1.LeaseService/ReleaseLease": "a released lease is LEASE_NOT_FOUND",
    "kxm.v1.RuntimeService/RegisterRuntime": "the id exists (ALREADY_EXISTS) or its key is rotated again",
    "kxm.v1.RuntimeService/ReassignSyncProject": "an audited move, recorded again",
    "kxm.v1.AdminService/CreateProject": "the project exists (ALREADY_EXISTS)",
    "kxm.v1.AdminService/RotateProjectToken": "rotates again: the token the first call issued stops working",
    "kxm.v1.AdminService/CreateOperator": "the operator exists, or a second one is made",
    "kxm.v1.AdminService/RevokeOperator": "the revoked operator is not found",
    "kxm.v1.WorkflowService/CancelWorkflowRun": "the cancelled run has ended: WORKFLOW_TERMINAL",
    "kxm.v1.WorkflowService/EscalateStage": "the escalated run waits already: WORKFLOW_NOT_RUNNING",
    "kxm.v1.WorkflowService/ResolveEscalation": "the ruling applied, the run no longer waits: WORKFLOW_NOT_WAITING"
    " (or it rules a later escalation)",
    "kxm.v1.WorkflowService/ApproveStep": "the decided step has moved on: the repeat is WORKFLOW_NOT_WAITING"
    " (or decides a later approval step)",
    "kxm.v1.WorkflowService/RecoverStepRun": "the recovered run is no longer blocked: WORKFLOW_NOT_BLOCKED",
    "kxm.v1.AdminService/MintSessionToken": "mints a second token (the first one stays valid until it expires)",
    "kxm.v1.WorkflowService/PromoteJournalEntry": "the decision is terminal: the decided entry answers"
    " JOURNAL_PROMOTION_INVALID (status: the decision made)",
    "kxm.v1.ContextService/RejectState": "the closed proposal answers STATE_PROPOSAL_NOT_PROMOTABLE",
    "kxm.v1.ContextService/DeleteItems": "the items are gone: the repeat counts 0 deleted",
    "kxm.v1.ContextService/CreateSkill": "the stored content answers SKILL_CANDIDATE_EXISTS",
    "kxm.v1.ContextService/EvaluateSkill": "records a second evaluation (or answers SKILL_NOT_PROMOTABLE once it"
    " quarantined the skill)",
    "kxm.v1.ContextService/PromoteSkill": "the promoted skill answers SKILL_NOT_PROMOTABLE",
    "kxm.v1.ContextService/RejectSkill": "the rejected skill answers SKILL_NOT_PROMOTABLE",
}

#: The standard health check (``kxm health``) is a read too.
HEALTH_CHECK = "grpc.health.v1.Health/Check"

#: gRFC A6: at most 5 attempts (gRPC's own cap); the n-th retry waits random(0, min(0.2 s * 2^(n-1), 2 s)),
#: so the four retries wait 3 s at most, well inside the default 15 s deadline (which bounds them all).
RETRY_POLICY: dict[str, Any] = {
    "maxAttempts": 5,
    "initialBackoff": "0.2s",
    "maxBackoff": "2s",
    "backoffMultiplier": 2,
    "retryableStatusCodes": ["UNAVAILABLE"],
}


def full_name(service: descriptor.ServiceDescriptor, method: descriptor.MethodDescriptor) -> str:
    """``kxm.v1.MessageService/SendMessage``."""
    return f"{service.full_name}/{method.name}"


def is_read(method: descriptor.MethodDescriptor) -> bool:
    """Whether the RPC's facts say it changes no state a caller can observe."""
    facts = method.GetOptions().Extensions[options_pb2.facts]
    return bool(facts.HasField("read_only") and facts.read_only)


def retried_methods() -> list[str]:
    """``Service/Method`` of every call the retry policy covers: unary reads, then the safe writes."""
    names = [
        full_name(service, method)
        for service in SERVICES
        for method in service.methods
        if not method.server_streaming and not method.client_streaming and is_read(method)
    ]
    return [*names, *RETRIED_WRITES, HEALTH_CHECK]


def service_config() -> dict[str, Any]:
    """The failover channel's service config: pick_first, and the retry policy on the safe calls."""
    names = [dict(zip(("service", "method"), name.split("/"), strict=True)) for name in retried_methods()]
    return {
        "loadBalancingConfig": [{"pick_first": {}}],
        "methodConfig": [{"name": names, "retryPolicy": RETRY_POLICY}],
    }


#: ``service_config()`` as the JSON the ``grpc.service_config`` channel argument takes.
SERVICE_CONFIG_JSON = json.dumps(service_config(), separators=(",", ":"))


_RESUMABLE = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN", "INTERNAL"})
"""Statuses after which a stream is opened again: the hub stopped or moved, or the connection broke."""
_PASSING_EXHAUSTION = frozenset({Reason.SUBSCRIBER_TOO_SLOW, Reason.RATE_LIMITED})
"""RESOURCE_EXHAUSTED that passes (a slow reader cut, a spent rate budget); others (too many streams,
a message too large) would come again on every new stream."""


def resumable(error: HubError, *, any_exhaustion: bool = False) -> bool:
    """Whether a stream that ended with ``error`` is opened again (else its caller gets ``error``).

    RESOURCE_EXHAUSTED resumes when it passes, or with ``any_exhaustion`` whatever its reason:
    ``messages.subscribe`` waits out the agent's old streams still counted after a reconnect, where
    the agent channel fails its unanswered commands rather than wait on a limit that may not pass.
    """
    if error.status == "RESOURCE_EXHAUSTED":
        return any_exhaustion or error.reason in _PASSING_EXHAUSTION
    return error.status in _RESUMABLE
