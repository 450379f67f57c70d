"""A promoted memory candidate's record file reads back, through the sync's parser, exactly as the
candidate was noted (``kxm_grpc.domain.context.memory_candidates.record_file``)."""

from __future__ import annotations

import pytest

from kxm_grpc.domain.context.items import Scope, SourceType
from kxm_grpc.domain.context.memory import parse_file
from kxm_grpc.domain.context.memory_candidates import Candidate, check_note, record_file

AWKWARD = [
    "plain ASCII",
    'quotes " and \\ backslashes: a "YAML" scalar',
    "DEL \x7f and C1 controls \x80 \x9f",
    "NEL \x85, LS \u2028 and PS \u2029 are no line breaks here",
    "tabs\tand\nnewlines",
    "accents é, CJK 記憶, astral 😀 and \ufeff BOM",
    "---\nid: forged\n---",
    "# not a comment, {not: a map}, [not, a, list], &anchor *alias",
]


@pytest.mark.parametrize("summary", AWKWARD)
def test_a_promoted_candidate_reads_back_as_it_was_noted(summary: str) -> None:
    scope, kind, text, refs = check_note(Scope.PROJECT, "learn\x85ing", summary, ["run:1", "ref \u2028 2"])
    candidate = Candidate(
        id="cand_project_0123456789ab",
        project="alpha",
        scope=scope,
        kind=kind,
        summary=text,
        evidence_refs=refs,
        proposed_by="agt_1",
        origin=SourceType.PEER,
        create_time=0,
    )

    made = record_file(candidate, record_id="fact-1", authority="", confidence=None, promoted_by="ops", now=0)
    record = parse_file(made, project="alpha")

    assert record.item.summary == text
    assert record.kind == kind
    assert record.item.evidence_refs == refs
