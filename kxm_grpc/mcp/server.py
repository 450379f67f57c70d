"""The MCP server offering an agent's tools: over stdio (``kxm mcp``) and, served by the hub, over HTTP.

Each tool of ``kxm_grpc.tools.TOOLS`` is listed with its derived schema and description and called
as its RPC through an ``Invoke``: over stdio a ``HubClient`` acting as the agent (``AgentTools.
of_client``), over HTTP the hub's own admission in-process (``server/mcp_http.py``). Either way the
hub admits the call as it admits the gRPC one: the same credentials, project, rate limits and tool
policy. What differs from the RPC:

- **Policy.** Tools that the attempt or session token's policy denies are not listed (the policy is
  read from the token's payload; the hub still verifies and enforces it, so calling a hidden tool
  gets the hub's TOOL_POLICY_DENIED as a tool error).
- **Errors** are tool results with ``is_error`` and the body ``{code, reason, message, metadata,
  fieldViolations}``: the ``ErrorInfo`` reason and field violations a model can act on. A hub that
  cannot be reached is an error of the same shape (UNAVAILABLE).
- **Announce once.** Each new request, reply, cancellation or expiry of the agent's inbox is
  announced once, in the next tool result, as one more text block (metadata only: ids, sender,
  kind). Over stdio ``kxm mcp`` follows the inbox (``Subscribe``) while it runs; over HTTP the hub
  reads what is new in the agent's inbox log when a call comes (``server/mcp_news.py``). MCP has no
  notification meant for this (logging is deprecated since 2026-07-28 and resource updates need a
  subscribed resource), so the result is the place every client shows the model (decision 283).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any

import mcp_types as types
import structlog
from google.protobuf.message import Message
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from kxm_grpc.domain.tokens import unverified_tool_policy
from kxm_grpc.domain.tool_policy import ToolPolicy, evaluate
from kxm_grpc.errors import HubError, Reason
from kxm_grpc.tools.mappings import JsonObject
from kxm_grpc.tools.table import TOOLS, ArgumentError, Tool
from kxm_grpc.version import version

log = structlog.get_logger("kxm.mcp")

SERVER_NAME = "kxm"
INSTRUCTIONS = (
    "Tools of the kxm hub, acting as one agent: find other agents (kxm_list_agents), send them work"
    " (kxm_send, kxm_fanout), read and answer your inbox (kxm_inbox, kxm_reply), wait for replies"
    " (kxm_wait), hold fenced leases, and take part in workflow runs. Durations are integer"
    " milliseconds (ttlMs, waitMs). New inbox events are announced once, in the next tool result."
)
ANNOUNCE_HEADING = "New since your last tool call (read them with kxm_inbox or kxm_get_message):"
MAX_ANNOUNCED = 50
"""At most this many events in one announcement; the rest are counted, not listed."""
MAX_REMEMBERED = 4096
"""Events remembered as announced (to drop their redeliveries); the oldest are forgotten first."""
WAIT_MARGIN_SECONDS = 5.0
"""A call that waits (``wait``/``waitMs``) gets this much more than its wait as its deadline."""


class Announcements:
    """Inbox events not yet told to the model: each is noted once and handed out once.

    What happened before the adapter started is history, not news: of the events the first stream
    replays (at or below its ``head_seq``), only requests still open are announced (the model has
    work waiting), not old replies, cancellations or expiries.
    """

    def __init__(self, *, remembered: int = MAX_REMEMBERED) -> None:
        self._remembered = remembered
        self._pending: list[JsonObject] = []
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._skipped = 0
        self._history_until: int | None = None

    def note(self, kind: str, message: Any) -> None:
        """Remember one event (``kind``: message, reply, cancelled, expired) of ``message``."""
        key = (kind, message.id)
        if key in self._seen:  # a redelivery after a reconnect: told already
            return
        self._seen[key] = None
        if len(self._seen) > self._remembered:
            self._seen.popitem(last=False)
        if len(self._pending) >= MAX_ANNOUNCED:
            self._skipped += 1
            return
        event: JsonObject = {"event": kind, "messageId": message.id}
        if kind == "message":
            event["from"] = message.from_agent_name
        elif message.to_agent_name:
            event["agent"] = message.to_agent_name
        if message.correlation_id:
            event["correlationId"] = message.correlation_id
        self._pending.append(event)

    def take(self) -> str | None:
        """The announcement of every pending event (then forgotten), or None when there is none."""
        if not self._pending and not self._skipped:
            return None
        lines = [ANNOUNCE_HEADING, *(json.dumps(event, separators=(",", ":")) for event in self._pending)]
        if self._skipped:
            lines.append(f"… and {self._skipped} more")
        self._pending, self._skipped = [], 0
        return "\n".join(lines)

    async def follow(self, events: AsyncIterator[Any]) -> None:
        """Note every message event of an inbox stream (``HubClient.messages.subscribe``) until it ends."""
        async for event in events:
            kind = event.WhichOneof("event")
            if kind == "ready":
                if self._history_until is None:
                    self._history_until = event.ready.head_seq
                continue
            if kind not in ("message", "reply", "cancelled", "expired"):
                continue
            history = self._history_until is not None and event.seq <= self._history_until
            if history and kind != "message":
                continue
            self.note(kind, getattr(event, kind))


News = Callable[[], Awaitable["str | None"]]
"""What to announce in the next tool result (``Announcements.take``'s text), or None."""

Invoke = Callable[[str, Message, "type[Message]", "float | None"], Awaitable[Message]]
"""How a tool's RPC is called: (full method name, request, response type, timeout) → response.

Over stdio, ``HubClient.invoke`` (a gRPC call); served by the hub, the call admitted in-process.

Raises:
    HubError: the hub refused the call.
"""


def policies_of(tokens: Iterable[str | None]) -> list[ToolPolicy]:
    """The tool policies the presented attempt and session tokens state (read, not verified)."""
    return [policy for policy in (unverified_tool_policy(token) for token in tokens if token) if policy is not None]


class AgentTools:
    """The tools one agent may call, each called as its RPC through ``invoke``.

    ``policies``: the presented tokens' (``policies_of``), to hide what they deny. ``timeout``: the
    deadline of a call that does not wait (one that waits gets its wait more). ``news``: what to
    announce in each result, asked after the call (None: nothing).
    """

    def __init__(
        self,
        invoke: Invoke,
        policies: Sequence[ToolPolicy] = (),
        *,
        timeout: float,
        tools: Iterable[Tool] = TOOLS.values(),
        news: News | None = None,
    ) -> None:
        self._invoke = invoke
        self._policies = policies
        self._timeout = timeout
        self._tools = {tool.name: tool for tool in tools}
        self._news = news

    @classmethod
    def of_client(cls, client: Any, announcements: Announcements | None = None) -> AgentTools:
        """The tools of a ``HubClient`` acting as the agent (``kxm mcp`` over stdio), announcing
        what ``announcements`` notes."""
        policies = policies_of((client.attempt_token, client.session_token))

        async def invoke(method: str, request: Message, response_type: type[Message], timeout: float | None) -> Message:
            response: Message = await client.invoke(method, request, response_type, timeout=timeout)
            return response

        async def news() -> str | None:
            return None if announcements is None else announcements.take()

        return cls(invoke, policies, timeout=float(client.timeout), news=news)

    def visible(self) -> list[Tool]:
        """The tools every presented token's policy allows, by name."""
        return [
            tool
            for tool in self._tools.values()
            if all(evaluate(policy, tool.name).allowed for policy in self._policies)
        ]

    async def call(self, name: str, arguments: JsonObject) -> types.CallToolResult:
        """Call tool ``name``: its result, or its error as a result with ``is_error`` (never raises
        for what the hub or the arguments refuse)."""
        tool = self._tools.get(name)
        if tool is None:
            return await self._result(_invalid_argument("name", f"there is no tool {name!r}"), error=True)
        try:
            request = tool.request_from(arguments)
        except ArgumentError as error:
            return await self._result(_invalid_argument(error.field, str(error)), error=True)
        try:
            response = await self._invoke(tool.method, request, tool.response_type, self._deadline(request))
        except HubError as error:
            log.debug("mcp_tool_call", tool=name, code=error.status, reason=str(error.reason or ""))
            return await self._result(hub_error_body(error), error=True)
        log.debug("mcp_tool_call", tool=name, code="OK")
        return await self._result(tool.result_of(response), error=False)

    def _deadline(self, request: Any) -> float:
        """The call's deadline: the usual one, or longer than the wait for a call that waits."""
        field = request.DESCRIPTOR.fields_by_name.get("wait")
        if field is None or not request.HasField("wait"):
            return self._timeout
        waited: float = request.wait.ToTimedelta().total_seconds()
        return self._timeout + waited + WAIT_MARGIN_SECONDS

    async def _result(self, body: JsonObject, *, error: bool) -> types.CallToolResult:
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=json.dumps(body, ensure_ascii=False))]
        announcement = None if self._news is None else await self._news()
        if announcement is not None:
            content.append(types.TextContent(type="text", text=announcement))
        return types.CallToolResult(content=content, structured_content=body, is_error=error)


def _error_body(code: str, reason: str, message: str) -> JsonObject:
    return {"code": code, "reason": reason, "message": message}


def _invalid_argument(field: str, message: str) -> JsonObject:
    """The error of arguments refused before any call, shaped as the hub's PROTOCOL_ERROR."""
    body = _error_body("INVALID_ARGUMENT", Reason.PROTOCOL_ERROR.value, message)
    if field:
        body["fieldViolations"] = [{"field": field, "description": message}]
    return body


def hub_error_body(error: HubError) -> JsonObject:
    """A hub error as a tool error's body: code, ErrorInfo reason, message, metadata, field violations."""
    body = _error_body(error.status, str(error.reason or ""), error.message)
    if error.metadata:
        body["metadata"] = dict(error.metadata)
    if error.field_violations:
        body["fieldViolations"] = [{"field": v.field, "description": v.description} for v in error.field_violations]
    return body


@functools.cache
def mcp_tool(tool: Tool) -> types.Tool:
    """The MCP listing of ``tool``: name, description, input schema and behaviour hints (made once)."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema,
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=False if tool.read_only else None,
            open_world_hint=False,
        ),
    )


def build_server(tools_for: Callable[[Any], AgentTools]) -> Server[Any]:
    """The MCP server listing and calling the tools ``tools_for(request context)`` gives: one
    agent's always over stdio, the requesting agent's over HTTP (from its headers)."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in tools_for(ctx).visible()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await tools_for(ctx).call(params.name, dict(params.arguments or {}))

    def input_schema(name: str) -> JsonObject | None:
        # Asked by the streamable HTTP transport for each tools/call (to check Mcp-Param headers):
        # from the table, not by listing every tool per call.
        tool = TOOLS.get(name)
        return None if tool is None else tool.input_schema

    return Server(
        SERVER_NAME,
        version=version(),
        instructions=INSTRUCTIONS,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(client: Any, *, follow_inbox: bool = True) -> None:
    """Serve the agent's tools over this process's stdin and stdout until the client disconnects."""
    announcements = Announcements() if follow_inbox else None
    tools = AgentTools.of_client(client, announcements)
    server = build_server(lambda _ctx: tools)
    follower: asyncio.Task[None] | None = None
    if announcements is not None:
        follower = asyncio.create_task(_follow(announcements, client))
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        if follower is not None:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower


async def _follow(announcements: Announcements, client: Any) -> None:
    """Follow the inbox for announcements; a refusal (such as a policy without kxm_inbox) ends it."""
    try:
        await announcements.follow(client.messages.subscribe())
    except HubError as error:
        log.warning("mcp_inbox_not_followed", code=error.status, reason=str(error.reason or ""))
