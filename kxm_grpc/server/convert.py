"""Conversions between protobuf messages and domain values shared by several servicers."""

from __future__ import annotations

from google.protobuf import duration_pb2, timestamp_pb2

from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.domain.agents import Agent, Presence
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.errors import invalid_field

# A long poll answers this long before the call's deadline, so the answer (not DEADLINE_EXCEEDED)
# reaches the caller.
DEADLINE_MARGIN = 0.05

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


def duration_micros(
    field: str, value: duration_pb2.Duration, has_value: bool, *, default: int, minimum: int, maximum: int
) -> int:
    """A Duration field in microseconds; ``default`` when unset.

    Raises:
        InvalidArgument: malformed (``check_duration``), negative, or outside ``[minimum, maximum]``.
    """
    if not has_value:
        return default
    check_duration(field, value)
    if value.seconds < 0 or value.nanos < 0:
        raise invalid_field(field, "must not be negative")
    micros = value.seconds * MICROS + value.nanos // 1000
    if not minimum <= micros <= maximum:
        raise invalid_field(field, f"must be between {minimum / MICROS:g} s and {maximum / MICROS:g} s")
    return micros


def within_deadline(wait: float, time_remaining: float | None) -> float:
    """A wait in seconds, cut short so the answer beats the call's deadline (``time_remaining``, if any)."""
    if time_remaining is None:
        return wait
    return min(wait, max(0.0, time_remaining - DEADLINE_MARGIN))


def agent_to_proto(agent: Agent, *, now: int, stale_after: int) -> types_pb2.Agent:
    """The public view of an agent, with presence on the hub's clock."""
    return types_pb2.Agent(
        id=agent.id,
        project=agent.project,
        name=agent.name,
        purpose=agent.purpose,
        model=agent.model,
        host=agent.host,
        connect_time=timestamp(agent.connect_time),
        last_seen_time=timestamp(agent.last_seen_time),
        lease_expire_time=timestamp(agent.lease_expire_time(stale_after)),
        presence=_PRESENCE[agent.presence(now, stale_after)],
    )
