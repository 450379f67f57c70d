"""Where a client finds the hub and its credentials: arguments, then ``KXM_*`` variables, then
one credentials file: the one a zero-configuration hub wrote on this machine (local state) or the
per-user profile's (``${XDG_CONFIG_HOME:-~/.config}/kxm/credentials.json``, written by ``kxm profile
save``). ``state_for`` is the one rule picking between them, for saved agent keys too.

The address may name several replicas of one hub (``kxm_grpc.client.addresses``): a comma-separated
``KXM_ADDR`` or file ``address``, or a sequence of strings as the argument."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kxm_grpc import defaults
from kxm_grpc.client.addresses import AddressError, HubTarget, parse_addresses

DEFAULT_ADDRESS = defaults.ADDRESS


def credentials_path() -> Path:
    """The local credentials file: ``$KXM_CREDENTIALS``, else ``$KXM_DATA_DIR/credentials.json`` (``.kxm``).

    This is where a hub on this machine writes; whether a client reads it or the per-user profile's
    is ``state_for``'s rule."""
    explicit = os.environ.get("KXM_CREDENTIALS")
    if explicit:
        return Path(explicit)
    return defaults.data_dir() / "credentials.json"


def user_credentials_path() -> Path:
    """The per-user profile's credentials file: ``${XDG_CONFIG_HOME:-~/.config}/kxm/credentials.json``."""
    return defaults.user_config_dir() / "credentials.json"


def credentials_paths() -> list[Path]:
    """The two credentials files a client may read: the local one, then the per-user profile's."""
    paths = [credentials_path(), user_credentials_path()]
    return paths[:1] if paths[0] == paths[1] else paths


def local_state_reason() -> str | None:
    """Why local state applies, or None: ``KXM_CREDENTIALS`` or ``KXM_DATA_DIR`` is set (non-empty), or
    ``./.kxm/credentials.json`` or ``./.kxm/agents`` exists (never merely ``./.kxm``: ``kxm gate worker``
    makes ``.kxm/gate-workspaces``, which must not move a running worker's keys)."""
    for variable in ("KXM_CREDENTIALS", defaults.DATA_DIR_ENV):
        if os.environ.get(variable):
            return f"{variable} is set"
    for marker in (Path(defaults.DATA_DIR) / "credentials.json", Path(defaults.DATA_DIR) / "agents"):
        if marker.exists():
            return f"{marker.absolute()} exists"
    return None


@dataclass(frozen=True)
class State:
    """Where a client's credentials and saved agent keys are, for one hub (``state_for``)."""

    #: Whether the per-user profile applies (its tokens and agent keys); else local state does.
    profile: bool
    #: The credentials file read (and updated by ``update_project_token``); it may not exist.
    credentials_file: Path
    #: The folder of saved agent keys (``<project>/<name>.json``).
    agents_dir: Path
    #: When the profile does not apply: its file and why, as the "looked in" list says it.
    profile_note: str = ""

    @property
    def found(self) -> Path | None:
        """``credentials_file`` if it exists (the only file a client reads), else None."""
        return self.credentials_file if self.credentials_file.is_file() else None


def state_for(address: str | Sequence[str] | None = None) -> State:
    """The one rule deciding between local state and the per-user profile, for credentials and
    saved agent keys alike.

    Local state (``credentials_path()``, ``$KXM_DATA_DIR/agents``, default ``.kxm``) applies when
    ``local_state_reason()`` names a reason; a local file missing then never falls through to the
    profile. Otherwise the profile (``${XDG_CONFIG_HOME:-~/.config}/kxm``: ``credentials.json`` and
    ``agents/``) applies if its file exists, as a unit belonging to its address: when a hub address
    is given (``address``, else ``KXM_ADDR``; None or ``""``: not given) and differs from the
    profile's, neither its tokens nor its agent keys apply. When the profile does not apply, local
    state does.
    """
    local = State(False, credentials_path(), defaults.data_dir() / "agents")
    profile_file = user_credentials_path()
    reason = local_state_reason()
    if reason is not None:
        return replace(local, profile_note=f"{profile_file.absolute()} (not read: {reason})")
    if not profile_file.is_file():
        return replace(local, profile_note=f"{profile_file.absolute()} (no such file)")
    given = address if address is not None and address != "" else os.environ.get("KXM_ADDR") or None
    if given is not None:
        saved = read_credentials_file(profile_file).get("address") or DEFAULT_ADDRESS
        theirs, ours = _address_text(saved), _address_text(given)
        if theirs != ours:
            return replace(local, profile_note=f"{profile_file.absolute()} (for hub {theirs}, not {ours})")
    return State(True, profile_file, defaults.user_config_dir() / "agents")


def _address_text(value: Any) -> str:
    """An address as a client reports it (parsed), or as written when it does not parse."""
    try:
        return parse_addresses(value).address
    except AddressError:
        return value if isinstance(value, str) else ",".join(map(str, value))


def find_credentials_file(address: str | Sequence[str] | None = None) -> Path | None:
    """The credentials file ``state_for(address)`` picks, if it exists (the only one a client reads)."""
    return state_for(address).found


def read_credentials_file(path: Path | None) -> dict[str, Any]:
    """The content of ``path``, or an empty dict (None, missing or unreadable)."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def make_private_dir(path: Path) -> None:
    """Create ``path`` and any missing parent, each level created mode 0700 whatever the umask."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue  # made meanwhile by another process: not ours to change
        os.chmod(folder, 0o700)


def write_private_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically, mode 0600 (its temporary file too)."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # O_CREAT's mode does not apply to a leftover file
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    os.replace(tmp, path)


def update_project_token(
    project: str, token: str, path: Path | None = None, *, address: str | Sequence[str] | None = None
) -> bool:
    """Replace a project's token in the credentials file, if the file lists that project.

    Returns whether the file changed. ``path`` defaults to the file ``state_for(address)`` picks for
    the hub at ``address`` (the one dialled): never the profile of another hub. The file is replaced
    atomically, mode 0600.
    """
    path = path or state_for(address).credentials_file
    data = read_credentials_file(path)
    tokens = data.get("projects")
    if not isinstance(tokens, dict) or project not in tokens:
        return False
    tokens[project] = token
    write_private_json(path, data)
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
    ``state_for(address)`` picks (the local one, or the per-user profile's for its own hub).

    The tool-policy tokens come from the arguments, else ``KXM_ATTEMPT_TOKEN`` and
    ``KXM_SESSION_TOKEN`` (never from the credentials file: a token is the process's, not the machine's).

    ``admin`` picks the admin token from the file instead of the project token. ``address`` (None or
    ``""``: not given) may be several addresses: a comma-separated string or a sequence of strings.

    Raises:
        AddressError: the address that applies cannot be dialled (``kxm_grpc.client.addresses``);
            the message names ``KXM_ADDR`` or the credentials file when the address came from there.
    """
    where = state_for(address)
    found = where.found
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
    looked_in = (variable, *_files_looked_in(where, found, admin=admin, project=project or "default"))
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


def _files_looked_in(where: State, found: Path | None, *, admin: bool, project: str) -> list[str]:
    """The credentials files, each with why it gave no token: the local one, then the profile's
    (``state_for`` decides which one is read; the other says why it was not)."""
    why = "no admin_token" if admin else f"no token for project {project!r}"
    local = credentials_path()
    places = [f"{local.absolute()} ({why if local == found else 'no such file'})"]
    if where.profile:
        if where.credentials_file != local:
            places.append(f"{where.credentials_file.absolute()} ({why if found else 'no such file'})")
    elif where.credentials_file.absolute() != user_credentials_path().absolute():
        places.append(where.profile_note)
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
