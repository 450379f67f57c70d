"""Conversions between protobuf messages and domain values shared by several servicers.

Conversion only: a Duration becomes microseconds as given (the services check the bounds), a
deprecated field and its replacement become one value, the call's deadline becomes the seconds a
long poll may take. The rules are the services'.
"""

from __future__ import annotations

import math
from typing import Any

from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2

from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.domain.agents import Agent, Presence
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.waits import Wait
from kxm_grpc.errors import FieldViolation, InvalidArgument, Reason, invalid_field

# A long poll answers this much before the call's deadline, so the answer (not DEADLINE_EXCEEDED)
# reaches the caller: a tenth of the time left, at least DEADLINE_MARGIN and at most
# DEADLINE_MARGIN_MAX seconds. A fixed 50 ms lost calls to a loaded machine's scheduling (B16-waits,
# and test_reply_wait_never_outlasts_the_call_deadline at a load of 5 on 2 cores).
DEADLINE_MARGIN = 0.05
DEADLINE_MARGIN_SHARE = 0.1
DEADLINE_MARGIN_MAX = 1.0

_PRESENCE = {
    Presence.ONLINE: types_pb2.PRESENCE_ONLINE,
    Presence.STALE: types_pb2.PRESENCE_STALE,
    Presence.OFFLINE: types_pb2.PRESENCE_OFFLINE,
}


def timestamp(micros: int | None) -> timestamp_pb2.Timestamp | None:
    """A Timestamp for microseconds since the epoch (None stays None)."""
    if micros is None:
        return None
    proto = timestamp_pb2.Timestamp()
    set_timestamp(proto, micros)
    return proto


def set_timestamp(field: timestamp_pb2.Timestamp, micros: int) -> None:
    """Set a Timestamp field in place to microseconds since the epoch (cheaper than building one)."""
    whole, rest = divmod(micros, MICROS)
    field.seconds = whole
    field.nanos = rest * 1000


# The ranges google/protobuf/duration.proto and timestamp.proto define: a value outside them is not
# a Duration or Timestamp at all (a client that sent one is broken), so it is refused, never folded.
_MAX_NANOS = 999_999_999
_MAX_DURATION_SECONDS = 315_576_000_000  # about 10,000 years
_MIN_TIMESTAMP_SECONDS = -62_135_596_800  # 0001-01-01T00:00:00Z
_MAX_TIMESTAMP_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z


def check_duration(field: str, value: duration_pb2.Duration) -> None:
    """Refuse a Duration outside the range its definition allows.

    Raises:
        InvalidArgument: nanos outside ±999,999,999, seconds and nanos of opposite signs, or more
            than 315,576,000,000 seconds either way.
    """
    if not -_MAX_NANOS <= value.nanos <= _MAX_NANOS:
        raise invalid_field(field, "nanos must be between -999999999 and 999999999")
    if (value.seconds < 0 < value.nanos) or (value.nanos < 0 < value.seconds):
        raise invalid_field(field, "seconds and nanos must have the same sign")
    if abs(value.seconds) > _MAX_DURATION_SECONDS:
        raise invalid_field(field, "seconds must be within ±315576000000")


def check_timestamp(field: str, value: timestamp_pb2.Timestamp) -> None:
    """Refuse a Timestamp outside the range its definition allows.

    Raises:
        InvalidArgument: nanos outside 0..999,999,999, or a time before 0001-01-01 or after 9999-12-31 (UTC).
    """
    if not 0 <= value.nanos <= _MAX_NANOS:
        raise invalid_field(field, "nanos must be between 0 and 999999999")
    if not _MIN_TIMESTAMP_SECONDS <= value.seconds <= _MAX_TIMESTAMP_SECONDS:
        raise invalid_field(field, "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z")


def duration_value(field: str, value: duration_pb2.Duration, has_value: bool) -> int | None:
    """A Duration field in microseconds as given (negative if it was); None when unset.

    Raises:
        InvalidArgument: not a valid Duration at all (``check_duration``).
    """
    if not has_value:
        return None
    check_duration(field, value)
    return value.seconds * MICROS + value.nanos // 1000


def wait_value(
    field: str, value: duration_pb2.Duration, has_value: bool, *, deprecated: tuple[str, duration_pb2.Duration, bool]
) -> Wait | None:
    """The wait a request gave in ``field`` or in its ``deprecated`` (name, value, set) field; None when neither.

    Either field may carry it; both set must say the same.

    Raises:
        InvalidArgument: a value is not a valid Duration, or both are set to different values
            (naming both fields).
    """
    old_field, old_value, old_set = deprecated
    if not old_set:
        micros = duration_value(field, value, has_value)
        return None if micros is None else Wait(micros, field)
    old = duration_value(old_field, old_value, True)
    assert old is not None
    if not has_value:
        return Wait(old, old_field)
    new = duration_value(field, value, True)
    if new != old:
        description = f"{field} and {old_field} (its deprecated name) are set to different values: set only {field}"
        raise InvalidArgument(
            description,
            reason=Reason.PROTOCOL_ERROR,
            metadata={"field": field, "deprecatedField": old_field},
            field_violations=(FieldViolation(field, description), FieldViolation(old_field, description)),
        )
    return Wait(new, field)


def answer_within(time_remaining: float | None) -> float | None:
    """The seconds a long poll may take so its answer beats the call's deadline (``time_remaining``; None: none)."""
    if time_remaining is None:
        return None
    margin = min(DEADLINE_MARGIN_MAX, max(DEADLINE_MARGIN, DEADLINE_MARGIN_SHARE * time_remaining))
    return max(0.0, time_remaining - margin)


def within_deadline(wait: float, time_remaining: float | None) -> float:
    """A wait in seconds, cut short so the answer beats the call's deadline (``time_remaining``, if any)."""
    limit = answer_within(time_remaining)
    return wait if limit is None else min(wait, limit)


def agent_to_proto(agent: Agent, *, now: int, stale_after: int) -> types_pb2.Agent:
    """The public view of an agent, with presence on the hub's clock."""
    expire_time = timestamp(agent.presence_expire_time(stale_after))
    return types_pb2.Agent(
        id=agent.id,
        project=agent.project,
        name=agent.name,
        purpose=agent.purpose,
        model=agent.model,
        host=agent.host,
        connect_time=timestamp(agent.connect_time),
        last_seen_time=timestamp(agent.last_seen_time),
        lease_expire_time=expire_time,
        presence=_PRESENCE[agent.presence(now, stale_after)],
        presence_expire_time=expire_time,
    )


def struct_json(struct: struct_pb2.Struct, field: str) -> dict[str, Any]:
    """A ``Struct`` as plain JSON values (integral numbers below 2**53 as ints).

    Raises:
        InvalidArgument: (``field``) a number is NaN or infinite (JSON has neither; protobuf's JSON
            printer refuses them with an internal error).
    """

    def value(item: struct_pb2.Value) -> Any:
        kind = item.WhichOneof("kind")
        if kind == "struct_value":
            return {key: value(v) for key, v in item.struct_value.fields.items()}
        if kind == "list_value":
            return [value(v) for v in item.list_value.values]
        if kind == "number_value":
            if not math.isfinite(item.number_value):
                raise invalid_field(field, "numbers must be finite (JSON has no NaN or Infinity)")
            number = item.number_value
            return int(number) if number.is_integer() and abs(number) < 2**53 else number
        if kind == "string_value":
            return item.string_value
        if kind == "bool_value":
            return item.bool_value
        return None

    return {key: value(v) for key, v in struct.fields.items()}
