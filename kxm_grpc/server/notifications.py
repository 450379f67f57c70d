"""The outbound notification sender: POSTs queued run state changes, signed, at least once.

One task per hub process (``HubServer`` starts it, and ``close``\\ s it when it stops). Every
``POLL`` it claims the due notifications (``services.workflows.notifications.claim``), POSTs them
concurrently, signed with ``kxm-webhook-v1`` kind ``notify`` over the body and the notification
id as the delivery id, and marks each delivered (any 2xx) or reschedules it with backoff. The
definition's current ``notify`` URL and secret are used, so rotating a secret applies to what is
still queued. Only the notification's id, event, status and attempt count are logged.

* **Only the notify secret** is resolved (``webhooks.resolve_secret``). When this replica cannot
  resolve it (its variable is not set here, or not a valid secret), the attempt fails: logged
  ``notification_secret_unavailable`` (the field, never a value) and rescheduled with backoff, so
  it is sent once the variable is set (here or by another replica). A notification is dropped
  (marked delivered, never sent) only when its definition was deleted or no longer has
  ``notify``.
* **No redirects.** A 3xx is a failed attempt (``HTTP 302``): following one would turn the POST
  into a GET carrying the signature headers to another host, and count that host's 2xx.
* **One deadline per POST**, ``TIMEOUT`` in all (connecting, TLS, sending, the answer's head), not
  per socket operation: a receiver that drips bytes fails its attempt at the deadline. Each POST
  runs in a thread of the sender's own pool (``BATCH`` threads named ``kxm-notify``); at the
  deadline the loop stops waiting and shuts the POST's socket down, so the thread ends too. On
  ``close`` the pool is shut down without waiting and every POST still open is cut the same way:
  no receiver can keep the hub from exiting. Resolving the receiver's name and connecting are the
  steps a cut cannot end: the socket's own timeout (``TIMEOUT`` too) and the resolver's bound them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import http.client
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

import structlog

from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import DefinitionError
from kxm_grpc.services.workflows import definitions, notifications
from kxm_grpc.services.workflows.notifications import Claimed
from kxm_grpc.services.workflows.webhooks import Secret, SecretUnresolved, resolve_secret

if TYPE_CHECKING:
    from kxm_grpc.server.state import HubState

log = structlog.get_logger("kxm.workflows")

POLL = 1.0
TIMEOUT = 10.0
"""Seconds one POST may take in all, from connecting to the answer's status line and headers."""
BATCH = 32
"""Notifications in flight at once (and the sender's threads)."""
USER_AGENT = "kxm-hub-notify/1"
SECRET_UNAVAILABLE = "notify secret unavailable on this replica"
"""The error recorded for an attempt this replica could not sign."""


class _Attempt:
    """One POST's sockets, so another thread can cut them (at the deadline, or on close).

    Each socket the POST opens is kept as a duplicate descriptor owned here: shutting it down
    ends the connection for the worker thread too (a blocked read returns at once), and since the
    duplicate is closed only here, under the lock, it can never name another connection's
    descriptor.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._cut = False

    def create_connection(self, address: tuple[str, int], timeout: Any, source_address: Any) -> socket.socket:
        """``socket.create_connection`` (as ``HTTPConnection.connect`` calls it), the socket kept to be cut."""
        sock = socket.create_connection(address, timeout, source_address)
        with self._lock:
            if self._cut:
                sock.close()
                raise TimeoutError("the notification's deadline passed")
            self._sockets.append(sock.dup())
        return sock

    def cut(self) -> None:
        """End the POST's connections now (from any thread); a connection it opens later is refused."""
        with self._lock:
            self._cut = True
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        """Release the kept descriptors (the worker, once the POST returned or raised)."""
        with self._lock:
            self._cut = True
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


class _Connection(http.client.HTTPConnection):
    def __init__(self, host: str, *, attempt: _Attempt, **options: Any) -> None:
        super().__init__(host, **options)
        self._create_connection = attempt.create_connection


class _TLSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, *, attempt: _Attempt, **options: Any) -> None:
        super().__init__(host, **options)
        self._create_connection = attempt.create_connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, attempt: _Attempt) -> None:
        super().__init__()
        self._attempt = attempt

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        def connection(host: str, **options: Any) -> http.client.HTTPConnection:
            return _Connection(host, attempt=self._attempt, **options)

        return self.do_open(connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, attempt: _Attempt) -> None:
        super().__init__()
        self._attempt = attempt

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        def connection(host: str, **options: Any) -> http.client.HTTPSConnection:
            return _TLSConnection(host, attempt=self._attempt, **options)

        return self.do_open(connection, req)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: urllib then raises its 3xx as an ``HTTPError``, a failed attempt."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None


def _post_blocking(url: str, body: bytes, headers: dict[str, str], timeout: float, attempt: _Attempt) -> int:
    """POST in the calling (worker) thread; the status, 3xx included. Proxies from the environment apply."""
    # The URL is an operator's, checked http(s) when the definition loaded.
    opener = urllib.request.build_opener(_HTTPHandler(attempt), _HTTPSHandler(attempt), _NoRedirect())
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)  # noqa: S310
    try:
        with opener.open(request, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return int(error.code)
    finally:
        attempt.finish()


class NotificationSender:
    """Sends the hub's queued notifications until stopped, then ``close``."""

    def __init__(self, hub: HubState, *, poll: float = POLL, timeout: float = TIMEOUT) -> None:
        self._hub = hub
        self._store = hub.store
        self._poll = poll
        self.timeout = timeout
        """Seconds one POST may take in all (tests make it small)."""
        self.sent = 0
        self.failures = 0
        self._sending: set[asyncio.Task[bool]] = set()
        self._attempts: set[_Attempt] = set()
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=BATCH, thread_name_prefix="kxm-notify")
        self._closed = False

    def _clock(self) -> int:
        return self._hub.now()

    async def run(self) -> None:
        """Claim and send, every ``poll`` seconds, until cancelled; a failing pass is logged and retried.

        Each POST is a task of its own, at most ``BATCH`` at a time: a receiver that hangs holds
        its own notifications for the ``timeout``, never the next pass's.
        """
        try:
            while True:
                try:
                    room = BATCH - len(self._sending)
                    if room > 0 and not self._closed:
                        for item in await notifications.claim(self._store, now=self._clock(), limit=room):
                            task = asyncio.create_task(self._send(item), name="kxm-notification")
                            self._sending.add(task)
                            task.add_done_callback(self._sending.discard)
                except asyncio.CancelledError:
                    raise
                except Exception:  # the database may be down: try again next pass
                    log.exception("notification_pass_failed")
                await asyncio.sleep(self._poll)
        finally:
            for task in self._sending:
                task.cancel()  # claimed for 60 s: another pass (or replica) sends them then

    def close(self) -> None:
        """Stop sending: cut every POST still open and shut the threads down without waiting.

        Idempotent; called by ``HubServer.stop`` once the ``run`` task is cancelled. What was
        claimed and not sent is sent again once its claim lapses (here after a restart, or by
        another replica).
        """
        self._closed = True
        for attempt in list(self._attempts):
            attempt.cut()
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def send_due(self) -> int:
        """Send what is due now; returns how many were delivered."""
        claimed = await notifications.claim(self._store, now=self._clock(), limit=BATCH)
        results = await asyncio.gather(*(self._send(item) for item in claimed))
        return sum(results)

    async def _send(self, item: Claimed) -> bool:
        notification = item.notification
        structure = None
        if item.definition_document is not None:
            try:
                structure = definitions.structure(item.definition_document)
            except DefinitionError:  # a stored document always loads; should one not, keep trying
                log.exception("notification_definition_unreadable", definition_id=notification.definition_id)
                return await self._failed(item, "the definition does not load")
        if structure is None or structure.notify is None:
            # The definition was deleted or no longer notifies: nobody to tell; dropped rather
            # than retried forever.
            log.warning("notification_dropped", notification_id=notification.id, run_id=notification.run_id)
            await notifications.delivered(self._store, notification.id, now=self._clock())
            return False
        try:
            secret = resolve_secret(structure, Secret.NOTIFY)
        except SecretUnresolved as unresolved:
            # Another replica (or this one, once its environment is fixed) may sign it: retried.
            log.warning(
                "notification_secret_unavailable",
                notification_id=notification.id,
                definition_id=notification.definition_id,
                field=unresolved.field,
                problem=unresolved.problem,
            )
            return await self._failed(item, SECRET_UNAVAILABLE)
        assert secret is not None  # the definition notifies, so it has a notify secret
        body = notification.body.encode()
        headers = signatures.sign(
            secret,
            signatures.Kind.NOTIFY,
            int(time.time()),
            notification.id,
            notification.definition_id,
            notification.run_id,
            "",
            body,
        )
        headers |= {"content-type": "application/json", "user-agent": USER_AGENT}
        error = await self._post(structure.notify.url, body, headers)
        if error is None:
            return False  # closed: the claim lapses and it is sent again
        if not error:
            await notifications.delivered(self._store, notification.id, now=self._clock())
            self.sent += 1
            log.info("notification_sent", notification_id=notification.id, kind=notification.event)
            return True
        return await self._failed(item, error)

    async def _post(self, url: str, body: bytes, headers: dict[str, str]) -> str | None:
        """POST within the deadline: "" when a 2xx answered, else the attempt's error; None once closed."""
        if self._closed:
            return None
        attempt = _Attempt()
        loop = asyncio.get_running_loop()
        try:
            work = loop.run_in_executor(self._executor, _post_blocking, url, body, headers, self.timeout, attempt)
        except RuntimeError:  # the pool is shut down: closed
            return None
        self._attempts.add(attempt)
        try:
            status = await asyncio.wait_for(work, self.timeout)
        except TimeoutError:  # the deadline (or the socket's own timeout, which is never later)
            return f"no answer within {self.timeout:g} s"
        except (OSError, ValueError, http.client.HTTPException) as failure:
            return type(failure).__name__
        finally:
            attempt.cut()  # a no-op once the POST returned; else its thread ends now
            self._attempts.discard(attempt)
        return "" if 200 <= status < 300 else f"HTTP {status}"

    async def _failed(self, item: Claimed, error: str) -> bool:
        notification = item.notification
        self.failures += 1
        due = await notifications.failed(self._store, notification, error, now=self._clock())
        log.warning(
            "notification_failed",
            notification_id=notification.id,
            kind=notification.event,
            attempts=notification.attempts + 1,
            error=error,
            retry_in_seconds=round((due - self._clock()) / 1_000_000, 1),
        )
        return False
