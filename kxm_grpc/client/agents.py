"""AgentService calls: registration and presence."""

from __future__ import annotations

from kxm_grpc._gen.kxm.v1 import agent_service_pb2, agent_service_pb2_grpc
from kxm_grpc.client.base import ClientBase
from kxm_grpc.client.identity import load_identity, save_identity


class AgentCalls(ClientBase):
    """kxm.v1.AgentService."""

    async def register_agent(
        self,
        name: str,
        *,
        purpose: str = "",
        model: str = "",
        host: str = "",
        previous_key: str = "",
        adopt: bool = True,
        remember: bool = False,
    ) -> agent_service_pb2.RegisterAgentResponse:
        """Register (or resume) an agent; with ``adopt`` this client then acts as it.

        With ``remember``, the key saved by an earlier registration of this name (see
        ``kxm_grpc.client.identity``) is presented as ``previous_key``, and the new key is saved:
        the same program can then run again and resume its agent (same id, inbox and leases).

        Raises:
            AlreadyExists: a live agent has the name and no valid previous key was given.
            PermissionDenied: the name belongs to an offline agent and no valid previous key was given.
        """
        project = self.project or "default"
        if remember and not previous_key:
            previous_key = (load_identity(project, name) or {}).get("agent_key", "")
        response = await self._call(
            self._stub(agent_service_pb2_grpc.AgentServiceStub).RegisterAgent,
            agent_service_pb2.RegisterAgentRequest(
                name=name, purpose=purpose, model=model, host=host, previous_key=previous_key
            ),
            # A register never authenticates as an agent: an old identity may be revoked already.
            metadata=self.bearer_metadata,
        )
        if remember:
            save_identity(project, name, response.agent.id, response.agent_key)
        if adopt:
            self.use_agent(response.agent.id, response.agent_key)
        return response

    async def heartbeat(self) -> agent_service_pb2.HeartbeatResponse:
        """Renew this agent's presence."""
        return await self._call(
            self._stub(agent_service_pb2_grpc.AgentServiceStub).Heartbeat, agent_service_pb2.HeartbeatRequest()
        )

    async def unregister_agent(self) -> agent_service_pb2.UnregisterAgentResponse:
        """Go offline; the agent key is revoked."""
        return await self._call(
            self._stub(agent_service_pb2_grpc.AgentServiceStub).UnregisterAgent,
            agent_service_pb2.UnregisterAgentRequest(),
        )

    async def list_agents(
        self, *, include_offline: bool = False, page_size: int = 0, page_token: str = ""
    ) -> agent_service_pb2.ListAgentsResponse:
        """One page of the project's agents."""
        return await self._call(
            self._stub(agent_service_pb2_grpc.AgentServiceStub).ListAgents,
            agent_service_pb2.ListAgentsRequest(
                include_offline=include_offline, page_size=page_size, page_token=page_token
            ),
        )
