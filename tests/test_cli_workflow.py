"""``kxm workflow``: definition files checked without a hub, and every hub verb against a real hub
(the webhook listener on for ``signal``), run as a subprocess as a user would."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc import Unauthenticated
from kxm_grpc.cli.workflow import signal_request
from kxm_grpc.client import HubClient
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.definitions import Source, load_text
from kxm_grpc.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project
from tests.test_cli import kxm
from tests.workflows import SIGNAL_SECRET, define

START = "start-secret-0123456789"
ENV = {"KXM_TEST_START_SECRET": START}

YAML = """\
id: fix-bug
project: alpha
target: coordinator
secretEnv: KXM_TEST_START_SECRET
promptTemplate: "Fix {{issue.key}}"
maxTransitions: 3
stages:
  - id: plan
    instructions: Plan the fix.
    requiredEvidence: [plan]
  - id: review
    instructions: Get two reviews.
    requiredEvidence: [review]
    evidencePolicies:
      review:
        kind: peer-reply
        minProducers: 2
        eligibleAgents: [alice, bob]
        degradation: {minProducers: 1}
    on:
      failed: plan
"""

JSON = [
    {
        "id": "triage",
        "project": "alpha",
        "target": "coordinator",
        "secret": START,
        "promptTemplate": "Triage {{issue.key}}",
        "stages": [{"id": "triage", "instructions": "Label it."}],
    },
    {
        "id": "close",
        "project": "alpha",
        "target": "coordinator",
        "secret": START,
        "promptTemplate": "Close {{issue.key}}",
        "stages": [{"id": "close", "instructions": "Close it."}],
    },
]

BAD = [
    {
        "id": "broken",
        "project": "alpha",
        "target": "coordinator",
        "secret": "short",
        "ttlMs": 10,
        "promptTemplate": "x",
        "stages": [{"id": "a", "instructions": "a", "on": {"passed": "c"}}, {"id": "b", "instructions": "b"}],
    }
]


def write(tmp_path: Path) -> tuple[Path, Path, Path]:
    good_yaml = tmp_path / "fix.yaml"
    good_yaml.write_text(YAML, encoding="utf-8")
    good_json = tmp_path / "more.json"
    good_json.write_text(json.dumps(JSON), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(BAD), encoding="utf-8")
    return good_yaml, good_json, bad


async def test_valid_files_print_their_definitions(tmp_path: Path) -> None:
    good_yaml, good_json, _ = write(tmp_path)
    (fix,) = load_text(YAML, origin=str(good_yaml), env=ENV)

    code, out, err = await kxm("workflow", "validate", str(good_yaml), str(good_json), cwd=tmp_path, env=ENV)

    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{good_yaml}: 1 definition"
    assert lines[1] == f"  fix-bug\tstages: plan, review\thash {fix.hash}"
    assert lines[2] == (
        f"  warning: {good_yaml}: workflow fix-bug: stages[1].evidencePolicies.review.degradation.minProducers:"
        " is 1: a single producer can satisfy the degraded quorum"
    )
    assert lines[3] == f"{good_json}: 2 definitions"
    assert lines[4].startswith("  triage\tstages: triage\thash ")
    assert lines[5].startswith("  close\tstages: close\thash ")


async def test_every_problem_is_printed_and_the_exit_is_1(tmp_path: Path) -> None:
    good_yaml, _, bad = write(tmp_path)

    code, out, _ = await kxm("workflow", "validate", str(bad), str(good_yaml), cwd=tmp_path, env=ENV)
    as_json = await kxm("workflow", "validate", str(bad), "--json", cwd=tmp_path, env=ENV)

    assert code == 1
    assert out.splitlines()[:4] == [
        f"{bad}: 3 problems",
        f"  {bad}: workflow broken: secret: must be between 16 and 512 characters",
        f"  {bad}: workflow broken: ttlMs: must be an integer between 1000 and 604800000",
        f"  {bad}: workflow broken: stages[0].on.passed: targets unknown stage c",
    ]
    assert f"{good_yaml}: 1 definition" in out
    assert as_json[0] == 1
    report = json.loads(as_json[1])
    assert report["ok"] is False
    (checked,) = report["files"]
    assert (checked["path"], checked["ok"], checked["error"], checked["definitions"]) == (str(bad), False, None, [])
    assert checked["problems"][0] == {
        "origin": str(bad),
        "definition": "broken",
        "field": "secret",
        "message": "must be between 16 and 512 characters",
    }
    assert [p["field"] for p in checked["problems"]] == ["secret", "ttlMs", "stages[0].on.passed"]


async def test_json_output_and_the_process_environment(tmp_path: Path) -> None:
    good_yaml, _, _ = write(tmp_path)

    code, out, _ = await kxm("workflow", "validate", str(good_yaml), "--json", cwd=tmp_path, env=ENV)
    unset = await kxm("workflow", "validate", str(good_yaml), cwd=tmp_path, env={"KXM_TEST_START_SECRET": ""})

    assert code == 0
    (fix,) = load_text(YAML, origin=str(good_yaml), env=ENV)
    report = json.loads(out)
    assert report["ok"] is True
    assert report["files"][0]["definitions"] == [
        {"id": "fix-bug", "kind": "stages", "project": "alpha", "stages": ["plan", "review"], "hash": fix.hash}
    ]
    assert report["files"][0]["warnings"][0]["field"] == "stages[1].evidencePolicies.review.degradation.minProducers"
    assert unset[0] == 1
    assert "secretEnv: the value of KXM_TEST_START_SECRET must be between 16 and 512 characters" in unset[1]


async def test_ids_must_be_unique_across_files(tmp_path: Path) -> None:
    good_yaml, _, _ = write(tmp_path)
    again = tmp_path / "again.yml"
    again.write_text(YAML, encoding="utf-8")

    code, out, _ = await kxm("workflow", "validate", str(good_yaml), str(again), cwd=tmp_path, env=ENV)

    assert code == 1
    assert f"  {again}: workflow fix-bug: id: duplicate workflow id: {good_yaml} defines it too" in out.splitlines()


async def test_an_unreadable_file_or_a_usage_error_exits_2(tmp_path: Path) -> None:
    good_yaml, _, bad = write(tmp_path)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")

    missing = await kxm("workflow", "validate", str(tmp_path / "nope.json"), str(bad), cwd=tmp_path, env=ENV)
    undecodable = await kxm("workflow", "validate", str(binary), "--json", cwd=tmp_path, env=ENV)
    usage = await kxm("workflow", "validate", cwd=tmp_path, env=ENV)
    bad_format = await kxm("workflow", "validate", str(good_yaml), "--format", "toml", cwd=tmp_path, env=ENV)

    assert missing[0] == 2
    assert f"error: cannot read {tmp_path / 'nope.json'}: No such file or directory" in missing[2]
    assert f"{bad}: 3 problems" in missing[1]  # the other files are still checked
    assert undecodable[0] == 2
    assert json.loads(undecodable[1])["files"][0]["error"].startswith("not UTF-8 text")
    assert usage[0] == 2 and "FILE" in usage[2]
    assert bad_format[0] == 2


async def test_format_forces_the_parser(tmp_path: Path) -> None:
    as_text = tmp_path / "fix.txt"
    as_text.write_text(YAML, encoding="utf-8")

    guessed = await kxm("workflow", "validate", str(as_text), cwd=tmp_path, env=ENV)
    forced = await kxm("workflow", "validate", str(as_text), "--format", "json", cwd=tmp_path, env=ENV)

    assert guessed[0] == 0  # not JSON-looking: read as YAML
    assert forced[0] == 1 and "invalid JSON" in forced[1]


# -- against a hub ---------------------------------------------------------------------------------


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The shared test settings with the webhook listener on a free loopback port (for ``signal``)."""
    return replace(hub_settings, webhook_port=0)


def reviewed() -> dict[str, Any]:
    """``fix``: a review stage needing "Unit Tests" from alice and bob (one, with an approval), then ship."""
    document = define("fix", reviewers=("alice", "bob"), min_producers=2)
    document["stages"][0]["evidencePolicies"]["Unit Tests"]["degradation"] = {"minProducers": 1}
    return document


async def coordinate(
    hub: Hub, project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[HubClient, dict[str, str]]:
    """The coordinator, registered and saved where the CLI's ``--as coordinator`` finds it, and the
    CLI's environment (the hub, the admin and project tokens, that data directory)."""
    state = tmp_path / "state"
    monkeypatch.setenv("KXM_DATA_DIR", str(state))
    coordinator = HubClient(hub.address, token=project.token)
    await coordinator.agents.register("coordinator", remember=True)
    env = {
        "KXM_ADDR": hub.address,
        "KXM_ADMIN_TOKEN": ADMIN_TOKEN,
        "KXM_TOKEN": project.token,
        "KXM_PROJECT": project.name,
        "KXM_DATA_DIR": str(state),
    }
    return coordinator, env


STEP_WORKFLOW = """\
schema: kxm.workflow.v1
id: deliver
project: alpha
limits: {maxTransitions: 6}
steps:
  - id: implement
    kind: agent
    agent: writer
    maxAttempts: 2
    on:
      passed: verify
      failed: {target: $terminal, terminalStatus: failed}
  - id: verify
    kind: gate
    gate: npm-verify
    on:
      passed: approve
      failed: {target: implement, backEdgeBudget: 2}
  - id: approve
    kind: approval
    on:
      approved: {target: $terminal, terminalStatus: completed}
      rejected: {target: $terminal, terminalStatus: failed}
"""

GATES = """\
schema: kxm.gate-registry.v1
gates:
  npm-verify: {kind: command, argv: [npm, run, verify], timeoutMs: 600000}
"""


async def test_step_workflows_and_gate_registries_validate(tmp_path: Path) -> None:
    from kxm_grpc.domain.workflows import documents
    from kxm_grpc.domain.workflows.plans import compile_workflow, load_workflow, plan_hash
    from kxm_grpc.domain.workflows.plans.gates import load_gate_registry

    workflow = tmp_path / "deliver.yaml"
    workflow.write_text(STEP_WORKFLOW, encoding="utf-8")
    gates = tmp_path / "gates.yaml"
    gates.write_text(GATES, encoding="utf-8")
    registry = load_gate_registry(documents.decode(GATES, origin="gates.yaml", format=None))
    loaded = load_workflow(documents.decode(STEP_WORKFLOW, origin="x.yaml", format=None), gates=registry)
    expected = plan_hash(compile_workflow(loaded, gates=registry))

    code, out, err = await kxm("workflow", "validate", str(workflow), "--gates", str(gates), cwd=tmp_path, env=ENV)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"{workflow}: 1 definition",
        f"  deliver\tsteps: implement, verify, approve\thash {expected}",
    ]

    code, out, _ = await kxm("workflow", "validate", str(workflow), str(gates), "--json", cwd=tmp_path, env=ENV)
    assert code == 0
    files = json.loads(out)["files"]
    assert files[0]["definitions"] == [
        {
            "id": "deliver",
            "kind": "steps",
            "steps": ["implement", "verify", "approve"],
            "project": "alpha",
            "hash": None,
            "note": "names registry gates: give --gates to check them and compute its plan hash",
        }
    ]
    assert files[1]["definitions"] == [
        {"id": "gates", "kind": "gates", "gates": ["npm-verify"], "hash": registry.hash, "project": None}
    ]

    other = tmp_path / "other-gates.yaml"
    other.write_text(GATES.replace("npm-verify", "lint"), encoding="utf-8")
    code, out, _ = await kxm("workflow", "validate", str(workflow), "--gates", str(other), cwd=tmp_path, env=ENV)
    assert code == 1
    assert "steps[1].gate: the project's gate registry has no gate npm-verify (step_gate_unknown)" in out

    broken = tmp_path / "broken.yaml"
    broken.write_text(STEP_WORKFLOW.replace("backEdgeBudget: 2", "terminalStatus: failed"), encoding="utf-8")
    dangerous = tmp_path / "dangerous.yaml"
    dangerous.write_text(GATES.replace("[npm, run, verify]", "[git, push, --force]"), encoding="utf-8")
    code, out, _ = await kxm("workflow", "validate", str(broken), str(dangerous), cwd=tmp_path, env=ENV)
    assert code == 1
    assert "transition_terminal_status_unexpected" in out
    assert "gates.npm-verify.argv: " in out and "(gate_command_destructive)" in out


async def test_definition_run_and_coordinator_verbs(
    hub: Hub, project: Project, make_agent: AgentFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """register (validate-only, created, unchanged), list, start (and its duplicate), runs, run,
    checkpoint (repeated under one request id, then passed with --ref), wait, signal --operator,
    cancel (refused once ended), rerun."""
    coordinator, env = await coordinate(hub, project, tmp_path, monkeypatch)
    reviewers = [await make_agent("alice"), await make_agent("bob")]
    definition = tmp_path / "fix.json"
    definition.write_text(json.dumps(reviewed()), encoding="utf-8")
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"issue": {"key": "KXM-7"}}), encoding="utf-8")

    async def cli(*args: str) -> tuple[int, str, str]:
        return await kxm("workflow", *args, cwd=tmp_path, env=env)

    checked = await cli("register", str(definition), "--validate-only", "--json")
    registered = await cli("register", str(definition))
    unchanged = await cli("register", str(definition))
    listed = await cli("list")
    started = await cli("start", "fix", "--delivery-id", "d-1", "--payload", str(payload), "--json")
    run_id = json.loads(started[1])["run"]["id"]
    duplicate = await cli("start", "fix", "--delivery-id", "d-1", "--payload", str(payload))
    mine = await cli("runs", "--as", "coordinator")
    waiting = await cli("runs", "--status", "waiting")
    shown = await cli("run", run_id)
    warned = await cli("checkpoint", run_id, "review", "warning", "--request-id", "cp-1", "--as", "coordinator")
    repeated = await cli(
        "checkpoint", run_id, "review", "warning", "--request-id", "cp-1", "--as", "coordinator", "--json"
    )
    ids = await coordinator.workflows.request_review(run_id, "review", "unit tests", ["alice", "bob"], "review it")
    for reviewer, message_id in zip(reviewers, ids, strict=True):
        await reviewer.messages.reply(message_id, "tests pass")
    refs = [arg for message_id in ids for arg in ("--ref", f"Unit Tests={message_id}")]
    passed = await cli("checkpoint", run_id, "review", "passed", "--summary", "reviewed", *refs, "--as", "coordinator")
    waited = await cli(
        "wait", run_id, "ship", "ci", "--timeout", "600", "--summary", "CI", "--evidence", "build=12",
        "--as", "coordinator", "--json",
    )  # fmt: skip
    signalled = await cli(
        "signal", "--operator", "--run", run_id, "--key", "ci", "--status", "passed", "--delivery-id", "s-1"
    )
    ended = await cli("run", run_id, "--json")
    refused = await cli("cancel", run_id, "--json")
    rerun = await cli("rerun", run_id, "--delivery-id", "d-2", "--json")
    new_id = json.loads(rerun[1])["run"]["id"]
    cancelled = await cli("cancel", new_id, "--reason", "not needed")
    await coordinator.close()

    assert checked[0] == 0 and json.loads(checked[1])["definition"]["id"] == "fix"
    assert registered[0] == 0 and registered[1].startswith("fix\tcreated\tstages: review, ship\thash ")
    assert unchanged[1].startswith("fix\tunchanged\t")
    assert listed[0] == 0 and listed[1].startswith("fix\talpha\tgeneric\tstages: review, ship\thash ")
    assert started[0] == 0 and json.loads(started[1])["started"] is True
    assert duplicate == (0, f"{run_id}\tfix\trunning\treview\tcoordinator\tduplicate\n", "")
    assert mine == (0, f"{run_id}\tfix\trunning\treview\tcoordinator\n", "")
    assert waiting == (0, "\n", "")
    assert shown[0] == 0 and shown[1].splitlines() == [
        f"{run_id}\tfix\trunning\treview\tcoordinator",
        "  review\tin_progress\tattempts 0\tunit tests 0/2",
        "  ship\tpending\tattempts 0",
    ]
    assert warned[0] == 0 and warned[1].startswith(f"{run_id}\tfix\trunning\treview\tcoordinator\tretry\n")
    assert json.loads(repeated[1])["repeated"] is True
    assert passed[0] == 0, passed[2]
    assert passed[1].startswith(f"{run_id}\tfix\trunning\tship\tcoordinator\n")
    assert waited[0] == 0 and json.loads(waited[1])["run"]["wait"]["signalKey"] == "ci"
    assert signalled == (0, "ci\tpassed\tstage ship\tcompleted\tdelivery s-1\n", "")
    assert json.loads(ended[1])["status"] == "WORKFLOW_RUN_STATUS_COMPLETED"
    assert refused[0] == 1 and json.loads(refused[2])["reason"] == "ERROR_REASON_WORKFLOW_TERMINAL"
    assert rerun[0] == 0 and new_id != run_id
    assert cancelled == (0, f"{new_id}\tfix\tcancelled\t-\tcoordinator\n", "")


async def test_degrade_escalate_and_rule_verbs(
    hub: Hub, project: Project, make_agent: AgentFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """degrade (again: duplicate), escalate as the coordinator, rule with an explicit status;
    a coordinator verb without --as is a usage error."""
    coordinator, env = await coordinate(hub, project, tmp_path, monkeypatch)
    await make_agent("alice")
    await make_agent("bob")
    async with hub.admin() as admin:
        await admin.workflows.register_definition(reviewed())
        run_id = (await admin.workflows.start_run("fix", delivery_id="d-1")).run.id
    await coordinator.close()

    async def cli(*args: str) -> tuple[int, str, str]:
        return await kxm("workflow", *args, cwd=tmp_path, env=env)

    degraded = await cli("degrade", run_id, "review", "Unit Tests", "--reason", "bob is away")
    again = await cli("degrade", run_id, "review", "Unit Tests", "--reason", "bob is away", "--json")
    escalated = await cli("escalate", run_id, "review", "--reason", "needs a human", "--as", "coordinator")
    ruled = await cli(
        "rule", run_id, "--status", "warning", "--ruling", "try once more", "--evidence", "ticket=OPS-1", "--json"
    )
    no_agent = await cli("checkpoint", run_id, "review", "passed")
    bad_status = await cli("rule", run_id, "--status", "done", "--ruling", "x")

    fields = degraded[1].rstrip("\n").split("\t")
    assert degraded[0] == 0 and fields[0].startswith("approval_")
    assert fields[1:] == ["review", "unit tests", "attempt 1", "min 1 (policy 2)"]
    assert json.loads(again[1])["duplicate"] is True
    assert escalated[0] == 0 and escalated[1].startswith(f"{run_id}\tfix\twaiting\treview\tcoordinator")
    assert ruled[0] == 0, ruled[2]
    answer = json.loads(ruled[1])
    assert answer["retry"] is True and answer["run"]["status"] == "WORKFLOW_RUN_STATUS_RUNNING"
    assert answer["run"]["stages"][0]["escalation"]["ruling"] == "try once more"
    assert no_agent[0] == 2 and "--as NAME" in no_agent[2]
    assert bad_status[0] == 2


def test_the_signal_request_is_signed_as_the_hub_verifies_it() -> None:
    """``signal_request`` (what ``kxm workflow signal`` sends) verifies under the hub's own check, for
    its run and key only: it is the sender reference."""
    now = int(time.time())
    request = signal_request(
        "http://127.0.0.1:9/",
        SIGNAL_SECRET,
        definition_id="fix",
        run_id="run_1",
        signal_key="ci/green",
        delivery_id="s-1",
        status="passed",
        summary="green",
        evidence={"ci": "ok"},
        now=now,
    )
    headers = {name.lower(): value for name, value in request.header_items()}
    body = request.data
    assert isinstance(body, bytes)

    def verify(run_id: str = "run_1", key: str = "ci/green") -> str:
        return signatures.verify(
            headers,
            body,
            kind=signatures.Kind.SIGNAL,
            secret=SIGNAL_SECRET,
            definition_id="fix",
            run_id=run_id,
            signal_key=key,
            source=Source.GENERIC,
            now_seconds=now,
        )

    assert request.full_url == "http://127.0.0.1:9/v1/webhooks/fix/runs/run_1/signals/ci%2Fgreen"
    assert request.get_method() == "POST" and headers["content-type"] == "application/json"
    assert json.loads(body) == {"status": "passed", "summary": "green", "evidence": {"ci": "ok"}}
    assert verify() == "s-1"
    with pytest.raises(Unauthenticated):
        verify(run_id="run_2")
    with pytest.raises(Unauthenticated):
        verify(key="ci")
    with pytest.raises(ValueError, match="http"):
        signal_request("file:///etc", SIGNAL_SECRET, definition_id="fix", run_id="r", signal_key="k",
                       delivery_id="s", status="passed")  # fmt: skip


async def test_signal_signs_its_request_as_an_external_sender(
    hub: Hub, project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``kxm workflow signal --url`` POSTs a kxm-webhook-v1 signed signal to the webhook listener: it
    resumes the run, is a duplicate under the same delivery id, and is refused with another secret."""
    coordinator, env = await coordinate(hub, project, tmp_path, monkeypatch)
    async with hub.admin() as admin:
        await admin.workflows.register_definition(define("plain", stages=("build", "ship")))
        run_id = (await admin.workflows.start_run("plain", delivery_id="d-1")).run.id
    await coordinator.workflows.wait(run_id, "build", "ci", ttl=600)
    assert hub.server.webhook_port is not None
    url = f"http://127.0.0.1:{hub.server.webhook_port}"
    env |= {"KXM_TEST_SIGNAL_SECRET": SIGNAL_SECRET, "KXM_TEST_OTHER_SECRET": "another-secret-0123456789"}

    async def signal(*args: str) -> tuple[int, str, str]:
        common = ("--url", url, "--definition", "plain", "--run", run_id, "--key", "ci", "--status", "passed")
        return await kxm("workflow", "signal", *common, *args, cwd=tmp_path, env=env)

    forged = await signal("--secret-env", "KXM_TEST_OTHER_SECRET", "--delivery-id", "s-0")
    sent = await signal("--secret-env", "KXM_TEST_SIGNAL_SECRET", "--delivery-id", "s-1", "--evidence", "ci=ok")
    again = await signal(
        "--secret-env", "KXM_TEST_SIGNAL_SECRET", "--delivery-id", "s-1", "--evidence", "ci=ok", "--json"
    )
    unset = await signal("--secret-env", "KXM_TEST_UNSET_SECRET")
    no_secret = await signal()
    run = (await coordinator.workflows.get_run(run_id)).run
    await coordinator.close()

    assert (
        forged[0] == 1
        and forged[2] == "error: HTTP 401 ERROR_REASON_WEBHOOK_SIGNATURE_INVALID: x-kxm-signature does not verify\n"
    )
    assert sent == (0, "ci\tpassed\tstage build\tresumed\tdelivery s-1\n", "")
    answer = json.loads(again[1])
    assert again[0] == 0 and (answer["duplicate"], answer["stageId"], answer["signalKey"]) == (True, "build", "ci")
    assert unset[0] == 2 and "$KXM_TEST_UNSET_SECRET is not set" in unset[2]
    assert no_secret[0] == 2 and "--secret-env" in no_secret[2]
    assert run.current_stage_id == "ship"


# -- the journal -----------------------------------------------------------------------------------


async def test_journal_verbs(hub: Hub, project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """record (as the coordinator; once under a repeated request id; refused without evidence or
    --as), journal (every record, one line each), promote (an operator; a second decision refused),
    report (the project token, and an operator naming the project), export (refused before the
    end; Markdown, JSON text, --json), verify (intact before and after the end, exit 0; a record
    altered in the database: exit 1 naming the problem and the record)."""
    coordinator, env = await coordinate(hub, project, tmp_path, monkeypatch)
    document = define("plain", stages=("build", "ship"))
    document["stages"][0]["area"] = "implementation"
    async with hub.admin() as admin:
        await admin.workflows.register_definition(document)
        run_id = (await admin.workflows.start_run("plain", delivery_id="d-1")).run.id

    async def cli(*args: str) -> tuple[int, str, str]:
        return await kxm("workflow", *args, cwd=tmp_path, env=env)

    def record(*args: str) -> Any:
        return cli("record", run_id, *args, "--as", "coordinator")

    planned = await record("--category", "plan", "--summary", "build then ship", "--area", "workflow")
    skill = (
        "--category", "skill-candidate", "--summary", "cache the build", "--stage", "build",
        "--evidence", "ci 40% faster", "--evidence", "class:cache", "--request-id", "r-1",
    )  # fmt: skip
    proposed = await record(*skill, "--json")
    repeated = await record(*skill)
    contradiction = await record(
        "--category", "contradiction", "--summary", "spec and tests disagree", "--area", "gates",
        "--severity", "warning", "--details", "spec says 2, the test 3", "--json",
    )  # fmt: skip
    contradiction_id = json.loads(contradiction[1])["record"]["entry"]["id"]
    decided = await record(
        "--category", "decision", "--summary", "follow the spec", "--area", "gates", "--related", contradiction_id
    )
    failed = await record(
        "--category", "error", "--summary", "the build timed out", "--area", "harness", "--severity", "error",
        "--evidence", "class:build_timeout",
    )  # fmt: skip
    no_evidence = await record("--category", "lesson", "--summary", "no proof", "--area", "gates")
    no_agent = await cli("record", run_id, "--category", "plan", "--summary", "x", "--area", "workflow")
    bad_category = await record("--category", "idea", "--summary", "x")
    skill_id = json.loads(proposed[1])["record"]["entry"]["id"]
    promoted = await cli(
        "promote", skill_id, "--to", "approved", "--evidence-ref", "bench-3", "--evidence-ref", "bench-4",
        "--reason", "measured",
    )  # fmt: skip
    again = await cli("promote", skill_id, "--to", "rejected", "--evidence-ref", "late", "--json")
    no_ref = await cli("promote", skill_id, "--to", "rejected")
    bad_decision = await cli("promote", skill_id, "--to", "proposed", "--evidence-ref", "x")
    listed = await cli("journal", run_id)
    listed_json = await cli("journal", run_id, "--as", "coordinator", "--json")
    reported = await cli("report")
    by_operator = await cli("report", "--token", ADMIN_TOKEN, "--project", "alpha")
    limited = await cli("report", "--max-entries", "2", "--signals", "1", "--json")
    future = await cli("report", "--since", "2999-01-01T00:00:00Z")
    bad_since = await cli("report", "--since", "yesterday")
    too_early = await cli("export", run_id)
    running = await cli("verify", run_id)
    cancelled = await cli("cancel", run_id, "--reason", "done")
    markdown = await cli("export", run_id)
    as_json = await cli("export", run_id, "--format", "json")
    whole = await cli("export", run_id, "--as", "coordinator", "--json")
    ended = await cli("verify", run_id)
    ended_json = await cli("verify", run_id, "--json")
    found = [r async for r in coordinator.workflows.journal.records(run_id)]
    exported = await coordinator.workflows.journal.export(run_id)
    await hub.server.store.write(
        lambda tx: tx.journal._conn.execute(  # type: ignore[attr-defined]
            "UPDATE workflow_journal SET record = replace(record, '\"build then ship\"', '\"ship it\"')"
            " WHERE run_id = ?",
            (run_id,),
        )
    )
    altered = await cli("verify", run_id)
    altered_json = await cli("verify", run_id, "--json")
    await coordinator.close()

    me, key = coordinator.agent_id, found[0].key_id
    plan, skill_entry, contra, decision, error, promotion, cancel = found
    assert [r.WhichOneof("record") for r in found] == ["entry"] * 5 + ["promotion", "entry"]
    assert (skill_entry.entry.id, contra.entry.id, cancel.entry.author) == (skill_id, contradiction_id, "hub")
    lines = [
        f"0\t{plan.entry.id}\tplan\tworkflow\tinfo\t-\t{me}\t-\tbuild then ship",
        f"1\t{skill_id}\tskill-candidate\timplementation\tinfo\tbuild\t{me}\tapproved\tcache the build",
        f"2\t{contradiction_id}\tcontradiction\tgates\twarning\t-\t{me}\t-\tspec and tests disagree",
        f"3\t{decision.entry.id}\tdecision\tgates\tinfo\t-\t{me}\t-\tfollow the spec",
        f"4\t{error.entry.id}\terror\tharness\terror\t-\t{me}\t-\tthe build timed out",
        f"5\t{promotion.promotion.id}\tpromotion\t{skill_id}\tapproved\tadmin\tmeasured",
    ]
    assert planned == (0, lines[0] + "\n", "")
    proposed_record = json.loads(proposed[1])["record"]
    assert proposed[0] == 0 and proposed_record["sequence"] == "1" and "repeated" not in json.loads(proposed[1])
    assert proposed_record["entry"]["promotionStatus"] == "PROMOTION_STATUS_PROPOSED"
    assert (proposed_record["entry"]["attempt"], proposed_record["entry"]["evidence"]) == (
        1,
        ["ci 40% faster", "class:cache"],
    )
    assert repeated == (0, lines[1].replace("approved", "proposed") + "\trepeated\n", "")
    assert json.loads(contradiction[1])["record"]["entry"]["details"] == "spec says 2, the test 3"
    assert decided == (0, lines[3] + "\n", "")
    assert list(decision.entry.related_entry_ids) == [contradiction_id]
    assert failed == (0, lines[4] + "\n", "")
    assert no_evidence[0] == 1
    assert no_evidence[2].startswith("error: INVALID_ARGUMENT ERROR_REASON_JOURNAL_EVIDENCE_REQUIRED: ")
    assert no_agent[0] == 2 and "--as NAME" in no_agent[2]
    assert bad_category[0] == 2 and "invalid choice: 'idea'" in bad_category[2]
    assert promoted == (0, lines[5] + "\n", "")
    assert list(promotion.promotion.evidence_refs) == ["bench-3", "bench-4"]
    refused = json.loads(again[2])
    assert again[0] == 1 and (refused["reason"], refused["metadata"]["status"]) == (
        "ERROR_REASON_JOURNAL_PROMOTION_INVALID",
        "approved",
    )
    assert no_ref[0] == 2 and "--evidence-ref" in no_ref[2]
    assert bad_decision[0] == 2 and "invalid choice: 'proposed'" in bad_decision[2]
    assert listed == (0, "\n".join(lines) + "\n", "")
    assert listed_json[0] == 0
    assert [r.get("entry", r.get("promotion"))["id"] for r in json.loads(listed_json[1])["records"]] == [
        plan.entry.id,
        skill_id,
        contradiction_id,
        decision.entry.id,
        error.entry.id,
        promotion.promotion.id,
    ]

    assert reported == by_operator
    assert reported == (
        0,
        "\n".join(
            [
                "entries 5",
                "harness\ttotal 1\terrors 1\tcontradictions 0\tlessons 0",
                f"  {error.entry.id}\terror\terror\tthe build timed out",
                "gates\ttotal 2\terrors 0\tcontradictions 1\tlessons 0",
                f"  {contradiction_id}\tcontradiction\twarning\tspec and tests disagree",
                "implementation\ttotal 1\terrors 0\tcontradictions 0\tlessons 0",
                f"  {skill_id}\tskill-candidate\tinfo\tcache the build",
                "workflow\ttotal 1\terrors 0\tcontradictions 0\tlessons 0",
                # The contradiction is resolved (the decision relates to it), the skill decided.
                "signal error|class:build_timeout\tpriority 3\tfrequency 1\terror\tthe build timed out",
            ]
        )
        + "\n",
        "",
    )
    limited_report = json.loads(limited[1])
    assert (limited_report["entries"], limited_report["truncated"]) == (2, True)
    assert future == (0, "entries 0\n", "")
    assert bad_since[0] == 2 and "expected an RFC 3339 time" in bad_since[2]

    assert too_early[0] == 1 and too_early[2].startswith("error: FAILED_PRECONDITION ERROR_REASON_WORKFLOW_NOT_ENDED: ")
    assert running == (0, f"{run_id}\tintact\t6 records\thead 5\n", "")
    assert cancelled == (0, f"{run_id}\tplain\tcancelled\t-\tcoordinator\n", "")
    assert markdown[0] == 0 and markdown[1] == exported.markdown.removesuffix("\n") + "\n"
    assert markdown[1].startswith(f"# Workflow retrospective {run_id}\n")
    assert as_json == (0, exported.json + "\n", "")
    answer = json.loads(whole[1])
    assert whole[0] == 0 and (answer["retrospective"]["runId"], answer["retrospective"]["status"]) == (
        run_id,
        "cancelled",
    )
    assert (answer["json"], answer["markdown"]) == (exported.json, exported.markdown)
    assert ended == (0, f"{run_id}\tintact\t7 records\thead 6\theld to the retrospective\n", "")
    verdict = json.loads(ended_json[1])["verdict"]
    assert ended_json[0] == 0 and (verdict["intact"], verdict["verifiedRecords"], verdict["headChain"]) == (
        True,
        "7",
        cancel.chain,
    )
    assert altered == (
        1,
        f"{run_id}\tnot intact\taltered\tsequence 0\trecord {plan.entry.id}\tkey {key}\tverified 0\n",
        "",
    )
    broken = json.loads(altered_json[1])["verdict"]
    assert altered_json[0] == 1 and ("intact" in broken, broken["problem"], broken["breachRecordId"]) == (
        False,
        "PROBLEM_ALTERED",
        plan.entry.id,
    )


async def test_register_list_and_gates_cover_step_workflows_and_gate_registries(
    hub: Hub, project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``register FILE`` tells a gate registry, a step workflow and a stage workflow apart by schema;
    ``list`` names each definition's kind; ``gates`` shows the project's registry; a step workflow
    naming a gate the registry lacks is refused (exit 1, the loader's problem on stderr)."""
    from kxm_grpc.domain.workflows import documents
    from kxm_grpc.domain.workflows.plans import compile_workflow, load_workflow, plan_hash
    from kxm_grpc.domain.workflows.plans.gates import load_gate_registry

    _, env = await coordinate(hub, project, tmp_path, monkeypatch)
    (tmp_path / "deliver.yaml").write_text(STEP_WORKFLOW, encoding="utf-8")
    (tmp_path / "gates.yaml").write_text(GATES, encoding="utf-8")
    (tmp_path / "fix.json").write_text(json.dumps(define("fix")), encoding="utf-8")
    registry = load_gate_registry(documents.decode(GATES, origin="gates.yaml", format=None))
    plan = compile_workflow(
        load_workflow(documents.decode(STEP_WORKFLOW, origin="x.yaml", format=None), gates=registry), gates=registry
    )

    async def cli(*args: str) -> tuple[int, str, str]:
        return await kxm("workflow", *args, cwd=tmp_path, env=env)

    lacking = await cli("register", "deliver.yaml")
    no_registry = await cli("gates")
    checked = await cli("register", "gates.yaml", "--validate-only")
    gates = await cli("register", "gates.yaml")
    steps = await cli("register", "deliver.yaml")
    stages = await cli("register", "fix.json")
    listed = await cli("list")
    shown = await cli("gates")
    as_json = await cli("gates", "--json")

    assert lacking[0] == 1 and "step_gate_unknown" in lacking[2] and "steps[1].gate" in lacking[2]
    assert no_registry[0] == 1 and "ERROR_REASON_GATE_REGISTRY_NOT_FOUND" in no_registry[2]
    assert checked[:2] == (0, f"gates alpha\tvalid\tgates: npm-verify\thash {registry.hash}\n")
    assert gates[:2] == (0, f"gates alpha\tcreated\tgates: npm-verify\thash {registry.hash}\n")
    assert steps[:2] == (0, f"deliver\tcreated\tsteps: implement, verify, approve\thash {plan_hash(plan)}\n")
    assert stages[0] == 0 and stages[1].startswith("fix\tcreated\tstages: review, ship\thash ")
    assert listed[0] == 0
    assert listed[1].splitlines()[0] == f"deliver\talpha\t-\tsteps: implement, verify, approve\thash {plan_hash(plan)}"
    assert listed[1].splitlines()[1].startswith("fix\talpha\tgeneric\tstages: review, ship\thash ")
    assert shown[0] == 0
    head, gate = shown[1].splitlines()
    assert head.startswith(f"alpha\thash {registry.hash}\tby admin\tat ")
    assert gate == "  npm-verify\tcommand\tnpm run verify (600000 ms)"
    assert json.loads(as_json[1])["registry"]["gateIds"] == ["npm-verify"]
