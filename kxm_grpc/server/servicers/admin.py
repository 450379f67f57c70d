"""AdminService: projects and their tokens, named operators, and the audit."""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import admin_service_pb2, admin_service_pb2_grpc, envelopes_pb2, types_pb2
from kxm_grpc.domain.audit import AuditRecord
from kxm_grpc.domain.operators import Operator
from kxm_grpc.domain.projects import Project
from kxm_grpc.domain.tokens import SessionRecord
from kxm_grpc.domain.tool_policy import ToolPolicy, make_policy
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import duration_value, timestamp
from kxm_grpc.server.state import HubState
from kxm_grpc.services import audit, operators, projects, tokens

Context = grpc.aio.ServicerContext[Any, Any]


def _project(project: Project) -> types_pb2.Project:
    return types_pb2.Project(
        name=project.name,
        create_time=timestamp(project.create_time),
        token_rotate_time=timestamp(project.token_rotate_time),
    )


def _operator(operator: Operator) -> types_pb2.Operator:
    return types_pb2.Operator(
        name=operator.name,
        create_time=timestamp(operator.create_time),
        revoke_time=timestamp(operator.revoke_time),
    )


def _audit_record(record: AuditRecord) -> types_pb2.AuditRecord:
    return types_pb2.AuditRecord(
        id=record.id,
        create_time=timestamp(record.create_time),
        operator=record.operator,
        action=record.action,
        target=record.target,
        metadata=dict(record.metadata),
    )


def tool_policy_from_proto(policy: envelopes_pb2.ToolPolicy, field: str = "tool_policy") -> ToolPolicy:
    """The domain policy of a proto ToolPolicy, validated and canonical.

    Raises:
        InvalidArgument: as ``make_policy`` (naming ``field``'s part).
    """
    return make_policy(
        preset=policy.preset,
        allow=policy.allowed_tools,
        deny=policy.denied_tools,
        denied_commands=policy.denied_commands,
        field=field,
    )


def tool_policy_to_proto(policy: ToolPolicy) -> envelopes_pb2.ToolPolicy:
    return envelopes_pb2.ToolPolicy(
        preset=policy.preset,
        allowed_tools=policy.allow,
        denied_tools=policy.deny,
        denied_commands=policy.denied_commands,
    )


def session_to_proto(record: SessionRecord) -> envelopes_pb2.SessionToken:
    return envelopes_pb2.SessionToken(
        session_id=record.session_id,
        agent_name=record.agent_name,
        tool_policy=tool_policy_to_proto(record.tool_policy),
        issue_time=timestamp(record.issue_time),
        expire_time=timestamp(record.expire_time),
        project=record.project,
        agent_id=record.agent_id,
        revoke_time=timestamp(record.revoke_time),
        minted_by=record.minted_by,
        key_id=record.key_id,
    )


class AdminServicer(admin_service_pb2_grpc.AdminServiceServicer):
    """Serves kxm.v1.AdminService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub

    async def CreateProject(
        self, request: admin_service_pb2.CreateProjectRequest, context: Context
    ) -> admin_service_pb2.CreateProjectResponse:
        issued = await projects.create_project(
            self._hub.store, current_call().caller, request.name, now=self._hub.now()
        )
        return admin_service_pb2.CreateProjectResponse(project=_project(issued.project), project_token=issued.token)

    async def ListProjects(
        self, request: admin_service_pb2.ListProjectsRequest, context: Context
    ) -> admin_service_pb2.ListProjectsResponse:
        page, next_token = await projects.list_projects(
            self._hub.store, current_call().caller, request.page_size, request.page_token
        )
        return admin_service_pb2.ListProjectsResponse(projects=[_project(p) for p in page], next_page_token=next_token)

    async def RotateProjectToken(
        self, request: admin_service_pb2.RotateProjectTokenRequest, context: Context
    ) -> admin_service_pb2.RotateProjectTokenResponse:
        issued = await projects.rotate_project_token(
            self._hub.store, current_call().caller, request.name, now=self._hub.now()
        )
        return admin_service_pb2.RotateProjectTokenResponse(
            project=_project(issued.project), project_token=issued.token
        )

    async def CreateOperator(
        self, request: admin_service_pb2.CreateOperatorRequest, context: Context
    ) -> admin_service_pb2.CreateOperatorResponse:
        issued = await operators.create_operator(
            self._hub.store, current_call().caller, request.name, now=self._hub.now()
        )
        return admin_service_pb2.CreateOperatorResponse(
            operator=_operator(issued.operator), operator_token=issued.token
        )

    async def ListOperators(
        self, request: admin_service_pb2.ListOperatorsRequest, context: Context
    ) -> admin_service_pb2.ListOperatorsResponse:
        page, next_token = await operators.list_operators(
            self._hub.store, current_call().caller, request.page_size, request.page_token
        )
        return admin_service_pb2.ListOperatorsResponse(
            operators=[_operator(o) for o in page], next_page_token=next_token
        )

    async def RevokeOperator(
        self, request: admin_service_pb2.RevokeOperatorRequest, context: Context
    ) -> admin_service_pb2.RevokeOperatorResponse:
        operator = await operators.revoke_operator(
            self._hub.store, current_call().caller, request.name, now=self._hub.now()
        )
        return admin_service_pb2.RevokeOperatorResponse(operator=_operator(operator))

    async def ListAuditRecords(
        self, request: admin_service_pb2.ListAuditRecordsRequest, context: Context
    ) -> admin_service_pb2.ListAuditRecordsResponse:
        page, next_token = await audit.list_audit_records(
            self._hub.store,
            current_call().caller,
            request.page_size,
            request.page_token,
            operator=request.operator,
            action=request.action,
        )
        return admin_service_pb2.ListAuditRecordsResponse(
            audit_records=[_audit_record(r) for r in page], next_page_token=next_token
        )

    async def MintSessionToken(
        self, request: admin_service_pb2.MintSessionTokenRequest, context: Context
    ) -> admin_service_pb2.MintSessionTokenResponse:
        issued = await tokens.mint_session_token(
            self._hub.store,
            current_call().caller,
            self._hub.token_keys,
            project=request.project,
            agent_id=request.agent_id,
            tool_policy=tool_policy_from_proto(request.tool_policy),
            ttl=duration_value("ttl", request.ttl, request.HasField("ttl")),
            now=self._hub.now(),
        )
        return admin_service_pb2.MintSessionTokenResponse(
            session_token=issued.token, session=session_to_proto(issued.record)
        )

    async def RevokeSessionToken(
        self, request: admin_service_pb2.RevokeSessionTokenRequest, context: Context
    ) -> admin_service_pb2.RevokeSessionTokenResponse:
        record = await tokens.revoke_session_token(
            self._hub.store,
            current_call().caller,
            project=request.project,
            session_id=request.session_id,
            now=self._hub.now(),
        )
        return admin_service_pb2.RevokeSessionTokenResponse(session=session_to_proto(record))

    async def ListSessionTokens(
        self, request: admin_service_pb2.ListSessionTokensRequest, context: Context
    ) -> admin_service_pb2.ListSessionTokensResponse:
        page, next_token = await tokens.list_session_tokens(
            self._hub.store,
            current_call().caller,
            project=request.project,
            size=request.page_size,
            token=request.page_token,
        )
        return admin_service_pb2.ListSessionTokensResponse(
            sessions=[session_to_proto(r) for r in page], next_page_token=next_token
        )
