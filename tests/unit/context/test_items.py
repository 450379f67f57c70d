"""Context items: limits, control-plane refusal, the grant floor, derivation (kxm_grpc/domain/context/
items.py, derivation.py; spec §5.1, §5.3, §11.4a)."""

from __future__ import annotations

import dataclasses

import pytest

from kxm_grpc.domain.context import documents
from kxm_grpc.domain.context.derivation import derive_item, derived_authority, summarize_items
from kxm_grpc.domain.context.items import (
    CONTROL_PLANE_FIELDS,
    MAX_TIME,
    MIN_TIME,
    Authority,
    Kind,
    Provenance,
    Scope,
    SourceType,
    Status,
    check_item,
    parse_item,
    project_for_scope,
)
from kxm_grpc.domain.context.tokens import estimate_tokens, item_characters
from kxm_grpc.errors import HubError, InvalidArgument, PermissionDenied, Reason
from tests.unit.context.helpers import item

RAW = {
    "id": "e_1",
    "kind": "evidence",
    "project": "alpha",
    "summary": "  flaky gate  ",
    "provenance": {"sourceType": "tool", "sourceRef": "ci:42"},
    "authority": "evidence",
    "confidence": "probable",
}


def reason_of(error: pytest.ExceptionInfo[HubError]) -> object:
    return error.value.reason


def test_a_valid_json_item_is_parsed_trimmed_and_timed_in_microseconds() -> None:
    # Execute
    parsed = parse_item({**RAW, "observedAt": "2026-01-01T00:00:01.5Z"}, origin=SourceType.PEER)
    # Assert
    assert parsed.summary == "flaky gate"
    assert parsed.provenance.source_ref == "ci:42"
    assert parsed.observed_at == 1_767_225_601_500_000


@pytest.mark.parametrize("name", [*sorted(CONTROL_PLANE_FIELDS), "api_key", "Permissions", "API-KEY"])
def test_a_control_plane_field_is_refused_with_context_authority_violation(name: str) -> None:
    with pytest.raises(PermissionDenied) as error:
        parse_item({**RAW, name: ["kxm_send"]}, origin=SourceType.HUMAN)
    assert reason_of(error) == Reason.CONTEXT_AUTHORITY_VIOLATION


def test_a_control_plane_field_inside_provenance_is_refused_too() -> None:
    with pytest.raises(PermissionDenied):
        parse_item({**RAW, "provenance": {"sourceType": "tool", "grants": "all"}}, origin=SourceType.HUMAN)


def test_an_unknown_field_is_refused_not_dropped() -> None:
    with pytest.raises(InvalidArgument) as error:
        parse_item({**RAW, "colour": "red"}, origin=SourceType.HUMAN)
    assert reason_of(error) == Reason.INVALID_CONTEXT_FIELD


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2026-01-01",
        "2026-01-01 00:00:00Z",
        "2026-02-30T00:00:00Z",
        "\uff12\uff10\uff12\uff14-01-01T00:00:00Z",  # fullwidth digits
        "2024-01-01T00:00:00.\u0661\u0662Z",  # Arabic-Indic digits in the fraction
        "\u0662\u0660\u0662\u0664-01-01T00:00:00Z",
        "0001-01-01T00:00:00+01:00",  # UTC year 0
        "9999-12-31T23:59:59-01:00",  # UTC year 10000
    ],
)
def test_a_time_that_is_not_strict_rfc_3339_is_refused(value: str) -> None:
    with pytest.raises(InvalidArgument):
        parse_item({**RAW, "validFrom": value}, origin=SourceType.HUMAN)


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        ("0999-01-01T00:00:00Z", "0999-01-01T00:00:00.000000Z"),
        ("0001-01-01T00:30:00+00:30", "0001-01-01T00:00:00.000000Z"),
        ("9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.999999Z"),
        ("2026-01-01T02:00:01.25+02:00", "2026-01-01T00:00:01.250000Z"),
    ],
)
def test_times_in_utc_years_1_to_9999_render_as_rfc_3339_that_parses_again(value: str, rendered: str) -> None:
    # Execute
    parsed = parse_item({**RAW, "observedAt": value}, origin=SourceType.HUMAN)
    text = documents.item_document(parsed)["observedAt"]
    # Assert
    assert text == rendered
    assert parse_item({**RAW, "observedAt": text}, origin=SourceType.HUMAN).observed_at == parsed.observed_at


@pytest.mark.parametrize("field", ["observed_at", "valid_from", "valid_until"])
def test_a_typed_time_outside_utc_years_1_to_9999_is_refused(field: str) -> None:
    for moment in (MIN_TIME - 1, MAX_TIME + 1):
        with pytest.raises(InvalidArgument) as error:
            check_item(dataclasses.replace(item("x"), **{field: moment}), origin=SourceType.HUMAN)  # type: ignore[arg-type]
        assert reason_of(error) == Reason.INVALID_CONTEXT_FIELD
    assert check_item(dataclasses.replace(item("x"), **{field: MAX_TIME}), origin=SourceType.HUMAN)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("source", "authority"),
    [
        (SourceType.PEER, Authority.INSTRUCTION),
        (SourceType.TOOL, Authority.POLICY),
        (SourceType.DERIVED, Authority.INSTRUCTION),
        (SourceType.GIT, Authority.POLICY),
    ],
)
def test_authority_above_the_source_types_grant_floor_is_refused(source: SourceType, authority: Authority) -> None:
    with pytest.raises(PermissionDenied) as error:
        check_item(item("x", source=source, authority=authority), origin=SourceType.HUMAN)
    assert reason_of(error) == Reason.CONTEXT_AUTHORITY_VIOLATION


def test_an_agent_origin_cannot_label_its_item_human_to_claim_policy() -> None:
    # Prepare: the label says human; the credential says agent (§11.4a)
    forged = item("x", source=SourceType.HUMAN, authority=Authority.POLICY)
    # Execute / Assert
    with pytest.raises(PermissionDenied) as error:
        check_item(forged, origin=SourceType.PEER)
    assert reason_of(error) == Reason.CONTEXT_AUTHORITY_VIOLATION
    with pytest.raises(PermissionDenied):
        check_item(dataclasses.replace(forged, authority=Authority.EVIDENCE), origin=SourceType.PEER)
    assert check_item(forged, origin=SourceType.HUMAN).authority is Authority.POLICY


def test_an_agent_may_write_evidence_of_peer_tool_and_external_sources() -> None:
    for source in (SourceType.PEER, SourceType.TOOL, SourceType.EXTERNAL):
        assert check_item(item("x", source=source), origin=SourceType.PEER).provenance.source_type is source


def test_only_an_operator_writes_the_shared_project() -> None:
    shared = item("x", project="_shared", scope=Scope.OPERATOR)
    with pytest.raises(PermissionDenied) as error:
        check_item(shared, origin=SourceType.PEER)
    assert reason_of(error) == Reason.CONTEXT_ISOLATION_VIOLATION
    assert check_item(shared, origin=SourceType.HUMAN).project == "_shared"
    assert project_for_scope(Scope.OPERATOR, "alpha") == "_shared"
    assert project_for_scope(Scope.PROJECT, "alpha") == "alpha"


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"id": "x" * 129}, Reason.INVALID_CONTEXT_FIELD),
        ({"id": "  "}, Reason.INVALID_CONTEXT_FIELD),
        ({"project": "p" * 201}, Reason.INVALID_CONTEXT_FIELD),
        ({"summary": ""}, Reason.INVALID_CONTEXT_FIELD),
        ({"summary": "s" * 4_001}, Reason.INVALID_CONTEXT_FIELD),
        ({"summary": "\U0001f600" * 2_001}, Reason.INVALID_CONTEXT_FIELD),  # 4,002 UTF-16 code units
        ({"provenance": Provenance(SourceType.TOOL, "r" * 513)}, Reason.INVALID_CONTEXT_FIELD),
        ({"state_key": "k" * 201}, Reason.INVALID_CONTEXT_FIELD),
        ({"supersedes": tuple(f"s{i}" for i in range(65))}, Reason.CONTEXT_LIMITS_EXCEEDED),
        ({"evidence_refs": tuple(f"e{i}" for i in range(65))}, Reason.CONTEXT_LIMITS_EXCEEDED),
        ({"evidence_refs": ("r" * 201,)}, Reason.INVALID_CONTEXT_FIELD),
        ({"supersedes": ("s" * 129,)}, Reason.INVALID_CONTEXT_FIELD),
        ({"provenance": Provenance(SourceType.TOOL, derived_from=("d" * 129,))}, Reason.INVALID_CONTEXT_FIELD),
        ({"evidence_refs": ("a", "a")}, Reason.INVALID_CONTEXT_FIELD),
        ({"evidence_refs": ("a", " ")}, Reason.INVALID_CONTEXT_FIELD),
        ({"supersedes": ("x",)}, Reason.INVALID_CONTEXT_ITEM),
        ({"kind": Kind.STATE, "status": Status.CURRENT}, Reason.INVALID_CONTEXT_ITEM),
        ({"kind": Kind.STATE, "state_key": "ci.status"}, Reason.INVALID_CONTEXT_ITEM),
    ],
)
def test_every_limit_of_section_5_1_is_enforced(fields: dict[str, object], reason: Reason) -> None:
    with pytest.raises(InvalidArgument) as error:
        check_item(dataclasses.replace(item("x"), **fields), origin=SourceType.HUMAN)  # type: ignore[arg-type]
    assert reason_of(error) == reason


def test_text_follows_the_hubs_rule_nul_refused_other_control_characters_kept() -> None:
    # Prepare: a gate's coloured output, as a journal entry's text keeps it (validation.required_text)
    ansi = "\x1b[31mFAIL\x1b[0m lint\x7f"
    # Execute / Assert
    assert check_item(item("x", ansi), origin=SourceType.HUMAN).summary == ansi
    with pytest.raises(InvalidArgument) as error:
        check_item(item("x", "a\x00b"), origin=SourceType.HUMAN)
    assert reason_of(error) == Reason.INVALID_CONTEXT_FIELD


@pytest.mark.parametrize(
    ("field", "raw"),
    [
        ("id", {"id": "e_\ud800"}),
        ("summary", {"summary": "flaky \udfff gate"}),
        ("provenance.sourceRef", {"provenance": {"sourceType": "tool", "sourceRef": "ci:\ud83d"}}),
        ("stateKey", {"kind": "state", "status": "current", "stateKey": "ci.\ude00"}),
        ("evidenceRefs", {"evidenceRefs": ["peer:\ud800"]}),
        ("supersedes", {"supersedes": ["e_\ud800"]}),
        ("provenance.derivedFrom", {"provenance": {"sourceType": "tool", "derivedFrom": ["e_\ud800"]}}),
        ("project", {"project": "alpha\ud800"}),
    ],
)
def test_a_lone_surrogate_is_refused_naming_its_field(field: str, raw: dict[str, object]) -> None:
    # Prepare: JSON can spell one ("\ud800"); UTF-8 cannot store it
    with pytest.raises(InvalidArgument) as error:
        parse_item({**RAW, **raw}, origin=SourceType.HUMAN)
    assert reason_of(error) == Reason.INVALID_CONTEXT_FIELD
    assert error.value.metadata["field"] == field


def test_the_limits_are_inclusive_and_count_utf16_code_units() -> None:
    checked = check_item(
        dataclasses.replace(item("x" * 128), summary="\U0001f600" * 2_000, evidence_refs=tuple(map(str, range(64)))),
        origin=SourceType.PEER,
    )
    assert len(checked.summary) == 2_000


def test_an_evidence_ref_may_hold_200_characters_like_a_journal_entrys_refs() -> None:
    # Prepare: §5.10 and seed 004 keep a journal entry's evidence refs of 1-200 characters
    ref = "peer:msg_" + "a" * 191
    # Execute
    checked = check_item(
        item("journal_j1", "lesson", source=SourceType.WORKFLOW, evidence_refs=(ref,)), origin=SourceType.WORKFLOW
    )
    # Assert
    assert checked.evidence_refs == (ref,)
    assert len(ref) == 200


def test_secrets_in_the_summary_are_redacted_but_content_hashes_are_kept() -> None:
    sha = "ab" * 32
    checked = check_item(
        dataclasses.replace(
            item("x", "login with password=hunter2hunter2"),
            provenance=Provenance(SourceType.GIT, f"skill:deploy.0123456789ab@{sha}"),
        ),
        origin=SourceType.HUMAN,
    )
    assert checked.summary == "login with password=<redacted:secret>"
    assert checked.provenance.source_ref == f"skill:deploy.0123456789ab@{sha}"


def test_the_summary_limit_applies_before_redaction() -> None:
    # Prepare: 4,000 characters holding a secret; its redacted form is longer than what was written
    summary = "password=hunter2hunter2 " + "x" * 3_976
    source_ref = "token=abcdefgh12345678 " + "r" * 489
    # Execute
    checked = check_item(
        dataclasses.replace(item("x", summary), provenance=Provenance(SourceType.TOOL, source_ref)),
        origin=SourceType.HUMAN,
    )
    # Assert
    assert len(summary) == 4_000
    assert len(source_ref) == 512
    assert checked.summary.startswith("password=<redacted:secret> ")
    assert checked.provenance.source_ref is not None
    assert checked.provenance.source_ref.startswith("token=<redacted:secret> ")


def test_token_estimates_count_utf16_code_units_of_summary_id_kind_and_source_ref() -> None:
    # Prepare: 2 + 1 + 8 ("evidence") + 3 = 14 code units
    one = dataclasses.replace(item("i", "\U0001f600"), provenance=Provenance(SourceType.TOOL, "r:1"))
    # Execute / Assert
    assert item_characters(one) == 14
    assert estimate_tokens([one]) == 4
    assert estimate_tokens([one, one]) == 7
    assert estimate_tokens([]) == 0


def test_derived_items_carry_the_sorted_transitive_lineage_and_at_most_evidence() -> None:
    # Prepare
    a = item("b_root", authority=Authority.POLICY, source=SourceType.HUMAN)
    b = dataclasses.replace(item("a_mid"), provenance=Provenance(SourceType.DERIVED, None, ("z_old", "b_root")))
    # Execute
    derived = derive_item(
        item_id="ctx_1", project="alpha", kind=Kind.KNOWLEDGE, summary="sum", claimed=Authority.POLICY, lineage=[a, b]
    )
    # Assert
    assert derived.provenance.source_type is SourceType.DERIVED
    assert derived.provenance.derived_from == ("a_mid", "b_root", "z_old")
    assert derived.authority is Authority.EVIDENCE
    assert derived.confidence.value == "probable"


def test_a_derived_item_never_exceeds_its_strongest_lineage_authority() -> None:
    guesses = [item("h", authority=Authority.HYPOTHESIS)]
    assert derived_authority(Authority.POLICY, guesses) is Authority.HYPOTHESIS
    assert derived_authority(Authority.EVIDENCE, []) is Authority.HYPOTHESIS
    assert derived_authority(Authority.HYPOTHESIS, [item("e")]) is Authority.HYPOTHESIS


def test_a_lineage_of_more_than_64_ancestors_is_refused() -> None:
    lineage = [item(f"a{i:02d}") for i in range(65)]
    with pytest.raises(InvalidArgument) as error:
        derive_item(
            item_id="ctx_1",
            project="alpha",
            kind=Kind.KNOWLEDGE,
            summary="s",
            claimed=Authority.EVIDENCE,
            lineage=lineage,
        )
    assert reason_of(error) == Reason.CONTEXT_LIMITS_EXCEEDED
    assert (
        derive_item(
            item_id="ctx_1",
            project="alpha",
            kind=Kind.KNOWLEDGE,
            summary="s",
            claimed=Authority.EVIDENCE,
            lineage=lineage[:64],
        ).provenance.derived_from[-1]
        == "a63"
    )


def test_a_derivation_from_another_projects_item_is_refused() -> None:
    with pytest.raises(PermissionDenied) as error:
        derive_item(
            item_id="ctx_1",
            project="alpha",
            kind=Kind.KNOWLEDGE,
            summary="s",
            claimed=Authority.EVIDENCE,
            lineage=[item("b", project="beta")],
        )
    assert reason_of(error) == Reason.CONTEXT_ISOLATION_VIOLATION


def test_a_summary_drops_superseded_and_rejected_lineage() -> None:
    lineage = [
        item("live"),
        item("old", status=Status.SUPERSEDED, authority=Authority.POLICY, source=SourceType.HUMAN),
        item("no", status=Status.REJECTED),
    ]
    summary = summarize_items(item_id="ctx_2", project="alpha", summary="all", lineage=lineage)
    assert summary.kind is Kind.KNOWLEDGE
    assert summary.provenance.derived_from == ("live",)
    assert summary.authority is Authority.EVIDENCE
