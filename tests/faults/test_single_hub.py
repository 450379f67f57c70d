"""One hub per SQLite database: a second `kxm hub serve` on the same data directory refuses to start."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.errors import Reason, ResourceExhausted
from kxm_grpc.server import app
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from tests.harness import ADMIN_TOKEN, HubProcess

pytestmark = pytest.mark.slow


def serve_again(data_dir: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run a second ``kxm hub serve`` on ``data_dir`` to completion; return it and its duration."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "kxm_grpc.cli", "hub", "serve", "--port", "0", "--data-dir", str(data_dir),
         "--admin-token", ADMIN_TOKEN, "--log-format", "json"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
    )  # fmt: skip
    return done, time.monotonic() - started


async def test_a_second_hub_on_the_same_directory_refuses_and_the_first_keeps_serving(tmp_path: Path) -> None:
    """The second hub exits non-zero at once, naming the database and the first hub's pid, without
    a traceback and without touching the database (the first hub's agents stay online); after a
    kill -9 of the first, a new hub starts on the directory (the kernel dropped the lock)."""
    first = HubProcess(tmp_path / "data")
    first.start()
    holder = first.pid
    try:
        admin = HubClient(first.address, token=ADMIN_TOKEN)
        token = (await admin.create_project("alpha")).project_token
        await admin.close()
        alice = HubClient(first.address, token=token)
        registered = await alice.register_agent("alice")

        second, seconds = serve_again(first.data_dir)
        listed = (await alice.list_agents()).agents
        await alice.heartbeat()
        await alice.close()

        first.kill()
        address = first.start()
        observer = HubClient(address, token=token)
        after_restart = (await observer.list_agents(include_offline=True)).agents
        await observer.close()
    finally:
        first.kill()

    database = first.data_dir / "hub.db"
    assert second.returncode != 0
    assert seconds < 30
    assert second.stderr.strip().splitlines() == [
        f"kxm hub: database {database} is in use by another hub (pid {holder}); "
        "stop it first or choose another --data-dir"
    ]
    assert "Traceback" not in second.stdout + second.stderr
    assert [(a.id, a.presence) for a in listed] == [(registered.agent.id, types_pb2.PRESENCE_ONLINE)]
    assert [(a.id, a.presence) for a in after_restart] == [(registered.agent.id, types_pb2.PRESENCE_OFFLINE)]


async def test_a_hub_whose_start_fails_releases_the_database(hub_settings: Settings) -> None:
    """A start that fails after opening the store (here: its gRPC port is taken) closes it again, so the
    database lock is free for the next hub in the same process."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        failing = HubServer(replace(hub_settings, port=port))
        with pytest.raises(RuntimeError):
            await failing.start()

    second = HubServer(hub_settings)
    await second.start()
    await second.stop(0)


async def test_a_stop_whose_last_write_fails_still_releases_the_database(
    hub_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the final lease mark cannot be written (a full disk), stop still closes the store and
    finishes, so ``serve()`` returns and the next hub can take the database."""
    server = HubServer(hub_settings)
    await server.start()

    async def refused(*_: object, **__: object) -> bool:
        raise ResourceExhausted("the database is full; writes are refused", reason=Reason.STORAGE_FULL)

    monkeypatch.setattr(app.leases, "keep_alive", refused)
    await server.stop(0)
    await asyncio.wait_for(server.wait_stopped(), 5)
    monkeypatch.undo()

    second = HubServer(hub_settings)
    await second.start()
    await second.stop(0)
