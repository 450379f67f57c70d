"""The contract, the server, the client and the docs agree with each other."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import tomllib
import typing
from pathlib import Path

from google.protobuf.descriptor import ServiceDescriptor

import kxm_grpc
from kxm_grpc._gen.kxm.v1 import error_reason_pb2
from kxm_grpc.client import HubClient, SyncHubClient
from kxm_grpc.client.base import Area
from kxm_grpc.client.journal import WorkflowJournal
from kxm_grpc.client.sync import SyncArea
from kxm_grpc.errors import Reason
from kxm_grpc.server.app import SERVICERS
from kxm_grpc.server.methods import RPCS, problems
from tests.conftest import Hub

ROOT = Path(__file__).resolve().parent.parent
# Every service of every generated module (found, not listed, so a new service cannot be forgotten).
SERVICES: list[ServiceDescriptor] = [
    service
    for path in sorted((ROOT / "kxm_grpc" / "_gen" / "kxm" / "v1").glob("*_pb2.py"))
    for service in importlib.import_module(f"kxm_grpc._gen.kxm.v1.{path.stem}").DESCRIPTOR.services_by_name.values()
]


def snake_case(name: str) -> str:
    """``AcquireLease`` -> ``acquire_lease``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def all_methods() -> list[str]:
    """Every kxm RPC as ``/package.Service/Method``."""
    return [f"/{service.full_name}/{method.name}" for service in SERVICES for method in service.methods]


# The RPCs of the first, flat client. Each keeps ``snake_case(Rpc)`` on HubClient for one release,
# as a deprecated alias of its namespaced method; an RPC added since gets only the namespaced one.
FLAT_ERA = frozenset(
    f"{service}.{rpc}"
    for service, rpcs in {
        "AdminService": "CreateProject ListProjects RotateProjectToken",
        "AgentService": "RegisterAgent Heartbeat UnregisterAgent ListAgents GetCallerIdentity",
        "LeaseService": "AcquireLease RenewLease ReleaseLease GetLease ListLeases CheckFence",
        "MessageService": "SendMessage GetMessage CancelMessage ReplyToMessage AckMessages ListInbox WaitMessage "
        "FanoutMessages Subscribe",
        "RuntimeService": "RegisterRuntime RuntimeHeartbeat ListRuntimes PushSyncEvents ListRunEvents "
        "ReassignSyncProject",
    }.items()
    for rpc in rpcs.split()
)


def test_every_rpc_of_the_flat_client_keeps_its_flat_name() -> None:
    """HubClient still has ``snake_case(Rpc)`` for every RPC the flat client had (deprecated for one
    release: each name delegates to the namespaced method, test_every_rpc_has_a_method_on_its_area)."""
    rpcs = {f"{service.name}.{method.name}": method.name for service in SERVICES for method in service.methods}
    missing = [
        name
        for name in sorted(FLAT_ERA)
        if name not in rpcs or not callable(getattr(HubClient, snake_case(rpcs[name]), None))
    ]

    assert missing == []


def area_method(service: ServiceDescriptor, rpc: str) -> str:
    """The namespaced client's name of an RPC: ``snake_case(Rpc)`` without its service's noun.

    ``MessageService.SendMessage`` -> ``send``, ``ReplyToMessage`` -> ``reply``, ``ListInbox`` ->
    ``list_inbox``, ``RuntimeService.RuntimeHeartbeat`` -> ``heartbeat``, ``ListRunEvents`` stays;
    AdminService has no one noun, so ``create_project`` stays too.
    """
    noun = service.name.removesuffix("Service").lower()
    return re.sub(rf"(^|_)(to_)?{noun}s?(?=_|$)", "", snake_case(rpc)).strip("_")


SUB_AREAS = {
    "RecordJournal": ("journal", "record"),
    "ListJournal": ("journal", "list"),
    "PromoteJournalEntry": ("journal", "promote"),
    "GetImprovementReport": ("journal", "report"),
    "ExportRetrospective": ("journal", "export"),
    "VerifyJournal": ("journal", "verify"),
}
"""RPCs served by a sub-area of their service's area (``hub.workflows.journal.record``), by RPC name."""


def _method_of(area: typing.Any, service: ServiceDescriptor, rpc: str) -> tuple[str, object]:
    """(the client's path to the RPC's method, the method or None)."""
    if rpc in SUB_AREAS:
        sub, verb = SUB_AREAS[rpc]
        holder = inspect.getattr_static(area, sub, None)
        getter = holder.fget if isinstance(holder, property) else getattr(holder, "func", None)
        # The async area imports its sub-area's module lazily (a cycle), so its hint needs it named.
        names = {"WorkflowJournal": WorkflowJournal}
        sub_area = (
            typing.get_type_hints(getter, localns=names)["return"] if getter else typing.get_type_hints(area).get(sub)
        )
        return f"{sub}.{verb}", getattr(sub_area, verb, None)
    name = area_method(service, rpc)
    return name, getattr(area, name, None)


def client_areas(client: type) -> dict[str, tuple[str, typing.Any]]:
    """Service full name -> (attribute, area class) of the client's sub-clients."""
    hints = typing.get_type_hints(client)
    areas: dict[str, tuple[str, typing.Any]] = {}
    for name in sorted({*dir(client), *hints}):  # SyncHubClient's areas are instance attributes
        attr = inspect.getattr_static(client, name, None)
        area = typing.get_type_hints(attr.func)["return"] if isinstance(attr, functools.cached_property) else None
        area = area or hints.get(name)
        service = getattr(getattr(area, "ASYNC", area), "SERVICE", None)
        if isinstance(area, type) and service:
            areas[service] = (name, area)
    return areas


def test_every_service_has_an_area_on_both_clients() -> None:
    """``hub.agents``, ``hub.messages``, ...: one sub-client per service, on HubClient and SyncHubClient."""
    services = {service.full_name for service in SERVICES}

    assert set(client_areas(HubClient)) == services
    assert set(client_areas(SyncHubClient)) == services
    assert {name for name, _ in client_areas(HubClient).values()} == {
        name for name, _ in client_areas(SyncHubClient).values()
    }


def test_every_rpc_has_a_method_on_its_area() -> None:
    """``hub.<area>.<area_method(Rpc)>`` exists for every RPC: the namespaced surface is complete."""
    areas = client_areas(HubClient)
    missing = [
        f"{service.name}.{method.name}: hub.{areas[service.full_name][0]}.{path}"
        for service in SERVICES
        for method in service.methods
        for path, found in [_method_of(areas[service.full_name][1], service, method.name)]
        if not callable(found)
    ]

    assert missing == []


def test_the_sync_client_mirrors_every_area_method() -> None:
    """Each blocking area declares every public method of its async area (but ``leases.hold`` and
    ``workflows.assignments``, async iterators a blocking worker replaces with ``next_assignment``
    and ``complete_assignment``, and ``agents.open_channel``, a stream a blocking caller replaces
    with the unary calls it carries)."""

    def public(cls: type, stop: type) -> set[str]:
        return {
            name
            for klass in cls.__mro__[: cls.__mro__.index(stop)]
            for name, value in vars(klass).items()
            if name[0].islower() and callable(value)  # methods, not ASYNC or SERVICE
        }

    mismatched = {
        area.__name__: public(area, SyncArea) ^ (public(area.ASYNC, Area) - {"hold", "assignments", "open_channel"})
        for _, area in client_areas(SyncHubClient).values()
    }

    assert mismatched == {name: set() for name in mismatched}


def test_every_rpc_declares_every_fact_and_no_fact_is_stale() -> None:
    """The RPC registry (the proto's kxm.v1.facts options) covers exactly the contract's RPCs, and
    every RPC declares every fact consistently (tests/test_rpc_facts.py tests the checks)."""
    assert set(RPCS) == set(all_methods())
    assert problems(RPCS.values()) == []


def test_the_contract_has_the_eight_services() -> None:
    """Discovery found every service (guards the glob above)."""
    assert {s.name for s in SERVICES} == {
        "AdminService",
        "AgentService",
        "ContextService",
        "MessageService",
        "OpsService",
        "LeaseService",
        "RuntimeService",
        "WorkflowService",
    }


def test_the_areas_have_their_names() -> None:
    """Each service's area attribute, on both clients (so a renamed area is a visible change)."""
    expected = {
        "kxm.v1.AdminService": "admin",
        "kxm.v1.AgentService": "agents",
        "kxm.v1.ContextService": "context",
        "kxm.v1.LeaseService": "leases",
        "kxm.v1.MessageService": "messages",
        "kxm.v1.OpsService": "ops",
        "kxm.v1.RuntimeService": "runtimes",
        "kxm.v1.WorkflowService": "workflows",
    }

    assert {service: name for service, (name, _) in client_areas(HubClient).items()} == expected
    assert {service: name for service, (name, _) in client_areas(SyncHubClient).items()} == expected


def test_the_workflow_area_names_follow_the_rule() -> None:
    """``area_method`` drops the noun "workflow" (``workflows.start_run`` for StartWorkflowRun), in contract order."""
    (service,) = [s for s in SERVICES if s.name == "WorkflowService"]

    assert [area_method(service, method.name) for method in service.methods if method.name not in SUB_AREAS] == [
        "register_definition",
        "get_definition",
        "list_definitions",
        "register_gate_registry",
        "get_gate_registry",
        "start_run",
        "get_run",
        "list_runs",
        "cancel_run",
        "rerun_run",
        "checkpoint",
        "wait",
        "signal_run",
        "approve_degradation",
        "escalate_stage",
        "resolve_escalation",
        "complete_assignment",
        "next_assignment",
        "approve_step",
        "recover_step_run",
        "list_run_events",
        "audit_gate_evidence",
    ]


def test_the_context_area_names_follow_the_rule() -> None:
    """``area_method`` drops the noun "context" (``context.get_packet`` for GetContextPacket), in contract order."""
    (service,) = [s for s in SERVICES if s.name == "ContextService"]

    assert [area_method(service, method.name) for method in service.methods] == [
        "put_items",
        "get_packet",
        "recall",
        "get_state",
        "list_state_set",
        "propose_state",
        "promote_state",
        "reject_state",
        "list_episodes",
        "explain_item",
        "delete_items",
        "create_skill",
        "evaluate_skill",
        "promote_skill",
        "reject_skill",
        "get_skill",
        "list_skills",
        "sync_memory",
        "list_memory",
        "propose_memory",
        "promote_memory",
        "reject_memory",
    ]


async def test_every_service_is_served_and_reflected(hub: Hub) -> None:
    """A running hub serves (and reflects) exactly the contract's services, plus health and reflection."""
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    def listed() -> set[str]:
        import grpc

        with grpc.insecure_channel(hub.address) as channel:
            return set(ProtoReflectionDescriptorDatabase(channel).get_services())

    import asyncio

    services = await asyncio.to_thread(listed)

    assert services == {s.full_name for s in SERVICES} | {
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
    }
    assert len(SERVICERS) == len(SERVICES)


def test_reason_mirrors_the_proto_enum() -> None:
    """kxm_grpc.errors.Reason has exactly the proto ErrorReason values (but UNSPECIFIED)."""
    proto_names = {v.name for v in error_reason_pb2.ErrorReason.DESCRIPTOR.values} - {"ERROR_REASON_UNSPECIFIED"}

    assert {r.value for r in Reason} == proto_names


def test_every_reason_is_documented() -> None:
    """docs/errors.md names every reason."""
    text = (ROOT / "docs" / "errors.md").read_text()

    assert [r.value for r in Reason if f"`{r.value}`" not in text] == []


def test_public_surface_is_pinned() -> None:
    """The package exports the client and the error classes, nothing by accident."""
    assert sorted(kxm_grpc.__all__) == sorted(
        [
            "Aborted",
            "AlreadyExists",
            "Cancelled",
            "DeadlineExceeded",
            "FailedPrecondition",
            "HubClient",
            "HubError",
            "Internal",
            "InvalidArgument",
            "NotFound",
            "PermissionDenied",
            "Reason",
            "ResourceExhausted",
            "SyncHubClient",
            "Unauthenticated",
            "Unavailable",
            "Unimplemented",
        ]
    )


def test_the_layering_contracts_hold() -> None:
    """``lint-imports`` keeps every contract in pyproject.toml's ``[tool.importlinter]``: domain,
    store and services import neither grpc nor generated code nor the layers above them (lazy
    imports inside functions and indirect chains included), and the client none of the hub's."""
    result = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_domain_contract_names_every_other_top_level_module() -> None:
    """``kxm_grpc.domain`` may import only ``kxm_grpc.errors``: its contract forbids every other
    top-level module, so a new module is forbidden to the domain from the day it is added."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (domain,) = [c for c in config["contracts"] if c.get("source_modules") == ["kxm_grpc.domain"]]
    top_level = {f"kxm_grpc.{module.name}" for module in pkgutil.iter_modules(kxm_grpc.__path__)}

    assert top_level - {"kxm_grpc.domain", "kxm_grpc.errors"} <= set(domain["forbidden_modules"])


def test_the_sync_client_takes_the_same_arguments() -> None:
    """SyncHubClient's constructor (written out, for type checkers) matches HubClient's."""
    assert inspect.signature(SyncHubClient.__init__) == inspect.signature(HubClient.__init__)


# The hub's time in the server layer: ``hub.now()`` for an instant, ``hub.clock`` (a Clock) for a
# service that reads it more than once. A bound ``hub.now`` passed as a clock, or ``hub.clock.now()``
# for an instant, is a second spelling of one of them.
_OTHER_TIME_SPELLINGS = re.compile(r"\bhub\.now\b(?!\()|\bhub\.clock\.now\(")


def test_the_server_spells_the_hubs_time_one_way() -> None:
    """No module of kxm_grpc/server passes ``hub.now`` uncalled or calls ``hub.clock.now()``."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "kxm_grpc" / "server").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if _OTHER_TIME_SPELLINGS.search(line)
    ]

    assert found == []
