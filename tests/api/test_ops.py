"""OpsService.GetOpsSnapshot over a real hub: a project's agents, open messages, live leases and
runtimes as an operator sees them, capped and counted, never a message's content; refused to every
credential that is not an operator's, and for a project that is missing, malformed or unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.errors import InvalidArgument, NotFound, PermissionDenied, Reason
from kxm_grpc.services import ops
from kxm_grpc.v1 import types_pb2
from tests.api.test_runtimes import sync_event
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project, ProjectFactory
from tests.test_cli import kxm
from tests.workflows import define, start_run

SECRET_CONTENT = "the content no operator view may carry"


async def test_a_snapshot_shows_the_project_as_it_is(
    hub: Hub, project: Project, make_project: ProjectFactory, make_agent: AgentFactory
) -> None:
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    carol = await make_agent("carol")
    await carol.agents.unregister()  # offline: listed after the online ones
    other = await make_project("beta")
    await make_agent("mallory", in_project=other)
    sent = [await alice.messages.send("bob", f"{SECRET_CONTENT} {n}", correlation_id=f"c{n}") for n in range(20)]
    answered = sent[0].message.id
    await bob.messages.reply(answered, "a reply no operator view may carry either")
    await alice.leases.acquire("deploy", ttl=60)
    async with (
        HubClient(hub.address, token=ADMIN_TOKEN) as admin,
        HubClient(hub.address, token=ADMIN_TOKEN, project="alpha") as naming,
    ):
        await naming.runtimes.register("rtm_builder01", host="builder")
        seen = await admin.ops.get_snapshot(project="alpha")
        named = await naming.ops.get_snapshot()

    assert seen.project == "alpha" and seen.snapshot_time.seconds > 0
    assert [(agent.name, agent.presence) for agent in seen.agents] == [
        ("alice", types_pb2.PRESENCE_ONLINE),
        ("bob", types_pb2.PRESENCE_ONLINE),
        ("carol", types_pb2.PRESENCE_OFFLINE),
    ]
    assert seen.agent_total == 3
    open_ids = [message.id for message in seen.open_messages]
    assert seen.open_message_total == 19 and len(open_ids) == ops.MAX_OPEN_MESSAGES
    assert open_ids == [s.message.id for s in reversed(sent[1:])][: ops.MAX_OPEN_MESSAGES], "newest first"
    first = seen.open_messages[0]
    assert (first.from_agent_name, first.to_agent_name, first.correlation_id) == ("alice", "bob", "c19")
    assert first.state == types_pb2.MESSAGE_STATE_QUEUED and first.expire_time.seconds > first.create_time.seconds
    assert [(lease.name, lease.holder_agent_name, lease.live) for lease in seen.leases] == [("deploy", "alice", True)]
    assert seen.lease_total == 1 and seen.leases[0].fencing_token >= 1
    assert [(runtime.id, runtime.host) for runtime in seen.runtimes] == [("rtm_builder01", "builder")]
    assert seen.runtime_total == 1
    assert SECRET_CONTENT.encode() not in seen.SerializeToString()
    assert b"no operator view" not in seen.SerializeToString()
    assert named.agent_total == 3 and named.open_message_total == 19


async def test_agents_online_on_the_hub_clock_come_first_then_by_name(clocked_hub: tuple[Hub, ManualClock]) -> None:
    hub, clock = clocked_hub
    async with HubClient(hub.address, token=ADMIN_TOKEN) as admin:
        token = (await admin.admin.create_project("alpha")).project_token
        clients = [HubClient(hub.address, token=token) for _ in range(3)]
        for client, name in zip(clients, ("zed", "amy", "bea"), strict=True):
            await client.agents.register(name)
        clock.advance(31)  # past the 30 s presence window: all three stale
        await clients[0].agents.heartbeat()  # zed renews
        seen = await admin.ops.get_snapshot(project="alpha")
        for client in clients:
            await client.close()
    # amy and bea are stale, or offline if a sweep ran since the clock moved: either way not online.
    assert [agent.name for agent in seen.agents] == ["zed", "amy", "bea"]
    assert [agent.presence == types_pb2.PRESENCE_ONLINE for agent in seen.agents] == [True, False, False]
    assert seen.snapshot_time.ToMicroseconds() == clock.now()


async def test_only_an_operator_may_look(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    agent = await make_agent("alice")
    async with HubClient(hub.address, token=project.token) as project_token:
        with pytest.raises(PermissionDenied) as by_token:
            await project_token.ops.get_snapshot(project="alpha")
    with pytest.raises(PermissionDenied) as by_agent:
        await agent.ops.get_snapshot(project="alpha")
    async with HubClient(hub.address, token=ADMIN_TOKEN, project="alpha") as naming:
        key = (await naming.runtimes.register("rtm_watcher01")).runtime_key
    async with HubClient(hub.address, token=key) as runtime:
        with pytest.raises(PermissionDenied) as by_runtime:
            await runtime.ops.get_snapshot(project="alpha")
    assert by_runtime.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert by_token.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert by_agent.value.reason is Reason.CREDENTIAL_KIND_DENIED


async def test_a_project_missing_malformed_unknown_or_contradicted_is_refused(hub: Hub, project: Project) -> None:
    async with (
        HubClient(hub.address, token=ADMIN_TOKEN) as admin,
        HubClient(hub.address, token=ADMIN_TOKEN, project="alpha") as naming,
    ):
        with pytest.raises(InvalidArgument) as missing:
            await admin.ops.get_snapshot()
        with pytest.raises(InvalidArgument) as malformed:
            await admin.ops.get_snapshot(project="no spaces allowed")
        with pytest.raises(NotFound) as unknown:
            await admin.ops.get_snapshot(project="nowhere")
        with pytest.raises(InvalidArgument) as contradicted:
            await naming.ops.get_snapshot(project="beta")
        trimmed = await admin.ops.get_snapshot(project=" alpha ")
        agreeing = await naming.ops.get_snapshot(project="alpha")
        with pytest.raises(InvalidArgument) as shared:
            await admin.ops.get_snapshot(project="_shared")
    assert trimmed.project == "alpha" and agreeing.project == "alpha"
    assert [v.field for v in shared.value.field_violations] == ["project"]
    for refused in (missing, malformed, contradicted):
        assert [v.field for v in refused.value.field_violations] == ["project"]
        assert refused.value.reason is Reason.PROTOCOL_ERROR
    assert unknown.value.reason is Reason.PROJECT_NOT_FOUND
    assert unknown.value.metadata == {"project": "nowhere"}


async def test_kxm_ops_snapshot_prints_it_as_json_and_as_text(
    hub: Hub, project: Project, make_agent: AgentFactory, tmp_path: Path
) -> None:
    alice = await make_agent("alice")
    await make_agent("bob")
    await alice.messages.send("bob", SECRET_CONTENT)
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    code, as_json, err = await kxm("ops", "snapshot", "--project", "alpha", "--json", cwd=tmp_path, env=env)
    assert code == 0, err
    text_code, as_text, _ = await kxm("ops", "snapshot", "--project", "alpha", cwd=tmp_path, env=env)
    refused, _, said = await kxm("ops", "snapshot", "--project", "nowhere", cwd=tmp_path, env=env)

    seen = json.loads(as_json)
    assert [agent["name"] for agent in seen["agents"]] == ["alice", "bob"] and seen["openMessageTotal"] == 1
    assert SECRET_CONTENT not in as_json and SECRET_CONTENT not in as_text
    assert text_code == 0 and "agents (2 of 2):" in as_text and "alice -> bob\tqueued\tsent " in as_text
    assert refused != 0 and "PROJECT_NOT_FOUND" in said


async def test_a_snapshot_shows_each_runtimes_sync_runs_with_their_cursors_and_gaps(hub: Hub, project: Project) -> None:
    async with HubClient(hub.address, token=project.token) as laptop, hub.admin() as admin:
        await laptop.runtimes.register("rtm_laptop000001", host="laptop", adopt=True)
        events = [sync_event(1), sync_event(2), sync_event(1, run_id="run_000000000002")]
        events.append(sync_event(3, run_id="run_000000000002"))  # 2 is missing: a gap
        await laptop.runtimes.push_sync_events(events)
        seen = await admin.ops.get_snapshot(project="alpha")
    (home,) = seen.runtime_runs
    assert (home.runtime_id, home.run_total) == ("rtm_laptop000001", 2)
    assert [(r.run_id, r.cursor, r.last_sequence, r.pending_gap) for r in home.runs] == [
        ("run_000000000001", 2, 2, False),
        ("run_000000000002", 1, 3, True),
    ]


async def test_a_snapshot_shows_the_newest_plans_on_one_line_and_cut_short(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    coordinator = await make_agent("coordinator")
    run = await start_run(hub, define())
    long_plan = "Reproduce first,\n   then   fix.  " + "x" * 200
    await coordinator.workflows.journal.record(run.id, "plan", long_plan, area="workflow", stage_id="review")
    await coordinator.workflows.journal.record(run.id, "lesson", "not a plan", area="workflow", evidence="log.txt")
    async with hub.admin() as admin:
        seen = await admin.ops.get_snapshot(project="alpha")
    (plan,) = seen.plans
    assert plan.run_id == run.id and plan.stage_id == "review" and len(plan.summary) == 120
    assert plan.summary.startswith("Reproduce first, then fix. xxx") and plan.summary.endswith("…")
