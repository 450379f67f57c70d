"""Writing a run's journal: sealing records after its head, the hub's own entries, and the
retrospective written when a run ends, all inside the caller's transaction.

Every record is sealed to its predecessor (``journal_chain.seal``) with the hub's journal keys,
which the transaction carries (``tx.journal_keys``), and appended in the transaction that decides
it: the hub's entries in the transaction of the step they record (``events.publish`` calls
``write_step_entries``), so a crash never leaves a decision without its entry or an entry without
its decision. Each entry's context item (``services.context.pool``) is put by ``append`` too, in
the same transaction. The RPCs over the journal are ``journal``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

import structlog

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.workflows import journal as rules
from kxm_grpc.domain.workflows import journal_chain, journal_hub, reports
from kxm_grpc.domain.workflows.definitions import WorkflowDefinition
from kxm_grpc.domain.workflows.evidence import DegradationApproval
from kxm_grpc.domain.workflows.journal import JournalEntry, JournalRecord, PromotionStatus
from kxm_grpc.domain.workflows.journal_chain import ChainLink
from kxm_grpc.domain.workflows.outcomes import RunEvent
from kxm_grpc.domain.workflows.runs import Run
from kxm_grpc.errors import DataLoss
from kxm_grpc.services.context import pool
from kxm_grpc.store import Tx

log = structlog.get_logger("kxm.workflows")

_ALL_RECORDS = 1_000_000
"""More records than a run's journal can hold: a bound on the whole-journal reads, never reached."""


def keyring(tx: Tx) -> Keyring:
    """The hub's journal keys, as the transaction carries them.

    Raises:
        RuntimeError: the store was never given them (a store used without a hub).
    """
    keys = tx.journal_keys
    if keys is None:
        raise RuntimeError("the store has no journal keys: the hub sets them before it serves")
    return keys


def append(tx: Tx, run: Run, records: Sequence[JournalRecord]) -> tuple[ChainLink, ...]:
    """Seal ``records`` after the run's journal head and append them, in order, and put each
    entry's context item (the automatic pool, ``pool.put_journal_items``)."""
    if not records:
        return ()
    links = journal_chain.seal_all(records, tx.journal.head(run.id), keyring(tx))
    for link in links:
        tx.journal.append(link, project=run.project)
    pool.put_journal_items(tx, run, records)
    return links


def write_step_entries(
    tx: Tx,
    definition: WorkflowDefinition,
    run: Run,
    events: tuple[RunEvent, ...],
    now: int,
    *,
    via_signal: bool = False,
    reported: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """The hub's entries for a step's events (``journal_hub.hub_entries``), and the retrospective
    of a run the step ended, in the step's transaction."""
    entries = journal_hub.hub_entries(
        run, definition, events, via_signal=via_signal, reported=reported, now=now, new_id=new_id
    )
    append(tx, run, entries)
    if run.status.ended and tx.journal.retrospective(run.id) is None:
        write_retrospective(tx, definition, run, now)


def write_approval_entry(
    tx: Tx, definition: WorkflowDefinition, run: Run, approval: DegradationApproval, now: int
) -> None:
    """The hub's entry for an operator's degradation approval, in the approval's transaction."""
    append(tx, run, (journal_hub.approval_entry(run, definition, approval, now=now, new_id=new_id),))


def all_links(tx: Tx, run_id: str) -> list[ChainLink]:
    """The run's whole journal in sequence order."""
    return tx.journal.links(run_id, limit=_ALL_RECORDS)


def promotion_states(links: Iterable[ChainLink]) -> dict[str, PromotionStatus]:
    """Each promotable entry's status, folding the run's links in journal order."""
    return rules.promotion_states(link.record for link in links)


def report_entry(entry: JournalEntry, state: PromotionStatus | None) -> reports.ReportEntry:
    """What the reports read of a stored entry (``state``: its promotion status, if promotable)."""
    return reports.ReportEntry(
        id=entry.id,
        run_id=entry.run_id,
        category=entry.category.value,
        area=entry.area,
        severity=entry.severity.value,
        summary=entry.summary,
        create_time=entry.create_time,
        evidence=entry.evidence,
        related_entry_ids=entry.related_entry_ids,
        stage_id=entry.stage_id,
        attempt=entry.attempt,
        author=entry.author,
        promotion_state=state.value if state is not None else None,
    )


# -- retrospectives -------------------------------------------------------------------------------

MAX_RETROSPECTIVE_BYTES = 768 * 1024
"""The largest retrospective JSON kept: with its message and its Markdown, an export stays well
within gRPC's 4 MiB answer. The oldest entries are left out first (``omittedEntries``)."""


def retrospective_document(tx: Tx, definition: WorkflowDefinition | None, run: Run, now: int) -> dict[str, object]:
    """The retrospective of an ended run as it stands now, with the journal's sealed head (``journal``).

    Raises:
        DataLoss: (STORAGE_CORRUPTED) a record of the run's journal is not a journal record.
    """
    links = all_links(tx, run.id)
    states = promotion_states(links)
    entries = [
        report_entry(link.record, states.get(link.record.id)) for link in links if isinstance(link.record, JournalEntry)
    ]
    document = reports.build_retrospective(run, definition, entries, exported_at=now)
    head = journal_chain.head(links)
    key_id, mac = journal_chain.seal_head(run.id, head, keyring(tx))
    document["journal"] = {
        "records": len(links),
        "headSequence": head.sequence if head is not None else -1,
        "headChain": head.chain if head is not None else "",
        "keyIds": sorted({link.key_id for link in links}),
        "headKeyId": key_id,
        "headMac": mac,
    }
    return _within_budget(document)


def _within_budget(document: dict[str, object]) -> dict[str, object]:
    exported = document["entries"]
    assert isinstance(exported, list)
    size = len(retrospective_json(document).encode())
    omitted = 0
    while size > MAX_RETROSPECTIVE_BYTES and omitted < len(exported):
        # Dropped by the oldest: a halving search would be faster, but one entry is at most ~20 KiB.
        size -= len(json.dumps(exported[omitted], separators=(",", ":"), ensure_ascii=False).encode()) + 1
        omitted += 1
    if omitted:
        document["entries"] = exported[omitted:]
        document["omittedEntries"] = omitted
    return document


def write_retrospective(tx: Tx, definition: WorkflowDefinition, run: Run, now: int) -> None:
    """Keep the retrospective of the run that just ended. A journal with a record that no longer
    decodes gets none (the run still ends; ``VerifyJournal`` reports the record, and an export
    refuses with DATA_LOSS): the decision that ended the run never waits on its journal."""
    try:
        document = retrospective_document(tx, definition, run, now)
    except DataLoss:
        log.error("workflow_retrospective_unwritten", run_id=run.id, reason="journal_undecodable")
        return
    tx.journal.put_retrospective(run.id, project=run.project, document=retrospective_json(document), now=now)


def retrospective_json(document: Mapping[str, object]) -> str:
    """A retrospective's stored and exported text: compact JSON in the document's key order."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)
