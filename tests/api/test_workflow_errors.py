"""Every error code of spec §2 through the API: status, ErrorInfo reason, metadata, and no write.

Each case drives a real hub through ``hub.workflows`` (the admin client for operator RPCs, agent
clients from ``make_agent``; the coordinator's name is the definition's ``target``) into one
refusal, and checks the grpc status code, the ``ErrorInfo`` reason and, where the contract
(``proto/kxm/v1/workflow_service.proto``) promises it, the metadata. A refused write changes
nothing: the run read back (``GetWorkflowRun``) equals the run read before, so a refused
checkpoint consumes no attempt; a refused start leaves no run and no prompt. Two provenance
cases cite message records written straight to the store (a sender other than the coordinator,
another project): no API call can make them, so the cite side's own checks are what refuse them.

The happy paths are ``tests/api/test_client_workflows.py``'s; the signed HTTP routes'
refusals are ``tests/api/test_webhooks.py``'s.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import pytest_asyncio

from kxm_grpc import HubError, Reason
from kxm_grpc.client import HubClient
from kxm_grpc.v1 import CheckpointStatus, WorkflowRunStatus
from tests.conftest import AgentFactory, Hub, Project
from tests.workflows import define

Code = grpc.StatusCode
UNSPECIFIED = CheckpointStatus.CHECKPOINT_STATUS_UNSPECIFIED
UNKNOWN_RUN = "run_" + "0" * 32
_deliveries = itertools.count(1)


@dataclass
class World:
    """A project ``alpha`` with the coordinator, two reviewers and a bystander, and the admin."""

    hub: Hub
    project: Project
    admin: HubClient
    coordinator: HubClient
    alice: HubClient
    bob: HubClient
    other: HubClient

    async def begin(self, document: dict[str, Any], *, delivery: str = "", payload: Any = None) -> Any:
        """Register ``document`` and start a run of it (a fresh delivery id unless given); the run."""
        await self.admin.workflows.register_definition(document)
        started = await self.admin.workflows.start_run(
            document["id"],
            delivery_id=delivery or f"d-{next(_deliveries)}",
            payload=payload or {"issue": {"key": "KXM-1"}},
        )
        assert started.started and not started.duplicate
        return started.run

    async def read(self, run_id: str) -> Any:
        """The run as the operator reads it (the whole response, for comparisons)."""
        return await self.admin.workflows.get_run(run_id)


@pytest_asyncio.fixture
async def world(hub: Hub, project: Project, make_agent: AgentFactory) -> AsyncIterator[World]:
    coordinator = await make_agent("coordinator")
    alice = await make_agent("alice")
    bob = await make_agent("bob", model="other-model")
    other = await make_agent("other")
    async with hub.admin() as admin:
        yield World(hub, project, admin, coordinator, alice, bob, other)


def reviewed(**fields: Any) -> dict[str, Any]:
    """``fix``: review needs "Unit Tests" from two of alice and bob (one with an approval), then ship."""
    document = define("fix", reviewers=("alice", "bob"), min_producers=2, **fields)
    document["stages"][0]["evidencePolicies"]["Unit Tests"]["degradation"] = {"minProducers": 1}
    return document


async def refused(call: Awaitable[Any], code: grpc.StatusCode, reason: Reason, **metadata: str) -> HubError:
    """Await ``call``; it must fail with ``code`` and ``reason``, its metadata holding ``metadata``."""
    with pytest.raises(HubError) as caught:
        await call
    error = caught.value
    cause = error.__cause__
    assert isinstance(cause, grpc.aio.AioRpcError), error
    assert (cause.code(), error.reason) == (code, reason), error.message
    assert {key: error.metadata.get(key) for key in metadata} == metadata, error.metadata
    return error


async def refused_write(
    world: World, run_id: str, call: Awaitable[Any], code: grpc.StatusCode, reason: Reason, **metadata: str
) -> HubError:
    """As ``refused``, and the run reads back exactly as before the call (nothing was written)."""
    before = await world.read(run_id)
    error = await refused(call, code, reason, **metadata)
    assert await world.read(run_id) == before
    return error


async def nothing_started(world: World) -> None:
    """No run exists and the coordinator was prompted by nobody."""
    assert list((await world.admin.workflows.list_runs()).runs) == []
    assert list((await world.coordinator.messages.list_inbox()).messages) == []


async def waiting(world: World, key: str = "ci-green") -> Any:
    """A run of ``plain`` (build, ship) waiting on ``key`` at build."""
    run = await world.begin(define("plain", stages=("build", "ship")))
    await world.coordinator.workflows.wait(run.id, "build", key, ttl=600, evidence={"build": "#1"})
    return run


async def escalated(world: World) -> Any:
    """A run of ``plain`` whose build stage is escalated for audit."""
    run = await world.begin(define("plain", stages=("build", "ship")))
    await world.coordinator.workflows.escalate_stage(run.id, "build", "needs a human")
    return run


# -- definitions and starts -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("secret", {"secret": "short"}),
        ("signalSecret", {"signalSecret": "start-secret-0123456789"}),  # equal to the start secret (§11.3)
        ("stages[0].maxAttempts", {"maxAttempts": 0}),
    ],
)
async def test_workflow_definition_invalid_names_the_field(world: World, field: str, change: dict[str, Any]) -> None:
    """INVALID_ARGUMENT WORKFLOW_DEFINITION_INVALID, metadata naming the definition and the field;
    a valid definition of the same id is not replaced."""
    document = define("fix")
    registered = (await world.admin.workflows.register_definition(document)).definition
    broken = copy.deepcopy(document)
    if field.startswith("stages"):
        broken["stages"][0].update(change)
    else:
        broken.update(change)

    error = await refused(
        world.admin.workflows.register_definition(broken),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_DEFINITION_INVALID,
        definition="fix",
        field=field,
    )
    await refused(
        world.admin.workflows.register_definition(broken, validate_only=True),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_DEFINITION_INVALID,
        field=field,
    )

    assert field in error.message
    assert (await world.coordinator.workflows.get_definition("fix")).definition == registered


async def test_webhook_not_found(world: World) -> None:
    """NOT_FOUND WEBHOOK_NOT_FOUND for a definition nobody registered, on reads and on starts."""
    async with world.hub.admin(project="alpha") as operator:
        await refused(
            operator.workflows.get_definition("nope"), Code.NOT_FOUND, Reason.WEBHOOK_NOT_FOUND, definitionId="nope"
        )
    await refused(world.coordinator.workflows.get_definition("nope"), Code.NOT_FOUND, Reason.WEBHOOK_NOT_FOUND)
    await refused(
        world.admin.workflows.start_run("nope", delivery_id="d-1"),
        Code.NOT_FOUND,
        Reason.WEBHOOK_NOT_FOUND,
        definitionId="nope",
    )
    await nothing_started(world)


@pytest.mark.parametrize("delivery", ["", " ", "x" * 129, "tab\there"])
async def test_a_bad_delivery_id_is_a_protocol_error(world: World, delivery: str) -> None:
    """INVALID_ARGUMENT PROTOCOL_ERROR naming delivery_id (empty, too long, a control character)."""
    await world.admin.workflows.register_definition(define("fix"))

    await refused(
        world.admin.workflows.start_run("fix", delivery_id=delivery),
        Code.INVALID_ARGUMENT,
        Reason.PROTOCOL_ERROR,
        field="delivery_id",
    )
    await nothing_started(world)


async def test_webhook_delivery_conflict(world: World) -> None:
    """FAILED_PRECONDITION WEBHOOK_DELIVERY_CONFLICT: the delivery id started a run with another payload."""
    run = await world.begin(define("fix"), delivery="dlv-1")

    await refused_write(
        world,
        run.id,
        world.admin.workflows.start_run("fix", delivery_id="dlv-1", payload={"issue": {"key": "KXM-2"}}),
        Code.FAILED_PRECONDITION,
        Reason.WEBHOOK_DELIVERY_CONFLICT,
        deliveryId="dlv-1",
        runId=run.id,
    )
    assert [r.id for r in (await world.admin.workflows.list_runs()).runs] == [run.id]
    assert len((await world.coordinator.messages.list_inbox()).messages) == 1


async def test_an_operator_start_of_a_used_github_body_is_no_replay(world: World) -> None:
    """WEBHOOK_PAYLOAD_REPLAYED guards signed deliveries only (tests/api/test_webhooks.py): an
    operator starting a GitHub definition again from the same payload, under a new delivery id,
    starts a second run (a rerun is deliberate)."""
    first = await world.begin(define("fix", source="github"), delivery="dlv-1")

    again = await world.admin.workflows.start_run("fix", delivery_id="dlv-2", payload={"issue": {"key": "KXM-1"}})

    assert again.started and not again.duplicate and again.run.id != first.id
    assert again.run.payload_sha256 == first.payload_sha256


async def test_workflow_target_unavailable_for_the_coordinator(hub: Hub, project: Project) -> None:
    """FAILED_PRECONDITION WORKFLOW_TARGET_UNAVAILABLE naming the coordinator that was never registered."""
    async with hub.admin() as admin:
        await admin.workflows.register_definition(define("fix", target="nobody"))
        await refused(
            admin.workflows.start_run("fix", delivery_id="d-1"),
            Code.FAILED_PRECONDITION,
            Reason.WORKFLOW_TARGET_UNAVAILABLE,
            definitionId="fix",
            agent="nobody",
        )
        assert list((await admin.workflows.list_runs()).runs) == []


async def test_workflow_target_unavailable_for_an_eligible_agent(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_TARGET_UNAVAILABLE naming the eligible agent, its stage and requirement."""
    await world.admin.workflows.register_definition(define("fix", reviewers=("alice", "carol")))

    await refused(
        world.admin.workflows.start_run("fix", delivery_id="d-1"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_TARGET_UNAVAILABLE,
        agent="carol",
        stageId="review",
        requirementKey="unit tests",
    )
    await nothing_started(world)


async def test_workflow_evidence_policy_invalid(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_EVIDENCE_POLICY_INVALID: an eligible agent (named by its id, so
    the loader cannot see it) is the run's coordinator."""
    assert world.coordinator.agent_id is not None
    await world.admin.workflows.register_definition(define("fix", reviewers=("alice", world.coordinator.agent_id)))

    await refused(
        world.admin.workflows.start_run("fix", delivery_id="d-1"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_EVIDENCE_POLICY_INVALID,
        definitionId="fix",
        stageId="review",
        requirementKey="unit tests",
    )
    await nothing_started(world)


async def test_workflow_evidence_policy_unresolvable(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE: two selectors (a name and an id) are
    one agent, fewer than the two the policy needs."""
    assert world.alice.agent_id is not None
    await world.admin.workflows.register_definition(
        define("fix", reviewers=("alice", world.alice.agent_id), min_producers=2)
    )

    await refused(
        world.admin.workflows.start_run("fix", delivery_id="d-1"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE,
        stageId="review",
        requirementKey="unit tests",
    )
    await nothing_started(world)


async def test_workflow_prompt_too_long(world: World) -> None:
    """INVALID_ARGUMENT WORKFLOW_PROMPT_TOO_LONG: the rendered prompt exceeds 32,000 characters."""
    await world.admin.workflows.register_definition(define("fix"))

    await refused(
        world.admin.workflows.start_run("fix", delivery_id="d-1", payload={"issue": {"key": "x" * 33_000}}),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_PROMPT_TOO_LONG,
        definitionId="fix",
    )
    await nothing_started(world)


@pytest.mark.parametrize("listing", ["runs", "definitions"])
async def test_invalid_page_token(world: World, listing: str) -> None:
    """INVALID_ARGUMENT INVALID_PAGE_TOKEN: malformed, or from another query."""
    await world.begin(define("fix"))
    await world.begin(define("plain"))
    if listing == "runs":
        token = (await world.admin.workflows.list_runs(page_size=1)).next_page_token
        calls = [
            world.admin.workflows.list_runs(page_token="not-a-token"),
            world.admin.workflows.list_runs(page_token=token, definition_id="fix"),
        ]
    else:
        token = (await world.admin.workflows.list_definitions(page_size=1)).next_page_token
        calls = [
            world.admin.workflows.list_definitions(page_token="not-a-token"),
            world.coordinator.workflows.list_definitions(page_token=token),  # another project scope
        ]
    assert token
    for call in calls:
        await refused(call, Code.INVALID_ARGUMENT, Reason.INVALID_PAGE_TOKEN, field="page_token")


# -- who may act on a run -------------------------------------------------------------------------

RunCall = Callable[[World, str], Awaitable[Any]]

ON_A_RUN: dict[str, RunCall] = {
    "get_run": lambda w, r: w.coordinator.workflows.get_run(r),
    "cancel_run": lambda w, r: w.admin.workflows.cancel_run(r),
    "rerun_run": lambda w, r: w.admin.workflows.rerun_run(r, delivery_id="d-9"),
    "checkpoint": lambda w, r: w.coordinator.workflows.checkpoint(r, "review", "passed"),
    "wait": lambda w, r: w.coordinator.workflows.wait(r, "review", "ci"),
    "escalate_stage": lambda w, r: w.coordinator.workflows.escalate_stage(r, "review", "why"),
    "signal_run": lambda w, r: w.admin.workflows.signal_run(r, "ci", "passed", delivery_id="s-1"),
    "approve_degradation": lambda w, r: w.admin.workflows.approve_degradation(r, "review", "unit tests", "why"),
    "resolve_escalation": lambda w, r: w.admin.workflows.resolve_escalation(r, "passed", "ruled"),
}


@pytest.mark.parametrize("rpc", sorted(ON_A_RUN))
async def test_workflow_not_found(world: World, rpc: str) -> None:
    """NOT_FOUND WORKFLOW_NOT_FOUND for a run id nobody started, on every RPC naming a run."""
    await world.begin(reviewed())

    await refused(ON_A_RUN[rpc](world, UNKNOWN_RUN), Code.NOT_FOUND, Reason.WORKFLOW_NOT_FOUND, runId=UNKNOWN_RUN)
    assert len((await world.admin.workflows.list_runs()).runs) == 1


COORDINATOR_STEPS: dict[str, Callable[[HubClient, str], Awaitable[Any]]] = {
    "get_run": lambda c, r: c.workflows.get_run(r),
    "checkpoint": lambda c, r: c.workflows.checkpoint(r, "review", "warning"),
    "wait": lambda c, r: c.workflows.wait(r, "review", "ci"),
    "escalate_stage": lambda c, r: c.workflows.escalate_stage(r, "review", "why"),
}


@pytest.mark.parametrize("rpc", sorted(COORDINATOR_STEPS))
async def test_workflow_forbidden(world: World, rpc: str) -> None:
    """PERMISSION_DENIED WORKFLOW_FORBIDDEN: an agent of the project that is not the coordinator
    (a reviewer of the run, even); metadata assignedCoordinatorName and nextAction."""
    run = await world.begin(reviewed())

    for agent in (world.other, world.alice):
        await refused_write(
            world,
            run.id,
            COORDINATOR_STEPS[rpc](agent, run.id),
            Code.PERMISSION_DENIED,
            Reason.WORKFLOW_FORBIDDEN,
            runId=run.id,
            assignedCoordinatorName="coordinator",
            nextAction="use_assigned_coordinator",
        )


OPERATOR_RPCS: dict[str, RunCall] = {
    "register_definition": lambda w, r: w.coordinator.workflows.register_definition(define("other")),
    "start_run": lambda w, r: w.coordinator.workflows.start_run("fix", delivery_id="d-9"),
    "cancel_run": lambda w, r: w.coordinator.workflows.cancel_run(r),
    "rerun_run": lambda w, r: w.coordinator.workflows.rerun_run(r, delivery_id="d-9"),
    "signal_run": lambda w, r: w.coordinator.workflows.signal_run(r, "ci", "passed", delivery_id="s-1"),
    "approve_degradation": lambda w, r: w.coordinator.workflows.approve_degradation(r, "review", "unit tests", "why"),
    "resolve_escalation": lambda w, r: w.coordinator.workflows.resolve_escalation(r, "passed", "ruled"),
}


@pytest.mark.parametrize("rpc", sorted(OPERATOR_RPCS))
async def test_credential_kind_denied_for_an_agent_calling_an_operator_rpc(world: World, rpc: str) -> None:
    """PERMISSION_DENIED CREDENTIAL_KIND_DENIED: the run's own coordinator calls an operator RPC."""
    run = await world.begin(reviewed())
    definitions = await world.admin.workflows.list_definitions()

    await refused_write(
        world, run.id, OPERATOR_RPCS[rpc](world, run.id), Code.PERMISSION_DENIED, Reason.CREDENTIAL_KIND_DENIED
    )
    assert await world.admin.workflows.list_definitions() == definitions
    assert len((await world.admin.workflows.list_runs()).runs) == 1


AGENT_RPCS: dict[str, Callable[[HubClient, str], Awaitable[Any]]] = {
    "checkpoint": lambda c, r: c.workflows.checkpoint(r, "review", "warning"),
    "wait": lambda c, r: c.workflows.wait(r, "review", "ci"),
    "escalate_stage": lambda c, r: c.workflows.escalate_stage(r, "review", "why"),
}


@pytest.mark.parametrize("rpc", sorted(AGENT_RPCS))
async def test_credential_kind_denied_for_an_agent_rpc_without_an_agent_identity(world: World, rpc: str) -> None:
    """PERMISSION_DENIED CREDENTIAL_KIND_DENIED: the project token, or an operator, with no agent identity."""
    run = await world.begin(reviewed())
    async with (
        HubClient(world.hub.address, token=world.project.token) as project_token,
        world.hub.admin(project="alpha") as operator_in_project,
    ):
        for caller in (project_token, world.admin, operator_in_project):
            await refused_write(
                world, run.id, AGENT_RPCS[rpc](caller, run.id), Code.PERMISSION_DENIED, Reason.CREDENTIAL_KIND_DENIED
            )


# -- checkpoint fields ----------------------------------------------------------------------------


async def test_invalid_checkpoint_status(world: World) -> None:
    """INVALID_ARGUMENT INVALID_CHECKPOINT_STATUS: a checkpoint, a signal or a ruling without a status."""
    run = await world.begin(reviewed())
    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "review", UNSPECIFIED),
        Code.INVALID_ARGUMENT,
        Reason.INVALID_CHECKPOINT_STATUS,
        field="status",
    )
    paused = await waiting(world)
    await refused_write(
        world,
        paused.id,
        world.admin.workflows.signal_run(paused.id, "ci-green", UNSPECIFIED, delivery_id="s-1"),
        Code.INVALID_ARGUMENT,
        Reason.INVALID_CHECKPOINT_STATUS,
        field="status",
    )
    # The refused signal left no receipt: the same delivery id with a status is accepted.
    assert (await world.admin.workflows.signal_run(paused.id, "ci-green", "passed", delivery_id="s-1")).resumed
    audit = await escalated(world)
    await refused_write(
        world,
        audit.id,
        world.admin.workflows.resolve_escalation(audit.id, UNSPECIFIED, "ruled"),
        Code.INVALID_ARGUMENT,
        Reason.INVALID_CHECKPOINT_STATUS,
        field="status",
    )


@pytest.mark.parametrize(
    "evidence",
    [
        pytest.param({"Lint": "ok", " lint ": "ok"}, id="keys-equal-once-canonicalised"),
        pytest.param({"lint": "   "}, id="empty-value"),
        pytest.param({"lint": "x" * 1_001}, id="value-too-long"),
        pytest.param({"k" * 129: "ok"}, id="key-too-long"),
        pytest.param({f"key {i}": "ok" for i in range(65)}, id="too-many-keys"),
    ],
)
async def test_invalid_workflow_evidence(world: World, evidence: dict[str, str]) -> None:
    """INVALID_ARGUMENT INVALID_WORKFLOW_EVIDENCE on a checkpoint, a wait and a signal (field named)."""
    run = await world.begin(reviewed())
    for call in (
        world.coordinator.workflows.checkpoint(run.id, "review", "warning", evidence=evidence),
        world.coordinator.workflows.wait(run.id, "review", "ci", evidence=evidence),
    ):
        error = await refused_write(world, run.id, call, Code.INVALID_ARGUMENT, Reason.INVALID_WORKFLOW_EVIDENCE)
        assert error.metadata["field"].startswith("evidence")
    paused = await waiting(world)
    await refused_write(
        world,
        paused.id,
        world.admin.workflows.signal_run(paused.id, "ci-green", "passed", delivery_id="s-1", evidence=evidence),
        Code.INVALID_ARGUMENT,
        Reason.INVALID_WORKFLOW_EVIDENCE,
    )


async def _replied_review(world: World, run: Any, requirement: str = "Unit Tests", reviewer: str = "alice") -> str:
    """A review request under the run's active attempt, replied by ``reviewer``; its message id."""
    (message_id,) = await world.coordinator.workflows.request_review(run.id, "review", requirement, reviewer, "diff")
    client = world.alice if reviewer == "alice" else world.bob
    await client.messages.reply(message_id, "looks good")
    return message_id


@pytest.mark.parametrize(
    ("refs", "field"),
    [
        pytest.param({"unit tests": []}, "evidence_refs[unit tests].message_ids", id="no-ids"),
        pytest.param({"unit tests": [" "]}, "evidence_refs[unit tests].message_ids[0]", id="empty-id"),
        pytest.param({"unit tests": ["m" * 81]}, "evidence_refs[unit tests].message_ids[0]", id="id-too-long"),
        pytest.param({"unit tests": [f"m{i}" for i in range(17)]}, "evidence_refs[unit tests].message_ids", id="17"),
        pytest.param({"Unit Tests": ["m1"], "unit  tests": ["m2"]}, "evidence_refs[unit tests]", id="key-twice"),
        pytest.param({"unit tests": ["m1", "m1"]}, "evidence_refs[unit tests].message_ids[1]", id="id-twice"),
        pytest.param({"unit tests": ["m1"], "lint": ["m1"]}, None, id="id-twice-across-keys"),
        pytest.param({"  ": ["m1"]}, "evidence_refs", id="empty-key"),
    ],
)
async def test_invalid_workflow_evidence_refs_shape(
    world: World, refs: dict[str, list[str]], field: str | None
) -> None:
    """INVALID_ARGUMENT INVALID_WORKFLOW_EVIDENCE_REFS: refs of a broken shape (before any lookup),
    naming the field (a map's order is the sender's: across keys, whichever comes second)."""
    run = await world.begin(reviewed())

    error = await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "review", "passed", evidence_refs=refs),
        Code.INVALID_ARGUMENT,
        Reason.INVALID_WORKFLOW_EVIDENCE_REFS,
        **({} if field is None else {"field": field}),
    )
    if field is None:
        assert error.metadata["messageId"] == "m1"


@pytest.mark.parametrize("status", ["warning", "failed"])
async def test_invalid_workflow_evidence_refs_on_a_non_pass(world: World, status: str) -> None:
    """INVALID_ARGUMENT INVALID_WORKFLOW_EVIDENCE_REFS: valid, verifiable refs on a non-passing checkpoint."""
    run = await world.begin(reviewed())
    message_id = await _replied_review(world, run)

    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "review", status, evidence_refs={"unit tests": [message_id]}),
        Code.INVALID_ARGUMENT,
        Reason.INVALID_WORKFLOW_EVIDENCE_REFS,
        field="evidence_refs",
    )


async def test_workflow_evidence_policy_missing(world: World) -> None:
    """INVALID_ARGUMENT WORKFLOW_EVIDENCE_POLICY_MISSING: refs for a key without a peer policy, on a
    checkpoint and on a wait."""
    run = await world.begin(reviewed())
    message_id = await _replied_review(world, run)
    refs = {"unit tests": [message_id], "Lint": [message_id + "x"]}

    for call in (
        world.coordinator.workflows.checkpoint(run.id, "review", "passed", evidence_refs=refs),
        world.coordinator.workflows.wait(run.id, "review", "ci", evidence_refs=refs),
    ):
        await refused_write(
            world,
            run.id,
            call,
            Code.INVALID_ARGUMENT,
            Reason.WORKFLOW_EVIDENCE_POLICY_MISSING,
            stageId="review",
            requirementKey="lint",
        )


# -- peer provenance ------------------------------------------------------------------------------


def provenance_document() -> dict[str, Any]:
    """``prov``: review needs "Unit Tests" (alice) and "Security" (alice, or bob declared on a model
    he is not registered with); ship needs "Sign Off" from alice, and goes back to review on failure."""
    document = define("prov", reviewers=("alice",), min_producers=1)
    review, ship = document["stages"]
    review["requiredEvidence"] = ["Unit Tests", "Security"]
    review["evidencePolicies"]["Security"] = {
        "kind": "peer-reply",
        "minProducers": 1,
        "eligibleAgents": ["alice", {"agent": "bob", "model": "gpt-5"}],
    }
    ship["on"] = {"failed": "review"}
    ship["requiredEvidence"] = ["Sign Off"]
    ship["evidencePolicies"] = {"Sign Off": {"kind": "peer-reply", "minProducers": 1, "eligibleAgents": ["alice"]}}
    document["maxTransitions"] = 5
    return document


Cited = tuple[str, str, str, str]
"""What a provenance case cites: (run id, stage id, requirement key, message id)."""


async def _unknown_message(world: World, run: Any) -> Cited:
    return run.id, "review", "unit tests", "msg_" + "0" * 32


async def _no_context(world: World, run: Any) -> Cited:
    sent = await world.coordinator.messages.send("alice", "plain request")
    await world.alice.messages.reply(sent.message.id, "done")
    return run.id, "review", "unit tests", sent.message.id


async def _not_replied(world: World, run: Any) -> Cited:
    (message_id,) = await world.coordinator.workflows.request_review(run.id, "review", "Unit Tests", "alice", "diff")
    return run.id, "review", "unit tests", message_id


async def _earlier_attempt(world: World, run: Any) -> Cited:
    message_id = await _replied_review(world, run)
    await world.coordinator.workflows.checkpoint(run.id, "review", "warning")  # attempt 2 is active now
    return run.id, "review", "unit tests", message_id


async def _another_requirement(world: World, run: Any) -> Cited:
    message_id = await _replied_review(world, run, "Security")
    return run.id, "review", "unit tests", message_id


async def _pass_review(world: World, run: Any) -> str:
    """Pass review with alice's replies; the "Unit Tests" reply's id."""
    tests = await _replied_review(world, run)
    security = await _replied_review(world, run, "Security")
    await world.coordinator.workflows.checkpoint(
        run.id, "review", "passed", evidence_refs={"unit tests": [tests], "security": [security]}
    )
    return tests


async def _another_stage(world: World, run: Any) -> Cited:
    tests = await _pass_review(world, run)
    return run.id, "ship", "sign off", tests


async def _another_run(world: World, run: Any) -> Cited:
    second = (await world.admin.workflows.start_run("prov", delivery_id="second-run")).run
    message_id = await _replied_review(world, second)
    return run.id, "review", "unit tests", message_id


async def _ineligible_model(world: World, run: Any) -> Cited:
    # bob is eligible by name, but registered with a model the operator did not declare for him.
    message_id = await _replied_review(world, run, "Security", reviewer="bob")
    return run.id, "review", "security", message_id


async def _earlier_visit(world: World, run: Any) -> Cited:
    tests = await _pass_review(world, run)
    # The back-edge re-enters review: visit 2, attempt 1 again, the same number as the reply's.
    entered = await world.coordinator.workflows.checkpoint(run.id, "ship", "failed")
    assert entered.transition.to_stage_id == "review"
    review = entered.run.stages[0]
    assert (review.id, review.visit, review.active_attempt) == ("review", 2, 1)
    return run.id, "review", "unit tests", tests


async def _forged(world: World, run: Any, **changes: str) -> str:
    """A copy of a real replied review request, stored with ``changes`` under a new id: a record no
    API call can make (only the coordinator may send under a run's context, to an eligible agent),
    so the cite side's own checks are what refuses it."""
    message_id = await _replied_review(world, run)
    forged_id = "msg_" + "f" * 32

    def forge(tx: Any) -> None:
        message = tx.messages.get(message_id)
        tx.messages.insert(dataclasses.replace(message, id=forged_id, idempotency_key="", **changes))

    await world.hub.server.store.write(forge)
    return forged_id


async def _another_sender(world: World, run: Any) -> Cited:
    assert world.other.agent_id is not None
    return (
        run.id,
        "review",
        "unit tests",
        await _forged(world, run, from_agent_id=world.other.agent_id, from_agent_name="other"),
    )


async def _another_project(world: World, run: Any) -> Cited:
    return run.id, "review", "unit tests", await _forged(world, run, project="beta")


PROVENANCE: dict[str, tuple[Callable[[World, Any], Awaitable[Cited]], str]] = {
    "unknown-message": (_unknown_message, "no such message"),
    "no-workflow-context": (_no_context, "not sent with a workflow context"),
    "not-replied": (_not_replied, "not replied"),
    "earlier-attempt": (_earlier_attempt, "for attempt 1, the active attempt is 2"),
    "another-requirement": (_another_requirement, "names another requirement"),
    "another-stage": (_another_stage, "names another stage"),
    "another-run": (_another_run, "names another run"),
    "recipient-model-not-declared": (_ineligible_model, "registered model disagrees"),
    "earlier-visit": (_earlier_visit, "before the current visit"),
    "sent-by-another-agent": (_another_sender, "not sent by the run's coordinator"),
    "in-another-project": (_another_project, "no such message"),
}


@pytest.mark.parametrize("case", sorted(PROVENANCE))
async def test_workflow_provenance_invalid(world: World, case: str) -> None:
    """INVALID_ARGUMENT WORKFLOW_PROVENANCE_INVALID naming the message and the requirement; the
    message says which check failed; the refused checkpoint consumes no attempt."""
    prepare, check = PROVENANCE[case]
    run = await world.begin(provenance_document())
    run_id, stage_id, key, message_id = await prepare(world, run)

    error = await refused_write(
        world,
        run_id,
        world.coordinator.workflows.checkpoint(run_id, stage_id, "passed", evidence_refs={key: [message_id]}),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_PROVENANCE_INVALID,
        messageId=message_id,
        requirementKey=key,
    )
    assert check in error.message
    assert "looks good" not in error.message and "diff" not in error.message  # metadata, never bodies


# -- oracles and completeness ---------------------------------------------------------------------


async def test_weakened_reproduction(world: World) -> None:
    """INVALID_ARGUMENT WEAKENED_REPRODUCTION: a later checkpoint (of any status) drops or changes the
    captured reproduction."""
    document = define("repro", stages=("reproduce", "fix"))
    document["stages"][0]["requiredEvidence"] = ["steps"]
    document["reproOracle"] = {"stageId": "reproduce", "evidenceKey": "steps"}
    run = await world.begin(document)
    await world.coordinator.workflows.checkpoint(run.id, "reproduce", "passed", evidence={"steps": "run make test"})

    for evidence in ({}, {"steps": "run make lint"}):
        await refused_write(
            world,
            run.id,
            world.coordinator.workflows.checkpoint(run.id, "fix", "warning", evidence=evidence),
            Code.INVALID_ARGUMENT,
            Reason.WEAKENED_REPRODUCTION,
            stageId="fix",
            evidenceKey="steps",
        )
    kept = await world.coordinator.workflows.checkpoint(run.id, "fix", "passed", evidence={"steps": "run make test"})
    assert kept.completed


def planned() -> dict[str, Any]:
    """``plan``: plan (hashing "plan", a warning moves on to build), build needs the plan hash, ship."""
    document = define("plan", stages=("plan", "build", "ship"))
    document["stages"][0]["requiredEvidence"] = ["plan"]
    document["stages"][0]["on"] = {"warning": "build"}
    document["planHash"] = {"stageId": "plan", "evidenceKey": "plan"}
    document["requirePlanHash"] = ["build"]
    return document


async def test_plan_hash_required_before_it_was_captured(world: World) -> None:
    """FAILED_PRECONDITION PLAN_HASH_REQUIRED: the plan stage moved on by a warning, so no plan hash
    was captured, and build requires it."""
    run = await world.begin(planned())
    await world.coordinator.workflows.checkpoint(run.id, "plan", "warning", evidence={"plan": "draft"})

    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "build", "passed", evidence={"plan": "draft"}),
        Code.FAILED_PRECONDITION,
        Reason.PLAN_HASH_REQUIRED,
        stageId="build",
    )


async def test_plan_hash_required_unchanged(world: World) -> None:
    """INVALID_ARGUMENT PLAN_HASH_REQUIRED: build does not present the captured plan, or changes it."""
    run = await world.begin(planned())
    await world.coordinator.workflows.checkpoint(run.id, "plan", "passed", evidence={"plan": "step 1"})

    for evidence in ({}, {"plan": "step 2"}):
        await refused_write(
            world,
            run.id,
            world.coordinator.workflows.checkpoint(run.id, "build", "warning", evidence=evidence),
            Code.INVALID_ARGUMENT,
            Reason.PLAN_HASH_REQUIRED,
            stageId="build",
            evidenceKey="plan",
        )


async def test_workflow_evidence_incomplete(world: World) -> None:
    """INVALID_ARGUMENT WORKFLOW_EVIDENCE_INCOMPLETE with missing, provided and peer requirements;
    a passing signal lacking evidence leaves the run waiting."""
    document = reviewed()
    document["stages"][0]["requiredEvidence"] = ["Unit Tests", "Changelog"]
    run = await world.begin(document)
    message_id = await _replied_review(world, run)  # one of the two producers the quorum needs

    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(
            run.id, "review", "passed", evidence={"changelog": "added"}, evidence_refs={"unit tests": [message_id]}
        ),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        stageId="review",
        missingRequirements="unit tests",
        providedRequirements="changelog",
        peerRequirements="unit tests",
    )
    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "review", "passed"),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        missingRequirements="unit tests,changelog",
        providedRequirements="",
    )
    gated = define("gated", stages=("build", "ship"))
    gated["stages"][0]["requiredEvidence"] = ["build", "tests"]
    paused = await world.begin(gated)
    await world.coordinator.workflows.wait(paused.id, "build", "ci", evidence={"build": "#1"})
    await refused_write(
        world,
        paused.id,
        world.admin.workflows.signal_run(paused.id, "ci", "passed", delivery_id="s-1"),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_EVIDENCE_INCOMPLETE,
        missingRequirements="tests",
        providedRequirements="build",
    )
    assert (await world.read(paused.id)).run.status == WorkflowRunStatus.WORKFLOW_RUN_STATUS_WAITING


# -- run and stage state --------------------------------------------------------------------------


async def test_workflow_terminal(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_TERMINAL: a checkpoint of a run not running (waiting, cancelled);
    a cancel or an approval of a run that ended."""
    paused = await waiting(world)
    await refused_write(
        world,
        paused.id,
        world.coordinator.workflows.checkpoint(paused.id, "build", "passed"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_TERMINAL,
        status="waiting",
    )
    run = await world.begin(reviewed())
    await world.admin.workflows.cancel_run(run.id)
    for call in (
        world.coordinator.workflows.checkpoint(run.id, "review", "warning"),
        world.admin.workflows.cancel_run(run.id),
        world.admin.workflows.approve_degradation(run.id, "review", "unit tests", "why"),
    ):
        await refused_write(
            world, run.id, call, Code.FAILED_PRECONDITION, Reason.WORKFLOW_TERMINAL, runId=run.id, status="cancelled"
        )


@pytest.mark.parametrize("rpc", ["checkpoint", "wait", "escalate_stage", "approve_degradation"])
async def test_workflow_stage_not_found(world: World, rpc: str) -> None:
    """NOT_FOUND WORKFLOW_STAGE_NOT_FOUND: the definition has no stage ``deploy``."""
    run = await world.begin(reviewed())
    call = {
        "checkpoint": lambda: world.coordinator.workflows.checkpoint(run.id, "deploy", "passed"),
        "wait": lambda: world.coordinator.workflows.wait(run.id, "deploy", "ci"),
        "escalate_stage": lambda: world.coordinator.workflows.escalate_stage(run.id, "deploy", "why"),
        "approve_degradation": lambda: world.admin.workflows.approve_degradation(run.id, "deploy", "unit tests", "why"),
    }[rpc]

    await refused_write(world, run.id, call(), Code.NOT_FOUND, Reason.WORKFLOW_STAGE_NOT_FOUND, stageId="deploy")


@pytest.mark.parametrize("rpc", ["checkpoint", "wait", "escalate_stage", "approve_degradation"])
async def test_workflow_stage_out_of_order(world: World, rpc: str) -> None:
    """FAILED_PRECONDITION WORKFLOW_STAGE_OUT_OF_ORDER: ``ship`` while ``review`` is current."""
    run = await world.begin(reviewed())
    call = {
        "checkpoint": lambda: world.coordinator.workflows.checkpoint(run.id, "ship", "passed"),
        "wait": lambda: world.coordinator.workflows.wait(run.id, "ship", "ci"),
        "escalate_stage": lambda: world.coordinator.workflows.escalate_stage(run.id, "ship", "why"),
        "approve_degradation": lambda: world.admin.workflows.approve_degradation(run.id, "ship", "unit tests", "why"),
    }[rpc]

    await refused_write(
        world, run.id, call(), Code.FAILED_PRECONDITION, Reason.WORKFLOW_STAGE_OUT_OF_ORDER, stageId="ship"
    )


async def test_workflow_not_running(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_NOT_RUNNING: a wait or an escalation of a run that waits or ended."""
    paused = await waiting(world)
    cancelled = await world.begin(define("other", stages=("build", "ship")))
    await world.admin.workflows.cancel_run(cancelled.id)
    for run, status in ((paused, "waiting"), (cancelled, "cancelled")):
        for call in (
            world.coordinator.workflows.wait(run.id, "build", "again"),
            world.coordinator.workflows.escalate_stage(run.id, "build", "why"),
        ):
            await refused_write(
                world, run.id, call, Code.FAILED_PRECONDITION, Reason.WORKFLOW_NOT_RUNNING, status=status
            )


@pytest.mark.parametrize("key", ["bad key", "-leading-dash", "k" * 129, "audit_escalation"])
async def test_invalid_signal_key(world: World, key: str) -> None:
    """INVALID_ARGUMENT INVALID_SIGNAL_KEY: a malformed key (or the hub's own ``audit_escalation``)
    for a wait, and a malformed one for a signal."""
    run = await world.begin(reviewed())
    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.wait(run.id, "review", key),
        Code.INVALID_ARGUMENT,
        Reason.INVALID_SIGNAL_KEY,
        field="signal_key",
    )
    if key != "audit_escalation":
        paused = await waiting(world)
        await refused_write(
            world,
            paused.id,
            world.admin.workflows.signal_run(paused.id, key, "passed", delivery_id="s-1"),
            Code.INVALID_ARGUMENT,
            Reason.INVALID_SIGNAL_KEY,
            field="signal_key",
        )


@pytest.mark.parametrize("ttl", [0.5, 0.999, 30 * 86_400 + 1])
async def test_workflow_wait_invalid(world: World, ttl: float) -> None:
    """INVALID_ARGUMENT WORKFLOW_WAIT_INVALID: a wait shorter than 1 s or longer than 30 days."""
    run = await world.begin(reviewed())

    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.wait(run.id, "review", "ci", ttl=ttl),
        Code.INVALID_ARGUMENT,
        Reason.WORKFLOW_WAIT_INVALID,
        field="timeout",
    )


async def test_workflow_not_waiting(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_NOT_WAITING: a signal or a ruling for a run that is running, or ended."""
    run = await world.begin(reviewed())
    await refused_write(
        world,
        run.id,
        world.admin.workflows.signal_run(run.id, "ci", "passed", delivery_id="s-1"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_NOT_WAITING,
        status="running",
    )
    await refused_write(
        world,
        run.id,
        world.admin.workflows.resolve_escalation(run.id, "passed", "ruled"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_NOT_WAITING,
        status="running",
    )
    await world.admin.workflows.cancel_run(run.id)
    await refused_write(
        world,
        run.id,
        world.admin.workflows.signal_run(run.id, "ci", "passed", delivery_id="s-2"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_NOT_WAITING,
        status="cancelled",
    )


async def test_workflow_signal_mismatch(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_SIGNAL_MISMATCH: a signal for another key than the awaited one; a
    ruling for a run that waits for a signal, not an escalation."""
    paused = await waiting(world, "ci-green")
    await refused_write(
        world,
        paused.id,
        world.admin.workflows.signal_run(paused.id, "deploy-done", "passed", delivery_id="s-1"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_SIGNAL_MISMATCH,
        signalKey="deploy-done",
        awaitedSignalKey="ci-green",
    )
    await refused_write(
        world,
        paused.id,
        world.admin.workflows.resolve_escalation(paused.id, "passed", "ruled"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_SIGNAL_MISMATCH,
        awaitedSignalKey="ci-green",
    )


@pytest.mark.parametrize(
    ("key", "value"), [("workflow.run", UNKNOWN_RUN), ("workflow.stage", "ship"), ("workflow.signal", "other")]
)
async def test_workflow_signal_context_mismatch(world: World, key: str, value: str) -> None:
    """FAILED_PRECONDITION WORKFLOW_SIGNAL_CONTEXT_MISMATCH: the signal's evidence names another run,
    stage or signal than the wait's."""
    paused = await waiting(world)

    await refused_write(
        world,
        paused.id,
        world.admin.workflows.signal_run(paused.id, "ci-green", "passed", delivery_id="s-1", evidence={key: value}),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_SIGNAL_CONTEXT_MISMATCH,
        evidenceKey=key,
    )


async def test_workflow_signal_delivery_conflict(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_SIGNAL_DELIVERY_CONFLICT: a delivery id received before comes with
    another body or another key."""
    paused = await waiting(world)
    first = await world.admin.workflows.signal_run(paused.id, "ci-green", "warning", delivery_id="s-1", summary="red")
    assert first.retry  # back to running: the coordinator may wait again
    await world.coordinator.workflows.wait(paused.id, "build", "ci-again", ttl=600)

    for call in (
        world.admin.workflows.signal_run(paused.id, "ci-green", "warning", delivery_id="s-1", summary="green"),
        world.admin.workflows.signal_run(paused.id, "ci-again", "warning", delivery_id="s-1", summary="red"),
    ):
        await refused_write(
            world,
            paused.id,
            call,
            Code.FAILED_PRECONDITION,
            Reason.WORKFLOW_SIGNAL_DELIVERY_CONFLICT,
            runId=paused.id,
            deliveryId="s-1",
        )


async def test_workflow_ruling_required(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_RULING_REQUIRED: a signal for an audit escalation."""
    run = await escalated(world)

    await refused_write(
        world,
        run.id,
        world.admin.workflows.signal_run(run.id, "audit_escalation", "passed", delivery_id="s-1"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_RULING_REQUIRED,
        stageId="build",
        nextAction="ask an operator to rule",
    )


async def test_workflow_degradation_forbidden(world: World) -> None:
    """INVALID_ARGUMENT WORKFLOW_DEGRADATION_FORBIDDEN: the policy declares no degradation, or the key
    has no policy at all."""
    run = await world.begin(define("fix", reviewers=("alice", "bob"), min_producers=2))

    for requirement, key in (("Unit Tests", "unit tests"), ("Lint", "lint")):
        await refused_write(
            world,
            run.id,
            world.admin.workflows.approve_degradation(run.id, "review", requirement, "bob is away"),
            Code.INVALID_ARGUMENT,
            Reason.WORKFLOW_DEGRADATION_FORBIDDEN,
            stageId="review",
            requirementKey=key,
        )


async def test_workflow_degradation_conflict(world: World) -> None:
    """FAILED_PRECONDITION WORKFLOW_DEGRADATION_CONFLICT: another reason was approved for this attempt."""
    run = await world.begin(reviewed())
    approved = await world.admin.workflows.approve_degradation(run.id, "review", "Unit Tests", "bob is away")

    await refused_write(
        world,
        run.id,
        world.admin.workflows.approve_degradation(run.id, "review", "Unit Tests", "bob is busy"),
        Code.FAILED_PRECONDITION,
        Reason.WORKFLOW_DEGRADATION_CONFLICT,
        requirementKey="unit tests",
        approvalId=approved.approval.id,
    )


async def test_a_long_request_id_is_a_protocol_error(world: World) -> None:
    """INVALID_ARGUMENT PROTOCOL_ERROR naming request_id (more than 80 characters)."""
    run = await world.begin(reviewed())

    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "review", "warning", request_id="r" * 81),
        Code.INVALID_ARGUMENT,
        Reason.PROTOCOL_ERROR,
        field="request_id",
    )


async def test_a_request_id_reused_for_another_request_is_an_idempotency_conflict(world: World) -> None:
    """ABORTED IDEMPOTENCY_CONFLICT: a request id answers only the request it was first used for
    (the same checkpoint again is a repeat; another status, stage or step under it is refused)."""
    run = await world.begin(reviewed())
    first = await world.coordinator.workflows.checkpoint(run.id, "review", "warning", request_id="cp-1")
    again = await world.coordinator.workflows.checkpoint(run.id, "review", "warning", request_id="cp-1")

    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "review", "failed", request_id="cp-1"),
        Code.ABORTED,
        Reason.IDEMPOTENCY_CONFLICT,
        requestId="cp-1",
    )
    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.wait(run.id, "review", "ci-green", request_id="cp-1"),
        Code.ABORTED,
        Reason.IDEMPOTENCY_CONFLICT,
    )

    assert (first.repeated, again.repeated) == (False, True)
    assert again.run.stages[0].attempts == 1


async def test_a_request_id_in_the_signal_receipts_namespace_is_refused(world: World) -> None:
    """INVALID_ARGUMENT PROTOCOL_ERROR: ``signal:`` is the prefix of the hub's signal receipts."""
    run = await world.begin(reviewed())

    await refused_write(
        world,
        run.id,
        world.coordinator.workflows.checkpoint(run.id, "review", "warning", request_id="signal:ci-7"),
        Code.INVALID_ARGUMENT,
        Reason.PROTOCOL_ERROR,
        field="request_id",
    )


@pytest.mark.parametrize("bad", ["", "run_\x00", "r" * 81])
async def test_a_malformed_run_id_is_refused_before_any_lookup(world: World, bad: str) -> None:
    """INVALID_ARGUMENT PROTOCOL_ERROR naming run_id (PostgreSQL refused a NUL as a storage error)."""
    await refused(
        world.coordinator.workflows.get_run(bad), Code.INVALID_ARGUMENT, Reason.PROTOCOL_ERROR, field="run_id"
    )
    await refused(
        world.coordinator.workflows.checkpoint(bad, "review", "warning"),
        Code.INVALID_ARGUMENT,
        Reason.PROTOCOL_ERROR,
        field="run_id",
    )
