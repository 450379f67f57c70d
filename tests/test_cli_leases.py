"""``kxm lease`` and ``kxm runtime`` against a real hub, run as a subprocess like a user would."""

from __future__ import annotations

import json
from pathlib import Path

from kxm_grpc.client import HubClient
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import kxm


async def test_lease_commands_acquire_refuse_release_and_list(hub: Hub, tmp_path: Path) -> None:
    """Alice acquires (token 1), Bob is refused with LEASE_HELD, Alice renews and releases, Bob gets token 2."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}

    # --register: the first use of each name registers it (a name with no saved key is refused without it).
    acquired = await kxm(
        "lease", "acquire", "deploy", "--as", "alice", "--register", "--ttl", "60", "--json", cwd=tmp_path, env=env
    )
    refused = await kxm("lease", "acquire", "deploy", "--as", "bob", "--register", "--json", cwd=tmp_path, env=env)
    renewed = await kxm("lease", "renew", "deploy", "1", "--as", "alice", "--json", cwd=tmp_path, env=env)
    listed = await kxm("lease", "list", "--json", cwd=tmp_path, env=env)
    got = await kxm("lease", "get", "deploy", cwd=tmp_path, env=env)
    released = await kxm("lease", "release", "deploy", "1", "--as", "alice", cwd=tmp_path, env=env)
    taken = await kxm("lease", "acquire", "deploy", "--as", "bob", "--json", cwd=tmp_path, env=env)
    missing_agent = await kxm("lease", "acquire", "deploy", cwd=tmp_path, env=env)

    assert acquired[0] == 0 and json.loads(acquired[1])["fencingToken"] == "1"
    assert refused[0] == 1 and json.loads(refused[2])["reason"] == "ERROR_REASON_LEASE_HELD"
    assert json.loads(refused[2])["metadata"]["holderAgentName"] == "alice"
    assert renewed[0] == 0 and json.loads(renewed[1])["holderAgentName"] == "alice"
    assert [lease["name"] for lease in json.loads(listed[1])["leases"]] == ["deploy"]
    assert got[1].startswith("deploy\ttoken 1\talice\tlive until ")
    assert released == (0, "deploy\treleased\n", "")
    assert json.loads(taken[1])["fencingToken"] == "2"
    assert missing_agent[0] == 1 and "--as NAME" in missing_agent[2]


async def test_releasing_another_agents_lease_names_its_holder(hub: Hub, tmp_path: Path) -> None:
    """``lease release deploy 1 --as builder`` while planner holds token 1 says the grant is planner's
    (it said "token 1 ... now at token 1")."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    await kxm("agent", "register", "builder", cwd=tmp_path, env=env)
    await kxm("lease", "acquire", "deploy", "--as", "planner", "--register", "--ttl", "60", cwd=tmp_path, env=env)

    code, _, err = await kxm("lease", "release", "deploy", "1", "--as", "builder", cwd=tmp_path, env=env)
    as_json = await kxm("lease", "release", "deploy", "1", "--as", "builder", "--json", cwd=tmp_path, env=env)

    assert code == 1
    assert err == (
        "error: ABORTED ERROR_REASON_LEASE_SUPERSEDED:"
        " fencing token 1 for deploy was granted to planner, not to builder\n"
    )
    assert json.loads(as_json[2])["metadata"]["holderAgentName"] == "planner"


async def test_runtime_list_shows_presence(hub: Hub, tmp_path: Path) -> None:
    """A registered runtime that heartbeated lists as online with its host."""
    admin = hub.admin()
    token = (await admin.create_project("alpha")).project_token
    await admin.close()
    registrar = HubClient(hub.address, token=token)
    registered = await registrar.register_runtime("rtm_laptop000001", adopt=True)
    await registrar.runtime_heartbeat(host="laptop")
    await registrar.close()
    env = {"KXM_ADDR": hub.address, "KXM_TOKEN": token, "KXM_PROJECT": "alpha"}

    text = await kxm("runtime", "list", cwd=tmp_path, env=env)
    data = await kxm("runtime", "list", "--json", cwd=tmp_path, env=env)

    assert text == (0, "rtm_laptop000001\tonline\tlaptop\n", "")
    assert json.loads(data[1])["runtimes"][0]["id"] == registered.runtime.id
