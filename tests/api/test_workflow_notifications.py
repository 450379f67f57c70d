"""Outbound run notifications against a real HTTP receiver, and definitions imported with ``--workflows DIR``.

A definition's ``notify: {url, secret}`` points at a ``ThreadingHTTPServer`` on 127.0.0.1:0 that
records every request. Runs are driven through ``hub.workflows``; the hub's sender (the background
task, and ``hub.server.notifications.send_due()`` called here so no test waits for its poll)
POSTs one signed ``kxm.workflow-notification.v1`` body per state change, retries a failing
receiver with backoff under the same delivery id, never holds a run up while a receiver hangs,
and drops what no definition wants any more.

``--workflows DIR`` (the Settings field ``workflows``): a directory of a JSON and a YAML definition
is served; a broken definition stops the hub from starting, naming the file and the field, and
``kxm hub serve --workflows DIR`` exits non-zero printing the problems.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import io
import json
import math
import os
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc import HubError, Reason, Unauthenticated
from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import seconds
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import DefinitionError, Source
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.server import notifications as server_notifications
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.services.workflows import notifications
from kxm_grpc.store.protocols.workflows import StoredNotification
from kxm_grpc.v1 import WorkflowRunStatus
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub
from tests.workflows import define

ROOT = str(Path(__file__).resolve().parents[2])
NOTIFY_SECRET = "notify-secret-0123456789"
SCHEMA = "kxm.workflow-notification.v1"


# -- the receiver ---------------------------------------------------------------------------------


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """An HTTP server on 127.0.0.1:0 recording every request (any method: ``methods``); answers
    ``statuses`` in turn (then 200), with ``location`` as the Location of a 3xx, and with ``hang``
    holds the first request until ``release``."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.methods: list[str] = []
        self.statuses: list[int] = []
        self.location = ""
        self.hang = False
        self.released = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with receiver._lock:
                    receiver.requests.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    receiver.methods.append(self.command)
                    first = len(receiver.requests) == 1
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                if receiver.hang and first:
                    receiver.released.wait(30)
                self.send_response(status)
                if 300 <= status < 400 and receiver.location:
                    self.send_header("location", receiver.location)
                self.send_header("content-length", "0")
                self.end_headers()

            do_GET = do_PUT = do_HEAD = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self.server.serve_forever, name="notify-receiver", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/kxm"

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    try:
        yield server
    finally:
        server.close()


def notified(receiver: Receiver, definition_id: str = "notified", **fields: Any) -> dict[str, Any]:
    """``definition_id`` (build, ship) notifying ``receiver``."""
    return define(
        definition_id,
        stages=("build", "ship"),
        notify={"url": receiver.url, "secret": NOTIFY_SECRET},
        **fields,
    )


async def delivered(hub: Hub, receiver: Receiver, count: int, *, within: float = 10.0) -> list[Received]:
    """Send what is due until ``receiver`` holds ``count`` requests; then make sure no more come."""
    sender = hub.server.notifications
    assert sender is not None
    deadline = time.monotonic() + within
    while len(receiver.requests) < count:
        assert time.monotonic() < deadline, f"{len(receiver.requests)} of {count} notifications arrived"
        await sender.send_due()
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    await sender.send_due()
    assert len(receiver.requests) == count, [r.json for r in receiver.requests]
    return list(receiver.requests)


def verified(request: Received, run_id: str, definition_id: str = "notified") -> str:
    """The delivery id of a notification whose kxm-webhook-v1 signature (kind notify) verifies."""
    return signatures.verify(
        request.headers,
        request.body,
        kind=Kind.NOTIFY,
        secret=NOTIFY_SECRET,
        definition_id=definition_id,
        run_id=run_id,
        source=Source.GENERIC,
        now_seconds=int(time.time()),
    )


async def stored(hub: Hub, notification_id: str) -> StoredNotification:
    found = await hub.server.store.read(lambda tx: tx.workflows.get_notification(notification_id))
    assert found is not None
    return found


@pytest_asyncio.fixture
async def admin(hub: Hub) -> AsyncIterator[HubClient]:
    async with hub.admin() as client:
        yield client


# -- notifications --------------------------------------------------------------------------------


async def test_waiting_and_completed_are_posted_once_each_signed(
    hub: Hub, admin: HubClient, make_agent: AgentFactory, receiver: Receiver
) -> None:
    """A run that waits, is signalled, and completes: one POST per state change (waiting, completed),
    JSON of the notification schema, signed with kxm-webhook-v1 kind notify for the run."""
    coordinator = await make_agent("coordinator")
    await admin.workflows.register_definition(notified(receiver))
    run = (await admin.workflows.start_run("notified", delivery_id="d-1")).run

    await coordinator.workflows.wait(run.id, "build", "ci-green", ttl=600)
    (waiting,) = await delivered(hub, receiver, 1)
    await admin.workflows.signal_run(run.id, "ci-green", "passed", delivery_id="ci-1")
    done = await coordinator.workflows.checkpoint(run.id, "ship", "passed")
    assert done.completed
    requests = await delivered(hub, receiver, 2)

    assert requests[0] is waiting
    bodies = [r.json for r in requests]
    assert [(b["event"], b["status"], b["stageId"]) for b in bodies] == [
        ("waiting", "waiting", "build"),
        ("completed", "completed", "ship"),
    ]
    for request, body in zip(requests, bodies, strict=True):
        assert request.path == "/hooks/kxm"
        assert request.headers["content-type"] == "application/json"
        assert body["schema"] == SCHEMA
        assert (body["runId"], body["definitionId"], body["project"]) == (run.id, "notified", "alpha")
        assert verified(request, run.id) == body["deliveryId"] == request.headers["x-kxm-delivery-id"]
    assert bodies[0]["deliveryId"] != bodies[1]["deliveryId"]
    # The signature is bound to the run and the kind: it verifies for no other.
    with pytest.raises(Unauthenticated):
        verified(requests[0], "run_" + "0" * 32)
    with pytest.raises(Unauthenticated):
        signatures.verify(
            requests[0].headers,
            requests[0].body,
            kind=Kind.SIGNAL,
            secret=NOTIFY_SECRET,
            definition_id="notified",
            run_id=run.id,
            source=Source.GENERIC,
            now_seconds=int(time.time()),
        )
    for request in requests:
        record = await stored(hub, request.json["deliveryId"])
        assert (record.attempts, record.deliver_time is not None) == (0, True)


async def test_failed_cancelled_and_escalated_are_posted(
    hub: Hub, admin: HubClient, make_agent: AgentFactory, receiver: Receiver
) -> None:
    """A run failing its only attempt, a cancelled run and an escalated one: one POST each."""
    coordinator = await make_agent("coordinator")
    document = notified(receiver)
    document["stages"][0]["maxAttempts"] = 1
    await admin.workflows.register_definition(document)
    failing = (await admin.workflows.start_run("notified", delivery_id="d-1")).run
    cancelled = (await admin.workflows.start_run("notified", delivery_id="d-2")).run
    escalated = (await admin.workflows.start_run("notified", delivery_id="d-3")).run

    exhausted = await coordinator.workflows.checkpoint(failing.id, "build", "failed", summary="broken")
    await admin.workflows.cancel_run(cancelled.id, reason="not needed")
    await coordinator.workflows.escalate_stage(escalated.id, "build", "a human decides")
    requests = await delivered(hub, receiver, 3)

    assert exhausted.exhausted
    by_run = {r.json["runId"]: r for r in requests}
    assert {run_id: (r.json["event"], r.json["status"]) for run_id, r in by_run.items()} == {
        failing.id: ("failed", "failed"),
        cancelled.id: ("cancelled", "cancelled"),
        escalated.id: ("escalated", "waiting"),
    }
    for run_id, request in by_run.items():
        assert request.headers["content-type"] == "application/json"
        assert verified(request, run_id) == request.json["deliveryId"]


async def test_a_failing_receiver_gets_the_same_delivery_again_after_a_backoff(
    hub: Hub, admin: HubClient, make_agent: AgentFactory, receiver: Receiver
) -> None:
    """500 first, then 200: the same delivery id and body twice (at least once), the retry not
    before the backoff (1 s after the first failure, doubling to at most an hour)."""
    coordinator = await make_agent("coordinator")
    sender = hub.server.notifications
    assert sender is not None
    receiver.statuses = [500]
    await admin.workflows.register_definition(notified(receiver))
    run = (await admin.workflows.start_run("notified", delivery_id="d-1")).run

    await coordinator.workflows.wait(run.id, "build", "ci-green", ttl=600)
    (first,) = await delivered(hub, receiver, 1)
    failed = await stored(hub, first.json["deliveryId"])
    await sender.send_due()  # not due yet: the backoff holds it
    assert len(receiver.requests) == 1
    first_try, retry = await delivered(hub, receiver, 2)

    assert (failed.attempts, failed.last_error, failed.deliver_time) == (1, "HTTP 500", None)
    assert failed.next_time >= failed.create_time + notifications.RETRY_FIRST
    assert first_try is first
    assert retry.body == first.body
    assert verified(first, run.id) == verified(retry, run.id) == first.json["deliveryId"]
    assert retry.headers["x-kxm-delivery-id"] == first.headers["x-kxm-delivery-id"]
    done = await stored(hub, first.json["deliveryId"])
    assert (done.attempts, done.deliver_time is not None) == (1, True)
    assert [notifications.retry_delay(n) for n in (1, 2, 3, 13, 40)] == [
        seconds(1),
        seconds(2),
        seconds(4),
        seconds(3_600),
        seconds(3_600),
    ]


async def test_a_hanging_receiver_does_not_hold_the_run_up(
    hub: Hub, admin: HubClient, make_agent: AgentFactory, receiver: Receiver
) -> None:
    """While the receiver holds the first notification's POST open, the run's steps answer at once;
    once it answers, every notification is delivered."""
    coordinator = await make_agent("coordinator")
    receiver.hang = True
    await admin.workflows.register_definition(notified(receiver))
    run = (await admin.workflows.start_run("notified", delivery_id="d-1")).run
    await coordinator.workflows.wait(run.id, "build", "ci-green", ttl=600)
    deadline = time.monotonic() + 10
    while not receiver.requests:  # the hub's own sender picks it up, and hangs on it
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)

    timings = []
    for step in (
        lambda: admin.workflows.signal_run(run.id, "ci-green", "passed", delivery_id="ci-1"),
        lambda: coordinator.workflows.checkpoint(run.id, "ship", "warning"),
        lambda: coordinator.workflows.checkpoint(run.id, "ship", "passed"),
        lambda: coordinator.workflows.get_run(run.id),
    ):
        began = time.monotonic()
        await step()
        timings.append(time.monotonic() - began)
    assert not receiver.released.is_set() and len(receiver.requests) >= 1
    receiver.released.set()
    requests = await delivered(hub, receiver, 2)

    assert max(timings) < 2.0, timings
    assert [r.json["event"] for r in requests] == ["waiting", "completed"]
    assert (await coordinator.workflows.get_run(run.id)).run.status == WorkflowRunStatus.WORKFLOW_RUN_STATUS_COMPLETED


@pytest.mark.parametrize("change", ["deleted", "no-longer-notifies"])
async def test_a_notification_nobody_wants_any_more_is_dropped(
    hub: Hub, admin: HubClient, make_agent: AgentFactory, receiver: Receiver, change: str
) -> None:
    """A notification whose definition was deleted (or no longer names a URL) after a failed try is
    dropped at its retry: not POSTed again, not retried forever."""
    coordinator = await make_agent("coordinator")
    receiver.statuses = [500] * 10
    await admin.workflows.register_definition(notified(receiver))
    run = (await admin.workflows.start_run("notified", delivery_id="d-1")).run
    await coordinator.workflows.wait(run.id, "build", "ci-green", ttl=600)
    (first,) = await delivered(hub, receiver, 1)
    notification_id = first.json["deliveryId"]

    if change == "deleted":
        assert await hub.server.store.write(lambda tx: tx.workflows.delete_definition("notified"))
    else:
        await admin.workflows.register_definition(define("notified", stages=("build", "ship")))
    sender = hub.server.notifications
    assert sender is not None
    deadline = time.monotonic() + 10
    while (await stored(hub, notification_id)).deliver_time is None:
        assert time.monotonic() < deadline, "the notification is still queued"
        await sender.send_due()
        await asyncio.sleep(0.05)

    assert len(receiver.requests) == 1
    assert (await stored(hub, notification_id)).attempts == 1


async def queued(hub: Hub, run_id: str) -> StoredNotification:
    """The run's one notification (as stored now)."""

    def read(tx: Any) -> list[StoredNotification]:
        return [n for n in tx.workflows.due_notifications(2**62, 100) if n.run_id == run_id]

    (found,) = await hub.server.store.read(read)
    return found


async def tried(hub: Hub, notification_id: str, *, within: float = 10.0) -> StoredNotification:
    """The notification once an attempt failed (the hub's own sender, or ``send_due`` here)."""
    sender = hub.server.notifications
    assert sender is not None
    deadline = time.monotonic() + within
    while (found := await stored(hub, notification_id)).attempts == 0:
        assert time.monotonic() < deadline, "no attempt was made"
        await sender.send_due()
        await asyncio.sleep(0.05)
    return found


async def test_a_notify_secret_this_replica_cannot_resolve_is_retried_not_dropped(
    hub: Hub,
    admin: HubClient,
    make_agent: AgentFactory,
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
    log_lines: io.StringIO,
) -> None:
    """The notify secret named by a variable unset here: each attempt fails (logged
    notification_secret_unavailable, never a value) and is rescheduled with backoff; once the
    variable is set, the same notification is delivered, signed with it."""
    coordinator = await make_agent("coordinator")
    monkeypatch.setenv("KXM_TEST_NOTIFY_SECRET", NOTIFY_SECRET)
    await admin.workflows.register_definition(
        notified(receiver) | {"notify": {"url": receiver.url, "secretEnv": "KXM_TEST_NOTIFY_SECRET"}}
    )
    monkeypatch.delenv("KXM_TEST_NOTIFY_SECRET")
    run = (await admin.workflows.start_run("notified", delivery_id="d-1")).run
    await coordinator.workflows.wait(run.id, "build", "ci-green", ttl=600)
    notification = await queued(hub, run.id)

    failed = await tried(hub, notification.id)
    requests_while_unset = len(receiver.requests)
    monkeypatch.setenv("KXM_TEST_NOTIFY_SECRET", NOTIFY_SECRET)
    (request,) = await delivered(hub, receiver, 1)
    done = await stored(hub, notification.id)

    assert requests_while_unset == 0
    assert failed.deliver_time is None and failed.last_error == server_notifications.SECRET_UNAVAILABLE
    assert failed.next_time >= failed.create_time + notifications.RETRY_FIRST
    assert verified(request, run.id) == notification.id
    assert done.deliver_time is not None and done.attempts >= 1
    logged = log_lines.getvalue()
    assert "notification_secret_unavailable" in logged and "notify.secretEnv" in logged
    assert NOTIFY_SECRET not in logged and "notification_dropped" not in logged


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_is_a_failed_attempt_never_followed(
    hub: Hub, admin: HubClient, make_agent: AgentFactory, receiver: Receiver, status: int
) -> None:
    """A receiver answering 3xx to another local server: that server gets nothing (urllib would
    turn the POST into a GET carrying the signature headers, and count its 200), and the
    notification is not delivered but retried (``HTTP 3xx``)."""
    elsewhere = Receiver()
    try:
        coordinator = await make_agent("coordinator")
        receiver.statuses = [status] * 20
        receiver.location = elsewhere.url
        await admin.workflows.register_definition(notified(receiver))
        run = (await admin.workflows.start_run("notified", delivery_id="d-1")).run
        await coordinator.workflows.wait(run.id, "build", "ci-green", ttl=600)
        notification = await queued(hub, run.id)

        failed = await tried(hub, notification.id)
        await asyncio.sleep(0.2)
    finally:
        elsewhere.close()

    assert (failed.last_error, failed.deliver_time) == (f"HTTP {status}", None)
    assert receiver.methods and set(receiver.methods) == {"POST"}
    assert elsewhere.requests == []


class Dripper:
    """A TCP server on 127.0.0.1:0 that reads a request, then answers a status line and a header
    line a byte every ``every`` seconds, forever: no per-read timeout ever fires. Records when each
    connection opened and when the hub ended it."""

    def __init__(self, every: float = 0.05) -> None:
        self.opened: list[float] = []
        self.ended: list[float] = []
        self._every = every
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._threads = [threading.Thread(target=self._accept, name="notify-dripper", daemon=True)]
        self._threads[0].start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/hooks/kxm"

    @property
    def open(self) -> int:
        return len(self.opened) - len(self.ended)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.opened.append(time.monotonic())
            thread = threading.Thread(target=self._drip, args=(connection,), name="notify-drip", daemon=True)
            self._threads.append(thread)
            thread.start()

    def _drip(self, connection: socket.socket) -> None:
        with connection:
            try:
                connection.recv(65_536)
                connection.sendall(b"HTTP/1.1 200 OK\r\nX-Drip: ")
                while not self._stop.wait(self._every):
                    connection.sendall(b"a")  # one header line that never ends
            except OSError:
                pass
            finally:
                self.ended.append(time.monotonic())

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        for thread in self._threads:
            thread.join(5)


def notify_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith("kxm-notify")]


async def test_a_receiver_that_drips_fails_at_the_deadline_and_never_holds_the_stop(
    hub: Hub, admin: HubClient, make_agent: AgentFactory
) -> None:
    """A receiver that answers a byte at a time, forever: the attempt fails at the POST's deadline
    (one deadline, not per read), its connection cut; a POST in flight when the hub stops is cut
    at once, the stop is prompt and no sender thread is left behind."""
    dripper = Dripper()
    try:
        coordinator = await make_agent("coordinator")
        sender = hub.server.notifications
        assert sender is not None
        sender.timeout = 0.5
        await admin.workflows.register_definition(
            define("notified", stages=("build", "ship"), notify={"url": dripper.url, "secret": NOTIFY_SECRET})
        )
        run = (await admin.workflows.start_run("notified", delivery_id="d-1")).run
        await coordinator.workflows.wait(run.id, "build", "ci-green", ttl=600)
        notification = await queued(hub, run.id)
        failed = await tried(hub, notification.id)
        await asyncio.sleep(0.3)
        first_open, first_end = dripper.opened[0], dripper.ended[0] if dripper.ended else math.inf

        sender.timeout = 60.0  # the retry (the hub's own sender, after the backoff) hangs
        deadline = time.monotonic() + 10
        while dripper.open == 0:
            assert time.monotonic() < deadline, "the retry did not come"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        began = time.monotonic()
        await hub.server.stop(0.2)
        stopped_in = time.monotonic() - began
        deadline = time.monotonic() + 3
        while dripper.open or notify_threads():
            if time.monotonic() >= deadline:
                break  # asserted below
            await asyncio.sleep(0.05)
    finally:
        dripper.close()

    assert failed.deliver_time is None and failed.last_error == "no answer within 0.5 s"
    assert first_end - first_open < 2.0  # cut at the deadline, though it never stopped dripping
    assert stopped_in < 3.0
    assert dripper.open == 0 and dripper.ended[-1] - began < 3.0
    assert notify_threads() == []


# -- --workflows DIR ------------------------------------------------------------------------------

YAML_DEFINITION = """\
id: imported-yaml
project: alpha
target: coordinator
secret: start-secret-0123456789
promptTemplate: Build {{issue.key}}
stages:
  - id: build
    instructions: Build it.
    requiredEvidence: [build]
  - {id: ship, instructions: Ship it.}
"""


def write_definitions(directory: Path, *, broken: bool = False) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "fix.json").write_text(json.dumps(define("imported-json")), encoding="utf-8")
    (directory / "plain.yaml").write_text(YAML_DEFINITION, encoding="utf-8")
    (directory / "notes.txt").write_text("not a definition", encoding="utf-8")
    if broken:
        document = define("broken")
        document["stages"][1]["maxAttempts"] = 99
        (directory / "broken.json").write_text(json.dumps(document), encoding="utf-8")
    return directory


async def test_a_hub_started_with_a_workflows_directory_serves_its_definitions(
    hub_settings: Settings, tmp_path: Path
) -> None:
    """Both files' definitions (JSON and YAML) are registered at start, by ``--workflows``."""
    directory = write_definitions(tmp_path / "workflows")
    server = HubServer(replace(hub_settings, workflows=directory))
    await server.start()
    try:
        async with HubClient(server.address, token=ADMIN_TOKEN) as admin:
            await admin.admin.create_project("alpha")
            async with HubClient(server.address, token=ADMIN_TOKEN, project="alpha") as operator:
                json_one = (await operator.workflows.get_definition("imported-json")).definition
                yaml_one = (await operator.workflows.get_definition("imported-yaml")).definition
                listed = [d.id for d in (await operator.workflows.list_definitions()).definitions]
    finally:
        await server.stop(0.2)

    assert (json_one.project, list(json_one.stage_ids), json_one.registered_by) == (
        "alpha",
        ["review", "ship"],
        "--workflows",
    )
    assert (yaml_one.project, list(yaml_one.stage_ids), yaml_one.registered_by) == (
        "alpha",
        ["build", "ship"],
        "--workflows",
    )
    assert listed == ["imported-json", "imported-yaml"]


async def test_a_broken_definition_in_the_directory_stops_the_hub_starting(
    hub_settings: Settings, tmp_path: Path
) -> None:
    """``HubServer.start()`` raises the definition error naming the file and the field; the start
    leaves nothing open (the same data directory starts once the file is fixed)."""
    directory = write_definitions(tmp_path / "workflows", broken=True)
    broken = directory / "broken.json"
    settings = replace(hub_settings, workflows=directory)

    with pytest.raises(DefinitionError) as caught:
        await HubServer(settings).start()
    broken.unlink()
    server = HubServer(settings)
    await server.start()
    await server.stop(0.2)

    error = caught.value
    assert error.reason is Reason.WORKFLOW_DEFINITION_INVALID
    assert (error.metadata["origin"], error.metadata["definition"], error.metadata["field"]) == (
        str(broken),
        "broken",
        "stages[1].maxAttempts",
    )
    assert str(broken) in error.message and "stages[1].maxAttempts" in error.message
    assert isinstance(error, HubError)


async def test_kxm_hub_serve_with_a_broken_workflows_directory_exits_non_zero(tmp_path: Path) -> None:
    """``kxm hub serve --workflows DIR`` prints every problem (file, definition, field) and exits non-zero."""
    directory = write_definitions(tmp_path / "workflows", broken=True)
    (directory / "worse.yaml").write_text("id: worse\nproject: alpha\n", encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "kxm_grpc.cli",
        "hub",
        "serve",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path / "kxm"),
        "--workflows",
        str(directory),
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ROOT},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    problems = err.decode()

    assert process.returncode not in (0, None), problems
    assert f"{directory / 'broken.json'}: workflow broken: stages[1].maxAttempts" in problems
    assert f"{directory / 'worse.yaml'}: workflow worse: target" in problems
