"""The context arbiter: a role's packet from the pool, deterministically (spec §5.5, seed 004).

``arbitrate`` takes the request, the project's pool (its own items and ``_shared`` defaults), the
ids of open contradictions and the caller's working state, and returns the packet and its audit.
The same pool, in any order, and the same request give the same packet and audit, byte for byte
once rendered by ``documents``: every ordering is one total sort key ending in the id's UTF-16
code units, and BM25 sums terms in query order over order-free corpus statistics.

1. Isolation: an item of another project fails the whole call (never filtered: a foreign item in
   a pool is a bug upstream). Two items with one id in one project fail it too (the store keys
   items on project and id, so that is a bug upstream as well).
2. Shadowing: the store may hold one id in the project and in ``_shared``; the project's own item
   (whatever its status) shadows the ``_shared`` default, which leaves the pool here, before
   anything is counted or ranked. So an operator default never breaks a project's packets by
   sharing an id, and a project overrides a default by writing its id.
3. Superseded and rejected items are dropped and counted; the rest are the candidates.
4. Eligible: open contradictions, and items of a requested kind that are not inert (a state item
   that is not current, a proposed skill): proposals never consume budget.
5. Order by ``rank_key``, the nine keys of §5.5.
6. First fit: an item that would take the estimate over the budget is deferred and smaller ones
   after it still fill; 256 items at most.
7. Gaps, sections and the metadata-only audit (which adds ``deferredCount`` and each selected
   item's ordering reasons to the original's).

Seed 004's post-check ``validateContextPacketContents`` is not run on the packet: it would refuse
the ``_shared`` items pin 19 admits, and an open contradiction of a kind the role did not request,
which this arbiter surfaces on purpose (step 4).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from kxm_grpc.domain.context.items import MAX_ITEMS, SHARED_PROJECT, ContextItem, Kind, Status
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.context.policies import role_policy
from kxm_grpc.domain.context.relevance import item_text, query_terms, round_relevance, score_relevance
from kxm_grpc.domain.context.request import ContextRequest, check_request
from kxm_grpc.domain.context.tokens import estimate_tokens, item_characters
from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.errors import InvalidArgument, PermissionDenied, Reason

GAP_ITEM_LIMIT = "context item limit reached; refine the task or kinds"
GAP_NO_RECORDS = "no context records exist for this project yet"


def gap_budget_reached(budget: int, deferred: int) -> str:
    """The gap when some candidates were deferred for the budget and some fitted."""
    return f"budget of {budget} tokens reached; {deferred} candidates deferred"


def gap_budget_fits_nothing(budget: int) -> str:
    """The gap when candidates were deferred for the budget and none fitted."""
    return f"budget of {budget} tokens cannot fit any selected context"


RankKey = tuple[int, int, int, int, float, int, int, tuple[int, int], bytes, str]


@dataclass(frozen=True, slots=True)
class Reasons:
    """Why a selected item ranks where it does: its ordering keys, metadata only (no body)."""

    id: str
    contradiction: bool
    shared: bool
    """It is a ``_shared`` default (ranked after the project's own items)."""
    task_matched: bool
    kind_rank: int
    relevance: float
    """The BM25 score rounded to three decimals."""


@dataclass(frozen=True, slots=True)
class Audit:
    """How a packet was assembled: ids, counts and scores, never an item's body."""

    request: ContextRequest
    selected_ids: tuple[str, ...]
    """Rank order."""
    deferred_count: int
    """Eligible items skipped because they did not fit the budget (a count, not ids: at 100,000
    items a list would be the whole pool)."""
    provenance_summary: tuple[tuple[str, int], ...]
    estimated_tokens: int
    budget_tokens: int
    candidate_count: int
    excluded_superseded: int
    unresolved_gaps: tuple[str, ...]
    task_tokens: int
    """Distinct relevance tokens of the task."""
    matched_candidates: int
    """Eligible items sharing a token with the task (BM25 score > 0)."""
    selected_relevance: tuple[float, ...]
    """Each selected item's rounded score, aligned with ``selected_ids``."""
    reasons: tuple[Reasons, ...]
    """Each selected item's ordering keys, aligned with ``selected_ids``."""


@dataclass(frozen=True, slots=True)
class Packet:
    """A role's context (``kxm.context-packet.v1``): every selected item in exactly one section."""

    contradictions: tuple[ContextItem, ...]
    current_state: tuple[ContextItem, ...]
    knowledge: tuple[ContextItem, ...]
    evidence: tuple[ContextItem, ...]
    episodes: tuple[ContextItem, ...]
    skills: tuple[ContextItem, ...]
    working_state: Mapping[str, JsonValue]
    """The caller's working state, verbatim."""
    unresolved_gaps: tuple[str, ...]
    provenance_summary: tuple[tuple[str, int], ...]
    """Selected items per source type, in code-unit order of the type."""
    estimated_tokens: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """The packet and its audit."""

    packet: Packet
    audit: Audit


def is_inert(item: ContextItem) -> bool:
    """A proposal that never consumes budget: a state item that is not current, a proposed skill."""
    return is_inert_partition(item.kind, item.status)


def is_inert_partition(kind: Kind, status: Status | None) -> bool:
    """Whether items of ``kind`` and ``status`` are inert (``is_inert``): a property of the pair."""
    if kind is Kind.STATE:
        return status is not None and status is not Status.CURRENT
    return kind is Kind.SKILL and status is Status.PROPOSED


def tail_key(item: ContextItem) -> tuple[int, int, int, int, bytes]:
    """Ordering keys 6 to 9 (``rank_key``) as integers and UTF-16-BE bytes, ascending in rank
    order: what the store keeps per item so that it can walk items in this order itself."""
    (undated, recency) = recency_key(item)
    return (-item.confidence.rank, -item.authority.rank, undated, recency, code_unit_key(item.id))


def recency_key(item: ContextItem) -> tuple[int, int]:
    """Newest first, from the item's own times (``observedAt``, else ``validFrom``); an item with
    neither comes after every dated one. Never reads the clock."""
    moment = item.observed_at if item.observed_at is not None else item.valid_from
    return (1, 0) if moment is None else (0, -moment)


def rank_key(item: ContextItem, *, project: str, contradiction: bool, kind_rank: int, score: float) -> RankKey:
    """The nine ordering keys of §5.5 as one ascending sort key, total over distinct ids: the raw
    id ends it, so two ids with equal UTF-16 code units (``"\\ud83d\\ude00"`` and ``"\\U0001f600"``,
    possible only in an item ``check_item`` never saw) still order one way."""
    return (
        0 if contradiction else 1,  # (1) open contradictions first
        0 if item.project == project else 1,  # (2) the project's items before _shared defaults
        0 if score > 0 else 1,  # (3) task-matched before unmatched
        kind_rank,  # (4) the role's kind priority
        -score,  # (5) BM25 against the task, descending
        -item.confidence.rank,  # (6) verified > probable > uncertain
        -item.authority.rank,  # (7) policy > instruction > evidence > hypothesis
        recency_key(item),  # (8) newest first
        code_unit_key(item.id),  # (9) id by UTF-16 code units
        item.id,  # only for ids equal in code units: the key stays total
    )


def arbitrate(
    request: ContextRequest,
    pool: Sequence[ContextItem],
    *,
    contradiction_ids: Collection[str] = (),
    working_state: Mapping[str, JsonValue] | None = None,
) -> Outcome:
    """Assemble the packet of ``request`` from ``pool`` (see the module docstring).

    Raises:
        InvalidArgument: the request breaks a rule of §5.2 (INVALID_CONTEXT_REQUEST), or the pool
            holds one id twice in one project (INVALID_CONTEXT_ITEM); an id in the project and in
            ``_shared`` is no error (the project's item shadows the default).
        PermissionDenied: the pool holds another project's item (CONTEXT_ISOLATION_VIOLATION).
    """
    request = check_request(request)
    budget, kinds = budget_and_kinds(request)
    contradictions = frozenset(contradiction_ids)

    own_ids: set[str] = set()
    shared_ids: set[str] = set()
    for item in pool:
        if item.project not in (request.project, SHARED_PROJECT):
            raise PermissionDenied(
                f"context pool contains cross-project item {item.id}",
                reason=Reason.CONTEXT_ISOLATION_VIOLATION,
                metadata={"itemId": item.id, "project": request.project},
            )
        seen = own_ids if item.project == request.project else shared_ids
        if item.id in seen:
            raise InvalidArgument(
                f"context pool contains item {item.id} of {item.project} twice",
                reason=Reason.INVALID_CONTEXT_ITEM,
                metadata={"itemId": item.id, "project": item.project},
            )
        seen.add(item.id)

    candidates: list[ContextItem] = []
    excluded = 0
    for item in pool:
        if item.project == SHARED_PROJECT and item.id in own_ids:
            continue  # shadowed by the project's own item with this id
        if item.status in (Status.SUPERSEDED, Status.REJECTED):
            excluded += 1
            continue
        candidates.append(item)

    kind_ranks = {kind: index for index, kind in enumerate(kinds)}
    eligible = [
        item for item in candidates if item.id in contradictions or (item.kind in kind_ranks and not is_inert(item))
    ]
    scores = dict(
        zip(
            (item.id for item in eligible), score_relevance(request.task, [item_text(i) for i in eligible]), strict=True
        )
    )
    ordered = sorted(
        eligible,
        key=lambda item: rank_key(
            item,
            project=request.project,
            contradiction=item.id in contradictions,
            kind_rank=kind_ranks.get(item.kind, len(kinds)),
            score=scores[item.id],
        ),
    )

    selected: list[ContextItem] = []
    deferred = 0
    limit_reached = False
    room = budget_characters(budget)
    for item in ordered:
        if len(selected) >= MAX_ITEMS:
            limit_reached = True
            break
        cost = item_characters(item)
        if cost > room:
            deferred += 1
            continue
        room -= cost
        selected.append(item)
    return finish(
        request,
        selected,
        scores={item.id: scores[item.id] for item in selected},
        contradiction_ids=contradictions,
        deferred_count=deferred,
        limit_reached=limit_reached,
        candidate_count=len(candidates),
        excluded_superseded=excluded,
        matched_candidates=sum(1 for score in scores.values() if score > 0),
        working_state=working_state,
    )


def budget_and_kinds(request: ContextRequest) -> tuple[int, tuple[Kind, ...]]:
    """The request's token budget and kinds in priority order: its own, else its role's."""
    policy = role_policy(request.role)
    budget = request.budget_tokens if request.budget_tokens is not None else policy.budget_tokens
    kinds = request.include_kinds if request.include_kinds is not None else policy.kinds
    return budget, tuple(kinds)


def budget_characters(budget: int) -> int:
    """The characters a budget holds: ``tokens_for(characters) <= budget`` exactly when
    ``characters <= 4 × budget``, so first fit is integer arithmetic on what is left."""
    return 4 * budget


def finish(
    request: ContextRequest,
    selected: Sequence[ContextItem],
    *,
    scores: Mapping[str, float],
    contradiction_ids: Collection[str],
    deferred_count: int,
    limit_reached: bool,
    candidate_count: int,
    excluded_superseded: int,
    matched_candidates: int,
    working_state: Mapping[str, JsonValue] | None,
) -> Outcome:
    """The packet and audit of a checked ``request`` once first fit has chosen ``selected`` (in
    rank order; ``scores`` holds each one's BM25 score): sections, gaps and the audit. ``arbitrate``
    and the store's indexed assembly both end here, so what they build from equal selections and
    counts is equal."""
    budget, kinds = budget_and_kinds(request)
    kind_ranks = {kind: index for index, kind in enumerate(kinds)}
    contradictions = frozenset(contradiction_ids)
    gaps: list[str] = []
    if limit_reached:
        gaps.append(GAP_ITEM_LIMIT)
    if deferred_count:
        gaps.append(gap_budget_fits_nothing(budget) if not selected else gap_budget_reached(budget, deferred_count))
    if not candidate_count:
        gaps.append(GAP_NO_RECORDS)

    def section(kind: Kind) -> tuple[ContextItem, ...]:
        return tuple(item for item in selected if item.kind is kind and item.id not in contradictions)

    provenance = _provenance_summary(selected)
    estimated = estimate_tokens(selected)
    packet = Packet(
        contradictions=tuple(item for item in selected if item.id in contradictions),
        current_state=tuple(item for item in section(Kind.STATE) if item.status in (Status.CURRENT, None)),
        knowledge=section(Kind.KNOWLEDGE),
        evidence=section(Kind.EVIDENCE),
        episodes=section(Kind.EPISODE),
        skills=tuple(item for item in section(Kind.SKILL) if item.status is not Status.PROPOSED),
        working_state=dict(working_state or {}),
        unresolved_gaps=tuple(gaps),
        provenance_summary=provenance,
        estimated_tokens=estimated,
    )
    audit = Audit(
        request=request,
        selected_ids=tuple(item.id for item in selected),
        deferred_count=deferred_count,
        provenance_summary=provenance,
        estimated_tokens=estimated,
        budget_tokens=budget,
        candidate_count=candidate_count,
        excluded_superseded=excluded_superseded,
        unresolved_gaps=tuple(gaps),
        task_tokens=len(query_terms(request.task)),
        matched_candidates=matched_candidates,
        selected_relevance=tuple(round_relevance(scores[item.id]) for item in selected),
        reasons=tuple(
            Reasons(
                id=item.id,
                contradiction=item.id in contradictions,
                shared=item.project != request.project,
                task_matched=scores[item.id] > 0,
                kind_rank=kind_ranks.get(item.kind, len(kinds)),
                relevance=round_relevance(scores[item.id]),
            )
            for item in selected
        ),
    )
    return Outcome(packet, audit)


def _provenance_summary(items: Sequence[ContextItem]) -> tuple[tuple[str, int], ...]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.provenance.source_type.value] = counts.get(item.provenance.source_type.value, 0) + 1
    return tuple(sorted(counts.items(), key=lambda pair: code_unit_key(pair[0])))
