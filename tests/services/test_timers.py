"""Durable timers: fired exactly at the deadline by one scheduler, atomically with their deletion, across restarts."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import structlog

from kxm_grpc.domain.agents import registration
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import MICROS, ManualClock, seconds
from kxm_grpc.domain.messages import Delivery, EventKind, MessageState, Outgoing
from kxm_grpc.domain.messages import outgoing as outgoing_rule
from kxm_grpc.errors import NotFound, Reason
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.ratelimit import RateLimiter
from kxm_grpc.server.settings import Settings
from kxm_grpc.server.state import HubState
from kxm_grpc.server.timers import TimerScheduler
from kxm_grpc.services import agents, messages, timers
from kxm_grpc.services.timers import RETRY_AFTER, RETRY_MAX, TimerKinds
from kxm_grpc.store import Store, Timer, Tx
from kxm_grpc.store.sqlite import SqliteStore

PROJECT = Caller(CredentialKind.PROJECT, project="p")


def recording(kinds: TimerKinds, kind: str = "test") -> list[str]:
    """Register ``kind`` with a handler that writes ``fired:<key>`` = now in its transaction; the list
    returned collects the keys its after-commit step was handed."""
    fired: list[str] = []

    def fire(tx: Tx, timer: Timer, now: int) -> str:
        tx.meta.put(f"fired:{timer.key}", str(now))
        return timer.key

    kinds.register(kind, fire, fired=fired.extend)
    return fired


def hub_state(store: Store, clock: ManualClock, scheduler: TimerScheduler) -> HubState:
    """The hub's state around ``store`` on ``clock``, with ``scheduler`` as its timers."""
    return HubState(
        settings=Settings(),
        store=store,
        clock=clock,
        admin_token_hash=None,
        limiter=RateLimiter(1000, 60.0),
        timers=scheduler,
    )


@contextlib.asynccontextmanager
async def running(scheduler: TimerScheduler, hub: HubState) -> AsyncIterator[None]:
    """Run the scheduler's task for the block."""
    task = asyncio.create_task(scheduler.run(hub))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def until_fired(store: Store, key: str, within: float = 2.0) -> None:
    """Wait (polling the store) until the ``recording`` handler's write for ``key`` committed."""
    deadline = asyncio.get_running_loop().time() + within
    while await store.read(lambda tx: tx.meta.get(f"fired:{key}")) is None:
        assert asyncio.get_running_loop().time() < deadline, f"timer {key} never fired"
        await asyncio.sleep(0.01)


async def test_a_timer_fires_at_its_deadline_not_a_microsecond_before(store: SqliteStore) -> None:
    """fire_due at due - 1 µs fires nothing; at due it fires the handler with that now, deletes the timer
    and leaves a later one alone."""
    # Prepare
    kinds = TimerKinds()
    fired = recording(kinds)
    await store.write(lambda tx: [timers.schedule(tx, "test", "a", 1_000), timers.schedule(tx, "test", "b", 1_001)])

    # Execute
    early = await timers.fire_due(store, kinds, now=999)
    on_time = await timers.fire_due(store, kinds, now=1_000)

    # Assert
    assert early == []
    assert on_time == [Timer("test", "a", 1_000)]
    assert fired == ["a"]
    assert await store.read(lambda tx: tx.meta.get("fired:a")) == "1000"
    assert await store.read(lambda tx: (tx.timers.get("test", "a"), tx.timers.get("test", "b"))) == (
        None,
        Timer("test", "b", 1_001),
    )


async def test_the_scheduler_fires_at_the_deadline_on_the_hub_clock(store: SqliteStore) -> None:
    """On a manual clock the scheduler sleeps towards the deadline and fires once the clock reaches it,
    with the deadline's time, and not before; a timer of a kind nobody registered is left alone."""
    # Prepare
    clock = ManualClock()
    kinds = TimerKinds()
    recording(kinds)
    scheduler = TimerScheduler(kinds)
    due = clock.now() + seconds(0.2)
    await store.write(lambda tx: [timers.schedule(tx, "test", "a", due), timers.schedule(tx, "other", "x", due)])

    async with running(scheduler, hub_state(store, clock, scheduler)):
        # Execute
        await asyncio.sleep(0.3)  # past the real sleep, but the hub's clock has not moved
        before = await store.read(lambda tx: tx.meta.get("fired:a"))
        clock.advance(0.2)
        await until_fired(store, "a")

    # Assert
    assert before is None
    assert await store.read(lambda tx: tx.meta.get("fired:a")) == str(due)
    assert await store.read(lambda tx: tx.timers.get("other", "x")) == Timer("other", "x", due)


async def test_noting_an_earlier_deadline_wakes_the_sleeping_scheduler(store: SqliteStore) -> None:
    """Asleep towards a deadline 20 s away, the scheduler fires a timer written for now as soon as it is noted."""
    # Prepare
    clock = ManualClock()
    kinds = TimerKinds()
    recording(kinds)
    scheduler = TimerScheduler(kinds)
    await store.write(lambda tx: timers.schedule(tx, "test", "later", clock.now() + seconds(20)))

    async with running(scheduler, hub_state(store, clock, scheduler)):
        await asyncio.sleep(0.05)  # asleep towards "later"
        started = asyncio.get_running_loop().time()

        # Execute
        await store.write(lambda tx: timers.schedule(tx, "test", "now", clock.now()))
        scheduler.note(clock.now())
        await until_fired(store, "now")

    # Assert
    assert asyncio.get_running_loop().time() - started < 1.0
    assert await store.read(lambda tx: tx.meta.get("fired:later")) is None


async def test_firing_and_deleting_are_one_transaction(store: SqliteStore) -> None:
    """A handler that raises undoes its own writes and keeps its timer (moved RETRY_AFTER later); the
    other due timers fire and are deleted with their handler's writes."""
    # Prepare
    kinds = TimerKinds()

    def fire(tx: Tx, timer: Timer, now: int) -> None:
        tx.meta.put(f"fired:{timer.key}", str(now))
        if timer.key == "bad":
            raise NotFound("boom", reason=Reason.MESSAGE_NOT_FOUND)

    kinds.register("test", fire)
    await store.write(lambda tx: [timers.schedule(tx, "test", key, 10) for key in ("bad", "good")])

    # Execute
    fired = await timers.fire_due(store, kinds, now=50)

    # Assert
    assert fired == [Timer("test", "good", 10)]
    state = await store.read(
        lambda tx: (
            tx.meta.get("fired:bad"),
            tx.meta.get("fired:good"),
            tx.timers.get("test", "bad"),
            tx.timers.get("test", "good"),
        )
    )
    assert state == (None, "50", Timer("test", "bad", 50 + RETRY_AFTER), None)


def failing(kinds: TimerKinds, broken: set[str] | None = None) -> None:
    """Register ``test`` with a handler that raises for the keys in ``broken`` (every key when None)."""

    def fire(tx: Tx, timer: Timer, now: int) -> None:
        if broken is None or timer.key in broken:
            raise RuntimeError(f"handler bug for {timer.key}")

    kinds.register("test", fire)


async def due_time(store: Store, key: str) -> int | None:
    """The ``test`` timer's due time as stored (None: it is gone)."""
    timer = await store.read(lambda tx: tx.timers.get("test", key))
    return None if timer is None else timer.due_time


async def test_a_timer_whose_handler_always_raises_backs_off_exponentially_to_five_minutes(
    store: SqliteStore,
) -> None:
    """Fired each time it comes due (an injected now), a timer whose handler always raises is moved
    1 s, 2 s, 4 s, … later, never more than 5 min; each failure is logged with its attempt number
    and the delay to the next. The scheduler keeps the count between its own passes."""
    # Prepare
    kinds = TimerKinds()
    failing(kinds)
    failures = timers.Failures()
    await store.write(lambda tx: timers.schedule(tx, "test", "bad", 10))
    now, delays = 10, []

    # Execute
    with structlog.testing.capture_logs() as logged:
        for _ in range(12):
            assert await timers.fire_due(store, kinds, now=now, failures=failures) == []
            later = await due_time(store, "bad")
            assert later is not None
            delays.append((later - now) / MICROS)
            now = later
        scheduler = TimerScheduler(kinds)
        await store.write(lambda tx: [timers.cancel(tx, "test", "bad"), timers.schedule(tx, "test", "other", now)])
        for _ in range(2):
            await scheduler.fire_due(store, now)
            now = await due_time(store, "other") or 0

    # Assert
    assert delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]
    failed = [entry for entry in logged if entry["event"] == "timer_failed" and entry["key"] == "bad"]
    assert [(e["attempt"], e["retry_in_seconds"]) for e in failed] == list(enumerate(delays, start=1))
    assert all(e["log_level"] == "error" and e["kind"] == "test" for e in failed)
    assert [(e["attempt"], e["retry_in_seconds"]) for e in logged if e.get("key") == "other"] == [(1, 1), (2, 2)]
    assert [timers.retry_delay(n) for n in (1, 9, 10, 10_000)] == [RETRY_AFTER, 256 * MICROS, RETRY_MAX, RETRY_MAX]


async def test_the_backoff_starts_again_once_the_timer_fires_is_moved_or_is_deleted(store: SqliteStore) -> None:
    """The count of failures in a row ends when the timer fires, when a change schedules it again
    (it moved: the next failure is the first again) and when it is deleted (its count is forgotten)."""
    # Prepare
    kinds = TimerKinds()
    broken = {"a", "b"}
    failing(kinds, broken)
    failures = timers.Failures()
    await store.write(lambda tx: [timers.schedule(tx, "test", key, 10) for key in ("a", "b")])

    async def fail_twice(key: str, now: int) -> int:
        """Fire ``key`` as it comes due twice (both fail); the time of the next due."""
        for _ in range(2):
            await timers.fire_due(store, kinds, now=now, failures=failures)
            now = await due_time(store, key) or 0
        return now

    # Execute: "a" fails twice (1 s, 2 s), is moved by a change, then fails once more.
    now = await fail_twice("a", 10)
    await store.write(lambda tx: timers.schedule(tx, "test", "a", now + 50))
    await timers.fire_due(store, kinds, now=now + 50, failures=failures)
    after_move = await due_time(store, "a")
    # "a" fires at last, is scheduled again and fails: the first failure in a row again.
    broken.discard("a")
    fired = await timers.fire_due(store, kinds, now=after_move or 0, failures=failures)
    broken.add("a")
    await store.write(lambda tx: timers.schedule(tx, "test", "a", 1_000 * MICROS))
    await timers.fire_due(store, kinds, now=1_000 * MICROS, failures=failures)
    after_firing = await due_time(store, "a")
    # "b" (failed alongside "a" at first) is deleted: once past its due time, its count is forgotten.
    await store.write(lambda tx: [timers.cancel(tx, "test", key) for key in ("a", "b")])
    counted = len(failures)
    await timers.fire_due(store, kinds, now=2_000 * MICROS, failures=failures)

    # Assert
    assert now == 10 + 3 * MICROS  # 1 s, then 2 s
    assert after_move == now + 50 + RETRY_AFTER
    assert [timer.key for timer in fired] == ["a"]
    assert after_firing == 1_000 * MICROS + RETRY_AFTER
    assert (counted, len(failures)) == (2, 0)


async def test_a_cancelled_timer_does_not_fire(store: SqliteStore) -> None:
    """cancel deletes the timer in the caller's transaction: it never fires; a kind registers once."""
    # Prepare
    kinds = TimerKinds()
    fired = recording(kinds)
    await store.write(lambda tx: timers.schedule(tx, "test", "a", 10))

    # Execute
    await store.write(lambda tx: timers.cancel(tx, "test", "a"))
    result = await timers.fire_due(store, kinds, now=50)

    # Assert
    assert (result, fired) == ([], [])
    with pytest.raises(ValueError, match="registered already"):
        recording(kinds)


def _request(target: str, ttl: float) -> Outgoing:
    return outgoing_rule(
        target=target,
        content="q",
        delivery=Delivery.FOLLOW_UP,
        correlation_id="",
        reply_to="",
        idempotency_key="",
        hops=0,
        max_hops=0,
        ttl_micros=seconds(ttl),
        allow_offline=False,
        context=None,
    )


async def test_a_message_that_expired_while_the_hub_was_down_expires_at_start(tmp_path: Path) -> None:
    """A hub on a real file is stopped with a message open; its TTL passes while it is down; the next
    hub expires it at start, with no read, and both sides get an expired event. Its timer is gone."""
    # Prepare
    clock = ManualClock()
    settings = Settings(port=0, data_dir=tmp_path / "kxm", admin_token="test-admin-token-0123456789")
    first = HubServer(settings, clock=clock)
    await first.start()
    alice = await agents.register_agent(
        first.store, PROJECT, registration("alice", "", "", ""), presented_key=None, now=clock.now()
    )
    bob = await agents.register_agent(
        first.store, PROJECT, registration("bob", "", "", ""), presented_key=None, now=clock.now()
    )
    sender = Caller(CredentialKind.AGENT, project="p", agent_id=alice.agent.id, agent_name="alice")
    sent = (await messages.send_message(first.store, sender, _request("bob", ttl=5), now=clock.now())).message
    await first.stop(0)
    clock.advance(60)

    # Execute
    second = HubServer(settings, clock=clock)
    await second.start()
    try:
        store = second.store
        deadline = asyncio.get_running_loop().time() + 5
        while (current := await store.read(lambda tx: tx.messages.get(sent.id))) is not None and (
            current.state is not MessageState.EXPIRED
        ):
            assert asyncio.get_running_loop().time() < deadline, "the message never expired"
            await asyncio.sleep(0.02)
        logs = {
            name: await store.read(lambda tx, agent_id=agent_id: tx.inbox.read_after(agent_id, 0, 10))
            for name, agent_id in (("alice", alice.agent.id), ("bob", bob.agent.id))
        }
        timer = await store.read(lambda tx: tx.timers.get(messages.EXPIRY_TIMER, sent.id))
    finally:
        await second.stop(0)

    # Assert
    assert current is not None and current.end_time == sent.expire_time
    assert [e.kind for e in logs["bob"] if e.message and e.message.id == sent.id] == [
        EventKind.MESSAGE,
        EventKind.EXPIRED,
    ]
    assert [e.kind for e in logs["alice"] if e.message and e.message.id == sent.id] == [EventKind.EXPIRED]
    assert timer is None


async def test_sending_writes_the_expiry_timer_and_ending_deletes_it(store: SqliteStore) -> None:
    """A send schedules message_expiry at the message's deadline in its transaction; a reply deletes it."""
    # Prepare
    now = ManualClock().now()
    alice = await agents.register_agent(store, PROJECT, registration("alice", "", "", ""), presented_key=None, now=now)
    await agents.register_agent(store, PROJECT, registration("bob", "", "", ""), presented_key=None, now=now)
    sender = Caller(CredentialKind.AGENT, project="p", agent_id=alice.agent.id, agent_name="alice")

    # Execute
    sent = (await messages.send_message(store, sender, _request("bob", ttl=5), now=now)).message
    scheduled = await store.read(lambda tx: tx.timers.get(messages.EXPIRY_TIMER, sent.id))
    await messages.cancel_message(store, sender, sent.id, now=now + 1)

    # Assert
    assert scheduled == Timer(messages.EXPIRY_TIMER, sent.id, sent.expire_time)
    assert await store.read(lambda tx: tx.timers.get(messages.EXPIRY_TIMER, sent.id)) is None
