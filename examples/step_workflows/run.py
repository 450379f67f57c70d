"""Run one of the seeds' three loop patterns as a step workflow, end to end, in a few seconds.

    python examples/step_workflows/run.py a     # plan -> implement -> code gate -> fix (a back-edge)
    python examples/step_workflows/run.py b     # a dual-critic quorum of distinct providers
    python examples/step_workflows/run.py c     # repro before oracle, then an operator's sign-off

It starts a hub of its own (SQLite in a temporary directory, 127.0.0.1, a free port), registers the
gate registry (``gates.yaml``) and the pattern's definition (``loop_<x>.yaml``), registers small
scripted agents that answer their assignments deterministically (their "work" is a file written in
a shared workspace, which the gates' commands read), runs a gate worker beside them, starts the run
and prints its events until it ends. Exit status 0 when the run ends as the pattern's story says.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace

import yaml
from google.protobuf import json_format

from kxm_grpc import HubError, Reason
from kxm_grpc.cli.gate_worker import handle as run_gate_assignment
from kxm_grpc.client import HubClient
from kxm_grpc.client.assignments import Assignment
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.log import configure_logging
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Durability
from kxm_grpc.v1 import Artifact, ReviewEnvelope, UsageMetrics, WorkerResult

HERE = Path(__file__).parent
ADMIN = "examples-admin-token-0123456789abcdef"
PROJECT = "examples"

Answer = Callable[[Assignment, int], Awaitable[WorkerResult | ReviewEnvelope]]


def done(outcome: str = "passed", **fields: object) -> WorkerResult:
    return WorkerResult(outcome=outcome, telemetry=UsageMetrics(cost_usd=0.01, tokens_in=100), **fields)  # type: ignore[arg-type]


def scripts(workspace: Path) -> dict[str, dict[str, Answer]]:
    """Per pattern: each scripted agent's answer to its n-th assignment."""

    def write(name: str, text: str = "") -> None:
        (workspace / name).write_text(text)

    async def planner(a: Assignment, n: int) -> WorkerResult:
        return done(artifacts=[Artifact(name="plan", path="plan.md", sha256="ab" * 32)])

    async def writer(a: Assignment, n: int) -> WorkerResult:
        write("build.ok")
        write("tests.ok", "fail" if n == 1 else "pass")  # the first attempt fails the gate's tests
        return done(artifacts=[Artifact(name="plan", path="plan.md", sha256="ab" * 32)])

    async def author(a: Assignment, n: int) -> WorkerResult:
        return done(summary=f"draft {n}")

    def critic(name: str) -> Answer:
        async def review(a: Assignment, n: int) -> ReviewEnvelope:
            blocked = name == "sol-critic" and n == 1  # the first draft has a blocker: back to propose
            return ReviewEnvelope(
                assignment_id=a.id,
                verdict="FAIL" if blocked else "PASS",
                blockers=["the retry loop has no backoff"] if blocked else [],
            )

        return review

    repro_test = Artifact(name="repro-test", path="tests/test_repro.py", sha256="cd" * 32)

    async def reproducer(a: Assignment, n: int) -> WorkerResult:
        write("bug.present")  # a test that reproduces the bug (the repro gate must see it fail)
        return done(artifacts=[repro_test])

    async def fixer(a: Assignment, n: int) -> WorkerResult:
        (workspace / "bug.present").unlink(missing_ok=True)
        return done(artifacts=[repro_test])  # the reproducing test, unchanged

    return {
        "a": {"planner": planner, "writer": writer},
        "b": {"author": author, "fable-critic": critic("fable-critic"), "sol-critic": critic("sol-critic")},
        "c": {"reproducer": reproducer, "fixer": fixer},
    }


async def agent(address: str, token: str, name: str, answer: Answer, stop: asyncio.Event) -> None:
    async with HubClient(address, token=token) as hub:
        await hub.agents.register(name)
        count = 0
        async for assignment in hub.workflows.assignments(poll=0.1, stop=stop):
            count += 1
            try:
                await assignment.complete(await answer(assignment, count))
            except HubError as error:
                # Closed while it worked: the panel's join was decided without it (cancelRemaining),
                # or the run ended. Nothing to hand in; go on to the next assignment.
                if error.reason != Reason.ASSIGNMENT_CLOSED:
                    raise


async def gate_worker(address: str, token: str, workspace: Path, stop: asyncio.Event) -> None:
    args = SimpleNamespace(workdir=str(workspace / ".work"), cwd=str(workspace), keep=False, name="gate-worker")
    async with HubClient(address, token=token) as hub:
        await hub.agents.register("gate-worker")
        async for assignment in hub.workflows.assignments(poll=0.1, stop=stop):
            await assignment.complete(await run_gate_assignment(assignment, args))  # type: ignore[arg-type]


async def main(pattern: str) -> int:
    configure_logging("console", "warning")  # the hub's and the gate runner's events: warnings only
    with tempfile.TemporaryDirectory(prefix="kxm-example-") as scratch:
        root = Path(scratch)
        workspace = root / "workspace"
        workspace.mkdir()
        settings = Settings(
            port=0, data_dir=root / "hub", admin_token=ADMIN, durability=Durability.NORMAL, log_level="warning"
        )
        server = HubServer(settings)
        await server.start()
        stop = asyncio.Event()
        try:
            address = server.address
            async with HubClient(address, token=ADMIN) as admin:
                token = (await admin.admin.create_project(PROJECT)).project_token
            async with HubClient(address, token=ADMIN, project=PROJECT) as operator:
                registry = yaml.safe_load((HERE / "gates.yaml").read_text())
                await operator.workflows.register_gate_registry(registry, project=PROJECT)
                document = (HERE / f"loop_{pattern}.yaml").read_text()
                definition = (await operator.workflows.register_definition(document, format="yaml")).definition
                print(f"registered {definition.id}: steps {', '.join(definition.step_ids)}; plan {definition.hash}")
                answers = scripts(workspace)[pattern]
                tasks = [
                    asyncio.create_task(agent(address, token, name, answer, stop)) for name, answer in answers.items()
                ]
                tasks.append(asyncio.create_task(gate_worker(address, token, workspace, stop)))
                await asyncio.sleep(0.3)  # every agent registered: each assignment goes out at once
                run = (await operator.workflows.start_run(definition.id, delivery_id="example-1")).run
                print(f"started {run.id}")
                status = await follow(operator, run.id, pattern)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            print(f"ended {status}")
            return 0 if status == "completed" else 1
        finally:
            stop.set()
            await server.stop(0.2)


async def follow(operator: HubClient, run_id: str, pattern: str) -> str:
    """Print the run's events as they come; approve loop C's sign-off; the run's final status."""
    after = 0
    deadline = asyncio.get_running_loop().time() + 90  # seconds; a few suffice on an idle machine
    while asyncio.get_running_loop().time() < deadline:
        page = await operator.workflows.list_run_events(run_id, after_sequence=after)
        for event in page.events:
            after = event.sequence
            payload = json_format.MessageToDict(event.payload)
            print(f"  {event.sequence:3d} {event.type:24s} {json.dumps(payload, sort_keys=True)[:140]}")
            if event.type == "step.entered" and payload.get("kind") == "approval":
                await operator.workflows.approve_step(run_id, payload["stepId"], "approved", reason="patch reviewed")
            if event.type == "run.ended":
                return str(payload["status"])
        await asyncio.sleep(0.05)
    return "timed out"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pattern", choices=("a", "b", "c"))
    sys.exit(asyncio.run(main(parser.parse_args().pattern)))
