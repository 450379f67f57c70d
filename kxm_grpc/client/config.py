"""Where a client finds the hub and its credentials: arguments, then ``KXM_*`` variables, then
the credentials file a zero-configuration hub wrote on this machine, else the per-user profile
(``${XDG_CONFIG_HOME:-~/.config}/kxm/credentials.json``, written by ``kxm profile save``).

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
    """The local credentials file: ``$KXM_CREDENTIALS``, else ``$KXM_DATA_DIR/credentials.json`` (``.kxm``).

    This is where a hub on this machine writes; a client also tries ``user_credentials_path()``."""
    explicit = os.environ.get("KXM_CREDENTIALS")
    if explicit:
        return Path(explicit)
    return defaults.data_dir() / "credentials.json"


def user_credentials_path() -> Path:
    """The per-user profile's credentials file: ``${XDG_CONFIG_HOME:-~/.config}/kxm/credentials.json``."""
    return defaults.user_config_dir() / "credentials.json"


def credentials_paths() -> list[Path]:
    """The credentials files a client tries, in order: the local one, then the per-user profile's."""
    paths = [credentials_path(), user_credentials_path()]
    return paths[:1] if paths[0] == paths[1] else paths


def find_credentials_file() -> Path | None:
    """The first of ``credentials_paths()`` that exists, or None (the client reads only that one)."""
    for path in credentials_paths():
        if path.is_file():
            return path
    return None


def read_credentials_file(path: Path | None = None) -> dict[str, Any]:
    """The content of ``path`` (default: ``find_credentials_file()``), or an empty dict."""
    path = path or find_credentials_file()
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update_project_token(project: str, token: str, path: Path | None = None) -> bool:
    """Replace a project's token in the credentials file, if the file lists that project.

    Returns whether the file changed. Keeps the file's mode (0600) by rewriting it in place.
    ``path`` defaults to the file the client reads (``find_credentials_file()``).
    """
    path = path or find_credentials_file() or credentials_path()
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
    #: Where ``token`` came from (``--token``, a variable's name or a file's path); None when not found.
    token_source: str | None = None
    #: The token looked for (``admin token``, ``project token for project 'default'``).
    token_wanted: str = "project token"
    #: Where it was looked for after the argument, in order: the variable, then the credentials
    #: files tried (up to the first that exists, the only one read), each saying why it gave none.
    looked_in: tuple[str, ...] = ()

    def missing_token(self, argument: str = "--token") -> str:
        """What to say when no token was found: every place looked, in order.

        ``argument`` names the first place (the CLI's flag, or the client's ``token`` argument)."""
        return f"no {self.token_wanted} found; looked in {', '.join((argument, *self.looked_in))}"


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
    """Fill what was not given from the environment, then from the credentials file
    (``find_credentials_file()``: the local one, else the per-user profile's).

    The tool-policy tokens come from the arguments, else ``KXM_ATTEMPT_TOKEN`` and
    ``KXM_SESSION_TOKEN`` (never from the credentials file: a token is the process's, not the machine's).

    ``admin`` picks the admin token from the file instead of the project token. ``address`` (None or
    ``""``: not given) may be several addresses: a comma-separated string or a sequence of strings.

    Raises:
        AddressError: the address that applies cannot be dialled (``kxm_grpc.client.addresses``);
            the message names ``KXM_ADDR`` or the credentials file when the address came from there.
    """
    found = find_credentials_file()
    saved = read_credentials_file(found)
    env = os.environ
    project = project or env.get("KXM_PROJECT")
    variable = "KXM_ADMIN_TOKEN" if admin else "KXM_TOKEN"
    token_source: str | None = "--token" if token is not None else None
    if token is None and env.get(variable):
        token, token_source = env[variable], variable
    if token is None and found is not None:
        if admin:
            token = saved.get("admin_token")
        else:
            tokens = saved.get("projects") or {}
            token = tokens.get(project or "default") if isinstance(tokens, dict) else None
        token_source = str(found.absolute()) if token is not None else None
    looked_in = (variable, *_files_looked_in(found, admin=admin, project=project or "default"))
    target = _target(address, env.get("KXM_ADDR"), saved.get("address"), found)
    return ClientConfig(
        address=target.address,
        token=token,
        project=project,
        agent_id=agent_id or env.get("KXM_AGENT_ID"),
        agent_key=agent_key or env.get("KXM_AGENT_KEY"),
        target=target,
        attempt_token=attempt_token or env.get("KXM_ATTEMPT_TOKEN") or None,
        session_token=session_token or env.get("KXM_SESSION_TOKEN") or None,
        token_source=token_source,
        token_wanted="admin token" if admin else f"project token for project {project or 'default'!r}",
        looked_in=looked_in,
    )


def _files_looked_in(found: Path | None, *, admin: bool, project: str) -> list[str]:
    """The credentials files tried, each with why it gave no token (only the first that exists is read)."""
    places = []
    for path in credentials_paths():
        if path != found:
            places.append(f"{path.absolute()} (no such file)")
            continue
        why = "no admin_token" if admin else f"no token for project {project!r}"
        places.append(f"{path.absolute()} ({why})")
        break
    return places


def _target(argument: str | Sequence[str] | None, variable: str | None, saved: Any, found: Path | None) -> HubTarget:
    """The first address given (argument, ``KXM_ADDR``, credentials file, default), parsed."""
    if argument is not None and argument != "":
        return parse_addresses(argument)
    if variable:
        source, value = "KXM_ADDR", variable
    elif saved:
        source, value = f"the address in {found}", saved
    else:
        return parse_addresses(DEFAULT_ADDRESS)
    try:
        return parse_addresses(value)
    except AddressError as error:
        raise AddressError(f"{source}: {error}") from None
