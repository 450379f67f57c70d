"""The skill rules of ``kxm_grpc.domain.context.skills`` (§5.12): slugs, front matter, evaluations, verification."""

from __future__ import annotations

import dataclasses

import pytest

from kxm_grpc.domain.context import skills as rules
from kxm_grpc.domain.context.skills import EvaluationKind, EventType, SkillEvent
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, Reason


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Fix Flaky Tests!", "fix-flaky-tests"),
        ("  --Déploy__Now--  ", "d-ploy-now"),
        ("a" * 39 + "-b" + "c" * 10, "a" * 39),  # cut at 40, the trailing - trimmed again
        ("!!!", "skill"),
        ("日本", "skill"),
        ("v2.1 release", "v2-1-release"),
    ],
)
def test_slug(name: str, expected: str) -> None:
    assert rules.slug(name) == expected


def test_the_id_pins_slug_and_hash() -> None:
    digest = rules.content_sha256("x")
    assert digest == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
    assert rules.skill_id("Fix Flaky Tests!", digest) == "fix-flaky-tests.2d711642b726"


def test_front_matter_keeps_what_the_author_wrote_and_fills_what_is_missing() -> None:
    text, description = rules.ensure_front_matter("---\nname: mine\ntags:\n  - a\n---\nbody", "Other", "")
    quoted, _ = rules.ensure_front_matter("body", "Fix: it", 'says "hi"')

    assert text == "---\ndescription: Governed skill for Other\nname: mine\ntags:\n  - a\n---\nbody"
    assert description == "Governed skill for Other"
    assert quoted == '---\nname: "Fix: it"\ndescription: "says \\"hi\\""\n---\nbody'
    assert rules.front_matter(quoted).value("name") == "Fix: it"
    assert rules.front_matter(quoted).value("description") == 'says "hi"'


@pytest.mark.parametrize("content", ["---\nname: x\n", "---\nnot a key line\n---\n"])
def test_a_malformed_front_matter_is_refused(content: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        rules.front_matter(content)
    assert refused.value.reason is Reason.INVALID_SKILL_FRONTMATTER


def _evaluated(sequence: int, kind: EvaluationKind, passed: bool) -> SkillEvent:
    return SkillEvent(sequence, EventType.EVALUATED, "ops", sequence, kind=kind, passed=passed)


def test_only_the_latest_evaluation_of_a_kind_counts() -> None:
    history = [
        _evaluated(1, EvaluationKind.STATIC_REVIEW, False),
        _evaluated(2, EvaluationKind.STATIC_REVIEW, True),
        _evaluated(3, EvaluationKind.SANDBOX, True),
        _evaluated(4, EvaluationKind.SANDBOX, False),
        _evaluated(5, EvaluationKind.OPTIMIZATION, True),
    ]
    assert rules.evaluation_gaps(history) == (["functional", "safety"], ["sandbox"])
    assert rules.evaluation_gaps(list(reversed(history))) == (["functional", "safety"], ["sandbox"])


def _skill() -> rules.Skill:
    draft = rules.Draft(
        name="Deploy",
        content="Run make deploy.",
        sources=rules.Sources(run_ids=("r",)),
        compatibility=rules.Compatibility("h", ("m",)),
    )
    return rules.candidate(draft, project="alpha", created_by="agt_1", now=1)


def test_verify_checks_the_hash_and_the_front_matter() -> None:
    skill = _skill()
    rules.verify(skill)
    tampered = dataclasses.replace(skill, content=skill.content + "rm -rf /\n")
    nameless = "---\nname:\ndescription: d\n---\n"
    no_name = dataclasses.replace(skill, content=nameless, content_sha256=rules.content_sha256(nameless))

    with pytest.raises(FailedPrecondition) as hash_refused:
        rules.verify(tampered)
    with pytest.raises(FailedPrecondition) as matter_refused:
        rules.verify(no_name)
    assert hash_refused.value.reason is Reason.SKILL_INTEGRITY_VIOLATION
    assert matter_refused.value.reason is Reason.INVALID_SKILL_FRONTMATTER
    assert not rules.verified(tampered)


def test_the_content_is_redacted_before_it_is_hashed() -> None:
    draft = rules.Draft(
        name="Secret",
        content="Use token ghp_" + "a" * 36 + " here.",
        sources=rules.Sources(run_ids=("r",)),
        compatibility=rules.Compatibility("h", ("m",)),
    )
    made = rules.candidate(draft, project="alpha", created_by="ops", now=1)

    assert "ghp_" + "a" * 36 not in made.content
    assert made.content_sha256 == rules.content_sha256(made.content)


def test_one_rule_for_every_evaluation_a_failed_functional_or_safety_one_quarantines() -> None:
    """``evaluated`` is the rule operators' and gates' evaluations share (decision 267)."""
    skill = _skill()
    kept, recorded = rules.evaluated(skill, EvaluationKind.SANDBOX, False, actor="ops", details="", now=5)
    tuned, _ = rules.evaluated(skill, EvaluationKind.OPTIMIZATION, False, actor="ops", details="", now=5)
    gate = rules.gate_evaluator("safety-suite", "run_1")
    quarantined, events = rules.evaluated(skill, EvaluationKind.SAFETY, False, actor=gate, details="d", now=7)

    assert kept == skill and tuned == skill
    assert [(e.type, e.actor, e.kind, e.passed) for e in recorded] == [
        (EventType.EVALUATED, "ops", EvaluationKind.SANDBOX, False)
    ]
    assert (quarantined.state, quarantined.decided_by, quarantined.decided_at) == (
        rules.SkillState.QUARANTINED,
        rules.EVALUATOR,
        7,
    )
    assert [(e.type, e.actor) for e in events] == [
        (EventType.EVALUATED, "gate:safety-suite@run_1"),
        (EventType.QUARANTINED, rules.EVALUATOR),
    ]
    assert events[1].reason == "failed safety evaluation"


def test_a_gate_evaluation_names_its_run_step_and_pinned_gate() -> None:
    details = rules.gate_details(
        run_id="run_1", step_id="check", step_attempt=2, gate_id="safety-suite", gate_hash="sha256:ab", outcome="failed"
    )

    assert details == "gate safety-suite (sha256:ab) of run run_1, step check attempt 2: outcome failed"
