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
