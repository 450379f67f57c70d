"""B7: fenced leases under contention, holder pauses past their TTL and hub kill -9 restarts.

16 agents contend for 4 lease names with a 1 s TTL (the hub runs with the testing-only
``--testing-lease-min-ttl``). Holders write to a protected resource that asks the hub ``CheckFence``
before committing; about a third of holders pause for 1.5–3 TTLs without renewing (as a GC pause
or SIGSTOP would), then immediately write with their old token. Meanwhile the hub is killed with
SIGKILL every few seconds and restarted on the same database.

The checker works from two records: what clients saw (grants, write attempts and the hub's
verdicts, with wall-clock times) and the hub's grant log (``lease_acquired``, ``lease_renewed``,
``lease_released``, ``lease_resumed`` with hub-clock times; the hub clock is this machine's wall
clock). It proves:

- at most one live holder per name at any hub instant (grant lifetimes never overlap);
- fencing tokens strictly increase per name in the order granted, across every restart;
- every write whose token had been superseded before the write began was refused by CheckFence,
  and every write CheckFence accepted happened within its grant's lifetime.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import socket
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.client.base import CHANNEL_OPTIONS
from kxm_grpc.errors import Aborted, FailedPrecondition, HubError, NotFound
from tests.harness import ADMIN_TOKEN, HubProcess

pytestmark = pytest.mark.slow

AGENTS = 16
NAMES = ("lease-a", "lease-b", "lease-c", "lease-d")
TTL = 1.0
RUN_SECONDS = 30.0
MAX_SECONDS = 150.0
MIN_RESTARTS = 4
MIN_GRANTS = 60
MIN_STALE = 20
PAUSE_PROBABILITY = 0.5
SEED = 20260101
# Reconnect quickly after a restart (the default backoff starts at 1 s and grows).
FAST_RECONNECT = [
    *CHANNEL_OPTIONS,
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 300),
]


def wall_micros() -> int:
    """This machine's wall clock in microseconds (the hub's clock too)."""
    return time.time_ns() // 1000


def free_port() -> int:
    """A port nothing listens on now; the hub is restarted on it every time."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Grant:
    """A grant as its holder saw it."""

    name: str
    token: int
    agent_id: str
    acquire_time: int
    expire_time: int
    observed_at: int
    renewed: bool


@dataclass
class Attempt:
    """One write to the protected resource: the token presented and the hub's verdict."""

    name: str
    token: int
    agent_id: str
    started: int
    ended: int
    verdict: str
    committed: bool
    after_pause: bool


@dataclass
class History:
    """Everything the clients saw."""

    grants: list[Grant] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    restarts: int = 0
    unavailable: int = 0


class Resource:
    """A store protected by the leases: it commits a write only if CheckFence says the token is current.

    It also keeps the highest token it committed per name (Kleppmann's storage-side check), but the
    checker judges the hub's verdict alone.
    """

    def __init__(self, client: HubClient, history: History) -> None:
        self._client = client
        self._history = history
        self._highest: dict[str, int] = defaultdict(int)

    async def write(self, name: str, token: int, agent_id: str, *, after_pause: bool = False) -> bool:
        """Try one write; return whether it was committed."""
        for _ in range(40):  # while the hub restarts, retry for up to about 4 s
            started = wall_micros()
            try:
                await self._client.check_fence(name, token)
                verdict = "ok"
            except Aborted:
                verdict = "superseded"
            except FailedPrecondition:
                verdict = "expired"
            except NotFound:
                verdict = "not_found"
            except HubError:
                verdict = "unavailable"
                await asyncio.sleep(0.1)
                continue
            break
        committed = verdict == "ok" and token >= self._highest[name]
        if committed:
            self._highest[name] = token
        self._history.attempts.append(
            Attempt(name, token, agent_id, started, wall_micros(), verdict, committed, after_pause)
        )
        return committed


@dataclass
class Run:
    """How long the run goes on: ``RUN_SECONDS`` at least, and until it did enough to be a real one
    (counts, not a fixed time: a loaded machine does less per second), never past ``MAX_SECONDS``."""

    history: History
    began: float = field(default_factory=time.monotonic)
    chaos_ended: float | None = None

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def chaos_goes_on(self) -> bool:
        """Kills go on for ``RUN_SECONDS - 3`` and ``MIN_RESTARTS`` restarts at least."""
        if self.elapsed() >= MAX_SECONDS - 3:
            return False
        return self.elapsed() < RUN_SECONDS - 3 or self.history.restarts < MIN_RESTARTS

    def agents_go_on(self) -> bool:
        """Agents go on 3 s past the last kill, and until enough grants and stale writes were seen."""
        if self.elapsed() >= MAX_SECONDS:
            return False
        if self.chaos_ended is None or time.monotonic() - self.chaos_ended < 3:
            return True
        stale = sum(a.after_pause for a in self.history.attempts if a.verdict != "unavailable")
        return len(self.history.grants) < MIN_GRANTS or stale < MIN_STALE


async def agent_loop(client: HubClient, resource: Resource, history: History, rng: random.Random, run: Run) -> None:
    """Acquire a random name (waiting), write a few times renewing in between, then release or pause."""
    agent_id = client.agent_id or ""
    while run.agents_go_on():
        name = rng.choice(NAMES)
        try:
            response = await client.acquire_lease(name, ttl=TTL, wait=2.0, timeout=4.0)
        except FailedPrecondition:
            continue
        except HubError:
            history.unavailable += 1
            await asyncio.sleep(0.1)
            continue
        granted = response.lease
        token = granted.fencing_token
        history.grants.append(
            Grant(
                name,
                token,
                agent_id,
                granted.acquire_time.ToMicroseconds(),
                granted.expire_time.ToMicroseconds(),
                wall_micros(),
                response.renewed,
            )
        )
        holding = True
        for _ in range(rng.randint(1, 3)):
            if not await resource.write(name, token, agent_id):
                holding = False
                break
            await asyncio.sleep(rng.uniform(0.05, 0.15))
            try:
                await client.renew_lease(name, token, ttl=TTL)
            except HubError:
                holding = False
                break
        if rng.random() < PAUSE_PROBABILITY:
            # A pause past the TTL (GC, SIGSTOP): no renewals, then a write with the old token at once.
            await asyncio.sleep(rng.uniform(1.5, 3.0) * TTL)
            await resource.write(name, token, agent_id, after_pause=True)
            continue
        if holding:
            with contextlib.suppress(HubError):
                await client.release_lease(name, token)


async def chaos(process: HubProcess, history: History, rng: random.Random, run: Run) -> None:
    """kill -9 the hub every 2.5–5 s and restart it on the same data directory."""
    while run.chaos_goes_on():
        await asyncio.sleep(rng.uniform(2.5, 5.0))
        await asyncio.to_thread(process.restart)
        history.restarts += 1
    run.chaos_ended = time.monotonic()


# -- the hub's grant log --------------------------------------------------------------------------


@dataclass
class LoggedGrant:
    """One grant's life as the hub logged it."""

    name: str
    token: int
    agent_id: str
    acquire_time: int
    expire_times: list[int]
    release_time: int | None = None

    @property
    def end(self) -> int:
        """When the grant stopped being live: its release, else its last expiry."""
        last_expiry = max(self.expire_times)
        return last_expiry if self.release_time is None else min(self.release_time, last_expiry)


def read_log(path: Path) -> Iterator[dict[str, object]]:
    """The hub's JSON log lines (other lines skipped)."""
    for line in path.read_text().splitlines():
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except ValueError:
                continue


def logged_grants(path: Path) -> tuple[dict[tuple[str, int], LoggedGrant], dict[str, list[int]], list[str]]:
    """Grants by (name, token), new-grant tokens per name in log order, and inconsistencies."""
    grants: dict[tuple[str, int], LoggedGrant] = {}
    order: dict[str, list[int]] = defaultdict(list)
    problems: list[str] = []
    for entry in read_log(path):
        event = entry.get("event")
        if event not in ("lease_acquired", "lease_renewed", "lease_released", "lease_resumed"):
            continue
        key = (str(entry["name"]), int(entry["fencing_token"]))  # type: ignore[call-overload]
        if event == "lease_acquired" and not entry["renewed"]:
            if key in grants:
                problems.append(f"token reused: {key} granted twice")
                continue
            grants[key] = LoggedGrant(
                key[0],
                key[1],
                str(entry["holder_agent_id"]),
                int(entry["acquire_time"]),  # type: ignore[call-overload]
                [int(entry["expire_time"])],  # type: ignore[call-overload]
            )
            order[key[0]].append(key[1])
            continue
        grant = grants.get(key)
        if grant is None and event == "lease_resumed":
            # Granted just before a kill -9, before its log line was written (its holder never got
            # the answer either); the restart extends it, and says so.
            grant = grants[key] = LoggedGrant(
                key[0],
                key[1],
                str(entry["holder_agent_id"]),
                int(entry["acquire_time"]),  # type: ignore[call-overload]
                [],
            )
            order[key[0]].append(key[1])
        if grant is None:
            problems.append(f"{event} for a grant never logged: {key}")
            continue
        if event == "lease_released":
            grant.release_time = int(entry["release_time"])  # type: ignore[call-overload]
        else:
            grant.expire_times.append(int(entry["expire_time"]))  # type: ignore[call-overload]
    return grants, order, problems


# -- the test -------------------------------------------------------------------------------------


async def test_fenced_leases_survive_contention_pauses_and_kill_9(tmp_path: Path) -> None:
    """At most one live holder per name, strictly increasing tokens across restarts, stale writes refused."""
    port = free_port()
    process = HubProcess(
        tmp_path / "data",
        # A 3 s presence window makes the sweeps (and the hub's alive mark) run every second.
        extra_args=("--testing-lease-min-ttl", "0.5", "--stale-after", "3", "--port", str(port)),
    )
    address = process.start()
    history = History()
    clients: list[HubClient] = []

    def client(token: str) -> HubClient:
        made = HubClient(
            address, token=token, timeout=5.0, channel=grpc.aio.insecure_channel(address, options=FAST_RECONNECT)
        )
        clients.append(made)
        return made

    try:
        admin = client(ADMIN_TOKEN)
        token = (await admin.create_project("alpha")).project_token
        agents = [client(token) for _ in range(AGENTS)]
        for index, agent in enumerate(agents):
            await agent.register_agent(f"worker-{index:02d}")
        resource = Resource(client(token), history)
        run = Run(history)
        rng = random.Random(SEED)
        await asyncio.gather(
            chaos(process, history, random.Random(rng.random()), run),
            *(agent_loop(agent, resource, history, random.Random(rng.random()), run) for agent in agents),
        )
    finally:
        for made in clients:
            await made.close()
        process.stop()

    grants, order, problems = logged_grants(process.log_path)
    assert problems == []
    answered = [a for a in history.attempts if a.verdict != "unavailable"]
    # A write is stale when a newer grant of its name had reached its holder before the write
    # began (superseded), or when its own grant had ended by then per the hub's log (lapsed).
    superseded = [
        a
        for a in answered
        if any(g.name == a.name and g.token > a.token and g.observed_at < a.started for g in history.grants)
    ]
    lapsed = [a for a in answered if a not in superseded and grants[(a.name, a.token)].end <= a.started]

    # Every grant a client saw is in the hub's log, exactly.
    for seen in history.grants:
        logged = grants.get((seen.name, seen.token))
        assert logged is not None, f"grant {seen} missing from the hub log"
        assert (logged.agent_id, logged.acquire_time) == (seen.agent_id, seen.acquire_time)
        # An acquire by the live holder (after a restart gave its lapsed-at-crash grant back) extends it.
        assert seen.expire_time in (logged.expire_times if seen.renewed else logged.expire_times[:1])

    # Tokens strictly increase per name in the order the hub granted them, across every restart.
    regressions = {name: tokens for name, tokens in order.items() if tokens != sorted(set(tokens))}
    assert regressions == {}

    # At most one live holder per name at any hub instant: grant lifetimes never overlap.
    overlaps = []
    for name in NAMES:
        lives = sorted((g for g in grants.values() if g.name == name), key=lambda g: g.token)
        for earlier, later in itertools.pairwise(lives):
            if later.acquire_time < earlier.end:
                overlaps.append((name, earlier.token, later.token, earlier.end - later.acquire_time))
    assert overlaps == []

    # Every write with a stale token was refused by the hub.
    assert [a for a in superseded + lapsed if a.verdict == "ok"] == []
    # Every write the hub accepted happened within its grant's life.
    outside = [
        a
        for a in answered
        if a.verdict == "ok"
        and not (grants[(a.name, a.token)].acquire_time <= a.ended and a.started < grants[(a.name, a.token)].end)
    ]
    assert outside == []

    # The run was a real one.
    assert history.restarts >= MIN_RESTARTS
    assert len(grants) >= MIN_GRANTS
    assert len(superseded) + len(lapsed) >= MIN_STALE, (
        f"only {len(superseded) + len(lapsed)} stale writes were attempted"
    )
    print(
        f"\nB7: {history.restarts} restarts, {len(grants)} grants, {len(history.attempts)} writes "
        f"({sum(a.committed for a in history.attempts)} committed), {len(superseded)} superseded and "
        f"{len(lapsed)} lapsed writes all refused, "
        f"{sum(a.after_pause for a in history.attempts)} writes after a pause, "
        f"{history.unavailable} acquires hit a down hub"
    )
