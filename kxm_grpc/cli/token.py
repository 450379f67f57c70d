"""``kxm token mint|revoke|list``: agents' session tokens (an operator's token, naming the project).

The operator's token comes from ``--token``, ``KXM_ADMIN_TOKEN`` or ``.kxm/credentials.json``; the
project from ``--project`` or ``KXM_PROJECT``. ``mint`` prints the session token once: hand it to
the agent as ``KXM_SESSION_TOKEN`` (every ``kxm`` command and client presents it from there, as
they present ``KXM_ATTEMPT_TOKEN``). The tool policy's entries are tool names (``kxm_send`` or
``send``), ``*`` or ``prefix*`` (docs/tool-policy.md).
"""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli.common import EXIT_OK, add_connection_flags, all_pages, client_from, emit, message_to_dict, run


def register(commands: Any) -> None:
    """Add ``token``."""
    token = commands.add_parser("token", help="agents' session tokens (an operator's token, naming the project)")
    actions = token.add_subparsers(dest="token_command", required=True, metavar="COMMAND")

    mint = actions.add_parser("mint", help="mint a session token for an agent and print it (shown once)")
    mint.add_argument("agent_id", metavar="AGENT_ID", help="the agent's id (agt_…)")
    mint.add_argument("--preset", default="", help="a tool-policy preset: read-only")
    mint.add_argument(
        "--allow", action="append", default=[], metavar="TOOL", help="allow this tool or pattern (repeatable)"
    )
    mint.add_argument(
        "--deny", action="append", default=[], metavar="TOOL", help="deny this tool or pattern (repeatable)"
    )
    mint.add_argument(
        "--deny-command",
        action="append",
        default=[],
        metavar="COMMAND",
        help="a shell command the agent's harness must refuse (repeatable; carried, not run by the hub)",
    )
    mint.add_argument(
        "--ttl", type=float, default=None, metavar="SECONDS", help="validity (default 24 h, at most 30 days)"
    )
    add_connection_flags(mint, admin=True)
    mint.set_defaults(run=_mint)

    revoke = actions.add_parser("revoke", help="revoke a session token; it stops being accepted at once")
    revoke.add_argument("session_id", metavar="SESSION_ID")
    add_connection_flags(revoke, admin=True)
    revoke.set_defaults(run=_revoke)

    listing = actions.add_parser("list", help="list the project's session tokens, newest first (never the tokens)")
    add_connection_flags(listing, admin=True)
    listing.set_defaults(run=_list)


def _state(session: Any) -> str:
    return "revoked" if session.HasField("revoke_time") else "issued"


def _policy(session: Any) -> str:
    policy = session.tool_policy
    parts = [f"preset={policy.preset}"] if policy.preset else []
    parts += [f"allow={','.join(policy.allowed_tools)}"] if policy.allowed_tools else []
    parts += [f"deny={','.join(policy.denied_tools)}"] if policy.denied_tools else []
    return " ".join(parts) or "-"


def _mint(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.admin.mint_session_token(
                args.agent_id,
                preset=args.preset,
                allow=args.allow,
                deny=args.deny,
                denied_commands=args.deny_command,
                ttl=args.ttl,
            )
        session = response.session
        emit(
            args,
            message_to_dict(response),
            f"{session.session_id}\t{session.agent_id}\t{session.expire_time.ToJsonString()}\n{response.session_token}",
        )
        return EXIT_OK

    return run(args, command)


def _revoke(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            response = await client.admin.revoke_session_token(args.session_id)
        emit(args, message_to_dict(response), f"{response.session.session_id}\t{_state(response.session)}")
        return EXIT_OK

    return run(args, command)


def _list(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            sessions = await all_pages(lambda t: client.admin.list_session_tokens(page_token=t), "sessions")
        emit(
            args,
            {"sessions": [message_to_dict(s) for s in sessions]},
            "\n".join(
                f"{s.session_id}\t{s.agent_id}\t{s.agent_name}\t{_state(s)}\t{s.expire_time.ToJsonString()}\t{_policy(s)}"
                for s in sessions
            ),
        )
        return EXIT_OK

    return run(args, command)
