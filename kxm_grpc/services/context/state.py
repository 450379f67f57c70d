"""Temporal state: reads as of an instant, proposals, and their promotion or rejection (spec §5.9).

The rules are ``kxm_grpc.domain.context.state``'s; this module reads a key's items
(``tx.context_items.state_items``: an index lookup, never a scan of the pool), applies them, and
writes what they decide in one unit of work.

Who may do what: any caller of a project reads its state; a project token, an agent or an operator
naming the project proposes (its origin, ``peer`` or ``human``, from its credential); an operator
other than the proposer promotes; any operator rejects (an operator may withdraw its own proposal:
rejecting makes nothing true). A project's state is its own: ``_shared`` holds no
state a project reads here.

Ids: a proposal is ``ctx_`` and 32 hex digits, derived from (project, request id) when the request
has one (so a retry finds the proposal it made), else random; a promotion's item is random.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from kxm_grpc.domain import validation
from kxm_grpc.domain.audit import AuditRecord
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context import state as rules
from kxm_grpc.domain.context.items import MAX_ID_CHARS, ContextItem, Kind, Status
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.workflows.redaction import redact
from kxm_grpc.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Reason,
    invalid_field,
)
from kxm_grpc.services import audit
from kxm_grpc.services.context.scope import context_project, origin, writer
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.context_items import StoredContextItem

log = structlog.get_logger("kxm.context")

ITEM_PREFIX = "ctx"
MAX_REQUEST_ID_CHARS = 128


def _request_id(value: str) -> str:
    """The request id trimmed (may be empty).

    Raises:
        InvalidArgument: over 128 characters, or holding a control character (field ``request_id``).
    """
    text = validation.js_trim(value)
    if validation.utf16_length(text) > MAX_REQUEST_ID_CHARS or any(ord(c) < 32 or c == "\x7f" for c in text):
        raise invalid_field("request_id", f"must be at most {MAX_REQUEST_ID_CHARS} printable characters")
    return text


def _now_or(as_of: int | None, now: int) -> int:
    return now if as_of is None else as_of


# -- reading ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StateRead:
    """What a single-valued key held at the instant, and (when asked) its whole history."""

    item: ContextItem | None
    history: tuple[ContextItem, ...] = ()


_IN_FORCE = (Status.CURRENT, Status.SUPERSEDED)
"""The statuses an item active at an instant may have (a proposal never holds)."""


def _key_items(tx: Tx, project: str, state_key: str, *, active_at: int | None = None) -> list[ContextItem]:
    """The key's items: with ``active_at``, only those in force then (all ``value_at`` and ``set_at``
    read, so a long history is not decoded for a read of one instant); else its whole history."""
    statuses = None if active_at is None else _IN_FORCE
    return [
        stored.item
        for stored in tx.context_items.state_items(project, state_key, statuses=statuses, active_at=active_at)
    ]


async def get_state(
    store: Store,
    caller: Caller,
    *,
    project: str,
    state_key: str,
    as_of: int | None,
    include_history: bool,
    now: int,
) -> StateRead:
    """What the single-valued key held at ``as_of`` (None: ``now``), with its history if asked.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) as ``context_project``.
        InvalidArgument: a bad key (INVALID_STATE_REQUEST); a set-valued one (STATE_KEY_SET_VALUED).
        FailedPrecondition: (STATE_CONTRADICTION) more than one current item was active then.
    """
    name = context_project(caller, project)
    key = rules.check_state_key(state_key)
    rules.check_single_valued(key)
    at = _now_or(as_of, now)
    items = await store.read(lambda tx: _key_items(tx, name, key, active_at=None if include_history else at))
    value = rules.value_at(key, items, at)
    return StateRead(value, tuple(rules.history(items)) if include_history else ())


async def list_state_set(
    store: Store, caller: Caller, *, project: str, state_key: str, as_of: int | None, now: int
) -> list[ContextItem]:
    """The set-valued key's current members at ``as_of`` (None: ``now``), by id.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) as ``context_project``.
        InvalidArgument: a bad key (INVALID_STATE_REQUEST); a single-valued one (STATE_KEY_SINGLE_VALUED).
    """
    name = context_project(caller, project)
    key = rules.check_state_key(state_key)
    rules.check_set_valued(key)
    at = _now_or(as_of, now)
    items = await store.read(lambda tx: _key_items(tx, name, key, active_at=at))
    return rules.set_at(items, at)


# -- proposing ----------------------------------------------------------------------------------------


def proposal_id(project: str, request_id: str) -> str:
    """The id of the proposal a request id makes in a project: ``ctx_`` and 32 hex digits of the
    SHA-256 of both (a NUL between them, which neither holds)."""
    digest = hashlib.sha256(f"state-proposal\x00{project}\x00{request_id}".encode()).hexdigest()
    return f"{ITEM_PREFIX}_{digest[:32]}"


def _check_proposer(caller: Caller, proposed_by: str) -> None:
    label = validation.js_trim(proposed_by)
    if not label:
        return
    names = {writer(caller), caller.identity}
    if caller.agent_name:
        names.add(caller.agent_name)
    if label not in names:
        raise PermissionDenied(
            "proposed_by must name the caller (its agent id or name, or the operator's name) or be empty",
            reason=Reason.STATE_PROPOSER_MISMATCH,
            metadata={"field": "proposed_by", "proposer": writer(caller)},
        )


async def propose_state(
    store: Store,
    caller: Caller,
    change: rules.Change,
    *,
    project: str,
    proposed_by: str = "",
    request_id: str = "",
    now: int,
) -> ContextItem:
    """Store a ``proposed`` state item of ``change`` by the caller (``rules.proposal``).

    With ``request_id``, a retry of the same change returns the proposal it made, as it is now.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) as ``context_project``;
            (STATE_PROPOSER_MISMATCH) ``proposed_by`` names someone else; as ``rules.proposal``.
        InvalidArgument: a request id over 80 characters; as ``rules.proposal``.
        Aborted: (IDEMPOTENCY_CONFLICT) the request id made another proposal.
    """
    name = context_project(caller, project)
    _check_proposer(caller, proposed_by)
    request = _request_id(request_id)
    item_id = proposal_id(name, request) if request else new_id(ITEM_PREFIX)
    asked = rules.proposal(name, change, item_id=item_id, proposer=writer(caller), origin=origin(caller), now=now)

    def work(tx: Tx) -> tuple[ContextItem, bool]:
        if request:
            found = tx.context_items.get(name, [item_id])
            if found:
                if not rules.same_change(found[0].item, asked):
                    raise Aborted(
                        "request_id was already used for another state proposal in this project",
                        reason=Reason.IDEMPOTENCY_CONFLICT,
                        metadata={"requestId": request, "proposalId": item_id},
                    )
                return found[0].item, True
        tx.context_items.put([StoredContextItem(asked, now)])
        return asked, False

    stored, repeated = await store.write(work)
    if not repeated:
        log.info(
            "state_proposed",
            project=name,
            item_id=stored.id,
            evidence_refs=len(stored.evidence_refs),
            summary_chars=validation.utf16_length(stored.summary),
        )
    return stored


# -- deciding -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Promoted:
    """A promotion: the new current item, the proposal closed, the ids of the items it superseded."""

    item: ContextItem
    proposal: ContextItem
    superseded_ids: tuple[str, ...]
    repeated: bool = False
    """True when it is the earlier promotion of the same request, returned again."""


def _operator(caller: Caller, action: str) -> str:
    if caller.operator is None:
        raise PermissionDenied(
            f"a state proposal is {action} by an operator",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"nextAction": "call with an operator credential"},
        )
    return caller.operator


def _proposal_id(value: str) -> str:
    return rules.check_refs("proposal_id", [value], minimum=1, most=1, max_chars=MAX_ID_CHARS)[0]


def _not_found(project: str, proposal_id: str) -> NotFound:
    return NotFound(
        f"no state proposal {proposal_id!r} in project {project!r}",
        reason=Reason.STATE_PROPOSAL_NOT_FOUND,
        metadata={"proposalId": proposal_id},
    )


def _not_promotable(stored: StoredContextItem) -> FailedPrecondition:
    status = stored.item.status.value if stored.item.status is not None else "none"
    metadata = {"proposalId": stored.item.id, "status": status}
    if stored.superseded_by:
        metadata["promotedItemId"] = stored.superseded_by
    return FailedPrecondition(
        f"state item {stored.item.id!r} is {status}: only a proposal is promoted or rejected, once",
        reason=Reason.STATE_PROPOSAL_NOT_PROMOTABLE,
        metadata=metadata,
    )


def _proposal(tx: Tx, project: str, proposal_id: str) -> StoredContextItem:
    found = tx.context_items.get(project, [proposal_id])
    if not found or found[0].item.kind is not Kind.STATE:
        raise _not_found(project, proposal_id)
    return found[0]


def _check_promoter(tx: Tx, proposed: ContextItem, operator: str) -> None:
    """Refuse the proposer as its promoter: by name, or as the operator named as the proposing agent."""
    proposer = rules.proposer_of(proposed)
    agent = tx.agents.get(proposer) if proposer else None
    if operator in {proposer, agent.name if agent is not None else None}:
        raise InvalidArgument(
            "the proposer of a state change may not promote it: another operator decides",
            reason=Reason.STATE_PROMOTION_INVALID,
            metadata={"proposalId": proposed.id, "promotedBy": operator},
        )


def _target(project: str, item_id: str) -> str:
    return f"projects/{project}/contextItems/{item_id}"


def _earlier_promotion(tx: Tx, stored: StoredContextItem, operator: str, evidence: Sequence[str]) -> Promoted | None:
    """The promotion that closed ``stored``, when it was this operator's with this evidence."""
    if stored.item.status is not Status.REJECTED or not stored.superseded_by:
        return None
    found = tx.context_items.get(stored.item.project, [stored.superseded_by])
    if not found:
        return None
    item = found[0].item
    if item.provenance.source_ref != rules.PROMOTED_BY + operator:
        return None
    if item.evidence_refs != rules.promotion_evidence(stored.item, evidence):
        return None
    closed = tx.context_items.get(item.project, [i for i in item.supersedes if i != stored.item.id])
    superseded = tuple(s.item.id for s in closed if s.superseded_by == item.id)
    return Promoted(item, stored.item, superseded, repeated=True)


async def promote_state(
    store: Store, caller: Caller, *, project: str, proposal_id: str, evidence_refs: Sequence[str], now: int
) -> Promoted:
    """An operator other than its proposer promotes a proposal (``rules.promote``): the new item,
    the closed proposal and the closed items are written together, with an audit record. The same
    operator promoting it again with the same evidence gets that promotion back.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; (CONTEXT_ISOLATION_VIOLATION)
            as ``context_project``.
        InvalidArgument: a bad id or evidence, or the proposer promoting (STATE_PROMOTION_INVALID).
        NotFound: (STATE_PROPOSAL_NOT_FOUND) no state item of the project has the id.
        FailedPrecondition: (STATE_PROPOSAL_NOT_PROMOTABLE) it is not a proposal (any more).
    """
    operator = _operator(caller, "promoted")
    name = context_project(caller, project)
    wanted = _proposal_id(proposal_id)
    evidence = rules.check_evidence(evidence_refs)

    def work(tx: Tx) -> Promoted:
        stored = _proposal(tx, name, wanted)
        if stored.item.status is not Status.PROPOSED:
            earlier = _earlier_promotion(tx, stored, operator, evidence)
            if earlier is None:
                raise _not_promotable(stored)
            return earlier
        _check_promoter(tx, stored.item, operator)
        # Only current items can be closed; superseded history is never read here.
        current = tx.context_items.state_items(name, stored.item.state_key or "", statuses=(Status.CURRENT,))
        key_items = {kept.item.id: kept for kept in current}
        # Decided no earlier than any current item was written: a promotion whose clock reading
        # is older than one that committed first (a concurrent promotion, a retried unit of work,
        # a replica's clock behind another's) still closes that promotion's item, and no interval
        # ends before it starts. (A current item scheduled for later was written before now.)
        at = max([now, *(kept.write_time for kept in current)])
        decided = rules.promote(
            stored.item,
            [kept.item for kept in key_items.values()],
            evidence=evidence,
            operator=operator,
            item_id=new_id(ITEM_PREFIX),
            now=at,
        )
        new = decided.item.id
        tx.context_items.put(
            [
                StoredContextItem(decided.item, at),
                StoredContextItem(decided.proposal, at, run_id=stored.run_id, superseded_by=new),
                *(
                    StoredContextItem(item, at, run_id=key_items[item.id].run_id, superseded_by=new)
                    for item in decided.superseded
                ),
            ]
        )
        superseded = tuple(item.id for item in decided.superseded)
        _audit(tx, caller, "PromoteState", name, stored.item.id, now, promotedItemId=new, superseded=len(superseded))
        return Promoted(decided.item, decided.proposal, superseded)

    promoted = await store.write(work)
    if not promoted.repeated:
        log.info(
            "state_promoted",
            project=name,
            proposal_id=promoted.proposal.id,
            item_id=promoted.item.id,
            superseded=len(promoted.superseded_ids),
            evidence_refs=len(promoted.item.evidence_refs),
        )
    return promoted


async def reject_state(
    store: Store, caller: Caller, *, project: str, proposal_id: str, reason: str, now: int
) -> ContextItem:
    """An operator closes a proposal without promoting it (``rules.reject``). The reason is not
    stored in the item: it goes, redacted, into the audit record of the rejection.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; (CONTEXT_ISOLATION_VIOLATION)
            as ``context_project``.
        InvalidArgument: a bad id; a reason over 1,000 characters (STATE_PROMOTION_INVALID).
        NotFound: (STATE_PROPOSAL_NOT_FOUND) no state item of the project has the id.
        FailedPrecondition: (STATE_PROPOSAL_NOT_PROMOTABLE) it is not a proposal (any more).
    """
    _operator(caller, "rejected")
    name = context_project(caller, project)
    wanted = _proposal_id(proposal_id)
    why = rules.check_reason(reason)

    def work(tx: Tx) -> ContextItem:
        stored = _proposal(tx, name, wanted)
        if stored.item.status is not Status.PROPOSED:
            raise _not_promotable(stored)
        closed = rules.reject(stored.item, now=now)
        tx.context_items.put([StoredContextItem(closed, now, run_id=stored.run_id)])
        _audit(tx, caller, "RejectState", name, closed.id, now, reason=redact(why))
        return closed

    closed = await store.write(work)
    log.info("state_rejected", project=name, proposal_id=closed.id, reason_chars=validation.utf16_length(why))
    return closed


def _audit(tx: Tx, caller: Caller, action: str, project: str, item_id: str, now: int, **facts: object) -> AuditRecord:
    metadata = {key: str(value) for key, value in facts.items() if value != ""}
    return audit.record(tx, caller, action, _target(project, item_id), now=now, metadata=metadata)
