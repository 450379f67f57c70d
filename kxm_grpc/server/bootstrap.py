"""Zero-configuration start on loopback: generate an admin token and a ``default`` project.

The tokens go to a 0600 credentials file under the data directory, which the CLI on the same
machine reads. The hub keeps only hashes. Binding beyond loopback without an explicit admin token
is refused by Settings.validate before this runs.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.projects import DEFAULT_PROJECT, Project
from kxm_grpc.domain.secrets import ADMIN_TOKEN_PREFIX, hash_secret, new_secret
from kxm_grpc.server.settings import Settings
from kxm_grpc.services import projects
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.bootstrap")

CREDENTIALS_SCHEMA = "kxm.credentials.v1"


@dataclass
class Bootstrap:
    """The admin token in force and what should be written to the credentials file."""

    admin_token: str | None
    file_data: dict[str, Any] | None


def read_credentials(path: Path) -> dict[str, Any] | None:
    """Return the credentials file's content, or None when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == CREDENTIALS_SCHEMA else None


def write_credentials(path: Path, data: dict[str, Any]) -> None:
    """Write the credentials file atomically with mode 0600."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    os.replace(tmp, path)


async def bootstrap(settings: Settings, store: Store, *, now: int) -> Bootstrap:
    """Decide the admin token and make sure a zero-configuration hub has a usable project."""
    if settings.admin_token:
        return Bootstrap(settings.admin_token, None)
    saved = read_credentials(settings.credentials_path) or {}
    admin_token = saved.get("admin_token") if isinstance(saved.get("admin_token"), str) else None
    generated = admin_token is None
    admin_token = admin_token or new_secret(ADMIN_TOKEN_PREFIX)
    tokens: dict[str, str] = dict(saved.get("projects") or {})
    admin = Caller(CredentialKind.ADMIN)  # the hub's start acts for the bootstrap admin (audited so)
    issued = await projects.ensure_default_project(store, admin, now=now)
    if issued is not None:
        tokens[issued.project.name] = issued.token
    tokens.setdefault(DEFAULT_PROJECT, "")
    for name, token in list(tokens.items()):
        token_hash = hash_secret(token)

        def lookup(tx: Tx, name: str = name, token_hash: str = token_hash) -> tuple[Project | None, Project | None]:
            return tx.projects.find_by_token_hash(token_hash), tx.projects.get(name)

        holder, project = await store.read(lookup)
        if token and holder is not None and holder.name == name:
            continue
        if project is None:
            del tokens[name]  # the project is gone: drop its stale token
            continue
        # The file lost or holds a stale token (rotated elsewhere); the database keeps only hashes,
        # so issue a token the local tools can use again.
        rotated = await projects.rotate_project_token(store, admin, name, now=now, bootstrap=True)
        tokens[name] = rotated.token
    if generated:
        log.info("admin_token_generated", path=str(settings.credentials_path))
    data = {"schema": CREDENTIALS_SCHEMA, "admin_token": admin_token, "projects": tokens}
    return Bootstrap(admin_token, data)
