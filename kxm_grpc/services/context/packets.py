"""GetContextPacket and Recall: a role's packet and a query's hits over the project's pool (§5.5, §5.8).

Both read the pool in one read transaction, which the store runs off the event loop, so a large
pool never stalls other calls. The packet id is derived from the packet's content
(``documents.packet_id``): the same pool and request give the same id.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context import documents
from kxm_grpc.domain.context import recall as recall_rules
from kxm_grpc.domain.context import skills as skill_rules
from kxm_grpc.domain.context.arbiter import Outcome, arbitrate
from kxm_grpc.domain.context.items import Kind
from kxm_grpc.domain.context.memory import MEMORY_DRIFT_GAP
from kxm_grpc.domain.context.recall import RecallHit
from kxm_grpc.domain.context.request import ContextRequest, check_request
from kxm_grpc.domain.sync_events import JsonValue, canonical_json
from kxm_grpc.domain.validation import utf16_length
from kxm_grpc.errors import Reason, invalid_field
from kxm_grpc.services.context import assembly, contradictions, memory, scope, skills
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.context")

MAX_WORKING_STATE_BYTES = 64 * 1024
"""The caller's working state, as canonical JSON in UTF-8: it comes back verbatim in the packet."""


@dataclass(frozen=True, slots=True)
class Assembled:
    """A packet, its audit and its content-derived id."""

    outcome: Outcome
    packet_id: str


def _working_state(value: Mapping[str, JsonValue] | None) -> dict[str, JsonValue]:
    state = dict(value or {})
    if len(canonical_json(state).encode("utf-8")) > MAX_WORKING_STATE_BYTES:
        raise invalid_field(
            "workingState",
            f"exceeds {MAX_WORKING_STATE_BYTES} bytes as JSON",
            reason=Reason.INVALID_CONTEXT_REQUEST,
        )
    return state


def _without_skills(
    tx: Tx,
    request: ContextRequest,
    unverified: Collection[str],
    *,
    contradiction_ids: Collection[str],
    working_state: Mapping[str, JsonValue],
) -> Outcome:
    """The packet of ``request`` over the pool without the items of the promoted skills that no
    longer verify, each named by a gap (``skill_rules.gap_unverified``), after the arbiter's own.

    The indexed assembly cannot leave an item out, so this reads the pool whole and ranks it by
    the brute force, the oracle the indexed packet equals byte for byte (decision 247): a tampered
    skill is an incident, and its packets cost a scan until an operator deals with it.
    """
    hidden = {skill_rules.item_id(skill_id) for skill_id in unverified}
    pool = [
        item
        for item in assembly.read_pool(tx, request.project)
        if not (item.project == request.project and item.id in hidden)
    ]
    outcome = arbitrate(request, pool, contradiction_ids=contradiction_ids, working_state=working_state)
    return _with_gaps(outcome, *(skill_rules.gap_unverified(skill_id) for skill_id in unverified))


def _with_gaps(outcome: Outcome, *gaps: str) -> Outcome:
    """``outcome`` with ``gaps`` after its own, in its packet and its audit alike."""
    joined = (*outcome.packet.unresolved_gaps, *gaps)
    return Outcome(replace(outcome.packet, unresolved_gaps=joined), replace(outcome.audit, unresolved_gaps=joined))


async def packet(
    store: Store,
    caller: Caller,
    request: ContextRequest,
    *,
    working_state: Mapping[str, JsonValue] | None = None,
    memory_revision: str | None = None,
) -> Assembled:
    """The packet of ``request`` (its empty project: the caller's) with the project's open
    contradictions first. With ``memory_revision`` (a run's pinned one, §5.14), a project whose
    memory is at another revision now gets the gap ``MEMORY_DRIFT_GAP``: the packet holds the
    current memory, and says it is not the one the run started with.

    Raises:
        PermissionDenied: as ``scope.context_project``; (CONTEXT_ISOLATION_VIOLATION) the pool
            holds another project's item (``arbitrate`` fails closed).
        InvalidArgument: (INVALID_CONTEXT_REQUEST) as ``check_request``, or a working state over
            64 KiB as JSON (field ``workingState``).
    """
    project = scope.context_project(caller, request.project)
    checked = check_request(replace(request, project=project))
    state = _working_state(working_state)

    def work(tx: Tx) -> Outcome:
        contradiction_ids = contradictions.open_contradiction_ids(tx, project)
        unverified = skills.unverified_skill_items(tx, project)
        drifted = memory_revision is not None and memory.current_revision(tx, project) != memory_revision
        if unverified:
            outcome = _without_skills(tx, checked, unverified, contradiction_ids=contradiction_ids, working_state=state)
        else:
            outcome = assembly.assemble(tx, checked, contradiction_ids=contradiction_ids, working_state=state)
        return _with_gaps(outcome, MEMORY_DRIFT_GAP) if drifted else outcome

    outcome = await store.read(work)
    packet_id = documents.packet_id(outcome)
    log.info(
        "context_packet",
        project=project,
        role=checked.role,
        packet_id=packet_id,
        selected=len(outcome.audit.selected_ids),
        deferred=outcome.audit.deferred_count,
        estimated_tokens=outcome.audit.estimated_tokens,
        budget_tokens=outcome.audit.budget_tokens,
    )
    return Assembled(outcome, packet_id)


@dataclass(frozen=True, slots=True)
class Recalled:
    """A recall's hits, best first, and its gaps."""

    hits: tuple[RecallHit, ...]
    unresolved_gaps: tuple[str, ...]


def recall_limit(limit: int) -> int:
    """The number of hits asked for: 0 is 25.

    Raises:
        InvalidArgument: (INVALID_CONTEXT_REQUEST, ``limit``) outside 0–100.
    """
    if limit == 0:
        return recall_rules.DEFAULT_LIMIT
    if not 1 <= limit <= recall_rules.MAX_LIMIT:
        raise invalid_field(
            "limit", f"must be between 1 and {recall_rules.MAX_LIMIT} (0: 25)", reason=Reason.INVALID_CONTEXT_REQUEST
        )
    return limit


def _query(query: str) -> str:
    if utf16_length(query) > recall_rules.MAX_QUERY_CHARS:
        raise invalid_field(
            "query", f"exceeds {recall_rules.MAX_QUERY_CHARS} characters", reason=Reason.INVALID_CONTEXT_REQUEST
        )
    if "\x00" in query:
        raise invalid_field("query", "must not contain NUL characters", reason=Reason.INVALID_CONTEXT_REQUEST)
    return query


def _kinds(kinds: Collection[Kind]) -> frozenset[Kind] | None:
    if len(set(kinds)) != len(kinds):
        raise invalid_field("kinds", "must not name a kind twice", reason=Reason.INVALID_CONTEXT_REQUEST)
    return frozenset(kinds) or None


async def recall(
    store: Store, caller: Caller, project: str, query: str, *, kinds: Collection[Kind], limit: int
) -> Recalled:
    """The items of the project's pool matching ``query``, metadata only (no kinds: every kind).

    Raises:
        PermissionDenied: as ``scope.context_project``.
        InvalidArgument: (INVALID_CONTEXT_REQUEST) a query over 500 characters or holding NUL, a
            limit outside 0–100, a kind named twice (metadata ``field``).
    """
    home = scope.context_project(caller, project)
    text = _query(query)
    wanted = _kinds(kinds)
    count = recall_limit(limit)
    hits = await store.read(lambda tx: assembly.recall(tx, home, text, kinds=wanted, limit=count))
    gaps = () if hits else (recall_rules.GAP_NO_MATCH,)
    log.info("context_recall", project=home, query_chars=utf16_length(text), limit=count, hits=len(hits))
    return Recalled(tuple(hits), gaps)
