"""Workflow runs for tests: definitions registered and runs started through the services.

``define`` builds a definition document (the original's JSON shape) with one stage per id and
an optional peer policy on one of them; ``start_run`` registers it as the admin and starts a
run on a real hub's store, as StartWorkflowRun would. Tests of other areas (messages' workflow
context) need a live run without depending on the workflow client.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from kxm_grpc._gen.kxm.v1 import workflow_service_pb2_grpc
from kxm_grpc.client import HubClient
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.workflows.runs import Run
from kxm_grpc.services.workflows import definitions, runs
from tests.conftest import Hub

ADMIN = Caller(CredentialKind.ADMIN)
SECRET = "start-secret-0123456789"
SIGNAL_SECRET = "signal-secret-0123456789"
_deliveries = itertools.count(1)


def define(
    definition_id: str = "fix",
    *,
    project: str = "alpha",
    target: str = "coordinator",
    stages: tuple[str, ...] = ("review", "ship"),
    reviewers: tuple[str, ...] = (),
    requirement: str = "Unit Tests",
    min_producers: int = 1,
    review_stage: str = "review",
    **fields: Any,
) -> dict[str, Any]:
    """A definition document; with ``reviewers``, ``review_stage`` requires ``requirement`` from them."""
    spec: list[dict[str, Any]] = []
    for stage_id in stages:
        stage: dict[str, Any] = {"id": stage_id, "instructions": f"Do {stage_id}."}
        if reviewers and stage_id == review_stage:
            stage["requiredEvidence"] = [requirement]
            stage["evidencePolicies"] = {
                requirement: {"kind": "peer-reply", "minProducers": min_producers, "eligibleAgents": list(reviewers)}
            }
        spec.append(stage)
    return {
        "id": definition_id,
        "project": project,
        "target": target,
        "secret": SECRET,
        "signalSecret": SIGNAL_SECRET,
        "promptTemplate": "Fix {{issue.key}}",
        "stages": spec,
        **fields,
    }


async def register(hub: Hub, document: dict[str, Any], *, now: int | None = None) -> None:
    """Register ``document`` as the admin, through the services."""
    clock = hub.server.hub
    assert clock is not None
    await definitions.register(
        hub.server.store, ADMIN, json.dumps(document), format="json", validate_only=False, now=now or clock.now()
    )


async def start_run(hub: Hub, document: dict[str, Any], *, payload: Any = None) -> Run:
    """Register ``document`` and start a run of it (a fresh delivery id each time)."""
    state = hub.server.hub
    assert state is not None
    await register(hub, document)
    started = await runs.start(
        hub.server.store,
        Caller(CredentialKind.ADMIN, project=document["project"]),
        document["id"],
        delivery=f"delivery-{next(_deliveries)}",
        payload=payload if payload is not None else {"issue": {"key": "KXM-1"}},
        event="",
        limits=state.limits,
        now=state.now(),
    )
    assert started.run is not None
    return started.run


async def call(client: HubClient, name: str, request: Any) -> Any:
    """WorkflowService.<name> with a raw request, through the client's error mapping (the one every
    client method uses), for tests that aim requests the client would not build."""
    stub = client._stub(workflow_service_pb2_grpc.WorkflowServiceStub)
    return await client._call(getattr(stub, name), request)


def step_document(
    definition_id: str = "deliver", *, project: str = "alpha", gate: str = "npm-verify", **fields: Any
) -> dict[str, Any]:
    """The seeds' step workflow (``kxm.workflow.v1``): plan → implement (2 attempts) → the registry
    gate ``gate`` with a back-edge budget → dual-critic quorum review → terminal."""
    from tests.unit.test_step_definitions import seed

    document = {**seed(), "id": definition_id, "project": project, **fields}
    document["steps"][2]["gate"] = gate
    return document


def terminal(status: str) -> dict[str, str]:
    """A step's transition that ends the run with ``status`` (``completed``, ``failed``, ``cancelled``)."""
    return {"target": "$terminal", "terminalStatus": status}


def gate_registry(**gates: dict[str, Any]) -> dict[str, Any]:
    """A ``kxm.gate-registry.v1`` document: ``npm-verify`` (``npm run verify``) and ``plan-exists``
    unless ``gates`` are given (a gate given as None is left out)."""
    chosen: dict[str, Any] = {
        "npm-verify": {"kind": "command", "argv": ["npm", "run", "verify"], "timeoutMs": 600_000},
        "plan-exists": {"kind": "artifacts-exist", "paths": ["docs/plan.md"]},
    }
    chosen.update(gates)
    return {"schema": "kxm.gate-registry.v1", "gates": {k: v for k, v in chosen.items() if v is not None}}
