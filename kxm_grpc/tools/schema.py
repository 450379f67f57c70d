"""JSON Schema of a request message, in the proto JSON mapping every surface uses.

One convention (docs/tools.md, "JSON"): field names in lowerCamelCase (the fields' ``json_name``;
the parsers also accept the proto names); 64-bit integers written as decimal strings and accepted as
numbers or strings; enums by value name; ``Timestamp`` as RFC 3339 text; ``Duration`` as seconds
text (``"1.5s"``) or, where a tool's mapping says so, as integer milliseconds under ``<name>Ms``;
``Struct`` as an object; bytes as base64. Deprecated fields are left out (the RPC still accepts
them). A field whose comment starts with ``Required.`` is required, unless it is one of a oneof.
Comments become descriptions, so the schema says what the contract says, and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from kxm_grpc._gen.kxm.v1 import options_pb2
from kxm_grpc.tools.comments import comments

JsonSchema = dict[str, Any]

MILLISECONDS_SUFFIX = "Ms"
"""What a Duration field offered in milliseconds is named after: ``ttl`` → ``ttlMs``."""

_INTEGER_TEXT = r"^-?[0-9]+$"
_SCALARS: Mapping[int, JsonSchema] = {
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "minimum": 0, "maximum": 2**32 - 1},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "minimum": 0, "maximum": 2**32 - 1},
    # The proto JSON mapping writes 64-bit integers as strings (JavaScript numbers lose precision
    # beyond 2**53) and reads either.
    FieldDescriptor.TYPE_INT64: {"type": ["integer", "string"], "pattern": _INTEGER_TEXT},
    FieldDescriptor.TYPE_SINT64: {"type": ["integer", "string"], "pattern": _INTEGER_TEXT},
    FieldDescriptor.TYPE_SFIXED64: {"type": ["integer", "string"], "pattern": _INTEGER_TEXT},
    FieldDescriptor.TYPE_UINT64: {"type": ["integer", "string"], "pattern": r"^[0-9]+$"},
    FieldDescriptor.TYPE_FIXED64: {"type": ["integer", "string"], "pattern": r"^[0-9]+$"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}
_WELL_KNOWN: Mapping[str, JsonSchema] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$"},
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Empty": {"type": "object"},
    "google.protobuf.StringValue": {"type": "string"},
    "google.protobuf.BoolValue": {"type": "boolean"},
    "google.protobuf.Int32Value": {"type": "integer"},
    "google.protobuf.UInt32Value": {"type": "integer", "minimum": 0},
    "google.protobuf.Int64Value": {"type": ["integer", "string"], "pattern": _INTEGER_TEXT},
    "google.protobuf.UInt64Value": {"type": ["integer", "string"], "pattern": r"^[0-9]+$"},
    "google.protobuf.DoubleValue": {"type": "number"},
    "google.protobuf.FloatValue": {"type": "number"},
}
DURATION = "google.protobuf.Duration"
REQUIRED = "Required."
MAX_DEPTH = 8
"""Nesting beyond this (only a recursive message reaches it) is described as a plain object."""


def message_schema(message: Descriptor, *, milliseconds: bool = False) -> JsonSchema:
    """The JSON Schema of ``message``'s proto JSON form (``milliseconds``: Durations as ``<name>Ms``)."""
    return _object(message, milliseconds, depth=0)


def is_deprecated(field: FieldDescriptor) -> bool:
    """Whether the field is marked ``[deprecated = true]`` (schemas leave it out)."""
    return field.GetOptions().deprecated


def property_name(field: FieldDescriptor, *, milliseconds: bool) -> str:
    """The field's name in a schema: its JSON name, ``Ms``-suffixed for a Duration in milliseconds."""
    if milliseconds and is_duration(field):
        return field.json_name + MILLISECONDS_SUFFIX
    return field.json_name


def limits_of(field: FieldDescriptor) -> options_pb2.FieldLimits | None:
    """The field's declared bounds (``[(kxm.v1.limits) = {...}]``), or None when it declares none."""
    options = field.GetOptions()
    if not options.HasExtension(options_pb2.limits):
        return None
    return options.Extensions[options_pb2.limits]


def _bounded(schema: JsonSchema, limits: options_pb2.FieldLimits | None, *, whole: bool) -> JsonSchema:
    """``schema`` with the declared bounds that apply to it: lengths and ranges to a single value,
    entry counts to the whole of a repeated or map field (``whole``)."""
    if limits is None:
        return schema
    if whole:
        kind = "Properties" if schema.get("type") == "object" else "Items"
        if limits.max_items:
            schema[f"max{kind}"] = limits.max_items
        if limits.min_items:
            schema[f"min{kind}"] = limits.min_items
        return schema
    if limits.max_length:
        schema["maxLength"] = limits.max_length
    if limits.min_length:
        schema["minLength"] = limits.min_length
    if limits.HasField("minimum") and schema.get("type") == "integer":
        schema["minimum"] = limits.minimum
    if limits.HasField("maximum") and schema.get("type") == "integer":
        schema["maximum"] = limits.maximum
    return schema


def is_duration(field: FieldDescriptor) -> bool:
    """Whether the field is a ``google.protobuf.Duration``."""
    return field.message_type is not None and field.message_type.full_name == DURATION


def _object(message: Descriptor, milliseconds: bool, depth: int) -> JsonSchema:
    described = comments()
    properties: JsonSchema = {}
    required: list[str] = []
    for field in message.fields:
        if is_deprecated(field):
            continue
        name = property_name(field, milliseconds=milliseconds)
        schema = _field(field, milliseconds, depth)
        text = described.get(f"{message.full_name}.{field.name}", "")
        oneof = field.containing_oneof
        # proto3 ``optional`` makes a synthetic oneof of one field, named after it: not a choice.
        real_oneof = oneof is not None and not (len(oneof.fields) == 1 and oneof.name == f"_{field.name}")
        if milliseconds and is_duration(field):
            text = f"{text} In milliseconds.".strip()
        if oneof is not None and real_oneof:
            siblings = ", ".join(property_name(f, milliseconds=milliseconds) for f in oneof.fields if f is not field)
            text = f"{text} At most one of this and {siblings}.".strip()
        if text:
            schema["description"] = text
        if text.startswith(REQUIRED) and not real_oneof:
            required.append(name)
        properties[name] = schema
    result: JsonSchema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        result["required"] = required
    return result


def _field(field: FieldDescriptor, milliseconds: bool, depth: int) -> JsonSchema:
    limits = limits_of(field)
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value = field.message_type.fields_by_name["value"]
        return _bounded(
            {"type": "object", "additionalProperties": _single(value, milliseconds, depth)}, limits, whole=True
        )
    single = _bounded(_single(field, milliseconds, depth), limits, whole=False)
    if field.is_repeated:
        return _bounded({"type": "array", "items": single}, limits, whole=True)
    return single


def _single(field: FieldDescriptor, milliseconds: bool, depth: int) -> JsonSchema:
    if field.enum_type is not None:
        return _enum(field.enum_type)
    if field.message_type is None:
        return dict(_SCALARS[field.type])
    if milliseconds and is_duration(field):
        return {"type": "integer", "minimum": 0}
    known = _WELL_KNOWN.get(field.message_type.full_name)
    if known is not None:
        return dict(known)
    if depth >= MAX_DEPTH:
        return {"type": "object"}
    return _object(field.message_type, milliseconds, depth + 1)


def _enum(enum: EnumDescriptor) -> JsonSchema:
    """An enum by its value names; the zero value (``*_UNSPECIFIED``, "not given") is left out."""
    return {"type": "string", "enum": [value.name for value in enum.values if value.number != 0]}
