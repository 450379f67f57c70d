"""``kxm context state|propose|promote|reject`` against a real hub, run as a subprocess like a user would.

The verbs are this module's (``kxm_grpc/cli/context_state.py``); the ``kxm context`` group and the
client's ``hub.context`` area they go through are the other parts of issue 17: until both exist the
tests skip, saying so.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import kxm

pytestmark = pytest.mark.skipif(
    not (hasattr(HubClient, "context") and importlib.util.find_spec("kxm_grpc.cli.context") is not None),
    reason="needs the `kxm context` group (kxm_grpc/cli/context.py) and the client's context area",
)


async def test_propose_read_promote_reject_and_read_as_of(hub: Hub, tmp_path: Path) -> None:
    """An agent proposes (the key still holds nothing), the admin promotes (the key holds the new
    item, not at an instant before), a second decision is refused with its reason, a rejection
    closes a proposal; a set's ``--history`` and a malformed ``--as-of`` are refused locally."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}

    proposed = await kxm(
        "context", "propose", "deploy.target", "us-east-1", "--evidence", "ci:1", "--as", "planner", "--register",
        "--json", cwd=tmp_path, env=env,
    )  # fmt: skip
    proposal = json.loads(proposed[1])
    before = await kxm("context", "state", "deploy.target", cwd=tmp_path, env=env)
    promoted = await kxm(
        "context", "promote", proposal["id"], "--evidence", "review:1", "--json", cwd=tmp_path, env=env
    )
    item = json.loads(promoted[1])["item"]
    now = await kxm("context", "state", "deploy.target", "--history", "--json", cwd=tmp_path, env=env)
    earlier = await kxm(
        "context", "state", "deploy.target", "--as-of", "2000-01-01T00:00:00Z", "--json", cwd=tmp_path, env=env
    )
    again = await kxm("context", "promote", proposal["id"], "--evidence", "review:2", "--json", cwd=tmp_path, env=env)
    other = json.loads(
        (await kxm("context", "propose", "deploy.target", "eu", "--evidence", "e", "--json", cwd=tmp_path, env=env))[1]
    )
    rejected = await kxm("context", "reject", other["id"], "--reason", "not now", "--json", cwd=tmp_path, env=env)
    set_history = await kxm("context", "state", "owners[]", "--history", cwd=tmp_path, env=env)
    bad_time = await kxm("context", "state", "deploy.target", "--as-of", "yesterday", cwd=tmp_path, env=env)

    assert proposed[0] == 0 and proposal["status"] == "CONTEXT_STATUS_PROPOSED"
    assert before == (0, "deploy.target: nothing held\n", "")
    assert promoted[0] == 0 and item["status"] == "CONTEXT_STATUS_CURRENT" and item["id"] != proposal["id"]
    assert json.loads(now[1])["item"]["id"] == item["id"]
    assert {entry["id"] for entry in json.loads(now[1])["history"]} == {proposal["id"], item["id"]}
    assert json.loads(earlier[1]) == {"item": None}
    assert again[0] == 1 and json.loads(again[2])["reason"] == "ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE"
    assert json.loads(again[2])["metadata"]["promotedItemId"] == item["id"]
    assert rejected[0] == 0 and json.loads(rejected[1])["status"] == "CONTEXT_STATUS_REJECTED"
    assert set_history[0] == 1 and "--history" in set_history[2]
    assert bad_time[0] == 1 and "--as-of" in bad_time[2]
