"""The one rule picking local state or the per-user profile (``kxm_grpc.client.config.state_for``),
for credentials and saved agent keys alike, without a hub. The profile is always a scratch
``XDG_CONFIG_HOME`` (tests/conftest.py); the working directory is a scratch folder."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kxm_grpc.client.config import resolve, state_for, update_project_token
from kxm_grpc.client.identity import agents_dir, load_identity, save_identity

A = "127.0.0.1:7001"
B = "127.0.0.1:7002"


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KXM_TOKEN", "KXM_ADMIN_TOKEN", "KXM_CREDENTIALS", "KXM_ADDR", "KXM_PROJECT", "KXM_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")


@pytest.fixture
def profile(_user_profile: Path) -> Path:
    """A profile for hub A with a project token, an admin token and alice's key; its folder."""
    folder = _user_profile / "kxm"
    folder.mkdir()
    (folder / "credentials.json").write_text(
        json.dumps({"address": A, "projects": {"default": "profile-token"}, "admin_token": "profile-admin"})
    )
    save_identity("default", "alice", "agt_1", "profile-key", address=A)
    assert (folder / "agents" / "default").is_dir()
    return folder


def test_the_profile_applies_outside_a_hub_folder_for_its_own_hub(profile: Path) -> None:
    for address in (None, A):
        where = state_for(address)
        assert where.profile and where.agents_dir == profile / "agents"
        assert resolve(address).token == "profile-token"
        assert resolve(address).address == A
        assert load_identity("default", "alice", address=address) == {
            "name": "alice",
            "agent_id": "agt_1",
            "agent_key": "profile-key",
        }


@pytest.mark.parametrize("variable", ["KXM_DATA_DIR", "KXM_CREDENTIALS"])
def test_a_set_variable_means_local_state_and_its_missing_file_never_falls_through(
    profile: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """``KXM_CREDENTIALS=/nonexistent`` or a data folder without credentials.json read the profile and
    could send its admin token to the profile's hub; now nothing is read, and the list says why."""
    value = str(tmp_path / "state") if variable == "KXM_DATA_DIR" else str(tmp_path / "nonexistent.json")
    monkeypatch.setenv(variable, value)
    local = Path(value) / "credentials.json" if variable == "KXM_DATA_DIR" else Path(value)

    config = resolve(admin=True)

    assert config.token is None and config.token_source is None
    assert config.address == "127.0.0.1:7331"  # the default, not the profile's hub
    assert config.looked_in == (
        "KXM_ADMIN_TOKEN",
        f"{local} (no such file)",
        f"{profile / 'credentials.json'} (not read: {variable} is set)",
    )
    assert not state_for(None).profile
    assert load_identity("default", "alice") is None
    if variable == "KXM_DATA_DIR":
        assert agents_dir() == tmp_path / "state" / "agents"


@pytest.mark.parametrize("marker", ["credentials.json", "agents"])
def test_a_local_credentials_file_or_agents_folder_means_local_state(profile: Path, marker: str) -> None:
    Path(".kxm").mkdir()
    if marker == "agents":
        (Path(".kxm") / marker).mkdir()
    else:
        (Path(".kxm") / marker).write_text(json.dumps({"address": B}))
    where = state_for(None)
    assert not where.profile and where.agents_dir == Path(".kxm") / "agents"
    assert resolve().token is None


def test_another_hubs_address_uses_neither_the_profiles_tokens_nor_its_keys(
    profile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for given in ("argument", "KXM_ADDR"):
        if given == "KXM_ADDR":
            monkeypatch.setenv("KXM_ADDR", B)
        address = B if given == "argument" else None
        config = resolve(address, admin=True)
        assert (config.address, config.token) == (B, None)
        assert config.looked_in[-1] == f"{profile / 'credentials.json'} (for hub {A}, not {B})"
        assert resolve(address).token is None
        assert load_identity("default", "alice", address=address) is None
        assert agents_dir(address) == Path(".kxm") / "agents"


def test_a_gate_workers_keys_stay_put_when_it_makes_its_workspaces(profile: Path) -> None:
    """``kxm gate worker`` makes ``.kxm/gate-workspaces``: that alone must not move its keys folder."""
    before = agents_dir(A)
    Path(".kxm/gate-workspaces").mkdir(parents=True)
    assert before == agents_dir(A) == profile / "agents"
    assert load_identity("default", "alice", address=A) is not None


def test_update_project_token_never_writes_another_hubs_profile(profile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = (profile / "credentials.json").read_text()

    assert update_project_token("default", "new", address=B) is False
    monkeypatch.setenv("KXM_ADDR", B)
    assert update_project_token("default", "new") is False
    assert (profile / "credentials.json").read_text() == before

    monkeypatch.delenv("KXM_ADDR")
    (profile / "credentials.tmp").write_text("left over")
    (profile / "credentials.tmp").chmod(0o644)
    assert update_project_token("default", "new", address=A) is True
    assert json.loads((profile / "credentials.json").read_text())["projects"] == {"default": "new"}
    assert (profile / "credentials.json").stat().st_mode & 0o777 == 0o600


def test_update_project_token_with_local_state_writes_only_the_local_file(
    profile: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = tmp_path / "state" / "credentials.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"address": A, "projects": {"default": "old"}}))
    monkeypatch.setenv("KXM_DATA_DIR", str(local.parent))
    before = (profile / "credentials.json").read_text()

    assert update_project_token("default", "new", address=A) is True

    assert json.loads(local.read_text())["projects"] == {"default": "new"}
    assert (profile / "credentials.json").read_text() == before


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.usefixtures("umask_022")
def test_every_folder_made_for_secrets_is_0700(_user_profile: Path, tmp_path: Path) -> None:
    """The profile folder and each agents level (``.kxm`` too, when a save makes it) are 0700."""
    (_user_profile / "kxm").mkdir()
    (_user_profile / "kxm" / "credentials.json").write_text(json.dumps({"address": A}))
    (_user_profile / "kxm").chmod(0o755)  # made by someone else: left as it is
    save_identity("p", "alice", "agt_1", "k", address=A)
    save_identity("p", "bob", "agt_2", "k", address=B)  # another hub: local state, making .kxm

    made = [
        _user_profile / "kxm" / "agents",
        _user_profile / "kxm" / "agents" / "p",
        Path(".kxm").absolute(),
        Path(".kxm/agents").absolute(),
        Path(".kxm/agents/p").absolute(),
    ]
    assert {str(path): path.stat().st_mode & 0o777 for path in made} == {str(path): 0o700 for path in made}
    assert (_user_profile / "kxm").stat().st_mode & 0o777 == 0o755
    assert (Path(".kxm/agents/p") / "bob.json").stat().st_mode & 0o777 == 0o600
