"""Contract: peer messages."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
import sqlite_utils

from kxm_grpc.domain.messages import Delivery, EventKind, MessageState, WorkflowContext
from kxm_grpc.errors import DataLoss, HubError, Reason
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from kxm_grpc.store.rows.messages import MESSAGES, message_values
from kxm_grpc.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from kxm_grpc.store.tables import raw_connection
from tests.store.contract.conftest import StoreFactory, message


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


async def test_a_projects_open_messages_are_listed_newest_first_and_counted(store: Store) -> None:
    """list_open_in / count_open_in: queued and delivered messages of one project, newest first
    (create time, then id), capped by the limit; counted whole."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.messages.insert(m)
            for m in (
                message("msg_1", seq=1, create_time=10),
                message("msg_2", seq=2, create_time=30, state=MessageState.DELIVERED, deliver_time=31),
                message("msg_3", seq=3, create_time=40, state=MessageState.REPLIED, end_time=41),
                message("msg_4", seq=4, create_time=30),
                message("msg_5", seq=5, create_time=20),
                message("msg_q", seq=1, create_time=50, project="q"),
            )
        ]
    )

    # Execute
    newest = await store.read(lambda tx: tx.messages.list_open_in("p", 3))
    every = await store.read(lambda tx: tx.messages.list_open_in("p", 10))
    counts = await store.read(lambda tx: (tx.messages.count_open_in("p"), tx.messages.count_open_in("none")))

    # Assert
    assert [m.id for m in newest] == ["msg_4", "msg_2", "msg_5"]
    assert [m.id for m in every] == ["msg_4", "msg_2", "msg_5", "msg_1"]
    assert counts == (4, 0)


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


def _tamper(sql: str, *params: object) -> Callable[[Tx], object]:
    """A unit of work changing a stored row behind the store's back (as bit rot or a foreign tool would)."""
    return lambda tx: tx.messages._conn.execute(sql, params)  # type: ignore[attr-defined]


async def test_a_message_whose_stored_content_changed_is_refused_with_data_loss(store: Store) -> None:
    """Every read of a row whose checksummed columns changed raises DataLoss naming the message; the
    other messages read as before. Each column set at send counts (content, sender, target, times)."""
    # Prepare
    await store.write(
        lambda tx: [tx.messages.insert(m) for m in (message("msg_1", idempotency_key="k"), message("msg_2", seq=2))]
    )
    await store.write(lambda tx: tx.inbox.append("agt_b", 1, EventKind.MESSAGE, 5, message_id="msg_1"))
    await store.write(_tamper("UPDATE messages SET content = 'hellp' WHERE id = 'msg_1'"))

    # Execute
    reads = {
        "get": lambda tx: tx.messages.get("msg_1"),
        "find_by_key": lambda tx: tx.messages.find_by_key("agt_a", "k"),
        "list_open_to": lambda tx: tx.messages.list_open_to("agt_b", 0, 10),
        "inbox": lambda tx: tx.inbox.read_after("agt_b", 0, 10),
    }
    refused = {}
    for name, work in reads.items():
        with pytest.raises(DataLoss) as caught:
            await store.read(work)
        refused[name] = (caught.value.reason, caught.value.metadata)
    in_write = None
    with pytest.raises(DataLoss) as caught:
        await store.write(lambda tx: tx.messages.get("msg_1"))
    in_write = caught.value.reason
    others = []
    for column, value in (("from_agent_id", "agt_x"), ("to_agent_id", "agt_x"), ("create_time", 2), ("seq", 9)):
        await store.write(_tamper(f"UPDATE messages SET {column} = ? WHERE id = 'msg_2'", value))
        with pytest.raises(DataLoss):
            await store.read(lambda tx: tx.messages.get("msg_2"))
        others.append(column)

    # Assert
    assert refused == dict.fromkeys(reads, (Reason.STORAGE_CORRUPTED, {"messageId": "msg_1"}))
    assert in_write is Reason.STORAGE_CORRUPTED
    assert others == ["from_agent_id", "to_agent_id", "create_time", "seq"]


async def test_a_reply_is_checksummed_when_written_and_refused_once_changed(store: Store) -> None:
    """update writes the reply's checksum (a replied message reads back); a changed reply is DataLoss.
    The columns a message's life changes (state, times, error) are not covered."""
    # Prepare
    sent = message("msg_1")
    await store.write(lambda tx: tx.messages.insert(sent))
    replied = dataclasses.replace(sent, state=MessageState.REPLIED, end_time=6, reply_content="yes", reply_time=6)
    await store.write(lambda tx: tx.messages.update(replied))

    # Execute
    read_back = await store.read(lambda tx: tx.messages.get("msg_1"))
    await store.write(_tamper("UPDATE messages SET state = 'expired', end_time = 7, error = 'x' WHERE id = 'msg_1'"))
    after_life = await store.read(lambda tx: tx.messages.get("msg_1"))
    await store.write(_tamper("UPDATE messages SET reply_content = 'yet' WHERE id = 'msg_1'"))
    with pytest.raises(DataLoss) as caught:
        await store.read(lambda tx: tx.messages.get("msg_1"))

    # Assert
    assert read_back == replied
    assert after_life is not None and after_life.state is MessageState.EXPIRED
    assert caught.value.reason is Reason.STORAGE_CORRUPTED
    assert caught.value.metadata == {"messageId": "msg_1"}


async def test_a_row_written_without_checksums_is_refused(store: Store) -> None:
    """A row written by a foreign tool that leaves the checksums at their default (empty) is never
    served unverified."""
    # Prepare
    await store.write(lambda tx: tx.messages.insert(message("msg_1")))
    await store.write(_tamper("UPDATE messages SET checksum = '', reply_checksum = '' WHERE id = 'msg_1'"))

    # Execute
    with pytest.raises(DataLoss) as caught:
        await store.read(lambda tx: tx.messages.get("msg_1"))

    # Assert
    assert caught.value.reason is Reason.STORAGE_CORRUPTED


def _version_8_database(url: str) -> None:
    """Create the schema of version 8 at ``url`` (no hub: the migrations a hub of version 8 applied)."""
    with raw_connection(url) as conn:
        if url.startswith("sqlite"):
            db = sqlite_utils.Database(conn)  # type: ignore[arg-type]
            for migration in SQLITE_MIGRATIONS[:8]:
                migration(db)
            conn.execute("PRAGMA user_version = 8")
            return
        conn.execute("CREATE TABLE kxm_schema (version BIGINT NOT NULL)")
        conn.execute("INSERT INTO kxm_schema (version) VALUES (8)")
        for version in (7, 8):
            for statement in POSTGRES_MIGRATIONS[version]:
                conn.execute(statement)


async def test_messages_stored_before_version_9_get_their_checksums_in_the_migration(
    store_factory: StoreFactory,
) -> None:
    """A database of version 8 holding messages (one replied, one with a workflow context and a
    multi-byte body) migrates to version 9 with every row's checksums computed; each then reads back
    as it was, and a changed one is refused. The same checksums as a row written now."""
    if not store_factory.persistent:
        pytest.skip(f"{store_factory.name} has no database to migrate")
    # Prepare
    _version_8_database(store_factory.url)
    old = [
        message("msg_1", content="héllo ✓", idempotency_key="k", allow_offline=True),
        message(
            "msg_2",
            seq=2,
            state=MessageState.REPLIED,
            end_time=6,
            reply_content="ja 🙂",
            reply_time=6,
            workflow_context=WorkflowContext("run", "stage", "req", 3),
        ),
    ]
    version_8 = [name for name in MESSAGES.names if name not in ("checksum", "reply_checksum")]
    with raw_connection(store_factory.url) as conn:
        for m in old:
            values = dict(zip(MESSAGES.names, message_values(m), strict=True))
            conn.execute(
                f"INSERT INTO messages ({', '.join(version_8)}) VALUES ({', '.join('?' * len(version_8))})",
                [values[name] for name in version_8],
            )

    # Execute
    store = await store_factory.open()
    read_back = [await store.read(lambda tx, m=m: tx.messages.get(m.id)) for m in old]
    stored = await store.read(
        lambda tx: tx.messages._conn.execute(  # type: ignore[attr-defined]
            "SELECT id, checksum, reply_checksum FROM messages ORDER BY id"
        ).fetchall()
    )
    await store.write(_tamper("UPDATE messages SET content = 'hallo' WHERE id = 'msg_1'"))
    with pytest.raises(DataLoss):
        await store.read(lambda tx: tx.messages.get("msg_1"))

    # Assert
    assert read_back == old
    written_now = [tuple(message_values(m)[-2:]) for m in old]
    assert [tuple(row[1:]) for row in stored] == written_now
