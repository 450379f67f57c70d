"""The namespaced client against a real hub: one sub-client per service area, async and blocking.

``hub.agents``, ``hub.messages``, ``hub.leases``, ``hub.runtimes`` and ``hub.admin`` share the
parent's channel, credentials, default deadline and error mapping; ``wait=`` is how long the hub
waits, ``timeout=`` the call's deadline. None of these calls reaches a deprecated flat name: the
marker below turns such a warning back into an error.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc import AlreadyExists, FailedPrecondition, InvalidArgument, PermissionDenied, Reason, Unauthenticated
from kxm_grpc.client import HubClient, SyncHubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.services import agents
from kxm_grpc.v1 import CredentialKind, FanoutStatus, MessageState, SubscribeResponse, SyncOutcome
from tests.api.test_runtimes import sync_event
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project

pytestmark = pytest.mark.filterwarnings("error::DeprecationWarning")

REPLIED = MessageState.MESSAGE_STATE_REPLIED


async def _reply_to_next(agent: HubClient, prefix: str = "re: ") -> str:
    """Wait on the agent's stream for one request and reply to it; return its id."""
    async for event in agent.messages.subscribe(reconnect=False):
        if event.HasField("message"):
            await agent.messages.reply(event.message.id, prefix + event.message.content)
            return event.message.id
    raise AssertionError("the stream ended")


async def test_agents_area(hub: Hub, project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """register (remember=True resumes), heartbeat, list, get_caller_identity, caller_project, unregister."""
    monkeypatch.setenv("KXM_DATA_DIR", str(tmp_path))
    async with HubClient(hub.address, token=project.token) as planner:
        registered = await planner.agents.register("planner", purpose="plans", remember=True)
        adopted = planner.agent_id
        beat = await planner.agents.heartbeat()
        listed = await planner.agents.list()
        identity = await planner.agents.get_caller_identity()
        caller_project = await planner.agents.caller_project()
    async with HubClient(hub.address, token=project.token) as again:
        resumed = await again.agents.register("planner", remember=True)  # with the key saved above
        await again.agents.unregister()
        again.use_agent(None, None)  # its key is revoked: list as the project
        offline = await again.agents.list(include_offline=True)

    assert beat.agent.id == registered.agent.id == adopted
    assert [(a.name, a.purpose) for a in listed.agents] == [("planner", "plans")]
    assert (identity.credential_kind, identity.agent_id) == (CredentialKind.CREDENTIAL_KIND_AGENT, registered.agent.id)
    assert caller_project == "alpha"
    assert [a.name for a in offline.agents] == ["planner"]
    assert (resumed.resumed, resumed.agent.id) == (True, registered.agent.id)


async def test_registering_a_taken_name_again_says_how_to_resume(
    hub: Hub, project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Running a program twice without remember=True is refused its agent's name (live, then offline
    with a live key); the error carries a hint naming remember=True. With remember=True there is none."""
    monkeypatch.setenv("KXM_DATA_DIR", str(tmp_path))
    async with HubClient(hub.address, token=project.token) as first:
        await first.agents.register("planner")
        async with HubClient(hub.address, token=project.token) as second:
            with pytest.raises(AlreadyExists) as live:
                await second.agents.register("planner")
    await agents.mark_all_offline(hub.server.store)  # what a restart does to presence
    async with HubClient(hub.address, token=project.token) as third:
        with pytest.raises(PermissionDenied) as offline:
            await third.agents.register("planner")
        with pytest.raises(PermissionDenied) as remembering:
            await third.agents.register("planner", remember=True)  # no key saved: refused, no hint

    for caught in (live, offline):
        assert any("remember=True" in note for note in getattr(caught.value, "__notes__", []))
    assert (live.value.reason, offline.value.reason) == (Reason.DUPLICATE_AGENT_NAME, Reason.AGENT_RECLAIM_FORBIDDEN)
    assert not getattr(remembering.value, "__notes__", [])


async def test_messages_area(make_agent: AgentFactory) -> None:
    """send, get, list_inbox, subscribe, reply, wait, ack, cancel, fanout, and send(wait=...)."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")

    sent = (await alice.messages.send("bob", "first", ttl=60)).message
    got = (await bob.messages.get(sent.id)).message
    inbox = (await bob.messages.list_inbox()).messages
    events: list[SubscribeResponse] = []
    async for event in bob.messages.subscribe(reconnect=False):
        events.append(event)
        if event.HasField("message"):
            break
    acked = (await bob.messages.ack([sent.id])).messages
    await bob.messages.reply(sent.id, "done")
    waited = await alice.messages.wait(sent.id, wait=5)
    other = (await alice.messages.send("bob", "second")).message
    cancelled = (await alice.messages.cancel(other.id)).message
    pending = await alice.messages.fanout(["bob"], "vote", wait=0)
    replier = asyncio.create_task(_reply_to_next(await make_agent("carol")))
    answered = await alice.messages.send("carol", "quick", wait=10)
    await replier

    assert (got.content, [m.id for m in inbox]) == ("first", [sent.id])
    assert events[0].HasField("ready") and events[-1].message.id == sent.id
    assert (waited.terminal, waited.message.state, waited.message.reply.content) == (True, REPLIED, "done")
    assert [m.id for m in acked] == [sent.id]
    assert cancelled.state == MessageState.MESSAGE_STATE_CANCELLED
    assert [r.status for r in pending.results] == [FanoutStatus.FANOUT_STATUS_PENDING]
    assert (answered.terminal, answered.message.reply.content) == (True, "re: quick")


async def test_fanout_gathers_for_the_wait(make_agent: AgentFactory) -> None:
    """``fanout(wait=...)`` gathers every reply that comes within the wait."""
    alice = await make_agent("alice")
    peers = [await make_agent(name) for name in ("p1", "p2")]
    helpers = [asyncio.create_task(_reply_to_next(p)) for p in peers]

    gathered = await alice.messages.fanout(["p1", "p2"], "ship it?", wait=10)
    await asyncio.gather(*helpers)

    assert [(r.target, r.status) for r in gathered.results] == [
        ("p1", FanoutStatus.FANOUT_STATUS_TERMINAL),
        ("p2", FanoutStatus.FANOUT_STATUS_TERMINAL),
    ]
    assert [r.message.reply.content for r in gathered.results] == ["re: ship it?"] * 2


async def test_wait_is_how_long_and_timeout_is_the_deadline(make_agent: AgentFactory) -> None:
    """A wait that ends is an answer (not terminal, LEASE_HELD), and a call's deadline bounds the hub's wait."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    sent = (await alice.messages.send("bob", "q")).message
    await bob.leases.acquire("deploy", ttl=30)

    started = time.perf_counter()
    unfinished = await alice.messages.wait(sent.id, wait=0.2)
    waited_for = time.perf_counter() - started
    with pytest.raises(FailedPrecondition) as held:
        await alice.leases.acquire("deploy", ttl=30, wait=0.2)
    with pytest.raises(FailedPrecondition) as bounded:
        await alice.leases.acquire("deploy", ttl=30, wait=10, timeout=1.0)
    with pytest.raises(InvalidArgument) as negative:
        await alice.messages.wait(sent.id, wait=-1)

    assert (unfinished.terminal, unfinished.message.id) == (False, sent.id)
    assert waited_for > 0.15
    assert held.value.reason is Reason.LEASE_HELD
    # The hub answers a wait longer than the call's deadline before the deadline passes: an answer
    # (not DEADLINE_EXCEEDED) proves it, whatever the machine's load (no timing assert).
    assert bounded.value.reason is Reason.LEASE_HELD
    assert negative.value.field_violations[0].field == "wait"  # the wire name of the wait (docs/clients.md)


async def test_leases_area(make_agent: AgentFactory) -> None:
    """acquire, renew, get, list, check_fence, release, and hold for the length of a block."""
    alice = await make_agent("alice")

    acquired = (await alice.leases.acquire("branch/main", ttl=30)).lease
    renewed = (await alice.leases.renew("branch/main", acquired.fencing_token, ttl=60)).lease
    current = (await alice.leases.get("branch/main")).lease
    listed = (await alice.leases.list()).leases
    await alice.leases.check_fence("branch/main", acquired.fencing_token)
    await alice.leases.release("branch/main", acquired.fencing_token)
    async with alice.leases.hold("branch/main", ttl=30) as held:
        await alice.leases.check_fence("branch/main", held.fencing_token)

    assert renewed.fencing_token == current.fencing_token == acquired.fencing_token
    assert [lease.name for lease in listed] == ["branch/main"]
    assert held.fencing_token > acquired.fencing_token


async def test_runtimes_area(clocked_hub: tuple[Hub, ManualClock]) -> None:
    """register (adopt=True), heartbeat, list, push_sync_events, list_run_events, reassign_sync_project."""
    hub, _ = clocked_hub
    async with hub.admin() as admin:
        alpha_token = (await admin.admin.create_project("alpha")).project_token
        await admin.admin.create_project("beta")
        async with (
            HubClient(hub.address, token=alpha_token) as laptop,
            HubClient(hub.address, token=alpha_token) as alpha,
        ):
            registered = await laptop.runtimes.register("rtm_laptop000001", host="laptop", adopt=True)
            beat = (await laptop.runtimes.heartbeat(host="laptop-2")).runtime
            listed = (await alpha.runtimes.list()).runtimes
            pushed = await laptop.runtimes.push_sync_events([sync_event(1), sync_event(2)])
            page = await alpha.runtimes.list_run_events("prj_alpha000001", "run_000000000001")
            moved = await admin.runtimes.reassign_sync_project("prj_alpha000001", "beta")

    assert laptop.token == registered.runtime_key
    assert (beat.id, beat.host) == ("rtm_laptop000001", "laptop-2")
    assert [r.id for r in listed] == ["rtm_laptop000001"]
    assert [r.outcome for r in pushed.results] == [SyncOutcome.SYNC_OUTCOME_ACCEPTED] * 2
    assert [e.event.sequence for e in page.events] == [1, 2]
    assert moved.moved_events == 2


async def test_admin_area(hub: Hub) -> None:
    """create_project, list_projects, rotate_project_token (the old token stops working)."""
    async with hub.admin() as admin:
        created = await admin.admin.create_project("gamma")
        listed = (await admin.admin.list_projects()).projects
        rotated = await admin.admin.rotate_project_token("gamma")
    async with HubClient(hub.address, token=created.project_token) as old:
        with pytest.raises(Unauthenticated):
            await old.agents.list()
    async with HubClient(hub.address, token=rotated.project_token) as new:
        agents = await new.agents.list()

    assert [p.name for p in listed] == ["gamma"]
    assert list(agents.agents) == []


async def test_areas_share_the_parents_channel_credentials_and_error_mapping(
    make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One area object per client; every area call goes through the parent's ``_call`` with its
    current credentials, so ``use_agent`` switches them for every area at once."""
    alice = await make_agent("alice")
    await make_agent("bob")
    seen: list[Any] = []
    real_call = alice._call

    async def spying(method: Any, request: Any, timeout: Any = None, metadata: Any = None) -> Any:
        seen.append((type(request).__name__, timeout, dict(metadata or alice.metadata).get("x-kxm-agent-id")))
        return await real_call(method, request, timeout, metadata)

    monkeypatch.setattr(alice, "_call", spying)
    await alice.messages.send("bob", "hi")
    await alice.leases.acquire("x", ttl=30, timeout=3)
    agent_id = alice.agent_id
    alice.use_agent(None, None)
    with pytest.raises(PermissionDenied) as project_only:
        await alice.messages.list_inbox()

    assert alice.messages is alice.messages and alice.leases._hub is alice
    assert seen == [
        ("SendMessageRequest", None, agent_id),
        ("AcquireLeaseRequest", 3, agent_id),
        ("ListInboxRequest", None, None),
    ]
    assert project_only.value.reason is Reason.CREDENTIAL_KIND_DENIED


async def test_the_sync_client_has_the_same_areas(hub: Hub) -> None:
    """SyncHubClient: the same areas and methods, blocking; subscribe is a plain iterator."""

    def blocking() -> dict[str, Any]:
        with SyncHubClient(hub.address, token=ADMIN_TOKEN) as admin:
            token = admin.admin.create_project("delta").project_token
        with SyncHubClient(hub.address, token=token) as alice, SyncHubClient(hub.address, token=token) as bob:
            issued = alice.agents.register("alice")
            bob.agents.register("bob")
            # The credentials a sync user saves after registering are readable, as they were.
            credentials_kept = (alice.agent_key, alice.token, alice.timeout) == (issued.agent_key, token, 15.0)
            bearer_only = all(not key.startswith("x-kxm-agent-") for key, _ in alice.bearer_metadata)
            sent = alice.messages.send("bob", "sync hello").message
            events = bob.messages.subscribe(reconnect=False)
            ready, message = next(events), next(events)
            bob.messages.ack([sent.id])
            bob.messages.reply(message.message.id, "sync reply")
            waited = alice.messages.wait(sent.id, wait=5)
            lease = alice.leases.acquire("sync-lease", ttl=30).lease
            alice.leases.release("sync-lease", lease.fencing_token)
            return {
                "ready": ready.HasField("ready"),
                "message": message.message.id == sent.id,
                "reply": waited.message.reply.content,
                "agents": sorted(a.name for a in alice.agents.list().agents),
                "project": alice.agents.caller_project(),
                "token": lease.fencing_token,
                "runtimes": list(alice.runtimes.list().runtimes),
                "credentials": credentials_kept and bearer_only,
            }

    # On a thread: the hub serves on this test's event loop.
    result = await asyncio.to_thread(blocking)

    assert result == {
        "ready": True,
        "message": True,
        "reply": "sync reply",
        "agents": ["alice", "bob"],
        "project": "delta",
        "token": result["token"],
        "runtimes": [],
        "credentials": True,
    }
    assert result["token"] > 0


async def test_sync_methods_carry_the_async_signatures_and_docs(hub: Hub) -> None:
    """help() and IDEs see the real parameters of ``sync.messages.send`` (not ``*args``)."""

    def describe() -> tuple[list[str], str, bool]:
        with SyncHubClient(hub.address, token="x") as client:
            send = client.messages.send
            return list(inspect.signature(send).parameters), send.__doc__ or "", hasattr(client.leases, "hold")

    parameters, doc, has_hold = await asyncio.to_thread(describe)

    assert parameters[:2] == ["target", "content"] and "wait" in parameters and "timeout" in parameters
    assert doc.startswith("Send a request to another agent")
    assert has_hold is False  # a thread cannot be cancelled when the lease is lost (docs/clients.md)
