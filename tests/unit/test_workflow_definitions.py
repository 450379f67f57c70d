"""Loading workflow definitions (kxm_grpc.domain.workflows.definitions): every rule of
workflow-context.md §1.1-§1.5, our extensions, the collected problems, JSON and YAML, the
normalised JSON and the hash."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.workflows.definitions import (
    TERMINAL,
    DefinitionError,
    Dimension,
    Edge,
    EvidenceHashConfig,
    EvidencePolicy,
    Notify,
    PayloadFilter,
    Problem,
    Producer,
    PromptDelivery,
    Source,
    StageDefinition,
    WorkflowDefinition,
    definition_hash,
    load_definition,
    load_text,
    to_json,
)
from kxm_grpc.errors import InvalidArgument, Reason

START = "start-secret-0123456789"
SIGNAL = "signal-secret-0123456789"
NOTIFY = "notify-secret-0123456789"
ENV = {"START_SECRET": START, "SIGNAL_SECRET": SIGNAL, "NOTIFY_SECRET": NOTIFY, "SHORT": "too-short"}


def stage(stage_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": stage_id, "instructions": f"do {stage_id}", **fields}


def definition(**fields: Any) -> dict[str, Any]:
    """A valid minimal definition with three stages, ``fields`` replacing or adding (None removes)."""
    raw: dict[str, Any] = {
        "id": "fix",
        "project": "alpha",
        "target": "coordinator",
        "secret": START,
        "promptTemplate": "Fix {{issue.key}}",
        "stages": [stage("plan"), stage("build"), stage("review")],
    }
    raw.update(fields)
    return {key: value for key, value in raw.items() if value is not None}


def review_policy(**fields: Any) -> dict[str, Any]:
    policy: dict[str, Any] = {"kind": "peer-reply", "minProducers": 2, "eligibleAgents": ["alice", "bob", "carol"]}
    policy.update(fields)
    return {key: value for key, value in policy.items() if value is not None}


def with_policy(policy: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A definition whose stage ``review`` requires ``review`` under ``policy``."""
    return definition(
        stages=[
            stage("plan"),
            stage("review", requiredEvidence=["review"], evidencePolicies={"review": policy}),
        ],
        **fields,
    )


def load(raw: dict[str, Any], env: dict[str, str] = ENV, **kwargs: Any) -> WorkflowDefinition:
    return load_definition(raw, origin="defs/fix.json", env=env, **kwargs)


def problems(raw: dict[str, Any], env: dict[str, str] = ENV) -> list[tuple[str, str]]:
    """Every (field, message) loading ``raw`` reports."""
    with pytest.raises(DefinitionError) as caught:
        load(raw, env)
    return [(problem.field, problem.message) for problem in caught.value.problems]


def problem(raw: dict[str, Any], env: dict[str, str] = ENV) -> tuple[str, str]:
    """The one (field, message) loading ``raw`` reports."""
    found = problems(raw, env)
    assert len(found) == 1, found
    return found[0]


def text_problems(text: str, origin: str = "defs/fix.json", **kwargs: Any) -> list[Problem]:
    with pytest.raises(DefinitionError) as caught:
        load_text(text, origin=origin, env=ENV, **kwargs)
    return list(caught.value.problems)


# -- pins ---------------------------------------------------------------------------------------


def test_pin1_required_keys_canonicalise() -> None:
    loaded = load(definition(stages=[stage("plan", requiredEvidence=["  Local   Review ", "GitHub.Check:CI"])]))

    assert loaded.stages[0].required_evidence == ("local review", "github.check:ci")


def test_pin1_keys_equal_after_canonicalisation_are_a_load_error() -> None:
    field, message = problem(definition(stages=[stage("plan", requiredEvidence=["Lint", " lint "])]))

    assert field == "stages[0].requiredEvidence[1]"
    assert "requiredEvidence[0]" in message and "'lint'" in message


@pytest.mark.parametrize("text", ["42", '"fix"', "true"])
def test_pin1_a_text_that_is_neither_a_definition_nor_an_array_is_a_load_error(text: str) -> None:
    found = text_problems(text)

    assert [(p.definition, p.field, p.message) for p in found] == [
        ("", "", "must hold a definition object or an array of them")
    ]


def test_pin1_a_secret_under_16_characters_is_a_load_error() -> None:
    assert problem(definition(secret="fifteen-chars-x")) == ("secret", "must be between 16 and 512 characters")
    assert load(definition(secret="sixteen-chars-xx")).secret == "sixteen-chars-xx"


def test_pin1_secret_and_secret_env_both_set_is_a_load_error() -> None:
    assert problem(definition(secretEnv="START_SECRET")) == ("secret", "set only one of secret and secretEnv")


@pytest.mark.parametrize("ttl", [10, 999, 604_800_001, 1.5, "60000", True])
def test_pin1_ttl_ms_out_of_range_is_a_load_error(ttl: object) -> None:
    assert problem(definition(ttlMs=ttl)) == ("ttlMs", "must be an integer between 1000 and 604800000")


def test_pin1_ttl_ms_bounds_load() -> None:
    assert load(definition(ttlMs=1_000)).ttl_ms == 1_000
    assert load(definition(ttlMs=604_800_000)).ttl_ms == 604_800_000
    assert load(definition()).ttl_ms is None


def test_pin1_a_missing_signal_secret_env_variable_is_a_load_error() -> None:
    field, message = problem(definition(signalSecretEnv="NOT_SET"))

    assert field == "signalSecretEnv"
    assert "workflow.signalSecret must be a string" in message and "NOT_SET" in message


def test_pin7_a_definition_without_on_has_no_edges_and_needs_no_budget() -> None:
    loaded = load(definition())

    assert all(not stage.edges for stage in loaded.stages)
    assert loaded.max_transitions is None


def test_pin8_a_transition_to_an_unknown_stage_is_a_load_error() -> None:
    raw = definition(stages=[stage("plan", on={"passed": "nowhere"}), stage("build")])

    assert problem(raw) == ("stages[0].on.passed", "targets unknown stage nowhere")


def test_pin8_a_forward_transition_that_skips_a_stage_is_a_load_error() -> None:
    raw = definition(stages=[stage("plan", on={"passed": "review"}), stage("build"), stage("review")])

    field, message = problem(raw)

    assert field == "stages[0].on.passed"
    assert "skips intermediate stages" in message and "(build)" in message


def test_pin8_a_back_edge_needs_the_definition_budget() -> None:
    raw = definition(stages=[stage("plan"), stage("build", on={"failed": "plan"})])

    field, message = problem(raw)

    assert field == "maxTransitions"
    assert "stages[1].on.failed is a back-edge" in message
    assert load({**raw, "maxTransitions": 3}).stages[1].edges == {"failed": Edge("failed", "plan")}


@pytest.mark.parametrize("budget", [0, 101, 2.5])
def test_pin8_an_edge_budget_outside_1_to_100_is_a_load_error(budget: object) -> None:
    edge = {"target": "build", "maxTransitions": budget}
    raw = definition(stages=[stage("plan", on={"passed": edge}), stage("build")])

    assert problem(raw) == ("stages[0].on.passed.maxTransitions", "must be an integer between 1 and 100")


# -- definition fields --------------------------------------------------------------------------


def test_defaults_are_filled_in() -> None:
    loaded = load(definition())

    assert loaded.source is Source.GENERIC
    assert loaded.delivery is PromptDelivery.FOLLOW_UP
    assert loaded.signal_secret is None and loaded.signal_secret_env is None
    assert loaded.event is None and loaded.filter is None and loaded.notify is None
    assert loaded.plan_hash is None and loaded.repro_oracle is None and loaded.require_plan_hash == ()
    first = loaded.stages[0]
    assert (first.label, first.required_evidence, first.max_attempts) == ("plan", (), 3)
    assert (first.auto_resume_limit, first.area, first.policies, first.edges, first.max_transitions) == (
        None,
        None,
        {},
        {},
        None,
    )


def full_definition() -> dict[str, Any]:
    """A definition using every field."""
    return {
        "id": " fix-bug ",
        "source": "github",
        "project": "alpha",
        "target": "Coordinator",
        "secretEnv": "START_SECRET",
        "signalSecret": SIGNAL,
        "event": "issues",
        "filter": {"path": "action", "equals": " opened "},
        "delivery": "steer",
        "ttlMs": 3_600_000,
        "promptTemplate": "  Fix {{issue.key}}: {{issue.fields}}  ",
        "maxTransitions": 6,
        "planHash": {"stageId": "plan", "evidenceKey": " The   Plan "},
        "reproOracle": {"stageId": "reproduce", "evidenceKey": "Repro"},
        "requirePlanHash": ["review", "build", "review"],
        "notify": {"url": "https://hooks.example.com/kxm", "secretEnv": "NOTIFY_SECRET"},
        "stages": [
            stage("reproduce", label="Reproduce the bug", requiredEvidence=["repro"], area="harness"),
            stage("plan", requiredEvidence=["the plan"], maxAttempts=2, autoResumeLimit=1),
            stage(
                "build",
                requiredEvidence=["lint", "Review"],
                maxTransitions=3,
                evidencePolicies={
                    " review ": {
                        "kind": "peer-reply",
                        "minProducers": 2,
                        "eligibleAgents": [
                            {"agent": "alice", "provider": "anthropic", "model": "claude"},
                            {"agent": "bob", "provider": "openai", "model": "gpt"},
                            "carol",
                        ],
                        "acceptedStatuses": ["replied"],
                        "degradation": {"minProducers": 1},
                    }
                },
                on={"failed": {"target": "plan", "maxTransitions": 2}, "warning": "build"},
            ),
            stage(
                "review",
                requiredEvidence=["approval"],
                evidencePolicies={
                    "approval": {
                        "kind": "peer-reply",
                        "minProducers": 2,
                        "distinctBy": ["model", "provider"],
                        "eligibleAgents": [
                            {"agent": "alice", "provider": "anthropic", "model": "claude"},
                            {"agent": "bob", "provider": "openai", "model": "gpt"},
                        ],
                    }
                },
                on={"passed": TERMINAL, "rejected": {"target": "build"}},
            ),
        ],
    }


def test_every_field_loads_normalised() -> None:
    loaded = load(full_definition())

    assert (loaded.id, loaded.source, loaded.project, loaded.target) == (
        "fix-bug",
        Source.GITHUB,
        "alpha",
        "Coordinator",
    )
    assert (loaded.secret, loaded.secret_env) == (START, "START_SECRET")
    assert (loaded.signal_secret, loaded.signal_secret_env) == (SIGNAL, None)
    assert loaded.event == "issues"
    assert loaded.filter == PayloadFilter("action", "opened")
    assert loaded.delivery is PromptDelivery.STEER
    assert loaded.ttl_ms == 3_600_000
    assert loaded.prompt_template == "Fix {{issue.key}}: {{issue.fields}}"
    assert loaded.max_transitions == 6
    assert loaded.plan_hash == EvidenceHashConfig("plan", "the plan")
    assert loaded.repro_oracle == EvidenceHashConfig("reproduce", "repro")
    assert loaded.require_plan_hash == ("build", "review")
    assert loaded.notify == Notify("https://hooks.example.com/kxm", NOTIFY, "NOTIFY_SECRET")
    reproduce, plan, build, review = loaded.stages
    assert (reproduce.label, reproduce.area) == ("Reproduce the bug", "harness")
    assert (plan.max_attempts, plan.auto_resume_limit) == (2, 1)
    assert build.required_evidence == ("lint", "review")
    assert build.max_transitions == 3
    assert build.policies == {
        "review": EvidencePolicy(
            "review",
            2,
            (Producer("alice", "anthropic", "claude"), Producer("bob", "openai", "gpt"), Producer("carol")),
            (),
            1,
        )
    }
    assert build.edges == {"failed": Edge("failed", "plan", 2), "warning": Edge("warning", "build")}
    assert review.policies["approval"].distinct_by == (Dimension.PROVIDER, Dimension.MODEL)
    assert review.edges == {"passed": Edge("passed", TERMINAL), "rejected": Edge("rejected", "build")}
    assert loaded.stage("build") is build and loaded.index("review") == 3 and loaded.stage("nope") is None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("id", "has space", "must be letters, digits, '.', '_' or '-', starting with a letter or digit"),
        ("id", "a:b", "must be letters, digits, '.', '_' or '-', starting with a letter or digit"),
        ("id", "x" * 65, "exceeds 64 characters"),
        ("id", "   ", "must not be empty"),
        ("id", 7, "must be a string"),
        ("source", "gitlab", "must be one of generic, github, jira"),
        ("project", "two words", "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit"),
        ("project", "p" * 129, "exceeds 128 characters"),
        ("target", "t" * 81, "exceeds 80 characters"),
        ("event", "e" * 129, "exceeds 128 characters"),
        ("event", "", "must not be empty"),
        ("delivery", "nextTurn", "must be one of followUp, steer"),
        ("promptTemplate", "", "must not be empty"),
        ("promptTemplate", "t" * 20_001, "exceeds 20000 characters"),
        ("promptTemplate", "a\x00b", "must not contain NUL characters"),
        ("promptTemplate", "a\ud800b", "must not contain unpaired surrogates"),
        ("maxTransitions", 0, "must be an integer between 1 and 200"),
        ("maxTransitions", 201, "must be an integer between 1 and 200"),
        ("filter", "action=opened", "must be an object"),
        ("stages", {"id": "plan"}, "must be an array"),
        ("stages", [], "must hold 1 to 32 stages"),
    ],
)
def test_a_bad_definition_field_is_named(field: str, value: object, message: str) -> None:
    assert problem(definition(**{field: value})) == (field, message)


@pytest.mark.parametrize("field", ["id", "project", "target", "promptTemplate", "stages"])
def test_a_required_field_is_required(field: str) -> None:
    raw = definition()
    del raw[field]

    assert problem(raw) == (field, "is required")


def test_null_means_absent() -> None:
    raw = definition()
    raw.update(event=None, filter=None, notify=None, ttlMs=None, signalSecret=None, maxTransitions=None)
    raw["stages"][0].update(label=None, maxAttempts=None, requiredEvidence=None, on=None)

    assert load(raw) == load(definition())
    assert problem(definition() | {"target": None}) == ("target", "is required")


def test_lengths_count_utf16_code_units_after_trimming() -> None:
    # An emoji is two UTF-16 code units: 10,000 of them fill the template's 20,000.
    assert load(definition(promptTemplate=" " + "😀" * 10_000 + " ")).prompt_template == "😀" * 10_000
    assert problem(definition(promptTemplate="😀" * 10_000 + "a")) == ("promptTemplate", "exceeds 20000 characters")
    assert load(definition(id="x" * 64)).id == "x" * 64
    assert load(definition(secret="é😀" * 6)).secret == "é😀" * 6  # 18 code units, 12 code points
    assert problem(definition(secret="😀" * 7 + "a")) == ("secret", "must be between 16 and 512 characters")


def test_unknown_fields_are_ignored_outside_evidence_policies() -> None:
    raw = definition(comment="ours", stages=[stage("plan", color="blue", on={"passed": {"target": "b", "why": 1}})])
    raw["stages"].append(stage("b"))

    assert load(raw) == load(definition(stages=[stage("plan", on={"passed": "b"}), stage("b")]))


def test_filter_needs_path_and_equals() -> None:
    assert problems(definition(filter={"path": "action"})) == [("filter.equals", "is required")]
    assert problems(definition(filter={"path": "", "equals": 3})) == [
        ("filter.path", "must not be empty"),
        ("filter.equals", "must be a string"),
    ]


# -- secrets ------------------------------------------------------------------------------------


def test_the_start_secret_comes_from_the_environment() -> None:
    loaded = load(definition(secret=None, secretEnv=" START_SECRET "))

    assert (loaded.secret, loaded.secret_env) == (START, "START_SECRET")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"secret": None}, ("secret", "is required (set secret or secretEnv)")),
        ({"secret": 1234567890123456789}, ("secret", "must be a string")),
        ({"secret": "x" * 513}, ("secret", "must be between 16 and 512 characters")),
        (
            {"secret": None, "secretEnv": "SHORT"},
            ("secretEnv", "the value of SHORT must be between 16 and 512 characters"),
        ),
        (
            {"secret": None, "secretEnv": "MISSING"},
            ("secretEnv", "environment variable MISSING is not set (workflow.secret must be a string)"),
        ),
        (
            {"secret": None, "secretEnv": "NOT-A-NAME"},
            ("secretEnv", "must be an environment variable name (letters, digits and '_', no digit first)"),
        ),
        ({"secret": None, "secretEnv": ""}, ("secretEnv", "must not be empty")),
    ],
)
def test_start_secret_rules(fields: dict[str, Any], expected: tuple[str, str]) -> None:
    assert problem(definition(**fields)) == expected


def test_a_secret_of_512_characters_loads() -> None:
    assert load(definition(secret="x" * 512)).secret == "x" * 512


def test_the_signal_secret_is_optional_and_may_come_from_the_environment() -> None:
    assert load(definition()).signal_secret is None
    assert load(definition(signalSecret=f"  {SIGNAL}  ")).signal_secret == SIGNAL
    from_env = load(definition(signalSecretEnv="SIGNAL_SECRET"))
    assert (from_env.signal_secret, from_env.signal_secret_env) == (SIGNAL, "SIGNAL_SECRET")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"signalSecret": SIGNAL, "signalSecretEnv": "SIGNAL_SECRET"},
            ("signalSecret", "set only one of signalSecret and signalSecretEnv"),
        ),
        ({"signalSecret": "short"}, ("signalSecret", "must be between 16 and 512 characters")),
        ({"signalSecretEnv": "SHORT"}, ("signalSecretEnv", "the value of SHORT must be between 16 and 512 characters")),
    ],
)
def test_signal_secret_rules(fields: dict[str, Any], expected: tuple[str, str]) -> None:
    assert problem(definition(**fields)) == expected


def test_the_signal_secret_must_differ_from_the_start_secret() -> None:
    literal = problem(definition(signalSecret=START))
    by_env = problem(definition(secret=None, secretEnv="START_SECRET", signalSecretEnv="START_SECRET"))

    assert literal[0] == "signalSecret" and by_env[0] == "signalSecretEnv"
    assert problem(definition(secret="é😀" * 6, signalSecret="é😀" * 6))[0] == "signalSecret"
    assert load(definition(secret="é😀" * 6, signalSecret="😀é" * 6)).signal_secret == "😀é" * 6
    assert literal[1].startswith("must differ from the start secret")


# -- stages -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"id": None}, ("stages[0].id", "is required")),
        ({"id": "s" * 65}, ("stages[0].id", "exceeds 64 characters")),
        ({"instructions": None}, ("stages[0].instructions", "is required")),
        ({"instructions": "i" * 4_001}, ("stages[0].instructions", "exceeds 4000 characters")),
        ({"label": "l" * 129}, ("stages[0].label", "exceeds 128 characters")),
        ({"label": " "}, ("stages[0].label", "must not be empty")),
        ({"maxAttempts": 0}, ("stages[0].maxAttempts", "must be an integer between 1 and 20")),
        ({"maxAttempts": 21}, ("stages[0].maxAttempts", "must be an integer between 1 and 20")),
        ({"maxAttempts": "3"}, ("stages[0].maxAttempts", "must be an integer between 1 and 20")),
        ({"maxAttempts": True}, ("stages[0].maxAttempts", "must be an integer between 1 and 20")),
        ({"autoResumeLimit": 0}, ("stages[0].autoResumeLimit", "must be an integer between 1 and 20")),
        ({"autoResumeLimit": 21}, ("stages[0].autoResumeLimit", "must be an integer between 1 and 20")),
        (
            {"area": "testing"},
            (
                "stages[0].area",
                "must be one of harness, gates, implementation, workflow, documentation, security, other",
            ),
        ),
        ({"maxTransitions": 0}, ("stages[0].maxTransitions", "must be an integer between 1 and 100")),
        ({"maxTransitions": 101}, ("stages[0].maxTransitions", "must be an integer between 1 and 100")),
        ({"requiredEvidence": "lint"}, ("stages[0].requiredEvidence", "must be an array")),
        ({"requiredEvidence": ["k" * 129]}, ("stages[0].requiredEvidence[0]", "exceeds 128 characters")),
        ({"requiredEvidence": ["lint", ""]}, ("stages[0].requiredEvidence[1]", "must not be empty")),
        ({"evidencePolicies": []}, ("stages[0].evidencePolicies", "must be an object")),
        ({"on": "plan"}, ("stages[0].on", "must be an object")),
    ],
)
def test_a_bad_stage_field_is_named(fields: dict[str, Any], expected: tuple[str, str]) -> None:
    raw = stage("plan", **fields)
    raw = {key: value for key, value in raw.items() if value is not None}

    assert problem(definition(stages=[raw])) == expected


def test_stage_integers_follow_javascript() -> None:
    # Number.isInteger(3.0) is true: JSON 3.0 and 3 are the same number.
    assert load(definition(stages=[stage("plan", maxAttempts=3.0)])).stages[0].max_attempts == 3
    assert load(definition(stages=[stage("plan", maxAttempts=20, autoResumeLimit=20)])).stages[0].max_attempts == 20


def test_stage_counts() -> None:
    assert len(load(definition(stages=[stage(f"s{n}") for n in range(32)])).stages) == 32
    assert problem(definition(stages=[stage(f"s{n}") for n in range(33)])) == ("stages", "must hold 1 to 32 stages")
    keys = [f"k{n}" for n in range(33)]
    assert load(definition(stages=[stage("plan", requiredEvidence=keys[:32])])).stages[0].required_evidence == tuple(
        keys[:32]
    )
    assert problem(definition(stages=[stage("plan", requiredEvidence=keys)])) == (
        "stages[0].requiredEvidence",
        "must hold at most 32 keys",
    )


def test_stage_ids_are_unique() -> None:
    raw = definition(stages=[stage("plan"), stage("build"), stage(" plan ")])

    assert problem(raw) == ("stages[2].id", "duplicate stage id plan (stages[0])")


def test_a_stage_that_is_not_an_object_is_named() -> None:
    assert problem(definition(stages=[stage("plan"), "build"])) == ("stages[1]", "must be an object")


# -- evidence policies --------------------------------------------------------------------------


def test_a_policy_key_is_canonicalised_and_must_be_required() -> None:
    raw = definition(
        stages=[
            stage("review", requiredEvidence=["Peer Review"], evidencePolicies={"  PEER   review ": review_policy()})
        ]
    )

    assert list(load(raw).stages[0].policies) == ["peer review"]
    raw["stages"][0]["evidencePolicies"] = {"lint": review_policy()}
    assert problem(raw) == ("stages[0].evidencePolicies.lint", "'lint' is not one of the stage's requiredEvidence")


def test_policy_keys_equal_after_canonicalisation_are_a_load_error() -> None:
    raw = definition(
        stages=[
            stage(
                "review",
                requiredEvidence=["review"],
                evidencePolicies={"review": review_policy(), " Review": review_policy()},
            )
        ]
    )

    field, message = problem(raw)

    assert field == 'stages[0].evidencePolicies[" Review"]'
    assert message.startswith("duplicates stages[0].evidencePolicies.review")


P = "stages[1].evidencePolicies.review"


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (review_policy(kind=None), (f"{P}.kind", 'is required ("peer-reply")')),
        (review_policy(kind="vote"), (f"{P}.kind", 'must be "peer-reply"')),
        (review_policy(minProducers=None), (f"{P}.minProducers", "is required")),
        (review_policy(minProducers=0), (f"{P}.minProducers", "must be an integer between 1 and 8")),
        (review_policy(minProducers=9), (f"{P}.minProducers", "must be an integer between 1 and 8")),
        (review_policy(minProducers=4), (f"{P}.minProducers", "exceeds the number of eligibleAgents (3)")),
        (review_policy(eligibleAgents=None), (f"{P}.eligibleAgents", "is required")),
        (review_policy(eligibleAgents=[]), (f"{P}.eligibleAgents", "must hold 1 to 16 agents")),
        (
            review_policy(eligibleAgents=[f"a{n}" for n in range(17)]),
            (f"{P}.eligibleAgents", "must hold 1 to 16 agents"),
        ),
        (review_policy(eligibleAgents=["alice", ""]), (f"{P}.eligibleAgents[1]", "must not be empty")),
        (
            review_policy(eligibleAgents=["alice", 7]),
            (f"{P}.eligibleAgents[1]", "must be an agent name or id, or an object {agent, provider, model}"),
        ),
        (
            review_policy(eligibleAgents=["alice", "bob", "ALICE"]),
            (
                f"{P}.eligibleAgents[2]",
                f"duplicates {P}.eligibleAgents[0] (agents are compared case-insensitively)",
            ),
        ),
        (
            review_policy(eligibleAgents=["alice", "bob", " COORDINATOR "]),
            (
                f"{P}.eligibleAgents[2]",
                "must not be the workflow target coordinator: it cannot produce evidence for its own run",
            ),
        ),
        (
            review_policy(acceptedStatuses=["replied", "expired"]),
            (f"{P}.acceptedStatuses", 'must be ["replied"] (the only status peer evidence may have)'),
        ),
        (
            review_policy(acceptedStatuses="replied"),
            (f"{P}.acceptedStatuses", 'must be ["replied"] (the only status peer evidence may have)'),
        ),
        (
            review_policy(quorum=2),
            (
                f"{P}.quorum",
                "is not a supported field"
                " (allowed: kind, minProducers, eligibleAgents, acceptedStatuses, degradation, distinctBy)",
            ),
        ),
        (review_policy(degradation=1), (f"{P}.degradation", "must be an object")),
        (review_policy(degradation={}), (f"{P}.degradation.minProducers", "is required")),
        (
            review_policy(degradation={"minProducers": 0}),
            (f"{P}.degradation.minProducers", "must be an integer of at least 1 and lower than minProducers (2)"),
        ),
        (
            review_policy(degradation={"minProducers": 2}),
            (f"{P}.degradation.minProducers", "must be an integer of at least 1 and lower than minProducers (2)"),
        ),
        (
            review_policy(degradation={"minProducers": 1, "approver": "ops"}),
            (f"{P}.degradation.approver", "is not a supported field (allowed: minProducers)"),
        ),
        (
            review_policy(eligibleAgents=[{"agent": "alice", "region": "eu"}, "bob"]),
            (f"{P}.eligibleAgents[0].region", "is not a supported field (allowed: agent, provider, model)"),
        ),
        (
            review_policy(eligibleAgents=[{"provider": "openai"}, "bob"]),
            (f"{P}.eligibleAgents[0].agent", "is required"),
        ),
    ],
)
def test_evidence_policy_rules(policy: dict[str, Any], expected: tuple[str, str]) -> None:
    assert problem(with_policy(policy)) == expected


def test_accepted_statuses_may_be_given_and_a_degradation_below_two_warns() -> None:
    warnings: list[Problem] = []
    raw = with_policy(review_policy(acceptedStatuses=[" replied "], degradation={"minProducers": 1}))

    loaded = load(raw, warn=warnings.append)

    assert loaded.stages[1].policies["review"].degraded_min_producers == 1
    assert [(w.field, w.message) for w in warnings] == [
        (f"{P}.degradation.minProducers", "is 1: a single producer can satisfy the degraded quorum")
    ]
    assert (
        load(with_policy(review_policy(minProducers=3, degradation={"minProducers": 2})))
        .stages[1]
        .policies["review"]
        .degraded_min_producers
        == 2
    )


def test_distinct_by_needs_declared_dimensions() -> None:
    raw = with_policy(
        review_policy(
            distinctBy=["provider"], eligibleAgents=[{"agent": "alice", "provider": "anthropic"}, "bob", {"agent": "c"}]
        )
    )

    assert problems(raw) == [
        (f"{P}.eligibleAgents[1]", "must declare its provider (distinctBy lists provider)"),
        (f"{P}.eligibleAgents[2]", "must declare its provider (distinctBy lists provider)"),
    ]


@pytest.mark.parametrize(
    ("distinct_by", "expected"),
    [
        (["region"], (f"{P}.distinctBy[0]", "must be one of provider, model")),
        (["provider", "provider"], (f"{P}.distinctBy[1]", "lists provider twice")),
        ("provider", (f"{P}.distinctBy", "must be an array")),
    ],
)
def test_distinct_by_values(distinct_by: object, expected: tuple[str, str]) -> None:
    agents = [{"agent": "alice", "provider": "anthropic"}, {"agent": "bob", "provider": "openai"}]

    assert problem(with_policy(review_policy(distinctBy=distinct_by, eligibleAgents=agents))) == expected


def test_a_quorum_the_declared_providers_cannot_reach_is_a_load_error() -> None:
    agents = [
        {"agent": "alice", "provider": "Anthropic"},
        {"agent": "bob", "provider": "anthropic "},
        {"agent": "carol", "provider": "openai"},
    ]

    assert load(with_policy(review_policy(distinctBy=["provider"], eligibleAgents=agents)))
    assert problem(with_policy(review_policy(minProducers=3, distinctBy=["provider"], eligibleAgents=agents))) == (
        f"{P}.minProducers",
        "cannot be met: at most 2 eligible agents differ pairwise by provider",
    )


def test_a_provider_and_model_quorum_is_a_matching() -> None:
    # (p1, m1), (p1, m2), (p2, m1): at most two agents differ in both (p1/m2 and p2/m1).
    agents = [
        {"agent": "a", "provider": "p1", "model": "m1"},
        {"agent": "b", "provider": "p1", "model": "m2"},
        {"agent": "c", "provider": "p2", "model": "m1"},
    ]
    both = ["provider", "model"]

    assert load(with_policy(review_policy(minProducers=2, distinctBy=both, eligibleAgents=agents)))
    assert problem(with_policy(review_policy(minProducers=3, distinctBy=both, eligibleAgents=agents))) == (
        f"{P}.minProducers",
        "cannot be met: at most 2 eligible agents differ pairwise by provider and model",
    )
    assert problem(with_policy(review_policy(minProducers=3, distinctBy=["model"], eligibleAgents=agents)))[1] == (
        "cannot be met: at most 2 eligible agents differ pairwise by model"
    )


# -- transitions --------------------------------------------------------------------------------


def test_transition_forms() -> None:
    raw = definition(
        maxTransitions=10,
        stages=[
            stage("plan", on={"passed": "build", "failed": "plan"}),
            stage("build", on={" failed ": {"target": "plan", "maxTransitions": 100}, "custom": TERMINAL}),
        ],
    )

    plan, build = load(raw).stages

    assert plan.edges == {"passed": Edge("passed", "build"), "failed": Edge("failed", "plan")}
    assert build.edges == {"failed": Edge("failed", "plan", 100), "custom": Edge("custom", TERMINAL)}


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        ({" ": "build"}, ('stages[0].on[" "]', "must not be empty")),
        ({"o" * 65: "build"}, (f"stages[0].on.{'o' * 65}", "exceeds 64 characters")),
        ({"passed": 3}, ("stages[0].on.passed", 'must be a stage id, "$terminal", or {target, maxTransitions}')),
        ({"passed": ""}, ("stages[0].on.passed", "must not be empty")),
        ({"passed": {"maxTransitions": 1}}, ("stages[0].on.passed.target", "is required")),
        (
            {"failed": "build", " failed": "build"},
            ('stages[0].on[" failed"]', "duplicates the outcome 'failed' (outcome keys are trimmed)"),
        ),
    ],
)
def test_transition_rules(on: dict[str, Any], expected: tuple[str, str]) -> None:
    assert problem(definition(stages=[stage("plan", on=on), stage("build")])) == expected


def test_a_self_edge_is_a_back_edge() -> None:
    raw = definition(stages=[stage("plan", on={"warning": "plan"})])

    assert problem(raw)[0] == "maxTransitions"
    assert load({**raw, "maxTransitions": 1}).stages[0].edges["warning"] == Edge("warning", "plan")


# -- plan hash, oracle ----------------------------------------------------------------------------


def integrity(**fields: Any) -> dict[str, Any]:
    return definition(
        stages=[
            stage("reproduce", requiredEvidence=["Repro"]),
            stage("plan", requiredEvidence=["Plan", "review"], evidencePolicies={"review": review_policy()}),
            stage("build"),
            stage("b"),
            stage("B"),
            stage("😀"),
            stage("Ａ"),
        ],
        **fields,
    )


@pytest.mark.parametrize("key", ["planHash", "reproOracle"])
def test_hash_configs(key: str) -> None:
    attribute = {"planHash": "plan_hash", "reproOracle": "repro_oracle"}[key]

    loaded = load(integrity(**{key: {"stageId": "plan", "evidenceKey": " PLAN "}}))

    assert getattr(loaded, attribute) == EvidenceHashConfig("plan", "plan")
    assert problems(integrity(**{key: {"stageId": "nope", "evidenceKey": "plan"}})) == [
        (f"{key}.stageId", "names no stage of this definition (nope)")
    ]
    assert problems(integrity(**{key: {"stageId": "plan"}})) == [(f"{key}.evidenceKey", "is required")]
    assert problems(integrity(**{key: {"stageId": "plan", "evidenceKey": "lint"}})) == [
        (f"{key}.evidenceKey", "'lint' is not one of stage plan's requiredEvidence")
    ]
    assert problems(integrity(**{key: {"stageId": "plan", "evidenceKey": "Review"}})) == [
        (f"{key}.evidenceKey", "'review' is a peer evidence requirement: it has no values to hash")
    ]
    assert problems(integrity(**{key: "plan"})) == [(key, "must be an object")]


def test_require_plan_hash_is_unique_and_sorted_by_code_unit() -> None:
    plan = {"stageId": "plan", "evidenceKey": "plan"}
    loaded = load(integrity(planHash=plan, requirePlanHash=["b", "Ａ", "😀", "B", "build", "b"]))

    # U+D83D (the emoji's first unit) sorts before U+FF21 by code unit, after it by code point.
    assert loaded.require_plan_hash == ("B", "b", "build", "😀", "Ａ")


def test_require_plan_hash_rules() -> None:
    plan = {"stageId": "plan", "evidenceKey": "plan"}

    assert problems(integrity(planHash=plan, requirePlanHash=["nope", "reproduce", "plan", ""])) == [
        ("requirePlanHash[0]", "names no stage of this definition (nope)"),
        ("requirePlanHash[1]", "stage reproduce does not come after the planHash stage plan"),
        ("requirePlanHash[2]", "stage plan does not come after the planHash stage plan"),
        ("requirePlanHash[3]", "must not be empty"),
    ]
    assert problems(integrity(requirePlanHash=["build"])) == [
        ("requirePlanHash", "needs planHash: without it no plan hash is ever captured")
    ]
    assert load(integrity(requirePlanHash=[])).require_plan_hash == ()


# -- notify -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("notify", "expected"),
    [
        ({"url": "ftp://example.com/x", "secret": NOTIFY}, ("notify.url", "must be an http or https URL with a host")),
        ({"url": "https:///path", "secret": NOTIFY}, ("notify.url", "must be an http or https URL with a host")),
        ({"url": "https://[::1/x", "secret": NOTIFY}, ("notify.url", "must be an http or https URL with a host")),
        (
            {"url": "https://user:pw@example.com/", "secret": NOTIFY},
            ("notify.url", "must not carry credentials (requests are signed with the notify secret)"),
        ),
        ({"url": "https://example.com/a b", "secret": NOTIFY}, ("notify.url", "must not contain whitespace")),
        ({"url": "https://e.com/" + "x" * 2_035, "secret": NOTIFY}, ("notify.url", "exceeds 2048 characters")),
        ({"secret": NOTIFY}, ("notify.url", "is required")),
        ({"url": "https://example.com/"}, ("notify.secret", "is required (set secret or secretEnv)")),
        (
            {"url": "https://example.com/", "secret": "short"},
            ("notify.secret", "must be between 16 and 512 characters"),
        ),
        (
            {"url": "https://example.com/", "secret": NOTIFY, "secretEnv": "NOTIFY_SECRET"},
            ("notify.secret", "set only one of secret and secretEnv"),
        ),
        (
            {"url": "https://example.com/", "secretEnv": "GONE"},
            ("notify.secretEnv", "environment variable GONE is not set (workflow.notify.secret must be a string)"),
        ),
        ("https://example.com/", ("notify", "must be an object")),
    ],
)
def test_notify_rules(notify: object, expected: tuple[str, str]) -> None:
    assert problem(definition(notify=notify)) == expected


def test_notify_loads() -> None:
    url = "http://hooks.example.com:8080/kxm?x=1"

    assert load(definition(notify={"url": url, "secret": NOTIFY})).notify == Notify(url, NOTIFY)
    assert load(definition(notify={"url": "https://e.com/" + "x" * 2_034, "secret": NOTIFY})).notify is not None


# -- collected problems -------------------------------------------------------------------------


def test_every_problem_is_collected_in_one_pass() -> None:
    raw = definition(
        secret="short",
        ttlMs=10,
        stages=[
            stage("plan", maxAttempts=0, requiredEvidence=["a", "A"]),
            stage("build", on={"passed": "nowhere"}, evidencePolicies={"x": review_policy()}),
        ],
    )

    assert problems(raw) == [
        ("secret", "must be between 16 and 512 characters"),
        ("ttlMs", "must be an integer between 1000 and 604800000"),
        ("stages[0].requiredEvidence[1]", "duplicates stages[0].requiredEvidence[0]: both are 'a' once canonicalised"),
        ("stages[0].maxAttempts", "must be an integer between 1 and 20"),
        ("stages[1].evidencePolicies.x", "'x' is not one of the stage's requiredEvidence"),
        ("stages[1].on.passed", "targets unknown stage nowhere"),
    ]


def test_the_error_names_origin_definition_and_field() -> None:
    text = json.dumps([definition(ttlMs=10), definition(id=None, stages=[stage("plan", maxAttempts=99)])])

    with pytest.raises(DefinitionError) as caught:
        load_text(text, origin="defs/all.json", env=ENV)

    error = caught.value
    assert isinstance(error, InvalidArgument)
    assert error.reason is Reason.WORKFLOW_DEFINITION_INVALID
    assert error.message.splitlines() == [
        "defs/all.json: workflow fix: ttlMs: must be an integer between 1000 and 604800000",
        "defs/all.json: workflow #1: id: is required",
        "defs/all.json: workflow #1: stages[0].maxAttempts: must be an integer between 1 and 20",
    ]
    assert error.metadata == {"origin": "defs/all.json", "definition": "fix", "field": "ttlMs", "problems": "3"}
    assert [violation.field for violation in error.field_violations] == ["ttlMs", "id", "stages[0].maxAttempts"]
    assert error.field_violations[1].description == "defs/all.json: workflow #1: is required"


def test_duplicate_ids_in_one_text_are_a_problem() -> None:
    text = json.dumps([definition(), definition(id="other"), definition(id=" fix")])

    found = text_problems(text)

    assert [(p.definition, p.field, p.message) for p in found] == [
        ("fix", "id", "duplicate workflow id: definition #0 has it too")
    ]


def test_a_definition_error_needs_a_problem() -> None:
    with pytest.raises(ValueError, match="at least one problem"):
        DefinitionError([])


# -- JSON and YAML ------------------------------------------------------------------------------

YAML = """\
# the same definition as full_definition(), in YAML
id: fix-bug
source: github
project: alpha
target: Coordinator
secretEnv: START_SECRET
signalSecret: signal-secret-0123456789
event: issues
filter: {path: action, equals: opened}
delivery: steer
ttlMs: 3600000
promptTemplate: "Fix {{issue.key}}: {{issue.fields}}"
maxTransitions: 6
planHash: {stageId: plan, evidenceKey: The Plan}
reproOracle: {stageId: reproduce, evidenceKey: repro}
requirePlanHash: [review, build]
notify:
  url: https://hooks.example.com/kxm
  secretEnv: NOTIFY_SECRET
stages:
  - id: reproduce
    label: Reproduce the bug
    instructions: do reproduce
    requiredEvidence: [repro]
    area: harness
  - id: plan
    instructions: do plan
    requiredEvidence: [the plan]
    maxAttempts: 2
    autoResumeLimit: 1
  - id: build
    instructions: do build
    requiredEvidence: [lint, review]
    maxTransitions: 3
    evidencePolicies:
      review:
        kind: peer-reply
        minProducers: 2
        eligibleAgents:
          - {agent: alice, provider: anthropic, model: claude}
          - {agent: bob, provider: openai, model: gpt}
          - carol
        degradation: {minProducers: 1}
    on:
      failed: {target: plan, maxTransitions: 2}
      warning: build
  - id: review
    instructions: do review
    requiredEvidence: [approval]
    evidencePolicies:
      approval:
        kind: peer-reply
        minProducers: 2
        distinctBy: [provider, model]
        eligibleAgents:
          - {agent: alice, provider: anthropic, model: claude}
          - {agent: bob, provider: openai, model: gpt}
    on:
      passed: $terminal
      rejected: build
"""


@pytest.mark.parametrize("origin", ["defs/fix.yaml", "defs/fix.yml", "defs/FIX.YAML"])
def test_yaml_loads_like_its_json(origin: str) -> None:
    (from_yaml,) = load_text(YAML, origin=origin, env=ENV)

    assert from_yaml == load(full_definition())
    # YAML 1.1 would read the key `on` as the boolean true; here it stays the field `on`.
    assert from_yaml.stages[3].edges["passed"] == Edge("passed", TERMINAL)


def test_json_text_one_definition_or_an_array() -> None:
    one = load_text(json.dumps(full_definition()), origin="defs/fix.json", env=ENV)
    many = load_text(json.dumps([full_definition(), definition(id="other")]), origin="defs/all", env=ENV)

    assert one == (load(full_definition()),)
    assert [d.id for d in many] == ["fix-bug", "other"]


def test_the_format_is_guessed_and_can_be_forced() -> None:
    # No YAML suffix: JSON first, then YAML for a text that does not look like JSON.
    assert load_text(YAML, origin="defs/fix.conf", env=ENV)[0].id == "fix-bug"
    assert load_text(json.dumps(definition()), origin="defs/fix.yaml", env=ENV)[0].id == "fix"  # JSON is YAML
    assert load_text(YAML, origin="defs/fix.json", env=ENV, format="yaml")[0].id == "fix-bug"
    (forced,) = text_problems(YAML, origin="defs/fix.yaml", format="json")
    assert forced.message.startswith("invalid JSON: ")
    with pytest.raises(ValueError, match="unknown definition format"):
        load_text("{}", origin="x", env=ENV, format="toml")


def test_a_text_that_looks_like_json_is_not_read_as_yaml() -> None:
    (found,) = text_problems('{"id": "fix", stages: []}', origin="defs/fix")

    assert (found.definition, found.field) == ("", "")
    assert found.message.startswith("invalid JSON: Expecting property name")
    assert str(found).startswith("defs/fix: invalid JSON: ")


def test_unparsable_and_empty_texts() -> None:
    assert text_problems("id: [unclosed", origin="defs/fix.yaml")[0].message.startswith("invalid YAML: ")
    assert [p.message for p in text_problems("", origin="defs/fix.yaml")] == ["holds no definitions"]
    assert [p.message for p in text_problems("  \n", origin="defs/fix.json")] == ["holds no definitions"]
    assert [p.message for p in text_problems("[]")] == ["holds no definitions"]
    assert [p.message for p in text_problems("null")] == ["holds no definitions"]
    assert [p.message for p in text_problems("# only a comment\n", origin="x.yml")] == ["holds no definitions"]
    assert text_problems('{"ttlMs": NaN}')[0].message.startswith("invalid JSON: NaN is not JSON")
    assert [(p.definition, p.field, p.message) for p in text_problems("[1]")] == [("#0", "", "must be an object")]
    assert [p.message for p in text_problems("[" * 100_000 + "]" * 100_000)] == ["nests too deeply"]


def test_yaml_scalars_stay_as_json_would_have_them() -> None:
    text = YAML.replace("event: issues", "event: 2024-01-02").replace("warning: build", "yes: build")

    (loaded,) = load_text(text, origin="defs/fix.yaml", env=ENV)

    assert loaded.event == "2024-01-02"
    assert "yes" in loaded.stages[2].edges


def test_a_yaml_key_that_is_not_a_string_is_a_problem() -> None:
    text = YAML.replace("warning: build", "1: build")

    found = text_problems(text, origin="defs/fix.yaml")

    assert [(p.field, p.message) for p in found] == [("stages[2].on[1]", "keys must be strings")]


def test_a_yaml_file_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "fix.yaml"
    path.write_text(YAML, encoding="utf-8")

    assert load_text(path.read_text(encoding="utf-8"), origin=str(path), env=ENV)[0] == load(full_definition())


# -- normalised JSON and the hash -----------------------------------------------------------------


def test_to_json_round_trips() -> None:
    loaded = load(full_definition())

    data = to_json(loaded)

    assert load_definition(data, origin="stored", env=ENV) == loaded
    assert load_text(json.dumps(data), origin="stored.json", env=ENV) == (loaded,)
    assert load(definition()) == load_definition(to_json(load(definition())), origin="stored", env=ENV)


def test_to_json_shape() -> None:
    data = to_json(load(full_definition()))

    assert data["secretEnv"] == "START_SECRET" and "secret" not in data
    assert data["signalSecret"] == SIGNAL
    assert data["notify"] == {"url": "https://hooks.example.com/kxm", "secretEnv": "NOTIFY_SECRET"}
    assert data["requirePlanHash"] == ["build", "review"]
    stages: Any = data["stages"]
    assert stages[0] == {
        "id": "reproduce",
        "label": "Reproduce the bug",
        "instructions": "do reproduce",
        "requiredEvidence": ["repro"],
        "maxAttempts": 3,
        "area": "harness",
    }
    assert stages[2]["evidencePolicies"]["review"] == {
        "kind": "peer-reply",
        "minProducers": 2,
        "eligibleAgents": [
            {"agent": "alice", "provider": "anthropic", "model": "claude"},
            {"agent": "bob", "provider": "openai", "model": "gpt"},
            "carol",
        ],
        "acceptedStatuses": ["replied"],
        "degradation": {"minProducers": 1},
    }
    assert stages[2]["on"] == {"failed": {"target": "plan", "maxTransitions": 2}, "warning": "build"}
    assert stages[3]["evidencePolicies"]["approval"]["distinctBy"] == ["provider", "model"]
    assert to_json(load(definition()))["delivery"] == "followUp"


def test_redacted_hides_literal_secrets_only() -> None:
    raw = definition(signalSecret=SIGNAL, notify={"url": "https://e.com/", "secret": NOTIFY})

    data = to_json(load(raw), redacted=True)

    assert (data["secret"], data["signalSecret"]) == ("***", "***")
    assert data["notify"] == {"url": "https://e.com/", "secret": "***"}
    assert to_json(load(full_definition()), redacted=True)["secretEnv"] == "START_SECRET"


def test_the_hash_is_the_canonical_json_without_secrets() -> None:
    loaded = load(full_definition())
    public = to_json(loaded)
    for key in ("secret", "secretEnv", "signalSecret", "signalSecretEnv"):
        public.pop(key, None)
    public["notify"] = {"url": "https://hooks.example.com/kxm"}

    assert loaded.hash == hashlib.sha256(canonical_json(public).encode()).hexdigest() == definition_hash(loaded)
    assert len(loaded.hash) == 64 and int(loaded.hash, 16) >= 0


def test_rotating_a_secret_leaves_the_hash_unchanged() -> None:
    base = load(definition(signalSecret=SIGNAL, notify={"url": "https://e.com/", "secret": NOTIFY})).hash
    rotated = definition(
        secret="another-start-secret-000",
        signalSecret="another-signal-secret-00",
        notify={"url": "https://e.com/", "secret": "another-notify-secret-00"},
    )
    by_env = definition(
        secret=None,
        secretEnv="START_SECRET",
        signalSecretEnv="SIGNAL_SECRET",
        notify={"url": "https://e.com/", "secretEnv": "NOTIFY_SECRET"},
    )

    assert load(rotated).hash == base
    assert load(by_env).hash == base


def test_the_hash_ignores_spelling_but_not_meaning() -> None:
    base = load(definition()).hash
    respelled = definition(comment="ignored", source="generic", delivery="followUp")
    respelled["stages"][0] = {"maxAttempts": 3, "label": "plan", "instructions": " do plan ", "id": "plan"}

    assert load(respelled).hash == base
    changed = definition()
    changed["stages"][1]["instructions"] = "do build twice"
    assert load(changed).hash != base
    assert load(definition(stages=[stage("plan"), stage("review"), stage("build")])).hash != base
    assert load(definition(stages=[stage("plan", maxAttempts=4), stage("build"), stage("review")])).hash != base
    assert load(definition(notify={"url": "https://e.com/", "secret": NOTIFY})).hash != base


def test_equal_definitions_have_equal_dimensions_whatever_the_order() -> None:
    agents = [{"agent": "a", "provider": "p1", "model": "m1"}, {"agent": "b", "provider": "p2", "model": "m2"}]
    one = load(with_policy(review_policy(distinctBy=["model", "provider"], eligibleAgents=agents)))
    other = load(with_policy(review_policy(distinctBy=["provider", "model"], eligibleAgents=agents)))

    assert one == other and one.hash == other.hash


def test_stage_definition_is_what_the_run_snapshots() -> None:
    loaded = load(definition(stages=[stage("plan", requiredEvidence=["Lint"])]))

    assert loaded.stages == (StageDefinition("plan", "plan", "do plan", ("lint",)),)


def test_the_structure_loads_without_the_environment_and_keeps_the_variable_names() -> None:
    document = {
        "id": "fix",
        "project": "alpha",
        "target": "coordinator",
        "secretEnv": "KXM_TEST_START_SECRET",
        "promptTemplate": "Fix it",
        "stages": [{"id": "plan", "instructions": "Plan"}],
    }
    structure = load_definition(document, origin="store", env=None)
    resolved = load_definition(document, origin="store", env={"KXM_TEST_START_SECRET": "s" * 16})

    assert (structure.secret, structure.secret_env) == ("", "KXM_TEST_START_SECRET")
    assert structure.hash == resolved.hash and resolved.secret == "s" * 16
