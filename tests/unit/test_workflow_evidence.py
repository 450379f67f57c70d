"""Peer evidence (workflow-context.md §2.5): send-side authorisation, cited refs, snapshots, quorum."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import pytest

from kxm_grpc.domain.messages import Delivery, Message, MessageState, WorkflowContext
from kxm_grpc.domain.workflows import evidence as ev
from kxm_grpc.domain.workflows.diversity import Dimension
from kxm_grpc.domain.workflows.evidence import (
    DegradationApproval,
    EligibleProducer,
    PeerEvidence,
    ResolvedPolicy,
)
from kxm_grpc.errors import FailedPrecondition, HubError, InvalidArgument, PermissionDenied, Reason

NOW = 1_767_225_600_000_000
SECOND = 1_000_000
RUN = "run_0123456789abcdef0123456789abcdef"
STAGE = "review"
KEY = "local review"
COORDINATOR = "agt_coord"
VISIT_START = NOW - 100 * SECOND

ALICE = EligibleProducer("agt_alice", "alice", provider="anthropic", model="claude-opus")
BOB = EligibleProducer("agt_bob", "bob", provider="openai", model="gpt-5")
CAROL = EligibleProducer("agt_carol", "carol", provider="anthropic", model="claude-sonnet")
POLICY = ResolvedPolicy(key=KEY, min_producers=2, eligible=(ALICE, BOB, CAROL), degraded_min_producers=1)
POLICIES = {KEY: POLICY}
MODELS = {"agt_alice": "claude-opus", "agt_bob": "gpt-5", "agt_carol": "claude-sonnet"}


def context(**overrides: Any) -> WorkflowContext:
    fields: dict[str, Any] = {"run_id": RUN, "stage_id": STAGE, "requirement_key": KEY, "attempt": 1}
    fields.update(overrides)
    return WorkflowContext(**fields)


# -- send side -------------------------------------------------------------------------------------


def authorise(ctx: WorkflowContext | None = None, **overrides: Any) -> None:
    fields: dict[str, Any] = {
        "run_id": RUN,
        "run_project": "alpha",
        "run_status": "running",
        "coordinator_id": COORDINATOR,
        "sender_id": COORDINATOR,
        "sender_project": "alpha",
        "current_stage": STAGE,
        "stage_status": "in_progress",
        "policies": POLICIES,
        "active_attempt": 1,
        "target_agent_id": "agt_bob",
    }
    fields.update(overrides)
    ev.authorise_context(ctx or context(), **fields)


def test_authorise_accepts_the_live_attempt() -> None:
    authorise()
    authorise(context(attempt=3, requirement_key="  Local   REVIEW "), active_attempt=3)


@pytest.mark.parametrize(
    ("overrides", "error", "reason"),
    [
        ({"sender_project": "beta"}, PermissionDenied, Reason.WORKFLOW_CONTEXT_FORBIDDEN),
        ({"sender_id": "agt_bob"}, PermissionDenied, Reason.WORKFLOW_CONTEXT_FORBIDDEN),
        ({"current_stage": "plan"}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"current_stage": None}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"run_status": "waiting"}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"run_status": "completed"}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"run_status": "failed"}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"stage_status": "waiting"}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"stage_status": "passed"}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"stage_status": "pending"}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_INACTIVE),
        ({"policies": {}}, InvalidArgument, Reason.WORKFLOW_EVIDENCE_POLICY_MISSING),
        ({"active_attempt": 2}, FailedPrecondition, Reason.WORKFLOW_CONTEXT_ATTEMPT_MISMATCH),
        ({"target_agent_id": "agt_mallory"}, PermissionDenied, Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN),
        ({"target_agent_id": COORDINATOR}, PermissionDenied, Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN),
    ],
)
def test_authorise_refusals(overrides: dict[str, Any], error: type[HubError], reason: Reason) -> None:
    with pytest.raises(error) as caught:
        authorise(**overrides)
    assert caught.value.reason is reason
    assert caught.value.metadata["runId"] == RUN


def test_authorise_checks_in_the_spec_order() -> None:
    """Everything wrong at once: each fix reveals the next check of §2.5, in order."""
    broken: dict[str, Any] = {
        "sender_project": "beta",
        "sender_id": "agt_bob",
        "current_stage": "plan",
        "run_status": "waiting",
        "stage_status": "waiting",
        "policies": {},
        "active_attempt": 2,
        "target_agent_id": "agt_mallory",
    }
    expected = [
        ("sender_project", Reason.WORKFLOW_CONTEXT_FORBIDDEN, "project"),
        ("sender_id", Reason.WORKFLOW_CONTEXT_FORBIDDEN, "coordinator"),
        ("current_stage", Reason.WORKFLOW_CONTEXT_INACTIVE, "current stage"),
        ("run_status", Reason.WORKFLOW_CONTEXT_INACTIVE, "run is waiting"),
        ("stage_status", Reason.WORKFLOW_CONTEXT_INACTIVE, "stage is waiting"),
        ("policies", Reason.WORKFLOW_EVIDENCE_POLICY_MISSING, "policy"),
        ("active_attempt", Reason.WORKFLOW_CONTEXT_ATTEMPT_MISMATCH, "attempt"),
        ("target_agent_id", Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN, "eligible"),
    ]
    good: dict[str, Any] = {
        "sender_project": "alpha",
        "sender_id": COORDINATOR,
        "current_stage": STAGE,
        "run_status": "running",
        "stage_status": "in_progress",
        "policies": POLICIES,
        "active_attempt": 1,
        "target_agent_id": "agt_bob",
    }
    for field, reason, text in expected:
        with pytest.raises(HubError) as caught:
            authorise(**broken)
        assert (caught.value.reason, text in caught.value.message) == (reason, True), field
        broken[field] = good[field]
    authorise(**broken)


def test_authorise_attempt_mismatch_names_both_attempts() -> None:
    with pytest.raises(FailedPrecondition) as caught:
        authorise(context(attempt=1), active_attempt=2)
    assert caught.value.metadata["attempt"] == "1"
    assert caught.value.metadata["activeAttempt"] == "2"
    assert caught.value.metadata["requirementKey"] == KEY


# -- parse_refs ------------------------------------------------------------------------------------


def refs_error(raw: dict[str, Any]) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        ev.parse_refs(raw)
    assert caught.value.reason is Reason.INVALID_WORKFLOW_EVIDENCE_REFS
    return caught.value


def test_parse_refs_canonicalises_keys_and_trims_ids() -> None:
    parsed = ev.parse_refs({"  Local   Review ": [" msg_1 ", "msg_2"], "GitHub.Check:CI": ("msg_3",)})
    assert parsed == {"local review": ("msg_1", "msg_2"), "github.check:ci": ("msg_3",)}


def test_parse_refs_limits_accepted() -> None:
    raw = {f"key {k}": [f"msg_{k}_{i}" for i in range(16)] for k in range(32)}
    parsed = ev.parse_refs(raw)
    assert len(parsed) == 32 and all(len(ids) == 16 for ids in parsed.values())
    assert ev.parse_refs({"k" * 128: ["m" * 80]}) == {"k" * 128: ("m" * 80,)}
    assert ev.parse_refs({}) == {}


def test_parse_refs_refuses_more_than_32_keys() -> None:
    refs_error({f"key {k}": [f"msg_{k}"] for k in range(33)})


@pytest.mark.parametrize("key", ["", "   ", "\u3000"])
def test_parse_refs_refuses_empty_keys(key: str) -> None:
    refs_error({key: ["msg_1"]})


def test_parse_refs_refuses_long_keys() -> None:
    error = refs_error({"k" * 129: ["msg_1"]})
    assert error.metadata["requirementKey"] == "k" * 128


def test_parse_refs_refuses_keys_equal_after_canonicalisation() -> None:
    error = refs_error({"Local Review": ["msg_1"], " local   review": ["msg_2"]})
    assert error.metadata["requirementKey"] == KEY


@pytest.mark.parametrize("ids", [[], [f"msg_{i}" for i in range(17)]])
def test_parse_refs_refuses_id_counts(ids: list[str]) -> None:
    error = refs_error({KEY: ids})
    assert error.metadata["requirementKey"] == KEY


@pytest.mark.parametrize("message_id", ["", "  ", "m" * 81, "msg\x00"])
def test_parse_refs_refuses_bad_ids(message_id: str) -> None:
    error = refs_error({KEY: ["msg_1", message_id]})
    assert error.metadata == {"field": f"evidence_refs[{KEY}].message_ids[1]", "requirementKey": KEY}


def test_parse_refs_refuses_duplicate_ids_within_a_key() -> None:
    error = refs_error({KEY: ["msg_1", " msg_1"]})
    assert (error.metadata["requirementKey"], error.metadata["messageId"]) == (KEY, "msg_1")


def test_parse_refs_refuses_duplicate_ids_across_the_batch() -> None:
    error = refs_error({KEY: ["msg_1", "msg_2"], "security review": ["msg_3", "msg_2"]})
    assert (error.metadata["requirementKey"], error.metadata["messageId"]) == ("security review", "msg_2")


# -- verify_refs -----------------------------------------------------------------------------------


def reply_message(**overrides: Any) -> Message:
    """A replied review request from the coordinator to bob, for the current visit and attempt."""
    message = Message(
        id="msg_bob",
        project="alpha",
        from_agent_id=COORDINATOR,
        from_agent_name="coordinator",
        to_agent_id="agt_bob",
        to_agent_name="bob",
        content="please review the plan (TOP-SECRET-REQUEST)",
        delivery=Delivery.FOLLOW_UP,
        hops=0,
        max_hops=5,
        correlation_id=RUN,
        reply_to="",
        idempotency_key="",
        seq=1,
        workflow_context=context(),
        create_time=NOW - 10 * SECOND,
        expire_time=NOW + 3600 * SECOND,
        state=MessageState.REPLIED,
        deliver_time=NOW - 9 * SECOND,
        end_time=NOW - 5 * SECOND,
        reply_content="looks good (TOP-SECRET-REPLY)",
        reply_time=NOW - 5 * SECOND,
    )
    return replace(message, **overrides)


def verify(
    refs: dict[str, tuple[str, ...]] | None = None, messages: list[Message] | None = None, **overrides: Any
) -> dict[str, tuple[PeerEvidence, ...]]:
    stored = messages if messages is not None else [reply_message()]
    fields: dict[str, Any] = {
        "messages": {m.id: m for m in stored},
        "run_id": RUN,
        "run_project": "alpha",
        "coordinator_id": COORDINATOR,
        "stage_id": STAGE,
        "visit": 2,
        "visit_start_time": VISIT_START,
        "active_attempt": 1,
        "policies": POLICIES,
        "agent_models": MODELS,
        "now": NOW,
    }
    fields.update(overrides)
    return ev.verify_refs(refs if refs is not None else {KEY: ("msg_bob",)}, **fields)


def provenance_error(message: Message, check: str, **overrides: Any) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        verify({KEY: (message.id,)}, [message], **overrides)
    error = caught.value
    assert error.reason is Reason.WORKFLOW_PROVENANCE_INVALID
    assert error.metadata == {"messageId": message.id, "requirementKey": KEY}
    assert check in error.message
    assert "TOP-SECRET" not in error.message + repr(error.metadata)
    return error


def test_verify_builds_metadata_only_snapshots() -> None:
    message = reply_message()
    (snapshot,) = verify()[KEY]
    assert snapshot == PeerEvidence(
        message_id="msg_bob",
        producer_id="agt_bob",
        producer_name="bob",
        run_id=RUN,
        stage_id=STAGE,
        requirement_key=KEY,
        visit=2,
        attempt=1,
        request_sha256=hashlib.sha256(message.content.encode()).hexdigest(),
        reply_sha256=hashlib.sha256(b"looks good (TOP-SECRET-REPLY)").hexdigest(),
        create_time=NOW - 10 * SECOND,
        deliver_time=NOW - 9 * SECOND,
        reply_time=NOW - 5 * SECOND,
        verify_time=NOW,
    )


def test_verify_hashes_utf8_and_keeps_order() -> None:
    alice = reply_message(
        id="msg_alice", to_agent_id="agt_alice", to_agent_name="alice", content="é", reply_content="ü"
    )
    result = verify({KEY: ("msg_bob", "msg_alice")}, [reply_message(), alice])
    assert [s.message_id for s in result[KEY]] == ["msg_bob", "msg_alice"]
    assert result[KEY][1].request_sha256 == hashlib.sha256("é".encode()).hexdigest()
    assert result[KEY][1].reply_sha256 == hashlib.sha256("ü".encode()).hexdigest()


def test_verify_accepts_an_undelivered_reply_and_equal_times() -> None:
    """A reply without an acknowledgement (deliver_time None) is coherent; equal times are too."""
    assert verify(messages=[reply_message(deliver_time=None)])[KEY][0].deliver_time is None
    same = NOW - SECOND
    verify(messages=[reply_message(create_time=same, deliver_time=same, reply_time=same, end_time=same)])
    verify(messages=[reply_message(create_time=VISIT_START)])


def test_verify_policy_missing() -> None:
    with pytest.raises(InvalidArgument) as caught:
        verify({"other": ("msg_bob",)})
    assert caught.value.reason is Reason.WORKFLOW_EVIDENCE_POLICY_MISSING
    assert caught.value.metadata["requirementKey"] == "other"
    assert caught.value.metadata["stageId"] == STAGE


def test_verify_missing_message() -> None:
    with pytest.raises(InvalidArgument) as caught:
        verify({KEY: ("msg_gone",)})
    assert caught.value.reason is Reason.WORKFLOW_PROVENANCE_INVALID
    assert caught.value.metadata == {"messageId": "msg_gone", "requirementKey": KEY}
    assert "no such message" in caught.value.message


def refused(message_id: str, messages: list[Message]) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        verify({KEY: (message_id,)}, messages)
    return caught.value


def answer(error: InvalidArgument) -> tuple[object, ...]:
    return (type(error), error.status, error.reason, error.message, error.metadata, error.field_violations)


@pytest.mark.parametrize(
    "overrides",
    [
        {},  # every other check would pass
        {"workflow_context": None},
        {"workflow_context": context(run_id="run_other")},
        {"workflow_context": context(stage_id="plan")},
        {"workflow_context": context(attempt=2)},
        {"create_time": VISIT_START - 1},
        {"from_agent_id": "agt_alice", "state": MessageState.QUEUED},
    ],
)
def test_verify_another_projects_message_answers_as_a_missing_one(overrides: dict[str, Any]) -> None:
    """Citing another project's message id is refused before any check of what its record says, with
    the answer an unknown id gets (reason, message, metadata): the cite side cannot probe ids."""
    foreign = reply_message(project="beta", **overrides)
    error = refused(foreign.id, [foreign])
    assert answer(error) == answer(refused(foreign.id, []))
    assert error.reason is Reason.WORKFLOW_PROVENANCE_INVALID
    assert error.metadata == {"messageId": foreign.id, "requirementKey": KEY}
    assert "no such message" in error.message
    assert "beta" not in error.message + repr(error.metadata)


@pytest.mark.parametrize(
    ("overrides", "check"),
    [
        ({"workflow_context": None}, "not sent with a workflow context"),
        ({"workflow_context": context(run_id="run_other")}, "another run"),
        ({"workflow_context": context(stage_id="plan")}, "another stage"),
        ({"workflow_context": context(requirement_key="security review")}, "another requirement"),
        ({"workflow_context": context(attempt=2)}, "attempt 2, the active attempt is 1"),
        ({"create_time": VISIT_START - 1}, "before the current visit"),
        ({"from_agent_id": "agt_alice"}, "not sent by the run's coordinator"),
        ({"to_agent_id": COORDINATOR}, "sent to the run's coordinator"),
        ({"to_agent_id": "agt_mallory"}, "not an eligible producer"),
        ({"correlation_id": ""}, "correlation id"),
        ({"correlation_id": "run_other"}, "correlation id"),
        ({"state": MessageState.DELIVERED, "reply_content": None, "reply_time": None}, "delivered, not replied"),
        ({"state": MessageState.QUEUED}, "queued, not replied"),
        ({"state": MessageState.CANCELLED}, "cancelled, not replied"),
        ({"state": MessageState.EXPIRED}, "expired, not replied"),
        ({"reply_content": None}, "reply is empty"),
        ({"reply_content": " \n\u3000 "}, "reply is empty"),
        ({"reply_time": None}, "timestamps are incoherent"),
        ({"deliver_time": NOW - 11 * SECOND}, "timestamps are incoherent"),
        ({"deliver_time": NOW - 4 * SECOND}, "timestamps are incoherent"),
        ({"deliver_time": None, "reply_time": NOW - 11 * SECOND}, "timestamps are incoherent"),
    ],
)
def test_verify_provenance_checks(overrides: dict[str, Any], check: str) -> None:
    provenance_error(reply_message(**overrides), check)


def test_verify_active_attempt_is_the_callers() -> None:
    """A message for attempt 1 does not count at attempt 2; one for attempt 2 does."""
    provenance_error(reply_message(), "attempt 1, the active attempt is 2", active_attempt=2)
    (snapshot,) = verify(messages=[reply_message(workflow_context=context(attempt=2))], active_attempt=2)[KEY]
    assert (snapshot.visit, snapshot.attempt) == (2, 2)


def test_verify_an_older_visit_never_revives() -> None:
    """After a back-edge the attempt number restarts at 1: the earlier visit's reply, same context and
    attempt, is refused because it was created before the visit began."""
    old = reply_message(create_time=VISIT_START - 50 * SECOND, deliver_time=None, reply_time=VISIT_START - SECOND)
    provenance_error(old, "before the current visit")


def test_verify_context_key_compared_canonically() -> None:
    verify(messages=[reply_message(workflow_context=context(requirement_key=" Local  Review"))])


@pytest.mark.parametrize("registered", [None, "claude-opus", "gpt-4o"])
def test_verify_model_check_only_when_declared(registered: str | None) -> None:
    undeclared = ResolvedPolicy(key=KEY, min_producers=1, eligible=(EligibleProducer("agt_bob", "bob"),))
    models = {} if registered is None else {"agt_bob": registered}
    verify(policies={KEY: undeclared}, agent_models=models)


@pytest.mark.parametrize("models", [{"agt_bob": "gpt-4o"}, {}, {"agt_alice": "gpt-5"}])
def test_verify_registered_model_must_match_the_declaration(models: dict[str, str]) -> None:
    provenance_error(reply_message(), "registered model disagrees with the operator's declaration", agent_models=models)


def test_verify_model_compared_case_and_space_insensitively() -> None:
    verify(agent_models={"agt_bob": " GPT-5 "})


def test_verify_first_failure_refuses_the_batch() -> None:
    alice = reply_message(id="msg_alice", to_agent_id="agt_alice", to_agent_name="alice", project="beta")
    with pytest.raises(InvalidArgument) as caught:
        verify({KEY: ("msg_bob", "msg_alice")}, [reply_message(), alice])
    assert caught.value.metadata["messageId"] == "msg_alice"


# -- merge -----------------------------------------------------------------------------------------


def snapshot(producer: EligibleProducer = BOB, **overrides: Any) -> PeerEvidence:
    fields: dict[str, Any] = {
        "message_id": f"msg_{producer.name}",
        "producer_id": producer.agent_id,
        "producer_name": producer.name,
        "run_id": RUN,
        "stage_id": STAGE,
        "requirement_key": KEY,
        "visit": 2,
        "attempt": 1,
        "request_sha256": "a" * 64,
        "reply_sha256": "b" * 64,
        "create_time": NOW - 10 * SECOND,
        "deliver_time": NOW - 9 * SECOND,
        "reply_time": NOW - 5 * SECOND,
        "verify_time": NOW,
    }
    fields.update(overrides)
    return PeerEvidence(**fields)


def test_merge_snapshots_deduplicates_by_message_id() -> None:
    first = snapshot(verify_time=NOW)
    again = snapshot(verify_time=NOW + SECOND)
    alice = snapshot(ALICE)
    assert ev.merge_snapshots([first], [again, alice]) == (first, alice)
    assert ev.merge_snapshots([], [alice, alice]) == (alice,)
    assert ev.merge_snapshots((first, alice), ()) == (first, alice)


# -- quorum ----------------------------------------------------------------------------------------


def status(
    snapshots: list[PeerEvidence],
    policy: ResolvedPolicy = POLICY,
    approval: DegradationApproval | None = None,
    **overrides: Any,
) -> ev.QuorumStatus:
    fields: dict[str, Any] = {"stage_id": STAGE, "visit": 2, "attempt": 1, "approval": approval}
    fields.update(overrides)
    return ev.quorum(policy, snapshots, **fields)


def test_quorum_counts_distinct_eligible_producers() -> None:
    assert status([]) == ev.QuorumStatus(key=KEY, counted=0, required=2, met=False, degraded=False)
    assert status([snapshot(BOB)]).counted == 1
    # The same producer twice (two replies) counts once.
    assert status([snapshot(BOB), snapshot(BOB, message_id="msg_bob_2")]).counted == 1
    met = status([snapshot(BOB), snapshot(ALICE)])
    assert (met.counted, met.required, met.met, met.degraded) == (2, 2, True, False)


@pytest.mark.parametrize(
    "overrides",
    [
        {"stage_id": "plan"},
        {"visit": 1},
        {"attempt": 2},
        {"requirement_key": "security review"},
        {"producer_id": "agt_mallory"},
        {"request_sha256": "A" * 64},
        {"reply_sha256": "b" * 63},
        {"reply_sha256": "sha256:" + "b" * 64},
        {"request_sha256": "g" * 64},
        {"reply_sha256": "b" * 64 + "\n"},
        {"reply_time": NOW - 20 * SECOND},
        {"deliver_time": NOW - 20 * SECOND},
    ],
    ids=[
        "other-stage",
        "earlier-visit",
        "other-attempt",
        "other-key",
        "ineligible",
        "upper-hex",
        "short-hash",
        "prefixed-hash",
        "non-hex",
        "trailing-newline",
        "reply-before-create",
        "deliver-before-create",
    ],
)
def test_quorum_ignores_snapshots_that_do_not_count(overrides: dict[str, Any]) -> None:
    assert status([snapshot(ALICE), snapshot(BOB, **overrides)]).counted == 1


def test_quorum_snapshots_from_an_earlier_visit_never_count() -> None:
    """Same attempt number, earlier visit (before a back-edge): nothing counts."""
    earlier = [snapshot(ALICE, visit=1), snapshot(BOB, visit=1)]
    assert status(earlier).counted == 0
    assert status(earlier, visit=1).counted == 2


def distinct(policy: ResolvedPolicy, *dimensions: Dimension) -> ResolvedPolicy:
    return replace(policy, distinct_by=dimensions)


def test_quorum_distinct_by_provider_counts_a_provider_once() -> None:
    """Two reviewers of the same provider (alice and carol, both anthropic) count once."""
    policy = distinct(POLICY, Dimension.PROVIDER)
    same_provider = status([snapshot(ALICE), snapshot(CAROL)], policy)
    assert (same_provider.counted, same_provider.met) == (1, False)
    assert status([snapshot(ALICE), snapshot(CAROL), snapshot(BOB)], policy).counted == 2


def test_quorum_distinct_by_uses_operator_declarations_normalised() -> None:
    a = EligibleProducer("agt_a", "a", provider="Anthropic")
    b = EligibleProducer("agt_b", "b", provider=" anthropic ")
    c = EligibleProducer("agt_c", "c")  # undeclared: cannot be shown distinct, so not counted
    policy = ResolvedPolicy(key=KEY, min_producers=1, eligible=(a, b, c), distinct_by=(Dimension.PROVIDER,))
    assert status([snapshot(a), snapshot(b), snapshot(c)], policy).counted == 1
    assert status([snapshot(c)], policy).counted == 0
    # Without distinct_by declarations do not matter.
    assert status([snapshot(a), snapshot(b), snapshot(c)], distinct(policy)).counted == 3


def test_quorum_distinct_by_model() -> None:
    twin = EligibleProducer("agt_twin", "twin", provider="other-host", model="claude-opus")
    policy = ResolvedPolicy(key=KEY, min_producers=2, eligible=(ALICE, BOB, twin), distinct_by=(Dimension.MODEL,))
    assert status([snapshot(ALICE), snapshot(twin)], policy).counted == 1
    assert status([snapshot(ALICE), snapshot(twin), snapshot(BOB)], policy).counted == 2


def producer(name: str, provider: str, model: str) -> EligibleProducer:
    return EligibleProducer(f"agt_{name}", name, provider=provider, model=model)


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        # (provider, model) per producer → the largest set distinct in both.
        ([("p1", "m1"), ("p1", "m2"), ("p2", "m1")], 2),  # greedy p1-m1 blocks p2: needs an augmenting path
        ([("p1", "m1"), ("p2", "m1")], 1),  # same model
        ([("p1", "m1"), ("p1", "m2")], 1),  # same provider
        ([("p1", "m1"), ("p1", "m1")], 1),  # identical declarations
        ([("p1", "m1"), ("p2", "m2"), ("p3", "m3")], 3),
        ([("p1", "m1"), ("p1", "m2"), ("p1", "m3"), ("p2", "m1"), ("p3", "m1")], 2),  # a star on each side
        ([("p1", "m1"), ("p1", "m2"), ("p2", "m2"), ("p2", "m3"), ("p3", "m3"), ("p3", "m1")], 3),  # a cycle
    ],
)
def test_quorum_distinct_by_provider_and_model_is_a_matching(declared: list[tuple[str, str]], expected: int) -> None:
    producers = tuple(producer(f"x{i}", p, m) for i, (p, m) in enumerate(declared))
    policy = ResolvedPolicy(
        key=KEY, min_producers=1, eligible=producers, distinct_by=(Dimension.PROVIDER, Dimension.MODEL)
    )
    snapshots = [snapshot(p) for p in producers]
    assert status(snapshots, policy).counted == expected
    # The order of the dimensions and of the snapshots changes nothing.
    flipped = replace(policy, distinct_by=(Dimension.MODEL, Dimension.PROVIDER))
    assert status(list(reversed(snapshots)), flipped).counted == expected


def test_quorum_provider_and_model_missing_declaration_not_counted() -> None:
    half = EligibleProducer("agt_half", "half", provider="p9")
    policy = ResolvedPolicy(
        key=KEY, min_producers=1, eligible=(ALICE, half), distinct_by=(Dimension.PROVIDER, Dimension.MODEL)
    )
    assert status([snapshot(ALICE), snapshot(half)], policy).counted == 1


def approval(**overrides: Any) -> DegradationApproval:
    fields: dict[str, Any] = {
        "id": "approval_1",
        "stage_id": STAGE,
        "requirement_key": KEY,
        "visit": 2,
        "attempt": 1,
        "policy_min_producers": 2,
        "approved_min_producers": 1,
        "approved_by": "admin",
        "reason": "bob is on leave",
        "approve_time": NOW,
    }
    fields.update(overrides)
    return DegradationApproval(**fields)


def test_quorum_approval_lowers_the_minimum_and_marks_degraded() -> None:
    degraded = status([snapshot(BOB)], approval=approval())
    assert degraded == ev.QuorumStatus(key=KEY, counted=1, required=1, met=True, degraded=True)
    # Quorum reached anyway: met, not degraded.
    full = status([snapshot(BOB), snapshot(ALICE)], approval=approval())
    assert (full.required, full.met, full.degraded) == (1, True, False)
    # Below even the approved minimum: not met, not degraded.
    none = status([], approval=approval())
    assert (none.required, none.met, none.degraded) == (1, False, False)


@pytest.mark.parametrize(
    "overrides",
    [{"attempt": 2}, {"visit": 1}, {"stage_id": "plan"}, {"requirement_key": "security review"}],
    ids=["wrong-attempt", "earlier-visit", "other-stage", "other-key"],
)
def test_quorum_approval_elsewhere_does_not_count(overrides: dict[str, Any]) -> None:
    result = status([snapshot(BOB)], approval=approval(**overrides))
    assert (result.required, result.met, result.degraded) == (2, False, False)


def test_quorum_approval_needs_a_policy_that_allows_degradation() -> None:
    strict = replace(POLICY, degraded_min_producers=None)
    result = status([snapshot(BOB)], strict, approval=approval())
    assert (result.required, result.met, result.degraded) == (2, False, False)


def test_quorum_approval_never_below_the_policys_degraded_minimum() -> None:
    policy = replace(POLICY, min_producers=3, degraded_min_producers=2)
    result = status([snapshot(BOB)], policy, approval=approval(approved_min_producers=1))
    assert (result.required, result.met) == (2, False)
    result = status([snapshot(BOB), snapshot(ALICE)], policy, approval=approval(approved_min_producers=1))
    assert (result.required, result.met, result.degraded) == (2, True, True)


def test_quorum_with_distinct_by_and_approval() -> None:
    """Two anthropic reviewers under distinct_by provider count once; an approval to one is degraded."""
    policy = distinct(POLICY, Dimension.PROVIDER)
    result = status([snapshot(ALICE), snapshot(CAROL)], policy, approval=approval())
    assert (result.counted, result.required, result.met, result.degraded) == (1, 1, True, True)


def test_verified_snapshots_satisfy_quorum_end_to_end() -> None:
    """verify_refs output feeds quorum; a second checkpoint merges without double counting."""
    alice = reply_message(id="msg_alice", to_agent_id="agt_alice", to_agent_name="alice")
    first = verify({KEY: ("msg_bob",)}, [reply_message()])[KEY]
    second = verify({KEY: ("msg_bob", "msg_alice")}, [reply_message(), alice], now=NOW + SECOND)[KEY]
    merged = ev.merge_snapshots(first, second)
    assert [s.message_id for s in merged] == ["msg_bob", "msg_alice"]
    assert merged[0].verify_time == NOW
    assert status(list(merged)).met
    assert not status(list(merged), attempt=2).met
