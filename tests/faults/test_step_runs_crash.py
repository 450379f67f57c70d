"""Step runs across a kill -9 of the hub: an assignee that never comes back is replaced."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as env
from kxm_grpc.client import HubClient
from tests.harness import ADMIN_TOKEN, HubProcess

pytestmark = pytest.mark.slow

DOCUMENT = {
    "schema": "kxm.workflow.v1",
    "id": "handoff",
    "project": "alpha",
    "steps": [
        {
            "id": "work",
            "kind": "agent",
            "maxAttempts": 2,
            "assignments": {"allowedAgents": ["first-worker", "second-worker"]},
            "on": {
                "passed": {"target": "$terminal", "terminalStatus": "completed"},
                "failed": {"target": "$terminal", "terminalStatus": "failed"},
            },
        }
    ],
}


@pytest.fixture
def hub_process(tmp_path: Path) -> Iterator[HubProcess]:
    """A hub whose agents go stale after a second without a call."""
    process = HubProcess(tmp_path / "data", extra_args=("--stale-after", "1"))
    process.start()
    yield process
    process.kill()


async def test_an_assignee_that_never_returns_after_a_restart_is_superseded(hub_process: HubProcess) -> None:
    """A restart marks every agent offline without their reactions: an assignee that never calls
    again must still lose its assignment one stale period after the start, as a live hub's sweep
    would take it, and the place go to another eligible agent."""
    async with HubClient(hub_process.address, token=ADMIN_TOKEN) as bootstrap:
        token = (await bootstrap.admin.create_project("alpha")).project_token
    admin = HubClient(hub_process.address, token=ADMIN_TOKEN, project="alpha")
    await admin.workflows.register_definition(DOCUMENT)
    first = HubClient(hub_process.address, token=token)
    second = HubClient(hub_process.address, token=token)
    await first.agents.register("first-worker")
    await second.agents.register("second-worker")
    run = (await admin.workflows.start_run("handoff", delivery_id="d1")).run
    held = (await first.workflows.next_assignment()).assignment
    assert (held.run_id, held.agent_name) == (run.id, "first-worker")
    await first.close()  # the first worker never calls again

    address = hub_process.restart()
    await second.close()
    second = HubClient(address, token=token, agent_id=second.agent_id, agent_key=second.agent_key)
    reassigned = None
    deadline = time.monotonic() + 30
    while reassigned is None and time.monotonic() < deadline:
        response = await second.workflows.next_assignment(timeout=5)  # keeps the second worker online
        reassigned = response.assignment if response.HasField("assignment") else None
        await asyncio.sleep(0.1)
    assert reassigned is not None, "the first worker's assignment was never superseded after the restart"
    assert (reassigned.run_id, reassigned.attempt) == (run.id, 2)
    done = await second.workflows.complete_assignment(reassigned.assignment_id, env.WorkerResult(outcome="passed"))
    assert done.run_status == 3  # WORKFLOW_RUN_STATUS_COMPLETED
    await second.close()
