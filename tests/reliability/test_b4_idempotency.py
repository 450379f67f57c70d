"""B4: send, reply and fanout are idempotent (reliability.md §5.2; Kafka's idempotent producer).

Every operation is retried 1–3 times with the same key (or the same reply), also after an OK
answer, while the hub is killed every U[0.5, 2] s, and once more after a final restart: each retry
answers with the original message, and nothing is stored twice. Around a short retention R, a
retry before R returns the original; once retention has purged the message its key is free again
(the documented behaviour). The same key with another payload is refused with ABORTED
(IDEMPOTENCY_CONFLICT), also across a restart.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import Aborted, NotFound, Reason, Unavailable
from tests.reliability.battery import Battery, tier
from tests.reliability.history import History
from tests.reliability.hubs import CrashHub, kill_loop
from tests.reliability.workload import Agent, Mesh, retry, stored_messages

pytestmark = pytest.mark.timeout(600 if tier() == "pr" else 5400)


@dataclass
class Retryable:
    """One operation, repeatable on whatever client its agent has now."""

    kind: str
    key: str
    agent: Agent
    call: Callable[[HubClient], Awaitable[Any]]
    answer: Callable[[Any], str]
    """What must not change between retries: the message id(s), and a reply's content."""
    first: str | None = None


async def _repeat(
    battery: Battery, history: History, op: Retryable, times: int, mismatched: list[tuple[str, ...]]
) -> int:
    """Run ``op`` ``times`` times (each retried until answered); record any answer unlike the first."""
    done = 0
    for _ in range(times):
        result = await retry(
            battery, history, op.kind, lambda: op.call(op.agent.client), agent=op.agent.name, idem=op.key
        )
        if result is None:
            # Refused, or the retries gave up (a figure then): the last error, so a failure in CI says which.
            last = next((o for o in reversed(history.ops) if o.idem == op.key), None)
            mismatched.append((op.key, op.first or "", f"refused or gave up: {last.error if last else '?'}"))
            return done
        answer = op.answer(result)
        if op.first is None:
            op.first = answer
        elif answer != op.first:
            mismatched.append((op.key, op.first, answer))
        done += 1
    return done


@pytest.mark.battery("B4", "send, reply and fanout are idempotent across crashes")
async def test_retries_store_nothing_twice_across_hub_kills(battery: Battery) -> None:
    history = History(battery.dir / "history.jsonl")
    hub = CrashHub(battery.dir / "data")
    hub.start()
    mesh = await Mesh.create(hub, battery, history, battery.size(pr=6, long=16))
    per_agent = battery.size(pr=30, long=250)
    kills = battery.size(pr=20, long=150)
    # Paced so the operations last about as long as the kills (a pause of 1.25 s on average and a
    # ~0.4 s restart each): every kill lands on retries.
    pace = kills * 1.65 / per_agent
    done: list[Retryable] = []
    mismatched: list[tuple[str, ...]] = []
    retries: Counter[str] = Counter()

    async def operations(me: Agent) -> None:
        others = [a for a in mesh.agents if a is not me]
        for n in range(per_agent):
            kind = battery.random.choice(("send", "send", "fanout", "reply"))
            key = f"{me.name}-{n}"
            if kind == "send":
                target = battery.random.choice(others).id
                op = Retryable(
                    kind,
                    key,
                    me,
                    lambda c, t=target, k=key: c.messages.send(
                        t, k, idempotency_key=k, allow_offline=True, timeout=5.0
                    ),
                    lambda r: str(r.message.id),
                )
            elif kind == "fanout":
                targets = [a.id for a in battery.random.sample(others, 2)]
                op = Retryable(
                    kind,
                    key,
                    me,
                    lambda c, t=targets, k=key: c.messages.fanout(
                        t, k, idempotency_key_prefix=k, wait=0.0, allow_offline=True
                    ),
                    lambda r: ",".join(sorted(x.message.id for x in r.results)),
                )
            else:
                asker = battery.random.choice(others)
                question = Retryable(
                    "send",
                    f"{key}-q",
                    asker,
                    lambda c, t=me.id, k=f"{key}-q": c.messages.send(
                        t, k, idempotency_key=k, allow_offline=True, timeout=5.0
                    ),
                    lambda r: str(r.message.id),
                )
                if await _repeat(battery, history, question, 1, mismatched) == 0:
                    continue
                done.append(question)
                op = Retryable(
                    kind,
                    key,
                    me,
                    lambda c, m=question.first, k=key: c.messages.reply(m, f"reply {k}", timeout=5.0),
                    lambda r: f"{r.message.id}:{r.message.reply.content}",
                )
            times = 1 + battery.random.randint(1, 3)
            retries[kind] += max(0, await _repeat(battery, history, op, times, mismatched) - 1)
            done.append(op)
            await asyncio.sleep(battery.random.uniform(0, 2 * pace))

    stop = asyncio.Event()
    killer = asyncio.create_task(kill_loop(hub, battery, kills=kills, interval=(0.5, 2.0), seconds=600.0, stop=stop))
    try:
        await asyncio.gather(*(operations(a) for a in mesh.agents))
    finally:
        stop.set()
        battery.figure("kills_during_retries", await killer)
    # After a final restart, on new clients (a new process), every operation once more.
    await asyncio.to_thread(hub.restart)
    for agent in mesh.agents:
        old = agent.client
        agent.client = HubClient(hub.address, token=mesh.token, agent_id=agent.id, agent_key=old.agent_key, timeout=5.0)
        await old.close()
    for op in done:
        retries[f"{op.kind}_after_restart"] += await _repeat(battery, history, op, 1, mismatched)
    await mesh.close()
    hub.stop()
    history.close()
    hub.kill()
    # A fanout sends one content to two recipients: a message is stored twice when the same
    # (recipient, content) is.
    stored = Counter((to, content) for to, content, _, _ in stored_messages(hub.db_path))
    battery.figure("operations", len(done))
    battery.figure("retries_with_the_same_key", sum(retries.values()))
    for kind, count in sorted(retries.items()):
        battery.figure(f"retries_{kind}", count)
    battery.figure("messages_stored", sum(stored.values()))
    hub.record(battery)
    battery.invariant("retries answered unlike the first answer (or refused)", mismatched, [])
    battery.invariant("messages stored twice", {k for k, n in stored.items() if n > 1}, set())
    battery.invariant("integrity_check after every kill", {r for r in hub.integrity if r != "ok"}, set())
    battery.at_least("hub kills during the retries", hub.kills, kills // 2)


@pytest.mark.battery("B4-retention", "an idempotency key lasts as long as its message is retained")
async def test_key_holds_until_retention_purges_its_message(battery: Battery) -> None:
    """Retention R = 2 s (sweeps every second): a retry at R − ε returns the original message;
    after the purge the same key sends a new one; another payload under a live key is ABORTED,
    also after a restart."""
    retention = 2.0
    hub = CrashHub(battery.dir / "data", extra_args=("--message-retention", str(retention), "--stale-after", "3"))
    hub.start()
    history = History(battery.dir / "history.jsonl")
    mesh = await Mesh.create(hub, battery, history, 2)
    alice, bob = mesh.agents
    rounds = battery.size(pr=3, long=10)
    try:
        for n in range(rounds):
            key = f"retained-{n}"
            first = await alice.client.messages.send(bob.id, key, idempotency_key=key, timeout=5.0)
            await bob.client.messages.reply(first.message.id, "done", timeout=5.0)
            ended = time.monotonic()
            await asyncio.sleep(retention * battery.random.uniform(0.1, 0.5))  # R − ε
            again = await alice.client.messages.send(bob.id, key, idempotency_key=key, timeout=5.0)
            battery.invariant(
                f"retry before R returns the original ({n})",
                (again.message.id, again.repeated),
                (first.message.id, True),
            )
            with pytest.raises(Aborted) as conflict:
                await alice.client.messages.send(bob.id, key + " changed", idempotency_key=key, timeout=5.0)
            battery.invariant(
                f"another payload under the key ({n})", conflict.value.reason, Reason.IDEMPOTENCY_CONFLICT
            )
            # After R the purge frees the key (at the next sweep); until then it answers as before.
            purged_at = None
            for _ in battery.bounded(200, 15.0):
                try:
                    await alice.client.messages.get(first.message.id, timeout=5.0)
                except NotFound:
                    purged_at = time.monotonic()
                    break
                # Bob makes no other call meanwhile: on a loaded machine the purge can take longer
                # than the 3 s presence window, and the fresh send below needs him online.
                await bob.client.agents.heartbeat(timeout=5.0)
                await asyncio.sleep(0.1)
            assert purged_at is not None, "retention never purged the ended message"
            battery.invariant(f"not purged before R ({n})", purged_at - ended >= retention, True)
            battery.add("purge_delay_after_R_ms", round((purged_at - ended - retention) * 1000))
            fresh = await alice.client.messages.send(bob.id, key, idempotency_key=key, timeout=5.0)
            battery.invariant(
                f"after the purge the key sends anew ({n})",
                (fresh.repeated, fresh.message.id != first.message.id),
                (False, True),
            )
        # Across a restart a live key still refuses another payload.
        live = await alice.client.messages.send(bob.id, "live", idempotency_key="live", timeout=5.0)
        await asyncio.to_thread(hub.restart)
        with pytest.raises(Aborted) as conflict:
            await retry_until_answered(
                lambda: alice.client.messages.send(bob.id, "other", idempotency_key="live", timeout=5.0)
            )
        battery.invariant("conflict after a restart", conflict.value.reason, Reason.IDEMPOTENCY_CONFLICT)
        same = await alice.client.messages.send(bob.id, "live", idempotency_key="live", timeout=5.0)
        battery.invariant("retry after a restart", same.message.id, live.message.id)
        battery.figure("rounds", rounds)
    finally:
        await mesh.close()
        hub.stop()
        history.close()


async def retry_until_answered(call: Callable[[], Awaitable[Any]]) -> Any:
    """``call`` again while the restarted hub is not serving yet (UNAVAILABLE), at most 10 s."""
    deadline = time.monotonic() + 10
    while True:
        try:
            return await call()
        except Unavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
