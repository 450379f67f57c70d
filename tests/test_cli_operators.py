"""``kxm operator create|list|revoke`` and ``kxm audit list`` against a real hub (as a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import kxm


async def test_operator_lifecycle_and_audit_from_the_command_line(hub: Hub, tmp_path: Path) -> None:
    """The admin creates an operator (its token printed once), the operator creates a project with
    ``kxm admin project create``, the admin lists and revokes it; ``kxm audit list`` shows who did what."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}

    created = await kxm("operator", "create", "alice", "--json", cwd=tmp_path, env=env)
    token = json.loads(created[1])["operatorToken"]
    as_alice = {**env, "KXM_ADMIN_TOKEN": token}
    project = await kxm("admin", "project", "create", "alpha", cwd=tmp_path, env=as_alice)
    denied = await kxm("operator", "list", cwd=tmp_path, env=as_alice)
    listed = await kxm("operator", "list", cwd=tmp_path, env=env)
    revoked = await kxm("operator", "revoke", "alice", cwd=tmp_path, env=env)
    refused = await kxm("admin", "project", "list", cwd=tmp_path, env=as_alice)
    audit = await kxm("audit", "list", cwd=tmp_path, env=env)
    by_alice = await kxm("audit", "list", "--operator", "alice", "--json", cwd=tmp_path, env=env)

    assert created[0] == 0 and token.startswith("kxm_op_")
    assert project[0] == 0 and project[1].startswith("alpha\t")
    assert denied[0] == 1 and "PERMISSION_DENIED" in denied[2]
    assert listed[0] == 0 and listed[1].split("\t")[:2] == ["alice", "active"]
    assert token not in listed[1]
    assert revoked == (0, "alice\trevoked\n", "")
    assert refused[0] == 1 and "UNAUTHENTICATED" in refused[2]
    lines = [line.split("\t")[1:4] for line in audit[1].splitlines()]
    assert lines == [
        ["admin", "RevokeOperator", "operators/alice"],
        ["alice", "CreateProject", "projects/alpha"],
        ["admin", "CreateOperator", "operators/alice"],
    ]
    assert [(r["operator"], r["action"]) for r in json.loads(by_alice[1])["records"]] == [("alice", "CreateProject")]
