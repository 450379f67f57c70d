"""The examples run: each of the seeds' three loop patterns (examples/step_workflows) ends completed,
as its scripted agents, gate worker and operator drive it, in a hub of its own."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("pattern", ["a", "b", "c"])
async def test_each_loop_pattern_runs_to_completion(pattern: str, tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "examples" / "step_workflows" / "run.py"),
        pattern,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    lines = out.decode().splitlines()
    assert process.returncode == 0, err.decode()[-2000:]
    assert "ended completed" in lines
    events = [line.split()[1] for line in lines if line.startswith("  ")]
    assert events[0] == "run.created" and events[-1] == "run.ended"
    if pattern == "a":
        assert events.count("step.entered") == 5  # plan, implement, verify (failed), implement, verify
    if pattern == "b":
        assert events.count("assignment.created") == 6  # author and two critics, twice (a blocker sent it back)
    if pattern == "c":
        assert "step.approved" in events
