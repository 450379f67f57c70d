"""The PostgreSQL adapter beyond the contract suite: migrations under a lock, retries, wake-ups, health."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest

from kxm_grpc.errors import HubError, Reason
from kxm_grpc.store import StoreError
from kxm_grpc.store.postgres import PostgresStore
from kxm_grpc.store.postgres.engine import RETRIES
from kxm_grpc.store.postgres.listener import MAX_PAYLOAD, notify_payloads
from kxm_grpc.store.postgres.migrations import MIGRATIONS
from tests.harness import eventually

pytestmark = pytest.mark.postgres


async def started(url: str, **options: object) -> PostgresStore:
    store = PostgresStore(url, **options)  # type: ignore[arg-type]
    await store.start()
    return store


async def test_replicas_starting_together_migrate_once(postgres_database: str) -> None:
    """Three stores starting at once on a fresh database all start; the schema is at the latest version."""
    # Execute
    stores = await asyncio.gather(*(started(postgres_database) for _ in range(3)))

    # Assert
    try:
        with psycopg.connect(postgres_database) as conn:
            assert conn.execute("SELECT version FROM kxm_schema").fetchall() == [(max(MIGRATIONS),)]
    finally:
        for store in stores:
            await store.close()


async def test_a_foreign_or_newer_database_is_refused(postgres_database: str) -> None:
    """A database with tables but no hub schema, or a schema newer than this hub's, is refused at start."""
    # Prepare
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute("CREATE TABLE someone_elses (x int)")

    # Execute / Assert
    with pytest.raises(StoreError, match="not a kxm hub database"):
        await started(postgres_database)
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute("DROP TABLE someone_elses")
    store = await started(postgres_database)
    await store.close()
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute("UPDATE kxm_schema SET version = 999")
    with pytest.raises(StoreError, match="newer than this hub"):
        await started(postgres_database)


async def test_concurrent_appends_to_one_log_from_two_stores_are_gapless(postgres_database: str) -> None:
    """Two stores (two replicas) issuing numbers of one log at once: 1..N, each once (serialization
    failures are run again)."""
    # Prepare
    first, second = await started(postgres_database), await started(postgres_database)

    # Execute
    try:
        issued = await asyncio.gather(
            *(store.write(lambda tx: tx.inbox.next_seq("agt_a")) for store in (first, second) for _ in range(40))
        )
    finally:
        await first.close()
        await second.close()

    # Assert
    assert sorted(issued) == list(range(1, 81))


def _losing(races: int, key: str) -> tuple[list[int], object]:
    """A unit of work that fails serialization ``races`` times, then writes ``key``; and its attempt count."""
    attempts = [0]

    def work(tx: object) -> str:
        attempts[0] += 1
        if attempts[0] <= races:
            raise psycopg.errors.SerializationFailure("could not serialize access due to concurrent update")
        tx.meta.put(key, "committed")  # type: ignore[attr-defined]
        return "committed"

    return attempts, work


async def test_a_unit_of_work_losing_races_runs_again_until_busy_timeout_not_a_fixed_count(
    postgres_database: str,
) -> None:
    """Past RETRIES lost races a unit of work still runs again while ``busy_timeout`` lasts (a hot row
    such as one inbox's log head); once the time is spent, it is UNAVAILABLE "busy", nothing kept."""
    # Prepare
    store = await started(postgres_database, busy_timeout=30.0)
    try:
        attempts, work = _losing(RETRIES + 10, "patient")

        # Execute
        result = await store.write(work)  # type: ignore[arg-type]

        # Assert
        assert result == "committed"
        assert attempts[0] == RETRIES + 11
        assert await store.read(lambda tx: tx.meta.get("patient")) == "committed"
    finally:
        await store.close()

    # Prepare: a budget shorter than the count's pauses; the count still bounds it from below
    store = await started(postgres_database, busy_timeout=1.0)
    try:
        attempts, work = _losing(10_000, "starved")
        began = time.monotonic()

        # Execute
        with pytest.raises(HubError, match="the database is busy") as refused:
            await store.write(work)  # type: ignore[arg-type]

        # Assert
        assert refused.value.reason == Reason.STORAGE_UNAVAILABLE
        assert attempts[0] >= RETRIES
        assert time.monotonic() - began >= 1.0
        assert await store.read(lambda tx: tx.meta.get("starved")) is None
    finally:
        await store.close()


async def test_units_of_work_losing_races_leave_the_pool_to_others_between_attempts(postgres_database: str) -> None:
    """Units of work losing every race, as many as the pool has connections, do not hold them
    through their busy_timeout: a read queued behind them is answered while they still try."""
    # Prepare
    store = await started(postgres_database, busy_timeout=2.0, pool_min=1, pool_max=2)
    try:
        losers = [asyncio.create_task(store.write(_losing(10_000, f"starved-{i}")[1])) for i in range(2)]  # type: ignore[arg-type]
        await asyncio.sleep(0.05)

        # Execute
        value = await store.read(lambda tx: tx.meta.get("starved-0"))

        # Assert
        assert value is None
        assert not any(loser.done() for loser in losers)
        refused = await asyncio.gather(*losers, return_exceptions=True)
        assert all(isinstance(error, HubError) and error.reason == Reason.STORAGE_UNAVAILABLE for error in refused)
    finally:
        await store.close()


async def test_a_change_on_one_store_wakes_a_waiter_on_another_also_after_the_listener_reconnects(
    postgres_database: str,
) -> None:
    """A commit on store A wakes a waiter of its topic on store B (no hint: a wake-up only); when B's
    listening connection is killed, B reconnects and wakes every waiter so nothing missed meanwhile is
    lost."""
    # Prepare
    a, b = await started(postgres_database), await started(postgres_database)
    try:
        version = b.notifier.version("agent:x")
        waiting = asyncio.create_task(b.notifier.wait_hint("agent:x", version, timeout=10))
        await asyncio.sleep(0.05)

        # Execute: a remote change
        await a.write(lambda tx: tx.notify("agent:x", "a hint"))
        hint = await waiting

        # Execute: the listener's connection dies; the next waiter is woken by the reconnection
        listener = b._listener
        assert listener is not None
        version = b.notifier.version("agent:y")
        waiting = asyncio.create_task(b.notifier.wait("agent:y", version, timeout=15))
        await asyncio.sleep(0.05)
        with psycopg.connect(postgres_database, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN%%' AND pid <> pg_backend_pid()"
            )
        woken = await waiting

        # Assert
        assert hint is None  # other replicas' changes carry no hints
        assert woken is True
        assert listener.reconnects >= 1 and listener.connected
    finally:
        await a.close()
        await b.close()


def _end_hub_sessions(url: str, *statements: str) -> None:
    """Run ``statements`` on the database, then end every session the hub has open on it."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET default_transaction_read_only = off")  # this session, whatever the database's default
        for statement in statements:
            conn.execute(statement)
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = 'kxm-hub' AND pid <> pg_backend_pid()"
        )


async def test_sessions_ended_under_the_store_cost_no_call(postgres_database: str) -> None:
    """Every hub session terminated (a server restart, a failover): the next writes begin on fresh
    connections, none fails and health never turns."""
    # Prepare
    store = await started(postgres_database)
    changes: list[bool] = []
    store.add_health_listener(changes.append)
    try:
        await asyncio.gather(*(store.write(lambda tx: tx.meta.put("k", "v")) for _ in range(10)))

        # Execute
        _end_hub_sessions(postgres_database)
        await asyncio.gather(*(store.write(lambda tx: tx.meta.put("k", "w")) for _ in range(10)))

        # Assert
        assert changes == [] and store.healthy
        assert await store.read(lambda tx: tx.meta.get("k")) == "w"
    finally:
        await store.close()


async def test_a_database_refusing_writes_turns_health_until_a_probe_write_succeeds(postgres_database: str) -> None:
    """The database turned read-only: a write fails UNAVAILABLE and health turns False; once it takes
    writes again, the probe turns health True without any other write."""
    # Prepare
    store = await started(postgres_database, probe_interval=0.1)
    changes: list[bool] = []
    store.add_health_listener(changes.append)
    database = postgres_database.rsplit("/", 1)[1]
    try:
        await store.write(lambda tx: tx.meta.put("k", "v"))

        # Execute
        _end_hub_sessions(postgres_database, f"ALTER DATABASE {database} SET default_transaction_read_only = on")
        with pytest.raises(HubError) as refused:
            await store.write(lambda tx: tx.meta.put("k", "w"))
        turned = list(changes)
        _end_hub_sessions(postgres_database, f"ALTER DATABASE {database} RESET default_transaction_read_only")
        await eventually(lambda: store.healthy)

        # Assert
        assert refused.value.status == "UNAVAILABLE"
        assert turned == [False] and changes == [False, True]
        assert await store.read(lambda tx: tx.meta.get("k")) == "v"
    finally:
        await store.close()


def test_notifications_are_split_under_the_payload_limit_and_name_each_topic_once() -> None:
    """Topics are deduplicated, in order, each payload starts with the sender and stays under the limit."""
    # Execute
    topics = [(f"agent:{i:04d}" + "x" * 100, None) for i in range(200)]
    payloads = list(notify_payloads("r1", [*topics, *topics]))

    # Assert
    assert all(p.startswith("r1\n") and len(p.encode()) <= MAX_PAYLOAD for p in payloads)
    assert [line for p in payloads for line in p.split("\n")[1:]] == [t for t, _ in topics]
    assert list(notify_payloads("r1", [])) == []


async def test_a_write_whose_caller_is_cancelled_still_announces_its_commit(postgres_database: str) -> None:
    """The caller gives up while the transaction runs; it commits anyway, and its topic is published
    on this store's notifier (waiters here are woken: the listener skips this store's own notices)."""
    # Prepare
    store = await started(postgres_database)
    try:
        version = store.notifier.version("agent:z")

        def slow(tx: object) -> None:
            time.sleep(0.3)
            tx.meta.put("k", "committed")  # type: ignore[attr-defined]
            tx.notify("agent:z")  # type: ignore[attr-defined]

        # Execute
        writing = asyncio.create_task(store.write(slow))
        await asyncio.sleep(0.1)
        writing.cancel()
        await asyncio.gather(writing, return_exceptions=True)
        await eventually(lambda: store.notifier.version("agent:z") == version + 1)

        # Assert
        assert await store.read(lambda tx: tx.meta.get("k")) == "committed"
    finally:
        await store.close()


async def test_the_database_time_is_paired_with_the_monotonic_clock_of_the_same_instant(postgres_database: str) -> None:
    """B17: the server's reading comes with the monotonic time it stands for, measured on the worker, so a
    busy event loop cannot skew a replica's clock (the server runs on this machine: its clock is ours)."""
    # Prepare
    store = await started(postgres_database)
    try:
        # Execute
        server, at = await store.database_time()
        await asyncio.sleep(0.2)  # the caller gets back to it late
        wall, now = time.time_ns() // 1000, time.monotonic_ns() // 1000
    finally:
        await store.close()

    # Assert: the reading, carried forward by the monotonic clock, is the wall clock now.
    assert abs(server + (now - at) - wall) < 50_000
