"""Credentials outside the hub's folder: where a token was looked for, and the per-user profile
(``kxm profile save|show``), with the real ``kxm`` against a real hub. HOME and XDG_CONFIG_HOME
are always scratch folders."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import Reason, Unauthenticated
from tests.conftest import Hub, Project
from tests.test_cli import ROOT, kxm

# The variables that would let a command find a token without the files under test (empty is unset).
_CLEAR = {"KXM_TOKEN": "", "KXM_ADMIN_TOKEN": "", "KXM_CREDENTIALS": "", "KXM_ADDR": "", "KXM_PROJECT": ""}


def _outside(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An empty folder (no .kxm) and an environment whose profile is ``tmp_path/home/.config/kxm``."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    env = _CLEAR | {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": ""}
    return folder, env


def _closed_address() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


@pytest.fixture(autouse=True)
def _no_token_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    # The in-process client must see none of these. (The ``kxm`` runs get them empty through _CLEAR,
    # which every client treats as unset, KXM_DATA_DIR included; removing them here is simply plainer.)
    for name in ("KXM_TOKEN", "KXM_ADMIN_TOKEN", "KXM_CREDENTIALS", "KXM_ADDR", "KXM_PROJECT", "KXM_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)


async def test_a_command_without_a_token_names_every_place_looked_in_order_without_dialling(tmp_path: Path) -> None:
    """Outside the folder every command failed with CREDENTIAL_MISSING and no word about where it looked;
    now it fails before dialling (no hub listens at the address: not UNAVAILABLE) and names each place."""
    folder, env = _outside(tmp_path)
    address = _closed_address()
    local = folder / ".kxm" / "credentials.json"
    profile = tmp_path / "home" / ".config" / "kxm" / "credentials.json"

    code, out, err = await kxm("agent", "list", "--addr", address, cwd=folder, env=env)
    admin = await kxm("admin", "project", "list", "--addr", address, "--json", cwd=folder, env=env)

    assert (code, out) == (1, "")
    assert err == (
        "error: UNAUTHENTICATED ERROR_REASON_CREDENTIAL_MISSING: no project token for project 'default' found;"
        f" looked in --token, KXM_TOKEN, {local} (no such file), {profile} (no such file)\n"
    )
    error = json.loads(admin[2])
    assert admin[0] == 1
    assert (error["code"], error["reason"]) == ("UNAUTHENTICATED", "ERROR_REASON_CREDENTIAL_MISSING")
    assert error["message"].endswith(
        f"looked in --token, KXM_ADMIN_TOKEN, {local} (no such file), {profile} (no such file)"
    )


async def test_a_profile_saved_in_the_hub_folder_serves_commands_run_anywhere(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    """``kxm profile save`` in the folder copies address and token to ~/.config/kxm (0600, no overwrite
    without --force); elsewhere, commands find them there, and agents are saved beside them."""
    here = tmp_path / "repo"
    (here / ".kxm").mkdir(parents=True)
    (here / ".kxm" / "credentials.json").write_text(
        json.dumps({"address": hub.address, "projects": {"alpha": project.token}})
    )
    folder, env = _outside(tmp_path)
    env = env | {"KXM_PROJECT": "alpha"}
    profile = tmp_path / "home" / ".config" / "kxm"

    saved = await kxm("profile", "save", "--json", cwd=here, env=env)
    again = await kxm("profile", "save", cwd=here, env=env)
    forced = await kxm("profile", "save", "--force", cwd=here, env=env)
    registered = await kxm("agent", "register", "alice", "--json", cwd=folder, env=env)
    listed = await kxm("agent", "list", "--json", cwd=folder, env=env)
    shown = await kxm("profile", "show", "--json", cwd=folder, env=env)
    shown_text = await kxm("profile", "show", cwd=folder, env=env)

    assert saved[0] == 0, saved[2]
    assert json.loads(saved[1]) == {
        "path": str(profile / "credentials.json"),
        "address": hub.address,
        "projects": ["alpha"],
        "adminToken": False,
    }
    assert (profile / "credentials.json").stat().st_mode & 0o777 == 0o600
    # Each folder the save made is 0700 whatever the umask (the test's is usually 022).
    assert [(p.stat().st_mode & 0o777) for p in (profile.parent, profile)] == [0o700, 0o700]
    assert json.loads((profile / "credentials.json").read_text())["projects"] == {"alpha": project.token}
    assert again[0] == 1 and "exists; replace it with --force" in again[2]
    assert forced[0] == 0
    assert registered[0] == 0, registered[2]
    assert [a["name"] for a in json.loads(listed[1])["agents"]] == ["alice"]
    assert (profile / "agents" / "alpha" / "alice.json").stat().st_mode & 0o777 == 0o600
    sources = json.loads(shown[1])
    assert sources["credentialsFile"] == str(profile / "credentials.json")
    assert sources["token"] == {"source": str(profile / "credentials.json")}
    assert sources["address"] == {"value": hub.address, "source": str(profile / "credentials.json")}
    assert sources["project"] == {"value": "alpha", "source": "KXM_PROJECT"}
    assert sources["adminToken"] == {"source": None}
    assert sources["agentsDir"] == str(profile / "agents")
    printed = "".join(out + err for _, out, err in (saved, again, forced, shown, shown_text))
    assert project.token not in printed


async def test_the_python_client_says_where_it_looked_when_the_hub_finds_no_token(
    hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client's CREDENTIAL_MISSING keeps its status and reason and carries the same places as a note."""
    monkeypatch.chdir(tmp_path)

    async with HubClient(hub.address) as client:
        with pytest.raises(Unauthenticated) as caught:
            await client.agents.list()

    assert caught.value.reason is Reason.CREDENTIAL_MISSING
    notes = getattr(caught.value, "__notes__", [])
    assert len(notes) == 1
    assert notes[0].startswith("hint: no project token for project 'default' found; looked in the token argument,")
    assert f"KXM_TOKEN, {tmp_path / '.kxm' / 'credentials.json'} (no such file)" in notes[0]


@pytest.mark.parametrize("variable", ["KXM_DATA_DIR", "KXM_CREDENTIALS"])
async def test_a_set_variable_with_no_file_never_reads_the_profile(tmp_path: Path, variable: str) -> None:
    """A data folder without credentials.json, or ``KXM_CREDENTIALS`` naming no file, read the profile
    and could send its admin token to its hub; now the command stops, saying the profile was not read."""
    folder, env = _outside(tmp_path)
    profile = tmp_path / "home" / ".config" / "kxm" / "credentials.json"
    profile.parent.mkdir(parents=True)
    profile.write_text(json.dumps({"address": _closed_address(), "admin_token": "profile-admin"}))
    local = tmp_path / "state" / "credentials.json" if variable == "KXM_DATA_DIR" else tmp_path / "none.json"
    env |= {variable: str(local.parent if variable == "KXM_DATA_DIR" else local)}

    code, out, err = await kxm("admin", "project", "list", cwd=folder, env=env)

    assert (code, out) == (1, "")
    assert err.endswith(
        f"looked in --token, KXM_ADMIN_TOKEN, {local} (no such file), {profile} (not read: {variable} is set)\n"
    )


async def test_another_hubs_address_uses_neither_the_profiles_token_nor_its_agent_keys(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    """A profile belongs to its hub: with ``--addr`` naming another, its token is not sent there, and a
    register there neither presents nor overwrites the key the profile keeps for its own hub."""
    folder, env = _outside(tmp_path)
    other = _closed_address()
    profile = tmp_path / "home" / ".config" / "kxm"
    (profile / "agents" / "alpha").mkdir(parents=True)
    (profile / "credentials.json").write_text(json.dumps({"address": other, "projects": {"alpha": project.token}}))
    kept = json.dumps({"name": "alice", "agent_id": "agt_other", "agent_key": "other-hubs-key"})
    (profile / "agents" / "alpha" / "alice.json").write_text(kept)
    env |= {"KXM_PROJECT": "alpha"}

    refused = await kxm("agent", "register", "alice", "--addr", hub.address, cwd=folder, env=env)
    registered = await kxm(
        "agent", "register", "alice", "--addr", hub.address, "--token", project.token, cwd=folder, env=env
    )

    assert refused[0] == 1
    assert refused[2].endswith(f"{profile / 'credentials.json'} (for hub {other}, not {hub.address})\n")
    assert registered[0] == 0, registered[2]
    assert (profile / "agents" / "alpha" / "alice.json").read_text() == kept
    assert json.loads((folder / ".kxm" / "agents" / "alpha" / "alice.json").read_text())["name"] == "alice"


async def test_a_refused_checkpoint_prints_the_result_and_exits_2(hub: Hub, project: Project, tmp_path: Path) -> None:
    """``kxm gate run --run/--stage --as``: no token, or an ``--as`` name with no saved key, exited 1
    (which means the code failed) without the result; they are refused checkpoints: result, exit 2."""
    folder, env = _outside(tmp_path)
    gate = ("gate", "run", "--run", "r", "--stage", "s", "--as", "ghost", "--json", "--", sys.executable, "-c", "pass")

    no_token = await kxm(*gate, "--addr", _closed_address(), cwd=folder, env=env)
    env |= {"KXM_ADDR": hub.address, "KXM_TOKEN": project.token, "KXM_DATA_DIR": str(tmp_path / "state")}
    unknown = await kxm(*gate, cwd=folder, env=env)

    for code, out, _ in (no_token, unknown):
        assert code == 2
        assert json.loads(out)["workerResult"]["outcome"] == "passed"
    assert "ERROR_REASON_CREDENTIAL_MISSING" in no_token[2]
    assert unknown[2].startswith("error: no saved agent 'ghost' under ")


async def test_a_gate_worker_without_a_token_exits_2(tmp_path: Path) -> None:
    folder, env = _outside(tmp_path)

    code, out, err = await kxm("gate", "worker", "--once", "--addr", _closed_address(), cwd=folder, env=env)

    assert (code, out) == (2, "")
    assert "ERROR_REASON_CREDENTIAL_MISSING" in err


async def test_unregister_without_a_saved_key_says_so_and_offers_no_register(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    env = {"KXM_ADDR": hub.address, "KXM_TOKEN": project.token, "KXM_DATA_DIR": str(state)}
    await kxm("agent", "register", "alice", cwd=tmp_path, env=env)

    code, out, err = await kxm("agent", "unregister", "ghost", cwd=tmp_path, env=env)

    assert (code, out) == (1, "")
    assert err == (
        f"error: agent 'ghost' has no saved key; looked in {state / 'agents' / 'alpha'}; saved names: alice\n"
    )


async def test_a_gate_workers_key_stays_in_the_profile_after_its_workspaces_folder_appears(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    """``kxm gate worker`` makes ``.kxm/gate-workspaces``; a restarted worker still finds (and resumes
    with) the key it saved in the profile, rather than switching to ``.kxm/agents``."""
    folder, env = _outside(tmp_path)
    profile = tmp_path / "home" / ".config" / "kxm"
    profile.mkdir(parents=True)
    (profile / "credentials.json").write_text(
        json.dumps({"address": hub.address, "projects": {"alpha": project.token}})
    )
    env |= {"KXM_PROJECT": "alpha", "PYTHONPATH": ROOT}
    saved = profile / "agents" / "alpha" / "gate-worker.json"

    async def worker_until_saved(previous: str) -> dict[str, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "kxm_grpc.cli", "gate", "worker",
            cwd=folder, env={**os.environ, **env},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            for _ in range(300):
                if saved.is_file() and saved.read_text() != previous:
                    break
                await asyncio.sleep(0.05)
        finally:
            process.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(process.communicate(), 15)
        assert process.returncode == 0, err.decode()
        return dict(json.loads(saved.read_text()))

    first = await worker_until_saved("")
    (folder / ".kxm" / "gate-workspaces").mkdir(parents=True)
    second = await worker_until_saved(saved.read_text())

    assert second["agent_id"] == first["agent_id"] and second["agent_key"] != first["agent_key"]
    assert not (folder / ".kxm" / "agents").exists()
