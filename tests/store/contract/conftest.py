"""The store contract suite's fixtures: every test here runs once per store factory.

In the manner of Flower's ``StateTest`` (``state_factory``), each test takes ``store`` (a started
store from the factory under test) or ``store_factory`` itself (to reopen the same database, for
what must survive a restart). A factory provides a fresh database for one test, as the URL that
opens it (``kxm_grpc/store/url.py``), and says whether it persists across a restart. Adding an
adapter to the suite is adding one entry to ``FACTORIES``: a context manager that creates a
scratch database and drops it afterwards, or the name of a fixture that does (PostgreSQL).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Delivery, Message, MessageState
from kxm_grpc.store import Durability, Store
from kxm_grpc.store.url import open_store

Database = Callable[[Path], contextlib.AbstractAsyncContextManager[str]]
"""A fresh database for one test (given the test's temporary directory), as the URL that opens it."""


@dataclass(frozen=True)
class Factory:
    """One adapter's databases for the suite: how to make one, whether it persists, and test marks.

    ``database`` makes a fresh database, or ``fixture`` names the pytest fixture that yields one's
    URL (PostgreSQL's ``postgres_database``, ``tests/postgres.py``: a scratch database per test).
    """

    database: Database | None
    persistent: bool
    marks: tuple[pytest.MarkDecorator, ...] = ()
    fixture: str | None = None


@contextlib.asynccontextmanager
async def _sqlite_file(directory: Path) -> AsyncIterator[str]:
    yield f"sqlite:///{directory / 'hub.db'}"  # four slashes: the temporary directory is absolute


@contextlib.asynccontextmanager
async def _sqlite_memory(directory: Path) -> AsyncIterator[str]:
    yield "sqlite://:memory:"


FACTORIES: dict[str, Factory] = {
    "sqlite-file": Factory(_sqlite_file, persistent=True),
    "sqlite-memory": Factory(_sqlite_memory, persistent=False),
    "postgres": Factory(None, persistent=True, marks=(pytest.mark.postgres,), fixture="postgres_database"),
}


@dataclass
class StoreFactory:
    """Opens stores on one database of the adapter under test; closes them after the test."""

    name: str
    url: str
    persistent: bool
    _open: list[Store] = field(default_factory=list)

    async def open(self) -> Store:
        """A started store on this factory's database (for a persistent one, the same database each time)."""
        store = open_store(self.url, durability=Durability.FULL)
        await store.start()
        self._open.append(store)
        return store

    async def reopen(self, store: Store) -> Store:
        """Close ``store`` and open the same database again: a restart. Skips the test where nothing persists."""
        if not self.persistent:
            pytest.skip(f"{self.name} keeps nothing across a restart")
        await self.close(store)
        return await self.open()

    async def close(self, store: Store) -> None:
        """Close a store this factory opened."""
        self._open.remove(store)
        await store.close()

    async def close_all(self) -> None:
        """Close every store still open."""
        for store in list(self._open):
            with contextlib.suppress(Exception):
                await self.close(store)


@pytest_asyncio.fixture(params=[pytest.param(name, marks=f.marks) for name, f in sorted(FACTORIES.items())])
async def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreFactory]:
    """The factory under test (each test runs once per entry of ``FACTORIES``)."""
    factory = FACTORIES[request.param]
    if factory.fixture is not None:
        made = StoreFactory(request.param, str(request.getfixturevalue(factory.fixture)), factory.persistent)
        try:
            yield made
        finally:
            await made.close_all()
        return
    assert factory.database is not None
    async with factory.database(tmp_path) as url:
        made = StoreFactory(request.param, url, factory.persistent)
        try:
            yield made
        finally:
            await made.close_all()


@pytest_asyncio.fixture
async def store(store_factory: StoreFactory) -> Store:
    """A started store from the factory under test."""
    return await store_factory.open()


def agent(agent_id: str, name: str, *, project: str = "p", online: bool = True, seen: int = 10) -> Agent:
    """An agent of ``project`` (connected at 1)."""
    return Agent(
        id=agent_id,
        project=project,
        name=name,
        purpose="x",
        model="",
        host="",
        connect_time=1,
        last_seen_time=seen,
        online=online,
    )


def message(message_id: str, *, to: str = "agt_b", seq: int = 1, expire_time: int = 1_000, **fields: Any) -> Message:
    """A queued message from ``agt_a`` to ``to`` (project ``p``); ``fields`` override the rest."""
    queued = Message(
        id=message_id,
        project="p",
        from_agent_id="agt_a",
        from_agent_name="alice",
        to_agent_id=to,
        to_agent_name="bob",
        content="hello",
        delivery=Delivery.FOLLOW_UP,
        hops=0,
        max_hops=5,
        correlation_id="",
        reply_to="",
        idempotency_key="",
        seq=seq,
        workflow_context=None,
        create_time=1,
        expire_time=expire_time,
        state=MessageState.QUEUED,
    )
    return replace(queued, **fields)
