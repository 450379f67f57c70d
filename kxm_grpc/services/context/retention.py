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


async def purge(store: Store, *, now: int, retention: int, state_retention: int) -> Purged:
    """Delete the items that ended more than ``retention`` ago (state items: ``state_retention``),
    in one transaction."""

    def work(tx: Tx) -> Purged:
        return Purged(
            items=tx.context_items.purge_superseded(ended_before=now - retention, kinds=_NOT_STATE),
            state=tx.context_items.purge_superseded(ended_before=now - state_retention, kinds=(Kind.STATE,)),
        )

    purged = await store.write(work)
    if purged.items or purged.state:
        log.info("context_items_purged", items=purged.items, state=purged.state)
    return purged
