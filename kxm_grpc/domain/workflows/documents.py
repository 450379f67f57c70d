"""Decoding an operator's document (a workflow definition, a gate registry) from JSON or YAML.

YAML is read the way its JSON would be: only ``true``/``false`` are booleans (YAML 1.1 also takes
``on``, ``yes``, ``off``, ``no``, which would turn a stage's or step's ``on:`` into ``True:``),
dates and times stay strings, and ``=`` is a plain string. JSON refuses ``NaN`` and ``Infinity``.
"""

from __future__ import annotations

import json
import re

import yaml

from kxm_grpc.domain.validation import js_trim

FORMATS = ("json", "yaml")


class DocumentError(ValueError):
    """The text does not decode; the message says why (never the text itself)."""


class _YamlLoader(yaml.SafeLoader):
    """A SafeLoader with fewer implicit types (see the module docstring)."""


_YamlLoader.yaml_implicit_resolvers = {
    first: [
        (tag, pattern)
        for tag, pattern in resolvers
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value")
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def format_for(origin: str, format: str | None) -> str:
    """The format to read ``origin`` as: ``format``, else YAML for ``.yaml``/``.yml``, else JSON.

    Raises:
        ValueError: ``format`` is neither ``"json"`` nor ``"yaml"``.
    """
    if format not in (None, *FORMATS):
        raise ValueError(f"unknown definition format {format!r} (json or yaml)")
    return format or ("yaml" if origin.lower().endswith((".yaml", ".yml")) else "json")


def decode(text: str, *, origin: str, format: str | None) -> object:
    """The value ``text`` holds. A guessed JSON (``format`` None, no YAML suffix) that fails and
    does not start like JSON (``{`` or ``[``) is read as YAML.

    Raises:
        DocumentError: invalid JSON or YAML, or nesting too deep to decode.
        ValueError: ``format`` is neither ``"json"`` nor ``"yaml"``.
    """
    chosen = format_for(origin, format)
    try:
        if chosen == "json":
            try:
                return json.loads(text, parse_constant=_no_constant)
            except ValueError as error:
                # Only a guess may fall back: a text that starts like JSON meant to be JSON.
                if format == "json" or js_trim(text)[:1] in ("{", "["):
                    raise DocumentError(f"invalid JSON: {error}") from None
        try:
            return yaml.load(text, Loader=_YamlLoader)  # noqa: S506 - a SafeLoader with fewer implicit types
        except yaml.YAMLError as error:
            raise DocumentError(f"invalid YAML: {error}") from None
    except RecursionError:  # both parsers recurse per level of nesting
        raise DocumentError("nests too deeply") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")
