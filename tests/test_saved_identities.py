"""Saved agent keys are filed under the project the hub says the credentials belong to.

Before, ``register_agent(remember=True)`` and ``kxm agent register`` filed keys under
``default/<name>`` unless ``KXM_PROJECT`` was set, so same-named agents of two projects overwrote
each other's key and the loser could never resume its agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.client.identity import identity_path, load_identity, save_identity
from tests.conftest import ADMIN_TOKEN, Hub, ProjectFactory
from tests.test_cli import kxm


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data directory for saved identities; no KXM_PROJECT, so nothing but the hub names the project."""
    monkeypatch.setenv("KXM_DATA_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("KXM_PROJECT", raising=False)
    return tmp_path / "state"


def saved(state: Path, project: str, name: str) -> dict[str, str]:
    return json.loads((state / "agents" / project / f"{name}.json").read_text())  # type: ignore[no-any-return]


async def test_same_named_agents_of_two_projects_keep_and_resume_their_own_keys(
    hub: Hub, make_project: ProjectFactory, state: Path
) -> None:
    """alpha's and beta's "planner" are saved apart, and each resumes its own id with fresh clients."""
    alpha, beta = await make_project("alpha"), await make_project("beta")
    async with HubClient(hub.address, token=alpha.token) as a, HubClient(hub.address, token=beta.token) as b:
        first_a = await a.register_agent("planner", remember=True)
        first_b = await b.register_agent("planner", remember=True)

    async with HubClient(hub.address, token=alpha.token) as a, HubClient(hub.address, token=beta.token) as b:
        again_a = await a.register_agent("planner", remember=True)
        again_b = await b.register_agent("planner", remember=True)

    assert first_a.agent.id != first_b.agent.id
    assert (again_a.resumed, again_a.agent.id) == (True, first_a.agent.id)
    assert (again_b.resumed, again_b.agent.id) == (True, first_b.agent.id)
    assert saved(state, "alpha", "planner")["agent_key"] == again_a.agent_key
    assert saved(state, "beta", "planner")["agent_key"] == again_b.agent_key
    assert not (state / "agents" / "default").exists()


async def test_a_key_under_default_is_not_presented_to_another_project(
    hub: Hub, make_project: ProjectFactory, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old ``default/<name>`` file is reused only when the hub says the project is ``default``."""
    default, beta = await make_project("default"), await make_project("beta")
    async with HubClient(hub.address, token=default.token) as old:
        registered = await old.register_agent("planner")  # as the old code left it: default/planner
    save_identity("default", "planner", registered.agent.id, registered.agent_key)
    presented: list[str] = []

    async with HubClient(hub.address, token=beta.token) as b, HubClient(hub.address, token=default.token) as d:
        for client in (b, d):
            real_call = client._call

            async def spying(method: Any, request: Any, *args: Any, real: Any = real_call, **kwargs: Any) -> Any:
                if hasattr(request, "previous_key"):
                    presented.append(request.previous_key)
                return await real(method, request, *args, **kwargs)

            monkeypatch.setattr(client, "_call", spying)
        in_beta = await b.register_agent("planner", remember=True)
        in_default = await d.register_agent("planner", remember=True)

    assert presented == ["", registered.agent_key]  # beta never saw default's key
    assert in_beta.resumed is False and in_beta.agent.project == "beta"
    assert (in_default.resumed, in_default.agent.id) == (True, registered.agent.id)
    assert saved(state, "beta", "planner")["agent_id"] == in_beta.agent.id


async def test_the_cli_files_keys_by_the_tokens_project(
    hub: Hub, make_project: ProjectFactory, tmp_path: Path, state: Path
) -> None:
    """``kxm agent register`` with two projects' tokens (no KXM_PROJECT): two files, two resumes, and
    ``--as`` commands act as their own project's agent."""
    alpha, beta = await make_project("alpha"), await make_project("beta")
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(state)}
    as_alpha, as_beta = env | {"KXM_TOKEN": alpha.token}, env | {"KXM_TOKEN": beta.token}

    first = [await kxm("agent", "register", "planner", "--json", cwd=tmp_path, env=e) for e in (as_alpha, as_beta)]
    again = [await kxm("agent", "register", "planner", "--json", cwd=tmp_path, env=e) for e in (as_alpha, as_beta)]
    gone = await kxm("agent", "unregister", "planner", "--json", cwd=tmp_path, env=as_beta)

    assert [code for code, _, _ in first + again + [gone]] == [0] * 5, [err for _, _, err in first + again]
    ids = [json.loads(out)["id"] for _, out, _ in first]
    assert ids[0] != ids[1]
    assert [json.loads(out)["id"] for _, out, _ in again] == ids
    assert [json.loads(out)["resumed"] for _, out, _ in again] == [True, True]
    assert saved(state, "alpha", "planner")["agent_id"] == ids[0]
    assert saved(state, "beta", "planner")["agent_id"] == ids[1]
    assert json.loads(gone[1])["id"] == ids[1]  # --as resolved beta's saved planner, not alpha's


def test_a_saved_identity_never_leaves_its_project_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name may contain ``/`` and ``..``: its file is still one file inside ``agents/<project>/``, keyed
    as the hub keys names (JavaScript lowercase: ``Straße`` is not ``strasse``)."""
    monkeypatch.setenv("KXM_DATA_DIR", str(tmp_path))
    base = tmp_path / "agents" / "alpha"

    assert identity_path("alpha", "../../escape").parent == base
    assert identity_path("alpha", "a/b").parent == base
    assert identity_path("alpha", " Builder ") == identity_path("alpha", "builder")
    assert identity_path("alpha", "Straße") != identity_path("alpha", "strasse")


def test_a_long_name_is_saved_under_a_hash_and_found_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """64 CJK characters percent-encode to 576 bytes, too long for a file name: the identity is filed
    under the SHA-256 of the name key instead, and loads back."""
    monkeypatch.setenv("KXM_DATA_DIR", str(tmp_path))
    name = "代" * 64

    save_identity("alpha", name, "agt_1", "kxm_agent_1")

    assert identity_path("alpha", name).name.startswith("sha256-")
    assert (load_identity("alpha", name) or {})["agent_id"] == "agt_1"


def test_an_identity_under_the_older_file_name_is_still_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Versions that named the file ``<name casefolded>.json`` left ``my agent.json``: it is still read."""
    monkeypatch.setenv("KXM_DATA_DIR", str(tmp_path))
    folder = tmp_path / "agents" / "alpha"
    folder.mkdir(parents=True)
    (folder / "my agent.json").write_text(json.dumps({"name": "My Agent", "agent_id": "agt_1", "agent_key": "k"}))

    assert (load_identity("alpha", "My Agent") or {})["agent_id"] == "agt_1"
    assert load_identity("beta", "My Agent") is None
