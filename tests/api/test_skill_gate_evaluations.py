"""Skill evaluations recorded by the gates of a hub-driven run (issue 17 item 4; decisions 252,
266-268), on both backends.

A step run started for a skill candidate (``StepRunInputs.skill_id``) records the verdict of each
gate that declares ``evaluates`` in its registry as an evaluation of that kind, by
``gate:<gate id>@<run id>``, in the completion's transaction: the run's log says so
(``skill.evaluated``, or ``skill.evaluation_skipped`` and why), GetSkill's history shows it, and
promotion counts it like an operator's. Agent ``author`` writes the skill, ``gate-worker`` answers
the gates, the named operator ``ops`` decides.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc import FailedPrecondition, InvalidArgument, NotFound, Reason
from kxm_grpc._gen.kxm.v1 import context_service_pb2 as cpb
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as env
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import workflow_steps_pb2 as steps_pb
from kxm_grpc._gen.kxm.v1 import workflow_types_pb2 as types_pb
from kxm_grpc.client import HubClient
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Hub
from tests.workflows import call, terminal

SKILL_MD = "---\nname: fix-flaky\ndescription: Retry a flaky test once before failing\n---\nRun the test again.\n"
KINDS = ("static-review", "sandbox", "functional", "safety")


def registry() -> dict[str, Any]:
    """One gate per evaluation kind, named after it, and ``plain``, which evaluates nothing."""
    gates: dict[str, Any] = {
        kind: {"kind": "command", "argv": ["true"], "timeoutMs": 60_000, "evaluates": kind}
        for kind in (*KINDS, "optimization")
    }
    gates["plain"] = {"kind": "command", "argv": ["true"], "timeoutMs": 60_000}
    return {"schema": "kxm.gate-registry.v1", "gates": gates}


def gate_workflow(definition_id: str, gates: tuple[str, ...]) -> dict[str, Any]:
    """A step workflow running ``gates`` in order: a failed gate ends the run failed."""
    steps = []
    for index, gate_id in enumerate(gates):
        following: Any = gates[index + 1] if index + 1 < len(gates) else terminal("completed")
        steps.append(
            {
                "id": gate_id,
                "kind": "gate",
                "gate": gate_id,
                "on": {"passed": following, "failed": terminal("failed")},
            }
        )
    return {"schema": "kxm.workflow.v1", "id": definition_id, "project": "alpha", "steps": steps}


@dataclass
class World:
    hub: Hub
    admin: HubClient
    """The bootstrap admin naming alpha: starts runs, reads them."""
    ops: HubClient
    """The named operator ``ops`` naming alpha: decides skills."""
    author: HubClient
    """Agent ``author`` of alpha."""
    worker: HubClient
    """Agent ``gate-worker`` of alpha."""
    other: HubClient
    """Agent ``author`` of beta."""


@contextlib.asynccontextmanager
async def world_on(hub: Hub) -> AsyncIterator[World]:
    async with contextlib.AsyncExitStack() as stack:
        root = await stack.enter_async_context(HubClient(hub.address, token=ADMIN_TOKEN))
        alpha = (await root.admin.create_project("alpha")).project_token
        beta = (await root.admin.create_project("beta")).project_token
        ops_token = (await root.admin.create_operator("ops")).operator_token
        admin = await stack.enter_async_context(HubClient(hub.address, token=ADMIN_TOKEN, project="alpha"))
        ops = await stack.enter_async_context(HubClient(hub.address, token=ops_token, project="alpha"))
        author = await stack.enter_async_context(HubClient(hub.address, token=alpha))
        worker = await stack.enter_async_context(HubClient(hub.address, token=alpha))
        other = await stack.enter_async_context(HubClient(hub.address, token=beta))
        await author.agents.register("author")
        await worker.agents.register("gate-worker")
        await other.agents.register("author")
        await admin.workflows.register_gate_registry(registry(), project="alpha")
        await admin.workflows.register_definition(gate_workflow("vet", KINDS))
        await admin.workflows.register_definition(gate_workflow("tune", ("optimization",)))
        await admin.workflows.register_definition(gate_workflow("plain", ("plain",)))
        yield World(hub, admin, ops, author, worker, other)


@pytest_asyncio.fixture
async def world(hub: Hub) -> AsyncIterator[World]:
    async with world_on(hub) as made:
        yield made


async def create_skill(client: HubClient, content: str = SKILL_MD) -> str:
    created = await client.context.create_skill(
        "Fix Flaky Tests", content, harness="claude-code", models=["sonnet"], run_ids=["run_1"]
    )
    return str(created.skill.id)


async def start(world: World, definition: str, skill_id: str, delivery: str = "d1") -> types_pb.WorkflowRun:
    inputs = steps_pb.StepRunInputs(skill_id=skill_id)
    return (await world.admin.workflows.start_run(definition, delivery_id=delivery, inputs=inputs)).run


async def answer_gate(world: World, verdict: str) -> env.AssignmentRequest:
    """The gate worker answers its next gate: ``passed``, ``failed`` or ``uncertain``."""
    response = await call(world.worker, "NextAssignment", pb.NextAssignmentRequest())
    assert response.HasField("assignment")
    assignment: env.AssignmentRequest = response.assignment
    assert assignment.role == "gate"
    if verdict == "uncertain":
        check = env.GateCheck(
            name=assignment.gate.checks[0].name, passed=False, observation="uncertain", reason="timeout"
        )
        result = env.WorkerResult(outcome="uncertain", checks=[check])
    else:
        passed = verdict == "passed"
        checks = [
            env.GateCheck(name=c.name, passed=passed, exit_code=0 if passed else 1) for c in assignment.gate.checks
        ]
        result = env.WorkerResult(outcome="done", checks=checks)
    await call(
        world.worker,
        "CompleteAssignment",
        pb.CompleteAssignmentRequest(assignment_id=assignment.assignment_id, worker_result=result),
    )
    return assignment


async def events_of(world: World, run_id: str) -> list[tuple[str, dict[str, Any]]]:
    response = await world.admin.workflows.list_run_events(run_id)
    assert [event.sequence for event in response.events] == list(range(1, len(response.events) + 1))
    return [(event.type, dict(event.payload)) for event in response.events]


def skill_events(events: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    return [(kind, payload) for kind, payload in events if kind.startswith("skill.")]


def history(got: cpb.GetSkillResponse) -> list[tuple[str, str, str, bool]]:
    return [
        (
            cpb.SkillEventType.Name(event.type).removeprefix("SKILL_EVENT_TYPE_").lower(),
            event.actor,
            cpb.SkillEvaluationKind.Name(event.evaluation_kind).removeprefix("SKILL_EVALUATION_KIND_").lower(),
            event.passed,
        )
        for event in got.history
    ]


async def test_passing_gates_record_evaluations_and_another_operator_promotes(world: World) -> None:
    """Each passing gate records a passing evaluation of its kind, by the gate acting for the run,
    logged right after its assignment completed; the skill is then promotable by an operator."""
    skill_id = await create_skill(world.author)
    run = await start(world, "vet", skill_id)
    for _ in KINDS:
        gate = await answer_gate(world, "passed")
        assert gate.skill_id == skill_id  # the gate's checks know which skill they examine
    finished = (await world.admin.workflows.get_run(run.id)).run
    events = await events_of(world, run.id)
    got = await world.author.context.get_skill(skill_id)
    promoted = await world.ops.context.promote_skill(skill_id, evidence_refs=[f"run:{run.id}"])

    assert finished.status == types_pb.WORKFLOW_RUN_STATUS_COMPLETED
    assert finished.steps.skill_id == skill_id
    assert events[0][1]["skillId"] == skill_id  # run.created
    logged = skill_events(events)
    assert [(kind, p["kind"], p["passed"], p["gate"]) for kind, p in logged] == [
        ("skill.evaluated", kind, True, kind) for kind in KINDS
    ]
    assert all(p["evaluator"] == f"gate:{p['gate']}@{run.id}" for _, p in logged)
    assert all(p["gateHash"].startswith("sha256:") and p["skillState"] == "candidate" for _, p in logged)
    for index, (kind, payload) in enumerate(events):
        if kind == "skill.evaluated":
            assert events[index - 1][0] == "assignment.completed"
            assert events[index - 1][1]["assignmentId"] == payload["assignmentId"]
    assert history(got)[1:] == [("evaluated", f"gate:{kind}@{run.id}", kind.replace("-", "_"), True) for kind in KINDS]
    details = got.history[1].details
    assert run.id in details and "static-review" in details and "sha256:" in details and "step static-review" in details
    assert promoted.skill.state == cpb.SKILL_STATE_PROMOTED and promoted.skill.decided_by == "ops"


@pytest.mark.parametrize("failing", ["functional", "safety"])
async def test_a_failing_functional_or_safety_gate_quarantines_the_skill(world: World, failing: str) -> None:
    skill_id = await create_skill(world.author)
    run = await start(world, "vet", skill_id)
    for _ in KINDS[: KINDS.index(failing)]:
        await answer_gate(world, "passed")
    await answer_gate(world, "failed")
    got = await world.author.context.get_skill(skill_id)
    events = skill_events(await events_of(world, run.id))
    finished = (await world.admin.workflows.get_run(run.id)).run

    assert got.skill.state == cpb.SKILL_STATE_QUARANTINED
    assert history(got)[-2:] == [
        ("evaluated", f"gate:{failing}@{run.id}", failing, False),
        ("quarantined", "evaluator", "unspecified", False),
    ]
    assert (events[-1][1]["kind"], events[-1][1]["passed"], events[-1][1]["skillState"]) == (
        failing,
        False,
        "quarantined",
    )
    assert finished.status == types_pb.WORKFLOW_RUN_STATUS_FAILED  # the gate's own transition


async def test_a_failing_static_review_gate_records_a_failure_without_quarantine(world: World) -> None:
    skill_id = await create_skill(world.author)
    await start(world, "vet", skill_id)
    await answer_gate(world, "failed")
    got = await world.author.context.get_skill(skill_id)

    assert got.skill.state == cpb.SKILL_STATE_CANDIDATE
    assert history(got)[-1][2:] == ("static_review", False)


async def test_an_uncertain_gate_records_nothing(world: World) -> None:
    skill_id = await create_skill(world.author)
    run = await start(world, "vet", skill_id)
    await answer_gate(world, "uncertain")
    got = await world.author.context.get_skill(skill_id)
    blocked = (await world.admin.workflows.get_run(run.id)).run

    assert blocked.status == types_pb.WORKFLOW_RUN_STATUS_BLOCKED
    assert history(got) == [("created", got.skill.created_by, "unspecified", False)]
    assert skill_events(await events_of(world, run.id)) == []


async def test_a_skill_decided_mid_run_is_left_alone_and_the_log_says_why(world: World) -> None:
    """The skill was rejected after the run started: the gate's completion stands, nothing is
    recorded, the run's log says why, and the run moves on."""
    skill_id = await create_skill(world.author)
    run = await start(world, "vet", skill_id)
    await world.ops.context.reject_skill(skill_id, reason="superseded by a better one")
    await answer_gate(world, "passed")
    got = await world.author.context.get_skill(skill_id)
    events = skill_events(await events_of(world, run.id))
    moving = (await world.admin.workflows.get_run(run.id)).run

    assert [event[0] for event in history(got)] == ["created", "rejected"]
    assert events == [
        (
            "skill.evaluation_skipped",
            {
                "skillId": skill_id,
                "kind": "static-review",
                "passed": True,
                "stepId": "static-review",
                "stepAttempt": 1.0,
                "assignmentId": events[0][1]["assignmentId"],
                "gate": "static-review",
                "gateHash": events[0][1]["gateHash"],
                "reason": "skill_not_candidate",
                "skillState": "rejected",
            },
        )
    ]
    assert moving.status == types_pb.WORKFLOW_RUN_STATUS_RUNNING and moving.steps.current_step_id == "sandbox"


async def test_start_refusals_name_the_skill(world: World) -> None:
    """Unknown, another project's, not a candidate, malformed, or a workflow with no evaluating gate."""
    rejected = await create_skill(world.author)
    await world.ops.context.reject_skill(rejected)
    elsewhere = await create_skill(world.other, SKILL_MD + "beta\n")

    with pytest.raises(NotFound) as unknown:
        await start(world, "vet", "nothing.000000000000", "a")
    with pytest.raises(NotFound) as foreign:
        await start(world, "vet", elsewhere, "b")
    with pytest.raises(FailedPrecondition) as decided:
        await start(world, "vet", rejected, "c")
    with pytest.raises(InvalidArgument) as malformed:
        await start(world, "vet", "Not An Id", "d")
    with pytest.raises(InvalidArgument) as no_gate:
        await start(world, "plain", await create_skill(world.author, SKILL_MD + "more\n"), "e")
    runs = await world.admin.workflows.list_runs()

    assert (unknown.value.reason, unknown.value.metadata["field"]) == (Reason.SKILL_NOT_FOUND, "inputs.skill_id")
    assert foreign.value.reason is Reason.SKILL_NOT_FOUND and foreign.value.metadata["skillId"] == elsewhere
    assert (decided.value.reason, decided.value.metadata["state"]) == (Reason.SKILL_NOT_PROMOTABLE, "rejected")
    assert malformed.value.reason is Reason.INVALID_SKILL_REQUEST
    assert malformed.value.field_violations[0].field == "inputs.skill_id"
    assert no_gate.value.reason is Reason.PROTOCOL_ERROR
    assert no_gate.value.field_violations[0].field == "inputs.skill_id"
    assert list(runs.runs) == []  # nothing started


async def test_an_optimization_gate_records_nothing_while_optimization_is_off(world: World) -> None:
    """With ``--skill-optimization off`` (the default) the gate's verdict is logged as skipped,
    and the run goes on: the setting decides at completion, as it does for EvaluateSkill."""
    skill_id = await create_skill(world.author)
    run = await start(world, "tune", skill_id)
    await answer_gate(world, "passed")
    got = await world.author.context.get_skill(skill_id)
    events = skill_events(await events_of(world, run.id))

    assert [event[0] for event in history(got)] == ["created"]
    assert [(kind, p["reason"], p["skillState"]) for kind, p in events] == [
        ("skill.evaluation_skipped", "optimization_disabled", None)
    ]
    assert (await world.admin.workflows.get_run(run.id)).run.status == types_pb.WORKFLOW_RUN_STATUS_COMPLETED


async def test_an_optimization_gate_records_on_a_hub_that_enables_them(hub_settings: Settings) -> None:
    server = HubServer(dataclasses.replace(hub_settings, skill_optimization="on"))
    await server.start()
    try:
        async with world_on(Hub(server, server.address, hub_settings.data_dir, hub_settings.database_path)) as world:
            skill_id = await create_skill(world.author)
            run = await start(world, "tune", skill_id)
            await answer_gate(world, "failed")
            got = await world.author.context.get_skill(skill_id)
    finally:
        await server.stop(0.2)

    assert history(got)[-1] == ("evaluated", f"gate:optimization@{run.id}", "optimization", False)
    assert got.skill.state == cpb.SKILL_STATE_CANDIDATE  # an optimization evaluation never quarantines


async def test_the_cli_starts_a_run_for_a_skill(world: World, tmp_path: Any) -> None:
    """``kxm workflow start DEF --delivery-id D --skill ID`` starts a run for the skill; a skill that
    is not a candidate is refused naming the field, and nothing starts."""
    from tests.test_cli import kxm

    skill_id = await create_skill(world.author)
    rejected = await create_skill(world.author, SKILL_MD + "rejected\n")
    await world.ops.context.reject_skill(rejected)
    env = {"KXM_ADDR": world.hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_PROJECT": "alpha"}

    start = ("workflow", "start", "vet", "--skill")
    code, out, _ = await kxm(*start, skill_id, "--delivery-id", "cli-1", "--json", cwd=tmp_path, env=env)
    refused, _, err = await kxm(*start, rejected, "--delivery-id", "cli-2", cwd=tmp_path, env=env)

    assert code == 0, out
    run_id = json.loads(out)["run"]["id"]
    assert (await world.admin.workflows.get_run(run_id)).run.steps.skill_id == skill_id
    assert refused == 1 and "SKILL_NOT_PROMOTABLE" in err
    assert len((await world.admin.workflows.list_runs()).runs) == 1


async def test_a_gate_expected_to_fail_records_nothing(world: World) -> None:
    """A repro step (``expect: fail``) passes when its checks fail: that reproduces a failure, it
    does not say the skill works, so the evaluation is skipped (``expect_fail``)."""
    document = gate_workflow("repro", ("functional",))
    document["steps"][0]["expect"] = "fail"
    document["steps"][0]["on"] = {"passed": terminal("completed"), "repro-missing": terminal("failed")}
    await world.admin.workflows.register_definition(document)
    skill_id = await create_skill(world.author)

    run = await start(world, "repro", skill_id)
    await answer_gate(world, "failed")  # the checks fail: the repro step passes

    events = await events_of(world, run.id)
    [(kind, payload)] = skill_events(events)
    assert (kind, payload["reason"], payload["kind"]) == ("skill.evaluation_skipped", "expect_fail", "functional")
    got = await world.author.context.get_skill(skill_id)
    assert got.skill.state == cpb.SKILL_STATE_CANDIDATE and len(got.history) == 1  # created only
