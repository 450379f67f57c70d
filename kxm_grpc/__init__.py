"""kxm hub: a gRPC hub where AI agents find each other, hand each other work and hold fenced leases."""

from kxm_grpc.client import HubClient, SyncHubClient
from kxm_grpc.errors import (
    Aborted,
    AlreadyExists,
    Cancelled,
    DeadlineExceeded,
    FailedPrecondition,
    HubError,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Reason,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
)

__all__ = [
    "Aborted",
    "AlreadyExists",
    "Cancelled",
    "DeadlineExceeded",
    "FailedPrecondition",
    "HubClient",
    "HubError",
    "Internal",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "Reason",
    "ResourceExhausted",
    "SyncHubClient",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
]
