"""Replicas on one PostgreSQL database behave as one hub: real processes, real clients, kill -9 and SIGSTOP.

Every replica here runs with ``--replica-ttl 1`` (heartbeats every 0.2 s; a replica silent for a
second is gone and its sweeper role passes on) and ``--stale-after 2``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import Reason, ResourceExhausted, Unauthenticated
from kxm_grpc.store.tables import raw_connection
from kxm_grpc.v1 import MessageState, Presence
from tests.harness import eventually
from tests.replicas.conftest import ADMIN_TOKEN, Cluster

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(180)]


async def project_token(address: str, name: str = "alpha") -> str:
    admin = HubClient(address, token=ADMIN_TOKEN)
    try:
        return str((await admin.admin.create_project(name)).project_token)
    finally:
        await admin.close()


async def agent(address: str, token: str, name: str) -> HubClient:
    client = HubClient(address, token=token)
    await client.agents.register(name)
    return client


async def test_a_message_sent_on_one_replica_reaches_a_stream_and_a_wait_on_another(cluster: Cluster) -> None:
    """alice on replica 1 sends; bob streaming from replica 2 gets it; his reply through replica 2 wakes
    alice's WaitMessage on replica 1 at once."""
    one, two = cluster.start(2)
    token = await project_token(one.address)
    alice = await agent(one.address, token, "alice")
    bob = await agent(two.address, token, "bob")
    stream = bob.messages.subscribe(auto_ack=True)
    try:
        first = await anext(stream)
        assert first.HasField("ready")

        sent = await alice.messages.send("bob", "ping")
        received = await asyncio.wait_for(anext(stream), 10)
        waiting = asyncio.create_task(alice.messages.wait(sent.message.id, wait=10))
        await asyncio.sleep(0.3)  # alice is waiting on replica 1 when the reply lands on replica 2
        started = time.monotonic()
        await bob.messages.reply(received.message.id, "pong")
        answered = await waiting

        assert received.message.content == "ping"
        assert answered.message.state == MessageState.MESSAGE_STATE_REPLIED
        assert answered.message.reply.content == "pong"
        assert time.monotonic() - started < 5  # woken by the notification, not by the end of its wait
    finally:
        await stream.aclose()
        await alice.close()
        await bob.close()


async def test_an_ops_watch_on_one_replica_shows_the_changes_made_on_another(cluster: Cluster) -> None:
    """An operator watching through replica 1 sees an agent register and a message sent through replica 2,
    woken by the other replica's notification: before the watch's own re-read, 5 s after its first view."""
    one, two = cluster.start(2)
    token = await project_token(one.address)
    admin = HubClient(one.address, token=ADMIN_TOKEN)
    watch = admin.ops.watch(project="alpha")
    alice = await agent(two.address, token, "alice")
    try:
        await asyncio.wait_for(anext(watch), 10)
        started = time.monotonic()  # the feed's first read was just before: its re-read is at +5 s
        bob = await agent(two.address, token, "bob")
        await bob.messages.send("alice", "ping")

        async def shown() -> float:
            async for update in watch:
                if update.snapshot.open_message_total == 1 and update.snapshot.agent_total == 2:
                    return time.monotonic() - started
            raise AssertionError("the watch ended")

        assert await asyncio.wait_for(shown(), 10) < 4.5, "shown by the 5 s re-read, not by the notification"
        await bob.close()
    finally:
        await watch.aclose()
        await alice.close()
        await admin.close()


async def test_leases_are_fenced_across_three_replicas(cluster: Cluster) -> None:
    """8 agents over 3 replicas contend for 2 names: never two holders at once, and each name's fencing
    tokens strictly increase in the order the grants were made."""
    replicas = cluster.start(3)
    token = await project_token(replicas[0].address)
    clients = [await agent(replicas[i % 3].address, token, f"worker{i}") for i in range(8)]
    holding: dict[str, int] = {"a": 0, "b": 0}
    grants: dict[str, list[tuple[int, int]]] = {"a": [], "b": []}
    overlaps = 0

    async def work(client: HubClient, index: int) -> None:
        nonlocal overlaps
        for round_ in range(6):
            name = "ab"[(index + round_) % 2]
            acquired = await client.leases.acquire(name, ttl=30, wait=30)
            lease = acquired.lease
            holding[name] += 1
            overlaps += holding[name] > 1
            grants[name].append((lease.acquire_time.ToMicroseconds(), lease.fencing_token))
            await asyncio.sleep(0.01)
            holding[name] -= 1
            await client.leases.release(name, lease.fencing_token)

    try:
        await asyncio.gather(*(work(c, i) for i, c in enumerate(clients)))
    finally:
        for client in clients:
            await client.close()

    assert overlaps == 0
    for name, made in grants.items():
        assert len(made) == 24
        by_time = [token for _, token in sorted(made)]
        assert by_time == sorted(by_time) and len(set(by_time)) == 24, name


async def test_a_stream_resumes_on_another_replica_after_kill_9_with_no_gap_and_no_duplicate(cluster: Cluster) -> None:
    """bob's client knows both replicas and streams from the first; it is killed (-9) while alice sends
    through the second: bob's iterator resumes on the second by cursor and sees every message once."""
    one, two = cluster.start(2)
    token = await project_token(one.address)
    alice = await agent(two.address, token, "alice")
    bob = HubClient(cluster.addresses(one, two), token=token)
    await bob.agents.register("bob")
    contents: list[str] = []
    seqs: list[int] = []

    async def consume() -> None:
        async for event in bob.messages.subscribe(auto_ack=True, initial_backoff=0.05, max_backoff=0.3):
            if event.HasField("message"):
                contents.append(event.message.content)
                seqs.append(event.seq)

    consumer = asyncio.create_task(consume())
    try:
        for i in range(40):
            await alice.messages.send("bob", f"m{i}", allow_offline=True)
            if i == 10:
                one.kill()
            await asyncio.sleep(0.02)

        async def all_in() -> bool:
            return len(contents) >= 40

        await eventually(all_in, within=30)
        await asyncio.sleep(0.5)  # nothing more may come

        assert contents == [f"m{i}" for i in range(40)]
        assert seqs == sorted(set(seqs))
    finally:
        consumer.cancel()
        await asyncio.gather(consumer, return_exceptions=True)
        await alice.close()
        await bob.close()


@pytest.mark.parametrize("how", ["killed", "paused"])
async def test_the_sweeps_and_timers_go_on_when_the_sweeping_replica_is_killed_or_paused(
    cluster: Cluster, how: str
) -> None:
    """The sweeper replica is killed (-9) or paused (SIGSTOP): within a replica ttl another takes the
    role, and a message's expiry and a silent agent's presence sweep still happen on time."""
    cluster.start(2)

    async def a_sweeper() -> bool:
        return cluster.sweeper() is not None

    await eventually(a_sweeper, within=15)
    sweeper = cluster.sweeper()
    assert sweeper is not None
    other = next(r for r in cluster.replicas if r is not sweeper)
    token = await project_token(other.address)
    alice = await agent(other.address, token, "alice")
    quiet = await agent(other.address, token, "quiet")
    await quiet.close()  # registered, then silent: its presence lapses after --stale-after 2
    bob = await agent(other.address, token, "bob")
    await bob.close()
    sent = await alice.messages.send("bob", "expires", ttl=1.5, allow_offline=True)
    try:
        if how == "killed":
            sweeper.kill()
        else:
            os.kill(sweeper.pid, signal.SIGSTOP)

        async def expired() -> bool:
            # As stored, not as read: a read applies expiry itself, only the timer stores it.
            with raw_connection(cluster.database) as conn:
                row = conn.execute("SELECT state FROM messages WHERE id = ?", (sent.message.id,)).fetchone()
            return bool(row[0] == "expired")

        async def quiet_offline() -> bool:
            listed = await alice.agents.list(include_offline=True)
            return any(a.name == "quiet" and a.presence == Presence.PRESENCE_OFFLINE for a in listed.agents)

        await eventually(expired, within=15)
        await eventually(quiet_offline, within=15)
        assert cluster.sweeper() is other
    finally:
        if how == "paused":
            os.kill(sweeper.pid, signal.SIGCONT)
        await alice.close()


async def test_an_idempotent_send_retried_on_another_replica_returns_the_original(cluster: Cluster) -> None:
    """The same idempotency key through a second replica returns the first send's message."""
    one, two = cluster.start(2)
    token = await project_token(one.address)
    alice_one = await agent(one.address, token, "alice")
    alice_two = HubClient(two.address, token=token, agent_id=alice_one.agent_id, agent_key=alice_one.agent_key)
    bob = await agent(two.address, token, "bob")
    try:
        first = await alice_one.messages.send("bob", "once", idempotency_key="k1")
        again = await alice_two.messages.send("bob", "once", idempotency_key="k1")
        inbox = await bob.messages.list_inbox()

        assert again.message.id == first.message.id
        assert [m.content for m in inbox.messages] == ["once"]
    finally:
        for client in (alice_one, alice_two, bob):
            await client.close()


async def test_the_stream_cap_and_credential_revocation_hold_across_replicas(cluster: Cluster) -> None:
    """With one stream allowed per agent, bob's second stream on the other replica is refused; a project
    token rotated through one replica is refused by the other from the next call."""
    one, two = cluster.start(2, "--max-streams-per-agent", "1")
    token = await project_token(one.address)
    bob = await agent(one.address, token, "bob")
    bob_two = HubClient(two.address, token=token, agent_id=bob.agent_id, agent_key=bob.agent_key)
    stream = bob.messages.subscribe()
    try:
        assert (await anext(stream)).HasField("ready")
        second = bob_two.messages.subscribe(reconnect=False)
        with pytest.raises(ResourceExhausted) as caught:
            await anext(second)
        assert caught.value.reason is Reason.STREAM_LIMIT_REACHED

        reader = HubClient(two.address, token=token)
        await reader.agents.list()  # authenticated (and cached) on replica 2
        admin = HubClient(one.address, token=ADMIN_TOKEN)
        await admin.admin.rotate_project_token("alpha")
        with pytest.raises(Unauthenticated):
            await reader.agents.list()
        await admin.close()
        await reader.close()
    finally:
        await stream.aclose()
        await bob.close()
        await bob_two.close()


async def test_one_replica_dying_changes_no_lease_but_a_whole_cluster_restart_extends_them(cluster: Cluster) -> None:
    """Decision 33 across replicas: a replica killed and started again while another runs leaves every
    lease's expiry as it was (the database never stopped); when every replica was down, a start pushes
    live leases back by the downtime."""
    one, two = cluster.start(2)
    token = await project_token(one.address)
    holder = await agent(two.address, token, "holder")
    granted = (await holder.leases.acquire("job", ttl=60)).lease
    await holder.close()

    one.kill()
    cluster.start(1)

    async def expiry() -> int:
        reader = HubClient(cluster.replicas[-1].address, token=token)
        try:
            return int((await reader.leases.get("job")).lease.expire_time.ToMicroseconds())
        finally:
            await reader.close()

    assert await expiry() == granted.expire_time.ToMicroseconds()

    for replica in cluster.replicas:
        replica.kill()
    await asyncio.sleep(2.5)  # the cluster is down: every replica's heartbeat lapses (ttl 1 s)
    cluster.start(1)

    extended = await expiry()
    assert extended - granted.expire_time.ToMicroseconds() >= 2_000_000


async def test_a_restarted_replica_rejoins_without_marking_the_others_agents_offline(cluster: Cluster) -> None:
    """A replica started while another serves is not the cluster's first: agents streaming on the other
    stay online."""
    one, _ = cluster.start(2)
    token = await project_token(one.address)
    bob = await agent(one.address, token, "bob")
    stream = bob.messages.subscribe()
    try:
        assert (await anext(stream)).HasField("ready")
        cluster.start(1)
        listed = await bob.agents.list(include_offline=True)
        assert [a.presence for a in listed.agents if a.name == "bob"] == [Presence.PRESENCE_ONLINE]
    finally:
        await stream.aclose()
        await bob.close()


async def test_a_lone_replica_killed_and_restarted_at_once_begins_the_cluster_again(cluster: Cluster) -> None:
    """Its dead row has not lapsed yet, but its heartbeat no longer moves: the new process is the
    cluster's first, so agents are marked offline as after any hub restart."""
    (one,) = cluster.start(1)
    token = await project_token(one.address)
    bob = await agent(one.address, token, "bob")
    await bob.close()
    one.kill()
    cluster.start(1)  # within the ttl of the killed one's last heartbeat
    reader = HubClient(cluster.replicas[-1].address, token=token)
    try:
        listed = await reader.agents.list(include_offline=True)
        assert [a.presence for a in listed.agents if a.name == "bob"] == [Presence.PRESENCE_OFFLINE]
    finally:
        await reader.close()


async def test_streams_cancelled_while_opening_leave_no_row_behind(cluster: Cluster) -> None:
    """Subscribes cancelled at every point of their opening leave no stream counted against the cap."""
    (one,) = cluster.start(1, "--max-streams-per-agent", "2")
    token = await project_token(one.address)
    bob = await agent(one.address, token, "bob")
    try:
        for delay in [i * 0.002 for i in range(30)]:
            stream = bob.messages.subscribe(reconnect=False)
            opening = asyncio.ensure_future(anext(stream))
            await asyncio.sleep(delay)
            opening.cancel()
            await asyncio.gather(opening, return_exceptions=True)
            await stream.aclose()

        async def none_left() -> bool:
            with raw_connection(cluster.database) as conn:
                return int(conn.execute("SELECT COUNT(*) FROM streams").fetchone()[0]) == 0

        await eventually(none_left, within=15)
        stream = bob.messages.subscribe(reconnect=False)
        assert (await anext(stream)).HasField("ready")  # the cap is not used up
        await stream.aclose()
    finally:
        await bob.close()
