"""Named operators: created and revoked by the bootstrap admin, acting like it, each action theirs.

The bootstrap admin (the admin token) is the operator named ``admin``; a named operator's token
(``kxm_op_…``) manages projects and acts in a project it names with ``x-kxm-project``, but cannot
manage operators or read the audit.
"""

from __future__ import annotations

import io
import json

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import AlreadyExists, InvalidArgument, NotFound, PermissionDenied, Reason, Unauthenticated
from kxm_grpc.v1 import CredentialKind, Operator
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project


async def test_an_operator_manages_projects_and_acts_in_a_project_it_names(hub: Hub) -> None:
    """CreateOperator issues a kxm_op_ token (shown once) that creates, lists and rotates projects,
    and acts in a project only by naming it; GetCallerIdentity says who it is."""
    admin = hub.admin()
    created = await admin.admin.create_operator("alice")
    alice = HubClient(hub.address, token=created.operator_token)
    in_alpha = HubClient(hub.address, token=created.operator_token, project="alpha")

    project = await alice.admin.create_project("alpha")
    rotated = await alice.admin.rotate_project_token("alpha")
    listed = await alice.admin.list_projects()
    agents = await in_alpha.agents.list()
    identity = await in_alpha.agents.get_caller_identity()
    with pytest.raises(PermissionDenied) as projectless:
        await alice.agents.list()  # a project RPC without naming the project

    assert created.operator_token.startswith("kxm_op_")
    assert created.operator.name == "alice"
    assert created.operator.HasField("create_time") and not created.operator.HasField("revoke_time")
    assert project.project.name == "alpha" and rotated.project_token != project.project_token
    assert [p.name for p in listed.projects] == ["alpha"]
    assert list(agents.agents) == []
    assert identity.credential_kind == CredentialKind.CREDENTIAL_KIND_OPERATOR
    assert (identity.operator, identity.project) == ("alice", "alpha")
    assert projectless.value.reason is Reason.CREDENTIAL_KIND_DENIED
    for client in (admin, alice, in_alpha):
        await client.close()


async def test_the_admin_token_is_the_operator_named_admin(hub: Hub) -> None:
    """GetCallerIdentity of the admin token: CREDENTIAL_KIND_ADMIN, operator ``admin``."""
    admin = hub.admin()

    identity = await admin.agents.get_caller_identity()

    assert identity.credential_kind == CredentialKind.CREDENTIAL_KIND_ADMIN
    assert identity.operator == "admin"
    await admin.close()


async def test_list_operators_shows_names_and_times_never_tokens(hub: Hub) -> None:
    """ListOperators is by name, revoked ones too (with revoke_time); no token is in the response."""
    admin = hub.admin()
    tokens = [(await admin.admin.create_operator(name)).operator_token for name in ("carol", "alice", "bob")]
    await admin.admin.revoke_operator("bob")

    first = await admin.admin.list_operators(page_size=2)
    rest = await admin.admin.list_operators(page_size=2, page_token=first.next_page_token)

    operators = [*first.operators, *rest.operators]
    assert [o.name for o in operators] == ["alice", "bob", "carol"]
    assert [o.HasField("revoke_time") for o in operators] == [False, True, False]
    assert all(o.HasField("create_time") for o in operators)
    assert rest.next_page_token == ""
    assert {f.name for f in Operator.DESCRIPTOR.fields} == {"name", "create_time", "revoke_time"}
    wire = first.SerializeToString() + rest.SerializeToString()
    assert not any(token.encode() in wire or token[7:15].encode() in wire for token in tokens)
    await admin.close()


async def test_a_revoked_operator_is_unauthenticated_at_once(hub: Hub) -> None:
    """RevokeOperator: the next call with its token is UNAUTHENTICATED, even right after a cached
    success; revoking again changes nothing (same revoke_time)."""
    admin = hub.admin()
    token = (await admin.admin.create_operator("alice")).operator_token
    alice = HubClient(hub.address, token=token)
    await alice.admin.list_projects()  # authenticated, and cached
    await alice.admin.list_projects()

    revoked = await admin.admin.revoke_operator("alice")
    with pytest.raises(Unauthenticated) as caught:
        await alice.admin.list_projects()
    again = await admin.admin.revoke_operator("alice")

    assert caught.value.reason is Reason.INVALID_AUTH
    assert revoked.operator.HasField("revoke_time")
    assert again.operator.revoke_time == revoked.operator.revoke_time
    for client in (admin, alice):
        await client.close()


async def test_a_named_operator_cannot_manage_operators_or_read_the_audit(hub: Hub) -> None:
    """CreateOperator, ListOperators, RevokeOperator and ListAuditRecords are the bootstrap admin's:
    a named operator is PERMISSION_DENIED (CREDENTIAL_KIND_DENIED), with or without a project."""
    admin = hub.admin()
    token = (await admin.admin.create_operator("alice")).operator_token
    await admin.admin.create_project("alpha")
    clients = [HubClient(hub.address, token=token), HubClient(hub.address, token=token, project="alpha")]

    for alice in clients:
        calls = (
            alice.admin.create_operator("mallory"),
            alice.admin.list_operators(),
            alice.admin.revoke_operator("alice"),
            alice.admin.list_audit_records(),
        )
        for pending in calls:
            with pytest.raises(PermissionDenied) as caught:
                await pending
            assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED

    assert [o.name for o in (await admin.admin.list_operators()).operators] == ["alice"]
    for client in (admin, *clients):
        await client.close()


async def test_projects_and_agents_never_list_operators_or_audit_records(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    """A project token (naming its own project or not) and an agent are PERMISSION_DENIED on every
    operator and audit RPC."""
    agent = await make_agent("a")
    callers = [
        HubClient(hub.address, token=project.token),
        HubClient(hub.address, token=project.token, project=project.name),
        agent,
    ]

    for caller in callers:
        for pending in (caller.admin.list_operators(), caller.admin.list_audit_records()):
            with pytest.raises(PermissionDenied) as caught:
                await pending
            assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED
    for client in callers[:2]:
        await client.close()


async def test_operator_names_are_unique_for_good_and_admin_is_taken(hub: Hub) -> None:
    """A taken name, a revoked operator's name and ``admin`` are ALREADY_EXISTS (OPERATOR_ALREADY_EXISTS)."""
    admin = hub.admin()
    await admin.admin.create_operator("alice")
    await admin.admin.create_operator("bob")
    await admin.admin.revoke_operator("bob")

    for name in ("alice", "bob", "admin"):
        with pytest.raises(AlreadyExists) as caught:
            await admin.admin.create_operator(name)
        assert caught.value.reason is Reason.OPERATOR_ALREADY_EXISTS
        assert caught.value.metadata == {"operator": name}
    await admin.close()


@pytest.mark.parametrize("name", ["", "Alice", "1alice", "a b", "a/b", "a" * 65, "al\u00efce"])
async def test_bad_operator_names_are_invalid_argument_naming_the_field(hub: Hub, name: str) -> None:
    """Names are 1-64 lowercase letters, digits, '.', '_', '-', a letter first: else INVALID_ARGUMENT on ``name``."""
    admin = hub.admin()

    with pytest.raises(InvalidArgument) as created:
        await admin.admin.create_operator(name)
    with pytest.raises(InvalidArgument) as revoked:
        await admin.admin.revoke_operator(name)

    assert created.value.field_violations[0].field == "name"
    assert revoked.value.field_violations[0].field == "name"
    assert list((await admin.admin.list_operators()).operators) == []
    await admin.close()


async def test_revoking_an_unknown_operator_or_the_admin_is_not_found(hub: Hub) -> None:
    """No named operator by that name (``admin`` is not one): NOT_FOUND (OPERATOR_NOT_FOUND)."""
    admin = hub.admin()

    for name in ("ghost", "admin"):
        with pytest.raises(NotFound) as caught:
            await admin.admin.revoke_operator(name)
        assert caught.value.reason is Reason.OPERATOR_NOT_FOUND
    await admin.close()


async def test_admin_actions_log_their_operator_and_no_token(log_lines: io.StringIO, hub: Hub) -> None:
    """Each admin action's log line carries operator= (``admin`` or the operator's name); no token
    (admin, operator or project) is ever written."""
    admin = hub.admin()
    created = await admin.admin.create_operator("alice")
    alice = HubClient(hub.address, token=created.operator_token)
    project = await alice.admin.create_project("alpha")
    rotated = await alice.admin.rotate_project_token("alpha")
    in_alpha = HubClient(hub.address, token=created.operator_token, project="alpha")
    await in_alpha.agents.register("by-alice")
    await admin.admin.revoke_operator("alice")

    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    by_event = {line["event"]: line for line in lines}
    text = log_lines.getvalue()
    assert by_event["operator_created"]["operator"] == "admin"
    assert by_event["operator_created"]["name"] == "alice"
    assert by_event["project_created"]["operator"] == "alice"
    assert by_event["project_token_rotated"]["operator"] == "alice"
    assert by_event["agent_registered"]["operator"] == "alice"
    assert by_event["operator_revoked"]["operator"] == "admin"
    for secret in (ADMIN_TOKEN, created.operator_token, project.project_token, rotated.project_token):
        assert secret not in text
    for client in (admin, alice, in_alpha):
        await client.close()
