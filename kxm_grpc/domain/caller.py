"""Who is calling: the authenticated identity every service receives explicitly."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kxm_grpc.domain.operators import BOOTSTRAP_OPERATOR
from kxm_grpc.errors import PermissionDenied, Reason


class CredentialKind(enum.Enum):
    """The kind of credential a call was authenticated with."""

    ADMIN = "admin"
    """The admin token: the bootstrap admin, the operator named ``admin``."""
    OPERATOR = "operator"
    """A named operator's token (``kxm_op_…``)."""
    PROJECT = "project"
    AGENT = "agent"
    RUNTIME = "runtime"


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated caller.

    ``project`` is the project the credential admits (for an operator, the one named by the
    ``x-kxm-project`` metadata, if any). ``agent_id`` is set for agent calls, ``runtime_id`` for
    runtime calls, ``operator_name`` for a named operator's calls.
    """

    kind: CredentialKind
    project: str | None = None
    agent_id: str | None = None
    agent_name: str | None = None
    runtime_id: str | None = None
    operator_name: str | None = None

    @property
    def identity(self) -> str:
        """A stable key for this caller, used for rate limiting and logs."""
        if self.agent_id:
            return f"agent:{self.agent_id}"
        if self.runtime_id:
            return f"runtime:{self.project}/{self.runtime_id}"
        if self.kind is CredentialKind.ADMIN:
            return "admin"
        if self.kind is CredentialKind.OPERATOR:
            return f"operator:{self.operator_name}"
        return f"project:{self.project}"

    @property
    def is_admin(self) -> bool:
        """True for the bootstrap admin (the admin token) only."""
        return self.kind is CredentialKind.ADMIN

    @property
    def is_operator(self) -> bool:
        """True for an operator: the bootstrap admin or a named operator (the admin powers in a project)."""
        return self.kind is CredentialKind.ADMIN or self.kind is CredentialKind.OPERATOR

    @property
    def operator(self) -> str | None:
        """The operator the call is attributed to: ``admin`` for the bootstrap admin, a named
        operator's name, or None for every other caller."""
        if self.kind is CredentialKind.ADMIN:
            return BOOTSTRAP_OPERATOR
        return self.operator_name if self.kind is CredentialKind.OPERATOR else None


def require_bootstrap_admin(caller: Caller, action: str) -> None:
    """Refuse ``action`` to anyone but the bootstrap admin (operator management and the audit).

    Admission already admits only the admin to these RPCs; services check again so that a surface
    calling them directly cannot skip it.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) the caller is not the bootstrap admin.
    """
    if not caller.is_admin:
        raise PermissionDenied(
            f"only the bootstrap admin may {action}",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"action": action},
        )
