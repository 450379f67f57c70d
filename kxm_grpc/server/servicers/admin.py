"""AdminService: projects and their tokens, named operators, and the audit."""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import admin_service_pb2, admin_service_pb2_grpc, types_pb2
from kxm_grpc.domain.audit import AuditRecord
from kxm_grpc.domain.operators import Operator
from kxm_grpc.domain.projects import Project
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import timestamp
from kxm_grpc.server.state import HubState
from kxm_grpc.services import audit, operators, projects

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
