"""The agent inbox log through the services: gapless per agent under concurrent sends, across restarts."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kxm_grpc.domain.agents import registration
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import ManualClock, seconds
from kxm_grpc.domain.messages import Delivery, EventKind, Outgoing
from kxm_grpc.domain.messages import outgoing as outgoing_rule
from kxm_grpc.services import agents, messages
from kxm_grpc.store import Durability, LogState
from kxm_grpc.store.sqlite import SqliteStore

PROJECT = Caller(CredentialKind.PROJECT, project="p")


def _request(target: str, content: str) -> Outgoing:
    return outgoing_rule(
        target=target,
        content=content,
        delivery=Delivery.FOLLOW_UP,
        correlation_id="",
        reply_to="",
        idempotency_key="",
        hops=0,
        max_hops=0,
        ttl_micros=seconds(60),
        allow_offline=False,
        context=None,
    )


async def test_concurrent_sends_number_each_inbox_gaplessly_and_it_survives_a_restart(tmp_path: Path) -> None:
    """60 sends at once from two senders to two recipients: each recipient's inbox log runs 1, 2, …
    without a gap, every message carries its event's seq, and after a restart the next event follows on."""
    # Prepare
    path = tmp_path / "hub.db"
    store = SqliteStore(path, durability=Durability.NORMAL)
    await store.start()
    now = ManualClock().now()
    made = {
        name: await agents.register_agent(store, PROJECT, registration(name, "", "", ""), presented_key=None, now=now)
        for name in ("alice", "carol", "bob", "dave")
    }
    callers = {
        name: Caller(CredentialKind.AGENT, project="p", agent_id=made[name].agent.id, agent_name=name)
        for name in ("alice", "carol")
    }

    # Execute
    sent = await asyncio.gather(
        *(
            messages.send_message(store, callers[sender], _request(target, f"{sender}-{i}"), now=now)
            for i in range(15)
            for sender in ("alice", "carol")
            for target in ("bob", "dave")
        )
    )
    await store.close()
    store = SqliteStore(path, durability=Durability.NORMAL)
    await store.start()
    logs = {
        name: await store.read(lambda tx, name=name: tx.inbox.read_after(made[name].agent.id, 0, 100))
        for name in ("bob", "dave")
    }
    states = {name: await store.read(lambda tx, name=name: tx.inbox.state(made[name].agent.id)) for name in logs}
    again = await messages.send_message(store, callers["alice"], _request("bob", "after the restart"), now=now)
    await store.close()

    # Assert
    for name, events in logs.items():
        head = len(events)  # 30 messages, after the presence events of the agents registered later
        assert [e.seq for e in events] == list(range(1, head + 1))
        delivered = [e for e in events if e.kind is EventKind.MESSAGE]
        assert len(delivered) == 30
        assert all(e.message is not None and e.message.seq == e.seq for e in delivered)
        assert states[name] == LogState(head, 1, 0)
    to_bob = sorted(s.message.seq for s in sent if s.message.to_agent_id == made["bob"].agent.id)
    assert to_bob == [e.seq for e in logs["bob"] if e.kind is EventKind.MESSAGE]
    assert again.message.seq == len(logs["bob"]) + 1
