"""``kxm gate run``: real checks run as a subprocess as a user would, and their result checkpointed
into a coordinator-driven run on a real hub."""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.v1 import WorkflowStageStatus
from tests.conftest import ADMIN_TOKEN, Hub, Project
from tests.test_cli import kxm
from tests.workflows import define

PY = sys.executable
PASS = f"{PY} -c pass"
FAIL = f"{PY} -c 'import sys; sys.exit(1)'"


async def gate(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    return await kxm("gate", "run", *args, cwd=cwd, env=env)


async def test_exit_status_follows_the_outcome(tmp_path: Path) -> None:
    """0 passed, 1 failed (implementation-failure, repro-missing), 2 uncertain or no-start."""
    passed = await gate("--", PY, "-c", "pass", cwd=tmp_path)
    failed = await gate("--", PY, "-c", "import sys; sys.exit(3)", cwd=tmp_path)
    reproduced = await gate("--expect", "fail", "--", PY, "-c", "import sys; sys.exit(1)", cwd=tmp_path)
    missing = await gate("--expect", "fail", "--", PY, "-c", "pass", cwd=tmp_path)
    began = time.monotonic()
    timed_out = await gate("--timeout-ms", "300", "--", PY, "-c", "import time; time.sleep(60)", cwd=tmp_path)
    seconds = time.monotonic() - began
    refused = await gate("--", "rm", "-rf", str(tmp_path / "x"), cwd=tmp_path)

    assert passed[0] == 0 and passed[1].splitlines()[0].startswith("kxm-gate-run\tpassed\tsha256:")
    assert passed[1].splitlines()[-1] == "All 1 check passed."
    assert failed[0] == 1 and "\timplementation-failure\texit 3\t" in failed[1]
    assert reproduced[0] == 0 and missing[0] == 1 and "repro-missing" in missing[1]
    assert timed_out[0] == 2 and "\tuncertain\ttimeout\t" in timed_out[1] and seconds < 10
    assert refused[0] == 2 and "did not start (refused: rm with both a recursive and a force flag" in refused[1]
    assert "gate_check_refused" in refused[2]  # the structured event, on stderr


async def test_checks_run_in_order_and_stop_at_the_first_failure(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    touch = f"{PY} -c \"open('{marker}', 'w')\""

    code, out, err = await gate(
        "--json", "--name", "verify", "--check", f"lint={PASS}", "--check", f"test={FAIL}", "--check", f"drift={touch}",
        "--", PY, "-c", "pass", cwd=tmp_path,
    )  # fmt: skip

    assert code == 1, err
    answer = json.loads(out)
    document = answer["workerResult"]
    assert answer["contentHash"] == "sha256:" + hashlib.sha256(canonical_json(document).encode()).hexdigest()
    assert document["worker"] == {"schema": "kxm.worker.v1", "kind": "gate", "driver": "code", "name": "verify"}
    assert [(c["name"], c["outcome"]) for c in document["checks"]] == [
        ("lint", "passed"),
        ("test", "implementation-failure"),
    ]
    assert document["skipped"] == ["drift", "command"] and not marker.exists()
    assert document["command"] == " && ".join(shlex.join(shlex.split(c)) for c in (PASS, FAIL, touch, PASS))


async def test_output_is_never_printed_but_with_tail(tmp_path: Path) -> None:
    noisy = ["--", PY, "-c", "import sys; sys.stdout.write('SECRET' + 'OUT'); sys.exit(1)"]

    plain = await gate(*noisy, cwd=tmp_path)
    tailed = await gate("--tail", *noisy, cwd=tmp_path)

    assert "SECRETOUT" not in plain[1] + plain[2]
    assert "SECRETOUT" not in tailed[1] and "SECRETOUT" in tailed[2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give a command after --"),
        (("--check", f"command={PASS}", "--", PY), "unique"),
        (("--run", "r", "--", PY), "--run and --stage go together"),
        (("--run", "r", "--stage", "s", "--", PY), "--as NAME"),
        (("--evidence", "gate=x", "--", PY), "the gate's own keys"),
        (("--check", "nameonly", "--", PY), "expected NAME=CMD"),
        (("--cwd", "/nonexistent/dir", "--", PY), "not a directory"),
    ],
)
async def test_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    code, _, err = await gate(*args, cwd=tmp_path, env={"KXM_AGENT_NAME": ""})

    assert code == 2 and message in err


# -- against a hub ---------------------------------------------------------------------------------


def gated() -> dict[str, Any]:
    """``gated``: a verify stage needing ``gate`` evidence (three attempts), then ship."""
    document = define("gated", stages=("verify", "ship"))
    document["stages"][0]["requiredEvidence"] = ["gate"]
    return document


async def coordinated_run(hub: Hub, project: Project, tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A started run of ``gated``, its coordinator saved for ``--as coordinator``, the CLI's environment."""
    state = tmp_path / "state"
    env = {
        "KXM_ADDR": hub.address,
        "KXM_ADMIN_TOKEN": ADMIN_TOKEN,
        "KXM_TOKEN": project.token,
        "KXM_PROJECT": project.name,
        "KXM_DATA_DIR": str(state),
    }
    code, _, err = await kxm("agent", "register", "coordinator", cwd=tmp_path, env=env)
    assert code == 0, err
    async with hub.admin() as admin:
        await admin.workflows.register_definition(gated())
        run_id = (await admin.workflows.start_run("gated", delivery_id="d-1")).run.id
    return run_id, env


async def stage(hub: Hub, project: Project, run_id: str, stage_id: str) -> Any:
    async with HubClient(hub.address, token=project.token) as reader:
        run = (await reader.workflows.get_run(run_id)).run
    return next(s for s in run.stages if s.id == stage_id), run


async def test_a_gate_result_checkpointed_into_a_run(hub: Hub, project: Project, tmp_path: Path) -> None:
    """A failed gate is not checkpointed by default; with --status-from-outcome it is, as failed
    (a retry); an uncertain one never; a passing one checkpoints passed with its content hash,
    outcome and checks as evidence, and the run moves on."""
    run_id, env = await coordinated_run(hub, project, tmp_path)
    into = ("--run", run_id, "--stage", "verify", "--as", "coordinator")

    async def cli(*args: str) -> tuple[int, str, str]:
        return await gate(*args, cwd=tmp_path, env=env)

    kept_back = await cli(*into, "--", PY, "-c", "import sys; sys.exit(1)")
    untouched, _ = await stage(hub, project, run_id, "verify")
    failed = await cli(*into, "--status-from-outcome", "--json", "--", PY, "-c", "import sys; sys.exit(1)")
    uncertain = await cli(
        *into, "--status-from-outcome", "--timeout-ms", "200", "--", PY, "-c", "import time; time.sleep(60)"
    )
    retried, _ = await stage(hub, project, run_id, "verify")
    passed = await cli(*into, "--json", "--name", "verify-gate", "--check", f"lint={PASS}", "--", PY, "-c", "pass")
    settled, run = await stage(hub, project, run_id, "verify")
    wrong_stage = await cli(*into, "--", PY, "-c", "pass")

    assert kept_back[0] == 1 and "not checkpointed: the gate failed" in kept_back[2]
    assert untouched.attempts == 0
    assert failed[0] == 1, failed[2]
    assert json.loads(failed[1])["checkpoint"]["retry"] is True
    assert uncertain[0] == 2 and "not checkpointed: its outcome is uncertain" in uncertain[2]
    assert retried.attempts == 1
    assert passed[0] == 0, passed[2]
    answer = json.loads(passed[1])
    assert run.current_stage_id == "ship" and settled.status == WorkflowStageStatus.WORKFLOW_STAGE_STATUS_PASSED
    assert dict((key, list(values.values)) for key, values in settled.evidence.items()) == {
        "gate": [answer["contentHash"]],
        "gate.outcome": ["passed"],
        "gate.checks": ["lint=passed(exit 0); command=passed(exit 0)"],
    }
    assert settled.summary == "All 2 checks passed." == answer["workerResult"]["summary"]
    assert answer["checkpoint"]["run"]["currentStageId"] == "ship"
    # the stage moved on: the hub refuses, and the exit says the result was not recorded (never 1)
    assert wrong_stage[0] == 2 and "WORKFLOW_STAGE_OUT_OF_ORDER" in wrong_stage[2]
