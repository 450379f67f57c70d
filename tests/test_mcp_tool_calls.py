"""The hub's direct answer to an MCP tool call over HTTP (``server/mcp_tool_calls.py``) against the
``mcp`` SDK's own answer to the same bytes: requests the ``mcp`` client really sends are captured,
then replayed on a raw connection twice, once answered directly and once with the direct path off;
status, content type and body must agree. Requests the direct path must leave to the SDK (another
method, a legacy version, a bad header, a malformed envelope) are checked to reach it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc.client import HubClient
from kxm_grpc.errors import Unavailable
from kxm_grpc.mcp.server import AgentTools
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from tests.conftest import ADMIN_TOKEN
from tests.test_mcp import _http_client

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)

_ADDED_BY_HTTPX = {"content-length", "connection", "accept-encoding"}


@dataclass
class Captured:
    headers: list[tuple[str, str]]
    body: bytes

    @property
    def method(self) -> str:
        return str(json.loads(self.body).get("method"))

    def varied(self, *, body: Any = None, headers: dict[str, str | None] | None = None) -> Captured:
        """This request with ``body`` (JSON) instead, and ``headers`` replaced (None: removed)."""
        changed = dict(self.headers)
        for name, value in (headers or {}).items():
            changed.pop(name, None)
            if value is not None:
                changed[name] = value
        data = self.body if body is None else json.dumps(body).encode()
        return Captured(list(changed.items()), data)


@dataclass
class World:
    server: HubServer
    address: str
    captured: list[Captured]
    message_id: str


@pytest_asyncio.fixture
async def world(hub_settings: Settings) -> AsyncIterator[World]:
    """A hub with its HTTP port; bob's real MCP client calls, captured as sent."""
    server = HubServer(replace(hub_settings, http_port=0))
    await server.start()
    clients: list[HubClient] = []
    try:
        admin = HubClient(server.address, token=ADMIN_TOKEN)
        token = (await admin.admin.create_project("alpha")).project_token
        alice, bob = HubClient(server.address, token=token), HubClient(server.address, token=token)
        clients += [admin, alice, bob]
        await alice.agents.register("alice")
        await bob.agents.register("bob")
        message_id = (await alice.messages.send("bob", "read me")).message.id
        captured: list[Captured] = []

        async def capture(request: Any) -> None:
            headers = [(k.lower(), v) for k, v in request.headers.items() if k.lower() not in _ADDED_BY_HTTPX]
            captured.append(Captured(headers, bytes(request.content)))

        url = f"http://{server.http_address}/mcp"
        async with _http_client(url, dict(bob.metadata), on_request=capture) as as_bob:
            await as_bob.call_tool("kxm_whoami", {})  # told of the open request here, not in the replays
            await as_bob.list_tools()
            await as_bob.call_tool("kxm_get_message", {"messageId": message_id})
            await as_bob.call_tool("kxm_get_message", {"messageId": "msg-nowhere"})
            await as_bob.call_tool("kxm_wait", {"messageId": message_id, "waitMs": -5})
            await as_bob.call_tool("kxm_no_such_tool", {})
            await as_bob.call_tool("kxm_inbox", {})
        yield World(server, str(server.http_address), captured, message_id)
    finally:
        for client in clients:
            await client.close()
        await server.stop(0)


async def _post(address: str, request: Captured) -> tuple[int, str, Any]:
    """Status, content type and body (decoded when JSON) of ``request`` sent to /mcp."""
    host, port = address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        lines = ["POST /mcp HTTP/1.1", f"Content-Length: {len(request.body)}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in request.headers]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + request.body)
        data = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    head_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in head_lines[1:])
    content_type = headers.get("content-type", "")
    decoded = json.loads(body) if content_type.startswith("application/json") else body.decode()
    return int(head_lines[0].split(" ")[1]), content_type, decoded


async def _both(world: World, request: Captured, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, bool]:
    """(answer with the direct path, answer without it, whether the direct path answered)."""
    endpoint: Any = world.server._mcp
    direct = endpoint._direct
    answered: list[bool] = []
    original = direct.answer

    async def recorded(*args: Any) -> Any:
        answer = await original(*args)
        answered.append(answer is not None)
        return answer

    async def declined(*args: Any) -> None:
        return None

    monkeypatch.setattr(direct, "answer", recorded)
    with_direct = await _post(world.address, request)
    monkeypatch.setattr(direct, "answer", declined)
    without = await _post(world.address, request)
    monkeypatch.setattr(direct, "answer", original)
    return with_direct, without, answered == [True]


async def test_every_captured_call_is_answered_directly_as_the_sdk_answers_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [request for request in world.captured if request.method == "tools/call"][1:]
    assert len(calls) == 5
    for request in calls:
        with_direct, without, answered = await _both(world, request, monkeypatch)
        assert answered, request.body
        assert with_direct == without, request.body
    errors = [(await _post(world.address, request))[2]["result"] for request in calls]
    assert [result.get("isError", False) for result in errors] == [False, True, True, True, False]


async def test_the_sdk_keeps_what_is_not_a_well_formed_modern_tool_call(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = next(request for request in world.captured if request.method == "tools/list")
    call = [request for request in world.captured if request.method == "tools/call"][1]  # kxm_get_message, bob's
    envelope = json.loads(call.body)
    variants = {
        "another method": listing,
        "an older protocol": call.varied(headers={"mcp-protocol-version": "2025-06-18"}),
        "no protocol header": call.varied(headers={"mcp-protocol-version": None}),
        "an unknown protocol": call.varied(headers={"mcp-protocol-version": "2099-01-01"}),
        "no JSON accepted": call.varied(headers={"accept": "text/event-stream"}),
        "not JSON sent": call.varied(headers={"content-type": "text/plain"}),
        "another host": call.varied(headers={"host": "evil.example:80"}),
        "another origin": call.varied(headers={"origin": "http://evil.example"}),
        "no name": call.varied(body={**envelope, "params": {**envelope["params"], "name": 7}}),
        "arguments not an object": call.varied(body={**envelope, "params": {**envelope["params"], "arguments": []}}),
        "no _meta": call.varied(body={**envelope, "params": {"name": "kxm_whoami", "arguments": {}}}),
        "a bad id": call.varied(body={**envelope, "id": [1]}),
        "a task the handler refuses": call.varied(body={**envelope, "params": {**envelope["params"], "task": "x"}}),
        "a notification": call.varied(body={k: v for k, v in envelope.items() if k != "id"}),
        "a batch": call.varied(body=[envelope]),
        "not JSON": Captured(call.headers, b"{not json"),
    }
    for name, request in variants.items():
        with_direct, without, answered = await _both(world, request, monkeypatch)
        assert not answered, name
        assert with_direct == without, name
    # No tool declares an Mcp-Param header (x-mcp-header), so the SDK ignores one, and so does the hub.
    undeclared = call.varied(headers={"mcp-param-messageid": "other"})
    with_direct, without, answered = await _both(world, undeclared, monkeypatch)
    assert answered and with_direct == without


async def test_a_tool_that_raises_is_answered_as_the_sdk_answers_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing of the failure reaches the wire, with the SDK's status (200: the error is in the body)."""

    async def broken(self: AgentTools, name: str, arguments: dict[str, Any]) -> Any:
        raise RuntimeError("a defect of the hub")

    monkeypatch.setattr(AgentTools, "call", broken)
    call = [request for request in world.captured if request.method == "tools/call"][1]
    with_direct, without, answered = await _both(world, call, monkeypatch)
    assert answered and with_direct == without
    status, _, body = with_direct
    assert status == 200 and body["error"] == {"code": -32603, "message": "Internal server error"}


async def test_an_inbox_that_cannot_be_read_leaves_the_call_answered(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A send that went through must not look failed (a model would send it again): the news is
    skipped, not the result."""
    endpoint: Any = world.server._mcp

    async def unreadable(agent_id: str) -> str | None:
        raise Unavailable("the store is gone")

    monkeypatch.setattr(endpoint._news, "take", unreadable)
    call = [request for request in world.captured if request.method == "tools/call"][1]
    status, _, body = await _post(world.address, call)
    assert status == 200 and not body["result"].get("isError", False)
    assert len(body["result"]["content"]) == 1
