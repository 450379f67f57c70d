"""``hub.agents``: AgentService calls, registration and presence."""

from __future__ import annotations

from typing import ClassVar

from kxm_grpc._gen.kxm.v1 import agent_service_pb2, agent_service_pb2_grpc
from kxm_grpc.client.base import Area
from kxm_grpc.client.channel import AgentChannel
from kxm_grpc.client.identity import agents_dir, load_identity, save_identity
from kxm_grpc.errors import HubError, Reason

_NAME_TAKEN = (Reason.DUPLICATE_AGENT_NAME, Reason.AGENT_RECLAIM_FORBIDDEN)


class Agents(Area):
    """kxm.v1.AgentService: ``register``, ``heartbeat``, ``unregister``, ``list``, ``get_caller_identity``,
    ``open_channel``."""

    SERVICE: ClassVar[str] = "kxm.v1.AgentService"

    # The project the hub said the parent's bearer credentials admit, with the metadata it was
    # asked with (a later call with other credentials asks again).
    _caller_project: tuple[tuple[tuple[str, str], ...], str] | None = None

    def _rpc(self) -> agent_service_pb2_grpc.AgentServiceAsyncStub:
        return self._hub._stub(agent_service_pb2_grpc.AgentServiceStub)

    async def register(
        self,
        name: str,
        *,
        purpose: str = "",
        model: str = "",
        host: str = "",
        previous_key: str = "",
        adopt: bool = True,
        remember: bool = False,
        timeout: float | None = None,
    ) -> agent_service_pb2.RegisterAgentResponse:
        """Register (or resume) an agent; with ``adopt`` the client then acts as it.

        With ``remember``, the key saved by an earlier registration of this name (see
        ``kxm_grpc.client.identity``) is presented as ``previous_key``, and the new key is saved:
        the same program can then run again and resume its agent (same id, inbox and leases).
        Saved keys are filed under the project the hub says the credentials belong to
        (``caller_project``), so same-named agents of two projects never share a file, in the folder
        ``kxm_grpc.client.config.state_for`` picks for this client's address (local state, or the
        per-user profile only when it is this hub's).

        Raises:
            AlreadyExists: a live agent has the name and no valid previous key was given.
            PermissionDenied: the name belongs to an offline agent and no valid previous key was given.
            Without ``remember`` or ``previous_key``, either carries a note on how to resume the agent.
        """
        if remember and not previous_key:
            # Empty for the admin token naming no project: RegisterAgent refuses that anyway.
            project = await self.caller_project()
            if project:
                previous_key = (load_identity(project, name, address=self._hub.address) or {}).get("agent_key", "")
        try:
            response = await self._hub._call(
                self._rpc().RegisterAgent,
                agent_service_pb2.RegisterAgentRequest(
                    name=name, purpose=purpose, model=model, host=host, previous_key=previous_key
                ),
                timeout=timeout,
                # A register never authenticates as an agent: an old identity may be revoked already.
                metadata=self._hub.bearer_metadata,
            )
        except HubError as exc:
            if exc.reason in _NAME_TAKEN and not remember and not previous_key:
                # The usual way here is running the same program twice; say the way out.
                folder = agents_dir(self._hub.address)
                exc.add_note(
                    f"hint: {name!r} was registered before (by an earlier run?). With remember=True a run "
                    f"presents the key an earlier remember=True run saved (under {folder}) and resumes "
                    "that agent, as the CLI does; a name registered without it cannot be resumed so: choose "
                    "another name, or have an operator resume it."
                )
            raise
        if remember:
            # The registered agent's project is the hub's word too (the credential's, never a request field).
            save_identity(
                response.agent.project, name, response.agent.id, response.agent_key, address=self._hub.address
            )
        if adopt:
            self._hub.use_agent(response.agent.id, response.agent_key)
        return response

    async def heartbeat(self, *, timeout: float | None = None) -> agent_service_pb2.HeartbeatResponse:
        """Renew this agent's presence."""
        return await self._hub._call(self._rpc().Heartbeat, agent_service_pb2.HeartbeatRequest(), timeout=timeout)

    async def unregister(self, *, timeout: float | None = None) -> agent_service_pb2.UnregisterAgentResponse:
        """Go offline; the agent key is revoked."""
        return await self._hub._call(
            self._rpc().UnregisterAgent, agent_service_pb2.UnregisterAgentRequest(), timeout=timeout
        )

    async def list(
        self, *, include_offline: bool = False, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> agent_service_pb2.ListAgentsResponse:
        """One page of the project's agents."""
        return await self._hub._call(
            self._rpc().ListAgents,
            agent_service_pb2.ListAgentsRequest(
                include_offline=include_offline, page_size=page_size, page_token=page_token
            ),
            timeout=timeout,
        )

    def open_channel(
        self,
        *,
        subscribe: bool = False,
        after_seq: int = 0,
        presence_only: bool = False,
        reconnect: bool = True,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> AgentChannel:
        """The agent's channel (AgentService.OpenChannel), to use as ``async with``: every messaging
        command on one stream, and the inbox with ``subscribe`` (from ``after_seq``). See
        ``kxm_grpc.client.channel``."""
        return AgentChannel(
            self._hub,
            subscribe=subscribe,
            after_seq=after_seq,
            presence_only=presence_only,
            reconnect=reconnect,
            initial_backoff=initial_backoff,
            max_backoff=max_backoff,
        )

    async def get_caller_identity(self, *, timeout: float | None = None) -> agent_service_pb2.GetCallerIdentityResponse:
        """Who the client's credentials make it: credential kind, project, and agent or runtime id.

        Raises:
            Unauthenticated: the credentials are missing or not valid.
        """
        response = await self._hub._call(
            self._rpc().GetCallerIdentity, agent_service_pb2.GetCallerIdentityRequest(), timeout=timeout
        )
        # An agent identity always belongs to its token's project: the answer holds for the bearer too.
        self._caller_project = (self._hub.bearer_metadata, response.project)
        return response

    async def caller_project(self) -> str:
        """The project the client's bearer credentials admit, as the hub says; asked once per client.

        Empty for the admin token when the client names no project. The agent identity is left out
        of the question, so a revoked or replaced agent key does not hide the project.

        Raises:
            Unauthenticated: the bearer token is missing or not valid.
            PermissionDenied: ``project`` names another project than the token's.
        """
        bearer = self._hub.bearer_metadata
        if self._caller_project is not None and self._caller_project[0] == bearer:
            return self._caller_project[1]
        response = await self._hub._call(
            self._rpc().GetCallerIdentity, agent_service_pb2.GetCallerIdentityRequest(), metadata=bearer
        )
        self._caller_project = (bearer, response.project)
        return response.project
