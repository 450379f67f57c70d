"""Memory records through ContextService: SyncMemory and ListMemory (workflow-context.md §5.11, §5.14,
§10 pin 20, §11.8).

A real hub (the ``hub`` fixture, on SQLite and PostgreSQL): an operator (the admin token naming a
project) syncs memory files; a project token reads the packets, explanations and listings. What a
refused sync wrote is checked with the digest of every table.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from kxm_grpc import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, Reason, ResourceExhausted
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.client import HubClient
from kxm_grpc.client.context import context_item
from kxm_grpc.store import tables
from tests.conftest import AgentFactory, Hub, Project, ProjectFactory


def record(
    record_id: str,
    summary: str,
    *,
    scope: str = "project",
    authority: str = "instruction",
    lifecycle: str = "active",
    source_type: str = "git",
    confidence: str = "verified",
    kind: str = "convention",
    extra: str = "",
    body: str = "",
) -> str:
    """The text of a ``kxm.memory.v1`` file."""
    return (
        "---\n"
        "schema: kxm.memory.v1\n"
        f"id: {record_id}\n"
        f"scope: {scope}\n"
        f"kind: {kind}\n"
        f"summary: {summary}\n"
        "provenance:\n"
        f"  sourceType: {source_type}\n"
        f"authority: {authority}\n"
        f"confidence: {confidence}\n"
        f"lifecycle: {lifecycle}\n"
        f"{extra}"
        "---\n"
        f"{body}"
    )


@pytest_asyncio.fixture
async def beta(make_project: ProjectFactory) -> Project:
    return await make_project("beta")


@pytest_asyncio.fixture
async def alpha(hub: Hub, project: Project) -> AsyncIterator[HubClient]:
    """A client of project ``alpha`` holding its project token."""
    async with HubClient(hub.address, token=project.token) as client:
        yield client


@pytest_asyncio.fixture
async def ops(hub: Hub, project: Project) -> AsyncIterator[HubClient]:
    """The admin token naming ``alpha``."""
    async with hub.admin(project="alpha") as client:
        yield client


@pytest_asyncio.fixture
async def beta_ops(hub: Hub, beta: Project) -> AsyncIterator[HubClient]:
    """The admin token naming ``beta``."""
    async with hub.admin(project="beta") as client:
        yield client


async def knowledge(client: HubClient, task: str = "memory") -> list[epb.ContextItem]:
    """The knowledge items of the client's packet (a large budget: every one fits)."""
    response = await client.context.get_packet("planner", task, include_kinds=["knowledge"], budget_tokens=200_000)
    return list(response.packet.knowledge)


async def digest(hub: Hub) -> str:
    with tables.raw_connection(hub.database) as conn:
        return tables.digest(conn)


MAPPING_FILES = [
    ("a.md", record("rule-a", "always run the linter", authority="instruction", confidence="verified")),
    ("b.md", record("rule-b", "promoted review outcome", authority="promoted", confidence="probable")),
    ("c.md", record("fact-c", "the build takes ten minutes", authority="evidence", source_type="tool",
                    confidence="uncertain")),
    ("d.md", record("shared-d", "operators prefer small commits", scope="operator")),
    ("e.md", record("agent-e", "agent note", scope="agent")),
    ("f.md", record("run-f", "run note", scope="run")),
    ("g.md", record("old-g", "deprecated note", lifecycle="deprecated")),
    ("h.md", record("old-h", "superseded note", lifecycle="superseded")),
]  # fmt: skip


# -- the mapping (§5.11), row by row -------------------------------------------------------------------


async def test_the_mapping_table_row_by_row(ops: HubClient, alpha: HubClient) -> None:
    """id mem_<id>; knowledge; instruction for instruction and promoted, evidence for evidence;
    confidence copied; status current; scope copied; the record's source type; source ref
    memory:<project>/<path>; operator scope in _shared; agent and run scope, deprecated and
    superseded records counted, not stored."""
    response = await ops.context.sync_memory(MAPPING_FILES)

    assert (response.loaded, response.removed) == (4, 0)
    assert (response.skipped_inactive, response.skipped_unbound_scopes) == (2, 2)
    assert not response.unchanged and response.revision.startswith("ctxrev_")
    items = {item.id: item for item in await knowledge(alpha)}
    assert sorted(items) == ["mem_fact-c", "mem_rule-a", "mem_rule-b", "mem_shared-d"]
    a, b, c, d = items["mem_rule-a"], items["mem_rule-b"], items["mem_fact-c"], items["mem_shared-d"]
    assert {item.kind for item in items.values()} == {epb.CONTEXT_KIND_KNOWLEDGE}
    assert {item.status for item in items.values()} == {epb.CONTEXT_STATUS_CURRENT}
    assert (a.authority, b.authority, c.authority, d.authority) == (
        epb.CONTEXT_AUTHORITY_INSTRUCTION,
        epb.CONTEXT_AUTHORITY_INSTRUCTION,
        epb.CONTEXT_AUTHORITY_EVIDENCE,
        epb.CONTEXT_AUTHORITY_INSTRUCTION,
    )
    assert (a.confidence, b.confidence, c.confidence) == (
        epb.CONTEXT_CONFIDENCE_VERIFIED,
        epb.CONTEXT_CONFIDENCE_PROBABLE,
        epb.CONTEXT_CONFIDENCE_UNCERTAIN,
    )
    assert (a.project, d.project) == ("alpha", "_shared")
    assert (a.scope, d.scope) == (epb.CONTEXT_SCOPE_PROJECT, epb.CONTEXT_SCOPE_OPERATOR)
    assert (a.provenance.source_type, c.provenance.source_type) == (
        epb.CONTEXT_SOURCE_TYPE_GIT,
        epb.CONTEXT_SOURCE_TYPE_TOOL,
    )
    assert (a.provenance.source_ref, d.provenance.source_ref) == ("memory:alpha/a.md", "memory:_shared/shared-d")
    assert a.summary == "always run the linter"


async def test_list_memory_is_metadata_only_with_the_revision(ops: HubClient, alpha: HubClient) -> None:
    never = await alpha.context.list_memory()
    synced = await ops.context.sync_memory(MAPPING_FILES)

    listed = await alpha.context.list_memory()

    assert (list(never.records), never.revision, never.HasField("sync_time")) == ([], "", False)
    assert listed.revision == synced.revision and listed.HasField("sync_time")
    assert [(r.record_id, r.project) for r in listed.records] == [
        ("fact-c", "alpha"),
        ("rule-a", "alpha"),
        ("rule-b", "alpha"),
        ("shared-d", "_shared"),
    ]
    b = listed.records[2]
    assert (b.item_id, b.path, b.record_kind, b.record_authority, b.lifecycle) == (
        "mem_rule-b",
        "b.md",
        "convention",
        "promoted",
        "active",
    )
    assert b.authority == epb.CONTEXT_AUTHORITY_INSTRUCTION and b.scope == epb.CONTEXT_SCOPE_PROJECT
    assert b.summary_chars == len("promoted review outcome")
    assert "summary" not in str(listed).replace("summary_chars", "")


# -- _shared --------------------------------------------------------------------------------------------


async def test_operator_scope_is_shared_and_ranked_after_another_projects_own_items(
    hub: Hub, ops: HubClient, beta: Project
) -> None:
    await ops.context.sync_memory([("d.md", record("shared-d", "gate policy default", scope="operator"))])
    async with HubClient(hub.address, token=beta.token) as beta_client:
        await beta_client.context.put_items([context_item("k_beta", "knowledge", "gate policy of beta")])

        packet = (await beta_client.context.get_packet("planner", "gate policy")).packet
        explained = await beta_client.context.explain_item("mem_shared-d")

    assert list(packet.audit.selected_ids) == ["k_beta", "mem_shared-d"]
    assert packet.knowledge[1].project == "_shared"
    assert packet.knowledge[1].authority == epb.CONTEXT_AUTHORITY_INSTRUCTION
    # beta reads the default, not which project's sync wrote it nor that project's file names.
    assert packet.knowledge[1].provenance.source_ref == "memory:_shared/shared-d"
    assert explained.found and "alpha" not in str(packet.knowledge[1]) and "d.md" not in str(explained)


async def test_a_shared_id_another_project_owns_is_refused_and_its_resync_leaves_it(
    hub: Hub, ops: HubClient, beta_ops: HubClient
) -> None:
    await ops.context.sync_memory([("d.md", record("shared-d", "alpha's default", scope="operator"))])
    before = await digest(hub)

    with pytest.raises(FailedPrecondition) as owned:
        await beta_ops.context.sync_memory([("x.md", record("shared-d", "beta's default", scope="operator"))])
    after = await digest(hub)
    beta_own = await beta_ops.context.sync_memory([("y.md", record("beta-rule", "beta only"))])
    beta_empty = await beta_ops.context.sync_memory(
        [("y.md", record("beta-rule", "beta only", lifecycle="deprecated"))]
    )

    assert owned.value.reason is Reason.MEMORY_RECORD_OWNED
    assert (
        owned.value.metadata.items()
        >= {
            "path": "x.md",
            "index": "0",
            "itemId": "mem_shared-d",
            "owner": "alpha",
        }.items()
    )
    assert before == after
    assert (beta_own.loaded, beta_empty.removed) == (1, 1)
    listed = await ops.context.list_memory()
    assert [r.item_id for r in listed.records] == ["mem_shared-d"]


# -- atomicity, removal, revision ----------------------------------------------------------------------


async def test_one_malformed_file_fails_the_whole_sync_and_leaves_the_previous_memory(
    hub: Hub, ops: HubClient, alpha: HubClient
) -> None:
    first = await ops.context.sync_memory([("a.md", record("rule-a", "keep me"))])
    before = await digest(hub)
    bad = record("rule-c", "fine").replace("lifecycle: active", "lifecycle: archived")

    with pytest.raises(InvalidArgument) as refused:
        await ops.context.sync_memory([("b.md", record("rule-b", "new")), ("c.md", bad)])

    assert refused.value.reason is Reason.INVALID_MEMORY_RECORD
    assert {k: refused.value.metadata[k] for k in ("path", "index", "field")} == {
        "path": "c.md",
        "index": "1",
        "field": "lifecycle",
    }
    assert [v.field for v in refused.value.field_violations] == ["files[1].content"]
    assert before == await digest(hub)
    assert [item.id for item in await knowledge(alpha, "keep")] == ["mem_rule-a"]
    assert (await alpha.context.list_memory()).revision == first.revision


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("no front matter\n", "frontMatter"),
        ("---\nschema: kxm.memory.v1\n", "frontMatter"),
        (record("rule-a", "x").replace("kxm.memory.v1", "kxm.memory.v2"), "schema"),
        (record("Rule_A-", "x"), "id"),
        (record("rule-a", "x", scope="team"), "scope"),
        (record("rule-a", "x", kind="''"), "kind"),
        (record("rule-a", "''"), "summary"),
        (record("rule-a", "x", source_type="command"), "provenance.sourceType"),
        (record("rule-a", "x", source_type="derived"), "provenance.sourceType"),
        (record("rule-a", "x", authority="policy"), "authority"),
        (record("rule-a", "x", confidence="sure"), "confidence"),
        (record("rule-a", "x", extra="title: extra\n"), "title"),
        (record("rule-a", "x", extra="evidenceRefs: [a, a]\n"), "evidenceRefs"),
        (record("rule-a", "x", extra="evidenceRefs: {a: 1}\n"), "evidenceRefs"),
    ],
)
async def test_each_rule_of_a_record_is_invalid_memory_record_naming_the_field(
    ops: HubClient, text: str, field: str
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        await ops.context.sync_memory([("ok.md", record("fine", "fine")), ("bad.md", text)])

    assert refused.value.reason is Reason.INVALID_MEMORY_RECORD
    assert (refused.value.metadata["path"], refused.value.metadata["field"]) == ("bad.md", field)


async def test_paths_ids_and_limits(ops: HubClient) -> None:
    ok = record("rule-a", "x")
    refusals = []
    for files in (
        [("sub/a.md", ok)],
        [("a.txt", ok)],
        [("a.md", ok), ("a.md", record("rule-b", "y"))],
        [("a.md", ok), ("b.md", ok)],
        [],
        [(f"f{n}.md", record(f"r{n}", "x")) for n in range(129)],
        [("a.md", ok + "x" * 16 * 1024)],
    ):
        with pytest.raises(InvalidArgument) as refused:
            await ops.context.sync_memory(files)
        refusals.append((refused.value.reason, refused.value.field_violations[0].field))

    assert refusals == [
        (Reason.INVALID_MEMORY_RECORD, "files[0].path"),
        (Reason.INVALID_MEMORY_RECORD, "files[0].path"),
        (Reason.INVALID_MEMORY_RECORD, "files[1].path"),
        (Reason.INVALID_MEMORY_RECORD, "files[1].content"),
        (Reason.CONTEXT_LIMITS_EXCEEDED, "allow_empty"),
        (Reason.CONTEXT_LIMITS_EXCEEDED, "files"),
        (Reason.CONTEXT_LIMITS_EXCEEDED, "files[0].content"),
    ]


async def test_control_plane_fields_and_authority_above_the_source_are_refused(ops: HubClient) -> None:
    with pytest.raises(PermissionDenied) as control:
        await ops.context.sync_memory([("a.md", record("rule-a", "x", extra="permissions: [write]\n"))])
    with pytest.raises(PermissionDenied) as peer_instruction:
        await ops.context.sync_memory([("b.md", record("rule-b", "x", source_type="peer"))])

    assert control.value.reason is peer_instruction.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION
    assert (control.value.metadata["path"], peer_instruction.value.metadata["path"]) == ("a.md", "b.md")


async def test_a_resync_removes_what_the_new_set_no_longer_has(ops: HubClient, alpha: HubClient) -> None:
    await ops.context.sync_memory(
        [
            ("a.md", record("rule-a", "memory a")),
            ("b.md", record("rule-b", "memory b")),
            ("d.md", record("shared-d", "memory d", scope="operator")),
        ]
    )

    again = await ops.context.sync_memory([("a.md", record("rule-a", "memory a, changed"))])

    assert (again.loaded, again.removed) == (1, 2)
    items = await knowledge(alpha)
    assert [(item.id, item.summary) for item in items] == [("mem_rule-a", "memory a, changed")]


async def test_the_revision_is_deterministic_and_changes_with_a_byte(ops: HubClient) -> None:
    files = [(f"{name}.md", record(f"rule-{name}", f"memory {name}", body="body\n")) for name in "abcde"]
    shuffled = files[:]
    random.Random(7).shuffle(shuffled)
    expected = hashlib.sha256()
    for path, text in sorted(files):
        expected.update(f"memory:{path}".encode() + b"\0" + text.encode() + b"\0")

    first = await ops.context.sync_memory(files)
    same = await ops.context.sync_memory(shuffled)
    changed = await ops.context.sync_memory([*files[:4], (files[4][0], files[4][1] + "!")])

    assert first.revision == same.revision == "ctxrev_" + expected.hexdigest()
    assert (first.unchanged, same.unchanged, changed.unchanged) == (False, True, False)
    assert changed.revision != first.revision
    assert (same.loaded, same.removed) == (5, 0)


async def test_a_deleted_memory_item_is_restored_by_the_same_sync(ops: HubClient, alpha: HubClient) -> None:
    files = [("a.md", record("rule-a", "memory a"))]
    await ops.context.sync_memory(files)
    await ops.context.delete_items(["mem_rule-a"])

    again = await ops.context.sync_memory(files)

    assert not again.unchanged
    assert [item.id for item in await knowledge(alpha)] == ["mem_rule-a"]


# -- who may -------------------------------------------------------------------------------------------


async def test_put_items_refuses_mem_ids_to_everyone(ops: HubClient, alpha: HubClient) -> None:
    for client in (ops, alpha):
        with pytest.raises(PermissionDenied) as refused:
            await client.context.put_items([context_item(" mem_rule-a", "knowledge", "forged memory")])
        assert refused.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION
        assert refused.value.metadata["field"] == "id"


async def test_only_an_operator_syncs_and_only_its_project(hub: Hub, ops: HubClient, alpha: HubClient) -> None:
    before = await digest(hub)
    with pytest.raises(PermissionDenied) as token:
        await alpha.context.sync_memory([("a.md", record("rule-a", "x"))])
    with pytest.raises(PermissionDenied) as other:
        await ops.context.sync_memory([("a.md", record("rule-a", "x"))], project="beta")
    with pytest.raises(PermissionDenied) as shared:
        await ops.context.sync_memory([("a.md", record("rule-a", "x"))], project="_shared")
    with pytest.raises(PermissionDenied) as listed:
        await alpha.context.list_memory(project="beta")

    assert token.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert other.value.reason is shared.value.reason is listed.value.reason is Reason.CONTEXT_ISOLATION_VIOLATION
    assert before == await digest(hub)


# -- in packets and explanations ----------------------------------------------------------------------


async def test_memory_items_are_instructions_in_packets_and_explained(ops: HubClient, alpha: HubClient) -> None:
    await ops.context.sync_memory(
        [("a.md", record("rule-a", "always run the linter", extra="evidenceRefs: [review-12, 42]\n"))]
    )
    await alpha.context.put_items([context_item("e_note", "evidence", "the linter found nothing")])

    packet = (await alpha.context.get_packet("implementer", "run the linter")).packet
    explained = await alpha.context.explain_item("mem_rule-a")

    assert packet.knowledge[0].id == "mem_rule-a"
    assert packet.knowledge[0].authority == epb.CONTEXT_AUTHORITY_INSTRUCTION
    assert explained.found and list(explained.evidence_refs) == ["review-12", "42"]
    assert [(s.id, s.source_type, s.source_ref) for s in explained.sources] == [
        ("mem_rule-a", epb.CONTEXT_SOURCE_TYPE_GIT, "memory:alpha/a.md")
    ]


# -- candidates (ProposeMemory, PromoteMemory, RejectMemory) ------------------------------------------


async def test_a_candidate_is_never_context_until_promoted_and_synced(
    hub: Hub, ops: HubClient, alpha: HubClient
) -> None:
    """An agent's note is listed for review, in no packet or recall; another operator's promotion
    returns a record file (source human, authority promoted) that the sync then loads."""
    noted = (await alpha.context.propose_memory("the flaky gate needs a retry", evidence_refs=["run_1"])).candidate
    packet = await alpha.context.get_packet("planner", "flaky gate retry")
    recalled = await alpha.context.recall("flaky gate")
    listed = await alpha.context.list_memory()

    async with hub.admin() as root:
        second_token = (await root.admin.create_operator("second")).operator_token
    async with HubClient(hub.address, token=second_token, project="alpha") as second:
        promoted = await second.context.promote_memory(noted.id, "gate-retry")
    synced = await ops.context.sync_memory([(promoted.path, promoted.content)])
    items = await knowledge(alpha, "flaky gate")

    assert noted.id.startswith("cand_project_") and len(noted.id) == len("cand_project_") + 12
    assert (noted.kind, noted.status, noted.origin) == ("learning", "open", epb.CONTEXT_SOURCE_TYPE_PEER)
    assert noted.proposed_by == "project:alpha"
    assert list(packet.packet.audit.selected_ids) == [] and list(recalled.items) == []
    assert [c.id for c in listed.candidates] == [noted.id] and listed.candidates[0].summary == noted.summary
    assert promoted.candidate.decided_by == "second"
    assert "promoted-by:second" in promoted.content and "sourceType: human" in promoted.content
    assert (promoted.candidate.status, promoted.candidate.record_id, promoted.path) == (
        "promoted",
        "gate-retry",
        "gate-retry.md",
    )
    assert synced.loaded == 1
    assert [(i.id, i.summary, i.authority, i.provenance.source_type) for i in items] == [
        ("mem_gate-retry", noted.summary, epb.CONTEXT_AUTHORITY_INSTRUCTION, epb.CONTEXT_SOURCE_TYPE_HUMAN)
    ]
    assert list(items[0].evidence_refs) == ["run_1"]
    assert list((await alpha.context.list_memory()).candidates) == []


async def test_the_proposer_may_not_promote_and_a_decided_candidate_stays_decided(ops: HubClient) -> None:
    noted = (await ops.context.propose_memory("note by the admin", scope="operator", kind="policy-note")).candidate

    with pytest.raises(FailedPrecondition) as own:
        await ops.context.promote_memory(noted.id, "admin-note")
    rejected = await ops.context.reject_memory(noted.id, reason="not a fact")
    with pytest.raises(FailedPrecondition) as again:
        await ops.context.reject_memory(noted.id)
    with pytest.raises(NotFound) as unknown:
        await ops.context.reject_memory("cand_project_000000000000")
    with pytest.raises(InvalidArgument) as malformed:
        await ops.context.reject_memory("mem_x")

    assert noted.scope == epb.CONTEXT_SCOPE_OPERATOR and noted.origin == epb.CONTEXT_SOURCE_TYPE_HUMAN
    assert own.value.reason is again.value.reason is Reason.MEMORY_CANDIDATE_NOT_PROMOTABLE
    assert own.value.metadata["proposedBy"] == "admin" and again.value.metadata["status"] == "rejected"
    assert (rejected.candidate.status, rejected.candidate.reason) == ("rejected", "not a fact")
    assert unknown.value.reason is Reason.MEMORY_CANDIDATE_NOT_FOUND
    assert (malformed.value.reason, malformed.value.metadata["field"]) == (Reason.INVALID_MEMORY_RECORD, "candidate_id")


async def test_candidate_rules_and_the_open_limit(hub: Hub, alpha: HubClient) -> None:
    with pytest.raises(InvalidArgument) as empty:
        await alpha.context.propose_memory("  ")
    with pytest.raises(PermissionDenied) as not_operator:
        await alpha.context.promote_memory("cand_project_000000000000", "x")
    for n in range(64):
        await alpha.context.propose_memory(f"note {n}")
    with pytest.raises(ResourceExhausted) as full:
        await alpha.context.propose_memory("one too many")
    first = (await alpha.context.list_memory()).candidates[0].id
    async with hub.admin(project="alpha") as ops:
        with pytest.raises(InvalidArgument) as bad_id:
            await ops.context.promote_memory(first, "Not Valid")
        await ops.context.reject_memory(first)
    room = await alpha.context.propose_memory("room again")

    assert (empty.value.reason, empty.value.metadata["field"]) == (Reason.INVALID_MEMORY_RECORD, "summary")
    assert not_operator.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert (full.value.reason, full.value.metadata["limit"]) == (Reason.CONTEXT_LIMITS_EXCEEDED, "64")
    assert (bad_id.value.reason, bad_id.value.metadata["field"]) == (Reason.INVALID_MEMORY_RECORD, "record_id")
    assert room.candidate.status == "open"


async def test_an_operator_named_as_the_proposing_agent_may_not_promote(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    """The agent ``carol`` notes a candidate; the operator ``carol`` is its proposer too, and is
    refused (as for state and skills); another operator promotes it."""
    carol = await make_agent("carol")
    noted = (await carol.context.propose_memory("the flaky gate needs a retry")).candidate
    async with hub.admin() as root:
        carol_token = (await root.admin.create_operator("carol")).operator_token

    async with HubClient(hub.address, token=carol_token, project="alpha") as operator_carol:
        with pytest.raises(FailedPrecondition) as same_name:
            await operator_carol.context.promote_memory(noted.id, "gate-retry")
    async with hub.admin(project="alpha") as ops:
        promoted = await ops.context.promote_memory(noted.id, "gate-retry")

    assert same_name.value.reason is Reason.MEMORY_CANDIDATE_NOT_PROMOTABLE
    assert noted.proposed_by.startswith("agt_") and promoted.candidate.decided_by == "admin"


async def test_an_empty_sync_empties_the_memory_only_when_asked(ops: HubClient, alpha: HubClient) -> None:
    """No file is refused (a sync of the wrong folder must not wipe the memory); with allow_empty
    it removes every memory item the project's syncs wrote, `_shared` ones too, and the revision
    is the empty set's."""
    first = await ops.context.sync_memory(
        [("a.md", record("rule-a", "memory a")), ("d.md", record("shared-d", "default d", scope="operator"))]
    )
    with pytest.raises(InvalidArgument) as refused:
        await ops.context.sync_memory([])
    kept = await ops.context.list_memory()

    emptied = await ops.context.sync_memory([], allow_empty=True)
    again = await ops.context.sync_memory([], allow_empty=True)
    listed = await ops.context.list_memory()
    explained = await alpha.context.explain_item("mem_rule-a")

    assert refused.value.field_violations[0].field == "allow_empty"
    assert [r.record_id for r in kept.records] == ["rule-a", "shared-d"] and kept.revision == first.revision
    assert (emptied.loaded, emptied.removed, emptied.unchanged) == (0, 2, False)
    assert emptied.revision.startswith("ctxrev_") and emptied.revision != first.revision
    assert again.unchanged and again.revision == emptied.revision
    assert list(listed.records) == [] and listed.revision == emptied.revision
    assert not explained.found
