"""``python -m bench.replicas``: the hub on PostgreSQL, with 1 and 2 replicas, beside SQLite in the same run (issue 12).

    python -m bench.replicas                      its own throwaway PostgreSQL (scripts/postgres), durable
    python -m bench.replicas --postgres URL       a server of yours, as it is configured
    python -m bench.replicas --quick              tiny scale (well under a minute): checks that it all runs
    python -m bench.replicas --statements         also statements per operation (pg_stat_statements, own cluster)

Two scenarios of ``python -m bench``, each measured on four setups whose repetitions alternate
(A B C D A B C D …, so drift on a shared machine lands in none of the ratios):

- **core loop** (``core_full``, ``core_normal``: SendMessage → message event on the recipient's
  Subscribe stream → ReplyToMessage → WaitMessage, 8 pairs), durability ``full`` and ``normal``;
- **delivery** (a queued backlog of 6,000 messages replayed to 100 subscribers at once).

Setups: ``sqlite`` (one hub, its data directory on disk: the baseline every ratio divides by),
``pg1`` (one replica on PostgreSQL), ``pg2-crossed`` (two replicas; pair *i*'s sender on replica
*i* mod 2 and its recipient on the other, so every wake-up crosses replicas by LISTEN/NOTIFY; for
delivery, subscriber *i* on replica *i* mod 2 and its publisher on the other) and, for the core loop,
``pg2-local`` (two replicas, pair *i* entirely on replica *i* mod 2: what crossing costs). Each
PostgreSQL setup gets a database of its own, created fresh for the scenario and dropped
``WITH (FORCE)`` after it.

CPU: "hub" is the sum of the setup's hub processes (utime + stime), "PG" the PostgreSQL server's
processes (``bench/pg.py``), "other load" the share of the machine used by anything else (the
bench's client, the hubs and PostgreSQL excluded). Writes bench/results/replicas-<timestamp>.json
and bench/results/replicas-latest.md, and prints the table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import grpc

from bench import pg, report
from bench.common import REPO, CpuMeter, Rep, Row, channel, closed_loop, drained, process_cpu, system_busy
from bench.hub import Agent, Fleet
from bench.hubproc import HubProcess
from bench.run import AlreadyReported, Session, _alternating
from kxm_grpc.errors import Unavailable

BUDGET_SECONDS = 540.0
"""Stop starting groups after this."""

HUB_ARGS = ("--stale-after", "3600")
"""Every hub, SQLite and PostgreSQL alike: agents of a setup that is not being measured make no calls
for tens of seconds (delivery's subscribers hold no stream between repetitions), and with the default
30 s presence window the sweep would retire them and the next repetition would pay for presence events."""


@dataclass(frozen=True)
class Config:
    reps: int
    """Repetitions of each core-loop setup (alternating)."""
    warmup: float
    duration: float
    pairs: int
    subscribers: int
    delivery_events: int
    delivery_reps: int
    payload_size: int
    durabilities: tuple[str, ...]


FULL = Config(
    reps=5,
    warmup=0.4,
    duration=2.0,
    pairs=8,
    subscribers=100,
    delivery_events=6_000,
    delivery_reps=5,
    payload_size=128,
    durabilities=("full", "normal"),
)
QUICK = Config(
    reps=1,
    warmup=0.05,
    duration=0.3,
    pairs=2,
    subscribers=4,
    # Enough events that the hubs' and PostgreSQL's CPU reach whole clock ticks (10 ms): with 80, a
    # delivery's CPU often read 0 and its ratios nothing (the smoke test's check failed by chance).
    delivery_events=6_000,
    delivery_reps=1,
    payload_size=128,
    durabilities=("full", "normal"),
)


# -- setups ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """A setup: how many hub processes, on which backend, and where pair ``i``'s two agents go."""

    name: str
    replicas: int
    postgres: bool
    place: Callable[[int], tuple[int, int]]
    """Pair ``i`` → (replica of the sender / publisher, replica of the recipient / subscriber)."""
    what: str


SQLITE = Layout("sqlite", 1, False, lambda i: (0, 0), "one hub on SQLite (the baseline)")
PG1 = Layout("pg1", 1, True, lambda i: (0, 0), "one replica on PostgreSQL")
PG2_CROSSED = Layout(
    "pg2-crossed",
    2,
    True,
    lambda i: (i % 2, (i + 1) % 2),
    "two replicas; each pair's sender on one, its recipient on the other (every wake-up crosses)",
)
PG2_LOCAL = Layout(
    "pg2-local", 2, True, lambda i: (i % 2, i % 2), "two replicas; each pair on one of them (no wake-up crosses)"
)
CORE_LAYOUTS = (SQLITE, PG1, PG2_CROSSED, PG2_LOCAL)
DELIVERY_LAYOUTS = (SQLITE, PG1, PG2_CROSSED)


@dataclass
class Deployment:
    """The running hub processes of one setup (and the database they share)."""

    layout: Layout
    hubs: list[HubProcess]
    database: str | None = None

    @property
    def addresses(self) -> list[str]:
        return [h.address for h in self.hubs]

    @property
    def pids(self) -> list[int]:
        return [h.pid for h in self.hubs]


_UTILITY = re.compile(r"\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SET|SHOW)\b", re.IGNORECASE)


class Meter(CpuMeter):
    """``CpuMeter`` for a setup of several processes plus the PostgreSQL server (same interface).

    ``stop()`` returns the hub processes' CPU seconds; ``per_hub``, ``pg`` (the whole server),
    ``pg_backends`` (the backends of this setup's database) and ``foreign`` (the share of the
    machine's CPUs anything else used) are set by it.
    """

    def __init__(self, pids: Sequence[int], server: pg.PgServer | None, database: str | None) -> None:
        super().__init__(None)
        self.pids = list(pids)
        self.server = server
        self.pg_processes = server.processes if server is not None else None
        self.xids: int | None = None
        self.per_op_statements: dict[str, float] = {}
        self.statements: dict[str, int] = {}
        """Statements run in the setup's database during the window (with ``--statements``)."""
        self._statements: dict[str, int] = {}
        self.databases = {database} if database else set()
        self.foreign = 0.0
        self.client = 0.0
        self.per_hub: list[float] = []
        self.pg: float | None = None
        self.pg_backends: float | None = None

    def start(self) -> None:
        self._statements = self._statement_calls()
        self._hubs = [process_cpu(p) for p in self.pids]
        self._pg = self.pg_processes.snapshot() if self.pg_processes else None
        self._xid = self.server.next_xid() if self.server is not None else None
        self._busy = system_busy()
        self._own = process_cpu(os.getpid())
        self._wall = time.perf_counter()

    def stop(self) -> float:
        self.per_hub = [process_cpu(p) - before for p, before in zip(self.pids, self._hubs, strict=True)]
        pg_total = 0.0
        if self.pg_processes is not None and self._pg is not None:
            pg_total, backends = pg.PgProcesses.spent(self._pg, self.pg_processes.snapshot(), self.databases)
            # The server's CPU is the setup's only on PostgreSQL setups; on SQLite it is idle load.
            self.pg, self.pg_backends = pg_total, backends
        if self.server is not None and self._xid is not None:
            xid = self.server.next_xid()
            self.xids = None if xid is None else xid - self._xid
        wall = time.perf_counter() - self._wall
        own = process_cpu(os.getpid()) - self._own
        busy = system_busy() - self._busy
        self.client = own
        hubs = sum(self.per_hub)
        if wall > 0:
            self.foreign = max(0.0, (busy - own - hubs - pg_total) / (wall * (os.cpu_count() or 1)))
        if self._statements:
            end = self._statement_calls()
            self.statements = {q: n - self._statements.get(q, 0) for q, n in end.items()}
            self.statements = {q: n for q, n in self.statements.items() if n > 0}
        return hubs

    def _statement_calls(self) -> dict[str, int]:
        if self.server is None or not self.server.statements or not self.databases:
            return {}
        return self.server.statement_calls(next(iter(self.databases)))

    def annotate(self, rep: Rep) -> Rep:
        """Add the per-process figures to a repetition measured with this meter."""
        ops = rep.ops or 1
        for index, cpu in enumerate(self.per_hub):
            rep.extra[f"hub{index}_cpu_us_per_op"] = cpu / ops * 1e6
        if self.pg is not None:
            rep.extra["pg_cpu_s"] = self.pg
            rep.extra["pg_cpu_us_per_op"] = self.pg / ops * 1e6
            rep.extra["pg_backends_cpu_us_per_op"] = (self.pg_backends or 0.0) / ops * 1e6
            rep.extra["total_cpu_us_per_op"] = (rep.cpu_seconds + self.pg) / ops * 1e6
        if self.xids is not None:
            rep.extra["pg_write_transactions_per_op"] = self.xids / ops
        if self.statements:
            # Without BEGIN, COMMIT and ROLLBACK: psycopg prepares a statement from its fifth run on a
            # connection, and PostgreSQL 15's pg_stat_statements does not count prepared utility statements.
            counted = {q: n for q, n in self.statements.items() if not _UTILITY.match(q)}
            rep.extra["pg_statements_per_op"] = sum(counted.values()) / ops
            self.per_op_statements = {q: n / ops for q, n in counted.items()}
        return rep


# -- sessions -------------------------------------------------------------------------------------


class Placed:
    """A ``Fleet`` whose agents each dial one chosen replica of a deployment."""

    def __init__(self, deployment: Deployment) -> None:
        self.addresses = deployment.addresses
        self.fleet = Fleet(self.addresses[0])  # the admin (projects) on the first replica

    async def agent(self, token: str, name: str, replica: int) -> Agent:
        ch: grpc.aio.Channel = channel(self.addresses[replica])
        self.fleet.channels.append(ch)
        return await self.fleet.agent(token, name, ch)


class CoreSession:
    """``hub.core_loop`` one repetition at a time, over the pairs placed as the layout says."""

    def __init__(self, deployment: Deployment, server: pg.PgServer | None, cfg: Config) -> None:
        self.deployment = deployment
        self.server = server
        self.cfg = cfg
        self.placed = Placed(deployment)
        self.senders: list[Agent] = []
        self.recipients: list[Agent] = []
        self.statements: list[dict[str, float]] = []
        """Per repetition: statements per operation (``--statements``)."""

    async def open(self) -> None:
        placed, place = self.placed, self.deployment.layout.place
        token = await placed.fleet.project()
        self.recipients = [await placed.agent(token, f"r{i}", place(i)[1]) for i in range(self.cfg.pairs)]
        self.senders = [await placed.agent(token, f"s{i}", place(i)[0]) for i in range(self.cfg.pairs)]
        await asyncio.gather(*(placed.fleet.recipient(r) for r in self.recipients))

    async def rep(self) -> Rep:
        content = "x" * self.cfg.payload_size

        async def op(i: int) -> None:
            message_id = await self.senders[i].send(self.recipients[i].id, content)
            if not await self.senders[i].wait(message_id):
                raise RuntimeError("no reply within 10 s")

        meter = _meter(self.deployment, self.server)
        rep = await closed_loop(self.cfg.pairs, op, warmup=self.cfg.warmup, duration=self.cfg.duration, cpu=meter)
        meter.annotate(rep)
        self.statements.append(meter.per_op_statements)
        return rep

    async def close(self) -> None:
        await self.placed.fleet.close()


class DeliverySession:
    """``hub.HubDelivery`` with subscriber ``i`` on the layout's replica and its publisher on the other."""

    def __init__(self, deployment: Deployment, server: pg.PgServer | None, cfg: Config) -> None:
        self.deployment = deployment
        self.server = server
        self.cfg = cfg
        self.per = max(1, cfg.delivery_events // cfg.subscribers)
        self.placed = Placed(deployment)
        self.pairs: list[tuple[Agent, Agent]] = []
        self.statements: list[dict[str, float]] = []
        """Per repetition: statements per operation (``--statements``)."""

    async def open(self) -> None:
        placed, place = self.placed, self.deployment.layout.place
        for i in range(self.cfg.subscribers):
            token = await placed.fleet.project()
            publisher_at, subscriber_at = place(i)
            sub = await placed.agent(token, f"sub{i}", subscriber_at)
            self.pairs.append((sub, await placed.agent(token, f"pub{i}", publisher_at)))
        content = "x" * self.cfg.payload_size
        work = [pair for _ in range(self.per) for pair in self.pairs]

        async def fill(worker: int) -> None:
            for sub, pub in work[worker::32]:
                # Setup, not measured: 32 writers on two replicas can meet PostgreSQL's lock
                # timeout on a loaded machine ("the database is busy; retry"), so it retries.
                for attempt in range(8):
                    try:
                        await pub.send(sub.id, content)
                        break
                    except Unavailable:
                        if attempt == 7:
                            raise
                        await asyncio.sleep(0.05 * 2**attempt)

        await asyncio.wait_for(asyncio.gather(*(fill(w) for w in range(32))), 300)

    async def rep(self) -> Rep:
        per = self.per
        meter = _meter(self.deployment, self.server)
        meter.start()
        start = time.perf_counter()

        async def drain(sub: Agent) -> float:
            got = 0
            events = sub.subscribe()
            try:
                async for event in events:
                    if event.kind == "message":
                        got += 1
                        if got == per:
                            return time.perf_counter() - start
            finally:
                await events.aclose()
            raise RuntimeError(f"stream ended after {got} of {per} messages")

        rep = await drained([drain(s) for s, _ in self.pairs], per * len(self.pairs), start, meter)
        meter.annotate(rep)
        self.statements.append(meter.per_op_statements)
        await asyncio.sleep(0.3)  # let the hubs notice the closed streams (and drop their rows) first
        return rep

    async def close(self) -> None:
        await self.placed.fleet.close()


def _meter(deployment: Deployment, server: pg.PgServer | None) -> Meter:
    return Meter(deployment.pids, server, deployment.database)


# -- a run ----------------------------------------------------------------------------------------


@dataclass
class Run:
    cfg: Config
    work_dir: Path
    server: pg.PgServer
    deadline: float
    log: Callable[[str], None]
    rows: list[Row] = field(default_factory=list)
    databases: list[str] = field(default_factory=list)
    statements: dict[str, dict[str, float]] = field(default_factory=dict)
    """Row key → statements per operation (median over repetitions), most called first."""
    transactions: dict[str, dict[str, int]] = field(default_factory=dict)
    """``group · setup`` → the database's commits and rollbacks over the whole group (setup included)."""


@contextlib.contextmanager
def _deployed(run: Run, group: str, layouts: Sequence[Layout], durability: str) -> Iterator[list[Deployment | str]]:
    """Each layout's hubs started (on a fresh database for PostgreSQL); stopped and dropped on exit.

    Yields one entry per layout: its deployment, or why it did not start.
    """
    with contextlib.ExitStack() as stack:
        plans: list[tuple[Layout, str | None, str | None]] = []
        for layout in layouts:
            name = url = None
            if layout.postgres:
                name, url = stack.enter_context(run.server.database(f"{group}_{layout.name.replace('-', '_')}"))
                run.databases.append(name)
            plans.append((layout, name, url))
        hubs_to_stop: list[HubProcess] = []

        def transactions() -> None:  # once the hubs have stopped (callbacks run last first), before the drop
            for layout, name, _ in plans:
                if name is not None:
                    with contextlib.suppress(Exception):
                        run.transactions[f"{group} · {layout.name}"] = run.server.transactions(name)

        stack.callback(transactions)
        stack.callback(lambda: [h.stop() for h in hubs_to_stop])

        def start(layout: Layout, name: str | None, url: str | None) -> Deployment | str:
            hubs: list[HubProcess] = []
            try:
                for index in range(layout.replicas):  # in turn: the first replica does the start-up work
                    extra = (*HUB_ARGS, *(("--database", url) if url else ()))
                    hub = HubProcess(
                        run.work_dir / f"{group}-{layout.name}-{durability}-{index}",
                        durability=durability,
                        extra_args=extra,
                    )
                    hubs.append(hub)
                    hubs_to_stop.append(hub)
                    hub.start()
            except Exception as exc:
                tail = ""
                with contextlib.suppress(OSError, IndexError):
                    tail = " | ".join(hubs[-1].log_path.read_text().strip().splitlines()[-3:])
                run.log(f"{layout.name} did not start: {exc}; {tail}")
                return f"{layout.name} did not start: {exc} {tail[-200:]}"
            return Deployment(layout, hubs, name)

        # Every setup at once (a thread each: a start waits for its hubs to serve).
        with ThreadPoolExecutor(len(plans)) as pool:
            deployments = list(pool.map(lambda plan: start(*plan), plans))
        yield deployments


async def _group(
    run: Run,
    scenario: str,
    unit: str,
    scale: str,
    deployments: list[Deployment | str],
    make: Callable[[Deployment, pg.PgServer | None, Config], Session],
    reps: int,
    note: str,
) -> None:
    """One row per setup, their repetitions alternating; ratios to the SQLite row."""
    sessions: dict[str, Callable[[], Session]] = {}
    made: dict[str, Session] = {}

    def factory(d: Deployment) -> Callable[[], Session]:
        def build() -> Session:
            made[d.layout.name] = make(d, run.server if d.layout.postgres else None, run.cfg)
            return made[d.layout.name]

        return build

    for d in deployments:
        if isinstance(d, Deployment):
            sessions[d.layout.name] = factory(d)
    measures = _alternating(sessions, reps)
    baseline = f"{scenario}/{scale} · {SQLITE.name}"
    started = time.monotonic()
    for d in deployments:
        layout = d.layout if isinstance(d, Deployment) else None
        name = layout.name if layout else str(d).split(" ", 1)[0]
        row = Row(
            scenario,
            f"{scale} · {name}",
            unit,
            [],
            ceiling=None if name == SQLITE.name else baseline,
            note=note,
        )
        run.rows.append(row)
        if isinstance(d, str):
            row.error = d[:300]
            continue
        try:
            row.reps = await measures[name]()
        except Exception as exc:
            row.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            if not isinstance(exc, AlreadyReported):
                run.log(traceback.format_exc())
        reps_statements = [x for x in getattr(made.get(name), "statements", []) if x]
        if reps_statements:
            queries = {q for x in reps_statements for q in x}
            medians = {q: statistics.median([x.get(q, 0.0) for x in reps_statements]) for q in queries}
            run.statements[row.key] = dict(sorted(medians.items(), key=lambda item: -item[1]))
        run.log(f"  {scenario:<12} {row.scale:<28} {_brief(row)}")
    run.log(f"  ({time.monotonic() - started:.1f} s)")


def _brief(row: Row) -> str:
    if row.error:
        return f"ERROR {row.error}"
    s = row.summary()
    pg_cpu = s.get("pg_cpu_us_per_op")
    extra = f", PG {pg_cpu:,.0f} µs/op" if isinstance(pg_cpu, float) else ""
    return (
        f"{s['median']:.4g} {row.unit} (p50 {s['p50_ms'] or 0:.3g} ms, hub {s['server_cpu_us_per_op']:,.0f} µs/op"
        f"{extra}, other load {100 * s.get('foreign_cpu', 0):.0f}%)"
    )


def _core(run: Run, durability: str) -> None:
    cfg = run.cfg
    scenario = f"core_{durability}"
    with _deployed(run, scenario, CORE_LAYOUTS, durability) as deployments:
        asyncio.run(
            _group(
                run,
                scenario,
                "round trips/s",
                f"pairs={cfg.pairs}",
                deployments,
                CoreSession,
                cfg.reps,
                "SendMessage → Subscribe event → ReplyToMessage → WaitMessage, through HubClient",
            )
        )


def _delivery(run: Run) -> None:
    cfg = run.cfg
    with _deployed(run, "delivery", DELIVERY_LAYOUTS, "full") as deployments:
        asyncio.run(
            _group(
                run,
                "delivery",
                "events/s",
                f"subscribers={cfg.subscribers}",
                deployments,
                DeliverySession,
                cfg.delivery_reps,
                "a queued backlog replayed on Subscribe; latency = one subscriber's whole share",
            )
        )


def main(
    cfg: Config,
    results_dir: Path,
    command: str,
    *,
    postgres: str | None = None,
    durable: bool = True,
    statements: bool = False,
    quiet: bool = False,
) -> dict[str, Any]:
    """Run every group; write the JSON and Markdown; return the result."""
    started_wall = dt.datetime.now(dt.UTC)
    stamp = started_wall.strftime("%Y%m%dT%H%M%SZ")
    started = time.monotonic()
    load_before = report.loadavg()
    code = source()

    def log(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr, flush=True)

    if statements and postgres:
        raise SystemExit("--statements needs the bench's own cluster (it loads pg_stat_statements and restarts it)")
    server = pg.external(postgres) if postgres else pg.own_cluster(durable=durable, statements=statements)
    work_dir = Path(tempfile.mkdtemp(prefix="kxm-bench-replicas-"))
    run = Run(cfg, work_dir, server, time.monotonic() + BUDGET_SECONDS, log)
    try:
        log(
            f"kxm bench.replicas: PostgreSQL {server.settings.get('server_version')} "
            f"({'own cluster' if server.own else 'given server'}: fsync {server.settings.get('fsync')}, "
            f"synchronous_commit {server.settings.get('synchronous_commit')}; "
            f"{'CPU measured' if server.processes else 'CPU not measurable from here'}), work dir {work_dir}"
        )
        groups: list[tuple[str, Callable[[], None]]] = [
            *((f"core_{d}", partial(_core, run, d)) for d in cfg.durabilities),
            ("delivery", lambda: _delivery(run)),
        ]
        for name, group in groups:
            if time.monotonic() > run.deadline:
                log(f"{name}: skipped, time budget spent")
                continue
            log(f"{name}:")
            group()
    finally:
        server.close()
        shutil.rmtree(work_dir, ignore_errors=True)
    code_after = source()
    if code_after != code:
        code = {**code, "changed_during_run": "yes", "after": code_after["kxm_grpc_sha256"]}
    summaries = report.summarize(run.rows)
    for s in summaries:
        s["foreign_cpu_max"] = max((r.get("foreign_cpu", 0.0) for r in s["reps"]), default=None)
        s["total_cpu_ratio"] = None
    by_key = {f"{s['scenario']}/{s['scale']}": s for s in summaries}
    for s in summaries:
        base = by_key.get(s["ceiling"] or "")
        if base and not s["error"] and not base["error"] and s.get("total_cpu_us_per_op"):
            s["total_cpu_ratio"] = base["server_cpu_us_per_op"] / s["total_cpu_us_per_op"]
    result: dict[str, Any] = {
        "started": started_wall.isoformat(timespec="seconds"),
        "command": command,
        "elapsed_seconds": time.monotonic() - started,
        "machine": report.machine(),
        "source": code,
        "loadavg_before": load_before,
        "loadavg_after": report.loadavg(),
        "config": asdict(cfg),
        "postgres": {
            "server": "own" if server.own else "given",
            "durable_settings_applied": server.own and durable,
            "cpu_measured": server.processes is not None,
            "pg_stat_statements": server.statements,
            "settings": server.settings,
            "databases": run.databases,
        },
        "setups": {layout.name: layout.what for layout in CORE_LAYOUTS},
        "rows": summaries,
        "statements_per_op": run.statements,
        "transactions": run.transactions,
    }
    results_dir.mkdir(parents=True, exist_ok=True)
    json_path = results_dir / f"replicas-{stamp}.json"
    json_path.write_text(json.dumps(result, indent=1) + "\n")
    md_path = results_dir / "replicas-latest.md"
    md_path.write_text(markdown(result))
    result["files"] = {"json": str(json_path), "markdown": str(md_path)}
    return result


def source() -> dict[str, str]:
    """Which hub code ran: the commit, and a digest of kxm_grpc/ as it is on disk (uncommitted edits included)."""
    digest = hashlib.sha256()
    for path in sorted((REPO / "kxm_grpc").rglob("*.py")):
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
    )
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "kxm_grpc"], cwd=REPO, capture_output=True, text=True, check=False
    )
    return {
        "commit": head.stdout.strip() or "unknown",
        "kxm_grpc_sha256": digest.hexdigest()[:12],
        "uncommitted": "yes" if dirty.stdout.strip() else "no",
    }


# -- report ---------------------------------------------------------------------------------------


def _fmt(value: Any, digits: int = 0) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "–"
    if abs(value) >= 100 or digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def markdown(result: dict[str, Any]) -> str:
    m, p = result["machine"], result["postgres"]
    settings = p["settings"]
    lines = [
        f"# kxm hub on PostgreSQL and replicas — {result['started']}",
        "",
        f"`{result['command']}` · {result['elapsed_seconds']:.0f} s · {m['nproc']} × {m['cpu_model']} · "
        f"Python {m['python']} · grpcio {m['grpcio']} · SQLite {m['sqlite']} · "
        f"load average before/after {result['loadavg_before'][:1]} / {result['loadavg_after'][:1]} · "
        f"hub at {result['source']['commit']} (kxm_grpc/ sha256 {result['source']['kxm_grpc_sha256']}"
        f"{', uncommitted changes' if result['source']['uncommitted'] == 'yes' else ''}"
        f"{' — CHANGED during the run, to ' + result['source']['after'] if 'after' in result['source'] else ''})",
        "",
        f"PostgreSQL {settings.get('server_version')} "
        f"({'the bench’s own cluster' if p['server'] == 'own' else 'a given server'}"
        f"{', made durable' if p['durable_settings_applied'] else ''}): fsync {settings.get('fsync')}, "
        f"synchronous_commit {settings.get('synchronous_commit')}, "
        f"full_page_writes {settings.get('full_page_writes')}, "
        f"wal_sync_method {settings.get('wal_sync_method')}, shared_buffers {settings.get('shared_buffers')}"
        f"{'' if p['cpu_measured'] else ' — its CPU could not be measured from this machine'}.",
        "",
        "| scenario | scale · setup | unit | median | min – max | p50 ms | p99 ms | hub CPU µs/op (per replica) "
        "| PG CPU µs/op (its backends) | total µs/op | client CPU µs/op | other load (max) | ÷ SQLite rate "
        "| ÷ SQLite hub CPU | ÷ SQLite total CPU |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in result["rows"]:
        if s["error"]:
            lines.append(
                f"| {s['scenario']} | {s['scale']} | {s['unit']} | **error** | {s['error'][:80]} |" + " |" * 10
            )
            continue
        replicas = [s[k] for k in sorted(s) if k.startswith("hub") and k.endswith("_cpu_us_per_op")]
        per = f" ({' + '.join(_fmt(x) for x in replicas)})" if len(replicas) > 1 else ""
        pg_cpu = s.get("pg_cpu_us_per_op")
        pg_text = f"{_fmt(pg_cpu)} ({_fmt(s.get('pg_backends_cpu_us_per_op'))})" if pg_cpu is not None else "–"
        total = s.get("total_cpu_us_per_op", s["server_cpu_us_per_op"])
        other = f"{100 * s.get('foreign_cpu', 0):.0f}% ({100 * (s.get('foreign_cpu_max') or 0):.0f}%)"
        lines.append(
            f"| {s['scenario']} | {s['scale']} | {s['unit']} | {_fmt(s['median'])} | "
            f"{_fmt(s['min'])} – {_fmt(s['max'])} | {_fmt(s['p50_ms'], 2)} | {_fmt(s['p99_ms'], 2)} | "
            f"{_fmt(s['server_cpu_us_per_op'])}{per} | {pg_text} | {_fmt(total)} | "
            f"{_fmt(s.get('client_cpu_us_per_op'))} | {other} | "
            f"{_fmt(s['ratio'], 2) if s['ratio'] is not None else '–'} | "
            f"{_fmt(s['cpu_ratio'], 2) if s['cpu_ratio'] is not None else '–'} | "
            f"{_fmt(s['total_cpu_ratio'], 2) if s['total_cpu_ratio'] is not None else '–'} |"
        )
    lines += ["", "## Per core", ""]
    lines += ["| scenario | scale · setup | ops per hub-CPU second | PG CPU µs/op | PG write transactions/op |"]
    lines += ["| --- | --- | ---: | ---: | ---: |"]
    for s in result["rows"]:
        if s["error"] or not s["server_cpu_us_per_op"]:
            continue
        lines.append(
            f"| {s['scenario']} | {s['scale']} | {_fmt(1e6 / s['server_cpu_us_per_op'])} | "
            f"{_fmt(s.get('pg_cpu_us_per_op'))} | {_fmt(s.get('pg_write_transactions_per_op'), 2)} |"
        )
    if result.get("transactions"):
        lines += ["", "## PostgreSQL transactions over each group (setup and warm-up included)", ""]
        lines += ["| group · setup | commits | rollbacks | rollbacks per 100 commits |", "| --- | ---: | ---: | ---: |"]
        for key, counts in result["transactions"].items():
            commits, rollbacks = counts.get("commits", 0), counts.get("rollbacks", 0)
            share = f"{100 * rollbacks / commits:.1f}" if commits else "–"
            lines.append(f"| {key} | {commits:,} | {rollbacks:,} | {share} |")
    if result.get("statements_per_op"):
        lines += ["", "## Statements per operation (pg_stat_statements; median over repetitions)", ""]
        lines += [
            "BEGIN and COMMIT are left out: psycopg prepares a statement from its fifth run on a connection and",
            "PostgreSQL 15's pg_stat_statements does not count prepared utility statements.",
            "",
        ]
        for key, statements in result["statements_per_op"].items():
            lines += [f"**{key}**", "", "| per op | statement |", "| ---: | --- |"]
            for query, count in list(statements.items())[:15]:
                text = " ".join(query.split())
                text = (text[:110] + " …") if len(text) > 110 else text
                lines.append(f"| {count:.2f} | `{text.replace('|', '¦')}` |")
            lines.append("")
    lines += ["", "## Setups", ""]
    lines += [f"- `{name}`: {what}" for name, what in result["setups"].items()]
    lines += [
        "",
        "Ratios divide each PostgreSQL row by the SQLite row of the same scenario in this run (rate:",
        "PostgreSQL ÷ SQLite; CPU: SQLite µs/op ÷ PostgreSQL µs/op, hub processes only or hub + PostgreSQL).",
        "\"other load\": median (max) share of the machine's CPUs used by anything but the bench's client,",
        "the hubs and PostgreSQL while a repetition was measured.",
    ]
    return "\n".join(lines) + "\n"


def run_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.replicas", description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", metavar="URL", help="an existing server (its user creates and drops databases)")
    parser.add_argument("--quick", action="store_true", help="tiny scale, one repetition (well under a minute)")
    parser.add_argument(
        "--as-configured",
        action="store_true",
        help="keep the own cluster's scripts/postgres settings (fsync off) instead of making it durable",
    )
    parser.add_argument(
        "--statements",
        action="store_true",
        help="load pg_stat_statements in the own cluster and count statements per operation "
        "(costs PostgreSQL CPU of its own: not for the CPU figures)",
    )
    parser.add_argument("--reps", type=int, help="repetitions of every setup (default: 5, --quick 1)")
    parser.add_argument("--results-dir", type=Path, default=REPO / "bench" / "results", help="where results go")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    if args.reps:
        cfg = Config(**{**asdict(cfg), "reps": args.reps, "delivery_reps": args.reps})
    command = shlex.join(["python", "-m", "bench.replicas", *(sys.argv[1:] if argv is None else argv)])
    result = main(
        cfg,
        args.results_dir,
        command,
        postgres=args.postgres,
        durable=not args.as_configured,
        statements=args.statements,
        quiet=args.quiet,
    )
    print(markdown(result))
    print(f"results: {result['files']['json']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_main())
