"""The ``--json`` output convention (docs/api.md, "JSON output"), checked on every ``kxm … --json``
that the CLI tests run through ``tests.test_cli.kxm``.

Standard output is one JSON object (a stream prints one object per line), never a bare array; keys
are lowerCamelCase, as the proto3 JSON mapping and ``buf curl`` write them; no number is beyond what
a JavaScript reader holds exactly (64-bit integers are strings).
"""

from __future__ import annotations

import json
import re
from typing import Any

KEY = re.compile(r"^[a-z][A-Za-z0-9]*$")


def _map_fields() -> frozenset[str]:
    """The JSON names of every map (and Struct) field of the contract: their keys are data, printed as given."""
    from kxm_grpc import v1

    names: set[str] = set()
    pending = [getattr(v1, name).DESCRIPTOR for name in v1.__all__ if hasattr(getattr(v1, name), "DESCRIPTOR")]
    seen: set[str] = set()
    while pending:
        descriptor = pending.pop()
        if not hasattr(descriptor, "fields") or descriptor.full_name in seen:
            continue
        seen.add(descriptor.full_name)
        pending.extend(descriptor.nested_types)
        for field in descriptor.fields:
            kind = field.message_type
            if kind is not None and (kind.GetOptions().map_entry or kind.full_name == "google.protobuf.Struct"):
                names.add(field.json_name)
    return frozenset(names)


# Maps whose keys are data, not field names: the contract's map fields, an error's metadata, the
# tables of a migration report, a run event's payload (a Struct).
FREE_KEYS = _map_fields() | {"metadata", "tables", "payload"}
SAFE_INTEGER = 2**53


def documents(stdout: str) -> list[Any]:
    """The JSON documents of a command's standard output: the whole of it, else one per line."""
    if not stdout.strip():
        return []
    try:
        return [json.loads(stdout)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def problems(value: Any, path: str = "$") -> list[str]:
    """Where ``value`` breaks the convention (empty: it follows it)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if not KEY.match(key):
                found.append(f"{path}: key {key!r} is not lowerCamelCase")
            if key not in FREE_KEYS:
                found += problems(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += problems(item, f"{path}[{index}]")
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= SAFE_INTEGER:
        found.append(f"{path}: {value} is a number beyond 2**53 (a 64-bit integer is written as a string)")
    return found


def check(stdout: str) -> None:
    """Assert that a ``--json`` command's standard output follows the convention."""
    for document in documents(stdout):
        assert isinstance(document, dict), f"--json printed a {type(document).__name__}, not an object: {stdout[:200]}"
        assert not problems(document), problems(document)
