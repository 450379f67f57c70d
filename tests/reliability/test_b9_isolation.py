"""B9: projects never see each other: every RPC × every credential × another project's ids, all denied.

Two projects, A and B, hold the same kinds of objects (agents, messages in every state, leases,
runtimes, sync runs, page tokens, workflow definitions and runs: a review requested under a run's
context and replied to, a passing checkpoint citing it, a wait, an escalation, their notifications,
an ended run, journals recorded, promoted and retrospected through the journal RPCs), each full of
marker strings unique to it, so every table has rows of both. The hub serves two surfaces, and B9
calls both. Every RPC the hub serves (server reflection; an RPC without a case here fails the run)
is called:

1. with every bad credential (none, malformed, revoked, the other project's agent key, another
   agent's key of the same project, a valid credential naming the other project) and a request
   naming A's objects: UNAUTHENTICATED, or PERMISSION_DENIED for a valid credential naming another
   project; never anything else;
2. with each of B's credentials (project token, agent, runtime key, B's operator naming B) and a
   request naming A's objects, and the other way round, and with random ids: the answer of the
   RPC's row in ``CASES`` (NOT_FOUND or PERMISSION_DENIED, picked per RPC; see docs/security.md,
   generated from ``CASES``), and another project's id is answered exactly as a random one (same
   code, same reason);
3. every agent's Subscribe stream is read to its head;
4. every route of the public webhook listener (``WEBHOOK_PROBES``; a route without a probe fails
   the run) gets requests signed with one project's secrets (or unsigned) naming the other's
   definition or run, and random ones: 401 or 404, never accepted;
5. the RPCs that take no object ids, or whose names live in the caller's own namespace, succeed
   for the caller's project only.

Every call: no marker of the other project (its ids, names, contents, hashes, secrets) in anything
the caller received (response, stream, status message, details, metadata, HTTP headers and body)
unless the caller put it in its own request; a refused call leaves the database byte for byte as it
was (``tables.digest``); a call that succeeds leaves the other project's rows as they were, and
B's rows, read when B made its last call, are the same after every call of A's that follows. The hub
runs on a manual clock, so nothing a refused call did not do can change the database meanwhile (no
presence renewal, no expiry, no wait deadline); the workflow notifications the worlds queued are
delivered before the matrix starts.

Plus a mixed run (two projects × 20 agents with the same names, deliveries counted on every stream:
none crosses projects) and a static check that every secret comparison of kxm_grpc is constant time.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import hashlib
import http.client
import http.server
import itertools
import json
import re
import secrets
import sqlite3
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2, struct_pb2
from google.protobuf.message import Message as ProtoMessage

from kxm_grpc._gen.kxm.v1 import (
    admin_service_pb2,
    agent_service_pb2,
    context_service_pb2,
    envelopes_pb2,
    lease_service_pb2,
    message_service_pb2,
    ops_service_pb2,
    runtime_service_pb2,
    types_pb2,
    workflow_journal_pb2,
    workflow_service_pb2,
    workflow_steps_pb2,
    workflow_types_pb2,
)
from kxm_grpc.client import HubClient
from kxm_grpc.client.context import context_item
from kxm_grpc.domain.caller import CredentialKind
from kxm_grpc.domain.clock import MICROS, ManualClock
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.errors import Reason
from kxm_grpc.server import webhooks
from kxm_grpc.server.methods import RPCS, RpcFacts
from kxm_grpc.server.settings import Settings
from kxm_grpc.services.auth import Access, admitted_kinds
from kxm_grpc.services.workflows import step_engine
from kxm_grpc.services.workflows.runs import WAIT_TIMER
from kxm_grpc.store import tables
from kxm_grpc.store.sql.connection import Connection
from tests.api.test_runtimes import sync_event
from tests.conftest import ADMIN_TOKEN, Hub, sqlite_only
from tests.reliability import http_surface, rpc_surface
from tests.reliability.battery import REPO, Battery, tier
from tests.reliability.rpc_surface import Metadata, Outcome
from tests.workflows import gate_registry, step_document

pytestmark = pytest.mark.timeout(900)

SECURITY_PAGE = REPO / "docs" / "security.md"
TABLE_BEGIN = "<!-- isolation: generated from tests/reliability/test_b9_isolation.py CASES; do not edit -->"
TABLE_END = "<!-- /isolation -->"

CALL_TIMEOUT = 10.0

# -- the two projects' objects ---------------------------------------------------------------------


@dataclass
class World:
    """One project's objects, credentials and markers (or random stand-ins for all of them)."""

    project: str
    tag: str
    token: str = ""
    old_token: str = ""
    agents: dict[str, tuple[str, str]] = field(default_factory=dict)
    """role -> (agent id, key): sender, recipient, moved (registered twice) and gone (unregistered)."""
    moved_old_key: str = ""
    names: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    """state -> message id: queued, second, replied, acked, cancelled (sender to recipient), back (to the sender)."""
    idempotency_key: str = ""
    correlation_id: str = ""
    lease: str = ""
    lease_token: int = 0
    runtime_id: str = ""
    runtime_key: str = ""
    old_runtime_key: str = ""
    sync_project: str = ""
    run_id: str = ""
    operator: str = ""
    operator_token: str = ""
    revoked_operator_token: str = ""
    pages: dict[str, str] = field(default_factory=dict)
    """list RPC -> a page token issued to this project."""
    session: str = ""
    """The id of one of the session tokens minted for the gone agent (no caller acts as it)."""
    workflow: str = ""
    """The project's workflow definition: review and build (each a peer requirement of the recipient), then ship."""
    spare_workflow: str = ""
    """A second definition (no runs), so that ListWorkflowDefinitions has a second page."""
    step_workflow: str = ""
    """The project's step workflow (``kxm.workflow.v1``): the seeds' shape, gated by ``gate``."""
    gate: str = ""
    """The command gate of the project's gate registry that its step workflow names."""
    stages: dict[str, str] = field(default_factory=dict)
    """role (review, build, ship) -> stage id."""
    requirement: str = ""
    """The peer requirement's key as the definition declares it."""
    signal_key: str = ""
    start_secret: str = ""
    signal_secret: str = ""
    notify_secret: str = ""
    notify_url: str = ""
    step_run: str = ""
    """A run of the step workflow, at its plan step, assigned to the recipient."""
    assignment: str = ""
    """That assignment's id."""
    runs: dict[str, str] = field(default_factory=dict)
    """role -> run id: main (review passed, at build with a replied review request not yet cited),
    fresh (at review, nothing done), waiting (for ``signal_key`` at review), escalated (at review)
    and ended (cancelled, with its retrospective)."""
    deliveries: dict[str, str] = field(default_factory=dict)
    """run role -> the delivery id that started it."""
    reviews: dict[str, str] = field(default_factory=dict)
    """stage role (review, build) -> the id of the main run's review request, replied to."""
    journal: dict[str, str] = field(default_factory=dict)
    """role -> journal entry id, recorded by the coordinator: plan, skill (a skill candidate, approved
    by the operator) and hypothesis (undecided) on the main run, lesson on the ended run."""
    state: dict[str, str] = field(default_factory=dict)
    """role -> context state item id: proposal (undecided) and promoted (the current item an
    operator minted from another proposal), both of the key ``state_key``."""
    state_key: str = ""
    skills: dict[str, str] = field(default_factory=dict)
    """role -> skill id: candidate (created by the sender, undecided) and promoted (evaluated and
    promoted by the operator)."""
    context: dict[str, str] = field(default_factory=dict)
    memory_candidate: str = ""
    """role -> context item id: knowledge (a note naming the tag) and derived (evidence derived from it)."""
    markers: set[str] = field(default_factory=set)
    """Strings only this project's data contains: found in another project's answer, they are a leak."""
    clients: list[HubClient] = field(default_factory=list)

    def metadata(self, kind: str) -> Metadata:
        """This project's valid credential of ``kind`` (token, agent, runtime, or its operator naming it)."""
        if kind == "token":
            return (("authorization", f"Bearer {self.token}"),)
        if kind == "agent":
            agent_id, key = self.agents["sender"]
            return (("authorization", f"Bearer {self.token}"), ("x-kxm-agent-id", agent_id), ("x-kxm-agent-key", key))
        if kind == "operator":
            return (("authorization", f"Bearer {self.operator_token}"), ("x-kxm-project", self.project))
        assert kind == "runtime"
        return (("authorization", f"Bearer {self.runtime_key}"),)


KINDS = {
    "token": CredentialKind.PROJECT,
    "agent": CredentialKind.AGENT,
    "runtime": CredentialKind.RUNTIME,
    "operator": CredentialKind.OPERATOR,
}
"""The credentials each project holds. An operator is of no project: it acts in the one it names
(``x-kxm-project``), and is one of a project's credentials on every RPC that acts in a project (not
on the admin's, where an operator acts in none: ``RpcCase.operator``)."""


def random_world(rng: Any) -> World:
    """Ids and names in the right shapes that name nothing on the hub."""

    def hex32() -> str:
        return f"{rng.getrandbits(128):032x}"

    tag = "r" + hex32()[:12]
    world = World(project=f"proj-{tag}", tag=tag)
    world.agents = {role: (f"agt_{hex32()}", f"kxm_agent_{hex32()}") for role in ("sender", "recipient", "moved")}
    world.names = {role: f"{role}-{tag}" for role in world.agents}
    world.messages = {
        state: f"msg_{hex32()}" for state in ("queued", "second", "back", "replied", "acked", "cancelled")
    }
    world.idempotency_key, world.correlation_id = f"idem-{tag}", f"corr-{tag}"
    world.lease, world.lease_token = f"lease-{tag}", 1 + rng.randrange(1000)
    world.runtime_id, world.sync_project, world.run_id = f"rtm_{tag}", f"prj_{tag}", f"run_{tag}"
    world.operator = f"op-{tag}"
    for page in (
        "ListAgents",
        "ListLeases",
        "ListRuntimes",
        "ListInbox",
        "ListProjects",
        "ListWorkflowDefinitions",
        "ListWorkflowRuns",
        "ListJournal",
        "ListSessionTokens",
        "ListSkills",
    ):
        world.pages[page] = secrets.token_urlsafe(24)
    world.session = f"ses_{hex32()}"
    _workflow_names(world)
    world.start_secret, world.signal_secret = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    world.runs = {role: f"run_{hex32()}" for role in RUN_ROLES}
    world.step_run, world.assignment = f"run_{hex32()}", f"asg_{hex32()}"
    world.deliveries = {role: f"dlv-{role}-{tag}" for role in RUN_ROLES}
    world.reviews = {role: f"msg_{hex32()}" for role in ("review", "build")}
    world.journal = {role: f"journal_{hex32()}" for role in JOURNAL_ROLES}
    world.state = {role: f"ctx_{hex32()}" for role in ("proposal", "promoted")}
    world.state_key = f"deploy-{tag}"
    world.skills = {role: f"skill-{role}.{hex32()[:12]}" for role in ("candidate", "promoted")}
    world.context = _context_ids(tag)
    world.memory_candidate = f"cand_project_{hex32()[:12]}"
    return world


def _context_ids(tag: str) -> dict[str, str]:
    return {"knowledge": f"k_{tag}", "derived": f"e_{tag}"}


async def _build_context(world: World, token: HubClient) -> set[str]:
    """Context items of the project (its token's, origin peer): a knowledge note naming the tag and
    an evidence item derived from it. No ``_shared`` item: every project sees those by design."""
    world.context = _context_ids(world.tag)
    summaries = (f"context note {world.tag}", f"context evidence {world.tag}")
    await token.context.put_items(
        [
            context_item(world.context["knowledge"], "knowledge", summaries[0], source_ref=f"ctx-ref-{world.tag}"),
            context_item(world.context["derived"], "evidence", summaries[1], derived_from=world.context["knowledge"]),
        ]
    )
    return {*world.context.values(), *summaries, f"ctx-ref-{world.tag}"}


def memory_file(tag: str) -> tuple[str, str]:
    """A project-scope memory record naming the tag (no operator scope: ``_shared`` is everyone's)."""
    text = (
        f"---\nschema: kxm.memory.v1\nid: mem-{tag}\nscope: project\nkind: convention\n"
        f"summary: memory note {tag}\nprovenance:\n  sourceType: git\nauthority: instruction\n"
        "confidence: verified\nlifecycle: active\n---\n"
    )
    return f"memory-{tag}.md", text


async def _build_memory(world: World, operator: HubClient) -> set[str]:
    """The project's memory: one record, synced by the admin naming the project."""
    path, text = memory_file(world.tag)
    await operator.context.sync_memory([(path, text)])
    noted = await operator.context.propose_memory(f"memory candidate {world.tag}")
    world.memory_candidate = noted.candidate.id
    return {f"mem-{world.tag}", f"memory note {world.tag}", path, noted.candidate.id, f"memory candidate {world.tag}"}


RUN_ROLES = ("main", "fresh", "waiting", "escalated", "ended")
JOURNAL_ROLES = ("plan", "skill", "hypothesis", "lesson")


def _workflow_names(world: World) -> None:
    tag = world.tag
    world.workflow, world.spare_workflow = f"wf-{tag}", f"wf2-{tag}"
    world.step_workflow, world.gate = f"steps-{tag}", f"verify-{tag}"
    world.stages = {role: f"{role}-{tag}" for role in ("review", "build", "ship")}
    world.requirement, world.signal_key = f"Tests {tag}", f"ci-{tag}"


def gate_document(world: World) -> dict[str, Any]:
    """``world``'s gate registry: its command gate ``gate`` (its argv carries the tag), whose
    verdict is a functional evaluation (so runs of its step workflow may be started for a skill)."""
    gate = {"kind": "command", "argv": ["make", f"make-{world.tag}"], "timeoutMs": 60_000, "evaluates": "functional"}
    return gate_registry(**{world.gate: gate})


def step_workflow_document(world: World) -> dict[str, Any]:
    """``world``'s step workflow: the seeds' shape in ``world``'s project, gated by its ``gate``, its
    plan step assigned to the recipient."""
    document = step_document(
        world.step_workflow, project=world.project, gate=world.gate, description=f"steps-{world.tag}"
    )
    document["steps"][0]["agent"] = world.names["recipient"]
    return document


def workflow_document(world: World, *, spare: bool = False, prompt: str = "prompt") -> dict[str, Any]:
    """``world``'s workflow definition (or its spare): coordinated by its sender; review and build
    each need a reply of its recipient (a peer policy), then ship; every text carries the tag."""
    tag = world.tag
    policy = {"kind": "peer-reply", "minProducers": 1, "eligibleAgents": [world.names["recipient"]]}
    stages: list[dict[str, Any]] = []
    for role, stage_id in world.stages.items():
        stage: dict[str, Any] = {"id": stage_id, "label": f"label-{role}-{tag}", "instructions": f"do-{role}-{tag}"}
        if role != "ship":
            stage["requiredEvidence"] = [world.requirement]
            stage["evidencePolicies"] = {world.requirement: policy}
        stages.append(stage)
    document: dict[str, Any] = {
        "id": world.spare_workflow if spare else world.workflow,
        "project": world.project,
        "target": world.names["sender"],
        "secret": world.start_secret,
        "signalSecret": world.signal_secret,
        "promptTemplate": f"{prompt}-{tag} {{{{issue.key}}}}",
        "stages": stages,
    }
    if world.notify_url and not spare:
        document["notify"] = {"url": world.notify_url, "secret": world.notify_secret}
    return document


def _context(world: World) -> types_pb2.WorkflowMessageContext:
    """The workflow context of a review request for ``world``'s main run at its build stage (first attempt)."""
    return types_pb2.WorkflowMessageContext(
        run_id=world.runs["main"], stage_id=world.stages["build"], requirement_key=world.requirement.lower(), attempt=1
    )


async def build_world(hub: Hub, project: str, tag: str, notify: str) -> World:
    """Create ``project`` with one object of every kind, every message state and the credentials B9
    needs; its workflow notifications go to ``notify`` (a URL prefix)."""
    world = World(project=project, tag=tag)
    admin = hub.admin()
    operator_admin = HubClient(hub.address, token=ADMIN_TOKEN, project=project)
    world.clients += [admin, operator_admin]
    world.old_token = (await admin.admin.create_project(project)).project_token
    world.token = (await admin.admin.rotate_project_token(project)).project_token

    async def agent(role: str) -> HubClient:
        client = HubClient(hub.address, token=world.token)
        world.clients.append(client)
        name = f"{role}-{tag}"
        registered = await client.agents.register(name, purpose=f"purpose-{tag}", model=f"model-{tag}", host=f"h-{tag}")
        world.agents[role] = (registered.agent.id, registered.agent_key)
        world.names[role] = name
        return client

    sender, recipient, moved, gone = [await agent(role) for role in ("sender", "recipient", "moved", "gone")]
    await gone.agents.unregister()
    world.moved_old_key = world.agents["moved"][1]
    again = await moved.agents.register(world.names["moved"], previous_key=world.moved_old_key)
    world.agents["moved"] = (again.agent.id, again.agent_key)

    recipient_id = world.agents["recipient"][0]
    world.idempotency_key, world.correlation_id = f"idem-{tag}", f"corr-{tag}"
    sent = {}
    for state in ("queued", "second", "replied", "acked", "cancelled"):
        sent[state] = (
            await sender.messages.send(
                recipient_id,
                f"content-{state}-{tag}",
                idempotency_key=world.idempotency_key if state == "queued" else f"idem-{state}-{tag}",
                correlation_id=world.correlation_id,
                ttl=3600,
            )
        ).message.id
    back = await recipient.messages.send(world.agents["sender"][0], f"content-back-{tag}", ttl=3600)
    sent["back"] = back.message.id  # the sender's own inbound message
    await recipient.messages.reply(sent["replied"], f"reply-{tag}")
    await recipient.messages.ack([sent["acked"]])
    await sender.messages.cancel(sent["cancelled"])
    world.messages = sent

    world.lease = f"lease-{tag}"
    world.lease_token = (await sender.leases.acquire(world.lease, ttl=600)).lease.fencing_token
    await sender.leases.acquire(f"lease2-{tag}", ttl=600)

    world.runtime_id = f"rtm_{tag}1"
    registered = await world.clients[2].runtimes.register(world.runtime_id, host=f"h-{tag}")  # sender's client
    world.runtime_key = registered.runtime_key
    second_runtime = f"rtm_{tag}2"
    world.old_runtime_key = (await world.clients[2].runtimes.register(second_runtime)).runtime_key
    await operator_admin.runtimes.register(second_runtime)  # an operator re-registers it: the old key is revoked
    runtime = HubClient(hub.address, token=world.runtime_key)
    world.clients.append(runtime)
    await runtime.runtimes.heartbeat(host=f"h2-{tag}")
    world.sync_project, world.run_id = f"prj_{tag}", f"run_{tag}"
    pushed = await runtime.runtimes.push_sync_events(
        [sync_event(n, runtime=world.runtime_id, project_id=world.sync_project, run_id=world.run_id) for n in (1, 2)]
    )
    hashes = {result.content_hash for result in pushed.results}

    world.operator = f"op-{tag}"
    world.operator_token = (await admin.admin.create_operator(world.operator)).operator_token
    world.revoked_operator_token = (await admin.admin.create_operator(f"gone-op-{tag}")).operator_token
    await admin.admin.revoke_operator(f"gone-op-{tag}")

    # Session tokens for the gone agent (whose name no caller uses), two so that the list has pages.
    minted = [
        await operator_admin.admin.mint_session_token(world.agents["gone"][0], allow=[f"kxm_{n}_{tag[-4:]}"])
        for n in ("a", "b")
    ]
    world.session = minted[0].session.session_id
    world.pages["ListSessionTokens"] = (await operator_admin.admin.list_session_tokens(page_size=1)).next_page_token
    assert world.pages["ListSessionTokens"]

    workflow_markers = await _build_workflows(hub, world, sender, recipient, notify)
    workflow_markers |= await _build_state(world, sender, operator_admin)
    workflow_markers |= await _build_skills(world, sender, operator_admin)

    world.pages["ListAgents"] = (await sender.agents.list(page_size=1)).next_page_token
    world.pages["ListLeases"] = (await sender.leases.list(page_size=1)).next_page_token
    world.pages["ListRuntimes"] = (await sender.runtimes.list(page_size=2 - 1)).next_page_token
    world.pages["ListInbox"] = (await sender.messages.list_inbox(page_size=1)).next_page_token  # the agent kind's
    world.pages["ListProjects"] = ""  # an operator's (projects are listed by operators only)
    token = HubClient(hub.address, token=world.token)  # the project token's pages: any kind of caller may list
    world.clients.append(token)
    world.pages["ListWorkflowDefinitions"] = (await token.workflows.list_definitions(page_size=1)).next_page_token
    world.pages["ListWorkflowRuns"] = (await token.workflows.list_runs(page_size=1)).next_page_token
    assert all(world.pages[page] for page in ("ListAgents", "ListLeases", "ListRuntimes", "ListInbox"))
    assert world.pages["ListWorkflowDefinitions"] and world.pages["ListWorkflowRuns"]
    context_markers = await _build_context(world, token)
    context_markers |= await _build_memory(world, operator_admin)

    world.markers = {
        project,
        *(agent_id for agent_id, _ in world.agents.values()),
        world.agents["gone"][0],
        *world.names.values(),
        f"purpose-{tag}",
        f"model-{tag}",
        f"h-{tag}",
        f"h2-{tag}",
        *world.messages.values(),
        *(f"content-{state}-{tag}" for state in world.messages),
        f"reply-{tag}",
        world.idempotency_key,
        world.correlation_id,
        world.lease,
        f"lease2-{tag}",
        world.runtime_id,
        second_runtime,
        world.sync_project,
        world.run_id,
        *hashes,
        # Secrets: never in anything but the answer that issued them.
        world.token,
        world.old_token,
        world.runtime_key,
        world.old_runtime_key,
        world.moved_old_key,
        *(key for _, key in world.agents.values()),
        world.operator_token,
        world.revoked_operator_token,
        *(m.session.session_id for m in minted),
        *(m.session_token for m in minted),
        *workflow_markers,
        *context_markers,
    }
    return world


async def _build_workflows(hub: Hub, world: World, sender: HubClient, recipient: HubClient, notify: str) -> set[str]:
    """The project's workflow objects, so that every workflow table has rows of it: its definitions
    (registered by its operator naming it), five runs started through StartWorkflowRun (``RUN_ROLES``),
    a review request sent under the main run's context and replied to, a passing checkpoint citing
    it, a second request (build) replied to, a wait and an escalation (each notified), and the
    journals of the main run and of the ended one (``_build_journal``, which ends it). Returns their
    markers."""
    tag = world.tag
    _workflow_names(world)
    world.start_secret, world.signal_secret, world.notify_secret = (
        f"{kind}-secret-{tag}-{secrets.token_hex(8)}" for kind in ("start", "signal", "notify")
    )
    world.notify_url = f"{notify}/notify-{tag}"
    operator = HubClient(hub.address, token=world.operator_token, project=world.project)
    world.clients.append(operator)
    registered = [
        (await operator.workflows.register_definition(workflow_document(world, spare=spare))).definition
        for spare in (False, True)
    ]
    registry = (await operator.workflows.register_gate_registry(gate_document(world))).registry
    registered.append((await operator.workflows.register_definition(step_workflow_document(world))).definition)
    step_run = (await operator.workflows.start_run(world.step_workflow, delivery_id=f"steps-{tag}")).run
    world.step_run = step_run.id
    (step_assignment,) = step_run.steps.assignments
    world.assignment = step_assignment.id
    runs = {}
    for role in RUN_ROLES:
        world.deliveries[role] = f"dlv-{role}-{tag}"
        started = await operator.workflows.start_run(
            world.workflow, delivery_id=world.deliveries[role], payload={"issue": {"key": f"KEY-{tag}"}}
        )
        runs[role] = started.run
    world.runs = {role: run.id for role, run in runs.items()}
    review, build = world.stages["review"], world.stages["build"]
    main = world.runs["main"]
    (world.reviews["review"],) = await sender.workflows.request_review(
        runs["main"], review, world.requirement, world.names["recipient"], f"review-request-{tag}"
    )
    await recipient.messages.reply(world.reviews["review"], f"review-reply-{tag}")
    passed = await sender.workflows.checkpoint(
        main,
        review,
        "passed",
        summary=f"checkpoint-{tag}",
        evidence={f"note-{tag}": f"evidence-{tag}"},
        evidence_refs={world.requirement: [world.reviews["review"]]},
        request_id=f"cp-{tag}",
    )
    assert passed.run.current_stage_id == build, passed
    (world.reviews["build"],) = await sender.workflows.request_review(
        passed.run, build, world.requirement, world.names["recipient"], f"build-request-{tag}"
    )
    await recipient.messages.reply(world.reviews["build"], f"build-reply-{tag}")
    await sender.workflows.wait(
        world.runs["waiting"], review, world.signal_key, ttl=3600, summary=f"wait-{tag}", request_id=f"wait-{tag}"
    )
    await sender.workflows.escalate_stage(world.runs["escalated"], review, f"escalation-{tag}")
    final = [(await operator.workflows.get_run(run_id)).run for run_id in world.runs.values()]
    journal_markers = await _build_journal(world, sender, operator)
    return {
        *journal_markers,
        world.workflow,
        world.spare_workflow,
        world.step_workflow,
        world.gate,
        registry.hash,
        f"make-{tag}",
        f"steps-{tag}",
        *world.stages.values(),
        world.requirement,
        world.requirement.lower(),
        world.signal_key,
        world.start_secret,
        world.signal_secret,
        world.notify_secret,
        f"notify-{tag}",
        *(definition.hash for definition in registered),
        f"prompt-{tag}",
        f"again-{tag}",  # the prompt of the version the caller's scoped RegisterWorkflowDefinition writes
        *(f"{part}-{role}-{tag}" for part in ("label", "do") for role in world.stages),
        *world.runs.values(),
        world.step_run,
        world.assignment,
        *(run.prompt_message_id for run in final),
        *(run.payload_sha256 for run in final),
        f"KEY-{tag}",
        *world.deliveries.values(),
        *world.reviews.values(),
        *(f"{role}-{part}-{tag}" for role in ("review", "build") for part in ("request", "reply")),
        f"checkpoint-{tag}",
        f"note-{tag}",
        f"evidence-{tag}",
        f"cp-{tag}",
        f"wait-{tag}",
        f"escalation-{tag}",
    }


async def _build_journal(world: World, sender: HubClient, operator: HubClient) -> set[str]:
    """The journals, written through the RPCs as their callers write them (so every record is sealed
    with the hub's own keys, and VerifyJournal finds them intact): the coordinator records a plan, a
    skill candidate and a hypothesis relating to the plan on the main run, and a lesson on the ended
    run, which the operator then cancels (its retrospective is written then); the operator approves
    the skill candidate. Returns their markers: their texts, and the id and chain of every record
    of both journals (the hub's own entries too)."""
    tag, main, ended = world.tag, world.runs["main"], world.runs["ended"]
    journal = sender.workflows.journal

    async def entry(role: str, run_id: str, category: str, **fields: Any) -> None:
        recorded = await journal.record(
            run_id, category, f"journal-{role}-{tag}", request_id=f"journal-{role}-{tag}", **fields
        )
        world.journal[role] = recorded.record.entry.id

    await entry("plan", main, "plan", area="workflow", details=f"journal-details-{tag}")
    await entry(
        "skill",
        main,
        "skill-candidate",
        area="gates",
        evidence=f"journal-evidence-{tag}",
        stage_id=world.stages["review"],
    )
    await entry("hypothesis", main, "hypothesis", area="harness", related_entry_ids=world.journal["plan"])
    await entry("lesson", ended, "lesson", area="implementation", evidence=f"journal-lesson-evidence-{tag}")
    promoted = await operator.workflows.journal.promote(
        world.journal["skill"], "approved", evidence_refs=f"journal-ref-{tag}", reason=f"journal-reason-{tag}"
    )
    assert promoted.entry.promotion_status == J.PROMOTION_STATUS_APPROVED, promoted
    cancelled = await operator.workflows.cancel_run(ended, reason=f"cancel-{tag}")
    assert cancelled.run.status == WT.WORKFLOW_RUN_STATUS_CANCELLED, cancelled.run
    world.pages["ListJournal"] = (await journal.list(main, page_size=1)).next_page_token
    assert world.pages["ListJournal"]
    records = [record for run_id in (main, ended) async for record in journal.records(run_id)]
    for run_id in (main, ended):
        verdict = (await journal.verify(run_id)).verdict
        assert verdict.intact and verdict.verified_records > 0, verdict
    retrospective = (await journal.export(ended)).retrospective
    assert world.journal["lesson"] in {e.id for e in retrospective.entries}, retrospective
    texts = ("plan", "details", "skill", "evidence", "hypothesis", "lesson", "lesson-evidence", "ref", "reason")
    return {
        *(record.entry.id if record.HasField("entry") else record.promotion.id for record in records),
        *(record.chain for record in records),
        retrospective.journal.head_chain,
        *(f"journal-{text}-{tag}" for text in texts),
        f"cancel-{tag}",
    }


async def _build_state(world: World, sender: HubClient, operator: HubClient) -> set[str]:
    """A state key with a promoted item (proposed by the sender, promoted by the admin naming the
    project) and an undecided proposal."""
    from kxm_grpc._gen.kxm.v1 import context_service_pb2_grpc

    tag = world.tag
    world.state_key = f"deploy-{tag}"

    async def call(client: HubClient, name: str, request: ProtoMessage) -> Any:
        return await client._call(getattr(client._stub(context_service_pb2_grpc.ContextServiceStub), name), request)

    def proposal(value: str) -> context_service_pb2.ProposeStateRequest:
        return context_service_pb2.ProposeStateRequest(
            state_key=world.state_key, summary=f"state-{value}-{tag}", evidence_refs=[f"state-ref-{tag}"]
        )

    promoted = (await call(sender, "ProposeState", proposal("promoted"))).proposal
    minted = await call(
        operator,
        "PromoteState",
        context_service_pb2.PromoteStateRequest(proposal_id=promoted.id, evidence_refs=[f"state-ref-{tag}"]),
    )
    undecided = (await call(sender, "ProposeState", proposal("undecided"))).proposal
    world.state = {"proposal": undecided.id, "promoted": minted.item.id}
    texts = (f"state-{value}-{tag}" for value in ("promoted", "undecided"))
    return {world.state_key, promoted.id, minted.item.id, undecided.id, f"state-ref-{tag}", *texts}


async def _build_skills(world: World, sender: HubClient, operator: HubClient) -> set[str]:
    """Two skills written by the sender: a candidate left undecided, and one the admin naming the
    project evaluated and promoted; a ListSkills page token of the project."""
    tag = world.tag
    created = {
        role: (
            await sender.context.create_skill(
                f"skill {role} {tag}",
                f"skill body {role} {tag}",
                harness=f"harness-{tag}",
                models=[f"model-{tag}"],
                run_ids=[f"skill-run-{tag}"],
            )
        ).skill
        for role in ("candidate", "promoted")
    }
    for kind in ("static-review", "sandbox", "functional", "safety"):
        await operator.context.evaluate_skill(created["promoted"].id, kind, passed=True, details=f"skill-eval-{tag}")
    await operator.context.promote_skill(created["promoted"].id, evidence_refs=[f"skill-ref-{tag}"])
    world.skills = {role: skill.id for role, skill in created.items()}
    world.pages["ListSkills"] = (await sender.context.list_skills(page_size=1)).next_page_token
    assert world.pages["ListSkills"]
    return {
        *world.skills.values(),
        *(skill.content_sha256 for skill in created.values()),
        *(f"skill body {role} {tag}" for role in created),
        f"skill-run-{tag}",
        f"skill-eval-{tag}",
        f"skill-ref-{tag}",
        f"harness-{tag}",
    }


# -- what each RPC answers to another project's ids --------------------------------------------------

Build = Callable[[World, World], ProtoMessage]
"""(the world whose objects the request names, the caller's world) -> the request."""


@dataclass(frozen=True)
class Probe:
    """One way a request of an RPC can name another project's objects, and the answer it must get."""

    names: str
    """What the request names, for the table (``message_id``)."""
    build: Build
    answer: str
    """NOT_FOUND / PERMISSION_DENIED / INVALID_ARGUMENT: refused with that code (and ``reason``);
    SCOPED: succeeds, in the caller's own project only; PER_ITEM / EMPTY: OK, with every item
    refused / nothing in it (``check``)."""
    reason: Reason | None = None
    check: Callable[[bytes], str | None] | None = None
    """For PER_ITEM and EMPTY: the problem with the response, or None."""
    creates: bool = False
    """SCOPED and it writes (run once per direction, after the reads)."""
    random_same: bool = True
    """Whether a random id gets the same answer (False: see ``note``)."""
    note: str = ""

    @property
    def refused(self) -> bool:
        return self.answer not in ("SCOPED",)

    def describe(self) -> str:
        if self.answer == "SCOPED":
            text = "OK, in the caller's project only"
        elif self.answer in ("PER_ITEM", "EMPTY"):
            text = f"OK, {self.note}"
            return f"{self.names}: {text}"
        else:
            text = f"`{self.answer}`" + (f" (`{self.reason.name}`)" if self.reason else "")
        return f"{self.names}: {text}" + (f"; {self.note}" if self.note else "")


@dataclass(frozen=True)
class RpcCase:
    """Every probe of one RPC (the first is also the request of the bad-credential calls)."""

    probes: tuple[Probe, ...]
    last: bool = False
    """It ends the caller's identity (UnregisterAgent): scoped calls of it run after all others."""
    operator: bool = True
    """Whether a project's operator (naming the project) is one of its credentials here; not on the
    RPCs an operator calls in no project (the admin's: projects, operators, sync projects)."""


def _fanout_refused(reason: Reason) -> Callable[[bytes], str | None]:
    def check(data: bytes) -> str | None:
        response = message_service_pb2.FanoutMessagesResponse.FromString(data)
        wrong = [
            (r.target, r.status, r.error_reason)
            for r in response.results
            if r.status != message_service_pb2.FANOUT_STATUS_ERROR or r.error_reason != str(reason)
        ]
        return f"targets not refused as {reason.name}: {wrong}" if wrong or not response.results else None

    return check


def _no_workflow_runs(data: bytes) -> str | None:
    response = workflow_service_pb2.ListWorkflowRunsResponse.FromString(data)
    if response.runs or response.next_page_token:
        return f"runs of another project's definition were listed: {[r.id for r in response.runs]}"
    return None


def _own_report(data: bytes) -> str | None:
    response = W.GetImprovementReportResponse.FromString(data)
    if not response.entries or not response.areas:
        return f"the report read none of the caller's own entries: {response}"
    return None


def _own_episodes(data: bytes) -> str | None:
    response = context_service_pb2.ListEpisodesResponse.FromString(data)
    projects = {item.project for item in response.items}
    if not response.items or len(projects) != 1:
        return f"the episodes are not the caller's own project's (or none): {response}"
    return None


def _sync_outcomes(outcome: int, code: Reason) -> Callable[[bytes], str | None]:
    def check(data: bytes) -> str | None:
        response = runtime_service_pb2.PushSyncEventsResponse.FromString(data)
        wrong = [(r.sequence, r.outcome, r.code) for r in response.results if (r.outcome, r.code) != (outcome, code)]
        if wrong or not response.results or response.cursors or any(r.existing_hash for r in response.results):
            return f"events not all {code.name}: {wrong}, cursors {list(response.cursors)}"
        return None

    return check


def _no_run_events(data: bytes) -> str | None:
    response = runtime_service_pb2.ListRunEventsResponse.FromString(data)
    cursor = response.cursor
    if response.events or cursor.cursor or cursor.last_sequence or cursor.pending_gap:
        return f"another project's run was shown: {response}"
    return None


def _events(world: World, caller: World, *, home: str | None = None) -> runtime_service_pb2.PushSyncEventsRequest:
    events = [
        sync_event(n, runtime=home or caller.runtime_id, project_id=world.sync_project, run_id=world.run_id)
        for n in (3, 1)
    ]
    return runtime_service_pb2.PushSyncEventsRequest(events=events)


def _payload(caller: World) -> struct_pb2.Struct:
    payload = struct_pb2.Struct()
    payload.update({"issue": {"key": f"probe-{caller.tag}"}})
    return payload


def _no_recall(data: bytes) -> str | None:
    response = C.RecallResponse.FromString(data)
    return f"another project's items were recalled: {[i.id for i in response.items]}" if response.items else None


def _unmatched_packet(data: bytes) -> str | None:
    audit = C.GetContextPacketResponse.FromString(data).packet.audit
    return f"{audit.matched_candidates} items matched another project's tag" if audit.matched_candidates else None


def _not_found(data: bytes) -> str | None:
    response = C.ExplainItemResponse.FromString(data)
    return f"another project's item was explained: {response}" if response.found or response.sources else None


def _none_deleted(data: bytes) -> str | None:
    count = C.DeleteItemsResponse.FromString(data).deleted_count
    return f"{count} items were deleted" if count else None


def _context_isolation(names: str, build: Build) -> Probe:
    return Probe(names, build, "PERMISSION_DENIED", Reason.CONTEXT_ISOLATION_VIOLATION)


def _page(rpc: str, request: Callable[[str], ProtoMessage]) -> Probe:
    return Probe(
        "`page_token`",
        lambda w, c: request(w.pages[rpc]),
        "INVALID_ARGUMENT",
        Reason.INVALID_PAGE_TOKEN,
        note="a token is bound to the query (and project) it was issued for",
    )


def _context_project(build: Build) -> Probe:
    """A context RPC's request naming another project (``project``): refused, whatever it names."""
    return Probe(
        "`project`",
        build,
        "PERMISSION_DENIED",
        Reason.CONTEXT_ISOLATION_VIOLATION,
        note="a caller admitted to one project (an operator naming it too) names no other",
    )


def _operators_only(names: str, build: Build) -> RpcCase:
    return RpcCase(
        (
            Probe(
                names,
                build,
                "PERMISSION_DENIED",
                Reason.CREDENTIAL_KIND_DENIED,
                note="no project credential may call it",
            ),
        ),
        operator=False,
    )


A = admin_service_pb2
G = agent_service_pb2
L = lease_service_pb2
M = message_service_pb2
R = runtime_service_pb2
W = workflow_service_pb2
C = context_service_pb2
OPS = ops_service_pb2
E = envelopes_pb2
WT = workflow_types_pb2
J = workflow_journal_pb2
C = context_service_pb2
NOT_FOUND = "NOT_FOUND"
SCOPED = "SCOPED"

CASES: dict[str, RpcCase] = {
    "/kxm.v1.AdminService/CreateProject": _operators_only(
        "`name`", lambda w, c: A.CreateProjectRequest(name=w.project)
    ),
    "/kxm.v1.AdminService/ListProjects": _operators_only("(no ids)", lambda w, c: A.ListProjectsRequest()),
    "/kxm.v1.AdminService/RotateProjectToken": _operators_only(
        "`name`", lambda w, c: A.RotateProjectTokenRequest(name=w.project)
    ),
    "/kxm.v1.AdminService/CreateOperator": _operators_only(
        "`name`", lambda w, c: A.CreateOperatorRequest(name=f"new-{w.operator}")
    ),
    "/kxm.v1.AdminService/ListOperators": _operators_only("(no ids)", lambda w, c: A.ListOperatorsRequest()),
    "/kxm.v1.AdminService/RevokeOperator": _operators_only(
        "`name`", lambda w, c: A.RevokeOperatorRequest(name=w.operator)
    ),
    "/kxm.v1.AdminService/ListAuditRecords": _operators_only(
        "`operator`", lambda w, c: A.ListAuditRecordsRequest(operator=w.operator)
    ),
    "/kxm.v1.AdminService/MintSessionToken": RpcCase(
        (
            Probe(
                "`agent_id`",
                lambda w, c: A.MintSessionTokenRequest(agent_id=w.agents["moved"][0]),
                NOT_FOUND,
                Reason.AGENT_NOT_FOUND,
            ),
            Probe(
                "`project`",
                lambda w, c: A.MintSessionTokenRequest(project=w.project, agent_id=c.agents["moved"][0]),
                "INVALID_ARGUMENT",
                Reason.PROTOCOL_ERROR,
                note="an operator naming a project mints in that project only",
            ),
        )
    ),
    "/kxm.v1.AdminService/RevokeSessionToken": RpcCase(
        (
            Probe(
                "`session_id`",
                lambda w, c: A.RevokeSessionTokenRequest(session_id=w.session),
                NOT_FOUND,
                Reason.SESSION_TOKEN_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.AdminService/ListSessionTokens": RpcCase(
        (
            Probe("(no ids)", lambda w, c: A.ListSessionTokensRequest(page_size=500), SCOPED),
            Probe(
                "`project`",
                lambda w, c: A.ListSessionTokensRequest(project=w.project),
                "INVALID_ARGUMENT",
                Reason.PROTOCOL_ERROR,
                note="an operator naming a project lists that project's only",
            ),
            _page("ListSessionTokens", lambda token: A.ListSessionTokensRequest(page_token=token)),
        )
    ),
    "/kxm.v1.OpsService/GetOpsSnapshot": RpcCase(
        (
            Probe("(no ids)", lambda w, c: OPS.GetOpsSnapshotRequest(), SCOPED),
            Probe(
                "`project`",
                lambda w, c: OPS.GetOpsSnapshotRequest(project=w.project),
                "INVALID_ARGUMENT",
                Reason.PROTOCOL_ERROR,
                note="an operator naming a project sees that project only",
            ),
        )
    ),
    "/kxm.v1.OpsService/WatchOps": RpcCase(
        (
            Probe("(no ids)", lambda w, c: OPS.WatchOpsRequest(), SCOPED),
            Probe(
                "`project`",
                lambda w, c: OPS.WatchOpsRequest(project=w.project),
                "INVALID_ARGUMENT",
                Reason.PROTOCOL_ERROR,
                note="an operator naming a project watches that project only",
            ),
        )
    ),
    "/kxm.v1.AgentService/RegisterAgent": RpcCase(
        (
            Probe(
                "`name`, `previous_key`",
                lambda w, c: G.RegisterAgentRequest(name=w.names["sender"], previous_key=w.agents["sender"][1]),
                SCOPED,
                creates=True,
                note="names are per project: the caller's project gets a new agent of that name",
            ),
        )
    ),
    "/kxm.v1.AgentService/Heartbeat": RpcCase((Probe("(no ids)", lambda w, c: G.HeartbeatRequest(), SCOPED),)),
    # The channel's commands are each admitted as their unary twin, whose rows are below (and
    # tests/api/test_channel.py refuses every command on another project's ids).
    "/kxm.v1.AgentService/OpenChannel": RpcCase((Probe("(no ids)", lambda w, c: G.OpenChannelRequest(), SCOPED),)),
    "/kxm.v1.AgentService/UnregisterAgent": RpcCase(
        (Probe("(no ids)", lambda w, c: G.UnregisterAgentRequest(), SCOPED, creates=True),), last=True
    ),
    "/kxm.v1.AgentService/ListAgents": RpcCase(
        (
            Probe("(no ids)", lambda w, c: G.ListAgentsRequest(include_offline=True), SCOPED),
            _page("ListAgents", lambda token: G.ListAgentsRequest(page_token=token)),
        )
    ),
    "/kxm.v1.AgentService/GetCallerIdentity": RpcCase(
        (Probe("(no ids)", lambda w, c: G.GetCallerIdentityRequest(), SCOPED),)
    ),
    "/kxm.v1.LeaseService/AcquireLease": RpcCase(
        (
            Probe(
                "`name`",
                lambda w, c: L.AcquireLeaseRequest(name=w.lease),
                SCOPED,
                creates=True,
                note="lease names are per project: the caller's project gets its own lease of that name",
            ),
        )
    ),
    "/kxm.v1.LeaseService/RenewLease": RpcCase(
        (
            Probe(
                "`name`, `fencing_token`",
                lambda w, c: L.RenewLeaseRequest(name=w.lease, fencing_token=w.lease_token),
                NOT_FOUND,
                Reason.LEASE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.LeaseService/ReleaseLease": RpcCase(
        (
            Probe(
                "`name`, `fencing_token`",
                lambda w, c: L.ReleaseLeaseRequest(name=w.lease, fencing_token=w.lease_token),
                NOT_FOUND,
                Reason.LEASE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.LeaseService/GetLease": RpcCase(
        (Probe("`name`", lambda w, c: L.GetLeaseRequest(name=w.lease), NOT_FOUND, Reason.LEASE_NOT_FOUND),)
    ),
    "/kxm.v1.LeaseService/ListLeases": RpcCase(
        (
            Probe("(no ids)", lambda w, c: L.ListLeasesRequest(include_lapsed=True), SCOPED),
            _page("ListLeases", lambda token: L.ListLeasesRequest(page_token=token)),
        )
    ),
    "/kxm.v1.LeaseService/CheckFence": RpcCase(
        (
            Probe(
                "`name`, `fencing_token`",
                lambda w, c: L.CheckFenceRequest(name=w.lease, fencing_token=w.lease_token),
                NOT_FOUND,
                Reason.LEASE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.MessageService/SendMessage": RpcCase(
        (
            Probe(
                "`target` (id)",
                lambda w, c: M.SendMessageRequest(target=w.agents["recipient"][0], content=f"probe-{c.tag}"),
                NOT_FOUND,
                Reason.TARGET_NOT_FOUND,
            ),
            Probe(
                "`target` (name)",
                lambda w, c: M.SendMessageRequest(target=w.names["recipient"], content=f"probe-{c.tag}"),
                NOT_FOUND,
                Reason.TARGET_NOT_FOUND,
            ),
            Probe(
                "`workflow_context`",
                lambda w, c: M.SendMessageRequest(
                    target=c.agents["recipient"][0], content=f"probe-{c.tag}", workflow_context=_context(w)
                ),
                "PERMISSION_DENIED",
                Reason.WORKFLOW_CONTEXT_FORBIDDEN,
                note="a review request under another project's run, to the caller's own agent",
            ),
            Probe(
                "`idempotency_key`, `reply_to`, `correlation_id`",
                lambda w, c: M.SendMessageRequest(
                    target=c.agents["recipient"][0],
                    content=f"probe-{c.tag}",
                    idempotency_key=w.idempotency_key,
                    reply_to=w.messages["queued"],
                    correlation_id=w.correlation_id,
                ),
                SCOPED,
                creates=True,
                note="idempotency keys are per sender; `reply_to` and `correlation_id` are opaque text",
            ),
        )
    ),
    "/kxm.v1.MessageService/GetMessage": RpcCase(
        (
            Probe(
                "`message_id`",
                lambda w, c: M.GetMessageRequest(message_id=w.messages["replied"]),
                NOT_FOUND,
                Reason.MESSAGE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.MessageService/CancelMessage": RpcCase(
        (
            Probe(
                "`message_id`",
                lambda w, c: M.CancelMessageRequest(message_id=w.messages["queued"]),
                NOT_FOUND,
                Reason.MESSAGE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.MessageService/ReplyToMessage": RpcCase(
        (
            Probe(
                "`message_id`",
                lambda w, c: M.ReplyToMessageRequest(message_id=w.messages["queued"], content=f"probe-{c.tag}"),
                NOT_FOUND,
                Reason.MESSAGE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.MessageService/AckMessages": RpcCase(
        (
            Probe(
                "`message_ids`",
                lambda w, c: M.AckMessagesRequest(message_ids=[c.messages["back"], w.messages["queued"]]),
                NOT_FOUND,
                Reason.MESSAGE_NOT_FOUND,
                note="all or none: the caller's own id in the same request is not acknowledged either",
            ),
        )
    ),
    "/kxm.v1.MessageService/ListInbox": RpcCase(
        (
            Probe("(no ids)", lambda w, c: M.ListInboxRequest(), SCOPED),
            _page("ListInbox", lambda token: M.ListInboxRequest(page_token=token)),
        )
    ),
    "/kxm.v1.MessageService/WaitMessage": RpcCase(
        (
            Probe(
                "`message_id`",
                lambda w, c: M.WaitMessageRequest(message_id=w.messages["queued"], wait=duration_pb2.Duration()),
                NOT_FOUND,
                Reason.MESSAGE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.MessageService/FanoutMessages": RpcCase(
        (
            Probe(
                "`targets`",
                lambda w, c: M.FanoutMessagesRequest(
                    targets=[w.agents["recipient"][0], w.names["sender"]],
                    content=f"probe-{c.tag}",
                    wait=duration_pb2.Duration(),  # the owner's control returns at once, replies or not
                ),
                "PER_ITEM",
                check=_fanout_refused(Reason.TARGET_NOT_FOUND),
                note="every target refused as `TARGET_NOT_FOUND` (a fanout answers per target)",
            ),
            Probe(
                "`workflow_context`",
                lambda w, c: M.FanoutMessagesRequest(
                    targets=[c.agents["recipient"][0], c.names["moved"]],
                    content=f"probe-{c.tag}",
                    workflow_context=_context(w),
                    wait=duration_pb2.Duration(),
                ),
                "PER_ITEM",
                check=_fanout_refused(Reason.WORKFLOW_CONTEXT_FORBIDDEN),
                note="review requests under another project's run, to the caller's own agents: every target"
                " refused as `WORKFLOW_CONTEXT_FORBIDDEN`",
            ),
        )
    ),
    "/kxm.v1.MessageService/Subscribe": RpcCase((Probe("(no ids)", lambda w, c: M.SubscribeRequest(), SCOPED),)),
    "/kxm.v1.RuntimeService/RegisterRuntime": RpcCase(
        (
            Probe(
                "`runtime_id`",
                lambda w, c: R.RegisterRuntimeRequest(runtime_id=w.runtime_id),
                SCOPED,
                creates=True,
                note="runtime ids are per project: the caller's project gets its own runtime of that id",
            ),
        )
    ),
    "/kxm.v1.RuntimeService/RuntimeHeartbeat": RpcCase(
        (Probe("(no ids)", lambda w, c: R.RuntimeHeartbeatRequest(), SCOPED),)
    ),
    "/kxm.v1.RuntimeService/ListRuntimes": RpcCase(
        (
            Probe("(no ids)", lambda w, c: R.ListRuntimesRequest(), SCOPED),
            _page("ListRuntimes", lambda token: R.ListRuntimesRequest(page_token=token)),
        )
    ),
    "/kxm.v1.RuntimeService/PushSyncEvents": RpcCase(
        (
            Probe(
                "`events[].project_id`",
                lambda w, c: _events(w, c),
                "PER_ITEM",
                check=_sync_outcomes(R.SYNC_OUTCOME_CONFLICT, Reason.SYNC_PROJECT_MISMATCH),
                random_same=False,
                note="every event a `CONFLICT` (`SYNC_PROJECT_MISMATCH`): the id is taken, by whom is not said"
                " (an unused id is the pusher's to claim, so a random one is accepted)",
            ),
            Probe(
                "`events[].home_runtime_id`",
                lambda w, c: _events(c, c, home=w.runtime_id),
                "PER_ITEM",
                check=_sync_outcomes(R.SYNC_OUTCOME_REJECTED, Reason.SYNC_RUNTIME_MISMATCH),
                note="every event `REJECTED` (`SYNC_RUNTIME_MISMATCH`): only the pushing runtime is a home",
            ),
        )
    ),
    "/kxm.v1.RuntimeService/ListRunEvents": RpcCase(
        (
            Probe(
                "`project_id`, `run_id`",
                lambda w, c: R.ListRunEventsRequest(project_id=w.sync_project, run_id=w.run_id),
                "EMPTY",
                check=_no_run_events,
                note="no events and an empty cursor, exactly as for a run that does not exist",
            ),
        )
    ),
    "/kxm.v1.RuntimeService/ReassignSyncProject": _operators_only(
        "`project_id`, `project`",
        lambda w, c: R.ReassignSyncProjectRequest(project_id=w.sync_project, project=c.project),
    ),
    "/kxm.v1.WorkflowService/RegisterWorkflowDefinition": RpcCase(
        (
            Probe(
                "`document` (of the other project)",
                lambda w, c: W.RegisterWorkflowDefinitionRequest(
                    document=json.dumps(workflow_document(w, prompt="again")), format=W.DEFINITION_FORMAT_JSON
                ),
                "INVALID_ARGUMENT",
                Reason.WORKFLOW_DEFINITION_INVALID,
                note="an operator naming a project registers that project's documents only (the field named:"
                " `project`)",
            ),
            Probe(
                "`document` (the caller's, under the other project's definition id)",
                lambda w, c: W.RegisterWorkflowDefinitionRequest(
                    document=json.dumps({**workflow_document(c, prompt="again"), "id": w.workflow}),
                    format=W.DEFINITION_FORMAT_JSON,
                ),
                "INVALID_ARGUMENT",
                Reason.WORKFLOW_DEFINITION_INVALID,
                random_same=False,
                note="definition ids are the hub's (they name the public webhook routes): a taken one is refused"
                " naming the field `id`, never the project holding it; a free one is the caller's to take",
            ),
            Probe(
                "`document` (the caller's own)",
                lambda w, c: W.RegisterWorkflowDefinitionRequest(
                    document=json.dumps(workflow_document(c, prompt="again")), format=W.DEFINITION_FORMAT_JSON
                ),
                SCOPED,
                creates=True,
                note="a new version of the caller's own definition",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/GetWorkflowDefinition": RpcCase(
        (
            Probe(
                "`definition_id`",
                lambda w, c: W.GetWorkflowDefinitionRequest(definition_id=w.workflow),
                NOT_FOUND,
                Reason.WEBHOOK_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ListWorkflowDefinitions": RpcCase(
        (
            Probe("(no ids)", lambda w, c: W.ListWorkflowDefinitionsRequest(page_size=500), SCOPED),
            _page("ListWorkflowDefinitions", lambda token: W.ListWorkflowDefinitionsRequest(page_token=token)),
        )
    ),
    "/kxm.v1.WorkflowService/RegisterGateRegistry": RpcCase(
        (
            Probe(
                "`project`",
                lambda w, c: W.RegisterGateRegistryRequest(
                    document=json.dumps(gate_document(c)), format=W.DEFINITION_FORMAT_JSON, project=w.project
                ),
                "INVALID_ARGUMENT",
                Reason.PROTOCOL_ERROR,
                note="an operator naming a project registers that project's registry only (the field named: `project`)",
            ),
            Probe(
                "`document` (the caller's own)",
                lambda w, c: W.RegisterGateRegistryRequest(
                    document=json.dumps(gate_document(c)), format=W.DEFINITION_FORMAT_JSON
                ),
                SCOPED,
                note="the caller's own registry again: checked against its own step workflows only",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/GetGateRegistry": RpcCase(
        (
            Probe(
                "(no ids)",
                lambda w, c: W.GetGateRegistryRequest(),
                SCOPED,
                note="the caller's project's registry (a registry has no id of its own)",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/StartWorkflowRun": RpcCase(
        (
            Probe(
                "`definition_id`",
                lambda w, c: W.StartWorkflowRunRequest(
                    definition_id=w.workflow, delivery_id=f"start-{c.tag}", payload=_payload(c)
                ),
                NOT_FOUND,
                Reason.WEBHOOK_NOT_FOUND,
            ),
            Probe(
                "`delivery_id`",
                lambda w, c: W.StartWorkflowRunRequest(
                    definition_id=c.workflow, delivery_id=w.deliveries["main"], payload=_payload(c)
                ),
                SCOPED,
                creates=True,
                note="delivery ids are per definition: the caller's definition starts a run of its own",
            ),
            Probe(
                "`inputs.skill_id`",
                lambda w, c: W.StartWorkflowRunRequest(
                    definition_id=c.step_workflow,
                    delivery_id=f"skill-{c.tag}",
                    inputs=workflow_steps_pb2.StepRunInputs(skill_id=w.skills["candidate"]),
                ),
                NOT_FOUND,
                Reason.SKILL_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/GetWorkflowRun": RpcCase(
        (
            Probe(
                "`run_id`",
                lambda w, c: W.GetWorkflowRunRequest(run_id=w.runs["main"]),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ListWorkflowRuns": RpcCase(
        (
            Probe("(no ids)", lambda w, c: W.ListWorkflowRunsRequest(page_size=500), SCOPED),
            Probe(
                "`definition_id`",
                lambda w, c: W.ListWorkflowRunsRequest(definition_id=w.workflow, page_size=500),
                "EMPTY",
                check=_no_workflow_runs,
                note="no runs, exactly as for a definition that does not exist",
            ),
            _page("ListWorkflowRuns", lambda token: W.ListWorkflowRunsRequest(page_token=token)),
        )
    ),
    "/kxm.v1.WorkflowService/CancelWorkflowRun": RpcCase(
        (
            Probe(
                "`run_id`",
                lambda w, c: W.CancelWorkflowRunRequest(run_id=w.runs["fresh"], reason=f"probe-{c.tag}"),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/RerunWorkflowRun": RpcCase(
        (
            Probe(
                "`run_id`",
                lambda w, c: W.RerunWorkflowRunRequest(run_id=w.runs["fresh"], delivery_id=f"rerun-{c.tag}"),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/Checkpoint": RpcCase(
        (
            Probe(
                "`run_id`, `stage_id`",
                lambda w, c: W.CheckpointRequest(
                    run_id=w.runs["fresh"],
                    stage_id=w.stages["review"],
                    status=WT.CHECKPOINT_STATUS_WARNING,
                    summary=f"probe-{c.tag}",
                    request_id=f"probe-{c.tag}",
                ),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
            Probe(
                "`evidence_refs` (the other project's replied review request)",
                lambda w, c: W.CheckpointRequest(
                    run_id=c.runs["main"],
                    stage_id=c.stages["build"],
                    status=WT.CHECKPOINT_STATUS_PASSED,
                    evidence_refs={c.requirement: W.MessageIds(message_ids=[w.reviews["build"]])},
                    request_id=f"probe-refs-{c.tag}",
                ),
                "INVALID_ARGUMENT",
                Reason.WORKFLOW_PROVENANCE_INVALID,
                note="cited on the caller's own run: refused as a message that does not exist is",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/Wait": RpcCase(
        (
            Probe(
                "`run_id`, `stage_id`",
                lambda w, c: W.WaitRequest(
                    run_id=w.runs["fresh"],
                    stage_id=w.stages["review"],
                    signal_key=f"probe-{c.tag}",
                    timeout=duration_pb2.Duration(seconds=600),
                    request_id=f"probe-{c.tag}",
                ),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/SignalWorkflowRun": RpcCase(
        (
            Probe(
                "`run_id`, `signal_key`",
                lambda w, c: W.SignalWorkflowRunRequest(
                    run_id=w.runs["waiting"],
                    signal_key=w.signal_key,
                    delivery_id=f"probe-{c.tag}",
                    status=WT.CHECKPOINT_STATUS_WARNING,
                    summary=f"probe-{c.tag}",
                ),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ApproveDegradation": RpcCase(
        (
            Probe(
                "`run_id`, `stage_id`, `requirement_key`",
                lambda w, c: W.ApproveDegradationRequest(
                    run_id=w.runs["main"],
                    stage_id=w.stages["build"],
                    requirement_key=w.requirement,
                    reason=f"probe-{c.tag}",
                ),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/EscalateStage": RpcCase(
        (
            Probe(
                "`run_id`, `stage_id`",
                lambda w, c: W.EscalateStageRequest(
                    run_id=w.runs["fresh"], stage_id=w.stages["review"], reason=f"probe-{c.tag}"
                ),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ResolveEscalation": RpcCase(
        (
            Probe(
                "`run_id`",
                lambda w, c: W.ResolveEscalationRequest(
                    run_id=w.runs["escalated"], ruling=f"probe-{c.tag}", status=WT.CHECKPOINT_STATUS_WARNING
                ),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/RecordJournal": RpcCase(
        (
            Probe(
                "`run_id`",
                lambda w, c: W.RecordJournalRequest(
                    run_id=w.runs["main"],
                    category=J.JOURNAL_CATEGORY_OBSERVATION,
                    area=J.IMPROVEMENT_AREA_OTHER,
                    summary=f"probe-{c.tag}",
                    request_id=f"probe-journal-{c.tag}",
                ),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
            Probe(
                "`related_entry_ids` (the other project's entry)",
                lambda w, c: W.RecordJournalRequest(
                    run_id=c.runs["main"],
                    category=J.JOURNAL_CATEGORY_DECISION,
                    area=J.IMPROVEMENT_AREA_OTHER,
                    summary=f"probe-{c.tag}",
                    related_entry_ids=[w.journal["plan"]],
                    request_id=f"probe-related-{c.tag}",
                ),
                "INVALID_ARGUMENT",
                Reason.INVALID_JOURNAL_RELATION,
                note="related to an entry on the caller's own run: refused as an entry that does not exist is",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ListJournal": RpcCase(
        (
            Probe(
                "`run_id`",
                lambda w, c: W.ListJournalRequest(run_id=w.runs["main"]),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
            Probe(
                "`page_token`",
                lambda w, c: W.ListJournalRequest(run_id=c.runs["main"], page_token=w.pages["ListJournal"]),
                "INVALID_ARGUMENT",
                Reason.INVALID_PAGE_TOKEN,
                note="with the caller's own run: a token is bound to the run (and project) it was issued for",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/PromoteJournalEntry": RpcCase(
        (
            Probe(
                "`entry_id`",
                lambda w, c: W.PromoteJournalEntryRequest(
                    entry_id=w.journal["hypothesis"],
                    to=J.PROMOTION_STATUS_APPROVED,
                    evidence_refs=[f"probe-{c.tag}"],
                    reason=f"probe-{c.tag}",
                ),
                NOT_FOUND,
                Reason.JOURNAL_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/GetImprovementReport": RpcCase(
        (
            Probe(
                "(no ids)",
                lambda w, c: W.GetImprovementReportRequest(),
                SCOPED,
                check=_own_report,
                note="the report reads the entries of the caller's project's runs (and must find some)",
            ),
            Probe(
                "`project`",
                lambda w, c: W.GetImprovementReportRequest(project=w.project),
                "INVALID_ARGUMENT",
                Reason.PROTOCOL_ERROR,
                note="a project credential, or an operator naming a project, reads its own project's report only"
                " (the field named: `project`)",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ExportRetrospective": RpcCase(
        (
            Probe(
                "`run_id` (an ended run)",
                lambda w, c: W.ExportRetrospectiveRequest(run_id=w.runs["ended"]),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.ContextService/PutItems": RpcCase(
        (
            _context_isolation(
                "`project`",
                lambda w, c: C.PutItemsRequest(
                    project=w.project, items=[context_item(c.context["knowledge"], "knowledge", f"probe-{c.tag}")]
                ),
            ),
            _context_isolation(
                "`items[].project`",
                lambda w, c: C.PutItemsRequest(
                    items=[context_item(c.context["knowledge"], "knowledge", f"probe-{c.tag}", project=w.project)]
                ),
            ),
        )
    ),
    "/kxm.v1.ContextService/GetContextPacket": RpcCase(
        (
            _context_isolation(
                "`request.project`",
                lambda w, c: C.GetContextPacketRequest(
                    request=E.ContextRequest(project=w.project, role="verifier", task=f"probe {c.tag}")
                ),
            ),
            Probe(
                "`request.task` (another project's words)",
                lambda w, c: C.GetContextPacketRequest(request=E.ContextRequest(role="verifier", task=w.tag)),
                "EMPTY",
                check=_unmatched_packet,
                note="the caller's own pool: nothing matches another project's words",
            ),
        )
    ),
    "/kxm.v1.ContextService/Recall": RpcCase(
        (
            _context_isolation("`project`", lambda w, c: C.RecallRequest(project=w.project, query=c.tag)),
            Probe(
                "`query` (another project's words)",
                lambda w, c: C.RecallRequest(query=w.tag),
                "EMPTY",
                check=_no_recall,
                note="the caller's own pool: no item matches",
            ),
        )
    ),
    "/kxm.v1.ContextService/ExplainItem": RpcCase(
        (
            _context_isolation(
                "`project`", lambda w, c: C.ExplainItemRequest(project=w.project, item_id=c.context["derived"])
            ),
            Probe(
                "`item_id`",
                lambda w, c: C.ExplainItemRequest(item_id=w.context["derived"]),
                "EMPTY",
                check=_not_found,
                note="found = false, as for an unknown id",
            ),
        )
    ),
    "/kxm.v1.ContextService/DeleteItems": RpcCase(
        (
            _context_isolation(
                "`project`", lambda w, c: C.DeleteItemsRequest(project=w.project, item_ids=[c.context["knowledge"]])
            ),
            Probe(
                "`item_ids`",
                lambda w, c: C.DeleteItemsRequest(item_ids=list(w.context.values())),
                "EMPTY",
                check=_none_deleted,
                note="deleted_count 0: only the caller's project's items are deleted",
            ),
        )
    ),
    "/kxm.v1.ContextService/SyncMemory": RpcCase(
        (
            _context_isolation(
                "`project`",
                lambda w, c: C.SyncMemoryRequest(
                    project=w.project, files=[C.MemoryFile(path=p, content=t) for p, t in [memory_file(c.tag)]]
                ),
            ),
        )
    ),
    "/kxm.v1.ContextService/ProposeMemory": RpcCase(
        (
            _context_isolation(
                "`project`", lambda w, c: C.ProposeMemoryRequest(project=w.project, summary=f"probe-{c.tag}")
            ),
        )
    ),
    "/kxm.v1.ContextService/PromoteMemory": RpcCase(
        (
            _context_isolation(
                "`project`",
                lambda w, c: C.PromoteMemoryRequest(
                    project=w.project, candidate_id=c.memory_candidate, record_id=f"probe-{c.tag}"
                ),
            ),
            Probe(
                "`candidate_id`",
                lambda w, c: C.PromoteMemoryRequest(candidate_id=w.memory_candidate, record_id=f"probe-{c.tag}"),
                NOT_FOUND,
                Reason.MEMORY_CANDIDATE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.ContextService/RejectMemory": RpcCase(
        (
            _context_isolation(
                "`project`", lambda w, c: C.RejectMemoryRequest(project=w.project, candidate_id=c.memory_candidate)
            ),
            Probe(
                "`candidate_id`",
                lambda w, c: C.RejectMemoryRequest(candidate_id=w.memory_candidate),
                NOT_FOUND,
                Reason.MEMORY_CANDIDATE_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.ContextService/ListMemory": RpcCase(
        (
            _context_isolation("`project`", lambda w, c: C.ListMemoryRequest(project=w.project)),
            Probe("(no ids)", lambda w, c: C.ListMemoryRequest(), SCOPED),
        )
    ),
    "/kxm.v1.WorkflowService/VerifyJournal": RpcCase(
        (
            Probe(
                "`run_id`",
                lambda w, c: W.VerifyJournalRequest(run_id=w.runs["main"]),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/CompleteAssignment": RpcCase(
        (
            Probe(
                "`assignment_id`",
                lambda w, c: W.CompleteAssignmentRequest(
                    assignment_id=w.assignment, worker_result=E.WorkerResult(outcome="passed")
                ),
                NOT_FOUND,
                Reason.ASSIGNMENT_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/NextAssignment": RpcCase(
        (
            Probe(
                "(no ids)",
                lambda w, c: W.NextAssignmentRequest(),
                SCOPED,
                note="the caller's own oldest open assignment (another project's are never among them)",
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ApproveStep": RpcCase(
        (
            Probe(
                "`run_id` (a step run)",
                lambda w, c: W.ApproveStepRequest(run_id=w.step_run, step_id="plan", outcome="passed"),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/RecoverStepRun": RpcCase(
        (
            Probe(
                "`run_id` (a step run)",
                lambda w, c: W.RecoverStepRunRequest(run_id=w.step_run, action=W.RECOVERY_ACTION_RETRY),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/ListWorkflowRunEvents": RpcCase(
        (
            Probe(
                "`run_id` (a step run)",
                lambda w, c: W.ListWorkflowRunEventsRequest(run_id=w.step_run),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    "/kxm.v1.WorkflowService/AuditGateEvidence": RpcCase(
        (
            Probe(
                "`run_id` (a step run)",
                lambda w, c: W.AuditGateEvidenceRequest(run_id=w.step_run),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
            ),
        )
    ),
    **{
        f"/kxm.v1.ContextService/{rpc}": RpcCase((_context_project(build), *probes))
        for rpc, build, probes in (
            (
                "GetState",
                lambda w, c: C.GetStateRequest(project=w.project, state_key=w.state_key, include_history=True),
                (
                    Probe(
                        "`state_key`",
                        lambda w, c: C.GetStateRequest(state_key=w.state_key, include_history=True),
                        SCOPED,
                        note="a key names state in the caller's own project only (another's reads as nothing held)",
                    ),
                ),
            ),
            (
                "ListStateSet",
                lambda w, c: C.ListStateSetRequest(project=w.project, state_key=f"{w.state_key}[]"),
                (),
            ),
            (
                "ProposeState",
                lambda w, c: C.ProposeStateRequest(
                    project=w.project,
                    state_key=w.state_key,
                    summary=f"probe-{c.tag}",
                    evidence_refs=[f"probe-{c.tag}"],
                    supersedes=[w.state["promoted"]],
                ),
                (),
            ),
            (
                "PromoteState",
                lambda w, c: C.PromoteStateRequest(
                    project=w.project, proposal_id=w.state["proposal"], evidence_refs=[f"probe-{c.tag}"]
                ),
                (
                    Probe(
                        "`proposal_id`",
                        lambda w, c: C.PromoteStateRequest(
                            proposal_id=w.state["proposal"], evidence_refs=[f"probe-{c.tag}"]
                        ),
                        NOT_FOUND,
                        Reason.STATE_PROPOSAL_NOT_FOUND,
                    ),
                ),
            ),
            (
                "RejectState",
                lambda w, c: C.RejectStateRequest(project=w.project, proposal_id=w.state["proposal"]),
                (
                    Probe(
                        "`proposal_id`",
                        lambda w, c: C.RejectStateRequest(proposal_id=w.state["proposal"], reason=f"probe-{c.tag}"),
                        NOT_FOUND,
                        Reason.STATE_PROPOSAL_NOT_FOUND,
                    ),
                ),
            ),
        )
    },
    **{
        f"/kxm.v1.ContextService/{rpc}": RpcCase(
            (
                _context_project(lambda w, c, build=build: build(w, c, w.project)),
                Probe(
                    "`skill_id`",
                    lambda w, c, build=build: build(w, c, ""),
                    NOT_FOUND,
                    Reason.SKILL_NOT_FOUND,
                    note="another project's skill reads as none",
                ),
            )
        )
        for rpc, build in (
            (
                "EvaluateSkill",
                lambda w, c, p: C.EvaluateSkillRequest(
                    project=p, skill_id=w.skills["candidate"], kind=C.SKILL_EVALUATION_KIND_SAFETY, passed=False
                ),
            ),
            (
                "PromoteSkill",
                lambda w, c, p: C.PromoteSkillRequest(
                    project=p, skill_id=w.skills["candidate"], evidence_refs=[f"probe-{c.tag}"]
                ),
            ),
            ("RejectSkill", lambda w, c, p: C.RejectSkillRequest(project=p, skill_id=w.skills["candidate"])),
            ("GetSkill", lambda w, c, p: C.GetSkillRequest(project=p, skill_id=w.skills["promoted"])),
        )
    },
    "/kxm.v1.ContextService/CreateSkill": RpcCase(
        (
            _context_project(
                lambda w, c: C.CreateSkillRequest(
                    project=w.project,
                    name=f"probe {c.tag}",
                    content=f"probe body {c.tag}",
                    sources=C.SkillSources(run_ids=[f"probe-{c.tag}"]),
                    compatibility=C.SkillCompatibility(harness="h", models=["m"]),
                )
            ),
            Probe(
                "`supersedes`",
                lambda w, c: C.CreateSkillRequest(
                    name=f"probe {c.tag}",
                    content=f"probe body {c.tag} {secrets.token_hex(8)}",
                    sources=C.SkillSources(run_ids=[f"probe-{c.tag}"]),
                    compatibility=C.SkillCompatibility(harness="h", models=["m"]),
                    supersedes=w.skills["promoted"],
                ),
                SCOPED,
                creates=True,
                note="a candidate of the caller's own project; supersedes is a label until its promotion,"
                " which closes an item of the caller's project only",
            ),
        )
    ),
    "/kxm.v1.ContextService/ListSkills": RpcCase(
        (
            Probe(
                "(no ids)",
                lambda w, c: C.ListSkillsRequest(),
                SCOPED,
                note="the caller's own project's skills",
            ),
            _context_project(lambda w, c: C.ListSkillsRequest(project=w.project)),
            _page("ListSkills", lambda token: C.ListSkillsRequest(page_token=token)),
        )
    ),
    "/kxm.v1.ContextService/ListEpisodes": RpcCase(
        (
            Probe(
                "(no ids)",
                lambda w, c: C.ListEpisodesRequest(),
                SCOPED,
                check=_own_episodes,
                note="the episodes of the caller's project's runs (and must find some: the lesson)",
            ),
            Probe(
                "`project`",
                lambda w, c: C.ListEpisodesRequest(project=w.project),
                "PERMISSION_DENIED",
                Reason.CONTEXT_ISOLATION_VIOLATION,
            ),
            Probe(
                "`workflow_run_id`",
                lambda w, c: C.ListEpisodesRequest(workflow_run_id=w.runs["main"]),
                NOT_FOUND,
                Reason.WORKFLOW_NOT_FOUND,
                note="another project's run is answered as no run, as the journal answers it",
            ),
        )
    ),
}


# -- bad credentials ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BadCredential:
    """A credential every RPC refuses (``status``), built from the two projects' worlds."""

    name: str
    group: str
    metadata: Callable[[World, World], Metadata]
    status: str = "UNAUTHENTICATED"


def _bearer(value: str) -> Metadata:
    return (("authorization", value),)


def _agent(token: str, agent_id: str, key: str) -> Metadata:
    return (("authorization", f"Bearer {token}"), ("x-kxm-agent-id", agent_id), ("x-kxm-agent-key", key))


BAD_CREDENTIALS: tuple[BadCredential, ...] = (
    BadCredential("none", "missing", lambda a, b: ()),
    BadCredential("empty bearer", "malformed", lambda a, b: _bearer("Bearer ")),
    BadCredential("Basic scheme", "malformed", lambda a, b: _bearer("Basic YWRtaW46YWRtaW4=")),
    BadCredential("lowercase scheme", "malformed", lambda a, b: _bearer(f"bearer {a.token}")),
    BadCredential("no scheme", "malformed", lambda a, b: _bearer(a.token)),
    BadCredential("truncated token", "malformed", lambda a, b: _bearer(f"Bearer {a.token[:-1]}")),
    BadCredential("token with a suffix", "malformed", lambda a, b: _bearer(f"Bearer {a.token}x")),
    BadCredential("token case changed", "malformed", lambda a, b: _bearer(f"Bearer {a.token.swapcase()}")),
    BadCredential("SQL in the token", "malformed", lambda a, b: _bearer("Bearer ' OR '1'='1' --")),
    BadCredential("admin-looking token", "malformed", lambda a, b: _bearer("Bearer kxm_admin_guess")),
    BadCredential(
        "agent id without key",
        "malformed",
        lambda a, b: (("authorization", f"Bearer {a.token}"), ("x-kxm-agent-id", a.agents["sender"][0])),
    ),
    BadCredential(
        "agent key without id",
        "malformed",
        lambda a, b: (("authorization", f"Bearer {a.token}"), ("x-kxm-agent-key", a.agents["sender"][1])),
    ),
    BadCredential("rotated-out project token", "revoked", lambda a, b: _bearer(f"Bearer {a.old_token}")),
    BadCredential(
        "rotated-out token with a live agent",
        "revoked",
        lambda a, b: _agent(a.old_token, *a.agents["sender"]),
    ),
    BadCredential("unregistered agent's key", "revoked", lambda a, b: _agent(a.token, *a.agents["gone"])),
    BadCredential("replaced agent key", "revoked", lambda a, b: _agent(a.token, a.agents["moved"][0], a.moved_old_key)),
    BadCredential("re-registered runtime's old key", "revoked", lambda a, b: _bearer(f"Bearer {a.old_runtime_key}")),
    BadCredential("revoked operator token", "revoked", lambda a, b: _bearer(f"Bearer {a.revoked_operator_token}")),
    BadCredential("B's agent with A's token", "other project", lambda a, b: _agent(a.token, *b.agents["sender"])),
    BadCredential("A's agent with B's token", "other project", lambda a, b: _agent(b.token, *a.agents["sender"])),
    BadCredential(
        "A's agent id with B's agent key",
        "other project",
        lambda a, b: _agent(a.token, a.agents["sender"][0], b.agents["sender"][1]),
    ),
    BadCredential(
        "A's sender id with A's recipient key",
        "impersonation",
        lambda a, b: _agent(a.token, a.agents["sender"][0], a.agents["recipient"][1]),
    ),
    BadCredential(
        "A's recipient id with A's sender key",
        "impersonation",
        lambda a, b: _agent(a.token, a.agents["recipient"][0], a.agents["sender"][1]),
    ),
    BadCredential(
        "A's token naming B",
        "names another project",
        lambda a, b: (("authorization", f"Bearer {a.token}"), ("x-kxm-project", b.project)),
        "PERMISSION_DENIED",
    ),
    BadCredential(
        "A's agent naming B",
        "names another project",
        lambda a, b: (*a.metadata("agent"), ("x-kxm-project", b.project)),
        "PERMISSION_DENIED",
    ),
    BadCredential(
        "A's runtime key naming B",
        "names another project",
        lambda a, b: (*a.metadata("runtime"), ("x-kxm-project", b.project)),
        "PERMISSION_DENIED",
    ),
)
"""Every credential a call must be refused for, whatever it asks. The hub issues no expiring
credential (agent, project, runtime and operator credentials live until rotated or revoked; an
agent whose presence lapsed is offline, not unauthenticated), so there is no "expired" case; the
attempt and session tokens of the workflow issues will add theirs."""

UNAUTHENTICATED_REASONS = {str(Reason.CREDENTIAL_MISSING), str(Reason.INVALID_AUTH), str(Reason.INVALID_AGENT_IDENTITY)}


# -- the database, whole and by project ------------------------------------------------------------------


def _owners(conn: Connection) -> dict[str, dict[str, str]]:
    agents = {row[0]: row[1] for row in conn.execute("SELECT id, project FROM agents").fetchall()}
    messages = {row[0]: row[1] for row in conn.execute("SELECT id, project FROM messages").fetchall()}
    sync = {row[0]: row[1] for row in conn.execute("SELECT project_id, hub_project FROM sync_projects").fetchall()}
    runs = conn.execute("SELECT id, project, definition_hash FROM workflow_runs").fetchall()
    definitions = {row[0]: row[1] for row in conn.execute("SELECT id, project FROM workflow_definitions").fetchall()}
    step_runs = {row[0]: row[1] for row in conn.execute("SELECT id, project FROM step_runs").fetchall()}
    assignments = {row[0]: row[1] for row in conn.execute("SELECT id, project FROM step_run_assignments").fetchall()}
    return {
        "assignment": assignments,
        "agent": agents,
        "message": messages,
        "sync": sync,
        "run": {row[0]: row[1] for row in runs},
        "pin": {row[2]: row[1] for row in runs},
        "definition": definitions,
        "step_run": step_runs,
    }


def _timer_owner(row: dict[str, Any], owners: dict[str, dict[str, str]]) -> str | None:
    if row["kind"] == "message_expiry":
        return owners["message"].get(row["key"])
    if row["kind"] == "lease_lapse":
        return str(row["key"]).split("/", 1)[0]
    if row["kind"] == WAIT_TIMER:
        return owners["run"].get(row["key"])
    if row["kind"] in (step_engine.RUN_TIMER, step_engine.RETRY_TIMER):
        return owners["step_run"].get(row["key"])
    if row["kind"] == step_engine.ASSIGNMENT_TIMER:
        return owners["assignment"].get(row["key"])
    if row["kind"] == step_engine.SUPERSEDE_TIMER:
        return owners["agent"].get(row["key"])
    raise AssertionError(f"B9 does not know which project a {row['kind']!r} timer belongs to: add it to OWNER")


OWNER: dict[str, Callable[[dict[str, Any], dict[str, dict[str, str]]], str | None] | None] = {
    # Global tables: no project's rows (a count of credential changes, the hub's own keys, operators
    # and their audit, which only the admin reads).
    "meta": None,
    "credentials_version": None,
    "operators": None,
    "audit_records": None,
    "projects": lambda row, o: row["name"],
    "agents": lambda row, o: row["project"],
    "messages": lambda row, o: row["project"],
    "log_heads": lambda row, o: o["agent"].get(row["owner"]),
    "inbox_entries": lambda row, o: o["agent"].get(row["owner"]),
    "leases": lambda row, o: row["project"],
    "timers": _timer_owner,
    "runtimes": lambda row, o: row["project"],
    "sync_projects": lambda row, o: row["hub_project"],
    "sync_runs": lambda row, o: row["hub_project"],
    "sync_events": lambda row, o: o["sync"].get(row["project_id"]),
    "gate_registries": lambda row, o: row["project"],
    "workflow_definitions": lambda row, o: row["project"],
    # A version outlives its definition while a run pins it: its runs' project then.
    "workflow_definition_versions": lambda row, o: (
        o["definition"].get(row["definition_id"]) or o["pin"].get(row["hash"])
    ),
    "workflow_runs": lambda row, o: row["project"],
    "workflow_journal": lambda row, o: o["run"].get(row["run_id"]),
    "workflow_retrospectives": lambda row, o: o["run"].get(row["run_id"]),
    "workflow_deliveries": lambda row, o: o["run"].get(row["run_id"]) or o["definition"].get(row["definition_id"]),
    "workflow_steps": lambda row, o: o["run"].get(row["run_id"]),
    "workflow_payloads": lambda row, o: o["run"].get(row["run_id"]),
    "workflow_notifications": lambda row, o: o["run"].get(row["run_id"]) or o["definition"].get(row["definition_id"]),
    "session_tokens": lambda row, o: row["project"],
    "step_runs": lambda row, o: row["project"],
    "step_run_events": lambda row, o: o["step_run"].get(row["run_id"]),
    "step_run_assignments": lambda row, o: row["project"],
    "context_items": lambda row, o: row["project"],
    "context_postings": lambda row, o: row["project"],
    "context_index_stats": lambda row, o: row["project"],
    "skills": lambda row, o: row["project"],
    "skill_events": lambda row, o: row["project"],
}
"""Which project each row of each table of ``tables.TABLES`` belongs to (None: a global table)."""


def _rows_by_owner(database: str, a: World, b: World) -> dict[str, Counter[str]]:
    """Per table with an owner in ``OWNER``: how many rows are A's, B's, and of no known project ("?")."""
    names = {a.project: "A", b.project: "B"}
    counts: dict[str, Counter[str]] = {}
    with tables.raw_connection(database) as conn:
        owners = _owners(conn)
        for table in tables.TABLES:
            owner = OWNER[table.name]
            if owner is None:
                continue
            columns = tables.columns(conn, table)
            counts[table.name] = Counter(
                names.get(owner(dict(zip(columns, values, strict=True)), owners) or "", "?")
                for values in tables.rows(conn, table)
            )
    return counts


def _foreign_notifications(received: list[tuple[str, bytes]], a: World, b: World) -> list[str]:
    """The notifications each project's receiver got that carry the other project's markers or name another project."""
    problems = []
    by_path = {f"/notify-{a.tag}": (a, b), f"/notify-{b.tag}": (b, a)}
    for path, body in received:
        if path not in by_path:
            problems.append(f"a notification to {path}: {body[:200]!r}")
            continue
        world, other = by_path[path]
        if json.loads(body).get("project") != world.project:
            problems.append(f"{path}: {body[:200]!r}")
        problems += [f"{path}: {m!r}" for m in other.markers if m.encode() in body]
    return problems


def project_digest(conn: Connection, project: str) -> str:
    """A digest of the rows of every table that belong to ``project``."""
    missing = [table.name for table in tables.TABLES if table.name not in OWNER]
    assert not missing, f"B9 does not know which project the rows of {missing} belong to: add them to OWNER"
    owners = _owners(conn)
    hashed = hashlib.sha256()
    for table in tables.TABLES:
        owner = OWNER[table.name]
        if owner is None:
            continue
        names = tables.columns(conn, table)
        for values in tables.rows(conn, table):
            row = dict(zip(names, values, strict=True))
            if owner(row, owners) == project:
                hashed.update(
                    json.dumps([table.name, values], separators=(",", ":"), default=tables.json_blob).encode()
                )
    return hashed.hexdigest()


# -- one call ------------------------------------------------------------------------------------------


@dataclass
class Run:
    """The matrix's state: the channel, the database, the worlds, and what was seen."""

    battery: Battery
    channel: grpc.Channel
    conn: Connection
    worlds: dict[str, World]
    served: dict[str, bool]
    codes: Counter[str] = field(default_factory=Counter)
    last_digest: str = ""
    """The database's digest after the last refused call (each call is checked against the one before)."""
    last_version: int | None = None
    """SQLite's ``data_version`` when ``last_digest`` was taken."""
    answers: dict[tuple[str, int, str], tuple[str, str | None, str | None]] = field(default_factory=dict)
    """(method, probe, kind) -> (code, reason, problem) of the B→A call, for the controls."""
    leaks: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    webhook_port: int = 0
    http_address: str = ""
    """The HTTP port (Connect and gRPC-Web): the refusal phases run over it too."""
    over_http: bool = False
    """Whether ``call`` goes through the HTTP port (gRPC-Web) rather than gRPC."""
    clock: ManualClock | None = None
    webhook_codes: Counter[str] = field(default_factory=Counter)
    webhook_answers: dict[int, tuple[int, str]] = field(default_factory=dict)
    """webhook probe -> (status, code) of its B→A request, for the controls."""

    def digest(self) -> str:
        return tables.digest(self.conn)

    def _data_version(self) -> int | None:
        """SQLite's ``PRAGMA data_version``: it moves with every commit of another connection
        (None on PostgreSQL, which has no such counter)."""
        if isinstance(self.conn, sqlite3.Connection):
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        return None

    def unchanged(self) -> bool:
        """Whether the database is as it was at the last check (its digest; the first check reads
        it). On SQLite the digest is skipped while nothing committed since (``data_version``): the
        bytes are then the same by construction, and reading every table after every call is most
        of the matrix's time."""
        version = self._data_version()
        if version is not None and version == self.last_version and self.last_digest:
            return True
        now = self.digest()
        same = now == self.last_digest or not self.last_digest
        self.last_digest, self.last_version = now, version
        return same

    def call(self, method: str, request: ProtoMessage, metadata: Metadata) -> Outcome:
        body = request.SerializeToString()
        if self.over_http:
            outcome = http_surface.call(
                self.http_address, method, body, metadata, streaming=self.served[method], timeout=CALL_TIMEOUT
            )
            self.battery.add("http_calls")
        else:
            outcome = rpc_surface.call(
                self.channel, method, body, metadata, streaming=self.served[method], timeout=CALL_TIMEOUT
            )
        self.battery.add("calls")
        self.codes[outcome.name] += 1
        return outcome

    def scan(self, label: str, outcome: Outcome, request: ProtoMessage, metadata: Metadata, *others: World) -> None:
        """Record every marker of ``others`` the caller received without having sent it."""
        sent = request.SerializeToString() + b"".join(v.encode() for _, v in metadata)
        self.scan_bytes(label, outcome.wire, sent, str(outcome), *others)

    def scan_bytes(self, label: str, received: bytes, sent: bytes, shown: str, *others: World) -> None:
        """Record every marker of ``others`` in ``received`` that is not in ``sent``."""
        for world in others:
            for marker in world.markers:
                raw = marker.encode()
                if raw in received and raw not in sent:
                    self.leaks.append(f"{label}: {world.project}'s {marker!r} in the answer ({shown[:300]})")


def _label(method: str, *parts: str) -> str:
    return " / ".join((method.rsplit("/", 2)[-2].rsplit(".", 1)[-1] + "." + method.rsplit("/", 1)[-1], *parts))


# -- the webhook listener ---------------------------------------------------------------------------------


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The shared test settings with the public webhook listener and the HTTP port on free loopback
    ports (what ``kxm hub serve --webhook-port 0 --http-port 0`` does): B9 probes the signed webhook
    routes and the RPCs over HTTP as well as over gRPC."""
    return replace(hub_settings, webhook_port=0, http_port=0)


WEBHOOK_ROUTES = (webhooks.START, webhooks.SIGNAL)
"""The listener's routes (``kxm_grpc/server/webhooks.py``): B9 fails when one has no probe."""

HttpRequest = tuple[str, str, bytes, dict[str, str]]
"""(method, path, body, headers) of a request to the webhook listener."""


@dataclass(frozen=True)
class WebhookProbe:
    """One way a request to a signed route can name another project's definition or run, and its answer."""

    names: str
    route: str
    request: Callable[[World, World, int, str], HttpRequest]
    """(the world whose objects the route names, the caller's world with its secrets, the hub's
    time in seconds, a delivery id) -> the request."""
    status: int
    reason: Reason
    random: tuple[int, Reason] | None = None
    """What a random definition id gets instead (None: the same answer). Definition ids are the
    hub's (they name the routes), so a taken one is told from a free one, by the refusal of a
    signature that does not verify, never by anything of the project holding it."""
    control: bool = False
    """Whether the owner, with its own secrets, sends the same request and must get another answer."""


def _start_path(definition: str) -> str:
    return f"/v1/webhooks/{definition}"


def _signal_path(definition: str, run_id: str, key: str) -> str:
    return f"/v1/webhooks/{definition}/runs/{run_id}/signals/{key}"


def _start_body(caller: World) -> bytes:
    return json.dumps({"issue": {"key": f"probe-{caller.tag}"}}).encode()


def _signal_body(caller: World) -> bytes:
    return json.dumps({"status": "warning", "summary": f"probe-{caller.tag}"}).encode()


def _signed_start(signed_for: str) -> Callable[[World, World, int, str], HttpRequest]:
    """A start on the route of the other project's definition, signed with the caller's start
    secret for that route ("route") or for the caller's own definition ("own")."""

    def request(w: World, c: World, now: int, delivery: str) -> HttpRequest:
        body = _start_body(c)
        definition = w.workflow if signed_for == "route" else c.workflow
        headers = signatures.sign(c.start_secret, Kind.START, now, delivery, definition, "", "", body)
        return "POST", _start_path(w.workflow), body, headers

    return request


def _signed_signal(
    route_of: Callable[[World, World], World],
    run_of: Callable[[World, World], World],
    secret: Callable[[World], str],
    kind: Kind = Kind.SIGNAL,
    signed_for: str = "route",
) -> Callable[[World, World, int, str], HttpRequest]:
    """A signal on the route of ``route_of``'s definition naming ``run_of``'s waiting run and its key,
    signed by the caller with ``secret`` (as ``kind``), for that route ("route") or for its own ("own")."""

    def request(w: World, c: World, now: int, delivery: str) -> HttpRequest:
        body = _signal_body(c)
        route, waiting = route_of(w, c), run_of(w, c)
        path = _signal_path(route.workflow, waiting.runs["waiting"], waiting.signal_key)
        signed = (route.workflow, waiting.runs["waiting"], waiting.signal_key)
        if signed_for == "own":
            signed = (c.workflow, c.runs["waiting"], c.signal_key)
        headers = signatures.sign(secret(c), kind, now, delivery, *signed, body)
        return "POST", path, body, headers

    return request


def _unsigned(
    path_of: Callable[[World], str], body_of: Callable[[World], bytes], method: str = "POST"
) -> Callable[[World, World, int, str], HttpRequest]:
    def request(w: World, c: World, now: int, delivery: str) -> HttpRequest:
        return method, path_of(w), body_of(c), {signatures.DELIVERY_ID_HEADER: delivery}

    return request


_UNKNOWN_DEFINITION = (404, Reason.WEBHOOK_NOT_FOUND)

WEBHOOK_PROBES: tuple[WebhookProbe, ...] = (
    WebhookProbe(
        "start: the other project's definition, signed with the caller's start secret",
        webhooks.START,
        _signed_start("route"),
        401,
        Reason.WEBHOOK_SIGNATURE_INVALID,
        _UNKNOWN_DEFINITION,
        control=True,
    ),
    WebhookProbe(
        "start: the other project's definition, the caller's own signed start replayed on it",
        webhooks.START,
        _signed_start("own"),
        401,
        Reason.WEBHOOK_SIGNATURE_INVALID,
        _UNKNOWN_DEFINITION,
        control=True,
    ),
    WebhookProbe(
        "start: the other project's definition, unsigned",
        webhooks.START,
        _unsigned(lambda w: _start_path(w.workflow), _start_body),
        401,
        Reason.WEBHOOK_SIGNATURE_MISSING,
        _UNKNOWN_DEFINITION,
    ),
    WebhookProbe(
        "signal: the caller's definition naming the other project's waiting run, signed with the caller's"
        " signal secret",
        webhooks.SIGNAL,
        _signed_signal(lambda w, c: c, lambda w, c: w, lambda c: c.signal_secret),
        404,
        Reason.WORKFLOW_NOT_FOUND,
        control=True,
    ),
    WebhookProbe(
        "signal: the other project's definition and waiting run, signed with the caller's signal secret",
        webhooks.SIGNAL,
        _signed_signal(lambda w, c: w, lambda w, c: w, lambda c: c.signal_secret),
        401,
        Reason.WEBHOOK_SIGNATURE_INVALID,
        _UNKNOWN_DEFINITION,
        control=True,
    ),
    WebhookProbe(
        "signal: the other project's definition and waiting run, the caller's own signed signal replayed on it",
        webhooks.SIGNAL,
        _signed_signal(lambda w, c: w, lambda w, c: w, lambda c: c.signal_secret, signed_for="own"),
        401,
        Reason.WEBHOOK_SIGNATURE_INVALID,
        _UNKNOWN_DEFINITION,
        control=True,
    ),
    WebhookProbe(
        "signal: the other project's definition and waiting run, signed with the caller's start secret",
        webhooks.SIGNAL,
        _signed_signal(lambda w, c: w, lambda w, c: w, lambda c: c.start_secret, kind=Kind.START),
        401,
        Reason.WEBHOOK_SIGNATURE_INVALID,
        _UNKNOWN_DEFINITION,
    ),
    WebhookProbe(
        "signal: the other project's definition and waiting run, unsigned",
        webhooks.SIGNAL,
        _unsigned(lambda w: _signal_path(w.workflow, w.runs["waiting"], w.signal_key), _signal_body),
        401,
        Reason.WEBHOOK_SIGNATURE_MISSING,
        _UNKNOWN_DEFINITION,
    ),
    WebhookProbe(
        "no route: a path under the other project's definition and run",
        webhooks.OTHER,
        _unsigned(lambda w: f"/v1/webhooks/{w.workflow}/runs/{w.runs['waiting']}", _signal_body),
        404,
        Reason.ROUTE_NOT_FOUND,
    ),
    WebhookProbe(
        "GET on the other project's start route",
        webhooks.OTHER,
        _unsigned(lambda w: _start_path(w.workflow), lambda c: b"", method="GET"),
        405,
        Reason.ROUTE_NOT_FOUND,
    ),
)
"""Every request to the webhook listener B9 makes: each sent by B naming A's objects, by A naming
B's, and by A naming random ones; none may be accepted, none may answer with a byte of the other
project's it did not send, none may change the database."""


def _http(port: int, request: HttpRequest) -> tuple[int, str, bytes]:
    """Send one request to the webhook listener: its status, its error code (``""`` if none) and
    every byte received (status line, headers and body)."""
    method, path, body, headers = request
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=CALL_TIMEOUT)
    try:
        if method == "POST":
            connection.request(method, path, body=body, headers={"Content-Type": "application/json", **headers})
        else:
            connection.request(method, path, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        head = f"{response.status} {response.reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in response.getheaders())
        code = ""
        if raw and response.status >= 400:
            code = str(json.loads(raw).get("code", ""))
        return response.status, code, head.encode("latin-1") + raw
    finally:
        connection.close()


def _sent(request: HttpRequest) -> bytes:
    method, path, body, headers = request
    return f"{method} {path}".encode() + body + "".join(headers.values()).encode()


def _webhooks(run: Run, a: World, b: World, nowhere: World) -> None:
    """Phase 4: every webhook probe, B with A's definitions and runs, A with B's, A with random ones:
    each refused with its status and code (the same for another project's objects as for random
    ones, but where the route's definition id is told apart), no byte of the other project in the
    answer (status line, headers, body), the database unchanged."""
    assert run.clock is not None
    now = run.clock.now() // MICROS  # the hub's clock: a signed timestamp within 300 s of it
    for index, probe in enumerate(WEBHOOK_PROBES):
        answers: dict[str, tuple[int, str]] = {}
        for caller, objects, direction in ((b, a, "B→A"), (a, b, "A→B"), (a, nowhere, "A→random")):
            status, reason = probe.random if direction == "A→random" and probe.random else (probe.status, probe.reason)
            request = probe.request(objects, caller, now, f"probe{index}-{caller.tag}")
            got, code, wire = _http(run.webhook_port, request)
            label = f"webhook {probe.route} / probe {index} ({probe.names}) / {direction}"
            run.battery.add("webhook_calls")
            run.battery.add("webhook_refused", got >= 400)
            run.webhook_codes[f"{got} {code}".strip()] += 1
            if (got, code) != (status, str(reason)):
                run.wrong.append(f"{label}: {got} {code} (wanted {status} {reason})")
            answers[direction] = (got, code)
            if not run.unchanged():
                run.changed.append(label)
            other = b if caller is a else a
            run.scan_bytes(label, wire, _sent(request), wire.decode("utf-8", "replace"), other)
        run.webhook_answers[index] = answers["B→A"]
        if answers["B→A"] != answers["A→B"] or (probe.random is None and answers["A→random"] != answers["B→A"]):
            run.wrong.append(f"webhook probe {index} ({probe.names}): the answers differ: {answers}")


def _webhook_controls(run: Run, a: World) -> None:
    """The webhook controls: each probe that has one, sent by A with its own secrets for its own
    definition and run, gets another answer than B got (so B's refusal is the boundary's)."""
    assert run.clock is not None
    now = run.clock.now() // MICROS
    for index, probe in enumerate(WEBHOOK_PROBES):
        if not probe.control:
            continue
        got, code, _ = _http(run.webhook_port, probe.request(a, a, now, f"control{index}-{a.tag}"))
        run.battery.add("webhook_control_calls")
        if (got, code) == run.webhook_answers[index]:
            run.wrong.append(
                f"webhook probe {index} ({probe.names}): its owner gets the same answer as another project"
                f" ({got} {code}): the probe does not test the boundary"
            )


class NotifyReceiver:
    """A loopback receiver of the hub's outbound workflow notifications: answers 204, keeps (path, body)."""

    def __init__(self) -> None:
        received: list[tuple[str, bytes]] = []
        self.received = received

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                received.append((self.path, self.rfile.read(int(self.headers.get("content-length", "0")))))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="b9-notify", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> NotifyReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


async def _deliver_notifications(hub: Hub) -> int:
    """Send the queued notifications now and wait until none is pending, so that no delivery
    changes the database while the matrix runs; how many there are."""
    sender = hub.server.notifications
    assert sender is not None

    def counts() -> tuple[int, int]:
        with tables.raw_connection(hub.database) as conn:
            total = conn.execute("SELECT count(*) FROM workflow_notifications").fetchone()[0]
            pending = conn.execute("SELECT count(*) FROM workflow_notifications WHERE deliver_time IS NULL")
            return int(total), int(pending.fetchone()[0])

    deadline = time.monotonic() + 30
    while True:
        await sender.send_due()
        total, pending = await asyncio.to_thread(counts)
        if not pending:
            return total
        assert time.monotonic() < deadline, f"{pending} workflow notifications still pending"
        await asyncio.sleep(0.05)


# -- the matrix ---------------------------------------------------------------------------------------------


BACKENDS = [
    "sqlite",
    pytest.param(
        "postgres",
        marks=[
            pytest.mark.postgres,
            pytest.mark.skipif(tier() == "pr", reason="B9 runs on PostgreSQL in the long tier (PR: SQLite)"),
        ],
    ),
]
"""The matrix on SQLite in every tier, and on PostgreSQL (a second store adapter, same SQL) in the long one."""


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
@pytest.mark.battery("B9", "projects never see each other: every RPC, every credential, another project's ids")
async def test_every_rpc_refuses_every_bad_credential_and_every_other_projects_id(
    battery: Battery, clocked_hub: tuple[Hub, Any]
) -> None:
    hub, clock = clocked_hub
    served = await asyncio.to_thread(rpc_surface.served_rpcs, hub.address)
    battery.figure("rpcs_served", len(served))
    battery.invariant("rpcs served without a B9 case", sorted(set(served) - set(CASES)), [])
    battery.invariant("B9 cases of RPCs not served", sorted(set(CASES) - set(served)), [])
    battery.invariant("rpcs served that the registry lacks", sorted(set(served) - set(RPCS)), [])
    # The hub's other surface: its public webhook listener, each of its routes probed.
    port = hub.server.webhook_port
    battery.invariant("the webhook listener serves", port is not None, True)
    assert port is not None
    probed = {probe.route for probe in WEBHOOK_PROBES}
    battery.invariant("webhook routes without a B9 probe", sorted(set(WEBHOOK_ROUTES) - probed), [])
    battery.figure("webhook_routes", len(WEBHOOK_ROUTES))
    battery.figure("webhook_probes", len(WEBHOOK_PROBES))
    http_address = hub.server.http_address
    battery.invariant("the HTTP port serves", http_address is not None, True)
    assert http_address is not None

    rng = battery.random
    with NotifyReceiver() as receiver:
        worlds = {
            "A": await build_world(
                hub, f"alpha-{rng.getrandbits(40):010x}", f"a{rng.getrandbits(48):012x}", receiver.url
            ),
            "B": await build_world(
                hub, f"bravo-{rng.getrandbits(40):010x}", f"b{rng.getrandbits(48):012x}", receiver.url
            ),
        }
        a, b = worlds["A"], worlds["B"]
        nowhere = random_world(rng)
        battery.figure("notifications_before_the_matrix", await _deliver_notifications(hub))
        owned = await asyncio.to_thread(_rows_by_owner, hub.database, a, b)
        battery.figure("rows", {table: dict(sorted(counts.items())) for table, counts in owned.items() if counts})
        battery.invariant(
            "workflow tables without rows of each project",
            sorted(t for t, c in owned.items() if t.startswith("workflow_") and not (c["A"] and c["B"])),
            [],
        )
        battery.invariant(
            "rows of project tables B9 cannot place in a project", sorted(t for t, c in owned.items() if c["?"]), []
        )

        def matrix() -> tuple[Run, bool]:  # in one thread: the database connection belongs to it
            with tables.raw_connection(hub.database) as conn, grpc.insecure_channel(hub.address) as channel:
                run = Run(battery, channel, conn, worlds, served, webhook_port=port, clock=clock)
                run.http_address = http_address
                run.unchanged()  # the digest every refused call is compared with
                _bad_credentials(run, a, b, nowhere)
                _cross_project(run, a, b, nowhere)
                # The same refusals over the HTTP port: same codes, reasons, no leak, no change.
                run.over_http = True
                over_grpc = run.served
                run.served = {m: s for m, s in over_grpc.items() if m not in http_surface.NOT_OVER_HTTP}
                _bad_credentials(run, a, b, nowhere)
                _cross_project(run, a, b, nowhere)
                run.over_http, run.served = False, over_grpc
                _streams(run, a, b)
                _webhooks(run, a, b, nowhere)
                _scoped(run, b, a)
                b_after = project_digest(conn, b.project)  # B's last call: from here on only A calls
                _scoped(run, a, b, last=False)
                _controls(run, a, b, admin_only=False)
                _webhook_controls(run, a)
                _scoped(run, a, b, last=True)
                _controls(run, a, b, admin_only=True)
                _detectors(run, a, b)
                return run, project_digest(conn, b.project) == b_after

        began = time.monotonic()
        run, b_untouched = await asyncio.to_thread(matrix)
        battery.figure("matrix_seconds", round(time.monotonic() - began, 1))
        for world in worlds.values():
            for client in world.clients:
                await client.close()
        battery.figure("notifications", await _deliver_notifications(hub))  # the controls' too
        notified = list(receiver.received)

    battery.figure("codes", dict(sorted(run.codes.items())))
    battery.figure("webhook_answers", dict(sorted(run.webhook_codes.items())))
    battery.figure("notifications_received", len(notified))
    battery.invariant("answers other than the expected one", run.wrong[:20], [])
    battery.invariant("other project's bytes in an answer", run.leaks[:20], [])
    battery.invariant("database changes by refused calls", run.changed[:20], [])
    battery.invariant("B's rows after A's scoped calls, controls and detectors", b_untouched, True)
    battery.invariant(
        "webhook probes accepted",
        battery.figures.get("webhook_calls", 0) - battery.figures.get("webhook_refused", 0),
        0,
    )
    battery.invariant("notifications with another project's bytes", _foreign_notifications(notified, a, b), [])
    battery.at_least("denied calls", battery.figures.get("denied", 0), 30 * len(served))


def _bad_credentials(run: Run, a: World, b: World, nowhere: World) -> None:
    """Phase 1: every RPC × every bad credential × every probe's request naming A's objects, B's, or none."""
    for method in run.served:
        for (index, probe), (objects, whose) in itertools.product(
            enumerate(CASES[method].probes), ((a, "A's ids"), (b, "B's ids"), (nowhere, "random ids"))
        ):
            _refuse_bad_credentials(run, method, f"probe {index}", probe.build(objects, a), whose, a, b)


def _refuse_bad_credentials(
    run: Run, method: str, probe: str, request: ProtoMessage, whose: str, a: World, b: World
) -> None:
    """Every bad credential gets its status for ``request``, changes nothing and learns nothing."""
    for bad in BAD_CREDENTIALS:
        metadata = bad.metadata(a, b)
        label = _label(method, probe, whose, bad.group, bad.name)
        outcome = run.call(method, request, metadata)
        if outcome.name != bad.status or not rpc_surface.kxm_error(outcome):
            run.wrong.append(f"{label}: {outcome} (wanted {bad.status})")
        elif (bad.status == "UNAUTHENTICATED" and outcome.reason not in UNAUTHENTICATED_REASONS) or (
            bad.status == "PERMISSION_DENIED" and outcome.reason != str(Reason.CREDENTIAL_KIND_DENIED)
        ):
            run.wrong.append(f"{label}: reason {outcome.reason}")
        run.battery.add("denied", not outcome.ok)
        run.battery.add("bad_credential_calls")
        if not run.unchanged():
            run.changed.append(label)
        run.scan(label, outcome, request, metadata, a, b)


def _admitted(facts: RpcFacts, kind: str) -> bool:
    assert facts.access is not None
    return KINDS[kind] in admitted_kinds(facts.access)


def _kinds(method: str) -> list[str]:
    """The kinds of a project's credentials B9 calls ``method`` with (its operator only where an
    operator acts in the project it names)."""
    return [kind for kind in KINDS if kind != "operator" or CASES[method].operator]


def _expect(probe: Probe, facts: RpcFacts, kind: str) -> tuple[str, str | None]:
    """The code and reason a probe must get with a credential of ``kind``."""
    if not _admitted(facts, kind):
        return "PERMISSION_DENIED", str(Reason.CREDENTIAL_KIND_DENIED)
    if probe.answer in ("SCOPED", "PER_ITEM", "EMPTY"):
        return "OK", None
    return probe.answer, str(probe.reason) if probe.reason else None


def _judge(run: Run, label: str, outcome: Outcome, probe: Probe, expected: tuple[str, str | None]) -> None:
    code, reason = expected
    if outcome.name != code:
        run.wrong.append(f"{label}: {outcome} (wanted {code} {reason or ''})")
    elif code != "OK" and (not rpc_surface.kxm_error(outcome) or (reason and outcome.reason != reason)):
        run.wrong.append(f"{label}: {outcome} (wanted reason {reason})")
    elif code == "OK" and probe.check is not None:
        problem = probe.check(outcome.responses[0])
        if problem:
            run.wrong.append(f"{label}: {problem}")


def _cross_project(run: Run, a: World, b: World, nowhere: World) -> None:
    """Phase 2: each project's credentials with the other's ids (and random ids), for every probe that
    is refused, and for every probe with a credential of a kind the RPC does not admit."""
    for method in run.served:
        facts = RPCS[method]
        for index, probe in enumerate(CASES[method].probes):
            for kind in _kinds(method):
                if not probe.refused and _admitted(facts, kind):
                    continue  # a scoped call that succeeds: phase 4
                expected = _expect(probe, facts, kind)
                answers: dict[str, tuple[str, str | None]] = {}
                for caller, objects, direction in ((b, a, "B→A"), (a, b, "A→B"), (a, nowhere, "A→random")):
                    if direction == "A→random" and not probe.random_same:
                        continue
                    request = probe.build(objects, caller)
                    metadata = caller.metadata(kind)
                    label = _label(method, f"probe {index} ({probe.names})", kind, direction)
                    outcome = run.call(method, request, metadata)
                    _judge(run, label, outcome, probe, expected)
                    answers[direction] = (outcome.name, outcome.reason)
                    if direction == "B→A":
                        run.answers[(method, index, kind)] = _answer(outcome, probe)
                    run.battery.add("denied", expected[0] != "OK" or probe.refused)
                    run.battery.add("cross_project_calls", direction != "A→random")
                    run.battery.add("random_id_calls", direction == "A→random")
                    if not run.unchanged():
                        run.changed.append(label)
                    run.scan(label, outcome, request, metadata, *(w for w in (a, b) if w is not caller))
                if len(set(answers.values())) != 1:
                    run.wrong.append(
                        f"{_label(method, probe.names, kind)}: another project's ids and random ids are told apart:"
                        f" {answers}"
                    )


def _answer(outcome: Outcome, probe: Probe) -> tuple[str, str | None, str | None]:
    problem = probe.check(outcome.responses[0]) if outcome.ok and probe.check and outcome.responses else None
    return outcome.name, outcome.reason, problem


def _controls(run: Run, a: World, b: World, *, admin_only: bool) -> None:
    """Phase 6, the controls: each refused probe's request, made by the project that owns the objects
    (its credential of the same kind; the admin's for an RPC no project credential may call), gets
    another answer than B got. So a refusal is the project boundary's, not a request that could
    never work. Last, since the owner's calls change things: A's own credentials' before A's scoped
    UnregisterAgent ends its sender's identity (``admin_only`` False), the admin's, which rotate
    A's token and revoke its operator, after all others (True)."""
    admin: Metadata = (("authorization", f"Bearer {ADMIN_TOKEN}"), ("x-kxm-project", a.project))
    cases = [
        (method, index, kind, probe)
        for method, (index, kind) in ((m, k) for m in run.served for k in _probe_kinds(m))
        for probe in (CASES[method].probes[index],)
        if admin_only != any(_admitted(RPCS[method], kind) for kind in _kinds(method))
    ]
    cases.sort(key=lambda case: not RPCS[case[0]].read_only)  # reads first: writes release and end things
    for method, index, kind, probe in cases:
        cross = run.answers.get((method, index, kind))
        if cross is None:
            continue
        metadata = a.metadata(kind) if _admitted(RPCS[method], kind) else admin
        outcome = run.call(method, probe.build(a, a), metadata)
        run.battery.add("control_calls")
        if _answer(outcome, probe) == cross:
            run.wrong.append(
                f"{_label(method, f'probe {index} ({probe.names})', kind)}: its owner gets the same answer as"
                f" another project ({cross}): the probe does not test the boundary"
            )


def _probe_kinds(method: str) -> list[tuple[int, str]]:
    """(probe, kind) of each refused probe of ``method``: the first kind the RPC admits, else ``token``."""
    facts = RPCS[method]
    kinds = [kind for kind in _kinds(method) if _admitted(facts, kind)] or ["token"]
    return [(index, kinds[0]) for index, probe in enumerate(CASES[method].probes) if probe.refused]


def _detectors(run: Run, a: World, b: World) -> None:
    """The checks see what they look for: a planted marker is a leak, a write changes the digest."""
    planted = Outcome("planted", grpc.StatusCode.OK, "", wire=f"xx{sorted(b.markers)[0]}yy".encode())
    leaks = len(run.leaks)
    run.scan("planted", planted, message_service_pb2.SubscribeRequest(), (), b)
    seen = len(run.leaks) - leaks
    del run.leaks[leaks:]
    before = run.digest(), project_digest(run.conn, a.project), project_digest(run.conn, b.project)
    outcome = run.call(  # as the admin: the controls rotated A's token
        "/kxm.v1.AgentService/RegisterAgent",
        agent_service_pb2.RegisterAgentRequest(name=f"x-{a.tag}"),
        (("authorization", f"Bearer {ADMIN_TOKEN}"), ("x-kxm-project", a.project)),
    )
    after = run.digest(), project_digest(run.conn, a.project), project_digest(run.conn, b.project)
    run.battery.invariant(
        "the detectors see a planted leak and a write",
        (seen, outcome.ok, before[0] != after[0], before[1] != after[1], before[2] == after[2]),
        (1, True, True, True, True),
    )


def _streams(run: Run, a: World, b: World) -> None:
    """Phase 3: every live agent's Subscribe stream, replayed to its head, holds nothing of the other project."""
    method = rpc_surface.SUBSCRIBE
    for world, other in ((a, b), (b, a)):
        for role in ("sender", "recipient", "moved"):
            agent_id, key = world.agents[role]
            metadata = _agent(world.token, agent_id, key)
            request = message_service_pb2.SubscribeRequest()
            outcome = run.call(method, request, metadata)
            label = _label(method, world.project, role)
            if not outcome.ok:
                run.wrong.append(f"{label}: {outcome}")
            run.battery.add("stream_events_read", len(outcome.responses))
            run.scan(label, outcome, request, metadata, other)


def _scoped(run: Run, caller: World, objects: World, *, last: bool | None = None) -> None:
    """Phase 5: the probes that succeed, in the caller's project only: reads first, then writes,
    UnregisterAgent last (B with A's names, then A with B's); ``last`` True: only the calls that end
    the caller's identity, False: all but those."""
    order: list[tuple[int, str, int, Probe]] = []
    for method in run.served:
        case = CASES[method]
        for index, probe in enumerate(case.probes):
            if not probe.refused and last in (None, case.last):
                order.append((2 if case.last else int(probe.creates), method, index, probe))
    for _, method, index, probe in sorted(order, key=lambda item: item[0]):
        facts = RPCS[method]
        kinds = [kind for kind in _kinds(method) if _admitted(facts, kind)]
        for kind in kinds[:1] if probe.creates else kinds:
            request = probe.build(objects, caller)
            metadata = caller.metadata(kind)
            label = _label(method, f"probe {index} ({probe.names})", kind, f"{caller.project[:5]} scoped")
            before = project_digest(run.conn, objects.project)
            outcome = run.call(method, request, metadata)
            _judge(run, label, outcome, probe, ("OK", None))
            run.battery.add("scoped_calls")
            if project_digest(run.conn, objects.project) != before:
                run.changed.append(f"{label}: the other project's rows changed")
            run.scan(label, outcome, request, metadata, objects)


# -- the security page ---------------------------------------------------------------------------------------

ACCESS_WORDS = {
    Access.ADMIN: "admin",
    Access.OPERATOR: "operator",
    Access.PROJECT_TOKEN: "project token",
    Access.PROJECT: "project",
    Access.AGENT: "agent",
    Access.RUNTIME: "runtime",
    Access.ANY: "any",
}


ROUTE_WORDS = {
    webhooks.START: "`POST /v1/webhooks/{definition}`",
    webhooks.SIGNAL: "`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`",
    webhooks.OTHER: "another path or method",
}


def render_isolation_table() -> str:
    """The table of docs/security.md: per RPC, what another project's ids in a request get."""
    lines = [
        "| RPC | who may call | another project's ids in the request: the answer |",
        "| --- | --- | --- |",
    ]
    for method, facts in RPCS.items():
        case = CASES.get(method)
        answers = "<br>".join(p.describe() for p in case.probes) if case else "**no B9 case**"
        access = ACCESS_WORDS.get(facts.access, "**missing**") if facts.access else "**missing**"
        lines.append(f"| `{facts.service.rsplit('.', 1)[-1]}.{facts.name}` | {access} | {answers} |")
    lines += [
        "",
        "Bad credentials, the same on every RPC: "
        + "; ".join(
            f"{group}: {', '.join(c.name for c in BAD_CREDENTIALS if c.group == group)} → `"
            + next(c.status for c in BAD_CREDENTIALS if c.group == group)
            + "`"
            for group in dict.fromkeys(c.group for c in BAD_CREDENTIALS)
        )
        + ". A valid credential of a kind the RPC does not admit (another project's token on an agent RPC,"
        " any project credential on an operator RPC) → `PERMISSION_DENIED` (`CREDENTIAL_KIND_DENIED`).",
        "",
        "The public webhook listener (`--webhook-port`), each request sent by one project with its own"
        " secrets naming the other's definition or run, and naming random ones:",
        "",
        "| route | the request | the answer | random ids |",
        "| --- | --- | --- | --- |",
    ]
    for probe in WEBHOOK_PROBES:
        random = probe.random or (probe.status, probe.reason)
        lines.append(
            f"| {ROUTE_WORDS[probe.route]} | {probe.names} | {probe.status} `{probe.reason.name}` |"
            f" {'the same' if probe.random is None else f'{random[0]} `{random[1].name}`'} |"
        )
    lines += [
        "",
        "Definition ids are the hub's, not a project's: they name the routes, so a taken id (401: the"
        " signature does not verify) is told from a free one (404), and nothing of the project holding it"
        " is said.",
    ]
    return "\n".join(lines)


def _spliced(page: str) -> str:
    start, stop = page.find(TABLE_BEGIN), page.find(TABLE_END)
    assert 0 <= start < stop, f"{SECURITY_PAGE} lacks the markers {TABLE_BEGIN!r} … {TABLE_END!r}"
    return page[: start + len(TABLE_BEGIN)] + "\n" + render_isolation_table() + "\n" + page[stop:]


@pytest.mark.battery("B9-doc", "docs/security.md lists what every RPC answers to another project's ids")
def test_the_security_page_is_the_isolation_table(battery: Battery) -> None:
    page = SECURITY_PAGE.read_text()
    battery.figure("rpcs_in_table", len(RPCS))
    battery.invariant(
        "docs/security.md is what `python -m tests.reliability.test_b9_isolation` writes", _spliced(page) == page, True
    )
    battery.invariant("RPCs without a B9 case", sorted(set(RPCS) - set(CASES)), [])


# -- the mixed run ----------------------------------------------------------------------------------------------


TARGET_NOT_FOUND = {f"NotFound:{Reason.TARGET_NOT_FOUND}", f"fanout:{Reason.TARGET_NOT_FOUND}"}


@dataclass
class Inbox:
    """One agent's stream: what it received."""

    project: str
    agent_id: str
    seen: set[str] = field(default_factory=set)
    foreign: list[str] = field(default_factory=list)
    progress: asyncio.Event = field(default_factory=asyncio.Event)
    """Set whenever a new message arrives (one event shared by every inbox of a run)."""


async def _listen(client: HubClient, inbox: Inbox, agents_of: dict[str, str], ready: asyncio.Event) -> None:
    async for event in client.messages.subscribe():
        if event.HasField("ready"):
            ready.set()
            continue
        if not event.HasField("message"):
            continue
        message = event.message
        sender_project = agents_of.get(message.from_agent_id)
        content_project = message.content.split("|", 1)[0]
        if {message.project, sender_project, content_project} != {inbox.project} or (
            message.to_agent_id != inbox.agent_id
        ):
            inbox.foreign.append(f"{inbox.project}/{inbox.agent_id} got {message.id} from {sender_project}: {message}")
        inbox.seen.add(message.id)
        inbox.progress.set()


@sqlite_only
@pytest.mark.battery("B9-mixed", "two projects × 20 agents with the same names: no delivery crosses projects")
async def test_no_delivery_crosses_projects(battery: Battery, hub: Hub) -> None:
    deliveries = battery.size(pr=10_000, long=100_000)
    agents_per_project = 20
    admin = hub.admin()
    projects = ("alpha", "bravo")
    tokens = {p: (await admin.admin.create_project(p)).project_token for p in projects}
    await admin.close()
    clients: dict[str, list[HubClient]] = {}
    agents_of: dict[str, str] = {}
    for project in projects:
        clients[project] = []
        for n in range(agents_per_project):
            client = HubClient(hub.address, token=tokens[project])
            await client.agents.register(f"agent-{n:02d}")  # the same names in both projects
            assert client.agent_id is not None
            agents_of[client.agent_id] = project
            clients[project].append(client)
    progress = asyncio.Event()
    inboxes = {c.agent_id: Inbox(p, c.agent_id or "", progress=progress) for p in projects for c in clients[p]}
    readies = {agent_id: asyncio.Event() for agent_id in inboxes}
    listeners = [
        asyncio.create_task(_listen(c, inboxes[c.agent_id or ""], agents_of, readies[c.agent_id or ""]))
        for p in projects
        for c in clients[p]
    ]
    await asyncio.wait_for(asyncio.gather(*(ready.wait() for ready in readies.values())), 30)

    accepted: dict[str, str] = {}  # message id -> recipient
    refused = Counter[str]()
    rng = battery.random
    other = {"alpha": "bravo", "bravo": "alpha"}
    planned = 0
    plans = []
    for _ in battery.bounded(deliveries, 600):
        if planned >= deliveries:
            break
        project = rng.choice(projects)
        sender = rng.randrange(agents_per_project)
        targets = rng.sample([n for n in range(agents_per_project) if n != sender], rng.choice((1, 1, 2, 3)))
        crossing = rng.random() < 0.05
        # By name or by id at random: names are the same in both projects, ids are not; a crossing
        # send names the other project's agents by id.
        if crossing:
            named = [clients[other[project]][t].agent_id or "" for t in targets]
        else:
            named = [f"agent-{t:02d}" if rng.random() < 0.5 else clients[project][t].agent_id or "" for t in targets]
        plans.append((project, sender, named, crossing))
        planned += 0 if crossing else len(targets)  # crossing targets are refused: they deliver nothing

    async def send(project: str, sender: int, named: list[str], crossing: bool, seq: int) -> None:
        client = clients[project][sender]
        content = f"{project}|{sender}|{seq}"
        if len(named) == 1:
            try:
                sent = await client.messages.send(named[0], content)
            except Exception as error:
                refused[f"{type(error).__name__}:{getattr(error, 'reason', '')}"] += 1
                return
            accepted[sent.message.id] = sent.message.to_agent_id
            return
        response = await client.messages.fanout(named, content, wait=0.0)
        for result in response.results:
            if result.status == message_service_pb2.FANOUT_STATUS_ERROR:
                refused[f"fanout:{result.error_reason}"] += 1
            else:
                accepted[result.message.id] = result.message.to_agent_id

    began = time.monotonic()
    queue: asyncio.Queue[tuple[int, tuple[str, int, list[str], bool]]] = asyncio.Queue()
    for seq, plan in enumerate(plans):
        queue.put_nowait((seq, plan))

    async def worker() -> None:
        while not queue.empty():
            seq, plan = queue.get_nowait()
            await send(*plan, seq)

    await asyncio.gather(*(worker() for _ in range(16)))
    crossing_targets = sum(len(p[2]) for p in plans if p[3])
    expected = len(accepted)

    async def all_seen() -> None:
        while sum(len(i.seen) for i in inboxes.values()) < expected:
            await progress.wait()
            progress.clear()

    with contextlib.suppress(TimeoutError):  # what is missing then is reported below
        await asyncio.wait_for(all_seen(), 120)
    seconds = time.monotonic() - began
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    for project in projects:
        for client in clients[project]:
            await client.close()

    delivered = {m for i in inboxes.values() for m in i.seen}
    misdelivered = [m for i in inboxes.values() for m in i.seen if accepted.get(m) not in (None, i.agent_id)]
    battery.figure("agents", 2 * agents_per_project)
    battery.figure("deliveries_planned", planned)
    battery.figure("deliveries_accepted", expected)
    battery.figure("deliveries_seen", sum(len(i.seen) for i in inboxes.values()))
    battery.figure("crossing_targets_tried", crossing_targets)
    battery.figure("refusals", dict(refused))
    battery.figure("seconds", round(seconds, 1))
    battery.figure("deliveries_per_s", round(len(delivered) / max(seconds, 1e-9)))
    battery.invariant("cross-project deliveries", [f for i in inboxes.values() for f in i.foreign][:10], [])
    battery.invariant("deliveries to another agent than the addressee", misdelivered[:10], [])
    battery.invariant("crossing targets refused", sum(refused.values()), crossing_targets)
    battery.invariant("refusals other than TARGET_NOT_FOUND", sorted(set(refused) - TARGET_NOT_FOUND), [])
    battery.invariant("accepted deliveries not seen by their addressee", len(set(accepted) - delivered), 0)
    battery.at_least("deliveries", len(delivered), int(deliveries * 0.9))


# -- the static check -------------------------------------------------------------------------------------------

SOURCE = REPO / "kxm_grpc"
SECRETISH = re.compile(r"token|key|secret|hash|digest|password|signature|hmac", re.IGNORECASE)

ALLOWED_COMPARISONS: dict[tuple[str, str], str] = {
    ("domain/context/state.py", "key == SET_SUFFIX"): "a state key's suffix (`[]`), not a credential",
    ("domain/workflows/engine/gate_evidence.py", "_sha256(document) != run_plan_hash"): (
        "a plan's content hash (shown on every run), not a credential"
    ),
    ("domain/workflows/engine/gate_evidence.py", "assignment.result_hash != raw.get('resultHash')"): (
        "a result envelope's content hash (in the run's events), not a credential"
    ),
    (
        "domain/workflows/engine/gate_evidence.py",
        "(raw.get('gate'), raw.get('gateHash'), raw.get('planHash')) != (gate_key(step), gate.hash, run_plan_hash)",
    ): "a gate's and a plan's content hashes (pinned in the plan, public), not credentials",
    ("domain/workflows/engine/gate_evidence.py", "pinned[key].get('hash') != gate.hash"): (
        "a gate definition's content hash (pinned in the plan, public), not a credential"
    ),
    ("domain/workflows/engine/gate_evidence.py", "key != 'evidenceHash'"): "a field name, not a credential",
    ("services/workflows/step_signals.py", "first != (received.signal_key, received.body_sha256, received.run_id)"): (
        "a signal's key and its body's hash (a replay check; the sender was authenticated first), not credentials"
    ),
    ("domain/workflows/engine/machine.py", "step.signal != key"): "signal keys (a wait step's declared signal, public)",
    ("domain/workflows/plans/commands.py", "token == '$'"): "a shell word of a gate command, not a credential",
    ("services/workflows/step_runs.py", "name_key(caller.agent_name or '') != name_key(loaded.plan.coordinator)"): (
        "agent names (a name's case-folded key)"
    ),
    ("services/workflows/step_runs.py", "kept.get('contentHash') == report.content_hash"): (
        "the content hash of a result envelope (shown in every run read), not a credential"
    ),
    # (file under kxm_grpc/, the comparison as ast.unparse writes it): why it compares no secret.
    ("client/identity.py", "name_key(str(data.get('name', ''))) == name_key(name)"): (
        "agent names (a name's case-folded key), not a credential"
    ),
    ("domain/leases.py", "token != fence.high_water"): "fencing tokens are public counters, not secrets",
    ("domain/workflows/waits.py", "key == ESCALATION_SIGNAL_KEY"): (
        "a signal key (a route segment, public) against the audit escalation's"
    ),
    ("domain/workflows/waits.py", "key != run.wait.signal_key"): "signal keys (route segments, public)",
    ("domain/workflows/checkpoints.py", "evidence_sha256(evidence.get(oracle.evidence_key, ())) != oracle.sha256"): (
        "the hash of the coordinator's own evidence against the run's reproduction oracle (shown in every run read)"
    ),
    ("domain/workflows/checkpoints.py", "evidence_sha256(evidence.get(plan.evidence_key, ())) != plan.sha256"): (
        "the hash of the coordinator's own evidence against the run's plan hash (shown in every run read)"
    ),
    ("domain/workflows/checkpoints.py", "(a.stage_id, a.requirement_key, a.visit, a.attempt) == wanted"): (
        "where a degradation approval applies (stage, requirement, visit, attempt), not a credential"
    ),
    ("domain/workflows/definitions.py", "lowered == target_key"): "agent names (a name's case-folded key)",
    ("domain/workflows/evidence.py", "canonical_requirement_key(context.requirement_key) != key"): (
        "requirement keys (names of evidence), not credentials"
    ),
    ("domain/workflows/evidence.py", "approval.requirement_key != policy.key"): "requirement keys",
    ("domain/workflows/evidence.py", "snapshot.requirement_key == policy.key"): "requirement keys",
    ("domain/workflows/reports.py", "a.requirement_key == key"): "requirement keys",
    ("domain/workflows/runs.py", "self.signal_key == ESCALATION_SIGNAL_KEY"): "signal keys (route segments, public)",
    ("domain/leases.py", "token != lease.fencing_token"): "fencing tokens are public counters, not secrets",
    ("server/settings.py", "(self.tls_cert is None) != (self.tls_key is None)"): (
        "whether both TLS files are given (two booleans)"
    ),
    ("server/settings.py", "(self.webhook_tls_cert is None) != (self.webhook_tls_key is None)"): (
        "whether both webhook TLS files are given (two booleans)"
    ),
    ("server/journal_keys.py", "previous != keyring.current"): (
        "journal key ids (logged at every start), never the keys' secrets"
    ),
    ("services/auth.py", "(credentials.agent_id is None) != (credentials.agent_key is None)"): (
        "whether both halves of an agent identity are present (two booleans)"
    ),
    ("services/runtimes.py", "existing == event.content_hash"): (
        "content hashes of sync events the runtime itself pushed: public, they are returned in every result"
    ),
    ("services/timers.py", "tx.timers.get(timer.kind, timer.key) == timer"): "a timer's row key, not a credential",
    ("services/workflows/definitions.py", "existing.hash == definition.hash"): (
        "definition hashes, which cover everything but the secrets (shown in every definition read)"
    ),
    (
        "services/workflows/definitions.py",
        "gate_registries.current(tx, compiled.project).hash != compiled.registry_hash",
    ): ("gate registry hashes (shown in every GetGateRegistry and in each step workflow's plan)"),
    ("services/workflows/gate_registries.py", "existing.hash == registry.hash"): "gate registry hashes (public)",
    ("services/workflows/step_definitions.py", "stored == (compiled.hash, compiled.source, compiled.plan)"): (
        "a step workflow's plan hash, source and plan (shown in every definition read; step workflows hold no secret)"
    ),
    ("services/workflows/runs.py", "seen.payload_sha256 != digest"): (
        "a start delivery's body hash against the one it started with (the run's `payload_sha256`, public)"
    ),
    (
        "services/workflows/signals.py",
        "(seen.signal_key, seen.payload_sha256, seen.run_id) == (key, received.body_sha256, received.run_id)",
    ): "a signal receipt's key, body hash and run against a replay's (de-duplication, after the signature verified)",
    ("store/sqlite/migrations.py", "new_key != old_key"): "a migration comparing two index definitions",
    ("store/transfer.py", "table_digest(source, table) != table_digest(target, table)"): (
        "digests of two databases' tables, computed by the operator's own copy tool"
    ),
    ("store/transfer.py", "key == 'password'"): "the name of a URL part, not its value",
    ("store/transfer.py", "digest(target.conn) != wanted"): "a copy's digest against its source's, not a secret",
}
"""Every ``==`` / ``!=`` in kxm_grpc whose operands are named like secrets but are not (each with why).
Credentials are compared only through ``domain/secrets.py`` (``hmac.compare_digest``); a stored hash is
looked up by the hash of the presented secret (SHA-256 of 32 random bytes: the lookup's timing tells
nothing of the secret)."""


def secretish_comparisons() -> Iterator[tuple[str, str]]:
    """(file, comparison) of every ``==`` / ``!=`` with an operand named like a secret."""
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        if relative.startswith("_gen/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Compare) or not any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
                continue
            names = [
                n.id if isinstance(n, ast.Name) else n.attr
                for operand in (node.left, *node.comparators)
                for n in ast.walk(operand)
                if isinstance(n, ast.Name | ast.Attribute)
            ]
            if any(SECRETISH.search(name) for name in names):
                yield relative, ast.unparse(node)


@pytest.mark.battery("B9-static", "every secret comparison is constant time (hmac.compare_digest)")
def test_every_secret_comparison_is_constant_time(battery: Battery) -> None:
    found = list(secretish_comparisons())
    battery.figure("secretish_comparisons", len(found))
    battery.figure("allowed", len(ALLOWED_COMPARISONS))
    battery.invariant(
        "== / != on secrets outside the allow-list", [f for f in found if f not in ALLOWED_COMPARISONS], []
    )
    battery.invariant("allow-list entries no longer in the code", sorted(set(ALLOWED_COMPARISONS) - set(found)), [])
    secrets_module = (SOURCE / "domain" / "secrets.py").read_text()
    battery.invariant(
        "domain/secrets.py compares through hmac.compare_digest", secrets_module.count("hmac.compare_digest("), 2
    )
    # The scan finds what it looks for: a planted comparison of a token is reported.
    planted = ast.parse("if presented_token == stored_token_hash: pass")
    hits = [
        ast.unparse(n) for n in ast.walk(planted) if isinstance(n, ast.Compare) and SECRETISH.search(ast.unparse(n))
    ]
    battery.invariant("the scan sees a planted comparison", hits, ["presented_token == stored_token_hash"])


if __name__ == "__main__":  # python -m tests.reliability.test_b9_isolation: rewrite the table of docs/security.md
    SECURITY_PAGE.write_text(_spliced(SECURITY_PAGE.read_text()))
    print(f"wrote {SECURITY_PAGE}", file=sys.stderr)
