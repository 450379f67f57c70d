"""The ops watch (OpsService.WatchOps): one reader per watched project, shared by its every stream.

A dashboard wants the state of a project, not a log of changes: the watch is level-triggered. Each
watched project has one ``Feed``: a task that reads the project's ops snapshot, converts it, and
hands it to every stream watching the project when what it shows changed (its *version*, a digest
of the converted snapshot without its time). A stream sends the newest view it has not sent and
skips the ones it was too slow to send, so a slow dashboard costs one view, never a queue, and ten
dashboards on a project cost the hub one read per change, not ten.

The feed reads again when:

- a write changed the project (``store.notify.project_topic``, notified by the store tables of
  agents, messages, leases, runtimes and workflow runs whichever service wrote; across replicas
  through LISTEN/NOTIFY), ``COALESCE`` seconds after the first wake-up so a burst is read once;
- something it shows lapses on the hub's clock with no write (an agent's or runtime's presence
  window ending, a lease expiring: ``services.ops.next_lapse``);
- ``RECHECK`` seconds passed (a count changed by what is past a list's cap, a wake-up lost while the
  PostgreSQL listener reconnected).

Resuming: a stream that names the version it saw last (``after_version``) gets nothing until the
state differs from it, so a dashboard reconnecting to another replica neither repeats nor misses a
state. A named operator revoked while watching is cut UNAUTHENTICATED at the next credentials
change; a stopping hub ends every watch UNAVAILABLE (SHUTTING_DOWN); a project deleted or a read
that fails ends its watches with that error. At most ``MAX_WATCHES`` streams per process.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import structlog
from google.protobuf.message import Message

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.errors import HubError, Internal, Reason, ResourceExhausted
from kxm_grpc.server.context import CallContext
from kxm_grpc.services import ops
from kxm_grpc.services.auth import CREDENTIALS_TOPIC
from kxm_grpc.services.messages import shutting_down
from kxm_grpc.store.notify import project_topic

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.ops")

COALESCE = 0.25
"""Seconds a feed waits after a wake-up before reading, so a burst of writes costs one read."""
RECHECK = 5.0
"""Seconds at most between two reads of a watched project."""
MAX_WATCHES = 256
"""Open WatchOps streams per hub process."""

Render = Callable[[ops.OpsSnapshot], Message]
"""Converts a snapshot to the message a stream sends (its ``snapshot_time`` is left out of the version)."""


@dataclass(frozen=True, slots=True)
class View:
    """One state of a project as the streams send it."""

    message: Message
    version: str


def version_of(message: Message) -> str:
    """A digest of what ``message`` shows: its deterministic encoding without ``snapshot_time``."""
    shown = type(message)()
    shown.CopyFrom(message)
    shown.ClearField("snapshot_time")
    return hashlib.blake2b(shown.SerializeToString(deterministic=True), digest_size=12).hexdigest()


@dataclass(eq=False)
class _Watcher:
    woken: asyncio.Event = field(default_factory=asyncio.Event)


class Feed:
    """One watched project: its reader task, its newest view and its watchers."""

    def __init__(self, hub: HubState, project: str, render: Render) -> None:
        self._hub = hub
        self.project = project
        self._render = render
        self.watchers: set[_Watcher] = set()
        self.latest: View | None = None
        self.error: HubError | None = None
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"kxm-ops-feed:{project}")

    def wake(self) -> None:
        """Wake every stream of this feed (each looks at the newest view, the error and its operator)."""
        for watcher in self.watchers:
            watcher.woken.set()

    def fail(self, error: HubError) -> None:
        """End every stream of this feed with ``error``."""
        if self.error is None:
            self.error = error
        self.wake()

    async def _run(self) -> None:
        hub = self._hub
        notifier = hub.store.notifier
        topic = project_topic(self.project)
        try:
            while True:
                version = notifier.version(topic)
                now, stale_after = hub.now(), hub.stale_after
                seen = await ops.read_snapshot(hub.store, self.project, now=now, stale_after=stale_after)
                message = self._render(seen)
                view = View(message, version_of(message))
                if self.latest is None or view.version != self.latest.version:
                    self.latest = view
                    self.wake()
                lapse = ops.next_lapse(seen, stale_after)
                del seen, message, view  # not kept while the feed waits
                timeout = RECHECK if lapse is None else min(RECHECK, (lapse - now) / MICROS + 0.001)
                if await notifier.wait(topic, version, timeout):
                    await asyncio.sleep(COALESCE)
        except HubError as error:
            self.fail(error)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("ops_feed_failed", project=self.project)
            self.fail(Internal("the ops watch failed; watch again", reason=Reason.INTERNAL_ERROR))


class OpsFeeds:
    """The feeds of every watched project of this process, and the streams' cap."""

    def __init__(self, hub: HubState, *, max_watches: int = MAX_WATCHES) -> None:
        self._hub = hub
        self._max_watches = max_watches
        self._feeds: dict[str, Feed] = {}
        self._watches = 0
        self._stopper: asyncio.Task[None] | None = None
        self._unwatch_credentials: Callable[[], None] | None = None

    @property
    def watches(self) -> int:
        """Open streams."""
        return self._watches

    @property
    def watched_projects(self) -> list[str]:
        """The projects that have a feed now, by name."""
        return sorted(self._feeds)

    def _credentials_changed(self, _hint: object | None) -> None:
        for feed in self._feeds.values():
            feed.wake()  # each stream checks its operator again before going on

    async def _stop_all(self) -> None:
        """At shutdown: end every watch (SHUTTING_DOWN) and stop listening to credential changes."""
        await self._hub.shutting_down.wait()
        for feed in list(self._feeds.values()):
            feed.fail(shutting_down())
        if self._unwatch_credentials is not None:
            self._unwatch_credentials()

    async def watch(
        self,
        call: CallContext,
        project: str,
        after_version: str,
        render: Render,
    ) -> AsyncGenerator[View, None]:
        """The views of ``project`` for one stream: the current one (unless it is ``after_version``),
        then each that differs from the last one sent, until the caller stops iterating. ``render``
        converts a snapshot (a new feed keeps the first stream's: every stream passes the same).
        ``call`` is the admitted call: its caller and session are checked again at every
        credentials change after the one admission verified them at.

        Raises:
            ResourceExhausted: (STREAM_LIMIT_REACHED) this process has ``max_watches`` streams open.
            Unavailable: (SHUTTING_DOWN) the hub is stopping.
            Unauthenticated: (INVALID_AUTH) the named operator was revoked, or the dashboard session
                signed out.
            NotFound: (PROJECT_NOT_FOUND) the project does not exist (or no longer does).
        """
        hub = self._hub
        if hub.shutting_down.is_set():
            raise shutting_down()
        if self._watches >= self._max_watches:
            raise ResourceExhausted(
                f"this hub serves {self._max_watches} ops watches at most; close one or watch through another replica",
                reason=Reason.STREAM_LIMIT_REACHED,
                metadata={"limit": str(self._max_watches)},
            )
        if self._stopper is None:
            self._stopper = asyncio.get_running_loop().create_task(self._stop_all(), name="kxm-ops-feeds-stop")
            self._unwatch_credentials = hub.store.notifier.watch(CREDENTIALS_TOPIC, self._credentials_changed)
        feed = self._feeds.get(project)
        if feed is None or feed.error is not None:
            feed = self._feeds[project] = Feed(hub, project, render)
        watcher = _Watcher()
        feed.watchers.add(watcher)
        self._watches += 1
        # -1 (a credential changed while the call was admitted) checks before the first view.
        credentials = call.credentials_notice_version
        sent = after_version
        try:
            while True:
                if feed.error is not None:
                    raise feed.error
                if hub.store.notifier.version(CREDENTIALS_TOPIC) != credentials:
                    credentials = hub.store.notifier.version(CREDENTIALS_TOPIC)
                    await ops.check_watcher(hub.store, call.caller, call.dashboard)
                view = feed.latest
                if view is not None and view.version != sent:
                    sent = view.version
                    yield view
                    continue
                watcher.woken.clear()
                await watcher.woken.wait()
        finally:
            self._watches -= 1
            feed.watchers.discard(watcher)
            if not feed.watchers and self._feeds.get(project) is feed:
                del self._feeds[project]
                feed.task.cancel()
