"""Write docs/guarantees.md from the battery's last results (``.reliability/pr`` and ``.reliability/long``).

Each guarantee is stated as the systems users trust state theirs (reliability.md §5.3), beside the
figures of the last PR-tier run and the last long-tier run of the batteries that test it: how much
they exercised (kills, messages, fenced writes, fuzz executions, denied calls) and how much went
wrong. A battery without results says so. ``scripts/reliability`` runs this at its end; the file is
outside the drift check (its figures change with every run).

Usage: .venv/bin/python scripts/guarantees.py [--out docs/guarantees.md]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / ".reliability"

GUARANTEES: list[tuple[str, str, list[str]]] = [
    (
        "Acknowledged messages survive crashes",
        "With `durable` mode (the default, `--durability full`), every `SendMessage` answered OK survives a hub "
        "process crash (SIGKILL at any instant, including at the commit boundaries), and power loss when the disk "
        "honours fsync: the answer is sent only after the commit's fsync. Checked with a total-queue checker "
        "(Jepsen's, failing on duplicates too): 0 acknowledged messages lost, 0 unexpected, 0 stored twice, "
        "0 delivered again after an acknowledgement answered OK; `PRAGMA integrity_check` is `ok` after every kill.",
        ["B1", "B2", "B3"],
    ),
    (
        "Channel commands are applied once, in order",
        "On an agent channel (`AgentService.OpenChannel`) a command answered OK is durable as its unary twin is; a "
        "command left unanswered by a crash and replayed under its command id on a new channel is applied once; a "
        "sender's commands are applied in the order it sent them, replays included. Checked with B1's total-queue "
        "checker, a count of each command id's rows, the stored order per sender and recipient, and the watch "
        "validators over each channel's events.",
        ["B19"],
    ),
    (
        "Retries are idempotent",
        "A `SendMessage` or `FanoutMessages` retried with the same idempotency key, and a `ReplyToMessage` repeated "
        "with the same content, answer with the original message and store nothing new, across crashes and restarts, "
        "for as long as the message is retained. The same key with another payload is refused with ABORTED "
        "(`IDEMPOTENCY_CONFLICT`).",
        ["B4"],
    ),
    (
        "Inbox streams are Ordered, Unique, Reliable and Resumable",
        "Delivery is at least once until the recipient acknowledges. On a `Subscribe` stream sequences strictly "
        "increase, no event repeats within a stream, none is skipped, and a stream resumed after its last sequence "
        "redelivers only unacknowledged messages (etcd's watch validators), across hub crashes and reconnect storms.",
        ["B5"],
    ),
    (
        "Time limits hold",
        "No message is delivered after its TTL (plus 250 ms), none passes its hop limit, and none is delivered after "
        "an acknowledged cancel; a jump of the wall clock changes none of it.",
        ["B6"],
    ),
    (
        "Fencing tokens never go back",
        "Fencing tokens are strictly increasing per lease, across crashes and replicas (one database counter). A "
        "write presenting a token older than the current grant is refused, at most one holder holds a lease at any "
        "instant, and no lease lapses earlier than its TTL after its last renewal.",
        ["B7", "B17"],
    ),
    (
        "Workflow checkpoints apply exactly once",
        "A workflow checkpoint repeated with its `request_id` (after a lost answer, or after the hub was SIGKILLed "
        "inside the checkpoint's transaction or between its commit and its answer) is applied once: the repeat is "
        "answered with the first answer (`repeated`), never applied again and never refused. Each stage's attempts "
        "are dense (1, 2, 3, … with none consumed twice or skipped), each declared transition is recorded once, and "
        "every run ends as a pure model of its checkpoints says; `PRAGMA integrity_check` is `ok` after every kill.",
        ["B8"],
    ),
    (
        "Step runs lose no assignment and settle none twice",
        "A step run's changes (its snapshot, its events, each assignment's durable message and deadline) commit "
        "in one transaction, so a hub SIGKILLed while dispatching an assignment, while settling a result and "
        "dispatching the next step, or between a completion's commit and its answer, loses nothing: every run "
        "reaches a terminal status, every assignment is closed exactly once and has exactly one message, a "
        "`CompleteAssignment` repeated with the same result is answered as the first (`duplicate`) and never "
        "applied twice, the run's event log stays contiguous, and each run ends with the same steps' outcomes, "
        "status and reason as the same run undisturbed; `PRAGMA integrity_check` is `ok` after every kill.",
        ["B18"],
    ),
    (
        "Projects never see each other",
        "Every RPC was called with every credential and project mismatch (none, malformed, revoked, another "
        "project's token or agent key, another agent's key, another project's object ids): 100 % denied, 0 bytes of "
        "the other project's data in any answer or stream, the database unchanged by every denied call.",
        ["B9"],
    ),
    (
        "Only signed signals count, each once",
        "A signal to a waiting run is accepted only with a valid `kxm-webhook-v1` signature by the definition's "
        "signal secret over its kind, timestamp (within 300 s), delivery id, definition, run, signal key and body. "
        "Every forgery (another secret, a flipped body bit, any signed field changed, a start signature, a missing, "
        "garbled or non-sha256 signature, a timestamp out of the window) is refused with 401 and its documented "
        "code, and none has an effect. A valid signal has exactly one effect; the same delivery again is answered "
        "as the duplicate with the first answer, and with another body refused with 409 "
        "(`WORKFLOW_SIGNAL_DELIVERY_CONFLICT`), also after a hub crash and restart.",
        ["B10"],
    ),
    (
        "Bad input never hurts the hub",
        "Generated and coverage-guided malformed requests to every RPC get a clear status (INVALID_ARGUMENT naming "
        "the field, or the documented code), never UNKNOWN, a crash or a hang; oversized requests get "
        "RESOURCE_EXHAUSTED; the hub's memory stays flat.",
        ["B11"],
    ),
    (
        "Resources stay bounded",
        "Idle streams cost a bounded amount of memory each and are released when their client dies; a slow "
        "consumer is cut off or held back without growing the hub's memory or slowing the others, and loses "
        "nothing; keepalive abuse is refused; a call's deadline stops its work on the hub.",
        ["B12", "B13", "B15", "B16"],
    ),
    (
        "Storage faults are reported, never silent",
        "A full disk refuses writes with RESOURCE_EXHAUSTED and keeps serving reads; a locked database answers "
        "UNAVAILABLE after the busy timeout and recovers within a second of its release; a damaged database file "
        "stops the hub at start with a clear message; a flipped payload byte is DATA_LOSS, never wrong data; the "
        "WAL stays bounded while a reader holds a snapshot.",
        ["B14"],
    ),
    (
        "Replicas keep every promise",
        "With two hub replicas on one PostgreSQL database and either one killed repeatedly, clients fail over and "
        "the invariants of B1, B4, B5 and B7 hold.",
        ["B17"],
    ),
]


def load(tier: str) -> dict[str, dict[str, Any]]:
    folder = RESULTS / tier
    found: dict[str, dict[str, Any]] = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            data = json.loads(path.read_text())
            if "id" in data:
                found[data["id"]] = data
    return found


def runs(tier: str) -> list[dict[str, Any]]:
    folder = RESULTS / tier
    return [json.loads(p.read_text()) for p in sorted(folder.glob("run-*.json"))] if folder.is_dir() else []


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, list | dict):
        text = json.dumps(value)
        return text if len(text) <= 60 else text[:57] + "…"
    return str(value)


def _figures(result: dict[str, Any]) -> str:
    return "; ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in sorted(result["figures"].items()))


def _invariants(result: dict[str, Any]) -> str:
    held = [i for i in result["invariants"] if i["held"]]
    broken = [i for i in result["invariants"] if not i["held"]]
    parts = [f"{len(held)} held"]
    if broken:
        parts.append("**broken: " + "; ".join(f"{i['name']} = {_value(i['observed'])}" for i in broken) + "**")
    return ", ".join(parts)


def render() -> str:
    pr, long = load("pr"), load("long")
    lines = [
        "# Guarantees, and the figures of the last battery runs",
        "",
        "Written by `scripts/guarantees.py` from the results of `scripts/reliability` (the PR tier, which",
        "`.ci/run` runs on every change) and `scripts/reliability --long` (the long tier, on demand). The",
        "battery is designed in `tests/reliability/` after reliability.md §5; each row below is one",
        "battery test: how much it exercised and whether every invariant held. Timings are reported,",
        "never asserted.",
        "",
    ]
    for tier, results in (("pr", pr), ("long", long)):
        done = runs(tier)
        if done:
            walls = ", ".join(f"{'half ' + r['half'] if 'half' in r else 'whole tier'} {r['seconds']} s" for r in done)
            lines.append(f"- **{tier} tier** wall time: {walls}.")
        if results:
            commits = sorted({r["commit"] for r in results.values()})
            dates = sorted(r["finished"] for r in results.values())
            lines.append(
                f"- **{tier} tier** results: {len(results)} battery tests, commit {', '.join(commits)}, "
                f"{dates[0]} to {dates[-1]}."
            )
    lines.append("")
    for title, statement, batteries in GUARANTEES:
        lines += [f"## {title}", "", statement, ""]
        rows = []
        for tier, results in (("PR", pr), ("long", long)):
            for key in sorted(results, key=_order):
                if any(key == b or key.startswith(b + "-") for b in batteries):
                    r = results[key]
                    rows.append(f"| {key} | {tier} | {r['outcome']} | {_invariants(r)} | {_figures(r)} | {r['seed']} |")
        if rows:
            lines += [
                "| battery | tier | outcome | invariants | figures | seed |",
                "| --- | --- | --- | --- | --- | --- |",
            ]
            lines += rows
        else:
            lines.append("_No results of these batteries yet._")
        lines.append("")
    return "\n".join(lines)


def _order(key: str) -> tuple[int, str]:
    head = key.split("-", 1)[0].lstrip("B")
    digits = "".join(ch for ch in head if ch.isdigit())
    return (int(digits) if digits else 0, key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "guarantees.md")
    args = parser.parse_args()
    args.out.write_text(render())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
