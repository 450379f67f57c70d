"""``kxm context episode``: what the project's runs ran into (spec §5.10).

Lists the newest 50 error, lesson, observation and experiment entries of the project's runs (or
of one run, ``--run``) as context items, oldest first: one line each, ``observed  id  kind
summary``, or the items as JSON with ``--json``. Read with the project token, or ``--as`` a saved
agent of the project.
"""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli.common import EXIT_OK, client_from, emit, message_to_dict, run
from kxm_grpc.cli.identity import add_identity, agent_client


def add_commands(actions: Any) -> None:
    """Add this module's commands to the `kxm context` group's subparsers."""
    help_text = "the newest 50 errors, lessons, observations and experiments of the project's runs, oldest first"
    episode = actions.add_parser("episode", help=help_text, description=help_text)
    episode.add_argument("--run", default="", metavar="RUN_ID", help="only this run's episodes")
    add_identity(episode)
    episode.set_defaults(run=_episode)


def _line(item: Any) -> str:
    """One episode: when it was observed, its id, its kind, and its summary on one line."""
    from kxm_grpc.v1 import ContextKind

    observed = item.observe_time.ToJsonString() if item.HasField("observe_time") else "-"
    kind = ContextKind.Name(item.kind).removeprefix("CONTEXT_KIND_").lower() if item.kind else "-"
    return f"{observed}\t{item.id}\t{kind}\t{' '.join(item.summary.splitlines())}"


def _episode(args: argparse.Namespace) -> int:
    async def command() -> int:
        client = await agent_client(args, args.agent_name) if args.agent_name else client_from(args)
        async with client:
            response = await client.context.list_episodes(workflow_run_id=args.run)
        items = list(response.items)
        emit(args, {"items": [message_to_dict(item) for item in items]}, "\n".join(_line(item) for item in items))
        return EXIT_OK

    return run(args, command)
