"""The hub's configurable limits as the services' rules read them.

The rules' fixed bounds live in the domain (``domain.messages.MAX_TTL``, ``domain.leases.MAX_WAIT``);
what an operator may change lives here, in clock microseconds, built once from the hub's settings
(``HubState.limits``, from ``kxm_grpc.server.settings.Settings``) and passed to every service
function whose rules depend on it. A caller that is not the gRPC server (a test, a later HTTP or
MCP surface) passes the same value and gets the same behaviour; ``LIMITS`` holds the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from kxm_grpc.domain import leases as lease_rules
from kxm_grpc.domain.clock import seconds


@dataclass(frozen=True, slots=True)
class Limits:
    """What the services' rules read from the hub's settings (clock microseconds)."""

    message_ttl: int = seconds(86_400)
    """The time to live of a message sent without one (``--message-ttl``)."""
    lease_min_ttl: int = lease_rules.MIN_TTL
    """The shortest lease TTL accepted: the domain's 5 s, lowered only by the testing hook
    ``--testing-lease-min-ttl``."""
    stale_after: int = seconds(30)
    """The presence window of agents and runtimes (``--stale-after``)."""
    replay_horizon: int = seconds(90 * 86_400)
    """How long a workflow start's delivery id and body hash, and a signal's receipt, are kept to
    refuse replays (``--workflow-replay-horizon``); beyond the run retention."""
    workflow_retention: int = seconds(7 * 86_400)
    """How long a workflow run is kept after it ends (``--workflow-retention``)."""
    context_retention: int = seconds(7 * 86_400)
    """How long a superseded or rejected context item is kept after it ended (``--context-retention``)."""
    context_state_retention: int = seconds(30 * 86_400)
    """How long state history (superseded and rejected state items) is kept (``--context-state-retention``)."""


LIMITS = Limits()
"""The limits of a hub started with default settings."""
