"""Assembling a packet and ranking a recall from the stored pool.

``assemble`` and ``recall`` are what the RPCs call. The brute-force forms read the whole pool of
the project (its items and ``_shared``'s) and hand it to the pure rules
(``kxm_grpc.domain.context.arbiter.arbitrate`` and ``recall.rank_recall``): they are the oracle
the indexed forms are held to, byte for byte.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from kxm_grpc.domain.context.arbiter import Outcome, arbitrate
from kxm_grpc.domain.context.items import ContextItem, Kind
from kxm_grpc.domain.context.recall import RecallHit, rank_recall, recall_corpus
from kxm_grpc.domain.context.request import ContextRequest
from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.store import Tx

_POOL_PAGE = 1_000


def read_pool(tx: Tx, project: str) -> list[ContextItem]:
    """Every item of ``project`` and of ``_shared``, in (project, id) order."""
    items: list[ContextItem] = []
    after: tuple[str, str] | None = None
    while True:
        page = tx.context_items.list_items(project, after=after, limit=_POOL_PAGE)
        items.extend(stored.item for stored in page)
        if len(page) < _POOL_PAGE:
            return items
        after = (page[-1].item.project, page[-1].item.id)


def assemble_brute_force(
    tx: Tx,
    request: ContextRequest,
    *,
    contradiction_ids: Collection[str] = (),
    working_state: Mapping[str, JsonValue] | None = None,
) -> Outcome:
    """The packet of ``request`` over the whole pool read at once (``arbitrate``'s raises)."""
    return arbitrate(
        request, read_pool(tx, request.project), contradiction_ids=contradiction_ids, working_state=working_state
    )


def recall_brute_force(
    tx: Tx, project: str, query: str, *, kinds: Collection[Kind] | None, limit: int
) -> list[RecallHit]:
    """The hits of ``query`` over the whole pool read at once."""
    return rank_recall(query, recall_corpus(read_pool(tx, project), project=project, kinds=kinds), limit=limit)


assemble = assemble_brute_force
recall = recall_brute_force
