"""AgentService: registration and presence."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine
from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import agent_service_pb2, agent_service_pb2_grpc
from kxm_grpc.domain.agents import Registration
from kxm_grpc.domain.caller import CredentialKind
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import agent_to_proto
from kxm_grpc.server.servicers.channel import Channels
from kxm_grpc.server.state import HubState
from kxm_grpc.services import agents, auth

Context = grpc.aio.ServicerContext[Any, Any]

_CREDENTIAL_KIND = {
    CredentialKind.ADMIN: agent_service_pb2.CREDENTIAL_KIND_ADMIN,
    CredentialKind.PROJECT: agent_service_pb2.CREDENTIAL_KIND_PROJECT,
    CredentialKind.AGENT: agent_service_pb2.CREDENTIAL_KIND_AGENT,
    CredentialKind.RUNTIME: agent_service_pb2.CREDENTIAL_KIND_RUNTIME,
    CredentialKind.OPERATOR: agent_service_pb2.CREDENTIAL_KIND_OPERATOR,
}


class AgentServicer(agent_service_pb2_grpc.AgentServiceServicer):
    """Serves kxm.v1.AgentService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub
        self._channels = Channels(hub)

    def OpenChannel(  # type: ignore[override]  # returns the coroutine that writes with context.write
        self, request_iterator: AsyncIterator[agent_service_pb2.OpenChannelRequest], context: Context
    ) -> Coroutine[Any, Any, None]:
        # Not a coroutine itself: an idle channel keeps one frame fewer (docs/performance.md).
        return self._channels.serve(request_iterator, context)

    async def RegisterAgent(
        self, request: agent_service_pb2.RegisterAgentRequest, context: Context
    ) -> agent_service_pb2.RegisterAgentResponse:
        registration = Registration(request.name, request.purpose, request.model, request.host)
        now = self._hub.now()
        registered = await agents.register_agent(
            self._hub.store, current_call().caller, registration, presented_key=request.previous_key or None, now=now
        )
        return agent_service_pb2.RegisterAgentResponse(
            agent=agent_to_proto(registered.agent, now=now, stale_after=self._hub.stale_after),
            agent_key=registered.key,
            resumed=registered.resumed,
        )

    async def Heartbeat(
        self, request: agent_service_pb2.HeartbeatRequest, context: Context
    ) -> agent_service_pb2.HeartbeatResponse:
        call = current_call()
        assert call.agent is not None and call.agent_key is not None  # the method table requires an agent
        now = self._hub.now()
        agent = await agents.heartbeat(self._hub.store, call.caller, call.agent, agent_key=call.agent_key, now=now)
        return agent_service_pb2.HeartbeatResponse(
            agent=agent_to_proto(agent, now=now, stale_after=self._hub.stale_after)
        )

    async def UnregisterAgent(
        self, request: agent_service_pb2.UnregisterAgentRequest, context: Context
    ) -> agent_service_pb2.UnregisterAgentResponse:
        now = self._hub.now()
        agent = await agents.unregister_agent(self._hub.store, current_call().caller, now=now)
        return agent_service_pb2.UnregisterAgentResponse(
            agent=agent_to_proto(agent, now=now, stale_after=self._hub.stale_after)
        )

    async def ListAgents(
        self, request: agent_service_pb2.ListAgentsRequest, context: Context
    ) -> agent_service_pb2.ListAgentsResponse:
        page, next_token = await agents.list_agents(
            self._hub.store,
            current_call().caller,
            request.page_size,
            request.page_token,
            include_offline=request.include_offline,
        )
        now = self._hub.now()
        return agent_service_pb2.ListAgentsResponse(
            agents=[agent_to_proto(a, now=now, stale_after=self._hub.stale_after) for a in page],
            next_page_token=next_token,
        )

    async def GetCallerIdentity(
        self, request: agent_service_pb2.GetCallerIdentityRequest, context: Context
    ) -> agent_service_pb2.GetCallerIdentityResponse:
        caller = auth.get_caller_identity(current_call().caller)
        return agent_service_pb2.GetCallerIdentityResponse(
            credential_kind=_CREDENTIAL_KIND[caller.kind],
            project=caller.project or "",
            agent_id=caller.agent_id or "",
            agent_name=caller.agent_name or "",
            runtime_id=caller.runtime_id or "",
            operator=caller.operator or "",
        )
