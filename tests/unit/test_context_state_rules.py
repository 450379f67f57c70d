"""Temporal state's pure rules (spec §5.9): active intervals, reads as of an instant, contradictions,
set-valued keys, proposals and promotion (``kxm_grpc.domain.context.state``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kxm_grpc.domain.context import state
from kxm_grpc.domain.context.items import (
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    SourceType,
    Status,
)
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, PermissionDenied, Reason


def item(item_id: str, status: Status, *, key: str = "deploy.target", **fields: Any) -> ContextItem:
    made = ContextItem(
        id=item_id,
        kind=Kind.STATE,
        project="p",
        summary=f"value {item_id}",
        provenance=Provenance(SourceType.PEER, "proposed-by:agt_1"),
        authority=Authority.EVIDENCE,
        confidence=Confidence.PROBABLE,
        status=status,
        state_key=key,
    )
    return dataclasses.replace(made, **fields)


@pytest.mark.parametrize(
    ("status", "valid_from", "valid_until", "at", "active"),
    [
        (Status.CURRENT, None, None, 0, True),
        (Status.CURRENT, 10, None, 9, False),
        (Status.CURRENT, 10, None, 10, True),
        (Status.SUPERSEDED, 10, 20, 19, True),
        (Status.SUPERSEDED, 10, 20, 20, False),
        (Status.SUPERSEDED, None, 20, -(10**15), True),
        (Status.PROPOSED, None, None, 0, False),
        (Status.REJECTED, None, None, 0, False),
    ],
)
def test_an_item_is_active_in_its_half_open_interval_when_current_or_superseded(
    status: Status, valid_from: int | None, valid_until: int | None, at: int, active: bool
) -> None:
    """Active at T: current or superseded, valid_from ≤ T < valid_until (missing bounds unbounded)."""
    assert state.is_active(item("ctx_a", status, valid_from=valid_from, valid_until=valid_until), at) is active


def test_the_value_is_the_current_item_else_the_active_one_that_started_last_then_the_greatest_id() -> None:
    """One current active item wins; otherwise the latest start, then the greatest id; nothing active is None."""
    old = item("ctx_b", Status.SUPERSEDED, valid_from=1, valid_until=100)
    later = item("ctx_a", Status.SUPERSEDED, valid_from=5, valid_until=100)
    tie = item("ctx_c", Status.SUPERSEDED, valid_from=5, valid_until=100)
    current = item("ctx_0", Status.CURRENT, valid_from=2)
    proposal = item("ctx_z", Status.PROPOSED, valid_from=9)

    assert state.value_at("k", [old, later, current, proposal], 50) == current
    assert state.value_at("k", [old, later, tie, proposal], 50) == tie
    assert state.value_at("k", [old, later], 3) == old
    assert state.value_at("k", [old, proposal], 100) is None


def test_two_current_items_active_at_once_are_a_contradiction_naming_both() -> None:
    """More than one current active item: FAILED_PRECONDITION STATE_CONTRADICTION with the ids by id."""
    with pytest.raises(FailedPrecondition) as refused:
        state.value_at("k", [item("ctx_b", Status.CURRENT), item("ctx_a", Status.CURRENT)], 0)

    assert refused.value.reason is Reason.STATE_CONTRADICTION
    assert refused.value.metadata == {"stateKey": "k", "competingCurrentIds": "ctx_a,ctx_b"}
    assert state.value_at("k", [item("ctx_b", Status.CURRENT, valid_until=5), item("ctx_a", Status.CURRENT)], 5)


def test_a_set_lists_its_members_active_then_by_code_unit_and_history_orders_by_start_then_id() -> None:
    """Members: active then (a member superseded since counts before its end), by UTF-16 code unit;
    history: valid_from (none first), then id."""
    astral, private = item("ctx_\U0001f600", Status.CURRENT), item("ctx_\ue000", Status.CURRENT)
    ended = item("ctx_x", Status.SUPERSEDED, valid_until=5)
    undated = item("ctx_u", Status.PROPOSED)
    dated = item("ctx_a", Status.PROPOSED, valid_from=3)

    assert state.set_at([private, astral, ended, undated], 5) == [astral, private]
    assert state.set_at([private, ended], 4) == [ended, private]
    assert state.history([dated, ended, undated]) == [undated, ended, dated]


def test_contradictions_are_every_current_and_proposed_item_of_a_crowded_single_valued_key() -> None:
    """>1 current or >1 proposed: all current and proposed ids; set-valued keys and one of each: none."""
    one_each = [item("ctx_1", Status.CURRENT), item("ctx_2", Status.PROPOSED), item("ctx_3", Status.SUPERSEDED)]
    two_proposed = [*one_each, item("ctx_4", Status.PROPOSED)]

    assert state.contradiction_ids("k", one_each) == []
    assert state.contradiction_ids("k", two_proposed) == ["ctx_1", "ctx_2", "ctx_4"]
    assert state.contradiction_ids("k[]", two_proposed) == []


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("", Reason.INVALID_STATE_REQUEST),
        ("[]", Reason.INVALID_STATE_REQUEST),
        ("k" * 201, Reason.INVALID_STATE_REQUEST),
    ],
)
def test_a_key_is_one_to_200_characters_and_not_brackets_alone(key: str, reason: Reason) -> None:
    """An empty, bare ``[]`` or over-long key is refused naming ``state_key``."""
    with pytest.raises(InvalidArgument) as refused:
        state.check_state_key(key)

    assert (refused.value.reason, refused.value.metadata["field"]) == (reason, "state_key")


def _change(**fields: Any) -> state.Change:
    return dataclasses.replace(state.Change("deploy.target", "us-east-1", ("ci:1",)), **fields)


def test_a_proposal_is_proposed_from_now_with_the_origin_of_its_credential() -> None:
    """Status proposed, valid from now, source = origin, sourceRef proposed-by, defaults evidence/probable."""
    made = state.proposal("p", _change(), item_id="ctx_1", proposer="agt_1", origin=SourceType.PEER, now=7)

    assert (made.status, made.valid_from, made.valid_until) == (Status.PROPOSED, 7, None)
    assert made.provenance == Provenance(SourceType.PEER, "proposed-by:agt_1")
    assert (made.authority, made.confidence, made.evidence_refs) == (Authority.EVIDENCE, Confidence.PROBABLE, ("ci:1",))


@pytest.mark.parametrize(
    ("change", "error", "reason", "field"),
    [
        (_change(evidence_refs=()), InvalidArgument, Reason.STATE_PROMOTION_INVALID, "evidence_refs"),
        (
            _change(evidence_refs=tuple(f"e{n}" for n in range(33))),
            InvalidArgument,
            Reason.STATE_PROMOTION_INVALID,
            "evidence_refs",
        ),
        (_change(evidence_refs=("e", "e")), InvalidArgument, Reason.STATE_PROMOTION_INVALID, "evidence_refs"),
        (_change(summary=" "), InvalidArgument, Reason.INVALID_CONTEXT_ITEM, "summary"),
        (_change(supersedes=("",)), InvalidArgument, Reason.INVALID_STATE_REQUEST, "supersedes"),
        (_change(authority=Authority.INSTRUCTION), PermissionDenied, Reason.CONTEXT_AUTHORITY_VIOLATION, None),
    ],
)
def test_a_bad_proposal_is_refused_naming_its_field(
    change: state.Change, error: type[Exception], reason: Reason, field: str | None
) -> None:
    """Evidence 1-32, unique refs, a summary, and an authority within a peer's floor."""
    with pytest.raises(error) as refused:
        state.proposal("p", change, item_id="ctx_1", proposer="agt_1", origin=SourceType.PEER, now=7)

    assert getattr(refused.value, "reason", None) is reason
    assert getattr(refused.value, "metadata", {}).get("field") == field


def test_an_operator_may_propose_policy() -> None:
    """A human origin's floor is policy."""
    made = state.proposal(
        "p", _change(authority=Authority.POLICY), item_id="ctx_1", proposer="ops", origin=SourceType.HUMAN, now=7
    )

    assert made.authority is Authority.POLICY


def test_promotion_mints_a_new_item_and_closes_the_proposal_and_every_current_item_active_now() -> None:
    """New id, current from now, origin kept, promoted-by, unions sorted; proposal rejected and the
    active current item superseded, both valid until now; a current item not yet active is left."""
    proposal = item("ctx_p", Status.PROPOSED, valid_from=5, supersedes=("ctx_z",), evidence_refs=("e2", "e1"))
    old = item("ctx_old", Status.CURRENT, valid_from=1)
    future = item("ctx_future", Status.CURRENT, valid_from=100)

    done = state.promote(
        proposal, [proposal, old, future], evidence=("e3", "e1"), operator="ops", item_id="ctx_n", now=10
    )

    assert done.item.id == "ctx_n" and done.item.status is Status.CURRENT
    assert (done.item.valid_from, done.item.valid_until) == (10, None)
    assert done.item.provenance == Provenance(SourceType.PEER, "promoted-by:ops")
    assert done.item.supersedes == ("ctx_old", "ctx_z")
    assert done.item.evidence_refs == ("e1", "e2", "e3")
    assert (done.proposal.status, done.proposal.valid_until) == (Status.REJECTED, 10)
    assert [(i.id, i.status, i.valid_until) for i in done.superseded] == [("ctx_old", Status.SUPERSEDED, 10)]


def test_promotion_into_a_set_closes_only_the_members_its_proposal_supersedes() -> None:
    """A set-valued key keeps its members, except those the proposal names in ``supersedes``."""
    proposal = item("ctx_p", Status.PROPOSED, key="owners[]", supersedes=("ctx_b",), evidence_refs=("e",))
    a, b = item("ctx_a", Status.CURRENT, key="owners[]"), item("ctx_b", Status.CURRENT, key="owners[]")

    done = state.promote(proposal, [a, b, proposal], evidence=("e",), operator="ops", item_id="ctx_n", now=10)

    assert [i.id for i in done.superseded] == ["ctx_b"]
    assert state.set_at([a, *done.superseded, done.item], 10) == [a, done.item]


def test_a_retry_is_the_same_change_whatever_became_of_the_proposal() -> None:
    """Status and validity are not compared; any asked field is."""
    asked = state.proposal("p", _change(), item_id="ctx_1", proposer="agt_1", origin=SourceType.PEER, now=7)
    closed = dataclasses.replace(asked, status=Status.REJECTED, valid_from=3, valid_until=9)

    assert state.same_change(closed, asked)
    assert not state.same_change(dataclasses.replace(asked, summary="eu-west-1"), asked)
    assert state.proposer_of(asked) == "agt_1"
