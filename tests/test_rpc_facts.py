"""The RPC registry: every RPC's facts come from the proto, and a missing or inconsistent fact fails.

``tests/test_contract.py`` checks the real contract (``problems(RPCS.values()) == []``); this file
checks that the checks catch each defect, that the Python enums mirror the proto's, and that what
derives from the registry (the docs table, the presence renewal, the tool names) follows it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from google.protobuf import descriptor_pb2

from kxm_grpc._gen.kxm.v1 import options_pb2
from kxm_grpc.domain.caller import CredentialKind
from kxm_grpc.server.methods import ACCESS, RPCS, TOOLS, PresenceRenewal, RpcFacts, problems, read_facts
from kxm_grpc.server.ratelimit import COSTS, RateClass
from kxm_grpc.services.auth import Access, admitted_kinds

ROOT = Path(__file__).resolve().parent.parent
SERVICE = SimpleNamespace(full_name="kxm.v1.TestService")


def declared(server_streaming: bool = False, **facts: Any) -> RpcFacts:
    """The facts read from a method whose ``(kxm.v1.facts)`` option holds ``facts``."""
    options = descriptor_pb2.MethodOptions()
    options.Extensions[options_pb2.facts].CopyFrom(options_pb2.RpcFacts(**facts))
    return read(options, server_streaming=server_streaming)


def read(options: descriptor_pb2.MethodOptions, *, server_streaming: bool = False) -> RpcFacts:
    """``read_facts`` of a stand-in method with these options."""
    method = SimpleNamespace(
        name="Probe", GetOptions=lambda: options, client_streaming=False, server_streaming=server_streaming
    )
    return read_facts(SERVICE, method)  # type: ignore[arg-type]


COMPLETE = {
    "access": options_pb2.ACCESS_AGENT,
    "read_only": True,
    "presence": options_pb2.PRESENCE_RENEWAL_ADMISSION,
    "rate_limit": options_pb2.RATE_LIMIT_CLASS_DEFAULT,
}


def test_complete_facts_have_no_problem() -> None:
    """A method declaring every fact reads back as declared, with no problem."""
    facts = declared(**COMPLETE, tool_name="kxm_probe")

    assert facts.problems() == []
    assert (facts.access, facts.read_only, facts.presence, facts.rate_class, facts.tool_name) == (
        Access.AGENT,
        True,
        PresenceRenewal.ADMISSION,
        RateClass.DEFAULT,
        "kxm_probe",
    )
    assert facts.complete


def test_an_rpc_without_the_option_is_a_problem() -> None:
    """No ``(kxm.v1.facts)`` at all: incomplete, and named."""
    facts = read(descriptor_pb2.MethodOptions())

    assert not facts.complete
    assert facts.problems() == ["kxm.v1.TestService.Probe: no option (kxm.v1.facts)"]


@pytest.mark.parametrize(
    ("missing", "problem"),
    [
        ("access", "access is unspecified"),
        ("read_only", "read_only is not set"),
        ("presence", "presence is unspecified"),
        ("rate_limit", "rate_limit is unspecified"),
    ],
)
def test_each_missing_fact_is_a_problem(missing: str, problem: str) -> None:
    """Leaving out any one fact (an UNSPECIFIED enum, an unset read_only) makes the RPC incomplete."""
    facts = declared(**{name: value for name, value in COMPLETE.items() if name != missing})

    assert not facts.complete
    assert f"kxm.v1.TestService.Probe: {problem}" in facts.problems()


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"tool_name": "send"}, "is not kxm_"),
        ({"tool_name": "kxm_Send"}, "is not kxm_"),
        ({"tool_name": "kxm_probe", "server_streaming": True}, "cannot be a tool"),
        ({"tool_name": "kxm_probe", "access": options_pb2.ACCESS_RUNTIME}, "cannot be an agent tool"),
        ({"presence": options_pb2.PRESENCE_RENEWAL_NONE}, "presence must be renewed"),
        ({"access": options_pb2.ACCESS_ADMIN}, "presence must be NONE"),
        ({"access": options_pb2.ACCESS_PROJECT, "presence": options_pb2.PRESENCE_RENEWAL_SELF}, "itself (SELF)"),
    ],
)
def test_inconsistent_facts_are_a_problem(changes: dict[str, Any], problem: str) -> None:
    """Tool names are well formed, unary and callable by agents; presence fits who may call."""
    facts = declared(**{**COMPLETE, **changes})

    assert any(problem in found for found in facts.problems()), facts.problems()


def test_a_tool_name_used_twice_is_a_problem() -> None:
    """Tool names are unique across the contract."""
    first = declared(**COMPLETE, tool_name="kxm_probe")
    second = replace(first, method="/kxm.v1.TestService/Other", name="Other")

    assert problems([first, second]) == [
        "tool name 'kxm_probe' is used by kxm.v1.TestService.Probe, kxm.v1.TestService.Other"
    ]


def test_the_python_enums_mirror_the_proto_enums() -> None:
    """Access, PresenceRenewal and RateClass have exactly the proto's values (but UNSPECIFIED),
    and every rate class has a cost."""
    for python, proto, prefix in (
        (Access, options_pb2.Access, "ACCESS_"),
        (PresenceRenewal, options_pb2.PresenceRenewal, "PRESENCE_RENEWAL_"),
        (RateClass, options_pb2.RateLimitClass, "RATE_LIMIT_CLASS_"),
    ):
        names = {value.name.removeprefix(prefix) for value in proto.DESCRIPTOR.values} - {"UNSPECIFIED"}
        assert set(python.__members__) == names, python
    assert set(COSTS) == set(RateClass)


def test_the_extension_number_is_in_the_in_house_range() -> None:
    """protobuf reserves 50000-99999 for options used within one organization."""
    assert 50000 <= options_pb2.facts.number <= 99999


def test_the_access_table_is_derived_from_the_registry() -> None:
    """ACCESS is the registry's access per RPC, with every RPC in it."""
    assert dict(ACCESS) == {method: facts.access for method, facts in RPCS.items()}


def test_admission_renews_presence_on_every_agent_call_but_heartbeat() -> None:
    """Today's rule, as facts: every RPC an agent may call renews its presence on admission, except
    Heartbeat, which renews it itself; no other RPC renews presence."""
    renewal = {method: facts.presence for method, facts in RPCS.items()}

    for method, facts in RPCS.items():
        assert facts.access is not None
        if method == "/kxm.v1.AgentService/Heartbeat":
            assert renewal[method] is PresenceRenewal.SELF
        elif CredentialKind.AGENT in admitted_kinds(facts.access):
            assert renewal[method] is PresenceRenewal.ADMISSION, method
        else:
            assert renewal[method] is PresenceRenewal.NONE, method


def test_the_agent_tool_names_are_pinned() -> None:
    """Agents and tool surfaces (MCP) know RPCs by these names: renaming one breaks them."""
    assert {tool: facts.method for tool, facts in TOOLS.items()} == {
        "kxm_list_agents": "/kxm.v1.AgentService/ListAgents",
        "kxm_whoami": "/kxm.v1.AgentService/GetCallerIdentity",
        "kxm_send": "/kxm.v1.MessageService/SendMessage",
        "kxm_get_message": "/kxm.v1.MessageService/GetMessage",
        "kxm_cancel": "/kxm.v1.MessageService/CancelMessage",
        "kxm_reply": "/kxm.v1.MessageService/ReplyToMessage",
        "kxm_inbox": "/kxm.v1.MessageService/ListInbox",
        "kxm_wait": "/kxm.v1.MessageService/WaitMessage",
        "kxm_fanout": "/kxm.v1.MessageService/FanoutMessages",
        "kxm_acquire_lease": "/kxm.v1.LeaseService/AcquireLease",
        "kxm_renew_lease": "/kxm.v1.LeaseService/RenewLease",
        "kxm_release_lease": "/kxm.v1.LeaseService/ReleaseLease",
        "kxm_get_lease": "/kxm.v1.LeaseService/GetLease",
        "kxm_list_leases": "/kxm.v1.LeaseService/ListLeases",
        "kxm_check_fence": "/kxm.v1.LeaseService/CheckFence",
        "kxm_workflow_definition": "/kxm.v1.WorkflowService/GetWorkflowDefinition",
        "kxm_workflow_definitions": "/kxm.v1.WorkflowService/ListWorkflowDefinitions",
        "kxm_gate_registry": "/kxm.v1.WorkflowService/GetGateRegistry",
        "kxm_complete_assignment": "/kxm.v1.WorkflowService/CompleteAssignment",
        "kxm_next_assignment": "/kxm.v1.WorkflowService/NextAssignment",
        "kxm_workflow_events": "/kxm.v1.WorkflowService/ListWorkflowRunEvents",
        "kxm_workflow_audit": "/kxm.v1.WorkflowService/AuditGateEvidence",
        "kxm_workflow_run": "/kxm.v1.WorkflowService/GetWorkflowRun",
        "kxm_workflow_runs": "/kxm.v1.WorkflowService/ListWorkflowRuns",
        "kxm_workflow_checkpoint": "/kxm.v1.WorkflowService/Checkpoint",
        "kxm_workflow_wait": "/kxm.v1.WorkflowService/Wait",
        "kxm_workflow_escalate": "/kxm.v1.WorkflowService/EscalateStage",
        "kxm_workflow_record": "/kxm.v1.WorkflowService/RecordJournal",
        "kxm_workflow_journal": "/kxm.v1.WorkflowService/ListJournal",
        "kxm_improvement_report": "/kxm.v1.WorkflowService/GetImprovementReport",
        "kxm_workflow_retrospective": "/kxm.v1.WorkflowService/ExportRetrospective",
        "kxm_workflow_verify_journal": "/kxm.v1.WorkflowService/VerifyJournal",
        "kxm_context": "/kxm.v1.ContextService/GetContextPacket",
        "kxm_recall": "/kxm.v1.ContextService/Recall",
        "kxm_state": "/kxm.v1.ContextService/GetState",
        "kxm_state_set": "/kxm.v1.ContextService/ListStateSet",
        "kxm_promote": "/kxm.v1.ContextService/ProposeState",
        "kxm_episode": "/kxm.v1.ContextService/ListEpisodes",
        "kxm_explain": "/kxm.v1.ContextService/ExplainItem",
    }


def test_the_rpc_facts_table_of_the_api_page_is_current() -> None:
    """docs/api.md's RPC table is what scripts/gen_rpc_doc.py renders from the registry now."""
    spec = importlib.util.spec_from_file_location("gen_rpc_doc", ROOT / "scripts" / "gen_rpc_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (ROOT / "docs" / "api.md").read_text()

    assert module.splice(page) == page, "run scripts/gen (or python scripts/gen_rpc_doc.py)"
    for facts in RPCS.values():
        assert f"`{facts.service.rsplit('.', 1)[-1]}.{facts.name}`" in page
