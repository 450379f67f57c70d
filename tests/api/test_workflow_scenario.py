"""A durable workflow run worked end to end by scripted agents, each its own OS process.

A real hub (the in-process ``hub`` fixture, with its webhook listener) and four agent processes
(``tests/agents/workflow_agent.py``): a coordinator and three reviewers declared in the review
policy's ``eligibleAgents``, reviewer-a and reviewer-c with one provider (``anthropic``),
reviewer-b with another (``openai``). The definition is the docs/workflows.md example's shape:
reproduce → fix (``patch`` and a peer ``review`` of two producers of distinct providers) → ship,
with the back-edge ``fix --failed--> reproduce``.

1. Started by the signed start webhook: both reviewers of distinct providers fail the first fix,
   the coordinator checkpoints ``failed``, the back-edge takes the run back to reproduce, and the
   second round passes: the run completes with the transition recorded once, reproduce's visit
   2, and the final fix's peer evidence two producers of different providers.
2. Started by ``StartWorkflowRun``: only the two reviewers of one provider reply (reviewer-b
   receives the request and stays silent): the pass is refused with WORKFLOW_EVIDENCE_INCOMPLETE,
   and once the coordinator waits with the replies cited, the run shows the quorum counted 1 of 2;
   a passing signal is refused the same way and the run keeps waiting.

Every wait is for a concrete state (a process's ``ready`` or ``result`` line, its exit, the run's
status), each bounded; the agents' logs (in ``tmp_path``) are printed when the test fails.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc import InvalidArgument, Reason
from kxm_grpc.client import HubClient
from kxm_grpc.domain.workflows import signatures
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.server.settings import Settings
from kxm_grpc.v1 import WorkflowRunStatus, WorkflowStageStatus
from tests.conftest import Hub, Project

pytestmark = pytest.mark.timeout(120)

AGENT = Path(__file__).resolve().parents[1] / "agents" / "workflow_agent.py"
START_SECRET = "scenario-start-secret-0123456789"
SIGNAL_SECRET = "scenario-signal-secret-0123456789"
PROCESS_SECONDS = 60.0
"""How long an agent process may live (its own ``--deadline``); every wait here is shorter or equal."""

COMPLETED = WorkflowRunStatus.WORKFLOW_RUN_STATUS_COMPLETED
WAITING = WorkflowRunStatus.WORKFLOW_RUN_STATUS_WAITING
PASSED = WorkflowStageStatus.WORKFLOW_STAGE_STATUS_PASSED

REVIEWERS = [
    {"agent": "reviewer-a", "provider": "anthropic", "model": "claude-x"},
    {"agent": "reviewer-b", "provider": "openai"},
    {"agent": "reviewer-c", "provider": "anthropic"},
]
PROVIDER = {r["agent"]: r["provider"] for r in REVIEWERS}


def definition() -> dict[str, Any]:
    return {
        "id": "fix-bug",
        "source": "generic",
        "project": "alpha",
        "target": "coordinator",
        "secret": START_SECRET,
        "signalSecret": SIGNAL_SECRET,
        "maxTransitions": 4,
        "reproOracle": {"stageId": "reproduce", "evidenceKey": "repro"},
        "promptTemplate": "Fix GitHub issue #{{issue.number}}: {{issue.title}}",
        "stages": [
            {
                "id": "reproduce",
                "instructions": "Reproduce the bug; record the exact command.",
                "requiredEvidence": ["repro"],
            },
            {
                "id": "fix",
                "instructions": "Fix it, with a test that fails before the fix.",
                "requiredEvidence": ["patch", "review"],
                "maxAttempts": 4,
                "evidencePolicies": {
                    "review": {
                        "kind": "peer-reply",
                        "minProducers": 2,
                        "distinctBy": ["provider"],
                        "eligibleAgents": REVIEWERS,
                    }
                },
                "on": {"failed": {"target": "reproduce", "maxTransitions": 2}},
            },
            {"id": "ship", "instructions": "Release it.", "requiredEvidence": ["release"]},
        ],
    }


PAYLOAD = {"issue": {"number": 7, "title": "crash on empty input"}}


@pytest.fixture
def backend() -> str:
    """SQLite only: the run's rules are the services' on either backend (their PostgreSQL runs cover
    that); this test is about the agents' processes."""
    return ""


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The shared test settings with the webhook listener on a free loopback port."""
    return replace(hub_settings, webhook_port=0)


# -- the agents' processes ------------------------------------------------------------------------


@dataclass
class AgentProcess:
    """One agent process: its stdout's JSON lines, its log and its stderr in files."""

    name: str
    process: asyncio.subprocess.Process
    log: Path
    stderr: Path
    lines: list[dict[str, Any]] = field(default_factory=list)

    async def event(self, kind: str, seconds: float = PROCESS_SECONDS) -> dict[str, Any]:
        """The next stdout line of event ``kind`` (earlier lines of other kinds are kept).

        Raises:
            AssertionError: the process ended first, or ``seconds`` passed.
        """
        seen = next((line for line in self.lines if line["event"] == kind), None)
        if seen is not None:
            return seen
        assert self.process.stdout is not None
        try:
            async with asyncio.timeout(seconds):
                while raw := await self.process.stdout.readline():
                    try:
                        line = json.loads(raw)
                    except ValueError:
                        line = {"event": "text", "text": raw.decode(errors="replace")}
                    self.lines.append(line)
                    if line["event"] == kind:
                        return dict(line)
        except TimeoutError:
            raise AssertionError(f"{self.name} printed no {kind!r} line within {seconds} s") from None
        code = await self.exit_code(5)
        raise AssertionError(f"{self.name} exited with {code} before its {kind!r} line")

    async def exit_code(self, seconds: float = PROCESS_SECONDS) -> int:
        async with asyncio.timeout(seconds):
            return await self.process.wait()

    def report(self) -> str:
        logged = self.log.read_text() if self.log.exists() else "(no log)"
        errors = self.stderr.read_text() if self.stderr.exists() else ""
        shown = f"--- {self.name} (exit {self.process.returncode}) ---\nstdout: {json.dumps(self.lines)}\n{logged}"
        return shown + (f"stderr:\n{errors}" if errors else "")


@dataclass
class Team:
    """The agent processes of one test; on the way out every one still running is stopped."""

    address: str
    token: str
    folder: Path
    agents: dict[str, AgentProcess] = field(default_factory=dict)

    async def spawn(self, role: str, name: str, *options: str) -> AgentProcess:
        log, stderr = self.folder / f"{name}.log", self.folder / f"{name}.stderr"
        with stderr.open("wb") as errors:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                str(AGENT),
                role,
                "--address",
                self.address,
                "--token",
                self.token,
                "--name",
                name,
                "--log",
                str(log),
                "--deadline",
                str(PROCESS_SECONDS),
                *options,
                stdout=asyncio.subprocess.PIPE,
                stderr=errors,
                env={**{k: v for k, v in os.environ.items() if not k.startswith("KXM_")}, "GRPC_VERBOSITY": "ERROR"},
            )
        agent = self.agents[name] = AgentProcess(name, process, log, stderr)
        return agent

    async def ready(self) -> None:
        """Every agent registered and subscribed (its ``ready`` line)."""
        await asyncio.gather(*(agent.event("ready") for agent in self.agents.values()))

    async def stop(self, name: str) -> int:
        agent = self.agents[name]
        if agent.process.returncode is None:
            agent.process.terminate()
        return await agent.exit_code(10)

    async def close(self) -> None:
        for agent in self.agents.values():
            if agent.process.returncode is None:
                agent.process.terminate()
                try:
                    await agent.exit_code(5)
                except TimeoutError:
                    agent.process.kill()
                    await agent.process.wait()


@pytest_asyncio.fixture
async def team(hub: Hub, project: Project, tmp_path: Path) -> AsyncIterator[Team]:
    """The agent processes' launcher, with ``fix-bug`` registered for project alpha."""
    async with hub.admin() as admin:
        await admin.workflows.register_definition(definition())
    agents = Team(hub.address, project.token, tmp_path)
    try:
        yield agents
    finally:
        await agents.close()
        # Captured: pytest shows it under the failing test's teardown output, and drops it otherwise.
        for agent in agents.agents.values():
            print(agent.report(), file=sys.stderr)


# -- helpers ----------------------------------------------------------------------------------------


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json", **headers})
        response = connection.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None
    finally:
        connection.close()


async def start_signed(hub: Hub, delivery: str) -> str:
    """Start a run of ``fix-bug`` through the signed start route; returns the run id."""
    port = hub.server.webhook_port
    assert port is not None
    body = json.dumps(PAYLOAD).encode()
    headers = signatures.sign(START_SECRET, Kind.START, int(time.time()), delivery, "fix-bug", "", "", body)
    status, answer = await asyncio.to_thread(_post, port, "/v1/webhooks/fix-bug", body, headers)
    assert status == 202, answer
    assert answer["status"] == "running" and answer["duplicate"] is False
    return str(answer["runId"])


async def run_reaching(admin: HubClient, run_id: str, status: int, seconds: float = 10.0) -> Any:
    """The run once it is in ``status`` (polled with a deadline)."""
    deadline = time.monotonic() + seconds
    while True:
        run = (await admin.workflows.get_run(run_id)).run
        if run.status == status:
            return run
        assert time.monotonic() < deadline, f"run {run_id} is {WorkflowRunStatus.Name(run.status)}, not {status}"
        await asyncio.sleep(0.05)


def stage(run: Any, stage_id: str) -> Any:
    (found,) = [s for s in run.stages if s.id == stage_id]
    return found


async def reviewers(team: Team, verdicts: dict[str, str]) -> None:
    for name, given in verdicts.items():
        model = next(r.get("model", "") for r in REVIEWERS if r["agent"] == name)
        await team.spawn("reviewer", name, "--verdicts", given, *(("--model", model) if model else ()))


# -- the scenarios --------------------------------------------------------------------------------


async def test_a_failed_fix_goes_back_to_reproduce_and_the_second_round_completes(hub: Hub, team: Team) -> None:
    began = time.monotonic()
    # Two rounds from the two reviewers of distinct providers; reviewer-c (declared, the same
    # provider as reviewer-a) is up but never asked.
    await reviewers(team, {"reviewer-a": "fail,pass", "reviewer-b": "fail,pass", "reviewer-c": ""})
    coordinator = await team.spawn("coordinator", "coordinator", "--reviewers", "reviewer-a,reviewer-b")
    await team.ready()

    run_id = await start_signed(hub, "gh-delivery-7")
    result = await coordinator.event("result")
    exits = {name: await agent.exit_code() for name, agent in team.agents.items() if name != "reviewer-c"}
    idle = await team.stop("reviewer-c")
    idle_result = await team.agents["reviewer-c"].event("result", 5)
    async with hub.admin() as admin:
        run = await run_reaching(admin, run_id, COMPLETED)
    print(f"scenario 1: {time.monotonic() - began:.2f} s", file=sys.stderr)

    assert exits == {"reviewer-a": 0, "reviewer-b": 0, "coordinator": 0}
    assert (idle, idle_result["handled"]) == (0, [])
    assert (result["runId"], result["status"], result["prompt"]) == (run_id, "completed", f"workflow:{run_id}")
    assert [(s["stageId"], s["status"], s["visit"], s["transition"]) for s in result["steps"]] == [
        ("reproduce", "passed", 1, ""),
        ("fix", "failed", 1, "reproduce"),
        ("reproduce", "passed", 2, ""),
        ("fix", "passed", 2, ""),
        ("ship", "passed", 1, ""),
    ]
    # The back-edge, recorded once.
    assert [(t.from_stage_id, t.to_stage_id, t.outcome) for t in run.transitions] == [("fix", "reproduce", "failed")]
    reproduce, fix, ship = stage(run, "reproduce"), stage(run, "fix"), stage(run, "ship")
    assert (reproduce.visit, reproduce.status) == (2, PASSED)
    assert (fix.visit, fix.status, fix.attempts) == (2, PASSED, 2)  # the back-edge's source keeps its attempts
    assert ship.status == PASSED
    # The final fix's evidence: two verified replies of this visit, from producers of two providers.
    evidence = list(fix.peer_evidence["review"].evidence)
    assert sorted(e.producer_name for e in evidence) == ["reviewer-a", "reviewer-b"]
    assert {PROVIDER[e.producer_name] for e in evidence} == {"anthropic", "openai"}
    assert {(e.visit, e.attempt) for e in evidence} == {(2, 2)}
    assert all(len(e.request_sha256) == 64 and len(e.reply_sha256) == 64 for e in evidence)
    ((quorum),) = [q for q in fix.quorum if q.requirement_key == "review"]
    assert (quorum.counted, quorum.required, quorum.met) == (2, 2, True)


async def test_two_reviewers_of_one_provider_leave_the_quorum_at_one_of_two(hub: Hub, team: Team) -> None:
    began = time.monotonic()
    await reviewers(team, {"reviewer-a": "pass", "reviewer-b": "silent", "reviewer-c": "pass"})
    coordinator = await team.spawn(
        "coordinator",
        "coordinator",
        "--reviewers",
        "reviewer-a,reviewer-b,reviewer-c",
        "--min-replies",
        "2",
        "--on-incomplete-wait",
        "review:another",
    )
    await team.ready()

    async with hub.admin() as admin:
        started = await admin.workflows.start_run("fix-bug", delivery_id="rpc-delivery-7", payload=PAYLOAD)
        run_id = started.run.id
        result = await coordinator.event("result")
        exits = {name: await agent.exit_code() for name, agent in team.agents.items()}
        run = await run_reaching(admin, run_id, WAITING)
        with pytest.raises(InvalidArgument) as signalled:
            await admin.workflows.signal_run(
                run_id, "review:another", "passed", delivery_id="ci-1", summary="try to pass anyway"
            )
        after = (await admin.workflows.get_run(run_id)).run
    print(f"scenario 2: {time.monotonic() - began:.2f} s", file=sys.stderr)
    heard = {name: [h["verdict"] for h in (await team.agents[name].event("result"))["handled"]] for name in PROVIDER}

    assert exits == {"reviewer-a": 0, "reviewer-b": 0, "reviewer-c": 0, "coordinator": 10}
    assert heard == {"reviewer-a": ["pass"], "reviewer-b": ["silent"], "reviewer-c": ["pass"]}
    assert started.started and result["runId"] == run_id
    assert [(s["stageId"], s["status"]) for s in result["steps"]] == [("reproduce", "passed")]
    refused = result["refused"]
    assert (refused["stageId"], refused["reason"]) == ("fix", "WORKFLOW_EVIDENCE_INCOMPLETE")
    assert refused["metadata"]["missingRequirements"] == "review"
    assert refused["metadata"]["providedRequirements"] == "patch"
    assert result["waiting"] == "review:another"
    # The refused pass consumed no attempt; the wait kept the two cited replies, which count once.
    fix = stage(run, "fix")
    assert (run.current_stage_id, fix.attempts, fix.active_attempt) == ("fix", 0, 1)
    evidence = list(fix.peer_evidence["review"].evidence)
    assert sorted(e.producer_name for e in evidence) == ["reviewer-a", "reviewer-c"]
    assert {PROVIDER[e.producer_name] for e in evidence} == {"anthropic"}
    ((quorum),) = [q for q in fix.quorum if q.requirement_key == "review"]
    assert (quorum.counted, quorum.required, quorum.met) == (1, 2, False)
    assert signalled.value.reason is Reason.WORKFLOW_EVIDENCE_INCOMPLETE
    assert signalled.value.metadata["missingRequirements"] == "review"
    assert (after.status, after.wait.signal_key, stage(after, "fix").attempts) == (WAITING, "review:another", 0)
