"""``kxm peer`` against a real hub, run as subprocesses acting as saved agents."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from kxm_grpc.services import agents
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_cli import ROOT, kxm


async def test_peer_conversation(hub: Hub, tmp_path: Path) -> None:
    """send, inbox, get, reply, await, tail, fanout, cancel and ack, each as a named agent, with --json."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    # bob registers last, so his event log starts with alice's request (alice's has bob's presence).
    for name in ("alice", "bob"):
        await kxm("agent", "register", name, cwd=tmp_path, env=env)

    async def peer(*args: str, agent: str = "alice") -> tuple[int, str, str]:
        return await kxm("peer", *args, "--as", agent, "--json", cwd=tmp_path, env=env)

    code, out, _ = await peer("send", "bob", "please review", "--correlation-id", "c1", "--ttl", "600")
    sent = json.loads(out)
    _, inbox, _ = await peer("inbox", agent="bob")
    # bob tails (acking) and alice awaits while bob replies a moment later.
    (_, tail, _), (_, waited, _), _ = await asyncio.gather(
        peer("tail", "--count", "1", "--ack", agent="bob"),
        peer("await", sent["id"], "--timeout", "20"),
        _later(peer("reply", sent["id"], "looks good", agent="bob")),
    )
    pending = await peer("await", (json.loads((await peer("send", "bob", "later"))[1]))["id"], "--wait", "0.2")
    cancelled = json.loads((await peer("cancel", json.loads(pending[1])["id"]))[1])
    fanned = await peer("fanout", "bob", "ghost", "--content", "vote", "--wait", "0.2")
    listed = await kxm("peer", "list", "--json", cwd=tmp_path, env=env)

    assert code == 0
    assert (sent["state"], sent["correlationId"], sent["repeated"]) == ("MESSAGE_STATE_QUEUED", "c1", False)
    assert [m["id"] for m in json.loads(inbox)["messages"]] == [sent["id"]]
    first_event = json.loads(tail.splitlines()[1])  # line 0 is the ready event
    assert first_event["message"]["id"] == sent["id"]
    assert json.loads(waited)["reply"]["content"] == "looks good"
    assert pending[0] == 3 and json.loads(pending[1])["terminal"] is False
    assert cancelled["state"] == "MESSAGE_STATE_CANCELLED"
    statuses = {r["target"]: r["status"] for r in json.loads(fanned[1])["results"]}
    assert statuses == {"bob": "FANOUT_STATUS_PENDING", "ghost": "FANOUT_STATUS_ERROR"}
    assert fanned[0] == 3
    assert sorted(a["name"] for a in json.loads(listed[1])["agents"]) == ["alice", "bob"]


async def _later(call: Coroutine[Any, Any, tuple[int, str, str]], delay: float = 1.5) -> tuple[int, str, str]:
    """Run ``call`` after ``delay`` seconds."""
    await asyncio.sleep(delay)
    return await call


async def test_peer_needs_an_acting_agent(hub: Hub, tmp_path: Path) -> None:
    """Commands that act as an agent say so when --as is missing."""
    code, _, err = await kxm("peer", "inbox", cwd=tmp_path, env={"KXM_ADDR": hub.address})

    assert code == 1
    assert "--as NAME" in err


async def test_fanout_exits_1_when_every_target_was_refused(hub: Hub, tmp_path: Path) -> None:
    """A fanout that sent nothing says so and exits 1 (it exited 0); a partial failure keeps 0 or 3."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    await kxm("agent", "register", "alice", cwd=tmp_path, env=env)

    refused = await kxm(
        "peer", "fanout", "--as", "alice", "ghost", "nobody", "--content", "vote", cwd=tmp_path, env=env
    )
    as_json = await kxm(
        "peer", "fanout", "--as", "alice", "ghost", "--content", "vote", "--json", cwd=tmp_path, env=env
    )

    assert refused[0] == 1
    assert refused[2] == "error: every target was refused (2 of 2); nothing was sent\n"
    assert [line.split("\t")[:3] for line in refused[1].splitlines()] == [
        ["ghost", "error", "ERROR_REASON_TARGET_NOT_FOUND"],
        ["nobody", "error", "ERROR_REASON_TARGET_NOT_FOUND"],
    ]
    assert as_json[0] == 1 and json.loads(as_json[1])["results"][0]["status"] == "FANOUT_STATUS_ERROR"


async def test_acting_as_a_name_with_no_saved_key_is_refused_unless_asked_to_register(hub: Hub, tmp_path: Path) -> None:
    """``--as ghost`` (a typo) silently registered a new agent; it is refused, naming the saved agents and
    their folder, and registers only with ``--register``."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    for name in ("alice", "bob"):
        await kxm("agent", "register", name, cwd=tmp_path, env=env)

    code, out, err = await kxm("peer", "send", "--as", "ghost", "bob", "hi", cwd=tmp_path, env=env)
    before = await kxm("agent", "list", "--all", "--json", cwd=tmp_path, env=env)
    registered = await kxm("peer", "inbox", "--as", "ghost", "--register", "--json", cwd=tmp_path, env=env)
    after = await kxm("agent", "list", "--all", "--json", cwd=tmp_path, env=env)

    assert (code, out) == (1, "")
    assert err == (
        f"error: no saved agent 'ghost' under {tmp_path / 'state' / 'agents' / 'alpha'}; saved names: alice, bob."
        " Register it with --register or 'kxm agent register ghost'\n"
    )
    assert sorted(a["name"] for a in json.loads(before[1])["agents"]) == ["alice", "bob"]
    assert registered[0] == 0 and json.loads(registered[1]) == {"messages": []}
    assert sorted(a["name"] for a in json.loads(after[1])["agents"]) == ["alice", "bob", "ghost"]


async def test_sending_to_a_registered_agent_gone_offline_says_so_and_what_to_do(hub: Hub, tmp_path: Path) -> None:
    """``peer send --as carol dave hi`` to a registered dave gone offline said "online target not
    found: dave"; it says dave is registered but offline, since when, and how to queue the message."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    for name in ("carol", "dave"):
        await kxm("agent", "register", name, cwd=tmp_path, env=env)
    await agents.mark_all_offline(hub.server.store)  # as a restart does; carol comes back at her next call

    code, _, err = await kxm("peer", "send", "--as", "carol", "dave", "hi", cwd=tmp_path, env=env)
    as_json = await kxm("peer", "send", "--as", "carol", "dave", "hi", "--json", cwd=tmp_path, env=env)
    fanned = await kxm("peer", "fanout", "--as", "carol", "dave", "--content", "hi", cwd=tmp_path, env=env)
    queued = await kxm(
        "peer", "send", "--as", "carol", "dave", "hi", "--allow-offline", "--json", cwd=tmp_path, env=env
    )

    assert code == 1
    seen = json.loads(as_json[2])["metadata"]["lastSeenTime"]
    assert err == (
        "error: NOT_FOUND ERROR_REASON_TARGET_NOT_FOUND: target dave is registered but offline"
        f" (last seen {seen}); send with allow_offline (kxm: --allow-offline) to queue the message until it"
        " connects, or keep the agent connected\n"
    )
    assert json.loads(as_json[2])["metadata"] == {"target": "dave", "presence": "offline", "lastSeenTime": seen}
    assert fanned[0] == 1 and "dave is registered but offline" in fanned[1]
    assert queued[0] == 0 and json.loads(queued[1])["state"] == "MESSAGE_STATE_QUEUED"


async def test_ctrl_c_during_send_wait_prints_the_stored_message_and_how_to_await_it(hub: Hub, tmp_path: Path) -> None:
    """Ctrl-C during ``peer send --wait`` exited without the id of the message already stored; it prints
    the id (JSON with the id and state with --json) and ``kxm peer await``, and exits 130."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    _, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    env |= {"KXM_TOKEN": json.loads(out)["projectToken"], "KXM_PROJECT": "alpha"}
    for name in ("alice", "bob"):
        await kxm("agent", "register", name, cwd=tmp_path, env=env)

    async def interrupted(*flags: str) -> tuple[int, str, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "kxm_grpc.cli", "peer", "send", "--as", "alice", "bob", "hi", "--wait", "60", *flags,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": ROOT, **env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        await _until_in_bob_inbox(tmp_path, env, count=1 if not flags else 2)
        await asyncio.sleep(0.5)  # inside the wait
        process.send_signal(signal.SIGINT)
        # Bounded, not timed: on a loaded 2-CPU CI machine this shutdown has outlasted 15 s.
        out, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode is not None
        return process.returncode, out.decode(), err.decode()

    code, out, err = await interrupted()
    json_code, json_out, json_err = await interrupted("--json")
    inbox = await kxm("peer", "inbox", "--as", "bob", "--json", cwd=tmp_path, env=env)

    ids = [m["id"] for m in json.loads(inbox[1])["messages"]]
    assert code == 130
    assert out.startswith(f"{ids[0]}\tqueued\talice -> bob\thi")
    assert out.count(ids[0]) == 1 and json_out.count(ids[1]) == 1  # printed once, not again on the way out
    assert err == f"interrupted: {ids[0]} is stored; await its reply with: kxm peer await --as alice {ids[0]}\n"
    assert json_code == 130 and json_err == ""
    assert json.loads(json_out) == {"id": ids[1], "state": "queued", "interrupted": True}


async def _until_in_bob_inbox(tmp_path: Path, env: dict[str, str], count: int) -> None:
    for _ in range(100):
        _, out, _ = await kxm("peer", "inbox", "--as", "bob", "--json", cwd=tmp_path, env=env)
        if len(json.loads(out)["messages"]) >= count:
            return
    raise AssertionError("the message never reached bob's inbox")
