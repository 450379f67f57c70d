"""A pytest plugin for testing agents against a real kxm hub (entry point ``pytest11``: ``kxm``).

Installed with the package, it gives two fixtures (docs/testing.md):

- ``kxm_hub``: a real hub in the test's process on ``127.0.0.1:0``, over an in-memory SQLite store
  (nothing on disk, nothing shared between tests), whose clock moves only when the test says so
  (``kxm_hub.advance(seconds)`` also fires the timers that came due: message TTLs, lease expiry,
  presence). ``kxm_hub.project(name)`` makes a project, ``kxm_hub.agent(name)`` registers an agent
  and returns its ``HubClient``, ``kxm_hub.admin()`` is an admin client.
- ``kxm_hub_process``: a hub in its own process over a temporary data directory, for crash tests
  (``kill()``, ``restart()``, ``stop()``; ``kxm_grpc.testing.HubProcess``).

The hub's own fixtures are async: the plugin needs pytest-asyncio (``pip install
'kxm-hub[testing]'``); without it the fixtures say so when used, and nothing else changes.
pytest-grpc is not used: it serves the synchronous grpc server only, not grpc.aio, and has had no
release since 2020.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Durability
from kxm_grpc.testing import ADMIN_TOKEN, HubProcess

try:
    import pytest_asyncio
except ImportError:  # pragma: no cover - exercised only without the testing extra
    pytest_asyncio = None  # type: ignore[assignment]


class TestHub:
    """A running in-process hub (the ``kxm_hub`` fixture): its address, clock and clients."""

    __test__ = False  # a helper, not a test class pytest should collect

    def __init__(self, server: HubServer, clock: ManualClock) -> None:
        self.server = server
        self.clock = clock
        self.address = server.address
        self.admin_token = ADMIN_TOKEN
        self._clients: list[HubClient] = []
        self._projects: dict[str, str] = {}

    def admin(self) -> HubClient:
        """A client holding the admin token (closed with the hub)."""
        return self._keep(HubClient(self.address, token=self.admin_token))

    async def project(self, name: str = "test") -> str:
        """The project token of ``name``, creating the project the first time."""
        if name not in self._projects:
            response = await self.admin().admin.create_project(name)
            self._projects[name] = str(response.project_token)
        return self._projects[name]

    async def agent(self, name: str, *, project: str = "test", **register: object) -> HubClient:
        """A client of a new agent ``name`` in ``project`` (made if need be), registered; closed with the hub."""
        client = self._keep(HubClient(self.address, token=await self.project(project)))
        await client.agents.register(name, **register)  # type: ignore[arg-type]
        return client

    async def advance(self, seconds: float) -> None:
        """Move the hub's clock on and fire every timer that came due (TTLs, lease expiry, presence)."""
        self.clock.advance(seconds)
        hub = self.server.hub
        assert hub is not None, "the hub is not running"
        await hub.coordination.timers.fire_due(hub.store, hub.now())

    def _keep(self, client: HubClient) -> HubClient:
        self._clients.append(client)
        return client

    async def aclose(self) -> None:
        """Close every client made here, then stop the hub."""
        for client in self._clients:
            with contextlib.suppress(Exception):
                await client.close()
        await self.server.stop(0)


def hub_settings(data_dir: Path) -> Settings:
    """The settings of ``kxm_hub``: loopback, port 0, in-memory SQLite, no rate limit to speak of."""
    return Settings(
        port=0,
        data_dir=data_dir,
        database="sqlite://:memory:",
        admin_token=ADMIN_TOKEN,
        durability=Durability.NORMAL,
        rate_limit=100_000_000,
        shutdown_grace=0.0,
    )


async def _running_hub(tmp_path: Path) -> AsyncIterator[TestHub]:
    clock = ManualClock()
    server = HubServer(hub_settings(tmp_path / "kxm-hub"), clock=clock)
    await server.start()
    hub = TestHub(server, clock)
    try:
        yield hub
    finally:
        await hub.aclose()


if pytest_asyncio is not None:

    @pytest_asyncio.fixture
    async def kxm_hub(tmp_path: Path) -> AsyncIterator[TestHub]:
        """A real hub in this process on 127.0.0.1:0: in-memory store, manual clock (see the module docstring)."""
        async for hub in _running_hub(tmp_path):
            yield hub

else:  # pragma: no cover - exercised only without the testing extra

    @pytest.fixture
    def kxm_hub() -> None:
        """Needs pytest-asyncio."""
        pytest.fail("the kxm_hub fixture needs pytest-asyncio: pip install 'kxm-hub[testing]'")


@pytest.fixture
def kxm_hub_process(tmp_path: Path) -> Iterator[HubProcess]:
    """A started hub in its own process over a temporary data directory; stopped after the test."""
    process = HubProcess(tmp_path / "kxm-hub-data")
    process.start()
    try:
        yield process
    finally:
        process.stop()
