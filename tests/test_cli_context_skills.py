"""``kxm context skill create|evaluate|promote|reject|get|list`` against a real hub, run as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import kxm


async def test_create_evaluate_promote_get_list_and_reject(hub: Hub, tmp_path: Path) -> None:
    """An agent creates a skill from a file; the admin evaluates the four kinds and promotes it; get
    shows its history, list its state; a second candidate is rejected; an agent's promotion and a
    repeated decision are refused with their reasons (exit 1, JSON error)."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    skill_md = tmp_path / "SKILL.md"
    skill_md.write_text("Run the flaky test twice.\n")
    other_md = tmp_path / "OTHER.md"
    other_md.write_text("Something else.\n")

    created = await kxm(
        "context", "skill", "create", "--name", "Retry Flaky", "--file", str(skill_md), "--harness", "claude-code",
        "--model", "sonnet", "opus", "--run-id", "run_1", "--as", "author", "--register", "--json",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    skill = json.loads(created[1])
    evaluated = [
        await kxm("context", "skill", "evaluate", skill["id"], "--kind", kind, "--passed", cwd=tmp_path, env=env)
        for kind in ("static-review", "sandbox", "functional", "safety")
    ]
    by_agent = await kxm(
        "context", "skill", "promote", skill["id"], "--evidence", "r:1", "--token", env["KXM_TOKEN"], "--json",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    promoted = await kxm(
        "context", "skill", "promote", skill["id"], "--evidence", "review:1", "--json", cwd=tmp_path, env=env
    )
    got = await kxm("context", "skill", "get", skill["id"], "--json", cwd=tmp_path, env=env)
    text = await kxm("context", "skill", "get", skill["id"], cwd=tmp_path, env=env)
    other_created = await kxm(
        "context", "skill", "create", "--name", "Other", "--file", str(other_md), "--harness", "h",
        "--model", "m", "--evidence-receipt", "receipt:1", "--json", cwd=tmp_path, env=env,
    )  # fmt: skip
    other = json.loads(other_created[1])
    rejected = await kxm("context", "skill", "reject", other["id"], "--reason", "dup", "--json", cwd=tmp_path, env=env)
    again = await kxm("context", "skill", "reject", other["id"], "--json", cwd=tmp_path, env=env)
    listed = await kxm("context", "skill", "list", "--state", "promoted", "--json", cwd=tmp_path, env=env)

    assert created[0] == 0 and skill["id"].startswith("retry-flaky.") and skill["state"] == "SKILL_STATE_CANDIDATE"
    assert skill["content"].startswith("---\nname: Retry Flaky\ndescription: Governed skill for Retry Flaky\n---\n")
    assert [result[0] for result in evaluated] == [0, 0, 0, 0]
    assert by_agent[0] == 1 and json.loads(by_agent[2])["reason"] == "ERROR_REASON_CREDENTIAL_KIND_DENIED"
    assert promoted[0] == 0 and json.loads(promoted[1])["item"]["id"] == f"skill_{skill['id']}"
    history = json.loads(got[1])["history"]
    assert [event["type"] for event in history] == [
        "SKILL_EVENT_TYPE_CREATED", *["SKILL_EVENT_TYPE_EVALUATED"] * 4, "SKILL_EVENT_TYPE_PROMOTED",
    ]  # fmt: skip
    assert text[0] == 0 and f"{skill['id']}\tpromoted\tv1\tRetry Flaky" in text[1] and "safety passed" in text[1]
    assert rejected[0] == 0 and json.loads(rejected[1])["state"] == "SKILL_STATE_REJECTED"
    assert again[0] == 1 and json.loads(again[2])["reason"] == "ERROR_REASON_SKILL_NOT_PROMOTABLE"
    assert [entry["id"] for entry in json.loads(listed[1])["skills"]] == [skill["id"]]
