"""Fixtures of the reliability battery: ``battery`` (the run's seed, tier, figures and invariants).

Every test here is marked ``reliability``; ``scripts/reliability`` runs them alone (``--long`` for
the long tier), and the default suite runs them at the PR tier.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.battery import Battery


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.reliability)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.when == "call":
        item.stash[_OUTCOME] = report.outcome
    elif report.failed and _OUTCOME not in item.stash:
        item.stash[_OUTCOME] = "error"
    return report


_OUTCOME = pytest.StashKey[str]()


@pytest.fixture
def battery(request: pytest.FixtureRequest) -> Iterator[Battery]:
    """This test's battery run. Its id is the ``battery`` marker's first argument
    (``@pytest.mark.battery("B1", "acked messages survive hub crashes")``), plus the test's
    parameter if it has one."""
    marker = request.node.get_closest_marker("battery")
    if marker is None:
        raise pytest.UsageError(f"{request.node.nodeid}: a battery test needs @pytest.mark.battery(id, title)")
    battery_id, title = marker.args
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.id:
        battery_id = f"{battery_id}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', callspec.id)}"
    work = Path(tempfile.mkdtemp(prefix=f"kxm-{battery_id}-"))
    run = Battery(battery_id, title, request.node.nodeid, work)
    yield run
    run.finish(request.node.stash.get(_OUTCOME, "error"))
    shutil.rmtree(work, ignore_errors=True)
