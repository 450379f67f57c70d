"""``kxm_grpc.gates.runner``: real processes (``sys.executable -c``), observed as spec §6.3 says.

No test depends on timing but for generous upper bounds on a timeout being honoured. A test that
needs the command to have reached a point (a handler installed, a grandchild spawned) waits for a
file the command writes once it got there, then stops it.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from kxm_grpc.gates.runner import Command, Reason, Status, run_check, worker_environment

PY = sys.executable

# Writes PATH atomically (a test never reads half a file): the pids given, one a line.
_WRITE = (
    "import os, sys\n"
    "def write(path, *pids):\n"
    "    open(path + '.t', 'w').write(' '.join(map(str, pids)))\n"
    "    os.replace(path + '.t', path)\n"
)


def script(body: str) -> list[str]:
    return [PY, "-c", _WRITE + body]


async def appeared(path: Path, within: float = 60.0) -> list[int]:
    """The pids ``path`` holds once it exists (the command got where it writes it)."""
    deadline = time.monotonic() + within
    while (text := _read(path)) is None:
        assert time.monotonic() < deadline, f"{path} never appeared"
        await asyncio.sleep(0.01)
    return [int(pid) for pid in text.split()]


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except FileNotFoundError:
        return None


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat[stat.rfind(")") + 2] not in "ZX"


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return not any(
        running(int(entry)) and _pgrp(int(entry)) == pgid for entry in os.listdir("/proc") if entry.isdigit()
    )


def _pgrp(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rfind(")") + 2 :].split()[2])


async def test_exit_codes_are_observed_complete() -> None:
    for code in (0, 1, 3, 255):
        observed = await run_check(Command([PY, "-c", f"import sys; sys.exit({code})"]))

        assert (observed.status, observed.reason, observed.exit_code, observed.signal) == (
            Status.COMPLETE,
            None,
            code,
            None,
        )
        assert observed.complete and observed.pid is not None


async def test_output_is_hashed_and_counted_never_kept() -> None:
    """Both streams at once, several MiB each (read concurrently: no pipe deadlock)."""
    body = (
        "import sys\n"
        "for i in range(64):\n"
        "    sys.stdout.buffer.write(bytes([i]) * 65536); sys.stderr.buffer.write(b'e' * 32768)\n"
    )
    expected_out = b"".join(bytes([i]) * 65536 for i in range(64))

    observed = await run_check(Command([PY, "-c", body]))

    assert observed.complete and observed.exit_code == 0
    assert (observed.stdout.size, observed.stdout.sha256) == (
        len(expected_out),
        hashlib.sha256(expected_out).hexdigest(),
    )
    assert (observed.stderr.size, observed.stderr.sha256) == (64 * 32768, hashlib.sha256(b"e" * 64 * 32768).hexdigest())
    assert observed.stdout.complete and observed.stderr.complete
    assert observed.stdout.tail == b"" and observed.stdout.to_dict().keys() == {"sha256", "bytes", "complete"}


async def test_a_bounded_tail_only_when_asked() -> None:
    observed = await run_check(Command([PY, "-c", "print('a' * 1000 + 'END')"]), keep_tail=8)

    assert observed.stdout.tail == b"aaaaEND\n"
    assert observed.stdout.size == 1004
    with pytest.raises(ValueError):
        await run_check(Command([PY, "-c", "pass"]), keep_tail=1 << 20)


async def test_stdin_is_dev_null() -> None:
    """A command reading stdin gets its end at once (it would hang on an inherited terminal)."""
    observed = await run_check(Command([PY, "-c", "import sys; sys.exit(len(sys.stdin.read()))"], timeout_ms=60_000))

    assert observed.complete and observed.exit_code == 0


async def test_cwd_and_env_are_the_commands(tmp_path: Path) -> None:
    body = "import os, sys; sys.exit(0 if os.getcwd() == sys.argv[1] and os.environ['GATE_X'] == 'y' else 1)"

    observed = await run_check(Command([PY, "-c", body, str(tmp_path)], cwd=tmp_path, env={"GATE_X": "y"}))

    assert observed.complete and observed.exit_code == 0


async def test_the_workers_hub_credentials_are_never_passed_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KXM_TOKEN", "kxm_secret")
    monkeypatch.setenv("KXM_ATTEMPT_TOKEN", "attempt")
    monkeypatch.setenv("KXM_AGENT_KEY", "key")
    monkeypatch.setenv("KXM_ADDR", "127.0.0.1:1")
    body = (
        "import os, sys\n"
        "leaked = sum(1 for k in os.environ if 'TOKEN' in k or 'KEY' in k)\n"
        "sys.exit(leaked + 10 * ('KXM_ADDR' not in os.environ))\n"
    )

    observed = await run_check(Command([PY, "-c", body]))

    assert observed.exit_code == 0
    assert worker_environment({"KXM_SESSION_TOKEN": "s", "KXM_SIGNAL_SECRET": "x", "PATH": "/bin"}) == {"PATH": "/bin"}


async def test_a_timeout_stops_the_command_and_its_grandchild(tmp_path: Path) -> None:
    """300 ms against a 60 s sleep: back well within 10 s; neither the command nor the grandchild
    it spawned survives (its whole group is gone)."""
    pids = tmp_path / "pids"
    body = (
        "import subprocess, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"write({str(pids)!r}, os.getpid(), child.pid)\n"
        "time.sleep(60)\n"
    )
    began = time.monotonic()

    observed = await run_check(Command(script(body), timeout_ms=300))

    assert time.monotonic() - began < 10
    assert (observed.status, observed.reason) == (Status.UNCERTAIN, Reason.TIMEOUT)
    assert observed.pid is not None and group_gone(observed.pid)
    if _read(pids) is not None:  # the grandchild may not have been spawned within 300 ms: then the group check holds
        assert not any(running(pid) for pid in await appeared(pids))


async def test_sigterm_ignored_is_followed_by_sigkill(tmp_path: Path) -> None:
    """A command and grandchild that ignore SIGTERM are killed after the grace."""
    pids = tmp_path / "pids"
    body = (
        "import signal, subprocess, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "ignoring = 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); '\n"
        "ignoring += 'time.sleep(60)'\n"
        "child = subprocess.Popen([sys.executable, '-c', ignoring], stdout=subprocess.PIPE)\n"
        "child.stdout.readline()\n"  # the grandchild ignores SIGTERM from here on
        f"write({str(pids)!r}, os.getpid(), child.pid)\n"
        "time.sleep(60)\n"
    )
    stop = asyncio.Event()
    task = asyncio.create_task(run_check(Command(script(body), timeout_ms=120_000, grace_ms=200), stop=stop))
    recorded = await appeared(pids)
    stop.set()

    observed = await task

    assert (observed.status, observed.reason, observed.signal) == (Status.UNCERTAIN, Reason.CANCEL, signal.SIGKILL)
    assert not any(running(pid) for pid in recorded)
    assert observed.pid is not None and group_gone(observed.pid)


async def test_exit_with_pipes_held_open_is_lost_close(tmp_path: Path) -> None:
    """The command exits 0 but a grandchild keeps its stdout: lost-close after the grace, and the
    grandchild is stopped."""
    pids = tmp_path / "pids"
    body = (
        "import subprocess\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"write({str(pids)!r}, child.pid)\n"
    )

    observed = await run_check(Command(script(body), timeout_ms=120_000, grace_ms=300))

    assert (observed.status, observed.reason, observed.exit_code) == (Status.UNCERTAIN, Reason.LOST_CLOSE, 0)
    assert not any(running(pid) for pid in await appeared(pids))


async def test_processes_left_behind_by_a_complete_command_are_stopped(tmp_path: Path) -> None:
    """A grandchild that let go of the pipes does not make the observation uncertain, but it is stopped."""
    pids = tmp_path / "pids"
    body = (
        "import subprocess\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        f"write({str(pids)!r}, child.pid)\n"
    )

    observed = await run_check(Command(script(body), grace_ms=300))

    assert observed.complete and observed.exit_code == 0
    assert not any(running(pid) for pid in await appeared(pids))


async def test_a_signal_ending_the_command_is_uncertain() -> None:
    observed = await run_check(Command([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]))

    assert (observed.status, observed.reason, observed.signal, observed.exit_code) == (
        Status.UNCERTAIN,
        Reason.SIGNAL_TERMINATION,
        signal.SIGKILL,
        None,
    )


async def test_cancelling_the_awaiting_task_stops_the_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    body = (
        "import subprocess, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"write({str(pids)!r}, os.getpid(), child.pid)\n"
        "time.sleep(60)\n"
    )
    task = asyncio.create_task(run_check(Command(script(body), timeout_ms=120_000, grace_ms=500)))
    recorded = await appeared(pids)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert not any(running(pid) for pid in recorded)


@pytest.mark.parametrize(
    ("argv", "reason", "detail"),
    [
        ([], Reason.INVALID_COMMAND, "1-64 entries"),
        (["bin/tool"], Reason.INVALID_COMMAND, "relative path"),
        (["echo", "a\0b"], Reason.INVALID_COMMAND, "NUL"),
        (["git", "push", "--force"], Reason.REFUSED, "git push"),
        (["/nonexistent/kxm-gate-tool"], Reason.SPAWN_ERROR, "FileNotFoundError"),
        (["kxm-no-such-executable-on-path"], Reason.SPAWN_ERROR, "FileNotFoundError"),
    ],
)
async def test_commands_that_do_not_start(argv: list[str], reason: Reason, detail: str) -> None:
    observed = await run_check(Command(argv))

    assert (observed.status, observed.reason) == (Status.NO_START, reason)
    assert detail in observed.detail
    assert observed.pid is None and not observed.stdout.complete


async def test_no_start_for_a_bad_timeout_a_missing_cwd_and_a_stop_before_spawning(tmp_path: Path) -> None:
    stopped = asyncio.Event()
    stopped.set()

    bad_timeout = await run_check(Command([PY, "-c", "pass"], timeout_ms=0))
    no_cwd = await run_check(Command([PY, "-c", "pass"], cwd=tmp_path / "missing"))
    cancelled = await run_check(Command([PY, "-c", "pass"]), stop=stopped)

    assert (bad_timeout.status, bad_timeout.reason) == (Status.NO_START, Reason.INVALID_COMMAND)
    assert (no_cwd.status, no_cwd.reason) == (Status.NO_START, Reason.SPAWN_ERROR)
    assert (cancelled.status, cancelled.reason) == (Status.NO_START, Reason.CANCEL)
