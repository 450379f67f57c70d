"""A scripted agent of a durable workflow run, as its own OS process: a coordinator or a reviewer.

``tests/api/test_workflow_scenario.py`` starts one process per agent
(``python tests/agents/workflow_agent.py ROLE --address ... --token ... --name ...``). Each agent
registers itself in the project with ``HubClient``, subscribes to its inbox and prints one JSON
line ``{"event": "ready", ...}`` on stdout once its stream is open; when it is done it prints
``{"event": "result", ...}`` and exits. Everything else it does goes to its log (``--log``).

**coordinator**: waits for its prompt (a message from ``workflow:<run id>``), then works the run
until it is no longer running, stage by stage as the run says:

- ``reproduce``: checkpoints ``passed`` with its reproduction (``--repro``);
- ``fix``: asks the reviewers (``--reviewers``) for a review with ``hub.workflows.request_review``
  and waits for ``--min-replies`` replies (all of them by default). A reply reading ``verdict:
  fail`` makes it checkpoint ``failed`` (the definition's back-edge decides what follows);
  otherwise it checkpoints ``passed`` with its patch, citing the replies. A pass the hub refuses
  as incomplete (``WORKFLOW_EVIDENCE_INCOMPLETE``) is reported; with ``--on-incomplete-wait KEY``
  it then waits on ``KEY`` with the replies cited (the hub keeps them through the wait);
- ``ship``: checkpoints ``passed`` with the release.

Every checkpoint carries the reproduction (the definition's oracle) and a request id fixed by
stage, visit and attempt. **reviewer**: answers the review requests it receives, in order, with
the verdicts of ``--verdicts`` (``pass``, ``fail``, or ``silent``: received, never answered), then
exits; with no verdicts it serves until SIGTERM.

Exit codes: 0 done (a coordinator: the run completed), 1 an unexpected error or run state, 3 the
``--deadline`` passed, 4 a reviewer got a request beyond its verdicts, 10 the coordinator's pass
was refused as incomplete (the result says why).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError, Reason
from kxm_grpc.v1 import WorkflowRunStatus

RUNNING = WorkflowRunStatus.WORKFLOW_RUN_STATUS_RUNNING
PROMPT_SENDER = "workflow:"

DONE, ERROR, DEADLINE, UNEXPECTED_REQUEST, REFUSED_INCOMPLETE = 0, 1, 3, 4, 10

log = logging.getLogger("workflow_agent")


class Unexpected(Exception):
    """The hub, the run or a peer did something this script was not told to expect."""


def emit(event: str, **fields: Any) -> None:
    """One JSON line for the test on stdout."""
    print(json.dumps({"event": event, **fields}, sort_keys=True), flush=True)


async def inbox(hub: HubClient, name: str) -> AsyncIterator[Any]:
    """The agent's inbox messages (acknowledged once handled); ``ready`` is emitted once the stream is open."""
    announced = False
    async for event in hub.messages.subscribe(auto_ack=True, max_backoff=1.0):
        if event.HasField("ready"):
            if not announced:
                announced = True
                emit("ready", agent=name, agentId=hub.agent_id)
            continue
        if event.HasField("message"):
            yield event.message


# -- the coordinator ------------------------------------------------------------------------------


def stage_of(run: Any, stage_id: str) -> Any:
    return next(stage for stage in run.stages if stage.id == stage_id)


async def replies(hub: HubClient, ids: list[str], wanted: int, seconds: float) -> dict[str, Any]:
    """The replied messages among ``ids`` (by id), once ``wanted`` of them replied.

    Raises:
        Unexpected: fewer than ``wanted`` replied within ``seconds``.
    """
    got: dict[str, Any] = {}
    waits = {asyncio.create_task(hub.messages.wait(message_id, wait=seconds)): message_id for message_id in ids}
    pending = set(waits)
    try:
        while pending and len(got) < wanted:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                message = task.result().message
                if message.HasField("reply"):
                    got[message.id] = message
                    log.info("reply from %s to %s: %r", message.to_agent_name, message.id, message.reply.content)
    finally:
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if len(got) < wanted:
        raise Unexpected(f"{len(got)} of the {wanted} replies wanted came within {seconds} s")
    return got


async def coordinator(hub: HubClient, args: argparse.Namespace) -> int:
    prompt = None
    async with contextlib.aclosing(inbox(hub, args.name)) as messages:
        async for message in messages:
            log.info("inbox: %s from %s: %r", message.id, message.from_agent_id, message.content)
            if message.from_agent_id.startswith(PROMPT_SENDER):
                prompt = message
                break
    if prompt is None:
        raise Unexpected("the inbox stream ended before a prompt came")
    # Acknowledged (never replied to: a reply to the prompt while the run runs would fail it).
    await hub.messages.ack([prompt.id])
    run_id = prompt.from_agent_id.removeprefix(PROMPT_SENDER)
    run = (await hub.workflows.get_run(run_id)).run
    reviewers = [name for name in args.reviewers.split(",") if name]
    wanted = args.min_replies or len(reviewers)
    steps: list[dict[str, Any]] = []
    while run.status == RUNNING:
        stage_id = run.current_stage_id
        stage = stage_of(run, stage_id)
        request_id = f"{stage_id}:v{stage.visit}:a{stage.active_attempt}"
        evidence = {"repro": args.repro}
        status, refs = "passed", {}
        if stage_id == "reproduce":
            summary = "reproduced"
        elif stage_id == "ship":
            evidence["release"] = "v1.0.1"
            summary = "released"
        elif stage_id == "fix":
            ids = await hub.workflows.request_review(
                run,
                "fix",
                "review",
                reviewers,
                f"Review the patch for run {run.id} (visit {stage.visit}, attempt {stage.active_attempt}). "
                "Answer 'verdict: pass' or 'verdict: fail: why'.",
                idempotency_key=f"{run.id}:{request_id}",
            )
            log.info("review requested from %s: %s", reviewers, ids)
            got = await replies(hub, ids, wanted, args.reply_wait)
            failing = sorted(m.to_agent_name for m in got.values() if m.reply.content.startswith("verdict: fail"))
            if failing:
                status, summary = "failed", f"changes requested by {', '.join(failing)}"
            else:
                evidence["patch"] = "fix.diff"
                summary = f"approved by {', '.join(sorted(m.to_agent_name for m in got.values()))}"
                refs = {"review": [message_id for message_id in ids if message_id in got]}
        else:
            raise Unexpected(f"the run is at stage {stage_id!r}, which this coordinator does not know")
        try:
            answer = await hub.workflows.checkpoint(
                run.id, stage_id, status, summary=summary, evidence=evidence, evidence_refs=refs, request_id=request_id
            )
        except HubError as error:
            if error.reason is not Reason.WORKFLOW_EVIDENCE_INCOMPLETE:
                raise
            log.info("pass refused: %s %s", error.reason, error.metadata)
            result: dict[str, Any] = {
                "runId": run.id,
                "steps": steps,
                "refused": {"stageId": stage_id, "reason": error.reason.name, "metadata": error.metadata},
            }
            if args.on_incomplete_wait:
                waited = await hub.workflows.wait(
                    run.id,
                    stage_id,
                    args.on_incomplete_wait,
                    ttl=600,
                    summary="quorum incomplete: waiting for another review",
                    evidence=evidence,
                    evidence_refs=refs,
                    request_id=f"{request_id}:wait",
                )
                result["waiting"] = waited.run.wait.signal_key
            emit("result", **result)
            return REFUSED_INCOMPLETE
        log.info("checkpoint %s %s: retry=%s transition=%s", request_id, status, answer.retry, answer.transition.id)
        steps.append(
            {
                "stageId": stage_id,
                "status": status,
                "visit": stage.visit,
                "attempt": stage.active_attempt,
                "transition": answer.transition.to_stage_id if answer.HasField("transition") else "",
            }
        )
        run = answer.run
    status_name = WorkflowRunStatus.Name(run.status).removeprefix("WORKFLOW_RUN_STATUS_").lower()
    emit("result", runId=run.id, status=status_name, steps=steps, prompt=prompt.from_agent_id)
    return DONE if status_name == "completed" else ERROR


# -- a reviewer -----------------------------------------------------------------------------------


async def reviewer(hub: HubClient, args: argparse.Namespace, stop: asyncio.Event) -> int:
    verdicts = [v for v in args.verdicts.split(",") if v]
    handled: list[dict[str, str]] = []

    async def serve() -> int:
        async with contextlib.aclosing(inbox(hub, args.name)) as messages:
            async for message in messages:
                context = message.workflow_context
                log.info("request %s from %s (context %s)", message.id, message.from_agent_name, context)
                if not context.run_id:
                    continue  # not a review request
                if len(handled) == len(verdicts):
                    log.error("a request beyond the %d verdicts this reviewer was given", len(verdicts))
                    return UNEXPECTED_REQUEST
                verdict = verdicts[len(handled)]
                handled.append({"messageId": message.id, "runId": context.run_id, "verdict": verdict})
                if verdict == "fail":
                    await hub.messages.reply(message.id, "verdict: fail: the fix misses the empty-input case")
                elif verdict == "pass":
                    await hub.messages.reply(message.id, "verdict: pass")
                log.info("answered %s: %s", message.id, verdict)
                if len(handled) == len(verdicts):
                    return DONE
        return ERROR

    serving = asyncio.create_task(serve())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if not serving.done():
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        code = DONE if not verdicts else ERROR  # stopped before it answered what it was told to
    else:
        code = serving.result()
    emit("result", agent=args.name, handled=handled, stopped=stop.is_set())
    return code


# -- the process ----------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("role", choices=("coordinator", "reviewer"))
    parser.add_argument("--address", required=True)
    parser.add_argument("--token", required=True, help="the project's token")
    parser.add_argument("--name", required=True)
    parser.add_argument("--model", default="", help="the model the agent registers with")
    parser.add_argument("--log", required=True, help="the agent's log file")
    parser.add_argument("--deadline", type=float, default=60.0, help="seconds the whole agent may take")
    parser.add_argument("--reviewers", default="", help="coordinator: the reviewers to ask, comma-separated")
    parser.add_argument("--min-replies", type=int, default=0, help="coordinator: replies to wait for (0: all)")
    parser.add_argument("--reply-wait", type=float, default=30.0, help="coordinator: seconds to wait for them")
    parser.add_argument("--repro", default="pytest tests/test_bug.py::test_issue_7")
    parser.add_argument("--on-incomplete-wait", default="", help="coordinator: the signal key to wait on then")
    parser.add_argument("--verdicts", default="", help="reviewer: pass, fail or silent per request, in order")
    return parser.parse_args(argv)


async def main(args: argparse.Namespace) -> int:
    stop = asyncio.Event()
    if args.role == "reviewer":  # a reviewer with nothing left to answer is stopped by the test
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    began = time.monotonic()
    async with HubClient(args.address, token=args.token, timeout=10.0) as hub:
        registered = await hub.agents.register(args.name, model=args.model, purpose=f"workflow {args.role}")
        log.info("registered %s as %s (model %r)", args.name, registered.agent.id, args.model)
        try:
            async with asyncio.timeout(args.deadline):
                if args.role == "coordinator":
                    code = await coordinator(hub, args)
                else:
                    code = await reviewer(hub, args, stop)
        except TimeoutError:
            log.error("the deadline of %s s passed", args.deadline)
            emit("result", agent=args.name, error=f"deadline of {args.deadline} s passed")
            return DEADLINE
        except (HubError, Unexpected) as error:
            log.exception("failed")
            emit("result", agent=args.name, error=repr(error))
            return ERROR
    log.info("done with exit code %d after %.2f s", code, time.monotonic() - began)
    return code


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    logging.basicConfig(
        filename=arguments.log,
        level=logging.INFO,
        format=f"%(asctime)s {arguments.name} %(levelname)s %(message)s",
    )
    try:
        sys.exit(asyncio.run(main(arguments)))
    except Exception:
        log.exception("crashed")
        raise
