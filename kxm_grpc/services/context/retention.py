"""Context retention (§11.19): superseded and rejected items go after a horizon, state history after its own.

An item that ended — superseded or rejected, at its ``valid_until`` or else when that version
was written — is kept for ``--context-retention`` (default 7 days, the original's fixed period),
except state items, whose history ``GetState``'s as-of reads walk, kept for
``--context-state-retention`` (default 30 days). Current and proposed items are never purged
here, nor are items without a status; a run's items go with the run (``workflows.runs.purge``).
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kxm_grpc.domain.context.items import Kind
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.context")

_NOT_STATE = tuple(kind for kind in Kind if kind is not Kind.STATE)


@dataclass(frozen=True, slots=True)
class Purged:
    """How many ended items one purge removed."""

    items: int
    """Superseded or rejected items of every kind but state."""
    state: int
    """Superseded or rejected state items (state history)."""


PURGE_BATCH = 500
"""Items one transaction of a purge deletes at most: a backlog (or a shortened horizon) is purged
in many short transactions, so other writes are never queued behind one long delete."""


async def purge(store: Store, *, now: int, retention: int, state_retention: int) -> Purged:
    """Delete the items that ended more than ``retention`` ago (state items: ``state_retention``),
    ``PURGE_BATCH`` per transaction, until none is left."""

    def batch(tx: Tx) -> Purged:
        items = tx.context_items.purge_superseded(ended_before=now - retention, kinds=_NOT_STATE, limit=PURGE_BATCH)
        state = tx.context_items.purge_superseded(
            ended_before=now - state_retention, kinds=(Kind.STATE,), limit=PURGE_BATCH
        )
        return Purged(items, state)

    purged = Purged(0, 0)
    while True:
        done = await store.write(batch)
        purged = Purged(purged.items + done.items, purged.state + done.state)
        if done.items < PURGE_BATCH and done.state < PURGE_BATCH:
            break
    if purged.items or purged.state:
        log.info("context_items_purged", items=purged.items, state=purged.state)
    return purged
