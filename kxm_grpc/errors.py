"""Errors the hub reports, shared by the server and the client.

This module imports neither grpc nor protobuf: services raise these classes, one interceptor maps
them to a gRPC status with ``google.rpc.ErrorInfo`` details, and the client rebuilds the same class
from the status it receives.

    HubError
    ├── InvalidArgument       INVALID_ARGUMENT (carries field violations)
    ├── NotFound              NOT_FOUND
    ├── AlreadyExists         ALREADY_EXISTS
    ├── PermissionDenied      PERMISSION_DENIED
    ├── Unauthenticated       UNAUTHENTICATED
    ├── FailedPrecondition    FAILED_PRECONDITION
    ├── Aborted               ABORTED
    ├── ResourceExhausted     RESOURCE_EXHAUSTED (may carry retry_after)
    ├── Unavailable           UNAVAILABLE (may carry retry_after)
    ├── DeadlineExceeded      DEADLINE_EXCEEDED
    ├── Cancelled             CANCELLED
    ├── Unimplemented         UNIMPLEMENTED
    ├── Internal              INTERNAL
    └── DataLoss              DATA_LOSS
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

DOMAIN = "kxm.dev"


class Reason(enum.StrEnum):
    """Mirror of the proto ``kxm.v1.ErrorReason`` enum; a contract test keeps the two equal."""

    PROTOCOL_ERROR = "ERROR_REASON_PROTOCOL_ERROR"
    INVALID_JSON = "ERROR_REASON_INVALID_JSON"
    UNSUPPORTED_MEDIA_TYPE = "ERROR_REASON_UNSUPPORTED_MEDIA_TYPE"
    PAYLOAD_TOO_LARGE = "ERROR_REASON_PAYLOAD_TOO_LARGE"
    ROUTE_NOT_FOUND = "ERROR_REASON_ROUTE_NOT_FOUND"
    RATE_LIMITED = "ERROR_REASON_RATE_LIMITED"
    INTERNAL_ERROR = "ERROR_REASON_INTERNAL_ERROR"
    INVALID_AUTH = "ERROR_REASON_INVALID_AUTH"
    ADMIN_AUTH_NOT_CONFIGURED = "ERROR_REASON_ADMIN_AUTH_NOT_CONFIGURED"
    INVALID_AGENT_IDENTITY = "ERROR_REASON_INVALID_AGENT_IDENTITY"
    DUPLICATE_AGENT_NAME = "ERROR_REASON_DUPLICATE_AGENT_NAME"
    TARGET_NOT_FOUND = "ERROR_REASON_TARGET_NOT_FOUND"
    SELF_TARGET = "ERROR_REASON_SELF_TARGET"
    HOP_LIMIT_REACHED = "ERROR_REASON_HOP_LIMIT_REACHED"
    IDEMPOTENCY_CONFLICT = "ERROR_REASON_IDEMPOTENCY_CONFLICT"
    INVALID_WORKFLOW_CONTEXT = "ERROR_REASON_INVALID_WORKFLOW_CONTEXT"
    WORKFLOW_CONTEXT_FORBIDDEN = "ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN"
    WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN = "ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN"
    WORKFLOW_CONTEXT_INACTIVE = "ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE"
    WORKFLOW_CONTEXT_ATTEMPT_MISMATCH = "ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH"
    WORKFLOW_CONTEXT_CORRELATION_MISMATCH = "ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH"
    WORKFLOW_EVIDENCE_POLICY_MISSING = "ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING"
    MESSAGE_NOT_FOUND = "ERROR_REASON_MESSAGE_NOT_FOUND"
    MESSAGE_FORBIDDEN = "ERROR_REASON_MESSAGE_FORBIDDEN"
    INVALID_MESSAGE_STATE = "ERROR_REASON_INVALID_MESSAGE_STATE"
    DUPLICATE_REPLY = "ERROR_REASON_DUPLICATE_REPLY"
    PRESENCE_STREAM_FORBIDDEN = "ERROR_REASON_PRESENCE_STREAM_FORBIDDEN"
    LEASE_TOKEN_REQUIRED = "ERROR_REASON_LEASE_TOKEN_REQUIRED"
    LEASE_NOT_FOUND = "ERROR_REASON_LEASE_NOT_FOUND"
    LEASE_HELD = "ERROR_REASON_LEASE_HELD"
    LEASE_EXPIRED = "ERROR_REASON_LEASE_EXPIRED"
    LEASE_SUPERSEDED = "ERROR_REASON_LEASE_SUPERSEDED"
    INVALID_RUNTIME_ID = "ERROR_REASON_INVALID_RUNTIME_ID"
    INVALID_SYNC_BATCH = "ERROR_REASON_INVALID_SYNC_BATCH"
    SYNC_BATCH_TOO_LARGE = "ERROR_REASON_SYNC_BATCH_TOO_LARGE"
    SYNC_EVENT_INVALID = "ERROR_REASON_SYNC_EVENT_INVALID"
    SYNC_RUNTIME_MISMATCH = "ERROR_REASON_SYNC_RUNTIME_MISMATCH"
    SYNC_SEQUENCE_REUSED = "ERROR_REASON_SYNC_SEQUENCE_REUSED"
    SYNC_PROJECT_MISMATCH = "ERROR_REASON_SYNC_PROJECT_MISMATCH"
    SYNC_HOME_RUNTIME_MISMATCH = "ERROR_REASON_SYNC_HOME_RUNTIME_MISMATCH"
    CONTEXT_ISOLATION_VIOLATION = "ERROR_REASON_CONTEXT_ISOLATION_VIOLATION"
    STATE_PROPOSER_MISMATCH = "ERROR_REASON_STATE_PROPOSER_MISMATCH"
    INVALID_CONTEXT_REQUEST = "ERROR_REASON_INVALID_CONTEXT_REQUEST"
    WEBHOOK_NOT_FOUND = "ERROR_REASON_WEBHOOK_NOT_FOUND"
    WEBHOOK_SIGNATURE_MISSING = "ERROR_REASON_WEBHOOK_SIGNATURE_MISSING"
    WEBHOOK_SIGNATURE_UNSUPPORTED = "ERROR_REASON_WEBHOOK_SIGNATURE_UNSUPPORTED"
    WEBHOOK_SIGNATURE_INVALID = "ERROR_REASON_WEBHOOK_SIGNATURE_INVALID"
    WORKFLOW_TARGET_UNAVAILABLE = "ERROR_REASON_WORKFLOW_TARGET_UNAVAILABLE"
    WORKFLOW_SIGNAL_DELIVERY_CONFLICT = "ERROR_REASON_WORKFLOW_SIGNAL_DELIVERY_CONFLICT"
    WORKFLOW_SIGNAL_CONTEXT_MISMATCH = "ERROR_REASON_WORKFLOW_SIGNAL_CONTEXT_MISMATCH"
    WORKFLOW_NOT_WAITING = "ERROR_REASON_WORKFLOW_NOT_WAITING"
    WORKFLOW_SIGNAL_MISMATCH = "ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH"
    WORKFLOW_WAIT_INCONSISTENT = "ERROR_REASON_WORKFLOW_WAIT_INCONSISTENT"
    INVALID_SIGNAL_KEY = "ERROR_REASON_INVALID_SIGNAL_KEY"
    INVALID_CHECKPOINT_STATUS = "ERROR_REASON_INVALID_CHECKPOINT_STATUS"
    INVALID_WORKFLOW_EVIDENCE = "ERROR_REASON_INVALID_WORKFLOW_EVIDENCE"
    INVALID_WORKFLOW_EVIDENCE_REFS = "ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS"
    WORKFLOW_EVIDENCE_INCOMPLETE = "ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE"
    WORKFLOW_PROVENANCE_INVALID = "ERROR_REASON_WORKFLOW_PROVENANCE_INVALID"
    WEAKENED_REPRODUCTION = "ERROR_REASON_WEAKENED_REPRODUCTION"
    PLAN_HASH_REQUIRED = "ERROR_REASON_PLAN_HASH_REQUIRED"
    WORKFLOW_WAIT_INVALID = "ERROR_REASON_WORKFLOW_WAIT_INVALID"
    WORKFLOW_NOT_FOUND = "ERROR_REASON_WORKFLOW_NOT_FOUND"
    WORKFLOW_STAGE_NOT_FOUND = "ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND"
    JOURNAL_NOT_FOUND = "ERROR_REASON_JOURNAL_NOT_FOUND"
    WORKFLOW_FORBIDDEN = "ERROR_REASON_WORKFLOW_FORBIDDEN"
    WORKFLOW_TERMINAL = "ERROR_REASON_WORKFLOW_TERMINAL"
    WORKFLOW_NOT_RUNNING = "ERROR_REASON_WORKFLOW_NOT_RUNNING"
    WORKFLOW_STAGE_OUT_OF_ORDER = "ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER"
    WORKFLOW_EVIDENCE_POLICY_UNRESOLVED = "ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_UNRESOLVED"
    WORKFLOW_DEGRADATION_CONFLICT = "ERROR_REASON_WORKFLOW_DEGRADATION_CONFLICT"
    WORKFLOW_DEGRADATION_FORBIDDEN = "ERROR_REASON_WORKFLOW_DEGRADATION_FORBIDDEN"
    INVALID_JOURNAL_CATEGORY = "ERROR_REASON_INVALID_JOURNAL_CATEGORY"
    INVALID_IMPROVEMENT_AREA = "ERROR_REASON_INVALID_IMPROVEMENT_AREA"
    INVALID_JOURNAL_SEVERITY = "ERROR_REASON_INVALID_JOURNAL_SEVERITY"
    INVALID_JOURNAL_RELATION = "ERROR_REASON_INVALID_JOURNAL_RELATION"
    JOURNAL_EVIDENCE_REQUIRED = "ERROR_REASON_JOURNAL_EVIDENCE_REQUIRED"
    INVALID_JOURNAL_PROMOTION = "ERROR_REASON_INVALID_JOURNAL_PROMOTION"
    JOURNAL_PROMOTION_INVALID = "ERROR_REASON_JOURNAL_PROMOTION_INVALID"
    WEBHOOK_TIMESTAMP_EXPIRED = "ERROR_REASON_WEBHOOK_TIMESTAMP_EXPIRED"
    WEBHOOK_PAYLOAD_REPLAYED = "ERROR_REASON_WEBHOOK_PAYLOAD_REPLAYED"
    WEBHOOK_DELIVERY_CONFLICT = "ERROR_REASON_WEBHOOK_DELIVERY_CONFLICT"
    CONTEXT_AUTHORITY_VIOLATION = "ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION"
    INVALID_CONTEXT_FIELD = "ERROR_REASON_INVALID_CONTEXT_FIELD"
    INVALID_CONTEXT_ITEM = "ERROR_REASON_INVALID_CONTEXT_ITEM"
    CONTEXT_LIMITS_EXCEEDED = "ERROR_REASON_CONTEXT_LIMITS_EXCEEDED"
    STATE_PROPOSAL_NOT_FOUND = "ERROR_REASON_STATE_PROPOSAL_NOT_FOUND"
    STATE_PROPOSAL_NOT_PROMOTABLE = "ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE"
    STATE_PROMOTION_INVALID = "ERROR_REASON_STATE_PROMOTION_INVALID"
    CREDENTIAL_MISSING = "ERROR_REASON_CREDENTIAL_MISSING"
    CREDENTIAL_KIND_DENIED = "ERROR_REASON_CREDENTIAL_KIND_DENIED"
    PROJECT_NOT_FOUND = "ERROR_REASON_PROJECT_NOT_FOUND"
    PROJECT_ALREADY_EXISTS = "ERROR_REASON_PROJECT_ALREADY_EXISTS"
    AGENT_NOT_FOUND = "ERROR_REASON_AGENT_NOT_FOUND"
    AGENT_RECLAIM_FORBIDDEN = "ERROR_REASON_AGENT_RECLAIM_FORBIDDEN"
    AGENT_FORBIDDEN = "ERROR_REASON_AGENT_FORBIDDEN"
    INVALID_PAGE_TOKEN = "ERROR_REASON_INVALID_PAGE_TOKEN"
    SHUTTING_DOWN = "ERROR_REASON_SHUTTING_DOWN"
    SUBSCRIBER_TOO_SLOW = "ERROR_REASON_SUBSCRIBER_TOO_SLOW"
    STORAGE_UNAVAILABLE = "ERROR_REASON_STORAGE_UNAVAILABLE"
    STORAGE_FULL = "ERROR_REASON_STORAGE_FULL"
    RUNTIME_NOT_FOUND = "ERROR_REASON_RUNTIME_NOT_FOUND"
    RUNTIME_FORBIDDEN = "ERROR_REASON_RUNTIME_FORBIDDEN"
    RUNTIME_ALREADY_EXISTS = "ERROR_REASON_RUNTIME_ALREADY_EXISTS"
    STREAM_LIMIT_REACHED = "ERROR_REASON_STREAM_LIMIT_REACHED"
    OPERATOR_NOT_FOUND = "ERROR_REASON_OPERATOR_NOT_FOUND"
    OPERATOR_ALREADY_EXISTS = "ERROR_REASON_OPERATOR_ALREADY_EXISTS"
    STORAGE_CORRUPTED = "ERROR_REASON_STORAGE_CORRUPTED"
    WORKFLOW_DEFINITION_INVALID = "ERROR_REASON_WORKFLOW_DEFINITION_INVALID"
    WORKFLOW_EVIDENCE_POLICY_INVALID = "ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_INVALID"
    WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE = "ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE"
    INVALID_TERMINAL_RECEIPT = "ERROR_REASON_INVALID_TERMINAL_RECEIPT"
    WORKFLOW_SIGNALS_DISABLED = "ERROR_REASON_WORKFLOW_SIGNALS_DISABLED"
    WORKFLOW_RULING_REQUIRED = "ERROR_REASON_WORKFLOW_RULING_REQUIRED"
    WORKFLOW_PROMPT_TOO_LONG = "ERROR_REASON_WORKFLOW_PROMPT_TOO_LONG"
    WORKFLOW_SECRET_UNAVAILABLE = "ERROR_REASON_WORKFLOW_SECRET_UNAVAILABLE"
    WORKFLOW_NOT_ENDED = "ERROR_REASON_WORKFLOW_NOT_ENDED"


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One invalid request field: its path (``ttl``, ``targets[2]``) and what is wrong with it."""

    field: str
    description: str


class HubError(Exception):
    """An error the hub reports to its caller.

    ``status`` is a gRPC status code *name*; ``reason`` is the stable cause; ``metadata`` repeats
    every dynamic part of the message as strings.
    """

    status: ClassVar[str] = "UNKNOWN"

    def __init__(
        self,
        message: str,
        *,
        reason: Reason | str | None = None,
        metadata: dict[str, str] | None = None,
        field_violations: tuple[FieldViolation, ...] = (),
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = _as_reason(reason)
        self.metadata: dict[str, str] = dict(metadata or {})
        self.field_violations = field_violations
        self.retry_after = retry_after
        self.domain = DOMAIN

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, reason={self.reason!s})"


def _as_reason(reason: Reason | str | None) -> Reason | str | None:
    """Return a known reason as ``Reason``; keep an unknown one (a newer hub's) as its string."""
    if reason is None or isinstance(reason, Reason):
        return reason
    try:
        return Reason(reason)
    except ValueError:
        return reason


class InvalidArgument(HubError):
    """A request field is malformed or out of range."""

    status = "INVALID_ARGUMENT"


class NotFound(HubError):
    """The named resource does not exist (or is not visible to the caller)."""

    status = "NOT_FOUND"


class AlreadyExists(HubError):
    """The resource to create exists already."""

    status = "ALREADY_EXISTS"


class PermissionDenied(HubError):
    """The caller is authenticated but may not do this."""

    status = "PERMISSION_DENIED"


class Unauthenticated(HubError):
    """The caller's credentials are missing or invalid."""

    status = "UNAUTHENTICATED"


class FailedPrecondition(HubError):
    """The system is not in the state the operation needs."""

    status = "FAILED_PRECONDITION"


class Aborted(HubError):
    """The operation conflicts with a concurrent or earlier one (stale token, reused key)."""

    status = "ABORTED"


class ResourceExhausted(HubError):
    """A quota or limit was reached; ``retry_after`` says when to try again, if known."""

    status = "RESOURCE_EXHAUSTED"


class Unavailable(HubError):
    """The hub cannot serve now; retry with backoff."""

    status = "UNAVAILABLE"


class DeadlineExceeded(HubError):
    """The call's deadline passed."""

    status = "DEADLINE_EXCEEDED"


class Cancelled(HubError):
    """The call was cancelled."""

    status = "CANCELLED"


class Unimplemented(HubError):
    """The hub does not implement the method."""

    status = "UNIMPLEMENTED"


class Internal(HubError):
    """An unexpected failure inside the hub."""

    status = "INTERNAL"


class DataLoss(HubError):
    """Stored data failed its integrity check (a checksum): the hub refuses to serve it."""

    status = "DATA_LOSS"


ERROR_CLASSES: dict[str, type[HubError]] = {
    cls.status: cls
    for cls in (
        InvalidArgument,
        NotFound,
        AlreadyExists,
        PermissionDenied,
        Unauthenticated,
        FailedPrecondition,
        Aborted,
        ResourceExhausted,
        Unavailable,
        DeadlineExceeded,
        Cancelled,
        Unimplemented,
        Internal,
        DataLoss,
    )
}


def invalid_field(field: str, description: str, *, reason: Reason = Reason.PROTOCOL_ERROR) -> InvalidArgument:
    """Build the InvalidArgument for one bad field, naming it in the message and the violations."""
    return InvalidArgument(
        f"{field}: {description}",
        reason=reason,
        metadata={"field": field},
        field_violations=(FieldViolation(field, description),),
    )
