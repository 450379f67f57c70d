"""Audit records: which operator did what to what, written in the transaction of the change.

Every admin action (an operator's call that changes the hub) appends one record: its operator
(``admin`` for the bootstrap admin), its action (the RPC's name), its target as a resource name
(``projects/alpha``, ``operators/alice``, ``syncProjects/p1``, ``projects/alpha/agents/agt_…``,
``projects/alpha/runtimes/rt1``) and metadata without secrets. Records are never changed or removed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kxm_grpc.domain.validation import pattern_text

_ACTION = re.compile(r"[A-Z][A-Za-z0-9]{0,63}")


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One audited change."""

    id: str
    """``aud_`` + 32 hex."""
    create_time: int
    operator: str
    action: str
    target: str
    metadata: Mapping[str, str] = field(default_factory=dict)
    seq: int = 0
    """Its position in the audit (set by the store when the record is read; 0 before it is written)."""


def project_target(project: str) -> str:
    """The resource name of a project."""
    return f"projects/{project}"


def operator_target(name: str) -> str:
    """The resource name of an operator."""
    return f"operators/{name}"


def sync_project_target(project_id: str) -> str:
    """The resource name of a runtime-side project id."""
    return f"syncProjects/{project_id}"


def agent_target(project: str, agent_id: str) -> str:
    """The resource name of an agent."""
    return f"projects/{project}/agents/{agent_id}"


def runtime_target(project: str, runtime_id: str) -> str:
    """The resource name of a runtime."""
    return f"projects/{project}/runtimes/{runtime_id}"


def session_target(project: str, session_id: str) -> str:
    """The resource name of a session token (its facts; never the token)."""
    return f"projects/{project}/sessionTokens/{session_id}"


def action_filter(value: str) -> str:
    """Return a well-formed action filter (an RPC name such as ``CreateProject``), or ``""`` for none.

    Raises:
        InvalidArgument: it is not an RPC name (a capital letter, then letters and digits, at most 64).
    """
    if not value:
        return ""
    return pattern_text("action", value, _ACTION, "must be an RPC name such as CreateProject")
