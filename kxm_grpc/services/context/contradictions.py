"""Open contradictions: the item ids a packet puts first (§5.5 key 1, §5.10).

Two sources: state keys that contradict themselves (a single-valued key with more than one
current, or more than one proposed, item) and contradiction journal entries a run left open.
"""

from __future__ import annotations

from kxm_grpc.domain.context import state
from kxm_grpc.domain.context.items import Status
from kxm_grpc.store import Tx


def state_contradiction_ids(tx: Tx, project: str) -> frozenset[str]:
    """The ids of the items of every single-valued state key of ``project`` holding more than one
    current, or more than one proposed, item."""
    ids: set[str] = set()
    for key in tx.context_items.crowded_state_keys(project):
        if not state.is_set_valued(key):
            crowded = tx.context_items.state_items(project, key, statuses=(Status.CURRENT, Status.PROPOSED))
            items = [stored.item for stored in crowded]
            ids.update(state.contradiction_ids(key, items))
    return frozenset(ids)


def journal_contradiction_ids(tx: Tx, project: str) -> frozenset[str]:
    """The item ids (``journal_<entry id>``) of the contradiction entries of ``project``'s runs
    that no decision or lesson of their run resolves (``pool.open_journal_contradictions``, which
    says what it costs)."""
    from kxm_grpc.services.context import pool  # here: the state work owns this module's imports

    return pool.open_journal_contradictions(tx, project)


def open_contradiction_ids(tx: Tx, project: str) -> frozenset[str]:
    """Every open contradiction of ``project``'s pool."""
    return state_contradiction_ids(tx, project) | journal_contradiction_ids(tx, project)
