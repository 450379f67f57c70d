"""Request bytes that do not decode get the error model: INVALID_ARGUMENT, details, a request id.

The bytes go over a channel without serializers (identity bytes), so the hub's deserializer sees
exactly what a broken or hostile client sends. Authentication runs first: an unauthenticated caller
learns nothing about how its bytes parse.
"""

from __future__ import annotations

import io
import json

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from kxm_grpc._status import from_rpc_error
from kxm_grpc.client import HubClient
from kxm_grpc.errors import DOMAIN, InvalidArgument, Reason
from kxm_grpc.server.interceptor import RPC_TOTAL
from kxm_grpc.server.methods import ACCESS
from kxm_grpc.services.auth import Access
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project
from tests.test_contract import SERVICES

REGISTER = "/kxm.v1.AgentService/RegisterAgent"
SUBSCRIBE = "/kxm.v1.MessageService/Subscribe"
MARKER = b"marker-of-the-bytes"


def nested_groups(depth: int) -> bytes:
    """An unknown group (field 15) nested ``depth`` deep: upb counts groups against its limit of 100."""
    return b"\x7b" * depth + b"\x7c" * depth


# RegisterAgentRequest.name is field 1 (string): tag 0x0a, then a length.
BODIES = {
    "invalid-utf8": b"\x0a" + bytes([len(MARKER) + 2]) + MARKER + b"\xff\xfe",
    "truncated": b"\x0a\x40" + MARKER,  # says 64 bytes follow, 19 do
    "too-deep": nested_groups(101),
}
# SubscribeRequest has no string field (an unknown field's bytes are not checked for UTF-8).
STREAM_BODIES = {name: body for name, body in BODIES.items() if name != "invalid-utf8"}


async def raw_call(
    address: str, method: str, body: bytes, metadata: tuple[tuple[str, str], ...], *, streaming: bool = False
) -> grpc.aio.AioRpcError:
    """Send ``body`` as the request's bytes; return the error the call ends with."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            if streaming:
                async for _ in channel.unary_stream(method)(body, metadata=metadata, timeout=5):
                    pass
            else:
                await channel.unary_unary(method)(body, metadata=metadata, timeout=5)
        except grpc.aio.AioRpcError as error:
            return error
    raise AssertionError(f"{method} accepted {body!r}")


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo of the call's google.rpc.Status details."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, f"no status details: {error.code()} {error.details()}"
    infos = [detail for detail in status.details if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1, status
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    return info


def trailing_request_id(error: grpc.aio.AioRpcError) -> str | None:
    """The ``x-request-id`` the hub put in the trailing metadata."""
    values = [value for key, value in error.trailing_metadata() or () if key == "x-request-id"]
    return str(values[0]) if values else None


def assert_undecodable(error: grpc.aio.AioRpcError, message_type: str) -> None:
    """INVALID_ARGUMENT with ErrorInfo(PROTOCOL_ERROR, kxm.dev) naming the message type, a request id."""
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
    info = error_info(error)
    assert (info.reason, info.domain) == (str(Reason.PROTOCOL_ERROR), DOMAIN)
    assert info.metadata["messageType"] == message_type
    assert "Error parsing" not in (error.details() or "")  # the parser's own text is not forwarded
    assert trailing_request_id(error)


@pytest.mark.parametrize("case", list(BODIES))
async def test_an_undecodable_unary_request_is_invalid_argument(
    hub: Hub, project: Project, log_lines: io.StringIO, case: str
) -> None:
    """Invalid UTF-8, a truncated message and nesting past the limit: INVALID_ARGUMENT with details, the
    caller's request id back, counted and logged (never the bytes); the hub keeps serving."""
    counted = RPC_TOTAL.labels(REGISTER, "INVALID_ARGUMENT")
    before = counted._value.get()
    metadata = (("authorization", f"Bearer {project.token}"), ("x-request-id", f"undecodable-{case}"))

    error = await raw_call(hub.address, REGISTER, BODIES[case], metadata)

    assert_undecodable(error, "kxm.v1.RegisterAgentRequest")
    assert trailing_request_id(error) == f"undecodable-{case}"
    rebuilt = from_rpc_error(error)
    assert isinstance(rebuilt, InvalidArgument) and rebuilt.reason is Reason.PROTOCOL_ERROR
    assert counted._value.get() == before + 1
    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    logged = [line for line in lines if line.get("request_id") == f"undecodable-{case}"]
    assert [(line["event"], line["code"], line["reason"]) for line in logged] == [
        ("request_error", "INVALID_ARGUMENT", str(Reason.PROTOCOL_ERROR))
    ]
    assert logged[0]["rpc"] == REGISTER
    assert MARKER.decode() not in log_lines.getvalue()
    async with HubClient(hub.address, token=project.token) as client:
        assert (await client.register_agent("after")).agent.name == "after"


@pytest.mark.parametrize("case", list(STREAM_BODIES))
async def test_an_undecodable_subscribe_request_is_invalid_argument(
    hub: Hub, make_agent: AgentFactory, case: str
) -> None:
    """Subscribe (server streaming) answers undecodable bytes like a unary RPC, before any event."""
    agent = await make_agent("listener")

    error = await raw_call(hub.address, SUBSCRIBE, STREAM_BODIES[case], agent.metadata, streaming=True)

    assert_undecodable(error, "kxm.v1.SubscribeRequest")
    assert (trailing_request_id(error) or "").startswith("req_")  # none presented: the hub made one
    assert (await agent.heartbeat()).agent.name == "listener"


async def test_the_nesting_limit_is_what_fails(hub: Hub, project: Project) -> None:
    """At exactly the limit (100 groups) the bytes decode, and the servicer's own validation answers."""
    metadata = (("authorization", f"Bearer {project.token}"),)

    error = await raw_call(hub.address, REGISTER, nested_groups(100), metadata)

    rebuilt = from_rpc_error(error)
    assert isinstance(rebuilt, InvalidArgument)
    assert rebuilt.field_violations and rebuilt.field_violations[0].field == "name"


@pytest.mark.parametrize(("method", "streaming"), [(REGISTER, False), (SUBSCRIBE, True)], ids=["unary", "stream"])
async def test_authentication_comes_before_decoding(hub: Hub, method: str, streaming: bool) -> None:
    """An unauthenticated caller's undecodable request is UNAUTHENTICATED (with a request id)."""
    for metadata in ((), (("authorization", "Bearer kxm_proj_not-a-real-token"),)):
        error = await raw_call(hub.address, method, BODIES["truncated"], metadata, streaming=streaming)

        assert error.code() == grpc.StatusCode.UNAUTHENTICATED, (metadata, error.details())
        assert error_info(error).reason in (str(Reason.CREDENTIAL_MISSING), str(Reason.INVALID_AUTH))
        assert trailing_request_id(error)


RPCS = [
    (f"/{service.full_name}/{method.name}", method.server_streaming)
    for service in SERVICES
    for method in service.methods
]


@pytest.mark.parametrize(("method", "streaming"), RPCS, ids=[method for method, _ in RPCS])
async def test_every_rpc_answers_undecodable_bytes_with_the_error_model(
    hub: Hub, make_agent: AgentFactory, project: Project, method: str, streaming: bool
) -> None:
    """Every RPC, called with the credential it admits, refuses truncated bytes as INVALID_ARGUMENT."""
    access = ACCESS[method]
    if access is Access.AGENT:
        metadata = (await make_agent("caller")).metadata
    elif access is Access.RUNTIME:
        async with HubClient(hub.address, token=project.token) as registrar:
            runtime_key = (await registrar.register_runtime("rtm_undecodable1")).runtime_key
        metadata = (("authorization", f"Bearer {runtime_key}"),)
    elif access in (Access.ADMIN, Access.OPERATOR):
        metadata = (("authorization", f"Bearer {ADMIN_TOKEN}"),)
    else:  # every other policy admits the project token
        metadata = (("authorization", f"Bearer {project.token}"),)

    error = await raw_call(hub.address, method, BODIES["truncated"], metadata, streaming=streaming)

    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
    assert error_info(error).reason == str(Reason.PROTOCOL_ERROR)
    assert trailing_request_id(error)
