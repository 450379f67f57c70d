"""The crash batteries' load: agents sending to each other through a hub that is being killed.

``Mesh`` registers a project's agents on a ``CrashHub`` (each a ``HubClient`` whose channel
reconnects to the restarted hub on the same port). Each agent sends to random others, every send
carrying its own idempotency key (also its content) and retried with that key after an
indeterminate outcome, with jittered backoff capped at 1 s (``retry``); each agent also consumes
its inbox on the raw Subscribe stream (not the client's deduplicating iterator, so a redelivery of
an acknowledged message is seen), resuming after the last sequence it saw and acknowledging every
message. Every send and every acknowledgement is written to the history; each subscription is a
``checkers.Session``. ``drain`` waits until every stored message was acknowledged;
``stored_messages`` is the final read of the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from tests.reliability.battery import Battery
from tests.reliability.checkers import Session, total_queue
from tests.reliability.history import History, outcome_of
from tests.reliability.hubs import ADMIN_TOKEN, CrashHub

T = TypeVar("T")


async def retry(
    battery: Battery,
    history: History,
    op: str,
    call: Callable[[], Awaitable[T]],
    *,
    attempts: int = 60,
    seconds: float = 60.0,
    **fields: str,
) -> T | None:
    """Run ``call`` until it answers, retrying indeterminate outcomes (the same request each time).

    Returns its result, or None after a definite refusal or when the attempts or time ran out
    (every attempt is in the history).
    """
    backoff = 0.05
    for _ in battery.bounded(attempts, seconds):
        try:
            async with history.record(op, **fields) as entry:
                result = await call()
                entry.value = _plain(result)
            return result
        except (HubError, grpc.aio.AioRpcError) as error:
            if outcome_of(error) == "fail":
                return None
        await asyncio.sleep(battery.random.uniform(backoff / 2, backoff))
        backoff = min(1.0, backoff * 2)
    battery.add("retries_given_up")  # the attempts or the time ran out: a figure, so a failure says so
    return None


def _plain(result: object) -> str:
    message = getattr(result, "message", None)
    return str(getattr(message, "id", "")) if message is not None else ""


@dataclass
class Agent:
    name: str
    client: HubClient
    sessions: list[Session] = field(default_factory=list)
    received: set[str] = field(default_factory=set)
    """Keys of the messages this agent received (on any session)."""
    acked_keys: set[str] = field(default_factory=set)
    """Keys of the messages whose acknowledgement the hub answered OK."""
    redelivered_after_ack: list[str] = field(default_factory=list)
    last_seq: int = 0

    @property
    def id(self) -> str:
        assert self.client.agent_id is not None
        return self.client.agent_id


@dataclass
class Mesh:
    """A project's agents on one hub, sending to each other (see the module docstring)."""

    hub: CrashHub
    battery: Battery
    history: History
    agents: list[Agent] = field(default_factory=list)
    token: str = ""

    @classmethod
    async def create(cls, hub: CrashHub, battery: Battery, history: History, count: int) -> Mesh:
        mesh = cls(hub, battery, history)
        admin = HubClient(hub.address, token=ADMIN_TOKEN)
        try:
            mesh.token = (await admin.admin.create_project("battery")).project_token
        finally:
            await admin.close()
        for index in range(count):
            client = HubClient(hub.address, token=mesh.token, timeout=5.0)
            await client.agents.register(f"agent{index}")
            mesh.agents.append(Agent(f"agent{index}", client))
        return mesh

    async def send_all(self, per_agent: int, pace: float, round_: int = 0) -> None:
        """Every agent sends ``per_agent`` messages to random others, one every U[0, 2·pace] s
        (keys ``agentN-I``, or ``agentN-R.I`` for a later ``round_``)."""

        async def sender(agent: Agent) -> None:
            for index in range(per_agent):
                target = self.battery.random.choice([a for a in self.agents if a is not agent])
                key = f"{agent.name}-{index}" if not round_ else f"{agent.name}-{round_}.{index}"

                def send(target: Agent = target, key: str = key) -> Awaitable[pb.SendMessageResponse]:
                    return agent.client.messages.send(
                        target.id, key, idempotency_key=key, allow_offline=True, timeout=5.0
                    )

                await retry(self.battery, self.history, "send", send, agent=agent.name, key=target.name, idem=key)
                await asyncio.sleep(self.battery.random.uniform(0, 2 * pace))

        await asyncio.gather(*(sender(a) for a in self.agents))

    async def consume(self, agent: Agent, stop: asyncio.Event) -> None:
        """Agent's inbox on raw Subscribe streams until ``stop``: record each session, ack every message."""
        stub = agent.client.messages._rpc()
        backoff = 0.05
        while not stop.is_set():
            session = Session(agent.name, resumed_after=agent.last_seq)
            agent.sessions.append(session)
            call = stub.Subscribe(pb.SubscribeRequest(after_seq=agent.last_seq), metadata=agent.client.metadata)
            waiter = asyncio.ensure_future(stop.wait())
            try:
                stream = aiter(call)
                while True:
                    nxt = asyncio.ensure_future(anext(stream))
                    done, _ = await asyncio.wait({nxt, waiter}, return_when=asyncio.FIRST_COMPLETED)
                    if nxt not in done:
                        nxt.cancel()
                        with contextlib.suppress(BaseException):
                            await nxt
                        return
                    event = nxt.result()
                    if event.HasField("ready"):
                        backoff = 0.05
                        continue
                    agent.last_seq = max(agent.last_seq, event.seq)
                    if not event.HasField("message"):
                        continue
                    key = event.message.content
                    session.received.append(event.seq)
                    agent.received.add(key)
                    if key in agent.acked_keys:
                        agent.redelivered_after_ack.append(key)
                    if await self._ack(agent, event.message.id, key):
                        session.acked.append(event.seq)
            except (StopAsyncIteration, grpc.aio.AioRpcError):
                pass
            finally:
                call.cancel()
                waiter.cancel()
            await asyncio.sleep(self.battery.random.uniform(backoff / 2, backoff))
            backoff = min(1.0, backoff * 2)

    async def _ack(self, agent: Agent, message_id: str, key: str) -> bool:
        try:
            async with self.history.record("ack", agent=agent.name, idem=key):
                await agent.client.messages.ack([message_id], timeout=5.0)
        except (HubError, grpc.aio.AioRpcError):
            return False  # unacknowledged: it comes again on the next session
        agent.acked_keys.add(key)
        return True

    async def drain(self, seconds: float) -> bool:
        """Wait until every stored message was received by its recipient and acknowledged in the database.

        An acknowledgement cut by a kill may have landed (the message is retired, so it is not
        redelivered) or not (it comes again and is acknowledged again): the database says which.
        """
        deadline = time.monotonic() + seconds
        by_id = {a.id: a for a in self.agents}
        while time.monotonic() < deadline:
            rows = stored_messages(self.hub.db_path)
            if all(content in by_id[to].received and state != "queued" for to, content, _, state in rows):
                return True
            await asyncio.sleep(0.2)
        return False

    async def close(self) -> None:
        for agent in self.agents:
            await agent.client.close()


async def crash_run(
    battery: Battery,
    hub: CrashHub,
    *,
    agents: int,
    load: Callable[[Any], Awaitable[None]],
    mesh_type: type[Mesh] = Mesh,
) -> Mesh:
    """Start ``hub``, run ``load`` (sends and faults) on a mesh of ``agents`` (a ``mesh_type``)
    consuming their inboxes, then drain, stop the hub, and check the history and the final database
    (B1's invariants); the mesh, for further checks.

    Raises:
        InvariantBroken: an acknowledged send was lost, something unexpected or a retired message
            was delivered, a send was stored twice, a kill left the database unsound, or the
            inboxes did not drain.
    """
    history = History(battery.dir / "history.jsonl")
    hub.start()
    mesh = await mesh_type.create(hub, battery, history, agents)
    stop = asyncio.Event()
    consumers = [asyncio.create_task(mesh.consume(a, stop)) for a in mesh.agents]
    try:
        await load(mesh)
        drained = await mesh.drain(seconds=battery.size(pr=90.0, long=300.0))
        battery.figure("drained", drained)
    finally:
        stop.set()
        await asyncio.gather(*consumers, return_exceptions=True)
        await mesh.close()
        hub.stop()
        history.close()
    hub.kill()  # reaps it and runs the final integrity check
    stored = stored_messages(hub.db_path)
    verdict = total_queue(
        ((op.idem, op.type) for op in history.ops if op.op == "send"),
        (key for agent in mesh.agents for key in agent.received),
        (key for agent in mesh.agents for key in agent.redelivered_after_ack),
        (content for _, content, _, _ in stored),
    )
    hub.record(battery)
    battery.figure("agents", agents)
    battery.figure("send_attempts", sum(1 for op in history.ops if op.op == "send"))
    battery.figure("sends_acknowledged", verdict.acknowledged)
    battery.figure("sends_indeterminate", sum(1 for op in history.ops if op.op == "send" and op.type == "info"))
    battery.figure("messages_stored", len(stored))
    battery.figure("messages_delivered", verdict.delivered)
    battery.figure("redeliveries", sum(len(s.received) for a in mesh.agents for s in a.sessions) - verdict.delivered)
    battery.figure("recovered_indeterminate", len(verdict.recovered))
    battery.figure("subscription_sessions", sum(len(a.sessions) for a in mesh.agents))
    battery.invariant("lost", verdict.lost, set())
    battery.invariant("unexpected", verdict.unexpected, set())
    battery.invariant("redelivered after an acknowledgement answered OK", verdict.duplicated, set())
    battery.invariant("duplicates stored", verdict.stored_duplicates, 0)
    battery.invariant("integrity_check after every kill", {r for r in hub.integrity if r != "ok"}, set())
    battery.invariant("every stored message acknowledged", drained, True)
    return mesh


def stored_messages(db_path: Path) -> list[tuple[str, str, int, str]]:
    """(recipient id, content, inbox sequence, state) of every message in the database.

    ``queued``: not yet acknowledged; ``delivered``: acknowledged by its recipient.
    """
    conn = sqlite3.connect(db_path, timeout=10)
    try:
        rows = conn.execute("SELECT to_agent_id, content, seq, state FROM messages").fetchall()
        return [(str(r[0]), str(r[1]), int(r[2]), str(r[3])) for r in rows]
    finally:
        conn.close()
