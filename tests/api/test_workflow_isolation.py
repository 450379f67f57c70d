"""Cross-project callers are refused on every WorkflowService RPC and on the signed routes.

Two projects, alpha and beta, each with a coordinator and a reviewer of the same names, and runs
in each. Every RPC of the service (found in its descriptor, so a new RPC cannot be forgotten) is
called with a valid request aimed at beta's definition or run by each kind of alpha caller: an
agent (alpha's coordinator), alpha's project token, a runtime key of alpha, and an operator
naming alpha (``x-kxm-project``). Each call is refused, as NOT_FOUND (WORKFLOW_NOT_FOUND,
WEBHOOK_NOT_FOUND) or, for a credential the RPC does not admit, PERMISSION_DENIED
(CREDENTIAL_KIND_DENIED); none discloses beta's ids or content beyond what the request named;
the lists return none of beta's; beta's runs and definition read back unchanged. A signal for
beta's run on alpha's route is 404. An operator naming no project sees both.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf import duration_pb2, struct_pb2

from kxm_grpc import HubError, Reason
from kxm_grpc._gen.kxm.v1 import envelopes_pb2, options_pb2, workflow_journal_pb2, workflow_service_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.server.settings import Settings
from kxm_grpc.services.workflows import definitions
from kxm_grpc.v1 import CheckpointStatus
from tests.conftest import AgentFactory, Hub, Project, ProjectFactory
from tests.workflows import SIGNAL_SECRET, call, define, gate_registry, step_document

pb = workflow_service_pb2
jpb = workflow_journal_pb2
SERVICE = workflow_service_pb2.DESCRIPTOR.services_by_name["WorkflowService"]
BETA_SECRET = "bravo-start-secret-0123456789"
BETA_SIGNAL_SECRET = "bravo-signal-secret-0123456789"
PASSED = CheckpointStatus.CHECKPOINT_STATUS_PASSED
WARNING = CheckpointStatus.CHECKPOINT_STATUS_WARNING


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The shared test settings with the webhook listener on a free loopback port."""
    return replace(hub_settings, webhook_port=0)


def alpha_document() -> dict[str, Any]:
    """``alpha-fix`` of alpha: a-review needs "Unit Tests" from alice, then a-ship."""
    return define("alpha-fix", reviewers=("alice",), stages=("a-review", "a-ship"), review_stage="a-review")


def beta_document(prompt: str = "Fix {{issue.key}}") -> dict[str, Any]:
    """``bravo-fix`` of beta: b-review needs "Unit Tests" from two of alice and bob (one approved), then b-ship."""
    document = define(
        "bravo-fix",
        project="beta",
        reviewers=("alice", "bob"),
        min_producers=2,
        stages=("b-review", "b-ship"),
        review_stage="b-review",
        secret=BETA_SECRET,
        signalSecret=BETA_SIGNAL_SECRET,
        promptTemplate=prompt,
    )
    document["stages"][0]["evidencePolicies"]["Unit Tests"]["degradation"] = {"minProducers": 1}
    return document


def beta_gates() -> dict[str, Any]:
    """beta's gate registry: its own gate ``bravo-verify``."""
    return gate_registry(
        **{"bravo-verify": {"kind": "command", "argv": ["make", "bravo"], "timeoutMs": 60_000}, "npm-verify": None}
    )


def beta_step_document(gate: str = "bravo-verify") -> dict[str, Any]:
    """``bravo-ship`` of beta: the seeds' step workflow gated by beta's ``bravo-verify``."""
    return step_document("bravo-ship", project="beta", gate=gate)


@dataclass
class Beta:
    """What alpha's callers must never reach or learn: beta's definition and runs."""

    definition_hash: str
    running: Any
    waiting: Any
    escalated: Any
    agent_ids: list[str]
    entry_id: str = ""
    """A skill candidate beta's coordinator recorded on the running run."""
    step_hash: str = ""
    """The plan hash of beta's step workflow ``bravo-ship``."""
    registry_hash: str = ""
    """The hash of beta's gate registry (its gate ``bravo-verify``)."""
    step_run_id: str = ""
    """A run of ``bravo-ship``, its plan step assigned to beta's planner."""
    assignment_id: str = ""
    """That assignment."""

    @property
    def runs(self) -> list[Any]:
        return [self.running, self.waiting, self.escalated]

    def secrets(self) -> set[str]:
        """Every beta identifier or text an error to alpha must not carry unless the request named it."""
        values = {"beta", "bravo-fix", "b-review", "b-ship", "b-ci", self.definition_hash, BETA_SECRET, *self.agent_ids}
        values |= {
            "bravo-ship",
            "bravo-verify",
            self.step_hash,
            self.registry_hash,
            self.step_run_id,
            self.assignment_id,
        }
        values |= {BETA_SIGNAL_SECRET, "Fix KXM-B"}
        for run in self.runs:
            values |= {run.id, run.prompt_message_id, run.payload_sha256}
        return values | {self.entry_id, "cache KXM-B builds"}


@dataclass
class World:
    hub: Hub
    alpha: Project
    beta_project: Project
    admin: HubClient
    alpha_run: Any
    beta: Beta
    callers: dict[str, HubClient]


@pytest_asyncio.fixture
async def world(
    hub: Hub, project: Project, make_project: ProjectFactory, make_agent: AgentFactory
) -> AsyncIterator[World]:
    beta = await make_project("beta")
    alpha_coordinator = await make_agent("coordinator")
    await make_agent("alice")
    beta_coordinator = await make_agent("coordinator", in_project=beta)
    beta_alice = await make_agent("alice", in_project=beta)
    beta_bob = await make_agent("bob", in_project=beta)
    beta_planner = await make_agent("planner", in_project=beta)
    async with (
        hub.admin() as admin,
        HubClient(hub.address, token=project.token) as token,
        HubClient(hub.address, token=project.token) as runtime,
        hub.admin(project="alpha") as operator,
    ):
        await runtime.runtimes.register("rtm_alpha00000001", adopt=True)
        await admin.workflows.register_definition(alpha_document())
        registered = await admin.workflows.register_definition(beta_document())
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        beta_registry = await admin.workflows.register_gate_registry(beta_gates(), project="beta")
        beta_steps = await admin.workflows.register_definition(beta_step_document())
        step_run = (await admin.workflows.start_run("bravo-ship", delivery_id="bs-1")).run
        (step_assignment,) = step_run.steps.assignments
        alpha_run = (await admin.workflows.start_run("alpha-fix", delivery_id="a-1")).run
        payload = {"issue": {"key": "KXM-B"}}
        running = (await admin.workflows.start_run("bravo-fix", delivery_id="b-1", payload=payload)).run
        waiting = (await admin.workflows.start_run("bravo-fix", delivery_id="b-2", payload=payload)).run
        escalated = (await admin.workflows.start_run("bravo-fix", delivery_id="b-3", payload=payload)).run
        await beta_coordinator.workflows.wait(waiting.id, "b-review", "b-ci", ttl=600, summary="Fix KXM-B ci")
        await beta_coordinator.workflows.escalate_stage(escalated.id, "b-review", "Fix KXM-B needs a human")
        beta_ids = [
            c.agent_id for c in (beta_coordinator, beta_alice, beta_bob, beta_planner) if c.agent_id is not None
        ]
        recorded = await call(
            beta_coordinator,
            "RecordJournal",
            pb.RecordJournalRequest(
                run_id=running.id,
                category=jpb.JOURNAL_CATEGORY_SKILL_CANDIDATE,
                area=jpb.IMPROVEMENT_AREA_GATES,
                summary="cache KXM-B builds",
                evidence=["class:slow_build"],
            ),
        )
        state = Beta(
            registered.definition.hash,
            (await admin.workflows.get_run(running.id)).run,
            (await admin.workflows.get_run(waiting.id)).run,
            (await admin.workflows.get_run(escalated.id)).run,
            beta_ids,
            recorded.record.entry.id,
            beta_steps.definition.hash,
            beta_registry.registry.hash,
            step_run.id,
            step_assignment.id,
        )
        callers = {"agent": alpha_coordinator, "project-token": token, "runtime-key": runtime, "operator": operator}
        yield World(hub, project, beta, admin, alpha_run, state, callers)


# -- a valid request for every RPC, aimed at beta -------------------------------------------------


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


REQUESTS: dict[str, Callable[[Beta], Any]] = {
    "RegisterWorkflowDefinition": lambda b: pb.RegisterWorkflowDefinitionRequest(
        document=json.dumps(beta_document("Changed {{issue.key}}")), format=pb.DEFINITION_FORMAT_JSON
    ),
    "GetWorkflowDefinition": lambda b: pb.GetWorkflowDefinitionRequest(definition_id="bravo-fix"),
    "RegisterGateRegistry": lambda b: pb.RegisterGateRegistryRequest(
        document=json.dumps(gate_registry()), format=pb.DEFINITION_FORMAT_JSON, project="beta"
    ),
    # No project named: the caller's own registry, which must hold nothing of beta's.
    "GetGateRegistry": lambda b: pb.GetGateRegistryRequest(),
    "ListWorkflowDefinitions": lambda b: pb.ListWorkflowDefinitionsRequest(page_size=500),
    "StartWorkflowRun": lambda b: pb.StartWorkflowRunRequest(
        definition_id="bravo-fix", delivery_id="b-9", payload=_struct({"issue": {"key": "KXM-9"}})
    ),
    "GetWorkflowRun": lambda b: pb.GetWorkflowRunRequest(run_id=b.running.id),
    "ListWorkflowRuns": lambda b: pb.ListWorkflowRunsRequest(definition_id="bravo-fix", page_size=500),
    "CancelWorkflowRun": lambda b: pb.CancelWorkflowRunRequest(run_id=b.running.id, reason="stop"),
    "RerunWorkflowRun": lambda b: pb.RerunWorkflowRunRequest(run_id=b.running.id, delivery_id="b-10"),
    "Checkpoint": lambda b: pb.CheckpointRequest(
        run_id=b.running.id, stage_id="b-review", status=WARNING, summary="retry", request_id="req-1"
    ),
    "Wait": lambda b: pb.WaitRequest(
        run_id=b.running.id,
        stage_id="b-review",
        signal_key="b-ci",
        timeout=duration_pb2.Duration(seconds=600),
        request_id="req-2",
    ),
    "SignalWorkflowRun": lambda b: pb.SignalWorkflowRunRequest(
        run_id=b.waiting.id, signal_key="b-ci", delivery_id="s-1", status=PASSED
    ),
    "ApproveDegradation": lambda b: pb.ApproveDegradationRequest(
        run_id=b.running.id, stage_id="b-review", requirement_key="unit tests", reason="bob is away"
    ),
    "EscalateStage": lambda b: pb.EscalateStageRequest(run_id=b.running.id, stage_id="b-review", reason="why"),
    "ResolveEscalation": lambda b: pb.ResolveEscalationRequest(run_id=b.escalated.id, ruling="ok", status=PASSED),
    "RecordJournal": lambda b: pb.RecordJournalRequest(
        run_id=b.running.id, category=jpb.JOURNAL_CATEGORY_PLAN, area=jpb.IMPROVEMENT_AREA_WORKFLOW, summary="x"
    ),
    "ListJournal": lambda b: pb.ListJournalRequest(run_id=b.running.id),
    "PromoteJournalEntry": lambda b: pb.PromoteJournalEntryRequest(
        entry_id=b.entry_id, to=jpb.PROMOTION_STATUS_APPROVED, evidence_refs=["measured"]
    ),
    # No project named: the caller's own report, which must hold nothing of beta's.
    "GetImprovementReport": lambda b: pb.GetImprovementReportRequest(),
    "ExportRetrospective": lambda b: pb.ExportRetrospectiveRequest(run_id=b.escalated.id),
    "VerifyJournal": lambda b: pb.VerifyJournalRequest(run_id=b.running.id),
    "CompleteAssignment": lambda b: pb.CompleteAssignmentRequest(
        assignment_id=b.assignment_id, worker_result=envelopes_pb2.WorkerResult(outcome="passed")
    ),
    # No assignment named: the caller's own next one, which must be none of beta's.
    "NextAssignment": lambda b: pb.NextAssignmentRequest(),
    "ApproveStep": lambda b: pb.ApproveStepRequest(run_id=b.step_run_id, step_id="plan", outcome="passed"),
    "RecoverStepRun": lambda b: pb.RecoverStepRunRequest(run_id=b.step_run_id, action=pb.RECOVERY_ACTION_RETRY),
    "ListWorkflowRunEvents": lambda b: pb.ListWorkflowRunEventsRequest(run_id=b.step_run_id),
    "AuditGateEvidence": lambda b: pb.AuditGateEvidenceRequest(run_id=b.step_run_id),
}
LISTS = {"ListWorkflowDefinitions", "ListWorkflowRuns", "GetImprovementReport", "GetGateRegistry", "NextAssignment"}


def test_every_rpc_of_the_service_has_a_request_here() -> None:
    """A new RPC of WorkflowService fails here until it is given a cross-project request below."""
    assert sorted(method.name for method in SERVICE.methods) == sorted(REQUESTS)


def access_of(method_name: str) -> int:
    facts = SERVICE.methods_by_name[method_name].GetOptions().Extensions[options_pb2.facts]
    return int(facts.access)


ADMITS = {
    options_pb2.ACCESS_OPERATOR: {"operator"},
    options_pb2.ACCESS_AGENT: {"agent"},
    options_pb2.ACCESS_PROJECT: {"agent", "project-token", "runtime-key", "operator"},
    options_pb2.ACCESS_ANY: {"agent", "project-token", "runtime-key", "operator"},
}
"""Which of the callers here each access level of the contract admits."""

NOT_FOUND = {Reason.WORKFLOW_NOT_FOUND, Reason.WEBHOOK_NOT_FOUND, Reason.JOURNAL_NOT_FOUND, Reason.ASSIGNMENT_NOT_FOUND}

DEFINITION_INVALID = (grpc.StatusCode.INVALID_ARGUMENT, {Reason.WORKFLOW_DEFINITION_INVALID})
"""How an operator naming alpha is refused a definition document of beta: RegisterWorkflowDefinition
names no definition to be missing, and the contract lists this reason for it (the field: ``project``)."""


REGISTRY_PROJECT = (grpc.StatusCode.INVALID_ARGUMENT, {Reason.PROTOCOL_ERROR})
"""How an operator naming alpha is refused beta's gate registry: the request's ``project`` is not the
project the call names (a registry document names no project, so nothing is missing)."""


def leaks(error: HubError, request: Any, secrets: set[str]) -> list[str]:
    """The beta secrets in the error's message or metadata that the request did not name itself."""
    named = str(request)
    said = " ".join([error.message, *error.metadata.keys(), *error.metadata.values()])
    return sorted(secret for secret in secrets if secret in said and secret not in named)


async def snapshot(world: World) -> tuple[Any, ...]:
    """beta's runs and definitions as an operator naming no project reads them."""
    runs = [await world.admin.workflows.get_run(run.id) for run in world.beta.runs]
    listed = await world.admin.workflows.list_runs(definition_id="bravo-fix", page_size=500)
    definitions = await world.admin.workflows.list_definitions(page_size=500)
    registry = await world.hub.server.store.read(lambda tx: tx.gate_registries.get("beta"))
    return (runs, listed, definitions, registry)


@pytest.mark.parametrize("caller", ["agent", "project-token", "runtime-key", "operator"])
async def test_every_rpc_refuses_alphas_callers_on_betas_runs(world: World, caller: str) -> None:
    """Each RPC, called by one kind of alpha caller with a valid request for beta, is refused as
    NOT_FOUND (or CREDENTIAL_KIND_DENIED when the RPC does not admit the caller), discloses
    nothing of beta's the request did not name, and changes nothing; the lists return only alpha's."""
    client = world.callers[caller]
    secrets = world.beta.secrets()
    before = await snapshot(world)
    problems: list[str] = []
    for method in SERVICE.methods:
        request = REQUESTS[method.name](world.beta)
        admitted = caller in ADMITS[access_of(method.name)]
        try:
            answer = await call(client, method.name, request)
        except HubError as error:
            cause = error.__cause__
            code = cause.code() if isinstance(cause, grpc.aio.AioRpcError) else None
            if not admitted:
                expected = (grpc.StatusCode.PERMISSION_DENIED, {Reason.CREDENTIAL_KIND_DENIED})
            elif method.name == "RegisterWorkflowDefinition":
                expected = DEFINITION_INVALID
                if error.metadata.get("field") != "project":
                    problems.append(f"{method.name}: refused for {error.metadata} {error.message!r}")
            elif method.name == "RegisterGateRegistry":
                expected = REGISTRY_PROJECT
                if error.metadata.get("field") != "project":
                    problems.append(f"{method.name}: refused for {error.metadata} {error.message!r}")
            elif method.name in LISTS:
                expected = (None, set())  # a list of another project's is empty, never refused
            else:
                expected = (grpc.StatusCode.NOT_FOUND, NOT_FOUND)
            if code != expected[0] or error.reason not in expected[1]:
                problems.append(f"{method.name}: {code} {error.reason} {error.message!r}")
            if leaked := leaks(error, request, secrets):
                problems.append(f"{method.name}: the error discloses {leaked}: {error.message!r} {error.metadata}")
            continue
        if not admitted or method.name not in LISTS:
            problems.append(f"{method.name}: succeeded for alpha's {caller}: {str(answer)[:200]!r}")
        elif shown := sorted(secret for secret in secrets if secret in str(answer)):
            problems.append(f"{method.name}: lists beta's {shown}")

    assert problems == []
    assert await snapshot(world) == before


@pytest.mark.parametrize("caller", ["agent", "project-token", "runtime-key", "operator"])
async def test_alphas_lists_hold_only_alphas(world: World, caller: str) -> None:
    """ListWorkflowRuns and ListWorkflowDefinitions (unfiltered, filtered by beta's definition, any
    status) return alpha's only, to every alpha caller that may list them."""
    client = world.callers[caller]
    runs = await client.workflows.list_runs(page_size=500)
    by_beta = await client.workflows.list_runs(definition_id="bravo-fix", page_size=500)
    waiting = await client.workflows.list_runs(status="waiting", page_size=500)
    definitions = await client.workflows.list_definitions(page_size=500)

    assert [r.id for r in runs.runs] == [world.alpha_run.id]
    assert {r.project for r in runs.runs} == {"alpha"}
    assert list(by_beta.runs) == [] and list(waiting.runs) == []
    assert [d.id for d in definitions.definitions] == ["alpha-fix"]
    registry = (await client.workflows.get_gate_registry()).registry
    assert (registry.project, list(registry.gate_ids)) == ("alpha", ["npm-verify", "plan-exists"])


@pytest.mark.parametrize("validate_only", [False, True])
async def test_an_operator_naming_alpha_cannot_take_betas_definition_id(world: World, validate_only: bool) -> None:
    """Registering (or validating) a definition of alpha under beta's definition id, as an operator
    naming alpha, is refused naming the field ``id``, without naming the project that holds it: it
    would replace beta's definition. Beta's reads back unchanged."""
    hijack = {**alpha_document(), "id": "bravo-fix"}
    before = await snapshot(world)

    with pytest.raises(HubError) as caught:
        await world.callers["operator"].workflows.register_definition(hijack, validate_only=validate_only)

    cause = caught.value.__cause__
    assert isinstance(cause, grpc.aio.AioRpcError)
    assert (cause.code(), caught.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, Reason.WORKFLOW_DEFINITION_INVALID)
    assert caught.value.metadata["field"] == "id"
    assert leaks(caught.value, json.dumps(hijack), world.beta.secrets()) == []
    assert await snapshot(world) == before
    # Its own project's definitions it registers as before.
    changed = {**alpha_document(), "promptTemplate": "Again {{issue.key}}"}
    assert not (await world.callers["operator"].workflows.register_definition(changed)).unchanged


def refused_takeover(error: HubError) -> None:
    """The refusal of a definition replacing another project's: WORKFLOW_DEFINITION_INVALID on ``project``."""
    assert error.reason is Reason.WORKFLOW_DEFINITION_INVALID
    assert (error.metadata["definition"], error.metadata["field"]) == ("bravo-fix", "project")
    assert definitions.OTHER_PROJECTS_ID in error.message
    assert "beta" not in error.message


@pytest.mark.parametrize("validate_only", [False, True])
async def test_an_operator_naming_no_project_cannot_move_betas_definition_to_alpha(
    world: World, validate_only: bool
) -> None:
    """An operator naming no project registering (or validating) beta's definition id as a definition
    of alpha is refused on ``project``: a definition's project never changes, so beta's runs never
    rerun, signal or notify on alpha's definition. Beta's reads back unchanged; beta's own definition
    the operator still replaces."""
    hijack = {**alpha_document(), "id": "bravo-fix"}
    before = await snapshot(world)

    with pytest.raises(HubError) as caught:
        await world.admin.workflows.register_definition(hijack, validate_only=validate_only)

    cause = caught.value.__cause__
    assert isinstance(cause, grpc.aio.AioRpcError) and cause.code() == grpc.StatusCode.INVALID_ARGUMENT
    refused_takeover(caught.value)
    assert await snapshot(world) == before
    changed = await world.admin.workflows.register_definition(beta_document("Changed {{issue.key}}"))
    assert (changed.definition.project, changed.unchanged) == ("beta", False)


async def test_an_import_cannot_move_betas_definition_to_alpha(world: World, tmp_path: Path) -> None:
    """``--workflows`` (``store_imported``) holding beta's definition id as a definition of alpha is
    refused as an operator's registration is, and stores nothing of the import (one transaction):
    the hub would not start. Beta's reads back unchanged."""
    (tmp_path / "alpha.json").write_text(
        json.dumps([{**alpha_document(), "id": "alpha-new"}, {**alpha_document(), "id": "bravo-fix"}])
    )
    imported = definitions.import_directory(tmp_path, env={})
    before = await snapshot(world)
    store, state = world.hub.server.store, world.hub.server.hub
    assert state is not None

    with pytest.raises(HubError) as caught:
        await definitions.store_imported(store, imported, now=state.clock.now())

    refused_takeover(caught.value)
    assert caught.value.metadata["origin"] == definitions.IMPORTED_BY
    assert await snapshot(world) == before
    assert await store.read(lambda tx: tx.workflows.get_definition("alpha-new")) is None


async def test_an_operator_naming_no_project_sees_both_projects(world: World) -> None:
    """ListWorkflowRuns and ListWorkflowDefinitions of an operator naming no project hold alpha's and beta's."""
    runs = await world.admin.workflows.list_runs(page_size=500)
    definitions = await world.admin.workflows.list_definitions(page_size=500)
    beta_run = await world.admin.workflows.get_run(world.beta.running.id)

    assert {r.id for r in runs.runs} == {world.alpha_run.id, *(r.id for r in world.beta.runs), world.beta.step_run_id}
    assert {r.project for r in runs.runs} == {"alpha", "beta"}
    assert [d.id for d in definitions.definitions] == ["alpha-fix", "bravo-fix", "bravo-ship"]
    assert beta_run.run.project == "beta"


# -- step workflows and gate registries -------------------------------------------------------------


@pytest.mark.parametrize("validate_only", [False, True])
async def test_an_operator_naming_alpha_cannot_register_betas_step_workflow(world: World, validate_only: bool) -> None:
    """A step workflow of beta from an operator naming alpha is refused on ``project`` before any
    registry is read (beta's gates are never probed: the answer is the same whatever they hold); one
    of alpha under beta's step id is refused on ``id``; beta's reads back unchanged."""
    operator = world.callers["operator"]
    before = await snapshot(world)
    errors = []
    for document in (beta_step_document(), beta_step_document(gate="no-such-gate")):
        with pytest.raises(HubError) as caught:
            await operator.workflows.register_definition(document, validate_only=validate_only)
        errors.append(caught.value)
    with pytest.raises(HubError) as hijack:
        await operator.workflows.register_definition(
            step_document("bravo-ship", project="alpha"), validate_only=validate_only
        )

    assert [(e.reason, e.metadata["field"], e.message) for e in errors] == [
        (Reason.WORKFLOW_DEFINITION_INVALID, "project", errors[0].message)
    ] * 2
    assert (hijack.value.reason, hijack.value.metadata["field"]) == (Reason.WORKFLOW_DEFINITION_INVALID, "id")
    assert leaks(hijack.value, "bravo-ship alpha", world.beta.secrets()) == []
    assert await snapshot(world) == before


async def test_an_operator_naming_no_project_cannot_move_betas_step_workflow_to_alpha(world: World) -> None:
    """beta's step id registered as alpha's by an operator naming no project is refused on ``project``."""
    before = await snapshot(world)

    with pytest.raises(HubError) as caught:
        await world.admin.workflows.register_definition(step_document("bravo-ship", project="alpha"))

    assert (caught.value.metadata["definition"], caught.value.metadata["field"]) == ("bravo-ship", "project")
    assert definitions.OTHER_PROJECTS_ID in caught.value.message
    assert await snapshot(world) == before


async def test_alphas_registry_changes_never_reach_betas_workflows(world: World) -> None:
    """alpha's registry replaced by one without any of beta's gates is accepted: only alpha's step
    workflows are checked against it; beta's registry and plans stay as they were."""
    before = await snapshot(world)

    replaced = await world.callers["operator"].workflows.register_gate_registry(gate_registry(**{"npm-verify": None}))

    assert list(replaced.registry.gate_ids) == ["plan-exists"]
    assert await snapshot(world) == before


# -- the signed routes ----------------------------------------------------------------------------


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers={**headers, "Content-Type": "application/json"})
        response = connection.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None
    finally:
        connection.close()


async def signal_over_http(
    world: World, definition: str, run_id: str, key: str, secret: str, delivery: str
) -> tuple[int, Any]:
    port = world.hub.server.webhook_port
    assert port is not None
    body = json.dumps({"status": "passed", "summary": "green"}).encode()
    headers = signatures.sign(secret, Kind.SIGNAL, int(time.time()), delivery, definition, run_id, key, body)
    return await asyncio.to_thread(_post, port, f"/v1/webhooks/{definition}/runs/{run_id}/signals/{key}", body, headers)


async def test_a_signal_for_betas_run_on_alphas_route_is_404(world: World) -> None:
    """Signed with alpha's signal secret for alpha's route, a signal naming beta's waiting run is
    404 WORKFLOW_NOT_FOUND, disclosing nothing of beta's; the run still waits; beta's own route
    refuses alpha's secret (401)."""
    waiting = world.beta.waiting
    before = await snapshot(world)

    status, body = await signal_over_http(world, "alpha-fix", waiting.id, "b-ci", SIGNAL_SECRET, "x-1")
    forged_status, forged = await signal_over_http(world, "bravo-fix", waiting.id, "b-ci", SIGNAL_SECRET, "x-2")

    assert (status, body["code"]) == (404, "ERROR_REASON_WORKFLOW_NOT_FOUND")
    text = json.dumps(body)
    named = {"alpha-fix", waiting.id, "b-ci", "x-1"}
    assert [secret for secret in world.beta.secrets() - named if secret in text] == []
    assert (forged_status, forged["code"]) == (401, "ERROR_REASON_WEBHOOK_SIGNATURE_INVALID")
    assert await snapshot(world) == before
