"""Every RPC refuses missing, bad and wrong-kind credentials before doing anything."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import grpc
import pytest
from google.protobuf import message_factory

from kxm_grpc._status import from_rpc_error
from kxm_grpc.client import HubClient
from kxm_grpc.errors import Reason
from tests.conftest import AgentFactory, Hub, Project
from tests.test_contract import SERVICES

RPCS = [(service, method) for service in SERVICES for method in service.methods]
IDS = [f"{service.name}.{method.name}" for service, method in RPCS]


def database_digest(data_dir: Path) -> str:
    """A digest of every row of every table (to prove refused calls write nothing)."""
    with sqlite3.connect(data_dir / "hub.db") as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        digest = hashlib.sha256()
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY 1'):
                digest.update(repr(row).encode())
    return digest.hexdigest()


async def call(hub: Hub, service: object, method: object, metadata: tuple[tuple[str, str], ...]) -> None:
    """Call one RPC with an empty request and the given metadata; raise the HubError it returns."""
    path = f"/{service.full_name}/{method.name}"  # type: ignore[attr-defined]
    request_class = message_factory.GetMessageClass(method.input_type)  # type: ignore[attr-defined]
    response_class = message_factory.GetMessageClass(method.output_type)  # type: ignore[attr-defined]
    async with grpc.aio.insecure_channel(hub.address) as channel:
        kwargs = {
            "request_serializer": request_class.SerializeToString,
            "response_deserializer": response_class.FromString,
        }
        try:
            if method.server_streaming:  # type: ignore[attr-defined]
                async for _ in channel.unary_stream(path, **kwargs)(request_class(), metadata=metadata, timeout=5):
                    pass
            else:
                await channel.unary_unary(path, **kwargs)(request_class(), metadata=metadata, timeout=5)
        except grpc.aio.AioRpcError as exc:
            raise from_rpc_error(exc) from None


@pytest.mark.parametrize(("service", "method"), RPCS, ids=IDS)
async def test_no_credentials_is_unauthenticated(hub: Hub, project: Project, service: object, method: object) -> None:
    """A call without a bearer token is UNAUTHENTICATED (CREDENTIAL_MISSING) and writes nothing."""
    before = database_digest(hub.data_dir)

    with pytest.raises(Exception) as caught:
        await call(hub, service, method, ())

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert caught.value.reason is Reason.CREDENTIAL_MISSING  # type: ignore[attr-defined]
    assert database_digest(hub.data_dir) == before


@pytest.mark.parametrize(("service", "method"), RPCS, ids=IDS)
async def test_unknown_token_is_unauthenticated(hub: Hub, project: Project, service: object, method: object) -> None:
    """A call with an unknown bearer token is UNAUTHENTICATED (INVALID_AUTH) and writes nothing."""
    before = database_digest(hub.data_dir)

    with pytest.raises(Exception) as caught:
        await call(hub, service, method, (("authorization", "Bearer kxm_proj_not-a-real-token"),))

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert caught.value.reason is Reason.INVALID_AUTH  # type: ignore[attr-defined]
    assert database_digest(hub.data_dir) == before


@pytest.mark.parametrize(("service", "method"), RPCS, ids=IDS)
async def test_forged_agent_key_is_unauthenticated(
    hub: Hub, make_agent: AgentFactory, project: Project, service: object, method: object
) -> None:
    """A real agent id with a wrong key is refused on every RPC and changes nothing (not even presence)."""
    agent = await make_agent("victim")
    before = database_digest(hub.data_dir)
    metadata = (
        ("authorization", f"Bearer {project.token}"),
        ("x-kxm-agent-id", agent.agent_id or ""),
        ("x-kxm-agent-key", "kxm_agent_forged"),
    )

    with pytest.raises(Exception) as caught:
        await call(hub, service, method, metadata)

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert database_digest(hub.data_dir) == before


@pytest.mark.parametrize(("service", "method"), RPCS, ids=IDS)
async def test_wrong_kind_of_credential_is_refused(
    hub: Hub, make_agent: AgentFactory, project: Project, service: object, method: object
) -> None:
    """Admin RPCs refuse agents; agent RPCs refuse the admin token; runtime RPCs refuse agents;
    project-token RPCs refuse runtime keys. Project-scoped reads admit every kind of the project."""
    from kxm_grpc.server.methods import ACCESS
    from kxm_grpc.services.auth import Access
    from tests.conftest import ADMIN_TOKEN

    agent = await make_agent("caller")
    registrar = HubClient(hub.address, token=project.token)
    runtime_key = (await registrar.register_runtime("rtm_security01")).runtime_key
    await registrar.close()
    runtime_metadata = (("authorization", f"Bearer {runtime_key}"),)
    access = ACCESS[f"/{service.full_name}/{method.name}"]  # type: ignore[attr-defined]
    agent_metadata = agent.metadata
    admin_metadata = (("authorization", f"Bearer {ADMIN_TOKEN}"), ("x-kxm-project", "alpha"))
    wrong = {
        Access.ADMIN: agent_metadata,
        Access.AGENT: admin_metadata,
        Access.RUNTIME: agent_metadata,
        Access.PROJECT_TOKEN: runtime_metadata,
        Access.PROJECT: None,
        Access.ANY: None,
    }[access]
    if wrong is None:
        pytest.skip("every authenticated kind of this project may call it")
    before = database_digest(hub.data_dir)

    with pytest.raises(Exception) as caught:
        await call(hub, service, method, wrong)

    assert getattr(caught.value, "status", None) == "PERMISSION_DENIED"
    assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED  # type: ignore[attr-defined]
    assert database_digest(hub.data_dir) == before
