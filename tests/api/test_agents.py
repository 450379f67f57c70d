"""AgentService through HubClient against a real hub."""

from __future__ import annotations

import pytest

from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    Reason,
    Unauthenticated,
)
from kxm_grpc.services import agents
from tests.conftest import AgentFactory, Hub, Project, ProjectFactory


async def test_register_then_list_shows_online_agent(make_agent: AgentFactory) -> None:
    """A registered agent lists itself online with a lease of stale-after beyond its last sighting."""
    builder = await make_agent("builder", purpose="builds", model="m1", host="h1")

    listed = await builder.list_agents()

    assert [a.name for a in listed.agents] == ["builder"]
    agent = listed.agents[0]
    assert agent.presence == types_pb2.PRESENCE_ONLINE
    assert agent.project == "alpha"
    assert (agent.purpose, agent.model, agent.host) == ("builds", "m1", "h1")
    lease = agent.lease_expire_time.ToMicroseconds() - agent.last_seen_time.ToMicroseconds()
    assert lease == 30_000_000


async def test_duplicate_live_name_is_refused_case_insensitively(make_agent: AgentFactory) -> None:
    """A live agent's name cannot be registered again, whatever its case."""
    await make_agent("builder")

    with pytest.raises(AlreadyExists) as caught:
        await make_agent("BUILDER")

    assert caught.value.reason is Reason.DUPLICATE_AGENT_NAME
    assert caught.value.metadata["name"] == "builder"


async def test_an_offline_agent_with_a_live_key_resumes_only_with_it(
    hub: Hub, make_agent: AgentFactory, project: Project
) -> None:
    """An agent that went offline without unregistering (crashed, or the hub restarted) keeps its name:
    resuming it (same id, new key) needs its last key."""
    builder = await make_agent("builder")
    first_id, first_key = builder.agent_id, builder.agent_key
    await agents.mark_all_offline(hub.server.store)  # what a restart does to presence
    stranger = HubClient(hub.address, token=project.token)

    with pytest.raises(PermissionDenied) as caught:
        await stranger.register_agent("builder")
    resumed = await stranger.register_agent("Builder", previous_key=first_key or "")

    assert caught.value.reason is Reason.AGENT_RECLAIM_FORBIDDEN
    assert resumed.resumed is True
    assert resumed.agent.id == first_id
    assert resumed.agent.name == "Builder"
    assert resumed.agent_key != first_key
    await stranger.close()


async def test_a_revoked_key_proves_nothing(hub: Hub, make_agent: AgentFactory, project: Project) -> None:
    """After unregister, the revoked key does not resume the agent: registering the name again makes a
    fresh agent (new id) that inherits neither the inbox nor the leases (spec §17.5)."""
    alice = await make_agent("alice")
    builder = await make_agent("builder")
    first_id, first_key = builder.agent_id, builder.agent_key
    lease = (await builder.acquire_lease("repo/main", ttl=30)).lease
    await builder.unregister_agent()
    queued = (await alice.send("builder", "while away", allow_offline=True)).message
    thief = HubClient(hub.address, token=project.token)

    again = await thief.register_agent("builder", previous_key=first_key or "")
    inbox = await thief.list_inbox()
    with pytest.raises(FailedPrecondition) as held:
        await thief.acquire_lease("repo/main", ttl=30)
    revoked = HubClient(hub.address, token=project.token, agent_id=first_id, agent_key=first_key)
    with pytest.raises(Unauthenticated):
        await revoked.heartbeat()
    listed = await alice.list_agents(include_offline=True)

    assert again.resumed is False
    assert again.agent.id != first_id
    assert [m.id for m in inbox.messages] == []
    assert held.value.reason is Reason.LEASE_HELD
    assert held.value.metadata["holderAgentId"] == first_id
    assert lease.holder_agent_id == first_id
    assert queued.to_agent_id == first_id
    # The retired agent no longer holds the name, so the project lists one builder: the new one.
    assert sorted((a.name, a.id) for a in listed.agents) == sorted(
        [("alice", alice.agent_id), ("builder", again.agent.id)]
    )
    await thief.close()
    await revoked.close()


async def test_only_the_admin_resumes_an_unregistered_agent(
    hub: Hub, make_agent: AgentFactory, project: Project
) -> None:
    """The admin token, naming the project, resumes an unregistered agent: same id, its inbox kept."""
    alice = await make_agent("alice")
    builder = await make_agent("builder")
    await builder.unregister_agent()
    queued = (await alice.send("builder", "while away", allow_offline=True)).message
    admin = hub.admin(project="alpha")

    resumed = await admin.register_agent("builder")
    back = HubClient(hub.address, token=project.token, agent_id=resumed.agent.id, agent_key=resumed.agent_key)
    inbox = await back.list_inbox()

    assert resumed.resumed is True
    assert resumed.agent.id == builder.agent_id
    assert [m.id for m in inbox.messages] == [queued.id]
    await admin.close()
    await back.close()


async def test_old_key_stops_working_after_register_and_unregister(hub: Hub, make_agent: AgentFactory) -> None:
    """A key is replaced on every register and revoked on unregister, for good."""
    builder = await make_agent("builder")
    replaced_key = builder.agent_key
    await builder.register_agent("builder", previous_key=replaced_key or "")
    current_key = builder.agent_key
    stale = HubClient(hub.address, token=builder.token, agent_id=builder.agent_id, agent_key=replaced_key)
    with pytest.raises(Unauthenticated) as replaced:
        await stale.heartbeat()
    await builder.unregister_agent()

    with pytest.raises(Unauthenticated) as revoked:
        await builder.heartbeat()

    assert replaced.value.reason is revoked.value.reason is Reason.INVALID_AGENT_IDENTITY
    assert current_key != replaced_key
    await stale.close()


async def test_listing_hides_offline_agents_unless_asked(make_agent: AgentFactory) -> None:
    """Unregistered agents are hidden unless include_offline is set; then they read offline."""
    builder = await make_agent("builder")
    reviewer = await make_agent("reviewer")
    await reviewer.unregister_agent()

    default = await builder.list_agents()
    everything = await builder.list_agents(include_offline=True)

    assert [a.name for a in default.agents] == ["builder"]
    presence = {a.name: a.presence for a in everything.agents}
    assert presence == {"builder": types_pb2.PRESENCE_ONLINE, "reviewer": types_pb2.PRESENCE_OFFLINE}


async def test_projects_never_see_each_other(make_agent: AgentFactory, make_project: ProjectFactory) -> None:
    """Agents of two projects each list only their own project's agents."""
    beta = await make_project("beta")
    alpha_agent = await make_agent("same-name")
    beta_agent = await make_agent("same-name", in_project=beta)

    alpha_names = [(a.project, a.id) for a in (await alpha_agent.list_agents(include_offline=True)).agents]
    beta_names = [(a.project, a.id) for a in (await beta_agent.list_agents(include_offline=True)).agents]

    assert alpha_names == [("alpha", alpha_agent.agent_id)]
    assert beta_names == [("beta", beta_agent.agent_id)]


async def test_agent_identity_with_another_projects_token_is_refused(
    hub: Hub, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    """An agent's id and key presented with another project's token do not authenticate."""
    beta = await make_project("beta")
    builder = await make_agent("builder")
    impostor = HubClient(hub.address, token=beta.token, agent_id=builder.agent_id, agent_key=builder.agent_key)

    with pytest.raises(Unauthenticated) as caught:
        await impostor.heartbeat()

    assert caught.value.reason is Reason.INVALID_AGENT_IDENTITY
    await impostor.close()


async def test_pagination_walks_every_agent_once(make_agent: AgentFactory) -> None:
    """Pages of two cover all five agents in id order, and the last page has no token."""
    clients = [await make_agent(f"agent-{i}") for i in range(5)]
    seen: list[str] = []
    token = ""

    while True:
        page = await clients[0].list_agents(page_size=2, page_token=token)
        seen.extend(a.id for a in page.agents)
        token = page.next_page_token
        if not token:
            break

    assert seen == sorted(c.agent_id or "" for c in clients)


async def test_page_token_from_another_query_is_refused(make_agent: AgentFactory) -> None:
    """A page token only continues the query that issued it."""
    client = await make_agent("a")
    await make_agent("b")
    token = (await client.list_agents(page_size=1)).next_page_token

    with pytest.raises(InvalidArgument) as caught:
        await client.list_agents(page_size=1, page_token=token, include_offline=True)

    assert caught.value.reason is Reason.INVALID_PAGE_TOKEN


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 65}, "name"),
        ({"name": "ok", "purpose": "p" * 257}, "purpose"),
        ({"name": "ok", "model": "m" * 129}, "model"),
        ({"name": "ok", "host": "h" * 65}, "host"),
    ],
)
async def test_bad_registration_names_the_field_and_writes_nothing(
    hub: Hub, project: Project, fields: dict[str, str], field: str
) -> None:
    """Every invalid registration field is INVALID_ARGUMENT naming it; no agent is stored."""
    client = HubClient(hub.address, token=project.token)
    fields = dict(fields)  # the parameter is shared by every backend's run of this test
    name = fields.pop("name")

    with pytest.raises(InvalidArgument) as caught:
        await client.register_agent(name, **fields)

    assert caught.value.field_violations[0].field == field
    assert caught.value.reason is Reason.PROTOCOL_ERROR
    admin = hub.admin(project="alpha")
    assert len((await admin.list_agents(include_offline=True)).agents) == 0
    await client.close()
    await admin.close()


async def test_stale_then_swept_agent_goes_offline(clocked_hub: tuple[Hub, ManualClock], tmp_path: object) -> None:
    """A silent agent reads stale once its lease passes, and offline after the sweep."""
    hub, clock = clocked_hub
    admin = hub.admin()
    token = (await admin.create_project("alpha")).project_token
    watcher = HubClient(hub.address, token=token)
    silent = HubClient(hub.address, token=token)
    await silent.register_agent("silent")
    await watcher.register_agent("watcher")

    clock.advance(31)
    await watcher.heartbeat()
    before_sweep = {a.name: a.presence for a in (await watcher.list_agents()).agents}
    from kxm_grpc.services.agents import sweep_stale_agents

    await sweep_stale_agents(hub.server.store, now=clock.now(), stale_after=30_000_000)
    after_sweep = {a.name: a.presence for a in (await watcher.list_agents(include_offline=True)).agents}

    assert before_sweep["silent"] == types_pb2.PRESENCE_STALE
    assert after_sweep["silent"] == types_pb2.PRESENCE_OFFLINE
    assert after_sweep["watcher"] == types_pb2.PRESENCE_ONLINE
    for client in (admin, watcher, silent):
        await client.close()


async def test_names_compare_as_javascript_lowercases_and_trims(make_agent: AgentFactory) -> None:
    """``Straße`` and ``STRASSE`` are two names (toLowerCase keeps ß; casefold made them one), a BOM at
    the edge is trimmed away, and U+001C is part of a name (JavaScript's trim keeps it)."""
    street = await make_agent("Straße")
    shouting = await make_agent("STRASSE")
    bom = await make_agent("\ufeffbuilder\ufeff")
    separator = await make_agent("builder\x1c")

    with pytest.raises(AlreadyExists) as caught:
        await make_agent("strasse")
    sent = (await street.send("straSSe", "to STRASSE")).message

    assert street.agent_id != shouting.agent_id
    assert caught.value.metadata["name"] == "STRASSE"
    assert sent.to_agent_id == shouting.agent_id
    listed = {a.id: a.name for a in (await bom.list_agents()).agents}
    assert listed[bom.agent_id] == "builder"
    assert listed[separator.agent_id] == "builder\x1c"
