"""B19: commands on agent channels survive hub crashes, applied once, in order (issue 18).

B1's mesh, on channels (``AgentService.OpenChannel``): every agent sends through its
``AgentChannel`` (the Python client: it reconnects with backoff, replays every unanswered command
under its command id, and a send carrying no idempotency key is keyed by its command id), with up
to ``WINDOW`` sends in flight at once; every agent consumes its inbox on a raw channel of its own
(subscribed from the last seq it saw, so a redelivery is seen) and acknowledges each message with an
``ack`` command on that channel. The hub is killed with SIGKILL every U[0.3, 1.5] s (long: U[0.5,
3] s) and restarted at once on the same data directory. Then the inboxes drain and B1's checkers
run (``crash_run``): every send the client saw answered is stored and delivered, nothing
unexpected, no message stored twice or delivered after its acknowledgement was answered OK. On top:

- **applied once**: every send was answered (the client replays until it is) and the database
  holds each command id's message exactly once;
- **in order**: for every sender and recipient, the stored messages' inbox sequences follow the
  order the sender issued them (commands are applied in arrival order, and a replay resends the
  unanswered ones in their first order);
- **watch**: each consuming channel's events are ordered and unique, with no gap after the seq it
  resumed from (``checkers.watch``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from dataclasses import dataclass, field

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import agent_service_pb2 as apb
from kxm_grpc._gen.kxm.v1 import agent_service_pb2_grpc
from kxm_grpc._gen.kxm.v1 import message_service_pb2 as mpb
from kxm_grpc.client.channel import AgentChannel
from kxm_grpc.errors import HubError
from tests.reliability.battery import Battery, tier
from tests.reliability.checkers import Session, watch
from tests.reliability.hubs import CrashHub, kill_loop
from tests.reliability.workload import Agent, Mesh, crash_run, stored_messages

pytestmark = pytest.mark.timeout(900 if tier() == "pr" else 5400)

WINDOW = 4
"""Sends one agent has in flight on its channel at once."""


@dataclass
class ChannelMesh(Mesh):
    """B1's mesh with every send and acknowledgement on channels."""

    outcomes: dict[str, str] = field(default_factory=dict)
    """Each send's command id -> ``ok`` or how the hub refused it."""
    unanswered_acks: set[tuple[str, int]] = field(default_factory=set)
    """(recipient, seq) of acknowledgements whose channel ended before their result came: each may
    have retired its message (Jepsen's :info), which a later session then rightly skips."""

    async def send_all(self, per_agent: int, pace: float, round_: int = 0) -> None:
        """Every agent sends ``per_agent`` messages (content and command id ``agentN-I``) to random
        others through its channel, ``WINDOW`` at a time."""

        async def sender(agent: Agent) -> None:
            channel = AgentChannel(agent.client, initial_backoff=0.05, max_backoff=0.5)
            await channel.open()
            slots = asyncio.Semaphore(WINDOW)
            sends: list[asyncio.Task[None]] = []

            async def send(target: Agent, key: str) -> None:
                try:
                    async with self.history.record("send", agent=agent.name, key=target.name, idem=key) as entry:
                        sent = await channel.send(target.id, key, command_id=key, allow_offline=True)
                        entry.value = sent.message.id
                    self.outcomes[key] = "ok"
                except HubError as error:
                    self.outcomes[key] = f"refused {error.status}"
                finally:
                    slots.release()

            try:
                for index in range(per_agent):
                    target = self.battery.random.choice([a for a in self.agents if a is not agent])
                    await slots.acquire()
                    # Issued in index order: the channel writes its commands in the order they are called.
                    sends.append(asyncio.create_task(send(target, f"{agent.name}-{index}")))
                    await asyncio.sleep(0)  # let the send write its command before the next is issued
                    await asyncio.sleep(self.battery.random.uniform(0, 2 * pace))
                await asyncio.gather(*sends)
            finally:
                await channel.close()

        await asyncio.gather(*(sender(a) for a in self.agents))

    async def consume(self, agent: Agent, stop: asyncio.Event) -> None:
        """Agent's inbox on raw channels until ``stop``: record each session, ack every message on it."""
        stub = agent_service_pb2_grpc.AgentServiceStub(agent.client.channel)
        backoff = 0.05
        while not stop.is_set():
            session = Session(agent.name, resumed_after=agent.last_seq)
            agent.sessions.append(session)
            call = stub.OpenChannel(metadata=agent.client.metadata)
            acks: dict[str, tuple[str, int]] = {}
            """Command id -> (message key, seq) of the acknowledgements this session sent."""
            waiter = asyncio.ensure_future(stop.wait())
            try:
                await call.write(apb.OpenChannelRequest(subscribe=mpb.SubscribeRequest(after_seq=agent.last_seq)))
                stream = aiter(call)
                while True:
                    nxt = asyncio.ensure_future(anext(stream))
                    done, _ = await asyncio.wait({nxt, waiter}, return_when=asyncio.FIRST_COMPLETED)
                    if nxt not in done:
                        nxt.cancel()
                        with contextlib.suppress(BaseException):
                            await nxt
                        return
                    response = nxt.result()
                    if response.HasField("ready"):
                        backoff = 0.05
                    commands = []
                    for event in response.events:
                        if event.HasField("ready"):
                            continue
                        agent.last_seq = max(agent.last_seq, event.seq)
                        if not event.HasField("message"):
                            continue
                        key = event.message.content
                        session.received.append(event.seq)
                        agent.received.add(key)
                        if key in agent.acked_keys:
                            agent.redelivered_after_ack.append(key)
                        command_id = f"ack-{event.message.id}-{len(agent.sessions)}"
                        acks[command_id] = (key, event.seq)
                        commands.append(
                            apb.ChannelCommand(
                                command_id=command_id, ack=mpb.AckMessagesRequest(message_ids=[event.message.id])
                            )
                        )
                    if commands:
                        await call.write(apb.OpenChannelRequest(commands=commands))
                    for result in response.results:
                        key, seq = acks.pop(result.command_id, ("", 0))
                        if key and not result.HasField("error"):
                            agent.acked_keys.add(key)
                            session.acked.append(seq)
            except (StopAsyncIteration, grpc.aio.AioRpcError):
                pass  # unacknowledged, a message comes again on the next session
            finally:
                call.cancel()
                waiter.cancel()
                self.unanswered_acks.update((agent.name, seq) for _, seq in acks.values())
            await asyncio.sleep(self.battery.random.uniform(backoff / 2, backoff))
            backoff = min(1.0, backoff * 2)


@pytest.mark.battery("B19", "channel commands survive hub crashes, applied once and in order")
async def test_channel_commands_survive_hub_kills(battery: Battery) -> None:
    kills = battery.size(pr=25, long=300)
    sends = battery.size(pr=60, long=300)
    interval = battery.size(pr=(0.3, 1.5), long=(0.5, 3.0))
    hub = CrashHub(battery.dir / "data")

    async def load(mesh: ChannelMesh) -> None:
        expected = kills * (sum(interval) / 2 + 0.4)
        sending = asyncio.create_task(mesh.send_all(sends, pace=expected / sends))
        await kill_loop(hub, battery, kills=kills, interval=interval, seconds=battery.size(pr=240.0, long=2400.0))
        await sending

    agents = battery.size(pr=8, long=32)
    mesh = await crash_run(battery, hub, agents=agents, load=load, mesh_type=ChannelMesh)
    assert isinstance(mesh, ChannelMesh)
    battery.at_least("hub kills", hub.kills, kills)

    stored = stored_messages(hub.db_path)
    battery.invariant(
        "every send answered OK (replayed until answered)",
        {key: outcome for key, outcome in mesh.outcomes.items() if outcome != "ok"},
        {},
    )
    battery.invariant("sends issued", len(mesh.outcomes), agents * sends)
    counts: dict[str, int] = defaultdict(int)
    for _, content, _, _ in stored:
        counts[content] += 1
    battery.invariant("each command id stored once", {k: n for k, n in counts.items() if n != 1}, {})
    battery.invariant("every command stored", set(mesh.outcomes) - set(counts), set())

    names = {a.id: a.name for a in mesh.agents}
    by_pair: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for to, content, seq, _ in stored:
        sender, _, index = content.rpartition("-")
        by_pair[(sender, names[to])].append((seq, int(index)))
    reordered = {
        f"{sender}->{recipient}": [index for _, index in sorted(pairs)]
        for (sender, recipient), pairs in by_pair.items()
        if [index for _, index in sorted(pairs)] != sorted(index for _, index in pairs)
    }
    battery.invariant("per sender and recipient, stored in the order sent", reordered, {})

    inboxes: dict[str, list[int]] = defaultdict(list)
    for to, _, seq, _ in stored:
        inboxes[names[to]].append(seq)
    verdict = watch([s for a in mesh.agents for s in a.sessions], inboxes)
    battery.figure("channel_sessions", sum(len(a.sessions) for a in mesh.agents))
    battery.invariant("watch: out of order within a session", verdict.out_of_order, [])
    battery.invariant("watch: duplicates within a session", verdict.duplicates_in_session, 0)
    battery.figure("gaps_excused_by_unanswered_acks", sum(1 for gap in verdict.gaps if gap in mesh.unanswered_acks))
    battery.invariant("watch: gaps", [gap for gap in verdict.gaps if gap not in mesh.unanswered_acks], [])
    battery.invariant("watch: stored and never delivered", verdict.never_delivered, [])
