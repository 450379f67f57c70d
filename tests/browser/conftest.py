"""A real browser for the dashboard's tests: Debian's Chromium driven by Playwright (nothing downloaded
at run time: Playwright's own browsers are never installed), against a real hub with its HTTP port on.

``scripts/install-test-tools`` installs Chromium (apt) and axe-core (npm, ``tests/browser/package.json``).
Without them the tests skip, saying why, unless ``KXM_REQUIRE_TEST_TOOLS=1`` (CI), which fails them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc.server.settings import Settings
from tests.conftest import Hub

HERE = Path(__file__).parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM_ARGS = [
    # As root in a container: no sandbox. The rest keeps Chromium off the network it would otherwise
    # call at start (a closed network refuses it, many connections at a time).
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def chromium_path() -> str | None:
    """Debian's Chromium (``KXM_CHROMIUM`` names another)."""
    return os.environ.get("KXM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def _missing(what: str) -> None:
    message = f"{what}: run scripts/install-test-tools"
    if os.environ.get("KXM_REQUIRE_TEST_TOOLS") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def backend() -> str:
    """SQLite only: the page reads the same RPCs on either backend (their tests run on both)."""
    return ""


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The test hub with its HTTP port on (a free loopback port): the dashboard's listener."""
    return replace(hub_settings, http_port=0)


def dashboard_url(hub: Hub) -> str:
    address = hub.server.http_address
    assert address is not None
    return f"http://{address}/dashboard/"


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Any]:
    """A headless Chromium, closed after the test."""
    executable = chromium_path()
    if executable is None:
        _missing("Chromium is not installed")
    try:
        from playwright.async_api import async_playwright
    except ModuleNotFoundError:
        _missing("Playwright is not installed (pip install -e '.[dev]')")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            await launched.close()


async def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is (its context must bypass the
    page's Content-Security-Policy, which rightly refuses the injected script)."""
    if not AXE.exists():
        _missing("axe-core is not installed")
    await page.add_script_tag(path=str(AXE))
    found = await page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in found
        if v["impact"] in ("serious", "critical")
    ]
