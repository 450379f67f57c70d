"""A client reconnects to a hub that comes back within 5 s, however long the hub was gone.

gRPC's own reconnect backoff grows 1.6-fold per failed connection up to 120 s, so a client of a
hub restarted a few times in a row kept failing fast long after the hub was back (the reliability
battery's B4 saw retries give up). ``CHANNEL_OPTIONS`` caps it at 5 s. The listener here accepts
each connection and closes it at once, as a port with no hub behind it yet would, and notes when
each attempt came.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError

pytestmark = pytest.mark.slow

JITTER = 0.2
"""gRPC's backoff jitter: each wait is its nominal value ±20 %."""


async def test_reconnect_attempts_are_at_most_5_s_apart_after_many_failures() -> None:
    # Prepare: a port that refuses every handshake by closing the connection
    attempts: list[float] = []

    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        attempts.append(time.monotonic())
        writer.transport.abort()

    server = await asyncio.start_server(refuse, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = HubClient(f"127.0.0.1:{port}", token="t" * 32, timeout=0.5)
    try:
        # Execute: keep calling (each fails fast) until six attempts are seen, 30 s at most. Without
        # the cap the sixth wait is 10.5 s ±20 % (after 1, 1.6, 2.6, 4.1 and 6.6 s).
        deadline = time.monotonic() + 30
        while len(attempts) < 7 and time.monotonic() < deadline:
            with contextlib.suppress(HubError):
                await client.agents.list()
            await asyncio.sleep(0.1)
    finally:
        await client.close()
        server.close()
        await server.wait_closed()
    # Assert
    gaps = [later - earlier for earlier, later in itertools.pairwise(attempts)]
    assert len(gaps) >= 6, f"only {len(attempts)} connection attempts in 30 s: {gaps}"
    assert max(gaps) <= 5.0 * (1 + JITTER) + 0.5, gaps
