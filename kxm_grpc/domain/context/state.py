"""Temporal state: what a state key held at an instant, proposals and their promotion (spec §5.9).

A state key's value is a ``state`` item. Its items form the key's history:

- an item is *active* at T when its status is ``current`` or ``superseded`` and
  ``valid_from ≤ T < valid_until`` (a missing bound is −∞ or +∞): the intervals are half-open, so
  the item a promotion closes at T and the one it mints at T never overlap;
- a key ending with ``[]`` is *set-valued* (its current members are read together, ``set_at``);
  any other is *single-valued* (``value_at``: one current item, else more than one is a
  contradiction);
- a *proposal* (status ``proposed``) is never current truth: only its promotion by an operator
  other than its proposer mints a new ``current`` item, closing the proposal (``rejected``) and,
  for a single-valued key, every current item active then (``superseded``), all at one instant.

Pure rules over plain items; the caller reads the key's items, supplies the clock's ``now``, the
ids and the origin of the write, and stores what these return in one unit of work.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from kxm_grpc.domain.context.items import (
    MAX_EVIDENCE_REF_CHARS,
    MAX_ID_CHARS,
    MAX_ID_REFS,
    MAX_STATE_KEY_CHARS,
    MAX_SUMMARY_CHARS,
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    SourceType,
    Status,
    check_item,
    check_text,
)
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.errors import FailedPrecondition, FieldViolation, InvalidArgument, Reason, invalid_field

SET_SUFFIX = "[]"
"""A state key ending with this is set-valued: it holds several current members at once."""
MIN_EVIDENCE = 1
MAX_EVIDENCE = 32
"""Evidence refs a proposal or a promotion carries: 1 to 32 (``state_promotion_invalid``)."""
MAX_REASON_CHARS = 1_000
"""A rejection's reason (audit only)."""
PROPOSED_BY = "proposed-by:"
PROMOTED_BY = "promoted-by:"
"""The ``sourceRef`` prefixes naming a proposal's proposer and a promoted item's operator."""


def is_set_valued(state_key: str) -> bool:
    """True for a set-valued key (one ending with ``[]``)."""
    return state_key.endswith(SET_SUFFIX)


def check_state_key(value: str, *, field: str = "state_key") -> str:
    """Return the key trimmed: 1 to 200 characters (UTF-16 code units), not ``[]`` alone.

    Raises:
        InvalidArgument: (INVALID_STATE_REQUEST) naming ``field``.
    """
    key = check_text(field, value, MAX_STATE_KEY_CHARS, reason=Reason.INVALID_STATE_REQUEST)
    if key == SET_SUFFIX:
        raise invalid_field(field, "a set-valued key needs a name before []", reason=Reason.INVALID_STATE_REQUEST)
    return key


def check_single_valued(state_key: str) -> None:
    """Raises InvalidArgument (STATE_KEY_SET_VALUED) for a set-valued key."""
    if is_set_valued(state_key):
        raise InvalidArgument(
            f"state key {state_key!r} is set-valued (it ends with []): list its members with ListStateSet",
            reason=Reason.STATE_KEY_SET_VALUED,
            metadata={"field": "state_key", "stateKey": state_key},
            field_violations=(FieldViolation("state_key", "names a set-valued key"),),
        )


def check_set_valued(state_key: str) -> None:
    """Raises InvalidArgument (STATE_KEY_SINGLE_VALUED) for a single-valued key."""
    if not is_set_valued(state_key):
        raise InvalidArgument(
            f"state key {state_key!r} is single-valued (it does not end with []): read it with GetState",
            reason=Reason.STATE_KEY_SINGLE_VALUED,
            metadata={"field": "state_key", "stateKey": state_key},
            field_violations=(FieldViolation("state_key", "names a single-valued key"),),
        )


def check_refs(
    field: str,
    values: Sequence[str],
    *,
    minimum: int,
    most: int,
    max_chars: int,
    count_reason: Reason = Reason.INVALID_STATE_REQUEST,
    element_reason: Reason = Reason.INVALID_STATE_REQUEST,
) -> tuple[str, ...]:
    """Return the refs trimmed: ``minimum`` to ``most`` of them (else ``count_reason``), each 1 to
    ``max_chars`` characters and none twice (else ``element_reason``).

    Raises:
        InvalidArgument: naming ``field``.
    """
    if not minimum <= len(values) <= most:
        raise InvalidArgument(
            f"{field}: must hold {minimum} to {most} ids (it holds {len(values)})",
            reason=count_reason,
            metadata={"field": field, "count": str(len(values))},
            field_violations=(FieldViolation(field, f"must hold {minimum} to {most} ids"),),
        )
    refs: list[str] = []
    for value in values:
        ref = check_text(field, value, max_chars, reason=element_reason)
        if ref in refs:
            raise invalid_field(field, f"holds {ref!r} twice", reason=element_reason)
        refs.append(ref)
    return tuple(refs)


def check_evidence(values: Sequence[str]) -> tuple[str, ...]:
    """1 to 32 non-empty, distinct evidence refs, else ``state_promotion_invalid`` (§5.9; see ``check_refs``)."""
    return check_refs(
        "evidence_refs",
        values,
        minimum=MIN_EVIDENCE,
        most=MAX_EVIDENCE,
        max_chars=MAX_EVIDENCE_REF_CHARS,
        count_reason=Reason.STATE_PROMOTION_INVALID,
        element_reason=Reason.STATE_PROMOTION_INVALID,
    )


def check_reason(value: str) -> str:
    """A rejection's reason trimmed, at most 1,000 characters (may be empty).

    Raises:
        InvalidArgument: (STATE_PROMOTION_INVALID) naming ``reason``.
    """
    if not value.strip():
        return ""
    return check_text("reason", value, MAX_REASON_CHARS, reason=Reason.STATE_PROMOTION_INVALID)


# -- reading ------------------------------------------------------------------------------------------


def is_active(item: ContextItem, at: int) -> bool:
    """True when ``item`` held at ``at``: current or superseded, ``valid_from ≤ at < valid_until``."""
    if item.status not in (Status.CURRENT, Status.SUPERSEDED):
        return False
    return (item.valid_from is None or item.valid_from <= at) and (item.valid_until is None or at < item.valid_until)


def _start(item: ContextItem) -> int:
    return item.valid_from if item.valid_from is not None else -(1 << 63)


def value_at(state_key: str, items: Iterable[ContextItem], at: int) -> ContextItem | None:
    """What a single-valued key held at ``at``: its one current active item, else the active item
    that started last (then the greatest id), else None.

    Raises:
        FailedPrecondition: (STATE_CONTRADICTION) more than one current item was active
            (metadata: stateKey, competingCurrentIds, comma-separated by id).
    """
    active = [item for item in items if is_active(item, at)]
    current = sorted((item for item in active if item.status is Status.CURRENT), key=lambda i: code_unit_key(i.id))
    if len(current) > 1:
        ids = [item.id for item in current]
        raise FailedPrecondition(
            f"state key {state_key!r} has {len(ids)} current items: an operator promotes or rejects to resolve it",
            reason=Reason.STATE_CONTRADICTION,
            metadata={"stateKey": state_key, "competingCurrentIds": ",".join(ids)},
        )
    if current:
        return current[0]
    if not active:
        return None
    return max(active, key=lambda item: (_start(item), code_unit_key(item.id)))


def set_at(items: Iterable[ContextItem], at: int) -> list[ContextItem]:
    """A set-valued key's members at ``at``: its items active then (current then; a member
    superseded since counts for the instants before its end, as a single-valued key's value
    does), by id. At now, these are the current items active now."""
    return sorted((item for item in items if is_active(item, at)), key=lambda item: code_unit_key(item.id))


def history(items: Iterable[ContextItem]) -> list[ContextItem]:
    """Every item of a key (proposals and closed ones too), by ``valid_from`` (none first), then id."""
    return sorted(items, key=lambda item: (_start(item), code_unit_key(item.id)))


def contradiction_ids(state_key: str, items: Iterable[ContextItem]) -> list[str]:
    """The competing items of a single-valued key with more than one current, or more than one
    proposed, item (all of its current items and all of its proposals then), by id; none for a
    set-valued key or an uncontested one."""
    if is_set_valued(state_key):
        return []
    listed = list(items)
    current = [item.id for item in listed if item.status is Status.CURRENT]
    proposed = [item.id for item in listed if item.status is Status.PROPOSED]
    return sorted(current + proposed, key=code_unit_key) if len(current) > 1 or len(proposed) > 1 else []


# -- proposing ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """A proposed change of a state key, as the proposer asks it (checked by ``proposal``)."""

    state_key: str
    summary: str
    evidence_refs: Sequence[str]
    authority: Authority | None = None
    """None: ``evidence``."""
    confidence: Confidence | None = None
    """None: ``probable``."""
    supersedes: Sequence[str] = ()


def proposal(project: str, change: Change, *, item_id: str, proposer: str, origin: SourceType, now: int) -> ContextItem:
    """The ``proposed`` state item of ``change``: valid from ``now``, its source the write's origin
    (from the credential, never a label), ``sourceRef`` ``proposed-by:<proposer>``.

    Raises:
        InvalidArgument: a bad key (INVALID_STATE_REQUEST), evidence count (STATE_PROMOTION_INVALID),
            ref or summary (INVALID_STATE_REQUEST / INVALID_CONTEXT_FIELD), each naming its field.
        PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION) an authority above the origin's.
    """
    key = check_state_key(change.state_key)
    evidence = check_evidence(change.evidence_refs)
    # A single-valued key's promotion adds the current item it closes to ``supersedes``: leave it
    # room, or the proposal could never be promoted (an item holds at most 64 refs).
    most = MAX_ID_REFS if is_set_valued(key) else MAX_ID_REFS - 1
    supersedes = check_refs(
        "supersedes",
        change.supersedes,
        minimum=0,
        most=most,
        max_chars=MAX_ID_CHARS,
        count_reason=Reason.CONTEXT_LIMITS_EXCEEDED,
    )
    check_text("summary", change.summary, MAX_SUMMARY_CHARS, reason=Reason.INVALID_CONTEXT_ITEM)
    item = ContextItem(
        id=item_id,
        kind=Kind.STATE,
        project=project,
        summary=change.summary,
        provenance=Provenance(origin, PROPOSED_BY + proposer),
        authority=change.authority or Authority.EVIDENCE,
        confidence=change.confidence or Confidence.PROBABLE,
        status=Status.PROPOSED,
        state_key=key,
        valid_from=now,
        supersedes=supersedes,
        evidence_refs=evidence,
    )
    return check_item(item, origin=origin)


def same_change(stored: ContextItem, asked: ContextItem) -> bool:
    """True when ``asked`` (a retry's checked proposal) asks what ``stored`` was made of, whatever
    became of it since (its status, validity and time are not compared)."""
    return replace(stored, status=None, valid_from=None, valid_until=None) == replace(
        asked, status=None, valid_from=None, valid_until=None
    )


def proposer_of(item: ContextItem) -> str | None:
    """Who proposed a proposal (its ``proposed-by:`` source ref), or None."""
    ref = item.provenance.source_ref or ""
    return ref[len(PROPOSED_BY) :] if ref.startswith(PROPOSED_BY) else None


# -- deciding -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Promotion:
    """What a promotion writes: the new current item, the proposal closed, the items it superseded."""

    item: ContextItem
    proposal: ContextItem
    superseded: tuple[ContextItem, ...]


def promotion_evidence(item: ContextItem, evidence: Iterable[str]) -> tuple[str, ...]:
    """The proposal's evidence refs and the promotion's, deduplicated, by code unit."""
    return tuple(sorted({*item.evidence_refs, *evidence}, key=code_unit_key))


def promote(
    proposed: ContextItem,
    key_items: Iterable[ContextItem],
    *,
    evidence: Sequence[str],
    operator: str,
    item_id: str,
    now: int,
) -> Promotion:
    """Promote ``proposed`` (a ``proposed`` state item) at ``now``, ``key_items`` being its key's items.

    The new item (``item_id``) is ``current`` from ``now`` with the proposal's text, authority,
    confidence and origin, ``sourceRef`` ``promoted-by:<operator>``, evidence the union of both,
    ``supersedes`` the proposal's and every item it closes. It closes, at ``now``: every current
    item of a single-valued key active then; for a set-valued key, the current members active then
    that the proposal names in its ``supersedes`` (so a set can lose a member).

    Raises:
        InvalidArgument: (STATE_PROMOTION_INVALID) bad evidence; as ``check_item``.
    """
    refs = check_evidence(evidence)
    key = proposed.state_key or ""
    members = set(proposed.supersedes)
    closing = [
        item
        for item in key_items
        if item.status is Status.CURRENT
        and is_active(item, now)
        and item.id != proposed.id
        and (not is_set_valued(key) or item.id in members)
    ]
    closed_ids = {item.id for item in closing}
    minted = ContextItem(
        id=item_id,
        kind=Kind.STATE,
        project=proposed.project,
        summary=proposed.summary,
        provenance=Provenance(
            proposed.provenance.source_type, PROMOTED_BY + operator, proposed.provenance.derived_from
        ),
        authority=proposed.authority,
        confidence=proposed.confidence,
        scope=proposed.scope,
        status=Status.CURRENT,
        state_key=key,
        observed_at=proposed.observed_at,
        valid_from=now,
        supersedes=tuple(sorted(members | closed_ids, key=code_unit_key)),
        evidence_refs=promotion_evidence(proposed, refs),
    )
    minted = check_item(minted, origin=SourceType.HUMAN)
    return Promotion(
        item=minted,
        proposal=replace(proposed, status=Status.REJECTED, valid_until=now),
        superseded=tuple(
            replace(item, status=Status.SUPERSEDED, valid_until=now)
            for item in sorted(closing, key=lambda i: code_unit_key(i.id))
        ),
    )


def reject(proposed: ContextItem, *, now: int) -> ContextItem:
    """``proposed`` closed without promotion: ``rejected``, valid until ``now``."""
    return replace(proposed, status=Status.REJECTED, valid_until=now)
