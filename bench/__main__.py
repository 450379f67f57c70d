"""``python -m bench``: the hub's speed as ratios to raw ceilings measured in the same run (issue 6).

    python -m bench                 everything, full scale (under 10 minutes on 2 cores)
    python -m bench --quick         tiny scale (seconds): checks that every scenario runs
    python -m bench --only NAME     one scenario (repeatable) plus the ceilings it is divided by

Writes bench/results/<timestamp>.json and bench/results/latest.md, and prints the table.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from bench import report, run
from bench.common import REPO
from bench.config import FULL, QUICK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny scale, one repetition (seconds)")
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help=f"run only this scenario and its ceilings (repeatable; comma lists allowed): {', '.join(run.ALL)}",
    )
    parser.add_argument("--results-dir", type=Path, default=REPO / "bench" / "results", help="where results go")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    only = [name.strip() for item in args.only or [] for name in item.split(",") if name.strip()] or None
    command = shlex.join(["python", "-m", "bench", *(sys.argv[1:] if argv is None else argv)])
    result = run.main(QUICK if args.quick else FULL, only, args.results_dir, command, quiet=args.quiet)
    print(report.markdown(result))
    print(f"results: {result['files']['json']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
