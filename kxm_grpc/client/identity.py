"""Saved agent identities: an agent's id and last key, kept on disk so it can resume its name.

The hub lets a name be resumed (same id, inbox and leases) only with the agent's last key. The CLI
and ``HubClient.register_agent(..., remember=True)`` keep that key under the data directory
(``$KXM_DATA_DIR/agents/<project>/<name>.json``, default ``.kxm``), mode 0600 in a 0700 directory.

``<project>`` is the project the hub says the credentials belong to (``GetCallerIdentity``), never
a guess: same-named agents of two projects keep two files, and a key is only ever presented to
the project it was issued in. (Before, the folder was ``KXM_PROJECT`` or ``default``; a key filed
under ``default/`` by a token of another project is not reused; see docs/api.md.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from kxm_grpc.domain.agents import name_key


def identity_path(project: str, name: str) -> Path:
    """Where an agent's id and key are kept: under the project the hub named.

    Raises:
        ValueError: ``project`` is empty (the hub named none, so there is nowhere safe to file it).
    """
    if not project:
        raise ValueError("a saved agent identity needs the project its credentials belong to")
    base = Path(os.environ.get("KXM_DATA_DIR", ".kxm")) / "agents" / project
    # The hub's own case-insensitive key, so two spellings the hub treats as one name share a file;
    # percent-encoded, since a name may contain any character (``/`` and ``..`` included).
    return base / f"{quote(name_key(name), safe='')}.json"


def load_identity(project: str, name: str) -> dict[str, str] | None:
    """The saved identity (``agent_id``, ``agent_key``), or None."""
    try:
        data = json.loads(identity_path(project, name).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def save_identity(project: str, name: str, agent_id: str, agent_key: str) -> None:
    """Save an identity atomically with mode 0600."""
    path = identity_path(project, name)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"name": name, "agent_id": agent_id, "agent_key": agent_key}, handle)
    os.replace(tmp, path)
