"""The contract, the server, the client and the docs agree with each other."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from google.protobuf.descriptor import ServiceDescriptor

import kxm_grpc
from kxm_grpc._gen.kxm.v1 import error_reason_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.errors import Reason
from kxm_grpc.server.app import SERVICERS
from kxm_grpc.server.methods import ACCESS
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


def test_every_rpc_has_a_client_method_of_the_same_name() -> None:
    """HubClient has ``snake_case(Rpc)`` for every RPC of every service."""
    missing = [
        f"{service.name}.{method.name}"
        for service in SERVICES
        for method in service.methods
        if not callable(getattr(HubClient, snake_case(method.name), None))
    ]

    assert missing == []


def test_every_rpc_has_an_access_policy_and_no_policy_is_stale() -> None:
    """The interceptor's method table covers exactly the contract's RPCs."""
    assert set(ACCESS) == set(all_methods())


def test_the_contract_has_the_five_services() -> None:
    """Discovery found every service (guards the glob above)."""
    assert {s.name for s in SERVICES} == {
        "AdminService",
        "AgentService",
        "MessageService",
        "LeaseService",
        "RuntimeService",
    }


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


def test_no_grpc_or_generated_imports_below_the_servicers() -> None:
    """Domain, services and store never import grpc or generated code (the layering rule)."""
    offenders = []
    for layer in ("domain", "services", "store"):
        for path in (ROOT / "kxm_grpc" / layer).rglob("*.py"):
            for line in path.read_text().splitlines():
                if re.match(r"\s*(from|import)\s+(grpc|kxm_grpc\._gen|kxm_grpc\.server|kxm_grpc\._status)\b", line):
                    offenders.append(f"{path.relative_to(ROOT)}: {line.strip()}")

    assert offenders == []
