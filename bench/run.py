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

from bench import ceilings, hub, report
from bench.common import Rep, Row, ServerProcess
from bench.config import Config
from bench.hubproc import HubProcess

BUDGET_SECONDS = 570.0
"""The whole run stops starting scenarios after this (the issue allows 10 minutes)."""

CEILINGS = ["echo", "push", "broker", "broker_sqlite", "broker_fanout", "broker_paced", "push_idle", "sqlite"]
HUB = ["core_full", "core_normal", "fanout", "delivery", "paced", "idle_streams", "leases"]
NEEDS: dict[str, list[str]] = {
    "core_full": ["broker", "broker_sqlite"],
    "core_normal": ["broker"],
    "fanout": ["broker_fanout"],
    "delivery": ["push"],
    "paced": ["broker_paced"],
    "idle_streams": ["push_idle"],
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


# -- ceilings -------------------------------------------------------------------------------------


async def run_ceilings(run: Run, names: list[str]) -> None:
    cfg = run.cfg
    raw_names = {"echo", "push", "broker", "broker_fanout", "broker_paced"} & set(names)
    if raw_names:
        with ServerProcess("raw", run.work_dir) as raw:
            if "echo" in names:
                await _rows(
                    run,
                    "echo",
                    "calls/s",
                    [(f"workers={n}", _measure(raw, ceilings.echo, n, cfg)) for n in cfg.pairs],
                )
            if "push" in names:
                await _rows(
                    run,
                    "push",
                    "events/s",
                    [(f"subscribers={n}", _measure(raw, ceilings.push_delivery, n, cfg)) for n in cfg.subscribers],
                    note="latency = time for one subscriber to receive its share of the events",
                )
            if "broker" in names:
                await _rows(
                    run,
                    "broker",
                    "round trips/s",
                    [(f"pairs={n}", _measure(raw, ceilings.broker_core_loop, n, cfg)) for n in cfg.pairs],
                )
            if "broker_fanout" in names:
                await _rows(
                    run,
                    "broker_fanout",
                    "fanouts/s",
                    [(f"callers={n}", _measure(raw, ceilings.broker_fanout, n, cfg)) for n in cfg.pairs],
                    note="3 × Send then 3 × Wait, concurrently, per fanout",
                )
            if "broker_paced" in names:
                await _rows(
                    run,
                    "broker_paced",
                    "events/s",
                    [(f"offered={cfg.paced_rate:g}/s", _measure(raw, ceilings.broker_paced, cfg))],
                    note="latency = event received − send scheduled",
                )
    if "broker_sqlite" in names:
        db = run.work_dir / "broker.db"
        with ServerProcess("broker-sqlite", run.work_dir, "--database", str(db), "--synchronous", "FULL") as srv:
            await _rows(
                run,
                "broker_sqlite",
                "round trips/s",
                [(f"pairs={n}", _measure(srv, ceilings.broker_core_loop, n, cfg)) for n in cfg.pairs],
                note="the broker committing queued, delivered and replied to SQLite (WAL, synchronous=FULL)",
            )
    if "push_idle" in names:
        with ServerProcess("raw", run.work_dir) as raw:
            results: dict[str, list[Rep]] = {}

            async def both() -> list[Rep]:
                memory, probe = await ceilings.push_idle(raw.address, cfg, raw.pid)
                results["probe"] = [probe]
                return [memory]

            await _rows(run, "push_idle_memory", "KiB/stream", [(f"streams={cfg.idle_streams}", both)])
            await _rows(
                run,
                "push_idle_probe",
                "calls/s",
                [(f"streams={cfg.idle_streams}", partial(_ready, results))],
                note="unary echo at the probe concurrency while the idle streams are open",
            )
    if "sqlite" in names:
        for scenario, sync, rows in (
            ("sqlite_normal", "NORMAL", 1),
            ("sqlite_full", "FULL", 1),
            ("sqlite_full", "FULL", 100),
        ):
            await _rows(
                run,
                scenario,
                "rows/s",
                [
                    (
                        f"rows/commit={rows}",
                        partial(
                            asyncio.to_thread,
                            ceilings.sqlite_commits,
                            run.work_dir,
                            sync,
                            rows,
                            cfg,
                            f"sqlite-{sync}-{rows}",
                        ),
                    )
                ],
                note="latency = one commit; CPU = the committing process",
            )


async def _ready(results: dict[str, list[Rep]]) -> list[Rep]:
    reps = results.get("probe")
    if reps is None:
        raise AlreadyReported("the idle-stream measurement failed (see the memory row)")
    return reps


# -- the hub --------------------------------------------------------------------------------------


class _NoHub:
    """Stands in for a hub that did not start: every measurement against it fails with the reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    @property
    def address(self) -> str:
        raise AlreadyReported(self.reason)

    @property
    def pid(self) -> int:
        raise AlreadyReported(self.reason)


@contextlib.contextmanager
def _hub(
    run: Run, name: str, durability: str = "full", extra_args: tuple[str, ...] = ()
) -> Iterator[HubProcess | _NoHub]:
    process = HubProcess(run.work_dir / f"hub-{name}", durability=durability, extra_args=extra_args)
    try:
        process.start()
    except Exception as exc:
        tail = ""
        with contextlib.suppress(OSError):
            tail = " | ".join(process.log_path.read_text().strip().splitlines()[-3:])
        run.log(f"hub for {name} did not start: {exc}; {tail}")
        yield _NoHub(f"the hub did not start: {exc} {tail[-200:]}")
        return
    try:
        yield process
    finally:
        process.stop()


async def run_hub(run: Run, names: list[str]) -> None:
    cfg = run.cfg
    for durability in ("full", "normal"):
        name = f"core_{durability}"
        if name not in names:
            continue
        with _hub(run, name, durability) as h:
            await _rows(
                run,
                name,
                "round trips/s",
                [(f"pairs={n}", _measure(h, hub.core_loop, n, cfg)) for n in cfg.pairs],
                ceiling=_ceiling("broker"),
                note="SendMessage → Subscribe event → ReplyToMessage → WaitMessage, through HubClient",
            )
    if "fanout" in names:
        with _hub(run, "fanout") as h:
            await _rows(
                run,
                "fanout",
                "fanouts/s",
                [(f"callers={n}", _measure(h, hub.fanout, n, cfg)) for n in cfg.pairs],
                ceiling=_ceiling("broker_fanout"),
                note="FanoutMessages to 3 agents that reply; gathered in the call",
            )
    if "delivery" in names:
        with _hub(run, "delivery") as h:
            await _rows(
                run,
                "delivery",
                "events/s",
                [(f"subscribers={n}", _measure(h, hub.delivery, n, cfg)) for n in cfg.subscribers],
                ceiling=_ceiling("push"),
                note="a queued backlog replayed on Subscribe; latency = one subscriber's whole share",
            )
    if "paced" in names:
        with _hub(run, "paced") as h:
            await _rows(
                run,
                "paced",
                "events/s",
                [(f"offered={cfg.paced_rate:g}/s", _measure(h, hub.paced_delivery, cfg))],
                ceiling=_ceiling("broker_paced"),
                basis="p50",
                note="SendMessage at a fixed rate; latency = event received − send scheduled",
            )
    if "idle_streams" in names:
        # Idle agents make no calls, so with the default 30 s presence lease the sweep would retire
        # them mid-measurement (a separate effect, see docs/performance.md): keep them online.
        with _hub(run, "idle", extra_args=("--stale-after", "3600")) as h:
            results = {}

            async def both(h: HubProcess | _NoHub = h) -> list[Rep]:
                memory, probe = await hub.idle_streams(h.address, cfg, h.pid)
                results["probe"] = [probe]
                return [memory]

            scale = f"streams={cfg.idle_streams}"
            await _rows(
                run,
                "idle_memory",
                "KiB/stream",
                [(scale, both)],
                ceiling=_ceiling("push_idle_memory"),
                basis="kib",
                note="hub RSS growth / open Subscribe streams (8 per agent, projects of 10 agents; --stale-after 3600)",
            )
            await _rows(
                run,
                "idle_probe",
                "calls/s",
                [(scale, partial(_ready, results))],
                ceiling=_ceiling("push_idle_probe"),
                basis="p99",
                note="ListInbox while the idle streams are open; p99_before_ms in the JSON is without them",
            )
    if "leases" in names:
        with _hub(run, "leases") as h:
            await _rows(
                run,
                "leases",
                "RPCs/s",
                [(f"workers={n}", _measure(h, hub.leases, n, cfg)) for n in cfg.pairs],
                ceiling=_ceiling("echo"),
                note="AcquireLease → RenewLease → ReleaseLease per worker; ceiling = unary echo",
            )


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
    await run_ceilings(run, [n for n in names if n in CEILINGS])
    await run_hub(run, [n for n in names if n in HUB])
