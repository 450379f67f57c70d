"""The pytest plugin users get with the package: its entry point, its fixtures, and the example of
docs/testing.md run as a user would run it (a pytest of its own, in a folder of its own)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from kxm_grpc.pytest_plugin import TestHub
from kxm_grpc.testing import HubProcess

DOCS = Path(__file__).resolve().parent.parent / "docs" / "testing.md"


def test_the_plugin_is_registered_for_pytest() -> None:
    # Execute
    plugins = {point.name: point.value for point in entry_points(group="pytest11")}
    # Assert
    assert plugins.get("kxm") == "kxm_grpc.pytest_plugin"


async def test_kxm_hub_gives_agents_of_a_project_and_an_admin(kxm_hub: TestHub) -> None:
    # Execute
    alice = await kxm_hub.agent("alice")
    listed = await kxm_hub.admin().admin.list_projects()
    names = [agent.name for agent in (await alice.agents.list()).agents]
    # Assert
    assert [project.name for project in listed.projects] == ["test"]
    assert names == ["alice"]


async def test_kxm_hub_advance_fires_what_came_due(kxm_hub: TestHub) -> None:
    # Prepare: a message with a 5 s time to live, undelivered
    sender = await kxm_hub.agent("sender")
    await kxm_hub.agent("idle")
    sent = await sender.messages.send("idle", "expires", ttl=5)
    # Execute
    await kxm_hub.advance(6)
    # Assert
    assert (await sender.messages.get(sent.message.id)).message.state == 5  # MESSAGE_STATE_EXPIRED


def test_kxm_hub_process_is_a_hub_of_its_own_that_can_be_killed(kxm_hub_process: HubProcess) -> None:
    # Execute
    first = kxm_hub_process.address
    kxm_hub_process.restart()
    # Assert
    assert kxm_hub_process.starts == 2 and first


def test_the_docs_example_passes_as_a_users_test_suite(tmp_path: Path) -> None:
    # Prepare: the example's code block, as a test file of a project of the user's
    (example,) = re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)
    (tmp_path / "test_agent.py").write_text(example)
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    # Execute
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # Assert
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
