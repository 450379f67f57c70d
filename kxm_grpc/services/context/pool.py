"""The automatic pool: what the hub records about runs becomes context in the same transaction.

``put_journal_items`` is called by ``journal_writes.append``, through which every journal record
goes (an agent's entry, the hub's entries of a step or an approval, a promotion decision, which
adds no item), so an entry and its item commit or roll back together. ``put_peer_evidence`` is
called by the checkpoint and the wait that verify cited replies, after the step is stored. Each
item carries its run id: ``purge_run`` takes it with the run (``workflows.runs.purge``). The
mappings are ``kxm_grpc.domain.context.journal_items``'s. ``open_journal_contradictions`` reads
the contradictions a run left open, for the arbiter (``contradictions.journal_contradiction_ids``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kxm_grpc.domain.context.journal_items import (
    RESOLVING_CATEGORIES,
    journal_item,
    journal_item_id,
    open_contradictions,
    peer_evidence_item,
)
from kxm_grpc.domain.workflows.evidence import PeerEvidence
from kxm_grpc.domain.workflows.journal import Category, JournalEntry, JournalRecord
from kxm_grpc.domain.workflows.journal_chain import ChainLink
from kxm_grpc.domain.workflows.runs import Run
from kxm_grpc.store import Tx
from kxm_grpc.store.protocols.context_items import StoredContextItem


def put_journal_items(tx: Tx, run: Run, records: Iterable[JournalRecord]) -> int:
    """Put the item of every entry among ``records`` (journal records of ``run``), written at the
    entry's create time; how many."""
    items = [
        StoredContextItem(journal_item(record, project=run.project), record.create_time, run_id=run.id)
        for record in records
        if isinstance(record, JournalEntry)
    ]
    if items:
        tx.context_items.put(items)
    return len(items)


def put_peer_evidence(tx: Tx, run: Run, verified: Mapping[str, Sequence[PeerEvidence]], *, now: int) -> int:
    """Put the item of every verified reply in ``verified`` (by requirement key) that has none yet
    (a reply cited again keeps its first verification, as the stage's snapshots do); how many."""
    snapshots = {snapshot.message_id: snapshot for group in verified.values() for snapshot in group}
    if not snapshots:
        return 0
    items = {
        item.id: item for item in (peer_evidence_item(snapshot, project=run.project) for snapshot in snapshots.values())
    }
    known = {stored.item.id for stored in tx.context_items.get(run.project, items)}
    fresh = [StoredContextItem(item, now, run_id=run.id) for item_id, item in items.items() if item_id not in known]
    if fresh:
        tx.context_items.put(fresh)
    return len(fresh)


def open_journal_contradictions(tx: Tx, project: str) -> frozenset[str]:
    """The item ids (``journal_<entry id>``) of the contradiction entries of ``project``'s runs
    that no decision or lesson of their run relates to (``journal_items.open_contradictions``).

    What it costs: one read of the project's entries through the journal's (project, create
    time) index keeping the contradictions (the category is a column: the other entries are
    skipped, never decoded), then, for each run holding one, that run's decisions and lessons
    through the primary key (run id, sequence). Runs without a contradiction are not read again,
    and only retained runs are there (``--workflow-retention``).
    """
    contradictions = _entries(tx.journal.recent(project=project, categories=(_CONTRADICTION,), limit=_ALL))
    if not contradictions:
        return frozenset()
    resolvers: list[JournalEntry] = []
    for run_id in sorted({entry.run_id for entry in contradictions}):
        resolvers += _entries(tx.journal.run_entries(run_id, categories=_RESOLVING, limit=_ALL))
    return frozenset(journal_item_id(entry.id) for entry in open_contradictions([*contradictions, *resolvers]))


_ALL = 1_000_000
"""More entries than a project's retained runs hold: a bound on the reads, never reached."""
_CONTRADICTION = Category.CONTRADICTION.value
_RESOLVING = tuple(category.value for category in RESOLVING_CATEGORIES)


def _entries(links: list[ChainLink]) -> list[JournalEntry]:
    return [link.record for link in links if isinstance(link.record, JournalEntry)]
