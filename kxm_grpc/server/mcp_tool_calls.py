"""A ``tools/call`` of MCP 2026-07-28 over HTTP, answered without the SDK's ASGI round trip.

Nearly every request an agent makes to ``/mcp`` is a tool call, and the ``mcp`` package's
single-exchange entry (``handle_modern_request``) spends as much CPU on the way to the tool and
back as the tool's RPC itself: a Starlette request and response, a per-request connection,
dispatch context and runner, its middleware and their teardown (decision 292). This module answers
such a call with the SDK's own pieces, rung by rung as that entry does: transport security (Host,
Origin, Content-Type), the Accept header, the JSON-RPC envelope, the routing headers, the
protocol-version ladder (``classify_inbound_request``), the ``Mcp-Param-*`` headers, the
``tools/call`` surface of the requested version; then the tool; then the result shaped by the
version's surface, with ``resultType`` and the ``serverInfo`` stamp, as the SDK's runner does.

Anything that does not pass every rung (another method, an older protocol version, a malformed
request, a rejected header) is left to the SDK (``None``), so every refusal keeps the SDK's exact
shape. ``tests/test_mcp_tool_calls.py`` holds both answers of the same requests side by side.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

import mcp_types as types
import structlog
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.lowlevel import Server
from mcp.server.runner import modern_error_data
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PARAM_HEADER_PREFIX,
    InboundModernRoute,
    classify_inbound_request,
    find_duplicated_routing_header,
    validate_mcp_param_headers,
)
from mcp_types import INTERNAL_ERROR, methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from kxm_grpc.tools.table import TOOLS

log = structlog.get_logger("kxm.mcp")

METHOD = "tools/call"
_PARAM_PREFIX = MCP_PARAM_HEADER_PREFIX.lower()

CallTool = Callable[[str, dict[str, Any]], Awaitable[types.CallToolResult]]
"""Calls one tool by name with its arguments (``AgentTools.call`` of the requesting agent)."""


class _Headers:
    """What the SDK's header checks read of a request: ``.headers.get`` (names in lower case)."""

    __slots__ = ("headers",)

    def __init__(self, headers: Mapping[str, str]) -> None:
        self.headers = headers


class DirectToolCalls:
    """Answers modern ``tools/call`` requests of ``server`` directly (see the module docstring)."""

    def __init__(self, server: Server[Any], security: TransportSecuritySettings | None) -> None:
        # What the direct path does not run must be what the server has by default: the SDK's
        # OpenTelemetry span alone, and no cache hints (a change here must change the path too).
        if server.cache_hints or [type(m) for m in server.middleware] != [OpenTelemetryMiddleware]:
            raise ValueError("the direct tool-call path serves a server without middleware or cache hints only")
        handler = server.get_request_handler(METHOD)
        if handler is None:
            raise ValueError("the server has no tools/call handler")
        self._params_type = handler.params_type
        self._server = server
        self._security = TransportSecurityMiddleware(security)

    async def answer(
        self, method: str, headers: Mapping[str, str], body: bytes, call_tool: Callable[[], CallTool]
    ) -> tuple[int, bytes] | None:
        """The HTTP status and JSON body answering a request, or None to leave it to the SDK.

        ``headers``: the request's, names in lower case. ``call_tool`` gives the requesting agent's
        tool caller; it is asked only once the request passed every rung.
        """
        if method != "POST" or headers.get("mcp-protocol-version") not in MODERN_PROTOCOL_VERSIONS:
            return None
        request: Any = _Headers(headers)
        if await self._security.validate_request(request, is_post=True) is not None:
            return None
        if not check_accept_headers(request)[0]:
            return None
        try:
            decoded = json.loads(body)
        except (ValueError, RecursionError):
            return None
        if not isinstance(decoded, dict) or decoded.get("method") != METHOD or "id" not in decoded:
            return None
        try:
            envelope = types.JSONRPCRequest.model_validate(decoded)
        except ValidationError:
            return None
        if find_duplicated_routing_header(headers.items()) is not None:
            return None
        route = classify_inbound_request(decoded, headers=headers)
        if not isinstance(route, InboundModernRoute):
            return None
        params = envelope.params or {}
        arguments = _arguments(params, headers)
        if arguments is None:
            return None
        try:
            # The version's surface, then the handler's own parameters (stricter: ``task``), as the runner.
            methods.validate_client_request(METHOD, route.protocol_version, params)
            self._params_type.model_validate(params, by_name=False)
        except (KeyError, ValueError):  # ValidationError is a ValueError
            return None
        name = params["name"]
        try:
            result = await call_tool()(name, dict(arguments))
            shaped = self._shaped(route.protocol_version, result)
        except Exception as error:  # as the SDK: nothing of the handler's internals reaches the wire
            data = modern_error_data(error)  # logs what it does not map
            status = ERROR_CODE_HTTP_STATUS.get(data.code, 200)  # the SDK's default: the error is in the body
            answer = types.JSONRPCError(jsonrpc="2.0", id=envelope.id, error=data)
            return status, _json(answer.model_dump(mode="json", by_alias=True, exclude_none=True))
        return 200, _json({"jsonrpc": "2.0", "id": envelope.id, "result": shaped})

    def _shaped(self, version: str, result: types.CallToolResult) -> dict[str, Any]:
        """``result`` on the wire of ``version``, as the SDK's runner shapes a spec method's result.

        Raises:
            MCPError: (INTERNAL_ERROR) the result does not fit the version's surface (the server's fault).
        """
        try:
            dumped = methods.serialize_server_result(
                METHOD, version, result.model_dump(by_alias=True, mode="json", exclude_none=True)
            )
        except ValidationError:
            log.exception("mcp_tool_result_invalid")
            raise MCPError(code=INTERNAL_ERROR, message="Handler returned an invalid result") from None
        if dumped.get("resultType") is None:
            dumped["resultType"] = "complete"
        meta = dumped.get("_meta")
        if meta is None:
            dumped["_meta"] = {types.SERVER_INFO_META_KEY: self._server.server_info_stamp}
        elif isinstance(meta, dict) and meta.get(types.SERVER_INFO_META_KEY) is None:
            dumped["_meta"] = {**meta, types.SERVER_INFO_META_KEY: self._server.server_info_stamp}
        return dumped


def _arguments(params: Mapping[str, Any], headers: Mapping[str, str]) -> Mapping[str, Any] | None:
    """The call's arguments when its ``Mcp-Param-*`` headers agree with them (None: leave it to the SDK)."""
    raw = params.get("arguments")
    name = params.get("name")
    if not isinstance(name, str) or (raw is not None and not isinstance(raw, Mapping)):
        return None
    arguments = cast("Mapping[str, Any]", raw) if raw is not None else {}
    if not arguments and not any(header.startswith(_PARAM_PREFIX) for header in headers):
        return arguments
    tool = TOOLS.get(name)
    if tool is not None and validate_mcp_param_headers(tool.input_schema, arguments, headers) is not None:
        return None
    return arguments


def _json(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()
