"""An assignment's context packet and brief (``NextAssignment`` with ``include_context``, spec §5.13).

Assembled when the agent asks for its assignment, in a read transaction of its own after the one
that found the assignment: the dispatch transaction stays as small as it was, and the packet is the
pool as of when the work starts. A packet that cannot be assembled (a refusal of the arbiter, such
as a pool holding another project's item) does not withhold the assignment: the brief says so and
the gap ``assignment_context_failed`` is set; the hub's log names the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context.assignments import AssignmentFacts, packet_request, packet_role, render_brief
from kxm_grpc.domain.context.request import MAX_BUDGET_TOKENS, MIN_BUDGET_TOKENS
from kxm_grpc.errors import HubError, Reason, invalid_field
from kxm_grpc.services.context import packets
from kxm_grpc.store import Store

log = structlog.get_logger("kxm.context")


@dataclass(frozen=True, slots=True)
class AssignmentPacket:
    """An assignment's packet (None when it could not be assembled) and its brief."""

    role: str
    assembled: packets.Assembled | None
    brief: str
    unresolved_gaps: tuple[str, ...]


def packet_budget(value: int) -> int | None:
    """The budget an agent asked for (0: None, the default).

    Raises:
        InvalidArgument: (INVALID_CONTEXT_REQUEST) neither 0 nor 512 to 200,000 (``context_budget_tokens``).
    """
    if value == 0:
        return None
    if not MIN_BUDGET_TOKENS <= value <= MAX_BUDGET_TOKENS:
        raise invalid_field(
            "context_budget_tokens",
            f"must be 0 (the role's budget, at most 4,000) or {MIN_BUDGET_TOKENS} to {MAX_BUDGET_TOKENS}",
            reason=Reason.INVALID_CONTEXT_REQUEST,
        )
    return value


async def assignment_packet(
    store: Store, caller: Caller, facts: AssignmentFacts, *, budget_tokens: int | None
) -> AssignmentPacket:
    """The packet and brief of the caller's assignment ``facts``; never raises a refusal of the arbiter."""
    role = packet_role(facts)
    assembled: packets.Assembled | None
    try:
        assembled = await packets.packet(
            store, caller, packet_request(facts, budget_tokens), memory_revision=facts.memory_revision
        )
    except HubError as error:
        log.warning(
            "assignment_context_failed",
            project=facts.project,
            assignment_id=facts.assignment_id,
            status=error.status,
            reason=str(error.reason) if error.reason is not None else None,
        )
        assembled = None
    brief = render_brief(
        facts,
        role,
        assembled.packet_id if assembled is not None else "",
        assembled.outcome if assembled is not None else None,
    )
    return AssignmentPacket(role, assembled, brief.text, brief.unresolved_gaps)
