"""The gate registry (kxm.gate-registry.v1, workflow-context.md §6.1), its commands checked by the
argv rules and the seatbelt (both tabled in test_gate_safety.py), inline gate steps, and a workflow's gate steps checked
against the project's registry (§6.2)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kxm_grpc.domain.context.skills import EvaluationKind
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.workflows.plans import WorkflowDefinitionError, compile_workflow, load_workflow, plan_hash
from kxm_grpc.domain.workflows.plans.gates import (
    DEFAULT_INLINE_TIMEOUT_MS,
    GateCheck,
    GateKind,
    GateRegistry,
    load_gate_registry,
)
from kxm_grpc.domain.workflows.plans.reload import load_plan
from kxm_grpc.errors import Reason
from kxm_grpc.services.workflows.gate_registries import registry_document
from tests.unit.test_step_definitions import registry, seed


def document() -> dict[str, Any]:
    return {
        "schema": "kxm.gate-registry.v1",
        "description": "The project's deterministic checks",
        "gates": {
            "verify": {
                "kind": "command",
                "checks": [
                    {"name": "typecheck", "argv": ["npx", "tsc", "--noEmit"], "timeoutMs": 120_000},
                    {"name": "tests", "argv": ["npm", "test"], "timeoutMs": 600_000},
                ],
            },
            "repro": {"kind": "command", "argv": ["/usr/bin/env", "pytest", "tests/repro"], "timeoutMs": 60_000},
            "plan-exists": {"kind": "artifacts-exist", "paths": ["docs/plan.md", "docs/api/openapi.yaml"]},
        },
    }


def problems(raw: object) -> list[tuple[str, str]]:
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_gate_registry(raw)
    assert caught.value.reason is Reason.WORKFLOW_DEFINITION_INVALID
    return [(problem.field, problem.code) for problem in caught.value.problems]


def test_a_registry_loads_every_kind() -> None:
    loaded = load_gate_registry(document())

    verify = loaded.gates["verify"]
    assert verify.kind is GateKind.COMMAND
    assert verify.checks == (
        GateCheck("typecheck", ("npx", "tsc", "--noEmit"), 120_000),
        GateCheck("tests", ("npm", "test"), 600_000),
    )
    assert verify.timeout_ms == 720_000
    assert loaded.gates["repro"].checks == (GateCheck("repro", ("/usr/bin/env", "pytest", "tests/repro"), 60_000),)
    assert loaded.gates["plan-exists"].paths == ("docs/plan.md", "docs/api/openapi.yaml")


def test_hashes_are_stable_and_cover_what_runs() -> None:
    loaded = load_gate_registry(document())
    reordered = dict(reversed(list(copy.deepcopy(document()).items())))
    assert load_gate_registry(reordered).hash == loaded.hash
    assert (
        loaded.gates["repro"].hash
        == "sha256:"
        + __import__("hashlib").sha256(canonical_json(loaded.gates["repro"].to_json()).encode()).hexdigest()
    )

    changed = document()
    changed["gates"]["verify"]["checks"][1]["argv"] = ["npm", "run", "test:all"]
    other = load_gate_registry(changed)
    assert other.hash != loaded.hash
    assert other.gates["verify"].hash != loaded.gates["verify"].hash
    assert other.gates["repro"].hash == loaded.gates["repro"].hash  # a gate's hash is its own


def test_evaluates_is_pinned_only_where_a_gate_declares_it() -> None:
    """A gate's ``evaluates`` (the skill evaluation kind its verdict is, decision 266) is part of
    its hash, its registry's and its plan's; a registry that declares none keeps the hash it had
    before the key existed, and the stored document loads back to the same registry."""
    plain = load_gate_registry(document())
    declared = document()
    declared["gates"]["verify"]["evaluates"] = "functional"
    declared["gates"]["plan-exists"]["evaluates"] = "static-review"
    loaded = load_gate_registry(declared)
    verify = {"kind": "command", "argv": ["npm", "run", "verify"], "timeoutMs": 600_000}
    evaluating = load_gate_registry(
        {"schema": "kxm.gate-registry.v1", "gates": {"npm-verify": {**verify, "evaluates": "safety"}}}
    )
    plan = compile_workflow(load_workflow(seed(), workflow_id="deliver", gates=evaluating), gates=evaluating)
    _, pinned = load_plan(plan)

    assert plain.hash == "sha256:fc4fd92449deb74a2ce0be7a2445430a17797f819edae24380bbc9c459364299"
    assert "evaluates" not in canonical_json(plain.to_json())
    assert loaded.gates["verify"].evaluates is EvaluationKind.FUNCTIONAL
    assert loaded.gates["plan-exists"].to_json()["evaluates"] == "static-review"
    assert loaded.gates["verify"].hash != plain.gates["verify"].hash
    assert loaded.gates["repro"].hash == plain.gates["repro"].hash
    assert loaded_again(loaded).hash == loaded.hash
    assert pinned["npm-verify"].evaluates is EvaluationKind.SAFETY
    assert pinned["npm-verify"].hash == evaluating.gates["npm-verify"].hash
    assert plan_hash(plan) != plan_hash(
        compile_workflow(load_workflow(seed(), workflow_id="deliver", gates=registry()), gates=registry())
    )


def loaded_again(registry_value: GateRegistry) -> GateRegistry:
    """The registry as its stored document loads back (``gate_registries.registry_document``)."""
    return load_gate_registry(json.loads(registry_document(registry_value)))


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda raw: raw.update(schema="kxm.gate-registry.v2"), [("schema", "gate_registry_schema_unsupported")]),
        (lambda raw: raw.pop("gates"), [("gates", "field_required")]),
        (lambda raw: raw.update(owner="me"), [("owner", "field_unknown")]),
        (
            lambda raw: raw["gates"].update(Bad={"kind": "artifacts-exist", "paths": ["a"]}),
            [("gates.Bad", "gate_id_invalid")],
        ),
        (lambda raw: raw["gates"]["repro"].update(kind="reserved"), [("gates.repro.kind", "gate_kind_unknown")]),
        (lambda raw: raw["gates"]["repro"].update(cwd="control"), [("gates.repro.cwd", "field_unknown")]),
        (lambda raw: raw["gates"]["repro"].pop("timeoutMs"), [("gates.repro.timeoutMs", "field_required")]),
        (lambda raw: raw["gates"]["repro"].update(timeoutMs=0), [("gates.repro.timeoutMs", "duration_invalid")]),
        (lambda raw: raw["gates"]["repro"].update(argv=[]), [("gates.repro.argv", "gate_command_invalid")]),
        (lambda raw: raw["gates"]["repro"].update(argv=["./run.sh"]), [("gates.repro.argv", "gate_command_invalid")]),
        (lambda raw: raw["gates"]["repro"].update(argv=["a\\b"]), [("gates.repro.argv", "gate_command_invalid")]),
        (
            lambda raw: raw["gates"]["repro"].update(argv=["ok", "a\x00b"]),
            [("gates.repro.argv", "gate_command_invalid")],
        ),
        (lambda raw: raw["gates"]["repro"].update(argv=["npm", 3]), [("gates.repro.argv", "gate_command_invalid")]),
        (
            lambda raw: raw["gates"]["repro"].update(argv=["git", "push", "--force", "origin", "main"]),
            [("gates.repro.argv", "gate_command_destructive")],
        ),
        (
            lambda raw: raw["gates"]["verify"].update(argv=["npm", "test"]),
            [("gates.verify.checks", "gate_command_invalid")],
        ),
        (lambda raw: raw["gates"]["verify"].update(checks=[]), [("gates.verify.checks", "count_invalid")]),
        (
            lambda raw: raw["gates"]["verify"]["checks"][1].update(name="typecheck"),
            [("gates.verify.checks[1].name", "gate_check_duplicate")],
        ),
        (
            lambda raw: raw["gates"]["verify"]["checks"][0].pop("timeoutMs"),
            [("gates.verify.checks[0].timeoutMs", "field_required")],
        ),
        (
            lambda raw: raw["gates"]["plan-exists"].update(paths=["../secrets"]),
            [("gates.plan-exists.paths[0]", "gate_path_invalid")],
        ),
        (
            lambda raw: raw["gates"]["plan-exists"].update(paths=["/etc/passwd"]),
            [("gates.plan-exists.paths[0]", "gate_path_invalid")],
        ),
        (
            lambda raw: raw["gates"]["plan-exists"].update(paths=["a", "a"]),
            [("gates.plan-exists.paths[1]", "gate_path_duplicate")],
        ),
        (lambda raw: raw["gates"]["plan-exists"].update(paths=[]), [("gates.plan-exists.paths", "count_invalid")]),
        (
            lambda raw: raw["gates"]["plan-exists"].update(argv=["ls"]),
            [("gates.plan-exists.argv", "field_unknown")],
        ),
        (
            lambda raw: raw["gates"]["repro"].update(evaluates="speed"),
            [("gates.repro.evaluates", "gate_evaluates_invalid")],
        ),
    ],
)
def test_each_refusal_names_its_field_and_code(edit: Any, expected: list[tuple[str, str]]) -> None:
    raw = document()
    edit(raw)
    assert problems(raw) == expected


def test_every_problem_is_reported_at_once() -> None:
    raw = document()
    raw["gates"]["repro"]["argv"] = ["rm", "-rf", "/"]
    raw["gates"]["plan-exists"]["paths"] = ["/abs"]
    assert problems(raw) == [
        ("gates.repro.argv", "gate_command_destructive"),
        ("gates.plan-exists.paths[0]", "gate_path_invalid"),
    ]


def inline(command: object, **step: object) -> dict[str, Any]:
    raw = seed()
    gate = raw["steps"][2]
    del gate["gate"]
    gate["command"] = command
    gate.update(step)
    return raw


def test_an_inline_command_is_split_into_words_and_pinned_with_the_plan() -> None:
    workflow = load_workflow(inline("npm run verify"), workflow_id="deliver")
    step = workflow.steps[2]
    assert step.gate is None
    assert step.command is not None
    assert step.command.id == "step:verify-gate"
    assert step.command.checks == (GateCheck("verify-gate", ("npm", "run", "verify"), DEFAULT_INLINE_TIMEOUT_MS),)

    plan = compile_workflow(workflow)  # no registry needed: nothing names one
    assert plan["steps"]["verify-gate"]["gate"] == "step:verify-gate"
    assert plan["gates"]["step:verify-gate"]["hash"] == step.command.hash
    assert "gateRegistryHash" not in plan

    as_list = load_workflow(inline(["npm", "run", "verify"], timeoutMs=30_000), workflow_id="deliver")
    assert as_list.steps[2].command is not None
    assert as_list.steps[2].command.checks[0].timeout_ms == 30_000
    assert plan_hash(compile_workflow(as_list)) != plan_hash(plan)


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("npm test && git push --force", "gate_command_invalid"),
        ("git push --force", "gate_command_destructive"),
        ("echo 'unclosed", "gate_command_invalid"),
        (["./verify.sh"], "gate_command_invalid"),
    ],
)
def test_inline_commands_are_refused_as_registry_commands_are(command: object, code: str) -> None:
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_workflow(inline(command), workflow_id="deliver")
    assert [(p.field, p.code) for p in caught.value.problems] == [("steps[2].command", code)]


def test_gate_steps_are_checked_against_the_registry() -> None:
    load_workflow(seed(), workflow_id="deliver", gates=registry())

    unknown = seed()
    unknown["steps"][2]["gate"] = "lint"
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_workflow(unknown, workflow_id="deliver", gates=registry())
    assert [(p.field, p.code) for p in caught.value.problems] == [("steps[2].gate", "step_gate_unknown")]
    load_workflow(unknown, workflow_id="deliver")  # offline: references unchecked

    narrow = seed()
    narrow["steps"][2]["timeoutMs"] = 1_000
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_workflow(narrow, workflow_id="deliver", gates=registry())
    assert [(p.field, p.code) for p in caught.value.problems] == [("steps[2].timeoutMs", "gate_timeout_invalid")]

    artifacts = load_gate_registry(document())
    repro = seed()
    repro["steps"][2].update(gate="plan-exists", expect="fail")
    repro["steps"][2]["on"] = {
        "passed": "dual-critic-review",
        "repro-missing": {"target": "$terminal", "terminalStatus": "failed"},
    }
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_workflow(repro, workflow_id="deliver", gates=artifacts)
    assert ("steps[2].expect", "gate_expect_invalid") in [(p.field, p.code) for p in caught.value.problems]


def test_compiling_a_registry_gate_needs_the_registry() -> None:
    workflow = load_workflow(seed(), workflow_id="deliver")
    with pytest.raises(ValueError, match="npm-verify"):
        compile_workflow(workflow)
