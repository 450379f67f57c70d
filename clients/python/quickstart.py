"""Quickstart: two agents on one hub; bob answers alice's ping (docs/clients.md, "Python").

Run against a hub (``kxm hub serve``) with ``KXM_ADDR`` and ``KXM_TOKEN`` set, or with the
credentials file a hub on this machine wrote: ``.venv/bin/python clients/python/quickstart.py``.
Prints ``answered: pong: ping``.
"""

from __future__ import annotations

import asyncio
import os
import sys

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError


async def answer_requests(bob: HubClient) -> None:
    """Bob's loop: acknowledge each request, then reply to it."""
    async for event in bob.messages.subscribe():  # resumes by itself after a dropped stream
        if event.HasField("message"):
            message = event.message
            await bob.messages.ack([message.id])
            await bob.messages.reply(message.id, f"pong: {message.content}")


async def main() -> int:
    prefix = os.environ.get("KXM_NAME_PREFIX", "quickstart")
    async with HubClient() as alice, HubClient() as bob:  # address and token from KXM_* or the file
        try:
            await alice.agents.register(f"{prefix}-alice", purpose="asks")
            await bob.agents.register(f"{prefix}-bob", purpose="answers")
            answering = asyncio.create_task(answer_requests(bob))
            sent = await alice.messages.send(f"{prefix}-bob", "ping", wait=10)  # the hub waits for the reply
            print(f"answered: {sent.message.reply.content}")
            answering.cancel()
        except HubError as error:
            print(f"{error.status} {error.reason}: {error.message}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
