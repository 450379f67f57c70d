"""Runtimes: machine clients that report presence and push run events (spec §9.1).

Unlike the original, a runtime does not declare who it is on every call: it is registered once
(which issues its own key) and every heartbeat or push is authenticated by that key.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from kxm_grpc.domain import validation
from kxm_grpc.errors import Reason

MAX_HOST_CHARS = 64
MAX_OPAQUE_ID_CHARS = 144
OPAQUE_ID = re.compile(r"[a-z][a-z0-9]{1,15}_[A-Za-z0-9][A-Za-z0-9_-]{5,127}")


class RuntimePresence(enum.Enum):
    """A runtime's liveness on the hub's clock; derived when read, never stored."""

    ONLINE = "online"
    EXPIRED = "expired"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Runtime:
    """A registered runtime of one project."""

    project: str
    id: str
    host: str
    register_time: int
    heartbeat_time: int | None

    def presence_expire_time(self, stale_after: int) -> int | None:
        """When its presence lapses without another heartbeat (None: it never heartbeated)."""
        return None if self.heartbeat_time is None else self.heartbeat_time + stale_after

    def presence(self, now: int, stale_after: int) -> RuntimePresence:
        """Online within the presence window after a heartbeat, expired after it, unknown before any."""
        expire = self.presence_expire_time(stale_after)
        if expire is None:
            return RuntimePresence.UNKNOWN
        return RuntimePresence.ONLINE if now < expire else RuntimePresence.EXPIRED


def opaque_id(field: str, value: str, *, reason: Reason = Reason.INVALID_RUNTIME_ID) -> str:
    """Return a valid opaque id (``rtm_…``, ``prj_…``: a short lowercase prefix, ``_``, 6–128 more).

    Raises:
        InvalidArgument: it does not match the opaque-id pattern (at most 144 characters).
    """
    return validation.pattern_text(
        field,
        value,
        OPAQUE_ID,
        "must be an opaque id such as rtm_0123456789ab (lowercase prefix, '_', 6 to 128 letters, digits, '_' or '-')",
        reason=reason,
    )


def host(value: str) -> str:
    """Return the reported host, trimmed (empty means none).

    Raises:
        InvalidArgument: it is longer than 64 characters.
    """
    return validation.optional_text("host", value, MAX_HOST_CHARS)
