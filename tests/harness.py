"""What several test modules share: the subprocess hub (``kxm_grpc.testing``) and a polled wait."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable

from kxm_grpc.testing import ADMIN_TOKEN, HubProcess

__all__ = ["ADMIN_TOKEN", "HubProcess", "eventually"]


async def eventually(condition: Callable[[], bool | Awaitable[bool]], *, within: float = 10.0) -> None:
    """Poll ``condition()`` (plain or async) until it holds; fail the test after ``within`` seconds.

    For state with no event to wait on (another process's, or the database's).
    """
    deadline = time.monotonic() + within
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        assert time.monotonic() < deadline, f"condition not met within {within} s"
        await asyncio.sleep(0.02)
