"""The tool table: one ``Tool`` per RPC whose ``kxm.v1.facts`` name a tool, read from the contract.

A tool's name, kind (read-only or not) and RPC come from the facts; its input schema from the
request message (``schema.py``); its description from the RPC's comment up to its ``Errors:`` list
(``comments.py``); how it differs from its RPC from ``mappings.py``. ``request_from`` and
``result_of`` turn a tool call's JSON into the request and the response into the result, by the same
rules, so a tool and its schema cannot disagree.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message

from kxm_grpc._gen.kxm import v1 as _gen_v1
from kxm_grpc._gen.kxm.v1 import options_pb2
from kxm_grpc.tools.comments import comments
from kxm_grpc.tools.mappings import MAPPINGS, PLAIN, JsonObject, ToolMapping
from kxm_grpc.tools.schema import (
    MILLISECONDS_SUFFIX,
    JsonSchema,
    is_deprecated,
    is_duration,
    limits_of,
    message_schema,
)

ERRORS_HEADING = "Errors:"


class ArgumentError(ValueError):
    """A tool call's arguments do not fit its schema; ``field`` names the argument (may be empty)."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """One agent tool: an RPC offered to models, with its schema and mapping (compared and hashed
    by identity: the table holds one of each)."""

    name: str
    """The tool name (``kxm_send``), as tool policies name it."""
    method: str
    """The RPC's full method name: ``/kxm.v1.MessageService/SendMessage``."""
    read_only: bool
    """Whether the RPC changes nothing (its facts' ``read_only``)."""
    description: str
    """What the RPC's comment says, up to its list of errors."""
    input_schema: JsonSchema
    """The JSON Schema of the arguments (the request, as mapped)."""
    request: Descriptor
    response: Descriptor
    mapping: ToolMapping

    @property
    def response_type(self) -> type[Message]:
        """The response's generated class."""
        return message_factory.GetMessageClass(self.response)

    def request_from(self, arguments: Mapping[str, Any]) -> Message:
        """The RPC's request from a tool call's arguments.

        Raises:
            ArgumentError: an argument is unknown, of the wrong type or out of its declared bound.
        """
        converted = _from_milliseconds(self.request, dict(arguments), self.mapping, top=True)
        request = message_factory.GetMessageClass(self.request)()
        try:
            json_format.ParseDict(converted, request)
        except json_format.ParseError as error:
            raise ArgumentError(str(error)) from None
        return request

    def result_of(self, response: Message) -> JsonObject:
        """The tool's result: the response in proto JSON, through the mapping's view if it has one."""
        document = json_format.MessageToDict(response)
        return document if self.mapping.result is None else self.mapping.result(document)


def _from_milliseconds(message: Descriptor, arguments: JsonObject, mapping: ToolMapping, *, top: bool) -> JsonObject:
    """``arguments`` with every ``<name>Ms`` Duration turned into proto JSON seconds text (``"1.5s"``).

    Raises:
        ArgumentError: a milliseconds value is not a whole number, is negative or exceeds its bound.
    """
    if not mapping.milliseconds:
        return arguments
    converted: JsonObject = {}
    for key, value in arguments.items():
        field = _field_of(message, key)
        if field is not None and is_duration(field):
            limits = limits_of(field)
            clamp = top and field.json_name in mapping.clamped and limits is not None and limits.HasField("maximum")
            converted[field.json_name] = _seconds_text(key, value, limits.maximum if clamp and limits else None)
        elif field is not None and field.message_type is not None and isinstance(value, dict):
            converted[key] = _from_milliseconds(field.message_type, value, mapping, top=False)
        elif field is not None and field.message_type is not None and isinstance(value, list):
            converted[key] = [
                _from_milliseconds(field.message_type, item, mapping, top=False) if isinstance(item, dict) else item
                for item in value
            ]
        else:
            converted[key] = value
    return converted


def _field_of(message: Descriptor, argument: str) -> FieldDescriptor | None:
    """The field an argument names: ``ttlMs`` names the Duration ``ttl``; other names their field."""
    if argument.endswith(MILLISECONDS_SUFFIX):
        stem = argument.removesuffix(MILLISECONDS_SUFFIX)
        for field in message.fields:
            if stem in (field.json_name, field.name) and is_duration(field):
                return field
    for field in message.fields:
        if argument in (field.json_name, field.name):
            return field
    return None


def _seconds_text(key: str, value: Any, maximum: int | None) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{key} must be a whole number of milliseconds", key)
    if value < 0:
        raise ArgumentError(f"{key} must not be negative", key)
    if maximum is not None:
        value = min(value, maximum)
    return f"{value // 1000}.{value % 1000:03d}s"


def _description(method: MethodDescriptor) -> str:
    text = comments().get(method.full_name, "")
    summary = text.split(ERRORS_HEADING, 1)[0].strip()
    return summary or f"Calls {method.containing_service.full_name}.{method.name}."


def read_tool(service: ServiceDescriptor, method: MethodDescriptor) -> Tool | None:
    """The tool ``method`` of ``service`` declares, or None when its facts name none."""
    options = method.GetOptions()
    facts = options.Extensions[options_pb2.facts]
    if not facts.tool_name:
        return None
    mapping = MAPPINGS.get(facts.tool_name, PLAIN)
    schema = message_schema(method.input_type, milliseconds=mapping.milliseconds)
    return Tool(
        name=facts.tool_name,
        method=f"/{service.full_name}/{method.name}",
        read_only=facts.read_only,
        description=_description(method),
        input_schema=schema,
        request=method.input_type,
        response=method.output_type,
        mapping=mapping,
    )


def _services() -> list[ServiceDescriptor]:
    services: list[ServiceDescriptor] = []
    for module in sorted(m.name for m in pkgutil.iter_modules(_gen_v1.__path__)):
        if module.endswith("_pb2"):
            services.extend(
                importlib.import_module(f"{_gen_v1.__name__}.{module}").DESCRIPTOR.services_by_name.values()
            )
    return services


def _table() -> dict[str, Tool]:
    tools: dict[str, Tool] = {}
    for service in _services():
        for method in service.methods:
            tool = read_tool(service, method)
            if tool is not None:
                tools[tool.name] = tool
    return dict(sorted(tools.items()))


TOOLS: Mapping[str, Tool] = _table()
"""Every agent tool, by name, in name order."""

__all__ = ["TOOLS", "ArgumentError", "Tool", "is_deprecated", "read_tool"]
