"""The contract's comments by full name, read from the descriptor set shipped with the package.

The generated modules carry no comments, so ``scripts/gen`` also writes
``kxm_grpc/_gen/kxm/v1/contract.binpb`` (protoc ``--include_source_info``). Names are the
descriptors' full names: ``kxm.v1.MessageService.SendMessage`` (a method),
``kxm.v1.SendMessageRequest.target`` (a field), ``kxm.v1.Delivery.DELIVERY_STEER`` (an enum value).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from importlib import resources

from google.protobuf import descriptor_pb2

CONTRACT = "contract.binpb"
"""The descriptor set's file name, in ``kxm_grpc._gen.kxm.v1``."""

# Field numbers of descriptor.proto, as SourceCodeInfo paths spell them.
_FILE_MESSAGES, _FILE_ENUMS, _FILE_SERVICES = 4, 5, 6
_MESSAGE_FIELDS, _MESSAGE_NESTED, _MESSAGE_ENUMS = 2, 3, 4
_ENUM_VALUES = 2
_SERVICE_METHODS = 2


@functools.cache
def comments() -> Mapping[str, str]:
    """Every documented element's leading comment (dedented, stripped), by full name."""
    data = resources.files("kxm_grpc._gen.kxm.v1").joinpath(CONTRACT).read_bytes()
    contract = descriptor_pb2.FileDescriptorSet.FromString(data)
    found: dict[str, str] = {}
    for file in contract.file:
        located = {tuple(location.path): location.leading_comments for location in file.source_code_info.location}
        _walk(file, located, found)
    return found


def _walk(
    file: descriptor_pb2.FileDescriptorProto, located: Mapping[tuple[int, ...], str], found: dict[str, str]
) -> None:
    def keep(name: str, path: Sequence[int]) -> None:
        text = located.get(tuple(path), "")
        if text.strip():
            found[name] = "\n".join(line.removeprefix(" ") for line in text.strip("\n").splitlines()).strip()

    def enum(scope: str, value: descriptor_pb2.EnumDescriptorProto, path: list[int]) -> None:
        name = f"{scope}.{value.name}"
        keep(name, path)
        for index, member in enumerate(value.value):
            # Enum values are scoped like their enum's siblings in protobuf, but named here under the
            # enum, where a reader looks for them.
            keep(f"{name}.{member.name}", [*path, _ENUM_VALUES, index])

    def message(scope: str, value: descriptor_pb2.DescriptorProto, path: list[int]) -> None:
        name = f"{scope}.{value.name}"
        keep(name, path)
        for index, field in enumerate(value.field):
            keep(f"{name}.{field.name}", [*path, _MESSAGE_FIELDS, index])
        for index, nested in enumerate(value.nested_type):
            message(name, nested, [*path, _MESSAGE_NESTED, index])
        for index, nested_enum in enumerate(value.enum_type):
            enum(name, nested_enum, [*path, _MESSAGE_ENUMS, index])

    package = file.package
    for index, value in enumerate(file.message_type):
        message(package, value, [_FILE_MESSAGES, index])
    for index, enum_value in enumerate(file.enum_type):
        enum(package, enum_value, [_FILE_ENUMS, index])
    for index, service in enumerate(file.service):
        name = f"{package}.{service.name}"
        keep(name, [_FILE_SERVICES, index])
        for method_index, method in enumerate(service.method):
            keep(f"{name}.{method.name}", [_FILE_SERVICES, index, _SERVICE_METHODS, method_index])
