"""Rows of ``workflow_journal``: a ``ChainLink`` per row, its record as the JSON the chain signs.

The row's ``record`` is the record's JSON form (``journal.record_json``) as ASCII text (a lone
surrogate in a summary is stored escaped, as the run document stores it), and ``sequence``,
``key_id`` and ``chain`` are the link's. The other columns (``project``, the run's, and
``record_id``, ``kind``, ``entry_id``, ``category``, ``area``, ``create_time``) are copies of the
run's and the record's fields, written with it, for the lookups and reports to filter and order
by; a decoded link is built from ``record`` alone
(with the row's sequence, key id and chain), never from those copies.

No row checksum (unlike messages and runs, ``kxm_grpc/store/checksum.py``): the chain covers
everything a checksum would (the record, its sequence and key id, and through its predecessor's
chain the order), with a key, and ``journal_chain.verify`` names the first record that fails.
A checksum refused on read would hide which record changed and make the run's journal unreadable
instead; a record is never rewritten, so nothing is ever recomputed. The store hands back what it
holds: an altered record that still decodes is read back as stored, for ``verify`` to report.

A ``record`` that is not a record's JSON form (not JSON, an unknown schema, a missing, extra or
mistyped field, an unknown category, severity or status) cannot be handed back as a link: its
decoder raises ``DataLoss`` (``ERROR_REASON_STORAGE_CORRUPTED``, the run id and sequence in its
metadata) and logs ``journal_record_undecodable`` (ids only).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import structlog

from kxm_grpc.domain.workflows.journal import (
    ENTRY_SCHEMA,
    PROMOTION_SCHEMA,
    Category,
    JournalEntry,
    JournalRecord,
    Promotion,
    PromotionStatus,
    Severity,
    record_json,
)
from kxm_grpc.domain.workflows.journal_chain import ChainLink
from kxm_grpc.errors import DataLoss, Reason
from kxm_grpc.store.rows import Columns, Row

log = structlog.get_logger("kxm.store")

ENTRY = "entry"
"""``kind`` of an entry's row."""
PROMOTION = "promotion"
"""``kind`` of a promotion record's row."""

WORKFLOW_JOURNAL = Columns(
    "workflow_journal",
    "run_id",
    "sequence",
    "project",
    "record_id",
    "kind",
    "entry_id",
    "category",
    "area",
    "create_time",
    "record",
    "key_id",
    "chain",
)
"""Also the insert list: ``link_values`` follow this order."""


# -- the record's JSON ----------------------------------------------------------------------------


def record_to_json(item: JournalRecord) -> str:
    """The record's stored text: ``record_json`` as compact ASCII JSON."""
    return json.dumps(record_json(item), separators=(",", ":"))


def record_from_json(text: str) -> JournalRecord:
    """The record whose JSON form (``record_json``) ``text`` holds: an entry or a promotion record.

    Exact: the text must hold every field of its schema and nothing else, each of its type (a
    ``null`` only where a field may be absent), so ``record_json`` of the result is the object
    the text holds.

    Raises:
        ValueError: the text is not JSON, not an object of a known schema, or a field is missing,
            extra, of the wrong type or not a known category, severity or status.
    """
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a journal record is a JSON object")
    schema = data.get("schema")
    if schema == ENTRY_SCHEMA:
        item: JournalRecord = _entry(data)
    elif schema == PROMOTION_SCHEMA:
        item = _promotion(data)
    else:
        raise ValueError(f"not a journal record of a known schema: {str(schema)[:80]!r}")
    if record_json(item) != data:  # an extra field, or a value its type does not give back
        raise ValueError(f"journal record {item.id!r} holds fields its schema does not have")
    return item


def _entry(data: dict[str, Any]) -> JournalEntry:
    return JournalEntry(
        id=_text(data, "id"),
        run_id=_text(data, "runId"),
        author=_text(data, "author"),
        category=Category(_text(data, "category")),
        area=_text(data, "area"),
        severity=Severity(_text(data, "severity")),
        summary=_text(data, "summary"),
        create_time=_integer(data, "createTime"),
        details=_text(data, "details"),
        evidence=_texts(data, "evidence"),
        related_entry_ids=_texts(data, "relatedEntryIds"),
        stage_id=None if _field(data, "stageId") is None else _text(data, "stageId"),
        attempt=None if _field(data, "attempt") is None else _integer(data, "attempt"),
    )


def _promotion(data: dict[str, Any]) -> Promotion:
    return Promotion(
        id=_text(data, "id"),
        run_id=_text(data, "runId"),
        entry_id=_text(data, "entryId"),
        from_status=PromotionStatus(_text(data, "from")),
        to_status=PromotionStatus(_text(data, "to")),
        evidence_refs=_texts(data, "evidenceRefs"),
        decided_by=_text(data, "decidedBy"),
        reason=_text(data, "reason"),
        decide_time=_integer(data, "decideTime"),
    )


def _field(data: dict[str, Any], key: str) -> Any:
    if key not in data:
        raise ValueError(f"a journal record lacks {key!r}")
    return data[key]


def _text(data: dict[str, Any], key: str) -> str:
    value = _field(data, key)
    if type(value) is not str:
        raise ValueError(f"a journal record's {key!r} is not a string")
    return value


def _integer(data: dict[str, Any], key: str) -> int:
    value = _field(data, key)
    if type(value) is not int:  # not a bool, not a float
        raise ValueError(f"a journal record's {key!r} is not an integer")
    return value


def _texts(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = _field(data, key)
    if type(value) is not list or any(type(item) is not str for item in value):
        raise ValueError(f"a journal record's {key!r} is not an array of strings")
    return tuple(value)


# -- workflow_journal -----------------------------------------------------------------------------


def link_values(link: ChainLink, project: str) -> tuple[object, ...]:
    """The link's column values in ``WORKFLOW_JOURNAL`` order (``project``: its run's).

    An entry's ``entry_id`` is its own id; a promotion record's is the entry it decides, and its
    ``category`` and ``area`` are empty (reports read entries); ``create_time`` is an entry's
    create time or a promotion's decide time.
    """
    item = link.record
    if isinstance(item, JournalEntry):
        kind, entry_id, category, area, time = ENTRY, item.id, item.category.value, item.area, item.create_time
    else:
        kind, entry_id, category, area, time = PROMOTION, item.entry_id, "", "", item.decide_time
    return WORKFLOW_JOURNAL.values(
        {
            "run_id": item.run_id,
            "sequence": link.sequence,
            "project": project,
            "record_id": item.id,
            "kind": kind,
            "entry_id": entry_id,
            "category": category,
            "area": area,
            "create_time": time,
            "record": record_to_json(item),
            "key_id": link.key_id,
            "chain": link.chain,
        }
    )


def _link_decoder(columns: Columns) -> Callable[[Row], ChainLink]:
    run_id, sequence, record, key_id, chain = columns.positions("run_id", "sequence", "record", "key_id", "chain")

    def link_from_row(row: Row) -> ChainLink:
        """The link in a row selecting ``WORKFLOW_JOURNAL``: its record decoded from ``record``.

        Raises:
            DataLoss: ``record`` is not a record's JSON form (``ERROR_REASON_STORAGE_CORRUPTED``).
        """
        try:
            item = record_from_json(row[record])
        except (ValueError, TypeError) as exc:  # json.JSONDecodeError is a ValueError
            log.error("journal_record_undecodable", run_id=str(row[run_id]), sequence=str(row[sequence]))
            raise DataLoss(
                f"journal record {row[sequence]} of workflow run {row[run_id]} is corrupted in storage "
                "(it is not a journal record); restore a backup",
                reason=Reason.STORAGE_CORRUPTED,
                metadata={"runId": str(row[run_id]), "sequence": str(row[sequence])},
            ) from exc
        return ChainLink(item, row[sequence], row[key_id], row[chain])

    return link_from_row


link_from_row = _link_decoder(WORKFLOW_JOURNAL)
