"""B9: projects never see each other: every RPC × every credential × another project's ids, all denied.

Two projects, A and B, hold the same kinds of objects (agents, messages in every state, leases,
runtimes, sync runs, page tokens), each full of marker strings unique to it. Every RPC the hub serves
(server reflection; an RPC without a case here fails the run) is called:

1. with every bad credential (none, malformed, revoked, the other project's agent key, another
   agent's key of the same project, a valid credential naming the other project) and a request
   naming A's objects: UNAUTHENTICATED, or PERMISSION_DENIED for a valid credential naming another
   project; never anything else;
2. with each of B's credentials (project token, agent, runtime key) and a request naming A's
   objects, and the other way round, and with random ids: the answer of the RPC's row in
   ``CASES`` (NOT_FOUND or PERMISSION_DENIED, picked per RPC; see docs/security.md, generated from
   ``CASES``), and another project's id is answered exactly as a random one (same code, same reason);
3. every agent's Subscribe stream is read to its head;
4. the RPCs that take no object ids, or whose names live in the caller's own namespace, succeed
   for the caller's project only.

Every call: no marker of the other project (its ids, names, contents, hashes, secrets) in anything
the caller received (response, stream, status message, details, metadata) unless the caller put it
in its own request; a refused call leaves the database byte for byte as it was (``tables.digest``);
a call that succeeds leaves the other project's rows as they were. The hub runs on a manual clock, so
nothing a refused call did not do can change the database meanwhile (no presence renewal, no expiry).

Plus a mixed run (two projects × 20 agents with the same names, deliveries counted on every stream:
none crosses projects) and a static check that every secret comparison of kxm_grpc is constant time.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import hashlib
import itertools
import json
import re
import secrets
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2
from google.protobuf.message import Message as ProtoMessage

from kxm_grpc._gen.kxm.v1 import (
    admin_service_pb2,
    agent_service_pb2,
    lease_service_pb2,
    message_service_pb2,
    runtime_service_pb2,
)
from kxm_grpc.client import HubClient
from kxm_grpc.domain.caller import CredentialKind
from kxm_grpc.errors import Reason
from kxm_grpc.server.methods import RPCS, RpcFacts
from kxm_grpc.services.auth import Access, admitted_kinds
from kxm_grpc.store import tables
from kxm_grpc.store.sql.connection import Connection
from tests.api.test_runtimes import sync_event
from tests.conftest import ADMIN_TOKEN, Hub, sqlite_only
from tests.reliability import rpc_surface
from tests.reliability.battery import REPO, Battery, tier
from tests.reliability.rpc_surface import Metadata, Outcome

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
    markers: set[str] = field(default_factory=set)
    """Strings only this project's data contains: found in another project's answer, they are a leak."""
    clients: list[HubClient] = field(default_factory=list)

    def metadata(self, kind: str) -> Metadata:
        """This project's valid credential of ``kind`` (token, agent or runtime)."""
        if kind == "token":
            return (("authorization", f"Bearer {self.token}"),)
        if kind == "agent":
            agent_id, key = self.agents["sender"]
            return (("authorization", f"Bearer {self.token}"), ("x-kxm-agent-id", agent_id), ("x-kxm-agent-key", key))
        assert kind == "runtime"
        return (("authorization", f"Bearer {self.runtime_key}"),)


KINDS = {"token": CredentialKind.PROJECT, "agent": CredentialKind.AGENT, "runtime": CredentialKind.RUNTIME}


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
    for page in ("ListAgents", "ListLeases", "ListRuntimes", "ListInbox", "ListProjects"):
        world.pages[page] = secrets.token_urlsafe(24)
    return world


async def build_world(hub: Hub, project: str, tag: str) -> World:
    """Create ``project`` with one object of every kind, every message state and the credentials B9 needs."""
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

    world.pages["ListAgents"] = (await sender.agents.list(page_size=1)).next_page_token
    world.pages["ListLeases"] = (await sender.leases.list(page_size=1)).next_page_token
    world.pages["ListRuntimes"] = (await sender.runtimes.list(page_size=2 - 1)).next_page_token
    world.pages["ListInbox"] = (await recipient.messages.list_inbox(page_size=1)).next_page_token
    world.pages["ListProjects"] = ""  # an operator's (projects are listed by operators only)
    assert all(world.pages[page] for page in ("ListAgents", "ListLeases", "ListRuntimes", "ListInbox"))

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
    }
    return world


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


def _fanout_refused(data: bytes) -> str | None:
    response = message_service_pb2.FanoutMessagesResponse.FromString(data)
    wrong = [
        (r.target, r.status, r.error_reason)
        for r in response.results
        if r.status != message_service_pb2.FANOUT_STATUS_ERROR or r.error_reason != str(Reason.TARGET_NOT_FOUND)
    ]
    return f"targets not refused as TARGET_NOT_FOUND: {wrong}" if wrong or not response.results else None


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


def _page(rpc: str, request: Callable[[str], ProtoMessage]) -> Probe:
    return Probe(
        "`page_token`",
        lambda w, c: request(w.pages[rpc]),
        "INVALID_ARGUMENT",
        Reason.INVALID_PAGE_TOKEN,
        note="a token is bound to the query (and project) it was issued for",
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
        )
    )


A = admin_service_pb2
G = agent_service_pb2
L = lease_service_pb2
M = message_service_pb2
R = runtime_service_pb2
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
                    targets=[w.agents["recipient"][0], w.names["sender"]], content=f"probe-{c.tag}"
                ),
                "PER_ITEM",
                check=_fanout_refused,
                note="every target refused as `TARGET_NOT_FOUND` (a fanout answers per target)",
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
    return {
        "agent": agents,
        "message": messages,
        "sync": sync,
        "run": {row[0]: row[1] for row in runs},
        "pin": {row[2]: row[1] for row in runs},
        "definition": definitions,
    }


def _timer_owner(row: dict[str, Any], owners: dict[str, dict[str, str]]) -> str | None:
    if row["kind"] == "message_expiry":
        return owners["message"].get(row["key"])
    if row["kind"] == "lease_lapse":
        return str(row["key"]).split("/", 1)[0]
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
    "workflow_definitions": lambda row, o: row["project"],
    # A version outlives its definition while a run pins it: its runs' project then.
    "workflow_definition_versions": lambda row, o: (
        o["definition"].get(row["definition_id"]) or o["pin"].get(row["hash"])
    ),
    "workflow_runs": lambda row, o: row["project"],
    "workflow_deliveries": lambda row, o: o["run"].get(row["run_id"]) or o["definition"].get(row["definition_id"]),
    "workflow_steps": lambda row, o: o["run"].get(row["run_id"]),
    "workflow_payloads": lambda row, o: o["run"].get(row["run_id"]),
    "workflow_notifications": lambda row, o: o["run"].get(row["run_id"]) or o["definition"].get(row["definition_id"]),
}
"""Which project each row of each table of ``tables.TABLES`` belongs to (None: a global table)."""


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
                hashed.update(json.dumps([table.name, values], separators=(",", ":")).encode())
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
    answers: dict[tuple[str, int, str], tuple[str, str | None, str | None]] = field(default_factory=dict)
    """(method, probe, kind) -> (code, reason, problem) of the B→A call, for the controls."""
    leaks: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def digest(self) -> str:
        return tables.digest(self.conn)

    def unchanged(self) -> bool:
        """Whether the database is as it was at the last check (its digest; the first check reads it)."""
        now = self.digest()
        same = now == self.last_digest or not self.last_digest
        self.last_digest = now
        return same

    def call(self, method: str, request: ProtoMessage, metadata: Metadata) -> Outcome:
        body = request.SerializeToString()
        outcome = rpc_surface.call(
            self.channel, method, body, metadata, streaming=self.served[method], timeout=CALL_TIMEOUT
        )
        self.battery.add("calls")
        self.codes[outcome.name] += 1
        return outcome

    def scan(self, label: str, outcome: Outcome, request: ProtoMessage, metadata: Metadata, *others: World) -> None:
        """Record every marker of ``others`` the caller received without having sent it."""
        sent = request.SerializeToString() + b"".join(v.encode() for _, v in metadata)
        for world in others:
            for marker in world.markers:
                raw = marker.encode()
                if raw in outcome.wire and raw not in sent:
                    self.leaks.append(f"{label}: {world.project}'s {marker!r} in the answer ({outcome})")


def _label(method: str, *parts: str) -> str:
    return " / ".join((method.rsplit("/", 2)[-2].rsplit(".", 1)[-1] + "." + method.rsplit("/", 1)[-1], *parts))


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
    hub, _clock = clocked_hub
    served = await asyncio.to_thread(rpc_surface.served_rpcs, hub.address)
    battery.figure("rpcs_served", len(served))
    battery.invariant("rpcs served without a B9 case", sorted(set(served) - set(CASES)), [])
    battery.invariant("B9 cases of RPCs not served", sorted(set(CASES) - set(served)), [])
    battery.invariant("rpcs served that the registry lacks", sorted(set(served) - set(RPCS)), [])

    rng = battery.random
    worlds = {
        "A": await build_world(hub, f"alpha-{rng.getrandbits(40):010x}", f"a{rng.getrandbits(48):012x}"),
        "B": await build_world(hub, f"bravo-{rng.getrandbits(40):010x}", f"b{rng.getrandbits(48):012x}"),
    }
    a, b = worlds["A"], worlds["B"]
    nowhere = random_world(rng)

    def matrix() -> Run:  # in one thread: the database connection belongs to it
        with tables.raw_connection(hub.database) as conn, grpc.insecure_channel(hub.address) as channel:
            run = Run(battery, channel, conn, worlds, served)
            run.unchanged()  # the digest every refused call is compared with
            _bad_credentials(run, a, b, nowhere)
            _cross_project(run, a, b, nowhere)
            _streams(run, a, b)
            _scoped(run, a, b)
            _controls(run, a, b)
            _detectors(run, a, b)
            return run

    began = time.monotonic()
    run = await asyncio.to_thread(matrix)
    battery.figure("matrix_seconds", round(time.monotonic() - began, 1))
    for world in worlds.values():
        for client in world.clients:
            await client.close()

    battery.figure("codes", dict(sorted(run.codes.items())))
    battery.invariant("answers other than the expected one", run.wrong[:20], [])
    battery.invariant("other project's bytes in an answer", run.leaks[:20], [])
    battery.invariant("database changes by refused calls", run.changed[:20], [])
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
            for kind in KINDS:
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


def _controls(run: Run, a: World, b: World) -> None:
    """Phase 5, the controls: each refused probe's request, made by the project that owns the objects
    (its credential of the same kind; the admin's for an RPC no project credential may call), gets
    another answer than B got. So a refusal is the project boundary's, not a request that could
    never work. Last, since the owner's calls change things (the admin's, which rotate and revoke,
    after all others)."""
    admin: Metadata = (("authorization", f"Bearer {ADMIN_TOKEN}"), ("x-kxm-project", a.project))
    cases = [
        (method, index, kind, probe)
        for method, (index, kind) in ((m, k) for m in run.served for k in _probe_kinds(m))
        for probe in (CASES[method].probes[index],)
    ]
    cases.sort(key=lambda case: not any(_admitted(RPCS[case[0]], kind) for kind in KINDS))
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
    kinds = [kind for kind in KINDS if _admitted(facts, kind)] or ["token"]
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


def _scoped(run: Run, a: World, b: World) -> None:
    """Phase 4: the probes that succeed, in the caller's project only: reads first, then writes,
    UnregisterAgent last; B with A's names, then A with B's."""
    for caller, objects in ((b, a), (a, b)):
        order: list[tuple[int, str, int, Probe]] = []
        for method in run.served:
            case = CASES[method]
            for index, probe in enumerate(case.probes):
                if not probe.refused:
                    order.append((2 if case.last else int(probe.creates), method, index, probe))
        for _, method, index, probe in sorted(order, key=lambda item: item[0]):
            facts = RPCS[method]
            kinds = [kind for kind in KINDS if _admitted(facts, kind)]
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
    # (file under kxm_grpc/, the comparison as ast.unparse writes it): why it compares no secret.
    ("client/identity.py", "name_key(str(data.get('name', ''))) == name_key(name)"): (
        "agent names (a name's case-folded key), not a credential"
    ),
    ("domain/leases.py", "token != fence.high_water"): "fencing tokens are public counters, not secrets",
    ("domain/leases.py", "token != lease.fencing_token"): "fencing tokens are public counters, not secrets",
    ("server/settings.py", "(self.tls_cert is None) != (self.tls_key is None)"): (
        "whether both TLS files are given (two booleans)"
    ),
    ("services/auth.py", "(credentials.agent_id is None) != (credentials.agent_key is None)"): (
        "whether both halves of an agent identity are present (two booleans)"
    ),
    ("services/runtimes.py", "existing == event.content_hash"): (
        "content hashes of sync events the runtime itself pushed: public, they are returned in every result"
    ),
    ("services/timers.py", "tx.timers.get(timer.kind, timer.key) == timer"): "a timer's row key, not a credential",
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
