"""Every RPC refuses missing, bad and wrong-kind credentials before doing anything.

The RPCs and who may call each come from the RPC registry (the proto's ``kxm.v1.facts`` options,
read by ``kxm_grpc/server/methods.py``), so a new RPC is covered the day it is declared.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import grpc
import pytest
from google.protobuf import message_factory

from kxm_grpc._status import from_rpc_error
from kxm_grpc.client import HubClient
from kxm_grpc.domain.caller import CredentialKind
from kxm_grpc.errors import Reason
from kxm_grpc.server.methods import RPCS as REGISTRY
from kxm_grpc.server.methods import RpcFacts
from kxm_grpc.services.auth import admitted_kinds
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project

RPCS = list(REGISTRY.values())
IDS = [f"{facts.service.rsplit('.', 1)[-1]}.{facts.name}" for facts in RPCS]
# Every RPC with every kind of credential its access does not admit (the admin token naming the
# project counts as the admin's kind): each pair must be refused.
REFUSED = [
    (facts, kind)
    for facts in RPCS
    if facts.access is not None
    for kind in CredentialKind
    if kind not in admitted_kinds(facts.access)
]
REFUSED_IDS = [f"{facts.service.rsplit('.', 1)[-1]}.{facts.name}-{kind.value}" for facts, kind in REFUSED]


def database_digest(data_dir: Path) -> str:
    """A digest of every row of every table (to prove refused calls write nothing)."""
    with sqlite3.connect(data_dir / "hub.db") as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        digest = hashlib.sha256()
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY 1'):
                digest.update(repr(row).encode())
    return digest.hexdigest()


async def call(hub: Hub, facts: RpcFacts, metadata: tuple[tuple[str, str], ...]) -> None:
    """Call one RPC with an empty request and the given metadata; raise the HubError it returns."""
    method = facts.descriptor
    assert method is not None
    path = facts.method
    request_class = message_factory.GetMessageClass(method.input_type)
    response_class = message_factory.GetMessageClass(method.output_type)
    async with grpc.aio.insecure_channel(hub.address) as channel:
        kwargs = {
            "request_serializer": request_class.SerializeToString,
            "response_deserializer": response_class.FromString,
        }
        try:
            if facts.server_streaming:
                async for _ in channel.unary_stream(path, **kwargs)(request_class(), metadata=metadata, timeout=5):
                    pass
            else:
                await channel.unary_unary(path, **kwargs)(request_class(), metadata=metadata, timeout=5)
        except grpc.aio.AioRpcError as exc:
            raise from_rpc_error(exc) from None


@pytest.mark.parametrize("facts", RPCS, ids=IDS)
async def test_no_credentials_is_unauthenticated(hub: Hub, project: Project, facts: RpcFacts) -> None:
    """A call without a bearer token is UNAUTHENTICATED (CREDENTIAL_MISSING) and writes nothing."""
    before = database_digest(hub.data_dir)

    with pytest.raises(Exception) as caught:
        await call(hub, facts, ())

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert caught.value.reason is Reason.CREDENTIAL_MISSING  # type: ignore[attr-defined]
    assert database_digest(hub.data_dir) == before


@pytest.mark.parametrize("facts", RPCS, ids=IDS)
async def test_unknown_token_is_unauthenticated(hub: Hub, project: Project, facts: RpcFacts) -> None:
    """A call with an unknown bearer token is UNAUTHENTICATED (INVALID_AUTH) and writes nothing."""
    before = database_digest(hub.data_dir)

    with pytest.raises(Exception) as caught:
        await call(hub, facts, (("authorization", "Bearer kxm_proj_not-a-real-token"),))

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert caught.value.reason is Reason.INVALID_AUTH  # type: ignore[attr-defined]
    assert database_digest(hub.data_dir) == before


@pytest.mark.parametrize("facts", RPCS, ids=IDS)
async def test_forged_agent_key_is_unauthenticated(
    hub: Hub, make_agent: AgentFactory, project: Project, facts: RpcFacts
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
        await call(hub, facts, metadata)

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert database_digest(hub.data_dir) == before


@pytest.mark.parametrize(("facts", "kind"), REFUSED, ids=REFUSED_IDS)
async def test_wrong_kind_of_credential_is_refused(
    hub: Hub, make_agent: AgentFactory, project: Project, facts: RpcFacts, kind: CredentialKind
) -> None:
    """Every kind of credential an RPC's access does not admit is PERMISSION_DENIED and writes
    nothing: admin RPCs refuse named operators, agents, project tokens and runtimes; operator RPCs
    agents, project tokens and runtimes; agent RPCs operators (the admin token included), project
    tokens and runtimes; runtime RPCs everything else; project-token RPCs runtime keys.
    Project-scoped reads admit every kind of the project, so they have no case. Operators name the
    project (x-kxm-project), as they must to act in one."""
    agent = await make_agent("caller")
    registrar = HubClient(hub.address, token=project.token)
    runtime_key = (await registrar.register_runtime("rtm_security01")).runtime_key
    await registrar.close()
    admin = hub.admin()
    operator_token = (await admin.admin.create_operator("sec-operator")).operator_token
    await admin.close()
    metadata = {
        CredentialKind.AGENT: agent.metadata,
        CredentialKind.ADMIN: (("authorization", f"Bearer {ADMIN_TOKEN}"), ("x-kxm-project", "alpha")),
        CredentialKind.OPERATOR: (("authorization", f"Bearer {operator_token}"), ("x-kxm-project", "alpha")),
        CredentialKind.RUNTIME: (("authorization", f"Bearer {runtime_key}"),),
        CredentialKind.PROJECT: (("authorization", f"Bearer {project.token}"),),
    }[kind]
    before = database_digest(hub.data_dir)

    with pytest.raises(Exception) as caught:
        await call(hub, facts, metadata)

    assert getattr(caught.value, "status", None) == "PERMISSION_DENIED"
    assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED  # type: ignore[attr-defined]
    assert database_digest(hub.data_dir) == before
