"""``kxm context get|recall|explain|put|delete`` against a real hub, run as a subprocess as a user would."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ADMIN_TOKEN, Hub, Project
from tests.test_cli import kxm

POOL = [
    {"id": "e_aaa", "kind": "evidence", "summary": "docs build is slow"},
    {"id": "e_zzz", "kind": "evidence", "summary": "flaky playwright gate fails on first run"},
    {"id": "k_mmm", "kind": "knowledge", "summary": "playwright gate owner is QA"},
]


def env_of(hub: Hub, project: Project) -> dict[str, str]:
    return {"KXM_ADDR": hub.address, "KXM_TOKEN": project.token, "KXM_ADMIN_TOKEN": ADMIN_TOKEN}


async def test_put_get_recall_and_explain(hub: Hub, project: Project, tmp_path: Path) -> None:
    env = env_of(hub, project)
    items = tmp_path / "items.json"
    items.write_text(json.dumps({"items": POOL}))
    state = tmp_path / "state.json"
    state.write_text('{"step": 2}')

    put = await kxm("context", "put", str(items), cwd=tmp_path, env=env)
    text = await kxm("context", "get", "verifier", "verify the flaky playwright gate fix", cwd=tmp_path, env=env)
    as_json = await kxm(
        "context", "get", "verifier", "verify the flaky playwright gate fix", "--working-state", str(state), "--json",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    recall = await kxm("context", "recall", "flaky gate", cwd=tmp_path, env=env)
    recall_json = await kxm("context", "recall", "--kind", "knowledge", "--json", cwd=tmp_path, env=env)
    explain = await kxm("context", "explain", "k_mmm", cwd=tmp_path, env=env)
    unknown = await kxm("context", "explain", "nope", "--json", cwd=tmp_path, env=env)

    assert put == (0, "stored 3 items: alpha/e_aaa alpha/e_zzz alpha/k_mmm\n", "")
    code, out, _ = text
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("packet ctxpkt_")
    assert lines[1] == "ranked\te_zzz k_mmm e_aaa"
    assert [line.split("\t")[:2] for line in lines[2:]] == [
        ["knowledge", "k_mmm"],
        ["evidence", "e_zzz"],
        ["evidence", "e_aaa"],
    ]
    assert lines[3].endswith("\tevidence\tevidence\tpeer\tflaky playwright gate fails on first run")
    packet = json.loads(as_json[1])
    assert packet["packetId"].startswith("ctxpkt_") and packet["packetId"] not in out  # the working state counts
    assert packet["packet"]["audit"]["selectedIds"] == ["e_zzz", "k_mmm", "e_aaa"]
    assert packet["packet"]["workingState"] == {"step": 2}
    assert [line.split("\t")[0] for line in recall[1].splitlines()] == ["e_zzz", "k_mmm"]
    assert [line.split("\t")[-1] for line in recall[1].splitlines()] == ["-", "-"]  # no summary holds "flaky gate"
    assert [item["id"] for item in json.loads(recall_json[1])["items"]] == ["k_mmm"]
    assert "summary" not in recall_json[1]
    assert explain == (0, "lineage\t-\nevidence\t-\nsource\tk_mmm\tpeer\t-\n", "")
    assert unknown == (0, '{\n  "found": false\n}\n', "")


async def test_put_from_stdin_needs_an_operator_for_shared_and_delete(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    env = env_of(hub, project)
    shared = tmp_path / "shared.json"
    shared.write_text(json.dumps({"id": "k_def", "kind": "knowledge", "summary": "gate default", "project": "_shared"}))

    refused = await kxm("context", "put", str(shared), cwd=tmp_path, env=env)
    stored = await kxm("context", "put", str(shared), "--operator", "--project", "alpha", cwd=tmp_path, env=env)
    found = await kxm("context", "recall", "gate", cwd=tmp_path, env=env)
    not_operator = await kxm("context", "delete", "k_def", "--shared", "--token", project.token, cwd=tmp_path, env=env)
    deleted = await kxm("context", "delete", "k_def", "--shared", "--project", "alpha", "--json", cwd=tmp_path, env=env)
    gone = await kxm("context", "recall", "gate", cwd=tmp_path, env=env)

    assert refused[0] == 1
    assert "PERMISSION_DENIED ERROR_REASON_CONTEXT_ISOLATION_VIOLATION" in refused[2]
    assert stored == (0, "stored 1 items: _shared/k_def\n", "")
    assert found[1].startswith("k_def\tknowledge\tevidence\tprobable\t")
    assert not_operator[0] == 1 and "PERMISSION_DENIED" in not_operator[2]
    assert deleted == (0, '{\n  "deletedCount": 1\n}\n', "")
    assert gone == (0, "gap\tno matching context records\n", "")


async def test_bad_input_is_an_error_line(hub: Hub, project: Project, tmp_path: Path) -> None:
    env = env_of(hub, project)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "x", "kind": "evidence", "summary": "s", "permissions": ["all"]}]))

    unknown_field = await kxm("context", "put", str(bad), cwd=tmp_path, env=env)
    unknown_kind = await kxm("context", "recall", "x", "--kind", "fact", cwd=tmp_path, env=env)
    too_small = await kxm("context", "get", "verifier", "x", "--budget", "100", "--json", cwd=tmp_path, env=env)

    assert unknown_field == (1, "", "error: a context item has no field 'permissions'\n")
    assert unknown_kind[0] == 1 and unknown_kind[2].startswith("error: kind must be one of evidence, state")
    assert too_small[0] == 1
    assert json.loads(too_small[2])["reason"] == "ERROR_REASON_INVALID_CONTEXT_REQUEST"
    assert json.loads(too_small[2])["metadata"]["field"] == "budgetTokens"
