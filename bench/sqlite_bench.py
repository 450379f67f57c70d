"""Raw SQLite commit rates, run in its own process so its CPU is attributable.

    python -m bench.sqlite_bench --database F --synchronous FULL --rows 1 --duration 1 --reps 3

Prints one JSON object: per repetition, committed rows, seconds, process CPU and commit latencies.
The table has the shape of a small message row; every commit is ``BEGIN IMMEDIATE`` … ``COMMIT`` in WAL.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from typing import Any


def run(database: str, synchronous: str, rows: int, duration: float, reps: int, max_commits: int) -> dict[str, Any]:
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(f"PRAGMA synchronous = {synchronous}")
    db.execute(
        "CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, sender TEXT NOT NULL, target TEXT NOT NULL, "
        "content TEXT NOT NULL, state TEXT NOT NULL, created REAL NOT NULL)"
    )
    content = "x" * 64
    results: list[dict[str, Any]] = []
    for _ in range(reps):
        latencies: list[float] = []
        cpu0 = time.process_time()
        start = time.perf_counter()
        deadline = start + duration
        commits = 0
        while commits < max_commits:
            began = time.perf_counter()
            if began >= deadline:
                break
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT INTO messages (sender, target, content, state, created) VALUES (?, ?, ?, 'queued', ?)",
                [("alice", "bob", content, began)] * rows,
            )
            db.execute("COMMIT")
            latencies.append(time.perf_counter() - began)
            commits += 1
        seconds = time.perf_counter() - start
        results.append(
            {
                "rows": commits * rows,
                "commits": commits,
                "seconds": seconds,
                "cpu_seconds": time.process_time() - cpu0,
                "latencies": latencies,
            }
        )
    db.close()
    return {"reps": results}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.sqlite_bench")
    parser.add_argument("--database", required=True)
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    parser.add_argument("--rows", type=int, default=1)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-commits", type=int, default=1_000_000)
    args = parser.parse_args()
    result = run(args.database, args.synchronous, args.rows, args.duration, args.reps, args.max_commits)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
