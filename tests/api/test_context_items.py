"""Context items, packets, recall and explanations through ContextService (workflow-context.md §5,
§10 pins 15-19; seed 004's examples).

A real hub (the ``hub`` fixture, on SQLite and PostgreSQL): a project token or an agent writes as
``peer``, an operator (the admin token naming ``alpha``) as ``human``; every packet and recall is
read back through the RPCs.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc import InvalidArgument, PermissionDenied, Reason
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.client import HubClient
from kxm_grpc.client.context import context_item
from tests.conftest import AgentFactory, Hub, Project, ProjectFactory

SEED_POOL = (
    ("e_aaa", "evidence", "docs build is slow"),
    ("e_zzz", "evidence", "flaky playwright gate fails on first run"),
    ("k_mmm", "knowledge", "playwright gate owner is QA"),
)
"""Seed 004's three-item pool (§5.5)."""


@pytest_asyncio.fixture
async def alpha(hub: Hub, project: Project) -> AsyncIterator[HubClient]:
    """A client of project ``alpha`` holding its project token (origin ``peer``)."""
    async with HubClient(hub.address, token=project.token) as client:
        yield client


@pytest_asyncio.fixture
async def operator(hub: Hub, project: Project) -> AsyncIterator[HubClient]:
    """The admin token naming ``alpha`` (origin ``human``)."""
    async with hub.admin(project="alpha") as client:
        yield client


def items(*rows: tuple[str, str, str], **fields: Any) -> list[epb.ContextItem]:
    return [context_item(item_id, kind, summary, **fields) for item_id, kind, summary in rows]


def ids(response: Any) -> list[str]:
    return list(response.packet.audit.selected_ids)


# -- pins 15-17: budgets, determinism, seed 004 ------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "budget"),
    [
        ("repro", 8_000),
        ("planner", 16_000),
        ("critic", 12_000),
        ("implementer", 16_000),
        ("verifier", 8_000),
        ("release-manager", 32_000),
    ],
)
async def test_pin_15_each_role_gets_its_budget(alpha: HubClient, role: str, budget: int) -> None:
    await alpha.context.put_items(items(*SEED_POOL))

    response = await alpha.context.get_packet(role, "verify the gate")

    assert response.packet.audit.budget_tokens == budget


async def test_pin_15_superseded_and_rejected_items_are_excluded_and_counted(alpha: HubClient) -> None:
    await alpha.context.put_items(
        [
            *items(*SEED_POOL),
            context_item("e_old", "evidence", "old flaky gate note", status="superseded"),
            context_item("e_no", "evidence", "refused flaky gate note", status="rejected"),
        ]
    )

    audit = (await alpha.context.get_packet("verifier", "flaky gate")).packet.audit

    assert audit.excluded_superseded == 2
    assert audit.candidate_count == 3
    assert "e_old" not in audit.selected_ids and "e_no" not in audit.selected_ids


async def test_pin_16_a_3900_character_item_is_deferred_under_512_and_the_small_one_selected(
    alpha: HubClient,
) -> None:
    await alpha.context.put_items(
        [context_item("e_big", "evidence", "flaky " + "x" * 3_894), context_item("e_small", "evidence", "flaky gate")]
    )

    packet = (await alpha.context.get_packet("verifier", "flaky", budget_tokens=512)).packet

    assert list(packet.audit.selected_ids) == ["e_small"]
    assert packet.audit.deferred_count == 1
    assert list(packet.unresolved_gaps) == ["budget of 512 tokens reached; 1 candidates deferred"]


async def test_pin_16_only_an_oversized_item_fits_nothing(alpha: HubClient) -> None:
    await alpha.context.put_items([context_item("e_big", "evidence", "x" * 3_900)])

    packet = (await alpha.context.get_packet("verifier", "x", budget_tokens=512)).packet

    assert list(packet.audit.selected_ids) == []
    assert list(packet.unresolved_gaps) == ["budget of 512 tokens cannot fit any selected context"]


async def test_an_empty_pool_says_there_are_no_records(alpha: HubClient) -> None:
    packet = (await alpha.context.get_packet("verifier", "anything")).packet

    assert list(packet.unresolved_gaps) == ["no context records exist for this project yet"]


async def test_pin_17_seed_004_the_flaky_playwright_task(alpha: HubClient) -> None:
    await alpha.context.put_items(items(*SEED_POOL))

    packet = (await alpha.context.get_packet("verifier", "verify the flaky playwright gate fix")).packet

    assert list(packet.audit.selected_ids) == ["e_zzz", "k_mmm", "e_aaa"]
    assert [item.id for item in packet.evidence] == ["e_zzz", "e_aaa"]
    assert [item.id for item in packet.knowledge] == ["k_mmm"]
    assert packet.audit.task_tokens == 5
    assert packet.audit.matched_candidates == 2
    scores = [score.score for score in packet.audit.selected_scores]
    assert scores[0] > scores[1] > scores[2] == 0
    assert [reason.task_matched for reason in packet.audit.reasons] == [True, True, False]


async def test_pin_17_seed_004_the_one_word_task_ranks_by_kind_then_id(alpha: HubClient) -> None:
    await alpha.context.put_items(items(*SEED_POOL))

    packet = (await alpha.context.get_packet("verifier", "verify")).packet

    assert list(packet.audit.selected_ids) == ["e_aaa", "e_zzz", "k_mmm"]


async def test_pin_17_a_stopword_only_task_scores_every_item_0(alpha: HubClient) -> None:
    await alpha.context.put_items(items(*SEED_POOL))

    audit = (await alpha.context.get_packet("verifier", "the of")).packet.audit

    assert audit.task_tokens == 0
    assert audit.matched_candidates == 0
    assert [score.score for score in audit.selected_scores] == [0, 0, 0]


async def test_the_audit_never_carries_a_summary(alpha: HubClient) -> None:
    await alpha.context.put_items(items(*SEED_POOL))

    audit = (await alpha.context.get_packet("verifier", "flaky gate")).packet.audit

    assert "playwright" not in str(audit)


async def test_the_same_pool_in_shuffled_orders_gives_byte_identical_packets(
    alpha: HubClient, operator: HubClient
) -> None:
    """Pin 15's determinism through the store: one pool put in three orders (one batch, one item at a
    time, a shuffled batch), removed in between, gives the same packet bytes and the same packet id."""
    pool = [
        *items(*SEED_POOL, observed_at="2026-01-02T00:00:00Z"),
        context_item("s_ci", "state", "runs the playwright gate twice", state_key="ci.mode", status="current"),
        context_item("k_owner", "knowledge", "flaky gate owner rotates weekly", confidence="verified"),
        context_item("e_misc", "evidence", "unrelated note about docs", authority="hypothesis"),
        context_item("e_old", "evidence", "superseded flaky gate note", status="superseded"),
    ]
    shuffled = list(pool)
    random.Random(17).shuffle(shuffled)
    answers: list[tuple[bytes, str]] = []
    for order, one_by_one in ((pool, False), (pool[::-1], True), (shuffled, False)):
        for batch in [[item] for item in order] if one_by_one else [order]:
            await operator.context.put_items(batch)  # an operator: the pool holds a state item
        response = await alpha.context.get_packet(
            "planner", "flaky playwright gate", working_state={"step": 2, "notes": ["a", "b"]}
        )
        answers.append((response.SerializeToString(deterministic=True), response.packet_id))
        assert (await operator.context.delete_items([item.id for item in pool])).deleted_count == len(pool)

    assert len(set(answers)) == 1
    assert answers[0][1].startswith("ctxpkt_")


async def test_the_same_request_gives_the_same_packet_id_and_working_state_verbatim(alpha: HubClient) -> None:
    await alpha.context.put_items(items(*SEED_POOL))
    state = {"step": "review", "attempt": 2, "flags": {"fast": True}}

    first = await alpha.context.get_packet("verifier", "flaky gate", working_state=state)
    again = await alpha.context.get_packet("verifier", "flaky gate", working_state=state)
    other = await alpha.context.get_packet("verifier", "docs build")

    assert first.SerializeToString(deterministic=True) == again.SerializeToString(deterministic=True)
    assert first.packet_id == again.packet_id != other.packet_id
    assert dict(first.packet.working_state) == {"step": "review", "attempt": 2, "flags": {"fast": True}}


async def test_a_working_state_over_64_kib_is_refused(alpha: HubClient) -> None:
    with pytest.raises(InvalidArgument) as raised:
        await alpha.context.get_packet("verifier", "x", working_state={"blob": "x" * 65_536})

    assert raised.value.reason is Reason.INVALID_CONTEXT_REQUEST
    assert raised.value.metadata["field"] == "workingState"


@pytest.mark.parametrize(
    ("fields", "field"),
    [({"budget_tokens": 511}, "budgetTokens"), ({"include_kinds": ["state", "state"]}, "includeKinds")],
)
async def test_a_bad_packet_request_names_its_field(alpha: HubClient, fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as raised:
        await alpha.context.get_packet("verifier", "x", **fields)

    assert raised.value.reason is Reason.INVALID_CONTEXT_REQUEST
    assert raised.value.metadata["field"] == field


# -- pin 18: recall ----------------------------------------------------------------------------------

RECALL_POOL = (
    ("a", "evidence", "docs build is slow"),
    ("b", "knowledge", "gate owner is QA"),
    ("c", "evidence", "the flaky gate fails on first run"),
)


@pytest.mark.parametrize(
    ("query", "limit", "expected"), [("flaky gate", 0, ["c", "b"]), ("flak", 0, ["c"]), ("", 2, ["a", "b"])]
)
async def test_pin_18_recall_orders_phrase_hits_then_score_then_id(
    alpha: HubClient, query: str, limit: int, expected: list[str]
) -> None:
    await alpha.context.put_items(items(*RECALL_POOL))

    response = await alpha.context.recall(query, limit=limit)

    assert [item.id for item in response.items] == expected
    assert list(response.unresolved_gaps) == []


async def test_pin_18_recall_items_carry_metadata_never_a_summary(alpha: HubClient) -> None:
    await alpha.context.put_items(
        [*items(*RECALL_POOL), context_item("d", "knowledge", "flaky gate digest", derived_from=["a", "c"])]
    )

    response = await alpha.context.recall("flaky gate", kinds=["knowledge"])

    assert [item.id for item in response.items] == ["d", "b"]
    first = response.items[0]
    assert (first.derived, first.lineage_depth, first.phrase_hit) == (True, 2, True)
    assert first.relevance > 0
    assert "summary" not in {field.name for field in first.DESCRIPTOR.fields}
    assert "digest" not in str(response)


async def test_recall_with_no_match_says_so(alpha: HubClient) -> None:
    await alpha.context.put_items(items(*RECALL_POOL))

    response = await alpha.context.recall("kubernetes")

    assert list(response.items) == []
    assert list(response.unresolved_gaps) == ["no matching context records"]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"query": "x" * 501}, "query"),
        ({"limit": 101}, "limit"),
        ({"limit": -1}, "limit"),
        ({"kinds": ["state", "state"]}, "kinds"),
    ],
)
async def test_recall_limits_name_their_field(alpha: HubClient, arguments: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as raised:
        await alpha.context.recall(**arguments)

    assert raised.value.reason is Reason.INVALID_CONTEXT_REQUEST
    assert raised.value.metadata["field"] == field


async def test_recall_limit_0_means_25(alpha: HubClient) -> None:
    await alpha.context.put_items([context_item(f"e_{n:02}", "evidence", f"note {n}") for n in range(30)])

    assert len((await alpha.context.recall("")).items) == 25
    assert len((await alpha.context.recall("", limit=100)).items) == 30


# -- pin 19: isolation and _shared -------------------------------------------------------------------


async def test_pin_19_a_shared_default_is_visible_and_ranked_after_the_projects_item(
    alpha: HubClient, operator: HubClient
) -> None:
    await operator.context.put_items(
        [context_item("a_shared", "knowledge", "flaky gate policy", project="_shared", confidence="verified")]
    )
    await alpha.context.put_items([context_item("z_own", "knowledge", "flaky gate note")])

    packet = (await alpha.context.get_packet("verifier", "flaky gate")).packet

    assert list(packet.audit.selected_ids) == ["z_own", "a_shared"]
    assert [reason.shared for reason in packet.audit.reasons] == [False, True]
    assert packet.knowledge[1].project == "_shared"


async def test_pin_19_another_projects_items_never_enter_the_pool(
    hub: Hub, alpha: HubClient, make_project: ProjectFactory
) -> None:
    beta = await make_project("beta")
    async with HubClient(hub.address, token=beta.token) as other:
        await other.context.put_items([context_item("e_beta", "evidence", "flaky gate in beta")])

    await alpha.context.put_items([context_item("e_alpha", "evidence", "flaky gate in alpha")])

    assert list((await alpha.context.get_packet("verifier", "flaky gate")).packet.audit.selected_ids) == ["e_alpha"]
    assert [item.id for item in (await alpha.context.recall("flaky")).items] == ["e_alpha"]


async def test_pin_19_an_item_naming_another_project_is_refused_as_cross_project(alpha: HubClient) -> None:
    with pytest.raises(PermissionDenied) as raised:
        await alpha.context.put_items([context_item("e_x", "evidence", "note", project="beta")])

    assert raised.value.reason is Reason.CONTEXT_ISOLATION_VIOLATION
    assert raised.value.metadata["index"] == "0"


CALLS = {
    "PutItems": lambda c: c.context.put_items([context_item("e_x", "evidence", "note")], project="beta"),
    "GetContextPacket": lambda c: c.context.get_packet("verifier", "task", project="beta"),
    "Recall": lambda c: c.context.recall("task", project="beta"),
    "ExplainItem": lambda c: c.context.explain_item("e_x", project="beta"),
    "DeleteItems": lambda c: c.context.delete_items(["e_x"], project="beta"),
}


@pytest.mark.parametrize("rpc", sorted(CALLS))
async def test_every_items_rpc_refuses_another_project(
    hub: Hub, project: Project, make_project: ProjectFactory, make_agent: AgentFactory, rpc: str
) -> None:
    """Each of the five RPCs, from alpha's project token, agent and operator (the admin naming
    ``alpha``), naming ``beta``: PERMISSION_DENIED, CONTEXT_ISOLATION_VIOLATION (DeleteItems, an
    operator's RPC, refuses the others for their credential's kind first)."""
    await make_project("beta")
    agent = await make_agent("worker")
    async with HubClient(hub.address, token=project.token) as token_client, hub.admin(project="alpha") as operator:
        for name, client in (("token", token_client), ("agent", agent), ("operator", operator)):
            with pytest.raises(PermissionDenied) as raised:
                await CALLS[rpc](client)
            expected = Reason.CONTEXT_ISOLATION_VIOLATION
            if rpc == "DeleteItems" and name != "operator":
                expected = Reason.CREDENTIAL_KIND_DENIED
            assert raised.value.reason is expected, name


async def test_no_request_names_shared_as_its_project(operator: HubClient) -> None:
    with pytest.raises(PermissionDenied) as raised:
        await operator.context.get_packet("verifier", "task", project="_shared")

    assert raised.value.reason is Reason.CONTEXT_ISOLATION_VIOLATION


# -- authority and origin ----------------------------------------------------------------------------


async def test_an_agent_claiming_instruction_is_refused(make_agent: AgentFactory) -> None:
    agent = await make_agent("worker")

    with pytest.raises(PermissionDenied) as raised:
        await agent.context.put_items([context_item("k_rule", "knowledge", "always rebase", authority="instruction")])

    assert raised.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION
    assert raised.value.metadata["index"] == "0"


async def test_an_agent_labelling_its_item_human_is_refused(make_agent: AgentFactory) -> None:
    """The origin comes from the credential, never from the label (§11.4a)."""
    agent = await make_agent("worker")

    with pytest.raises(PermissionDenied) as raised:
        await agent.context.put_items([context_item("e_x", "evidence", "note", source_type="human")])

    assert raised.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION


async def test_an_agent_writing_shared_is_refused(make_agent: AgentFactory) -> None:
    agent = await make_agent("worker")

    with pytest.raises(PermissionDenied) as raised:
        await agent.context.put_items([context_item("k_x", "knowledge", "default", project="_shared")])

    assert raised.value.reason is Reason.CONTEXT_ISOLATION_VIOLATION


async def test_an_operator_writes_policy_as_human_and_an_agent_as_peer(
    operator: HubClient, make_agent: AgentFactory
) -> None:
    agent = await make_agent("worker")

    rule = context_item("k_rule", "knowledge", "rebase", authority="policy")
    human = (await operator.context.put_items([rule])).items
    peer = (await agent.context.put_items([context_item("e_obs", "evidence", "flaky")])).items

    assert human[0].provenance.source_type == epb.CONTEXT_SOURCE_TYPE_HUMAN
    assert (human[0].project, human[0].authority) == ("alpha", epb.CONTEXT_AUTHORITY_POLICY)
    assert peer[0].provenance.source_type == epb.CONTEXT_SOURCE_TYPE_PEER
    assert (peer[0].authority, peer[0].confidence) == (epb.CONTEXT_AUTHORITY_EVIDENCE, epb.CONTEXT_CONFIDENCE_PROBABLE)


async def test_an_agent_cannot_replace_an_operators_item_by_its_id(
    operator: HubClient, make_agent: AgentFactory
) -> None:
    agent = await make_agent("worker")
    await operator.context.put_items([context_item("k_rule", "knowledge", "rebase first", authority="instruction")])
    await agent.context.put_items([context_item("e_own", "evidence", "mine")])

    with pytest.raises(PermissionDenied) as raised:
        await agent.context.put_items(
            [context_item("e_own", "evidence", "mine, again"), context_item("k_rule", "knowledge", "never mind")]
        )
    replaced = await operator.context.put_items([context_item("e_own", "evidence", "an operator's now")])

    assert raised.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION
    assert (raised.value.metadata["index"], raised.value.metadata["itemId"]) == ("1", "k_rule")
    assert (await agent.context.explain_item("k_rule")).sources[0].source_type == epb.CONTEXT_SOURCE_TYPE_HUMAN
    assert replaced.items[0].provenance.source_type == epb.CONTEXT_SOURCE_TYPE_HUMAN


async def test_one_bad_item_stores_none_of_the_batch(alpha: HubClient) -> None:
    with pytest.raises(InvalidArgument) as raised:
        await alpha.context.put_items(
            [context_item("e_ok", "evidence", "fine"), context_item("e_x", "evidence", "x" * 4_001)]
        )

    assert raised.value.reason is Reason.INVALID_CONTEXT_FIELD
    assert (raised.value.metadata["index"], raised.value.metadata["field"]) == ("1", "summary")
    assert list((await alpha.context.recall("")).items) == []


async def test_an_unknown_enum_or_a_time_out_of_range_names_the_item_and_field(alpha: HubClient) -> None:
    late = context_item("e_late", "evidence", "late")
    late.observe_time.seconds = 253_402_300_800  # 10000-01-01
    odd = context_item("e_odd", "evidence", "odd")
    odd.authority = 9  # type: ignore[assignment]

    with pytest.raises(InvalidArgument) as too_late:
        await alpha.context.put_items([context_item("e_ok", "evidence", "fine"), late])
    with pytest.raises(InvalidArgument) as unknown:
        await alpha.context.put_items([odd])

    assert too_late.value.reason is Reason.INVALID_CONTEXT_FIELD
    assert (too_late.value.metadata["index"], too_late.value.metadata["field"]) == ("1", "observedAt")
    assert unknown.value.reason is Reason.INVALID_CONTEXT_FIELD
    assert (unknown.value.metadata["index"], unknown.value.metadata["field"]) == ("0", "authority")


@pytest.mark.parametrize("count", [0, 257])
async def test_a_batch_holds_1_to_256_items(alpha: HubClient, count: int) -> None:
    batch = [context_item(f"e_{n}", "evidence", "note") for n in range(count)]

    with pytest.raises(InvalidArgument) as raised:
        await alpha.context.put_items(batch)

    assert raised.value.reason is Reason.CONTEXT_LIMITS_EXCEEDED


async def test_put_redacts_and_replaces_by_id(alpha: HubClient) -> None:
    first = await alpha.context.put_items([context_item("e_x", "evidence", "token=ghp_" + "a" * 36)])
    await alpha.context.put_items([context_item("e_x", "evidence", "flaky gate second version")])

    assert "ghp_" not in first.items[0].summary
    assert [item.id for item in (await alpha.context.recall("second version")).items] == ["e_x"]
    assert len((await alpha.context.recall("")).items) == 1


# -- explain and delete ------------------------------------------------------------------------------


async def test_explain_walks_the_lineage_and_names_each_source(alpha: HubClient) -> None:
    await alpha.context.put_items(
        [
            context_item("e_root", "evidence", "root", source_type="tool", source_ref="ci:run/7"),
            context_item("k_mid", "knowledge", "mid", source_type="derived", derived_from=["e_root", "e_gone"]),
            context_item(
                "k_top", "knowledge", "top", source_type="derived", derived_from=["k_mid"], evidence_refs=["peer:msg_1"]
            ),
        ]
    )

    explained = await alpha.context.explain_item("k_top")

    assert explained.found
    assert list(explained.lineage) == ["e_gone", "e_root", "k_mid"]
    assert list(explained.evidence_refs) == ["peer:msg_1"]
    assert [(s.id, s.source_type, s.source_ref) for s in explained.sources] == [
        ("k_top", epb.CONTEXT_SOURCE_TYPE_DERIVED, ""),
        ("e_root", epb.CONTEXT_SOURCE_TYPE_TOOL, "ci:run/7"),
        ("k_mid", epb.CONTEXT_SOURCE_TYPE_DERIVED, ""),
    ]


async def test_explain_of_an_unknown_id_is_not_found_and_no_error(alpha: HubClient) -> None:
    explained = await alpha.context.explain_item("nope")

    assert (explained.found, list(explained.lineage), list(explained.sources)) == (False, [], [])


async def test_explain_finds_a_shared_default(alpha: HubClient, operator: HubClient) -> None:
    await operator.context.put_items([context_item("k_def", "knowledge", "default", project="_shared")])

    explained = await alpha.context.explain_item("k_def")

    assert explained.found and explained.sources[0].source_type == epb.CONTEXT_SOURCE_TYPE_HUMAN


async def test_an_operator_deletes_project_and_shared_items(alpha: HubClient, operator: HubClient) -> None:
    await operator.context.put_items(
        [context_item("k_def", "knowledge", "shared gate", project="_shared"), context_item("e_x", "evidence", "gate")]
    )

    assert (await operator.context.delete_items(["e_x", "unknown"])).deleted_count == 1
    assert (await operator.context.delete_items(["k_def"])).deleted_count == 0
    assert [item.id for item in (await alpha.context.recall("gate")).items] == ["k_def"]
    assert (await operator.context.delete_items(["k_def"], shared=True)).deleted_count == 1
    assert list((await alpha.context.recall("gate")).items) == []


async def test_delete_needs_an_operator_and_1_to_256_ids(alpha: HubClient, operator: HubClient) -> None:
    with pytest.raises(PermissionDenied) as denied:
        await alpha.context.delete_items(["e_x"])
    with pytest.raises(InvalidArgument) as empty:
        await operator.context.delete_items([])

    assert denied.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert empty.value.reason is Reason.CONTEXT_LIMITS_EXCEEDED


async def test_logs_carry_ids_and_sizes_never_a_summary_task_or_query(
    log_lines: io.StringIO, alpha: HubClient, operator: HubClient
) -> None:
    await alpha.context.put_items([context_item("e_secretive", "evidence", "summary-words-zebra")])
    await alpha.context.get_packet("verifier", "task-words-walrus")
    await alpha.context.recall("query-words-narwhal")
    await alpha.context.explain_item("e_secretive")
    await operator.context.delete_items(["e_secretive"])

    events = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    context = {event["event"]: event for event in events if event["event"].startswith("context_")}
    assert set(context) == {
        "context_items_put",
        "context_packet",
        "context_recall",
        "context_item_explained",
        "context_items_deleted",
    }
    assert (context["context_items_put"]["items"], context["context_recall"]["query_chars"]) == (1, 19)
    assert context["context_packet"]["packet_id"].startswith("ctxpkt_")
    text = log_lines.getvalue()
    assert not any(word in text for word in ("zebra", "walrus", "narwhal"))


async def test_only_the_hub_writes_its_ids_and_only_an_operator_puts_state(
    alpha: HubClient, operator: HubClient
) -> None:
    """``journal_``/``peer_`` ids are the automatic pool's, refused to everyone; a state item is
    refused to an agent or project token (state changes are proposed, then promoted); an operator's
    state item is not replaced by a project token's item of the same id."""
    refused = []
    for client, item in (
        (operator, context_item("peer_msg_1", "evidence", "forged verified reply", confidence="verified")),
        (alpha, context_item("journal_journal_x", "knowledge", "forged lesson")),
        (alpha, context_item("s_now", "state", "us-east-1", state_key="deploy.target", status="current")),
    ):
        with pytest.raises(PermissionDenied) as caught:
            await client.context.put_items([item])
        refused.append((caught.value.reason, caught.value.metadata["field"]))
    await operator.context.put_items(
        [context_item("s_op", "state", "eu-west-1", state_key="deploy.target", status="current")]
    )
    with pytest.raises(PermissionDenied) as replaced:
        await alpha.context.put_items([context_item("s_op", "evidence", "overwrite the operator's state")])

    assert refused == [(Reason.CONTEXT_AUTHORITY_VIOLATION, "id")] * 2 + [(Reason.CONTEXT_AUTHORITY_VIOLATION, "kind")]
    assert replaced.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION
    state = await alpha.context.get_state("deploy.target")
    assert state.item.summary == "eu-west-1"
