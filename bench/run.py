"""Which scenarios run, in what order, against which server process, within the time budget."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from bench import autogen, ceilings, checkpoints, context, hub, journal, report, steps
from bench.autogen import AutogenHost
from bench.common import Rep, Row, ServerProcess
from bench.config import Config
from bench.hubproc import HubProcess

BUDGET_SECONDS = 570.0
"""The whole run stops starting scenarios after this (the issue allows 10 minutes)."""

CEILINGS = [
    "echo",
    "push",
    "broker",
    "broker_sqlite",
    "autogen",
    "broker_fanout",
    "broker_paced",
    "push_idle",
    "push_idle_channel",
    "sqlite",
]
HUB = [
    "core_full",
    "core_normal",
    "core_send_wait",
    "core_channel",
    "fanout",
    "delivery",
    "paced",
    "paced_channel",
    "idle_streams",
    "idle_channels",
    "leases",
    "checkpoint",
    "journal",
    "steps",
    "context",
]
NEEDS: dict[str, list[str]] = {
    "core_full": ["broker", "broker_sqlite"],
    "core_normal": ["broker"],
    "core_send_wait": ["broker"],
    "core_channel": ["autogen"],
    "fanout": ["broker_fanout"],
    "delivery": ["push"],
    "paced": ["broker_paced"],
    "paced_channel": ["broker_paced"],
    "idle_streams": ["push_idle"],
    "idle_channels": ["push_idle_channel"],
    "leases": ["echo"],
}
ALL = CEILINGS + HUB


class AlreadyReported(RuntimeError):
    """A failure whose cause was logged already (a hub that did not start, a failed sibling row)."""


@dataclass
class Run:
    """One benchmark run."""

    cfg: Config
    work_dir: Path
    deadline: float
    rows: list[Row] = field(default_factory=list)
    log: Callable[[str], None] = print

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline


def select(only: list[str] | None) -> list[str]:
    """The scenarios to run, ceilings first (so a ratio's ceiling exists), in a fixed order."""
    if not only:
        return list(ALL)
    unknown = [name for name in only if name not in ALL]
    if unknown:
        raise SystemExit(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(ALL)}")
    wanted = set(only)
    for name in only:
        wanted.update(NEEDS.get(name, []))
    return [name for name in ALL if name in wanted]


Measure = Callable[[], Awaitable[list[Rep]]]


class Server(Protocol):
    """A process under measurement: a ceiling server or the hub."""

    @property
    def address(self) -> str: ...

    @property
    def pid(self) -> int: ...


def _measure(server: Server, scenario: Callable[..., Awaitable[list[Rep]]], *args: Any) -> Measure:
    """``scenario(server.address, *args, server.pid)``, reading the server's address only when measured."""

    async def measure() -> list[Rep]:
        return await scenario(server.address, *args, server.pid)

    return measure


class Session(Protocol):
    """A scenario whose repetitions can be taken one at a time (see ``_alternating``)."""

    async def open(self) -> None: ...

    async def rep(self) -> Rep: ...

    async def close(self) -> None: ...


async def _not_measured() -> list[Rep]:
    raise AlreadyReported("not measured")


def _alternating(sessions: dict[str, Callable[[], Session]], reps: int) -> dict[str, Measure]:
    """Measures of several sessions whose repetitions alternate (A B A B …), all run when the first is read.

    A ceiling and the hub row divided by it then share the same seconds of the machine, so drift in
    between lands in neither ratio. A session that fails to open or to repeat fails its own row only.
    Whichever row is measured first runs every session (the time budget is checked before it).
    """
    outcomes: dict[str, list[Rep] | Exception] = {}
    started = False

    async def run_all() -> None:
        opened: dict[str, Session] = {}
        try:
            for name, make in sessions.items():
                session = None
                try:
                    session = make()
                    await session.open()
                except Exception as exc:
                    outcomes[name] = exc
                    if session is not None:
                        with contextlib.suppress(Exception):
                            await session.close()
                    continue
                opened[name] = session
                outcomes[name] = []
            for _ in range(reps):
                for name, session in opened.items():
                    done = outcomes[name]
                    if isinstance(done, list):
                        try:
                            done.append(await session.rep())
                        except Exception as exc:
                            outcomes[name] = exc
        finally:
            for session in opened.values():
                with contextlib.suppress(Exception):
                    await session.close()

    def measure(name: str) -> Measure:
        async def reps_of() -> list[Rep]:
            nonlocal started
            if not started:
                started = True
                await run_all()
            outcome = outcomes.get(name)
            if outcome is None:
                raise AlreadyReported("not measured")
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

        return reps_of

    return {name: measure(name) for name in sessions}


def _no_ceiling(scale: str) -> str | None:
    return None


def _ceiling(scenario: str) -> Callable[[str], str | None]:
    """The ceiling of a hub row: the row of ``scenario`` at the same scale."""

    def key(scale: str) -> str | None:
        return f"{scenario}/{scale}"

    return key


async def _rows(
    run: Run,
    scenario: str,
    unit: str,
    scales: list[tuple[str, Measure]],
    *,
    ceiling: Callable[[str], str | None] = _no_ceiling,
    basis: str = "rate",
    note: str = "",
) -> None:
    """Measure one scenario at each scale; a failure or the time budget becomes the row's error."""
    for scale, measure in scales:
        row = Row(scenario, scale, unit, [], ceiling=ceiling(scale), ratio_basis=basis, note=note)
        run.rows.append(row)
        if run.out_of_time():
            row.error = "skipped: time budget spent"
            continue
        started = time.monotonic()
        try:
            row.reps = await measure()
        except Exception as exc:
            row.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            if not isinstance(exc, AlreadyReported):  # its cause was logged where it happened
                run.log(traceback.format_exc())
        run.log(f"  {scenario:<14} {scale:<16} {_brief(row)}  ({time.monotonic() - started:.1f} s)")


def _brief(row: Row) -> str:
    if row.error:
        return f"ERROR {row.error}"
    s = row.summary()
    return f"{s['median']:.4g} {row.unit} (p50 {s['p50_ms'] or 0:.3g} ms, p99 {s['p99_ms'] or 0:.3g} ms)"


# -- processes ------------------------------------------------------------------------------------


class _NoServer:
    """Stands in for a process that did not start: every measurement against it fails with the reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    @property
    def address(self) -> str:
        raise AlreadyReported(self.reason)

    @property
    def pid(self) -> int:
        raise AlreadyReported(self.reason)


@contextlib.contextmanager
def _started(run: Run, label: str, process: HubProcess | ServerProcess | None) -> Iterator[Server]:
    """Start a process (None: not needed) and stop it afterwards; a failed start fails its rows, not the run."""
    if process is None:
        yield _NoServer(f"{label} was not started")
        return
    try:
        process.start()
    except Exception as exc:
        tail = ""
        with contextlib.suppress(OSError):
            tail = " | ".join(process.log_path.read_text().strip().splitlines()[-3:])
        run.log(f"{label} did not start: {exc}; {tail}")
        yield _NoServer(f"{label} did not start: {exc} {tail[-200:]}")
        return
    try:
        yield process
    finally:
        process.stop()


def _raw(run: Run, needed: bool) -> ServerProcess | None:
    return ServerProcess("raw", run.work_dir) if needed else None


def _hub(run: Run, name: str, needed: bool, durability: str = "full", *extra: str) -> HubProcess | None:
    if not needed:
        return None
    return HubProcess(run.work_dir / f"hub-{name}", durability=durability, extra_args=extra)


async def _one(
    run: Run,
    wanted: set[str],
    scenario: str,
    unit: str,
    scale: str,
    measure: Measure,
    *,
    group: str | None = None,
    ceiling: str | None = None,
    basis: str = "rate",
    note: str = "",
) -> None:
    """One row, if its scenario (or ``group``) was asked for."""
    if (group or scenario) not in wanted:
        return
    await _rows(
        run,
        scenario,
        unit,
        [(scale, measure)],
        ceiling=_ceiling(ceiling) if ceiling else _no_ceiling,
        basis=basis,
        note=note,
    )


# -- groups: each ceiling measured right before the hub rows divided by it, scale by scale -----------
#
# Other load on a shared machine comes and goes over minutes; measuring a ceiling and its hub
# figure seconds apart keeps a ratio from comparing a quiet minute with a busy one.


_FULL_HUB_ROWS = {"core_full", "core_send_wait", "core_channel"}
"""The core rows measured on the hub with durability full."""


async def group_core(run: Run, wanted: set[str]) -> None:
    cfg = run.cfg
    db = run.work_dir / "broker.db"
    sqlite_broker = ServerProcess("broker-sqlite", run.work_dir, "--database", str(db), "--synchronous", "FULL")
    with (
        _started(run, "the raw server", _raw(run, "broker" in wanted)) as raw,
        _started(run, "the SQLite broker", sqlite_broker if "broker_sqlite" in wanted else None) as sqlite_srv,
        _started(run, "the hub (full)", _hub(run, "core_full", bool(_FULL_HUB_ROWS & wanted), "full")) as full,
        _started(run, "the hub (normal)", _hub(run, "core_normal", "core_normal" in wanted, "normal")) as normal,
        _started(run, "the AutoGen host", AutogenHost(run.work_dir) if "autogen" in wanted else None) as autogen_host,
    ):
        for n in cfg.pairs:
            scale = f"pairs={n}"
            unit = "round trips/s"
            await _one(run, wanted, "broker", unit, scale, _measure(raw, ceilings.broker_core_loop, n, cfg))
            await _one(
                run,
                wanted,
                "broker_sqlite",
                unit,
                scale,
                _measure(sqlite_srv, ceilings.broker_core_loop, n, cfg),
                note="the broker committing queued, delivered and replied to SQLite (WAL, synchronous=FULL)",
            )
            for name, h in (("core_full", full), ("core_normal", normal)):
                await _one(
                    run,
                    wanted,
                    name,
                    unit,
                    scale,
                    _measure(h, hub.core_loop, n, cfg),
                    ceiling="broker",
                    note="SendMessage → Subscribe event → ReplyToMessage → WaitMessage, through HubClient",
                )
            # The same exchange with the reply awaited inside SendMessage (reply_wait): two unary RPCs
            # instead of three, still divided by the three-RPC broker.
            await _one(
                run,
                wanted,
                "core_send_wait",
                unit,
                scale,
                _measure(full, hub.core_loop_send_wait, n, cfg),
                ceiling="broker",
                note="SendMessage(reply_wait) → Subscribe event → ReplyToMessage, durability full",
            )
            await _one(
                run,
                wanted,
                "autogen",
                unit,
                scale,
                _measure(autogen_host, autogen.core_loop, n, cfg),
                note="AutoGen 0.7.5 GrpcWorkerAgentRuntimeHost: send_message to a peer agent, its handler's reply "
                "(one worker runtime per agent, nothing persisted)",
            )
            await _one(
                run,
                wanted,
                "core_channel",
                unit,
                scale,
                _measure(full, hub.core_loop_channel, n, cfg),
                ceiling="autogen",
                note="send(wait) on a channel → event on the recipient's channel → reply on it, durability full",
            )


async def group_fanout(run: Run, wanted: set[str]) -> None:
    cfg = run.cfg
    with (
        _started(run, "the raw server", _raw(run, "broker_fanout" in wanted)) as raw,
        _started(run, "the hub", _hub(run, "fanout", "fanout" in wanted)) as h,
    ):
        for n in cfg.pairs:
            scale = f"callers={n}"
            await _one(
                run,
                wanted,
                "broker_fanout",
                "fanouts/s",
                scale,
                _measure(raw, ceilings.broker_fanout, n, cfg),
                note="3 × Send then 3 × Wait, concurrently, per fanout",
            )
            await _one(
                run,
                wanted,
                "fanout",
                "fanouts/s",
                scale,
                _measure(h, hub.fanout, n, cfg),
                ceiling="broker_fanout",
                note="FanoutMessages to 3 agents that reply; gathered in the call",
            )


async def group_delivery(run: Run, wanted: set[str]) -> None:
    cfg = run.cfg
    with (
        _started(run, "the raw server", _raw(run, "push" in wanted)) as raw,
        _started(run, "the hub", _hub(run, "delivery", "delivery" in wanted)) as h,
    ):
        for n in cfg.subscribers:
            scale = f"subscribers={n}"
            # Addresses are read inside the factories: a server that did not start fails its own row there.
            sessions: dict[str, Callable[[], Session]] = {}
            if "push" in wanted:
                sessions["push"] = partial(lambda n: ceilings.PushDelivery(raw.address, n, cfg, raw.pid), n)
            if "delivery" in wanted:
                sessions["delivery"] = partial(lambda n: hub.HubDelivery(h.address, n, cfg, h.pid), n)
            measures = _alternating(sessions, cfg.delivery_reps)
            await _one(
                run,
                wanted,
                "push",
                "events/s",
                scale,
                measures.get("push", _not_measured),
                note="latency = time for one subscriber to receive its share of the events",
            )
            await _one(
                run,
                wanted,
                "delivery",
                "events/s",
                scale,
                measures.get("delivery", _not_measured),
                ceiling="push",
                note="a queued backlog replayed on Subscribe, repetitions alternating with push; "
                "latency = one subscriber's whole share",
            )


async def group_paced(run: Run, wanted: set[str]) -> None:
    cfg = run.cfg
    scale = f"offered={cfg.paced_rate:g}/s"
    with (
        _started(run, "the raw server", _raw(run, "broker_paced" in wanted)) as raw,
        _started(run, "the hub", _hub(run, "paced", bool({"paced", "paced_channel"} & wanted))) as h,
    ):
        await _one(
            run,
            wanted,
            "broker_paced",
            "events/s",
            scale,
            _measure(raw, ceilings.broker_paced, cfg),
            note="latency = event received − send scheduled",
        )
        await _one(
            run,
            wanted,
            "paced",
            "events/s",
            scale,
            _measure(h, hub.paced_delivery, cfg),
            ceiling="broker_paced",
            basis="p50",
            note="SendMessage at a fixed rate; latency = event received − send scheduled",
        )
        await _one(
            run,
            wanted,
            "paced_channel",
            "events/s",
            scale,
            _measure(h, hub.paced_channel_delivery, cfg),
            ceiling="broker_paced",
            basis="p50",
            note="sends on the publishers' channels at a fixed rate, events on the subscribers' channels",
        )


async def group_idle(run: Run, wanted: set[str]) -> None:
    cfg = run.cfg
    scale = f"streams={cfg.idle_streams}"
    # Idle agents make no calls, so with the default 30 s presence lease the sweep would retire
    # them mid-measurement (a separate effect, see docs/performance.md): keep them online.
    idle_hub = _hub(run, "idle", bool({"idle_streams", "idle_channels"} & wanted), "full", "--stale-after", "3600")
    with (
        _started(run, "the raw server", _raw(run, bool({"push_idle", "push_idle_channel"} & wanted))) as raw,
        _started(run, "the hub", idle_hub) as h,
    ):
        raw_probe: dict[str, list[Rep]] = {}
        hub_probe: dict[str, list[Rep]] = {}

        async def raw_both() -> list[Rep]:
            memory, probe = await ceilings.push_idle(raw.address, cfg, raw.pid)
            raw_probe["probe"] = [probe]
            return [memory]

        async def hub_both() -> list[Rep]:
            memory, probe = await hub.idle_streams(h.address, cfg, h.pid)
            hub_probe["probe"] = [probe]
            return [memory]

        await _one(run, wanted, "push_idle_memory", "KiB/stream", scale, raw_both, group="push_idle")
        await _one(
            run,
            wanted,
            "push_idle_probe",
            "calls/s",
            scale,
            partial(_ready, raw_probe),
            group="push_idle",
            note="unary echo at the probe concurrency while the idle streams are open",
        )
        await _one(
            run,
            wanted,
            "idle_memory",
            "KiB/stream",
            scale,
            hub_both,
            group="idle_streams",
            ceiling="push_idle_memory",
            basis="kib",
            note="hub RSS growth / open Subscribe streams (8 per agent, projects of 10 agents; --stale-after 3600)",
        )
        await _one(
            run,
            wanted,
            "idle_probe",
            "calls/s",
            scale,
            partial(_ready, hub_probe),
            group="idle_streams",
            ceiling="push_idle_probe",
            basis="p99",
            note="ListInbox while the idle streams are open; p99_before_ms in the JSON is without them",
        )
        channels = f"channels={cfg.idle_streams}"
        await _one(
            run,
            wanted,
            "push_idle_channel_memory",
            "KiB/stream",
            channels,
            _measure(raw, ceilings.push_idle_channels, cfg),
            group="push_idle_channel",
            note="raw bidirectional streams held open, each after its ready event",
        )
        await _one(
            run,
            wanted,
            "idle_channel_memory",
            "KiB/stream",
            channels,
            _measure(h, hub.idle_channels, cfg),
            group="idle_channels",
            ceiling="push_idle_channel_memory",
            basis="kib",
            note="hub RSS growth / open agent channels, each subscribed (8 per agent, projects of 10 agents)",
        )


async def group_leases(run: Run, wanted: set[str]) -> None:
    cfg = run.cfg
    with (
        _started(run, "the raw server", _raw(run, "echo" in wanted)) as raw,
        _started(run, "the hub", _hub(run, "leases", "leases" in wanted)) as h,
    ):
        for n in cfg.pairs:
            scale = f"workers={n}"
            await _one(run, wanted, "echo", "calls/s", scale, _measure(raw, ceilings.echo, n, cfg))
            await _one(
                run,
                wanted,
                "leases",
                "RPCs/s",
                scale,
                _measure(h, hub.leases, n, cfg),
                ceiling="echo",
                note="AcquireLease → RenewLease → ReleaseLease per worker; ceiling = unary echo",
            )


async def group_checkpoint(run: Run, wanted: set[str]) -> None:
    """Workflow checkpoints (with two evidence refs, and plain) beside durable SendMessage, in one hub,
    repetitions alternating (bench/checkpoints.py). The baseline is a hub row, not a raw ceiling."""
    cfg = run.cfg
    # Send recipients make no calls for the whole group (about a minute): keep them online.
    with _started(run, "the hub", _hub(run, "checkpoint", True, "full", "--stale-after", "3600")) as h:

        def sessions(stages: int, batch: int) -> dict[str, Callable[[], Session]]:
            # The address is read inside the factories: a hub that did not start fails the rows there.
            return {
                "send": lambda: checkpoints.SendSession(h.address, cfg, h.pid, stages=stages, batch=batch),
                "checkpoint_refs": lambda: checkpoints.CheckpointSession(
                    h.address, cfg, h.pid, refs=True, stages=stages, batch=batch
                ),
                "checkpoint_plain": lambda: checkpoints.CheckpointSession(
                    h.address, cfg, h.pid, refs=False, stages=stages, batch=batch
                ),
            }

        for stages, batch in cfg.checkpoint_scales:
            scale = f"runs={cfg.checkpoint_runs} · stages={stages}"
            measures = _alternating(sessions(stages, batch), cfg.checkpoint_reps)
            per_phase = f"{cfg.checkpoint_runs} workers × {batch} calls per phase, {stages} phases"
            await _one(
                run,
                wanted,
                "send",
                "sends/s",
                scale,
                measures["send"],
                group="checkpoint",
                note=f"durable SendMessage to an agent with no stream open, in the checkpoints' phase shape "
                f"({per_phase})",
            )
            await _one(
                run,
                wanted,
                "checkpoint_refs",
                "checkpoints/s",
                scale,
                measures["checkpoint_refs"],
                group="checkpoint",
                ceiling="send",
                basis="cpu",
                note="Checkpoint(passed) citing two peer replies (minProducers 2); the reviews are setup, "
                "not measured; ratio = hub CPU per checkpoint ÷ per send",
            )
            await _one(
                run,
                wanted,
                "checkpoint_plain",
                "checkpoints/s",
                scale,
                measures["checkpoint_plain"],
                group="checkpoint",
                ceiling="send",
                basis="cpu",
                note="Checkpoint(passed, evidence={k: v}): no peer evidence; ratio = hub CPU per checkpoint ÷ per send",
            )


async def group_journal(run: Run, wanted: set[str]) -> None:
    """The journal (issue 15, bench/journal.py), in one hub: RecordJournal beside durable SendMessage,
    repetitions alternating (the baseline is a hub row, not a raw ceiling), then GetImprovementReport
    over a project seeded with ``journal_runs`` × ``journal_entries_per_run`` entries."""
    cfg = run.cfg
    # Send recipients and the report's coordinator make no calls for long stretches: keep them online.
    with _started(run, "the hub", _hub(run, "journal", True, "full", "--stale-after", "3600")) as h:
        # The address is read inside the factories: a hub that did not start fails the rows there.
        measures = _alternating(
            {
                "journal_send": lambda: journal.SendLoop(h.address, cfg, h.pid),
                "record_journal": lambda: journal.RecordLoop(h.address, cfg, h.pid),
            },
            cfg.reps,
        )
        scale = f"workers={cfg.journal_workers}"
        await _one(
            run,
            wanted,
            "journal_send",
            "sends/s",
            scale,
            measures["journal_send"],
            group="journal",
            note="durable SendMessage to an agent with no stream open, closed loop, a project per pair "
            "(the baseline of record_journal, repetitions alternating with it)",
        )
        await _one(
            run,
            wanted,
            "record_journal",
            "entries/s",
            scale,
            measures["record_journal"],
            group="journal",
            ceiling="journal_send",
            basis="p50_cost",
            note="RecordJournal by the run's coordinator, closed loop, a run of its own per worker, the report's "
            "20-entry mix, a request_id each; ratio = p50 ÷ journal_send p50",
        )
        runs, per_run = cfg.journal_runs, cfg.journal_entries_per_run
        await _one(
            run,
            wanted,
            "improvement_report",
            "reports/s",
            f"runs={runs} × entries={per_run}",
            _measure(h, journal.improvement_report, cfg),
            group="journal",
            note=f"GetImprovementReport(max_entries={journal.REPORT_MAX_ENTRIES}) by the coordinator over one "
            f"project of {runs} runs × {per_run} entries, one call at a time after one unmeasured call; seeded "
            f"through {runs * per_run:,} RecordJournal RPCs ({journal.SEED_IN_FLIGHT} runs in flight) to this "
            "hub process, not measured (seed_seconds in the JSON)",
        )


async def group_steps(run: Run, wanted: set[str]) -> None:
    """The step engine (issue 16, bench/steps.py), in one hub: a step of a chain of agent steps beside
    a durable send round trip, repetitions alternating (the baseline is a hub row, not a raw ceiling);
    then an attempt token's cost, in this process and on a call end to end."""
    cfg = run.cfg
    # Send recipients and the token rows' agents make no calls for long stretches: keep them online.
    with _started(run, "the hub", _hub(run, "steps", True, "full", "--stale-after", "3600")) as h:
        # The address is read inside the factories: a hub that did not start fails the rows there.
        measures = _alternating(
            {
                "step_send": lambda: steps.SendRoundTrips(h.address, cfg, h.pid),
                "steps": lambda: steps.StepRuns(h.address, cfg, h.pid),
            },
            cfg.steps_reps,
        )
        scale = f"runs={cfg.steps_runs} · steps={cfg.steps_chain}"
        shape = f"{cfg.steps_phases} phases of {cfg.steps_runs} workers × {cfg.steps_chain}"
        await _one(
            run,
            wanted,
            "step_send",
            "round trips/s",
            scale,
            measures["step_send"],
            group="steps",
            note=f"SendMessage → message event on the recipient's open stream → AckMessages, a project per pair, "
            f"{shape} round trips (the baseline of steps, repetitions alternating with it)",
        )
        await _one(
            run,
            wanted,
            "steps",
            "steps/s",
            scale,
            measures["steps"],
            group="steps",
            ceiling="step_send",
            basis="cpu",
            note=f"{cfg.steps_runs} runs in flight of a chain of {cfg.steps_chain} agent steps ({steps.AGENTS} agents "
            "round-robin, streams open): assignment on the stream → ack → CompleteAssignment(passed) → the next "
            f"dispatched; {shape} steps; ratio = hub CPU per step ÷ per send round trip",
        )
        await _one(
            run,
            wanted,
            "token_verify",
            "calls/s",
            "in-process",
            partial(_in_thread, steps.token_verify, cfg),
            group="steps",
            note="verify_token + evaluate of an attempt token (allow and deny lists) in the bench process; "
            "CPU = that thread's; verify_us, evaluate_us, mint_us in the JSON",
        )
        tokens = _alternating(
            {
                f"token_rpc_{mode}": partial(lambda mode: steps.TokenCalls(h.address, cfg, h.pid, mode=mode), mode)
                for mode in steps.TokenCalls.MODES
            },
            cfg.reps,
        )
        for name, note in (
            ("token_rpc_plain", "GetCallerIdentity (kxm_whoami) by an agent with an open assignment, no token"),
            (
                "token_rpc_attempt",
                "the same with its attempt token in x-kxm-attempt-token; ratio = hub CPU per call ÷ without",
            ),
            (
                "token_rpc_padding",
                "the same with a header of the token's length that admission does not read (the bytes carried, "
                "not verified); ratio = hub CPU per call ÷ without",
            ),
        ):
            await _one(
                run,
                wanted,
                name,
                "calls/s",
                f"callers={cfg.steps_runs}",
                tokens[name],
                group="steps",
                ceiling=None if name == "token_rpc_plain" else "token_rpc_plain",
                basis="cpu",
                note=note,
            )


async def _in_thread(measure: Callable[[Config], Rep], cfg: Config) -> list[Rep]:
    """``reps`` repetitions of a synchronous measurement, each in a worker thread (its CPU is the thread's)."""
    return [await asyncio.to_thread(measure, cfg) for _ in range(cfg.reps)]


async def group_sqlite(run: Run, wanted: set[str]) -> None:
    cfg = run.cfg
    for scenario, sync, rows in (
        ("sqlite_normal", "NORMAL", 1),
        ("sqlite_full", "FULL", 1),
        ("sqlite_full", "FULL", 100),
    ):
        await _one(
            run,
            wanted,
            scenario,
            "rows/s",
            f"rows/commit={rows}",
            partial(asyncio.to_thread, ceilings.sqlite_commits, run.work_dir, sync, rows, cfg, f"sqlite-{sync}-{rows}"),
            group="sqlite",
            note="latency = one commit; CPU = the committing process",
        )


async def group_context(run: Run, wanted: set[str]) -> None:
    """Role-aware context at 1,000 to 100,000 items (issue 17, bench/context.py): the indexed packet
    and recall beside the brute force over the same SQLite store, in this process; then the index's
    bytes per item."""
    cfg = run.cfg
    for size in cfg.context_sizes:
        scale = f"items={size:,}"
        path = run.work_dir / f"context-{size}.db"
        seeded: dict[str, Any] = {}

        async def opened(size: int = size, path: Path = path, seeded: dict[str, Any] = seeded) -> Any:
            if "store" not in seeded:
                seeded["store"], seeded["seconds"] = await context.seed(path, size)
                await context.same_outcomes(seeded["store"], size, 5 if size <= 10_000 else 1)
            return seeded["store"]

        brute_calls = cfg.context_calls if size <= 10_000 else cfg.context_brute_calls
        shape = f"one project of {size:,} items and 60 _shared defaults (15 shadowed)"

        async def packets(brute: bool, calls: int, size: int = size, seeded: dict[str, Any] = seeded) -> list[Rep]:
            store = await opened()
            return [await context.packets(store, size, calls, brute=brute, seed_seconds=seeded["seconds"])]

        async def recalls(brute: bool, calls: int, size: int = size) -> list[Rep]:
            return [await context.recalls(await opened(), size, calls, brute=brute)]

        try:
            await _one(
                run,
                wanted,
                "context_packet_brute",
                "packets/s",
                scale,
                partial(packets, True, brute_calls),
                group="context",
                note=f"assemble_brute_force (the oracle: every item read and scored), {brute_calls} calls; {shape}",
            )
            await _one(
                run,
                wanted,
                "context_packet",
                "packets/s",
                scale,
                partial(packets, False, cfg.context_calls),
                group="context",
                ceiling="context_packet_brute",
                basis="p50_cost",
                note=f"assemble (indexed), {cfg.context_calls} calls, byte-identical to the brute force's; "
                "ratio = p50 ÷ the brute force's p50",
            )
            await _one(
                run,
                wanted,
                "context_recall_brute",
                "recalls/s",
                scale,
                partial(recalls, True, brute_calls),
                group="context",
                note=f"recall_brute_force, limit 25, {brute_calls} calls",
            )
            await _one(
                run,
                wanted,
                "context_recall",
                "recalls/s",
                scale,
                partial(recalls, False, cfg.context_calls),
                group="context",
                ceiling="context_recall_brute",
                basis="p50_cost",
                note=f"recall (indexed), limit 25, {cfg.context_calls} calls; ratio = p50 ÷ the brute force's p50",
            )
            if size == max(cfg.context_sizes):
                await _one(
                    run,
                    wanted,
                    "context_index_bytes",
                    "bytes/item",
                    scale,
                    partial(_in_thread_once, context.index_bytes, path, size + context.SHARED, run.work_dir),
                    group="context",
                    note="on-disk size of the database with the index (postings, statistics, ranking columns "
                    "and indexes) minus without it, after VACUUM, per item",
                )
        finally:
            if "store" in seeded:
                await seeded["store"].close()


async def _in_thread_once(measure: Callable[..., Rep], *args: Any) -> list[Rep]:
    return [await asyncio.to_thread(measure, *args)]


async def _ready(results: dict[str, list[Rep]]) -> list[Rep]:
    reps = results.get("probe")
    if reps is None:
        raise AlreadyReported("the idle-stream measurement failed (see the memory row)")
    return reps


GROUPS: list[tuple[set[str], Callable[[Run, set[str]], Awaitable[None]]]] = [
    ({"broker", "broker_sqlite", "autogen", "core_full", "core_normal", "core_send_wait", "core_channel"}, group_core),
    ({"broker_fanout", "fanout"}, group_fanout),
    ({"push", "delivery"}, group_delivery),
    ({"broker_paced", "paced", "paced_channel"}, group_paced),
    ({"push_idle", "idle_streams", "push_idle_channel", "idle_channels"}, group_idle),
    ({"echo", "leases"}, group_leases),
    ({"checkpoint"}, group_checkpoint),
    ({"sqlite"}, group_sqlite),
    ({"journal"}, group_journal),
    ({"steps"}, group_steps),
    ({"context"}, group_context),
]


# -- the whole run --------------------------------------------------------------------------------


def main(cfg: Config, only: list[str] | None, results_dir: Path, command: str, quiet: bool = False) -> dict[str, Any]:
    """Run the selected scenarios; write the JSON and Markdown; return the result."""
    names = select(only)
    started_wall = dt.datetime.now(dt.UTC)
    stamp = started_wall.strftime("%Y%m%dT%H%M%SZ")
    started = time.monotonic()
    load_before = report.loadavg()
    work_dir = Path(tempfile.mkdtemp(prefix="kxm-bench-"))

    def log(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr, flush=True)

    run = Run(cfg, work_dir, time.monotonic() + BUDGET_SECONDS, log=log)
    try:
        log(f"kxm bench: {', '.join(names)} (work dir {work_dir})")
        asyncio.run(_all(run, names))
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    summaries = report.summarize(run.rows)
    result: dict[str, Any] = {
        "started": started_wall.isoformat(timespec="seconds"),
        "command": command,
        "elapsed_seconds": time.monotonic() - started,
        "machine": report.machine(),
        "loadavg_before": load_before,
        "loadavg_after": report.loadavg(),
        "config": asdict(cfg),
        "scenarios": names,
        "rows": summaries,
        "targets": report.targets(summaries, cfg.headline_pairs, max(cfg.subscribers)),
    }
    json_path, md_path = report.write(result, results_dir, stamp)
    result["files"] = {"json": str(json_path), "markdown": str(md_path)}
    return result


async def _all(run: Run, names: list[str]) -> None:
    wanted = set(names)
    for members, group in GROUPS:
        if members & wanted:
            await group(run, wanted)
