"""Contract: the agent inbox log, a sequenced log (gapless per-owner sequence numbers)."""

from __future__ import annotations

import asyncio
import dataclasses

from kxm_grpc.domain.messages import EventKind, Message, MessageState
from kxm_grpc.errors import NotFound, Reason
from kxm_grpc.store import LogState, Store, Tx
from tests.store.contract.conftest import StoreFactory, agent, message


def _append_message_event(tx: Tx, owner: str, message_id: str) -> int:
    seq = tx.inbox.next_seq(owner)
    tx.inbox.append(owner, seq, EventKind.MESSAGE, 100 + seq, message_id=message_id)
    return seq


async def test_sequence_numbers_are_per_owner_and_start_at_one(store: Store) -> None:
    """Each owner's numbers run 1, 2, … independently of every other owner's."""
    # Execute
    issued = [await store.write(lambda tx, owner=owner: tx.inbox.next_seq(owner)) for owner in "abab"]

    # Assert
    assert issued == [1, 1, 2, 2]


async def test_concurrent_appends_through_the_writer_are_gapless_per_owner(store: Store) -> None:
    """300 appends issued at once over three owners: each owner's log holds 1..100, no gap, no duplicate."""
    # Execute
    await asyncio.gather(
        *(
            store.write(lambda tx, owner=owner, i=i: _append_message_event(tx, owner, f"msg_{owner}_{i}"))
            for i in range(100)
            for owner in ("x", "y", "z")
        )
    )
    logs = {owner: await store.read(lambda tx, owner=owner: tx.inbox.read_after(owner, 0, 500)) for owner in "xyz"}

    # Assert
    for owner, events in logs.items():
        assert [e.seq for e in events] == list(range(1, 101))
        assert await store.read(lambda tx, owner=owner: tx.inbox.state(owner)) == LogState(100, 1, 0)


async def test_a_rolled_back_append_leaves_no_gap(store: Store) -> None:
    """A number issued in work that then fails is never seen: the next append takes it."""

    # Prepare
    def failing(tx: Tx) -> None:
        _append_message_event(tx, "a", "msg_lost")
        raise NotFound("nope", reason=Reason.MESSAGE_NOT_FOUND)

    await store.write(lambda tx: _append_message_event(tx, "a", "msg_1"))

    # Execute
    failed = await asyncio.gather(store.write(failing), return_exceptions=True)
    seq = await store.write(lambda tx: _append_message_event(tx, "a", "msg_2"))

    # Assert
    assert isinstance(failed[0], NotFound)
    assert seq == 2
    assert [e.seq for e in await store.read(lambda tx: tx.inbox.read_after("a", 0, 10))] == [1, 2]


async def test_events_read_back_with_their_message_as_it_is_now_and_presence_as_it_was(store: Store) -> None:
    """A message event carries the message's current state; a presence event the subject's presence
    when it was recorded; read_after starts after the cursor, and presence_only keeps presence events."""
    # Prepare
    sent = message("msg_1", to="agt_b")
    subject = agent("agt_s", "sam", online=True, seen=42)
    await store.write(lambda tx: [tx.messages.insert(sent), tx.agents.put(subject)])
    await store.write(lambda tx: _append_message_event(tx, "agt_b", "msg_1"))

    def presence(tx: Tx) -> None:
        tx.inbox.append("agt_b", tx.inbox.next_seq("agt_b"), EventKind.PRESENCE, 200, subject=subject)

    await store.write(presence)
    later = agent("agt_s", "sam", online=False, seen=99)
    await store.write(lambda tx: [tx.agents.put(later), tx.messages.update(_replied(sent))])

    # Execute
    events = await store.read(lambda tx: tx.inbox.read_after("agt_b", 0, 10))
    after_first = await store.read(lambda tx: tx.inbox.read_after("agt_b", 1, 10))
    presence_only = await store.read(lambda tx: tx.inbox.read_after("agt_b", 0, 10, presence_only=True))

    # Assert
    first, second = events
    assert (first.seq, first.kind, first.event_time, first.subject) == (1, EventKind.MESSAGE, 101, None)
    assert first.message == _replied(sent)
    assert (second.seq, second.kind, second.event_time, second.message) == (2, EventKind.PRESENCE, 200, None)
    assert second.subject == subject  # online at 42, as recorded: not the later offline
    assert after_first == presence_only == [second]


def _replied(sent: Message) -> Message:
    return dataclasses.replace(sent, state=MessageState.REPLIED, end_time=5, reply_content="ok", reply_time=5)


async def test_purging_raises_purged_seq_and_the_oldest_retained(store: Store) -> None:
    """Deleting a message's events and old presence events raises each owner's purged_seq to the
    highest deleted and its oldest retained; the head never moves back."""
    # Prepare
    await store.write(lambda tx: [_append_message_event(tx, "a", f"msg_{i}") for i in (1, 2, 3)])
    await store.write(lambda tx: _append_message_event(tx, "b", "msg_2"))

    def presence(tx: Tx, at: int) -> None:
        tx.inbox.append("a", tx.inbox.next_seq("a"), EventKind.PRESENCE, at, subject=agent("agt_s", "s"))

    await store.write(lambda tx: presence(tx, 10))  # seq 4
    await store.write(lambda tx: presence(tx, 50))  # seq 5
    empty = await store.read(lambda tx: tx.inbox.state("nobody"))

    # Execute
    by_message = await store.write(lambda tx: tx.inbox.delete_for_messages(["msg_1", "msg_2"]))
    none = await store.write(lambda tx: tx.inbox.delete_for_messages([]))
    by_age = await store.write(lambda tx: tx.inbox.delete_presence_before(20))

    # Assert
    assert empty == LogState(0, 0, 0)
    assert (by_message, none, by_age) == (3, 0, 1)
    assert await store.read(lambda tx: tx.inbox.state("a")) == LogState(5, 3, 4)
    assert await store.read(lambda tx: tx.inbox.state("b")) == LogState(1, 0, 1)
    assert [e.seq for e in await store.read(lambda tx: tx.inbox.read_after("a", 0, 10))] == [3, 5]
    assert await store.write(lambda tx: tx.inbox.next_seq("b")) == 2  # never reused after a purge


async def test_the_log_and_its_sequence_survive_a_restart(store_factory: StoreFactory) -> None:
    """After a restart the entries are there and the next number follows the last one issued."""
    # Prepare
    store = await store_factory.open()
    await store.write(lambda tx: [_append_message_event(tx, "a", f"msg_{i}") for i in (1, 2)])

    # Execute
    store = await store_factory.reopen(store)
    seq = await store.write(lambda tx: _append_message_event(tx, "a", "msg_3"))

    # Assert
    assert seq == 3
    assert [e.seq for e in await store.read(lambda tx: tx.inbox.read_after("a", 0, 10))] == [1, 2, 3]
    assert await store.read(lambda tx: tx.inbox.state("a")) == LogState(3, 1, 0)
