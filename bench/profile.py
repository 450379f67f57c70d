"""Profile the hub during the core loop with py-spy (a sampling profiler attached to the hub process).

    python -m bench.profile [--scenario core|channel|delivery|checkpoint|steps] [--pairs 8] [--seconds 12]
                            [--gil] [--native] [--metrics]

``checkpoint`` profiles only checkpoints with two evidence refs (bench/checkpoints.py) at
``--pairs`` concurrent runs with ``--stages`` stages: enough runs are started and reviewed first
(not profiled) for their first stage's checkpoints to last about ``--seconds``; py-spy starts
when the first checkpoint does.

``steps`` profiles step runs (bench/steps.py): ``--pairs`` runs in flight of a chain of ``--stages``
agent steps (16 unless given), phase after phase for about ``--seconds``; py-spy starts with the
first measured phase (the runs' starts of later phases are sampled too: one in ``--stages`` calls).

py-spy is not a dependency of the hub or of ``python -m bench``; install it ad hoc
(``.venv/bin/pip install py-spy``). Writes bench/results/profile-<stamp>.folded (collapsed stacks,
for flame graphs) and profile-<stamp>.md (the top functions by own and inclusive samples).
``--metrics`` profiles a hub serving metrics (``--metrics-port 0``): what they cost per call.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from bench import checkpoints, hub, steps
from bench.common import REPO, percentile
from bench.config import FULL
from bench.hubproc import HubProcess


def py_spy() -> str:
    """The py-spy executable (next to this Python first, then on PATH)."""
    local = Path(sys.executable).parent / "py-spy"
    if local.exists():
        return str(local)
    found = shutil.which("py-spy")
    if found is None:
        raise SystemExit("py-spy is not installed: .venv/bin/pip install py-spy")
    return found


def _frame(frame: str) -> str:
    """``handler (kxm_grpc/server/x.py:12)`` -> ``handler (kxm_grpc/server/x.py)``: merge lines of one function."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    for marker in ("site-packages/", "/lib/python3", "/work/main/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{name} ({path})" if path else name


_BORING = ("<frozen runpy>", "asyncio/runners.py", "kxm_grpc/cli/", "threading.py)", "asyncio/base_events.py")


def summarize(folded: Path, top: int = 25) -> str:
    """Top functions by own samples, and by inclusive samples (all, and the hub's own code), as Markdown."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in folded.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_frame(f) for f in stack.split(";")]
        # py-spy may start a stack with the process and thread names.
        frames = [f for f in frames if not f.startswith(("process ", "thread "))]
        if not frames:
            continue
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    if total == 0:
        return "no samples\n"

    def table(title: str, counter: Counter[str], keep: Callable[[str], bool]) -> list[str]:
        rows = [(f, n) for f, n in counter.most_common() if keep(f)][:top]
        return ["", f"| {title} % | function |", "| ---: | --- |"] + [
            f"| {100 * n / total:.1f} | `{f}` |" for f, n in rows
        ]

    lines = [f"{total} samples"]
    lines += table("own", own, lambda f: True)
    lines += table("inclusive (hub code)", inclusive, lambda f: "kxm_grpc/" in f and "kxm_grpc/cli/" not in f)
    lines += table("inclusive (all)", inclusive, lambda f: not any(b in f for b in _BORING))
    return "\n".join(lines) + "\n"


async def _core(address: str, pairs: int, seconds: float, pid: int, start: Callable[[], None]) -> str:
    cfg = dataclasses.replace(FULL, reps=1, warmup=0.5, duration=seconds)
    start()
    rep = (await hub.core_loop(address, pairs, cfg, pid))[0]
    return f"{rep.rate:.0f} round trips/s under the profiler (p50 {percentile(rep.latencies, 50) * 1000:.2f} ms)"


async def _channel(address: str, pairs: int, seconds: float, pid: int, start: Callable[[], None]) -> str:
    cfg = dataclasses.replace(FULL, reps=1, warmup=0.5, duration=seconds)
    start()
    rep = (await hub.core_loop_channel(address, pairs, cfg, pid))[0]
    p50 = percentile(rep.latencies, 50) * 1000
    return f"{rep.rate:.0f} round trips/s on channels under the profiler (p50 {p50:.2f} ms)"


async def _delivery(address: str, subscribers: int, seconds: float, pid: int, start: Callable[[], None]) -> str:
    cfg = dataclasses.replace(FULL, reps=max(3, int(seconds)))
    reps = await hub.delivery(address, subscribers, cfg, pid, before_measuring=start)
    rate = sorted(r.rate for r in reps)[len(reps) // 2]
    return f"{rate:.0f} events/s under the profiler ({len(reps)} drains of {cfg.delivery_events} events)"


def _checkpoint_load(stages: int) -> Callable[[str, int, float, int, Callable[[], None]], Coroutine[Any, Any, str]]:
    async def load(address: str, runs: int, seconds: float, pid: int, start: Callable[[], None]) -> str:
        # Hub CPU per checkpoint grows with the stages (about 2 ms at 4, 4 ms at 32 under the profiler)
        # and the hub is held to one core: runs per coordinator for the checkpoints to fill the window.
        batch = max(4, round(seconds / (runs * (0.0015 + 0.00008 * stages))))
        cfg = dataclasses.replace(FULL, checkpoint_runs=runs)
        session = checkpoints.CheckpointSession(address, cfg, pid, refs=True, stages=stages, batch=batch)
        started: list[bool] = []

        def once() -> None:
            if not started:
                started.append(True)
                start()

        try:
            await session.open()
            rep = await session.rep(first_stages=1, before_measuring=once)
        finally:
            await session.close()
        return (
            f"{rep.rate:.0f} checkpoints/s under the profiler (p50 {percentile(rep.latencies, 50) * 1000:.2f} ms, "
            f"{rep.ops} checkpoints of the first stage of {stages}-stage runs, {rep.seconds:.1f} s, "
            f"{rep.cpu_us_per_op:.0f} µs hub CPU each)"
        )

    return load


def _steps_load(chain: int) -> Callable[[str, int, float, int, Callable[[], None]], Coroutine[Any, Any, str]]:
    async def load(address: str, runs: int, seconds: float, pid: int, start: Callable[[], None]) -> str:
        # About 200 steps/s under the profiler on 2 cores: phases for the steps to fill the window.
        phases = max(2, round(seconds * 200 / (runs * chain)) + 1)
        cfg = dataclasses.replace(FULL, steps_runs=runs, steps_chain=chain, steps_phases=phases)
        session = steps.StepRuns(address, cfg, pid)
        started: list[bool] = []

        def once() -> None:
            if not started:
                started.append(True)
                start()

        try:
            await session.open()
            rep = await session.rep(before_measuring=once)
        finally:
            await session.close()
        return (
            f"{rep.rate:.0f} steps/s under the profiler (p50 {percentile(rep.latencies, 50) * 1000:.2f} ms, "
            f"{rep.ops} steps of {runs} runs in flight of {chain}-step chains, {rep.seconds:.1f} s, "
            f"{rep.cpu_us_per_op:.0f} µs hub CPU each)"
        )

    return load


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile")
    parser.add_argument("--scenario", choices=["core", "channel", "delivery", "checkpoint", "steps"], default="core")
    parser.add_argument("--pairs", type=int, default=8, help="core: pairs; delivery: subscribers; checkpoint: runs")
    parser.add_argument(
        "--stages", type=int, default=None, help="checkpoint: stages per run (32); steps: steps per chain (16)"
    )
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--durability", choices=["full", "normal"], default="full")
    parser.add_argument("--rate", type=int, default=200, help="samples per second")
    parser.add_argument("--native", action="store_true", help="include native (C/C++) frames")
    parser.add_argument("--gil", action="store_true", help="only samples holding the GIL (Python CPU)")
    parser.add_argument("--metrics", action="store_true", help="profile a hub serving metrics (--metrics-port 0)")
    parser.add_argument("--results-dir", type=Path, default=REPO / "bench" / "results")
    args = parser.parse_args()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    args.results_dir.mkdir(parents=True, exist_ok=True)
    folded = args.results_dir / f"profile-{stamp}.folded"
    work = Path(tempfile.mkdtemp(prefix="kxm-profile-"))
    try:
        extra = ("--metrics-port", "0") if args.metrics else ()
        with HubProcess(work / "hub", durability=args.durability, extra_args=extra) as h:
            command = [
                py_spy(),
                "record",
                "--pid",
                str(h.pid),
                "--duration",
                str(int(args.seconds)),
                "--rate",
                str(args.rate),
                "--format",
                "raw",
                "--output",
                str(folded),
            ]
            # Native stacks need the process paused while sampled; Python-only sampling does not.
            command.append("--native" if args.native else "--nonblocking")
            if args.gil:
                command.append("--gil")
            spies: list[subprocess.Popen[bytes]] = []

            def start() -> None:
                spies.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
                time.sleep(0.3)  # py-spy attaches before the load starts

            loads = {
                "core": _core,
                "channel": _channel,
                "delivery": _delivery,
                "checkpoint": _checkpoint_load(args.stages or 32),
                "steps": _steps_load(args.stages or 16),
            }
            load = loads[args.scenario]
            outcome = asyncio.run(load(h.address, args.pairs, args.seconds, h.pid, start))
            if not spies:
                raise SystemExit("the load never started the profiler")
            spy = spies[0]
            _, spy_err = spy.communicate(timeout=args.seconds + 60)
            if spy.returncode != 0 or not folded.exists():
                raise SystemExit(f"py-spy failed: {spy_err.decode(errors='replace').strip()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    what = {
        "core": f"core loop, {args.pairs} pairs",
        "channel": f"core loop on channels, {args.pairs} pairs",
        "delivery": f"delivery, {args.pairs} subscribers",
        "checkpoint": f"checkpoints with two evidence refs, {args.pairs} runs, {args.stages or 32} stages",
        "steps": f"step runs, {args.pairs} in flight, chains of {args.stages or 16} agent steps",
    }[args.scenario]
    header = (
        f"# Hub profile: {what}, durability {args.durability}\n\n"
        f"{outcome}; py-spy {args.rate} Hz, "
        f"{'native frames, ' if args.native else ''}"
        f"{'samples holding the GIL only' if args.gil else 'all threads, idle excluded'}.\n\n"
    )
    md = args.results_dir / f"profile-{stamp}.md"
    md.write_text(header + summarize(folded))
    print(md.read_text())
    print(f"stacks: {folded}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
