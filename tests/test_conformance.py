"""Client conformance: one scenario in Python, Go, TypeScript, Java and Rust against one real hub.

A hub process (tests/harness.py) serves one project; the five conformance programs run at the same
time, each with its own agent-name prefix, and each prints a JSON transcript of normalised facts
(docs/clients.md, "Conformance"). Every transcript must equal ``EXPECTED`` and the Python one,
step by step.

Nothing is built here: ``scripts/build-clients`` (run by ``scripts/test`` before pytest) leaves
the outputs these tests run (``tsc``'s ``dist/``, ``mvn package``'s classes and classpath,
``cargo build``'s binary, Go's build cache for ``go run``). A missing or stale output fails with
the command to run. A missing toolchain skips that language locally and fails under CI (``CI`` set).

Compare a transcript saved by hand with the expected one:
``.venv/bin/python -m tests.test_conformance go.json`` (from the repository root).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.client import SyncHubClient
from tests.harness import ADMIN_TOKEN, HubProcess

REPO = Path(__file__).resolve().parents[1]
CLIENTS = REPO / "clients"
RUN_TIMEOUT = 120.0  # seconds per program; a full run takes a few seconds
BUILD_HINT = "run scripts/build-clients (scripts/install-client-tools first on a fresh clone)"

_READY: dict[str, Any] = {"first_event": "ready"}
_ERROR_NONE = {"code": "OK", "reason": "", "domain": ""}
_HANDLER = {
    "content_equal": True,
    "ack_state": "MESSAGE_STATE_DELIVERED",
    "reply_state": "MESSAGE_STATE_REPLIED",
    "concurrent": True,
}


def _registered(step: str) -> dict[str, Any]:
    return {"step": step, "resumed": False, "presence": "PRESENCE_ONLINE", "name_equal": True}


def _fanout_result(target: str) -> dict[str, Any]:
    return {"target": target, "status": "FANOUT_STATUS_TERMINAL", "state": "MESSAGE_STATE_REPLIED", "reply_equal": True}


# The transcript every language must print (the facts the scenario's steps imply).
EXPECTED: list[dict[str, Any]] = [
    _registered("register_a"),
    _registered("register_b"),
    _registered("register_c"),
    {"step": "subscribe", **_READY, "after_seq": 0, "ready_seq": 0, "agent_is_b": True},
    {
        "step": "send_repeat",
        "first_repeated": False,
        "first_state": "MESSAGE_STATE_QUEUED",
        "repeated": True,
        "same_id": True,
        "same_seq": True,
    },
    {
        "step": "receive",
        "event": "message",
        "seq_positive": True,
        "seq_matches": True,
        "same_id": True,
        "content_equal": True,
        "from_a": True,
        "redelivered": False,
    },
    {"step": "ack", "count": 1, "state": "MESSAGE_STATE_DELIVERED"},
    {"step": "reply", "state": "MESSAGE_STATE_REPLIED"},
    {"step": "wait", "terminal": True, "state": "MESSAGE_STATE_REPLIED", "reply_equal": True},
    {
        "step": "fanout",
        "c_first_event": "ready",
        "results": [_fanout_result("b"), _fanout_result("c")],
        "handler_b": _HANDLER,
        "handler_c": _HANDLER,
    },
    {"step": "get_missing", "code": "NOT_FOUND", "reason": "ERROR_REASON_MESSAGE_NOT_FOUND", "domain": "kxm.dev"},
    {
        "step": "lease",
        "first_live": True,
        "first_renewed": False,
        "released_token_equal": True,
        "second_renewed": False,
        "token_grew": True,
    },
    {
        "step": "fence",
        "current_live": True,
        "current_token_equal": True,
        "stale": {"code": "ABORTED", "reason": "ERROR_REASON_LEASE_SUPERSEDED", "domain": "kxm.dev"},
    },
    {
        "step": "resume",
        **_READY,
        "ready_after_seq_is_cursor": True,
        "first_seq_is_next": True,
        "contiguous": True,
        "duplicates": False,
        "messages": 2,
        "contents_in_order": True,
        "redelivered": False,
    },
]


def _canonical(value: Any) -> str:
    """JSON with sorted keys: equal only if types match too (``true`` is not ``1``)."""
    return json.dumps(value, sort_keys=True)


def compare(steps: list[dict[str, Any]], reference: list[dict[str, Any]], against: str) -> list[str]:
    """Every difference between two transcripts' steps, step by step (empty when they agree)."""
    problems = []
    for index, (got, want) in enumerate(zip(steps, reference, strict=False)):
        if _canonical(got) != _canonical(want):
            problems.append(
                f"step {index} ({want.get('step')}) differs from {against}:\n"
                f"    got  {_canonical(got)}\n    want {_canonical(want)}"
            )
    if len(steps) != len(reference):
        missing = [s.get("step") for s in reference[len(steps) :]]
        extra = steps[len(reference) :]
        problems.append(f"{len(steps)} steps, {against} has {len(reference)}; missing {missing}, extra {extra}")
    return problems


# -- the programs ----------------------------------------------------------------------------------


@dataclass
class Program:
    """How to run one language's conformance program, and what must exist first."""

    language: str
    command: list[str]
    cwd: Path
    builder: str | None = None
    """The toolchain that builds it and must be on PATH to run it (unless ``outputs`` run alone)."""
    outputs: list[Path] = field(default_factory=list)
    """Build outputs the run needs."""
    sources: list[Path] = field(default_factory=list)
    """The sources of ``outputs[0]``: when it is older than one of them it is stale."""
    env: dict[str, str] = field(default_factory=dict)
    standalone: bool = False
    """The outputs run without the toolchain (a native binary)."""

    def unavailable(self) -> tuple[str, str] | None:
        """("skip" or "fail", why) when the program cannot run, else None."""
        built = all(output.exists() for output in self.outputs)
        if self.builder and shutil.which(self.builder) is None and not (self.standalone and built):
            why = f"{self.language}: {self.builder} is not on PATH (see scripts/install-client-tools)"
            return ("fail" if os.environ.get("CI") else "skip", why)
        newest = max((source.stat().st_mtime for source in self.sources if source.exists()), default=0.0)
        for index, output in enumerate(self.outputs):
            if not output.exists():
                return "fail", f"{self.language}: build output {output.relative_to(REPO)} is missing: {BUILD_HINT}"
            if index == 0 and output.stat().st_mtime < newest:
                return "fail", f"{self.language}: build output {output.relative_to(REPO)} is stale: {BUILD_HINT}"
        return None


def _programs() -> dict[str, Program]:
    go, ts, java, rust = (CLIENTS / name for name in ("go", "typescript", "java", "rust"))
    return {
        "python": Program("python", [sys.executable, str(CLIENTS / "python" / "conformance.py")], REPO),
        # `go run` links from the build cache scripts/build-clients filled (Go caches the binary
        # too); GOPROXY=off: it never downloads.
        "go": Program(
            "go",
            ["go", "run", "./cmd/conformance"],
            go,
            builder="go",
            env={"GOPROXY": "off", "GOFLAGS": "-mod=readonly"},
        ),
        "typescript": Program(
            "typescript",
            ["node", "dist/src/conformance.js"],
            ts,
            builder="node",
            outputs=[ts / "dist" / "src" / "conformance.js"],
            sources=[ts / "src" / "conformance.ts"],
        ),
        "java": Program(
            "java",
            [str(java / "conformance")],
            java,
            builder="java",
            outputs=[
                java / "target" / "classes" / "dev" / "kxm" / "conformance" / "Conformance.class",
                java / "target" / "classpath.txt",
            ],
            sources=[java / "src" / "main" / "java" / "dev" / "kxm" / "conformance" / "Conformance.java"],
        ),
        "rust": Program(
            "rust",
            [str(rust / "target" / "debug" / "conformance")],
            rust,
            builder="cargo",
            outputs=[rust / "target" / "debug" / "conformance"],
            sources=[rust / "src" / "bin" / "conformance.rs"],
            standalone=True,
        ),
    }


PROGRAMS = _programs()
LANGUAGES = list(PROGRAMS)


@dataclass
class Run:
    """One program's run: its transcript, or why there is none."""

    language: str
    unavailable: tuple[str, str] | None = None
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    transcript: dict[str, Any] | None = None
    hub_log: Path | None = None

    def describe(self) -> str:
        tail = "\n".join(self.stderr.strip().splitlines()[-20:])
        error = self.transcript.get("error") if self.transcript else None
        return (
            f"{self.language} conformance exited {self.returncode} after {self.seconds:.1f} s; error: {error}\n"
            f"stdout: {self.stdout.strip()[:2000]}\nstderr (last lines):\n{tail}\nhub log: {self.hub_log}"
        )


def _parse(stdout: str) -> dict[str, Any] | None:
    """The transcript: the last line of stdout that is a JSON object."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _run_all(address: str, token: str, languages: list[str], hub_log: Path) -> dict[str, Run]:
    """Start every available program at once against the hub; wait for all of them."""
    runs = {
        language: Run(language, unavailable=PROGRAMS[language].unavailable(), hub_log=hub_log) for language in languages
    }
    suffix = uuid.uuid4().hex[:8]
    started: dict[str, tuple[subprocess.Popen[str], float]] = {}
    for language, run in runs.items():
        if run.unavailable:
            continue
        program = PROGRAMS[language]
        env = {
            **os.environ,
            **program.env,
            "KXM_ADDR": address,
            "KXM_PROJECT_TOKEN": token,
            "KXM_NAME_PREFIX": f"cf-{language}-{suffix}",
            "GRPC_VERBOSITY": "ERROR",
        }
        process = subprocess.Popen(
            program.command,
            cwd=program.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started[language] = (process, time.monotonic())
    deadline = time.monotonic() + RUN_TIMEOUT
    for language, (process, start) in started.items():
        run = runs[language]
        try:
            run.stdout, run.stderr = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            run.stdout, run.stderr = process.communicate()
            run.stderr += f"\n(killed after {RUN_TIMEOUT:.0f} s)"
        run.returncode = process.returncode
        run.seconds = time.monotonic() - start
        run.transcript = _parse(run.stdout)
    return runs


@pytest.fixture(scope="module")
def conformance_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Run]]:
    """One hub, one project, and a run of every selected language's program (Python always)."""
    selected = {"python"}
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and item.module is request.module:  # type: ignore[attr-defined]
            selected.add(callspec.params["language"])
    hub = HubProcess(tmp_path_factory.mktemp("conformance") / "data", durability="normal")
    address = hub.start()
    try:
        with SyncHubClient(address, token=ADMIN_TOKEN) as admin:
            token = admin.create_project("conformance").project_token
        yield _run_all(address, token, [language for language in LANGUAGES if language in selected], hub.log_path)
    finally:
        hub.stop()


@pytest.mark.clients
@pytest.mark.timeout(300)
@pytest.mark.parametrize("language", LANGUAGES)
def test_conformance(language: str, conformance_runs: dict[str, Run]) -> None:
    """The language's transcript equals the expected facts and the Python transcript, step by step."""
    run = conformance_runs[language]
    if run.unavailable:
        action, why = run.unavailable
        if action == "skip":
            pytest.skip(why)
        pytest.fail(why)
    assert run.transcript is not None, f"no JSON transcript on stdout ({BUILD_HINT}?)\n{run.describe()}"
    assert run.transcript.get("language") == language, run.describe()
    steps = run.transcript.get("steps", [])
    problems = compare(steps, EXPECTED, "the expected transcript")
    reference = conformance_runs["python"].transcript
    if language != "python" and reference is not None:
        problems += compare(steps, reference.get("steps", []), "the Python transcript")
    assert not problems, "\n".join(problems) + "\n" + run.describe()
    assert run.returncode == 0 and run.transcript.get("ok") is True, run.describe()


def main(paths: list[str]) -> int:
    """Compare saved transcripts with the expected one; print the differences."""
    status = 0
    for path in paths:
        transcript = json.loads(Path(path).read_text())
        problems = compare(transcript.get("steps", []), EXPECTED, "the expected transcript")
        if transcript.get("error"):
            problems.append(f"error: {transcript['error']}")
        print(f"{path} ({transcript.get('language')}): {'ok' if not problems else 'DIFFERS'}")
        for problem in problems:
            print("  " + problem)
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
