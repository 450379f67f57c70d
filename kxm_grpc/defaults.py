"""Where a hub listens and keeps its state unless told otherwise: one source for the hub's settings
(``kxm_grpc.server.settings``) and the client's resolution (``kxm_grpc.client.config``).

Standard library only, so the client can share these without importing the server.
"""

from __future__ import annotations

import os
from pathlib import Path

HOST = "127.0.0.1"
"""The hub's bind address (``--host``, ``KXM_HOST``), and the host a client dials by default."""

PORT = 7331
"""The hub's gRPC port (``--port``, ``KXM_PORT``)."""

ADDRESS = f"{HOST}:{PORT}"
"""What a client dials when neither an argument, ``KXM_ADDR`` nor the credentials file says."""

DATA_DIR = ".kxm"
"""The state directory, relative to the working directory (``--data-dir``, ``KXM_DATA_DIR``)."""

DATA_DIR_ENV = "KXM_DATA_DIR"
"""The variable both the hub and its clients read the state directory from."""


def data_dir() -> Path:
    """The state directory as a client on this machine finds it: ``$KXM_DATA_DIR``, else ``.kxm``."""
    return Path(os.environ.get(DATA_DIR_ENV) or DATA_DIR)  # empty is unset


USER_DIR_NAME = "kxm"
"""The per-user profile's folder under ``$XDG_CONFIG_HOME`` (``~/.config``)."""


def user_config_dir() -> Path:
    """The per-user profile folder: ``${XDG_CONFIG_HOME:-~/.config}/kxm`` (credentials, saved agents)."""
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(base) if base else Path.home() / ".config") / USER_DIR_NAME
