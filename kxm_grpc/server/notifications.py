"""The outbound notification sender: POSTs queued run state changes, signed, at least once.

One task per hub process (``HubServer`` starts it). Every ``POLL`` it claims the due
notifications (``services.workflows.notifications.claim``), POSTs them concurrently, each within
``TIMEOUT``, signed with ``kxm-webhook-v1`` kind ``notify`` over the body and the notification id
as the delivery id, and marks each delivered (any 2xx) or reschedules it with backoff. The
definition's current ``notify`` URL and secret are used, so rotating a secret applies to what is
still queued. Only the notification's id, event, status and attempt count are logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING

import structlog

from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import DefinitionError
from kxm_grpc.services.workflows import definitions, notifications
from kxm_grpc.services.workflows.notifications import Claimed

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.workflows")

POLL = 1.0
TIMEOUT = 10.0
BATCH = 32
USER_AGENT = "kxm-hub-notify/1"


def _post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
    # The URL is an operator's, checked http(s) when the definition loaded.
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


class NotificationSender:
    """Sends the hub's queued notifications until stopped."""

    def __init__(self, hub: HubState, *, poll: float = POLL, timeout: float = TIMEOUT) -> None:
        self._hub = hub
        self._store = hub.store
        self._poll = poll
        self._timeout = timeout
        self.sent = 0
        self.failures = 0

    def _clock(self) -> int:
        return self._hub.now()

    async def run(self) -> None:
        """Claim and send, every ``poll`` seconds, until cancelled; a failing pass is logged and retried."""
        while True:
            try:
                await self.send_due()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database may be down: try again next pass
                log.exception("notification_pass_failed")
            await asyncio.sleep(self._poll)

    async def send_due(self) -> int:
        """Send what is due now; returns how many were delivered."""
        claimed = await notifications.claim(self._store, now=self._clock(), limit=BATCH)
        results = await asyncio.gather(*(self._send(item) for item in claimed))
        return sum(results)

    async def _send(self, item: Claimed) -> bool:
        notification = item.notification
        target = None
        if item.definition_document is not None:
            with contextlib.suppress(DefinitionError):
                target = definitions.resolved(item.definition_document).notify
        if target is None:
            # The definition was deleted or no longer notifies (or this replica cannot resolve its
            # secret): nobody to tell; dropped rather than retried forever.
            log.warning("notification_dropped", notification_id=notification.id, run_id=notification.run_id)
            await notifications.delivered(self._store, notification.id, now=self._clock())
            return False
        body = notification.body.encode()
        headers = signatures.sign(
            target.secret,
            signatures.Kind.NOTIFY,
            int(time.time()),
            notification.id,
            notification.definition_id,
            notification.run_id,
            "",
            body,
        )
        headers |= {"content-type": "application/json", "user-agent": USER_AGENT}
        try:
            status = await asyncio.to_thread(_post, target.url, body, headers, self._timeout)
            error = "" if 200 <= status < 300 else f"HTTP {status}"
        except (OSError, ValueError) as failure:
            error = type(failure).__name__
        if not error:
            await notifications.delivered(self._store, notification.id, now=self._clock())
            self.sent += 1
            log.info("notification_sent", notification_id=notification.id, event=notification.event)
            return True
        self.failures += 1
        due = await notifications.failed(self._store, notification, error, now=self._clock())
        log.warning(
            "notification_failed",
            notification_id=notification.id,
            event=notification.event,
            attempts=notification.attempts + 1,
            error=error,
            retry_in_seconds=round((due - self._clock()) / 1_000_000, 1),
        )
        return False
