"""Hub-driven workflow definitions (kxm_grpc.domain.workflows.plans): the kxm.workflow.v1 loader
and compiler rules of workflow-context.md §4.1, the compiled plan and its hash (§4.2), and every
problem reported at once with its field path and issue code."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest

from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.workflows.plans import (
    TERMINAL,
    Access,
    Assignments,
    Dimension,
    EvidenceHashConfig,
    EvidenceKind,
    EvidenceRequirement,
    GateExpect,
    Join,
    JoinStrategy,
    Limits,
    ProducerPolicy,
    StepKind,
    TerminalStatus,
    Transition,
    WorkflowDefinitionError,
    compile_workflow,
    load_workflow,
    plan_hash,
)
from kxm_grpc.domain.workflows.plans.gates import GateRegistry, load_gate_registry
from kxm_grpc.errors import InvalidArgument, Reason


def registry() -> GateRegistry:
    """The project's gate registry: the seed's verify gate."""
    return load_gate_registry(
        {
            "schema": "kxm.gate-registry.v1",
            "gates": {"npm-verify": {"kind": "command", "argv": ["npm", "run", "verify"], "timeoutMs": 600_000}},
        }
    )


def seed() -> dict[str, Any]:
    """The seeds' workflow.yaml (seed 000): plan → implement (2 attempts) → `npm run verify` gate
    with a back-edge budget → dual-critic review (quorum 2 PASS, distinct providers) → terminal."""
    return {
        "schema": "kxm.workflow.v1",
        "description": "Plan, implement, verify, review",
        "limits": {"maxTransitions": 12, "maxRunDurationMs": 3_600_000, "maxModelCost": 5, "currency": "USD"},
        "agents": {
            "claude-fable-critic": {"provider": "anthropic", "model": "claude-fable"},
            "gpt-sol-critic": {"provider": "openai", "model": "gpt-sol"},
        },
        "planHash": {"stageId": "plan", "evidenceKey": "plan"},
        "requirePlanHash": ["verify-gate", "implement-feature"],
        "steps": [
            {
                "id": "plan",
                "kind": "agent",
                "agent": "planner",
                "requiredEvidence": [{"key": "plan", "kind": "artifact"}],
                "on": {"passed": "implement-feature", "failed": {"target": TERMINAL, "terminalStatus": "failed"}},
            },
            {
                "id": "implement-feature",
                "kind": "agent",
                "agent": "writer-grok",
                "maxAttempts": 2,
                "description": "Write code matching the approved plan specification.",
                "repositories": {"backend": "write"},
                "requiredEvidence": [{"key": "implementation", "kind": "assignment-result"}],
                "on": {"passed": "verify-gate", "failed": {"target": TERMINAL, "terminalStatus": "failed"}},
            },
            {
                "id": "verify-gate",
                "kind": "gate",
                "gate": "npm-verify",  # the registry's command gate: argv [npm, run, verify]
                "description": "Execute compiler check, test suites, and documentation linters.",
                "repositories": {"backend": "write"},
                "requiredEvidence": [{"key": "verify", "kind": "gate"}],
                "on": {"passed": "dual-critic-review", "failed": {"target": "implement-feature", "backEdgeBudget": 2}},
            },
            {
                "id": "dual-critic-review",
                "kind": "moa",
                "assignments": {"allowedAgents": ["claude-fable-critic", "gpt-sol-critic"], "minimum": 2},
                "join": {"strategy": "quorum", "minimumPassed": 2, "cancelRemaining": True},
                "requiredEvidence": [
                    {
                        "key": "review",
                        "kind": "review",
                        "minimum": 2,
                        "producerPolicy": {
                            "minimumProducers": 2,
                            "distinctBy": ["provider"],
                            "eligibleAgents": ["claude-fable-critic", "gpt-sol-critic"],
                            "acceptedStatuses": ["passed"],
                        },
                    }
                ],
                "on": {
                    "passed": {"target": TERMINAL, "terminalStatus": "completed"},
                    "quorum-not-met": {"target": "implement-feature", "maxTransitions": 2},
                },
            },
        ],
    }


def problems(raw: object) -> list[tuple[str, str]]:
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_workflow(raw, workflow_id="deliver")
    return [(problem.field, problem.code) for problem in caught.value.problems]


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value


# -- a valid definition -------------------------------------------------------------------------


def test_the_seed_workflow_loads_with_every_default_filled() -> None:
    workflow = load_workflow(seed(), workflow_id="deliver")

    assert workflow.id == "deliver"
    assert workflow.coordinator == "coordinator"
    assert workflow.limits == Limits(12, 3_600_000, 5, "USD")
    assert workflow.plan_hash == EvidenceHashConfig("plan", "plan")
    assert workflow.require_plan_hash == ("implement-feature", "verify-gate")
    assert [step.id for step in workflow.steps] == ["plan", "implement-feature", "verify-gate", "dual-critic-review"]
    plan, implement, verify, review = workflow.steps
    assert plan.assignments == Assignments(("planner",), 1, 1, 1, 1)
    assert plan.max_attempts == 1
    assert implement.max_attempts == 2
    assert implement.repositories == {"backend": Access.WRITE}
    assert verify.kind is StepKind.GATE and verify.expect is GateExpect.PASS
    assert verify.transitions["failed"] == Transition("failed", "implement-feature", None, 2)
    assert review.assignments == Assignments(("claude-fable-critic", "gpt-sol-critic"), 2, 2, 2, 2)
    assert review.join == Join(JoinStrategy.QUORUM, 2, True)
    assert review.required_evidence == (
        EvidenceRequirement(
            "review",
            EvidenceKind.REVIEW,
            2,
            False,
            ProducerPolicy(2, ("claude-fable-critic", "gpt-sol-critic"), (Dimension.PROVIDER,), ("passed",)),
        ),
    )
    assert review.transitions["passed"] == Transition("passed", TERMINAL, TerminalStatus.COMPLETED)


def test_the_seed_workflow_compiles_to_the_plan_of_section_4_2() -> None:
    plan = compile_workflow(
        load_workflow(seed(), workflow_id="deliver"), gates=registry(), source_path=".kxm/workflows/deliver.yaml"
    )

    assert plan["schema"] == "kxm.compiled-workflow.v1"
    assert plan["workflowId"] == "deliver"
    assert plan["sourcePath"] == ".kxm/workflows/deliver.yaml"
    assert plan["transitionBudget"] == 12
    assert plan["hasBackEdges"] is True
    assert plan["entryStepId"] == "plan"
    assert plan["order"] == ["plan", "implement-feature", "verify-gate", "dual-critic-review"]
    assert plan["limits"] == {"maxTransitions": 12, "maxRunDurationMs": 3_600_000, "maxModelCost": 5, "currency": "USD"}
    assert plan["planHash"] == {"stageId": "plan", "evidenceKey": "plan"}
    assert plan["requirePlanHash"] == ["implement-feature", "verify-gate"]
    verify = plan["steps"]["verify-gate"]
    assert verify["index"] == 2
    assert verify["outcomes"] == ["failed", "passed"]
    assert verify["transitions"] == {
        "passed": {"to": "step", "target": "dual-critic-review", "edge": "forward"},
        "failed": {"to": "step", "target": "implement-feature", "edge": "back", "maxTransitions": 2},
    }
    review = plan["steps"]["dual-critic-review"]
    assert review["join"] == {"strategy": "quorum", "minimumPassed": 2, "cancelRemaining": True}
    assert review["assignments"] == {
        "allowedAgents": ["claude-fable-critic", "gpt-sol-critic"],
        "minimum": 2,
        "target": 2,
        "maximum": 2,
        "maxParallel": 2,
        "distinctBy": [],
    }
    assert review["transitions"]["passed"] == {"to": "terminal", "terminalStatus": "completed"}
    assert review["requiredEvidence"][0]["producerPolicy"] == {
        "minimumProducers": 2,
        "eligibleAgents": ["claude-fable-critic", "gpt-sol-critic"],
        "distinctBy": ["provider"],
        "acceptedStatuses": ["passed"],
    }
    gate = registry().gates["npm-verify"]
    assert verify["gate"] == "npm-verify"
    assert plan["gates"] == {
        "npm-verify": {
            "id": "npm-verify",
            "kind": "command",
            "checks": [{"name": "npm-verify", "argv": ["npm", "run", "verify"], "timeoutMs": 600_000}],
            "hash": gate.hash,
        }
    }
    assert plan["gateRegistryHash"] == registry().hash
    assert plan_hash(plan) == "sha256:" + hashlib.sha256(canonical_json(plan).encode()).hexdigest()


def test_the_plan_hash_is_stable_across_key_order_and_spellings() -> None:
    expected = plan_hash(compile_workflow(load_workflow(seed(), workflow_id="deliver"), gates=registry()))
    reordered = reversed_keys(seed())
    assert list(reordered) != list(seed())
    assert plan_hash(compile_workflow(load_workflow(reordered, workflow_id="deliver"), gates=registry())) == expected

    spelled = seed()  # maxTransitions instead of the seeds' backEdgeBudget; an explicit default
    spelled["steps"][2]["on"]["failed"] = {"target": "implement-feature", "maxTransitions": 2}
    spelled["steps"][0]["maxAttempts"] = 1
    assert plan_hash(compile_workflow(load_workflow(spelled, workflow_id="deliver"), gates=registry())) == expected

    changed = seed()
    changed["steps"][2]["on"]["failed"]["backEdgeBudget"] = 3
    assert plan_hash(compile_workflow(load_workflow(changed, workflow_id="deliver"), gates=registry())) != expected
    assert expected.startswith("sha256:") and len(expected) == 71


def test_without_a_run_budget_the_transition_budget_is_the_number_of_steps() -> None:
    raw = seed()
    raw["steps"] = [
        {
            "id": "only",
            "kind": "agent",
            "agent": "a",
            "on": {"passed": {"target": TERMINAL, "terminalStatus": "completed"}},
        }
    ]
    del raw["planHash"], raw["requirePlanHash"], raw["limits"]
    plan = compile_workflow(load_workflow(raw, workflow_id="deliver"), gates=registry())
    assert plan["transitionBudget"] == 1
    assert plan["hasBackEdges"] is False
    assert plan["limits"] == {}


# -- refusals -----------------------------------------------------------------------------------


def test_the_error_is_invalid_argument_with_the_definition_reason() -> None:
    raw = seed()
    raw["steps"][1]["kind"] = "script"
    with pytest.raises(InvalidArgument) as caught:
        load_workflow(raw, workflow_id="deliver")
    error = caught.value
    assert error.reason is Reason.WORKFLOW_DEFINITION_INVALID
    assert [(v.field, v.description) for v in error.field_violations] == [
        ("steps[1].kind", "must be one of agent, moa, gate, approval, wait (step_kind_unknown)")
    ]
    assert error.metadata["code"] == "step_kind_unknown"


def test_an_unreachable_step_is_refused() -> None:
    raw = seed()
    raw["steps"].append(
        {
            "id": "orphan",
            "kind": "agent",
            "agent": "a",
            "on": {"passed": {"target": TERMINAL, "terminalStatus": "failed"}},
        }
    )
    assert problems(raw) == [("steps[4]", "step_unreachable")]


def test_a_step_that_cannot_terminate_is_refused() -> None:
    raw = seed()
    raw["steps"][1]["on"]["stuck"] = "spin"
    raw["steps"].append(
        {"id": "spin", "kind": "agent", "agent": "a", "on": {"again": {"target": "spin", "maxTransitions": 1}}}
    )
    assert problems(raw) == [("steps[4].on", "step_cannot_terminate")]


def test_an_unbudgeted_cycle_is_refused() -> None:
    raw = seed()
    raw["steps"][2]["on"]["failed"] = "implement-feature"
    assert problems(raw) == [("steps[2].on.failed", "back_edge_unbounded")]
    del raw["limits"]["maxTransitions"]
    assert problems(raw) == [
        ("limits.maxTransitions", "workflow_cycle_unbounded"),
        ("steps[2].on.failed", "back_edge_unbounded"),
    ]


def test_a_path_to_completed_that_bypasses_the_gate_is_refused() -> None:
    raw = seed()
    raw["steps"][1]["on"]["skip"] = "dual-critic-review"
    assert problems(raw) == [("steps[3].on.passed", "required_step_bypass")]


def test_an_approval_step_may_not_be_bypassed_either() -> None:
    raw = seed()
    raw["steps"].insert(
        3,
        {
            "id": "sign-off",
            "kind": "approval",
            "on": {"approved": "dual-critic-review", "rejected": {"target": TERMINAL, "terminalStatus": "failed"}},
        },
    )
    raw["steps"][2]["on"]["passed"] = "sign-off"
    assert load_workflow(raw, workflow_id="deliver").steps[3].kind is StepKind.APPROVAL
    raw["steps"][2]["on"]["passed"] = "dual-critic-review"  # the gate now skips the approval
    assert problems(raw) == [
        ("steps[3]", "step_unreachable"),
    ]
    raw["steps"][2]["on"]["passed"] = "sign-off"
    raw["steps"][1]["on"]["shortcut"] = "dual-critic-review"
    assert problems(raw) == [
        ("steps[4].on.passed", "required_step_bypass"),
        ("steps[4].on.passed", "required_step_bypass"),
    ]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda raw: raw["steps"][1].update(kind="script"), [("steps[1].kind", "step_kind_unknown")]),
        (lambda raw: raw["steps"][1].update(kind="workflow"), [("steps[1].kind", "step_kind_reserved")]),
        (
            lambda raw: raw["steps"][3]["join"].update(strategy="majority"),
            [("steps[3].join.strategy", "join_strategy_unknown")],
        ),
        (
            lambda raw: raw["steps"][3]["join"].update(minimumPassed=3),
            [("steps[3].join.minimumPassed", "join_minimum_unreachable")],
        ),
        (
            lambda raw: raw["steps"][3]["join"].pop("minimumPassed"),
            [("steps[3].join.minimumPassed", "field_required")],
        ),
        (
            lambda raw: raw["steps"][3]["join"].update(strategy="all"),
            [("steps[3].join.minimumPassed", "join_invalid"), ("steps[3].join.cancelRemaining", "join_invalid")],
        ),
        (lambda raw: raw["steps"][0].update(colour="blue"), [("steps[0].colour", "field_unknown")]),
        (lambda raw: raw.update(retries=3), [("retries", "field_unknown")]),
        (lambda raw: raw["steps"][0].update(secrets=["TOKEN"]), [("steps[0].secrets", "field_unsupported")]),
        (lambda raw: raw["steps"][2].update(command="npm run verify"), [("steps[2].command", "step_gate_ambiguous")]),
        (lambda raw: raw["limits"].update(maxAgentTimeMs=10), [("limits.maxAgentTimeMs", "field_unsupported")]),
        (lambda raw: raw["limits"].update(currency="EUR"), [("limits.currency", "cost_currency_unsupported")]),
        (lambda raw: raw["limits"].update(maxModelCost=0), [("limits.maxModelCost", "cost_invalid")]),
        (lambda raw: raw["limits"].update(maxRunDurationMs=-1), [("limits.maxRunDurationMs", "duration_invalid")]),
        (lambda raw: raw.update(schema="kxm.workflow.v2"), [("schema", "workflow_schema_unsupported")]),
        (lambda raw: raw.update(steps=[]), [("steps", "steps_empty")]),
        (lambda raw: raw["steps"][1].update(id="Implement"), [("steps[1].id", "step_id_invalid")]),
        (lambda raw: raw["steps"][1].update(id="plan"), [("steps[1].id", "step_id_duplicate")]),
        (lambda raw: raw["steps"][1].update(maxAttempts=21), [("steps[1].maxAttempts", "count_invalid")]),
        (lambda raw: raw["steps"][0].pop("agent"), [("steps[0].agent", "step_agent_missing")]),
        (lambda raw: raw["steps"][2].pop("gate"), [("steps[2].gate", "step_gate_missing")]),
        (lambda raw: raw["steps"][2].update(expect="maybe"), [("steps[2].expect", "gate_expect_invalid")]),
        (lambda raw: raw["steps"][2].update(agent="a"), [("steps[2].agent", "step_field_forbidden")]),
        (lambda raw: raw["steps"][1].pop("on"), [("steps[1].on", "transitions_missing")]),
        (
            lambda raw: raw["steps"][1]["on"].update(failed=TERMINAL),
            [("steps[1].on.failed", "transition_terminal_status_missing")],
        ),
        (
            lambda raw: raw["steps"][1]["on"].update(failed={"target": TERMINAL, "terminalStatus": "done"}),
            [("steps[1].on.failed.terminalStatus", "transition_terminal_status_invalid")],
        ),
        (
            lambda raw: raw["steps"][1]["on"].update(passed={"target": "verify-gate", "terminalStatus": "completed"}),
            [("steps[1].on.passed.terminalStatus", "transition_terminal_status_unexpected")],
        ),
        (
            lambda raw: raw["steps"][1]["on"].update(passed="nowhere"),
            [("steps[1].on.passed", "transition_target_unknown")],
        ),
        (
            lambda raw: raw["steps"][2]["on"].update(
                implementation_failure={"target": TERMINAL, "terminalStatus": "failed"}
            ),
            [("steps[2].on.implementation_failure", "gate_outcome_renamed")],
        ),
        (
            lambda raw: raw["steps"][2]["on"].update(flaky={"target": TERMINAL, "terminalStatus": "failed"}),
            [("steps[2].on.flaky", "gate_outcome_impossible")],
        ),
        (
            lambda raw: raw["steps"][3]["on"].pop("quorum-not-met"),
            [("steps[3].on", "join_outcome_undeclared")],
        ),
        (
            lambda raw: raw["steps"][1]["requiredEvidence"].append({"key": "implementation", "kind": "artifact"}),
            [("steps[1].requiredEvidence[1].key", "evidence_key_duplicate")],
        ),
        (
            lambda raw: raw["steps"][1]["requiredEvidence"][0].update(kind="vibes"),
            [("steps[1].requiredEvidence[0].kind", "evidence_kind_unknown")],
        ),
        (
            lambda raw: raw["steps"][3]["requiredEvidence"][0]["producerPolicy"].update(minimumProducers=3),
            [
                ("steps[3].requiredEvidence[0].producerPolicy.minimumProducers", "producer_policy_unreachable"),
                ("steps[3].requiredEvidence[0].producerPolicy.minimumProducers", "producer_policy_unreachable"),
            ],
        ),
        (
            lambda raw: raw["steps"][3]["requiredEvidence"][0]["producerPolicy"]["eligibleAgents"].append("intruder"),
            [("steps[3].requiredEvidence[0].producerPolicy.eligibleAgents[2]", "producer_policy_invalid")],
        ),
        (
            lambda raw: raw["steps"][3]["requiredEvidence"][0]["producerPolicy"].update(distinctBy=["profile"]),
            [("steps[3].requiredEvidence[0].producerPolicy.distinctBy[0]", "field_unsupported")],
        ),
        (lambda raw: raw["planHash"].update(stageId="design"), [("planHash.stageId", "plan_hash_stage_unknown")]),
        (
            lambda raw: raw["planHash"].update(evidenceKey="spec"),
            [("planHash.evidenceKey", "plan_hash_evidence_unknown")],
        ),
        (
            lambda raw: raw.update(reproOracle={"stageId": "review", "evidenceKey": "x"}),
            [("reproOracle.stageId", "oracle_stage_unknown")],
        ),
        (
            lambda raw: raw.update(reproOracle={"stageId": "implement-feature", "evidenceKey": "x"}),
            [("reproOracle.evidenceKey", "oracle_evidence_unknown")],
        ),
        (
            lambda raw: raw.update(requirePlanHash=["implement-feature"]),
            [("requirePlanHash", "require_plan_hash_missing")],
        ),
        (
            lambda raw: raw["requirePlanHash"].append("ghost"),
            [("requirePlanHash[2]", "require_plan_hash_step_unknown")],
        ),
        (
            lambda raw: raw["steps"][2].update(requiredEvidence=[{"key": "r", "kind": "review"}]),
            [("steps[2].requiredEvidence[0].kind", "evidence_kind_invalid")],  # a gate produces gate evidence
        ),
        (
            lambda raw: raw["steps"][0].update(requiredEvidence=[{"key": "g", "kind": "gate"}]),
            [("steps[0].requiredEvidence[0].kind", "evidence_kind_invalid")],
        ),
        (lambda raw: raw.update(requireAttemptTokens="yes"), [("requireAttemptTokens", "field_type_invalid")]),
        (  # accepted by the original, never executed by a step run: refused, not ignored
            lambda raw: raw["steps"][3]["requiredEvidence"][0]["producerPolicy"].update(
                degradation={"minimumProducers": 1}
            ),
            [("steps[3].requiredEvidence[0].producerPolicy.degradation", "field_unsupported")],
        ),
        (
            lambda raw: raw["steps"][3]["requiredEvidence"][0].update(reusableAcrossAttempts=True),
            [("steps[3].requiredEvidence[0].reusableAcrossAttempts", "field_unsupported")],
        ),
        (
            lambda raw: raw["steps"][3]["assignments"].update(maximum=3),
            [("steps[3].assignments.maximum", "field_unsupported")],
        ),
        (
            lambda raw: raw["steps"][0].update(requiredEvidence=[{"key": "plan", "kind": "artifact", "minimum": 2}]),
            [("steps[0].requiredEvidence[0].minimum", "field_unsupported")],
        ),
    ],
)
def test_each_refusal_names_its_field_and_code(edit: Any, expected: list[tuple[str, str]]) -> None:
    raw = seed()
    edit(raw)
    assert problems(raw) == expected


def test_every_problem_is_reported_at_once() -> None:
    raw = seed()
    raw["retries"] = 3
    raw["limits"]["currency"] = "usd"
    raw["steps"][0]["colour"] = "blue"
    raw["steps"][1]["kind"] = "script"
    raw["steps"][2]["on"]["failed"]["backEdgeBudget"] = 0
    raw["steps"][3]["join"]["strategy"] = "majority"
    raw["steps"][3]["assignments"]["maxParallel"] = 3
    assert problems(raw) == [
        ("limits.currency", "cost_invalid"),
        ("retries", "field_unknown"),
        ("steps[3].assignments.maxParallel", "assignments_invalid"),
        ("steps[3].join.strategy", "join_strategy_unknown"),
        ("steps[1].kind", "step_kind_unknown"),
        ("steps[0].colour", "field_unknown"),
        ("steps[2].on.failed.backEdgeBudget", "count_invalid"),
    ]


def test_graph_problems_are_all_reported_together() -> None:
    raw = seed()
    raw["steps"][1]["on"]["skip"] = "dual-critic-review"
    raw["steps"][1]["on"]["stuck"] = "spin"
    raw["steps"].append(
        {"id": "spin", "kind": "agent", "agent": "a", "on": {"again": {"target": "spin", "maxTransitions": 1}}}
    )
    raw["steps"].append(
        {
            "id": "orphan",
            "kind": "agent",
            "agent": "a",
            "on": {"passed": {"target": TERMINAL, "terminalStatus": "failed"}},
        }
    )
    assert problems(raw) == [
        ("steps[3].on.passed", "required_step_bypass"),
        ("steps[5]", "step_unreachable"),
        ("steps[4].on", "step_cannot_terminate"),
    ]


def test_the_registered_id_and_the_document_must_agree() -> None:
    raw = seed()
    raw["id"] = "other"
    assert problems(raw) == [("id", "workflow_id_invalid")]
    raw["id"] = "deliver"
    assert load_workflow(copy.deepcopy(raw), workflow_id="deliver").id == "deliver"
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_workflow(seed(), workflow_id="Bad Id")
    assert [(p.field, p.code) for p in caught.value.problems] == [("id", "workflow_id_invalid")]


def test_a_document_that_is_not_an_object_is_refused() -> None:
    assert problems(["not", "a", "workflow"]) == [("", "field_type_invalid")]


def diversity_problems(raw: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(WorkflowDefinitionError) as caught:
        load_workflow(raw, workflow_id="deliver")
    return [(problem.field, problem.code) for problem in caught.value.problems]


POLICY_DISTINCT = "steps[3].requiredEvidence[0].producerPolicy.distinctBy"


def test_a_distinct_by_the_declared_agents_cannot_meet_is_refused() -> None:
    undeclared = seed()
    del undeclared["agents"]["gpt-sol-critic"]
    assert diversity_problems(undeclared) == [(POLICY_DISTINCT, "distinct_by_undeclared")]

    one_provider = seed()  # two PASS reviews from one provider never meet a provider-diverse quorum
    one_provider["agents"]["gpt-sol-critic"]["provider"] = " Anthropic"
    assert diversity_problems(one_provider) == [(POLICY_DISTINCT, "distinct_by_unreachable")]

    both = seed()  # distinct in provider and in model: a matching, not two separate counts
    both["steps"][3]["requiredEvidence"][0]["producerPolicy"]["distinctBy"] = ["provider", "model"]
    both["agents"]["gpt-sol-critic"]["model"] = "claude-fable"
    assert diversity_problems(both) == [(POLICY_DISTINCT, "distinct_by_unreachable")]
    both["agents"]["gpt-sol-critic"]["model"] = "gpt-sol"
    load_workflow(both, workflow_id="deliver")

    members = seed()  # assignments.distinctBy: the members assigned must differ
    members["steps"][3]["assignments"]["distinctBy"] = ["model"]
    members["agents"]["gpt-sol-critic"]["model"] = "claude-fable"
    assert diversity_problems(members) == [("steps[3].assignments.distinctBy", "distinct_by_unreachable")]


def test_declarations_are_pinned_in_the_plan() -> None:
    plan = compile_workflow(load_workflow(seed(), workflow_id="deliver"), gates=registry())
    assert plan["agents"] == {
        "claude-fable-critic": {"provider": "anthropic", "model": "claude-fable"},
        "gpt-sol-critic": {"provider": "openai", "model": "gpt-sol"},
    }
    other = seed()
    other["agents"]["gpt-sol-critic"]["model"] = "gpt-sol-2"
    assert plan_hash(compile_workflow(load_workflow(other, workflow_id="deliver"), gates=registry())) != plan_hash(plan)
    bad = seed()
    bad["agents"]["x"] = {"provider": "a", "region": "eu"}
    assert diversity_problems(bad) == [("agents.x.region", "field_unknown")]


def test_a_pinned_plan_reads_back_as_the_workflow_it_compiled() -> None:
    from kxm_grpc.domain.workflows.plans.gates import GateRegistry
    from kxm_grpc.domain.workflows.plans.reload import PlanCorrupt, load_plan

    workflow = load_workflow(seed(), workflow_id="deliver", gates=registry())
    plan = json.loads(json.dumps(compile_workflow(workflow, gates=registry())))  # as stored
    again, gates = load_plan(plan)
    assert again == workflow
    assert gates == {"npm-verify": registry().gates["npm-verify"]}
    recompiled = compile_workflow(again, gates=GateRegistry(gates))
    assert {k: v for k, v in recompiled.items() if k != "gateRegistryHash"} == {
        k: v for k, v in plan.items() if k != "gateRegistryHash"
    }

    inline = seed()
    del inline["steps"][2]["gate"]
    inline["steps"][2]["command"] = "npm run verify"
    inline_workflow = load_workflow(inline, workflow_id="deliver")
    inline_plan = json.loads(json.dumps(compile_workflow(inline_workflow)))
    assert load_plan(inline_plan)[0] == inline_workflow

    for broken in ({**plan, "schema": "kxm.compiled-workflow.v0"}, {**plan, "steps": {}}, {"schema": plan["schema"]}):
        with pytest.raises(PlanCorrupt):
            load_plan(broken)
