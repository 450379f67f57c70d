"""Template rendering and the coordinator prompt (kxm_grpc.domain.workflows.prompts): §1.6, §2.2."""

from __future__ import annotations

from typing import Any

import pytest

from kxm_grpc.domain import messages
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition, load_definition
from kxm_grpc.domain.workflows.prompts import MAX_PROMPT_CHARS, coordinator_prompt, render_template
from kxm_grpc.errors import InvalidArgument

SECRET = "start-secret-0123456789"
RUN = "run_0123456789abcdef0123456789abcdef"


def test_pin2_issue_fields_renders_the_objects_json() -> None:
    payload = {"issue": {"fields": {"summary": "Crash on start", "labels": ["bug", "p1"], "votes": 3}}}

    assert (
        render_template("{{issue.fields}}", payload) == '{"summary":"Crash on start","labels":["bug","p1"],"votes":3}'
    )


def test_pin2_a_missing_value_renders_empty() -> None:
    assert render_template("[{{none}}]", {"issue": {}}) == "[]"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{ issue.key }}", "KXM-1"),
        ("{{\tissue.key\n}}", "KXM-1"),
        ("{{\ufeffissue.key\u3000}}", "KXM-1"),  # JavaScript's \s includes U+FEFF and U+3000
        ("{{\x1cissue.key}}", "{{\x1cissue.key}}"),  # ... but not U+001C, which Python's \s matches
        ("{{issue.key}}/{{issue.key}}", "KXM-1/KXM-1"),
        ("{{ issue key }}", "{{ issue key }}"),  # not a path: left as written
        ("{{issue.a-b_c.d}}", "dashes"),
        ("{{issue.nothing.deeper}}", ""),
        ("{{issue.key.length}}", ""),  # a string is not an object: the walk stops
        ("{{issue.labels.0}}", ""),  # nor is an array
        ("{{issue.empty}}", ""),
        ("{{issue.zero}}", "0"),
        ("{{issue.zero.x}}", ""),
        ("{{issue.yes}}/{{issue.no}}", "true/false"),
        ("{{issue.labels}}", '["bug",null,1.5]'),
        ("{{issue.nested}}", '{"1":"one","10":"ten","b":{"x":[]},"a":"é \\"q\\" \\n"}'),
        ("{{issue.numbers}}", "[1,1e+21,1e-7,0.30000000000000004,1e+22,null]"),
        ("{{issue.big}}", "1e+22"),
        ("{{issue.third}}", "0.30000000000000004"),
        ("{{issue.whole}}", "2"),
        ("{{issue.nan}}", "NaN"),
        ("{{issue.key}}", "KXM-1"),
    ],
)
def test_template_rendering_follows_javascript(template: str, expected: str) -> None:
    payload: dict[str, Any] = {
        "issue": {
            "key": "KXM-1",
            "a-b_c": {"d": "dashes"},
            "labels": ["bug", None, 1.5],
            "empty": None,
            "zero": 0,
            "yes": True,
            "no": False,
            # JavaScript puts array-index keys first, ascending, then the rest in insertion order.
            "nested": {"b": {"x": []}, "10": "ten", "a": 'é "q" \n', "1": "one"},
            "numbers": [1.0, 1e21, 1e-7, 0.1 + 0.2, 10**22, float("inf")],
            "big": 10**22,
            "third": 0.1 + 0.2,
            "whole": 2.0,
            "nan": float("nan"),
        }
    }

    assert render_template(template, payload) == expected


def test_a_lone_surrogate_in_json_is_escaped_as_javascript_escapes_it() -> None:
    assert render_template("{{a}}", {"a": ["\ud800x", "\U0001f600"]}) == '["\\ud800x","\U0001f600"]'


def test_a_payload_that_is_not_an_object_renders_empty() -> None:
    assert render_template("[{{a}}]", ["a"]) == "[]"
    assert render_template("[{{a}}]", None) == "[]"
    assert render_template("no placeholders", {"a": 1}) == "no placeholders"


def definition(**fields: Any) -> WorkflowDefinition:
    raw: dict[str, Any] = {
        "id": "fix",
        "project": "alpha",
        "target": "coordinator",
        "secret": SECRET,
        "promptTemplate": "Fix {{issue.key}}: {{issue.summary}}",
        "maxTransitions": 3,
        "stages": [
            {
                "id": "plan",
                "label": "Plan the fix",
                "instructions": "Write a plan.\nKeep it short.",
                "requiredEvidence": ["plan"],
            },
            {
                "id": "review",
                "instructions": "Get two reviews.",
                "maxAttempts": 2,
                "requiredEvidence": ["Review", "lint"],
                "evidencePolicies": {
                    "review": {
                        "kind": "peer-reply",
                        "minProducers": 2,
                        "eligibleAgents": [
                            {"agent": "alice", "provider": "anthropic", "model": "claude"},
                            {"agent": "bob", "provider": "openai"},
                            "carol",
                        ],
                        "degradation": {"minProducers": 1},
                    }
                },
                "on": {"failed": {"target": "plan", "maxTransitions": 2}, "passed": "$terminal"},
            },
            {"id": "ship", "instructions": "Ship it."},
        ],
        **fields,
    }
    return load_definition(raw, origin="test", env={})


def test_the_coordinator_prompt_structure() -> None:
    prompt = coordinator_prompt(definition(), RUN, {"issue": {"key": "KXM-7", "summary": "crash"}})

    lines = prompt.splitlines()
    assert lines[:6] == [
        f"Durable workflow run: {RUN}",
        "Workflow: fix",
        "",
        "Fix KXM-7: crash",
        "",
        "Execute these stages in order:",
    ]
    assert lines[6:18] == [
        "1. Plan the fix (stageId: plan, maxAttempts: 3)",
        "   Write a plan.",
        "   Keep it short.",
        "   Required evidence keys: plan",
        "2. review (stageId: review, maxAttempts: 2)",
        "   Get two reviews.",
        "   Required evidence keys: review, lint",
        '   Peer evidence "review": replies from at least 2 distinct eligible agents of alice (anthropic, claude),'
        " bob (openai), carol (an operator may approve a quorum of 1).",
        "   Declared transitions: failed -> plan (at most 2 times); passed -> $terminal",
        "3. ship (stageId: ship, maxAttempts: 3)",
        "   Ship it.",
        "   Required evidence keys: none",
    ]
    assert lines[18:21] == ["", "The run may take at most 3 declared transitions.", ""]
    assert lines[-1] == "Do not claim the workflow is complete until a checkpoint reports completed."


def test_the_guidance_names_the_tools_and_the_run() -> None:
    prompt = coordinator_prompt(definition(), RUN, {})

    for phrase in (
        "with the journal",
        ".kxm/config",
        "a checkpoint for its stageId",
        "other keys never count",
        f"send review requests with a workflow context: run {RUN}, the exact stageId, the requirement key",
        "current attempt (1-based)",
        "cite the message ids the hub returned",
        "wait for it with a stable signal key",
        "multi-agent planning",
    ):
        assert phrase in prompt, phrase


def test_distinct_by_and_integrity_settings_are_explained() -> None:
    stages = [
        {"id": "reproduce", "instructions": "Reproduce.", "requiredEvidence": ["repro"]},
        {"id": "plan", "instructions": "Plan.", "requiredEvidence": ["plan"]},
        {
            "id": "review",
            "instructions": "Review.",
            "requiredEvidence": ["review"],
            "evidencePolicies": {
                "review": {
                    "kind": "peer-reply",
                    "minProducers": 2,
                    "distinctBy": ["provider", "model"],
                    "eligibleAgents": [
                        {"agent": "alice", "provider": "anthropic", "model": "claude"},
                        {"agent": "bob", "provider": "openai", "model": "gpt"},
                    ],
                }
            },
        },
    ]
    prompt = coordinator_prompt(
        definition(
            stages=stages,
            planHash={"stageId": "plan", "evidenceKey": "plan"},
            reproOracle={"stageId": "reproduce", "evidenceKey": "repro"},
            requirePlanHash=["review"],
        ),
        RUN,
        {},
    )

    assert "each with a different provider and model." in prompt
    assert "When stage plan passes, its evidence plan becomes the approved plan" in prompt
    assert "Stages review cannot checkpoint before that." in prompt
    assert "When stage reproduce passes, its evidence repro becomes the reproduction oracle" in prompt


def test_the_prompt_must_fit_a_message() -> None:
    assert MAX_PROMPT_CHARS == messages.MAX_CONTENT_CHARS == 32_000
    base = len(coordinator_prompt(definition(promptTemplate="{{x}}"), RUN, {"x": ""}))

    fits = coordinator_prompt(definition(promptTemplate="{{x}}"), RUN, {"x": "a" * (MAX_PROMPT_CHARS - base)})
    assert len(fits) == MAX_PROMPT_CHARS
    with pytest.raises(InvalidArgument) as caught:
        coordinator_prompt(definition(promptTemplate="{{x}}"), RUN, {"x": "😀" * ((MAX_PROMPT_CHARS - base) // 2 + 1)})
    assert caught.value.metadata == {"field": "prompt"}
    assert "exceeds 32000 characters" in caught.value.message


def test_a_payload_nul_or_unpaired_surrogate_becomes_a_replacement_character_in_the_prompt() -> None:
    definition = load_definition(
        {
            "id": "fix",
            "project": "alpha",
            "target": "coordinator",
            "secret": "s" * 16,
            "promptTemplate": "Fix {{issue.key}} {{issue.title}}",
            "stages": [{"id": "plan", "instructions": "Plan"}],
        },
        origin="test",
        env={},
    )

    prompt = coordinator_prompt(definition, "run_x", {"issue": {"key": "\ud800", "title": "a\x00b"}})

    assert "Fix \ufffd a\ufffdb" in prompt
    prompt.encode()  # storable as UTF-8
