"""SyncHubClient: the HubClient for code without an event loop.

It runs a private event loop on a background thread (grpc.aio objects belong to their loop) and
proxies every HubClient method; async iterators become plain iterators.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

from kxm_grpc.client.hub import HubClient

T = TypeVar("T")


class SyncHubClient:
    """A blocking HubClient; same constructor arguments, same methods."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="kxm-client-loop", daemon=True)
        self._thread.start()

        async def create() -> HubClient:
            return HubClient(*args, **kwargs)

        self._client = self._run(create())

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    @property
    def client(self) -> HubClient:
        """The async client underneath."""
        return self._client

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if inspect.iscoroutinefunction(attr):

            def call(*args: Any, **kwargs: Any) -> Any:
                return self._run(attr(*args, **kwargs))

            return call
        if inspect.isasyncgenfunction(attr):

            def iterate(*args: Any, **kwargs: Any) -> Iterator[Any]:
                return self._iterate(attr(*args, **kwargs))

            return iterate
        return attr

    def _iterate(self, agen: AsyncIterator[T]) -> Iterator[T]:
        while True:
            try:
                yield self._run(_next(agen))
            except StopAsyncIteration:
                return

    def close(self) -> None:
        """Close the channel and stop the loop thread."""
        self._run(self._client.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> SyncHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _next(agen: AsyncIterator[T]) -> T:
    return await agen.__anext__()
