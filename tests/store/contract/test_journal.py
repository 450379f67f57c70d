"""Contract: the learning journal (each workflow run's records as chain links, and the cross-run reports)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.workflows import journal_chain
from kxm_grpc.domain.workflows.journal import (
    Category,
    JournalEntry,
    JournalRecord,
    Promotion,
    PromotionStatus,
    Severity,
    promotion_status,
    record_json,
)
from kxm_grpc.domain.workflows.journal_chain import Breach, ChainLink, Problem
from kxm_grpc.domain.workflows.runs import Run, StageState, StageStatus
from kxm_grpc.errors import DataLoss, HubError, Reason
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.rows.journal import (
    WORKFLOW_JOURNAL,
    link_from_row,
    link_values,
    record_from_json,
    record_to_json,
)
from tests.store.contract.conftest import StoreFactory, full_entry, full_promotion

KEYS = Keyring({"k1": b"1" * 32}, current="k1")
PROJECT = "p1"


def _entry(
    entry_id: str,
    *,
    run_id: str = "wfr_1",
    category: Category = Category.OBSERVATION,
    area: str = "gates",
    create_time: int = 10,
    **fields: Any,
) -> JournalEntry:
    made = JournalEntry(
        id=entry_id,
        run_id=run_id,
        author="agt_a",
        category=category,
        area=area,
        severity=Severity.INFO,
        summary=f"summary of {entry_id}",
        create_time=create_time,
    )
    return dataclasses.replace(made, **fields)


def _promotion(promotion_id: str, of: JournalEntry, *, to: PromotionStatus, decide_time: int = 50) -> Promotion:
    return Promotion(
        id=promotion_id,
        run_id=of.run_id,
        entry_id=of.id,
        from_status=PromotionStatus.PROPOSED,
        to_status=to,
        evidence_refs=("ci run 7",),
        decided_by="ops",
        reason="measured",
        decide_time=decide_time,
    )


def _sealed(records: Sequence[JournalRecord], previous: ChainLink | None = None) -> list[ChainLink]:
    return list(journal_chain.seal_all(records, previous, KEYS))


def _append_all(links: Sequence[ChainLink]) -> Callable[[Tx], None]:
    def work(tx: Tx) -> None:
        for link in links:
            tx.journal.append(link, project=PROJECT)

    return work


def _record_after_head(item: JournalRecord) -> Callable[[Tx], ChainLink]:
    """What the service does: seal the record after the run's head and append it, in one transaction."""

    def work(tx: Tx) -> ChainLink:
        link = journal_chain.seal(item, tx.journal.head(item.run_id), KEYS)
        tx.journal.append(link, project=PROJECT)
        return link

    return work


def _all_links(run_id: str) -> Callable[[Tx], list[ChainLink]]:
    return lambda tx: tx.journal.links(run_id, limit=1_000)


def _tamper(sql: str, *params: object) -> Callable[[Tx], object]:
    """A unit of work changing a stored row behind the store's back (as a foreign tool would)."""
    return lambda tx: tx.journal._conn.execute(sql, params)  # type: ignore[attr-defined]


def _run(run_id: str) -> Run:
    return Run(
        id=run_id,
        definition_id="wf_a",
        definition_hash="h1",
        project="p",
        coordinator_id="agt_a",
        coordinator_name="alice",
        delivery_id=f"dlv_{run_id}",
        payload_sha256="0" * 64,
        prompt_message_id="msg_prompt",
        stages=[StageState("plan", StageStatus.IN_PROGRESS, visit=1, visit_start_time=1)],
        policies={},
        create_time=1,
        update_time=1,
        current_stage="plan",
    )


# -- the record's JSON (pure) ---------------------------------------------------------------------


def test_a_record_round_trips_through_its_json_and_its_row_with_every_field() -> None:
    """record_from_json(record_to_json(r)) == r for an entry and a promotion record with every field
    set; the text is ASCII JSON holding record_json(r); a row of link_values decodes to the link."""
    # Prepare
    records: list[JournalRecord] = [full_entry(), full_promotion()]
    links = _sealed(records)

    # Execute
    texts = [record_to_json(item) for item in records]
    decoded = [record_from_json(text) for text in texts]
    rows = [link_values(link, PROJECT) for link in links]
    from_rows = [link_from_row(row) for row in rows]

    # Assert
    assert decoded == records
    assert isinstance(decoded[0], JournalEntry) and isinstance(decoded[0].evidence, tuple)
    assert all(
        text.isascii() and json.loads(text) == record_json(item) for text, item in zip(texts, records, strict=True)
    )
    assert from_rows == links
    columns = [dict(zip(WORKFLOW_JOURNAL.names, row, strict=True)) for row in rows]
    assert [
        (c["kind"], c["record_id"], c["entry_id"], c["category"], c["area"], c["create_time"]) for c in columns
    ] == [
        ("entry", "journal_full", "journal_full", "skill-candidate", "harness", 1_700_000_000_000_001),
        ("promotion", "promotion_full", "journal_full", "", "", 1_700_000_000_000_002),
    ]
    assert [(c["run_id"], c["sequence"], c["key_id"], c["chain"]) for c in columns] == [
        ("wfr_full", link.sequence, "k1", link.chain) for link in links
    ]


def test_an_entry_without_its_optional_fields_round_trips() -> None:
    """None for the stage and attempt, empty evidence and relations decode as they were."""
    bare = _entry("journal_bare")

    assert record_from_json(record_to_json(bare)) == bare


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: d.pop("summary"), id="missing"),
        pytest.param(lambda d: d.update(extra=1), id="extra"),
        pytest.param(lambda d: d.update(schema="kxm.journal-entry.v9"), id="schema"),
        pytest.param(lambda d: d.update(category="gossip"), id="category"),
        pytest.param(lambda d: d.update(severity="fatal"), id="severity"),
        pytest.param(lambda d: d.update(attempt=True), id="bool-attempt"),
        pytest.param(lambda d: d.update(createTime=1.5), id="float-time"),
        pytest.param(lambda d: d.update(evidence="abc"), id="text-evidence"),
        pytest.param(lambda d: d.update(evidence=[1]), id="number-evidence"),
        pytest.param(lambda d: d.update(stageId=3), id="number-stage"),
        pytest.param(lambda d: d.update(summary=None), id="null-summary"),
    ],
)
def test_a_text_that_is_not_exactly_a_records_json_is_refused(change: Callable[[dict[str, Any]], object]) -> None:
    """A missing, extra or mistyped field, or an unknown schema or value: ValueError, never a guess."""
    data = record_json(full_entry())
    change(data)

    with pytest.raises(ValueError):
        record_from_json(json.dumps(data))


def test_a_promotion_with_an_unknown_status_or_a_non_object_is_refused() -> None:
    data = record_json(full_promotion())
    data["to"] = "promoted"

    for text in (json.dumps(data), "[]", "not json", '"text"'):
        with pytest.raises(ValueError):
            record_from_json(text)


# -- append and read ------------------------------------------------------------------------------


async def test_records_append_and_read_back_in_order_with_paging_and_the_head(store: Store) -> None:
    """links reads a run's journal in sequence order (after a sequence, at most limit); head is its
    last link, None for an empty journal; entry finds any record by id; another run's is apart."""
    # Prepare
    skill = _entry("journal_2", category=Category.SKILL_CANDIDATE, create_time=12)
    records: list[JournalRecord] = [
        _entry("journal_1", create_time=11),
        skill,
        _promotion("promotion_1", skill, to=PromotionStatus.APPROVED),
        _entry("journal_3", create_time=13, severity=Severity.ERROR, evidence=("trace",)),
    ]
    links = _sealed(records)
    other = _sealed([_entry("journal_x", run_id="wfr_2")])
    await store.write(_append_all(links))
    await store.write(_append_all(other))

    # Execute
    read = await store.read(_all_links("wfr_1"))
    pages = await store.read(
        lambda tx: [
            tx.journal.links("wfr_1", limit=2),
            tx.journal.links("wfr_1", after_sequence=1, limit=2),
            tx.journal.links("wfr_1", after_sequence=3, limit=2),
        ]
    )
    heads = await store.read(lambda tx: [tx.journal.head(run_id) for run_id in ("wfr_1", "wfr_2", "wfr_none")])
    found = await store.read(
        lambda tx: [tx.journal.entry(record_id) for record_id in ("journal_2", "promotion_1", "journal_x", "nope")]
    )

    # Assert
    assert read == links
    assert pages == [links[:2], links[2:], []]
    assert heads == [journal_chain.head(links), journal_chain.head(other), None]
    assert found == [links[1], links[2], other[0], None]
    assert journal_chain.verify("wfr_1", read, KEYS).intact


async def test_a_taken_sequence_or_record_id_is_refused_and_a_gap_never_written(store: Store) -> None:
    """A second record at a run's sequence, or one with a stored record's id (even in another run), is
    refused with the store's error; a sequence with no record before it, or a negative one, with
    ValueError; nothing of a refused append is kept."""
    # Prepare
    first = _sealed([_entry("journal_1"), _entry("journal_2")])
    await store.write(_append_all(first))
    rival = journal_chain.seal(_entry("journal_rival"), first[0], KEYS)  # sequence 1 again
    same_id = _sealed([_entry("journal_1", run_id="wfr_2")])[0]
    gap = dataclasses.replace(journal_chain.seal(_entry("journal_gap"), first[1], KEYS), sequence=3)
    negative = dataclasses.replace(_sealed([_entry("journal_neg", run_id="wfr_3")])[0], sequence=-1)

    # Execute
    with pytest.raises(HubError) as taken:
        await store.write(lambda tx: tx.journal.append(rival, project=PROJECT))
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.journal.append(same_id, project=PROJECT))
    with pytest.raises(ValueError, match="no record 2"):
        await store.write(lambda tx: tx.journal.append(gap, project=PROJECT))
    with pytest.raises(ValueError, match="negative"):
        await store.write(lambda tx: tx.journal.append(negative, project=PROJECT))

    # Assert
    assert taken.value.reason is Reason.STORAGE_UNAVAILABLE
    assert await store.read(_all_links("wfr_1")) == first
    assert await store.read(lambda tx: [tx.journal.head(r) for r in ("wfr_2", "wfr_3")]) == [None, None]
    assert await store.read(lambda tx: tx.journal.entry("journal_rival")) is None


async def test_concurrent_appends_to_one_run_serialise_into_one_intact_chain(store: Store) -> None:
    """Twelve units of work at once, each sealing a record after the run's head and appending it:
    every one commits (the loser of a conflict runs again after the winner), sequences 0..11, and
    the journal verifies."""
    # Prepare
    records = [_entry(f"journal_{i:02}", create_time=10 + i) for i in range(12)]

    # Execute
    appended = await asyncio.gather(*(store.write(_record_after_head(item)) for item in records))
    read = await store.read(_all_links("wfr_1"))

    # Assert
    assert [link.sequence for link in read] == list(range(12))
    assert sorted(link.record.id for link in read) == [item.id for item in records]
    assert sorted(appended, key=lambda link: link.sequence) == read
    assert journal_chain.verify("wfr_1", read, KEYS).intact


async def test_an_entrys_promotions_are_its_promotion_records_in_journal_order(store: Store) -> None:
    """promotions(entry id) holds the records deciding that entry (not the entry, not another entry's
    decisions), in sequence order, so promotion_status folds them; none for an undecided entry."""
    # Prepare
    skill = _entry("journal_skill", category=Category.SKILL_CANDIDATE)
    hypothesis = _entry("journal_hyp", category=Category.HYPOTHESIS)
    quiet = _entry("journal_quiet", category=Category.EXPERIMENT)
    # Two decisions of one entry cannot come from promote (monotonic); the store keeps what it is given.
    records: list[JournalRecord] = [
        skill,
        hypothesis,
        quiet,
        _promotion("promotion_1", skill, to=PromotionStatus.QUARANTINED),
        _promotion("promotion_2", hypothesis, to=PromotionStatus.REJECTED),
        _promotion("promotion_3", skill, to=PromotionStatus.APPROVED),
    ]
    links = _sealed(records)
    await store.write(_append_all(links))

    # Execute
    found = await store.read(
        lambda tx: {entry_id: tx.journal.promotions(entry_id) for entry_id in (skill.id, hypothesis.id, quiet.id)}
    )

    # Assert
    assert found == {skill.id: [links[3], links[5]], hypothesis.id: [links[4]], quiet.id: []}
    decided = [link.record for link in found[skill.id] if isinstance(link.record, Promotion)]
    assert promotion_status(skill, decided) is PromotionStatus.APPROVED
    assert promotion_status(quiet, []) is PromotionStatus.PROPOSED


async def test_recent_entries_across_runs_newest_first_by_filter_with_keyset_paging(store: Store) -> None:
    """recent: entries only (never promotion records) of every run, newest first by (create time,
    record id); categories, areas and since (inclusive) filter; an empty collection matches nothing;
    before pages strictly after the previous page's last."""
    # Prepare
    skill = _entry("journal_a2", category=Category.SKILL_CANDIDATE, create_time=20, area="harness")
    run_1: list[JournalRecord] = [
        _entry("journal_a1", category=Category.DECISION, create_time=10),
        skill,
        _entry("journal_a3", category=Category.LESSON, create_time=20, area="harness", evidence=("e",)),
        _promotion("promotion_a", skill, to=PromotionStatus.APPROVED, decide_time=99),
    ]
    run_2: list[JournalRecord] = [
        _entry("journal_b1", run_id="wfr_2", category=Category.DECISION, create_time=30),
        _entry("journal_b2", run_id="wfr_2", category=Category.ERROR, create_time=20, area="security"),
        _entry("journal_b3", run_id="wfr_2", category=Category.DECISION, create_time=5),
    ]
    await store.write(_append_all(_sealed(run_1)))
    await store.write(_append_all(_sealed(run_2)))

    def ids(**filters: Any) -> Callable[[Tx], list[str]]:
        return lambda tx: [link.record.id for link in tx.journal.recent(**{"project": PROJECT, "limit": 10, **filters})]

    # Execute
    every = await store.read(ids())
    pages: list[list[str]] = []
    before: tuple[int, str] | None = None
    while True:
        page = await store.read(lambda tx, b=before: tx.journal.recent(project=PROJECT, before=b, limit=2))
        if not page:
            break
        pages.append([link.record.id for link in page])
        last = page[-1].record
        assert isinstance(last, JournalEntry)
        before = (last.create_time, last.id)
    filtered = {
        "decisions": await store.read(ids(categories=["decision"])),
        "decisions and errors since 10": await store.read(ids(categories={"error", "decision"}, since=10)),
        "harness": await store.read(ids(areas=("harness",))),
        "gates lessons": await store.read(ids(areas=["gates"], categories=["lesson"])),
        "harness or security errors": await store.read(ids(areas=["harness", "security"], categories=["error"])),
        "no category": await store.read(ids(categories=[])),
        "no area": await store.read(ids(areas=[])),
        "since 21": await store.read(ids(since=21)),
        "paged filter": await store.read(ids(categories=["decision"], before=(30, "journal_b1"))),
    }

    # Assert
    assert every == ["journal_b1", "journal_b2", "journal_a3", "journal_a2", "journal_a1", "journal_b3"]
    assert pages == [["journal_b1", "journal_b2"], ["journal_a3", "journal_a2"], ["journal_a1", "journal_b3"]]
    assert filtered == {
        "decisions": ["journal_b1", "journal_a1", "journal_b3"],
        "decisions and errors since 10": ["journal_b1", "journal_b2", "journal_a1"],
        "harness": ["journal_a3", "journal_a2"],
        "gates lessons": [],
        "harness or security errors": ["journal_b2"],
        "no category": [],
        "no area": [],
        "since 21": ["journal_b1"],
        "paged filter": ["journal_a1", "journal_b3"],
    }


async def test_run_entries_reads_one_runs_entries_newest_first_by_category(store: Store) -> None:
    """run_entries: the run's entries only (never promotion records, never another run's), newest
    first by (create time, record id), filtered by category (an empty collection: none), at most
    ``limit``."""
    # Prepare
    skill = _entry("journal_a2", category=Category.SKILL_CANDIDATE, create_time=20)
    await store.write(
        _append_all(
            _sealed(
                [
                    _entry("journal_a1", category=Category.DECISION, create_time=10),
                    skill,
                    _entry("journal_a3", category=Category.LESSON, create_time=20, evidence=("e",)),
                    _promotion("promotion_a", skill, to=PromotionStatus.APPROVED, decide_time=99),
                    _entry("journal_a4", category=Category.DECISION, create_time=5),
                ]
            )
        )
    )
    await store.write(_append_all(_sealed([_entry("journal_b1", run_id="wfr_2", category=Category.DECISION)])))

    def ids(**filters: Any) -> Callable[[Tx], list[str]]:
        return lambda tx: [
            link.record.id for link in tx.journal.run_entries(**{"run_id": "wfr_1", "limit": 10, **filters})
        ]

    # Execute
    found = {
        "every": await store.read(ids()),
        "decisions and lessons": await store.read(ids(categories=("decision", "lesson"))),
        "newest two": await store.read(ids(limit=2)),
        "no category": await store.read(ids(categories=[])),
        "no run": await store.read(ids(run_id="wfr_none")),
    }

    # Assert
    assert found == {
        "every": ["journal_a3", "journal_a2", "journal_a1", "journal_a4"],
        "decisions and lessons": ["journal_a3", "journal_a1", "journal_a4"],
        "newest two": ["journal_a3", "journal_a2"],
        "no category": [],
        "no run": [],
    }


# -- purge and restart ----------------------------------------------------------------------------


async def test_a_runs_journal_goes_with_the_run_and_purge_run_counts_it(store: Store) -> None:
    """workflows.purge_run deletes the run's journal with it (another run's stays); journal.purge_run
    deletes a journal alone and returns how many records it held (0 for none)."""
    # Prepare
    await store.write(lambda tx: [tx.workflows.insert_run(_run(r)) for r in ("wfr_1", "wfr_2")])
    await store.write(_append_all(_sealed([_entry("journal_1"), _entry("journal_2")])))
    kept = _sealed([_entry("journal_3", run_id="wfr_2")])
    await store.write(_append_all(kept))
    await store.write(_append_all(_sealed([_entry(f"journal_o{i}", run_id="wfr_orphan") for i in range(3)])))

    # Execute
    purged = await store.write(lambda tx: tx.workflows.purge_run("wfr_1"))
    counted = await store.write(lambda tx: (tx.journal.purge_run("wfr_orphan"), tx.journal.purge_run("wfr_orphan")))
    left = await store.read(
        lambda tx: (
            tx.journal.links("wfr_1", limit=10),
            tx.journal.entry("journal_1"),
            tx.journal.links("wfr_2", limit=10),
            tx.journal.head("wfr_orphan"),
            [link.record.id for link in tx.journal.recent(project=PROJECT, limit=10)],
        )
    )

    # Assert
    assert purged is True
    assert counted == (3, 0)
    assert left == ([], None, kept, None, ["journal_3"])
    # A purged run's record ids are free again (a run id is never reused, but nothing depends on it).
    await store.write(_append_all(_sealed([_entry("journal_1")])))


async def test_a_journal_survives_a_restart(store_factory: StoreFactory) -> None:
    """Links written before a restart read back after it, and the next record chains from the head."""
    # Prepare
    store = await store_factory.open()
    links = _sealed([full_entry(), full_promotion()])
    await store.write(_append_all(links))

    # Execute
    store = await store_factory.reopen(store)
    read = await store.read(_all_links("wfr_full"))
    added = await store.write(_record_after_head(_entry("journal_next", run_id="wfr_full")))

    # Assert
    assert read == links
    assert await store.read(lambda tx: tx.journal.entry("journal_full")) == links[0]
    assert added.sequence == 2
    assert journal_chain.verify("wfr_full", await store.read(_all_links("wfr_full")), KEYS).intact


# -- tampering ------------------------------------------------------------------------------------


async def test_a_record_altered_in_the_database_reads_back_altered_and_verify_names_it(store: Store) -> None:
    """A record's stored JSON rewritten (still a record) is read back as stored, not hidden or
    refused: journal_chain.verify over the links then reports it, ALTERED at its position, the
    records before it verified."""
    # Prepare
    records = [_entry(f"journal_{i}", create_time=10 + i) for i in range(4)]
    await store.write(_append_all(_sealed(records)))
    stored = await store.read(
        lambda tx: tx.journal._conn.execute(  # type: ignore[attr-defined]
            "SELECT record FROM workflow_journal WHERE run_id = 'wfr_1' AND sequence = 2"
        ).fetchone()[0]
    )
    data = json.loads(stored)
    data["summary"] = "nothing went wrong"
    await store.write(
        _tamper("UPDATE workflow_journal SET record = ? WHERE run_id = 'wfr_1' AND sequence = 2", json.dumps(data))
    )

    # Execute
    read = await store.read(_all_links("wfr_1"))
    verdict = journal_chain.verify("wfr_1", read, KEYS)

    # Assert
    assert [link.record for link in read] == [
        records[0],
        records[1],
        dataclasses.replace(records[2], summary="nothing went wrong"),
        records[3],
    ]
    assert verdict.breach == Breach(2, Problem.ALTERED, "journal_2", "k1")
    assert verdict.verified == 2


async def test_a_stored_record_that_is_no_record_is_refused_with_data_loss(store: Store) -> None:
    """A record whose stored text is not a record's JSON: every read of the record raises DataLoss naming the
    run and sequence (STORAGE_CORRUPTED); the run's other records and other runs read as before."""
    # Prepare
    links = _sealed([_entry("journal_1"), _entry("journal_2")])
    other = _sealed([_entry("journal_x", run_id="wfr_2")])
    await store.write(_append_all([*links, *other]))
    await store.write(_tamper("UPDATE workflow_journal SET record = '{\"schema\":' WHERE record_id = 'journal_2'"))

    # Execute
    reads: dict[str, Callable[[Tx], object]] = {
        "links": _all_links("wfr_1"),
        "entry": lambda tx: tx.journal.entry("journal_2"),
        "recent": lambda tx: tx.journal.recent(project=PROJECT, limit=10),
    }
    refused = {}
    for name, work in reads.items():
        with pytest.raises(DataLoss) as caught:
            await store.read(work)
        refused[name] = (caught.value.reason, caught.value.metadata)

    # Assert
    assert refused == dict.fromkeys(reads, (Reason.STORAGE_CORRUPTED, {"runId": "wfr_1", "sequence": "1"}))
    # The head is read without its record: the run's next record still appends after it.
    assert await store.read(lambda tx: tx.journal.head("wfr_1")) == journal_chain.head(links)
    assert await store.read(lambda tx: tx.journal.links("wfr_1", limit=1)) == links[:1]
    assert await store.read(_all_links("wfr_2")) == other


async def test_recent_reads_one_projects_entries_and_a_retrospective_is_kept_per_run(store: Store) -> None:
    """recent never returns another project's entries; put_retrospective keeps one document per
    run (a second for the run is refused), retrospective reads it back, and it goes with the run."""
    # Prepare
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1")))
    ours = _sealed([_entry("journal_1")])
    theirs = list(journal_chain.seal_all([_entry("journal_t", run_id="wfr_t")], None, KEYS))
    await store.write(_append_all(ours))
    await store.write(lambda tx: tx.journal.append(theirs[0], project="p2"))
    await store.write(lambda tx: tx.journal.put_retrospective("wfr_1", project=PROJECT, document='{"a":1}', now=7))

    # Execute
    seen = await store.read(
        lambda tx: (
            [link.record.id for link in tx.journal.recent(project=PROJECT, limit=10)],
            [link.record.id for link in tx.journal.recent(project="p2", limit=10)],
            [link.record.id for link in tx.journal.recent(project="p3", limit=10)],
            tx.journal.retrospective("wfr_1"),
            tx.journal.retrospective("wfr_2"),
        )
    )
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.journal.put_retrospective("wfr_1", project=PROJECT, document="{}", now=8))
    await store.write(lambda tx: tx.workflows.purge_run("wfr_1"))
    gone = await store.read(lambda tx: tx.journal.retrospective("wfr_1"))

    # Assert
    assert seen == (["journal_1"], ["journal_t"], [], '{"a":1}', None)
    assert gone is None
