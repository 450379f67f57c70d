"""Step runs over a real hub, on both backends: the hub dispatches each step of a step workflow to
its agents as an AssignmentRequest on their inboxes, takes their WorkerResults and ReviewEnvelopes
back through CompleteAssignment, runs the gate through a gate worker, joins the reviews into a
quorum of distinct providers and moves the run to its terminal status (seed 000, loop A)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from kxm_grpc import HubError, Reason
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as env
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import workflow_steps_pb2 as steps_pb
from kxm_grpc._gen.kxm.v1 import workflow_types_pb2 as types_pb
from kxm_grpc.client import HubClient
from tests.conftest import AgentFactory, Hub, Project, ProjectFactory
from tests.workflows import call, gate_registry, step_document, terminal

PLAN_SHA = "ab" * 32
AGENTS = ("planner", "writer-grok", "gate-worker", "claude-fable-critic", "gpt-sol-critic")


async def setup(hub: Hub, make_agent: AgentFactory, **document: Any) -> dict[str, HubClient]:
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        await admin.workflows.register_definition(step_document(**document))
    return {name: await make_agent(name) for name in AGENTS}


async def start(hub: Hub, delivery: str = "d1", **inputs: Any) -> types_pb.WorkflowRun:
    async with hub.admin(project="alpha") as admin:
        response = await call(
            admin,
            "StartWorkflowRun",
            pb.StartWorkflowRunRequest(
                definition_id="deliver", delivery_id=delivery, inputs=steps_pb.StepRunInputs(**inputs)
            ),
        )
    return response.run


async def run_of(hub: Hub, run_id: str) -> types_pb.WorkflowRun:
    async with hub.admin(project="alpha") as admin:
        return (await call(admin, "GetWorkflowRun", pb.GetWorkflowRunRequest(run_id=run_id))).run


async def next_of(agent: HubClient) -> env.AssignmentRequest:
    response = await call(agent, "NextAssignment", pb.NextAssignmentRequest())
    assert response.HasField("assignment"), "the agent has an open assignment"
    return response.assignment


async def work(agent: HubClient, outcome: str = "passed", **result: Any) -> pb.CompleteAssignmentResponse:
    assignment = await next_of(agent)
    worker_result = env.WorkerResult(outcome=outcome, **result)
    return await call(
        agent,
        "CompleteAssignment",
        pb.CompleteAssignmentRequest(assignment_id=assignment.assignment_id, worker_result=worker_result),
    )


async def gate(agent: HubClient, passed: bool) -> pb.CompleteAssignmentResponse:
    assignment = await next_of(agent)
    assert assignment.role == "gate" and assignment.gate.id == "npm-verify"
    checks = [
        env.GateCheck(name=check.name, passed=passed, exit_code=0 if passed else 1) for check in assignment.gate.checks
    ]
    return await call(
        agent,
        "CompleteAssignment",
        pb.CompleteAssignmentRequest(
            assignment_id=assignment.assignment_id, worker_result=env.WorkerResult(outcome="done", checks=checks)
        ),
    )


async def review(
    agent: HubClient, verdict: str = "PASS", blockers: tuple[str, ...] = ()
) -> pb.CompleteAssignmentResponse:
    assignment = await next_of(agent)
    assert assignment.role == "reviewer"
    envelope = env.ReviewEnvelope(assignment_id=assignment.assignment_id, verdict=verdict, blockers=list(blockers))
    return await call(
        agent,
        "CompleteAssignment",
        pb.CompleteAssignmentRequest(assignment_id=assignment.assignment_id, review=envelope),
    )


def plan_artifact() -> list[env.Artifact]:
    return [env.Artifact(name="plan", path="docs/plan.md", sha256=PLAN_SHA)]


async def test_loop_a_runs_end_to_end_through_the_hub(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    agents = await setup(hub, make_agent)
    run = await start(hub, repository="https://git.example/app.git", base_commit="c" * 40)
    assert (run.kind, run.status) == (types_pb.WORKFLOW_KIND_STEPS, types_pb.WORKFLOW_RUN_STATUS_RUNNING)
    assert run.steps.current_step_id == "plan"

    assignment = await next_of(agents["planner"])
    assert assignment.schema == "kxm.assignment-request.v1"
    assert (assignment.run_id, assignment.step_id, assignment.attempt, assignment.role) == (run.id, "plan", 1, "worker")
    assert assignment.context.git.branch == f"kxm/{run.id}/plan"
    assert assignment.context.git.base_commit == "c" * 40
    assert assignment.attempt_token.startswith("kxmat1.")
    assert sorted(assignment.outcomes) == ["failed", "passed"]
    inbox = await agents["planner"].messages.list_inbox()
    delivered = [m for m in inbox.messages if m.from_agent_id == f"workflow:{run.id}"]
    assert [json.loads(m.content)["assignmentId"] for m in delivered] == [assignment.assignment_id]
    assert "attemptToken" not in json.loads(delivered[0].content)  # a stored message holds no bearer token

    await work(agents["planner"], artifacts=plan_artifact())
    await work(agents["writer-grok"], artifacts=plan_artifact(), commit="d" * 40)
    failed = await gate(agents["gate-worker"], passed=False)  # back to implement-feature
    assert failed.assignment.outcome == "failed", failed
    run = await run_of(hub, run.id)
    assert (run.steps.current_step_id, run.steps.step_attempt) == ("implement-feature", 2)
    await work(agents["writer-grok"], artifacts=plan_artifact(), commit="e" * 40)
    gate_assignment = await next_of(agents["gate-worker"])
    assert gate_assignment.context.git.base_commit == "e" * 40  # the gate checks out what was written
    with pytest.raises(HubError) as elsewhere:
        # A gate that ran on another commit than it was sent to check is refused.
        await call(
            agents["gate-worker"],
            "CompleteAssignment",
            pb.CompleteAssignmentRequest(
                assignment_id=gate_assignment.assignment_id,
                worker_result=env.WorkerResult(outcome="done", commit="f" * 40),
            ),
        )
    assert elsewhere.value.field_violations[0].field == "result.commit"
    await gate(agents["gate-worker"], passed=True)
    await review(agents["claude-fable-critic"])
    done = await review(agents["gpt-sol-critic"])
    assert done.run_status == types_pb.WORKFLOW_RUN_STATUS_COMPLETED

    run = await run_of(hub, run.id)
    assert (run.status, run.end_reason) == (types_pb.WORKFLOW_RUN_STATUS_COMPLETED, "dual-critic-review:passed")
    async with hub.admin(project="alpha") as admin:
        events = (await call(admin, "ListWorkflowRunEvents", pb.ListWorkflowRunEventsRequest(run_id=run.id))).events
        listed = (await call(admin, "ListWorkflowRuns", pb.ListWorkflowRunsRequest())).runs
        audited = await call(admin, "AuditGateEvidence", pb.AuditGateEvidenceRequest(run_id=run.id))
    assert (audited.intact, audited.records) == (True, 2), audited.problems
    evidence = [e.payload for e in events if e.type == "gate.evidence"]
    assert [(e["outcome"], e["gate"], e["commit"]) for e in evidence] == [
        ("failed", "npm-verify", "d" * 40),  # the commit each gate was sent to check
        ("passed", "npm-verify", "e" * 40),
    ]
    assert [event.sequence for event in events] == list(range(1, len(events) + 1))
    assert events[0].type == "run.created" and events[-1].type == "run.ended"
    outcome = [e for e in events if e.type == "step.outcome"][-1]
    counted = {p["agent"]: p["counted"] for p in outcome.payload["producers"]}
    assert counted == {"claude-fable-critic": True, "gpt-sol-critic": True}
    assert [r.id for r in listed] == [run.id]


async def test_results_are_accepted_once_from_their_assignee_only(
    hub: Hub, project: Project, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    agents = await setup(hub, make_agent)
    await start(hub)
    assignment = await next_of(agents["planner"])
    request = pb.CompleteAssignmentRequest(
        assignment_id=assignment.assignment_id,
        worker_result=env.WorkerResult(outcome="passed", artifacts=plan_artifact()),
    )

    with pytest.raises(HubError) as forbidden:
        await call(agents["writer-grok"], "CompleteAssignment", request)
    assert forbidden.value.reason is Reason.ASSIGNMENT_FORBIDDEN

    other = await make_project("beta")
    outsider = HubClient(hub.address, token=other.token)
    await outsider.agents.register("planner")
    with pytest.raises(HubError) as missing:
        await call(outsider, "CompleteAssignment", request)
    assert missing.value.reason is Reason.ASSIGNMENT_NOT_FOUND
    await outsider.close()

    with pytest.raises(HubError) as undeclared:
        bad = pb.CompleteAssignmentRequest(
            assignment_id=assignment.assignment_id, worker_result=env.WorkerResult(outcome="done")
        )
        await call(agents["planner"], "CompleteAssignment", bad)
    assert undeclared.value.metadata["field"] == "result.outcome"

    first = await call(agents["planner"], "CompleteAssignment", request)
    again = await call(agents["planner"], "CompleteAssignment", request)
    assert (first.duplicate, again.duplicate) == (False, True)
    changed = pb.CompleteAssignmentRequest(
        assignment_id=assignment.assignment_id, worker_result=env.WorkerResult(outcome="failed")
    )
    with pytest.raises(HubError) as closed:
        await call(agents["planner"], "CompleteAssignment", changed)
    assert closed.value.reason is Reason.ASSIGNMENT_CLOSED


async def test_a_quorum_of_one_provider_fails_the_run(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    """Two PASS reviews whose declared providers are one never meet the provider-diverse quorum."""
    document = step_document()
    document["agents"]["gpt-sol-critic"] = {"provider": "openai", "model": "gpt-sol"}
    document["agents"]["opus-critic"] = {"provider": "anthropic", "model": "claude-opus"}
    review_step = document["steps"][3]
    review_step["on"]["quorum-not-met"] = {"target": "$terminal", "terminalStatus": "failed"}
    review_step["assignments"]["allowedAgents"] = ["claude-fable-critic", "opus-critic", "gpt-sol-critic"]
    review_step["requiredEvidence"][0]["producerPolicy"]["eligibleAgents"] = [
        "claude-fable-critic",
        "opus-critic",
        "gpt-sol-critic",
    ]
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        await admin.workflows.register_definition(document)
    agents = {name: await make_agent(name) for name in ("planner", "writer-grok", "gate-worker", "claude-fable-critic")}
    agents["opus-critic"] = await make_agent("opus-critic")  # gpt-sol-critic is never online
    run = await start(hub)
    await work(agents["planner"], artifacts=plan_artifact())
    await work(agents["writer-grok"], artifacts=plan_artifact())
    await gate(agents["gate-worker"], passed=True)
    await review(agents["claude-fable-critic"])
    await review(agents["opus-critic"])
    run = await run_of(hub, run.id)
    assert (run.status, run.end_reason) == (types_pb.WORKFLOW_RUN_STATUS_FAILED, "dual-critic-review:quorum-not-met")
    async with hub.admin(project="alpha") as admin:
        events = (await call(admin, "ListWorkflowRunEvents", pb.ListWorkflowRunEventsRequest(run_id=run.id))).events
    outcome = [e for e in events if e.type == "step.outcome"][-1]
    why = {p["agent"]: p["why"] for p in outcome.payload["producers"]}
    assert why == {"claude-fable-critic": "counted", "opus-critic": "same provider as claude-fable-critic"}


async def test_an_operator_cancels_and_other_projects_see_nothing(
    hub: Hub, project: Project, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    agents = await setup(hub, make_agent)
    run = await start(hub)
    again = await start(hub)  # the same delivery id: the same run
    assert again.id == run.id
    other = await make_project("beta")
    async with hub.admin(project="beta") as beta:
        with pytest.raises(HubError) as hidden:
            await call(beta, "GetWorkflowRun", pb.GetWorkflowRunRequest(run_id=run.id))
        assert hidden.value.reason is Reason.WORKFLOW_NOT_FOUND
    assert other.name == "beta"
    async with hub.admin(project="alpha") as admin:
        cancelled = (
            await call(admin, "CancelWorkflowRun", pb.CancelWorkflowRunRequest(run_id=run.id, reason="stop"))
        ).run
    assert cancelled.status == types_pb.WORKFLOW_RUN_STATUS_CANCELLED
    assert cancelled.steps.assignments[0].state == steps_pb.ASSIGNMENT_STATE_CANCELLED
    nothing = await call(agents["planner"], "NextAssignment", pb.NextAssignmentRequest())
    assert not nothing.HasField("assignment")


def make_repository(path: Any) -> tuple[str, str]:
    """A git repository whose first commit's ``verdict`` is fail and its second's pass: their ids."""
    import subprocess

    path.mkdir()
    git = ["git", "-C", str(path), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    commits = []
    for verdict in ("fail", "pass"):
        (path / "verdict").write_text(f"{verdict}\n")
        subprocess.run([*git, "add", "verdict"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", verdict], check=True)
        commits.append(
            subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
        )
    return commits[0], commits[1]


async def test_kxm_gate_worker_runs_a_gate_assignment(
    hub: Hub, project: Project, make_agent: AgentFactory, tmp_path: Any
) -> None:
    """``kxm gate worker --once`` registers as gate-worker, runs the pinned gate's checks in a real
    git checkout of the run's commit, and completes the assignment: a failing check takes the gate's
    back-edge, a passing one moves the run on."""
    from tests.test_cli import kxm

    failing, passing = make_repository(tmp_path / "app")
    repository = tmp_path / "app"
    check = "import pathlib, sys; sys.exit(0 if pathlib.Path('verdict').read_text().strip() == 'pass' else 1)"
    registry = gate_registry(
        **{"npm-verify": {"kind": "command", "argv": [sys.executable, "-c", check], "timeoutMs": 60_000}}
    )
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_gate_registry(registry, project="alpha")
        await admin.workflows.register_definition(step_document())
    agents = {name: await make_agent(name) for name in ("planner", "writer-grok")}
    run = await start(hub, repository=str(repository), base_commit=failing)
    await work(agents["planner"], artifacts=plan_artifact())
    await work(agents["writer-grok"], artifacts=plan_artifact(), commit=failing)
    env = {"KXM_ADDR": hub.address, "KXM_TOKEN": project.token, "KXM_DATA_DIR": str(tmp_path / "state")}
    worker = ("gate", "worker", "--once", "--workdir", str(tmp_path / "work"))

    code, _, err = await kxm(*worker, cwd=tmp_path, env=env)
    assert code == 0, err
    after_fail = await run_of(hub, run.id)
    assert (after_fail.steps.current_step_id, after_fail.steps.step_attempt) == ("implement-feature", 2)

    await work(agents["writer-grok"], artifacts=plan_artifact(), commit=passing)
    code, _, err = await kxm(*worker, cwd=tmp_path, env=env)
    assert code == 0, err
    after_pass = await run_of(hub, run.id)
    assert after_pass.steps.current_step_id == "dual-critic-review"
    assert not list((tmp_path / "work").iterdir())  # each workspace removed after its gate


async def test_the_cli_approves_recovers_and_reads_events(
    hub: Hub, project: Project, make_agent: AgentFactory, tmp_path: Any
) -> None:
    """``kxm workflow approve`` decides an approval step, ``recover`` fails a run an uncertain gate
    blocked, ``events --json`` prints the log, and ``run`` shows the step run's state."""
    from tests.conftest import ADMIN_TOKEN
    from tests.test_cli import kxm

    document = {
        "schema": "kxm.workflow.v1",
        "id": "ship",
        "project": "alpha",
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "on": {"passed": "check", "failed": terminal("failed")},
            },
            {
                "id": "check",
                "kind": "gate",
                "command": [sys.executable, "-c", "pass"],
                "on": {"passed": "sign-off", "failed": terminal("failed")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    cli_env = {
        "KXM_ADDR": hub.address,
        "KXM_ADMIN_TOKEN": ADMIN_TOKEN,
        "KXM_TOKEN": project.token,
        "KXM_PROJECT": "alpha",
    }
    builder, gate_worker = await make_agent("builder"), await make_agent("gate-worker")
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
        first = (await admin.workflows.start_run("ship", delivery_id="one")).run
        second = (await admin.workflows.start_run("ship", delivery_id="two")).run

    for _ in (first, second):
        await work(builder)
    uncertain = env_pb_uncertain()
    assignments = [await next_of(gate_worker)]
    await call(
        gate_worker,
        "CompleteAssignment",
        pb.CompleteAssignmentRequest(
            assignment_id=assignments[0].assignment_id,
            worker_result=env.WorkerResult(
                outcome="done", checks=[env.GateCheck(name="check", passed=True, exit_code=0)]
            ),
        ),
    )
    second_gate = await next_of(gate_worker)
    await call(
        gate_worker,
        "CompleteAssignment",
        pb.CompleteAssignmentRequest(assignment_id=second_gate.assignment_id, worker_result=uncertain),
    )
    assert {assignments[0].run_id, second_gate.run_id} == {first.id, second.id}
    approve_id = assignments[0].run_id
    recover_id = second_gate.run_id
    assert (await run_of(hub, recover_id)).status == types_pb.WORKFLOW_RUN_STATUS_BLOCKED

    code, out, err = await kxm(
        "workflow", "approve", approve_id, "sign-off", "approved", "--reason", "ok", cwd=tmp_path, env=cli_env
    )
    assert code == 0, err
    code, out, err = await kxm(
        "workflow", "recover", recover_id, "fail", "--reason", "broken runner", cwd=tmp_path, env=cli_env
    )
    assert code == 0, err
    code, out, err = await kxm("workflow", "events", approve_id, "--json", cwd=tmp_path, env=cli_env)
    assert code == 0, err
    events = json.loads(out)["events"]
    assert [e["sequence"] for e in events] == [str(n) for n in range(1, len(events) + 1)]  # int64: strings
    approved = [e for e in events if e["type"] == "step.approved"]
    assert approved[0]["payload"]["operator"] == "admin" and approved[0]["payload"]["reason"] == "ok"
    for audited in (approve_id, recover_id):  # a passed gate's evidence, and an uncertain one's
        code, out, err = await kxm("workflow", "audit", audited, cwd=tmp_path, env=cli_env)
        assert (code, out.split()[:3]) == (0, ["intact", "records", "1"]), out + err
    code, out, err = await kxm("workflow", "run", approve_id, cwd=tmp_path, env=cli_env)
    assert code == 0, err
    assert "completed" in out.splitlines()[0] and "transitions 3/3" in out
    assert (await run_of(hub, approve_id)).status == types_pb.WORKFLOW_RUN_STATUS_COMPLETED
    failed = await run_of(hub, recover_id)
    assert (failed.status, failed.end_reason) == (types_pb.WORKFLOW_RUN_STATUS_FAILED, "gate_uncertain")


def env_pb_uncertain() -> env.WorkerResult:
    return env.WorkerResult(
        outcome="uncertain",
        checks=[env.GateCheck(name="check", passed=False, observation="uncertain", reason="timeout")],
    )


async def test_a_wait_step_takes_its_signal_once(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    """SignalWorkflowRun resolves a step run's wait step with a declared outcome: a wrong key or an
    undeclared outcome is refused and changes nothing, the same delivery again is a duplicate, the
    same delivery id with another key is a conflict."""
    document = {
        "schema": "kxm.workflow.v1",
        "id": "release",
        "project": "alpha",
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "on": {"passed": "window", "failed": terminal("failed")},
            },
            {
                "id": "window",
                "kind": "wait",
                "signal": "deploy-window",
                "on": {"open": "sign-off", "closed": terminal("cancelled")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    builder = await make_agent("builder")
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
        run = (await admin.workflows.start_run("release", delivery_id="one")).run
        await work(builder)
        waiting = await run_of(hub, run.id)
        assert waiting.steps.current_step_id == "window"
        assert waiting.steps.phase == steps_pb.STEP_PHASE_AWAITING_SIGNAL

        with pytest.raises(HubError) as wrong_key:
            await admin.workflows.signal_run(run.id, "other", "passed", delivery_id="s0", outcome="open")
        assert wrong_key.value.reason == Reason.WORKFLOW_NOT_WAITING
        with pytest.raises(HubError) as undeclared:
            await admin.workflows.signal_run(run.id, "deploy-window", "passed", delivery_id="s0")
        assert undeclared.value.field_violations[0].field == "outcome"  # "pass" is not declared
        assert (await run_of(hub, run.id)).steps.current_step_id == "window"

        first = await admin.workflows.signal_run(run.id, "deploy-window", "passed", delivery_id="s1", outcome="open")
        again = await admin.workflows.signal_run(run.id, "deploy-window", "passed", delivery_id="s1", outcome="open")
        with pytest.raises(HubError) as conflict:
            await admin.workflows.signal_run(run.id, "deploy-window", "passed", delivery_id="s1", outcome="closed")
        assert conflict.value.reason == Reason.WORKFLOW_SIGNAL_DELIVERY_CONFLICT
        assert (first.duplicate, first.stage_id, again.duplicate) == (False, "window", True)
        assert (await run_of(hub, run.id)).steps.current_step_id == "sign-off"
        events = (await admin.workflows.list_run_events(run.id)).events
    signalled = [e for e in events if e.type == "step.signalled"]
    assert len(signalled) == 1 and signalled[0].payload["outcome"] == "open"


async def test_a_workflow_that_requires_attempt_tokens_binds_its_assignees(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    """With ``requireAttemptTokens``, an assignee's tool calls without its attempt token are refused
    while its assignment is open (NextAssignment, which hands the token out, excepted); with the
    token they are served; once the assignment closes the agent is free again."""
    document = {
        "schema": "kxm.workflow.v1",
        "id": "bound",
        "project": "alpha",
        "requireAttemptTokens": True,
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "on": {"passed": "sign-off", "failed": terminal("failed")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    builder = await make_agent("builder")
    bystander = await make_agent("bystander")
    await builder.agents.list()  # authenticated (and cached) before the assignment exists
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
        await admin.workflows.start_run("bound", delivery_id="one")

    assignment = await next_of(builder)
    with pytest.raises(HubError) as refused:
        await builder.agents.list()
    await bystander.agents.list()  # only the assignee is bound
    builder.use_tokens(attempt_token=assignment.attempt_token)
    await builder.agents.list()
    await call(
        builder,
        "CompleteAssignment",
        pb.CompleteAssignmentRequest(
            assignment_id=assignment.assignment_id, worker_result=env.WorkerResult(outcome="passed")
        ),
    )
    with pytest.raises(HubError) as closed:
        await builder.agents.list()  # the token of a closed assignment is honoured no more
    builder.use_tokens()
    await builder.agents.list()  # and without it the agent is free

    assert refused.value.reason == Reason.ATTEMPT_TOKEN_REQUIRED
    assert refused.value.metadata["assignmentId"] == assignment.assignment_id
    assert (closed.value.reason, closed.value.metadata["defect"]) == (Reason.ATTEMPT_TOKEN_INVALID, "assignment_closed")


async def test_required_artifacts_and_receipts_are_checked_and_the_receipt_returned_with_the_run(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    """A passed result of a step that requires an artifact and a receipt must carry both (else it is
    refused, naming the field, and the assignment stays open to be answered again); a receipt
    naming another run is refused; the accepted one comes back with the run and in its events."""
    document = {
        "schema": "kxm.workflow.v1",
        "id": "receipted",
        "project": "alpha",
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "requiredEvidence": [{"key": "bundle", "kind": "artifact"}, {"key": "seat", "kind": "receipt"}],
                "on": {"passed": "sign-off", "failed": terminal("failed")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    builder = await make_agent("builder")
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
        run = (await admin.workflows.start_run("receipted", delivery_id="one")).run
    bundle = [env.Artifact(name="bundle", path="dist/app.tgz", sha256="cd" * 32)]
    accepted = env.TerminalReceipt(
        status=env.TERMINAL_RECEIPT_STATUS_ACCEPTED,
        seat="builder",
        model="grok-4",
        evidence=env.ReceiptEvidence(git_hash="e" * 40, test_summary=env.TestSummary(passed=12)),
        metrics=env.UsageMetrics(duration_ms=900, cost_usd=0.02),
    )

    async def refused(**result: Any) -> HubError:
        with pytest.raises(HubError) as error:
            await work(builder, **result)
        return error.value

    no_artifact = await refused(receipt=accepted)
    no_receipt = await refused(artifacts=bundle)
    rejected = await refused(artifacts=bundle, receipt=env.TerminalReceipt(status=env.TERMINAL_RECEIPT_STATUS_REJECTED))
    other_run = await refused(artifacts=bundle, receipt=env.TerminalReceipt(status=1, run_id="run_" + "0" * 32))
    await work(builder, artifacts=bundle, receipt=accepted)

    assert [e.field_violations[0].field for e in (no_artifact, no_receipt, rejected, other_run)] == [
        "result.artifacts",
        "result.receipt",
        "result.receipt",
        "result.receipt.runId",
    ]
    (kept,) = (await run_of(hub, run.id)).steps.receipts
    assert (kept.status, kept.seat, kept.run_id, kept.stage_id) == (
        env.TERMINAL_RECEIPT_STATUS_ACCEPTED,
        "builder",
        run.id,
        "build",
    )
    assert kept.evidence.test_summary.passed == 12 and kept.metrics.duration_ms == 900


async def test_a_step_that_keeps_passing_is_an_improvement_candidate(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    """GetImprovementReport groups the project's step runs' results: a step decided in three runs
    and passed in all is a candidate, with its runs, pass rate, cost and evidence references."""
    document = {
        "schema": "kxm.workflow.v1",
        "id": "chore",
        "project": "alpha",
        "steps": [
            {
                "id": "lint",
                "kind": "agent",
                "agent": "builder",
                "on": {"passed": "sign-off", "failed": terminal("failed")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    builder = await make_agent("builder")
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
        for delivery in ("one", "two", "three"):
            await admin.workflows.start_run("chore", delivery_id=delivery)
            await work(builder, telemetry=env.UsageMetrics(cost_usd=0.03, duration_ms=400))
        report = await call(admin, "GetImprovementReport", pb.GetImprovementReportRequest())

    (group,) = report.step_groups
    assert (group.workflow_id, group.step_id, group.role, group.runs, group.pass_rate) == (
        "chore",
        "lint",
        "worker",
        3,
        1.0,
    )
    assert (group.candidate, group.exclusion, group.cost_reported) == (True, "", True)
    assert group.mean_cost_usd == pytest.approx(0.03) and group.mean_duration_ms == 400
    assert len(group.evidence_refs) == 3 and not report.step_runs_truncated


async def test_the_token_binding_survives_a_presence_renewal(clocked_hub: tuple[Hub, Any]) -> None:
    """A renewal re-caches the agent's authentication: the bound assignment must stay in it, so a
    call without the token after a renewal is still refused."""
    hub, clock = clocked_hub
    document = {
        "schema": "kxm.workflow.v1",
        "id": "bound",
        "project": "alpha",
        "requireAttemptTokens": True,
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "on": {"passed": "sign-off", "failed": terminal("failed")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    async with hub.admin() as admin:
        token = (await admin.admin.create_project("alpha")).project_token
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
    builder = HubClient(hub.address, token=token)
    await builder.agents.register("builder")
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.start_run("bound", delivery_id="one")
    for _ in range(3):
        clock.advance(30.0)  # past a quarter of the stale period: the next call renews presence
        await call(builder, "NextAssignment", pb.NextAssignmentRequest())  # allowed, and renews
        with pytest.raises(HubError) as refused:
            await builder.agents.list()
        assert refused.value.reason == Reason.ATTEMPT_TOKEN_REQUIRED
    await builder.close()


async def test_a_worker_that_passes_over_an_assignment_still_gets_the_next_and_later_that_one(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    """``assignments()`` moves past an assignment left open (passed over, or a failed complete) to
    the newer ones, and yields the one left open again after a wait."""
    document = {
        "schema": "kxm.workflow.v1",
        "id": "pair",
        "project": "alpha",
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "on": {"passed": "sign-off", "failed": terminal("failed")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    builder = await make_agent("builder")
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
        first = (await admin.workflows.start_run("pair", delivery_id="one")).run
        second = (await admin.workflows.start_run("pair", delivery_id="two")).run

    seen: list[str] = []

    async def drive() -> None:
        async for assignment in builder.workflows.assignments(poll=0.05):
            seen.append(assignment.request.run_id)
            if len(seen) == 1:
                continue  # passed over: left open
            await assignment.complete(env.WorkerResult(outcome="passed"))
            if len(seen) == 3:
                return

    await asyncio.wait_for(drive(), 30)

    assert seen == [first.id, second.id, first.id]


async def test_a_result_at_its_deadline_is_refused_and_the_assignment_expired(clocked_hub: tuple[Hub, Any]) -> None:
    """Deadlines are exact: a microsecond before, the result is accepted; at the deadline it is
    refused (ASSIGNMENT_CLOSED, expired) whether or not the deadline's timer has fired, and the
    member counts as a failed attempt."""
    hub, clock = clocked_hub
    document = {
        "schema": "kxm.workflow.v1",
        "id": "timed",
        "project": "alpha",
        "steps": [
            {
                "id": "build",
                "kind": "agent",
                "agent": "builder",
                "timeoutMs": 1_000,
                "on": {"passed": "sign-off", "failed": terminal("failed")},
            },
            {
                "id": "sign-off",
                "kind": "approval",
                "on": {"approved": terminal("completed"), "rejected": terminal("failed")},
            },
        ],
    }
    async with hub.admin() as admin:
        token = (await admin.admin.create_project("alpha")).project_token
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_definition(document)
    builder = HubClient(hub.address, token=token)
    await builder.agents.register("builder")
    async with hub.admin(project="alpha") as admin:
        late_run = (await admin.workflows.start_run("timed", delivery_id="late")).run
    late = await next_of(builder)
    clock.advance(1.0)  # exactly at the deadline
    with pytest.raises(HubError) as refused:
        await builder.workflows.complete_assignment(late.assignment_id, env.WorkerResult(outcome="passed"))
    async with hub.admin(project="alpha") as admin:
        ended = (await admin.workflows.get_run(late_run.id)).run
        on_time_run = (await admin.workflows.start_run("timed", delivery_id="on-time")).run
    on_time = await next_of(builder)
    clock.advance(0.999_999)
    accepted = await builder.workflows.complete_assignment(on_time.assignment_id, env.WorkerResult(outcome="passed"))
    await builder.close()

    assert (refused.value.reason, refused.value.metadata["state"]) == (Reason.ASSIGNMENT_CLOSED, "expired")
    assert (ended.status, ended.end_reason) == (types_pb.WORKFLOW_RUN_STATUS_FAILED, "build:failed")
    assert on_time.run_id == on_time_run.id and accepted.assignment.outcome == "passed"
