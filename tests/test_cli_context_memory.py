"""``kxm context memory sync|list`` against a real hub, run as a subprocess as a user would."""

from __future__ import annotations

import json
from pathlib import Path

from tests.api.test_context_memory import record
from tests.conftest import Hub, Project
from tests.test_cli import kxm
from tests.test_cli_context import env_of


async def test_sync_reads_only_top_level_md_files_and_list_shows_them(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    env = env_of(hub, project)
    memory = tmp_path / "memory"
    (memory / "candidates").mkdir(parents=True)
    (memory / "b.md").write_text(record("rule-b", "memory b"))
    (memory / "a.md").write_text(record("rule-a", "memory a", scope="operator"))
    (memory / "notes.txt").write_text("not memory")
    (memory / ".hidden.md").write_text("not memory either")
    (memory / "candidates" / "cand_project_0123456789ab.md").write_text("---\nbroken: [\n---\n")

    synced = await kxm("context", "memory", "sync", str(memory), "--project", "alpha", cwd=tmp_path, env=env)
    again = await kxm("context", "memory", "sync", str(memory), "--project", "alpha", "--json", cwd=tmp_path, env=env)
    listed = await kxm("context", "memory", "list", cwd=tmp_path, env=env)
    as_json = await kxm("context", "memory", "list", "--json", cwd=tmp_path, env=env)
    refused = await kxm("context", "memory", "sync", str(memory), "--token", project.token, cwd=tmp_path, env=env)

    code, out, err = synced
    assert (code, err) == (0, "")
    assert out.startswith("synced ctxrev_") and out.endswith(
        ": 2 loaded, 0 removed, 0 inactive and 0 agent or run scope skipped (2 files)\n"
    )
    document = json.loads(again[1])
    assert document["unchanged"] is True and document["files"] == ["a.md", "b.md"]
    lines = listed[1].splitlines()
    assert lines[0] == f"revision\t{document['revision']}"
    assert lines[1:] == [
        "mem_rule-b\talpha\tproject\tconvention\tinstruction\tactive\tb.md\t8 chars",
        "mem_rule-a\t_shared\toperator\tconvention\tinstruction\tactive\ta.md\t8 chars",
    ]
    assert "memory a" not in as_json[1] and json.loads(as_json[1])["revision"] == document["revision"]
    assert refused[0] == 1 and "PERMISSION_DENIED" in refused[2]


async def test_sync_of_a_malformed_directory_exits_1_naming_the_file(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    env = env_of(hub, project)
    (tmp_path / "a.md").write_text(record("rule-a", "x", scope="team"))

    code, out, err = await kxm("context", "memory", "sync", str(tmp_path), "--project", "alpha", cwd=tmp_path, env=env)
    missing = await kxm(
        "context", "memory", "sync", str(tmp_path / "nope"), "--project", "alpha", cwd=tmp_path, env=env
    )

    assert (code, out) == (1, "")
    assert "INVALID_ARGUMENT ERROR_REASON_INVALID_MEMORY_RECORD" in err and "a.md" in err
    assert missing[0] == 1 and "nope" in missing[2]


async def test_note_promote_into_the_directory_then_sync(hub: Hub, project: Project, tmp_path: Path) -> None:
    env = env_of(hub, project)
    memory = tmp_path / "memory"
    memory.mkdir()

    noted = await kxm("context", "memory", "note", "retry the flaky gate once", "--json", cwd=tmp_path, env=env)
    candidate = json.loads(noted[1])["candidate"]["id"]
    listed = await kxm("context", "memory", "list", cwd=tmp_path, env=env)
    promoted = await kxm(
        "context", "memory", "promote", candidate, "gate-retry", "--dir", str(memory), "--project", "alpha",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    again = await kxm(
        "context", "memory", "promote", candidate, "gate-retry", "--dir", str(memory), "--project", "alpha",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    synced = await kxm("context", "memory", "sync", str(memory), "--project", "alpha", cwd=tmp_path, env=env)
    other = json.loads((await kxm("context", "memory", "note", "not so", "--json", cwd=tmp_path, env=env))[1])
    rejected = await kxm(
        "context", "memory", "reject", other["candidate"]["id"], "--reason", "wrong", "--project", "alpha",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    bad_scope = await kxm("context", "memory", "note", "x", "--scope", "team", cwd=tmp_path, env=env)

    assert noted[0] == 0 and candidate.startswith("cand_project_")
    assert listed[1].splitlines()[-1] == f"candidate\t{candidate}\tproject\tlearning\tproject:alpha"
    assert promoted == (
        0,
        f"promoted {candidate}: wrote {memory / 'gate-retry.md'}; sync the directory to load it\n",
        "",
    )
    assert again[0] == 1 and "exists already" in again[2]
    assert synced[0] == 0 and ": 1 loaded," in synced[1]
    assert rejected == (0, f"rejected {other['candidate']['id']}\n", "")
    assert bad_scope[0] == 1 and "scope must be one of" in bad_scope[2]


async def test_an_empty_directory_empties_the_memory_only_with_allow_empty(
    hub: Hub, project: Project, tmp_path: Path
) -> None:
    env = env_of(hub, project)
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "a.md").write_text(record("rule-a", "memory a"))
    sync = ("context", "memory", "sync", str(memory), "--project", "alpha")
    await kxm(*sync, cwd=tmp_path, env=env)
    (memory / "a.md").unlink()

    refused = await kxm(*sync, cwd=tmp_path, env=env)
    emptied = await kxm(*sync, "--allow-empty", cwd=tmp_path, env=env)

    assert refused[0] == 1 and "allow_empty" in refused[2]
    assert emptied[0] == 0 and ": 0 loaded, 1 removed," in emptied[1]
