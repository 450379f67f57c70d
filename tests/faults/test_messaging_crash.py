"""Conversations survive kill -9 of the hub; idempotent retries across a restart store no duplicate."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from tests.harness import ADMIN_TOKEN, HubProcess

pytestmark = pytest.mark.slow


@pytest.fixture
def hub_process(tmp_path: Path) -> Iterator[HubProcess]:
    """A hub subprocess (durability full) on a temp data dir, killed after the test."""
    process = HubProcess(tmp_path / "data")
    process.start()
    yield process
    process.kill()


class Pair:
    """Alice and Bob's identities, reconnectable to whatever address the hub has now."""

    def __init__(self, token: str, alice: HubClient, bob: HubClient) -> None:
        self.token = token
        self.alice = alice
        self.bob = bob

    @classmethod
    async def register(cls, address: str) -> Pair:
        admin = HubClient(address, token=ADMIN_TOKEN)
        token = (await admin.create_project("alpha")).project_token
        await admin.close()
        alice, bob = HubClient(address, token=token), HubClient(address, token=token)
        await alice.register_agent("alice")
        await bob.register_agent("bob")
        return cls(token, alice, bob)

    async def reconnect(self, address: str) -> None:
        """New channels to the restarted hub with the same agent ids and keys."""
        old = (self.alice, self.bob)
        self.alice, self.bob = (
            HubClient(address, token=self.token, agent_id=c.agent_id, agent_key=c.agent_key) for c in old
        )
        for client in old:
            await client.close()

    async def close(self) -> None:
        await self.alice.close()
        await self.bob.close()


async def first_events(client: HubClient, after_seq: int, count: int) -> list[pb.SubscribeResponse]:
    """The first ``count`` events after the ready event of a new stream."""
    events = []
    stream = client.subscribe(after_seq, reconnect=False)
    async for event in stream:
        if not event.HasField("ready"):
            events.append(event)
            if len(events) == count:
                break
    await stream.aclose()
    return events


async def test_conversation_survives_kill_between_send_and_delivery(hub_process: HubProcess) -> None:
    """A send acknowledged just before kill -9 is delivered after the restart, replied to and awaited."""
    pair = await Pair.register(hub_process.address)
    sent = (await pair.alice.send("bob", "survive this", allow_offline=True)).message

    await pair.reconnect(hub_process.restart())
    delivered = await first_events(pair.bob, 0, 1)
    await pair.bob.reply(delivered[0].message.id, "survived")
    waited = await pair.alice.wait(sent.id, timeout=10)

    assert delivered[0].message.id == sent.id
    assert delivered[0].message.content == "survive this"
    assert (waited.terminal, waited.message.reply.content) == (True, "survived")
    await pair.close()


@pytest.mark.parametrize("acked", [True, False])
async def test_conversation_survives_kill_between_delivery_and_reply(hub_process: HubProcess, acked: bool) -> None:
    """Delivered before kill -9: an acked message is not redelivered but stays in the inbox; an unacked one
    is redelivered; either way the reply after the restart reaches the sender's stream."""
    pair = await Pair.register(hub_process.address)
    sent = (await pair.alice.send("bob", "handle me")).message
    (delivered,) = await first_events(pair.bob, 0, 1)
    if acked:
        await pair.bob.ack(delivered.message.id)

    await pair.reconnect(hub_process.restart())
    resumed = pair.bob.subscribe(delivered.seq, reconnect=False)
    ready = await anext(resumed)
    redelivered = await asyncio.wait_for(anext(resumed), 1) if not acked else None
    await resumed.aclose()
    inbox = (await pair.bob.list_inbox()).messages
    await pair.bob.reply(sent.id, "handled")
    replies = await first_events(pair.alice, 0, 2)

    assert ready.ready.head_seq == delivered.seq
    if acked:
        assert [(m.id, m.state) for m in inbox] == [(sent.id, types_pb2.MESSAGE_STATE_DELIVERED)]
    else:
        assert redelivered is not None
        assert (redelivered.message.id, redelivered.redelivered) == (sent.id, True)
        assert [(m.id, m.state) for m in inbox] == [(sent.id, types_pb2.MESSAGE_STATE_QUEUED)]
    assert [e.WhichOneof("event") for e in replies] == ["presence", "reply"]
    assert replies[1].reply.reply.content == "handled"
    await pair.close()


async def test_idempotent_retries_across_restart_store_no_duplicate(hub_process: HubProcess) -> None:
    """Sends and a fanout retried with their keys after kill -9 resolve to the stored messages."""
    pair = await Pair.register(hub_process.address)
    first = await pair.alice.send("bob", "once", idempotency_key="k-1")
    fanout = await pair.alice.fanout(["bob"], "gather", idempotency_key_prefix="round-1", timeout=0)

    await pair.reconnect(hub_process.restart())
    again = await pair.alice.send("bob", "once", idempotency_key="k-1")
    fanout_again = await pair.alice.fanout(["bob"], "gather", idempotency_key_prefix="round-1", timeout=0)
    inbox = (await pair.bob.list_inbox()).messages

    assert (again.repeated, again.message.id) == (True, first.message.id)
    assert fanout_again.results[0].message.id == fanout.results[0].message.id
    assert sorted(m.id for m in inbox) == sorted([first.message.id, fanout.results[0].message.id])
    await pair.close()


async def test_a_send_cut_by_kill_9_is_stored_at_most_once(hub_process: HubProcess) -> None:
    """Sends in flight when the hub dies, retried with their key after the restart, are stored exactly once."""
    pair = await Pair.register(hub_process.address)
    attempts = 4
    for attempt in range(attempts):
        key = f"inflight-{attempt}"
        killer = threading.Timer(0.002 * attempt, hub_process.kill)
        killer.start()
        with contextlib.suppress(HubError):  # the outcome is unknown: exactly the case a key exists for
            await pair.alice.send("bob", f"maybe {attempt}", idempotency_key=key, allow_offline=True)
        killer.join()
        await pair.reconnect(hub_process.start())
        retried = await pair.alice.send("bob", f"maybe {attempt}", idempotency_key=key, allow_offline=True)
        assert retried.message.content == f"maybe {attempt}"

    contents = sorted(m.content for m in (await pair.bob.list_inbox()).messages)
    assert contents == sorted(f"maybe {attempt}" for attempt in range(attempts))
    await pair.close()


async def test_logs_carry_ids_never_content(tmp_path: Path) -> None:
    """message_sent, message_replied, message_cancelled (debug) and message_expired are logged without bodies."""
    hub_process = HubProcess(tmp_path / "data", extra_args=("--log-level", "debug"))
    hub_process.start()
    try:
        await _logs_carry_ids_never_content(hub_process)
    finally:
        hub_process.kill()


async def _logs_carry_ids_never_content(hub_process: HubProcess) -> None:
    pair = await Pair.register(hub_process.address)
    replied = (await pair.alice.send("bob", "TOP-SECRET-REQUEST")).message
    await pair.bob.reply(replied.id, "TOP-SECRET-REPLY")
    cancelled = (await pair.alice.send("bob", "TOP-SECRET-CANCELLED")).message
    await pair.alice.cancel(cancelled.id)
    expired = (await pair.alice.send("bob", "TOP-SECRET-EXPIRED", ttl=1)).message
    await pair.alice.wait(expired.id, timeout=5)
    hub_process.stop()

    text = hub_process.log_path.read_text()
    events = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    logged = {(e.get("event"), e.get("message_id")) for e in events}

    assert "TOP-SECRET" not in text
    assert {
        ("message_sent", replied.id),
        ("message_replied", replied.id),
        ("message_cancelled", cancelled.id),
        ("message_expired", expired.id),
    } <= logged
    await pair.close()
