"""B7: fencing tokens never go back, and a paused holder's stale writes are refused (reliability.md §5.2).

16 agents, each its own process (``fenced.py``), contend for 4 leases with a 1 s TTL on a
``CrashHub`` (the testing-only ``--testing-lease-min-ttl`` lowers the 5 s minimum). Holders write
to the protected resource through the fencing contract of docs/leases.md: ``CheckFence`` with their
token, the hub's answer being the resource's verdict. Meanwhile:

- holders are paused for real: SIGSTOP of the agent process for U[1.5, 3] × TTL, then SIGCONT; the
  agent knows nothing and writes at once with its old token (three writers each);
- the hub is killed with SIGKILL U[1, 3] s after it answers again and restarted on the same
  database at once, and the failpoint ``lease_grant_after_token`` kills it too (a grant's token
  written, not committed);
- the hub's wall clock is stepped an hour forward or back for a second or two between kills
  (libfaketime, ``FAKETIME_DONT_FAKE_MONOTONIC``): the hub's clock follows a clock nobody can set
  once started (``domain.clock.SystemClock``), so nothing may change. Steps are undone before any
  restart: a hub that starts on a stepped clock takes it up, and a step made while it is down
  counts as downtime for decision 33 (not tested here).

Then every agent stops, and the checker (``fenced.check``, over ``checkers.fencing``) proves from the
agents' histories, the hub's grant log and the final fences: every stale write was refused, that
is every write whose token had been superseded (refused as ABORTED) or whose grant had lapsed on
the hub's clock before the hub can have decided it; the hub's clock followed the monotonic clock
through every clock step; tokens strictly increase per lease in the hub's grant order
across every restart and none is handed out twice; no renewal was accepted after a newer grant
(two holders); grant lives in the hub's log never overlap; no holder found its lease gone before
TTL had passed since it last asked to renew it, across restarts and clock steps too; and after a
restart every live grant was pushed back by the downtime (decision 33, which the battery asserts
instead of the table's "a full TTL": each grant keeps at least the time it had left, which is the
safety property, and the table's full TTL would keep a crashed holder's lease from its rivals longer).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import json
import os
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from kxm_grpc.testing import HubProcess
from tests.reliability import fenced
from tests.reliability.battery import Battery
from tests.reliability.hubs import ADMIN_TOKEN, CrashHub

pytestmark = pytest.mark.timeout(1200)

AGENTS = 16
LEASES = ["lease-a", "lease-b", "lease-c", "lease-d"]
TTL = 1.0
PROJECT = "fencing"
PAUSE = (1.5 * TTL, 3.0 * TTL)
WRITERS = 3
CLOCK_STEP = 3600
"""Seconds the hub's wall clock is stepped, forward or back."""

LIBFAKETIME = ("/usr/lib/*/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1")


def libfaketime() -> str | None:
    """The libfaketime preload library (Debian's ``faketime`` package), or None."""
    for pattern in LIBFAKETIME:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


@dataclass
class SteppedHub(CrashHub):
    """A ``CrashHub`` whose wall clock can be stepped (libfaketime reading an offset file)."""

    library: str | None = None
    clock_file: Path | None = None
    stepped: bool = False

    def _new_process(self) -> HubProcess:
        process = super()._new_process()
        if self.library is not None and self.clock_file is not None:
            process.env.update(
                {
                    "LD_PRELOAD": self.library,
                    "FAKETIME_TIMESTAMP_FILE": str(self.clock_file),
                    "FAKETIME_NO_CACHE": "1",
                    "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                }
            )
        return process

    def step_clock(self, seconds: int) -> None:
        """Set the hub's wall clock ``seconds`` away from the real one (0: the real one)."""
        assert self.clock_file is not None
        scratch = self.clock_file.with_suffix(".new")
        scratch.write_text(f"{seconds:+d}s\n" if seconds else "+0\n")
        os.replace(scratch, self.clock_file)
        self.stepped = seconds != 0


@dataclass
class Run(fenced.Controller):
    """What the battery's controller saw and did (monotonic seconds), hub faults included."""

    restarts: list[float] = field(default_factory=list)
    clock_steps: list[tuple[float, float]] = field(default_factory=list)
    hub_deaths: int = 0
    """Restarts after the hub died by itself (the failpoint)."""


async def faults(
    battery: Battery,
    hub: SteppedHub,
    observer: HubClient,
    run: Run,
    stop: asyncio.Event,
    *,
    interval: tuple[float, float],
    step_probability: float,
) -> None:
    """kill -9 the hub U[interval] s after it answers again, and restart it at once; restart it whenever
    it died by itself; between two kills, now and then, step its wall clock for a moment. Restarts
    happen on the real clock. Counting the interval from when the hub answers (not from the restart)
    gives every interval its time of service on a loaded machine too."""
    loop = asyncio.get_running_loop()

    async def restart() -> None:
        if hub.stepped:
            hub.step_clock(0)
        await asyncio.to_thread(hub.kill)
        run.restarts.append(time.monotonic())  # the old hub is gone: its clock's life ends here
        await asyncio.to_thread(hub.start)
        for _ in battery.bounded(400, 20.0):
            if not hub.alive():
                return  # the failpoint killed it already: the caller restarts it
            try:
                await observer.leases.list(timeout=0.5)
                return
            except HubError:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(observer.channel.channel_ready(), 0.5)

    async def watch(seconds: float) -> bool:
        """Wait ``seconds`` restarting the hub if it dies; False once ``stop`` is set."""
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            if stop.is_set():
                return False
            if not hub.alive():
                run.hub_deaths += 1
                await restart()
            await asyncio.sleep(0.05)
        return not stop.is_set()

    for _ in battery.bounded(100_000, 3600):
        gap = battery.random.uniform(*interval)
        if hub.clock_file is not None and battery.random.random() < step_probability:
            lead = battery.random.uniform(0.1, 0.3)
            length = min(battery.random.uniform(0.8, 1.5), gap - lead - 0.2)
            if not await watch(lead):
                break
            hub.step_clock(battery.random.choice((CLOCK_STEP, -CLOCK_STEP)))
            began = time.monotonic()
            going = await watch(length)
            if hub.stepped:
                hub.step_clock(0)
            run.clock_steps.append((began, time.monotonic()))
            if not going or not await watch(gap - lead - length):
                break
        elif not await watch(gap):
            break
        await restart()


def final_fences(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db, timeout=10)
    try:
        rows = conn.execute("SELECT name, fencing_token FROM leases WHERE project = ?", (PROJECT,)).fetchall()
    finally:
        conn.close()
    return {str(name): int(token) for name, token in rows}


def clock_excursions(log: Path, started_wall: float) -> int:
    """How many times the hub's log timestamps left the real clock by about a step (and came back)."""
    from datetime import datetime

    excursions, away = 0, False
    for line in log.read_text(errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        with contextlib.suppress(ValueError, KeyError, TypeError):
            stamp = datetime.fromisoformat(json.loads(line)["timestamp"]).timestamp()
            off = abs(stamp - started_wall) > CLOCK_STEP / 2
            excursions += off and not away
            away = off
    return excursions


@pytest.mark.battery("B7", "fencing tokens never go back; stale writes are refused")
async def test_stale_tokens_are_refused_and_tokens_never_go_back(battery: Battery) -> None:
    stale_target = battery.size(pr=200, long=500)
    restart_target = battery.size(pr=30, long=200)
    writes_target = battery.size(pr=400, long=10_000)
    # The chaos lasts until the run has exercised enough, at least ``least_seconds`` and at most
    # ``cap_seconds`` (a loaded machine answers fewer calls per second).
    least_seconds = battery.size(pr=50.0, long=480.0)
    cap_seconds = battery.size(pr=600.0, long=780.0)  # a cap for a starved machine, not the plan
    library = libfaketime()
    hub = SteppedHub(
        battery.dir / "data",
        failpoints="lease_grant_after_token=4%kill",
        seed=battery.seed,
        # A 3 s presence window runs the sweeps (and so the alive mark of decision 33) every second.
        extra_args=("--testing-lease-min-ttl", "0.5", "--stale-after", "3"),
        library=library,
        clock_file=battery.dir / "faketime.rc" if library else None,
    )
    if hub.clock_file is not None:
        hub.step_clock(0)
    battery.figure("libfaketime", library or "missing: no wall-clock steps (apt-get install faketime)")
    if os.environ.get("CI"):
        battery.invariant("libfaketime installed (CI needs the faketime package)", library is not None, True)

    run = Run()
    started_wall = time.time()
    hub.start()
    admin = HubClient(hub.address, token=ADMIN_TOKEN, timeout=10.0)
    try:
        token = (await admin.admin.create_project(PROJECT)).project_token
    finally:
        await admin.close()
    agents = await fenced.spawn_agents(
        battery.dir, hub.address, token, battery.random, count=AGENTS, leases=LEASES, ttl=TTL, writers=WRITERS
    )
    observer = fenced.fast_client(hub.address, token=token, timeout=2.0)
    stop = asyncio.Event()
    began = time.monotonic()
    workers = [
        asyncio.create_task(
            fenced.pause_holders(
                battery.random,
                observer,
                agents,
                run,
                stop,
                probability=battery.size(pr=0.9, long=0.4),
                length=PAUSE,
            )
        ),
        asyncio.create_task(
            faults(battery, hub, observer, run, stop, interval=(1.0, 3.0), step_probability=0.35 if library else 0.0)
        ),
    ]
    try:
        stale, counted = 0, 0.0
        while time.monotonic() - began < cap_seconds:
            await asyncio.sleep(0.5)
            if any(w.done() for w in workers):
                break
            if stale < stale_target * 1.1 and time.monotonic() - counted > 5.0:
                stale = await asyncio.to_thread(
                    fenced.stale_so_far, agents, [hub.log_path], PROJECT, ttl=TTL, restarts=run.restarts
                )
                counted = time.monotonic()
            enough = (
                stale >= stale_target * 1.1
                and len(run.restarts) >= restart_target + 3
                and run.answered(agents) >= writes_target * 1.2
                and run.hub_deaths >= 1
                and (hub.clock_file is None or len(run.clock_steps) >= 5)
                and time.monotonic() - began >= least_seconds
            )
            if enough:
                break
        battery.figure("chaos_seconds", round(time.monotonic() - began, 1))
    finally:
        stop.set()
        outcomes = await asyncio.gather(*workers, return_exceptions=True)
        killed = await asyncio.to_thread(fenced.stop_agents, agents, battery.dir / "stop")
        await observer.close()
        if hub.stepped:
            hub.step_clock(0)
        if not hub.alive():
            await asyncio.to_thread(hub.restart)
        hub.stop()
    hub.kill()  # reaps it and runs the final integrity check
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    battery.figure("agents_killed_at_stop", killed)

    (battery.dir / "controller.json").write_text(json.dumps(run.record()))
    ops = fenced.read_histories(a.history for a in agents)
    log = fenced.read_log([hub.log_path], PROJECT)
    verdict = fenced.check(
        ops,
        log,
        final_fences(hub.db_path),
        ttl=TTL,
        pauses=run.pauses,
        restarts=run.restarts,
        clock_steps=run.clock_steps,
        overlap_tolerance_us=0,
    )
    report(battery, hub, run, verdict, ops)
    battery.figure("clock_step_excursions_in_hub_log", clock_excursions(hub.log_path, started_wall))

    fencing = verdict.fencing
    battery.invariant("stale-token writes accepted", [asdict(w) for w in fencing.stale_accepted], [])
    battery.invariant(
        "superseded writes refused as ABORTED (LEASE_SUPERSEDED)",
        verdict.stale_refused_superseded,
        fencing.stale_attempts - verdict.stale_lapsed,
    )
    battery.invariant("hub clock off the monotonic clock (wall-clock steps)", verdict.clock_offsets_inconsistent, [])
    battery.invariant("token regressions in the hub's grant order", fencing.token_regressions, [])
    battery.invariant("tokens granted twice", verdict.token_reuses + verdict.log_problems, [])
    battery.invariant("tokens out of order in the hub's grant log", verdict.log_order_regressions, [])
    battery.invariant("renewals accepted after a newer grant (two holders)", fencing.overlapping_holders, [])
    battery.invariant("overlapping grant lives in the hub's grant log", verdict.log_overlaps, [])
    battery.invariant("acknowledged grants missing from the hub's log", verdict.missing_from_log, [])
    battery.invariant("final fences behind a granted token", verdict.fences_behind, [])
    battery.invariant("leases lapsed before TTL after their last renewal", verdict.early_expiries, [])
    battery.invariant("resumed grants not pushed back by the downtime (decision 33)", verdict.resumed_wrong, [])
    battery.invariant("integrity_check after every kill", {r for r in hub.integrity if r != "ok"}, set())
    battery.at_least("stale-token writes attempted", fencing.stale_attempts, stale_target)
    battery.at_least("hub restarts", len(run.restarts), restart_target)
    battery.at_least("fenced writes answered", verdict.writes_answered, writes_target)
    battery.at_least("failpoint kills (lease_grant_after_token)", run.hub_deaths, 1)
    battery.at_least("grants pushed back after a restart", verdict.resumed, 1)
    if library is not None:
        battery.at_least("wall-clock steps", len(run.clock_steps), 3)
        battery.at_least(
            "holder calls within TTL of a renewal during a clock step", verdict.checks_within_ttl_in_clock_steps, 1
        )


def report(battery: Battery, hub: CrashHub, run: Run, verdict: fenced.FencedVerdict, ops: list) -> None:
    hub.record(battery)
    battery.figure("agents", AGENTS)
    battery.figure("leases", len(LEASES))
    battery.figure("ttl_s", TTL)
    battery.figure("hub_restarts", len(run.restarts))
    battery.figure("hub_deaths_by_failpoint", run.hub_deaths)
    battery.figure("holder_pauses", len(run.pauses))
    battery.figure("holder_pauses_superseded", run.superseded_pauses)
    battery.figure("clock_steps", len(run.clock_steps))
    battery.figure("grants", verdict.grants)
    battery.figure("renewals", verdict.renewals)
    battery.figure("highest_token_per_lease", verdict.tokens_per_lease)
    battery.figure("fenced_writes_answered", verdict.writes_answered)
    battery.figure("fenced_writes_accepted", verdict.writes_accepted)
    battery.figure("fenced_writes_unanswered", verdict.writes_unanswered)
    battery.figure("writes_refused", verdict.refused)
    battery.figure("stale_writes", verdict.fencing.stale_attempts)
    battery.figure("stale_writes_lapsed", verdict.stale_lapsed)
    battery.figure("stale_writes_superseded", verdict.fencing.stale_attempts - verdict.stale_lapsed)
    battery.figure("stale_writes_right_after_a_pause", verdict.stale_after_pause)
    battery.figure("hub_clock_offset_widest_us", verdict.clock_offset_widest_us)
    battery.figure("stale_writes_accepted", len(verdict.fencing.stale_accepted))
    battery.figure("holder_calls_within_ttl", verdict.checks_within_ttl)
    battery.figure("holder_calls_within_ttl_across_restart", verdict.checks_within_ttl_across_restart)
    battery.figure("holder_calls_within_ttl_in_clock_steps", verdict.checks_within_ttl_in_clock_steps)
    battery.figure("grants_resumed_after_restart", verdict.resumed)
    battery.figure("log_overlap_max_tolerated_us", verdict.log_overlap_max_tolerated)
    battery.figure("grants_revived_after_expired", verdict.revived)
    battery.figure("grants_revived_after_expired_across_restart", verdict.revived_across_restart)
    battery.figure("acquires_refused_held", sum(1 for op in ops if op.op == "acquire" and op.type == "fail"))
    battery.figure("calls_indeterminate", sum(1 for op in ops if op.type == "info"))
