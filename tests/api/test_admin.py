"""AdminService and the hub's credential rules."""

from __future__ import annotations

import json
import stat
from dataclasses import replace

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import AlreadyExists, InvalidArgument, NotFound, Reason, ResourceExhausted, Unauthenticated
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings, SettingsError
from tests.conftest import Hub, sqlite_only


async def test_create_list_and_rotate(hub: Hub) -> None:
    """A rotated project token replaces the old one at once."""
    admin = hub.admin()
    created = await admin.create_project("alpha")
    await admin.create_project("beta")
    old = HubClient(hub.address, token=created.project_token)
    await old.register_agent("a")

    rotated = await admin.rotate_project_token("alpha")
    listed = await admin.list_projects()

    assert [p.name for p in listed.projects] == ["alpha", "beta"]
    assert rotated.project_token != created.project_token
    with pytest.raises(Unauthenticated):
        await old.list_agents()
    fresh = HubClient(hub.address, token=rotated.project_token)
    assert len((await fresh.list_agents()).agents) == 1
    for client in (admin, old, fresh):
        await client.close()


async def test_project_errors(hub: Hub) -> None:
    """Duplicate names, unknown projects and malformed names are refused with their reasons."""
    admin = hub.admin()
    await admin.create_project("alpha")

    with pytest.raises(AlreadyExists) as duplicate:
        await admin.create_project("alpha")
    with pytest.raises(NotFound) as unknown:
        await admin.rotate_project_token("nope")
    with pytest.raises(InvalidArgument) as malformed:
        await admin.create_project("a/b")

    assert duplicate.value.reason is Reason.PROJECT_ALREADY_EXISTS
    assert unknown.value.reason is Reason.PROJECT_NOT_FOUND
    assert malformed.value.field_violations[0].field == "name"
    await admin.close()


async def test_admin_naming_an_unknown_project_is_not_found(hub: Hub) -> None:
    """x-kxm-project must name an existing project."""
    admin = hub.admin(project="ghost")

    with pytest.raises(NotFound) as caught:
        await admin.list_agents()

    assert caught.value.reason is Reason.PROJECT_NOT_FOUND
    await admin.close()


async def test_rate_limit_is_per_identity_with_retry_info(hub_settings: Settings) -> None:
    """The limit applies per authenticated caller and says when to retry."""
    server = HubServer(replace(hub_settings, rate_limit=3, rate_window=60))
    await server.start()
    admin = HubClient(server.address, token=hub_settings.admin_token)
    token = (await admin.create_project("alpha")).project_token
    first = HubClient(server.address, token=token)
    second = HubClient(server.address, token=token)
    await first.register_agent("first")
    await second.register_agent("second")
    for _ in range(3):
        await first.heartbeat()

    with pytest.raises(ResourceExhausted) as caught:
        await first.heartbeat()
    await second.heartbeat()

    assert caught.value.reason is Reason.RATE_LIMITED
    assert caught.value.retry_after is not None and caught.value.retry_after > 0
    for client in (admin, first, second):
        await client.close()
    await server.stop(0)


@sqlite_only  # zero configuration: a shared database requires --admin-token (decision 82)
async def test_zero_configuration_hub_writes_owner_only_credentials(hub_settings: Settings) -> None:
    """Without an admin token on loopback, the hub generates one and a default project, in a 0600 file."""
    settings = replace(hub_settings, admin_token=None)
    server = HubServer(settings)
    await server.start()
    path = settings.credentials_path
    data = json.loads(path.read_text())
    client = HubClient(data["address"], token=data["projects"]["default"])

    registered = await client.register_agent("first")

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert data["admin_token"].startswith("kxm_admin_")
    assert registered.agent.project == "default"
    await client.close()
    await server.stop(0)
    restarted = HubServer(settings)
    await restarted.start()
    again = json.loads(path.read_text())
    assert again["admin_token"] == data["admin_token"]
    assert again["projects"]["default"] == data["projects"]["default"]
    await restarted.stop(0)


def test_binding_beyond_loopback_needs_an_admin_token() -> None:
    """0.0.0.0 without an explicit admin token is refused before anything starts."""
    with pytest.raises(SettingsError):
        Settings(host="0.0.0.0", admin_token=None).validate()  # noqa: S104
    Settings(host="0.0.0.0", admin_token="a-long-enough-admin-token").validate()  # noqa: S104


async def test_failed_authentication_is_rate_limited_by_peer(hub_settings: Settings) -> None:
    """Guessing tokens spends the caller address's budget: after the limit, RESOURCE_EXHAUSTED."""
    server = HubServer(replace(hub_settings, rate_limit=3, rate_window=60))
    await server.start()
    guesser = HubClient(server.address, token="kxm_proj_guess")

    for _ in range(3):
        with pytest.raises(Unauthenticated):
            await guesser.list_agents()
    with pytest.raises(ResourceExhausted) as caught:
        await guesser.list_agents()

    assert caught.value.reason is Reason.RATE_LIMITED
    await guesser.close()
    await server.stop(0)


@sqlite_only  # zero configuration: a shared database requires --admin-token (decision 82)
async def test_stale_token_in_credentials_file_is_reissued_at_start(hub_settings: Settings) -> None:
    """A zero-configuration hub repairs a credentials file whose project token was rotated elsewhere."""
    settings = replace(hub_settings, admin_token=None)
    server = HubServer(settings)
    await server.start()
    data = json.loads(settings.credentials_path.read_text())
    admin = HubClient(data["address"], token=data["admin_token"])
    await admin.rotate_project_token("default")  # the file still holds the old token
    await admin.close()
    await server.stop(0)

    restarted = HubServer(settings)
    await restarted.start()
    repaired = json.loads(settings.credentials_path.read_text())
    client = HubClient(repaired["address"], token=repaired["projects"]["default"])

    registered = await client.register_agent("after-rotation")

    assert repaired["projects"]["default"] != data["projects"]["default"]
    assert registered.agent.project == "default"
    await client.close()
    await restarted.stop(0)


def test_a_shared_database_needs_the_admin_token_given() -> None:
    """Zero configuration on PostgreSQL would give each replica an admin token of its own: refused."""
    with pytest.raises(SettingsError, match=r"shared database .* needs --admin-token"):
        Settings(database="postgresql://kxm@127.0.0.1:5999/kxm").validate()
    assert Settings(database="postgresql://kxm@127.0.0.1:5999/kxm", admin_token="x" * 20).validate()
