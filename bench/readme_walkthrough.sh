#!/usr/bin/env bash
# The README's quickstart, timed from a fresh clone (issue 20's first-hour figure):
#
#   bash bench/readme_walkthrough.sh [WORKDIR]     (default: a new temporary folder)
#
# Clones this repository's HEAD, starts `scripts/serve` (which installs .venv), registers planner and
# builder, lets builder tail, sends with --wait 300 as planner, replies as builder with the id tail
# printed, and prints the seconds since the clone at each step. Needs port 7331 free; the hub is
# stopped with SIGINT at the end. Package downloads come from pip's cache when it is warm.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
t0=$(date +%s%N)
at() { printf '%6.1f s  %s\n' "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" "$*"; }
git clone -q "$repo" "$work/kxm"
cd "$work/kxm"
at cloned
scripts/serve >"$work/serve.log" 2>&1 &
hub=$!
trap 'kill -INT $hub 2>/dev/null || true' EXIT
until grep -q '"hub_started"' "$work/serve.log" 2>/dev/null; do
  kill -0 $hub 2>/dev/null || { cat "$work/serve.log"; exit 1; }
  sleep 0.1
done
at "serving (scripts/serve)"
.venv/bin/kxm agent register planner >/dev/null
.venv/bin/kxm agent register builder >/dev/null
.venv/bin/kxm agent list >/dev/null
at "planner and builder registered and listed"
.venv/bin/kxm peer tail --as builder >"$work/tail.log" 2>&1 &
tail_pid=$!
.venv/bin/kxm peer send --as planner builder "please build PR 42" --wait 300 >"$work/send.log" 2>&1 &
send_pid=$!
id=""
until [[ -n "$id" ]]; do sleep 0.05; id=$(grep -o 'msg_[0-9a-f]*' "$work/tail.log" | head -1 || true); done
at "builder's tail printed $id"
kill -INT $tail_pid
.venv/bin/kxm peer reply --as builder "$id" "built" >/dev/null
wait $send_pid
at "planner's send printed the answer: $(tail -1 "$work/send.log")"
