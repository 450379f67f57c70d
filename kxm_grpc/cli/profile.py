"""``kxm profile save|show``: a per-user credentials profile, for commands run outside the hub's folder.

A client reads one credentials file, and keeps saved agent keys beside it, by one rule
(``kxm_grpc.client.config.state_for``): local state (``$KXM_CREDENTIALS``, else
``$KXM_DATA_DIR/credentials.json``, default ``./.kxm/credentials.json``; keys in ``.kxm/agents``) when
``KXM_CREDENTIALS`` or ``KXM_DATA_DIR`` is set or ``./.kxm/credentials.json`` or ``./.kxm/agents``
exists; otherwise the per-user profile (``${XDG_CONFIG_HOME:-~/.config}/kxm/credentials.json``, keys
in its ``agents``) if that file exists and no other hub's address is given. ``save`` copies what the
CLI resolves here (address, project tokens, admin token) into the profile; ``show`` says where each
value comes from. Tokens are never printed, only where they come from.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, emit, hub_address


def register(commands: Any) -> None:
    """Add ``profile``."""
    profile = commands.add_parser("profile", help="save and show the per-user credentials profile")
    actions = profile.add_subparsers(dest="profile_command", required=True, metavar="COMMAND")

    save = actions.add_parser(
        "save",
        help="copy the credentials resolved here (address, tokens) to the per-user profile (mode 0600)",
    )
    save.add_argument("--force", action="store_true", help="replace an existing profile")
    _add_flags(save)
    save.set_defaults(run=_save)

    show = actions.add_parser("show", help="show where the address, project and tokens come from (never the tokens)")
    _add_flags(show)
    show.set_defaults(run=_show)


def _add_flags(parser: argparse.ArgumentParser) -> None:
    # The connection flags but --tls-ca: a profile holds what a command would read, not a CA file.
    parser.add_argument("--addr", type=hub_address, help="hub address (env KXM_ADDR; default from the credentials)")
    parser.add_argument("--token", help="project token (env KXM_TOKEN)")
    parser.add_argument("--project", help="project (env KXM_PROJECT; default 'default')")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _sources(args: argparse.Namespace) -> dict[str, Any]:
    """Where the address, project and each token come from, and the files involved (no secrets)."""
    from kxm_grpc.client.config import (
        credentials_paths,
        read_credentials_file,
        resolve,
        state_for,
        user_credentials_path,
    )

    where = state_for(args.addr)
    found = where.found
    saved = read_credentials_file(found)
    project = resolve(args.addr, token=args.token, project=args.project)
    admin = resolve(args.addr, project=args.project, admin=True)
    if args.addr:
        address_source = "--addr"
    elif os.environ.get("KXM_ADDR"):
        address_source = "KXM_ADDR"
    elif saved.get("address"):
        address_source = str(found.absolute()) if found else ""
    else:
        address_source = "default"
    if args.project:
        project_source = "--project"
    elif os.environ.get("KXM_PROJECT"):
        project_source = "KXM_PROJECT"
    else:
        project_source = "default"
    return {
        "credentialsFiles": [str(path.absolute()) for path in credentials_paths()],
        "credentialsFile": None if found is None else str(found.absolute()),
        "profileFile": str(user_credentials_path()),
        "profileApplies": where.profile,
        "profileNote": where.profile_note,
        "agentsDir": str(where.agents_dir.absolute()),
        "address": {"value": project.address, "source": address_source},
        "project": {"value": project.project or "default", "source": project_source},
        "token": {"source": project.token_source},
        "adminToken": {"source": admin.token_source},
    }


def _show(args: argparse.Namespace) -> int:
    sources = _sources(args)
    lines = [
        f"credentials file\t{sources['credentialsFile'] or 'none found'}"
        f"\t(tried {', '.join(sources['credentialsFiles'])})",
        f"address\t{sources['address']['value']}\tfrom {sources['address']['source']}",
        f"project\t{sources['project']['value']}\tfrom {sources['project']['source']}",
        f"project token\t{_said(sources['token']['source'])}",
        f"admin token\t{_said(sources['adminToken']['source'])}",
        f"saved agents\t{sources['agentsDir']}",
    ]
    if sources["profileNote"]:
        lines.append(f"profile\tnot used: {sources['profileNote']}")
    emit(args, sources, "\n".join(lines))
    return EXIT_OK


def _said(source: str | None) -> str:
    return "not found" if source is None else f"from {source}"


def _save(args: argparse.Namespace) -> int:
    """Write the profile: the credentials file found here, with the address and tokens the flags and
    variables give laid over it. Refuses to replace a profile without ``--force`` (exit 1)."""
    from kxm_grpc.client.config import (
        find_credentials_file,
        make_private_dir,
        read_credentials_file,
        resolve,
        user_credentials_path,
        write_private_json,
    )

    target = user_credentials_path()
    if target.exists() and not args.force:
        print(f"error: {target} exists; replace it with --force", file=sys.stderr)
        return EXIT_ERROR
    data = dict(read_credentials_file(find_credentials_file(args.addr)))
    project = resolve(args.addr, token=args.token, project=args.project)
    admin = resolve(args.addr, project=args.project, admin=True)
    if project.token is None and admin.token is None:
        print(f"error: nothing to save: {project.missing_token()}", file=sys.stderr)
        return EXIT_ERROR
    data["address"] = project.address
    if project.token is not None:
        tokens = data.get("projects")
        data["projects"] = {**(tokens if isinstance(tokens, dict) else {}), project.project or "default": project.token}
    if admin.token is not None:
        data["admin_token"] = admin.token
    make_private_dir(target.parent)
    write_private_json(target, data)
    projects = sorted(data.get("projects") or {})
    summary = {
        "path": str(target),
        "address": project.address,
        "projects": projects,
        "adminToken": "admin_token" in data,
    }
    admin_word = ", admin token" if summary["adminToken"] else ""
    emit(args, summary, f"saved {target}: address {project.address}, projects {', '.join(projects)}{admin_word}")
    return EXIT_OK
