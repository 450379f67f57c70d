"""Wake-ups across replicas: every committed change's topics, by LISTEN/NOTIFY, into the local notifier.

A replica's write sends ``pg_notify(CHANNEL, payload)`` inside its transaction (PostgreSQL
delivers a notification only if, and once, the transaction commits). The payload is the sending
replica's id and the changed topics, one per line (``notify_payloads``; split when one would pass
PostgreSQL's 8000-byte limit). Each replica holds one dedicated connection listening on
``CHANNEL`` and publishes the topics of every other replica's notifications to its notifier,
without hints: a notification is only a wake-up, and whoever it wakes re-reads the store by
sequence, so a notification that is late, doubled or lost loses nothing but time.

When the listening connection breaks, changes committed meanwhile send no wake-up here, so after
reconnecting the listener wakes every waiter and watcher (``Notifier.wake_all``): each re-reads
and finds what it missed. Until then readers still see every change the next time they read.

The connection is used for nothing else (psycopg holds it locked while waiting for notifications,
psycopg#760): ``notifies(timeout=...)`` returns every second so ``close`` never waits long.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import psycopg
import structlog

from kxm_grpc.store.notify import Change, Notifier

log = structlog.get_logger("kxm.store")

CHANNEL = "kxm_changes"
"""The notification channel every replica listens on."""

MAX_PAYLOAD = 7900
"""Bytes of payload per notification: PostgreSQL refuses more than 8000."""

_RECONNECT_MAX = 5.0


def notify_payloads(replica_id: str, changes: Iterable[Change]) -> Iterator[str]:
    """The payloads announcing ``changes``' topics (each once, in order), as few as fit ``MAX_PAYLOAD``."""
    seen: set[str] = set()
    lines = [replica_id]
    size = len(replica_id.encode())
    for topic, _ in changes:
        if topic in seen:
            continue
        seen.add(topic)
        length = len(topic.encode()) + 1
        if size + length > MAX_PAYLOAD and len(lines) > 1:
            yield "\n".join(lines)
            lines, size = [replica_id], len(replica_id.encode())
        lines.append(topic)
        size += length
    if len(lines) > 1:
        yield "\n".join(lines)


class ChangeListener:
    """Feeds the other replicas' notifications to ``notifier`` until closed; reconnects with backoff."""

    def __init__(self, dsn: str, notifier: Notifier, replica_id: str) -> None:
        self._dsn = dsn
        self._notifier = notifier
        self._replica_id = replica_id
        self._task: asyncio.Task[None] | None = None
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self.connected = False
        """Whether the listening connection is up now (while False, wake-ups from other replicas wait)."""
        self.reconnects = 0

    async def start(self, *, timeout: float) -> None:
        """Connect and LISTEN before returning, so no change committed afterwards goes unannounced.

        Raises:
            psycopg.OperationalError: the first connection failed.
        """
        self._conn = await self._connect(timeout)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="kxm-pg-listener")

    async def _connect(self, timeout: float) -> psycopg.AsyncConnection[Any]:
        conn = await psycopg.AsyncConnection.connect(
            self._dsn,
            autocommit=True,
            connect_timeout=max(1, round(timeout)),
            application_name="kxm-hub",
            # A half-open connection would otherwise wait for notifications forever, silently.
            keepalives=1,
            keepalives_idle=10,
            keepalives_interval=5,
            keepalives_count=3,
        )
        try:
            await conn.execute(f"LISTEN {CHANNEL}")
        except BaseException:
            await conn.close()
            raise
        self.connected = True
        return conn

    async def _run(self) -> None:
        delay = 0.1
        while True:
            try:
                if self._conn is None:
                    self._conn = await self._connect(10.0)
                    self.reconnects += 1
                    log.info("change_listener_reconnected", reconnects=self.reconnects)
                    self._notifier.wake_all()  # whatever committed while disconnected sent no wake-up here
                    delay = 0.1
                while True:
                    async for notification in self._conn.notifies(timeout=1.0):
                        self._deliver(notification.payload)
            except Exception as exc:
                self.connected = False
                log.warning("change_listener_disconnected", error=type(exc).__name__, retry_in=delay)
                await self._close_connection()
                await asyncio.sleep(delay)
                delay = min(_RECONNECT_MAX, delay * 2)

    async def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    def _deliver(self, payload: str) -> None:
        sender, _, topics = payload.partition("\n")
        if sender == self._replica_id or not topics:
            return  # this replica's own commits were published with their hints already
        self._notifier.publish((topic, None) for topic in topics.split("\n"))

    async def close(self) -> None:
        """Stop listening and close the connection. Idempotent."""
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._close_connection()  # also when the task was cancelled before it ran
        self.connected = False
