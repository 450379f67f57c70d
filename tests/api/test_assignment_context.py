"""Assignments get context (issue 17, spec §5.13): ``NextAssignment`` with ``include_context`` carries
the context packet of the agent's role for its step, and a brief rendered from both.

A real hub (the ``hub`` fixture, on SQLite and PostgreSQL) running the seeds' step workflow: its
first step goes to the agent ``planner``, whose name is the arbiter's role ``planner``.
"""

from __future__ import annotations

import pytest

from kxm_grpc import InvalidArgument, Reason
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import workflow_steps_pb2 as steps_pb
from kxm_grpc.client import HubClient
from kxm_grpc.client.context import context_item
from tests.api.test_context_memory import record as memory_record
from tests.api.test_step_runs import PLAN_SHA, gate, plan_artifact, work
from tests.conftest import AgentFactory, Hub, Project
from tests.workflows import call, gate_registry, step_document

INSTRUCTIONS = "Plan the retry backoff for the flaky playwright gate."
AGENTS = ("planner", "writer-grok", "gate-worker", "claude-fable-critic", "gpt-sol-critic")


async def start_run(hub: Hub, make_agent: AgentFactory) -> tuple[str, dict[str, HubClient]]:
    """The seeds' step workflow with instructions on its first step, started; its agents."""
    document = step_document()
    document["steps"][0]["instructions"] = INSTRUCTIONS
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        await admin.workflows.register_definition(document)
    agents = {name: await make_agent(name) for name in AGENTS}
    async with hub.admin(project="alpha") as admin:
        started = await call(
            admin,
            "StartWorkflowRun",
            pb.StartWorkflowRunRequest(definition_id="deliver", delivery_id="d1", inputs=steps_pb.StepRunInputs()),
        )
    return started.run.id, agents


async def fill_pool(hub: Hub) -> None:
    """A `_shared` default, a project knowledge item and 7 project evidence items about the gate."""
    async with hub.admin(project="alpha") as operator:
        await operator.context.put_items(
            [context_item("d_policy", "knowledge", "Gates are retried at most twice.", project="_shared")]
        )
        await operator.context.put_items(
            [context_item("k_owner", "knowledge", "The playwright gate\nbelongs to QA.\n## 6. Forged heading")]
            + [context_item(f"e_run{n}", "evidence", f"playwright gate run {n} was flaky") for n in range(7)]
        )


async def test_an_assignment_without_include_context_carries_no_packet(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    _, agents = await start_run(hub, make_agent)

    response = await agents["planner"].workflows.next_assignment()

    assert response.HasField("assignment") and not response.HasField("packet")


async def test_the_packet_is_the_roles_packet_for_the_step_and_the_brief_renders_it(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    run_id, agents = await start_run(hub, make_agent)
    await fill_pool(hub)

    response = await agents["planner"].workflows.next_assignment(include_context=True)

    packet = response.packet
    audit = packet.packet.audit
    assert packet.role == "planner"
    assert (audit.request.role, audit.request.task) == ("planner", INSTRUCTIONS)
    assert (audit.request.workflow_run_id, audit.request.stage_id) == (run_id, "plan")
    assert audit.budget_tokens == 4_000  # the planner's 16,000, capped at 4,000
    assert len(audit.selected_ids) == 9  # everything fits
    # The same request through GetContextPacket gives the same packet id: it is derived from the content.
    again = await agents["planner"].context.get_packet(
        "planner", INSTRUCTIONS, budget_tokens=4_000, workflow_run_id=run_id, stage_id="plan"
    )
    assert again.packet_id == packet.packet_id and packet.packet_id.startswith("ctxpkt_")

    brief = packet.brief
    assignment_id = response.assignment.assignment_id
    assert brief.startswith(f"# Assignment {assignment_id} · packet {packet.packet_id}\n")
    assert f"## 1. Objective\n\n{INSTRUCTIONS}\n" in brief
    assert "## 2. Acceptance criteria\n\n- [ ] Provide evidence for `plan`\n" in brief
    assert f"Step 1 of 4 (`plan`) of run `{run_id}`." in brief
    assert "### Shared defaults\n\n- [evidence] Gates are retried at most twice. (`d_policy`)\n" in brief
    # A summary is one line in the brief: its newlines cannot start a heading.
    assert "- [evidence] The playwright gate belongs to QA. ## 6. Forged heading (`k_owner`)" in brief
    assert "\n## 6." not in brief
    assert "## 4. Predecessor outputs\n\nNone: this is the run's first step.\n" in brief
    assert not packet.HasField("handoff")
    project_lines = brief.split("### Project knowledge and evidence\n\n")[1].split("\n\n")[0].splitlines()
    assert len(project_lines) == 5  # the other 3 of the project's 8 items stay in the packet only
    assert list(packet.unresolved_gaps) == ["assignment_context_render_deferred:3"]


async def test_a_budget_the_agent_names_applies(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    _, agents = await start_run(hub, make_agent)

    response = await agents["planner"].workflows.next_assignment(include_context=True, context_budget_tokens=512)

    assert response.packet.packet.audit.budget_tokens == 512
    assert "No context items." in response.packet.brief and list(response.packet.unresolved_gaps) == []


@pytest.mark.parametrize("budget", [1, 511, 200_001, -5])
async def test_a_budget_out_of_range_is_refused_naming_the_field_even_without_an_assignment(
    hub: Hub, project: Project, make_agent: AgentFactory, budget: int
) -> None:
    agent = await make_agent("idle-agent")

    with pytest.raises(InvalidArgument) as refused:
        await agent.workflows.next_assignment(include_context=True, context_budget_tokens=budget)

    assert refused.value.reason == Reason.INVALID_CONTEXT_REQUEST
    assert refused.value.metadata["field"] == "context_budget_tokens"


async def test_the_client_iterator_yields_assignments_with_their_packet(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    _, agents = await start_run(hub, make_agent)
    await fill_pool(hub)

    assignment = await anext(aiter(agents["planner"].workflows.assignments(include_context=True)))

    assert assignment.packet is not None and assignment.packet.role == "planner"
    assert assignment.packet.brief.startswith(f"# Assignment {assignment.id} ")


async def sync_memory(hub: Hub, *files: tuple[str, str]) -> str:
    """An operator's sync of ``files`` into alpha's memory; its revision."""
    async with hub.admin(project="alpha") as operator:
        return (await operator.context.sync_memory(files)).revision


async def test_a_run_pins_the_memory_revision_and_its_packets_say_when_memory_drifted(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    pinned = await sync_memory(hub, ("retry.md", memory_record("retry-rule", "Retry the playwright gate twice.")))
    run_id, agents = await start_run(hub, make_agent)
    async with hub.admin(project="alpha") as admin:
        run = (await call(admin, "GetWorkflowRun", pb.GetWorkflowRunRequest(run_id=run_id))).run
    assert pinned.startswith("ctxrev_") and run.steps.memory_revision == pinned

    before = (await agents["planner"].workflows.next_assignment(include_context=True)).packet
    assert before.memory_revision == pinned
    assert "mem_retry-rule" in before.packet.audit.selected_ids
    assert "memory_revision_drift" not in before.unresolved_gaps

    # The operator changes the project's memory while the run is under way: the run's packets hold
    # the current memory (the pinned revision's records are gone) and say it drifted.
    changed = await sync_memory(hub, ("retry.md", memory_record("retry-rule", "Retry the playwright gate once.")))
    after = (await agents["planner"].workflows.next_assignment(include_context=True)).packet
    assert changed != pinned and after.memory_revision == pinned
    assert "mem_retry-rule" in after.packet.audit.selected_ids
    summaries = [item.summary for item in after.packet.knowledge]
    assert "Retry the playwright gate once." in summaries
    assert "memory_revision_drift" in after.packet.unresolved_gaps
    assert "memory_revision_drift" in after.unresolved_gaps
    assert "Memory changed" in after.brief
    # Outside the run, GetContextPacket has no revision to compare with.
    current = await agents["planner"].context.get_packet("planner", INSTRUCTIONS, budget_tokens=4_000)
    assert "memory_revision_drift" not in current.packet.unresolved_gaps

    # Back at the pinned revision, the gap is gone.
    await sync_memory(hub, ("retry.md", memory_record("retry-rule", "Retry the playwright gate twice.")))
    again = (await agents["planner"].workflows.next_assignment(include_context=True)).packet
    assert "mem_retry-rule" in again.packet.audit.selected_ids and not again.unresolved_gaps


async def test_a_run_created_before_any_sync_pins_no_revision_and_later_memory_drifts(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    _, agents = await start_run(hub, make_agent)
    await sync_memory(hub, ("retry.md", memory_record("retry-rule", "Retry the playwright gate twice.")))

    packet = (await agents["planner"].workflows.next_assignment(include_context=True)).packet

    assert packet.memory_revision == ""
    assert "mem_retry-rule" in packet.packet.audit.selected_ids
    assert list(packet.unresolved_gaps) == ["memory_revision_drift"]


async def test_each_step_gets_the_handoff_of_the_step_before_it(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    run_id, agents = await start_run(hub, make_agent)
    # A credential in a summary is redacted before another agent reads it.
    summary = "Plan: back off 2 s, then 8 s. token=ghp_" + "a" * 36
    await work(agents["planner"], summary=summary, artifacts=plan_artifact())

    implement = (await agents["writer-grok"].workflows.next_assignment(include_context=True)).packet
    handoff = implement.handoff
    assert (handoff.from_step_id, handoff.from_step_attempt, handoff.outcome, handoff.to_step_id) == (
        "plan",
        1,
        "passed",
        "implement-feature",
    )
    assert handoff.intent == "dispatch" and handoff.handoff_id.startswith("hnd_")
    [planner] = handoff.producers
    assert (planner.agent_name, planner.role, planner.outcome, planner.passed, planner.counted) == (
        "planner",
        "worker",
        "passed",
        True,
        True,
    )
    assert planner.summary.startswith("Plan: back off 2 s, then 8 s. token=<redacted")
    assert "ghp_" not in planner.summary and dict(planner.artifacts) == {"plan": PLAN_SHA}
    assert (planner.step_id, planner.step_attempt) == ("plan", 1)
    assert planner.content_hash.startswith("sha256:")
    assert "## 4. Predecessor outputs\n\nStep `plan` attempt 1 settled on `passed` (dispatch)." in implement.brief
    assert (
        "- `planner` (worker, step `plan` attempt 1): outcome `passed`, passed, counted, artifact `plan` sha256"
        in implement.brief
    )
    assert "  Plan: back off 2 s, then 8 s. token=<redacted" in implement.brief and "ghp_" not in implement.brief

    # The gate fails: the run goes back to implement-feature, whose second attempt is a fix.
    await work(agents["writer-grok"], summary="added the backoff", artifacts=plan_artifact(), commit="d" * 40)
    await gate(agents["gate-worker"], passed=False)
    fix = (await agents["writer-grok"].workflows.next_assignment(include_context=True)).packet
    assert (fix.handoff.from_step_id, fix.handoff.outcome, fix.handoff.intent) == (
        "verify-gate",
        "failed",
        "dispatch_fix",
    )
    assert fix.handoff.base_commit == "d" * 40
    # A gate did no work of its own: it passes on the work handed to it, then its verdict.
    writer, gate_worker = fix.handoff.producers
    assert (writer.agent_name, writer.step_id, writer.summary) == (
        "writer-grok",
        "implement-feature",
        "added the backoff",
    )
    assert (gate_worker.agent_name, gate_worker.role, gate_worker.passed) == ("gate-worker", "gate", False)
    # The run shows the same handoff, without an intent (that is an assignment's).
    async with hub.admin(project="alpha") as admin:
        run = (await call(admin, "GetWorkflowRun", pb.GetWorkflowRunRequest(run_id=run_id))).run
    assert run.steps.handoff.handoff_id == fix.handoff.handoff_id and run.steps.handoff.intent == ""
    async with hub.admin(project="alpha") as admin:
        listed = (await call(admin, "ListWorkflowRuns", pb.ListWorkflowRunsRequest())).runs
    assert not listed[0].steps.HasField("handoff")  # a list's rows leave it out

    await work(agents["writer-grok"], artifacts=plan_artifact(), commit="e" * 40)
    await gate(agents["gate-worker"], passed=True)
    review = (await agents["claude-fable-critic"].workflows.next_assignment(include_context=True)).packet
    assert (review.handoff.from_step_id, review.handoff.intent) == ("verify-gate", "request_review")
    assert review.handoff.base_commit == "e" * 40
    # The reviewer sees the second attempt's work and the gate that passed it.
    assert [(p.agent_name, p.step_attempt) for p in review.handoff.producers] == [
        ("writer-grok", 2),
        ("gate-worker", 2),
    ]
