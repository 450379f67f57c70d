"""Who is calling: the authenticated identity every service receives explicitly."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class CredentialKind(enum.Enum):
    """The kind of credential a call was authenticated with."""

    ADMIN = "admin"
    PROJECT = "project"
    AGENT = "agent"
    RUNTIME = "runtime"


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated caller.

    ``project`` is the project the credential admits (for the admin, the one named by the
    ``x-kxm-project`` metadata, if any). ``agent_id`` is set for agent calls, ``runtime_id`` for
    runtime calls.
    """

    kind: CredentialKind
    project: str | None = None
    agent_id: str | None = None
    agent_name: str | None = None
    runtime_id: str | None = None

    @property
    def identity(self) -> str:
        """A stable key for this caller, used for rate limiting and logs."""
        if self.agent_id:
            return f"agent:{self.agent_id}"
        if self.runtime_id:
            return f"runtime:{self.project}/{self.runtime_id}"
        if self.kind is CredentialKind.ADMIN:
            return "admin"
        return f"project:{self.project}"

    @property
    def is_admin(self) -> bool:
        """True for the hub operator."""
        return self.kind is CredentialKind.ADMIN
