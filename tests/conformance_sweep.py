"""The contract sweep of the conformance test: every RPC of ``kxm.v1``, called from every language.

``build(address, prefix)`` makes a project of its own on the hub, creates in it what
the calls need, and returns a ``Sweep``: the calls (method, credentials metadata, the request's
bytes) for the programs, in the JSON shape docs/clients.md ("The contract sweep") describes, and
for each call how its outcome becomes facts. ``facts(sweep, recorded)`` turns a program's
``sweep`` step into those facts; transcripts compare them, never ids or times.

Write a sweep for a hand run of one program:
``.venv/bin/python -m tests.conformance_sweep --addr 127.0.0.1:7331 --prefix p > sweep.json`` (the hub
started with ``--admin-token test-admin-token-0123456789 --stale-after 3600``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from kxm_grpc.client import HubClient
from kxm_grpc.domain.caller import CredentialKind
from kxm_grpc.server.methods import RPCS
from kxm_grpc.services.auth import admitted_kinds
from kxm_grpc.v1 import agent_service_pb2, ops_service_pb2
from tests.conftest import ADMIN_TOKEN
from tests.reliability import test_b9_isolation as b9

TIMEOUT_MS = 10_000

Facts = dict[str, Any]
Metadata = list[tuple[str, str]]
Extract = Callable[[list[Message]], Facts]


@dataclass
class Call:
    """One call of the sweep: what the programs send, and how its outcome is read."""

    name: str
    method: str  # "kxm.v1.AgentService/ListAgents"
    kind: str  # unary | server_stream | bidi_stream
    metadata: Metadata
    requests: list[Message]
    response_type: type[Message]
    responses: int = 1
    timeout_ms: int = TIMEOUT_MS
    extract: Extract | None = None
    """Facts taken from the decoded responses (only when the call answered OK)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "method": self.method,
            "kind": self.kind,
            "metadata": [list(pair) for pair in self.metadata],
            "requests": [base64.b64encode(r.SerializeToString()).decode() for r in self.requests],
            "responses": self.responses,
            "timeout_ms": self.timeout_ms,
        }


@dataclass
class Sweep:
    """The calls of one program's sweep, in order."""

    calls: list[Call] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"calls": [call.as_json() for call in self.calls]}

    def add(
        self,
        name: str,
        method: str,
        request: Message | list[Message],
        response_type: type[Message],
        metadata: Metadata,
        *,
        kind: str = "unary",
        responses: int = 1,
        extract: Extract | None = None,
        timeout_ms: int = TIMEOUT_MS,
    ) -> None:
        requests = request if isinstance(request, list) else [request]
        self.calls.append(Call(name, method, kind, metadata, requests, response_type, responses, timeout_ms, extract))


def called_methods(sweep: Sweep) -> set[str]:
    """The full method names (``kxm.v1.Service/Method``) the sweep calls."""
    return {call.method for call in sweep.calls}


def expected(sweep: Sweep) -> list[Facts]:
    """The facts every program must record for ``sweep`` (``facts`` without shapes): ``OUTCOMES``."""
    out = []
    for call in sweep.calls:
        code, reason, violations = OUTCOMES.get(call.name, ("OK", "", []))
        out.append(
            {
                "name": call.name,
                "code": code,
                "reason": reason,
                "domain": "kxm.dev" if reason else "",
                "violations": violations,
                "responses": call.responses if code == "OK" else 0,
            }
        )
    return out


def facts(sweep: Sweep, recorded: list[dict[str, Any]], *, shapes: bool = True) -> list[Facts]:
    """A program's recorded calls as facts, call by call (a missing or extra call is a fact too);
    with ``shapes``, each answered call's ``shape`` too (compared with the Python program's)."""
    out: list[Facts] = []
    for index, call in enumerate(sweep.calls):
        if index >= len(recorded):
            out.append({"name": call.name, "missing": True})
            continue
        got = recorded[index]
        fact: Facts = {
            "name": got.get("name"),
            "code": got.get("code"),
            "reason": got.get("reason", ""),
            "domain": got.get("domain", ""),
            "violations": list(got.get("violations", [])),
        }
        encoded = got.get("responses", [])
        fact["responses"] = len(encoded)
        if shapes and got.get("code") == "OK" and call.extract is not None:
            try:
                decoded = [call.response_type.FromString(base64.b64decode(item)) for item in encoded]
                fact["facts"] = call.extract(decoded)
            except Exception as error:  # a response the Python types cannot read is a finding
                fact["facts"] = {"undecodable": f"{type(error).__name__}: {error}"}
        out.append(fact)
    for extra in recorded[len(sweep.calls) :]:
        out.append({"name": extra.get("name"), "extra": True})
    return out


ENDING = (
    "/kxm.v1.AgentService/UnregisterAgent",
    "/kxm.v1.AdminService/RotateProjectToken",
    "/kxm.v1.AdminService/RevokeOperator",
)
"""The calls that end a credential later calls use: last, in this order (the agent's, the project
token, the operator's)."""

OUTCOMES: dict[str, tuple[str, str, list[str]]] = {
    # Error paths added on purpose (every service has at least one; AgentService's carries field violations).
    "agent.RegisterAgent.invalid": ("INVALID_ARGUMENT", "ERROR_REASON_PROTOCOL_ERROR", ["name"]),
    "ops.GetOpsSnapshot.missing": ("NOT_FOUND", "ERROR_REASON_PROJECT_NOT_FOUND", []),
    # What B9's requests meet in a project built alike, in the sweep's order (a read before the write
    # that changes it; a write after another that ended what it names).
    "admin.CreateProject": ("ALREADY_EXISTS", "ERROR_REASON_PROJECT_ALREADY_EXISTS", []),
    "context.PromoteSkill": ("FAILED_PRECONDITION", "ERROR_REASON_SKILL_NOT_PROMOTABLE", []),
    "context.RejectMemory": ("FAILED_PRECONDITION", "ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE", []),
    "context.RejectState": ("FAILED_PRECONDITION", "ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE", []),
    "lease.RenewLease": ("NOT_FOUND", "ERROR_REASON_LEASE_NOT_FOUND", []),
    "message.AckMessages": ("PERMISSION_DENIED", "ERROR_REASON_MESSAGE_FORBIDDEN", []),
    "message.ReplyToMessage": ("PERMISSION_DENIED", "ERROR_REASON_MESSAGE_FORBIDDEN", []),
    "runtime.RegisterRuntime": ("ALREADY_EXISTS", "ERROR_REASON_RUNTIME_ALREADY_EXISTS", []),
    "workflow.ApproveDegradation": ("INVALID_ARGUMENT", "ERROR_REASON_WORKFLOW_DEGRADATION_FORBIDDEN", []),
    "workflow.ApproveStep": ("FAILED_PRECONDITION", "ERROR_REASON_WORKFLOW_NOT_WAITING", []),
    "workflow.Checkpoint": ("FAILED_PRECONDITION", "ERROR_REASON_WORKFLOW_TERMINAL", []),
    "workflow.CompleteAssignment": ("PERMISSION_DENIED", "ERROR_REASON_ASSIGNMENT_FORBIDDEN", []),
    "workflow.EscalateStage": ("FAILED_PRECONDITION", "ERROR_REASON_WORKFLOW_NOT_RUNNING", []),
    "workflow.RecoverStepRun": ("FAILED_PRECONDITION", "ERROR_REASON_WORKFLOW_NOT_BLOCKED", []),
    "workflow.Wait": ("FAILED_PRECONDITION", "ERROR_REASON_WORKFLOW_NOT_RUNNING", []),
}
"""Every call's expected code, reason and field violations, when it is not OK."""

TIME_DEPENDENT = frozenset({"presence"})
"""Fields whose value depends on when the call runs (an agent's presence lapses): left out of shapes."""

CREDENTIAL = {
    # An agent that is not a participant is refused these (WORKFLOW_FORBIDDEN); the operator reads them.
    "/kxm.v1.WorkflowService/AuditGateEvidence": "operator",
    "/kxm.v1.WorkflowService/ListWorkflowRunEvents": "operator",
    # A new agent, registered with the project token (B9's probe resumes the world's agent, whose new
    # key would end the credential of every later call).
    "/kxm.v1.AgentService/RegisterAgent": "token",
}


@dataclass
class _HubAddress:
    """What B9's ``build_world`` needs of a hub: its address and an admin client."""

    address: str

    def admin(self) -> HubClient:
        return HubClient(self.address, token=ADMIN_TOKEN)


def _credentials(world: b9.World, method: str) -> Metadata:
    """The first credential ``method`` admits, of: the world's agent, runtime, operator, the admin."""
    if method in CREDENTIAL:
        return list(world.metadata(CREDENTIAL[method]))
    access = RPCS[method].access
    assert access is not None, method
    admitted = admitted_kinds(access)
    for kind, credential in (
        (CredentialKind.AGENT, "agent"),
        (CredentialKind.RUNTIME, "runtime"),
        (CredentialKind.OPERATOR, "operator"),
    ):
        if kind in admitted:
            return list(world.metadata(credential))
    return list(_bearer(ADMIN_TOKEN))


def _bearer(token: str) -> Metadata:
    return [("authorization", f"Bearer {token}")]


def _order(method: str) -> tuple[int, int]:
    """Reads first, then writes, then the calls that end credentials (``ENDING``)."""
    if method in ENDING:
        return (2, ENDING.index(method))
    return (0 if RPCS[method].read_only else 1, 0)


def build(address: str, prefix: str) -> Sweep:
    """A project named ``prefix`` holding one object of every kind (B9's world: agents, messages in
    every state, leases, runtimes with sync events, an operator, session tokens, workflow
    definitions and runs in every state with their journals, state, skills, context items and
    memory), and a call of every RPC naming that project's own objects (B9's first probe of each
    RPC, built with the project as both the owner and the caller), with the first credential the
    RPC admits. The hub's admin token must be tests.conftest's ``ADMIN_TOKEN`` (B9's worlds are
    built with it), and its ``--stale-after`` long enough that no agent of the world lapses while
    the sweep runs.

    Raises:
        HubError: the hub refused a call that builds the world (a wrong admin token among them).
    """
    world = asyncio.run(_world(address, prefix))
    sweep = Sweep()
    sweep.add(
        "agent.RegisterAgent.invalid",
        "kxm.v1.AgentService/RegisterAgent",
        agent_service_pb2.RegisterAgentRequest(name=""),
        agent_service_pb2.RegisterAgentResponse,
        list(world.metadata("token")),
    )
    sweep.add(
        "ops.GetOpsSnapshot.missing",
        "kxm.v1.OpsService/GetOpsSnapshot",
        ops_service_pb2.GetOpsSnapshotRequest(project=f"{prefix}-missing"),
        ops_service_pb2.GetOpsSnapshotResponse,
        list(_bearer(ADMIN_TOKEN)),
    )
    for method in sorted(b9.CASES, key=lambda m: (_order(m), m)):
        rpc = RPCS[method]
        case = b9.CASES[method]
        request = case.probes[0].build(world, world)
        if method == "/kxm.v1.AgentService/RegisterAgent":
            request = agent_service_pb2.RegisterAgentRequest(name=f"{prefix}-new", purpose="sweep", model="sweep")
        service_method = method.removeprefix("/")
        if rpc.client_streaming:
            kind = "bidi_stream"
        elif rpc.server_streaming:
            kind = "server_stream"
        else:
            kind = "unary"
        response_type = _response_type(service_method)
        sweep.add(
            _call_name(service_method),
            service_method,
            request,
            response_type,
            _credentials(world, method),
            kind=kind,
            extract=shape,
        )
    return sweep


async def _world(address: str, prefix: str) -> b9.World:
    tag = "c" + hashlib.sha256(prefix.encode()).hexdigest()[:12]  # B9's shape of a tag: ids are made of it
    world = await b9.build_world(_HubAddress(address), prefix, tag, "http://127.0.0.1:9/notify")  # type: ignore[arg-type]
    for client in world.clients:
        await client.close()
    world.clients = []
    return world


def _call_name(method: str) -> str:
    service, _, name = method.partition("/")
    return f"{service.removeprefix('kxm.v1.').removesuffix('Service').lower()}.{name}"


def _response_type(method: str) -> type[Message]:
    service, _, name = method.partition("/")
    descriptor = descriptor_pool.Default().FindServiceByName(service).FindMethodByName(name).output_type
    return message_factory.GetMessageClass(descriptor)


def shape(responses: list[Message]) -> Facts:
    """What a response holds, without values that name objects or times: the paths of the fields set
    (repeated fields as ``name[]``, their elements' paths merged), and the value of every enum and
    bool. Equal for the same call on two projects built alike, so equal across languages; a field a
    language's types dropped changes it."""
    paths: set[str] = set()
    values: dict[str, set[Any]] = {}
    for response in responses:
        _walk(response, "", paths, values)
    seen = {path: sorted(found, key=str) for path, found in sorted(values.items())}
    return {"fields": sorted(paths), "values": seen, "count": len(responses)}


def _walk(message: Message, prefix: str, paths: set[str], values: dict[str, set[Any]]) -> None:
    if message.DESCRIPTOR.full_name in _OPAQUE:
        paths.add(prefix.rstrip(".") or "(value)")
        return
    for descriptor, value in message.ListFields():
        if descriptor.name in TIME_DEPENDENT:
            continue
        path = prefix + descriptor.name
        repeated = descriptor.is_repeated
        if descriptor.message_type is not None and descriptor.message_type.GetOptions().map_entry:
            paths.add(path + "{}")
            continue
        items = list(value) if repeated else [value]
        shown = path + ("[]" if repeated else "")
        paths.add(shown)
        for item in items:
            if descriptor.type == FieldDescriptor.TYPE_MESSAGE:
                _walk(item, shown + ".", paths, values)
            elif descriptor.type == FieldDescriptor.TYPE_ENUM and descriptor.enum_type is not None:
                name = descriptor.enum_type.values_by_number.get(item)
                values.setdefault(shown, set()).add(name.name if name else item)
            elif descriptor.type == FieldDescriptor.TYPE_BOOL:
                values.setdefault(shown, set()).add(item)


_OPAQUE = frozenset(
    {
        "google.protobuf.Struct",
        "google.protobuf.Value",
        "google.protobuf.ListValue",
        "google.protobuf.Timestamp",
        "google.protobuf.Duration",
    }
)
"""Messages whose inner layout is data, not contract (JSON payloads; times, whose nanos may be zero by
chance): only whether they are set."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addr", required=True)
    parser.add_argument("--prefix", required=True)
    args = parser.parse_args(argv)
    sweep = build(args.addr, args.prefix)
    sys.stdout.write(json.dumps(sweep.as_json()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
