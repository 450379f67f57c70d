"""Every agent tool is a verb of the CLI (``kxm_grpc/cli/tool_verbs.py``): hand-written, an alias
of the command that does it, or derived from the tool's schema; derived verbs work end to end."""

from __future__ import annotations

import json
from pathlib import Path

from kxm_grpc.cli import build_parser
from kxm_grpc.cli.tool_verbs import TOOL_VERBS, commands_of
from kxm_grpc.tools.table import TOOLS
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import kxm


def test_every_tool_has_its_verb() -> None:
    groups = commands_of(build_parser())

    assert set(TOOL_VERBS) == set(TOOLS)
    for tool, place in TOOL_VERBS.items():
        verbs = commands_of(groups.choices[place.group]).choices
        assert place.verb in verbs, f"{tool}: no 'kxm {place.group} {place.verb}'"
        if place.command is not None:
            assert verbs[place.verb] is verbs[place.command], f"{tool}: {place.verb} is not {place.command}"


async def test_derived_and_aliased_verbs_call_their_tools(hub: Hub, tmp_path: Path) -> None:
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    for name in ("alice", "bob"):
        await kxm("agent", "register", name, cwd=tmp_path, env=env)

    async def as_alice(*args: str) -> tuple[int, str, str]:
        return await kxm(*args, "--as", "alice", "--json", cwd=tmp_path, env=env)

    whoami = await as_alice("peer", "whoami")
    _, acquired, _ = await as_alice("lease", "acquire", "db", "--ttl", "30")
    token = json.loads(acquired)["fencingToken"]
    fence = await as_alice("lease", "check-fence", "--name", "db", "--fencing-token", str(token))
    stale = await as_alice("lease", "check-fence", "--name", "db", "--fencing-token", str(int(token) + 1))
    _, sent, _ = await as_alice("peer", "send", "bob", "hello")
    message_id = json.loads(sent)["id"]
    aliased = await as_alice("peer", "get-message", message_id)
    refused = await as_alice("peer", "whoami", "--fencing-token", "1")

    assert whoami[0] == 0, whoami[2]
    assert json.loads(whoami[1])["agentName"] == "alice"
    assert fence[0] == 0, fence[2]
    assert json.loads(fence[1])["lease"]["fencingToken"] == str(token)
    assert stale[0] == 1 and "ERROR_REASON_" in stale[1] + stale[2]
    assert aliased[0] == 0 and json.loads(aliased[1])["id"] == message_id
    assert refused[0] == 2 and "unrecognized arguments" in refused[2]


async def test_debug_call_acts_as_a_saved_agent_and_prints_the_whole_error(hub: Hub, tmp_path: Path) -> None:
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    await kxm("agent", "register", "alice", cwd=tmp_path, env=env)

    who = await kxm(
        "debug", "call", "kxm.v1.AgentService/GetCallerIdentity", "{}", "--as", "alice", cwd=tmp_path, env=env
    )
    missing = await kxm(
        "debug",
        "call",
        "kxm.v1.MessageService/SendMessage",
        '{"target": "ghost", "content": "x"}',
        "--as",
        "alice",
        cwd=tmp_path,
        env=env,
    )
    empty = await kxm(
        "debug",
        "call",
        "kxm.v1.MessageService/SendMessage",
        '{"target": "alice"}',
        "--as",
        "alice",
        cwd=tmp_path,
        env=env,
    )

    assert who[0] == 0 and json.loads(who[1])["agentName"] == "alice"
    error = json.loads(missing[2])
    assert missing[0] == 1
    assert (error["code"], error["reason"], error["metadata"]) == (
        "NOT_FOUND",
        "ERROR_REASON_TARGET_NOT_FOUND",
        {"target": "ghost"},
    )
    refused = json.loads(empty[2])
    assert refused["code"] == "INVALID_ARGUMENT" and refused["fieldViolations"][0]["field"]
