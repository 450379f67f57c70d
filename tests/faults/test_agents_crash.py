"""Agents survive a kill -9 of the hub; presence does not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client import HubClient
from tests.harness import ADMIN_TOKEN, HubProcess

pytestmark = pytest.mark.slow


@pytest.fixture
def hub_process(tmp_path: Path) -> Iterator[HubProcess]:
    """A hub subprocess on a temp data dir, killed after the test."""
    process = HubProcess(tmp_path / "data")
    process.start()
    yield process
    process.kill()


async def test_registered_agents_survive_kill_9_and_come_back_offline(hub_process: HubProcess) -> None:
    """After kill -9 and restart, agents keep their ids, read offline, and resume with their last key."""
    admin = HubClient(hub_process.address, token=ADMIN_TOKEN)
    token = (await admin.create_project("alpha")).project_token
    await admin.close()
    alice = HubClient(hub_process.address, token=token)
    registered = await alice.register_agent("alice")
    await alice.close()

    address = hub_process.restart()
    observer = HubClient(address, token=token)
    listed = (await observer.list_agents(include_offline=True)).agents
    resumed = await observer.register_agent("alice", previous_key=registered.agent_key)

    assert [(a.id, a.presence) for a in listed] == [(registered.agent.id, types_pb2.PRESENCE_OFFLINE)]
    assert resumed.resumed is True
    assert resumed.agent.id == registered.agent.id
    await observer.close()


def test_graceful_stop_exits_zero(hub_process: HubProcess) -> None:
    """SIGTERM drains and exits with status 0."""
    assert hub_process.stop() == 0
