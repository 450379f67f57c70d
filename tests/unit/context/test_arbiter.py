"""The context arbiter: seed 004's examples, pins 15, 16 and 19, eligibility, the ordering keys,
first-fit, gaps, sections, the audit and determinism (kxm_grpc/domain/context/arbiter.py,
documents.py, policies.py, request.py; spec §5.2, §5.4, §5.5)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kxm_grpc.domain.context import documents
from kxm_grpc.domain.context.arbiter import arbitrate, rank_key
from kxm_grpc.domain.context.items import Authority, Confidence, ContextItem, Kind, Status
from kxm_grpc.domain.context.policies import role_for_agent, role_policy
from kxm_grpc.domain.context.request import ContextRequest
from kxm_grpc.errors import InvalidArgument, PermissionDenied, Reason
from tests.unit.context.helpers import PROJECT, item

SEED_POOL = (
    item("e_aaa", "docs build is slow"),
    item("e_zzz", "flaky playwright gate fails on first run"),
    item("k_mmm", "playwright gate owner is QA", Kind.KNOWLEDGE),
)


def ask(task: str, role: str = "verifier", **fields: object) -> ContextRequest:
    return ContextRequest(PROJECT, role, task, **fields)  # type: ignore[arg-type]


def test_seed_004_the_flaky_playwright_task_ranks_matched_items_first() -> None:
    # Execute
    outcome = arbitrate(ask("verify the flaky playwright gate fix"), SEED_POOL)
    # Assert
    audit = outcome.audit
    assert audit.selected_ids == ("e_zzz", "k_mmm", "e_aaa")
    assert [i.id for i in outcome.packet.evidence] == ["e_zzz", "e_aaa"]
    assert [i.id for i in outcome.packet.knowledge] == ["k_mmm"]
    assert audit.task_tokens == 5
    assert audit.matched_candidates == 2
    first, second, last = audit.selected_relevance
    assert first > second > last == 0
    assert audit.selected_relevance == (1.66, 0.971, 0.0)


def test_seed_004_the_task_verify_falls_back_to_kind_then_id() -> None:
    outcome = arbitrate(ask("verify"), SEED_POOL)
    assert outcome.audit.selected_ids == ("e_aaa", "e_zzz", "k_mmm")
    assert outcome.audit.matched_candidates == 0


def test_two_equal_items_differing_only_in_time_rank_newest_first() -> None:
    old, new = item("j_1", observed_at=1_000), item("j_2", observed_at=2_000)
    undated = item("j_0")
    assert arbitrate(ask("verify"), [old, undated, new]).audit.selected_ids == ("j_2", "j_1", "j_0")
    by_valid_from = item("j_3", valid_from=3_000, kind=Kind.EVIDENCE)
    assert arbitrate(ask("verify"), [old, by_valid_from]).audit.selected_ids == ("j_3", "j_1")


@pytest.mark.parametrize(
    ("role", "budget"),
    [("repro", 8_000), ("planner", 16_000), ("critic", 12_000), ("implementer", 16_000), ("verifier", 8_000)],
)
def test_pin_15_role_budgets(role: str, budget: int) -> None:
    assert arbitrate(ask("x", role), SEED_POOL).audit.budget_tokens == budget
    assert role_policy(role).budget_tokens == budget


def test_pin_15_an_unknown_role_gets_32000_tokens_knowledge_then_evidence() -> None:
    outcome = arbitrate(ask("verify", "gardener"), SEED_POOL)
    assert outcome.audit.budget_tokens == 32_000
    assert outcome.audit.selected_ids == ("k_mmm", "e_aaa", "e_zzz")


def test_pin_15_superseded_and_rejected_items_are_excluded_and_counted() -> None:
    pool = [*SEED_POOL, item("e_old", status=Status.SUPERSEDED), item("e_no", status=Status.REJECTED)]
    audit = arbitrate(ask("verify"), pool).audit
    assert audit.excluded_superseded == 2
    assert audit.candidate_count == 3
    assert "e_old" not in audit.selected_ids


def test_pin_15_identical_inputs_give_byte_identical_packet_and_audit() -> None:
    first = documents.outcome_bytes(arbitrate(ask("flaky gate"), SEED_POOL))
    again = documents.outcome_bytes(arbitrate(ask("flaky gate"), list(SEED_POOL)))
    assert first == again
    assert (
        b"docs build is slow"
        not in documents.canonical_json(
            documents.audit_document(arbitrate(ask("flaky gate"), SEED_POOL).audit)
        ).encode()
    )


def test_pin_16_a_3900_character_item_is_deferred_under_a_512_budget_and_the_small_one_selected() -> None:
    # Prepare: the big item ranks first (task-matched) but does not fit
    big, small = item("e_big", "flaky " + "x" * 3_894), item("e_small", "short note")
    # Execute
    outcome = arbitrate(ask("flaky", budget_tokens=512), [small, big])
    # Assert
    assert outcome.audit.selected_ids == ("e_small",)
    assert outcome.audit.deferred_ids == ("e_big",)
    assert outcome.packet.unresolved_gaps == ("budget of 512 tokens reached; 1 candidates deferred",)


def test_pin_16_only_an_oversized_item_gives_the_cannot_fit_gap() -> None:
    outcome = arbitrate(ask("x", budget_tokens=512), [item("e_big", "x" * 3_900)])
    assert outcome.audit.selected_ids == ()
    assert outcome.packet.unresolved_gaps == ("budget of 512 tokens cannot fit any selected context",)


def test_first_fit_skips_an_item_that_does_not_fit_and_keeps_filling() -> None:
    # 512 tokens = 2,048 code units: a (1,200) fits, b (1,200) does not, c (100) still does
    a, b, c = item("a", "x" * 1_200), item("b", "x" * 1_200), item("c", "x" * 100)
    outcome = arbitrate(ask("x", budget_tokens=512), [a, b, c])
    assert outcome.audit.selected_ids == ("a", "c")
    assert outcome.audit.estimated_tokens <= 512


def test_an_empty_pool_reports_no_records() -> None:
    outcome = arbitrate(ask("x"), [])
    assert outcome.packet.unresolved_gaps == ("no context records exist for this project yet",)
    assert outcome.audit.estimated_tokens == 0


def test_the_item_limit_stops_at_256_with_its_gap() -> None:
    pool = [item(f"e{i:03d}", "n") for i in range(300)]
    outcome = arbitrate(ask("x", budget_tokens=200_000), pool)
    assert len(outcome.audit.selected_ids) == 256
    assert outcome.packet.unresolved_gaps == ("context item limit reached; refine the task or kinds",)


def test_pin_19_a_cross_project_item_fails_closed() -> None:
    with pytest.raises(PermissionDenied, match="cross-project") as error:
        arbitrate(ask("x"), [*SEED_POOL, item("b_1", project="beta")])
    assert error.value.reason == Reason.CONTEXT_ISOLATION_VIOLATION


def test_pin_19_shared_defaults_are_allowed_and_rank_after_the_projects_item() -> None:
    shared = item("a_shared", "flaky gate policy", project="_shared", confidence=Confidence.VERIFIED)
    own = item("z_own", "flaky gate note")
    outcome = arbitrate(ask("flaky gate"), [shared, own])
    assert outcome.audit.selected_ids == ("z_own", "a_shared")
    assert [r.shared for r in outcome.audit.reasons] == [False, True]


def test_inert_proposals_never_consume_budget() -> None:
    proposed_state = item("s_p", kind=Kind.STATE, state_key="ci", status=Status.PROPOSED)
    current_state = item("s_c", kind=Kind.STATE, state_key="ci", status=Status.CURRENT)
    proposed_skill = item("k_p", kind=Kind.SKILL, status=Status.PROPOSED)
    promoted_skill = item("k_s", kind=Kind.SKILL, status=Status.CURRENT)
    outcome = arbitrate(ask("x", "implementer"), [proposed_state, current_state, proposed_skill, promoted_skill])
    assert outcome.audit.selected_ids == ("s_c", "k_s")
    assert [i.id for i in outcome.packet.current_state] == ["s_c"]
    assert [i.id for i in outcome.packet.skills] == ["k_s"]
    assert outcome.audit.candidate_count == 4


def test_open_contradictions_rank_first_in_their_own_section_even_of_unrequested_kinds() -> None:
    conflict = item("s_x", kind=Kind.STATE, state_key="ci", status=Status.PROPOSED)
    outcome = arbitrate(ask("flaky playwright"), [*SEED_POOL, conflict], contradiction_ids={"s_x", "missing"})
    assert outcome.audit.selected_ids[0] == "s_x"
    assert [i.id for i in outcome.packet.contradictions] == ["s_x"]
    assert outcome.packet.current_state == ()


def test_every_selected_item_is_in_exactly_one_section() -> None:
    pool = [
        *SEED_POOL,
        item("s_c", kind=Kind.STATE, state_key="ci", status=Status.CURRENT),
        item("p_1", kind=Kind.EPISODE),
        item("k_s", kind=Kind.SKILL, status=Status.CURRENT),
    ]
    kinds = (Kind.EVIDENCE, Kind.KNOWLEDGE, Kind.STATE, Kind.EPISODE, Kind.SKILL)
    outcome = arbitrate(ask("x", include_kinds=kinds), pool, contradiction_ids={"e_aaa"})
    packet = outcome.packet
    sections = [packet.contradictions, packet.current_state, packet.knowledge, packet.evidence]
    placed = [i.id for section in [*sections, packet.episodes, packet.skills] for i in section]
    assert sorted(placed) == sorted(outcome.audit.selected_ids)
    assert len(placed) == len(set(placed)) == 6


def test_include_kinds_replaces_the_roles_kinds_and_their_order() -> None:
    outcome = arbitrate(ask("verify", include_kinds=(Kind.KNOWLEDGE,)), SEED_POOL)
    assert outcome.audit.selected_ids == ("k_mmm",)


def test_confidence_then_authority_then_recency_break_ties() -> None:
    pool = [
        item("a", confidence=Confidence.UNCERTAIN),
        item("b", authority=Authority.HYPOTHESIS),
        item("c", confidence=Confidence.VERIFIED),
        item("d", observed_at=5),
    ]
    assert arbitrate(ask("x"), pool).audit.selected_ids == ("c", "d", "b", "a")


def test_ids_tie_break_by_utf16_code_units_with_astral_characters() -> None:
    astral, bmp = item("e_\U0001f600"), item("e_\ufffd")
    assert arbitrate(ask("x"), [bmp, astral]).audit.selected_ids == ("e_\U0001f600", "e_\ufffd")


def test_the_rank_key_is_total_even_for_ids_equal_in_code_units() -> None:
    # Prepare: only an item check_item never saw can spell a pair as two surrogate code points
    pair, astral = item("e_\ud83d\ude00"), item("e_\U0001f600")

    def key(entry: ContextItem) -> object:
        return rank_key(entry, project=PROJECT, contradiction=False, kind_rank=0, score=0.0)

    # Execute / Assert
    assert key(pair) != key(astral)
    assert sorted([pair, astral], key=key) == sorted([astral, pair], key=key) == [pair, astral]


@pytest.mark.parametrize("project", [PROJECT, "_shared"])
def test_a_pool_with_one_id_twice_in_one_project_is_refused(project: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        arbitrate(ask("x"), [item("a", project=project), item("a", "other", project=project)])
    assert error.value.reason == Reason.INVALID_CONTEXT_ITEM


@pytest.mark.parametrize("status", [None, Status.SUPERSEDED])
def test_the_projects_item_shadows_the_shared_default_with_the_same_id(status: Status | None) -> None:
    # Prepare: the store keys items on (project, id), so both may exist
    default = item("k_gate", "flaky gate owner is QA", Kind.KNOWLEDGE, project="_shared")
    own = item("k_gate", "flaky gate owner is infra", Kind.KNOWLEDGE, status=status)
    other = item("e_1", "flaky gate")
    # Execute
    outcome = arbitrate(ask("flaky gate"), [default, other, own])
    # Assert: the default left the pool before counting; the project's item stands in its place
    audit = outcome.audit
    assert audit.candidate_count == (2 if status is None else 1)
    assert audit.excluded_superseded == (0 if status is None else 1)
    assert "_shared" not in [i.project for i in outcome.packet.knowledge]
    assert audit.selected_ids == (("e_1", "k_gate") if status is None else ("e_1",))
    assert [r.shared for r in audit.reasons] == [False] * len(audit.selected_ids)


@pytest.mark.parametrize(
    "fields",
    [
        {"budget_tokens": 511},
        {"budget_tokens": 200_001},
        {"include_kinds": ()},
        {"include_kinds": (Kind.EVIDENCE, Kind.EVIDENCE)},
        {"task": " "},
        {"task": "t" * 2_001},
        {"role": "r" * 65},
        {"project": "_shared"},
        {"workflow_run_id": "r" * 129},
        {"task": "a\x00b"},
        {"task": "flaky \ud800"},
        {"role": "critic\udfff"},
        {"stage_id": "s\ud83d"},
    ],
)
def test_an_invalid_request_is_refused_with_invalid_context_request(fields: dict[str, object]) -> None:
    request = dataclasses.replace(ask("x"), **fields)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument) as error:
        arbitrate(request, SEED_POOL)
    assert error.value.reason == Reason.INVALID_CONTEXT_REQUEST


def test_a_request_keeps_control_characters_other_than_nul_as_items_do() -> None:
    task = "fix \x1b[31mFAIL\x1b[0m gate"
    assert arbitrate(ask(task), SEED_POOL).audit.request.task == task


def test_the_audit_echoes_run_and_stage_and_holds_no_bodies() -> None:
    outcome = arbitrate(ask("flaky", workflow_run_id="run_1", stage_id="verify"), SEED_POOL)
    audit = documents.audit_document(outcome.audit)
    assert audit["request"] == {
        "project": PROJECT,
        "role": "verifier",
        "task": "flaky",
        "workflowRunId": "run_1",
        "stageId": "verify",
    }
    text = documents.canonical_json(audit)
    assert all(i.summary not in text for i in SEED_POOL)
    assert audit["provenanceSummary"] == {"tool": 3}


def test_the_packet_id_is_derived_from_content() -> None:
    one = documents.packet_id(arbitrate(ask("flaky"), SEED_POOL))
    assert one == documents.packet_id(arbitrate(ask("flaky"), SEED_POOL[::-1]))
    assert one != documents.packet_id(arbitrate(ask("gate"), SEED_POOL))
    assert one.startswith("ctxpkt_") and len(one) == len("ctxpkt_") + 16


def test_working_state_is_delivered_verbatim() -> None:
    state = {"run": "run_1", "attempt": 2, "nested": {"b": [1, 2.5]}}
    outcome = arbitrate(ask("x"), SEED_POOL, working_state=state)
    assert documents.packet_document(outcome.packet)["workingState"] == state


def test_role_for_agent_takes_the_exact_role_else_a_prefix_else_the_id() -> None:
    assert role_for_agent("critic") == "critic"
    assert role_for_agent("critic-2") == "critic"
    assert role_for_agent("gardener") == "gardener"


_WORDS = ["flaky", "gate", "docs", "playwright", "owner", "slow", "retries", "ci"]
_items = st.builds(
    lambda n, words, kind, conf, when, shared: item(
        f"i{n}\U0001f600" if n % 7 == 0 else f"i{n}",
        " ".join(words) or "empty",
        kind,
        confidence=conf,
        observed_at=when,
        project="_shared" if shared else PROJECT,
    ),
    st.integers(0, 10_000),
    st.lists(st.sampled_from(_WORDS), max_size=6),
    st.sampled_from([Kind.EVIDENCE, Kind.KNOWLEDGE, Kind.EPISODE]),
    st.sampled_from(list(Confidence)),
    st.one_of(st.none(), st.integers(0, 3)),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(
    pool=st.lists(_items, max_size=25, unique_by=lambda i: i.id),
    seed=st.randoms(use_true_random=False),
    budget=st.integers(512, 700),
)
def test_any_insertion_order_gives_a_byte_identical_packet_and_audit(
    pool: list[ContextItem], seed: object, budget: int
) -> None:
    # Prepare
    shuffled = list(pool)
    seed.shuffle(shuffled)  # type: ignore[attr-defined]
    request = ask("flaky gate retry ci", "critic", budget_tokens=budget)
    contradictions = {i.id for i in pool[:2]}
    # Execute
    first = arbitrate(request, pool, contradiction_ids=contradictions)
    second = arbitrate(request, shuffled, contradiction_ids=list(contradictions)[::-1])
    # Assert
    assert documents.outcome_bytes(first) == documents.outcome_bytes(second)
