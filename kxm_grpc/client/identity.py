"""Saved agent identities: an agent's id and last key, kept on disk so it can resume its name.

The hub lets a name be resumed (same id, inbox and leases) only with the agent's last key. The CLI
and ``HubClient.agents.register(..., remember=True)`` keep that key in ``<agents>/<project>/<name>.json``,
mode 0600, each folder made 0700. ``<agents>`` is where ``kxm_grpc.client.config.state_for`` puts the
hub's state, the same rule as for its credentials: ``$KXM_DATA_DIR/agents`` (default ``.kxm/agents``)
for local state, or the per-user profile's ``${XDG_CONFIG_HOME:-~/.config}/kxm/agents`` when the
profile applies to that hub. Every function here therefore takes the hub's ``address`` (the one
dialled; None: ``KXM_ADDR``, else not given).

``<project>`` is the project the hub says the credentials belong to (``GetCallerIdentity``), never
a guess: same-named agents of two projects keep two files, and a key is only ever presented to
the project it was issued in. (Before, the folder was ``KXM_PROJECT`` or ``default``; a key filed
under ``default/`` by a token of another project is not reused; see docs/api.md.)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from kxm_grpc.client.config import make_private_dir, state_for, write_private_json
from kxm_grpc.domain.agents import name_key

#: A hub's address as the client was given it (None: ``KXM_ADDR``, else not given).
Address = str | Sequence[str] | None

# Most file systems allow 255 bytes per file name; a percent-encoded name beyond this is hashed.
_MAX_FILE_NAME = 200


def identity_path(project: str, name: str, *, address: Address = None) -> Path:
    """Where an agent's id and key are kept: under the project the hub named.

    The file is named by the hub's own case-insensitive key of the name (two spellings the hub
    treats as one name share a file), percent-encoded since a name may contain any character
    (``/`` and ``..`` included), or by its SHA-256 when that encoding is too long for a file name
    (64 CJK characters encode to 576 bytes). The project is percent-encoded too: it comes from
    the hub's answer and must never become a path of its own.

    Raises:
        ValueError: ``project`` is empty (the hub named none, so there is nowhere safe to file it).
    """
    if not project:
        raise ValueError("a saved agent identity needs the project its credentials belong to")
    key = name_key(name)
    file_name = quote(key, safe="")
    if len(file_name) > _MAX_FILE_NAME:
        file_name = "sha256-" + hashlib.sha256(key.encode()).hexdigest()
    return project_dir(project, address=address) / f"{file_name}.json"


def agents_dir(address: Address = None) -> Path:
    """Where the identities saved for the hub at ``address`` are kept (``state_for``)."""
    return state_for(address).agents_dir


def project_dir(project: str, *, address: Address = None) -> Path:
    """The folder of one project's saved identities (its name percent-encoded)."""
    return agents_dir(address) / quote(project, safe="")


def saved_names(project: str, *, address: Address = None) -> list[str]:
    """The names of the agents saved for ``project``, sorted (unreadable files are skipped)."""
    names = set()
    for path in project_dir(project, address=address).glob("*.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            names.add(data["name"])
    return sorted(names)


def _legacy_path(project: str, name: str, address: Address) -> Path | None:
    """Where versions before 0.2 kept the identity (``<name stripped and casefolded>.json``), if that
    is a plain file name."""
    legacy = name.strip().casefold()
    if not legacy or "/" in legacy or legacy in (".", "..") or len(legacy.encode()) > _MAX_FILE_NAME:
        return None
    return project_dir(project, address=address) / f"{legacy}.json"


def load_identity(project: str, name: str, *, address: Address = None) -> dict[str, str] | None:
    """The saved identity (``agent_id``, ``agent_key``), or None.

    An identity saved under the older file name of the same project is found too.
    """
    for path in (identity_path(project, name, address=address), _legacy_path(project, name, address)):
        if path is None:
            continue
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and name_key(str(data.get("name", ""))) == name_key(name):
            return data
    return None


def save_identity(project: str, name: str, agent_id: str, agent_key: str, *, address: Address = None) -> None:
    """Save an identity atomically with mode 0600 (each folder it makes 0700)."""
    path = identity_path(project, name, address=address)
    make_private_dir(path.parent)
    write_private_json(path, {"name": name, "agent_id": agent_id, "agent_key": agent_key})
