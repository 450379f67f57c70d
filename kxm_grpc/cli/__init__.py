"""The ``kxm`` command line.

Each command group lives in its own module and adds itself to the parser through ``register``;
commands import grpc lazily so ``kxm --help`` stays fast. Every command that prints data accepts
``--json``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from kxm_grpc.cli import (
    admin,
    agent,
    audit,
    context,
    debug,
    gate,
    hub,
    lease,
    mcp,
    operator,
    ops,
    peer,
    profile,
    runtime,
    token,
    tool_verbs,
    workflow,
)
from kxm_grpc.version import version

GROUPS = [
    hub,
    profile,
    admin,
    operator,
    token,
    audit,
    ops,
    agent,
    peer,
    lease,
    runtime,
    workflow,
    gate,
    context,
    mcp,
    debug,
]


def build_parser() -> argparse.ArgumentParser:
    """The full ``kxm`` parser."""
    parser = argparse.ArgumentParser(prog="kxm", description="kxm hub: agents find each other and hand off work.")
    parser.add_argument("--version", action="version", version=f"kxm {version()}")
    commands = parser.add_subparsers(dest="group", required=True, metavar="COMMAND")
    for group in GROUPS:
        group.register(commands)
    tool_verbs.install(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kxm``; return the process exit code."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    parser = build_parser()
    args = parser.parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
