"""AdminService: projects and their tokens."""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import admin_service_pb2, admin_service_pb2_grpc, types_pb2
from kxm_grpc.domain.projects import Project
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import timestamp
from kxm_grpc.server.state import HubState
from kxm_grpc.services import projects

Context = grpc.aio.ServicerContext[Any, Any]


def _project(project: Project) -> types_pb2.Project:
    return types_pb2.Project(
        name=project.name,
        create_time=timestamp(project.create_time),
        token_rotate_time=timestamp(project.token_rotate_time),
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
