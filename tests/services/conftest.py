"""Fixtures shared by the service-layer tests (services called directly, no gRPC)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from kxm_grpc.store import Durability
from kxm_grpc.store.sqlite import SqliteStore


@pytest_asyncio.fixture
async def store() -> AsyncIterator[SqliteStore]:
    """An open in-memory store."""
    opened = SqliteStore(":memory:", durability=Durability.FULL)
    await opened.start()
    yield opened
    await opened.close()
