"""``hub.workflows`` against a real hub: every WorkflowService method, the review helper, and the blocking twin.

An operator (the admin token) registers definitions and starts runs; the coordinator agent reads
its runs, asks its reviewers through ``request_review`` and checkpoints with the ids it returned;
the operator approves a degradation, signals a wait and rules on an escalation. None of these calls
reaches a deprecated flat name: the marker below turns such a warning back into an error.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kxm_grpc import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, Reason
from kxm_grpc.client import HubClient, ReviewNotSent, SyncHubClient
from kxm_grpc.client.workflows import REQUEST_ID_PREFIX, checkpoint_status, run_status
from kxm_grpc.v1 import CheckpointStatus, WorkflowRunStatus, WorkflowStageStatus
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project
from tests.workflows import define

pytestmark = pytest.mark.filterwarnings("error::DeprecationWarning")

RUNNING = WorkflowRunStatus.WORKFLOW_RUN_STATUS_RUNNING
WAITING = WorkflowRunStatus.WORKFLOW_RUN_STATUS_WAITING
COMPLETED = WorkflowRunStatus.WORKFLOW_RUN_STATUS_COMPLETED
CANCELLED = WorkflowRunStatus.WORKFLOW_RUN_STATUS_CANCELLED
PASSED = WorkflowStageStatus.WORKFLOW_STAGE_STATUS_PASSED


def reviewed(**fields: Any) -> dict[str, Any]:
    """``fix``: a review stage needing "Unit Tests" from alice and bob (one, with an approval), then ship."""
    document = define("fix", reviewers=("alice", "bob"), min_producers=2, **fields)
    document["stages"][0]["evidencePolicies"]["Unit Tests"]["degradation"] = {"minProducers": 1}
    return document


def stage(run: Any, stage_id: str) -> Any:
    (found,) = [s for s in run.stages if s.id == stage_id]
    return found


async def test_definitions(hub: Hub, project: Project) -> None:
    """register_definition (created, unchanged, validate_only, invalid), get_definition, list_definitions."""
    document = reviewed()
    async with hub.admin() as admin, HubClient(hub.address, token=project.token) as reader:
        checked = await admin.workflows.register_definition(document, validate_only=True)
        missing_before = await reader.workflows.list_definitions()
        created = await admin.workflows.register_definition(document)
        again = await admin.workflows.register_definition(document)
        yaml = await admin.workflows.register_definition(
            "id: plain\nproject: alpha\ntarget: coordinator\nsecret: start-secret-0123456789\n"
            "promptTemplate: Go\nstages:\n  - {id: build, instructions: Build it.}\n",
            format="yaml",
        )
        got = await reader.workflows.get_definition("fix")
        listed = await reader.workflows.list_definitions(page_size=1)
        rest = await reader.workflows.list_definitions(page_token=listed.next_page_token)
        with pytest.raises(InvalidArgument) as invalid:
            await admin.workflows.register_definition({**document, "secret": "short"})
        with pytest.raises(NotFound) as unknown:
            await reader.workflows.get_definition("nope")

    assert (checked.created, checked.definition.id) == (True, "fix")
    assert list(missing_before.definitions) == []  # validate_only stored nothing
    assert (created.created, created.unchanged, created.definition.hash) == (True, False, checked.definition.hash)
    assert (again.created, again.unchanged) == (False, True)
    assert (yaml.definition.id, list(yaml.definition.stage_ids)) == ("plain", ["build"])
    assert (got.definition.id, got.definition.project, list(got.definition.stage_ids)) == (
        "fix",
        "alpha",
        ["review", "ship"],
    )
    assert got.definition.accepts_signals and "start-secret" not in got.definition.document
    assert [d.id for d in listed.definitions] == ["fix"] and [d.id for d in rest.definitions] == ["plain"]
    assert invalid.value.reason is Reason.WORKFLOW_DEFINITION_INVALID and "secret" in invalid.value.message
    assert unknown.value.reason is Reason.WEBHOOK_NOT_FOUND


async def test_runs(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    """start_run (and its duplicate), get_run and list_runs as the coordinator, cancel_run, rerun_run."""
    coordinator = await make_agent("coordinator")
    await make_agent("alice")
    await make_agent("bob")
    other = await make_agent("other")
    async with hub.admin() as admin, HubClient(hub.address, token=project.token) as reader:
        await admin.workflows.register_definition(reviewed())
        started = await admin.workflows.start_run("fix", delivery_id="d-1", payload={"issue": {"key": "KXM-7"}})
        duplicate = await admin.workflows.start_run("fix", delivery_id="d-1", payload={"issue": {"key": "KXM-7"}})
        run = started.run
        got = (await coordinator.workflows.get_run(run.id)).run
        mine = await coordinator.workflows.list_runs()
        running = await reader.workflows.list_runs(status="running", definition_id="fix")
        none_waiting = await reader.workflows.list_runs(status=WAITING)
        with pytest.raises(PermissionDenied) as forbidden:
            await other.workflows.get_run(run.id)
        with pytest.raises(FailedPrecondition) as conflict:
            await admin.workflows.start_run("fix", delivery_id="d-1", payload={"issue": {"key": "KXM-8"}})
        cancelled = (await admin.workflows.cancel_run(run.id, reason="not needed")).run
        with pytest.raises(FailedPrecondition) as terminal:
            await admin.workflows.cancel_run(run.id)
        rerun = await admin.workflows.rerun_run(run.id, delivery_id="d-2")
        rerun_again = await admin.workflows.rerun_run(run.id, delivery_id="d-2")
        newest = await coordinator.workflows.list_runs(page_size=1)

    assert (started.started, started.duplicate, run.status) == (True, False, RUNNING)
    assert (run.definition_id, run.current_stage_id, run.coordinator_name) == ("fix", "review", "coordinator")
    assert (duplicate.duplicate, duplicate.run.id) == (True, run.id)
    assert (got.id, got.coordinator_agent_id, stage(got, "review").active_attempt) == (run.id, coordinator.agent_id, 1)
    assert [r.id for r in mine.runs] == [run.id] and [r.id for r in running.runs] == [run.id]
    assert list(none_waiting.runs) == []
    assert forbidden.value.reason is Reason.WORKFLOW_FORBIDDEN
    assert forbidden.value.metadata["assignedCoordinatorName"] == "coordinator"
    assert conflict.value.reason is Reason.WEBHOOK_DELIVERY_CONFLICT
    assert (cancelled.status, cancelled.end_reason) == (CANCELLED, "not needed")
    assert terminal.value.reason is Reason.WORKFLOW_TERMINAL
    assert rerun.run.id != run.id and (rerun.run.status, rerun.duplicate) == (RUNNING, False)
    assert rerun.run.payload_sha256 == run.payload_sha256
    assert (rerun_again.duplicate, rerun_again.run.id) == (True, rerun.run.id)
    assert [r.id for r in newest.runs] == [rerun.run.id] and newest.next_page_token


async def _reply_all(reviewers: dict[str, HubClient], ids: list[str], text: str) -> None:
    for reviewer, message_id in zip(reviewers.values(), ids, strict=False):
        await reviewer.messages.reply(message_id, text)


async def test_review_checkpoint_wait_and_signal(hub: Hub, make_agent: AgentFactory) -> None:
    """A warning checkpoint retried under one request id consumes one attempt; ``request_review``
    fans out under the active attempt and its ids pass the stage; the next stage waits and an
    operator's signal completes the run (once, however often it is delivered)."""
    coordinator = await make_agent("coordinator")
    reviewers = {"alice": await make_agent("alice"), "bob": await make_agent("bob")}
    async with hub.admin() as admin:
        await admin.workflows.register_definition(reviewed())
        run = (await admin.workflows.start_run("fix", delivery_id="d-1", payload={"issue": {"key": "KXM-1"}})).run

        warned = await coordinator.workflows.checkpoint(
            run.id, "review", "warning", summary="tests flaky", evidence={"note": "retry"}, request_id="cp-1"
        )
        # The same request again (the status as the enum this time): a repeat, nothing applied.
        repeated = await coordinator.workflows.checkpoint(
            run.id,
            "review",
            CheckpointStatus.CHECKPOINT_STATUS_WARNING,
            summary="tests flaky",
            evidence={"note": "retry"},
            request_id="cp-1",
        )
        after_warning = (await coordinator.workflows.get_run(run.id)).run
        # A run id (not the run read before the warning): the helper reads the active attempt, now 2.
        ids = await coordinator.workflows.request_review(
            run.id, "review", "  Unit   Tests ", ["alice", "bob"], "please review the fix"
        )
        sent = [(await coordinator.messages.get(i)).message for i in ids]
        await _reply_all(reviewers, ids, "tests pass")
        passed = await coordinator.workflows.checkpoint(
            run.id, "review", "passed", summary="reviewed", evidence_refs={"unit tests": ids}
        )
        waited = await coordinator.workflows.wait(
            run.id, "ship", "ci-green", ttl=600, summary="waiting for CI", evidence={"build": "#12"}, request_id="w-1"
        )
        waited_again = await coordinator.workflows.wait(
            run.id, "ship", "ci-green", ttl=600, summary="waiting for CI", evidence={"build": "#12"}, request_id="w-1"
        )
        signalled = await admin.workflows.signal_run(
            run.id, "ci-green", "passed", delivery_id="ci-1", summary="green", evidence={"ci": "ok"}
        )
        signalled_again = await admin.workflows.signal_run(
            run.id, "ci-green", "passed", delivery_id="ci-1", summary="green", evidence={"ci": "ok"}
        )
        ended = (await coordinator.workflows.get_run(run.id)).run

    assert (warned.retry, warned.repeated, warned.run.current_stage_id) == (True, False, "review")
    assert (repeated.retry, repeated.repeated) == (True, True)
    assert (stage(after_warning, "review").attempts, stage(after_warning, "review").active_attempt) == (1, 2)
    assert len(ids) == 2 and [m.to_agent_name for m in sent] == ["alice", "bob"]
    assert {(m.workflow_context.requirement_key, m.workflow_context.attempt) for m in sent} == {("unit tests", 2)}
    assert {m.correlation_id for m in sent} == {run.id}
    assert (passed.retry, passed.repeated, passed.run.current_stage_id) == (False, False, "ship")
    review = stage(passed.run, "review")
    assert review.status == PASSED
    assert sorted(e.message_id for e in review.peer_evidence["unit tests"].evidence) == sorted(ids)
    assert review.attempts == 2
    assert (waited.run.status, waited.run.wait.signal_key, waited.repeated) == (WAITING, "ci-green", False)
    assert waited.run.wait.summary == "waiting for CI" and waited.instruction
    assert waited_again.repeated is True
    assert (signalled.duplicate, signalled.completed, signalled.stage_id) == (False, True, "ship")
    assert signalled.status == CheckpointStatus.CHECKPOINT_STATUS_PASSED
    assert (signalled_again.duplicate, signalled_again.completed) == (True, True)
    assert ended.status == COMPLETED and [s.status for s in ended.stages] == [PASSED, PASSED]


async def test_an_approved_degradation_passes_on_one_review(hub: Hub, make_agent: AgentFactory) -> None:
    """approve_degradation (again: duplicate); one target is one send; the pass is marked degraded."""
    coordinator = await make_agent("coordinator")
    alice = await make_agent("alice")
    await make_agent("bob")
    async with hub.admin() as admin:
        await admin.workflows.register_definition(reviewed())
        run = (await admin.workflows.start_run("fix", delivery_id="d-1")).run
        approved = await admin.workflows.approve_degradation(run.id, "review", "Unit Tests", "bob is away")
        approved_again = await admin.workflows.approve_degradation(run.id, "review", "Unit Tests", "bob is away")
        # The run as started: its active attempt (1) is still the one the context must name.
        (message_id,) = await coordinator.workflows.request_review(run, "review", "Unit Tests", "alice", "review it")
        await alice.messages.reply(message_id, "fine")
        passed = await coordinator.workflows.checkpoint(
            run.id, "review", "passed", evidence_refs={"Unit Tests": message_id}
        )

    approval = approved.approval
    assert (approval.requirement_key, approval.attempt, approval.approved_by) == ("unit tests", 1, "admin")
    assert (approval.policy_min_producers, approval.approved_min_producers) == (2, 1)
    assert (approved.duplicate, approved_again.duplicate, approved_again.approval.id) == (False, True, approval.id)
    assert list(passed.degraded_requirements) == ["unit tests"]
    assert passed.run.current_stage_id == "ship"


async def test_request_review_is_refused_unless_the_hub_authorises_the_context(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """Only the run's coordinator may send under its context, and only to an eligible agent; a
    fan-out with a refused target sends to the others and raises ReviewNotSent."""
    coordinator = await make_agent("coordinator")
    alice = await make_agent("alice")
    await make_agent("bob")
    await make_agent("carol")
    async with hub.admin() as admin:
        await admin.workflows.register_definition(reviewed())
        run = (await admin.workflows.start_run("fix", delivery_id="d-1")).run
    with pytest.raises(PermissionDenied) as not_eligible:
        await coordinator.workflows.request_review(run, "review", "unit tests", "carol", "review it")
    with pytest.raises(PermissionDenied) as not_coordinator:
        await alice.workflows.request_review(run, "review", "unit tests", "bob", "review it", attempt=1)
    with pytest.raises(ReviewNotSent) as partly:
        await coordinator.workflows.request_review(run, "review", "unit tests", ["alice", "carol"], "review it")
    with pytest.raises(ValueError, match="no stage"):
        await coordinator.workflows.request_review(run, "deploy", "unit tests", "alice", "review it")

    assert not_eligible.value.reason is Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN
    assert not_coordinator.value.reason is Reason.WORKFLOW_CONTEXT_FORBIDDEN
    assert partly.value.reason is Reason.WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN
    assert list(partly.value.refused) == ["carol"] and len(partly.value.message_ids) == 1


async def test_escalation_and_ruling(hub: Hub, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """escalate_stage waits on audit_escalation; resolve_escalation rules with its explicit status.
    Every checkpoint and wait carries a request id the client made, ``req_`` and 32 hex digits."""
    coordinator = await make_agent("coordinator")
    requests: list[Any] = []
    real_call = coordinator._call

    async def spying(method: Any, request: Any, timeout: Any = None, metadata: Any = None) -> Any:
        requests.append(request)
        return await real_call(method, request, timeout, metadata)

    monkeypatch.setattr(coordinator, "_call", spying)
    async with hub.admin() as admin:
        await admin.workflows.register_definition(define("plain", stages=("build", "ship")))
        run = (await admin.workflows.start_run("plain", delivery_id="d-1")).run
        escalated = await coordinator.workflows.escalate_stage(run.id, "build", "needs a human decision")
        with pytest.raises(FailedPrecondition) as twice:
            await coordinator.workflows.escalate_stage(run.id, "build", "again")
        with pytest.raises(FailedPrecondition) as not_by_signal:
            await admin.workflows.signal_run(run.id, "audit_escalation", "passed", delivery_id="s-1")
        ruled = await admin.workflows.resolve_escalation(
            run.id, "passed", "approved by the on-call", evidence={"ticket": "OPS-1"}
        )
        with pytest.raises(FailedPrecondition) as no_longer:
            await admin.workflows.resolve_escalation(run.id, "passed", "approved by the on-call")
        checked = await coordinator.workflows.checkpoint(run.id, "ship", "passed", summary="shipped")
        run_ids = {r.id for r in (await coordinator.workflows.list_runs(status="completed")).runs}

    assert (escalated.run.status, escalated.run.wait.signal_key) == (WAITING, "audit_escalation")
    assert stage(escalated.run, "build").escalation.reason == "needs a human decision"
    assert twice.value.reason is Reason.WORKFLOW_NOT_RUNNING
    assert not_by_signal.value.reason is Reason.WORKFLOW_RULING_REQUIRED
    assert (ruled.retry, ruled.completed, ruled.run.status, ruled.run.current_stage_id) == (
        False,
        False,
        RUNNING,
        "ship",
    )
    escalation = stage(ruled.run, "build").escalation
    assert (escalation.ruling, escalation.ruled_by) == ("approved by the on-call", "admin")
    assert escalation.ruling_status == CheckpointStatus.CHECKPOINT_STATUS_PASSED
    assert no_longer.value.reason is Reason.WORKFLOW_NOT_WAITING
    assert checked.completed and run_ids == {run.id}
    (request_id,) = [r.request_id for r in requests if type(r).__name__ == "CheckpointRequest"]
    assert request_id.startswith(REQUEST_ID_PREFIX) and len(request_id) == len(REQUEST_ID_PREFIX) + 32


def test_statuses_by_name() -> None:
    """The enums or their names, any case; anything else is a ValueError before a call is made."""
    assert checkpoint_status("passed") == CheckpointStatus.CHECKPOINT_STATUS_PASSED
    assert checkpoint_status("WARNING") == CheckpointStatus.CHECKPOINT_STATUS_WARNING
    assert checkpoint_status("CHECKPOINT_STATUS_FAILED") == CheckpointStatus.CHECKPOINT_STATUS_FAILED
    assert checkpoint_status(CheckpointStatus.CHECKPOINT_STATUS_PASSED) == CheckpointStatus.CHECKPOINT_STATUS_PASSED
    assert run_status(None) == WorkflowRunStatus.WORKFLOW_RUN_STATUS_UNSPECIFIED
    assert run_status("Cancelled") == CANCELLED
    with pytest.raises(ValueError, match="passed, warning or failed"):
        checkpoint_status("done")
    with pytest.raises(ValueError, match="running"):
        run_status("stuck")


async def test_the_sync_workflows_area(hub: Hub, project: Project) -> None:
    """SyncHubClient.workflows: the same methods, blocking."""

    def blocking() -> dict[str, Any]:
        with (
            SyncHubClient(hub.address, token=ADMIN_TOKEN) as admin,
            SyncHubClient(hub.address, token=project.token) as coordinator,
        ):
            coordinator.agents.register("coordinator")
            registered = admin.workflows.register_definition(define("plain", stages=("build", "ship")))
            listed = [d.id for d in coordinator.workflows.list_definitions().definitions]
            run = admin.workflows.start_run("plain", delivery_id="d-1").run
            got = coordinator.workflows.get_run(run.id).run
            built = coordinator.workflows.checkpoint(run.id, "build", "passed", request_id="s-1")
            waited = coordinator.workflows.wait(run.id, "ship", "deploy", ttl=60)
            signalled = admin.workflows.signal_run(run.id, "deploy", "passed", delivery_id="deploy-1")
            runs = coordinator.workflows.list_runs(definition_id="plain").runs
            return {
                "created": registered.created,
                "listed": listed,
                "same": got.id == run.id,
                "built": (built.run.current_stage_id, built.repeated),
                "waiting": waited.run.status == WAITING,
                "completed": signalled.completed,
                "runs": [(r.id == run.id, r.status == COMPLETED) for r in runs],
            }

    # On a thread: the hub serves on this test's event loop.
    result = await asyncio.to_thread(blocking)

    assert result == {
        "created": True,
        "listed": ["plain"],
        "same": True,
        "built": ("ship", False),
        "waiting": True,
        "completed": True,
        "runs": [(True, True)],
    }
