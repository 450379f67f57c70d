"""The hub under test, as its own process: ``kxm_grpc.testing.HubProcess`` with the bench's environment."""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import REPO, child_env
from kxm_grpc.testing import HubProcess as _HubProcess

ADMIN_TOKEN = "bench-admin-token-0123456789"


class HubProcess(_HubProcess):
    """One hub on 127.0.0.1:0 over a fresh data directory, started from the repository."""

    def __init__(self, data_dir: Path, *, durability: str = "full", extra_args: tuple[str, ...] = ()) -> None:
        super().__init__(
            data_dir, durability=durability, extra_args=extra_args, env=child_env(), cwd=REPO, admin_token=ADMIN_TOKEN
        )


def started_field(log_path: Path, field: str) -> str:
    """A field of the hub's ``hub_started`` JSON log line (``http_address``, ...)."""
    for line in log_path.read_text().splitlines():
        if '"hub_started"' in line:
            return str(json.loads(line)[field])
    raise RuntimeError(f"no hub_started line in {log_path}")
