"""The audit: every admin action writes one record, in its transaction, naming its operator.

Audited: CreateProject, RotateProjectToken, ReassignSyncProject, CreateOperator, RevokeOperator,
and RegisterAgent and RegisterRuntime when an operator (the admin or a named one) makes them in
a project it names. Nothing else is, and a failed action writes nothing at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import AlreadyExists, HubError, Internal, InvalidArgument, NotFound, Reason
from kxm_grpc.services import audit as audit_service
from kxm_grpc.v1 import AuditRecord
from tests.api.test_security import database_digest
from tests.conftest import ADMIN_TOKEN, Hub


async def all_records(admin: HubClient, **filters: str) -> list[AuditRecord]:
    """Every audit record (newest first), fetched a page at a time."""
    records: list[AuditRecord] = []
    token = ""
    while True:
        page = await admin.admin.list_audit_records(page_token=token, **filters)
        records.extend(page.audit_records)
        token = page.next_page_token
        if not token:
            return records


def summary(record: AuditRecord) -> tuple[str, str, str, dict[str, str]]:
    """What a record says: (operator, action, target, metadata)."""
    return record.operator, record.action, record.target, dict(record.metadata)


async def test_every_admin_action_is_audited_with_its_operator(hub: Hub) -> None:
    """The bootstrap admin's actions are ``admin``'s, a named operator's its own; project-token and
    agent actions are not audited; records come newest first with ids, times and no secret."""
    admin = hub.admin()
    created = await admin.admin.create_operator("alice")
    alice = HubClient(hub.address, token=created.operator_token)
    alpha = await admin.admin.create_project("alpha")
    beta = await alice.admin.create_project("beta")
    await alice.admin.rotate_project_token("beta")
    moved = await alice.runtimes.reassign_sync_project("prj_runtime01", "beta")

    # In a project: a project token registers an agent and a runtime (not audited); it unregisters;
    # the admin resumes it (audited), alice registers a fresh one and re-registers the runtime.
    member = HubClient(hub.address, token=alpha.project_token)
    first = await member.agents.register("worker")
    await member.runtimes.register("rtm_runtime01")
    await member.agents.unregister()
    admin_in_alpha = hub.admin(project="alpha")
    resumed = await admin_in_alpha.agents.register("worker")
    alice_in_alpha = HubClient(hub.address, token=created.operator_token, project="alpha")
    fresh = await alice_in_alpha.agents.register("helper")
    await alice_in_alpha.runtimes.register("rtm_runtime01")
    await admin.admin.revoke_operator("alice")

    records = await all_records(admin)

    assert resumed.resumed and resumed.agent.id == first.agent.id
    assert [summary(r) for r in records] == [
        ("admin", "RevokeOperator", "operators/alice", {}),
        ("alice", "RegisterRuntime", "projects/alpha/runtimes/rtm_runtime01", {"rotated": "true"}),
        ("alice", "RegisterAgent", f"projects/alpha/agents/{fresh.agent.id}", {"name": "helper", "resumed": "false"}),
        ("admin", "RegisterAgent", f"projects/alpha/agents/{first.agent.id}", {"name": "worker", "resumed": "true"}),
        (
            "alice",
            "ReassignSyncProject",
            "syncProjects/prj_runtime01",
            {"project": "beta", "previousProject": "", "movedEvents": str(moved.moved_events)},
        ),
        ("alice", "RotateProjectToken", "projects/beta", {}),
        ("alice", "CreateProject", "projects/beta", {}),
        ("admin", "CreateProject", "projects/alpha", {}),
        ("admin", "CreateOperator", "operators/alice", {}),
    ]
    assert all(r.id.startswith("aud_") and len(r.id) == 36 for r in records)
    times = [r.create_time.ToMicroseconds() for r in records]
    assert times == sorted(times, reverse=True)
    wire = b"".join(r.SerializeToString() for r in records)
    for secret in (ADMIN_TOKEN, created.operator_token, alpha.project_token, beta.project_token):
        assert secret.encode() not in wire
    for client in (admin, alice, member, admin_in_alpha, alice_in_alpha):
        await client.close()


async def test_records_filter_by_operator_and_action_and_page(hub: Hub) -> None:
    """operator and action filter (alone or together); pages of page_size cover every record once;
    a page token works only with the filters that issued it."""
    admin = hub.admin()
    alice = HubClient(hub.address, token=(await admin.admin.create_operator("alice")).operator_token)
    for index in range(5):
        await admin.admin.create_project(f"admin-{index}")
        await alice.admin.create_project(f"alice-{index}")
    await alice.admin.rotate_project_token("alice-0")

    everything = await all_records(admin)
    pages = []
    token = ""
    while True:
        page = await admin.admin.list_audit_records(page_size=3, page_token=token)
        pages.append(len(page.audit_records))
        token = page.next_page_token
        if not token:
            break
    by_alice = await all_records(admin, operator="alice")
    by_admin = await all_records(admin, operator="admin")
    alice_creations = await all_records(admin, operator="alice", action="CreateProject")
    rotations = await all_records(admin, action="RotateProjectToken")
    first = await admin.admin.list_audit_records(page_size=2, operator="alice")
    with pytest.raises(InvalidArgument) as foreign:
        await admin.admin.list_audit_records(page_size=2, page_token=first.next_page_token)

    assert len(everything) == 12  # CreateOperator, 10 projects, 1 rotation
    assert pages == [3, 3, 3, 3]
    assert [r.id for r in by_alice] == [r.id for r in everything if r.operator == "alice"]
    assert len(by_alice) == 6 and {r.operator for r in by_alice} == {"alice"}
    assert len(by_admin) == 6 and {r.action for r in by_admin} == {"CreateProject", "CreateOperator"}
    assert [r.target for r in alice_creations] == [f"projects/alice-{i}" for i in reversed(range(5))]
    assert [r.target for r in rotations] == ["projects/alice-0"]
    assert foreign.value.reason is Reason.INVALID_PAGE_TOKEN
    await admin.close()
    await alice.close()


@pytest.mark.parametrize(
    ("filters", "field"), [({"operator": "Not An Operator"}, "operator"), ({"action": "create-project"}, "action")]
)
async def test_malformed_filters_are_invalid_argument_naming_the_field(
    hub: Hub, filters: dict[str, str], field: str
) -> None:
    """An operator filter that is no operator name, or an action that is no RPC name: INVALID_ARGUMENT."""
    admin = hub.admin()

    with pytest.raises(InvalidArgument) as caught:
        await admin.admin.list_audit_records(**filters)

    assert caught.value.field_violations[0].field == field
    await admin.close()


async def test_a_failed_admin_action_writes_nothing(hub: Hub) -> None:
    """Refused admin actions leave the database as it was: no record, no half change, no version bump."""
    admin = hub.admin()
    await admin.admin.create_project("alpha")
    await admin.admin.create_operator("alice")
    await admin.admin.create_operator("bob")
    await admin.admin.revoke_operator("bob")
    member = HubClient(hub.address, token=(await admin.admin.create_project("beta")).project_token)
    await member.runtimes.register("rtm_runtime01")
    await member.agents.register("live")
    in_beta = HubClient(hub.address, token=ADMIN_TOKEN, project="beta")
    before = database_digest(hub)
    records = len(await all_records(admin))

    failing: list[tuple[Callable[[], Awaitable[Any]], type[HubError]]] = [
        (lambda: admin.admin.create_project("alpha"), AlreadyExists),
        (lambda: admin.admin.rotate_project_token("ghost"), NotFound),
        (lambda: admin.admin.create_operator("alice"), AlreadyExists),
        (lambda: admin.admin.create_operator("Bad Name"), InvalidArgument),
        (lambda: admin.admin.revoke_operator("ghost"), NotFound),
        (lambda: admin.runtimes.reassign_sync_project("prj_runtime01", "ghost"), NotFound),
        (lambda: in_beta.runtimes.register("not a runtime id"), InvalidArgument),
    ]
    for call, error in failing:
        with pytest.raises(error):
            await call()

    assert len(await all_records(admin)) == records
    assert database_digest(hub) == before
    for client in (admin, member, in_beta):
        await client.close()


async def test_a_change_and_its_record_commit_together(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    """When writing the audit record fails, the change it records is undone with it: no project,
    no token, no version bump (the record is written in the change's own transaction)."""
    admin = hub.admin()
    await admin.admin.create_project("alpha")
    before = database_digest(hub)

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the audit is unwritable")

    monkeypatch.setattr(audit_service, "record", refuse)
    with pytest.raises(Internal):
        await admin.admin.create_project("beta")
    with pytest.raises(Internal):
        await admin.admin.rotate_project_token("alpha")
    with pytest.raises(Internal):
        await admin.admin.create_operator("alice")
    monkeypatch.undo()

    assert database_digest(hub) == before
    assert [p.name for p in (await admin.admin.list_projects()).projects] == ["alpha"]
    assert list((await admin.admin.list_operators()).operators) == []
    await admin.close()
