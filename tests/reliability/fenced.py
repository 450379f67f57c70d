"""Fenced writers for B7 and B17: agent processes contending for leases, and the check of what they saw.

**Agents.** Each agent is its own process (``python -m tests.reliability.fenced CONFIG``), so the
battery can pause it with a real SIGSTOP. It loops: acquire a random lease of the few (waiting for
it), then hold it for a while: ``writers`` tasks write to the protected resource while a renewer
renews every TTL/3; then release it. A write is the fencing contract of docs/leases.md with the hub
as the judge: ``CheckFence(name, token)``, and the write counts as committed only if the hub
answered OK (the resource's own highest-token check would hide a wrong answer, so it is left out
here). A refusal (superseded, expired, released) ends the hold: the agent stops and acquires again.
Each writer writes first and sleeps after, so an agent resumed after a pause past its TTL writes at
once, with its old token. Every call is one line of the agent's history (``history.Op``; times on
``time.monotonic()``, which is CLOCK_MONOTONIC, one clock for every process of the machine).

**Check.** ``check`` reads the agents' histories, the hub's grant log and the final fences, and
returns the verdict the battery asserts (see ``FencedVerdict``).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import grpc

from kxm_grpc.client import HubClient
from kxm_grpc.client.addresses import parse_addresses
from kxm_grpc.client.base import CHANNEL_OPTIONS
from kxm_grpc.errors import Aborted, FailedPrecondition, HubError, NotFound
from tests.reliability import checkers
from tests.reliability.history import Op, outcome_of

# Reconnect quickly to a restarted hub (the default backoff starts at 1 s and grows).
FAST_RECONNECT: list[tuple[str, Any]] = [
    *CHANNEL_OPTIONS,
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 300),
]

MICROS = 1_000_000


@dataclass
class AgentConfig:
    """What one agent process is told (written as JSON to a file, its only argument)."""

    address: str
    """One address, or several (comma-separated) for a client that fails over between replicas."""
    token: str
    agent_id: str
    agent_key: str
    leases: list[str]
    ttl: float
    history: str
    stop_file: str
    seed: int
    wait: float = 2.0
    writers: int = 2
    hold: tuple[float, float] = (0.3, 1.5)
    """How long a holder holds (seconds, uniform) before it releases."""
    pace: tuple[float, float] = (0.04, 0.1)
    """The pause between two writes of one writer (seconds, uniform)."""
    rpc_timeout: float = 2.0


def verdict_of(error: BaseException) -> str:
    """The resource's reading of a CheckFence refusal (or ``unavailable`` when it is indeterminate)."""
    if isinstance(error, Aborted):
        return "superseded"
    if isinstance(error, FailedPrecondition):
        return "expired"
    if isinstance(error, NotFound):
        return "released"
    return "unavailable"


REFUSED = frozenset({"superseded", "expired", "released"})


def fast_client(address: str, **options: Any) -> HubClient:
    """A ``HubClient`` of ``address`` (one, or several replicas) whose channel reconnects quickly."""
    target = parse_addresses(address)
    channel = grpc.aio.insecure_channel(target.target, options=target.channel_options(FAST_RECONNECT))
    return HubClient(address, channel=channel, **options)


class Agent:
    """One agent process's loop (see the module docstring)."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        self.stop_file = Path(config.stop_file)
        self.stopping = asyncio.Event()
        # Line-buffered, so a killed agent loses at most the line it was writing; closed by ``run``.
        self._out: TextIO = Path(config.history).open("a", encoding="utf-8", buffering=1)  # noqa: SIM115
        self.client = fast_client(
            config.address,
            token=config.token,
            agent_id=config.agent_id,
            agent_key=config.agent_key,
            timeout=config.rpc_timeout,
        )

    async def reconnect(self) -> None:
        """After an indeterminate answer: wait (a little) until the channel is connected again, rather
        than spinning on calls that fail at once while the hub restarts."""
        await asyncio.sleep(0.02)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.client.channel.channel_ready(), 1.0)

    def _append(self, op: Op) -> None:
        self._out.write(json.dumps(asdict(op)) + "\n")

    @contextlib.asynccontextmanager
    async def _record(self, name: str, lease: str, **value: Any) -> Any:
        entry = Op(name, agent=self.config.agent_id, key=lease, t_invoke=time.monotonic(), value=dict(value))
        try:
            yield entry
        except Exception as error:
            entry.type = outcome_of(error)
            entry.error = f"{type(error).__name__}: {str(error)[:160]}"
            entry.t_complete = time.monotonic()
            self._append(entry)
            raise
        entry.type = "ok"
        entry.t_complete = time.monotonic()
        self._append(entry)

    def done(self) -> bool:
        return self.stopping.is_set() or self.stop_file.exists()

    async def run(self) -> None:
        try:
            while not self.done():
                granted = await self.acquire(self.rng.choice(self.config.leases))
                if granted is not None:
                    await self.hold(*granted)
        finally:
            await self.client.close()
            self._out.close()

    async def acquire(self, name: str) -> tuple[str, int] | None:
        ttl, wait = self.config.ttl, self.config.wait
        try:
            async with self._record("acquire", name) as op:
                response = await self.client.leases.acquire(name, ttl=ttl, wait=wait, timeout=wait + 1.5)
                lease = response.lease
                op.value.update(
                    token=lease.fencing_token,
                    acquire_time=lease.acquire_time.ToMicroseconds(),
                    expire_time=lease.expire_time.ToMicroseconds(),
                    renewed=response.renewed,
                )
        except FailedPrecondition:
            return None  # held by another after the wait
        except HubError:
            await self.reconnect()
            return None
        return name, int(lease.fencing_token)

    async def write(self, name: str, token: int) -> str:
        """One fenced write, retried (for a few seconds) while the hub does not answer; the resource's verdict."""
        deadline = time.monotonic() + 5.0
        while True:
            try:
                async with self._record("write", name, token=token):
                    await self.client.leases.check_fence(name, token)
                return "ok"
            except HubError as error:
                verdict = verdict_of(error)
                if verdict in REFUSED:
                    return verdict
            if time.monotonic() >= deadline or self.done():
                return "unavailable"
            await self.reconnect()

    async def hold(self, name: str, token: int) -> None:
        lost = asyncio.Event()
        until = time.monotonic() + self.rng.uniform(*self.config.hold)

        async def writer() -> None:
            while True:
                if await self.write(name, token) in REFUSED:
                    lost.set()
                if lost.is_set() or time.monotonic() >= until or self.done():
                    return
                await asyncio.sleep(self.rng.uniform(*self.config.pace))

        async def renewer() -> None:
            while True:
                await asyncio.sleep(self.config.ttl / 3)
                if lost.is_set() or time.monotonic() >= until or self.done():
                    return
                try:
                    async with self._record("renew", name, token=token) as op:
                        renewed = await self.client.leases.renew(name, token, ttl=self.config.ttl)
                        op.value["expire_time"] = renewed.lease.expire_time.ToMicroseconds()
                except (Aborted, FailedPrecondition, NotFound):
                    lost.set()
                    return
                except HubError:
                    continue

        await asyncio.gather(renewer(), *(writer() for _ in range(self.config.writers)))
        if not lost.is_set():
            with contextlib.suppress(HubError):
                async with self._record("release", name, token=token):
                    await self.client.leases.release(name, token)


def load_config(path: str) -> AgentConfig:
    raw = json.loads(Path(path).read_text())
    raw["hold"] = tuple(raw["hold"])
    raw["pace"] = tuple(raw["pace"])
    return AgentConfig(**raw)


async def _main(config: AgentConfig) -> None:
    agent = Agent(config)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, agent.stopping.set)
    await agent.run()


# -- the controller: agent processes, their pauses ------------------------------------------------

REPO = Path(__file__).resolve().parents[2]


@dataclass
class AgentProcess:
    agent_id: str
    name: str
    process: subprocess.Popen[bytes]
    history: Path
    paused: bool = False


def launch(config: Path, log: Path) -> subprocess.Popen[bytes]:
    """Start one agent process (this module) on its config file, its output to ``log``."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.fenced", str(config)],
            cwd=REPO,
            stdout=out,
            stderr=out,
            env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
        )


async def spawn_agents(
    directory: Path,
    address: str,
    token: str,
    rng: random.Random,
    *,
    count: int,
    leases: list[str],
    ttl: float,
    writers: int,
    prefix: str = "worker",
) -> list[AgentProcess]:
    """Register ``count`` agents, all before any starts (a starting agent's grant may hit a failpoint),
    then start one process for each; their histories, configs and logs go to ``directory``."""
    registrar = fast_client(address, token=token, timeout=10.0)
    registered = []
    try:
        for index in range(count):
            name = f"{prefix}-{index:02d}"
            registered.append((name, await registrar.agents.register(name, adopt=False)))
    finally:
        await registrar.close()
    agents: list[AgentProcess] = []
    for name, made in registered:
        config = AgentConfig(
            address=address,
            token=token,
            agent_id=made.agent.id,
            agent_key=made.agent_key,
            leases=leases,
            ttl=ttl,
            history=str(directory / f"{name}.jsonl"),
            stop_file=str(directory / "stop"),
            seed=rng.randrange(2**32),
            writers=writers,
        )
        path = directory / f"{name}.json"
        path.write_text(json.dumps(asdict(config)))
        process = launch(path, directory / f"{name}.log")
        agents.append(AgentProcess(made.agent.id, name, process, Path(config.history)))
    return agents


def stop_agents(agents: list[AgentProcess], stop_file: Path) -> int:
    """Ask every agent to stop (the stop file), wait, then kill what is left. Returns how many were killed."""
    stop_file.touch()
    for agent in agents:
        with contextlib.suppress(ProcessLookupError):
            os.kill(agent.process.pid, signal.SIGCONT)
    deadline = time.monotonic() + 20
    killed = 0
    for agent in agents:
        try:
            agent.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            agent.process.kill()
            agent.process.wait(timeout=10)
            killed += 1
    return killed


@dataclass
class Controller:
    """What the battery's controller did to the agents (monotonic seconds)."""

    pauses: list[tuple[str, float, float]] = field(default_factory=list)
    """(agent id, SIGSTOP time, SIGCONT time)."""
    superseded_pauses: int = 0
    """Pauses during which the paused holder's lease was granted to another (each yields stale writes)."""
    _counted: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)

    def answered(self, agents: list[AgentProcess]) -> int:
        """Fenced writes the hub answered so far (read from the agents' histories as they grow)."""
        total = 0
        for agent in agents:
            offset, count = self._counted.get(agent.name, (0, 0))
            with contextlib.suppress(OSError), agent.history.open("rb") as handle:
                handle.seek(offset)
                chunk = handle.read()
                whole = chunk[: chunk.rfind(b"\n") + 1]
                count += sum(
                    1 for line in whole.splitlines() if b'"op": "write"' in line and b'"type": "info"' not in line
                )
                offset += len(whole)
            self._counted[agent.name] = (offset, count)
            total += count
        return total

    def record(self) -> dict[str, Any]:
        """What to keep with the histories (JSON)."""
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}


async def pause_holders(
    rng: random.Random,
    observer: HubClient,
    agents: list[AgentProcess],
    controller: Controller,
    stop: asyncio.Event,
    *,
    probability: float,
    length: tuple[float, float],
) -> None:
    """Watch the live grants; pause the holder of a new one for U[length] s (SIGSTOP, then SIGCONT)
    with ``probability``, a moment after it was granted."""
    by_id = {a.agent_id: a for a in agents}
    seen: set[tuple[str, int]] = set()
    current: dict[str, int] = {}
    pausing: set[asyncio.Task[None]] = set()

    async def pause(agent: AgentProcess, lease: str, token: int, delay: float, seconds: float) -> None:
        await asyncio.sleep(delay)
        if stop.is_set() or agent.process.poll() is not None:
            agent.paused = False
            return
        os.kill(agent.process.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), seconds)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(agent.process.pid, signal.SIGCONT)
            agent.paused = False
            controller.pauses.append((agent.agent_id, stopped, time.monotonic()))
            controller.superseded_pauses += current.get(lease, 0) > token

    try:
        while not stop.is_set():
            await asyncio.sleep(0.08)
            try:
                listed = (await observer.leases.list(timeout=1.0)).leases
            except HubError:
                continue
            for lease in listed:
                token = int(lease.fencing_token)
                current[lease.name] = max(current.get(lease.name, 0), token)
                if (lease.name, token) in seen:
                    continue
                seen.add((lease.name, token))
                agent = by_id.get(lease.holder_agent_id)
                if agent is None or agent.paused or rng.random() >= probability:
                    continue
                agent.paused = True
                task = asyncio.create_task(
                    pause(agent, lease.name, token, rng.uniform(0.0, 0.15), rng.uniform(*length))
                )
                pausing.add(task)
                task.add_done_callback(pausing.discard)
    finally:
        await asyncio.gather(*pausing, return_exceptions=True)


# -- the check ------------------------------------------------------------------------------------


@dataclass
class LoggedGrant:
    """One grant's life as the hub logged it (hub-clock microseconds)."""

    lease: str
    token: int
    holder: str
    acquire_time: int
    expire_times: list[int] = field(default_factory=list)
    release_time: int | None = None

    @property
    def end(self) -> int:
        """When the grant stopped being live: its release, else its last expiry."""
        last = max(self.expire_times) if self.expire_times else self.acquire_time
        return last if self.release_time is None else min(self.release_time, last)


@dataclass
class GrantLog:
    grants: dict[tuple[str, int], LoggedGrant] = field(default_factory=dict)
    order: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    """Each log's new-grant tokens per lease, in the order it logged them (one list per log file)."""
    problems: list[str] = field(default_factory=list)
    resumed: int = 0
    """Grants a restart pushed back by the downtime (``lease_resumed``)."""
    resumed_wrong: list[str] = field(default_factory=list)
    """Resumed grants not pushed back by at least the downtime from their last logged expiry (decision 33)."""


LEASE_EVENTS = frozenset({"lease_acquired", "lease_renewed", "lease_released", "lease_resumed"})


def read_log(paths: Iterable[Path], project: str) -> GrantLog:
    """The grants of ``project`` in hub JSON logs (``lease_acquired``, ``_renewed``, ``_released``, ``_resumed``).

    Several logs (replicas) are read in two passes: every new grant first, then what happened to
    each, since a grant logged by one replica may be renewed and released on another.
    """
    log = GrantLog()
    entries: list[tuple[str, int, dict[str, Any]]] = []
    for path in paths:
        for number, line in enumerate(path.read_text(errors="replace").splitlines()):
            if not line.startswith("{"):
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("project") == project and entry.get("event") in LEASE_EVENTS:
                entries.append((path.name, number, entry))
    placed: dict[str, list[tuple[int, int]]] = defaultdict(list)
    """Per log and lease: (line, token) of each new grant, to check their order."""

    def new_grant(where: str, number: int, entry: dict[str, Any]) -> LoggedGrant:
        key = (str(entry["name"]), int(entry["fencing_token"]))
        grant = log.grants[key] = LoggedGrant(key[0], key[1], str(entry["holder_agent_id"]), int(entry["acquire_time"]))
        placed[f"{where}:{key[0]}"].append((number, key[1]))
        return grant

    for where, number, entry in entries:
        if entry["event"] != "lease_acquired" or entry["renewed"]:
            continue
        key = (str(entry["name"]), int(entry["fencing_token"]))
        grant = log.grants.get(key)
        if grant is not None and grant.acquire_time != int(entry["acquire_time"]):
            log.problems.append(f"token reused: {key} granted at {grant.acquire_time} and {entry['acquire_time']}")
            continue
        if grant is None:
            grant = new_grant(where, number, entry)
        grant.expire_times.append(int(entry["expire_time"]))
    for where, number, entry in entries:
        event = entry["event"]
        if event == "lease_acquired" and not entry["renewed"]:
            continue
        key = (str(entry["name"]), int(entry["fencing_token"]))
        grant = log.grants.get(key)
        if grant is None and event in ("lease_resumed", "lease_acquired"):
            # Granted just before a kill -9, before its log line was written; the restart (or an
            # extending acquire by its holder) says so.
            grant = new_grant(where, number, entry)
        if grant is None:
            log.problems.append(f"{event} of a grant never logged: {key}")
            continue
        if event == "lease_released":
            grant.release_time = int(entry["release_time"])
        elif event == "lease_resumed":
            log.resumed += 1
            shift, new = int(entry["shift"]), int(entry["expire_time"])
            # At least the downtime on top of the expiry last logged (a renewal committed just
            # before a kill may be missing from the log; it only moved the expiry later).
            if shift <= 0 or (grant.expire_times and new < max(grant.expire_times) + shift):
                log.resumed_wrong.append(f"{key}: {max(grant.expire_times, default=0)} + {shift} > {new}")
            grant.expire_times.append(new)
        else:
            grant.expire_times.append(int(entry["expire_time"]))
    log.order = {where: [token for _, token in sorted(tokens)] for where, tokens in placed.items()}
    return log


@dataclass
class FencedVerdict:
    """What the fenced agents' histories, the hub's grant log and the final fences show."""

    fencing: checkers.FencingVerdict
    """Stale writes accepted, token regressions (in the hub's grant order), overlapping renewals."""
    writes_answered: int
    writes_unanswered: int
    writes_accepted: int
    refused: dict[str, int]
    """Answered writes refused, by verdict (superseded, expired, released)."""
    stale_refused_superseded: int
    """Superseded writes the hub refused as superseded (ABORTED), as docs/leases.md promises."""
    stale_lapsed: int
    """Stale writes whose own grant had lapsed (or was released) on the hub's clock before the hub
    can have decided them, and no newer grant was known yet (the rest of the stale writes were superseded)."""
    clock_offsets: int
    """Hub lives whose clock offset (hub clock minus monotonic clock) the calls bounded."""
    clock_offsets_inconsistent: list[tuple[int, int, int]]
    """(life, low, high) where no one offset fits every call the hub timed: its clock did not follow
    the monotonic clock (a wall-clock step moved it, say)."""
    clock_offset_widest_us: int
    stale_after_pause: int
    """Stale writes invoked within a second after their agent was resumed from a pause (SIGCONT)."""
    token_reuses: list[str]
    """Tokens acknowledged to two different grants."""
    log_problems: list[str]
    log_order_regressions: list[str]
    """A hub log whose new grants of a lease do not carry strictly increasing tokens, in log order."""
    log_overlaps: list[tuple[str, int, int, int]]
    """(lease, token, next token, µs) where a grant began before the previous one ended (hub clock)."""
    log_overlap_max_tolerated: int
    """The largest overlap within the tolerance (µs; replicas' clocks agree to within it)."""
    missing_from_log: list[tuple[str, int]]
    """Grants acknowledged to a client that the hub's log does not have with that holder and time."""
    fences_behind: list[tuple[str, int, int]]
    """(lease, final fence token, largest token granted) where the database's fence is behind."""
    resumed: int
    resumed_wrong: list[str]
    early_expiries: list[dict[str, Any]]
    """Refusals of a holder's own token before TTL had passed since its last successful renewal was asked."""
    checks_within_ttl: int
    """Answered calls of holders with their token before TTL had passed since it was last renewed."""
    checks_within_ttl_across_restart: int
    """Of those, calls after a hub restart that came between the renewal and the call."""
    checks_within_ttl_in_clock_steps: int
    """Of those, calls inside a window when the hub's wall clock was stepped."""
    revived: int
    """Calls answered OK though made after the hub had called the same grant lapsed (EXPIRED), by
    one hub process: only a renewal committed in the instant between its decision and the lapse can
    do it (reported, not asserted)."""
    revived_across_restart: int
    """The same across a restart: docs/leases.md (Restarts) documents the window (a crash between a
    grant's expiry and the commit of its lapse mark gives it back)."""
    grants: int
    renewals: int
    tokens_per_lease: dict[str, int]


def _within(windows: Sequence[tuple[float, float]], start: float, end: float) -> bool:
    """Whether a window ends at or after ``start`` and starts at or before ``end``."""
    return any(a <= end and b >= start for a, b in windows)


def check(
    ops: Sequence[Op],
    log: GrantLog,
    fences: Mapping[str, int],
    *,
    ttl: float,
    pauses: Sequence[tuple[str, float, float]] = (),
    restarts: Sequence[float] = (),
    clock_steps: Sequence[tuple[float, float]] = (),
    slack: float = 0.01,
    overlap_tolerance_us: int = 0,
    clock_per_restart: bool = True,
    restarts_log_extensions: bool = True,
) -> FencedVerdict:
    """Check the agents' histories (``ops``) against the grant log and the final ``fences``.

    ``pauses``: (agent id, SIGSTOP time, SIGCONT time); ``restarts``: when each hub kill was made;
    ``clock_steps``: windows when the hub's wall clock was stepped (monotonic seconds, all).
    ``slack`` (seconds) is how far a hub decision may sit from where the client's clock puts it;
    ``overlap_tolerance_us`` is how far the hubs' clocks may disagree (0 for one hub).
    ``clock_per_restart``: each hub process reads the wall clock once when it starts (one hub on
    SQLite), so its clock is the monotonic clock plus an offset of its own; False: every replica
    follows the database's clock, one offset for the run (within ``overlap_tolerance_us``).
    ``restarts_log_extensions``: one hub's restart logs every grant live at its alive mark
    (``lease_resumed``), so a renewal committed just before a kill shows in the log; replicas
    joining a running cluster do not, so such a renewal may be missing (False).
    """
    ttl_us = round(ttl * MICROS)
    acquires = [op for op in ops if op.op == "acquire" and op.type == "ok"]
    new_grants = [op for op in acquires if not op.value["renewed"]]
    offsets = hub_clock_offsets(ops, restarts if clock_per_restart else (), ttl_us)

    # Grants in the hub's order (its acquire time) and renewals at the hub time they were decided
    # (a renewal's expiry is its decision time plus the TTL), for the checker.
    grants = [
        checkers.Grant(op.key, int(op.value["token"]), op.agent, op.value["acquire_time"] / MICROS, ttl)
        for op in new_grants
    ]
    renewals: dict[tuple[str, int], float] = {}
    for op in ops:
        if op.type != "ok" or op.op not in ("renew", "acquire") or (op.op == "acquire" and not op.value["renewed"]):
            continue
        key = (op.key, int(op.value["token"]))
        decided = (op.value["expire_time"] - ttl_us) / MICROS
        renewals[key] = max(renewals.get(key, 0.0), decided)

    # A write is stale when a newer grant of its lease had been acknowledged (to anyone) before it
    # was invoked: the hub had committed that grant, so the token was superseded. One clock.
    acked: dict[str, tuple[list[float], list[int]]] = {}
    for op in sorted(new_grants, key=lambda o: o.t_complete):
        times, best = acked.setdefault(op.key, ([], []))
        times.append(op.t_complete)
        best.append(max(best[-1] if best else 0, int(op.value["token"])))

    def newest_before(lease: str, moment: float) -> int:
        times, best = acked.get(lease, ([], []))
        index = bisect.bisect_left(times, moment)
        return best[index - 1] if index else 0

    # A write is stale too when its own grant had ended (lapsed or released, by the hub's log) before
    # the hub can have decided it: the hub clock's offset from the monotonic clock, bounded from the
    # calls the hub timed (``hub_clock_offsets``), puts the decision at or after ``t_invoke + low``.
    lives = list(restarts) if clock_per_restart else []
    margin = overlap_tolerance_us + 1_000

    def hub_time(moment: float, bound: int) -> int | None:
        """``moment`` (monotonic seconds) on the hub's clock, with the offset's low (0) or high (1) bound."""
        life = bisect.bisect_right(lives, moment)
        return round(moment * MICROS) + offsets[life][bound] if life in offsets else None

    # What the log may lack: a renewal or release whose answer the holder never got (its hub was
    # killed) may have committed unlogged (one hub's restart logs the extension it finds, replicas do
    # not), so a grant may have ended as early as such a release was asked for, and lasted as late
    # as such a renewal could have set.
    ends_after: dict[tuple[str, int], int] = {}
    ends_before: dict[tuple[str, int], int] = {}
    for op in ops:
        if op.type != "info" or op.op not in ("renew", "release", "acquire") or "token" not in op.value:
            continue
        key = (op.key, int(op.value["token"]))
        if op.op == "release":
            # A hub life too short to bound its clock leaves the moment unknown: assume the earliest.
            earliest = hub_time(op.t_invoke, 0)
            known = earliest if earliest is not None else 0
            ends_before[key] = min(ends_before.get(key, known), known)
        elif not restarts_log_extensions:
            latest = hub_time(op.t_complete, 1)
            ends_after[key] = max(ends_after.get(key, 0), (latest if latest is not None else 2**62) + ttl_us)

    def lapsed_before(op: Op, token: int) -> bool:
        life = bisect.bisect_right(lives, op.t_invoke)
        if life != bisect.bisect_right(lives, op.t_complete) or life not in offsets:
            return False  # a call across a restart: which hub answered it is unknown
        grant = log.grants.get((op.key, token))
        if grant is None:
            return False
        end = max(grant.end, ends_after.get((op.key, token), 0))
        return round(op.t_invoke * MICROS) + offsets[life][0] >= end + margin

    writes = [op for op in ops if op.op == "write"]
    answered = [op for op in writes if op.type in ("ok", "fail")]
    fenced: list[checkers.FencedWrite] = []
    refused: dict[str, int] = defaultdict(int)
    stale_superseded = stale_lapsed = 0
    for op in answered:
        token = int(op.value["token"])
        superseded = newest_before(op.key, op.t_invoke) > token
        lapsed = not superseded and lapsed_before(op, token)
        verdict = "ok" if op.type == "ok" else verdict_of_error(op.error)
        if op.type != "ok":
            refused[verdict] += 1
        stale_superseded += superseded and verdict == "superseded"
        stale_lapsed += lapsed
        fenced.append(checkers.FencedWrite(op.key, token, op.type == "ok", superseded or lapsed))
    verdict = checkers.fencing(grants, fenced, renewals=renewals)

    # Stale writes made right after their agent was resumed from a pause (within a second).
    resumed_at: dict[str, list[float]] = defaultdict(list)
    for agent, _, resumed in pauses:
        resumed_at[agent].append(resumed)
    for moments in resumed_at.values():
        moments.sort()
    after_pause = 0
    for op, write in zip(answered, fenced, strict=True):
        moments = resumed_at.get(op.agent, [])
        index = bisect.bisect_right(moments, op.t_invoke)
        after_pause += write.stale and index > 0 and op.t_invoke - moments[index - 1] < 1.0

    # A token acknowledged to two different grants.
    seen: dict[tuple[str, int], tuple[str, int]] = {}
    reuses: list[str] = []
    for op in new_grants:
        key = (op.key, int(op.value["token"]))
        grant = (op.agent, int(op.value["acquire_time"]))
        if seen.setdefault(key, grant) != grant:
            reuses.append(f"{key}: {seen[key]} and {grant}")

    # The hub's grant log: per log, tokens strictly increase in the order granted; lives never overlap.
    order_regressions = [f"{where}: {tokens}" for where, tokens in log.order.items() if tokens != sorted(set(tokens))]
    overlaps: list[tuple[str, int, int, int]] = []
    tolerated = 0
    by_lease: dict[str, list[LoggedGrant]] = defaultdict(list)
    for grant in log.grants.values():
        by_lease[grant.lease].append(grant)
    for lease, granted in by_lease.items():
        granted.sort(key=lambda g: g.token)
        for earlier, later in itertools.pairwise(granted):
            end = min(earlier.end, ends_before.get((lease, earlier.token), earlier.end))
            overlap = end - later.acquire_time
            if overlap > overlap_tolerance_us:
                overlaps.append((lease, earlier.token, later.token, overlap))
            elif overlap > 0:
                tolerated = max(tolerated, overlap)
    missing = [
        (op.key, int(op.value["token"]))
        for op in new_grants
        if (logged := log.grants.get((op.key, int(op.value["token"])))) is None
        or (logged.holder, logged.acquire_time) != (op.agent, int(op.value["acquire_time"]))
    ]
    largest: dict[str, int] = defaultdict(int)
    for op in new_grants:
        largest[op.key] = max(largest[op.key], int(op.value["token"]))
    for lease, token in (g for g in log.grants):
        largest[lease] = max(largest[lease], token)
    behind = [
        (lease, fences.get(lease, 0), top) for lease, top in sorted(largest.items()) if fences.get(lease, 0) < top
    ]

    # No early expiry: a holder's own call, made after a renewal (or grant) was acknowledged and
    # answered before TTL had passed since that renewal was *invoked*, must find the lease live; hub
    # downtime in between changes nothing (decision 33 pushes live grants back by it). A renewal
    # still in flight promises nothing yet (it may run after the lease lapsed, and be refused).
    early: list[dict[str, Any]] = []
    within = across = in_steps = 0
    ordered_restarts = sorted(restarts)
    by_holder: dict[tuple[str, str, int], list[Op]] = defaultdict(list)
    for op in ops:
        if op.op in ("acquire", "renew", "write") and "token" in op.value:
            by_holder[(op.agent, op.key, int(op.value["token"]))].append(op)
    for (_, lease, token), mine in by_holder.items():
        mine.sort(key=lambda o: o.t_invoke)
        kept = sorted((o for o in mine if o.type == "ok" and o.op in ("acquire", "renew")), key=lambda o: o.t_complete)
        acked_at = [o.t_complete for o in kept]
        asked_at = list(itertools.accumulate((o.t_invoke for o in kept), max))
        for op in mine:
            if op.type == "info":
                continue
            index = bisect.bisect_right(acked_at, op.t_invoke)
            live_from = asked_at[index - 1] if index else None
            if live_from is not None and op.t_complete < live_from + ttl - slack:
                within += 1
                if bisect.bisect_left(ordered_restarts, live_from) < bisect.bisect_left(ordered_restarts, op.t_invoke):
                    across += 1
                if _within(clock_steps, live_from, op.t_complete):
                    in_steps += 1
                if op.type == "fail":
                    early.append(
                        {
                            "lease": lease,
                            "token": token,
                            "op": op.op,
                            "error": op.error[:80],
                            "seconds_after_renewal": round(op.t_complete - live_from, 4),
                        }
                    )
    # A grant called lapsed, then answered OK to a call made after that answer arrived.
    revived = revived_across = 0
    for mine in by_holder.values():
        lapsed_at: float | None = None
        for op in mine:
            if op.type == "ok" and lapsed_at is not None and op.t_invoke > lapsed_at:
                across_restart = bisect.bisect_left(ordered_restarts, lapsed_at) < bisect.bisect_left(
                    ordered_restarts, op.t_invoke
                )
                revived_across += across_restart
                revived += not across_restart
            if op.type == "fail" and verdict_of_error(op.error) == "expired":
                lapsed_at = op.t_complete if lapsed_at is None else min(lapsed_at, op.t_complete)
    return FencedVerdict(
        revived=revived,
        revived_across_restart=revived_across,
        fencing=verdict,
        writes_answered=len(answered),
        writes_unanswered=len(writes) - len(answered),
        writes_accepted=sum(1 for op in answered if op.type == "ok"),
        refused=dict(refused),
        stale_refused_superseded=stale_superseded,
        stale_after_pause=after_pause,
        stale_lapsed=stale_lapsed,
        clock_offsets=len(offsets),
        clock_offsets_inconsistent=[
            (life, low, high)
            for life, (low, high) in sorted(offsets.items())
            if low > high + max(overlap_tolerance_us, 50)  # 50 µs: the floats of time.monotonic()
        ],
        clock_offset_widest_us=max((high - low for low, high in offsets.values()), default=0),
        token_reuses=reuses,
        log_problems=log.problems,
        log_order_regressions=order_regressions,
        log_overlaps=overlaps,
        log_overlap_max_tolerated=tolerated,
        missing_from_log=missing,
        fences_behind=behind,
        resumed=log.resumed,
        resumed_wrong=log.resumed_wrong,
        early_expiries=early,
        checks_within_ttl=within,
        checks_within_ttl_across_restart=across,
        checks_within_ttl_in_clock_steps=in_steps,
        grants=len(new_grants),
        renewals=sum(1 for op in ops if op.op == "renew" and op.type == "ok"),
        tokens_per_lease={lease: top for lease, top in sorted(largest.items())},
    )


def hub_clock_offsets(ops: Sequence[Op], restarts: Sequence[float], ttl_us: int) -> dict[int, tuple[int, int]]:
    """Per hub life (between two ``restarts``): bounds (µs) on its clock minus the monotonic clock.

    Every grant and renewal carries the hub time it was decided at (an acquire time, or an expiry
    minus the TTL), and that decision fell inside the call: so the offset is at least ``decided -
    t_complete`` and at most ``decided - t_invoke``, for every such call. Calls across a restart
    are left out.
    """
    lives = list(restarts)
    bounds: dict[int, tuple[int, int]] = {}
    for op in ops:
        if op.type != "ok" or op.op not in ("acquire", "renew"):
            continue
        life = bisect.bisect_right(lives, op.t_invoke)
        if life != bisect.bisect_right(lives, op.t_complete):
            continue
        if op.op == "acquire" and not op.value["renewed"]:
            decided = int(op.value["acquire_time"])
        else:
            decided = int(op.value["expire_time"]) - ttl_us
        low = decided - round(op.t_complete * MICROS)
        high = decided - round(op.t_invoke * MICROS)
        known = bounds.get(life)
        bounds[life] = (low, high) if known is None else (max(known[0], low), min(known[1], high))
    return bounds


def stale_so_far(
    agents: Sequence[AgentProcess],
    logs: Sequence[Path],
    project: str,
    *,
    ttl: float,
    restarts: Sequence[float],
    overlap_tolerance_us: int = 0,
    restarts_log_extensions: bool = True,
) -> int:
    """How many stale writes the run has made so far (``check`` over the files as they are now)."""
    ops = read_histories(a.history for a in agents)
    verdict = check(
        ops,
        read_log(logs, project),
        {},
        ttl=ttl,
        restarts=list(restarts),
        overlap_tolerance_us=overlap_tolerance_us,
        restarts_log_extensions=restarts_log_extensions,
    )
    return verdict.fencing.stale_attempts


def verdict_of_error(error: str) -> str:
    """The verdict of a refused write from its recorded error text (``Aborted: …``)."""
    kind = error.split(":", 1)[0]
    return {"Aborted": "superseded", "FailedPrecondition": "expired", "NotFound": "released"}.get(kind, "other")


def read_histories(paths: Iterable[Path]) -> list[Op]:
    """Every agent's operations."""
    ops: list[Op] = []
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            if line.strip():
                with contextlib.suppress(ValueError):
                    ops.append(Op(**json.loads(line)))
    return ops


if __name__ == "__main__":
    asyncio.run(_main(load_config(sys.argv[1])))
