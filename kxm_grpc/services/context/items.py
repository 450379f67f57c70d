"""Context items through the API: PutItems, DeleteItems and ExplainItem (spec §5.1, §5.10).

A put checks every item (``items.check_item``) with the origin its caller's credential grants
(``scope.origin``: an operator writes as ``human``, anyone else as ``peer``) and stores the batch
in one transaction, or nothing; it never replaces an item its origin could not have written. An
item's empty project is the request's; it may name only that project or, for an operator,
``_shared``. Delete is an operator's; explain is metadata only.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context.items import (
    GRANT_FLOOR,
    MAX_ID_CHARS,
    SHARED_PROJECT,
    ContextItem,
    Kind,
    SourceType,
    check_item,
    check_text,
)
from kxm_grpc.domain.context.journal_items import reserved_item_id
from kxm_grpc.domain.context.memory import MEMORY_ITEM_PREFIX
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.validation import js_trim
from kxm_grpc.errors import FieldViolation, HubError, InvalidArgument, PermissionDenied, Reason, invalid_field
from kxm_grpc.services.context import scope
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.context_items import StoredContextItem

log = structlog.get_logger("kxm.context")

MAX_BATCH = 256
"""Items of one PutItems, and ids of one DeleteItems."""
MAX_EXPLAINED = 1_024
"""Ancestors an explanation walks at most: an item's own lineage is at most 64 ids, but a put can
chain items without bound, and an explanation reads each ancestor once."""


@contextlib.contextmanager
def at_index(index: int) -> Iterator[None]:
    """Add ``index`` (of the item in its batch) to the metadata of any HubError raised inside."""
    try:
        yield
    except HubError as error:
        error.metadata.setdefault("index", str(index))
        raise


def _batch_size(field: str, count: int) -> None:
    if not 1 <= count <= MAX_BATCH:
        description = f"between 1 and {MAX_BATCH} are required, not {count}"
        raise InvalidArgument(
            f"{field}: {description}",
            reason=Reason.CONTEXT_LIMITS_EXCEEDED,
            metadata={"field": field, "limit": str(MAX_BATCH)},
            field_violations=(FieldViolation(field, description),),
        )


def _item_project(item: ContextItem, home: str) -> ContextItem:
    """The item with its project filled in (empty: ``home``), refusing a third project.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) the item names a project other than
            ``home`` and ``_shared`` (``_shared`` needs an operator: ``check_item`` refuses it).
    """
    named = js_trim(item.project)
    if not named:
        return replace(item, project=home)
    if named not in (home, SHARED_PROJECT):
        raise PermissionDenied(
            f"a context item of project {home!r} may not name project {named!r}",
            reason=Reason.CONTEXT_ISOLATION_VIOLATION,
            metadata={"project": home, "itemProject": named},
        )
    return item


def checked_items(caller: Caller, project: str, items: Sequence[ContextItem]) -> list[ContextItem]:
    """The batch as it will be stored: projects filled in, every rule of §5.1 applied.

    Raises:
        InvalidArgument: (CONTEXT_LIMITS_EXCEEDED) no items or more than 256; an item breaking a
            rule (metadata ``index``, ``field``); one (project, id) twice (INVALID_CONTEXT_ITEM).
        PermissionDenied: as ``scope.context_project``; as ``check_item`` (authority, ``_shared``
            without an operator); an item of another project (CONTEXT_ISOLATION_VIOLATION).
    """
    home = scope.context_project(caller, project)
    _batch_size("items", len(items))
    origin = scope.origin(caller)
    seen: set[tuple[str, str]] = set()
    checked: list[ContextItem] = []
    for index, item in enumerate(items):
        with at_index(index):
            _refuse_hub_owned(item, operator=caller.is_operator)
            stored = check_item(_item_project(item, home), origin=origin)
            key = (stored.project, stored.id)
            if key in seen:
                raise invalid_field(
                    "id", f"names item {stored.id} twice in one batch", reason=Reason.INVALID_CONTEXT_ITEM
                )
            seen.add(key)
            checked.append(stored)
    return checked


async def put(
    store: Store, caller: Caller, project: str, items: Sequence[ContextItem], *, now: int
) -> list[ContextItem]:
    """Store a batch of items (insert or replace by (project, id)) in one transaction; the items as
    stored, in request order.

    Raises:
        InvalidArgument, PermissionDenied: as ``checked_items``; nothing is stored.
        PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION, metadata ``index``) an item would replace
            one whose source type the caller's origin could not have written.
    """
    home = scope.context_project(caller, project)
    checked = checked_items(caller, home, items)
    origin = scope.origin(caller)

    def work(tx: Tx) -> None:
        _refuse_outranked_replacements(tx, checked, origin)
        tx.context_items.put([StoredContextItem(item, write_time=now) for item in checked])

    await store.write(work)
    shared = sum(1 for item in checked if item.project == SHARED_PROJECT)
    log.info("context_items_put", project=home, items=len(checked), shared=shared)
    return checked


def _refuse_hub_owned(item: ContextItem, *, operator: bool) -> None:
    """Refuse what only the hub or an operator writes: ids of the automatic pool (``journal_…``,
    ``peer_…``: the hub's items of journal entries and verified evidence), of promoted skills
    (``skill_…``) and of memory records (``mem_…``: written only by SyncMemory, which keeps the
    project's memory whole), for everyone; state items
    for anyone but an operator (state changes go through ProposeState and an operator's promotion,
    §5.9: a put could otherwise make an agent's value current truth).

    Raises:
        PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION, metadata ``field``).
    """
    item_id = js_trim(item.id)  # as check_item will store it
    if reserved_item_id(item_id) or item_id.startswith(MEMORY_ITEM_PREFIX):
        raise PermissionDenied(
            f"item ids starting journal_, peer_, skill_ or mem_ are the hub's own (its journal, verified "
            f"evidence, promoted skills and memory records, which SyncMemory writes): choose another id than "
            f"{item.id}",
            reason=Reason.CONTEXT_AUTHORITY_VIOLATION,
            metadata={"field": "id", "itemId": item.id},
        )
    if item.kind is Kind.STATE and not operator:
        raise PermissionDenied(
            "state changes are proposed (ProposeState) and promoted by an operator, not put",
            reason=Reason.CONTEXT_AUTHORITY_VIOLATION,
            metadata={"field": "kind", "itemId": item.id, "nextAction": "ProposeState"},
        )


def _refuse_outranked_replacements(tx: Tx, batch: Sequence[ContextItem], origin: SourceType) -> None:
    """Refuse replacing a stored item whose source type's grant floor is above ``origin``'s: an
    agent's evidence never overwrites an operator's instruction or the hub's own item by reusing
    its id (it would delete what it could not have written).

    Raises:
        PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION, metadata ``index``, ``itemId``).
    """
    position = {(item.project, item.id): index for index, item in enumerate(batch)}
    for owner in sorted({item.project for item in batch}):
        wanted = [item.id for item in batch if item.project == owner]
        for stored in tx.context_items.get(owner, wanted):
            source = stored.item.provenance.source_type
            # A state item or a decided one (superseded by a promotion) is history only an operator
            # rewrites, whatever its source type (a promoted agent proposal stays ``peer``).
            decided = stored.item.kind is Kind.STATE or stored.superseded_by is not None
            if GRANT_FLOOR[source].rank > GRANT_FLOOR[origin].rank or (decided and origin is not SourceType.HUMAN):
                raise PermissionDenied(
                    f"a {origin.value} origin cannot replace item {stored.item.id} of source type {source.value}",
                    reason=Reason.CONTEXT_AUTHORITY_VIOLATION,
                    metadata={"index": str(position[(owner, stored.item.id)]), "itemId": stored.item.id},
                )


def _item_ids(field: str, item_ids: Sequence[str]) -> list[str]:
    return [check_text(field, item_id, MAX_ID_CHARS, reason=Reason.INVALID_CONTEXT_REQUEST) for item_id in item_ids]


async def delete(store: Store, caller: Caller, project: str, item_ids: Sequence[str], *, shared: bool) -> int:
    """Delete the project's items (``_shared``'s with ``shared``) among ``item_ids`` and their index
    entries; how many there were (unknown ids are no error).

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; as ``scope.context_project``.
        InvalidArgument: (CONTEXT_LIMITS_EXCEEDED) no id or more than 256; (INVALID_CONTEXT_REQUEST)
            an empty or over-long id.
    """
    if not caller.is_operator:
        raise PermissionDenied("only an operator deletes context items", reason=Reason.CREDENTIAL_KIND_DENIED)
    home = scope.context_project(caller, project)
    _batch_size("itemIds", len(item_ids))
    ids = _item_ids("itemIds", item_ids)
    target = SHARED_PROJECT if shared else home
    deleted = await store.write(lambda tx: tx.context_items.delete(target, ids))
    log.info("context_items_deleted", project=target, asked=len(ids), deleted=deleted, operator=caller.operator)
    return deleted


@dataclass(frozen=True, slots=True)
class Explanation:
    """Where an item came from (§5.10): metadata only."""

    found: bool
    lineage: tuple[str, ...] = ()
    """Every ancestor id reachable through ``derivedFrom``, by UTF-16 code unit."""
    evidence_refs: tuple[str, ...] = ()
    sources: tuple[ContextItem, ...] = ()
    """The item, then each ancestor present in the pool, in lineage order (callers show only
    their provenance)."""


def _pool_item(tx: Tx, project: str, item_id: str) -> ContextItem | None:
    """The project's item with this id, else ``_shared``'s (a project item shadows a default)."""
    for owner in (project, SHARED_PROJECT):
        found = tx.context_items.get(owner, [item_id])
        if found:
            return found[0].item
    return None


async def explain(store: Store, caller: Caller, project: str, item_id: str) -> Explanation:
    """The lineage, evidence refs and sources of an item of the project's pool; found = false for
    an unknown id.

    Raises:
        PermissionDenied: as ``scope.context_project``.
        InvalidArgument: (INVALID_CONTEXT_REQUEST, ``itemId``) an empty or over-long id.
    """
    home = scope.context_project(caller, project)
    wanted = check_text("itemId", item_id, MAX_ID_CHARS, reason=Reason.INVALID_CONTEXT_REQUEST)

    def work(tx: Tx) -> Explanation:
        item = _pool_item(tx, home, wanted)
        if item is None:
            return Explanation(found=False)
        ancestors: dict[str, ContextItem | None] = {}
        queue = deque(item.provenance.derived_from)
        while queue and len(ancestors) < MAX_EXPLAINED:
            ancestor_id = queue.popleft()
            if ancestor_id in ancestors or ancestor_id == item.id:
                continue
            ancestor = _pool_item(tx, home, ancestor_id)
            ancestors[ancestor_id] = ancestor
            if ancestor is not None:
                queue.extend(ancestor.provenance.derived_from)
        lineage = tuple(sorted(ancestors, key=lambda key: (code_unit_key(key), key)))
        present = tuple(found for key in lineage if (found := ancestors[key]) is not None)
        return Explanation(True, lineage, item.evidence_refs, (item, *present))

    explained = await store.read(work)
    log.info(
        "context_item_explained", project=home, item_id=wanted, found=explained.found, lineage=len(explained.lineage)
    )
    return explained
