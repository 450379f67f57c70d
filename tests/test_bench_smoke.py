"""The benchmark (``python -m bench``) at a tiny scale, so that it cannot rot.

It checks that every scenario runs and yields numbers, never what the numbers are: speed is
measured by ``python -m bench`` and reported in docs/performance.md, not asserted in tests.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from bench import run
from tests.postgres import PostgresServer

REPO = Path(__file__).resolve().parent.parent


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@pytest.mark.timeout(360)
def test_quick_run_measures_every_scenario(tmp_path: Path) -> None:
    results = tmp_path / "results"
    env = {**os.environ, "GRPC_VERBOSITY": "ERROR"}
    completed = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--quiet", "--results-dir", str(results)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a hung run, not a speed check (a loaded machine takes minutes)
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    files = list(results.glob("*.json"))
    assert len(files) == 1
    result = json.loads(files[0].read_text())
    assert (results / "latest.md").read_text().startswith("# kxm hub benchmark")
    assert "| scenario |" in completed.stdout

    rows = result["rows"]
    errors = [f"{r['scenario']}/{r['scale']}: {r['error']}" for r in rows if r["error"]]
    assert not errors, errors
    measured = {r["scenario"] for r in rows}
    expected = set(run.CEILINGS) - {"broker_sqlite", "push_idle", "push_idle_channel", "sqlite"}
    expected |= {"broker_sqlite", "push_idle_memory", "push_idle_probe", "sqlite_normal", "sqlite_full"}
    expected |= {"core_full", "core_normal", "fanout", "delivery", "paced", "idle_memory", "idle_probe", "leases"}
    expected |= {"send", "checkpoint_refs", "checkpoint_plain"}  # the checkpoint group (issue 14)
    expected |= {"journal_send", "record_journal", "improvement_report"}  # the journal group (issue 15)
    expected |= {"step_send", "steps", "token_verify"}  # the step group (issue 16)
    expected |= {"token_rpc_plain", "token_rpc_attempt", "token_rpc_padding"}
    expected |= {"context_packet", "context_packet_brute", "context_recall", "context_recall_brute"}  # issue 17
    expected |= {"context_index_bytes"}
    expected |= {"autogen", "core_channel", "paced_channel", "push_idle_channel_memory", "idle_channel_memory"}  # 18
    assert expected <= measured, expected - measured
    for row in rows:
        assert row["repetitions"] >= 1, row
        assert _number(row["median"]), row
        assert _number(row["server_cpu_us_per_op"]), row
        if row["unit"] not in ("KiB/stream", "bytes/item"):  # sizes, not calls
            assert _number(row["p50_ms"]) and _number(row["p99_ms"]), row
        if row["ceiling"]:
            assert _number(row["ratio"]), row
    client_measured = {"core_full", "broker", "delivery", "push"}
    for row in rows:
        if row["scenario"] in client_measured:
            assert _number(row["client_cpu_us_per_op"]), row
    # One checkpoint target per checkpoint scale and two step targets per step scale: the quick run has one each.
    assert [t["target"] for t in result["targets"]] == [
        "core_loop",
        "delivery",
        "idle_memory",
        "channel_rate",
        "channel_cpu",
        "checkpoint_cpu",
        "step_cpu",
        "step_latency",
    ]
    assert all(_number(t["figure"]) for t in result["targets"]), result["targets"]
    for key in ("nproc", "cpu_model", "python", "grpcio"):
        assert result["machine"][key], key


def test_per_call_costs_are_measured() -> None:
    """``python -m bench.percall`` prints a µs figure for the echo and every hub RPC it calls."""
    completed = subprocess.run(
        [sys.executable, "-m", "bench.percall", "--calls", "20", "--reps", "1"],
        cwd=REPO,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    figures = {}
    for line in completed.stdout.splitlines()[2:]:  # after the title and the header
        figures[line[:32].strip()] = line[32:].split()
    expected = {"raw echo", "ListAgents", "GetMessage", "WaitMessage (already replied)"}
    expected |= {"SendMessage", "ReplyToMessage"}
    assert set(figures) == expected, completed.stdout
    # A number per call, never its value (issue 6): at 20 calls, CPU time in 10 ms ticks can read 0.
    assert all(values and _number(float(values[0])) for values in figures.values()), completed.stdout


SHORT = ("--seconds", "0.5", "--reps", "1")


@pytest.mark.timeout(120)
def test_the_ops_watch_benchmark_measures_latency_and_cpu() -> None:
    """``python -m bench.ops_watch`` prints the watch's latency percentiles and a CPU ratio per rep."""
    completed = subprocess.run(
        [sys.executable, "-m", "bench.ops_watch", *("--events", "5", "--agents", "4", "--watchers", "2"), *SHORT],
        cwd=REPO,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("event to watch, 5 events: p50 ") and " ms, p99 " in lines[0], completed.stdout
    ratio = lines[-1].rsplit(": ", 1)[1].removesuffix(" x")
    assert lines[-1].startswith("hub CPU with 2 watches and 4 agents: ") and _number(float(ratio)), completed.stdout


@pytest.mark.postgres
@pytest.mark.timeout(360)
def test_replicas_quick_run_measures_every_setup(tmp_path: Path, postgres_server: PostgresServer) -> None:
    """``python -m bench.replicas --quick`` on the test server: every scenario on SQLite and PostgreSQL, with
    ratios, hub CPU and PostgreSQL CPU per operation; its databases dropped afterwards."""
    results = tmp_path / "results"
    command = [sys.executable, "-m", "bench.replicas", "--quick", "--quiet", "--postgres", postgres_server.dsn]
    completed = subprocess.run(
        [*command, "--results-dir", str(results)],
        cwd=REPO,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a hung run, not a speed check (a loaded machine takes minutes)
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    files = list(results.glob("replicas-*.json"))
    assert len(files) == 1
    result = json.loads(files[0].read_text())
    assert (results / "replicas-latest.md").read_text().startswith("# kxm hub on PostgreSQL and replicas")
    assert "| scenario |" in completed.stdout

    rows = result["rows"]
    errors = [f"{r['scenario']}/{r['scale']}: {r['error']}" for r in rows if r["error"]]
    assert not errors, errors
    setups = {(r["scenario"], r["scale"].rsplit(" · ", 1)[1]) for r in rows}
    core = {"sqlite", "pg1", "pg2-crossed", "pg2-local"}
    expected = {(s, x) for s in ("core_full", "core_normal") for x in core}
    expected |= {("delivery", x) for x in ("sqlite", "pg1", "pg2-crossed")}
    assert setups == expected, setups ^ expected
    for row in rows:
        assert row["repetitions"] >= 1, row
        assert _number(row["median"]) and _number(row["server_cpu_us_per_op"]), row
        assert _number(row["p50_ms"]) and _number(row["p99_ms"]), row
        if not row["scale"].endswith(" · sqlite"):
            assert _number(row["ratio"]), row
    # The fixture's server runs on this machine, so its processes' CPU is measured.
    assert result["postgres"]["cpu_measured"] is True
    pg_rows = [r for r in rows if " · pg" in r["scale"]]
    assert all(_number(r["pg_cpu_us_per_op"]) and _number(r["total_cpu_ratio"]) for r in pg_rows), pg_rows
    assert all(_number(r["hub1_cpu_us_per_op"]) for r in pg_rows if "pg2" in r["scale"]), pg_rows
    assert len(result["postgres"]["databases"]) == 2 * 3 + 2  # a fresh database per PostgreSQL setup and scenario
    with psycopg.connect(postgres_server.dsn, connect_timeout=10) as conn:
        left = {name for (name,) in conn.execute("SELECT datname FROM pg_database").fetchall()}
    assert not left & set(result["postgres"]["databases"]), "a database of the run was not dropped"


def test_generated_bench_code_is_current(tmp_path: Path) -> None:
    """bench/_gen is what bench/gen.sh writes from bench/proto (the benchmark's own drift check)."""
    subprocess.run(["bash", str(REPO / "bench" / "gen.sh"), str(tmp_path)], cwd=REPO, check=True, timeout=60)
    fresh = tmp_path / "bench" / "_gen"
    committed = REPO / "bench" / "_gen"
    fresh_files = sorted(p.relative_to(fresh) for p in fresh.rglob("*") if p.suffix in (".py", ".pyi"))
    committed_files = sorted(p.relative_to(committed) for p in committed.rglob("*") if p.suffix in (".py", ".pyi"))
    assert fresh_files == committed_files
    for rel in fresh_files:
        assert (fresh / rel).read_text() == (committed / rel).read_text(), f"stale bench/_gen/{rel}: run bench/gen.sh"
