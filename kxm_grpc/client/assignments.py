"""The worker side of step runs: the assignments the hub gives this agent, and completing them.

    async with HubClient(address, token=project_token) as hub:
        await hub.agents.register("writer-grok")
        async for assignment in hub.workflows.assignments():
            result = WorkerResult(outcome="passed", summary="done")
            await assignment.complete(result)

``assignments()`` yields each open assignment of the agent, oldest first (``NextAssignment`` from
after the last one yielded; the hub also delivers each on the agent's inbox as a message from
``workflow:<run id>`` whose content is the request's JSON), waiting between reads while there is
none. One still open after it was yielded (passed over, or its ``complete`` failed) comes again
after the next wait, so nothing is lost by skipping it or by a failed call. ``Assignment.request`` is the
``AssignmentRequest``; its ``attempt_token`` is for the calls made on the assignment's behalf
(``HubClient(attempt_token=...)``). A result is ``complete``d once; a repeat of the same result is
answered as the first (``duplicate``), another refused (ASSIGNMENT_CLOSED). An assignment can close
while its agent works on it (a panel's join decided without it, the run cancelled, the agent
superseded after going offline): ``complete`` then raises ``HubError`` with reason
ASSIGNMENT_CLOSED, and the worker drops it and goes on to the next.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kxm_grpc._gen.kxm.v1 import envelopes_pb2, workflow_service_pb2

if TYPE_CHECKING:
    from kxm_grpc.client.workflows import Workflows

MIN_POLL = 0.05
MAX_POLL = 1.0


@dataclass
class Assignment:
    """One assignment this agent holds."""

    request: envelopes_pb2.AssignmentRequest
    _workflows: Workflows
    packet: workflow_service_pb2.AssignmentPacket | None = None
    """Its context packet and brief, when ``assignments(include_context=True)`` read it."""

    @property
    def id(self) -> str:
        return self.request.assignment_id

    async def complete(
        self,
        result: envelopes_pb2.WorkerResult | envelopes_pb2.ReviewEnvelope,
        *,
        timeout: float | None = None,
    ) -> workflow_service_pb2.CompleteAssignmentResponse:
        """Return the result (a ``WorkerResult``, or a ``ReviewEnvelope`` for a reviewer's assignment)."""
        return await self._workflows.complete_assignment(self.id, result, timeout=timeout)


async def assignments(
    workflows: Workflows, *, poll: float = MAX_POLL, stop: asyncio.Event | None = None, include_context: bool = False
) -> AsyncIterator[Assignment]:
    """Each open assignment of this agent, oldest first; waits (up to ``poll`` seconds between
    reads, less right after one) while there is none new, until ``stop`` is set. With
    ``include_context`` each read that finds an assignment also assembles its packet (a read that
    finds none costs no assembly)."""
    cursor = ""
    round_: set[str] = set()  # yielded since the last wait: not yielded again before one
    delay = MIN_POLL
    while stop is None or not stop.is_set():
        response = await workflows.next_assignment(after_assignment_id=cursor, include_context=include_context)
        found = response.assignment.assignment_id if response.HasField("assignment") else ""
        if found and found not in round_:
            cursor = found
            round_.add(found)
            delay = MIN_POLL
            packet = response.packet if response.HasField("packet") else None
            yield Assignment(response.assignment, workflows, packet)
            continue
        if cursor and not found:
            cursor = ""  # nothing after the last one: look from the oldest again (one may be older)
            continue
        cursor, round_ = "", set()
        if stop is None:
            await asyncio.sleep(delay)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
        delay = min(poll, delay * 2)
