"""Contract: units of work are atomic, reads see committed writes, and commits wake their waiters."""

from __future__ import annotations

import asyncio

from kxm_grpc.domain.projects import Project
from kxm_grpc.errors import NotFound, Reason
from kxm_grpc.store import Store, Tx
from tests.store.contract.conftest import agent


async def test_write_then_read(store: Store) -> None:
    """A committed write is visible to the next read, and a write returns what its work returned."""

    # Prepare
    def work(tx: Tx) -> str:
        tx.projects.put(Project("p", 1, 2), "sha256:abc")
        return "done"

    # Execute
    returned = await store.write(work)
    project = await store.read(lambda tx: tx.projects.find_by_token_hash("sha256:abc"))

    # Assert
    assert returned == "done"
    assert project == Project("p", 1, 2)


async def test_failed_work_leaves_nothing_and_other_work_in_the_batch_commits(store: Store) -> None:
    """A unit of work that raises is rolled back alone, even when committed together with others."""

    # Prepare
    def failing(tx: Tx) -> None:
        tx.agents.put(agent("agt_bad", "bad"))
        raise NotFound("nope", reason=Reason.AGENT_NOT_FOUND)

    # Execute
    results = await asyncio.gather(
        store.write(lambda tx: tx.agents.put(agent("agt_1", "one"))),
        store.write(failing),
        store.write(lambda tx: tx.agents.put(agent("agt_2", "two"))),
        return_exceptions=True,
    )

    # Assert
    assert isinstance(results[1], NotFound)
    ids = [a.id for a in await store.read(lambda tx: tx.agents.list_page("p", None, 10, include_offline=True))]
    assert ids == ["agt_1", "agt_2"]


async def test_notify_wakes_waiters_after_commit(store: Store) -> None:
    """A topic notified in a transaction wakes its waiters once committed."""
    # Prepare
    seen = store.notifier.version("agent:x")
    waiter = asyncio.create_task(store.notifier.wait("agent:x", seen, timeout=5))

    # Execute
    await store.write(lambda tx: tx.notify("agent:x"))

    # Assert
    assert await waiter is True


async def test_work_that_raises_wakes_nobody(store: Store) -> None:
    """The topics of a unit of work that raised are never published: nothing it reported happened."""

    # Prepare
    def failing(tx: Tx) -> None:
        tx.notify("agent:x", "never")
        raise NotFound("nope", reason=Reason.AGENT_NOT_FOUND)

    seen = store.notifier.version("agent:x")

    # Execute
    results = await asyncio.gather(store.write(failing), store.write(lambda tx: None), return_exceptions=True)

    # Assert
    assert isinstance(results[0], NotFound)
    assert store.notifier.version("agent:x") == seen


async def test_a_wake_up_hands_its_hint_to_the_waiters_it_wakes(store: Store) -> None:
    """wait_hint returns the committed hint; None when the topic changed before the call or on timeout."""
    # Prepare
    notifier = store.notifier
    seen = notifier.version("message:m")
    waiter = asyncio.create_task(notifier.wait_hint("message:m", seen, timeout=5))
    await asyncio.sleep(0)

    # Execute
    await store.write(lambda tx: tx.notify("message:m", "the end"))

    # Assert
    assert await waiter == "the end"
    assert await notifier.wait_hint("message:m", seen, timeout=5) is None  # changed already: read the store
    assert await notifier.wait_hint("message:m", seen + 1, timeout=0.01) is None  # timed out
    assert await notifier.wait("message:m", seen + 1, timeout=0.01) is False


async def test_forgetting_a_topic_drops_its_counter_but_never_a_waiter(store: Store) -> None:
    """forget() removes counters of idle topics; an awaited topic keeps its counter and its waiter."""
    # Prepare
    notifier = store.notifier
    notifier.publish([("message:idle", None), ("message:awaited", None)])
    waiter = asyncio.create_task(notifier.wait("message:awaited", 1, timeout=5))
    await asyncio.sleep(0)

    # Execute
    notifier.forget(["message:idle", "message:awaited"])
    notifier.publish([("message:awaited", None)])

    # Assert
    assert notifier.version("message:idle") == 0
    assert await waiter is True
    assert notifier.version("message:awaited") == 2
