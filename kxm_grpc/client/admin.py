"""AdminService calls: projects and their tokens (admin token)."""

from __future__ import annotations

from kxm_grpc._gen.kxm.v1 import admin_service_pb2, admin_service_pb2_grpc
from kxm_grpc.client.base import ClientBase


class AdminCalls(ClientBase):
    """kxm.v1.AdminService."""

    async def create_project(self, name: str) -> admin_service_pb2.CreateProjectResponse:
        """Create a project; the response carries its token (shown once)."""
        return await self._call(
            self._stub(admin_service_pb2_grpc.AdminServiceStub).CreateProject,
            admin_service_pb2.CreateProjectRequest(name=name),
        )

    async def list_projects(
        self, *, page_size: int = 0, page_token: str = ""
    ) -> admin_service_pb2.ListProjectsResponse:
        """One page of projects by name."""
        return await self._call(
            self._stub(admin_service_pb2_grpc.AdminServiceStub).ListProjects,
            admin_service_pb2.ListProjectsRequest(page_size=page_size, page_token=page_token),
        )

    async def rotate_project_token(self, name: str) -> admin_service_pb2.RotateProjectTokenResponse:
        """Issue a new project token; the old one stops working."""
        return await self._call(
            self._stub(admin_service_pb2_grpc.AdminServiceStub).RotateProjectToken,
            admin_service_pb2.RotateProjectTokenRequest(name=name),
        )
