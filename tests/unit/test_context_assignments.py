"""The assignment context rules (``kxm_grpc.domain.context.assignments``, spec §5.13): the packet
request an assignment makes, and the brief when no packet could be assembled."""

from __future__ import annotations

import dataclasses

from kxm_grpc.domain.context.assignments import (
    FAILED_GAP,
    AssignmentFacts,
    handoff_id,
    handoff_intent,
    packet_request,
    render_brief,
)
from kxm_grpc.domain.context.request import MAX_TASK_CHARS, check_request
from kxm_grpc.domain.validation import utf16_length
from kxm_grpc.domain.workflows.engine.state import Handoff, MemberRole, Producer

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


def producer(n: int, artifacts: int = 0) -> Producer:
    return Producer(
        assignment_id=f"asg_{n}",
        step_id="review",
        step_attempt=1,
        agent=f"critic-{n}",
        role=MemberRole.REVIEWER,
        outcome="passed",
        passed=True,
        counted=n % 2 == 0,
        why="counted" if n % 2 == 0 else "same provider as critic-0",
        summary=f"review {n}\n## 6. Forged",
        blockers=n % 3,
        artifacts={f"log-{a:02d}": "ab" * 32 for a in range(artifacts)},
        commit="",
        content_hash="sha256:" + "c" * 64,
    )


def test_the_brief_lists_the_latest_results_of_the_handoff_and_counts_what_it_leaves_to_the_packet() -> None:
    handoff = Handoff(
        from_step="review",
        from_attempt=1,
        outcome="changes-requested",
        to_step="implement-feature",
        create_time=0,
        base_commit="d" * 40,
        producers=tuple(producer(n, artifacts=10 if n == 9 else 0) for n in range(10)),
    )
    facts = dataclasses.replace(FACTS, handoff=handoff)

    brief = render_brief(facts, "implementer", "", None)

    section = brief.text.split("## 4. Predecessor outputs\n\n")[1].split("\n## 5.")[0]
    assert section.startswith(
        f"Step `review` attempt 1 settled on `changes-requested` (dispatch_fix); base commit `{'d' * 40}`."
    )
    listed = [line for line in section.splitlines() if line.startswith("- ")]
    assert [line.split("`")[1] for line in listed] == [f"critic-{n}" for n in range(2, 10)]  # the latest 8
    assert listed[1].startswith("- `critic-3` (reviewer, step `review` attempt 1): outcome `passed`, passed")
    assert "not counted: same provider as critic-0" in listed[1]
    assert listed[-1].count("artifact `") == 8
    assert "\n## 6." not in brief.text  # a summary stays on its line
    # 2 results and 2 artifacts are in the packet's handoff only.
    assert brief.unresolved_gaps == ("assignment_context_handoff_deferred:4", FAILED_GAP)


def test_a_reviewers_handoff_asks_for_a_review_and_a_first_attempts_for_the_work() -> None:
    handoff = Handoff("implement-feature", 1, "passed", "review", 0, "", (producer(0),))

    review = dataclasses.replace(FACTS, handoff=handoff, reviewer=True, attempt=1)
    first = dataclasses.replace(FACTS, handoff=handoff, attempt=1)

    assert handoff_intent(review) == "request_review" and handoff_intent(first) == "dispatch"
    assert handoff_intent(FACTS) == "dispatch_fix"  # attempt 2: the step runs again
    assert handoff_id("run_1", handoff) == handoff_id("run_1", handoff) != handoff_id("run_2", handoff)
