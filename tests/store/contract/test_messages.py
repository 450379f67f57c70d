"""Contract: peer messages."""

from __future__ import annotations

import dataclasses

import pytest

from kxm_grpc.domain.messages import Delivery, MessageState, WorkflowContext
from kxm_grpc.errors import HubError
from kxm_grpc.store import Store
from tests.store.contract.conftest import message


async def test_a_message_reads_back_with_every_field(store: Store) -> None:
    """insert then get returns the message as inserted, workflow context, key and flags included."""
    # Prepare
    sent = message(
        "msg_1",
        delivery=Delivery.STEER,
        hops=2,
        max_hops=4,
        correlation_id="corr",
        reply_to="msg_0",
        idempotency_key="k1",
        allow_offline=True,
        workflow_context=WorkflowContext("run", "stage", "req", 3),
    )
    plain = message("msg_2", seq=2)

    # Execute
    await store.write(lambda tx: [tx.messages.insert(m) for m in (sent, plain)])

    # Assert
    assert await store.read(lambda tx: tx.messages.get("msg_1")) == sent
    assert await store.read(lambda tx: tx.messages.get("msg_2")) == plain
    assert await store.read(lambda tx: tx.messages.get("msg_none")) is None


async def test_an_update_stores_the_state_times_reply_and_error(store: Store) -> None:
    """update changes state, deliver/end times, reply and error, and nothing else."""
    # Prepare
    sent = message("msg_1")
    await store.write(lambda tx: tx.messages.insert(sent))
    replied = dataclasses.replace(
        sent,
        state=MessageState.REPLIED,
        deliver_time=5,
        end_time=6,
        reply_content="yes",
        reply_time=6,
        content="ignored by update",
    )

    # Execute
    await store.write(lambda tx: tx.messages.update(replied))

    # Assert
    assert await store.read(lambda tx: tx.messages.get("msg_1")) == dataclasses.replace(replied, content="hello")


async def test_an_idempotency_key_finds_the_senders_message_and_is_unique_per_sender(store: Store) -> None:
    """find_by_key matches (sender, key); a second message of the sender with the key is refused."""
    # Prepare
    await store.write(lambda tx: tx.messages.insert(message("msg_1", idempotency_key="k")))
    await store.write(
        lambda tx: tx.messages.insert(message("msg_2", seq=2, from_agent_id="agt_c", idempotency_key="k"))
    )

    # Execute
    found = await store.read(lambda tx: tx.messages.find_by_key("agt_a", "k"))
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.messages.insert(message("msg_3", seq=3, idempotency_key="k")))

    # Assert
    assert found is not None and found.id == "msg_1"
    assert await store.read(lambda tx: tx.messages.find_by_key("agt_a", "other")) is None


async def test_open_messages_to_an_agent_are_listed_by_seq_within_the_bounds(store: Store) -> None:
    """list_open_to: open messages to the agent with after < seq <= through, by seq; queued only when asked."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.messages.insert(m)
            for m in (
                message("msg_1", seq=1),
                message("msg_2", seq=2, state=MessageState.DELIVERED, deliver_time=3),
                message("msg_3", seq=3, state=MessageState.REPLIED, end_time=4),
                message("msg_4", seq=4),
                message("msg_x", seq=1, to="agt_c"),
            )
        ]
    )

    # Execute
    everything = await store.read(lambda tx: tx.messages.list_open_to("agt_b", 0, 10))
    queued = await store.read(lambda tx: tx.messages.list_open_to("agt_b", 0, 10, queued_only=True))
    bounded = await store.read(lambda tx: tx.messages.list_open_to("agt_b", 1, 10, through_seq=3))
    limited = await store.read(lambda tx: tx.messages.list_open_to("agt_b", 0, 1))

    # Assert
    assert [m.id for m in everything] == ["msg_1", "msg_2", "msg_4"]
    assert [m.id for m in queued] == ["msg_1", "msg_4"]
    assert [m.id for m in bounded] == ["msg_2"]
    assert [m.id for m in limited] == ["msg_1"]


async def test_ended_messages_are_found_by_end_time_and_deleted(store: Store) -> None:
    """list_ended_before finds ids ended at or before the cutoff, oldest first; delete counts what it removed."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.messages.insert(m)
            for m in (
                message("msg_late", seq=1, state=MessageState.CANCELLED, end_time=20),
                message("msg_early", seq=2, state=MessageState.EXPIRED, end_time=10),
                message("msg_open", seq=3),
            )
        ]
    )

    # Execute
    ended = await store.read(lambda tx: tx.messages.list_ended_before(20, 10))
    deleted = await store.write(lambda tx: tx.messages.delete([*ended, "msg_none"]))
    nothing = await store.write(lambda tx: tx.messages.delete([]))

    # Assert
    assert ended == ["msg_early", "msg_late"]
    assert (deleted, nothing) == (2, 0)
    assert await store.read(lambda tx: tx.messages.get("msg_early")) is None
    assert await store.read(lambda tx: tx.messages.get("msg_open")) is not None
