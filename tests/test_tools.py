"""The tool table derived from the contract (``kxm_grpc/tools``): complete, and its schemas agree
with the request messages field by field."""

from __future__ import annotations

import re
from typing import Any

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.tokens import mint_session_token, unverified_tool_policy
from kxm_grpc.domain.tool_policy import make_policy
from kxm_grpc.server import methods
from kxm_grpc.tools.comments import comments
from kxm_grpc.tools.schema import MILLISECONDS_SUFFIX, is_deprecated, is_duration, limits_of
from kxm_grpc.tools.table import TOOLS, ArgumentError


def test_every_rpc_marked_as_a_tool_has_its_tool() -> None:
    """The table and the server's RPC registry name the same tools for the same RPCs."""
    assert {name: tool.method for name, tool in TOOLS.items()} == {
        name: facts.method for name, facts in methods.TOOLS.items()
    }
    assert all(tool.read_only == methods.TOOLS[name].read_only for name, tool in TOOLS.items())


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_schema_agrees_with_the_request_message(name: str) -> None:
    """Every field of the request (but deprecated ones) is a property and every property a field, at
    every depth; arguments built from the schema alone parse into the request and set each field."""
    tool = TOOLS[name]
    _check_properties(tool.input_schema, tool.request)
    arguments = _sample(tool.input_schema, tool.request)
    request = tool.request_from(arguments)
    for key in arguments:
        field = _field(tool.request, key)
        assert _is_set(request, field), f"{name}: argument {key} did not set {field.name}"


def test_descriptions_come_from_the_comments_without_the_error_lists() -> None:
    send = TOOLS["kxm_send"]

    assert send.description.startswith("SendMessage queues a request for another agent")
    assert all("Errors:" not in tool.description and tool.description for tool in TOOLS.values())
    assert send.input_schema["required"] == ["target", "content"]
    assert send.input_schema["properties"]["target"]["description"].startswith("Required. The recipient")


def test_durations_are_milliseconds_with_declared_bounds() -> None:
    """The original's ttlMs/waitMs: integer milliseconds, exact; kxm_wait's wait is bounded at 60 s
    (in the schema and when called), a negative or fractional value is refused naming the argument."""
    send, wait = TOOLS["kxm_send"], TOOLS["kxm_wait"]

    request = send.request_from({"target": "bob", "content": "hi", "ttlMs": 1_500})
    clamped = wait.request_from({"messageId": "msg_1", "waitMs": 600_000})

    assert "ttl" not in send.input_schema["properties"] and "replyWait" not in send.input_schema["properties"]
    assert (request.ttl.seconds, request.ttl.nanos) == (1, 500_000_000)
    assert wait.input_schema["properties"]["waitMs"]["maximum"] == 60_000
    assert clamped.wait.seconds == 60
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(ArgumentError) as refused:
            wait.request_from({"messageId": "msg_1", "waitMs": bad})
        assert refused.value.field == "waitMs"
    with pytest.raises(ArgumentError):
        send.request_from({"target": "bob", "nonsense": 1})


def test_send_result_is_the_originals_shape() -> None:
    """kxm_send answers {messageId, status, target}, plus the reply when the send waited for it."""
    from kxm_grpc.v1 import message_service_pb2, types_pb2

    response = message_service_pb2.SendMessageResponse(
        message=types_pb2.Message(
            id="msg_1",
            to_agent_name="bob",
            state=types_pb2.MESSAGE_STATE_REPLIED,
            reply=types_pb2.Reply(content="done"),
        ),
        terminal=True,
    )

    result = TOOLS["kxm_send"].result_of(response)

    assert result == {
        "messageId": "msg_1",
        "status": "replied",
        "target": "bob",
        "terminal": True,
        "reply": {"content": "done"},
    }


def test_a_tokens_policy_is_read_for_hiding_tools_only() -> None:
    keyring = Keyring(keys={"k1": b"s" * 32}, current="k1")
    token, _ = mint_session_token(
        keyring,
        project="alpha",
        session_id="ses_1",
        agent_id="agt_" + "0" * 32,
        tool_policy=make_policy(deny=["fanout"]),
        now=0,
        ttl=60_000_000,
    )

    policy = unverified_tool_policy(token)

    assert policy is not None and policy.deny == ("kxm_fanout",)
    assert unverified_tool_policy("kxmst1.k1.bm90IGpzb24.AAAA") is None
    assert unverified_tool_policy("not a token") is None


# -- helpers --------------------------------------------------------------------------------------


def _field(message: Descriptor, key: str) -> FieldDescriptor:
    for field in message.fields:
        if field.json_name == key or field.json_name + MILLISECONDS_SUFFIX == key:
            return field
    raise AssertionError(f"{message.full_name} has no field for property {key}")


def _check_properties(schema: dict[str, Any], message: Descriptor) -> None:
    properties = schema["properties"]
    fields = [f for f in message.fields if not is_deprecated(f)]
    assert len(properties) == len(fields), f"{message.full_name}: {sorted(properties)}"
    for key, value in properties.items():
        field = _field(message, key)
        nested = value.get("items", value) if field.is_repeated else value
        if "properties" in nested and field.message_type is not None:
            _check_properties(nested, field.message_type)


def _sample(schema: dict[str, Any], message: Descriptor | None) -> Any:
    """A valid value of ``schema``; for an object of ``message``, one field per oneof."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema and message is not None:
        chosen: set[str] = set()
        value: dict[str, Any] = {}
        for key, property_schema in schema["properties"].items():
            field = _field(message, key)
            oneof = field.containing_oneof
            if oneof is not None and len(oneof.fields) > 1:
                if oneof.name in chosen:
                    continue
                chosen.add(oneof.name)
            nested = field.message_type if field.message_type is not None else None
            value[key] = _sample(property_schema, nested)
        return value
    if kind == "object":
        extra = schema.get("additionalProperties")
        return {"k": _sample(extra, None)} if isinstance(extra, dict) and extra else {}
    if kind == "array":
        return [_sample(schema["items"], message)] if "items" in schema else ["x"]
    if kind == ["integer", "string"]:
        return "7"
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if kind == "string":
        if schema.get("format") == "date-time":
            return "2026-12-07T00:00:00Z"
        if schema.get("contentEncoding") == "base64":
            return "aGk="
        if schema.get("pattern", "").endswith("s$"):
            return "1.5s"
        return "x"
    return "x"  # google.protobuf.Value: anything


def _is_set(message: Any, field: FieldDescriptor) -> bool:
    value = getattr(message, field.name)
    if field.is_repeated:
        return len(value) > 0
    if field.message_type is not None:
        return bool(message.HasField(field.name))
    return bool(value)


def test_every_bound_a_comment_states_is_declared() -> None:
    """A tool request field whose comment says "at most N characters" or "(A to B)" declares that
    bound in ``[(kxm.v1.limits)]``, so the schema carries it (prose and annotation cannot part)."""
    found = []
    for field, text in _tool_fields():
        limits = limits_of(field)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            continue
        length = re.search(r"at most ([\d,]+) characters", text)
        if length and (limits is None or limits.max_length != int(length.group(1).replace(",", ""))):
            found.append(f"{field.full_name}: {length.group(0)}")
        bounds = re.search(r"\((-?[\d,]+) to (-?[\d,]+)\)", text)
        if bounds and not is_duration(field):
            low, high = (int(n.replace(",", "")) for n in bounds.groups())
            if limits is None or limits.maximum != high or limits.minimum not in (low, 0):
                found.append(f"{field.full_name}: {bounds.group(0)}")
    assert found == []


def test_declared_bounds_are_the_rules_bounds() -> None:
    """The contract's bounds are the ones the hub enforces (the domain's constants)."""
    from kxm_grpc.domain import leases, messages
    from kxm_grpc.v1 import lease_service_pb2, message_service_pb2

    send = message_service_pb2.SendMessageRequest.DESCRIPTOR.fields_by_name
    fanout = message_service_pb2.FanoutMessagesRequest.DESCRIPTOR.fields_by_name
    acquire = lease_service_pb2.AcquireLeaseRequest.DESCRIPTOR.fields_by_name
    declared = {
        "max hops": (limits_of(send["max_hops"]).maximum, messages.MAX_MAX_HOPS),
        "min ttl": (limits_of(send["ttl"]).minimum, messages.MIN_TTL // 1000),
        "fanout targets": (limits_of(fanout["targets"]).max_items, messages.MAX_FANOUT_TARGETS),
        "fanout wait": (limits_of(fanout["wait"]).maximum, messages.MAX_FANOUT_WAIT // 1000),
        "fanout prefix": (limits_of(fanout["idempotency_key_prefix"]).max_length, messages.MAX_FANOUT_PREFIX_CHARS),
        "target": (limits_of(send["target"]).max_length, messages.MAX_TARGET_CHARS),
        "content": (limits_of(send["content"]).max_length, messages.MAX_CONTENT_CHARS),
        "idempotency": (limits_of(send["idempotency_key"]).max_length, messages.MAX_IDEMPOTENCY_KEY_CHARS),
        "hops": (limits_of(send["hops"]).maximum, messages.MAX_HOPS),
        "ttl": (limits_of(send["ttl"]).maximum, messages.MAX_TTL // 1000),
        "wait": (limits_of(send["wait"]).maximum, messages.MAX_WAIT // 1000),
        "lease name": (limits_of(acquire["name"]).max_length, leases.MAX_NAME_CHARS),
        "lease ttl": (limits_of(acquire["ttl"]).maximum, leases.MAX_TTL // 1000),
        "lease min ttl": (limits_of(acquire["ttl"]).minimum, leases.MIN_TTL // 1000),
    }
    assert {name: pair[0] for name, pair in declared.items()} == {name: pair[1] for name, pair in declared.items()}


def _tool_fields() -> list[tuple[FieldDescriptor, str]]:
    """Every field of every tool's request, nested messages included (each message once)."""
    described = comments()
    seen: set[str] = set()
    fields: list[tuple[FieldDescriptor, str]] = []

    def walk(message: Descriptor) -> None:
        if message.full_name in seen or message.full_name.startswith("google."):
            return
        seen.add(message.full_name)
        for field in message.fields:
            fields.append((field, described.get(f"{message.full_name}.{field.name}", "")))
            if field.message_type is not None:
                walk(field.message_type)

    for tool in TOOLS.values():
        walk(tool.request)
    return fields
