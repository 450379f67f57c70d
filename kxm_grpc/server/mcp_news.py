"""Announce once over MCP's HTTP endpoint: what is new in an agent's inbox since its last tool call.

Over stdio, ``kxm mcp`` follows the agent's inbox for as long as it runs. Over HTTP every request
stands alone, so the hub keeps, per agent, how far into the agent's inbox log it has told the model
(``InboxNews``): when a tool call of the agent is admitted, the events logged after that point
(requests, replies, cancellations, expiries; not presence) are noted, and handed out once, in that
call's result. The first call of an agent announces its requests still open, as the stdio adapter's
first stream does, and starts after the log's head.

Reading costs nothing while nothing was logged: the inbox topic's notifier version is compared
first (every event appended wakes it, ``services/inbox.py``), and the log is read only when it
moved, or every ``RECHECK_SECONDS`` (a wake-up another replica's commit never delivered).
The positions live in this process, for at most ``MAX_AGENTS`` agents (the least recent forgotten
first). A process that has no position for the agent (after a restart, past the limit, a replica
it has not called before) starts again as a first call: the requests still open are announced
(again, if another process told them), and replies, cancellations and expiries logged meanwhile
are not announced (the model reads them with ``kxm_inbox``/``kxm_get_message``); decision 293.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict

from kxm_grpc.domain.clock import Clock
from kxm_grpc.domain.messages import EventKind
from kxm_grpc.mcp.server import Announcements
from kxm_grpc.services.inbox import agent_topic
from kxm_grpc.services.messages import open_subscription, read_events, read_unacked
from kxm_grpc.store import Store

MAX_AGENTS = 10_000
"""Agents whose position is kept; the one that called least recently is forgotten first."""
RECHECK_SECONDS = 5.0
"""The log is read at least this often for an agent that calls, even without a wake-up."""
MAX_PAGES = 4
"""Pages of the log read per call at most (the rest is read by the next call)."""
REMEMBERED = 64
"""Events remembered per agent to drop a second note of one (the log is read once, in order)."""


class _Position:
    """How far into one agent's inbox log the model was told, and what it was not told yet."""

    __slots__ = ("announcements", "cursor", "lock", "read_at", "version")

    def __init__(self) -> None:
        self.announcements = Announcements(remembered=REMEMBERED)
        self.cursor: int | None = None  # None: not read yet
        self.version = -1
        self.read_at = 0.0
        self.lock = asyncio.Lock()


class InboxNews:
    """Per agent, the inbox events not yet announced over MCP's HTTP endpoint (see the module docstring)."""

    def __init__(self, store: Store, clock: Clock, *, max_agents: int = MAX_AGENTS) -> None:
        self._store = store
        self._clock = clock
        self._max_agents = max_agents
        self._positions: OrderedDict[str, _Position] = OrderedDict()

    async def take(self, agent_id: str) -> str | None:
        """The announcement of what the agent's inbox logged since its last call (None: nothing).

        Raises:
            HubError: the store could not be read (the call's own answer is then not given either).
        """
        position = self._positions.get(agent_id)
        if position is None:
            position = self._positions[agent_id] = _Position()
            if len(self._positions) > self._max_agents:
                self._positions.popitem(last=False)
        else:
            self._positions.move_to_end(agent_id)
        async with position.lock:
            if position.cursor is None:
                await self._start(agent_id, position)
            else:
                await self._read(agent_id, position)
        return position.announcements.take()

    async def _start(self, agent_id: str, position: _Position) -> None:
        """Note the agent's requests still open, and start after the log's head."""
        version = self._store.notifier.version(agent_topic(agent_id))
        read_at = time.monotonic()
        head = (await open_subscription(self._store, agent_id, 0)).head_seq
        waiting, _, _ = await read_unacked(self._store, agent_id, 0, head, now=self._clock.now())
        for message in waiting:
            position.announcements.note(EventKind.MESSAGE.value, message)
        position.cursor, position.version, position.read_at = head, version, read_at

    async def _read(self, agent_id: str, position: _Position) -> None:
        """Note the events logged after the cursor, when the log may have moved."""
        assert position.cursor is not None
        version = self._store.notifier.version(agent_topic(agent_id))  # read before the log: no wake-up missed
        read_at = time.monotonic()
        if version == position.version and read_at - position.read_at < RECHECK_SECONDS:
            return
        for _ in range(MAX_PAGES):
            page = await read_events(self._store, agent_id, position.cursor, presence_only=False, now=self._clock.now())
            for event in page.events:
                if event.kind is not EventKind.PRESENCE and event.message is not None:
                    position.announcements.note(event.kind.value, event.message)
            position.cursor = page.cursor
            if not page.full:
                # Only once read: a read that failed is tried again by the next call.
                position.version, position.read_at = version, read_at
                return
        position.version = -1  # more is logged: read on at the next call
