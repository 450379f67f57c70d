"""Contract: step workflows beside stage workflows (``workflow_definitions.kind``) and each
project's gate registry (``gate_registries``), at schema v13."""

from __future__ import annotations

import dataclasses

from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.store import Store
from kxm_grpc.store.protocols.gates import StoredGateRegistry
from kxm_grpc.store.protocols.workflows import StoredDefinition
from tests.store.contract.conftest import StoreFactory

PLAN_HASH = "sha256:" + "a" * 64


def _step(definition_id: str, *, project: str = "p", plan_hash: str = PLAN_HASH, time: int = 1) -> StoredDefinition:
    """A step workflow: its source as ``document``, its compiled plan as the pinned version."""
    source = f'{{"id":"{definition_id}","project":"{project}","schema":"kxm.workflow.v1"}}'
    plan = f'{{"schema":"kxm.compiled-workflow.v1","workflowId":"{definition_id}"}}'
    return StoredDefinition(definition_id, project, plan_hash, source, plan, 1, time, "ops", kind=DefinitionKind.STEPS)


def _stage(definition_id: str, *, project: str = "p") -> StoredDefinition:
    return StoredDefinition(definition_id, project, "h-" + definition_id, "{}", "{}", 1, 1, "ops")


def _registry(project: str = "p", *, hash_: str = "sha256:" + "1" * 64, time: int = 5) -> StoredGateRegistry:
    return StoredGateRegistry(project, hash_, '{"gates":{},"schema":"kxm.gate-registry.v1"}', time, "ops")


async def test_a_step_workflow_reads_back_with_its_kind_and_its_plan_as_the_pinned_version(store: Store) -> None:
    """put/get keep the kind; the plan is the version of the plan hash (what a step run pins); a
    stage definition written without a kind reads back as STAGES."""
    # Prepare
    step, stage = _step("ship"), _stage("fix")

    # Execute
    await store.write(lambda tx: [tx.workflows.put_definition(step), tx.workflows.put_definition(stage)])
    read = await store.read(
        lambda tx: (
            tx.workflows.get_definition("ship"),
            tx.workflows.get_definition("fix"),
            tx.workflows.definition_version(PLAN_HASH),
        )
    )

    # Assert
    assert read == (step, stage, step.pinned_document)
    assert read[0] is not None and read[0].kind is DefinitionKind.STEPS
    assert read[1] is not None and read[1].kind is DefinitionKind.STAGES


async def test_definitions_are_listed_by_kind_per_project(store: Store) -> None:
    """list_definitions with ``kind`` returns only that kind (of the project, or of all), still by id and paged."""
    # Prepare
    rows = [_step("s-b"), _stage("a"), _step("s-a"), _step("s-q", project="q"), _stage("c", project="q")]
    await store.write(lambda tx: [tx.workflows.put_definition(row) for row in rows])

    # Execute
    steps_of_p = await store.read(lambda tx: tx.workflows.list_definitions("p", None, 10, kind=DefinitionKind.STEPS))
    stages = await store.read(lambda tx: tx.workflows.list_definitions(None, None, 10, kind=DefinitionKind.STAGES))
    steps_after = await store.read(lambda tx: tx.workflows.list_definitions(None, "s-a", 1, kind=DefinitionKind.STEPS))
    both = await store.read(lambda tx: tx.workflows.list_definitions("p", None, 10))

    # Assert
    assert [d.id for d in steps_of_p] == ["s-a", "s-b"]
    assert [d.id for d in stages] == ["a", "c"]
    assert [d.id for d in steps_after] == ["s-b"]
    assert [d.id for d in both] == ["a", "s-a", "s-b"]


async def test_a_new_plan_replaces_the_unpinned_old_one(store: Store) -> None:
    """Re-registering with another plan hash keeps only the current plan when no run pins the old one."""
    # Prepare
    old, new = _step("ship"), _step("ship", plan_hash="sha256:" + "b" * 64, time=2)

    # Execute
    await store.write(lambda tx: tx.workflows.put_definition(old))
    await store.write(lambda tx: tx.workflows.put_definition(new))
    versions = await store.read(
        lambda tx: (tx.workflows.definition_version(old.hash), tx.workflows.definition_version(new.hash))
    )

    # Assert
    assert versions == (None, new.pinned_document)
    assert await store.read(lambda tx: tx.workflows.get_definition("ship")) == new


async def test_a_gate_registry_reads_back_per_project_and_a_put_replaces_it(store: Store) -> None:
    """get is None until a put; a put replaces the project's registry and leaves other projects' alone."""
    # Prepare
    first, other = _registry(), _registry("q", hash_="sha256:" + "3" * 64)
    second = dataclasses.replace(first, hash="sha256:" + "2" * 64, document='{"v":2}', update_time=9, registered_by="x")

    # Execute
    before = await store.read(lambda tx: tx.gate_registries.get("p"))
    await store.write(lambda tx: [tx.gate_registries.put(first), tx.gate_registries.put(other)])
    after_first = await store.read(lambda tx: tx.gate_registries.get("p"))
    await store.write(lambda tx: tx.gate_registries.put(second))

    # Assert
    assert before is None
    assert after_first == first
    assert await store.read(lambda tx: tx.gate_registries.get("p")) == second
    assert await store.read(lambda tx: tx.gate_registries.get("q")) == other


async def test_step_workflows_and_gate_registries_survive_a_restart(store_factory: StoreFactory) -> None:
    """Both read back after the store is reopened."""
    # Prepare
    store = await store_factory.open()
    await store.write(lambda tx: [tx.workflows.put_definition(_step("ship")), tx.gate_registries.put(_registry())])

    # Execute
    store = await store_factory.reopen(store)

    # Assert
    assert await store.read(lambda tx: tx.workflows.get_definition("ship")) == _step("ship")
    assert await store.read(lambda tx: tx.gate_registries.get("p")) == _registry()
