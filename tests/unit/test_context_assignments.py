"""The assignment context rules (``kxm_grpc.domain.context.assignments``, spec §5.13): the packet
request an assignment makes, and the brief when no packet could be assembled."""

from __future__ import annotations

import dataclasses

from kxm_grpc.domain.context.assignments import (
    FAILED_GAP,
    AssignmentFacts,
    packet_request,
    render_brief,
)
from kxm_grpc.domain.context.request import MAX_TASK_CHARS, check_request
from kxm_grpc.domain.validation import utf16_length

FACTS = AssignmentFacts(
    assignment_id="asg_" + "a" * 32,
    project="alpha",
    run_id="run_1",
    step_id="implement-feature",
    attempt=2,
    agent_name="implementer-grok",
    instructions="  Write the code.  ",
    outcomes=("failed", "passed"),
    evidence_keys=("implementation", "tests"),
    read_only=False,
    step_number=2,
    step_count=4,
)


def test_the_request_names_the_role_the_agents_name_implies_and_the_steps_instructions() -> None:
    request = packet_request(FACTS, None)

    assert (request.project, request.role, request.task) == ("alpha", "implementer", "Write the code.")
    assert (request.workflow_run_id, request.stage_id, request.budget_tokens) == ("run_1", "implement-feature", 4_000)
    assert check_request(request) == request


def test_an_agent_whose_name_implies_no_role_gets_its_name_as_the_role() -> None:
    request = packet_request(dataclasses.replace(FACTS, agent_name="writer-grok"), 9_000)

    assert (request.role, request.budget_tokens) == ("writer-grok", 9_000)


def test_a_step_without_instructions_asks_for_its_id_and_long_instructions_are_cut() -> None:
    assert packet_request(dataclasses.replace(FACTS, instructions=" \n "), None).task == "implement-feature"

    long = packet_request(dataclasses.replace(FACTS, instructions="😀" * 1_500), None).task

    assert utf16_length(long) <= MAX_TASK_CHARS and long.endswith("…")
    check_request(packet_request(dataclasses.replace(FACTS, instructions="😀" * 1_500), None))


def test_the_brief_without_a_packet_says_so_and_sets_the_failed_gap() -> None:
    brief = render_brief(dataclasses.replace(FACTS, read_only=True), "implementer", "", None)

    assert brief.unresolved_gaps == (FAILED_GAP,)
    assert brief.text.startswith(f"# Assignment {FACTS.assignment_id}\n")
    assert "· permission read-only · outcomes: failed, passed" in brief.text
    assert "- [ ] Provide evidence for `implementation`\n- [ ] Provide evidence for `tests`\n" in brief.text
    assert "Step 2 of 4 (`implement-feature`) of run `run_1`." in brief.text
    assert brief.text.endswith("No context could be assembled.\n")


def test_the_brief_is_the_same_for_the_same_facts() -> None:
    assert render_brief(FACTS, "implementer", "ctxpkt_1", None) == render_brief(FACTS, "implementer", "ctxpkt_1", None)
