"""Open Subscribe streams: the per-agent cap, each stream's lag, and the end of streams at shutdown.

A stream reads its agent's durable log (or, caught up, takes the one new event its wake-up
carries) and writes what it read; the log is its queue, so a subscriber costs the hub one batch of
events plus what gRPC flow control holds. A stream's lag is
the number of events appended to the log that it has not written yet (events read but unsent,
plus events appended since its last read, counted by the notifier's one wake per event). Past
``settings.subscriber_queue`` the consumer is too slow: the stream ends with RESOURCE_EXHAUSTED
(SUBSCRIBER_TOO_SLOW) and the client resumes from its last seq, losing nothing. A stream's own
loop checks its lag after every write; a monitor catches streams whose write is stuck because the
consumer stopped reading, and wakes every stream when the hub shuts down. Lag is counted in
events appended since the stream last read its log, so catching up on a backlog is never "slow".

An open stream is its agent listening: the monitor renews the presence of every agent with an
open stream, at most once per quarter of the presence window, so an agent that only subscribes is
never retired by the stale sweep (``services.agents.touch_streaming_agents``).

``Subscribers`` is the hub's stream registry (``Coordination.streams``, ``server/coordination.py``)
and knows no transport: a surface opening a stream hands it the way to end that stream with an
error (gRPC: ``context.abort_with_status``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog
from prometheus_client import Gauge

from kxm_grpc.domain.agents import renewal_due
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.errors import HubError, Reason, ResourceExhausted
from kxm_grpc.services import agents as agent_service
from kxm_grpc.services.inbox import agent_topic
from kxm_grpc.services.messages import Subscription, stream_limit_reached

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.streams")

Abort = Callable[[HubError], Awaitable[Any]]
"""How the surface that opened a stream ends it with an error (gRPC: ``context.abort_with_status``)."""

# How often the monitor looks for streams stuck writing to a consumer that stopped reading.
MONITOR_INTERVAL = 0.5

OPEN_STREAMS = Gauge("kxm_open_streams", "Subscribe streams open in this hub process (admitted and not yet ended).")
"""Rises when a stream is registered and falls when its handler ends (closed, cancelled, cut or refused)."""


@dataclass(eq=False)
class Stream:
    """One open Subscribe stream."""

    agent_id: str
    topic: str
    abort: Abort
    """Ends the stream with an error, in its surface's terms."""
    key_hash: str = ""
    """The hash of the agent key the stream was opened with."""
    version: int = 0
    """The notifier version of the topic when the log was last read."""
    sent_seq: int = 0
    """The seq of the last event written."""
    writing: bool = False
    """A write is in progress (it stays so while the consumer does not read)."""
    cut: asyncio.Future[Any] | None = None
    """The monitor's abort of this stream; the handler awaits it (re-raising grpc's AbortError) to end."""
    id: str = field(default_factory=lambda: new_id("stm"))
    """The stream's name where replicas count streams (``services/replicas.py``)."""


class Subscribers:
    """Every open stream of this hub process."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub
        self._by_agent: dict[str, set[Stream]] = {}
        self._renewed: dict[str, int] = {}
        """When each agent with open streams last had its presence renewed (hub clock)."""
        self._monitor: asyncio.Task[None] | None = None

    async def open(self, subscription: Subscription, abort: Abort) -> Stream:
        """Register a new stream of the subscribing agent; ``abort`` ends it with an error.

        Raises:
            ResourceExhausted: (STREAM_LIMIT_REACHED) the agent has the maximum number of streams open.
        """
        agent = subscription.agent
        agent_id = agent.id
        streams = self._by_agent.setdefault(agent_id, set())
        limit = self._hub.settings.max_streams_per_agent
        if len(streams) >= limit:
            raise stream_limit_reached(limit)
        topic = agent_topic(agent_id)
        stream = Stream(
            agent_id, topic, abort, key_hash=subscription.key_hash, version=self._hub.store.notifier.version(topic)
        )
        streams.add(stream)
        OPEN_STREAMS.inc()
        self._renewed[agent_id] = max(self._renewed.get(agent_id, 0), agent.last_seen_time)
        if self._monitor is None:
            self._monitor = asyncio.create_task(self._watch(), name="kxm-stream-monitor")
        return stream

    def close(self, stream: Stream) -> None:
        """Forget a stream (idempotent)."""
        streams = self._by_agent.get(stream.agent_id)
        if streams is not None and stream in streams:
            streams.discard(stream)
            OPEN_STREAMS.dec()
            if not streams:
                del self._by_agent[stream.agent_id]
                self._renewed.pop(stream.agent_id, None)

    def lag(self, stream: Stream) -> int:
        """Events appended to the stream's log since it last read it (as far as this process saw).

        What the stream read but has not written yet does not count: a stream catching up on a
        backlog is not slow, one whose backlog grows while it writes is.
        """
        return self._hub.store.notifier.version(stream.topic) - stream.version

    def too_slow(self, stream: Stream) -> ResourceExhausted | None:
        """The error that ends a stream whose consumer fell too far behind, or None."""
        limit = self._hub.settings.subscriber_queue
        lag = self.lag(stream)
        if lag <= limit:
            return None
        return ResourceExhausted(
            f"the subscriber fell more than {limit} events behind; resubscribe after the last seq received",
            reason=Reason.SUBSCRIBER_TOO_SLOW,
            metadata={"limit": str(limit)},
        )

    async def _watch(self) -> None:
        """While streams are open: end stuck slow streams, renew presence, and wake every stream at shutdown."""
        hub = self._hub
        # Often enough to renew presence once a quarter window even with a very short --stale-after.
        interval = min(MONITOR_INTERVAL, hub.settings.stale_after / 4)
        try:
            while self._by_agent:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(hub.shutting_down.wait(), interval)
                if hub.shutting_down.is_set():
                    # Each stream re-checks after its wake-up and ends with UNAVAILABLE.
                    hub.store.notifier.publish([(agent_topic(agent_id), None) for agent_id in self._by_agent])
                    return
                for streams in list(self._by_agent.values()):
                    for stream in list(streams):
                        if stream.writing:
                            error = self.too_slow(stream)
                            if error is not None:
                                self._cut(stream, error)
                await self._renew_presence()
        finally:
            self._monitor = None

    async def _renew_presence(self) -> None:
        """Renew the presence of agents with open streams whose renewal is due."""
        hub = self._hub
        now = hub.now()
        due = {
            agent_id: {stream.key_hash for stream in streams}
            for agent_id, streams in self._by_agent.items()
            if renewal_due(self._renewed.get(agent_id, 0), now, hub.stale_after)
        }
        if not due:
            return
        try:
            await agent_service.touch_streaming_agents(hub.store, due, now=now)
        except Exception:
            log.warning("stream_presence_renewal_failed", agents=len(due), exc_info=True)
            return  # retried at the next tick
        for agent_id in due:
            if agent_id in self._by_agent:
                self._renewed[agent_id] = now

    def _cut(self, stream: Stream, error: ResourceExhausted) -> None:
        """End a stream whose write is stuck: the status follows what the consumer has not read yet.

        The abort raises (gRPC: AbortError) once the status is queued; the stream's handler awaits
        the same future when its write returns and so ends with that error, which its surface expects.
        """
        self.close(stream)
        log.info("subscriber_too_slow", agent_id=stream.agent_id, last_seq=stream.sent_seq)
        cut: asyncio.Future[Any] = asyncio.ensure_future(stream.abort(error))
        cut.add_done_callback(_retrieve)
        stream.cut = cut


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark the abort's outcome as seen (the AbortError it raises is expected)."""
    if not future.cancelled():
        future.exception()
