"""The public webhook listener: signed starts and signals over HTTP (spec §2.1, §2.6, §2.10).

A real hub with ``webhook_port=0`` and real HTTP clients (``http.client`` in a thread, raw asyncio
streams for malformed or slow requests). Definitions are registered through the services as the
admin (``tests/workflows.py``), the coordinator through the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import io
import json
import re
import ssl
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_asyncio
from prometheus_client import REGISTRY

from kxm_grpc.cli import build_parser
from kxm_grpc.cli.hub import settings_from
from kxm_grpc.client import HubClient
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import seconds
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.server import sweeps
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.ratelimit import RateClass, RateLimiter
from kxm_grpc.server.settings import Settings, SettingsError, options
from kxm_grpc.server.webhooks import WebhookServer
from kxm_grpc.services.workflows import runs, steps
from kxm_grpc.v1 import WorkerResult
from tests.conftest import AgentFactory, Hub
from tests.workflows import ADMIN, SECRET, SIGNAL_SECRET, define, register, terminal

BODY = json.dumps({"issue": {"key": "KXM-7"}}).encode()
ANYWHERE = "0.0.0.0"  # noqa: S104 - settings only: nothing binds it here


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """SQLite only: the listener is the same on every backend (the services' PostgreSQL runs and the
    store contract suite cover the rest), and the restart test reopens the SQLite file. A test that
    must also run on PostgreSQL parametrises it indirectly with ``ON_BOTH_BACKENDS``."""
    if getattr(request, "param", "sqlite") == "postgres":
        return str(request.getfixturevalue("postgres_database"))
    return ""


ON_BOTH_BACKENDS = pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The shared test settings with the webhook listener on a free loopback port."""
    return replace(hub_settings, webhook_port=0)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any


def _post(
    port: int, path: str, body: bytes, headers: dict[str, str], method: str, tls: ssl.SSLContext | None
) -> Answer:
    if tls is not None:
        connection: http.client.HTTPConnection = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=tls)
    else:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        return Answer(response.status, dict(response.headers), json.loads(raw) if raw else None)
    finally:
        connection.close()


async def post(
    port: int,
    path: str,
    body: bytes = BODY,
    headers: dict[str, str] | None = None,
    *,
    content_type: str | None = "application/json",
    method: str = "POST",
    tls: ssl.SSLContext | None = None,
) -> Answer:
    """One HTTP request to 127.0.0.1:``port``, off the hub's event loop."""
    sent = dict(headers or {})
    if content_type is not None:
        sent["Content-Type"] = content_type
    return await asyncio.to_thread(_post, port, path, body, sent, method, tls)


def signed(
    kind: Kind,
    definition: str,
    body: bytes = BODY,
    *,
    delivery: str,
    run: str = "",
    key: str = "",
    secret: str = SECRET,
    at: int | None = None,
) -> dict[str, str]:
    """The three kxm-webhook-v1 headers, as the reference sender signs them."""
    return signatures.sign(secret, kind, at or int(time.time()), delivery, definition, run, key, body)


def start_path(definition: str) -> str:
    return f"/v1/webhooks/{definition}"


def signal_path(definition: str, run: str, key: str) -> str:
    return f"/v1/webhooks/{definition}/runs/{run}/signals/{key}"


def port_of(hub: Hub) -> int:
    assert hub.server.webhook_port is not None
    return hub.server.webhook_port


async def start_signed(hub: Hub, definition: str = "fix", *, delivery: str, body: bytes = BODY) -> Answer:
    headers = signed(Kind.START, definition, body, delivery=delivery)
    return await post(port_of(hub), start_path(definition), body, headers)


async def inbox(client: HubClient) -> list[Any]:
    return list((await client.messages.list_inbox(page_size=100)).messages)


def runs_of(hub: Hub) -> Callable[[], Any]:
    async def read() -> list[Any]:
        page, _ = await runs.list_page(hub.server.store, ADMIN, status=None, definition_id="", size=100, token="")
        return page

    return read


# -- starts ---------------------------------------------------------------------------------------


async def test_a_signed_start_prompts_the_coordinator_and_a_retry_is_a_duplicate(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """202 with only the run's id and status; the coordinator's prompt comes from ``workflow:<run>``;
    the same delivery again is 200 duplicate; the same id with another body is 409."""
    coordinator = await make_agent("coordinator")
    await register(hub, define())

    first = await start_signed(hub, delivery="dlv-1")
    again = await start_signed(hub, delivery="dlv-1")
    other_body = json.dumps({"issue": {"key": "KXM-8"}}).encode()
    conflict = await start_signed(hub, delivery="dlv-1", body=other_body)
    prompts = await inbox(coordinator)

    assert first.status == 202
    assert set(first.body) == {"runId", "status", "duplicate"}
    assert first.body["status"] == "running" and first.body["duplicate"] is False
    run_id = first.body["runId"]
    assert first.headers["Content-Type"] == "application/json"
    assert first.headers["X-Request-Id"].startswith("req_")
    assert again.status == 200 and again.body == {"duplicate": True, "runId": run_id, "status": "running"}
    assert conflict.status == 409
    assert conflict.body["code"] == "ERROR_REASON_WEBHOOK_DELIVERY_CONFLICT"
    assert conflict.body["runId"] == run_id and conflict.body["requestId"]
    assert [m.from_agent_id for m in prompts] == [f"workflow:{run_id}"]
    assert "Fix KXM-7" in prompts[0].content
    assert len(await runs_of(hub)()) == 1


async def test_a_github_body_signature_starts_once_per_body(hub: Hub, make_agent: AgentFactory) -> None:
    """A github definition takes GitHub's body-only form; the event is its header; the same body
    under another delivery id is a replay (409), another event starts nothing (204)."""
    await make_agent("coordinator")
    await register(hub, define("gh", source="github", event="issues"))
    mac = signatures._signature(SECRET, BODY)

    def github(delivery: str, event: str = "issues") -> dict[str, str]:
        return {"X-GitHub-Delivery": delivery, "X-GitHub-Event": event, "X-Hub-Signature-256": mac}

    started = await post(port_of(hub), start_path("gh"), BODY, github("gh-1"))
    replayed = await post(port_of(hub), start_path("gh"), BODY, github("gh-2"))
    other_event = await post(port_of(hub), start_path("gh"), BODY, github("gh-3", "push"))

    assert started.status == 202 and started.body["status"] == "running"
    assert replayed.status == 409 and replayed.body["code"] == "ERROR_REASON_WEBHOOK_PAYLOAD_REPLAYED"
    assert other_event.status == 204 and other_event.body is None
    assert len(await runs_of(hub)()) == 1


async def test_an_event_or_filter_that_does_not_match_is_204_and_stores_nothing(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """The payload's ``webhookEvent`` (else ``event``) is the generic sender's event."""
    await make_agent("coordinator")
    await register(hub, define("jira-like", event="jira:issue_created"))
    await register(hub, define("filtered", filter={"path": "issue.key", "equals": "KXM-1"}))
    created = json.dumps({"webhookEvent": "jira:issue_created", "issue": {"key": "KXM-1"}}).encode()
    updated = json.dumps({"webhookEvent": "jira:issue_updated", "issue": {"key": "KXM-1"}}).encode()

    mismatch = await start_signed(hub, "jira-like", delivery="j-1", body=updated)
    matched = await start_signed(hub, "jira-like", delivery="j-2", body=created)
    filtered = await start_signed(hub, "filtered", delivery="f-1")  # issue.key is KXM-7

    assert (mismatch.status, mismatch.body) == (204, None)
    assert matched.status == 202
    assert filtered.status == 204
    assert len(await runs_of(hub)()) == 1


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        ("forged", "ERROR_REASON_WEBHOOK_SIGNATURE_INVALID"),
        ("missing", "ERROR_REASON_WEBHOOK_SIGNATURE_MISSING"),
        ("stale", "ERROR_REASON_WEBHOOK_TIMESTAMP_EXPIRED"),
        ("unsupported", "ERROR_REASON_WEBHOOK_SIGNATURE_UNSUPPORTED"),
        ("body-only", "ERROR_REASON_WEBHOOK_SIGNATURE_MISSING"),
    ],
)
async def test_a_start_that_does_not_verify_is_401_and_starts_nothing(
    hub: Hub, make_agent: AgentFactory, tamper: str, reason: str
) -> None:
    """Forged, missing, 301 s old, another algorithm, or GitHub's form for a generic definition."""
    await make_agent("coordinator")
    await register(hub, define())
    headers = signed(Kind.START, "fix", delivery="dlv-x", at=int(time.time()) - 301 if tamper == "stale" else None)
    if tamper == "forged":
        headers = signed(Kind.START, "fix", delivery="dlv-x", secret="not-the-start-secret-at-all")
    elif tamper == "missing":
        del headers["x-kxm-signature"]
    elif tamper == "unsupported":
        headers["x-kxm-signature"] = "sha1=" + "0" * 40
    elif tamper == "body-only":
        headers = {"X-GitHub-Delivery": "gh-1", "X-Hub-Signature-256": signatures._signature(SECRET, BODY)}

    answer = await post(port_of(hub), start_path("fix"), BODY, headers)

    assert answer.status == 401
    assert answer.body["code"] == reason
    shown = json.dumps(answer.body)
    assert SECRET not in shown
    assert "x-kxm-signature" not in headers or headers["x-kxm-signature"] not in shown
    assert await runs_of(hub)() == []


async def test_a_body_that_verifies_but_is_not_a_json_object_is_400_invalid_json(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """The signature is checked first (a forger hears 401 whatever it sends), then the body."""
    await make_agent("coordinator")
    await register(hub, define())

    bodies = (
        b"{not json",
        b"[1, 2]",
        b'{"a": NaN}',
        '{"a": "é"}'.encode("latin-1"),  # not UTF-8
        b"[" * 100_000 + b"]" * 100_000,  # nested past the parser's depth
        b'{"issue": {"key": "\\u0000"}}',  # a NUL (PostgreSQL refuses it in the prompt)
        b'{"issue": {"key": "\\ud800"}}',  # half a surrogate pair (no UTF-8 form)
    )
    answers = [await start_signed(hub, delivery=f"bad-{index}", body=body) for index, body in enumerate(bodies)]
    pair = await start_signed(hub, delivery="emoji", body=b'{"issue": {"key": "\\ud83d\\ude00"}}')
    forged = await post(port_of(hub), start_path("fix"), b"{not json", {"x-kxm-signature": "sha256=00"})

    assert [a.status for a in answers] == [400] * len(bodies)
    assert {a.body["code"] for a in answers} == {"ERROR_REASON_INVALID_JSON"}
    assert pair.status == 202  # a whole pair is one character
    assert forged.status == 401
    assert len(await runs_of(hub)()) == 1


async def test_a_coordinator_never_registered_is_409(hub: Hub) -> None:
    """Resolving the coordinator (§2.1 step 7) after the signature: WORKFLOW_TARGET_UNAVAILABLE."""
    await register(hub, define())

    answer = await start_signed(hub, delivery="dlv-1")

    assert answer.status == 409 and answer.body["code"] == "ERROR_REASON_WORKFLOW_TARGET_UNAVAILABLE"


async def test_a_secret_this_replica_cannot_resolve_is_503(
    hub: Hub, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch, log_lines: io.StringIO
) -> None:
    """The definition names its secret by variable; unset here, this replica cannot verify: 503 with
    Retry-After, naming the field, never a value; set again, the same request starts."""
    await make_agent("coordinator")
    monkeypatch.setenv("KXM_TEST_FIX_SECRET", SECRET)
    document = define()
    del document["secret"]
    document["secretEnv"] = "KXM_TEST_FIX_SECRET"
    await register(hub, document)
    monkeypatch.delenv("KXM_TEST_FIX_SECRET")

    refused = await start_signed(hub, delivery="dlv-1")
    monkeypatch.setenv("KXM_TEST_FIX_SECRET", SECRET)
    accepted = await start_signed(hub, delivery="dlv-1")

    assert refused.status == 503 and int(refused.headers["Retry-After"]) >= 1
    assert refused.body["field"] == "secretEnv" and "cannot verify" in refused.body["error"]
    assert accepted.status == 202
    logged = log_lines.getvalue()
    assert "webhook_secret_unresolved" in logged and SECRET not in logged


async def test_a_replica_resolves_only_the_secret_a_request_needs(
    hub: Hub, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch, log_lines: io.StringIO
) -> None:
    """Start, signal and notify secrets all named by variable: without the notify variable this
    replica still takes starts and signals; without the signal variable it takes starts (signals
    503 naming signalSecretEnv); without the start variable it takes signals (starts 503)."""
    coordinator = await make_agent("coordinator")
    variables = {
        "KXM_TEST_START": SECRET,
        "KXM_TEST_SIGNAL": SIGNAL_SECRET,
        "KXM_TEST_NOTIFY": "notify-secret-0123456789",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    document = define()
    del document["secret"], document["signalSecret"]
    document |= {
        "secretEnv": "KXM_TEST_START",
        "signalSecretEnv": "KXM_TEST_SIGNAL",
        "notify": {"url": "http://127.0.0.1:9/kxm", "secretEnv": "KXM_TEST_NOTIFY"},
    }
    await register(hub, document)

    monkeypatch.delenv("KXM_TEST_NOTIFY")
    first = await waiting_run(hub, coordinator, delivery="start-1")
    signalled = await signal(hub, first, delivery="ci-1")
    monkeypatch.delenv("KXM_TEST_SIGNAL")
    second = await waiting_run(hub, coordinator, delivery="start-2")
    no_signal_secret = await signal(hub, second, delivery="ci-2")
    monkeypatch.setenv("KXM_TEST_SIGNAL", SIGNAL_SECRET)
    monkeypatch.delenv("KXM_TEST_START")
    no_start_secret = await start_signed(hub, delivery="start-3")
    signalled_without_start_secret = await signal(hub, second, delivery="ci-2")

    assert signalled.status in (200, 202) and signalled.body["duplicate"] is False
    assert no_signal_secret.status == 503 and no_signal_secret.body["field"] == "signalSecretEnv"
    assert no_signal_secret.body["code"] == "ERROR_REASON_WORKFLOW_SECRET_UNAVAILABLE"
    assert no_start_secret.status == 503 and no_start_secret.body["field"] == "secretEnv"
    assert signalled_without_start_secret.status in (200, 202)
    assert signalled_without_start_secret.body["duplicate"] is False
    logged = log_lines.getvalue()
    assert not any(value in logged for value in variables.values())


async def test_a_signal_secret_equal_to_the_start_secret_here_is_refused(
    hub: Hub, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loader's rule, kept when resolving one secret: where both resolve, they must differ."""
    coordinator = await make_agent("coordinator")
    monkeypatch.setenv("KXM_TEST_SIGNAL", SIGNAL_SECRET)
    document = define()
    del document["signalSecret"]
    document["signalSecretEnv"] = "KXM_TEST_SIGNAL"
    await register(hub, document)
    run_id = await waiting_run(hub, coordinator)
    monkeypatch.setenv("KXM_TEST_SIGNAL", f"  {SECRET} ")  # trimmed, as the loader trims

    content = signal_body()
    headers = signed(Kind.SIGNAL, "fix", content, delivery="ci-1", run=run_id, key="ci-done", secret=SECRET)
    refused = await post(port_of(hub), signal_path("fix", run_id, "ci-done"), content, headers)
    started = await start_signed(hub, delivery="start-2")

    assert refused.status == 503 and refused.body["field"] == "signalSecretEnv"
    assert started.status == 503 and started.body["field"] == "signalSecretEnv"


# -- what the listener refuses from the head ------------------------------------------------------


async def test_routes_methods_media_types_and_unknown_definitions(hub: Hub) -> None:
    """404 ROUTE_NOT_FOUND off the two routes, 405 with Allow for another method, 415 for a body that
    is not UTF-8 JSON, 404 WEBHOOK_NOT_FOUND for an unknown definition."""
    port = port_of(hub)
    headers = signed(Kind.START, "nope", delivery="dlv-1")

    no_route = await post(port, "/v1/webhook/fix", BODY, headers)
    too_deep = await post(port, "/v1/webhooks/fix/runs/run_1", BODY, headers)
    get = await post(port, start_path("fix"), b"", method="GET", content_type=None)
    form = await post(
        port, start_path("fix"), b"payload=%7B%7D", headers, content_type="application/x-www-form-urlencoded"
    )
    utf16 = await post(port, start_path("fix"), BODY, headers, content_type="application/json; charset=utf-16")
    charset = await post(port, start_path("nope"), BODY, headers, content_type="Application/JSON; charset=UTF-8")
    unknown = await post(port, start_path("nope"), BODY, headers)

    assert (no_route.status, no_route.body["code"]) == (404, "ERROR_REASON_ROUTE_NOT_FOUND")
    assert (too_deep.status, too_deep.body["code"]) == (404, "ERROR_REASON_ROUTE_NOT_FOUND")
    assert get.status == 405 and get.headers["Allow"] == "POST"
    assert (form.status, form.body["code"]) == (415, "ERROR_REASON_UNSUPPORTED_MEDIA_TYPE")
    assert utf16.status == 415
    assert (charset.status, charset.body["code"]) == (404, "ERROR_REASON_WEBHOOK_NOT_FOUND")
    assert unknown.body == {
        "error": "no workflow definition 'nope'",
        "code": "ERROR_REASON_WEBHOOK_NOT_FOUND",
        "requestId": unknown.headers["X-Request-Id"],
        "definitionId": "nope",
    }


@ON_BOTH_BACKENDS
@pytest.mark.parametrize(
    ("path", "segment"),
    [
        (start_path("fix%00"), "definition"),
        (start_path("f%0Aix"), "definition"),
        (start_path("a" * 65), "definition"),
        (signal_path("fix", "run_%00", "ci-done"), "run"),
        (signal_path("fix", "r" * 81, "ci-done"), "run"),
        (signal_path("fix", "run_1", "ci%01done"), "signalKey"),
        (signal_path("fix", "run_1", "ci%7F"), "signalKey"),
        (signal_path("fix", "run_1", "ci%C2%85"), "signalKey"),  # U+0085, a C1 control
        (signal_path("fix", "run_1", "k" * 129), "signalKey"),
    ],
    ids=["nul", "newline", "long-definition", "nul-run", "long-run", "soh-key", "del-key", "c1-key", "long-key"],
)
async def test_a_control_character_or_an_over_long_route_segment_is_400(hub: Hub, path: str, segment: str) -> None:
    """Refused from the route, naming the segment, before any database lookup: on PostgreSQL a NUL
    reaching the store came back as a retryable 503."""
    await register(hub, define())
    headers = signed(Kind.START, "fix", delivery="dlv-1")

    answer = await post(port_of(hub), path, BODY, headers)

    assert answer.status == 400, answer.body
    assert answer.body["code"] == "ERROR_REASON_PROTOCOL_ERROR" and answer.body["segment"] == segment
    assert segment in answer.body["error"] and "\x00" not in answer.body["error"]


@ON_BOTH_BACKENDS
async def test_route_segments_at_their_limits_reach_the_services(hub: Hub) -> None:
    """A 64-character definition id, an 80-character run id and a 128-character key are looked up."""
    await register(hub, define())
    headers = signed(Kind.START, "a" * 64, delivery="dlv-1")
    content = signal_body()
    signal_headers = signed(
        Kind.SIGNAL, "fix", content, delivery="ci-1", run="r" * 80, key="k" * 128, secret=SIGNAL_SECRET
    )

    definition = await post(port_of(hub), start_path("a" * 64), BODY, headers)
    run = await post(port_of(hub), signal_path("fix", "r" * 80, "k" * 128), content, signal_headers)

    assert (definition.status, definition.body["code"]) == (404, "ERROR_REASON_WEBHOOK_NOT_FOUND")
    assert (run.status, run.body["code"]) == (404, "ERROR_REASON_WORKFLOW_NOT_FOUND")


async def exchange(port: int, data: bytes, *, within: float = 10.0, local: str | None = None) -> bytes:
    """Send raw bytes (from ``local``, a loopback address, if given), then everything the server
    answers until it closes (a reset ends it too)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0) if local else None)
    try:
        writer.write(data)
        await writer.drain()
        received = b""
        async with asyncio.timeout(within):
            while chunk := await reader.read(65_536):
                received += chunk
        return received
    except ConnectionResetError:
        return received
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def head_of(path: str, **headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: hub", *(f"{k.replace('_', '-')}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def test_an_oversized_body_is_413_from_its_length_without_being_read(hub: Hub) -> None:
    """Content-Length beyond 256 KiB is refused at once: the client has sent only its head."""
    port = port_of(hub)
    clock = time.perf_counter()
    answer = await exchange(port, head_of(start_path("fix"), Content_Type="application/json", Content_Length="262145"))
    elapsed = time.perf_counter() - clock
    no_length = await exchange(port, head_of(start_path("fix"), Content_Type="application/json"))
    chunked = await exchange(
        port, head_of(start_path("fix"), Content_Type="application/json", Transfer_Encoding="chunked") + b"0\r\n\r\n"
    )

    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b'"code":"ERROR_REASON_PAYLOAD_TOO_LARGE"' in answer
    assert elapsed < 2  # answered, and half-closed, without waiting for a body or the linger
    assert no_length.startswith(b"HTTP/1.1 411 ") and chunked.startswith(b"HTTP/1.1 411 ")


async def test_malformed_heads_are_400_and_repeated_signature_headers_too(hub: Hub) -> None:
    port = port_of(hub)

    garbage = await exchange(port, b"nonsense\r\n\r\n")
    folded = await exchange(port, b"POST /v1/webhooks/fix HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n")
    twice = await exchange(port, b"POST /v1/webhooks/fix HTTP/1.1\r\nX-KXM-Signature: a\r\nx-kxm-signature: b\r\n\r\n")

    assert garbage.startswith(b"HTTP/1.1 400 ")
    assert folded.startswith(b"HTTP/1.1 400 ")
    assert twice.startswith(b"HTTP/1.1 400 ")


# -- signals --------------------------------------------------------------------------------------


async def waiting_run(hub: Hub, coordinator: HubClient, definition: str = "fix", *, delivery: str = "") -> str:
    """A run of ``definition`` started over the webhook, its first stage waiting for ``ci-done``."""
    started = await start_signed(hub, definition, delivery=delivery or f"start-{definition}")
    assert started.status == 202, started.body
    run_id: str = started.body["runId"]
    state = hub.server.hub
    assert state is not None and coordinator.agent_id is not None
    caller = Caller(CredentialKind.AGENT, project="alpha", agent_id=coordinator.agent_id, agent_name="coordinator")
    await steps.wait(
        hub.server.store,
        caller,
        steps.Report(run_id, "review", summary="waiting for CI"),
        "ci-done",
        None,
        now=state.now(),
    )
    return run_id


def signal_body(status: str = "passed", **extra: Any) -> bytes:
    return json.dumps({"status": status, "summary": "CI green", **extra}).encode()


async def signal(hub: Hub, run_id: str, *, delivery: str, body: bytes | None = None, key: str = "ci-done") -> Answer:
    content = body if body is not None else signal_body()
    headers = signed(Kind.SIGNAL, "fix", content, delivery=delivery, run=run_id, key=key, secret=SIGNAL_SECRET)
    return await post(port_of(hub), signal_path("fix", run_id, key), content, headers)


async def test_a_signal_resumes_a_waiting_run_once(hub: Hub, make_agent: AgentFactory) -> None:
    """202 with the §2.10 fields and a resume prompt from ``workflow:<run>``; the same delivery again
    is 200 duplicate; the same id with another body is 409."""
    coordinator = await make_agent("coordinator")
    await register(hub, define())
    run_id = await waiting_run(hub, coordinator)

    resumed = await signal(hub, run_id, delivery="sig-1", body=signal_body(evidence={"build": "ok"}))
    again = await signal(hub, run_id, delivery="sig-1", body=signal_body(evidence={"build": "ok"}))
    conflict = await signal(hub, run_id, delivery="sig-1", body=signal_body("failed"))
    prompts = await inbox(coordinator)

    assert resumed.status == 202
    assert resumed.body == {
        "duplicate": False,
        "status": "passed",
        "stageId": "review",
        "signalKey": "ci-done",
        "retry": False,
        "completed": False,
        "degraded": False,
        "degradedRequirements": [],
        "resumed": True,
        "receivedAt": resumed.body["receivedAt"],
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z", resumed.body["receivedAt"])
    # A duplicate answers the first receipt's time.
    assert again.status == 200 and again.body == {**resumed.body, "duplicate": True}
    assert conflict.status == 409 and conflict.body["code"] == "ERROR_REASON_WORKFLOW_SIGNAL_DELIVERY_CONFLICT"
    assert [m.from_agent_id for m in prompts] == [f"workflow:{run_id}"] * 2
    assert "Signal: ci-done" in prompts[1].content and "build: ok" in prompts[1].content


async def test_signal_refusals(hub: Hub, make_agent: AgentFactory) -> None:
    """A start signature replayed as a signal (cross-kind) is 401; a signature for another key is 401;
    a bad status or evidence is 400 naming the field; an unknown run is 404; a run not waiting 409."""
    coordinator = await make_agent("coordinator")
    await register(hub, define())
    run_id = await waiting_run(hub, coordinator)
    content = signal_body()
    as_start = signed(Kind.START, "fix", content, delivery="sig-1", run=run_id, key="ci-done", secret=SIGNAL_SECRET)
    other_key = signed(Kind.SIGNAL, "fix", content, delivery="sig-1", run=run_id, key="other", secret=SIGNAL_SECRET)

    cross_kind = await post(port_of(hub), signal_path("fix", run_id, "ci-done"), content, as_start)
    wrong_key = await post(port_of(hub), signal_path("fix", run_id, "ci-done"), content, other_key)
    no_status = await signal(hub, run_id, delivery="s-2", body=b'{"summary": "x"}')
    bad_status = await signal(hub, run_id, delivery="s-3", body=signal_body("green"))
    bad_evidence = await signal(hub, run_id, delivery="s-4", body=signal_body(evidence={"build": 1}))
    unknown_run = await signal(hub, "run_" + "0" * 32, delivery="s-5")
    resumed = await signal(hub, run_id, delivery="s-6")
    not_waiting = await signal(hub, run_id, delivery="s-7")

    assert (cross_kind.status, cross_kind.body["code"]) == (401, "ERROR_REASON_WEBHOOK_SIGNATURE_INVALID")
    assert wrong_key.status == 401
    assert (no_status.status, no_status.body["code"], no_status.body["field"]) == (
        400,
        "ERROR_REASON_INVALID_CHECKPOINT_STATUS",
        "status",
    )
    assert bad_status.status == 400 and bad_status.body["code"] == "ERROR_REASON_INVALID_CHECKPOINT_STATUS"
    assert (bad_evidence.status, bad_evidence.body["field"]) == (400, "evidence")
    assert (unknown_run.status, unknown_run.body["code"]) == (404, "ERROR_REASON_WORKFLOW_NOT_FOUND")
    assert resumed.status == 202
    assert (not_waiting.status, not_waiting.body["code"]) == (409, "ERROR_REASON_WORKFLOW_NOT_WAITING")


async def test_a_definition_without_a_signal_secret_takes_no_signed_signal(hub: Hub, make_agent: AgentFactory) -> None:
    coordinator = await make_agent("coordinator")
    document = define()
    del document["signalSecret"]
    await register(hub, document)
    run_id = await waiting_run(hub, coordinator)
    # Signed with the start secret (the original's fallback): refused before any signature check.
    content = signal_body()
    headers = signed(Kind.SIGNAL, "fix", content, delivery="sig-1", run=run_id, key="ci-done", secret=SECRET)

    answer = await post(port_of(hub), signal_path("fix", run_id, "ci-done"), content, headers)

    assert (answer.status, answer.body["code"]) == (409, "ERROR_REASON_WORKFLOW_SIGNALS_DISABLED")


async def test_replays_are_refused_after_a_restart(hub_settings: Settings) -> None:
    """Delivery ids and signal receipts live in the database: a new hub on the same file answers a
    replayed signal and a replayed start as duplicates."""
    first = HubServer(hub_settings)
    await first.start()
    try:
        hub = Hub(first, first.address, hub_settings.data_dir, hub_settings.database_path)
        async with HubClient(first.address, token="test-admin-token-0123456789", admin=True) as admin:
            token = (await admin.admin.create_project("alpha")).project_token
        coordinator = HubClient(first.address, token=token)
        await coordinator.agents.register("coordinator")
        await register(hub, define())
        run_id = await waiting_run(hub, coordinator)
        resumed = await signal(hub, run_id, delivery="sig-1")
        await coordinator.close()
    finally:
        await first.stop(0)
    second = HubServer(hub_settings)
    await second.start()
    try:
        hub = Hub(second, second.address, hub_settings.data_dir, hub_settings.database_path)
        replayed = await signal(hub, run_id, delivery="sig-1")
        restarted = await start_signed(hub, delivery="start-fix")
    finally:
        await second.stop(0)

    assert resumed.status == 202
    assert replayed.status == 200 and replayed.body["duplicate"] is True and replayed.body["resumed"] is True
    assert restarted.status == 200 and restarted.body == {"duplicate": True, "runId": run_id, "status": "running"}


async def test_a_replayed_start_is_a_duplicate_after_its_run_was_purged(hub: Hub, make_agent: AgentFactory) -> None:
    """The delivery record outlives the run (replay horizon beyond retention): 200 naming the purged
    run's id, with no status."""
    await make_agent("coordinator")
    await register(hub, define())
    started = await start_signed(hub, delivery="dlv-1")
    state = hub.server.hub
    assert state is not None
    await runs.cancel(hub.server.store, ADMIN, started.body["runId"], "done", now=state.now())
    # The hub's sweep, eight days on: past the 7-day retention, well within the 90-day horizon.
    later = SimpleNamespace(store=state.store, limits=state.limits, now=lambda: state.now() + seconds(8 * 86_400))
    purged = await sweeps.sweep_workflows(later)  # type: ignore[arg-type]

    replayed = await start_signed(hub, delivery="dlv-1")

    assert purged == 1
    assert replayed.status == 200
    assert replayed.body == {"duplicate": True, "runId": started.body["runId"], "status": None}


# -- rate limits, deadlines, the cap --------------------------------------------------------------


class RecordingLimiter(RateLimiter):
    """A RateLimiter that records which budgets were spent."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit, 60.0)
        self.spent: list[str] = []

    def check(self, identity: str, now: float | None = None, rate_class: RateClass = RateClass.DEFAULT) -> None:
        self.spent.append(identity)
        super().check(identity, now, rate_class)


@pytest_asyncio.fixture
async def listeners() -> AsyncIterator[list[WebhookServer]]:
    """Webhook listeners a test starts beside its hub (to set small limits), stopped after it."""
    servers: list[WebhookServer] = []
    yield servers
    for server in servers:
        await server.stop()


async def listen(hub: Hub, servers: list[WebhookServer], **options: Any) -> WebhookServer:
    state = hub.server.hub
    assert state is not None
    server = WebhookServer("127.0.0.1", 0, hub=state, **options)
    await server.start()
    servers.append(server)
    return server


async def test_rate_limits_per_source_and_per_verified_definition(
    hub: Hub, make_agent: AgentFactory, listeners: list[WebhookServer]
) -> None:
    """Every request spends its address's budget; only a verified one its definition's; beyond
    either budget: 429 RATE_LIMITED with Retry-After."""
    await make_agent("coordinator")
    await register(hub, define())
    limiter = RecordingLimiter(3)
    server = await listen(hub, listeners, limiter=limiter)

    forged = await post(server.port, start_path("fix"), BODY, {"x-kxm-signature": "sha256=00"})
    spent_by_forgery = list(limiter.spent)
    verified = await post(server.port, start_path("fix"), BODY, signed(Kind.START, "fix", delivery="d-1"))
    third = await post(server.port, start_path("nope"), BODY, {})
    limited = await post(server.port, start_path("fix"), BODY, signed(Kind.START, "fix", delivery="d-2"))

    assert forged.status == 401 and spent_by_forgery == ["source:127.0.0.1"]
    assert verified.status == 202
    assert limiter.spent[1:3] == ["source:127.0.0.1", "definition:fix"]
    assert third.status == 404
    assert limited.status == 429 and limited.body["code"] == "ERROR_REASON_RATE_LIMITED"
    assert int(limited.headers["Retry-After"]) >= 1


async def test_a_slowloris_is_cut_at_the_head_deadline_and_blocks_nobody(
    hub: Hub, listeners: list[WebhookServer]
) -> None:
    """Half a head, trickled: 408 at the head deadline (one deadline, not per read); meanwhile a
    request on another connection is answered at once."""
    server = await listen(hub, listeners, head_timeout=0.5, max_connections=2)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    clock = time.perf_counter()

    async def trickle() -> None:
        with contextlib.suppress(ConnectionError):
            for byte in b"POST /v1/webhooks/fix HTTP/1.1\r\nHost: hub\r\nX-Slow: " + b"a" * 100:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.05)

    trickling = asyncio.create_task(trickle())
    try:
        other = await post(server.port, start_path("nope"), BODY, {})
        other_done = time.perf_counter() - clock
        answer = await asyncio.wait_for(reader.read(), 5)
        cut = time.perf_counter() - clock
    finally:
        trickling.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await trickling
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()

    assert other.status == 404 and other_done < 0.5
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert 0.5 <= cut < 2


async def test_a_slow_body_is_cut_at_the_body_deadline_and_the_cap_closes_extra_connections(
    hub: Hub, listeners: list[WebhookServer]
) -> None:
    server = await listen(hub, listeners, head_timeout=5, body_timeout=0.3, max_connections=1)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(head_of(start_path("fix"), Content_Type="application/json", Content_Length="100") + b"{")
    await writer.drain()
    await asyncio.sleep(0.05)
    extra = await exchange(server.port, head_of(start_path("fix")))  # over the cap: closed unread

    answer = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()

    assert extra == b""
    assert answer.startswith(b"HTTP/1.1 408 ")


async def idle(port: int, *, local: str | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection that sends nothing (from ``local``, an address on the loopback, if given)."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0) if local else None)


async def closed(connections: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> None:
    for _, writer in connections:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def until(condition: Callable[[], bool], *, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_one_source_address_holds_at_most_its_cap_of_connections(
    hub: Hub, listeners: list[WebhookServer]
) -> None:
    """With a cap of 2 per address: two idle connections from 127.0.0.1, the third is closed at
    once, unread; another loopback address is still served; once one closes, 127.0.0.1 is again."""
    server = await listen(hub, listeners, max_connections=10, max_connections_per_source=2, head_timeout=10)
    held = [await idle(server.port), await idle(server.port)]
    try:
        await until(lambda: server.connections_from("127.0.0.1") == 2)
        began = time.perf_counter()
        third = await exchange(server.port, head_of(start_path("nope"), Content_Type="application/json"))
        refused_in = time.perf_counter() - began
        request = head_of(start_path("nope"), Content_Type="application/json", Content_Length="2") + b"{}"
        try:
            other: bytes | None = await exchange(server.port, request, local="127.0.0.2")
        except OSError:
            other = None  # no second loopback address to send from here (Linux has 127/8)
        await closed(held[:1])
        await until(lambda: server.connections_from("127.0.0.1") == 1)
        again = await post(server.port, start_path("nope"), BODY, {})
    finally:
        await closed(held)

    assert third == b"" and refused_in < 1
    if other is not None:
        assert other.startswith(b"HTTP/1.1 404 ")
    assert again.status == 404 and again.body["code"] == "ERROR_REASON_WEBHOOK_NOT_FOUND"


async def test_the_source_budget_is_spent_when_a_connection_is_accepted(
    hub: Hub, listeners: list[WebhookServer]
) -> None:
    """Two idle connections spend a budget of 2: the third connection's request is 429 at once,
    though the first two never sent a byte."""
    limiter = RecordingLimiter(2)
    server = await listen(hub, listeners, limiter=limiter, head_timeout=10)
    held = [await idle(server.port), await idle(server.port)]
    try:
        await until(lambda: limiter.spent.count("source:127.0.0.1") == 2)
        limited = await post(server.port, start_path("nope"), BODY, {})
    finally:
        await closed(held)

    assert limited.status == 429 and limited.body["code"] == "ERROR_REASON_RATE_LIMITED"
    assert int(limited.headers["Retry-After"]) >= 1
    assert limiter.spent == ["source:127.0.0.1"] * 3


async def test_expect_100_continue_is_answered_before_the_body(hub: Hub, make_agent: AgentFactory) -> None:
    """curl sends bodies over 1 KiB after ``Expect: 100-continue``: it gets its 100 at once."""
    await make_agent("coordinator")
    await register(hub, define())
    headers = signed(Kind.START, "fix", delivery="dlv-1")
    reader, writer = await asyncio.open_connection("127.0.0.1", port_of(hub))
    head = head_of(
        start_path("fix"),
        Content_Type="application/json",
        Content_Length=str(len(BODY)),
        Expect="100-continue",
        **{name.replace("-", "_"): value for name, value in headers.items()},
    )
    writer.write(head)
    await writer.drain()
    interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    writer.write(BODY)
    await writer.drain()
    final = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()

    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert final.startswith(b"HTTP/1.1 202 ")


# -- the listener in the hub ----------------------------------------------------------------------


async def test_requests_are_logged_and_counted_without_secrets(
    hub: Hub, make_agent: AgentFactory, log_lines: io.StringIO
) -> None:
    await make_agent("coordinator")
    await register(hub, define())
    before = REGISTRY.get_sample_value("kxm_webhook_requests_total", {"route": "start", "code": "202"}) or 0
    headers = signed(Kind.START, "fix", delivery="dlv-1")

    answer = await post(port_of(hub), start_path("fix"), BODY, headers)

    after = REGISTRY.get_sample_value("kxm_webhook_requests_total", {"route": "start", "code": "202"})
    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    (line,) = [entry for entry in lines if entry["event"] == "webhook_request"]
    assert answer.status == 202
    assert after == before + 1
    assert line["route"] == "start" and line["definition_id"] == "fix" and line["status"] == 202
    assert line["request_id"] == answer.headers["X-Request-Id"] and "duration_ms" in line
    logged = log_lines.getvalue()
    assert headers["x-kxm-signature"] not in logged and "KXM-7" not in logged and SECRET not in logged


async def test_the_listener_is_off_by_default_and_stops_with_the_hub(hub_settings: Settings) -> None:
    off = HubServer(replace(hub_settings, webhook_port=None))
    await off.start()
    assert off.webhook_port is None and off.webhook_address is None
    await off.stop(0)

    on = HubServer(hub_settings)
    await on.start()
    port = on.webhook_port
    assert port and on.webhook_address == f"127.0.0.1:{port}"
    silent, writer = await asyncio.open_connection("127.0.0.1", port)
    await asyncio.wait_for(on.stop(0), 10)

    assert await asyncio.wait_for(silent.read(), 5) == b""
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", port)
    writer.close()


async def test_the_listener_serves_tls_with_the_hubs_certificate(hub_settings: Settings, pki: Path) -> None:
    """Without --webhook-tls-cert, a hub with --tls-cert serves its webhooks over TLS with it."""
    settings = replace(hub_settings, tls_cert=pki / "server.pem", tls_key=pki / "server.key")
    server = HubServer(settings)
    await server.start()
    try:
        assert server.webhook_port is not None
        tls = ssl.create_default_context(cafile=str(pki / "ca.pem"))
        answer = await post(server.webhook_port, start_path("nope"), BODY, {}, tls=tls)
        plain = await exchange(server.webhook_port, head_of(start_path("nope")), within=10)
    finally:
        await server.stop(0)

    assert (answer.status, answer.body["code"]) == (404, "ERROR_REASON_WEBHOOK_NOT_FOUND")
    assert not plain.startswith(b"HTTP/1.1")  # plain HTTP to a TLS port is not answered in kind


# -- settings -------------------------------------------------------------------------------------


def test_webhook_and_retention_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off by default, loopback by default; flags and variables; retention shorter than the horizon."""
    for option in options():
        for name in option.envs:
            monkeypatch.delenv(name, raising=False)
    parser = build_parser()
    default = settings_from(parser.parse_args(["hub", "serve", "--host", ANYWHERE, "--admin-token", "x" * 16]))
    chosen = settings_from(
        parser.parse_args(
            [
                "hub",
                "serve",
                "--webhook-port",
                "0",
                "--webhook-host",
                ANYWHERE,
                "--webhook-rate-limit",
                "30",
                "--workflow-replay-horizon",
                "86400",
                "--workflow-retention",
                "3600",
            ]
        )
    )
    monkeypatch.setenv("KXM_WEBHOOK_PORT", "8443")
    from_env = settings_from(build_parser().parse_args(["hub", "serve"]))

    assert (default.webhook_port, default.webhook_host, default.webhook_rate_limit) == (None, "127.0.0.1", 600)
    assert (default.workflow_replay_horizon, default.workflow_retention) == (90 * 86_400, 7 * 86_400)
    assert (chosen.webhook_port, chosen.webhook_host, chosen.webhook_rate_limit) == (0, ANYWHERE, 30)
    assert (chosen.workflow_replay_horizon, chosen.workflow_retention) == (86_400, 3_600)
    assert from_env.webhook_port == 8443
    chosen.validate()
    Settings(webhook_port=0, webhook_host=ANYWHERE).validate()  # no admin token needed: every request is signed
    with pytest.raises(SettingsError, match="webhook port"):
        Settings(webhook_port=70_000).validate()
    with pytest.raises(SettingsError, match="shorter than workflow-replay-horizon"):
        Settings(workflow_retention=90 * 86_400).validate()
    with pytest.raises(SettingsError, match="600 s"):
        Settings(workflow_replay_horizon=300, workflow_retention=100).validate()
    with pytest.raises(SettingsError, match="webhook-tls-key"):
        Settings(webhook_tls_cert=Path("hook.pem")).validate()
    with pytest.raises(SettingsError, match="webhook rate limit"):
        Settings(webhook_rate_limit=0).validate()


async def test_a_signed_signal_resolves_a_step_runs_wait_step(
    hub: Hub, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step workflow's wait step takes a signed signal verified with the secret its
    ``signalSecretEnv`` names (never stored): 202 with the step, once; the same delivery again is a
    duplicate; a body naming no declared outcome is 400; a replica without the variable is 503."""
    secret = "step-signal-secret-0123456789"
    builder = await make_agent("builder")
    document = {
        "schema": "kxm.workflow.v1",
        "id": "release",
        "project": "alpha",
        "signalSecretEnv": "KXM_TEST_RELEASE_SIGNAL",
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "on": {"passed": "window", "failed": terminal("failed")},
            },
            {
                "id": "window",
                "kind": "wait",
                "signal": "deploy-window",
                "on": {"open": "sign-off", "closed": terminal("cancelled")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
        assert secret not in (await admin.workflows.get_definition("release")).definition.plan
        run = (await admin.workflows.start_run("release", delivery_id="one")).run
    assignment = (await builder.workflows.next_assignment()).assignment
    await builder.workflows.complete_assignment(assignment.assignment_id, WorkerResult(outcome="passed"))

    def send(delivery: str, body: bytes) -> Any:
        headers = signed(
            Kind.SIGNAL, "release", body, delivery=delivery, run=run.id, key="deploy-window", secret=secret
        )
        return post(port_of(hub), signal_path("release", run.id, "deploy-window"), body, headers)

    unavailable = await send("s-0", signal_body(outcome="open"))
    monkeypatch.setenv("KXM_TEST_RELEASE_SIGNAL", secret)
    undeclared = await send("s-1", signal_body())  # "pass" is not one of the wait step's outcomes
    resumed = await send("s-2", signal_body(outcome="open"))
    again = await send("s-2", signal_body(outcome="open"))

    assert (unavailable.status, unavailable.body["code"]) == (503, "ERROR_REASON_WORKFLOW_SECRET_UNAVAILABLE")
    assert (undeclared.status, undeclared.body["field"]) == (400, "outcome")
    assert resumed.status == 202 and (resumed.body["stageId"], resumed.body["resumed"]) == ("window", True)
    assert again.status == 200 and again.body["duplicate"] is True
    async with hub.admin(project="alpha") as admin:
        assert (await admin.workflows.get_run(run.id)).run.steps.current_step_id == "sign-off"
