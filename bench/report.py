"""Ratios, targets, the machine description, the JSON result file and the Markdown table."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.common import Row


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "kernel": platform.release(),
        "python": sys.version.split()[0],
        "grpcio": version("grpcio"),
        "protobuf": version("protobuf"),
        "sqlite": sqlite3.sqlite_version,
    }


def loadavg() -> list[float]:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return []


def _ratio(row: dict[str, Any], ceiling: dict[str, Any] | None) -> float | None:
    if ceiling is None:
        return None
    basis = row["ratio_basis"]
    try:
        if basis == "rate":
            return row["median"] / ceiling["median"] if ceiling["median"] else None
        if basis == "p50":
            return ceiling["p50_ms"] / row["p50_ms"] if row["p50_ms"] else None
        if basis == "p50_cost":  # a latency multiple: this row's p50 ÷ the baseline's (lower is better)
            return row["p50_ms"] / ceiling["p50_ms"] if ceiling["p50_ms"] else None
        if basis == "p99":
            return ceiling["p99_ms"] / row["p99_ms"] if row["p99_ms"] else None
        if basis == "kib":
            return ceiling["median"] / row["median"] if row["median"] and row["median"] > 0 else None
        if basis == "cpu":  # a cost multiple: this row's server CPU per op ÷ the baseline's (lower is better)
            base = ceiling["server_cpu_us_per_op"]
            return row["server_cpu_us_per_op"] / base if base else None
    except (TypeError, ZeroDivisionError):
        return None
    return None


def summarize(rows: list[Row]) -> list[dict[str, Any]]:
    """Row summaries with each hub figure's ratio to its same-run ceiling."""
    summaries = [row.summary() for row in rows]
    by_key = {f"{s['scenario']}/{s['scale']}": s for s in summaries}
    for s in summaries:
        ceiling = by_key.get(s["ceiling"]) if s["ceiling"] else None
        usable = ceiling is not None and not s["error"] and not ceiling["error"]
        s["ratio"] = _ratio(s, ceiling) if usable else None
        # Server CPU per operation, ceiling / hub: less sensitive to other load on the machine than rates.
        s["cpu_ratio"] = None
        if usable and s["ratio_basis"] == "rate":
            assert ceiling is not None
            hub_cpu, ceiling_cpu = s["server_cpu_us_per_op"], ceiling["server_cpu_us_per_op"]
            if hub_cpu and ceiling_cpu:
                s["cpu_ratio"] = ceiling_cpu / hub_cpu
    return summaries


CHANNEL_RATE_TARGET = 0.6
"""Issue 18: the channel's round trips/s at least this share of AutoGen's."""
CHANNEL_CPU_TARGET = 2.0
"""Issue 18: the hub's server CPU per channel round trip at most this multiple of AutoGen's host's."""

TARGETS: list[tuple[str, str, str, float, str]] = [
    # (name, scenario, comparison, threshold, what)
    ("core_loop", "core_full", "ratio>=", 0.75, "durable core loop at {pairs} pairs ≥ 0.75 × in-memory broker"),
    ("delivery", "delivery", "ratio>=", 0.6, "inbox delivery to {subs} subscribers ≥ 0.6 × raw push"),
    ("idle_memory", "idle_memory", "value<=", 48.0, "hub memory per idle stream ≤ 48 KiB"),
]
CHECKPOINT_TARGET = 3.0
"""Issue 14: a checkpoint with two evidence refs costs at most 3 × a durable send's server CPU."""
STEP_TARGET = 4.0
"""Issue 16: a step costs at most 4 × a durable send round trip (judged on hub CPU and on p50 latency)."""


def targets(summaries: list[dict[str, Any]], headline_pairs: int, top_subscribers: int) -> list[dict[str, Any]]:
    """The three targets of issue 6, issue 14's checkpoint target (one per checkpoint scale measured) and
    issue 16's step targets (CPU and latency), judged on this run's figures."""
    scales = {"core_full": f"pairs={headline_pairs}", "delivery": f"subscribers={top_subscribers}"}
    out: list[dict[str, Any]] = []
    for name, scenario, comparison, threshold, what in TARGETS:
        candidates = [
            s for s in summaries if s["scenario"] == scenario and s["scale"] == scales.get(scenario, s["scale"])
        ]
        row = candidates[0] if candidates else None
        figure = None
        if row is not None and not row["error"]:
            figure = row["ratio"] if comparison == "ratio>=" else row["median"]
        met = None
        if figure is not None:
            met = figure >= threshold if comparison == "ratio>=" else figure <= threshold
        out.append(
            {
                "target": name,
                "what": what.format(pairs=headline_pairs, subs=top_subscribers),
                "figure": figure,
                "threshold": threshold,
                "met": met,
            }
        )
    # Issue 18: the channel's core loop against AutoGen's runtime at the headline pairs.
    channel = next(
        (s for s in summaries if s["scenario"] == "core_channel" and s["scale"] == f"pairs={headline_pairs}"), None
    )
    usable = channel is not None and not channel["error"] and channel["ratio"] is not None
    rate = channel["ratio"] if usable and channel is not None else None
    cpu_ratio = channel["cpu_ratio"] if usable and channel is not None else None
    cpu = 1 / cpu_ratio if cpu_ratio else None
    out.append(
        {
            "target": "channel_rate",
            "what": f"channel core loop at {headline_pairs} pairs ≥ {CHANNEL_RATE_TARGET} × AutoGen's runtime",
            "figure": rate,
            "threshold": CHANNEL_RATE_TARGET,
            "met": None if rate is None else rate >= CHANNEL_RATE_TARGET,
        }
    )
    out.append(
        {
            "target": "channel_cpu",
            "what": f"its hub CPU per round trip ≤ {CHANNEL_CPU_TARGET} × AutoGen host's",
            "figure": cpu,
            "threshold": CHANNEL_CPU_TARGET,
            "met": None if cpu is None else cpu <= CHANNEL_CPU_TARGET,
        }
    )
    refs: list[dict[str, Any] | None] = [s for s in summaries if s["scenario"] == "checkpoint_refs"]
    for row in refs or [None]:
        figure = row["ratio"] if row is not None and not row["error"] else None
        scale = f" ({row['scale']})" if row is not None else ""
        out.append(
            {
                "target": "checkpoint_cpu",
                "what": f"checkpoint with 2 evidence refs ≤ 3 × a durable send's server CPU{scale}",
                "figure": figure,
                "threshold": CHECKPOINT_TARGET,
                "met": None if figure is None else figure <= CHECKPOINT_TARGET,
            }
        )
    by_key = {f"{s['scenario']}/{s['scale']}": s for s in summaries}
    step_rows: list[dict[str, Any] | None] = [s for s in summaries if s["scenario"] == "steps"]
    for row in step_rows or [None]:
        base = by_key.get(row["ceiling"]) if row is not None and row["ceiling"] else None
        usable = row is not None and base is not None and not row["error"] and not base["error"]
        cpu = row["ratio"] if usable and row is not None else None
        latency = _ratio({**row, "ratio_basis": "p50_cost"}, base) if usable and row is not None else None
        scale = f" ({row['scale']})" if row is not None else ""
        for name, figure, what in (
            ("step_cpu", cpu, "hub CPU"),
            ("step_latency", latency, "p50 latency"),
        ):
            out.append(
                {
                    "target": name,
                    "what": f"a step ≤ 4 × a durable send round trip's {what}{scale}",
                    "figure": figure,
                    "threshold": STEP_TARGET,
                    "met": None if figure is None else figure <= STEP_TARGET,
                }
            )
    return out


def _fmt(value: Any, digits: int = 0) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if digits == 0 and abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:,.{max(digits, 1 if abs(value) < 100 else 0)}f}" if abs(value) >= 1 else f"{value:.3g}"
    return str(value)


def markdown(result: dict[str, Any]) -> str:
    """The result as a Markdown document: the table, the targets, the machine."""
    lines = [
        f"# kxm hub benchmark — {result['started']}",
        "",
        f"`{result['command']}` · {result['elapsed_seconds']:.0f} s · "
        f"{result['machine']['nproc']} × {result['machine']['cpu_model']} · Python {result['machine']['python']} · "
        f"grpcio {result['machine']['grpcio']} · load average before/after "
        f"{result['loadavg_before'][:1]} / {result['loadavg_after'][:1]}",
        "",
        "| scenario | scale | unit | median | min – max | p50 ms | p99 ms | server CPU µs/op | client CPU µs/op "
        "| other load | ceiling | ratio | CPU ratio |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for s in result["rows"]:
        if s["error"]:
            lines.append(
                f"| {s['scenario']} | {s['scale']} | {s['unit']} | **error** | {s['error'][:80]} | | | | | | | |"
            )
            continue
        spread = f"{_fmt(s['min'])} – {_fmt(s['max'])}"
        ratio = "–"
        if s["ratio"] is not None:
            ratio = f"**{s['ratio']:.2f}**" if s["ratio"] >= 0.1 else f"**{s['ratio']:.2g}**"
        ceiling = f"{s['ceiling']} ({s['ratio_basis']})" if s["ceiling"] else "–"
        foreign = s.get("foreign_cpu")
        other = f"{100 * foreign:.0f}%" if isinstance(foreign, float) else "–"
        lines.append(
            f"| {s['scenario']} | {s['scale']} | {s['unit']} | {_fmt(s['median'])} | {spread} | "
            f"{_fmt(s['p50_ms'], 2)} | {_fmt(s['p99_ms'], 2)} | {_fmt(s['server_cpu_us_per_op'])} | "
            f"{_fmt(s.get('client_cpu_us_per_op'))} | {other} | "
            f"{ceiling} | {ratio} | {_fmt(s['cpu_ratio'], 2)} |"
        )
    lines += ["", "## Targets", "", "| target | figure | met |", "| --- | ---: | --- |"]
    for t in result["targets"]:
        met = {True: "yes", False: "**no**", None: "not measured"}[t["met"]]
        lines.append(f"| {t['what']} | {_fmt(t['figure'], 2)} | {met} |")
    notes = [s for s in result["rows"] if s["note"]]
    if notes:
        lines += ["", "## Notes", ""]
        seen: set[str] = set()
        for s in notes:
            if s["note"] not in seen:
                seen.add(s["note"])
                lines.append(f"- `{s['scenario']}`: {s['note']}")
    return "\n".join(lines) + "\n"


def write(result: dict[str, Any], results_dir: Path, stamp: str) -> tuple[Path, Path]:
    """Write ``<stamp>.json`` and ``latest.md``; return both paths."""
    results_dir.mkdir(parents=True, exist_ok=True)
    json_path = results_dir / f"{stamp}.json"
    json_path.write_text(json.dumps(result, indent=1) + "\n")
    md_path = results_dir / "latest.md"
    md_path.write_text(markdown(result))
    return json_path, md_path
