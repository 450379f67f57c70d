"""Where a client finds the hub and its credentials: arguments, then ``KXM_*`` variables, then
the credentials file a zero-configuration hub wrote on this machine.

The address may name several replicas of one hub (``kxm_grpc.client.addresses``): a comma-separated
``KXM_ADDR`` or file ``address``, or a sequence of strings as the argument."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kxm_grpc import defaults
from kxm_grpc.client.addresses import AddressError, HubTarget, parse_addresses

DEFAULT_ADDRESS = defaults.ADDRESS


def credentials_path() -> Path:
    """The credentials file: ``$KXM_CREDENTIALS``, else ``$KXM_DATA_DIR/credentials.json`` (``.kxm``)."""
    explicit = os.environ.get("KXM_CREDENTIALS")
    if explicit:
        return Path(explicit)
    return defaults.data_dir() / "credentials.json"


def read_credentials_file(path: Path | None = None) -> dict[str, Any]:
    """The credentials file's content, or an empty dict."""
    try:
        data = json.loads((path or credentials_path()).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update_project_token(project: str, token: str, path: Path | None = None) -> bool:
    """Replace a project's token in the credentials file, if the file lists that project.

    Returns whether the file changed. Keeps the file's mode (0600) by rewriting it in place.
    """
    path = path or credentials_path()
    data = read_credentials_file(path)
    tokens = data.get("projects")
    if not isinstance(tokens, dict) or project not in tokens:
        return False
    tokens[project] = token
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    os.replace(tmp, path)
    return True


@dataclass(frozen=True)
class ClientConfig:
    """Resolved connection settings (secrets are left out of its ``repr``)."""

    #: The hub's address as the client reports it (several are joined by commas).
    address: str
    token: str | None = field(repr=False)
    project: str | None
    agent_id: str | None
    agent_key: str | None = field(repr=False)
    #: The channel target of ``address`` and the options it needs.
    target: HubTarget
    #: The attempt token (``KXM_ATTEMPT_TOKEN``) and session token (``KXM_SESSION_TOKEN``) calls present.
    attempt_token: str | None = field(default=None, repr=False)
    session_token: str | None = field(default=None, repr=False)


def resolve(
    address: str | Sequence[str] | None = None,
    *,
    token: str | None = None,
    project: str | None = None,
    agent_id: str | None = None,
    agent_key: str | None = None,
    admin: bool = False,
    attempt_token: str | None = None,
    session_token: str | None = None,
) -> ClientConfig:
    """Fill what was not given from the environment, then from the credentials file.

    The tool-policy tokens come from the arguments, else ``KXM_ATTEMPT_TOKEN`` and
    ``KXM_SESSION_TOKEN`` (never from the credentials file: a token is the process's, not the machine's).

    ``admin`` picks the admin token from the file instead of the project token. ``address`` (None or
    ``""``: not given) may be several addresses: a comma-separated string or a sequence of strings.

    Raises:
        AddressError: the address that applies cannot be dialled (``kxm_grpc.client.addresses``);
            the message names ``KXM_ADDR`` or the credentials file when the address came from there.
    """
    saved = read_credentials_file()
    env = os.environ
    project = project or env.get("KXM_PROJECT")
    if token is None:
        token = env.get("KXM_ADMIN_TOKEN") if admin else env.get("KXM_TOKEN")
    if token is None:
        if admin:
            token = saved.get("admin_token")
        else:
            tokens = saved.get("projects") or {}
            token = tokens.get(project or "default")
    target = _target(address, env.get("KXM_ADDR"), saved.get("address"))
    return ClientConfig(
        address=target.address,
        token=token,
        project=project,
        agent_id=agent_id or env.get("KXM_AGENT_ID"),
        agent_key=agent_key or env.get("KXM_AGENT_KEY"),
        target=target,
        attempt_token=attempt_token or env.get("KXM_ATTEMPT_TOKEN") or None,
        session_token=session_token or env.get("KXM_SESSION_TOKEN") or None,
    )


def _target(argument: str | Sequence[str] | None, variable: str | None, saved: Any) -> HubTarget:
    """The first address given (argument, ``KXM_ADDR``, credentials file, default), parsed."""
    if argument is not None and argument != "":
        return parse_addresses(argument)
    if variable:
        source, value = "KXM_ADDR", variable
    elif saved:
        source, value = f"the address in {credentials_path()}", saved
    else:
        return parse_addresses(DEFAULT_ADDRESS)
    try:
        return parse_addresses(value)
    except AddressError as error:
        raise AddressError(f"{source}: {error}") from None
