"""Temporal state through the API: proposals, promotion, rejection, reads as of an instant (§5.9, pin 22).

A real hub on a manual clock (``clocked_hub``, on SQLite and PostgreSQL). Agents propose; the
bootstrap admin and a named operator (``ops``) promote and reject, each naming the project with
``x-kxm-project``. The generated ContextService stub is called through the client's ``_call`` (the
error mapping every client method uses).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import pytest_asyncio
from google.protobuf import timestamp_pb2

from kxm_grpc import Aborted, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, Reason, Unauthenticated
from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import context_service_pb2_grpc
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.services.context.contradictions import open_contradiction_ids
from kxm_grpc.services.context.state import proposal_id
from kxm_grpc.store import tables
from tests.conftest import ADMIN_TOKEN, Hub

CURRENT = epb.CONTEXT_STATUS_CURRENT
PROPOSED = epb.CONTEXT_STATUS_PROPOSED
REJECTED = epb.CONTEXT_STATUS_REJECTED
SUPERSEDED = epb.CONTEXT_STATUS_SUPERSEDED


async def call(client: HubClient, name: str, request: Any) -> Any:
    """ContextService.<name> with a raw request, through the client's error mapping."""
    stub = client._stub(context_service_pb2_grpc.ContextServiceStub)
    return await client._call(getattr(stub, name), request)


@dataclass
class World:
    """Two projects (alpha, beta) on one clocked hub, and their callers."""

    hub: Hub
    clock: ManualClock
    admin: HubClient
    """The bootstrap admin naming alpha."""
    ops: HubClient
    """The named operator ``ops`` naming alpha."""
    agent: HubClient
    """Agent ``planner`` of alpha."""
    other: HubClient
    """Agent ``planner`` of beta."""
    token: HubClient
    """Alpha's project token, without an agent."""
    beta_admin: HubClient
    """The bootstrap admin naming beta."""

    def tick(self, micros: int = 1_000) -> int:
        """Move the hub's clock on; the new time."""
        self.clock.value += micros
        return self.clock.value


@pytest_asyncio.fixture
async def world(clocked_hub: tuple[Hub, ManualClock]) -> AsyncIterator[World]:
    hub, clock = clocked_hub
    async with contextlib.AsyncExitStack() as stack:
        root = await stack.enter_async_context(hub.admin())
        alpha = (await root.admin.create_project("alpha")).project_token
        beta = (await root.admin.create_project("beta")).project_token
        ops_token = (await root.admin.create_operator("ops")).operator_token
        clients = {
            "admin": HubClient(hub.address, token=ADMIN_TOKEN, project="alpha"),
            "ops": HubClient(hub.address, token=ops_token, project="alpha"),
            "agent": HubClient(hub.address, token=alpha),
            "other": HubClient(hub.address, token=beta),
            "token": HubClient(hub.address, token=alpha),
            "beta_admin": HubClient(hub.address, token=ADMIN_TOKEN, project="beta"),
        }
        for client in clients.values():
            await stack.enter_async_context(client)
        await clients["agent"].agents.register("planner")
        await clients["other"].agents.register("planner")
        yield World(hub, clock, **clients)


def propose(key: str = "deploy.target", summary: str = "us-east-1", **fields: Any) -> pb.ProposeStateRequest:
    return pb.ProposeStateRequest(
        state_key=key, summary=summary, evidence_refs=fields.pop("evidence", ["ci:1"]), **fields
    )


async def proposed(client: HubClient, key: str = "deploy.target", summary: str = "us-east-1", **fields: Any) -> Any:
    return (await call(client, "ProposeState", propose(key, summary, **fields))).proposal


async def promote(client: HubClient, proposal: str, *evidence: str, project: str = "") -> Any:
    request = pb.PromoteStateRequest(
        project=project, proposal_id=proposal, evidence_refs=list(evidence or ["review:1"])
    )
    return await call(client, "PromoteState", request)


async def read(client: HubClient, key: str = "deploy.target", *, at: int | None = None, history: bool = False) -> Any:
    request = pb.GetStateRequest(state_key=key, include_history=history)
    if at is not None:
        request.as_of_time.CopyFrom(_time(at))
    return await call(client, "GetState", request)


def _time(micros: int) -> timestamp_pb2.Timestamp:
    return timestamp_pb2.Timestamp(seconds=micros // 1_000_000, nanos=micros % 1_000_000 * 1000)


def _micros(stamp: timestamp_pb2.Timestamp) -> int:
    return stamp.seconds * 1_000_000 + stamp.nanos // 1000


# -- pin 22 ---------------------------------------------------------------------------------------------


async def test_pin_22_a_proposal_is_not_truth_until_an_operator_promotes_it(world: World) -> None:
    """Pin 22: an agent's proposal is ``ctx_…`` and the key still reads as nothing; the admin's
    promotion makes a new current item; a promotion (or a read) with a wrong token is
    UNAUTHENTICATED; another project's read is refused."""
    proposal = await proposed(world.agent)
    before = await read(world.agent)
    world.tick()
    promoted = await promote(world.admin, proposal.id)
    after = await read(world.agent)

    assert proposal.id.startswith("ctx_") and len(proposal.id) == 36
    assert proposal.status == PROPOSED
    assert proposal.provenance.source_type == epb.CONTEXT_SOURCE_TYPE_PEER
    assert proposal.provenance.source_ref == f"proposed-by:{world.agent.agent_id}"
    assert not before.HasField("item")
    assert promoted.item.status == CURRENT and promoted.item.id != proposal.id
    assert promoted.item.provenance.source_ref == "promoted-by:admin"
    assert (promoted.proposal.status, promoted.proposal.valid_until_time) == (REJECTED, promoted.item.valid_from_time)
    assert after.item == promoted.item
    async with HubClient(world.hub.address, token="kxm_wrong-token", project="alpha") as stranger:
        with pytest.raises(Unauthenticated):
            await promote(stranger, proposal.id)
        with pytest.raises(Unauthenticated):
            await read(stranger)
    with pytest.raises(PermissionDenied) as crossed:
        await call(world.agent, "GetState", pb.GetStateRequest(project="beta", state_key="deploy.target"))
    assert crossed.value.reason is Reason.CONTEXT_ISOLATION_VIOLATION


# -- history ---------------------------------------------------------------------------------------------


async def test_as_of_reads_say_what_was_true_at_each_instant_across_two_promotions(world: World) -> None:
    """Two promotions of one key: before the first nothing held, between them the first, after the
    second the second (the first superseded at that instant, not before); the history holds all four
    items by start, then id."""
    first = await proposed(world.agent, summary="us-east-1")
    t1 = world.tick()
    one = (await promote(world.ops, first.id)).item
    second = await proposed(world.agent, summary="eu-west-1", request_id="move-to-eu")
    t2 = world.tick()
    two = await promote(world.admin, second.id)

    at = {moment: await read(world.token, at=moment) for moment in (t1 - 1, t1, t2 - 1, t2, t2 + 10**9)}
    history = (await read(world.token, history=True)).history

    assert not at[t1 - 1].HasField("item")
    assert at[t1].item.id == at[t2 - 1].item.id == one.id
    assert at[t2].item.id == at[t2 + 10**9].item.id == two.item.id
    assert list(two.superseded_ids) == [one.id]
    assert set(two.item.supersedes) == {one.id}
    by_id = {item.id: item for item in history}
    assert set(by_id) == {first.id, one.id, second.id, two.item.id}
    assert (by_id[one.id].status, _micros(by_id[one.id].valid_until_time)) == (SUPERSEDED, t2)
    starts = [(_micros(item.valid_from_time), item.id) for item in history]
    assert starts == sorted(starts)


async def test_a_promotion_decided_with_an_older_clock_reading_still_closes_the_one_committed_before_it(
    world: World,
) -> None:
    """A promotion whose clock reading is older than one that committed first (two operators at
    once, a retried unit of work, a replica's clock behind) still supersedes that item: one current
    item, and no interval ends before it starts."""
    first = await proposed(world.agent, summary="us-east-1")
    second = await proposed(world.agent, summary="eu-west-1", request_id="other")
    world.tick(10_000)
    early = await promote(world.ops, first.id)
    world.clock.value -= 5_000  # the next decision reads a clock behind the committed one's
    late = await promote(world.admin, second.id)

    history = {item.id: item for item in (await read(world.token, history=True)).history}
    world.tick(10_000)  # past both decisions
    now = await read(world.token)

    assert list(late.superseded_ids) == [early.item.id]
    assert now.item.id == late.item.id
    closed = history[early.item.id]
    assert closed.status == SUPERSEDED
    assert _micros(closed.valid_until_time) >= _micros(closed.valid_from_time)
    assert _micros(late.item.valid_from_time) == _micros(closed.valid_until_time)


async def test_an_as_of_time_outside_the_timestamp_range_is_refused(world: World) -> None:
    """A Timestamp past year 9999 is INVALID_ARGUMENT naming ``as_of_time``."""
    request = pb.GetStateRequest(state_key="k", as_of_time=timestamp_pb2.Timestamp(seconds=253_402_300_800))

    with pytest.raises(InvalidArgument) as refused:
        await call(world.agent, "GetState", request)

    assert refused.value.metadata["field"] == "as_of_time"


# -- contradictions and sets ------------------------------------------------------------------------------


async def test_competing_proposals_are_open_contradictions_and_two_current_items_refuse_a_read(world: World) -> None:
    """Two proposals of one single-valued key are open contradictions (their ids, not a set's); two
    current items of a key make its read FAILED_PRECONDITION STATE_CONTRADICTION naming both."""
    a = await proposed(world.agent, "region", "one")
    b = await proposed(world.agent, "region", "two")
    await proposed(world.agent, "owners[]", "x")
    await proposed(world.agent, "owners[]", "y")
    store = world.hub.server.hub.store
    open_ids = await store.read(lambda tx: open_contradiction_ids(tx, "alpha"))
    world.tick()
    promoted = (await promote(world.ops, a.id)).item
    after_one = await store.read(lambda tx: open_contradiction_ids(tx, "alpha"))
    duplicate = await _second_current_item(world, promoted)

    with pytest.raises(FailedPrecondition) as refused:
        await read(world.agent, "region")

    assert open_ids == {a.id, b.id}
    assert after_one == set()
    assert refused.value.reason is Reason.STATE_CONTRADICTION
    assert refused.value.metadata["stateKey"] == "region"
    assert refused.value.metadata["competingCurrentIds"] == ",".join(sorted([promoted.id, duplicate]))
    assert await store.read(lambda tx: open_contradiction_ids(tx, "alpha")) == {promoted.id, duplicate, b.id}


async def _second_current_item(world: World, item: Any) -> str:
    """Store a copy of ``item`` under another id, current too (as a put of items could)."""
    store = world.hub.server.hub.store
    found = await store.read(lambda tx: tx.context_items.get("alpha", [item.id]))
    copy = replace(found[0], item=replace(found[0].item, id="ctx_duplicate"))
    await store.write(lambda tx: tx.context_items.put([copy]))
    return "ctx_duplicate"


async def test_a_set_valued_key_lists_its_members_and_loses_the_ones_a_promotion_supersedes(world: World) -> None:
    """``owners[]`` holds every promoted member, by id; a proposal superseding a member removes it
    when promoted; GetState refuses a set and ListStateSet a single-valued key."""
    members = []
    for name in ("alice", "bob"):
        members.append((await promote(world.ops, (await proposed(world.agent, "owners[]", name)).id)).item.id)
        world.tick()
    replacing = await proposed(world.agent, "owners[]", "carol", supersedes=[members[0]])
    world.tick()
    carol = (await promote(world.ops, replacing.id)).item
    now = world.tick()

    listed = await call(world.agent, "ListStateSet", pb.ListStateSetRequest(state_key="owners[]"))
    earlier = await call(
        world.agent, "ListStateSet", pb.ListStateSetRequest(state_key="owners[]", as_of_time=_time(now - 2_000))
    )
    with pytest.raises(InvalidArgument) as set_read:
        await read(world.agent, "owners[]")
    with pytest.raises(InvalidArgument) as single_list:
        await call(world.agent, "ListStateSet", pb.ListStateSetRequest(state_key="owners"))

    assert [item.id for item in listed.items] == sorted([members[1], carol.id])
    assert [item.id for item in earlier.items] == sorted(members)
    assert set_read.value.reason is Reason.STATE_KEY_SET_VALUED
    assert single_list.value.reason is Reason.STATE_KEY_SINGLE_VALUED


# -- who decides ------------------------------------------------------------------------------------------


async def test_the_proposer_never_promotes_its_own_proposal(world: World) -> None:
    """The admin's own proposal is refused to the admin and promoted by ``ops``; an operator named
    as the proposing agent is refused too (STATE_PROMOTION_INVALID); an agent is not an operator."""
    own = await proposed(world.admin, authority=epb.CONTEXT_AUTHORITY_POLICY)
    async with world.hub.admin() as root:
        planner_token = (await root.admin.create_operator("planner")).operator_token
    agents = await proposed(world.agent, "other.key")

    with pytest.raises(InvalidArgument) as self_promotion:
        await promote(world.admin, own.id)
    async with HubClient(world.hub.address, token=planner_token, project="alpha") as planner:
        with pytest.raises(InvalidArgument) as same_name:
            await promote(planner, agents.id)
    with pytest.raises(PermissionDenied) as agent:
        await promote(world.agent, agents.id)
    promoted = await promote(world.ops, own.id)

    assert self_promotion.value.reason is same_name.value.reason is Reason.STATE_PROMOTION_INVALID
    assert agent.value.reason is Reason.CREDENTIAL_KIND_DENIED
    assert promoted.item.authority == epb.CONTEXT_AUTHORITY_POLICY
    assert promoted.item.provenance.source_type == epb.CONTEXT_SOURCE_TYPE_HUMAN


async def test_an_agent_may_not_claim_instruction_nor_propose_as_someone_else(world: World) -> None:
    """An agent claiming instruction is CONTEXT_AUTHORITY_VIOLATION; ``proposed_by`` naming anyone
    but the caller is STATE_PROPOSER_MISMATCH; its own name or id is accepted; nothing is written."""
    before = await _digest(world)
    with pytest.raises(PermissionDenied) as authority:
        await proposed(world.agent, authority=epb.CONTEXT_AUTHORITY_INSTRUCTION)
    with pytest.raises(PermissionDenied) as mismatch:
        await proposed(world.agent, proposed_by="admin")
    with pytest.raises(InvalidArgument) as no_evidence:
        await proposed(world.agent, evidence=[])
    after = await _digest(world)
    by_name = await proposed(world.agent, proposed_by="planner")
    by_id = await proposed(world.agent, proposed_by=world.agent.agent_id or "")

    assert authority.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION
    assert mismatch.value.reason is Reason.STATE_PROPOSER_MISMATCH
    assert (no_evidence.value.reason, no_evidence.value.metadata["field"]) == (
        Reason.STATE_PROMOTION_INVALID,
        "evidence_refs",
    )
    assert before == after
    assert by_name.provenance.source_ref == by_id.provenance.source_ref == f"proposed-by:{world.agent.agent_id}"


async def _digest(world: World) -> str:
    """Every row of every table, hashed: a refused call leaves it as it was."""
    with tables.raw_connection(world.hub.database) as conn:
        return tables.digest(conn)


# -- retries ----------------------------------------------------------------------------------------------


async def test_a_retried_proposal_returns_the_first_and_a_reused_request_id_is_aborted(world: World) -> None:
    """The same request id and change: the same proposal (its id derived from the project and the
    request id), once; another change under that id: ABORTED IDEMPOTENCY_CONFLICT; another project
    with the same request id gets its own proposal."""
    first = await proposed(world.agent, request_id="r-1")
    world.tick()
    again = await proposed(world.agent, request_id="r-1")
    with pytest.raises(Aborted) as reused:
        await proposed(world.agent, summary="eu-west-1", request_id="r-1")
    theirs = await proposed(world.other, request_id="r-1")
    history = (await read(world.agent, history=True)).history

    assert again == first
    assert first.id == proposal_id("alpha", "r-1") != theirs.id
    assert reused.value.reason is Reason.IDEMPOTENCY_CONFLICT
    assert [item.id for item in history] == [first.id]


async def test_a_repeated_promotion_returns_the_first_and_any_other_decision_is_refused(world: World) -> None:
    """The same operator and evidence: the same promotion; other evidence, another operator, or a
    rejection afterwards: FAILED_PRECONDITION STATE_PROPOSAL_NOT_PROMOTABLE naming the item promoted."""
    old = (await promote(world.ops, (await proposed(world.agent)).id)).item
    world.tick()
    proposal = await proposed(world.agent, summary="eu-west-1")
    world.tick()
    first = await promote(world.ops, proposal.id, "review:7")
    world.tick()
    again = await promote(world.ops, proposal.id, "review:7")
    refusals = []
    for attempt in (
        promote(world.ops, proposal.id, "review:8"),
        promote(world.admin, proposal.id, "review:7"),
        call(world.ops, "RejectState", pb.RejectStateRequest(proposal_id=proposal.id)),
    ):
        with pytest.raises(FailedPrecondition) as refused:
            await attempt
        refusals.append(refused.value)

    assert again == first
    assert list(first.superseded_ids) == [old.id]
    assert {(e.reason, e.metadata["status"], e.metadata["promotedItemId"]) for e in refusals} == {
        (Reason.STATE_PROPOSAL_NOT_PROMOTABLE, "rejected", first.item.id)
    }


# -- rejection --------------------------------------------------------------------------------------------


async def test_a_rejection_closes_the_proposal_and_audits_its_reason_redacted(world: World) -> None:
    """Rejected, valid until now, never read as the key's value; the reason (at most 1,000
    characters) is in the audit record, redacted, never in the item; an unknown id is NOT_FOUND."""
    proposal = await proposed(world.agent)
    now = world.tick()
    closed = (
        await call(
            world.ops,
            "RejectState",
            pb.RejectStateRequest(proposal_id=proposal.id, reason="stale; password=hunter2-hunter2"),
        )
    ).proposal
    with pytest.raises(InvalidArgument) as long_reason:
        await call(world.ops, "RejectState", pb.RejectStateRequest(proposal_id=proposal.id, reason="x" * 1_001))
    with pytest.raises(NotFound) as unknown:
        await call(world.ops, "RejectState", pb.RejectStateRequest(proposal_id="ctx_nothing"))
    async with world.hub.admin() as root:
        records = (await root.admin.list_audit_records(action="RejectState")).audit_records

    assert (closed.status, _micros(closed.valid_until_time)) == (REJECTED, now)
    assert not (await read(world.agent)).HasField("item")
    assert (long_reason.value.reason, long_reason.value.metadata["field"]) == (
        Reason.STATE_PROMOTION_INVALID,
        "reason",
    )
    assert unknown.value.reason is Reason.STATE_PROPOSAL_NOT_FOUND
    assert [(r.operator, r.target) for r in records] == [("ops", f"projects/alpha/contextItems/{proposal.id}")]
    assert "hunter2" not in json.dumps(dict(records[0].metadata)) and records[0].metadata["reason"].startswith("stale")


# -- isolation --------------------------------------------------------------------------------------------

_CROSSING = {
    "GetState": lambda p: pb.GetStateRequest(project="beta", state_key="deploy.target"),
    "ListStateSet": lambda p: pb.ListStateSetRequest(project="beta", state_key="owners[]"),
    "ProposeState": lambda p: pb.ProposeStateRequest(project="beta", state_key="k", summary="s", evidence_refs=["e"]),
    "PromoteState": lambda p: pb.PromoteStateRequest(project="beta", proposal_id=p, evidence_refs=["e"]),
    "RejectState": lambda p: pb.RejectStateRequest(project="beta", proposal_id=p),
}


@pytest.mark.parametrize("rpc", sorted(_CROSSING))
async def test_every_state_rpc_refuses_another_project(world: World, rpc: str) -> None:
    """Naming beta from alpha's credentials (an agent, or an operator naming alpha) is
    PERMISSION_DENIED CONTEXT_ISOLATION_VIOLATION; beta's proposal id named in alpha is NOT_FOUND,
    as a random id is; nothing is written."""
    theirs = await proposed(world.other)
    caller = world.ops if rpc in ("PromoteState", "RejectState") else world.agent
    before = await _digest(world)

    with pytest.raises(PermissionDenied) as crossed:
        await call(caller, rpc, _CROSSING[rpc](theirs.id))
    if rpc in ("PromoteState", "RejectState"):
        inside = _CROSSING[rpc](theirs.id)
        inside.project = ""
        with pytest.raises(NotFound) as named:
            await call(caller, rpc, inside)
        assert named.value.reason is Reason.STATE_PROPOSAL_NOT_FOUND
    after = await _digest(world)

    assert crossed.value.reason is Reason.CONTEXT_ISOLATION_VIOLATION
    assert before == after
    assert not (await read(world.beta_admin)).HasField("item")


async def test_logs_carry_ids_and_sizes_never_a_summary_or_a_reason(world: World, log_lines: io.StringIO) -> None:
    """``state_proposed``, ``state_promoted`` and ``state_rejected`` name items and count; the texts
    the callers wrote appear in no log line."""
    kept = await proposed(world.agent, summary="marker-summary-kept")
    dropped = await proposed(world.agent, summary="marker-summary-dropped")
    world.tick()
    promoted = await promote(world.ops, kept.id)
    await call(world.ops, "RejectState", pb.RejectStateRequest(proposal_id=dropped.id, reason="marker-reason"))

    lines = [json.loads(line) for line in log_lines.getvalue().splitlines() if line.startswith("{")]
    events = {line["event"]: line for line in lines if line["event"].startswith("state_")}

    assert "marker-" not in log_lines.getvalue()
    assert events["state_proposed"]["summary_chars"] == len("marker-summary-dropped")
    assert (events["state_promoted"]["proposal_id"], events["state_promoted"]["item_id"]) == (kept.id, promoted.item.id)
    assert events["state_rejected"]["reason_chars"] == len("marker-reason")
