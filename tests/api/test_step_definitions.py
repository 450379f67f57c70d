"""Step workflows (``kxm.workflow.v1``) and gate registries over a real hub, on both backends.

One definition resource with a kind: a step workflow registers through RegisterWorkflowDefinition
(told apart by its ``schema``), loaded with its project's gate registry (RegisterGateRegistry) and
compiled; its plan, pinning each gate by hash, is the version its runs pin. The seeds' workflow
(plan → implement ×2 → ``npm run verify`` gate with a back-edge budget → dual-critic quorum →
terminal) is the document under test (``tests.workflows.step_document``).
"""

from __future__ import annotations

import asyncio
import copy
import http.client
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml

from kxm_grpc import HubError, Reason
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import DefinitionError
from kxm_grpc.domain.workflows.plans import compile_workflow, load_workflow, plan_hash
from kxm_grpc.domain.workflows.plans.gates import load_gate_registry
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.server.settings import Settings
from kxm_grpc.services.workflows import definitions
from kxm_grpc.v1 import WorkflowKind
from tests.conftest import Hub, Project
from tests.workflows import SECRET, define, gate_registry, step_document

STEPS = WorkflowKind.WORKFLOW_KIND_STEPS
STAGES = WorkflowKind.WORKFLOW_KIND_STAGES


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The shared test settings with the webhook listener on a free loopback port."""
    return replace(hub_settings, webhook_port=0)


def code(error: HubError) -> grpc.StatusCode | None:
    cause = error.__cause__
    return cause.code() if isinstance(cause, grpc.aio.AioRpcError) else None


async def refused(call: Any) -> HubError:
    with pytest.raises(HubError) as caught:
        await call
    return caught.value


def expected_plan(document: dict[str, Any], registry: dict[str, Any]) -> dict[str, Any]:
    """The plan the hub must pin: the domain's compile of the document with the registry."""
    gates = load_gate_registry(registry)
    return compile_workflow(load_workflow(document, gates=gates), gates=gates)


# -- registering and reading ------------------------------------------------------------------------


async def test_a_step_workflow_registers_with_its_plan_pinned_and_reads_back(hub: Hub, project: Project) -> None:
    """With alpha's registry holding ``npm-verify``, the seed registers: kind STEPS, its step ids,
    ``hash`` the plan hash, the plan embedding the gate with its hash and the registry's hash; Get
    and List return it (List beside a stage workflow, each with its kind); the same again is unchanged."""
    async with hub.admin(project="alpha") as admin:
        registry = (await admin.workflows.register_gate_registry(gate_registry(), project="alpha")).registry
        await admin.workflows.register_definition(define("fix"))
        response = await admin.workflows.register_definition(step_document())
        again = await admin.workflows.register_definition(step_document())
        got = (await admin.workflows.get_definition("deliver")).definition
        listed = (await admin.workflows.list_definitions()).definitions

    definition = response.definition
    plan = json.loads(definition.plan)
    assert (response.created, response.unchanged, again.unchanged) == (True, False, True)
    assert (definition.id, definition.project, definition.kind) == ("deliver", "alpha", STEPS)
    assert list(definition.step_ids) == ["plan", "implement-feature", "verify-gate", "dual-critic-review"]
    assert plan == expected_plan(step_document(), gate_registry())
    assert definition.hash == plan_hash(plan) and definition.hash.startswith("sha256:")
    assert plan["gates"]["npm-verify"]["hash"] == load_gate_registry(gate_registry()).gates["npm-verify"].hash
    assert plan["gateRegistryHash"] == definition.gate_registry_hash == registry.hash
    assert json.loads(definition.document) == step_document()
    assert definition.document == canonical_json(step_document())
    assert (list(definition.stage_ids), definition.source, definition.target) == ([], "", "")
    assert got == definition
    assert [(d.id, d.kind) for d in listed] == [("deliver", STEPS), ("fix", STAGES)]


async def test_a_yaml_step_workflow_registers_like_its_json(hub: Hub, project: Project) -> None:
    """The same workflow as YAML gives the same plan hash (told apart by schema, not by format)."""
    async with hub.admin() as admin:
        await admin.workflows.register_gate_registry(yaml.safe_dump(gate_registry()), project="alpha", format="yaml")
        as_yaml = await admin.workflows.register_definition(yaml.safe_dump(step_document()), format="yaml")
        as_json = await admin.workflows.register_definition(step_document())

    assert as_json.unchanged and as_json.definition.hash == as_yaml.definition.hash


async def test_a_gate_the_registry_lacks_is_refused_with_the_loaders_problem(hub: Hub, project: Project) -> None:
    """Without a registry, and with one lacking the gate, the seed is refused (WORKFLOW_DEFINITION_INVALID,
    ``step_gate_unknown`` on ``steps[2].gate``); nothing is stored. An inline command needs no registry."""
    async with hub.admin(project="alpha") as admin:
        without = await refused(admin.workflows.register_definition(step_document()))
        await admin.workflows.register_gate_registry(gate_registry(**{"npm-verify": None}), project="alpha")
        lacking = await refused(admin.workflows.register_definition(step_document()))
        missing = await refused(admin.workflows.get_definition("deliver"))
        inline = step_document("inline")
        del inline["steps"][2]["gate"]
        inline["steps"][2]["command"] = "npm run verify"
        registered = (await admin.workflows.register_definition(inline)).definition

    for error in (without, lacking):
        assert (code(error), error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, Reason.WORKFLOW_DEFINITION_INVALID)
        assert (error.metadata["field"], error.metadata["code"]) == ("steps[2].gate", "step_gate_unknown")
    assert missing.reason is Reason.WEBHOOK_NOT_FOUND
    assert "step:verify-gate" in json.loads(registered.plan)["gates"] and registered.gate_registry_hash == ""


async def test_every_problem_is_listed_and_a_missing_project_is_one(hub: Hub, project: Project) -> None:
    """A step workflow without ``project`` and with a bad step is refused listing both problems."""
    document = step_document()
    del document["project"]
    document["steps"][0]["kind"] = "workflow"
    async with hub.admin() as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        error = await refused(admin.workflows.register_definition(document))

    assert error.reason is Reason.WORKFLOW_DEFINITION_INVALID
    assert {"project_missing", "step_kind_reserved"} <= set(error.metadata["codes"].split(","))
    assert {v.field for v in error.field_violations} >= {"project", "steps[0].kind"}


async def test_validate_only_stores_nothing_for_either_document(hub: Hub, project: Project) -> None:
    """validate_only answers as a registration would (kind, plan hash, registry hash) and keeps nothing."""
    async with hub.admin(project="alpha") as admin:
        checked_registry = await admin.workflows.register_gate_registry(
            gate_registry(), project="alpha", validate_only=True
        )
        no_registry = await refused(admin.workflows.get_gate_registry())
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        checked = await admin.workflows.register_definition(step_document(), validate_only=True)
        no_definition = await refused(admin.workflows.get_definition("deliver"))
        listed = (await admin.workflows.list_definitions()).definitions

    assert checked_registry.created and checked_registry.registry.hash == load_gate_registry(gate_registry()).hash
    assert (code(no_registry), no_registry.reason) == (grpc.StatusCode.NOT_FOUND, Reason.GATE_REGISTRY_NOT_FOUND)
    assert checked.created and checked.definition.kind == STEPS
    assert checked.definition.hash == plan_hash(expected_plan(step_document(), gate_registry()))
    assert no_definition.reason is Reason.WEBHOOK_NOT_FOUND
    assert list(listed) == []


async def test_an_id_keeps_its_kind(hub: Hub, project: Project) -> None:
    """A stage workflow under a step workflow's id, and a step workflow under a stage workflow's, are
    refused on ``schema`` (what pinned to the id stays of its kind); a gate registry sent as a
    definition is refused on ``schema`` too."""
    async with hub.admin() as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        await admin.workflows.register_definition(step_document())
        await admin.workflows.register_definition(define("fix"))
        stage_over_step = await refused(admin.workflows.register_definition(define("deliver")))
        step_over_stage = await refused(admin.workflows.register_definition(step_document("fix")))
        registry_as_definition = await refused(admin.workflows.register_definition(gate_registry()))

    for error in (stage_over_step, step_over_stage, registry_as_definition):
        assert (code(error), error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, Reason.WORKFLOW_DEFINITION_INVALID)
        assert error.metadata["field"] == "schema"
    assert "RegisterGateRegistry" in registry_as_definition.message


# -- the gate registry --------------------------------------------------------------------------------


async def test_the_gate_registry_reads_back_to_the_project(hub: Hub, project: Project, make_project: Any) -> None:
    """GetGateRegistry gives a project token its project's registry (normalised document, hash, gate
    ids, who); a project without one is NOT_FOUND (GATE_REGISTRY_NOT_FOUND); replacing it replaces it."""
    beta = await make_project("beta")
    async with hub.admin() as admin, hub.admin(project="alpha") as operator:
        created = await operator.workflows.register_gate_registry(gate_registry())
        same = await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        changed = gate_registry(**{"npm-test": {"kind": "command", "argv": ["npm", "test"], "timeoutMs": 1000}})
        replaced = await admin.workflows.register_gate_registry(changed, project="alpha")
    from kxm_grpc.client import HubClient

    async with HubClient(hub.address, token=project.token) as alpha, HubClient(hub.address, token=beta.token) as b:
        read = (await alpha.workflows.get_gate_registry()).registry
        none = await refused(b.workflows.get_gate_registry())

    assert (created.created, same.unchanged, replaced.created, replaced.unchanged) == (True, True, False, False)
    assert read == replaced.registry
    assert (read.project, read.registered_by, list(read.gate_ids)) == (
        "alpha",
        "admin",
        ["npm-test", "npm-verify", "plan-exists"],
    )
    assert read.hash == load_gate_registry(changed).hash
    assert load_gate_registry(json.loads(read.document)) == load_gate_registry(changed)
    assert created.registry.registered_by == "admin"
    assert (code(none), none.reason, none.metadata) == (
        grpc.StatusCode.NOT_FOUND,
        Reason.GATE_REGISTRY_NOT_FOUND,
        {"project": "beta"},
    )


async def test_a_registry_names_its_project(hub: Hub, project: Project) -> None:
    """An operator naming no project must name one in the request; an operator naming alpha may not
    register beta's; a malformed registry lists its problems; nothing is stored."""
    async with hub.admin() as admin, hub.admin(project="alpha") as operator:
        unnamed = await refused(admin.workflows.register_gate_registry(gate_registry()))
        other = await refused(operator.workflows.register_gate_registry(gate_registry(), project="beta"))
        bad = await refused(
            admin.workflows.register_gate_registry(
                gate_registry(**{"npm-verify": {"kind": "command", "argv": ["rm", "-rf", "/"], "timeoutMs": 5}}),
                project="alpha",
            )
        )
        none = await refused(operator.workflows.get_gate_registry())

    for error in (unnamed, other):
        assert (code(error), error.reason, error.metadata["field"]) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            Reason.PROTOCOL_ERROR,
            "project",
        )
    assert (bad.reason, bad.metadata["field"], bad.metadata["code"]) == (
        Reason.WORKFLOW_DEFINITION_INVALID,
        "gates.npm-verify.argv",
        "gate_command_destructive",
    )
    assert none.reason is Reason.GATE_REGISTRY_NOT_FOUND


async def test_a_registry_that_would_break_a_registered_workflow_is_refused(hub: Hub, project: Project) -> None:
    """Dropping ``npm-verify``, or making it an artifacts-exist gate, while ``deliver`` and ``again``
    name it is FAILED_PRECONDITION (GATE_REGISTRY_IN_USE) naming both definitions and the gate; the
    registry stays as it was."""
    async with hub.admin() as admin:
        before = (await admin.workflows.register_gate_registry(gate_registry(), project="alpha")).registry
        await admin.workflows.register_definition(step_document())
        await admin.workflows.register_definition(step_document("again"))
        dropped = await refused(
            admin.workflows.register_gate_registry(gate_registry(**{"npm-verify": None}), project="alpha")
        )
        kind_changed = await refused(
            admin.workflows.register_gate_registry(
                gate_registry(**{"npm-verify": {"kind": "artifacts-exist", "paths": ["dist"]}}), project="alpha"
            )
        )
        checked = await refused(
            admin.workflows.register_gate_registry(
                gate_registry(**{"npm-verify": None}), project="alpha", validate_only=True
            )
        )
    async with hub.admin(project="alpha") as operator:
        after = (await operator.workflows.get_gate_registry()).registry

    for error in (dropped, kind_changed, checked):
        assert (code(error), error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, Reason.GATE_REGISTRY_IN_USE)
        assert (error.metadata["definitions"], error.metadata["gates"]) == ("again,deliver", "npm-verify")
        assert "step workflow again" in error.message and "step workflow deliver" in error.message
        assert {v.field for v in error.field_violations} == {"gates.npm-verify"}
    assert "drops it" in dropped.message
    assert "changes its kind from command to artifacts-exist" in kind_changed.message
    assert after == before


async def test_a_replaced_registry_changes_no_plan_until_the_workflow_is_registered_again(
    hub: Hub, project: Project
) -> None:
    """A registry whose ``npm-verify`` runs another argv is accepted; the registered plan still pins the
    old gate (its hash unchanged); registering the workflow again pins the new gate (a new plan hash);
    a step timeout narrower than the new gate's is refused as no longer suiting the step."""
    narrow = step_document("narrow")
    narrow["steps"][2]["timeoutMs"] = 600_000
    async with hub.admin(project="alpha") as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        first = (await admin.workflows.register_definition(step_document())).definition
        await admin.workflows.register_definition(narrow)
        changed = gate_registry(
            **{"npm-verify": {"kind": "command", "argv": ["npm", "run", "ci"], "timeoutMs": 600_000}}
        )
        replaced = (await admin.workflows.register_gate_registry(changed, project="alpha")).registry
        kept = (await admin.workflows.get_definition("deliver")).definition
        again = (await admin.workflows.register_definition(step_document())).definition
        wider = gate_registry(**{"npm-verify": {"kind": "command", "argv": ["npm", "run", "ci"], "timeoutMs": 900_000}})
        unsuited = await refused(admin.workflows.register_gate_registry(wider, project="alpha"))

    assert kept == first
    assert json.loads(kept.plan)["gates"]["npm-verify"]["checks"][0]["argv"] == ["npm", "run", "verify"]
    assert again.hash != first.hash and again.gate_registry_hash == replaced.hash
    assert json.loads(again.plan)["gates"]["npm-verify"]["checks"][0]["argv"] == ["npm", "run", "ci"]
    assert again.hash == plan_hash(expected_plan(step_document(), changed))
    assert (unsuited.reason, unsuited.metadata["definitions"]) == (Reason.GATE_REGISTRY_IN_USE, "narrow")
    assert "timeoutMs" in unsuited.message


# -- what runs stage workflows refuses step workflows --------------------------------------------------


async def test_a_step_workflow_starts_as_a_step_run_and_never_through_a_signed_start(
    hub: Hub, project: Project
) -> None:
    """StartWorkflowRun of a step workflow starts a step run (kind STEPS); a signed start webhook on
    its route is FAILED_PRECONDITION (WORKFLOW_KIND_MISMATCH, 409, before any signature is read): a
    step workflow has no start secret; a stage workflow's payload is refused for one."""
    async with hub.admin() as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        await admin.workflows.register_definition(step_document())
        started = await admin.workflows.start_run("deliver", delivery_id="d-1")
        runs = (await admin.workflows.list_runs()).runs
    port = hub.server.webhook_port
    assert port is not None
    body = json.dumps({"issue": {"key": "KXM-1"}}).encode()
    headers = signatures.sign(SECRET, Kind.START, int(time.time()), "d-2", "deliver", "", "", body)

    status, answer = await asyncio.to_thread(_post, port, "/v1/webhooks/deliver", body, headers)

    assert started.run.kind == STEPS and started.run.definition_id == "deliver"
    assert [run.id for run in runs] == [started.run.id]
    assert (status, answer["code"]) == (409, "ERROR_REASON_WORKFLOW_KIND_MISMATCH")
    assert "StartWorkflowRun" in answer["error"]


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers={**headers, "Content-Type": "application/json"})
        response = connection.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None
    finally:
        connection.close()


# -- --workflows DIR -----------------------------------------------------------------------------------


async def test_an_import_takes_registries_by_file_name_and_step_workflows_with_them(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    """``alpha.gates.yaml`` is alpha's registry; the step workflow beside it loads with it, the stage
    workflow as before, in one transaction; importing again changes nothing."""
    (tmp_path / "alpha.gates.yaml").write_text(yaml.safe_dump(gate_registry()))
    (tmp_path / "deliver.yaml").write_text(yaml.safe_dump(step_document()))
    (tmp_path / "fix.json").write_text(json.dumps(define("fix")))
    store, state = hub.server.store, hub.server.hub
    assert state is not None

    imported = definitions.import_directory(tmp_path, env={})
    first = await definitions.store_imported(store, imported, now=state.clock.now())
    second = await definitions.store_imported(store, imported, now=state.clock.now())
    async with hub.admin(project="alpha") as operator:
        registry = (await operator.workflows.get_gate_registry()).registry
        deliver = (await operator.workflows.get_definition("deliver")).definition

    assert sorted((r.stored.id, r.stored.kind.value, r.created) for r in first) == [
        ("deliver", "steps", True),
        ("fix", "stages", True),
    ]
    assert all(r.unchanged for r in second)
    assert (registry.registered_by, deliver.registered_by) == ("--workflows", "--workflows")
    assert deliver.gate_registry_hash == registry.hash


async def test_an_import_is_refused_whole_when_a_step_workflow_lacks_its_gate(hub: Hub, tmp_path: Path) -> None:
    """A step workflow whose project has no registry with its gate fails the import (the hub would not
    start) naming the file and problem; a registry file not named after a project is refused; nothing
    of the import is stored."""
    (tmp_path / "deliver.yaml").write_text(yaml.safe_dump(step_document()))
    (tmp_path / "fix.json").write_text(json.dumps(define("fix")))
    store, state = hub.server.store, hub.server.hub
    assert state is not None

    with pytest.raises(DefinitionError) as lacking:
        await definitions.store_imported(store, definitions.import_directory(tmp_path, env={}), now=state.clock.now())
    (tmp_path / "gates.yaml").write_text(yaml.safe_dump(gate_registry()))
    with pytest.raises(DefinitionError) as unnamed:
        definitions.import_directory(tmp_path, env={})

    assert [(p.definition, p.field) for p in lacking.value.problems] == [("deliver", "steps[2].gate")]
    assert "step_gate_unknown" in lacking.value.message and "deliver.yaml" in lacking.value.message
    assert "<project>.gates.yaml" in unnamed.value.message
    assert await store.read(lambda tx: tx.workflows.get_definition("fix")) is None


async def test_registrations_are_audited(hub: Hub, project: Project) -> None:
    """Registering a step workflow and a gate registry each writes one audit record (none when unchanged)."""
    async with hub.admin() as admin:
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        await admin.workflows.register_gate_registry(gate_registry(), project="alpha")
        registered = (await admin.workflows.register_definition(step_document())).definition
        await admin.workflows.register_definition(copy.deepcopy(step_document()))
        records = (await admin.admin.list_audit_records()).audit_records

    actions = [(r.action, r.target, dict(r.metadata)) for r in records if r.action.startswith("workflow.")]
    assert actions == [
        ("workflow.register", "workflow:deliver", {"hash": registered.hash, "project": "alpha", "kind": "steps"}),
        ("workflow.gates.register", "gates:alpha", {"hash": load_gate_registry(gate_registry()).hash}),
    ]


async def test_a_hub_started_with_a_workflows_directory_serves_its_step_workflows(
    hub_settings: Settings, tmp_path: Path
) -> None:
    """``--workflows DIR`` with ``alpha.gates.yaml`` and a step workflow: the hub starts serving both."""
    from kxm_grpc.client import HubClient
    from kxm_grpc.server.app import HubServer
    from tests.conftest import ADMIN_TOKEN

    directory = tmp_path / "workflows"
    directory.mkdir()
    (directory / "alpha.gates.yaml").write_text(yaml.safe_dump(gate_registry()))
    (directory / "deliver.json").write_text(json.dumps(step_document()))
    server = HubServer(replace(hub_settings, workflows=directory))
    await server.start()
    try:
        async with HubClient(server.address, token=ADMIN_TOKEN) as admin:
            await admin.admin.create_project("alpha")
        async with HubClient(server.address, token=ADMIN_TOKEN, project="alpha") as operator:
            definition = (await operator.workflows.get_definition("deliver")).definition
            registry = (await operator.workflows.get_gate_registry()).registry
    finally:
        await server.stop(0.2)

    assert (definition.kind, definition.registered_by, registry.registered_by) == (STEPS, "--workflows", "--workflows")
    assert definition.gate_registry_hash == registry.hash == load_gate_registry(gate_registry()).hash
