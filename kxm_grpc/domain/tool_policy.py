"""Tool policy: which agent tools (the RPC registry's tool names, ``kxm_send``) a token allows.

A policy carries an optional ``preset``, an ``allow`` list and a ``deny`` list of entries; an entry
is a tool name (``kxm_send``, or bare: ``send``), ``*``, or a prefix pattern (``kxm_workflow_*``,
or bare: ``workflow_*``). ``evaluate`` decides one tool as the original's ``isToolAllowed``
(workflow-context spec §8.3), in order:

1. Deny list: an exact entry or a matching pattern denies; deny wins over everything.
2. Allow list, when non-empty: the tool must match an entry, else it is denied.
3. Preset ``read-only``: the write tools (``READ_ONLY_DENIED``) are denied too.
4. ``kxm_promote`` is denied unless the allow list names it exactly or holds ``*`` (§8.4: proposing
   durable knowledge needs an explicit grant; a prefix such as ``kxm_*`` is not one).
5. Otherwise allowed.

Entries are canonicalised when a policy is made (``make_policy``): a bare name or pattern gets the
``kxm_`` prefix (``send`` → ``kxm_send``, ``workflow_*`` → ``kxm_workflow_*``), except a pattern
whose prefix is itself a prefix of ``kxm_`` (``k*``, ``kxm*``), which already matches canonical
names; names are lowercase. So every comparison is between canonical names. What is refused is
refused when the policy is made (an unknown preset, a malformed entry, too many), never at
enforcement.

``denied_commands`` (shell commands, for the worker's own harness) is carried in tokens as given;
the hub runs no shell command, so nothing here evaluates it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kxm_grpc.errors import invalid_field

TOOL_PREFIX = "kxm_"
PROMOTE = "kxm_promote"
"""The tool that proposes durable knowledge (the context issue adds it): allowed only when named."""

READ_ONLY = "read-only"
PRESETS = frozenset({READ_ONLY})
"""The presets a policy may name."""

READ_ONLY_DENIED: frozenset[str] = frozenset(
    {
        # §8.3's list, in the hub's tool names:
        "kxm_send",
        "kxm_reply",
        "kxm_cancel",
        "kxm_fanout",
        "kxm_workflow_checkpoint",
        "kxm_workflow_record",
        "kxm_workflow_wait",
        PROMOTE,
        # The hub's write tools the original did not have:
        "kxm_acquire_lease",
        "kxm_renew_lease",
        "kxm_release_lease",
        "kxm_workflow_escalate",
    }
)
"""The tools the ``read-only`` preset denies: every tool whose RPC is not read-only except
``READ_ONLY_KEEPS``, and ``kxm_promote`` (a contract test keeps this equal to the registry's)."""

READ_ONLY_KEEPS: frozenset[str] = frozenset({"kxm_complete_assignment"})
"""Write tools the ``read-only`` preset leaves allowed: an attempt handing in its own result (a
read-only reviewer must still return its verdict; the attempt token's scope already limits the
call to that attempt's assignment). An explicit ``deny`` still refuses them."""

MAX_ENTRIES = 32
"""At most this many entries in each of ``allow`` and ``deny`` (a token travels in call metadata)."""
MAX_ENTRY_CHARS = 48
MAX_COMMANDS = 8
MAX_COMMAND_CHARS = 128

_ENTRY = re.compile(r"\*|k(?:x(?:m_?)?)?\*|kxm_(?:[a-z][a-z0-9_]*)?\*|kxm_[a-z][a-z0-9_]*")
"""A canonical entry: ``*``, a prefix of ``kxm_`` and ``*``, or ``kxm_`` with a tool name or its prefix and ``*``."""


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """A validated tool policy with canonical entries (make one with ``make_policy``)."""

    preset: str = ""
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    denied_commands: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when it restricts nothing but ``kxm_promote`` (no preset, no entries)."""
        return not (self.preset or self.allow or self.deny)


ALLOW_ALL = ToolPolicy(allow=("*",))
"""A policy that allows every tool, ``kxm_promote`` included."""


class Rule(enum.Enum):
    """Which step of the evaluation decided a tool."""

    DENY_LIST = "deny_list"
    NOT_ALLOWED = "not_in_allow_list"
    PRESET = "preset"
    EXPLICIT_ALLOW_REQUIRED = "explicit_allow_required"
    ALLOWED = "allowed"


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome for one tool: allowed or not, the rule that decided, and the entry that matched."""

    allowed: bool
    rule: Rule
    entry: str = ""


def canonical_entry(entry: str) -> str:
    """The canonical form of an allow or deny entry (see the module docstring); no validation."""
    entry = entry.strip().lower()
    if entry == "*" or entry.startswith(TOOL_PREFIX):
        return entry
    if entry.endswith("*") and TOOL_PREFIX.startswith(entry[:-1]):
        return entry  # k*, kx*, kxm*: already a prefix of every canonical name
    return TOOL_PREFIX + entry


def _entries(field: str, values: Iterable[str]) -> tuple[str, ...]:
    """Validated canonical entries, duplicates dropped, order kept.

    Raises:
        InvalidArgument: too many, an empty or too long one, or one that is not a name, ``*`` or
            ``prefix*`` (naming ``field[i]``).
    """
    found: list[str] = []
    given = list(values)
    if len(given) > MAX_ENTRIES:
        raise invalid_field(field, f"must hold at most {MAX_ENTRIES} entries")
    for index, value in enumerate(given):
        entry = canonical_entry(value) if value.strip() else ""
        if len(entry) > MAX_ENTRY_CHARS or not _ENTRY.fullmatch(entry):
            raise invalid_field(
                f"{field}[{index}]",
                f"must be a tool name, '*' or 'prefix*' (lowercase letters, digits, '_'; at most "
                f"{MAX_ENTRY_CHARS} characters)",
            )
        if entry not in found:
            found.append(entry)
    return tuple(found)


def make_policy(
    *,
    preset: str = "",
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    denied_commands: Sequence[str] = (),
    field: str = "tool_policy",
) -> ToolPolicy:
    """A validated policy with canonical entries; ``field`` prefixes the names of refused fields.

    Raises:
        InvalidArgument: an unknown preset (``field.preset``), a malformed or surplus entry
            (``field.allowed_tools[i]``, ``field.denied_tools[i]``), or too many or too long
            denied commands (``field.denied_commands``).
    """
    preset = preset.strip().lower()
    if preset and preset not in PRESETS:
        raise invalid_field(f"{field}.preset", f"must be empty or one of: {', '.join(sorted(PRESETS))}")
    commands = tuple(denied_commands)
    if len(commands) > MAX_COMMANDS:
        raise invalid_field(f"{field}.denied_commands", f"must hold at most {MAX_COMMANDS} commands")
    for index, command in enumerate(commands):
        if not command or len(command) > MAX_COMMAND_CHARS or any(ord(c) < 32 or ord(c) == 127 for c in command):
            raise invalid_field(
                f"{field}.denied_commands[{index}]",
                f"must be 1-{MAX_COMMAND_CHARS} characters, none a control character",
            )
    return ToolPolicy(
        preset=preset,
        allow=_entries(f"{field}.allowed_tools", allow),
        deny=_entries(f"{field}.denied_tools", deny),
        denied_commands=commands,
    )


def _match(entries: tuple[str, ...], tool: str) -> str:
    """The first entry that matches the canonical ``tool`` (exact, ``*`` or prefix), or ``""``."""
    for entry in entries:
        if entry == tool or entry == "*" or (entry.endswith("*") and tool.startswith(entry[:-1])):
            return entry
    return ""


def evaluate(policy: ToolPolicy, tool: str) -> Decision:
    """Decide whether ``policy`` allows the canonical tool name ``tool`` (the module docstring's order)."""
    entry = _match(policy.deny, tool)
    if entry:
        return Decision(False, Rule.DENY_LIST, entry)
    if policy.allow:
        entry = _match(policy.allow, tool)
        if not entry:
            return Decision(False, Rule.NOT_ALLOWED)
    if policy.preset == READ_ONLY and tool in READ_ONLY_DENIED:
        return Decision(False, Rule.PRESET, READ_ONLY)
    if tool == PROMOTE and not (PROMOTE in policy.allow or "*" in policy.allow):
        return Decision(False, Rule.EXPLICIT_ALLOW_REQUIRED)
    return Decision(True, Rule.ALLOWED, entry)


def policy_json(policy: ToolPolicy) -> dict[str, object]:
    """The policy as a JSON object (in tokens and the store); empty parts are left out."""
    document: dict[str, object] = {}
    if policy.preset:
        document["preset"] = policy.preset
    if policy.allow:
        document["allow"] = list(policy.allow)
    if policy.deny:
        document["deny"] = list(policy.deny)
    if policy.denied_commands:
        document["deniedCommands"] = list(policy.denied_commands)
    return document


def policy_from_json(document: Mapping[str, object]) -> ToolPolicy:
    """The policy of ``policy_json`` (validated again: a stored or signed one was valid when made).

    Raises:
        InvalidArgument: it is not a policy ``make_policy`` accepts.
        ValueError: a part has the wrong JSON type.
    """

    def strings(key: str) -> list[str]:
        value = document.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"tool policy {key} must be a list of strings")
        return value

    preset = document.get("preset", "")
    if not isinstance(preset, str):
        raise ValueError("tool policy preset must be a string")
    return make_policy(
        preset=preset, allow=strings("allow"), deny=strings("deny"), denied_commands=strings("deniedCommands")
    )
