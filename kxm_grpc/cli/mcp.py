"""``kxm mcp``: serve the agent tools to an MCP client over stdio, acting as a saved agent.

An MCP client starts ``kxm mcp --as NAME`` as its server process (docs/tools.md has config
snippets). The process is a client of the hub: it finds the hub and its credentials as every
command does (``--addr``, ``KXM_ADDR``, the credentials file; ``KXM_ATTEMPT_TOKEN`` and
``KXM_SESSION_TOKEN`` for tool policy) and acts as the saved agent ``NAME`` (``--register`` to
register it on first use). Standard output carries MCP only; logs go to standard error.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, run
from kxm_grpc.cli.identity import add_identity, agent_client

INSTALL_HINT = "kxm mcp needs the mcp package: pip install 'kxm-hub[mcp]'"


def register(commands: Any) -> None:
    """Add ``mcp``."""
    mcp = commands.add_parser(
        "mcp",
        help="serve this agent's tools to an MCP client over stdio",
        description="Serve the agent tools (kxm_send, kxm_inbox, kxm_wait, ...) over MCP on stdin/stdout,"
        " acting as the saved agent --as NAME.",
    )
    add_identity(mcp)
    mcp.add_argument(
        "--no-announce",
        action="store_true",
        help="do not follow the inbox to announce new messages in tool results",
    )
    mcp.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    try:
        from kxm_grpc.mcp.server import serve_stdio
    except ModuleNotFoundError as missing:
        if missing.name is None or not missing.name.startswith("mcp"):
            raise
        print(f"error: {INSTALL_HINT}", file=sys.stderr)
        return EXIT_ERROR
    import structlog

    if not args.agent_name:
        print("error: name the acting agent with --as NAME (or KXM_AGENT_NAME)", file=sys.stderr)
        return EXIT_ERROR
    # Standard output is the MCP stream: every log line goes to standard error, from INFO up (a
    # line per tool call, at DEBUG, would cost more than the call).
    structlog.configure(
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
    )

    async def command() -> int:
        client = await agent_client(args, args.agent_name)
        async with client:
            await serve_stdio(client, follow_inbox=not args.no_announce)
        return EXIT_OK

    return run(args, command)
