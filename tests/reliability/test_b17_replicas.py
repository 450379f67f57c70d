"""B17: two hub replicas on one PostgreSQL database keep B1, B4, B5 and B7's promises while killed.

Two ``kxm hub serve`` replicas (``--database postgresql://…``, one admin token, ``--replica-ttl 1``)
share a throwaway PostgreSQL database; every client is a failover client of both addresses
(``kxm_grpc.client.addresses``: pick_first, safe calls retried on UNAVAILABLE). The replicas are
killed with SIGKILL in turn, each restarted at once on its port while the other serves (and the
failpoint ``lease_grant_after_token`` kills one now and then too). Meanwhile, at a smaller size
than the single-hub batteries:

- **B7, fencing**: agent processes (``fenced.py``) contend for leases with a 1 s TTL, holders are
  paused with SIGSTOP past their TTL and write at once with their old token; tokens come from the
  database's one fence row per lease, and every grant, renewal and lapse is decided in a database
  transaction (on the replica's reading of the database's clock, decision 75);
- **B1, B4 and B5, messaging**: agents send to random others with an idempotency key, repeat each
  send 1–3 times with the same key (answered with the original message) and now and then with the
  same key and another payload (refused, ``ABORTED`` ``IDEMPOTENCY_CONFLICT``); every recipient
  reads its inbox on raw Subscribe streams that it drops at random and resumes after the last
  sequence it saw, acknowledging every message.

The faults stop, the inboxes drain, and the checkers run over the histories, the replicas' grant
logs and the final database: the same zeros as B1 (lost, unexpected, stored twice, redelivered
after an acknowledgement), B4 (repeats stored once and answered with the original id, conflicts
refused), B5 (Ordered, Unique, Reliable, Resumable) and B7 (stale writes refused, tokens strictly
increasing and never reused, one holder at a time, no early expiry).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

import grpc
import pytest

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as pb
from kxm_grpc.client import HubClient
from kxm_grpc.errors import Aborted, HubError, Reason
from kxm_grpc.store.tables import raw_connection
from tests.reliability import checkers, fenced
from tests.reliability.battery import Battery
from tests.reliability.history import History, outcome_of
from tests.reliability.hubs import ADMIN_TOKEN, CrashHub

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(1500)]

TTL = 1.0
PAUSE = (1.5 * TTL, 3.0 * TTL)
REPLICA_ARGS = ("--replica-ttl", "1", "--stale-after", "2", "--testing-lease-min-ttl", "0.5")
CLOCK_TOLERANCE_US = 250_000
"""How far two replicas' readings of the database's clock may differ (decision 75: within half a
round trip when measured, then the monotonic clock; re-read every 30 s). On a quiet machine they
agree to a few ms; on this 2-core machine under a load average of 15-20 they were seen ~90 ms apart
(``log_overlap_max_tolerated_us`` reports the largest disagreement a run saw)."""


@dataclass
class Faults(fenced.Controller):
    """The controller's record: pauses (``fenced.Controller``), replica kills and restarts."""

    restarts: list[float] = field(default_factory=list)
    """When each kill (or a failpoint's death) ended a replica's life (monotonic seconds)."""
    kills: dict[str, int] = field(default_factory=dict)
    """Kills per replica (a plain dict: ``asdict`` of a Counter miscounts it)."""
    deaths: int = 0
    """Replicas found dead by themselves (the failpoint) and restarted."""
    restart_seconds: list[float] = field(default_factory=list)


async def replica_faults(
    battery: Battery, replicas: list[CrashHub], faults: Faults, stop: asyncio.Event, *, interval: tuple[float, float]
) -> None:
    """Kill the replicas in turn, one every U[interval] s, each restarted at once while the other serves;
    restart any replica the failpoint killed."""
    loop = asyncio.get_running_loop()

    async def restart(replica: CrashHub) -> None:
        await asyncio.to_thread(replica.kill)
        faults.restarts.append(time.monotonic())
        began = time.monotonic()
        await asyncio.to_thread(replica.start, 60.0)
        faults.restart_seconds.append(time.monotonic() - began)

    async def watch(seconds: float) -> bool:
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            if stop.is_set():
                return False
            for replica in replicas:
                if not replica.alive():
                    faults.deaths += 1
                    await restart(replica)
            await asyncio.sleep(0.05)
        return not stop.is_set()

    for turn in battery.bounded(100_000, 3600):
        if not await watch(battery.random.uniform(*interval)):
            return
        victim = replicas[turn % len(replicas)]
        faults.kills[victim.data_dir.name] = faults.kills.get(victim.data_dir.name, 0) + 1
        await restart(victim)


# -- messaging: B1, B4, B5 -----------------------------------------------------------------------


@dataclass
class Inbox:
    name: str
    client: HubClient
    sessions: list[checkers.Session] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    """Keys received, once per delivery."""
    acked: set[str] = field(default_factory=set)
    """Keys whose acknowledgement the hub answered OK."""
    redelivered_after_ack: list[str] = field(default_factory=list)
    last_seq: int = 0
    drops: int = 0

    @property
    def id(self) -> str:
        assert self.client.agent_id is not None
        return self.client.agent_id


@dataclass
class Mesh:
    """Agents on failover clients sending to each other and consuming their inboxes."""

    battery: Battery
    history: History
    agents: list[Inbox] = field(default_factory=list)
    repeats_answered: list[tuple[str, str, str]] = field(default_factory=list)
    """(key, original id, id the repeat returned) for every repeat answered OK."""
    conflicts: Counter[str] = field(default_factory=Counter)
    """Same key, other payload: how each attempt ended (``refused``, ``accepted``, ``other``, ``info``)."""

    async def send_all(self, per_agent: int, pace: float, stop: asyncio.Event) -> None:
        async def sender(agent: Inbox) -> None:
            for index in range(per_agent):
                if stop.is_set():
                    return
                target = self.battery.random.choice([a for a in self.agents if a is not agent])
                key = f"{agent.name}-{index}"
                original = await self.send(agent, target, key, key, "send")
                repeats = self.battery.random.randint(1, 3)
                for _ in range(repeats):
                    await asyncio.sleep(self.battery.random.uniform(0, pace))
                    again = await self.send(agent, target, key, key, "repeat")
                    if original and again:
                        self.repeats_answered.append((key, original, again))
                    original = original or again
                if original and self.battery.random.random() < 0.15:
                    await self.conflict(agent, target, key)
                await asyncio.sleep(self.battery.random.uniform(0, 2 * pace))

        await asyncio.gather(*(sender(a) for a in self.agents))

    async def send(self, agent: Inbox, target: Inbox, key: str, content: str, op: str) -> str:
        """One send (retried while indeterminate, always with ``key``); the message id, or "" if refused."""
        backoff = 0.05
        for _ in self.battery.bounded(40, 60.0):
            try:
                async with self.history.record(op, agent=agent.name, key=target.name, idem=key) as entry:
                    sent = await agent.client.messages.send(
                        target.id, content, idempotency_key=key, allow_offline=True, timeout=5.0
                    )
                    entry.value = sent.message.id
                return str(sent.message.id)
            except (HubError, grpc.aio.AioRpcError) as error:
                if outcome_of(error) == "fail":
                    return ""
            await asyncio.sleep(self.battery.random.uniform(backoff / 2, backoff))
            backoff = min(1.0, backoff * 2)
        return ""

    async def conflict(self, agent: Inbox, target: Inbox, key: str) -> None:
        try:
            async with self.history.record("conflict", agent=agent.name, key=target.name, idem=key):
                await agent.client.messages.send(
                    target.id, key + " (changed)", idempotency_key=key, allow_offline=True, timeout=5.0
                )
            self.conflicts["accepted"] += 1
        except Aborted as error:
            self.conflicts["refused" if error.reason == Reason.IDEMPOTENCY_CONFLICT else "other"] += 1
        except (HubError, grpc.aio.AioRpcError) as error:
            self.conflicts["info" if outcome_of(error) == "info" else "other"] += 1

    async def consume(self, agent: Inbox, stop: asyncio.Event, drop: float) -> None:
        """The agent's inbox on raw Subscribe streams until ``stop``: record each session, ack every
        message, and drop the stream after an event with probability ``drop`` (then resume)."""
        stub = agent.client.messages._rpc()
        backoff = 0.05
        while not stop.is_set():
            session = checkers.Session(agent.name, resumed_after=agent.last_seq)
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
                    agent.received.append(key)
                    if key in agent.acked:
                        agent.redelivered_after_ack.append(key)
                    if await self.ack(agent, event.message.id, key):
                        session.acked.append(event.seq)
                    if self.battery.random.random() < drop:
                        agent.drops += 1
                        break
            except (StopAsyncIteration, grpc.aio.AioRpcError):
                pass
            finally:
                call.cancel()
                waiter.cancel()
            await asyncio.sleep(self.battery.random.uniform(backoff / 2, backoff))
            backoff = min(1.0, backoff * 2)

    async def ack(self, agent: Inbox, message_id: str, key: str) -> bool:
        try:
            async with self.history.record("ack", agent=agent.name, idem=key):
                await agent.client.messages.ack([message_id], timeout=5.0)
        except (HubError, grpc.aio.AioRpcError):
            return False  # unacknowledged: it comes again on a later session
        agent.acked.add(key)
        return True

    async def close(self) -> None:
        for agent in self.agents:
            await agent.client.close()


def stored_messages(url: str, project: str) -> list[tuple[str, str, int, str]]:
    """(recipient id, idempotency key, inbox sequence, state) of every message of ``project``."""
    with raw_connection(url) as conn:
        rows = conn.execute(
            "SELECT to_agent_id, idempotency_key, seq, state FROM messages WHERE project = ?", (project,)
        ).fetchall()
    return [(str(r[0]), str(r[1]), int(r[2]), str(r[3])) for r in rows]


def final_fences(url: str, project: str) -> dict[str, int]:
    with raw_connection(url) as conn:
        rows = conn.execute("SELECT name, fencing_token FROM leases WHERE project = ?", (project,)).fetchall()
    return {str(name): int(token) for name, token in rows}


async def drain(mesh: Mesh, url: str, project: str, seconds: float) -> bool:
    """Wait until every stored message was received by its recipient and acknowledged in the database."""
    deadline = time.monotonic() + seconds
    by_id = {a.id: a for a in mesh.agents}
    while time.monotonic() < deadline:
        rows = await asyncio.to_thread(stored_messages, url, project)
        if all(key in by_id[to].received and state != "queued" for to, key, _, state in rows):
            return True
        await asyncio.sleep(0.2)
    return False


# -- the test -------------------------------------------------------------------------------------


@pytest.mark.battery("B17", "two replicas on PostgreSQL keep every promise while killed")
async def test_two_replicas_keep_every_promise_while_killed(battery: Battery, postgres_database: str) -> None:
    url = postgres_database
    fencing_agents = battery.size(pr=8, long=16)
    leases = ["lease-a", "lease-b"] if battery.tier == "pr" else ["lease-a", "lease-b", "lease-c", "lease-d"]
    mesh_agents = battery.size(pr=6, long=16)
    sends = battery.size(pr=30, long=150)
    kill_target = battery.size(pr=12, long=100)
    stale_target = battery.size(pr=60, long=400)
    least_seconds = battery.size(pr=45.0, long=480.0)
    cap_seconds = battery.size(pr=400.0, long=900.0)  # a cap for a starved machine, not the plan

    replicas = [
        CrashHub(
            battery.dir / f"replica{index}",
            database=url,
            failpoints="lease_grant_after_token=2%kill",
            seed=battery.seed + index,
            extra_args=REPLICA_ARGS,
        )
        for index in range(2)
    ]
    for replica in replicas:
        replica.start(timeout=60.0)
    address = ",".join(r.address for r in replicas)
    admin = fenced.fast_client(address, token=ADMIN_TOKEN, timeout=10.0)
    try:
        fencing_token = (await admin.admin.create_project("fencing")).project_token
        mesh_token = (await admin.admin.create_project("mesh")).project_token
    finally:
        await admin.close()

    (battery.dir / "fencing").mkdir()
    agents = await fenced.spawn_agents(
        battery.dir / "fencing",
        address,
        fencing_token,
        battery.random,
        count=fencing_agents,
        leases=leases,
        ttl=TTL,
        writers=2,
    )
    history = History(battery.dir / "mesh.jsonl")
    mesh = Mesh(battery, history)
    for index in range(mesh_agents):
        client = fenced.fast_client(address, token=mesh_token, timeout=5.0)
        await client.agents.register(f"mesh-{index:02d}")
        mesh.agents.append(Inbox(f"mesh-{index:02d}", client))
    observer = fenced.fast_client(address, token=fencing_token, timeout=2.0)

    faults = Faults()
    stop, stop_consumers = asyncio.Event(), asyncio.Event()
    began = time.monotonic()
    workers = [
        asyncio.create_task(
            fenced.pause_holders(
                battery.random, observer, agents, faults, stop, probability=battery.size(pr=0.9, long=0.6), length=PAUSE
            )
        ),
        asyncio.create_task(replica_faults(battery, replicas, faults, stop, interval=(1.5, 3.5))),
        asyncio.create_task(mesh.send_all(sends, pace=least_seconds / sends / 2, stop=stop)),
    ]
    consumers = [asyncio.create_task(mesh.consume(a, stop_consumers, drop=0.05)) for a in mesh.agents]
    outcomes: list[Any] = []
    try:
        stale, counted = 0, 0.0
        logs = [r.log_path for r in replicas]
        while time.monotonic() - began < cap_seconds:
            await asyncio.sleep(0.5)
            if any(w.done() and w is not workers[2] for w in workers):
                break
            if stale < stale_target * 1.1 and time.monotonic() - counted > 5.0:
                stale = await asyncio.to_thread(
                    fenced.stale_so_far,
                    agents,
                    logs,
                    "fencing",
                    ttl=TTL,
                    restarts=faults.restarts,
                    overlap_tolerance_us=CLOCK_TOLERANCE_US,
                    restarts_log_extensions=False,
                )
                counted = time.monotonic()
            enough = (
                stale >= stale_target * 1.1
                and sum(faults.kills.values()) >= kill_target + 2
                and workers[2].done()
                and time.monotonic() - began >= least_seconds
            )
            if enough:
                break
        battery.figure("chaos_seconds", round(time.monotonic() - began, 1))
    finally:
        stop.set()
        outcomes = await asyncio.gather(*workers, return_exceptions=True)
        killed = await asyncio.to_thread(fenced.stop_agents, agents, battery.dir / "fencing" / "stop")
        await observer.close()
        for replica in replicas:
            if not replica.alive():
                await asyncio.to_thread(replica.restart, 60.0)
        drained = await drain(mesh, url, "mesh", battery.size(pr=60.0, long=180.0))
        stop_consumers.set()
        outcomes += await asyncio.gather(*consumers, return_exceptions=True)
        await mesh.close()
        history.close()
        for replica in replicas:
            replica.stop()
        for replica in replicas:
            replica.kill()
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    (battery.dir / "controller.json").write_text(json.dumps(faults.record()))

    # B7 on replicas.
    ops = fenced.read_histories(a.history for a in agents)
    log = fenced.read_log([r.log_path for r in replicas], "fencing")
    verdict = fenced.check(
        ops,
        log,
        final_fences(url, "fencing"),
        ttl=TTL,
        pauses=faults.pauses,
        restarts=faults.restarts,
        slack=CLOCK_TOLERANCE_US / 1e6,
        overlap_tolerance_us=CLOCK_TOLERANCE_US,
        restarts_log_extensions=False,
    )
    # B1, B4, B5 on replicas.
    stored = stored_messages(url, "mesh")
    queue = checkers.total_queue(
        ((op.idem, op.type) for op in history.ops if op.op in ("send", "repeat")),
        (key for agent in mesh.agents for key in agent.received),
        redelivered_after_ack=(key for agent in mesh.agents for key in agent.redelivered_after_ack),
        stored_keys=(key for _, key, _, _ in stored),
    )
    by_id = {a.id: a.name for a in mesh.agents}
    inboxes: dict[str, list[int]] = defaultdict(list)
    for to, _, seq, _ in stored:
        inboxes[by_id[to]].append(seq)
    watch = checkers.watch([s for a in mesh.agents for s in a.sessions], inboxes)

    report(battery, replicas, faults, verdict, ops, mesh, queue, watch, stored, killed, drained)
    fencing = verdict.fencing
    battery.invariant("B7 stale-token writes accepted", [asdict(w) for w in fencing.stale_accepted], [])
    battery.invariant(
        "B7 superseded writes refused as ABORTED (LEASE_SUPERSEDED)",
        verdict.stale_refused_superseded,
        fencing.stale_attempts - verdict.stale_lapsed,
    )
    battery.invariant("B7 token regressions in the hubs' grant order", fencing.token_regressions, [])
    battery.invariant("B7 tokens granted twice", verdict.token_reuses + verdict.log_problems, [])
    battery.invariant("B7 tokens out of order in a replica's grant log", verdict.log_order_regressions, [])
    battery.invariant("B7 renewals accepted after a newer grant (two holders)", fencing.overlapping_holders, [])
    battery.invariant("B7 overlapping grant lives across the replicas' logs", verdict.log_overlaps, [])
    battery.invariant("B7 acknowledged grants missing from the replicas' logs", verdict.missing_from_log, [])
    battery.invariant("B7 final fences behind a granted token", verdict.fences_behind, [])
    battery.invariant("B7 leases lapsed before TTL after their last renewal", verdict.early_expiries, [])
    battery.invariant("B7 replicas' clocks off the database's", verdict.clock_offsets_inconsistent, [])
    battery.invariant("B1 lost", queue.lost, set())
    battery.invariant("B1 unexpected", queue.unexpected, set())
    battery.invariant("B1 redelivered after an acknowledgement answered OK", queue.duplicated, set())
    battery.invariant("B1/B4 duplicates stored", queue.stored_duplicates, 0)
    battery.invariant("B1 every stored message acknowledged", drained, True)
    battery.invariant(
        "B4 repeats answered with another message id", [r for r in mesh.repeats_answered if r[1] != r[2]], []
    )
    battery.invariant(
        "B4 same key, other payload: accepted or refused otherwise",
        mesh.conflicts["accepted"] + mesh.conflicts["other"],
        0,
    )
    battery.invariant("B5 out of order", watch.out_of_order, [])
    battery.invariant("B5 duplicates within a session", watch.duplicates_in_session, 0)
    battery.invariant("B5 gaps", watch.gaps, [])
    battery.invariant("B5 redelivered after an acknowledgement", watch.redelivered_after_ack, [])
    battery.invariant("B5 stored and never delivered", watch.never_delivered, [])
    battery.at_least("replica kills", sum(faults.kills.values()), kill_target)
    battery.at_least("B7 stale-token writes attempted", fencing.stale_attempts, stale_target)
    battery.at_least("B4 repeats answered", len(mesh.repeats_answered), sends * mesh_agents // 2)
    battery.at_least("B4 conflicting payloads refused", mesh.conflicts["refused"], 1)
    battery.at_least("B5 sessions", watch.sessions, mesh_agents * 2)


def report(
    battery: Battery,
    replicas: list[CrashHub],
    faults: Faults,
    verdict: fenced.FencedVerdict,
    ops: list[Any],
    mesh: Mesh,
    queue: checkers.QueueVerdict,
    watch: checkers.WatchVerdict,
    stored: list[tuple[str, str, int, str]],
    killed: int,
    drained: bool,
) -> None:
    battery.figure("replicas", len(replicas))
    battery.figure("replica_kills", dict(faults.kills))
    battery.figure("replica_deaths_by_failpoint", faults.deaths)
    if faults.restart_seconds:
        ordered = sorted(faults.restart_seconds)
        battery.figure("replica_restart_to_ready_p50_s", round(ordered[len(ordered) // 2], 3))
        battery.figure("replica_restart_to_ready_max_s", round(ordered[-1], 3))
    battery.figure("fencing_agents_killed_at_stop", killed)
    battery.figure("holder_pauses", len(faults.pauses))
    battery.figure("holder_pauses_superseded", faults.superseded_pauses)
    battery.figure("grants", verdict.grants)
    battery.figure("renewals", verdict.renewals)
    battery.figure("highest_token_per_lease", verdict.tokens_per_lease)
    battery.figure("fenced_writes_answered", verdict.writes_answered)
    battery.figure("fenced_writes_accepted", verdict.writes_accepted)
    battery.figure("writes_refused", verdict.refused)
    battery.figure("stale_writes", verdict.fencing.stale_attempts)
    battery.figure("stale_writes_lapsed", verdict.stale_lapsed)
    battery.figure("stale_writes_accepted", len(verdict.fencing.stale_accepted))
    battery.figure("holder_calls_within_ttl", verdict.checks_within_ttl)
    battery.figure("log_overlap_max_tolerated_us", verdict.log_overlap_max_tolerated)
    battery.figure("grants_revived_after_expired", verdict.revived)
    battery.figure("grants_revived_after_expired_across_restart", verdict.revived_across_restart)
    battery.figure("replica_clock_offset_widest_us", verdict.clock_offset_widest_us)
    battery.figure("fencing_calls_indeterminate", sum(1 for op in ops if op.type == "info"))
    battery.figure("mesh_agents", len(mesh.agents))
    battery.figure("send_attempts", sum(1 for op in mesh.history.ops if op.op in ("send", "repeat")))
    battery.figure("sends_acknowledged", queue.acknowledged)
    battery.figure("repeats_answered", len(mesh.repeats_answered))
    battery.figure("conflicts", dict(mesh.conflicts))
    battery.figure("messages_stored", len(stored))
    battery.figure("messages_delivered", queue.delivered)
    battery.figure("recovered_indeterminate", len(queue.recovered))
    battery.figure("subscription_sessions", watch.sessions)
    battery.figure("stream_drops", sum(a.drops for a in mesh.agents))
    battery.figure("events_checked", watch.events)
    battery.figure("drained", drained)
