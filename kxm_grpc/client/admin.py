"""``hub.admin``: AdminService calls: projects and their tokens, named operators, the audit.

Project management takes an operator's token (the admin token or a named operator's ``kxm_op_…``);
managing operators and reading the audit take the admin token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from kxm_grpc._gen.kxm.v1 import admin_service_pb2, admin_service_pb2_grpc, envelopes_pb2
from kxm_grpc.client.base import Area, duration


class Admin(Area):
    """kxm.v1.AdminService: ``create_project``, ``list_projects``, ``rotate_project_token``,
    ``create_operator``, ``list_operators``, ``revoke_operator``, ``list_audit_records``,
    ``mint_session_token``, ``revoke_session_token``, ``list_session_tokens``.

    The admin area keeps each RPC's full name: it spans several resources (projects, operators and
    audit records), so no one noun can be left out.
    """

    SERVICE: ClassVar[str] = "kxm.v1.AdminService"

    def _rpc(self) -> admin_service_pb2_grpc.AdminServiceAsyncStub:
        return self._hub._stub(admin_service_pb2_grpc.AdminServiceStub)

    async def create_project(
        self, name: str, *, timeout: float | None = None
    ) -> admin_service_pb2.CreateProjectResponse:
        """Create a project; the response carries its token (shown once)."""
        return await self._hub._call(
            self._rpc().CreateProject, admin_service_pb2.CreateProjectRequest(name=name), timeout=timeout
        )

    async def list_projects(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> admin_service_pb2.ListProjectsResponse:
        """One page of projects by name."""
        return await self._hub._call(
            self._rpc().ListProjects,
            admin_service_pb2.ListProjectsRequest(page_size=page_size, page_token=page_token),
            timeout=timeout,
        )

    async def rotate_project_token(
        self, name: str, *, timeout: float | None = None
    ) -> admin_service_pb2.RotateProjectTokenResponse:
        """Issue a new project token; the old one stops working."""
        return await self._hub._call(
            self._rpc().RotateProjectToken,
            admin_service_pb2.RotateProjectTokenRequest(name=name),
            timeout=timeout,
        )

    async def create_operator(
        self, name: str, *, timeout: float | None = None
    ) -> admin_service_pb2.CreateOperatorResponse:
        """Create a named operator (admin token); the response carries its token (shown once)."""
        return await self._hub._call(
            self._rpc().CreateOperator, admin_service_pb2.CreateOperatorRequest(name=name), timeout=timeout
        )

    async def list_operators(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> admin_service_pb2.ListOperatorsResponse:
        """One page of named operators by name, revoked ones too (admin token); never their tokens."""
        return await self._hub._call(
            self._rpc().ListOperators,
            admin_service_pb2.ListOperatorsRequest(page_size=page_size, page_token=page_token),
            timeout=timeout,
        )

    async def revoke_operator(
        self, name: str, *, timeout: float | None = None
    ) -> admin_service_pb2.RevokeOperatorResponse:
        """Revoke a named operator (admin token); its token stops working at once."""
        return await self._hub._call(
            self._rpc().RevokeOperator, admin_service_pb2.RevokeOperatorRequest(name=name), timeout=timeout
        )

    async def list_audit_records(
        self,
        *,
        operator: str = "",
        action: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> admin_service_pb2.ListAuditRecordsResponse:
        """One page of audit records, newest first, of one ``operator`` and/or ``action`` when given (admin token)."""
        return await self._hub._call(
            self._rpc().ListAuditRecords,
            admin_service_pb2.ListAuditRecordsRequest(
                operator=operator, action=action, page_size=page_size, page_token=page_token
            ),
            timeout=timeout,
        )

    async def mint_session_token(
        self,
        agent_id: str,
        *,
        project: str = "",
        preset: str = "",
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        denied_commands: Sequence[str] = (),
        ttl: float | None = None,
        timeout: float | None = None,
    ) -> admin_service_pb2.MintSessionTokenResponse:
        """Mint a session token for an agent (an operator's token); the response carries it (shown once).

        ``project`` may be left out when the client names one (``project=`` / ``KXM_PROJECT``);
        ``ttl`` is in seconds (24 hours when None).
        """
        policy = envelopes_pb2.ToolPolicy(
            preset=preset, allowed_tools=allow, denied_tools=deny, denied_commands=denied_commands
        )
        return await self._hub._call(
            self._rpc().MintSessionToken,
            admin_service_pb2.MintSessionTokenRequest(
                project=project, agent_id=agent_id, tool_policy=policy, ttl=duration(ttl)
            ),
            timeout=timeout,
        )

    async def revoke_session_token(
        self, session_id: str, *, project: str = "", timeout: float | None = None
    ) -> admin_service_pb2.RevokeSessionTokenResponse:
        """Revoke a session token (an operator's token); it stops being accepted at once."""
        return await self._hub._call(
            self._rpc().RevokeSessionToken,
            admin_service_pb2.RevokeSessionTokenRequest(project=project, session_id=session_id),
            timeout=timeout,
        )

    async def list_session_tokens(
        self, *, project: str = "", page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> admin_service_pb2.ListSessionTokensResponse:
        """One page of a project's session tokens, newest first (an operator's token); never the tokens."""
        return await self._hub._call(
            self._rpc().ListSessionTokens,
            admin_service_pb2.ListSessionTokensRequest(project=project, page_size=page_size, page_token=page_token),
            timeout=timeout,
        )
