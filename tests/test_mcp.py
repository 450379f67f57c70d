"""``kxm mcp`` end to end: two agents' MCP servers over stdio (subprocesses), driven by the ``mcp``
client, against a real hub: tools listed with derived schemas, send, announce-once, inbox, reply,
wait, a hub error, a bad argument, and a session token's tool policy (hidden and refused)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from kxm_grpc.client import HubClient
from kxm_grpc.mcp.server import ANNOUNCE_HEADING
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.tools.table import TOOLS
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import ROOT, kxm

ANNOUNCE_WAIT_SECONDS = 10.0


def _server(name: str, env: dict[str, str], cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "kxm_grpc.cli", "mcp", "--as", name],
        env={**os.environ, "PYTHONPATH": ROOT, **env},
        cwd=cwd,
    )


async def _project(hub: Hub, tmp_path: Path, *agents: str) -> dict[str, str]:
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    for name in agents:
        code, _, err = await kxm("agent", "register", name, cwd=tmp_path, env=env)
        assert code == 0, err
    return env


def _texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


async def test_two_agents_converse_through_mcp(hub: Hub, tmp_path: Path) -> None:
    env = await _project(hub, tmp_path, "alice", "bob")

    async with Client(_server("alice", env, tmp_path)) as alice, Client(_server("bob", env, tmp_path)) as bob:
        listed = await alice.list_tools()
        sent = await alice.call_tool("kxm_send", {"target": "bob", "content": "please review", "ttlMs": 600_000})
        message_id = sent.structured_content["messageId"]
        announced, later = await _announcement(bob)
        inbox = await bob.call_tool("kxm_inbox", {})
        replied = await bob.call_tool("kxm_reply", {"messageId": message_id, "content": "looks good"})
        waited = await alice.call_tool("kxm_wait", {"messageId": message_id, "waitMs": 20_000})
        missing = await alice.call_tool("kxm_send", {"target": "ghost", "content": "hello?"})
        malformed = await alice.call_tool("kxm_wait", {"messageId": message_id, "waitMs": -5})
        empty = await alice.call_tool("kxm_send", {"target": "bob", "content": ""})

    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == set(TOOLS)
    assert tools["kxm_send"].input_schema == TOOLS["kxm_send"].input_schema
    assert tools["kxm_inbox"].annotations.read_only_hint is True
    assert not sent.is_error and sent.structured_content["target"] == "bob"
    assert sent.structured_content["status"] == "queued"
    assert announced == {"event": "message", "messageId": message_id, "from": "alice"}
    assert not any(ANNOUNCE_HEADING in text for text in later), "announced twice"
    assert [m["id"] for m in inbox.structured_content["messages"]] == [message_id]
    assert not replied.is_error
    assert waited.structured_content["message"]["reply"]["content"] == "looks good"
    assert waited.structured_content["terminal"] is True
    assert missing.is_error
    assert (missing.structured_content["code"], missing.structured_content["reason"]) == (
        "NOT_FOUND",
        "ERROR_REASON_TARGET_NOT_FOUND",
    )
    assert malformed.is_error and malformed.structured_content["fieldViolations"][0]["field"] == "waitMs"
    assert empty.is_error and empty.structured_content["code"] == "INVALID_ARGUMENT"
    assert "content" in empty.structured_content["message"]


async def _announcement(client: Client) -> tuple[dict[str, Any], list[str]]:
    """The first announced event seen in a tool result (polling kxm_whoami), and the texts of the
    tool result after it (which must not announce it again)."""
    deadline = time.monotonic() + ANNOUNCE_WAIT_SECONDS
    while time.monotonic() < deadline:
        result = await client.call_tool("kxm_whoami", {})
        for text in _texts(result)[1:]:
            if text.startswith(ANNOUNCE_HEADING):
                event = json.loads(text.splitlines()[1])
                return event, _texts(await client.call_tool("kxm_whoami", {}))
        await asyncio.sleep(0.1)
    raise AssertionError(f"nothing announced within {ANNOUNCE_WAIT_SECONDS} s")


async def test_a_session_policy_hides_and_the_hub_refuses(hub: Hub, tmp_path: Path) -> None:
    """A session token denying kxm_fanout: the tool is not listed, and calling it anyway gets the
    hub's TOOL_POLICY_DENIED as a tool error."""
    env = await _project(hub, tmp_path, "alice")
    _, who, _ = await kxm("agent", "list", "--json", cwd=tmp_path, env=env)
    agent_id = next(a["id"] for a in json.loads(who)["agents"] if a["name"] == "alice")
    code, minted, err = await kxm("token", "mint", agent_id, "--deny", "fanout", "--json", cwd=tmp_path, env=env)
    assert code == 0, err
    env["KXM_SESSION_TOKEN"] = json.loads(minted)["sessionToken"]

    async with Client(_server("alice", env, tmp_path)) as alice:
        listed = await alice.list_tools()
        refused = await alice.call_tool("kxm_fanout", {"targets": ["alice"], "content": "vote"})
        allowed = await alice.call_tool("kxm_whoami", {})

    names = {tool.name for tool in listed.tools}
    assert "kxm_fanout" not in names and "kxm_send" in names
    assert refused.is_error
    assert (refused.structured_content["code"], refused.structured_content["reason"]) == (
        "PERMISSION_DENIED",
        "ERROR_REASON_TOOL_POLICY_DENIED",
    )
    assert not allowed.is_error and allowed.structured_content["agentName"] == "alice"


async def test_mcp_over_http_served_by_the_hub(hub_settings: Settings, tmp_path: Path) -> None:
    """The hub's own /mcp: the tools of the agent the headers name, each call admitted in-process;
    a session token's policy hides and refuses as over stdio; no credentials is a hub error."""
    server = HubServer(replace(hub_settings, http_port=0))
    await server.start()
    try:
        admin = HubClient(server.address, token=ADMIN_TOKEN)
        token = (await admin.admin.create_project("alpha")).project_token
        alice = HubClient(server.address, token=token)
        bob = HubClient(server.address, token=token)
        carol = HubClient(server.address, token=token)
        await alice.agents.register("alice")
        await bob.agents.register("bob")
        await carol.agents.register("carol")
        minted = await admin.admin.mint_session_token(carol.agent_id, project="alpha", deny=["fanout"])
        url = f"http://{server.http_address}/mcp"

        async with (
            _http_client(url, dict(alice.metadata)) as as_alice,
            _http_client(url, dict(bob.metadata)) as as_bob,
            _http_client(url, {**dict(carol.metadata), "x-kxm-session-token": minted.session_token}) as bounded,
            _http_client(url, {}) as anonymous,
        ):
            listed = await as_alice.list_tools()
            sent = await as_alice.call_tool("kxm_send", {"target": "bob", "content": "over http"})
            assert not sent.is_error, sent.structured_content
            message_id = sent.structured_content["messageId"]
            inbox = await as_bob.call_tool("kxm_inbox", {})
            replied = await as_bob.call_tool("kxm_reply", {"messageId": message_id, "content": "ok"})
            waited = await as_alice.call_tool("kxm_wait", {"messageId": message_id, "waitMs": 5_000})
            hidden = {tool.name for tool in (await bounded.list_tools()).tools}
            refused = await bounded.call_tool("kxm_fanout", {"targets": ["bob"], "content": "vote"})
            nobody = await anonymous.call_tool("kxm_whoami", {})
        for client in (admin, alice, bob, carol):
            await client.close()
    finally:
        await server.stop(0)

    assert {tool.name for tool in listed.tools} == set(TOOLS)
    assert not sent.is_error and sent.structured_content["target"] == "bob"
    assert [m["id"] for m in inbox.structured_content["messages"]] == [message_id]
    assert not replied.is_error
    assert waited.structured_content["message"]["reply"]["content"] == "ok"
    assert "kxm_fanout" not in hidden and "kxm_send" in hidden
    assert refused.is_error and refused.structured_content["reason"] == "ERROR_REASON_TOOL_POLICY_DENIED"
    assert nobody.is_error and nobody.structured_content["code"] == "UNAUTHENTICATED"


@contextlib.asynccontextmanager
async def _http_client(
    url: str, headers: dict[str, str], *, on_request: Callable[[Any], Awaitable[None]] | None = None
) -> AsyncIterator[Client]:
    """An MCP client of ``url`` sending ``headers`` on every request (its HTTP client closed after);
    ``on_request`` sees each HTTP request as it is sent."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http_client = create_mcp_http_client(headers=headers)
    if on_request is not None:
        http_client.event_hooks["request"].append(on_request)
    async with (
        http_client as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


async def test_history_is_not_news(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started after the fact, the adapter announces open requests waiting for the agent, not the
    replies its agent got before; what arrives after its start is announced once."""
    env = await _project(hub, tmp_path, "alice", "bob")
    monkeypatch.setenv("KXM_DATA_DIR", env["KXM_DATA_DIR"])  # where kxm agent register saved the keys
    alice = HubClient(hub.address, token=env["KXM_TOKEN"])
    bob = HubClient(hub.address, token=env["KXM_TOKEN"])
    try:
        _resume(alice, "alice")
        _resume(bob, "bob")
        old = await alice.messages.send("bob", "answered long ago")
        await bob.messages.reply(old.message.id, "done")
        waiting = await bob.messages.send("alice", "still open for alice")

        async with Client(_server("alice", env, tmp_path)) as as_alice:
            announced, _ = await _announcement(as_alice)
            fresh = await bob.messages.send("alice", "new after the start")
            later, _ = await _announcement(as_alice)
    finally:
        await alice.close()
        await bob.close()

    assert announced == {"event": "message", "messageId": waiting.message.id, "from": "bob"}
    assert later == {"event": "message", "messageId": fresh.message.id, "from": "bob"}


def _resume(client: HubClient, name: str) -> None:
    """Act as the agent ``kxm agent register`` saved."""
    from kxm_grpc.client.identity import load_identity

    saved = load_identity("alpha", name, address=client.address)
    assert saved is not None
    client.use_agent(saved["agent_id"], saved["agent_key"])


async def test_mcp_over_http_announces_each_event_once(hub_settings: Settings) -> None:
    """Over HTTP the hub tells the model, in the result of the agent's next tool call, what its inbox
    logged since the last one: the first call the requests still open (not replies had before), then
    each new request and reply once; a call with bob's id but not his key is told nothing (and
    takes nothing from bob)."""
    server = HubServer(replace(hub_settings, http_port=0))
    await server.start()
    try:
        admin = HubClient(server.address, token=ADMIN_TOKEN)
        token = (await admin.admin.create_project("alpha")).project_token
        alice, bob = HubClient(server.address, token=token), HubClient(server.address, token=token)
        await alice.agents.register("alice")
        await bob.agents.register("bob")
        waiting = await alice.messages.send("bob", "still open for bob")
        asked = await bob.messages.send("alice", "answered before")
        await alice.messages.reply(asked.message.id, "done")
        url = f"http://{server.http_address}/mcp"

        impostor = {**dict(bob.metadata), "x-kxm-agent-key": "kxm_ak_not_bobs"}
        async with _http_client(url, dict(bob.metadata)) as as_bob, _http_client(url, impostor) as anonymous:
            first = _announced(await as_bob.call_tool("kxm_whoami", {}))
            quiet = _announced(await as_bob.call_tool("kxm_whoami", {}))
            fresh = await alice.messages.send("bob", "new after the first call")
            unauthenticated = await anonymous.call_tool("kxm_whoami", {})
            second = _announced(await as_bob.call_tool("kxm_list_agents", {}))
            sent = await as_bob.call_tool("kxm_send", {"target": "alice", "content": "question"})
            await alice.messages.reply(sent.structured_content["messageId"], "answer")
            third = _announced(await as_bob.call_tool("kxm_whoami", {}))
            last = _announced(await as_bob.call_tool("kxm_whoami", {}))
        for client in (admin, alice, bob):
            await client.close()
    finally:
        await server.stop(0)

    assert first == [{"event": "message", "messageId": waiting.message.id, "from": "alice"}]
    assert quiet == []
    assert unauthenticated.is_error and len(unauthenticated.content) == 1
    assert second == [{"event": "message", "messageId": fresh.message.id, "from": "alice"}]
    assert third == [{"event": "reply", "messageId": sent.structured_content["messageId"], "agent": "alice"}]
    assert last == []


def _announced(result: Any) -> list[dict[str, Any]]:
    """The events a tool result announces (none: [])."""
    texts = [text for text in _texts(result)[1:] if text.startswith(ANNOUNCE_HEADING)]
    return [json.loads(line) for text in texts for line in text.splitlines()[1:]]
