"""Agents and their presence (spec §5)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from kxm_grpc.domain import validation

MAX_NAME_CHARS = 64
MAX_PURPOSE_CHARS = 256
MAX_MODEL_CHARS = 128
MAX_HOST_CHARS = 64
DEFAULT_PURPOSE = "General-purpose agent"


class Presence(enum.Enum):
    """An agent's liveness on the hub's clock; derived when read, never stored."""

    ONLINE = "online"
    STALE = "stale"
    OFFLINE = "offline"


@dataclass(frozen=True, slots=True)
class Agent:
    """A registered agent. ``online`` is the stored flag; ``presence()`` adds the hub's clock."""

    id: str
    project: str
    name: str
    purpose: str
    model: str
    host: str
    connect_time: int
    last_seen_time: int
    online: bool

    @property
    def name_key(self) -> str:
        """The case-insensitive key that makes names unique within a project."""
        return name_key(self.name)

    def presence_expire_time(self, stale_after: int) -> int:
        """When the presence window ends unless renewed (not a fenced lease: see ``domain.leases``)."""
        return self.last_seen_time + stale_after

    def presence(self, now: int, stale_after: int) -> Presence:
        """Online, stale (flag on, presence window passed, not swept yet) or offline."""
        if not self.online:
            return Presence.OFFLINE
        if now < self.presence_expire_time(stale_after):
            return Presence.ONLINE
        return Presence.STALE

    def seen(self, now: int) -> Agent:
        """The agent renewed at ``now`` (and online)."""
        return replace(self, last_seen_time=now, online=True)


@dataclass(frozen=True, slots=True)
class Registration:
    """The validated fields of a RegisterAgent request."""

    name: str
    purpose: str
    model: str
    host: str


def name_key(name: str) -> str:
    """The case-insensitive form of an agent name: trimmed and lowercased as JavaScript does."""
    return validation.js_lower(validation.js_trim(name))


def registration(name: str, purpose: str, model: str, host: str) -> Registration:
    """Validate a registration.

    Raises:
        InvalidArgument: name is empty, or any field is longer than its limit.
    """
    return Registration(
        name=validation.required_text("name", name, MAX_NAME_CHARS),
        purpose=validation.optional_text("purpose", purpose, MAX_PURPOSE_CHARS) or DEFAULT_PURPOSE,
        model=validation.optional_text("model", model, MAX_MODEL_CHARS),
        host=validation.optional_text("host", host, MAX_HOST_CHARS),
    )


def renewal_due(last_seen_time: int, now: int, stale_after: int) -> bool:
    """Whether presence last renewed at ``last_seen_time`` should be renewed again.

    Renewing on every call would cost a commit per RPC; renewing once a quarter of the window has
    passed keeps the lease fresh for any agent that calls (or holds a stream open) at least that often.
    """
    return now - last_seen_time >= stale_after // 4


def needs_touch(agent: Agent, now: int, stale_after: int) -> bool:
    """Whether an authenticated call should renew the agent's stored presence (see ``renewal_due``)."""
    return (not agent.online) or renewal_due(agent.last_seen_time, now, stale_after)
