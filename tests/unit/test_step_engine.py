"""The step engine (kxm_grpc.domain.workflows.engine): the seeds' three loops end to end as pure
state changes, joins and quorum with provider diversity, budgets, reassignment, deadlines,
uncertain gates and their recovery, approvals, signals, admission and plan integrity."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest

from kxm_grpc.domain.workflows.engine import machine
from kxm_grpc.domain.workflows.engine.machine import Candidate, Change, Context, EffectKind, Recovery
from kxm_grpc.domain.workflows.engine.results import (
    CheckReport,
    ReviewReport,
    Telemetry,
    WorkerReport,
    gate_result,
    review_result,
    worker_result,
)
from kxm_grpc.domain.workflows.engine.state import MemberStatus, RunStatus, StepPhase, StepRun
from kxm_grpc.domain.workflows.plans import compile_workflow, load_workflow
from kxm_grpc.domain.workflows.plans.compiler import pinned_gates
from kxm_grpc.domain.workflows.plans.gates import load_gate_registry
from kxm_grpc.domain.workflows.plans.model import StepWorkflow
from kxm_grpc.errors import FailedPrecondition, InvalidArgument, Reason

TERMINAL = "$terminal"
REGISTRY = load_gate_registry(
    {
        "schema": "kxm.gate-registry.v1",
        "gates": {
            "verify": {
                "kind": "command",
                "checks": [
                    {"name": "typecheck", "argv": ["npx", "tsc"], "timeoutMs": 60_000},
                    {"name": "tests", "argv": ["npm", "test"], "timeoutMs": 60_000},
                ],
            },
            "repro": {"kind": "command", "argv": ["pytest", "tests/repro"], "timeoutMs": 60_000},
            "oracle": {"kind": "command", "argv": ["pytest", "tests/repro"], "timeoutMs": 60_000},
        },
    }
)


def end(status: str) -> dict[str, str]:
    return {"target": TERMINAL, "terminalStatus": status}


def loop_a(**limits: Any) -> dict[str, Any]:
    """Pattern A: plan → implement (2 attempts) → verify gate (back-edge budget 2) → dual-critic review."""
    return {
        "schema": "kxm.workflow.v1",
        "id": "deliver",
        "agents": {
            "fable": {"provider": "anthropic", "model": "claude-fable"},
            "sol": {"provider": "openai", "model": "gpt-sol"},
            "opus": {"provider": "anthropic", "model": "claude-opus"},
        },
        "limits": {"maxTransitions": 12, **limits},
        "planHash": {"stageId": "plan", "evidenceKey": "plan"},
        "requirePlanHash": ["implement"],
        "steps": [
            {
                "id": "plan",
                "kind": "agent",
                "agent": "planner",
                "requiredEvidence": [{"key": "plan", "kind": "artifact"}],
                "on": {"passed": "implement", "failed": end("failed")},
            },
            {
                "id": "implement",
                "kind": "agent",
                "agent": "writer",
                "maxAttempts": 3,
                "timeoutMs": 60_000,
                "repositories": {"app": "write"},
                "on": {"passed": "verify", "failed": end("failed")},
            },
            {
                "id": "verify",
                "kind": "gate",
                "gate": "verify",
                "on": {"passed": "review", "failed": {"target": "implement", "backEdgeBudget": 2}},
            },
            {
                "id": "review",
                "kind": "moa",
                "assignments": {"allowedAgents": ["fable", "opus", "sol"], "minimum": 2, "target": 2},
                "join": {"strategy": "quorum", "minimumPassed": 2, "cancelRemaining": True},
                "requiredEvidence": [
                    {
                        "key": "review",
                        "kind": "review",
                        "producerPolicy": {"minimumProducers": 2, "distinctBy": ["provider"]},
                    }
                ],
                "on": {"passed": end("completed"), "quorum-not-met": end("failed")},
            },
        ],
    }


class Hub:
    """Drives one run through the engine as the service would, keeping what it returned."""

    def __init__(self, raw: dict[str, Any], *, offline: Iterable[str] = (), admitted: bool = True) -> None:
        self.plan: StepWorkflow = load_workflow(raw, gates=REGISTRY)
        self.gates = pinned_gates(self.plan, REGISTRY)
        compile_workflow(self.plan, gates=REGISTRY)
        names = {"planner", "writer", "fable", "sol", "opus", "gate-worker", "coordinator", "a", "b", "c"}
        self.online = {name: name not in set(offline) for name in names}
        self.now = 1_000_000
        self.ids = (f"asg_{n:032x}" for n in itertools.count(1))
        self.events: list[machine.Event] = []
        self.effects: list[machine.Effect] = []
        self.run = self.apply(machine.create("run_1", "alpha", "sha256:" + "0" * 64, self.context(), admitted=admitted))

    def context(self) -> Context:
        roster = {name: Candidate(name, f"agt_{name}", online) for name, online in self.online.items()}
        return Context(self.plan, self.now, roster, lambda: next(self.ids), self.gates)

    def apply(self, change: Change) -> StepRun:
        assert change.run.sequence == len(self.events) + len(change.events)
        self.events.extend(change.events)
        self.effects.extend(change.effects)
        self.run = change.run
        return change.run

    def open(self, agent: str | None = None) -> list[Any]:
        return [m for m in self.run.open_members if agent is None or m.agent == agent]

    def only(self, agent: str) -> Any:
        (member,) = self.open(agent)
        return member

    def work(self, agent: str, outcome: str = "passed", **report: Any) -> StepRun:
        member = self.only(agent)
        step = self.plan.step(member.step_id)
        assert step is not None
        result = worker_result(step, WorkerReport(outcome=outcome, content_hash="sha256:" + "1" * 64, **report))
        return self.apply(machine.complete(self.run, self.context(), member.id, result))

    def gate(self, passed: bool | None, agent: str = "gate-worker") -> StepRun:
        member = self.only(agent)
        step = self.plan.step(member.step_id)
        assert step is not None and step.gate is not None
        gate = self.gates[step.gate]
        if passed is None:
            report = WorkerReport(outcome="uncertain", content_hash="sha256:" + "2" * 64, uncertain="timeout")
        else:
            checks = [CheckReport(check.name, True, 0) for check in gate.checks]
            if not passed:
                checks = [*checks[:-1], CheckReport(gate.checks[-1].name, False, 1)]
            report = WorkerReport(outcome="done", content_hash="sha256:" + "2" * 64, checks=tuple(checks))
        return self.apply(machine.complete(self.run, self.context(), member.id, gate_result(step, gate, report)))

    def review(self, agent: str, verdict: str = "PASS", blockers: int = 0) -> StepRun:
        member = self.only(agent)
        step = self.plan.step(member.step_id)
        assert step is not None
        report = ReviewReport(verdict=verdict, content_hash="sha256:" + "3" * 64, blockers=blockers)
        return self.apply(machine.complete(self.run, self.context(), member.id, review_result(step, report)))

    def types(self) -> list[str]:
        return [event.type for event in self.events]

    def outcome_event(self) -> dict[str, Any]:
        return dict([e for e in self.events if e.type == "step.outcome"][-1].payload)


PLAN = {"plan": "ab" * 32}


def test_loop_a_runs_end_to_end_with_a_failing_gate_and_its_back_edge() -> None:
    hub = Hub(loop_a())
    assert hub.run.status is RunStatus.RUNNING
    assert hub.run.current_step == "plan"
    hub.work("planner", artifacts=PLAN)
    assert hub.run.plan_value == "ab" * 32
    hub.work("writer", artifacts=PLAN)
    assert hub.run.current_step == "verify"
    hub.gate(passed=False)  # the gate fails: back to implement, its second attempt
    assert (hub.run.current_step, hub.run.step_attempt) == ("implement", 2)
    hub.work("writer", artifacts=PLAN)
    hub.gate(passed=True)
    assert hub.run.current_step == "review"
    assert {m.agent for m in hub.open()} == {"fable", "sol"}  # distinct providers preferred
    hub.review("fable")
    hub.review("sol")
    assert hub.run.status is RunStatus.COMPLETED
    assert hub.run.end_reason == "review:passed"
    assert hub.run.edge_uses == {
        "plan/passed": 1,
        "implement/passed": 2,
        "verify/failed": 1,
        "verify/passed": 1,
        "review/passed": 1,
    }
    producers = hub.outcome_event()["producers"]
    assert [p["agent"] for p in producers if p["counted"]] == ["fable", "sol"]
    assert hub.types()[0] == "run.created" and hub.types()[-1] == "run.ended"
    assert sum(1 for e in hub.effects if e.kind is EffectKind.DISPATCH) == 7


def test_the_back_edge_budget_ends_the_run_on_a_further_failure() -> None:
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    for _ in range(2):
        hub.work("writer", artifacts=PLAN)
        hub.gate(passed=False)
    hub.work("writer", artifacts=PLAN)
    hub.gate(passed=False)  # a third failure: verify/failed has a budget of 2
    assert hub.run.status is RunStatus.FAILED
    assert hub.run.end_reason == "budget_edge"


def test_a_quorum_of_one_provider_is_not_met() -> None:
    """Two PASS reviews from anthropic agents never meet the provider-diverse quorum (sol is offline)."""
    hub = Hub(loop_a(), offline=["sol"])
    hub.work("planner", artifacts=PLAN)
    hub.work("writer", artifacts=PLAN)
    hub.gate(passed=True)
    assert {m.agent for m in hub.open()} == {"fable", "opus"}
    hub.review("fable")
    hub.review("opus")
    assert hub.run.status is RunStatus.FAILED
    assert hub.run.end_reason == "review:quorum-not-met"
    why = {p["agent"]: (p["counted"], p["why"]) for p in hub.outcome_event()["producers"]}
    assert why == {"fable": (True, "counted"), "opus": (False, "same provider as fable")}


def test_a_quorum_is_not_met_when_a_review_has_blockers_and_open_reviews_are_cancelled() -> None:
    raw = loop_a()
    review = raw["steps"][3]
    review["assignments"] = {"allowedAgents": ["fable", "opus", "sol"], "minimum": 2, "target": 3}
    hub = Hub(raw)
    hub.work("planner", artifacts=PLAN)
    hub.work("writer", artifacts=PLAN)
    hub.gate(passed=True)
    assert len(hub.open()) == 3
    hub.review("fable", verdict="PASS", blockers=1)  # blockers fail a review
    hub.review("opus", verdict="FAIL")
    # sol alone can no longer bring two distinct passes: decided now, sol's review cancelled.
    assert hub.run.status is RunStatus.FAILED
    assert hub.run.end_reason == "review:quorum-not-met"
    assert [m.status for m in hub.run.members if m.agent == "sol"] == [MemberStatus.CANCELLED]


def first_success(cancel: bool) -> dict[str, Any]:
    return {
        "schema": "kxm.workflow.v1",
        "id": "race",
        "steps": [
            {
                "id": "solve",
                "kind": "moa",
                "assignments": {"allowedAgents": ["a", "b", "c"], "target": 3},
                "join": {"strategy": "first-success", "cancelRemaining": cancel},
                "on": {"passed": end("completed"), "failed": end("failed")},
            }
        ],
    }


def test_first_success_cancels_the_remaining_assignments() -> None:
    hub = Hub(first_success(cancel=True))
    hub.work("b")
    assert hub.run.status is RunStatus.COMPLETED
    assert {m.agent: m.status for m in hub.run.members} == {
        "a": MemberStatus.CANCELLED,
        "b": MemberStatus.COMPLETED,
        "c": MemberStatus.CANCELLED,
    }
    revoked = [e.member.agent for e in hub.effects if e.kind is EffectKind.REVOKE and e.member is not None]
    assert sorted(revoked) == ["a", "b", "c"]


def test_first_success_without_cancel_waits_and_fails_only_when_all_fail() -> None:
    hub = Hub(first_success(cancel=False))
    hub.work("a", "failed")
    hub.work("b")
    assert hub.run.status is RunStatus.RUNNING  # c still works
    hub.work("c", "failed")
    assert hub.run.status is RunStatus.COMPLETED

    hub = Hub(first_success(cancel=False))
    for agent in ("a", "b", "c"):
        hub.work(agent, "failed")
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "solve:failed")


def paced_quorum(max_parallel: int) -> dict[str, Any]:
    """Three agents, quorum of two, at most ``max_parallel`` open at once."""
    return {
        "schema": "kxm.workflow.v1",
        "id": "paced",
        "steps": [
            {
                "id": "solve",
                "kind": "moa",
                "assignments": {"allowedAgents": ["a", "b", "c"], "target": 3, "maxParallel": max_parallel},
                "join": {"strategy": "quorum", "minimumPassed": 2},
                "requiredEvidence": [{"key": "review", "kind": "review"}],
                "on": {"passed": end("completed"), "quorum-not-met": end("failed")},
            }
        ],
    }


def test_a_quorum_counts_the_places_not_yet_dispatched() -> None:
    """With maxParallel below the target, a failure among the first members does not give the quorum
    up while a place remains that could still pass; that place goes out at once."""
    hub = Hub(paced_quorum(max_parallel=2))
    assert [m.agent for m in hub.open()] == ["a", "b"]
    hub.review("a", "FAIL")
    assert hub.run.status is RunStatus.RUNNING and [m.agent for m in hub.open()] == ["b", "c"]
    hub.review("b")
    hub.review("c")
    assert hub.run.status is RunStatus.COMPLETED


def test_a_serial_panel_dispatches_its_next_place_when_one_settles() -> None:
    hub = Hub(paced_quorum(max_parallel=1))
    for agent in ("a", "b"):
        assert [m.agent for m in hub.open()] == [agent]
        hub.review(agent)  # the next place goes out in the same change, not on the retry timer
    assert hub.run.status is RunStatus.COMPLETED  # decided at two passes: c is never asked

    hub = Hub(paced_quorum(max_parallel=1))
    hub.review("a", "FAIL")
    hub.review("b", "FAIL")  # now only c is left: two passes are out of reach
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "solve:quorum-not-met")


def test_an_offline_assignee_is_superseded_its_late_result_refused_and_the_attempt_reassigned() -> None:
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    lost = hub.only("writer")
    hub.online["writer"] = False
    hub.apply(machine.supersede(hub.run, hub.context(), lost.id))
    assert (hub.run.step_attempt, hub.run.phase, hub.open()) == (2, StepPhase.ASSIGNING, [])
    hub.online["writer"] = True  # back (a restarted agent), or another eligible one
    hub.apply(machine.advance(hub.run, hub.context()))
    (again,) = hub.open()
    assert again.agent == "writer" and again.id != lost.id and again.step_attempt == 2
    step = hub.plan.step("implement")
    assert step is not None
    late = worker_result(step, WorkerReport(outcome="passed", content_hash="sha256:" + "9" * 64, artifacts=PLAN))
    with pytest.raises(FailedPrecondition) as refused:
        machine.complete(hub.run, hub.context(), lost.id, late)
    assert refused.value.reason is Reason.ASSIGNMENT_CLOSED
    assert refused.value.metadata["state"] == "superseded"
    hub.work("writer", artifacts=PLAN)
    assert hub.run.current_step == "verify"


def test_an_assignee_lost_with_no_attempt_left_fails_the_step() -> None:
    raw = loop_a()
    raw["steps"][1]["maxAttempts"] = 1
    hub = Hub(raw)
    hub.work("planner", artifacts=PLAN)
    hub.apply(machine.supersede(hub.run, hub.context(), hub.only("writer").id))
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "implement:failed")


def test_a_deadline_fails_the_member_and_counts_as_a_failed_attempt() -> None:
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    member = hub.only("writer")
    assert member.deadline == hub.now + 60_000_000
    hub.now = member.deadline
    hub.apply(machine.expire(hub.run, hub.context(), member.id))
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "implement:failed")
    assert "assignment.expired" in hub.types()


def test_an_uncertain_gate_blocks_the_run_until_an_operator_recovers_it() -> None:
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    hub.work("writer", artifacts=PLAN)
    blocked = hub.only("gate-worker")
    hub.gate(passed=None)
    assert (hub.run.status, hub.run.blocked_member) == (RunStatus.BLOCKED, blocked.id)
    step = hub.plan.step("verify")
    assert step is not None
    late = gate_result(step, hub.gates["verify"], WorkerReport("done", "h", checks=(CheckReport("typecheck", False),)))
    with pytest.raises(FailedPrecondition) as refused:  # nothing completes the blocked gate's member
        machine.complete(hub.run, hub.context(), blocked.id, late)
    assert refused.value.reason is Reason.ASSIGNMENT_CLOSED
    hub.apply(machine.recover(hub.run, hub.context(), Recovery.RETRY, "ops", "flaky runner"))
    assert hub.run.status is RunStatus.RUNNING
    hub.gate(passed=True)
    assert hub.run.current_step == "review"

    other = Hub(loop_a())
    other.work("planner", artifacts=PLAN)
    other.work("writer", artifacts=PLAN)
    other.gate(passed=None)
    other.apply(machine.recover(other.run, other.context(), Recovery.FAIL, "ops", "broken"))
    assert (other.run.status, other.run.end_reason) == (RunStatus.FAILED, "gate_uncertain")
    with pytest.raises(FailedPrecondition) as ended:
        machine.recover(other.run, other.context(), Recovery.RETRY, "ops", "again")
    assert ended.value.reason is Reason.WORKFLOW_TERMINAL


def test_a_gate_retried_while_no_gate_worker_is_online_waits_for_one() -> None:
    """Retrying a blocked gate with its worker gone leaves the place empty and a retry armed, so the
    gate goes out when a worker is back (not a run stuck with no member)."""
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    hub.work("writer", artifacts=PLAN)
    hub.gate(passed=None)
    hub.online["gate-worker"] = False
    hub.effects.clear()
    hub.apply(machine.recover(hub.run, hub.context(), Recovery.RETRY, "ops", "worker restarted"))

    assert (hub.run.status, hub.run.phase, hub.open()) == (RunStatus.RUNNING, StepPhase.ASSIGNING, [])
    assert EffectKind.RETRY_DISPATCH in [effect.kind for effect in hub.effects]
    hub.online["gate-worker"] = True
    hub.apply(machine.advance(hub.run, hub.context()))
    hub.gate(passed=True)
    assert hub.run.current_step == "review"


def test_a_gate_worker_must_report_the_gates_checks_in_order() -> None:
    plan = load_workflow(loop_a(), gates=REGISTRY)
    step = plan.step("verify")
    assert step is not None
    gate = pinned_gates(plan, REGISTRY)["verify"]
    with pytest.raises(InvalidArgument):
        gate_result(step, gate, WorkerReport("done", "h", checks=(CheckReport("tests", True),)))
    with pytest.raises(InvalidArgument):  # all passing, but one missing
        gate_result(step, gate, WorkerReport("done", "h", checks=(CheckReport("typecheck", True),)))
    with pytest.raises(InvalidArgument):  # went on after a failure
        gate_result(
            step, gate, WorkerReport("done", "h", checks=(CheckReport("typecheck", False), CheckReport("tests", True)))
        )
    failed = gate_result(step, gate, WorkerReport("done", "h", checks=(CheckReport("typecheck", False),)))
    assert (failed.outcome, failed.passed) == ("failed", False)


def loop_c() -> dict[str, Any]:
    """Pattern C: the repro gate must fail (expect: fail) before the fix, the oracle must pass after."""
    return {
        "schema": "kxm.workflow.v1",
        "id": "incident",
        "limits": {"maxTransitions": 8},
        "steps": [
            {"id": "reproduce", "kind": "agent", "agent": "a", "on": {"passed": "repro-gate", "failed": end("failed")}},
            {
                "id": "repro-gate",
                "kind": "gate",
                "gate": "repro",
                "expect": "fail",
                "on": {"passed": "fix", "repro-missing": {"target": "reproduce", "maxTransitions": 1}},
            },
            {"id": "fix", "kind": "agent", "agent": "b", "on": {"passed": "oracle", "failed": end("failed")}},
            {
                "id": "oracle",
                "kind": "gate",
                "gate": "oracle",
                "on": {"passed": "approve", "failed": {"target": "fix", "maxTransitions": 1}},
            },
            {
                "id": "approve",
                "kind": "approval",
                "on": {"approved": end("completed"), "rejected": end("failed")},
            },
        ],
    }


def test_the_reproduction_is_captured_and_a_fix_that_changes_it_fails() -> None:
    """reproOracle: the reproducer's artifact is captured; a later worker reporting another hash (or
    none) for it fails its step, so a fix cannot weaken the test that reproduced the bug."""
    raw = loop_c()
    raw["reproOracle"] = {"stageId": "reproduce", "evidenceKey": "repro"}
    raw["steps"][0]["requiredEvidence"] = [{"key": "repro", "kind": "artifact"}]
    repro = {"repro": "cd" * 32}

    hub = Hub(raw)
    hub.work("a", artifacts=repro)
    hub.gate(passed=False)  # the repro fails before the fix: expect fail passes
    hub.work("b", artifacts={"repro": "ee" * 32})  # the test was changed
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "fix:failed")
    assert hub.run.repro_value == "cd" * 32 and "repro.mismatch" in hub.types()

    hub = Hub(raw)
    hub.work("a", artifacts=repro)
    hub.gate(passed=False)
    hub.work("b", artifacts=repro)
    assert hub.run.current_step == "oracle"


def test_loop_c_repro_before_oracle_then_an_operator_approves() -> None:
    hub = Hub(loop_c())
    hub.work("a")
    hub.gate(passed=True)  # the repro test passes: the bug is not reproduced
    assert (hub.run.current_step, hub.run.last_outcome) == ("reproduce", "repro-missing")
    hub.work("a")
    hub.gate(passed=False)  # now it fails: reproduced
    assert hub.run.current_step == "fix"
    hub.work("b")
    hub.gate(passed=True)  # the oracle passes
    assert (hub.run.current_step, hub.run.phase) == ("approve", StepPhase.AWAITING_APPROVAL)
    with pytest.raises(InvalidArgument):
        machine.approve(hub.run, hub.context(), "approve", "maybe", "ops", "")
    with pytest.raises(FailedPrecondition):
        machine.approve(hub.run, hub.context(), "fix", "approved", "ops", "")
    hub.apply(machine.approve(hub.run, hub.context(), "approve", "approved", "ops", "ship it"))
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.COMPLETED, "approve:approved")


def test_a_wait_step_is_resolved_by_its_signal() -> None:
    hub = Hub(
        {
            "schema": "kxm.workflow.v1",
            "id": "deploy",
            "steps": [
                {"id": "build", "kind": "agent", "agent": "a", "on": {"passed": "rollout", "failed": end("failed")}},
                {
                    "id": "rollout",
                    "kind": "wait",
                    "signal": "deployed",
                    "on": {"passed": end("completed"), "failed": end("failed")},
                },
            ],
        }
    )
    hub.work("a")
    assert hub.run.phase is StepPhase.AWAITING_SIGNAL
    with pytest.raises(FailedPrecondition):
        machine.signal(hub.run, hub.context(), "rollout", "other", "passed")
    hub.apply(machine.signal(hub.run, hub.context(), "rollout", "deployed", "passed"))
    assert hub.run.status is RunStatus.COMPLETED


def test_the_model_cost_budget_ends_the_run() -> None:
    hub = Hub(loop_a(maxModelCost=1, currency="USD"))
    hub.work("planner", artifacts=PLAN, telemetry=Telemetry(cost_usd=0.4))
    assert hub.run.status is RunStatus.RUNNING
    hub.work("writer", artifacts=PLAN, telemetry=Telemetry(cost_usd=0.7))
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "budget_model_cost")
    assert hub.run.cost_usd == pytest.approx(1.1)


def test_a_step_that_reports_another_plan_hash_fails() -> None:
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    hub.work("writer", artifacts={"plan": "cd" * 32})
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "implement:failed")
    assert "plan.mismatch" in hub.types()


def test_no_eligible_agent_online_waits_and_dispatches_when_one_comes_online() -> None:
    hub = Hub(loop_a(), offline=["planner"])
    assert (hub.run.phase, hub.open()) == (StepPhase.ASSIGNING, [])
    assert hub.effects[-1].kind is EffectKind.RETRY_DISPATCH
    hub.online["planner"] = True
    hub.apply(machine.advance(hub.run, hub.context()))
    assert hub.run.phase is StepPhase.WORKING and hub.only("planner")


def test_a_queued_run_starts_when_admitted_and_the_duration_budget_cancels_it() -> None:
    hub = Hub(loop_a(maxRunDurationMs=1_000), admitted=False)
    assert hub.run.status is RunStatus.QUEUED and hub.open() == []
    hub.now += 5_000_000
    hub.apply(machine.admit(hub.run, hub.context()))
    assert hub.run.running_since == hub.now
    deadline = [e.due for e in hub.effects if e.kind is EffectKind.ARM_RUN_DEADLINE]
    assert deadline == [hub.now + 1_000_000]
    hub.now += 999_999
    hub.apply(machine.deadline(hub.run, hub.context()))
    assert hub.run.status is RunStatus.RUNNING
    hub.now += 1
    hub.apply(machine.deadline(hub.run, hub.context()))
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.CANCELLED, "budget_run_duration")
    assert hub.open() == []


def test_a_reported_outcome_the_step_does_not_declare_is_refused() -> None:
    plan = load_workflow(loop_a(), gates=REGISTRY)
    step = plan.step("implement")
    assert step is not None
    with pytest.raises(InvalidArgument) as refused:
        worker_result(step, WorkerReport(outcome="done", content_hash="h"))
    assert refused.value.metadata["field"] == "result.outcome"
    with pytest.raises(InvalidArgument):
        worker_result(step, WorkerReport(outcome="passed", content_hash="h", telemetry=Telemetry(cost_usd=-1)))


def test_an_all_join_whose_members_disagree_ends_the_run() -> None:
    hub = Hub(
        {
            "schema": "kxm.workflow.v1",
            "id": "panel",
            "steps": [
                {
                    "id": "vote",
                    "kind": "moa",
                    "assignments": {"allowedAgents": ["a", "b"], "target": 2},
                    "on": {"passed": end("completed"), "failed": end("failed")},
                }
            ],
        }
    )
    hub.work("a")
    hub.work("b", "failed")
    assert (hub.run.status, hub.run.end_reason) == (RunStatus.FAILED, "join_conflict")


def test_cancel_ends_the_run_and_revokes_open_assignments() -> None:
    hub = Hub(loop_a())
    member = hub.only("planner")
    hub.apply(machine.cancel(hub.run, hub.context(), "operator_cancelled", "ops"))
    assert hub.run.status is RunStatus.CANCELLED
    assert [e.member.id for e in hub.effects if e.kind is EffectKind.REVOKE and e.member] == [member.id]
    assert hub.effects[-1].kind is EffectKind.ENDED
    with pytest.raises(FailedPrecondition):
        machine.cancel(hub.run, hub.context(), "again", "ops")


def test_results_without_telemetry_are_counted_unmetered() -> None:
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    hub.work("writer", artifacts=PLAN, telemetry=Telemetry(cost_usd=0.25, tokens_in=10))
    assert (hub.run.unmetered, hub.run.cost_usd) == (1, 0.25)
    completed = [e.payload for e in hub.events if e.type == "assignment.completed"]
    assert [(p["agent"], p["costUsd"], p["tokensIn"]) for p in completed] == [
        ("planner", None, 0),
        ("writer", 0.25, 10),
    ]


def test_every_snapshot_round_trips_through_its_json() -> None:
    import json

    from kxm_grpc.domain.workflows.engine import codec

    hub = Hub(loop_a(maxModelCost=10, currency="USD"))
    snapshots = [hub.run]
    hub.work("planner", artifacts=PLAN, telemetry=Telemetry(cost_usd=0.5))
    snapshots.append(hub.run)
    hub.work("writer", artifacts=PLAN)
    hub.gate(passed=None)
    snapshots.append(hub.run)
    hub.apply(machine.recover(hub.run, hub.context(), Recovery.RETRY, "ops", ""))
    hub.gate(passed=True)
    hub.review("fable", blockers=2)
    snapshots.append(hub.run)
    for run in snapshots:
        assert codec.decode(json.loads(json.dumps(codec.encode(run)))) == run
    handoff = snapshots[-1].handoff  # the gate's, to the review
    assert handoff is not None and (handoff.from_step, handoff.to_step) == ("verify", "review")
    # The writer's work the gate was handed, then the uncertain gate and the retried one that
    # passed: both returned a result, one counted.
    assert [(p.role.value, p.passed, p.counted) for p in handoff.producers] == [
        ("worker", True, True),
        ("gate", False, False),
        ("gate", True, True),
    ]
    # A snapshot written before runs kept a handoff and a memory revision still decodes.
    older = {k: v for k, v in codec.encode(snapshots[-1]).items() if k not in ("handoff", "memoryRevision")}
    assert codec.decode(older) == replace(snapshots[-1], handoff=None, memory_revision="")
    for broken in ({**codec.encode(hub.run), "schema": "x"}, {**codec.encode(hub.run), "status": "lost"}, {}):
        with pytest.raises(codec.SnapshotCorrupt):
            codec.decode(broken)


def test_a_noted_event_follows_the_one_it_notes_and_is_numbered_with_the_engine_s() -> None:
    """``noted`` logs what the service decided about a result (a skill evaluation its gate
    recorded, decision 268) right after that result's event, and the snapshot's sequence counts it."""
    hub = Hub(loop_a())
    hub.work("planner", artifacts=PLAN)
    hub.work("writer", artifacts=PLAN)
    member = hub.only("gate-worker")
    step = hub.plan.step(member.step_id)
    assert step is not None and step.gate is not None
    gate = hub.gates[step.gate]
    report = WorkerReport(
        outcome="done",
        content_hash="sha256:" + "2" * 64,
        checks=tuple(CheckReport(check.name, True, 0) for check in gate.checks),
    )
    change = machine.complete(hub.run, hub.context(), member.id, gate_result(step, gate, report))
    completed = next(event for event in change.events if event.type == "assignment.completed")
    note = machine.Event("skill.evaluated", {"skillId": "s.000000000000"})

    noted = machine.noted(change, completed, note)

    types = [event.type for event in noted.events]
    assert types[types.index("assignment.completed") + 1] == "skill.evaluated"
    assert len(noted.events) == len(change.events) + 1
    assert noted.run.sequence == change.run.sequence + 1
    hub.apply(noted)
