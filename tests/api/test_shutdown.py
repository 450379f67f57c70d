"""A hub's stop always finishes: a step that hangs is logged and passed, and the database closed."""

from __future__ import annotations

import asyncio

import pytest
import structlog

from kxm_grpc.server import app
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings


async def test_a_stop_step_that_hangs_is_logged_and_the_store_is_still_closed(
    hub_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "STOP_STEP_SECONDS", 0.3)
    server = HubServer(hub_settings)
    await server.start()
    assert server.hub is not None
    hung = asyncio.Event()

    async def hang() -> None:
        hung.set()
        await asyncio.Event().wait()  # never set: the step must be cut, not waited for

    monkeypatch.setattr(server.hub.coordination, "stop", hang)

    with structlog.testing.capture_logs() as logs:
        await asyncio.wait_for(server.stop(0), 10)
    overran = [entry for entry in logs if entry["event"] == "hub_stop_step_overran"]
    # The database was closed after the cut step: another hub opens it at once.
    again = HubServer(hub_settings)
    await again.start()
    await again.stop(0)

    assert hung.is_set()
    assert [entry["step"] for entry in overran] == ["coordination"]
    assert any("test_shutdown.py" in pending for pending in overran[0]["pending"])
