"""The HTTP port (``server/http_api.py``): every unary and server-streaming RPC over Connect (JSON
and binary) and gRPC-Web, admitted and answered as over gRPC; driven byte for byte and with
``buf curl`` in both protocols."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import random
import ssl
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from google.rpc import error_details_pb2, status_pb2

from kxm_grpc.client import HubClient
from kxm_grpc.errors import NotFound, Reason, ResourceExhausted
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings, SettingsError
from kxm_grpc.v1 import message_service_pb2
from tests.api.http_client import Connection, framed, frames
from tests.api.test_metrics import tls_settings, trusting
from tests.conftest import AgentFactory, Hub, Project

ROOT = Path(__file__).resolve().parents[2]
SEND = "/kxm.v1.MessageService/SendMessage"
SUBSCRIBE = "/kxm.v1.MessageService/Subscribe"


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The test hub with its HTTP port on (a free port on loopback)."""
    return replace(hub_settings, http_port=0)


def _http(hub: Hub) -> str:
    address = hub.server.http_address
    assert address is not None
    return address


def _json(data: object) -> bytes:
    return json.dumps(data).encode()


def _error_info(details: list[dict[str, object]]) -> error_details_pb2.ErrorInfo:
    encoded = next(d["value"] for d in details if d["type"] == "google.rpc.ErrorInfo")
    assert isinstance(encoded, str)
    return error_details_pb2.ErrorInfo.FromString(base64.b64decode(encoded + "=" * (-len(encoded) % 4)))


async def test_connect_json_send_and_errors_as_over_grpc(hub: Hub, make_agent: AgentFactory) -> None:
    """A send through curl-style JSON is the gRPC send: stored, delivered, same error reasons and
    statuses; two requests share one kept-alive connection."""
    alice, bob = await make_agent("alice"), await make_agent("bob")

    async with Connection(_http(hub)) as http:
        sent = await http.request(SEND, _json({"target": "bob", "content": "review"}), headers=alice.metadata)
        missing = await http.request(SEND, _json({"target": "ghost", "content": "x"}), headers=alice.metadata)
    inbox = await bob.messages.list_inbox()
    with pytest.raises(NotFound) as over_grpc:
        await alice.messages.send("ghost", "x")

    assert sent.status == 200 and sent.headers["content-type"] == "application/json"
    assert sent.headers["x-request-id"].startswith("req_")
    message = json.loads(sent.body)["message"]
    assert (message["toAgentName"], message["seq"]) == ("bob", "1")  # 64-bit integers as strings
    assert [m.id for m in inbox.messages] == [message["id"]]
    error = json.loads(missing.body)
    assert missing.status == 404 and error["code"] == "not_found"
    info = _error_info(error["details"])
    assert info.reason == over_grpc.value.reason == "ERROR_REASON_TARGET_NOT_FOUND"
    assert dict(info.metadata) == over_grpc.value.metadata
    assert error["details"][0]["debug"]["reason"] == info.reason


async def test_binary_connect_and_grpc_web_unary(hub: Hub, make_agent: AgentFactory) -> None:
    alice = await make_agent("alice")
    await make_agent("bob")
    request = message_service_pb2.SendMessageRequest(target="bob", content="hi").SerializeToString()
    headers = [*alice.metadata, ("x-request-id", "req-web-1")]

    async with Connection(_http(hub)) as http:
        binary = await http.request(SEND, request, content_type="application/proto", headers=alice.metadata)
        web = await http.request(SEND, framed(request), content_type="application/grpc-web+proto", headers=headers)
        web_error = await http.request(
            SEND,
            framed(message_service_pb2.SendMessageRequest(target="ghost", content="x").SerializeToString()),
            content_type="application/grpc-web",
            headers=alice.metadata,
        )

    assert binary.status == 200
    assert message_service_pb2.SendMessageResponse.FromString(binary.body).message.to_agent_name == "bob"
    (flags, body), (trailer_flags, trailers) = frames(web.body)
    assert web.status == 200 and web.headers["x-request-id"] == "req-web-1"
    assert flags == 0 and message_service_pb2.SendMessageResponse.FromString(body).message.content == "hi"
    assert trailer_flags == 0x80 and b"grpc-status: 0" in trailers
    [(_, error_trailers)] = frames(web_error.body)
    fields = dict(line.split(": ", 1) for line in error_trailers.decode().strip().split("\r\n"))
    assert fields["grpc-status"] == "5"
    details = fields["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(base64.b64decode(details + "=" * (-len(details) % 4)))
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info) and info.reason == "ERROR_REASON_TARGET_NOT_FOUND"


async def test_subscribe_streams_and_ends_at_its_deadline(hub: Hub, make_agent: AgentFactory) -> None:
    """Subscribe over Connect streaming JSON: the ready event, the message, then the end of stream
    with DEADLINE_EXCEEDED at connect-timeout-ms (and the same over gRPC-Web)."""
    alice, bob = await make_agent("alice"), await make_agent("bob")
    await alice.messages.send("bob", "queued first")
    headers = [*bob.metadata, ("connect-timeout-ms", "3000")]

    async with Connection(_http(hub)) as http:
        answer = await http.request(SUBSCRIBE, framed(b"{}"), content_type="application/connect+json", headers=headers)
    async with Connection(_http(hub)) as http:
        web = await http.request(
            SUBSCRIBE,
            framed(b""),
            content_type="application/grpc-web+proto",
            headers=[*bob.metadata, ("grpc-timeout", "3S")],
        )

    events = frames(answer.body)
    assert answer.status == 200 and answer.headers["content-type"] == "application/connect+json"
    assert "ready" in json.loads(events[0][1])
    assert json.loads(events[1][1])["message"]["content"] == "queued first"
    flags, end = events[-1]
    assert flags == 0x02 and json.loads(end)["error"]["code"] == "deadline_exceeded"
    web_frames = frames(web.body)
    assert message_service_pb2.SubscribeResponse.FromString(web_frames[1][1]).message.content == "queued first"
    assert web_frames[-1][0] == 0x80 and b"grpc-status: 4" in web_frames[-1][1]


async def test_a_client_that_leaves_ends_its_stream(hub: Hub, make_agent: AgentFactory) -> None:
    """An HTTP stream holds one of the agent's stream slots (one here) while its connection is open,
    and gives it back as soon as the client closes the connection."""
    assert hub.server.hub is not None
    hub.server.hub.settings = replace(hub.server.hub.settings, max_streams_per_agent=1)
    bob = await make_agent("bob")
    async with Connection(_http(hub)) as http:
        await http.send("POST", SUBSCRIBE, framed(b"{}"), content_type="application/connect+json", headers=bob.metadata)
        status, _ = await http.head()
        first = [chunk async for chunk in _take(http, 1)]
        with pytest.raises(ResourceExhausted) as held:
            await _first_event(bob)
    assert status == 200 and "ready" in json.loads(frames(first[0])[0][1])
    assert held.value.reason == Reason.STREAM_LIMIT_REACHED

    for _ in range(100):  # the hub sees the close on its next read of the socket: at once
        try:
            assert (await _first_event(bob)).HasField("ready")
            return
        except ResourceExhausted:
            await asyncio.sleep(0.05)
    raise AssertionError("the stream of the closed connection still holds its slot")


async def _first_event(client: HubClient) -> message_service_pb2.SubscribeResponse:
    async for event in client.messages.subscribe(reconnect=False):
        return event
    raise AssertionError("the stream ended without an event")


async def _take(http: Connection, count: int):  # type: ignore[no-untyped-def]
    taken = 0
    async for chunk in http.chunks():
        yield chunk
        taken += 1
        if taken == count:
            return


@pytest.mark.parametrize(
    ("method", "path", "body", "content_type", "status", "expected"),
    [
        ("GET", SEND, b"", None, 405, "POST"),
        ("POST", SEND, b"{}", "text/plain", 415, "Content-Type"),
        ("POST", "/kxm.v1.MessageService/Nope", b"{}", "application/json", 404, "unimplemented"),
        ("POST", "/kxm.v1.AgentService/OpenChannel", b"{}", "application/json", 501, "gRPC only"),
        ("POST", SEND, b"{not json", "application/json", 400, "ERROR_REASON_INVALID_JSON"),
        ("POST", SUBSCRIBE, b"{}", "application/json", 415, "server-streaming"),
    ],
)
async def test_what_is_not_an_rpc_call_is_refused_clearly(
    hub: Hub,
    make_agent: AgentFactory,
    method: str,
    path: str,
    body: bytes,
    content_type: str | None,
    status: int,
    expected: str,
) -> None:
    alice = await make_agent("alice")
    async with Connection(_http(hub)) as http:
        await http.send(method, path, body, content_type=content_type, headers=alice.metadata)
        answer = await http.answer()
        again = await http.request(SEND, _json({"target": "alice", "content": "x"}), headers=alice.metadata)

    assert answer.status == status
    assert expected in answer.body.decode() + answer.headers.get("allow", "")
    assert again.status == 400  # the connection still serves (SELF_TARGET: a real answer)


async def test_credentials_and_projects_as_over_grpc(
    hub: Hub, make_agent: AgentFactory, make_project: object, project: Project
) -> None:
    """No credentials: 401; an agent of another project cannot read alpha's message (NOT_FOUND, as gRPC)."""
    alice = await make_agent("alice")
    await make_agent("bob")
    sent = await alice.messages.send("bob", "private")
    beta = await make_project("beta")  # type: ignore[operator]
    mallory = await make_agent("mallory", in_project=beta)
    get = "/kxm.v1.MessageService/GetMessage"

    async with Connection(_http(hub)) as http:
        anonymous = await http.request(get, _json({"messageId": sent.message.id}))
        foreign = await http.request(get, _json({"messageId": sent.message.id}), headers=mallory.metadata)
    with pytest.raises(NotFound) as over_grpc:
        await mallory.messages.get(sent.message.id)

    assert anonymous.status == 401 and json.loads(anonymous.body)["code"] == "unauthenticated"
    error = json.loads(foreign.body)
    assert foreign.status == 404 and _error_info(error["details"]).reason == over_grpc.value.reason
    assert "private" not in foreign.body.decode()


async def test_an_oversized_body_is_refused_without_reading_it(hub: Hub, make_agent: AgentFactory) -> None:
    alice = await make_agent("alice")
    async with Connection(_http(hub)) as http:
        http.writer.write(
            f"POST {SEND} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {10 << 20}\r\n\r\n".encode()
        )
        answer = await http.answer()
    assert answer.status == 413 and answer.headers["connection"] == "close"
    assert alice.agent_id  # the hub is still serving
    async with Connection(_http(hub)) as http:
        assert (
            await http.request(SEND, _json({"target": "alice", "content": "x"}), headers=alice.metadata)
        ).status == 400


async def test_cors_is_off_unless_origins_are_named(hub: Hub, tmp_path: Path, make_agent: AgentFactory) -> None:
    alice = await make_agent("alice")
    preflight = [("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")]
    async with Connection(_http(hub)) as http:
        await http.send("OPTIONS", SEND, content_type=None, headers=preflight)
        refused = await http.answer()
        plain = await http.request(
            SEND, _json({"target": "alice"}), headers=[*alice.metadata, ("Origin", "https://app.example")]
        )

    settings = replace(
        hub.server.settings, port=0, http_port=0, http_cors_origin=("https://app.example",), data_dir=tmp_path / "cors"
    )
    other = HubServer(settings)
    await other.start()
    try:
        assert other.http_address is not None
        async with Connection(other.http_address) as http:
            await http.send("OPTIONS", SEND, content_type=None, headers=preflight)
            allowed = await http.answer()
            await http.send("OPTIONS", SEND, content_type=None, headers=[("Origin", "https://evil.example")])
            foreign = await http.answer()
    finally:
        await other.stop(0)

    assert refused.status == 403 and "access-control-allow-origin" not in refused.headers
    assert "access-control-allow-origin" not in plain.headers
    assert allowed.status == 204 and allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert "authorization" in allowed.headers["access-control-allow-headers"]
    assert "grpc-status" in allowed.headers["access-control-expose-headers"]
    assert foreign.status == 403


async def test_served_over_tls_and_never_beyond_loopback_without_it(hub_settings: Settings, pki: Path) -> None:
    with pytest.raises(SettingsError, match="needs TLS"):
        replace(hub_settings, http_host="0.0.0.0").validate()  # noqa: S104  # refused, never bound
    server = HubServer(tls_settings(hub_settings, pki))
    await server.start()
    try:
        assert server.http_address is not None
        async with Connection(server.http_address, tls=trusting(pki)) as http:
            answer = await http.request("/kxm.v1.AgentService/ListAgents", b"{}")
    finally:
        await server.stop(0)
    assert answer.status == 401  # reached over TLS; no credentials given


@pytest.fixture(scope="module")
def contract_image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The contract as a buf image, built once: ``buf curl --schema`` then reads it at once (compiling
    the protos on each call would spend the calls' ``--timeout``)."""
    image = tmp_path_factory.mktemp("buf") / "contract.binpb"
    subprocess.run([str(ROOT / ".venv/bin/buf"), "build", "-o", str(image)], check=True, cwd=ROOT, timeout=120)
    return image


def _buf_curl(
    image: Path, protocol: str, url: str, body: str, headers: tuple[tuple[str, str], ...], *extra: str
) -> tuple[int, str, str]:
    args = [str(ROOT / ".venv/bin/buf"), "curl", "--schema", str(image), "--protocol", protocol, "-d", body, *extra]
    for name, value in headers:
        args += ["-H", f"{name}: {value}"]
    done = subprocess.run([*args, url], capture_output=True, text=True, timeout=120, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("protocol", ["connect", "grpcweb"])
async def test_buf_curl_in_both_protocols(
    hub: Hub, make_agent: AgentFactory, protocol: str, contract_image: Path
) -> None:
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    base = f"http://{_http(hub)}/kxm.v1.MessageService"

    sent = await asyncio.to_thread(
        _buf_curl, contract_image, protocol, f"{base}/SendMessage", '{"target":"bob","content":"hi"}', alice.metadata
    )
    missing = await asyncio.to_thread(
        _buf_curl, contract_image, protocol, f"{base}/SendMessage", '{"target":"ghost","content":"x"}', alice.metadata
    )
    streamed = await asyncio.to_thread(
        _buf_curl, contract_image, protocol, f"{base}/Subscribe", "{}", bob.metadata, "--timeout", "5s"
    )

    assert sent[0] == 0, sent[2]
    assert json.loads(sent[1])["message"]["toAgentName"] == "bob"
    assert missing[0] != 0 and json.loads(missing[2])["code"] == "not_found"
    assert "ERROR_REASON_TARGET_NOT_FOUND" in base64.b64decode(
        json.loads(missing[2])["details"][0]["value"] + "=="
    ).decode("latin-1")
    assert '"content": "hi"' in streamed[1]
    assert "deadline_exceeded" in streamed[2]


async def test_a_chunked_body_after_100_continue(hub: Hub, make_agent: AgentFactory) -> None:
    """curl's way with a large body: ``Expect: 100-continue`` answered first, then a chunked body."""
    alice = await make_agent("alice")
    await make_agent("bob")
    body = _json({"target": "bob", "content": "c" * 3000})
    chunks = b"".join(b"%x\r\n%b\r\n" % (len(part), part) for part in (body[:1000], body[1000:])) + b"0\r\n\r\n"
    head = [
        f"POST {SEND} HTTP/1.1",
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
        "Expect: 100-continue",
    ]
    head += [f"{name}: {value}" for name, value in alice.metadata]
    async with Connection(_http(hub)) as http:
        http.writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        continued, _ = await http.head()
        http.writer.write(chunks)
        answer = await http.answer()

    assert continued == 100
    assert answer.status == 200 and len(json.loads(answer.body)["message"]["content"]) == 3000


@pytest.mark.parametrize(
    "head",
    [
        f"POST {SEND} HTTP/1.1\r\nContent-Type: application/json\r\nX-Smuggled: a\nb: c\r\nContent-Length: 2",
        f"POST {SEND} HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked",
        f"POST {SEND} HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3",
        f"POST {SEND} HTTP/1.1\r\nTransfer-Encoding: gzip, chunked",
        f"POST {SEND} HTTP/1.1\r\nContent-Length: ²",
        f"POST {SEND} HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-1",
        f"POST {SEND} HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;a\nb",
        f"POST {SEND} HTTP/1.1\r\nTransfer-Encoding: identity\r\nTransfer-Encoding: chunked",
        f"POST {SEND} HTTP/1.0\r\nTransfer-Encoding: chunked",
        f"POST {SEND}\x01x HTTP/1.1\r\nContent-Length: 2",
    ],
    ids=[
        "bare LF in a value",
        "length and chunked",
        "two lengths",
        "another encoding",
        "not ASCII digits",
        "bad chunk",
        "bare LF in a chunk extension",
        "two encodings",
        "chunked on HTTP/1.0",
        "control character in the target",
    ],
)
async def test_an_ambiguous_request_is_refused_and_the_connection_closed(hub: Hub, head: str) -> None:
    """What a proxy in front might read another way is 400, never served and never a traceback."""
    async with Connection(_http(hub)) as http:
        http.writer.write((head + "\r\n\r\n{}").encode("utf-8"))
        answer = await http.answer()
    assert answer.status == 400 and answer.headers["connection"] == "close"


async def test_binary_requests_keep_grpcs_size_limit_and_compression_is_refused(
    hub: Hub, make_agent: AgentFactory
) -> None:
    alice = await make_agent("alice")
    await make_agent("bob")
    big = message_service_pb2.SendMessageRequest(target="bob", content="x" * (300 << 10)).SerializeToString()
    async with Connection(_http(hub)) as http:
        oversized = await http.request(SEND, big, content_type="application/proto", headers=alice.metadata)
        compressed = await http.request(SEND, b"\x1f\x8b", headers=[*alice.metadata, ("Content-Encoding", "gzip")])
    assert oversized.status == 429 and _error_info(json.loads(oversized.body)["details"]).reason == (
        "ERROR_REASON_PAYLOAD_TOO_LARGE"
    )
    assert compressed.status == 501 and json.loads(compressed.body)["code"] == "unimplemented"


async def test_a_client_that_leaves_cancels_its_call(hub: Hub, make_agent: AgentFactory) -> None:
    """A lease wait whose client closed its connection ends: when the lease is released, the client
    that left does not get it (it would hold it for no one until its TTL)."""
    holder, waiter, other = await make_agent("holder"), await make_agent("waiter"), await make_agent("other")
    held = await holder.leases.acquire("db", ttl=30)
    acquire = "/kxm.v1.LeaseService/AcquireLease"
    async with Connection(_http(hub)) as http:
        await http.send("POST", acquire, _json({"name": "db", "ttl": "30s", "wait": "20s"}), headers=waiter.metadata)
        await asyncio.sleep(0.2)  # most likely under way; if not, the hub reads the request and the close together
    for _ in range(200):  # the hub sees the close and ends the connection with its call
        if hub.server.http_connections == 0:
            break
        await asyncio.sleep(0.05)
    await holder.leases.release("db", held.lease.fencing_token)
    taken = await other.leases.acquire("db", ttl=30)

    assert hub.server.http_connections == 0
    assert taken.lease.holder_agent_name == "other"


async def test_mutual_tls_on_grpc_is_mutual_tls_here(hub_settings: Settings, pki: Path) -> None:
    """With --tls-client-ca the HTTP port asks for the client certificate too."""
    settings = replace(tls_settings(hub_settings, pki), tls_client_ca=pki / "ca.pem")
    server = HubServer(settings)
    await server.start()
    try:
        assert server.http_address is not None
        with pytest.raises((ssl.SSLError, ConnectionError, asyncio.IncompleteReadError)):
            async with Connection(server.http_address, tls=trusting(pki)) as http:
                await http.request("/kxm.v1.AgentService/ListAgents", b"{}")
        with_certificate = trusting(pki)
        with_certificate.load_cert_chain(pki / "client.pem", pki / "client.key")
        async with Connection(server.http_address, tls=with_certificate) as http:
            answer = await http.request("/kxm.v1.AgentService/ListAgents", b"{}")
    finally:
        await server.stop(0)
    assert answer.status == 401  # through TLS with a certificate; no token given


async def test_garbage_gets_an_answer_or_a_close_never_a_defect(
    hub: Hub, make_agent: AgentFactory, log_lines: io.StringIO
) -> None:
    """A seeded fuzz of the HTTP port: valid requests mutated (bytes flipped, cut, CR/LF/NUL and
    huge numbers inserted). Each gets an HTTP answer or a closed connection, none a defect in the
    log, and the port serves a valid request after them all."""
    alice = await make_agent("alice")
    rng = random.Random(19)
    valid = (
        f"POST {SEND} HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
        + "".join(f"{name}: {value}\r\n" for name, value in alice.metadata)
        + 'Content-Length: 33\r\n\r\n{"target":"alice","content":"x"}'
    ).encode()
    inserts = [b"\r", b"\n", b"\0", b"\r\n", b"99999999999999999999", b"-1", b"\xff", b"Transfer-Encoding: chunked\r\n"]
    answered = closed = 0
    for _ in range(300):
        data = bytearray(valid)
        for _ in range(rng.randint(1, 4)):
            where = rng.randrange(len(data))
            match rng.randrange(3):
                case 0:
                    data[where] = rng.randrange(256)
                case 1:
                    data[where:where] = rng.choice(inserts)
                case _:
                    del data[where : where + rng.randint(1, 20)]
        async with Connection(_http(hub)) as http:
            http.writer.write(bytes(data))
            http.writer.write_eof()
            try:
                status, _ = await asyncio.wait_for(http.head(), 10)
                assert 100 <= status <= 599
                answered += 1
            except (asyncio.IncompleteReadError, ConnectionError):
                closed += 1
    async with Connection(_http(hub)) as http:
        after = await http.request(SEND, _json({"target": "alice", "content": "x"}), headers=alice.metadata)

    assert answered + closed == 300 and answered > 100
    assert after.status == 400  # SELF_TARGET: served as ever
    logged = log_lines.getvalue()
    assert "request_error" in logged  # the log is read (the last call's refusal is in it)
    assert "http_connection_failed" not in logged
