"""AgentService.GetCallerIdentity: who the presented credentials make the caller, and nothing more."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kxm_grpc import SyncHubClient
from kxm_grpc._gen.kxm.v1 import agent_service_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.errors import NotFound, PermissionDenied, Reason, Unauthenticated
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project, ProjectFactory

ADMIN = agent_service_pb2.CREDENTIAL_KIND_ADMIN
PROJECT = agent_service_pb2.CREDENTIAL_KIND_PROJECT
AGENT = agent_service_pb2.CREDENTIAL_KIND_AGENT
RUNTIME = agent_service_pb2.CREDENTIAL_KIND_RUNTIME


def facts(response: agent_service_pb2.GetCallerIdentityResponse) -> tuple[int, str, str, str, str]:
    return (response.credential_kind, response.project, response.agent_id, response.agent_name, response.runtime_id)


async def test_a_project_token_is_its_project(hub: Hub, project: Project) -> None:
    """A project token alone: kind PROJECT, its project, no agent or runtime."""
    async with HubClient(hub.address, token=project.token) as client:
        response = await client.get_caller_identity()

    assert facts(response) == (PROJECT, "alpha", "", "", "")


async def test_an_agent_is_its_id_name_and_project(make_agent: AgentFactory) -> None:
    """A project token with an agent identity: kind AGENT and that agent's id and name."""
    planner = await make_agent("planner")

    response = await planner.get_caller_identity()

    assert facts(response) == (AGENT, "alpha", planner.agent_id, "planner", "")


async def test_a_runtime_is_its_id_and_project(hub: Hub, project: Project) -> None:
    """A runtime key: kind RUNTIME, its runtime id and the project it was registered in."""
    async with HubClient(hub.address, token=project.token) as client:
        await client.register_runtime("rtm_laptop000001", adopt=True)
        response = await client.get_caller_identity()

    assert facts(response) == (RUNTIME, "alpha", "", "", "rtm_laptop000001")


async def test_the_admin_with_and_without_a_project(hub: Hub, project: Project) -> None:
    """The admin token alone names no project; with x-kxm-project it is the project it named."""
    async with hub.admin() as plain, hub.admin(project="alpha") as acting:
        alone = await plain.get_caller_identity()
        named = await acting.get_caller_identity()

    assert facts(alone) == (ADMIN, "", "", "", "")
    assert facts(named) == (ADMIN, "alpha", "", "", "")


async def test_unauthenticated_callers_are_refused(hub: Hub) -> None:
    """No bearer, an unknown token, or half an agent identity: UNAUTHENTICATED, nothing revealed."""
    async with (
        HubClient(hub.address, token="") as nobody,
        HubClient(hub.address, token="kxm_proj_guessed") as guesser,
        HubClient(hub.address, token="kxm_rtm_guessed") as runtime_guesser,
    ):
        outcomes = await asyncio.gather(
            nobody.get_caller_identity(),
            guesser.get_caller_identity(),
            runtime_guesser.get_caller_identity(),
            return_exceptions=True,
        )

    assert [type(o) for o in outcomes] == [Unauthenticated] * 3
    assert [o.reason for o in outcomes] == [  # type: ignore[union-attr]
        Reason.CREDENTIAL_MISSING,
        Reason.INVALID_AUTH,
        Reason.INVALID_AUTH,
    ]


async def test_the_admin_naming_an_unknown_project_is_not_found(hub: Hub) -> None:
    """The admin's x-kxm-project must exist (as on every project-scoped RPC)."""
    async with hub.admin(project="nowhere") as admin:
        with pytest.raises(NotFound) as caught:
            await admin.get_caller_identity()

    assert caught.value.reason is Reason.PROJECT_NOT_FOUND


async def test_it_never_reveals_another_project(
    hub: Hub, make_project: ProjectFactory, project: Project, make_agent: AgentFactory
) -> None:
    """beta's credentials learn only beta: naming alpha is refused, alpha's agent identity is not beta's."""
    beta = await make_project("beta")
    alpha_agent = await make_agent("planner")
    async with (
        HubClient(hub.address, token=beta.token) as own,
        HubClient(hub.address, token=beta.token, project="alpha") as naming_alpha,
        HubClient(
            hub.address, token=beta.token, agent_id=alpha_agent.agent_id, agent_key=alpha_agent.agent_key
        ) as borrowing,
    ):
        answer = await own.get_caller_identity()
        with pytest.raises(PermissionDenied) as named:
            await naming_alpha.get_caller_identity()
        with pytest.raises(Unauthenticated) as borrowed:
            await borrowing.get_caller_identity()

    assert facts(answer) == (PROJECT, "beta", "", "", "")
    assert named.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert borrowed.value.reason is Reason.INVALID_AGENT_IDENTITY
    assert "planner" not in named.value.message + borrowed.value.message


async def test_caller_project_asks_the_hub_once_per_client(
    hub: Hub, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project is cached per client, and asked without the agent identity (a revoked key hides nothing)."""
    planner = await make_agent("planner")
    await planner.unregister_agent()  # its key is revoked: agent calls would be UNAUTHENTICATED now
    calls: list[Any] = []
    real_call = planner._call

    async def counting(method: Any, request: Any, timeout: Any = None, metadata: Any = None) -> Any:
        calls.append(metadata)
        return await real_call(method, request, timeout, metadata)

    monkeypatch.setattr(planner, "_call", counting)

    first = await planner.caller_project()
    second = await planner.caller_project()

    assert (first, second) == ("alpha", "alpha")
    assert len(calls) == 1
    assert all(not key.startswith("x-kxm-agent-") for key, _ in calls[0])


async def test_the_sync_client_has_it_too(hub: Hub, project: Project) -> None:
    """SyncHubClient proxies the RPC (and caller_project) like every other call."""

    def blocking() -> tuple[agent_service_pb2.GetCallerIdentityResponse, str]:
        with SyncHubClient(hub.address, token=project.token) as client:
            return client.get_caller_identity(), client.caller_project()

    # On a thread: the hub serves on this test's event loop.
    response, project_name = await asyncio.to_thread(blocking)

    assert facts(response) == (PROJECT, "alpha", "", "", "")
    assert project_name == "alpha"


async def test_the_admin_token_is_never_taken_for_a_project(hub: Hub) -> None:
    """The admin token is the admin, even where a project token would be expected."""
    async with HubClient(hub.address, token=ADMIN_TOKEN) as admin:
        response = await admin.get_caller_identity()

    assert response.credential_kind == ADMIN
