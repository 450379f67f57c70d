"""``hub.context`` (and its blocking twin): names for the enums, items from keywords or JSON, the
request each method sends, and the blocking area against a real hub."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.client import HubClient, SyncHubClient
from kxm_grpc.client.context import context_authority, context_item, context_kind, item_from_json
from kxm_grpc.client.workflows import REQUEST_ID_PREFIX
from tests.conftest import ADMIN_TOKEN, Hub, Project

MEMORY = (
    "---\nschema: kxm.memory.v1\nid: rule-a\nscope: project\nkind: convention\nsummary: lint first\n"
    "provenance:\n  sourceType: git\nauthority: instruction\nconfidence: verified\nlifecycle: active\n---\n"
)


def test_enum_names_in_any_spelling() -> None:
    for name in ("evidence", "EVIDENCE", "Evidence", "CONTEXT_KIND_EVIDENCE", epb.CONTEXT_KIND_EVIDENCE):
        assert context_kind(name) == epb.CONTEXT_KIND_EVIDENCE
    assert context_authority(None) == epb.CONTEXT_AUTHORITY_UNSPECIFIED
    with pytest.raises(ValueError, match="kind must be one of evidence, state"):
        context_kind("fact")


def test_an_item_from_its_json_shape() -> None:
    item = item_from_json(
        {
            "id": "s_ci",
            "kind": "state",
            "summary": "ci runs twice",
            "provenance": {"sourceType": "tool", "sourceRef": "ci:7", "derivedFrom": ["e_a"]},
            "authority": "evidence",
            "confidence": "verified",
            "status": "current",
            "stateKey": "ci.mode",
            "observedAt": "2026-01-02T03:04:05Z",
            "evidenceRefs": ["peer:msg_1"],
        }
    )

    assert (item.id, item.kind, item.status, item.state_key) == (
        "s_ci",
        epb.CONTEXT_KIND_STATE,
        epb.CONTEXT_STATUS_CURRENT,
        "ci.mode",
    )
    assert (item.provenance.source_type, item.provenance.source_ref) == (epb.CONTEXT_SOURCE_TYPE_TOOL, "ci:7")
    assert (list(item.provenance.derived_from), list(item.evidence_refs)) == (["e_a"], ["peer:msg_1"])
    assert item.observe_time.ToJsonString() == "2026-01-02T03:04:05Z"
    with pytest.raises(ValueError, match="no field 'permissions'"):
        item_from_json({"id": "x", "kind": "evidence", "summary": "s", "permissions": ["all"]})
    with pytest.raises(ValueError, match="summary must be a string"):
        item_from_json({"id": "x", "kind": "evidence"})


async def test_each_method_sends_its_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every RPC's method builds its request from its arguments; propose_state carries a request id,
    made per call when none is given."""
    sent: list[Any] = []

    async def recording(method: Any, request: Any, timeout: Any = None, metadata: Any = None) -> Any:
        sent.append(request)
        return None

    async with HubClient("127.0.0.1:1", token="t") as client:
        monkeypatch.setattr(client, "_call", recording)
        context = client.context
        await context.put_items([context_item("e_a", "evidence", "note")], project="alpha")
        await context.get_packet("verifier", "task", budget_tokens=600, include_kinds=["state"], working_state={"a": 1})
        await context.recall("q", kinds=["knowledge"], limit=3)
        await context.get_state("ci.mode", as_of="2026-01-01T00:00:00Z", include_history=True)
        await context.list_state_set("owners[]")
        await context.propose_state("ci.mode", "twice", evidence_refs="peer:msg_1", authority="hypothesis")
        await context.propose_state("ci.mode", "twice", evidence_refs=["peer:msg_1"])
        await context.propose_state("ci.mode", "twice", evidence_refs=["peer:msg_1"], request_id="mine")
        await context.promote_state("ctx_1", evidence_refs="ok")
        await context.reject_state("ctx_2", reason="no")
        await context.list_episodes(workflow_run_id="run_1")
        await context.explain_item("k_x")
        await context.delete_items("k_x", shared=True)
        await context.sync_memory([("a.md", "---\n---\n"), pb.MemoryFile(path="b.md", content="b")], project="alpha")
        await context.list_memory(project="alpha")
        await context.propose_memory("a fact", scope="operator", kind="k", evidence_refs="r1")
        await context.promote_memory("cand_project_0", "rule-a", authority="instruction", confidence="verified")
        await context.reject_memory("cand_project_1", reason="no")

    assert [type(request).__name__ for request in sent] == [
        "PutItemsRequest",
        "GetContextPacketRequest",
        "RecallRequest",
        "GetStateRequest",
        "ListStateSetRequest",
        "ProposeStateRequest",
        "ProposeStateRequest",
        "ProposeStateRequest",
        "PromoteStateRequest",
        "RejectStateRequest",
        "ListEpisodesRequest",
        "ExplainItemRequest",
        "DeleteItemsRequest",
        "SyncMemoryRequest",
        "ListMemoryRequest",
        "ProposeMemoryRequest",
        "PromoteMemoryRequest",
        "RejectMemoryRequest",
    ]
    packet: pb.GetContextPacketRequest = sent[1]
    assert (packet.request.budget_tokens, list(packet.request.include_kinds)) == (600, [epb.CONTEXT_KIND_STATE])
    assert dict(packet.working_state) == {"a": 1}
    assert (list(sent[2].kinds), sent[2].limit) == ([epb.CONTEXT_KIND_KNOWLEDGE], 3)
    assert sent[3].as_of_time.ToJsonString() == "2026-01-01T00:00:00Z" and sent[3].include_history
    proposals = [request.request_id for request in sent[5:8]]
    assert proposals[2] == "mine"
    assert all(made.startswith(REQUEST_ID_PREFIX) for made in proposals[:2]) and proposals[0] != proposals[1]
    assert (list(sent[5].evidence_refs), sent[5].authority) == (["peer:msg_1"], epb.CONTEXT_AUTHORITY_HYPOTHESIS)
    assert (list(sent[12].item_ids), sent[12].shared) == (["k_x"], True)
    assert [(f.path, f.content) for f in sent[13].files] == [("a.md", "---\n---\n"), ("b.md", "b")]
    assert sent[13].project == sent[14].project == "alpha"
    assert (sent[15].scope, sent[15].kind, list(sent[15].evidence_refs)) == (epb.CONTEXT_SCOPE_OPERATOR, "k", ["r1"])
    assert (sent[16].record_id, sent[16].authority, sent[16].confidence) == (
        "rule-a",
        "instruction",
        epb.CONTEXT_CONFIDENCE_VERIFIED,
    )
    assert (sent[17].candidate_id, sent[17].reason) == ("cand_project_1", "no")


async def test_the_sync_context_area(hub: Hub, project: Project) -> None:
    """SyncHubClient.context: the same methods, blocking."""

    def blocking() -> dict[str, Any]:
        with (
            SyncHubClient(hub.address, token=project.token) as alpha,
            SyncHubClient(hub.address, token=ADMIN_TOKEN, project="alpha") as operator,
        ):
            alpha.context.put_items(
                [
                    context_item("e_a", "evidence", "flaky gate fails"),
                    context_item("k_b", "knowledge", "gate owner", derived_from=["e_a"]),
                ]
            )
            packet = alpha.context.get_packet("verifier", "flaky gate")
            recalled = alpha.context.recall("gate")
            explained = alpha.context.explain_item("k_b")
            deleted = operator.context.delete_items(["e_a", "k_b"])
            synced = operator.context.sync_memory([("a.md", MEMORY)])
            listed = alpha.context.list_memory()
            return {
                "memory": (synced.loaded, [record.item_id for record in listed.records]),
                "packet": list(packet.packet.audit.selected_ids),
                "recall": [item.id for item in recalled.items],
                "explain": list(explained.lineage),
                "deleted": deleted.deleted_count,
            }

    # On a thread: the hub serves on this test's event loop.
    result = await asyncio.to_thread(blocking)

    assert result == {
        "memory": (1, ["mem_rule-a"]),
        "packet": ["e_a", "k_b"],
        "recall": ["k_b", "e_a"],
        "explain": ["e_a"],
        "deleted": 2,
    }
