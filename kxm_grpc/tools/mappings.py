"""Where a tool differs from its RPC, declared once here (never written into a schema by hand).

The original's tools (workflow-context spec §8.1) took durations in milliseconds (``ttlMs``,
``timeoutMs``) and answered ``kxm_send`` with ``{messageId, status, target}``; agents' prompts and
habits carry those shapes, so the tools keep them (docs/decisions.md, decision 282):

- every tool takes each ``Duration`` field as integer milliseconds under ``<name>Ms``
  (``ttl`` → ``ttlMs``);
- ``clamped`` durations above their declared maximum (``[(kxm.v1.limits)]``) are reduced to it
  rather than refused, where the hub reduces larger values anyway (the waits of ``kxm_wait``,
  ``kxm_send`` and ``kxm_fanout``): the original's ``kxm_await`` clamped to 60 s;
- ``result`` is a view of the response's JSON (``kxm_send``'s ``{messageId, status, target, …}``).

Everything else is the RPC's request and response in the proto JSON mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

JsonObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolMapping:
    """How one tool's arguments and result differ from its RPC's request and response."""

    milliseconds: bool = True
    """Durations as integer milliseconds under ``<name>Ms`` (the original's convention)."""
    clamped: frozenset[str] = frozenset()
    """Top-level durations, by JSON name (``wait``), reduced to their declared maximum when above it."""
    result: Callable[[JsonObject], JsonObject] | None = None
    """The tool's result from the response's proto JSON; None: the response as it is."""


def send_result(response: JsonObject) -> JsonObject:
    """``kxm_send``'s result: the original's ``{messageId, status, target}``, plus what a send that
    waited learned (``terminal``, the ``reply`` or ``error``) and whether it ``repeated`` an earlier one."""
    message = response.get("message", {})
    result: JsonObject = {
        "messageId": message.get("id", ""),
        "status": str(message.get("state", "")).removeprefix("MESSAGE_STATE_").lower(),
        "target": message.get("toAgentName", ""),
    }
    for key in ("repeated", "terminal"):
        if response.get(key):
            result[key] = True
    for key in ("reply", "error"):
        if message.get(key):
            result[key] = message[key]
    return result


PLAIN = ToolMapping()
"""The mapping of every tool not named in ``MAPPINGS``."""

MAPPINGS: Mapping[str, ToolMapping] = {
    "kxm_send": ToolMapping(clamped=frozenset({"wait"}), result=send_result),
    "kxm_wait": ToolMapping(clamped=frozenset({"wait"})),
    "kxm_fanout": ToolMapping(clamped=frozenset({"wait"})),
}
"""The tools that differ from their RPC beyond milliseconds, by tool name."""
