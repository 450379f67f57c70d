"""HubError <-> gRPC status with ``google.rpc`` details, shared by the server and the client.

The server turns a HubError into a ``google.rpc.Status`` carrying ``ErrorInfo`` (reason, domain,
metadata) and, where they apply, ``BadRequest`` field violations and ``RetryInfo``. The client
rebuilds the same HubError subclass from what it receives.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from kxm_grpc.errors import (
    DOMAIN,
    ERROR_CLASSES,
    FieldViolation,
    HubError,
    Internal,
    Reason,
)


def to_rpc_status(error: HubError, *, trailing: tuple[tuple[str, str], ...] = ()) -> grpc.Status:
    """Encode a HubError as a gRPC status with rich details."""
    converted: grpc.Status = rpc_status.to_status(rich_status(error))
    if trailing:
        return _with_trailing(converted, trailing)
    return converted


def rich_status(error: HubError) -> status_pb2.Status:
    """A HubError as the ``google.rpc.Status`` a call ending with it carries (``grpc-status-details-bin``)."""
    details = []
    if error.reason is not None:
        info = error_details_pb2.ErrorInfo(reason=str(error.reason), domain=DOMAIN, metadata=error.metadata)
        details.append(_pack(info))
    if error.field_violations:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
                for v in error.field_violations
            ]
        )
        details.append(_pack(bad))
    if error.retry_after is not None:
        delay = duration_pb2.Duration()
        delay.FromNanoseconds(int(error.retry_after * 1e9))
        details.append(_pack(error_details_pb2.RetryInfo(retry_delay=delay)))
    return status_pb2.Status(code=getattr(code_pb2, error.status), message=error.message, details=details)


def _with_trailing(status: grpc.Status, extra: tuple[tuple[str, str], ...]) -> grpc.Status:
    class _Status(grpc.Status):  # grpc.Status is an abstract namedtuple-like class
        code = status.code
        details = status.details
        trailing_metadata = tuple(status.trailing_metadata) + extra

    return _Status()


def _pack(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)  # type: ignore[arg-type]
    return packed


def from_rpc_error(exc: grpc.RpcError) -> HubError:
    """Rebuild the HubError a server sent (or describe a transport failure as one)."""
    code: grpc.StatusCode = exc.code()
    try:
        status = rpc_status.from_call(exc)
    except ValueError:
        status = None
    return _hub_error(code.name, exc.details() or code.name, status)


def from_status_bytes(data: bytes) -> HubError:
    """Rebuild the HubError of a serialized ``google.rpc.Status`` (a channel command's error).

    Raises:
        google.protobuf.message.DecodeError: the bytes are not a Status.
    """
    status = status_pb2.Status.FromString(data)
    name = code_pb2.Code.Name(status.code) if status.code in code_pb2.Code.values() else "UNKNOWN"
    return _hub_error(name, status.message or name, status)


def _hub_error(code: str, message: str, status: status_pb2.Status | None) -> HubError:
    cls = ERROR_CLASSES.get(code, Internal)
    reason: Reason | str | None = None
    domain = DOMAIN
    metadata: dict[str, str] = {}
    violations: list[FieldViolation] = []
    retry_after: float | None = None
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations = [FieldViolation(v.field, v.description) for v in bad.field_violations]
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_after = retry.retry_delay.ToNanoseconds() / 1e9
    error = cls(message, reason=reason, metadata=metadata, field_violations=tuple(violations), retry_after=retry_after)
    error.domain = domain
    return error
