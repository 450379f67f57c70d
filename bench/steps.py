"""The step engine (issue 16): a step of a step workflow beside a durable send round trip, and what an
attempt token costs a call, in one hub process.

Two rows measured in alternating repetitions (send round trip, steps, send round trip, …), so drift on
a shared machine lands in neither side of their ratios:

- ``step_send``: the core durable send round trip. ``steps_runs`` senders, each in a project of its own
  with a recipient whose inbox stream is open: ``SendMessage`` (durability ``full``), the message event
  on the recipient's stream, its ``AckMessages``; latency = the send's start to the ack's answer.
- ``steps``: ``steps_runs`` runs in flight of one definition, a chain of ``steps_chain`` agent steps
  (each passing to the next, the last completing the run), in one project (its ``maxConcurrentRuns``,
  8 by default, admits them all). The steps go round-robin to ``AGENTS`` agents, each with its inbox
  stream open: an assignment arrives there as a message from ``workflow:<run id>`` (the
  ``AssignmentRequest`` JSON), is acknowledged on arrival, and answered at once with
  ``CompleteAssignment(passed)``; the hub settles it and, in the same transaction, dispatches the next
  step. A step's latency is one agent's turn: the previous step's answer returned, the next
  assignment on the stream, its answer returned (the first step's assignment arrived before the
  phase). Hub CPU per step is all of that (dispatch, delivery, ack, completion, settling) ÷ steps.

Both go in phases of the same shape (``checkpoints.Phases``): a phase of ``steps`` starts
``steps_runs`` runs (setup: each start dispatches the first step, which waits on its stream), then
drives them all to their end; ``step_send``'s phase is ``steps_runs`` workers × ``steps_chain`` round
trips. CPU, wall time and latencies are taken over the phases only. The ratios: hub CPU per step ÷ per
round trip (issue 16's target: at most 4 ×) and step p50 ÷ round-trip p50.

Then the attempt token (``x-kxm-attempt-token``):

- ``token_verify``: in this process, ``tokens.verify_token`` and ``tool_policy.evaluate`` of an attempt
  token as the dispatcher mints it (a policy with an allow and a deny list), called directly; its CPU
  is this thread's;
- ``token_rpc_plain``, ``token_rpc_attempt`` and ``token_rpc_padding``: ``GetCallerIdentity`` (a tool,
  ``kxm_whoami``: the cheapest call admission checks tokens on) by an agent with an open assignment, in
  a closed loop of ``steps_runs`` callers: without a token, with that assignment's attempt token in
  its metadata, and with a header of the same length admission does not read, repetitions
  alternating. attempt − plain is what the token adds to a call end to end; padding − plain the part
  of it that is carrying the bytes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from bench.checkpoints import Phases
from bench.common import CpuMeter, Rep, closed_loop
from bench.config import Config
from bench.hub import Agent, Fleet
from bench.hubproc import ADMIN_TOKEN
from kxm_grpc._gen.kxm.v1 import agent_service_pb2, agent_service_pb2_grpc
from kxm_grpc._gen.kxm.v1 import workflow_types_pb2 as types_pb
from kxm_grpc.client import HubClient
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.tokens import ATTEMPT_SCHEMA, mint_attempt_token, verify_token
from kxm_grpc.domain.tool_policy import evaluate, make_policy
from kxm_grpc.v1 import WorkerResult

AGENTS = 4
"""Agents the chain's steps go to, round-robin (each serves that step of every run)."""
SETUP_TIMEOUT = 60.0
TERMINAL = "$terminal"
TOKEN_POLICY = {"allow": ["whoami", "send", "workflow_*", "complete_assignment"], "deny": ["workflow_escalate"]}
"""The tool policy of the tokens measured: an allow and a deny list (a step's ``tools``)."""
TOKEN_TOOL = "kxm_whoami"
VERIFY_BATCH = 200
"""In-process verifications timed together (one latency sample is a batch's mean)."""

RUNNING = types_pb.WORKFLOW_RUN_STATUS_RUNNING
COMPLETED = types_pb.WORKFLOW_RUN_STATUS_COMPLETED

_names = itertools.count(1)


def _unique(prefix: str) -> str:
    return f"{prefix}-{next(_names)}-{time.monotonic_ns() % 10**9}"


def chain(
    definition_id: str, project: str, steps: int, agents: list[str], tools: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A ``kxm.workflow.v1`` definition: ``steps`` agent steps in a chain, step i to ``agents[i % len]``."""
    spec: list[dict[str, Any]] = []
    for i in range(steps):
        last = i == steps - 1
        step: dict[str, Any] = {
            "id": f"s{i:02d}",
            "kind": "agent",
            "agent": agents[i % len(agents)],
            "instructions": f"Do step {i}.",
            "on": {
                "passed": {"target": TERMINAL, "terminalStatus": "completed"} if last else f"s{i + 1:02d}",
                "failed": {"target": TERMINAL, "terminalStatus": "failed"},
            },
        }
        if tools is not None:
            step["tools"] = tools
        spec.append(step)
    return {"schema": "kxm.workflow.v1", "id": definition_id, "project": project, "steps": spec}


async def _project_with_definition(
    fleet: Fleet, kind: str, steps: int, names: list[str], tools: dict[str, Any] | None = None
) -> tuple[str, str, HubClient, list[Agent]]:
    """A project, its agents ``names`` and a chain definition: (definition id, token, operator, agents)."""
    name = _unique(f"bench-{kind}")
    token = str((await fleet.admin.admin.create_project(name)).project_token)
    agents = [await fleet.agent(token, agent) for agent in names]
    operator = HubClient(fleet.address, token=ADMIN_TOKEN, project=name)
    fleet.channels.append(operator.channel)
    definition_id = _unique(f"{kind}-{steps}")
    await operator.workflows.register_definition(chain(definition_id, name, steps, names, tools))
    return definition_id, token, operator, agents


class SendRoundTrips:
    """``SendMessage`` → message event on the recipient's stream → ``AckMessages`` (see the module)."""

    def __init__(self, address: str, cfg: Config, pid: int) -> None:
        self.cfg = cfg
        self.pid = pid
        self.fleet = Fleet(address)
        self.pairs: list[tuple[Agent, Agent]] = []
        self.acked: dict[str, asyncio.Future[None]] = {}

    async def open(self) -> None:
        for i in range(self.cfg.steps_runs):
            token = await self.fleet.project()
            sender, recipient = await self.fleet.agent(token, f"s{i}"), await self.fleet.agent(token, f"r{i}")
            self.pairs.append((sender, recipient))
            events = recipient.subscribe()
            first = await asyncio.wait_for(anext(events), 10)
            if first.kind != "ready":
                raise RuntimeError(f"first event was {first.kind!r}, not ready")
            self.fleet.tasks.append(asyncio.create_task(self._receive(recipient, events)))

    async def _receive(self, recipient: Agent, events: Any) -> None:
        async for event in events:
            if event.kind != "message":
                continue
            await recipient.client.messages.ack([event.message_id])
            waiter = self.acked.pop(event.content[: event.content.index(" ")], None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

    async def rep(self) -> Rep:
        phases = Phases(self.pid)
        pad = "x" * self.cfg.payload_size
        loop = asyncio.get_running_loop()

        async def op(w: int, j: int) -> None:
            sender, recipient = self.pairs[w]
            key = _unique("rt")
            # Registered before the send: the event can arrive before SendMessage answers.
            self.acked[key] = waiter = loop.create_future()
            await sender.send(recipient.id, f"{key} {pad}")
            await waiter

        for _ in range(self.cfg.steps_phases):
            await phases.run(len(self.pairs), self.cfg.steps_chain, op)
        return phases.rep()

    async def close(self) -> None:
        await self.fleet.close()


class StepRuns:
    """Runs of a chain of agent steps, answered at once by agents on their inbox streams (see the module)."""

    def __init__(self, address: str, cfg: Config, pid: int) -> None:
        self.cfg = cfg
        self.pid = pid
        self.fleet = Fleet(address)
        self.operator: HubClient | None = None
        self.definition_id = ""
        self.agents: dict[str, Agent] = {}
        self.queues: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        """Per run id: its assignments as they arrive (made by whichever comes first: the start's
        answer or the first assignment)."""
        self.acks: dict[str, list[asyncio.Task[object]]] = {}
        """Per run id: the acknowledgements of its assignment messages."""

    async def open(self) -> None:
        names = [f"w{i}" for i in range(min(AGENTS, self.cfg.steps_chain))]
        self.definition_id, _, self.operator, agents = await _project_with_definition(
            self.fleet, "steps", self.cfg.steps_chain, names
        )
        for agent in agents:
            self.agents[agent.name] = agent
            events = agent.subscribe()
            first = await asyncio.wait_for(anext(events), 10)
            if first.kind != "ready":
                raise RuntimeError(f"first event was {first.kind!r}, not ready")
            self.fleet.tasks.append(asyncio.create_task(self._receive(agent, events)))

    def _queue(self, run_id: str) -> asyncio.Queue[dict[str, Any]]:
        queue = self.queues.get(run_id)
        if queue is None:
            queue = self.queues[run_id] = asyncio.Queue()
            self.acks[run_id] = []
        return queue

    async def _receive(self, agent: Agent, events: Any) -> None:
        async for event in events:
            if event.kind != "message":
                continue
            request = json.loads(event.content)
            queue = self._queue(request["runId"])
            # Acknowledged on arrival, beside the answer: off the run's path, inside the phase's CPU.
            self.acks[request["runId"]].append(asyncio.create_task(agent.client.messages.ack([event.message_id])))
            queue.put_nowait(request)

    async def _start(self, runs: list[str]) -> None:
        """``steps_runs`` new runs, each with its first assignment arrived on its agent's stream."""
        assert self.operator is not None
        operator = self.operator

        async def start() -> str:
            started = await operator.workflows.start_run(self.definition_id, delivery_id=_unique("d"))
            if started.run.status != RUNNING:
                raise RuntimeError(f"run {started.run.id} is not running: {started.run.status}")
            return str(started.run.id)

        self.queues.clear()
        self.acks.clear()
        runs[:] = await asyncio.gather(*(start() for _ in range(self.cfg.steps_runs)))
        deadline = time.monotonic() + SETUP_TIMEOUT
        while any(self._queue(run_id).empty() for run_id in runs):
            if time.monotonic() > deadline:
                raise TimeoutError("the first assignments did not all arrive")
            await asyncio.sleep(0.005)

    async def rep(self, *, before_measuring: Callable[[], None] | None = None) -> Rep:
        """One repetition (``before_measuring`` is called before each measured phase: the profiler's start)."""
        phases = Phases(self.pid)
        last = self.cfg.steps_chain - 1
        runs: list[str] = []
        result = WorkerResult(outcome="passed", summary="done")

        async def op(w: int, j: int) -> None:
            run_id = runs[w]
            request = await self.queues[run_id].get()
            if request["stepId"] != f"s{j:02d}":
                raise RuntimeError(f"run {run_id}: step {request['stepId']} arrived, s{j:02d} expected")
            agent = self.agents[request["agentName"]]
            answer = await agent.client.workflows.complete_assignment(request["assignmentId"], result)
            if answer.duplicate or (answer.run_status == COMPLETED) != (j == last):
                raise RuntimeError(f"run {run_id}: step s{j:02d} answered {answer}")
            if j == last:
                await asyncio.gather(*self.acks[run_id])  # the run's acks inside the measured phase

        for _ in range(self.cfg.steps_phases):
            await phases.untimed(self._start(runs))
            if before_measuring is not None:
                before_measuring()
            await phases.run(len(runs), self.cfg.steps_chain, op)
        return phases.rep()

    async def close(self) -> None:
        await self.fleet.close()


def token_verify(cfg: Config) -> Rep:
    """``verify_token`` + ``evaluate`` of one attempt token, ``token_verify_calls`` times in this thread.

    Extras: ``verify_us`` and ``evaluate_us`` alone, and ``mint_us`` (the dispatcher mints one per step).
    """
    keyring = Keyring({"bench-key": b"k" * 32}, "bench-key")
    policy = make_policy(preset="", allow=TOKEN_POLICY["allow"], deny=TOKEN_POLICY["deny"])
    now = 1_800_000_000_000_000

    def mint() -> str:
        return mint_attempt_token(
            keyring,
            project="bench-steps-0123",
            run_id=new_id("run"),
            step_id="s07",
            step_attempt=1,
            assignment_id=(assignment := new_id("asg")),
            attempt_id=assignment,
            agent_id=new_id("agt"),
            tool_policy=policy,
            now=now,
            ttl=86_400_000_000,
        )[0]

    token = mint()

    def both() -> None:
        claims = verify_token(token, ATTEMPT_SCHEMA, keyring, now=now)
        if not evaluate(claims.tool_policy, TOKEN_TOOL).allowed:
            raise RuntimeError("the measured token's policy refuses the tool")

    def per_call(fn: Any, calls: int) -> float:
        started = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - started) / calls

    batches = max(1, cfg.token_verify_calls // VERIFY_BATCH)
    per_call(both, VERIFY_BATCH)  # warm-up
    latencies: list[float] = []
    cpu_started, wall_started = time.thread_time(), time.perf_counter()
    for _ in range(batches):
        latencies.append(per_call(both, VERIFY_BATCH))
    wall, cpu = time.perf_counter() - wall_started, time.thread_time() - cpu_started
    ops = batches * VERIFY_BATCH
    claims = verify_token(token, ATTEMPT_SCHEMA, keyring, now=now)
    parts = max(1, ops // 4)
    return Rep(
        rate=ops / wall,
        ops=ops,
        seconds=wall,
        latencies=latencies,
        cpu_seconds=cpu,
        extra={
            "verify_us": per_call(lambda: verify_token(token, ATTEMPT_SCHEMA, keyring, now=now), parts) * 1e6,
            "evaluate_us": per_call(lambda: evaluate(claims.tool_policy, TOKEN_TOOL), parts) * 1e6,
            "mint_us": per_call(mint, parts) * 1e6,
            "token_chars": float(len(token)),
        },
    )


class TokenCalls:
    """``GetCallerIdentity`` by an agent holding an open assignment: with no token (``plain``), with its
    attempt token (``attempt``), or with a header of the token's length that admission does not read
    (``padding``: what carrying the bytes costs, without verifying them)."""

    MODES = ("plain", "attempt", "padding")

    def __init__(self, address: str, cfg: Config, pid: int, *, mode: str) -> None:
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {self.MODES}")
        self.cfg = cfg
        self.pid = pid
        self.mode = mode
        self.fleet = Fleet(address)
        self.agent: Agent | None = None
        self.metadata: tuple[tuple[str, str], ...] = ()

    async def open(self) -> None:
        definition_id, _, operator, (agent,) = await _project_with_definition(
            self.fleet, "token", 1, ["tok"], tools=TOKEN_POLICY
        )
        await operator.workflows.start_run(definition_id, delivery_id=_unique("d"))
        # The run stays open all along: its assignment's token is valid while the rows run.
        deadline = time.monotonic() + SETUP_TIMEOUT
        while not (assigned := await agent.client.workflows.next_assignment()).HasField("assignment"):
            if time.monotonic() > deadline:
                raise TimeoutError("the token's assignment was not dispatched")
            await asyncio.sleep(0.02)
        token = assigned.assignment.attempt_token
        extra = {
            "plain": (),
            "attempt": (("x-kxm-attempt-token", token),),
            "padding": (("x-bench-padding", "p" * len(token)),),
        }
        self.metadata = agent.client.metadata + extra[self.mode]
        self.agent = agent

    async def rep(self) -> Rep:
        assert self.agent is not None
        client = self.agent.client
        stub = client._stub(agent_service_pb2_grpc.AgentServiceStub)
        request = agent_service_pb2.GetCallerIdentityRequest()
        metadata = self.metadata

        async def op(i: int) -> None:
            await client._call(stub.GetCallerIdentity, request, metadata=metadata)

        return await closed_loop(
            self.cfg.steps_runs, op, warmup=self.cfg.warmup, duration=self.cfg.duration, cpu=CpuMeter(self.pid)
        )

    async def close(self) -> None:
        await self.fleet.close()
