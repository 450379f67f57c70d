"""The hub process's own lines: its version when it starts, ``hub_stopped`` last, and the standard
library's loggers in the same JSON shape (a real hub subprocess, its real stderr)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kxm_grpc.testing import HubProcess
from kxm_grpc.version import version


def _events(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def test_a_hub_logs_its_version_on_start_and_hub_stopped_as_its_last_line(tmp_path: Path) -> None:
    # Prepare
    hub = HubProcess(tmp_path / "data")
    hub.start()
    # Execute
    exit_code = hub.stop()
    # Assert
    events = _events(hub.log_path)
    started = next(event for event in events if event["event"] == "hub_started")
    assert exit_code == 0
    assert started["version"] == version() != "0+unknown"
    assert events[-1]["event"] == "hub_stopped"
    assert isinstance(events[-1]["seconds"], float)


def test_standard_library_log_records_come_out_as_the_hubs_json_lines() -> None:
    # Prepare: what asyncio writes when a task's exception is never retrieved, through the hub's configuration
    program = (
        "import logging\n"
        "from kxm_grpc.server.log import configure_logging\n"
        "configure_logging('json', 'warning')\n"
        "logging.getLogger('asyncio').error('Task exception was never retrieved')\n"
        "logging.getLogger('grpc').info('below the level')\n"
    )
    # Execute
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True)
    # Assert
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    assert lines == [
        {
            "event": "Task exception was never retrieved",
            "logger": "asyncio",
            "level": "error",
            "timestamp": lines[0]["timestamp"],
        }
    ]


def test_kxm_version_prints_the_installed_version() -> None:
    # Execute
    result = subprocess.run(
        [sys.executable, "-m", "kxm_grpc.cli", "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    # Assert
    assert (result.returncode, result.stdout.strip()) == (0, f"kxm {version()}")
