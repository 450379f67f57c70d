"""Shared fixtures: a real grpc.aio hub on 127.0.0.1:0 over a real SQLite file, and clients."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.log import configure_logging
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Durability

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
configure_logging("json", "warning", cache=False)

pytest_plugins = ["tests.postgres"]  # postgres_server, postgres_database

ADMIN_TOKEN = "test-admin-token-0123456789"


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A self-signed CA (``ca.pem``) with a server certificate for 127.0.0.1 and a client certificate."""
    d = tmp_path_factory.mktemp("pki")
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=kxm test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        cwd=d,
    )
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        _openssl(
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            f"/CN={name}",
            "-keyout",
            f"{name}.key",
            "-out",
            f"{name}.csr",
            cwd=d,
        )
        (d / f"{name}.ext").write_text(ext + "\n")
        _openssl(
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            f"{name}.ext",
            "-out",
            f"{name}.pem",
            cwd=d,
        )
    return d


@dataclass
class Hub:
    """A running test hub and what tests need to reach it."""

    server: HubServer
    address: str
    data_dir: Path
    database: str
    """The URL of the hub's database (``kxm_grpc.store.tables.raw_connection`` opens it)."""

    def admin(self, **kwargs: object) -> HubClient:
        """A client holding the admin token."""
        return HubClient(self.address, token=ADMIN_TOKEN, **kwargs)  # type: ignore[arg-type]


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
"""Every test of a hub runs once on each backend: a SQLite file, and a scratch PostgreSQL database."""


sqlite_only = pytest.mark.parametrize("backend", [""], ids=["sqlite"])
"""For a test of what only the SQLite adapter has (its file, its disk checks): one run, on SQLite."""


@pytest.fixture(autouse=True)
def _user_profile(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch per-user profile folder (``XDG_CONFIG_HOME``) for every test and the ``kxm`` it runs,
    so no test reads or writes the real ``~/.config/kxm`` (credentials, saved agents)."""
    folder = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    return folder


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The database URL of the backend under test ("" for the default: DATA_DIR/hub.db on SQLite)."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_database"))
    return ""


@pytest.fixture
def hub_settings(tmp_path: Path, backend: str) -> Settings:
    """Settings for a test hub: ephemeral port, the backend under test, generous rate limit."""
    return Settings(
        port=0,
        data_dir=tmp_path / "kxm",
        database=backend,
        admin_token=ADMIN_TOKEN,
        durability=Durability.NORMAL,
        rate_limit=100_000,
        stale_after=30.0,
        shutdown_grace=0.5,
    )


@pytest_asyncio.fixture
async def hub(hub_settings: Settings) -> AsyncIterator[Hub]:
    """A real hub on 127.0.0.1:0, stopped after the test."""
    server = HubServer(hub_settings)
    await server.start()
    try:
        yield Hub(server, server.address, hub_settings.data_dir, hub_settings.database_path)
    finally:
        await server.stop(0.2)


@pytest_asyncio.fixture
async def clocked_hub(hub_settings: Settings) -> AsyncIterator[tuple[Hub, ManualClock]]:
    """A real hub whose clock only moves when the test says so."""
    clock = ManualClock()
    server = HubServer(hub_settings, clock=clock)
    await server.start()
    try:
        yield Hub(server, server.address, hub_settings.data_dir, hub_settings.database_path), clock
    finally:
        await server.stop(0.2)


@dataclass
class Project:
    """A project created for a test, with its token."""

    name: str
    token: str


ProjectFactory = Callable[[str], Awaitable[Project]]
AgentFactory = Callable[..., Awaitable[HubClient]]


@pytest_asyncio.fixture
async def make_project(hub: Hub) -> AsyncIterator[ProjectFactory]:
    """Create projects through the AdminService."""
    admin = hub.admin()

    async def make(name: str) -> Project:
        response = await admin.admin.create_project(name)
        return Project(name, response.project_token)

    yield make
    await admin.close()


@pytest_asyncio.fixture
async def project(make_project: ProjectFactory) -> Project:
    """One project named ``alpha``."""
    return await make_project("alpha")


@pytest_asyncio.fixture
async def make_agent(hub: Hub, project: Project) -> AsyncIterator[AgentFactory]:
    """Register agents (in ``alpha`` unless another project is given); each is a HubClient acting as it."""
    clients: list[HubClient] = []

    async def make(name: str, *, in_project: Project | None = None, **kwargs: str) -> HubClient:
        client = HubClient(hub.address, token=(in_project or project).token)
        clients.append(client)
        await client.agents.register(name, **kwargs)
        return client

    yield make
    for client in clients:
        await client.close()
