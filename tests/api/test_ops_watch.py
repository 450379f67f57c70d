"""OpsService.WatchOps over a real hub: the project's snapshot first, then a new one for each change
whichever service made it, resumable by version, shared by the streams of a project, metadata only;
refused to non-operators and for bad projects; ended for a revoked operator and a stopping hub."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.leases import Lease
from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.errors import InvalidArgument, NotFound, PermissionDenied, Reason, Unauthenticated, Unavailable
from kxm_grpc.services import ops
from kxm_grpc.v1 import ops_service_pb2, types_pb2, workflow_types_pb2
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project
from tests.harness import eventually
from tests.test_cli import kxm
from tests.workflows import define, start_run

SECRET_CONTENT = "the content no operator view may carry"
WAIT = 10.0
"""Seconds a test waits for a change to show (the time it takes is measured in bench/, not asserted)."""

Update = ops_service_pb2.WatchOpsResponse
OFFLINE = types_pb2.PRESENCE_OFFLINE
RUNNING = workflow_types_pb2.WORKFLOW_RUN_STATUS_RUNNING
CANCELLED = workflow_types_pb2.WORKFLOW_RUN_STATUS_CANCELLED


async def until(updates: AsyncIterator[Update], shows: Callable[[Update], bool]) -> Update:
    """The first update that ``shows`` what the test waits for (within ``WAIT`` seconds)."""

    async def first() -> Update:
        async for update in updates:
            if shows(update):
                return update
        raise AssertionError("the watch ended")

    return await asyncio.wait_for(first(), WAIT)


def agent_names(update: Update) -> list[str]:
    return [agent.name for agent in update.snapshot.agents]


async def test_a_watch_sends_the_state_then_each_change_without_any_content(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    alice = await make_agent("alice")
    async with hub.admin() as admin:
        updates = admin.ops.watch(project="alpha")
        first = await until(updates, lambda u: True)
        assert agent_names(first) == ["alice"] and first.version and first.snapshot.project == "alpha"

        bob = await make_agent("bob")
        registered = await until(updates, lambda u: "bob" in agent_names(u))
        assert registered.version != first.version

        sent = await alice.messages.send("bob", SECRET_CONTENT)
        flowing = await until(updates, lambda u: u.snapshot.open_message_total == 1)
        assert [(m.id, m.from_agent_name, m.to_agent_name) for m in flowing.snapshot.open_messages] == [
            (sent.message.id, "alice", "bob")
        ]
        await bob.messages.reply(sent.message.id, "a reply no operator view may carry either")
        await until(updates, lambda u: u.snapshot.open_message_total == 0)

        await alice.leases.acquire("deploy", ttl=60)
        held = await until(updates, lambda u: u.snapshot.lease_total == 1)
        assert [(lease.name, lease.holder_agent_name) for lease in held.snapshot.leases] == [("deploy", "alice")]
        await alice.leases.release("deploy", held.snapshot.leases[0].fencing_token)
        await until(updates, lambda u: u.snapshot.lease_total == 0)

        async with HubClient(hub.address, token=ADMIN_TOKEN, project="alpha") as naming:
            await naming.runtimes.register("rtm_builder01", host="builder")
        await until(updates, lambda u: [r.id for r in u.snapshot.runtimes] == ["rtm_builder01"])

        await bob.agents.unregister()
        gone = await until(updates, lambda u: [(a.name, a.presence) for a in u.snapshot.agents][-1] == ("bob", OFFLINE))
        assert gone.snapshot.agent_total == 2
        await updates.aclose()
    for update in (first, registered, flowing, held, gone):
        assert SECRET_CONTENT.encode() not in update.SerializeToString()
        assert b"no operator view" not in update.SerializeToString()


async def test_a_watch_shows_workflow_runs_start_and_end(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    await make_agent("coordinator")
    async with hub.admin() as admin:
        updates = admin.ops.watch(project="alpha")
        await until(updates, lambda u: True)
        run = await start_run(hub, define())
        started = await until(updates, lambda u: [r.id for r in u.snapshot.runs] == [run.id])
        shown = started.snapshot.runs[0]
        assert (shown.definition_id, shown.status, shown.current_stage_id) == ("fix", RUNNING, "review")
        assert started.snapshot.run_total == 1 and shown.create_time.seconds > 0
        await admin.workflows.cancel_run(run.id, reason="not needed")
        ended = await until(updates, lambda u: u.snapshot.runs[0].status == CANCELLED)
        await updates.aclose()
    assert ended.snapshot.runs[0].update_time.ToMicroseconds() >= shown.update_time.ToMicroseconds()
    assert b"KXM-1" not in ended.SerializeToString(), "a run's payload is not in the view"


async def test_a_resumed_watch_sends_nothing_until_the_state_differs(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    await make_agent("alice")
    async with hub.admin() as admin:
        seen = await until(admin.ops.watch(project="alpha"), lambda u: True)
        resumed = admin.ops.watch(project="alpha", after_version=seen.version)
        pending = asyncio.ensure_future(anext(resumed))
        await asyncio.sleep(0.5)  # the watch is open and has read the unchanged state by now
        assert not pending.done(), "a resumed watch repeated the state it was told was seen"
        await make_agent("bob")
        changed = await asyncio.wait_for(pending, WAIT)
        await resumed.aclose()
        again = await until(admin.ops.watch(project="alpha", after_version="not a version of this hub"), lambda u: True)
    assert agent_names(changed) == ["alice", "bob"] and changed.version != seen.version
    assert again.version == changed.version, "equal states have equal versions"


async def test_the_watches_of_a_project_share_one_reader_that_ends_with_the_last(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    await make_agent("alice")
    assert hub.server.hub is not None
    feeds = hub.server.hub.ops_feeds
    async with hub.admin() as admin:
        watches = [admin.ops.watch(project="alpha") for _ in range(10)]
        for watch in watches:
            await until(watch, lambda u: True)
        assert feeds.watches == 10 and feeds.watched_projects == ["alpha"]
        await make_agent("bob")
        for watch in watches:
            await until(watch, lambda u: "bob" in agent_names(u))
        for watch in watches:
            await watch.aclose()
        await eventually(lambda: feeds.watches == 0)
    assert feeds.watched_projects == []


async def test_only_an_operator_may_watch_a_project_that_exists(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    agent = await make_agent("alice")
    async with HubClient(hub.address, token=project.token) as project_token, hub.admin() as admin:
        with pytest.raises(PermissionDenied) as by_token:
            await until(project_token.ops.watch(project="alpha", reconnect=False), lambda u: True)
        with pytest.raises(NotFound) as unknown:
            await until(admin.ops.watch(project="nowhere", reconnect=False), lambda u: True)
        with pytest.raises(InvalidArgument) as missing:
            await until(admin.ops.watch(reconnect=False), lambda u: True)
        with pytest.raises(InvalidArgument) as too_long:
            await until(admin.ops.watch(project="alpha", after_version="v" * 65, reconnect=False), lambda u: True)
    with pytest.raises(PermissionDenied) as by_agent:
        await until(agent.ops.watch(project="alpha", reconnect=False), lambda u: True)
    assert by_token.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert by_agent.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert unknown.value.reason is Reason.PROJECT_NOT_FOUND
    assert [v.field for v in missing.value.field_violations] == ["project"]
    assert [v.field for v in too_long.value.field_violations] == ["after_version"]


async def test_a_revoked_operator_is_cut_off_at_once(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    async with hub.admin() as admin:
        issued = await admin.admin.create_operator("watcher")
        async with HubClient(hub.address, token=issued.operator_token) as operator:
            updates = operator.ops.watch(project="alpha")
            await until(updates, lambda u: True)
            await admin.admin.revoke_operator("watcher")
            with pytest.raises(Unauthenticated) as revoked:
                await until(updates, lambda u: False)
    assert revoked.value.reason is Reason.INVALID_AUTH


async def test_a_stopping_hub_ends_every_watch_unavailable(hub: Hub, project: Project) -> None:
    async with hub.admin() as admin:
        updates = admin.ops.watch(project="alpha", reconnect=False)
        await until(updates, lambda u: True)
        stopping = asyncio.ensure_future(hub.server.stop(2.0))
        with pytest.raises(Unavailable) as ended:
            await until(updates, lambda u: False)
        await stopping
    assert ended.value.reason is Reason.SHUTTING_DOWN


async def test_kxm_ops_watch_prints_each_view(
    hub: Hub, project: Project, make_agent: AgentFactory, tmp_path: Path
) -> None:
    await make_agent("alice")
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    code, out, err = await kxm("ops", "watch", "--project", "alpha", "--json", "--count", "1", cwd=tmp_path, env=env)
    assert code == 0, err
    seen = json.loads(out.splitlines()[0])
    assert [agent["name"] for agent in seen["snapshot"]["agents"]] == ["alice"] and seen["version"]
    text_code, text, err = await kxm("ops", "watch", "--project", "alpha", "--count", "1", cwd=tmp_path, env=env)
    assert text_code == 0, err
    assert text.startswith(f"version {seen['version']}\nproject alpha at ") and "agents (1 of 1):" in text


def test_the_next_lapse_is_the_first_presence_window_or_lease_to_end() -> None:
    now = 1_000_000_000
    stale_after = 30_000_000

    def agent(name: str, last_seen: int, *, online: bool = True) -> Agent:
        return Agent(
            id=f"agt_{name}", project="alpha", name=name, purpose="", model="", host="",
            online=online, connect_time=0, last_seen_time=last_seen,
        )  # fmt: skip

    def lease(expire: int) -> Lease:
        return Lease(
            project="alpha", name="deploy", fencing_token=1, holder_agent_id="agt_a", holder_agent_name="a",
            acquire_time=0, expire_time=expire,
        )  # fmt: skip

    def seen(agents: list[Agent], leases: list[Lease], runtimes: list[Runtime]) -> ops.OpsSnapshot:
        return ops.OpsSnapshot(
            "alpha", now, ops.Capped(agents, len(agents)), ops.Capped([], 0), ops.Capped(leases, len(leases)),
            ops.Capped(runtimes, len(runtimes)), ops.Capped([], 0), {}, [],
        )  # fmt: skip

    runtime = Runtime(project="alpha", id="rtm_builder01", host="", register_time=0, heartbeat_time=now - 10)
    assert ops.next_lapse(seen([], [], []), stale_after) is None
    assert ops.next_lapse(seen([agent("gone", 0, online=False)], [], []), stale_after) is None
    assert (
        ops.next_lapse(seen([agent("a", now - 5), agent("b", now - 7)], [], []), stale_after) == now - 7 + stale_after
    )
    assert ops.next_lapse(seen([agent("a", now - 5)], [lease(now + 3)], []), stale_after) == now + 3
    assert ops.next_lapse(seen([], [lease(now - 1)], [runtime]), stale_after) == now - 10 + stale_after
