"""The ``--json`` convention (docs/api.md, "JSON output"; decision 262): every list command prints an
object holding its list under the plural name, in lowerCamelCase, with 64-bit integers as strings.

Every other ``--json`` command is checked where its own tests run it: ``tests.test_cli.kxm`` checks
the output of every ``--json`` command it runs (``tests/cli_json.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests import cli_json
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import kxm

# Each list command, acting as what it needs (the admin token, the project token or a saved agent),
# and the key its list is printed under.
LISTS = [
    (("admin", "project", "list"), "admin", "projects"),
    (("operator", "list"), "admin", "operators"),
    (("token", "list"), "admin", "sessions"),
    (("audit", "list"), "admin", "records"),
    (("agent", "list"), "project", "agents"),
    (("peer", "list"), "project", "agents"),
    (("lease", "list"), "project", "leases"),
    (("runtime", "list"), "project", "runtimes"),
    (("workflow", "list"), "project", "definitions"),
    (("peer", "inbox", "--as", "alice"), "project", "messages"),
    (("workflow", "runs", "--as", "alice"), "project", "runs"),
    (("context", "skill", "list"), "project", "skills"),
]


async def test_every_list_command_prints_an_object_in_the_convention(hub: Hub, tmp_path: Path) -> None:
    """The lists are objects (``{"agents": [...]}``), never bare arrays; their items' keys are
    lowerCamelCase and their 64-bit integers strings (a lease's ``fencingToken``)."""
    admin = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    created = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=admin)
    project = {**admin, "KXM_TOKEN": json.loads(created[1])["projectToken"], "KXM_PROJECT": "alpha"}
    await kxm("agent", "register", "alice", cwd=tmp_path, env=project)
    acquired = await kxm("lease", "acquire", "deploy", "--as", "alice", "--json", cwd=tmp_path, env=project)
    assert acquired[0] == 0, acquired[2]

    for command, credential, key in LISTS:
        if credential == "admin":  # in project alpha (KXM_PROJECT), where an RPC acts in one
            command = (*command, "--token", ADMIN_TOKEN)
        code, out, err = await kxm(*command, "--json", cwd=tmp_path, env=project)

        assert code == 0, (command, err)
        document = json.loads(out)
        assert isinstance(document, dict) and isinstance(document.get(key), list), (command, out[:200])
        assert not cli_json.problems(document), (command, cli_json.problems(document))
    leases = json.loads((await kxm("lease", "list", "--json", cwd=tmp_path, env=project))[1])["leases"]
    assert leases[0]["fencingToken"] == "1" and leases[0]["holderAgentName"] == "alice"


def test_the_checker_refuses_what_the_convention_forbids() -> None:
    """A bare array, a snake_case key and a 64-bit number are refused; a map's keys are data."""
    assert cli_json.problems({"fencingToken": "1", "peerEvidence": {"unit tests": "ok"}}) == []
    assert cli_json.problems({"fencing_token": "1"}) == ["$: key 'fencing_token' is not lowerCamelCase"]
    assert cli_json.problems({"sequence": 2**60}) != []
    try:
        cli_json.check("[]")
    except AssertionError:
        pass
    else:
        raise AssertionError("a bare array passed")
