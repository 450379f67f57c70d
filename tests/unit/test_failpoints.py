"""Failpoints: parsed from KXM_FAILPOINTS only, inert unless armed, bounded by count and probability."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kxm_grpc import failpoints


@pytest.fixture(autouse=True)
def disarmed() -> Iterator[None]:
    yield
    failpoints.arm("")


def test_terms_parse_in_gofail_style() -> None:
    points = failpoints.parse(
        "before_commit=5%kill, stream_send=sleep(250),after_ack=2*kill,after_commit_before_ack=off"
    )

    assert points["before_commit"].probability == pytest.approx(0.05)
    assert points["before_commit"].action == "kill"
    assert points["stream_send"].sleep_seconds == pytest.approx(0.25)
    assert points["after_ack"].remaining == 2
    assert points["after_commit_before_ack"].action == "off"


@pytest.mark.parametrize(
    "spec",
    [
        "no_such_point=kill",
        "before_commit=explode",
        "before_commit=sleep",
        "before_commit=kill(3)",
        "before_commit=0%kill",
    ],
)
def test_a_bad_spec_is_refused(spec: str) -> None:
    with pytest.raises(failpoints.FailpointError):
        failpoints.parse(spec)


def test_unarmed_points_do_nothing() -> None:
    failpoints.arm("")

    assert not failpoints.armed()
    failpoints.hit("before_commit")  # would kill this test process if it fired


def test_a_count_bounds_the_fires_and_sleep_stalls() -> None:
    failpoints.arm("before_commit=2*sleep(20)")
    started = time.monotonic()
    for _ in range(5):
        failpoints.hit("before_commit")

    assert time.monotonic() - started >= 0.04
    assert failpoints._armed["before_commit"].fired == 2


def test_a_seeded_probability_fires_about_that_often() -> None:
    failpoints.arm("stream_send=25%sleep(0)", seed=7)
    for _ in range(2000):
        failpoints.hit("stream_send")

    assert 400 <= failpoints._armed["stream_send"].fired <= 600


async def test_async_points_stall_without_blocking_the_loop() -> None:
    failpoints.arm("stream_send=sleep(30)")
    started = time.monotonic()

    await failpoints.hit_async("stream_send")

    assert time.monotonic() - started >= 0.03


def test_the_hub_refuses_to_start_on_a_bad_spec(tmp_path: object) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kxm_grpc.cli", "hub", "serve", "--port", "0", "--data-dir", str(tmp_path)],
        env={**os.environ, failpoints.ENV: "before_comit=kill"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2
    assert "unknown failpoint 'before_comit'" in done.stderr


def test_only_the_hub_start_arms_failpoints() -> None:
    """Nothing a request reaches can arm them: the one caller of ``arm*`` is ``kxm hub serve``'s start."""
    root = Path(failpoints.__file__).parent
    callers = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.name != "failpoints.py" and re.search(r"failpoints\.arm(_from_environment)?\(", path.read_text())
    )

    assert callers == ["cli/hub.py"]
