"""The ``kxm`` command line against a real hub (run as a subprocess, like a user would)."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import socket
import sys
from pathlib import Path

import pytest

from kxm_grpc.cli.common import progress
from kxm_grpc.cli.identity import add_identity
from kxm_grpc.server.settings import Settings, SettingsError, options
from tests import cli_json
from tests.conftest import ADMIN_TOKEN, Hub

ROOT = str(Path(__file__).resolve().parent.parent)


async def kxm(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``python -m kxm_grpc.cli ARGS`` without blocking the hub's event loop; with ``--json``, its
    standard output must follow the convention (``tests/cli_json.py``)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "kxm_grpc.cli",
        *args,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": ROOT, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    if "--json" in args:
        cli_json.check(out.decode())
    return process.returncode, out.decode(), err.decode()


async def test_health_exit_codes(hub: Hub, tmp_path: Path) -> None:
    """0 when serving, 2 when unreachable."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]

    serving = await kxm("health", "--addr", hub.address, cwd=tmp_path)
    unreachable = await kxm("health", "--addr", f"127.0.0.1:{closed_port}", "--timeout", "0.5", cwd=tmp_path)

    assert serving[0] == 0 and serving[1].strip() == "SERVING"
    assert unreachable[0] == 2


async def test_admin_agent_and_debug_commands(hub: Hub, tmp_path: Path) -> None:
    """Create a project, register two agents by name, list them, and call an RPC through reflection."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN, "KXM_DATA_DIR": str(tmp_path / "state")}
    code, out, _ = await kxm("admin", "project", "create", "alpha", "--json", cwd=tmp_path, env=env)
    token = json.loads(out)["projectToken"]
    env |= {"KXM_TOKEN": token, "KXM_PROJECT": "alpha"}

    await kxm("agent", "register", "alice", cwd=tmp_path, env=env)
    await kxm("agent", "register", "bob", cwd=tmp_path, env=env)
    listed = await kxm("agent", "list", "--json", cwd=tmp_path, env=env)
    again = await kxm("agent", "register", "alice", "--json", cwd=tmp_path, env=env)
    called = await kxm("debug", "call", "kxm.v1.AgentService/ListAgents", "{}", "--token", token, cwd=tmp_path, env=env)
    refused = await kxm(
        "debug", "call", "kxm.v1.AdminService/ListProjects", "{}", "--token", token, cwd=tmp_path, env=env
    )

    assert code == 0
    assert sorted(a["name"] for a in json.loads(listed[1])["agents"]) == ["alice", "bob"]
    assert json.loads(again[1])["resumed"] is True  # the saved key proves the name
    assert len(json.loads(called[1])["agents"]) == 2
    assert refused[0] == 1 and "PERMISSION_DENIED" in refused[2]
    assert (tmp_path / "state" / "agents" / "alpha" / "alice.json").stat().st_mode & 0o777 == 0o600


async def test_errors_are_one_line_with_reason(hub: Hub, tmp_path: Path) -> None:
    """A refused command prints the status and reason and exits 1."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": "wrong-token-wrong-token"}

    code, _, err = await kxm("admin", "project", "list", cwd=tmp_path, env=env)

    assert code == 1
    assert "UNAUTHENTICATED ERROR_REASON_INVALID_AUTH" in err


def test_commands_acting_as_an_agent_share_the_identity_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--as`` defaults to KXM_AGENT_NAME and comes with the connection flags (peer and lease alike)."""
    monkeypatch.setenv("KXM_AGENT_NAME", "reviewer")
    parser = argparse.ArgumentParser()
    add_identity(parser)

    assert parser.parse_args([]).agent_name == "reviewer"
    assert parser.parse_args(["--as", "planner"]).agent_name == "planner"
    assert {"--as", "--addr"} <= set(parser._option_string_actions)


@pytest.mark.parametrize("grace", ["-1", "nan", "inf"])
async def test_serve_refuses_a_shutdown_grace_that_is_negative_or_not_a_number(tmp_path: Path, grace: str) -> None:
    """``--shutdown-grace -1`` (or NaN, or infinity) is refused before anything starts, naming the setting."""
    code, _, err = await kxm(
        "hub", "serve", "--port", "0", "--data-dir", str(tmp_path / "kxm"), "--shutdown-grace", grace, cwd=tmp_path
    )

    assert code != 0
    assert "shutdown-grace" in err
    assert not (tmp_path / "kxm" / "hub.db").exists()


async def test_serve_refuses_an_unknown_log_level_listing_the_accepted_ones(tmp_path: Path) -> None:
    """``--log-level verbose`` crashed the hub's logging setup; it is a usage error naming the four levels."""
    code, _, err = await kxm(
        "hub", "serve", "--port", "0", "--data-dir", str(tmp_path / "kxm"), "--log-level", "verbose", cwd=tmp_path
    )

    assert code == 2
    assert "argument --log-level: invalid choice: 'verbose' (choose from 'debug', 'info', 'warning', 'error')" in err
    assert "Traceback" not in err
    assert not (tmp_path / "kxm" / "hub.db").exists()


def test_a_log_level_reads_in_any_case() -> None:
    """``INFO`` is ``info``, for the flag and its variable (one parser) and for Settings built in code."""
    (level,) = [option for option in options() if option.name == "log_level"]

    assert (level.convert("INFO"), level.convert("Warning")) == ("info", "warning")
    Settings(log_level="ERROR").validate()


def test_settings_built_in_code_refuse_an_unknown_log_level() -> None:
    """An embedded hub's ``Settings(log_level=...)`` is checked by ``validate`` like the flag."""
    with pytest.raises(SettingsError, match="log level must be one of debug, info, warning, error, not 'verbose'"):
        Settings(log_level="verbose").validate()


async def test_a_second_hub_on_a_taken_port_exits_with_one_line(hub: Hub, tmp_path: Path) -> None:
    """A second ``hub serve`` on a port in use ended in a 30-line traceback; it names the port and exits 3."""
    port = hub.address.rsplit(":", 1)[1]

    code, _, err = await kxm(
        "hub", "serve", "--port", port, "--data-dir", str(tmp_path / "second"), "--log-level", "error", cwd=tmp_path
    )

    assert code == 3
    assert err == f"kxm hub: port 127.0.0.1:{port} is in use (another hub?); use --port\n"


async def test_a_command_without_a_hub_says_there_is_none_and_where(tmp_path: Path) -> None:
    """``UNAVAILABLE None: failed to connect…`` became "no hub at ADDRESS", with the address dialled
    (from --addr or KXM_ADDR); a missing reason never prints as None (exit 2: unreachable)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"

    flagged = await kxm("admin", "project", "list", "--addr", address, "--token", "t" * 20, cwd=tmp_path)
    from_env = await kxm(
        "peer", "send", "--as", "carol", "dave", "hi", "--json",
        cwd=tmp_path,
        env={"KXM_ADDR": address, "KXM_TOKEN": "t" * 20, "KXM_DATA_DIR": str(tmp_path / "state")},
    )  # fmt: skip

    assert flagged[0] == 2
    assert flagged[2] == f"error: UNAVAILABLE: no hub at {address}; start one with scripts/serve\n"
    assert from_env[0] == 2
    error = json.loads(from_env[2])
    assert (error["code"], error["reason"]) == ("UNAVAILABLE", "")
    assert error["message"] == f"no hub at {address}; start one with scripts/serve"
    assert "Connection refused" in error["detail"]
    assert "None" not in flagged[2] + from_env[2]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("json_mode", [False, True])
async def test_long_waits_show_elapsed_seconds_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, json_mode: bool
) -> None:
    """A long wait rewrites one line with the seconds elapsed on a terminal's stderr and clears it at
    the end; with --json, or when stderr is not a terminal, nothing is written."""
    terminal, piped = _Terminal(), io.StringIO()
    args = argparse.Namespace(json=json_mode)

    monkeypatch.setattr(sys, "stderr", terminal)
    async with progress(args, "waiting for msg_1"):
        await asyncio.sleep(1.2)
    monkeypatch.setattr(sys, "stderr", piped)
    async with progress(args, "waiting for msg_1"):
        await asyncio.sleep(0.1)

    expected = "" if json_mode else "\rwaiting for msg_1 0s\rwaiting for msg_1 1s\r\x1b[K"
    assert terminal.getvalue() == expected
    assert piped.getvalue() == ""


async def test_an_operator_resumes_an_agent_whose_key_is_lost_without_naming_the_default_project(
    hub: Hub, tmp_path: Path
) -> None:
    """``kxm agent register NAME --token ADMIN`` acts in 'default', as --project's help says: the way
    out of a name whose key is lost (a rerun of a doc example) needs no --project."""
    env = {"KXM_ADDR": hub.address, "KXM_ADMIN_TOKEN": ADMIN_TOKEN}
    first = {**env, "KXM_DATA_DIR": str(tmp_path / "first")}
    lost = {**env, "KXM_DATA_DIR": str(tmp_path / "lost")}  # another folder: no saved key
    created = await kxm("admin", "project", "create", "default", cwd=tmp_path, env=first)
    assert created[0] == 0, created[2]
    registered = await kxm("agent", "register", "carol", "--token", ADMIN_TOKEN, "--json", cwd=tmp_path, env=first)

    resumed = await kxm("agent", "register", "carol", "--token", ADMIN_TOKEN, "--json", cwd=tmp_path, env=lost)

    assert registered[0] == 0, registered[2]
    assert resumed[0] == 0, resumed[2]
    carol, again = json.loads(registered[1]), json.loads(resumed[1])
    assert (again["id"], again["project"], again["resumed"]) == (carol["id"], "default", True)


def test_an_interrupted_command_that_hangs_on_its_way_out_still_ends_with_130() -> None:
    """Closing a grpc.aio channel with a call in flight has outlasted a minute on a loaded machine:
    after Ctrl-C the watchdog flushes what was printed and ends the process with 130."""
    import subprocess

    script = (
        "import time\n"
        "from kxm_grpc.cli.common import _end_after\n"
        "print('interrupted: msg_1 is stored', end='')\n"
        "_end_after(0.2, 130)\n"
        "time.sleep(120)  # a shutdown that never ends\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": ROOT},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert (done.returncode, done.stdout) == (130, "interrupted: msg_1 is stored")
