"""Tool policy evaluation: the truth table of workflow-context spec §8.3, table-driven.

Pure functions (kxm_grpc/domain/tool_policy.py): canonical names, exact / ``*`` / ``prefix*``
entries, deny winning, a non-empty allow list that must match, the ``read-only`` preset, and
``kxm_promote`` needing an explicit allow; what a malformed policy is refused with.
"""

from __future__ import annotations

import pytest

from kxm_grpc.domain.tool_policy import (
    ALLOW_ALL,
    MAX_ENTRIES,
    READ_ONLY_DENIED,
    READ_ONLY_KEEPS,
    Rule,
    ToolPolicy,
    canonical_entry,
    evaluate,
    make_policy,
    policy_from_json,
    policy_json,
)
from kxm_grpc.errors import InvalidArgument
from kxm_grpc.server.methods import TOOLS

NONE = make_policy()
READ_ONLY = make_policy(preset="read-only")

# (policy, tool, allowed, rule that decided)
TRUTH_TABLE: list[tuple[ToolPolicy, str, bool, Rule]] = [
    # 1. No restriction: every tool but kxm_promote.
    (NONE, "kxm_send", True, Rule.ALLOWED),
    (NONE, "kxm_inbox", True, Rule.ALLOWED),
    (NONE, "kxm_promote", False, Rule.EXPLICIT_ALLOW_REQUIRED),
    # 2. Deny list: exact (canonical or bare), * and prefix*; deny wins over allow.
    (make_policy(deny=["kxm_send"]), "kxm_send", False, Rule.DENY_LIST),
    (make_policy(deny=["send"]), "kxm_send", False, Rule.DENY_LIST),
    (make_policy(deny=["send"]), "kxm_sender", True, Rule.ALLOWED),
    (make_policy(deny=["*"]), "kxm_inbox", False, Rule.DENY_LIST),
    (make_policy(deny=["kxm_workflow_*"]), "kxm_workflow_checkpoint", False, Rule.DENY_LIST),
    (make_policy(deny=["workflow_*"]), "kxm_workflow_run", False, Rule.DENY_LIST),
    (make_policy(deny=["workflow_*"]), "kxm_send", True, Rule.ALLOWED),
    (make_policy(deny=["kx*"]), "kxm_send", False, Rule.DENY_LIST),
    (make_policy(allow=["kxm_send"], deny=["kxm_send"]), "kxm_send", False, Rule.DENY_LIST),
    (make_policy(allow=["*"], deny=["*"]), "kxm_send", False, Rule.DENY_LIST),
    (make_policy(allow=["kxm_promote"], deny=["kxm_*"]), "kxm_promote", False, Rule.DENY_LIST),
    # 3. A non-empty allow list must match.
    (make_policy(allow=["kxm_inbox"]), "kxm_inbox", True, Rule.ALLOWED),
    (make_policy(allow=["inbox"]), "kxm_inbox", True, Rule.ALLOWED),
    (make_policy(allow=["kxm_inbox"]), "kxm_send", False, Rule.NOT_ALLOWED),
    (make_policy(allow=["kxm_workflow_*"]), "kxm_workflow_record", True, Rule.ALLOWED),
    (make_policy(allow=["kxm_workflow_*"]), "kxm_send", False, Rule.NOT_ALLOWED),
    (make_policy(allow=["*"]), "kxm_anything", True, Rule.ALLOWED),
    # 4. read-only denies the write tools, alone or on top of an allow list; reads stay allowed.
    (READ_ONLY, "kxm_send", False, Rule.PRESET),
    (READ_ONLY, "kxm_reply", False, Rule.PRESET),
    (READ_ONLY, "kxm_cancel", False, Rule.PRESET),
    (READ_ONLY, "kxm_fanout", False, Rule.PRESET),
    (READ_ONLY, "kxm_workflow_checkpoint", False, Rule.PRESET),
    (READ_ONLY, "kxm_workflow_record", False, Rule.PRESET),
    (READ_ONLY, "kxm_workflow_wait", False, Rule.PRESET),
    (READ_ONLY, "kxm_acquire_lease", False, Rule.PRESET),
    (READ_ONLY, "kxm_promote", False, Rule.PRESET),
    (READ_ONLY, "kxm_list_agents", True, Rule.ALLOWED),
    (READ_ONLY, "kxm_get_message", True, Rule.ALLOWED),
    (READ_ONLY, "kxm_inbox", True, Rule.ALLOWED),
    (READ_ONLY, "kxm_wait", True, Rule.ALLOWED),
    (READ_ONLY, "kxm_workflow_run", True, Rule.ALLOWED),
    (READ_ONLY, "kxm_improvement_report", True, Rule.ALLOWED),
    (make_policy(preset="read-only", allow=["*"]), "kxm_send", False, Rule.PRESET),
    (make_policy(preset="read-only", allow=["kxm_inbox"]), "kxm_list_agents", False, Rule.NOT_ALLOWED),
    (make_policy(preset="read-only", deny=["kxm_inbox"]), "kxm_inbox", False, Rule.DENY_LIST),
    # 5. kxm_promote needs an explicit allow entry: its name (canonical or bare) or *, not a prefix.
    (make_policy(allow=["kxm_promote"]), "kxm_promote", True, Rule.ALLOWED),
    (make_policy(allow=["promote"]), "kxm_promote", True, Rule.ALLOWED),
    (make_policy(allow=["*"]), "kxm_promote", True, Rule.ALLOWED),
    (make_policy(allow=["kxm_*"]), "kxm_promote", False, Rule.EXPLICIT_ALLOW_REQUIRED),
    (make_policy(allow=["kxm_pro*"]), "kxm_promote", False, Rule.EXPLICIT_ALLOW_REQUIRED),
    (make_policy(deny=["kxm_send"]), "kxm_promote", False, Rule.EXPLICIT_ALLOW_REQUIRED),
    (ALLOW_ALL, "kxm_promote", True, Rule.ALLOWED),
]


@pytest.mark.parametrize(("policy", "tool", "allowed", "rule"), TRUTH_TABLE)
def test_the_truth_table(policy: ToolPolicy, tool: str, allowed: bool, rule: Rule) -> None:
    decision = evaluate(policy, tool)

    assert (decision.allowed, decision.rule) == (allowed, rule)


def test_read_only_denies_exactly_the_registrys_write_tools_and_promote() -> None:
    """The preset's list is the registry's: every tool whose RPC is not read-only, but an attempt's
    own result, and kxm_promote (which the context issue adds); a new write tool cannot slip past."""
    writes = {tool for tool, facts in TOOLS.items() if not facts.read_only}

    assert writes - READ_ONLY_KEEPS | {"kxm_promote"} == READ_ONLY_DENIED
    assert evaluate(make_policy(preset="read-only"), "kxm_complete_assignment").allowed


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("kxm_send", "kxm_send"),
        ("send", "kxm_send"),
        ("  Send ", "kxm_send"),
        ("*", "*"),
        ("workflow_*", "kxm_workflow_*"),
        ("kxm_workflow_*", "kxm_workflow_*"),
        ("k*", "k*"),
        ("kxm*", "kxm*"),
        ("x*", "kxm_x*"),
    ],
)
def test_entries_are_canonical(given: str, canonical: str) -> None:
    assert canonical_entry(given) == canonical


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"preset": "admin"}, "tool_policy.preset"),
        ({"allow": ["kxm send"]}, "tool_policy.allowed_tools[0]"),
        ({"allow": ["ok", "a*b"]}, "tool_policy.allowed_tools[1]"),
        ({"deny": [""]}, "tool_policy.denied_tools[0]"),
        ({"deny": ["**"]}, "tool_policy.denied_tools[0]"),
        ({"deny": ["1abc"]}, "tool_policy.denied_tools[0]"),
        ({"deny": ["x" * 49]}, "tool_policy.denied_tools[0]"),
        ({"allow": [f"t{i}" for i in range(MAX_ENTRIES + 1)]}, "tool_policy.allowed_tools"),
        ({"denied_commands": ["rm -rf /"] * 9}, "tool_policy.denied_commands"),
        ({"denied_commands": ["git\npush"]}, "tool_policy.denied_commands[0]"),
    ],
)
def test_a_malformed_policy_is_refused_when_made_naming_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        make_policy(**kwargs)  # type: ignore[arg-type]

    assert refused.value.metadata["field"] == field


def test_a_policy_round_trips_through_json_canonical_and_deduplicated() -> None:
    policy = make_policy(
        preset="READ-ONLY", allow=["send", "kxm_send", "workflow_*"], deny=["x"], denied_commands=["npm publish"]
    )

    assert policy == ToolPolicy("read-only", ("kxm_send", "kxm_workflow_*"), ("kxm_x",), ("npm publish",))
    assert policy_from_json(policy_json(policy)) == policy
    assert policy_json(NONE) == {} and NONE.empty and not READ_ONLY.empty
