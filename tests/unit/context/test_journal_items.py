"""The automatic pool's mappings: journal entries and verified peer replies as context items
(spec §5.10, §10 pin 21, map rule 25), and which contradictions a run leaves open."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kxm_grpc.domain.context import journal_items
from kxm_grpc.domain.context.arbiter import arbitrate
from kxm_grpc.domain.context.items import Authority, Confidence, Kind, Scope, SourceType, Status
from kxm_grpc.domain.context.journal_items import (
    entry_id_of,
    journal_evidence_refs,
    journal_item,
    open_contradictions,
    peer_evidence_item,
)
from kxm_grpc.domain.context.request import ContextRequest
from kxm_grpc.domain.workflows.evidence import PeerEvidence
from kxm_grpc.domain.workflows.journal import Category, JournalEntry, Severity

ENTRY_ID = "journal_0123456789abcdef0123456789abcdef"


def entry(category: Category = Category.ERROR, **fields: object) -> JournalEntry:
    base = JournalEntry(
        id=ENTRY_ID,
        run_id="run_1",
        author="agt_1",
        category=category,
        area="workflow",
        severity=Severity.INFO,
        summary="The build broke on the second attempt",
        create_time=1_700_000_000_123_456,
        evidence=("log:build-2",),
    )
    return replace(base, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("category", "kind", "status"),
    [
        (Category.PLAN, Kind.KNOWLEDGE, None),
        (Category.DECISION, Kind.KNOWLEDGE, None),
        (Category.LESSON, Kind.KNOWLEDGE, None),
        (Category.SKILL_CANDIDATE, Kind.SKILL, Status.PROPOSED),
        (Category.CONTRADICTION, Kind.EVIDENCE, None),
        (Category.ERROR, Kind.EVIDENCE, None),
        (Category.OBSERVATION, Kind.EVIDENCE, None),
        (Category.HYPOTHESIS, Kind.EVIDENCE, None),
        (Category.EXPERIMENT, Kind.EVIDENCE, None),
        (Category.STATE_CHANGE, Kind.EVIDENCE, None),
    ],
)
def test_pin_21_each_category_maps_to_its_kind(category: Category, kind: Kind, status: Status | None) -> None:
    """Pin 21: plan, decision and lesson are knowledge; a skill candidate is a proposed skill;
    every other category is evidence."""
    item = journal_item(entry(category), project="alpha")

    assert (item.kind, item.status) == (kind, status)


def test_pin_21_an_error_entry_is_workflow_evidence_with_its_source_ref() -> None:
    """Pin 21: id ``journal_<entry id>``, provenance workflow with sourceRef ``journal:<entry id>``,
    authority evidence, confidence probable, scope run, observed at the entry's create time."""
    item = journal_item(entry(), project="alpha")

    assert item.id == "journal_" + ENTRY_ID
    assert entry_id_of(item.id) == ENTRY_ID
    assert (item.provenance.source_type, item.provenance.source_ref) == (SourceType.WORKFLOW, "journal:" + ENTRY_ID)
    assert (item.authority, item.confidence, item.scope) == (Authority.EVIDENCE, Confidence.PROBABLE, Scope.RUN)
    assert (item.project, item.summary) == ("alpha", "The build broke on the second attempt")
    assert item.observed_at == 1_700_000_000_123_456
    assert item.evidence_refs == ("log:build-2",)


def test_pin_21_a_500_character_evidence_string_is_dropped_silently() -> None:
    """Pin 21: evidence strings of 1-200 characters are kept; a 500-character one is dropped, not an error."""
    long = "x" * 500
    item = journal_item(entry(evidence=("first", long, "y" * 200, "z" * 201)), project="alpha")

    assert item.evidence_refs == ("first", "y" * 200)


def test_evidence_refs_keep_the_first_16_once_each_and_count_utf16_units() -> None:
    """The first 16 qualifying strings, duplicates dropped (an item's refs are unique); 200
    characters means UTF-16 code units (100 emoji are 200, 101 are 202)."""
    values = ["dup", "dup", *(f"ref-{n}" for n in range(20))]

    assert journal_evidence_refs(values) == ("dup", *(f"ref-{n}" for n in range(15)))
    assert journal_evidence_refs(["\U0001f600" * 100, "\U0001f600" * 101]) == ("\U0001f600" * 100,)


def test_a_summary_is_redacted_and_an_unpaired_surrogate_never_fails_the_mapping() -> None:
    """The summary is redacted as every item's (a password never reaches the pool); an unpaired
    surrogate, which the journal stores escaped, becomes U+FFFD instead of failing the entry."""
    item = journal_item(entry(summary="retry with password=hunter2-hunter2 \ud83d"), project="alpha")

    assert "hunter2" not in item.summary
    assert item.summary.endswith("\ufffd")


def test_a_skill_candidate_is_inert_in_a_packet() -> None:
    """A skill candidate is a proposed skill: a request for skills leaves it out (and spends no
    budget on it) while the lesson with the same text is selected."""
    text = "Cache the wheel builds"
    skill = journal_item(entry(Category.SKILL_CANDIDATE, summary=text), project="alpha")
    lesson = journal_item(entry(Category.LESSON, id="journal_lesson", summary=text), project="alpha")
    request = ContextRequest("alpha", "implementer", "wheel builds", include_kinds=(Kind.SKILL, Kind.KNOWLEDGE))

    packet = arbitrate(request, [skill, lesson]).packet

    assert (packet.skills, [chosen.id for chosen in packet.knowledge]) == ((), [lesson.id])


def peer(message_id: str = "msg_1", **fields: object) -> PeerEvidence:
    base = PeerEvidence(
        message_id=message_id,
        producer_id="agt_reviewer",
        producer_name="reviewer",
        run_id="run_1",
        stage_id="review",
        requirement_key="unit tests",
        visit=1,
        attempt=1,
        request_sha256="a" * 64,
        reply_sha256="b" * 64,
        create_time=10,
        deliver_time=11,
        reply_time=12,
        verify_time=13,
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def test_a_verified_peer_reply_is_verified_workflow_evidence_without_a_body() -> None:
    """Verified peer evidence: id ``peer_<message id>``, evidence, workflow provenance, confidence
    verified, observed at the verification, the message id as its evidence ref; the summary names
    the producer, the requirement and both hashes, whole (hex is spared by redaction)."""
    item = peer_evidence_item(peer(), project="alpha")

    assert item.id == "peer_msg_1"
    assert (item.kind, item.authority, item.confidence) == (Kind.EVIDENCE, Authority.EVIDENCE, Confidence.VERIFIED)
    assert (item.provenance.source_type, item.provenance.source_ref) == (SourceType.WORKFLOW, "peer:msg_1")
    assert (item.observed_at, item.evidence_refs, item.scope) == (13, ("msg_1",), Scope.RUN)
    assert "reviewer (agt_reviewer)" in item.summary
    assert "a" * 64 in item.summary and "b" * 64 in item.summary
    assert "'unit tests'" in item.summary


def test_a_contradiction_is_open_until_a_decision_or_lesson_of_its_run_relates_to_it() -> None:
    """The reports' rule: a decision or lesson relating to a contradiction resolves it, in its
    own run only; a plan relating to it does not."""
    first = entry(Category.CONTRADICTION, id="journal_c1")
    second = entry(Category.CONTRADICTION, id="journal_c2")
    third = entry(Category.CONTRADICTION, id="journal_c3")
    decided = entry(Category.DECISION, id="journal_d", related_entry_ids=("journal_c1",))
    elsewhere = entry(Category.LESSON, id="journal_l", run_id="run_2", related_entry_ids=("journal_c2",))
    planned = entry(Category.PLAN, id="journal_p", related_entry_ids=("journal_c3",))

    still_open = open_contradictions([first, second, third, decided, elsewhere, planned])

    assert [item.id for item in still_open] == ["journal_c2", "journal_c3"]


def test_the_automatic_pools_ids_are_a_namespace_of_their_own() -> None:
    """Every journal and peer item id is reserved (so a caller's item can never replace one);
    other ids are not."""
    ids = [journal_item(entry(), project="alpha").id, peer_evidence_item(peer(), project="alpha").id]

    assert [journal_items.reserved_item_id(item_id) for item_id in [*ids, "ctx_1", "mem_x", "journal"]] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_episode_categories_are_the_four_of_the_spec() -> None:
    """§5.10: error, lesson, observation, experiment."""
    assert [c.value for c in journal_items.EPISODE_CATEGORIES] == ["error", "lesson", "observation", "experiment"]
