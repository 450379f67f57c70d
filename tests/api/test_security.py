"""Every RPC refuses missing, bad and wrong-kind credentials before doing anything.

The RPCs and who may call each come from the RPC registry (the proto's ``kxm.v1.facts`` options,
read by ``kxm_grpc/server/methods.py``), so a new RPC is covered the day it is declared.
"""

from __future__ import annotations

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
from kxm_grpc.store.tables import digest, raw_connection
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
# The pairs whose refused kind is an operator's (the admin token or a named operator's token).
REFUSED_OPERATORS = [
    (facts, kind) for facts, kind in REFUSED if kind in (CredentialKind.ADMIN, CredentialKind.OPERATOR)
]
REFUSED_OPERATOR_IDS = [
    f"{facts.service.rsplit('.', 1)[-1]}.{facts.name}-{kind.value}" for facts, kind in REFUSED_OPERATORS
]


def database_digest(hub: Hub) -> str:
    """A digest of every row of every table (to prove refused calls write nothing)."""
    with raw_connection(hub.database) as conn:
        return digest(conn)


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
            if facts.client_streaming:
                # No request is written: a write racing the refusal would turn the status into grpc's
                # own INTERNAL on the client (grpc/grpc#36066); a refused call needs none.
                async for _ in channel.stream_stream(path, **kwargs)(metadata=metadata, timeout=5):
                    pass
            elif facts.server_streaming:
                async for _ in channel.unary_stream(path, **kwargs)(request_class(), metadata=metadata, timeout=5):
                    pass
            else:
                await channel.unary_unary(path, **kwargs)(request_class(), metadata=metadata, timeout=5)
        except grpc.aio.AioRpcError as exc:
            raise from_rpc_error(exc) from None


@pytest.mark.parametrize("facts", RPCS, ids=IDS)
async def test_no_credentials_is_unauthenticated(hub: Hub, project: Project, facts: RpcFacts) -> None:
    """A call without a bearer token is UNAUTHENTICATED (CREDENTIAL_MISSING) and writes nothing."""
    before = database_digest(hub)

    with pytest.raises(Exception) as caught:
        await call(hub, facts, ())

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert caught.value.reason is Reason.CREDENTIAL_MISSING  # type: ignore[attr-defined]
    assert database_digest(hub) == before


@pytest.mark.parametrize("facts", RPCS, ids=IDS)
async def test_unknown_token_is_unauthenticated(hub: Hub, project: Project, facts: RpcFacts) -> None:
    """A call with an unknown bearer token is UNAUTHENTICATED (INVALID_AUTH) and writes nothing."""
    before = database_digest(hub)

    with pytest.raises(Exception) as caught:
        await call(hub, facts, (("authorization", "Bearer kxm_proj_not-a-real-token"),))

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert caught.value.reason is Reason.INVALID_AUTH  # type: ignore[attr-defined]
    assert database_digest(hub) == before


@pytest.mark.parametrize("facts", RPCS, ids=IDS)
async def test_forged_agent_key_is_unauthenticated(
    hub: Hub, make_agent: AgentFactory, project: Project, facts: RpcFacts
) -> None:
    """A real agent id with a wrong key is refused on every RPC and changes nothing (not even presence)."""
    agent = await make_agent("victim")
    before = database_digest(hub)
    metadata = (
        ("authorization", f"Bearer {project.token}"),
        ("x-kxm-agent-id", agent.agent_id or ""),
        ("x-kxm-agent-key", "kxm_agent_forged"),
    )

    with pytest.raises(Exception) as caught:
        await call(hub, facts, metadata)

    assert getattr(caught.value, "status", None) == "UNAUTHENTICATED"
    assert database_digest(hub) == before


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
    before = database_digest(hub)

    with pytest.raises(Exception) as caught:
        await call(hub, facts, metadata)

    assert getattr(caught.value, "status", None) == "PERMISSION_DENIED"
    assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED  # type: ignore[attr-defined]
    assert database_digest(hub) == before


@pytest.mark.parametrize(("facts", "kind"), REFUSED_OPERATORS, ids=REFUSED_OPERATOR_IDS)
async def test_an_operator_refused_an_rpc_is_denied_whatever_project_it_names(
    hub: Hub, project: Project, facts: RpcFacts, kind: CredentialKind
) -> None:
    """An operator whose kind an RPC's access does not admit is PERMISSION_DENIED (CREDENTIAL_KIND_DENIED)
    before the project it names is looked up: naming one that does not exist gets the same answer as
    naming ``alpha``, never NOT_FOUND, so a refused call tells nothing of which projects exist."""
    admin = hub.admin()
    operator_token = (await admin.admin.create_operator("sec-operator")).operator_token
    await admin.close()
    bearer = ADMIN_TOKEN if kind is CredentialKind.ADMIN else operator_token
    before = database_digest(hub)

    outcomes = []
    for named in ("no-such-project", "alpha"):
        with pytest.raises(Exception) as caught:
            await call(hub, facts, (("authorization", f"Bearer {bearer}"), ("x-kxm-project", named)))
        outcomes.append((getattr(caught.value, "status", None), getattr(caught.value, "reason", None)))

    assert outcomes == [("PERMISSION_DENIED", Reason.CREDENTIAL_KIND_DENIED)] * 2
    assert database_digest(hub) == before
