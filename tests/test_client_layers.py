"""The thin client layers of the five languages, run as a user runs them, against a real hub.

Each language has two programs beside its conformance program (docs/clients.md, "The thin layers"):

- ``quickstart``, the complete program docs/clients.md shows: two clients built with no arguments,
  alice asks bob ``ping``, bob answers through a resuming subscription; it prints
  ``answered: pong: ping``. It is run three ways: with ``KXM_ADDR`` and ``KXM_TOKEN``; with neither
  but ``KXM_CREDENTIALS`` naming a credentials file (address and token from the file); and with
  neither but a per-user profile (``XDG_CONFIG_HOME``), from a folder without ``.kxm``.
- ``layercheck``, a transcript of what the layer must do: decoded errors (reason, domain, field
  violations), a default deadline (a 10 s server-side wait ends within a 3 s default
  deadline), and a subscription that resumes by itself while the hub is
  killed (``kill -9``) and started again on the same address and data. Every transcript must equal
  ``EXPECTED`` and the Python one.

The programs are built by ``scripts/build-clients``, as for tests/test_conformance.py (only the
Go and Rust layers' own unit tests compile here); a missing toolchain skips a language locally and
fails under CI.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.client import SyncHubClient
from tests.harness import ADMIN_TOKEN, HubProcess
from tests.test_conformance import BUILD_HINT, PROGRAMS, compare

REPO = Path(__file__).resolve().parents[1]
CLIENTS = REPO / "clients"
RUN_TIMEOUT = 120.0
RESTART_WAIT = 90.0  # every program reaches its restart point within this (the JVM and go run start slowly)

EXPECTED: list[dict[str, Any]] = [
    {"step": "register", "credential_kind": "CREDENTIAL_KIND_AGENT", "name_equal": True},
    {
        "step": "not_found",
        "code": "NOT_FOUND",
        "reason": "ERROR_REASON_MESSAGE_NOT_FOUND",
        "domain": "kxm.dev",
        "layer_error": True,
    },
    {"step": "invalid", "code": "INVALID_ARGUMENT", "reason": "ERROR_REASON_PROTOCOL_ERROR", "fields": ["name"]},
    {"step": "deadline", "ended_before_wait": True},
    {"step": "subscribe", "first": "ready"},
    {"step": "resume", "readies": 2, "after_seq_is_cursor": True, "received": True, "redelivered": False},
    {"step": "closed"},
]


@dataclass(frozen=True)
class Layer:
    """How to run one language's quickstart and layercheck (from ``cwd``)."""

    quickstart: list[str]
    layercheck: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    outputs: tuple[Path, ...] = ()
    """Build outputs the programs need (the conformance program's stamp covers their inputs too)."""


def _layers() -> dict[str, Layer]:
    go, ts, java, rust = (CLIENTS / name for name in ("go", "typescript", "java", "rust"))
    python = [sys.executable]
    return {
        "python": Layer(
            [*python, str(CLIENTS / "python" / "quickstart.py")],
            [*python, str(CLIENTS / "python" / "layercheck.py")],
            REPO,
        ),
        "go": Layer(
            ["go", "run", "./examples/quickstart"],
            ["go", "run", "./examples/layercheck"],
            go,
            {"GOPROXY": "off", "GOFLAGS": "-mod=readonly"},
        ),
        "typescript": Layer(
            ["node", str(ts / "dist" / "examples" / "quickstart.js")],
            ["node", str(ts / "dist" / "examples" / "layercheck.js")],
            ts,
            outputs=(ts / "dist" / "examples" / "quickstart.js", ts / "dist" / "examples" / "layercheck.js"),
        ),
        "java": Layer(
            [str(java / "conformance" / "run-example"), "quickstart"],
            [str(java / "conformance" / "run-example"), "layercheck"],
            java,
            outputs=(java / "conformance" / "target" / "classes" / "dev" / "kxm" / "examples" / "Quickstart.class",),
        ),
        "rust": Layer(
            [str(rust / "target" / "debug" / "examples" / "quickstart")],
            [str(rust / "target" / "debug" / "examples" / "layercheck")],
            rust,
            outputs=(
                rust / "target" / "debug" / "examples" / "quickstart",
                rust / "target" / "debug" / "examples" / "layercheck",
            ),
        ),
    }


LAYERS = _layers()
LANGUAGES = list(LAYERS)


def unavailable(language: str) -> tuple[str, str] | None:
    """("skip" or "fail", why) when the language's programs cannot run: its toolchain or build
    outputs are missing or stale (as for its conformance program, built from the same folder)."""
    why = PROGRAMS[language].unavailable()
    if why is not None:
        return why
    for output in LAYERS[language].outputs:
        if not output.exists():
            return "fail", f"{language}: build output {output.relative_to(REPO)} is missing: {BUILD_HINT}"
    return None


def _unavailable(language: str) -> None:
    """Skip (locally) or fail (CI) a language whose toolchain or build outputs are missing."""
    why = unavailable(language)
    if why is None:
        return
    action, text = why
    if action == "skip":
        pytest.skip(text)
    pytest.fail(text)


def _free_port() -> int:
    """A free port below the ephemeral range, so that no outgoing connection (the clients reconnecting
    while the hub is down among them) can take it before the hub starts again on it."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, max(20001, low))
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below the ephemeral range")


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment without any ``KXM_*`` variable of the test's own, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("KXM_")}
    return {**env, "GRPC_VERBOSITY": "ERROR", **extra}


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HubProcess, str]]:
    """A hub on a fixed port (so that it comes back on the same address) and a project token."""
    folder = tmp_path_factory.mktemp("layers")
    process = HubProcess(folder / "data", durability="normal", extra_args=("--port", str(_free_port())))
    address = process.start()
    try:
        with SyncHubClient(address, token=ADMIN_TOKEN) as admin:
            token = admin.admin.create_project("layers").project_token
        yield process, token
    finally:
        process.stop()


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL
    )


def _answered(result: subprocess.CompletedProcess[str]) -> None:
    detail = f"exit {result.returncode}\nstdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-3000:]}"
    assert result.returncode == 0, detail
    assert result.stdout.strip().splitlines()[-1:] == ["answered: pong: ping"], detail


@pytest.mark.clients
@pytest.mark.timeout(400)
@pytest.mark.parametrize("language", LANGUAGES)
def test_quickstart_answers_with_env_a_credentials_file_and_a_profile(
    language: str, hub: tuple[HubProcess, str], tmp_path: Path
) -> None:
    """The documented program gets its answer with the address and token from the environment,
    from the file ``KXM_CREDENTIALS`` names, and from the per-user profile."""
    _unavailable(language)
    process, token = hub
    layer = LAYERS[language]
    prefix = f"qs-{language}-{uuid.uuid4().hex[:8]}"
    env = _clean_env(**layer.env, KXM_ADDR=process.address, KXM_TOKEN=token, KXM_NAME_PREFIX=prefix + "-env")
    _answered(_run(layer.quickstart, layer.cwd, env))

    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({"address": process.address, "projects": {"default": token}}))
    env = _clean_env(**layer.env, KXM_CREDENTIALS=str(credentials), KXM_NAME_PREFIX=prefix + "-file")
    _answered(_run(layer.quickstart, layer.cwd, env))

    profile = tmp_path / "config"
    (profile / "kxm").mkdir(parents=True)
    (profile / "kxm" / "credentials.json").write_text(credentials.read_text())
    assert not (layer.cwd / ".kxm").exists(), "a local .kxm would be read before the profile"
    env = _clean_env(**layer.env, XDG_CONFIG_HOME=str(profile), KXM_NAME_PREFIX=prefix + "-profile")
    _answered(_run(layer.quickstart, layer.cwd, env))


@dataclass
class LayerRun:
    """One running layercheck: its stdout read line by line by ``pump`` (the only reader of it)."""

    language: str
    process: subprocess.Popen[str]
    stderr_path: Path
    lines: list[str] = field(default_factory=list)
    waiting: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    stderr: str = ""

    def pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if line.strip().replace(" ", "") == '{"waiting":"restart"}':
                self.waiting.set()
        self.waiting.set()  # ended early: do not wait for it
        self.done.set()

    def transcript(self) -> dict[str, Any] | None:
        for line in reversed(self.lines):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and "steps" in value:
                return value
        return None


@pytest.fixture(scope="module")
def layer_runs(
    request: pytest.FixtureRequest, hub: tuple[HubProcess, str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, LayerRun | str]:
    """Every available language's layercheck, all at once, across one restart of the hub."""
    process, token = hub
    selected = {"python"}
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and item.module is request.module:  # type: ignore[attr-defined]
            selected.add(callspec.params["language"])
    runs: dict[str, LayerRun | str] = {}
    suffix = uuid.uuid4().hex[:8]
    logs = tmp_path_factory.mktemp("layercheck")
    for language, layer in LAYERS.items():
        if language not in selected:
            continue
        why = unavailable(language)
        if why is not None:
            runs[language] = f"{why[0]}: {why[1]}"
            continue
        env = _clean_env(
            **layer.env, KXM_ADDR=process.address, KXM_TOKEN=token, KXM_NAME_PREFIX=f"lc-{language}-{suffix}"
        )
        stderr_path = logs / f"{language}.stderr"
        with stderr_path.open("w") as stderr:
            child = subprocess.Popen(
                layer.layercheck,
                cwd=layer.cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
        run = LayerRun(language, child, stderr_path)
        threading.Thread(target=run.pump, daemon=True).start()
        runs[language] = run
    started = [run for run in runs.values() if isinstance(run, LayerRun)]
    deadline = time.monotonic() + RESTART_WAIT
    for run in started:
        run.waiting.wait(max(0.0, deadline - time.monotonic()))
    try:
        process.restart()  # kill -9, then the same data and address
    except BaseException:
        for run in started:
            run.process.kill()
        raise
    for run in started:
        assert run.process.stdin is not None
        try:
            run.process.stdin.write("restarted\n")
            run.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
    for run in started:
        assert run.process.stdin is not None
        with contextlib.suppress(BrokenPipeError, OSError):
            run.process.stdin.close()
        try:
            run.process.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            run.process.kill()
            run.process.wait()
        run.done.wait(10)  # the pump has read stdout to its end
        assert run.process.stdout is not None
        run.process.stdout.close()
        run.stderr = run.stderr_path.read_text()
    return runs


@pytest.mark.clients
@pytest.mark.timeout(400)
@pytest.mark.parametrize("language", LANGUAGES)
def test_layer_decodes_errors_keeps_deadlines_and_resumes_across_a_restart(
    language: str, layer_runs: dict[str, LayerRun | str]
) -> None:
    """The layer's transcript equals the expected facts and Python's, step by step."""
    run = layer_runs[language]
    if isinstance(run, str):
        action, _, why = run.partition(": ")
        if action == "skip":
            pytest.skip(why)
        pytest.fail(f"{why} ({BUILD_HINT})")
    transcript = run.transcript()
    detail = f"exit {run.process.returncode}\nstdout: {''.join(run.lines)[-3000:]}\nstderr: {run.stderr[-3000:]}"
    assert transcript is not None, detail
    problems = compare(transcript.get("steps", []), EXPECTED, "the expected transcript")
    python = layer_runs["python"]
    if language != "python" and isinstance(python, LayerRun) and python.transcript() is not None:
        problems += compare(transcript.get("steps", []), python.transcript()["steps"], "the Python transcript")  # type: ignore[index]
    assert not problems, "\n".join(problems) + "\n" + detail
    assert transcript.get("ok") is True and run.process.returncode == 0, detail


QUICKSTARTS = {
    "python": CLIENTS / "python" / "quickstart.py",
    "go": CLIENTS / "go" / "examples" / "quickstart" / "main.go",
    "typescript": CLIENTS / "typescript" / "examples" / "quickstart.ts",
    "java": CLIENTS / "java" / "conformance" / "src" / "main" / "java" / "dev" / "kxm" / "examples" / "Quickstart.java",
    "rust": CLIENTS / "rust" / "examples" / "quickstart.rs",
}


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != "python"])
def test_docs_show_each_quickstart_as_it_is(language: str) -> None:
    """docs/clients.md shows each language's complete program exactly as the file the tests run."""
    docs = (REPO / "docs" / "clients.md").read_text()
    program = QUICKSTARTS[language].read_text()
    assert f"\n{program.rstrip()}\n```" in docs, f"docs/clients.md does not show {QUICKSTARTS[language]} as it is"


UNIT_TESTS = {
    # Credential resolution, metadata, error decoding, the default deadline, resume against a fake server.
    "go": (["go", "test", "-count=1", "./hub/..."], CLIENTS / "go", {"GOPROXY": "off", "GOFLAGS": "-mod=readonly"}),
    # Credential resolution, the credentials-file reader, error decoding, the deadline mapping.
    "rust": (["cargo", "test", "--locked", "--offline", "--lib", "--color", "never"], CLIENTS / "rust", {}),
}


@pytest.mark.clients
@pytest.mark.timeout(900)
@pytest.mark.parametrize("language", list(UNIT_TESTS))
def test_layer_unit_tests(language: str) -> None:
    """The layer's own hermetic tests, in the language's test runner, offline."""
    command, cwd, extra = UNIT_TESTS[language]
    if shutil.which(command[0]) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{command[0]} is not on PATH (see scripts/install-client-tools)")
        pytest.skip(f"{command[0]} is not on PATH")
    result = subprocess.run(command, cwd=cwd, env={**os.environ, **extra}, capture_output=True, text=True, timeout=850)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
