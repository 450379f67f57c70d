"""Client conformance: one scenario in Python, Go, TypeScript, Java and Rust against one real hub.

A hub process (tests/harness.py) serves one project, and a second one serves TLS; the five
conformance programs run at the same time, each with its own agent-name prefix and its own contract
sweep (tests/conformance_sweep.py: a project of its own and every RPC of the contract), and each
prints a JSON transcript of normalised facts (docs/clients.md, "Conformance"). Every transcript must
equal ``EXPECTED`` (with the sweep's expected facts) and the Python one, step by step.

Nothing is built here: ``scripts/build-clients`` (run by ``scripts/test`` before pytest) leaves
the outputs these tests run (``tsc``'s ``dist/``, ``mvn package``'s classes and classpath,
``cargo build``'s binary, Go's build cache for ``go run``). A missing or stale output fails with
the command to run: stale means the content of one of its inputs (any file of the client's folder
that goes into the build: gen/, the program, manifests and lock files) differs from what
scripts/build-clients stamped next to the output when it built it (``scripts/client_inputs.py``).
A missing toolchain skips that language locally and fails under CI (``CI`` set).

Compare a transcript saved by hand with the expected one:
``.venv/bin/python -m tests.test_conformance go.json`` (from the repository root).
"""

from __future__ import annotations

import importlib.util
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
from types import ModuleType
from typing import Any

import pytest

from kxm_grpc.client import SyncHubClient
from tests import conformance_sweep
from tests.conftest import ADMIN_TOKEN  # the sweep's worlds are built with it (B9's)
from tests.harness import HubProcess

REPO = Path(__file__).resolve().parents[1]
CLIENTS = REPO / "clients"
RUN_TIMEOUT = 120.0  # seconds per program; a full run takes a few seconds
BUILD_HINT = "run scripts/build-clients (scripts/install-client-tools first on a fresh clone)"


def _load_client_inputs() -> ModuleType:
    """scripts/client_inputs.py, the one definition of a client build's inputs and stamp."""
    spec = importlib.util.spec_from_file_location("kxm_client_inputs", REPO / "scripts" / "client_inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


client_inputs = _load_client_inputs()

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
    {
        "step": "channel",
        "a_ready": True,
        "d_ready": True,
        "max_commands_per_request": 100,
        "max_in_flight_positive": True,
        "d_first_event": "ready",
        "event": "message",
        "content_equal": True,
        "from_a": True,
        "seq_positive": True,
        "ack_state": "MESSAGE_STATE_DELIVERED",
        "reply_state": "MESSAGE_STATE_REPLIED",
        "results_in_order": True,
        "send_terminal": True,
        "send_reply_equal": True,
        "send_key_is_command_id": True,
        "send_replayed": False,
        "replayed": True,
        "replay_same_id": True,
        "error": {"code": "NOT_FOUND", "reason": "ERROR_REASON_MESSAGE_NOT_FOUND"},
        "a_end": "OK",
        "d_end": "OK",
    },
    {
        "step": "redeliver",
        "e_ready": True,
        "resumed": True,
        "end_code": "UNAUTHENTICATED",
        "end_reason": "ERROR_REASON_INVALID_AGENT_IDENTITY",
        "ready_after_seq_is_cursor": True,
        "redelivered": True,
        "same_id": True,
        "content_equal": True,
        "ack_state": "MESSAGE_STATE_DELIVERED",
    },
    {"step": "tls", "credential_kind": "CREDENTIAL_KIND_PROJECT"},
]
"""The scenario's steps; the last step, ``sweep``, is each program's own (``expected_steps``)."""

# The RPCs the hand-written steps call (the sweep calls every RPC in any case).
SCENARIO_METHODS = {
    "kxm.v1.AgentService/RegisterAgent",
    "kxm.v1.AgentService/OpenChannel",
    "kxm.v1.AgentService/GetCallerIdentity",
    "kxm.v1.MessageService/Subscribe",
    "kxm.v1.MessageService/SendMessage",
    "kxm.v1.MessageService/AckMessages",
    "kxm.v1.MessageService/ReplyToMessage",
    "kxm.v1.MessageService/WaitMessage",
    "kxm.v1.MessageService/FanoutMessages",
    "kxm.v1.MessageService/GetMessage",
    "kxm.v1.LeaseService/AcquireLease",
    "kxm.v1.LeaseService/ReleaseLease",
    "kxm.v1.LeaseService/CheckFence",
}


def expected_steps(sweep: conformance_sweep.Sweep) -> list[dict[str, Any]]:
    """The transcript a program given ``sweep`` must print: the scenario's steps, then the sweep's facts."""
    return [*EXPECTED, {"step": "sweep", "calls": conformance_sweep.expected(sweep)}]


def normalised(steps: list[dict[str, Any]], sweep: conformance_sweep.Sweep, *, shapes: bool) -> list[dict[str, Any]]:
    """The transcript's steps with the sweep's recorded calls reduced to facts (ids and bytes gone);
    ``shapes``: with what each answer holds (compared between languages, not with ``EXPECTED``)."""
    return [
        {"step": "sweep", "calls": conformance_sweep.facts(sweep, step.get("calls", []), shapes=shapes)}
        if step.get("step") == "sweep"
        else step
        for step in steps
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
    build: Any = None
    """The ``client_inputs.Build`` that made ``outputs`` (its stamp must match the inputs in ``cwd``)."""
    env: dict[str, str] = field(default_factory=dict)
    standalone: bool = False
    """The outputs run without the toolchain (a native binary)."""

    def unavailable(self) -> tuple[str, str] | None:
        """("skip" or "fail", why) when the program cannot run, else None."""
        built = all(output.exists() for output in self.outputs)
        if self.builder and shutil.which(self.builder) is None and not (self.standalone and built):
            why = f"{self.language}: {self.builder} is not on PATH (see scripts/install-client-tools)"
            return ("fail" if os.environ.get("CI") else "skip", why)
        for output in self.outputs:
            if not output.exists():
                return "fail", f"{self.language}: build output {_shown(output)} is missing: {BUILD_HINT}"
        if self.build is not None:
            why = client_inputs.stale(self.build, self.cwd)
            if why is not None:
                return "fail", f"{self.language}: build outputs are stale: {why}: {BUILD_HINT}"
        return None


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


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
            build=client_inputs.BUILDS["typescript"],
        ),
        "java": Program(
            "java",
            [str(java / "conformance" / "run")],
            java,
            builder="java",
            outputs=[
                java / "conformance" / "target" / "classes" / "dev" / "kxm" / "conformance" / "Conformance.class",
                java / "conformance" / "target" / "classpath.txt",
            ],
            build=client_inputs.BUILDS["java"],
        ),
        "rust": Program(
            "rust",
            [str(rust / "target" / "debug" / "examples" / "conformance")],
            rust,
            builder="cargo",
            outputs=[rust / "target" / "debug" / "examples" / "conformance"],
            build=client_inputs.BUILDS["rust"],
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
    sweep: conformance_sweep.Sweep | None = None

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


@dataclass
class Hubs:
    """What the programs are given: the hub and its project token, the TLS hub, a folder for sweeps."""

    address: str
    token: str
    tls_address: str
    tls_ca: Path
    tls_token: str
    folder: Path
    hub_log: Path


def _run_all(hubs: Hubs, languages: list[str]) -> dict[str, Run]:
    """Start every available program at once against the hub; wait for all of them."""
    runs = {
        language: Run(language, unavailable=PROGRAMS[language].unavailable(), hub_log=hubs.hub_log)
        for language in languages
    }
    suffix = uuid.uuid4().hex[:8]
    started: dict[str, tuple[subprocess.Popen[str], float]] = {}
    sweeps = {
        language: conformance_sweep.build(hubs.address, f"sw-{language}-{suffix}")
        for language, run in runs.items()
        if not run.unavailable
    }  # every sweep first: no program runs while a later world is built, and none is left behind if one fails
    for language, run in runs.items():
        if run.unavailable:
            continue
        program = PROGRAMS[language]
        run.sweep = sweeps[language]
        sweep_file = hubs.folder / f"sweep-{language}.json"
        sweep_file.write_text(json.dumps(run.sweep.as_json()))
        env = {
            **os.environ,
            **program.env,
            "KXM_ADDR": hubs.address,
            "KXM_TOKEN": hubs.token,
            "KXM_TLS_ADDR": hubs.tls_address,
            "KXM_TLS_CA": str(hubs.tls_ca),
            "KXM_TLS_TOKEN": hubs.tls_token,
            "KXM_SWEEP": str(sweep_file),
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
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, pki: Path
) -> Iterator[dict[str, Run]]:
    """One hub with one project, a TLS hub, and a run of every selected language's program (Python always)."""
    selected = {"python"}
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and item.module is request.module:  # type: ignore[attr-defined]
            selected.add(callspec.params["language"])
    folder = tmp_path_factory.mktemp("conformance")
    # Agents of the sweep's worlds must not lapse while the programs run (a lapsed assignee's step
    # is reassigned, which changes what later calls answer): presence lasts the whole run.
    hub = HubProcess(
        folder / "data", durability="normal", admin_token=ADMIN_TOKEN, extra_args=("--stale-after", "3600")
    )
    tls_hub = HubProcess(
        folder / "tls-data",
        durability="normal",
        admin_token=ADMIN_TOKEN,
        extra_args=("--tls-cert", str(pki / "server.pem"), "--tls-key", str(pki / "server.key")),
        tls_ca=pki / "ca.pem",
    )
    try:
        address, tls_address = hub.start(), tls_hub.start()
        with SyncHubClient(address, token=ADMIN_TOKEN) as admin:
            token = admin.admin.create_project("conformance").project_token
        with SyncHubClient(
            tls_address, token=ADMIN_TOKEN, tls=True, root_certificates=(pki / "ca.pem").read_bytes()
        ) as admin:
            tls_token = admin.admin.create_project("conformance").project_token
        hubs = Hubs(address, token, tls_address, pki / "ca.pem", tls_token, folder, hub.log_path)
        yield _run_all(hubs, [language for language in LANGUAGES if language in selected])
    finally:
        hub.stop()
        tls_hub.stop()


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
    assert run.sweep is not None
    steps = run.transcript.get("steps", [])
    problems = compare(normalised(steps, run.sweep, shapes=False), expected_steps(run.sweep), "the expected transcript")
    python = conformance_runs["python"]
    if language != "python" and python.transcript is not None and python.sweep is not None:
        reference = normalised(python.transcript.get("steps", []), python.sweep, shapes=True)
        problems += compare(normalised(steps, run.sweep, shapes=True), reference, "the Python transcript")
    assert not problems, "\n".join(problems) + "\n" + run.describe()
    assert run.returncode == 0 and run.transcript.get("ok") is True, run.describe()


def _contract_methods() -> set[str]:
    """Every RPC of proto/kxm/v1, as ``kxm.v1.Service/Method``."""
    from google.protobuf import descriptor_pool

    from kxm_grpc.v1 import (  # noqa: F401  (imported to load every service into the pool)
        admin_service_pb2,
        agent_service_pb2,
        context_service_pb2,
        lease_service_pb2,
        message_service_pb2,
        ops_service_pb2,
        runtime_service_pb2,
        workflow_service_pb2,
    )

    pool = descriptor_pool.Default()
    methods = set()
    for proto in sorted((REPO / "proto" / "kxm" / "v1").glob("*_service.proto")):
        file = pool.FindFileByName(f"kxm/v1/{proto.name}")
        for service in file.services_by_name.values():
            methods |= {f"{service.full_name}/{method.name}" for method in service.methods}
    return methods


def test_every_rpc_has_a_conformance_step() -> None:
    """Every RPC of the contract has a call in the sweep (B9's cases, one call each, so every
    language's program calls it); a new RPC without one fails here, without any client built."""
    covered = {method.removeprefix("/") for method in conformance_sweep.b9.CASES}
    missing = sorted(_contract_methods() - covered)
    assert not missing, f"RPCs without a conformance step: {missing}"
    assert _contract_methods() >= SCENARIO_METHODS


@pytest.mark.clients
def test_the_sweep_calls_every_rpc(conformance_runs: dict[str, Run]) -> None:
    """The sweep the programs were given calls every RPC of the contract."""
    sweep = conformance_runs["python"].sweep
    assert sweep is not None
    missing = sorted(_contract_methods() - conformance_sweep.called_methods(sweep))
    assert not missing, f"RPCs the sweep did not call: {missing}"


# -- stale build outputs ---------------------------------------------------------------------------


def _client_tree(root: Path) -> tuple[Any, Path]:
    """A TypeScript-shaped client folder, built and stamped: (its Build, the folder)."""
    build = client_inputs.Build("demo", "demo", "dist", ("dist", "node_modules"))
    folder = root / "demo"
    for relative, text in {
        "src/conformance.ts": "program",
        "gen/kxm/v1/error_reason_pb.ts": "generated",
        "package.json": "{}",
        "package-lock.json": "{}",
        "tsconfig.json": "{}",
        "README.md": "docs",
        "node_modules/dep/index.js": "dependency",
        "dist/src/conformance.js": "output",
    }.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    client_inputs.write_stamp(build, folder, client_inputs.inputs(build, folder))
    return build, folder


def test_a_changed_input_makes_the_outputs_stale(tmp_path: Path) -> None:
    """Changing, adding or removing any input (generated code, the program, a manifest or lock file)
    is reported by name; restoring the content makes the outputs current again."""
    build, folder = _client_tree(tmp_path)
    assert client_inputs.stale(build, folder) is None
    assert sorted(client_inputs.inputs(build, folder)) == [
        "gen/kxm/v1/error_reason_pb.ts",
        "package-lock.json",
        "package.json",
        "src/conformance.ts",
        "tsconfig.json",
    ]
    for relative in client_inputs.inputs(build, folder):
        path = folder / relative
        original = path.read_text()
        path.write_text(original + " changed")
        assert client_inputs.stale(build, folder) == f"inputs differ from the build's: {relative} changed"
        path.write_text(original)
        assert client_inputs.stale(build, folder) is None

    (folder / "gen" / "kxm" / "v1" / "new_pb.ts").write_text("new")
    assert "gen/kxm/v1/new_pb.ts is new" in (client_inputs.stale(build, folder) or "")
    (folder / "gen" / "kxm" / "v1" / "new_pb.ts").unlink()
    (folder / "package-lock.json").unlink()
    assert "package-lock.json was removed" in (client_inputs.stale(build, folder) or "")


def test_outputs_docs_dependencies_and_mtimes_are_not_inputs(tmp_path: Path) -> None:
    """Rebuilt outputs, installed dependencies, documentation and a touch (a fresh clone's mtimes)
    leave the outputs current: only content counts."""
    build, folder = _client_tree(tmp_path)
    (folder / "dist" / "src" / "conformance.js").write_text("rebuilt")
    (folder / "node_modules" / "dep" / "index.js").write_text("reinstalled")
    (folder / "README.md").write_text("more docs")
    later = time.time() + 1000
    for path in folder.rglob("*"):
        os.utime(path, (later, later))  # every input newer than the output: an mtime check would call it stale
    os.utime(folder / "dist" / "src" / "conformance.js", (1, 1))
    assert client_inputs.stale(build, folder) is None


def test_a_missing_or_tampered_stamp_is_stale(tmp_path: Path) -> None:
    """No stamp (built by hand, or the build failed) or a stamp that does not add up: stale."""
    build, folder = _client_tree(tmp_path)
    stamp = client_inputs.stamp_path(build, folder)
    recorded = json.loads(stamp.read_text())
    recorded["inputs"]["src/conformance.ts"] = "0" * 64
    stamp.write_text(json.dumps(recorded))
    assert "unreadable" in (client_inputs.stale(build, folder) or "")
    stamp.unlink()
    assert "missing" in (client_inputs.stale(build, folder) or "")


def test_run_stamps_only_a_successful_build_of_unchanged_inputs(tmp_path: Path) -> None:
    """``run``: a successful build is stamped; a failed one, or one whose inputs changed while it ran,
    leaves no stamp (so its outputs count as stale)."""
    build, folder = _client_tree(tmp_path)
    python = [sys.executable, "-c"]

    assert client_inputs.run(build, folder, [*python, "import sys; sys.exit(3)"]) == 3
    assert not client_inputs.stamp_path(build, folder).exists()
    assert client_inputs.run(build, folder, [*python, "open('dist/out', 'w').write('x')"]) == 0
    assert client_inputs.stale(build, folder) is None
    assert client_inputs.run(build, folder, [*python, "open('src/conformance.ts', 'a').write('!')"]) == 1
    assert not client_inputs.stamp_path(build, folder).exists()


def test_a_stale_program_is_refused(tmp_path: Path) -> None:
    """The conformance test fails a program whose outputs exist but whose inputs changed."""
    build, folder = _client_tree(tmp_path)
    program = Program("demo", ["true"], folder, outputs=[folder / "dist" / "src" / "conformance.js"], build=build)
    assert program.unavailable() is None
    (folder / "gen" / "kxm" / "v1" / "error_reason_pb.ts").write_text("regenerated")
    assert program.unavailable() == (
        "fail",
        "demo: build outputs are stale: inputs differ from the build's: gen/kxm/v1/error_reason_pb.ts changed: "
        + BUILD_HINT,
    )


def test_every_built_program_is_stamped_by_build_clients() -> None:
    """Every program with build outputs has a Build for its own folder, whose stamp lives in an output
    folder (never an input), and scripts/build-clients builds it through client_inputs.py."""
    script = (REPO / "scripts" / "build-clients").read_text()
    for language, program in PROGRAMS.items():
        if not program.outputs:
            continue
        build = program.build
        assert build is not None, language
        assert program.cwd == client_inputs.folder_of(build), language
        assert build.stamp_dir in build.not_inputs, language
        assert f"stamped {build.language} -- " in script, language


def test_a_nested_output_is_not_an_input(tmp_path: Path) -> None:
    """A multi-module build (Java's client/ and conformance/) names its outputs by their paths."""
    build = client_inputs.Build("demo", "demo", "program/target", ("library/target", "program/target", "program/run"))
    folder = tmp_path / "demo"
    for relative in ("library/pom.xml", "library/target/a.jar", "program/src/Main.java", "program/target/x.class"):
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(relative)
    (folder / "program" / "run").write_text("launcher")
    assert sorted(client_inputs.inputs(build, folder)) == ["library/pom.xml", "program/src/Main.java"]


def main(paths: list[str]) -> int:
    """Compare saved transcripts with the expected one; print the differences."""
    status = 0
    for path in paths:
        transcript = json.loads(Path(path).read_text())
        steps = [step for step in transcript.get("steps", []) if step.get("step") != "sweep"]
        problems = compare(steps, EXPECTED, "the expected transcript (the sweep is compared by the test only)")
        if transcript.get("error"):
            problems.append(f"error: {transcript['error']}")
        print(f"{path} ({transcript.get('language')}): {'ok' if not problems else 'DIFFERS'}")
        for problem in problems:
            print("  " + problem)
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
