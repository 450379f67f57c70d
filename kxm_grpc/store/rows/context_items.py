"""Rows of ``context_items``, ``context_postings`` and ``context_index_stats``.

An item's row has a typed column for everything a query filters, orders or purges by (project,
id, kind, status, authority, confidence, scope, state key, its times, superseded by, run id,
write time) and its length in relevance tokens; the rest (summary, provenance, supersedes,
evidence refs) is ``document``, compact JSON as ASCII text (a lone surrogate or an astral
character in a summary is stored escaped, as the journal stores records, so both backends hold
and hand back the same UTF-16 text). An item without a status has status ``''`` in every table
(the statistics' key holds no NULL). ``index_entries`` tokenises an item with the domain's
``relevance`` functions: what the store indexes is exactly what the brute-force scorer reads.

A ``document`` or a column that does not decode raises ``DataLoss`` (``ERROR_REASON_STORAGE_CORRUPTED``,
the project and item id in its metadata) and logs ``context_item_undecodable`` (ids only).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import structlog

from kxm_grpc.domain.context.arbiter import tail_key
from kxm_grpc.domain.context.items import (
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    Scope,
    SourceType,
    Status,
)
from kxm_grpc.domain.context.joints import text_joints
from kxm_grpc.domain.context.relevance import item_text, relevance_tokens
from kxm_grpc.domain.context.tokens import item_characters
from kxm_grpc.domain.validation import js_lower
from kxm_grpc.errors import DataLoss, Reason
from kxm_grpc.store.protocols.context_items import IndexStats, Posting, StoredContextItem
from kxm_grpc.store.rows import Columns, Row

log = structlog.get_logger("kxm.store")

CONTEXT_ITEMS = Columns(
    "context_items",
    "project",
    "id",
    "kind",
    "status",
    "authority",
    "confidence",
    "scope",
    "state_key",
    "observed_at",
    "valid_from",
    "valid_until",
    "superseded_by",
    "run_id",
    "write_time",
    "length",
    "document",
)
"""What item reads select."""
CONTEXT_ITEM_INSERT = Columns(
    "context_items",
    *CONTEXT_ITEMS.names,
    "cost",
    "confidence_key",
    "authority_key",
    "undated",
    "recency",
    "code_units",
    "folded_summary",
    "folded_key",
    "joints_indexed",
)
"""The insert list: ``item_values`` follow this order (the ranking columns, ``ranking_values``, then
``joints_indexed``, version 22, last)."""
CONTEXT_POSTINGS = Columns("context_postings", "project", "term", "kind", "status", "item_id", "frequency", "length")
"""Also the insert list: ``posting_values`` follow this order."""
CONTEXT_INDEX_STATS = Columns("context_index_stats", "project", "kind", "status", "documents", "total_length")

NO_STATUS = ""
"""The status column of an item without a status."""


def status_value(status: Status | None) -> str:
    """The status column's value for ``status``."""
    return NO_STATUS if status is None else status.value


def status_from_value(value: str) -> Status | None:
    """The status a status column's value stands for."""
    return None if value == NO_STATUS else Status(value)


_status = status_from_value


def index_entries(item: ContextItem) -> tuple[int, Counter[str]]:
    """The item's length and term frequencies: its ``item_text``'s relevance tokens, counted."""
    frequencies = Counter(relevance_tokens(item_text(item)))
    return sum(frequencies.values()), frequencies


def item_joints(item: ContextItem) -> set[str]:
    """The joints of the item's folded summary and state key (``joints``, decision 301): kept as
    postings of frequency 0 beside its terms (a joint holds a space, which no term does)."""
    return text_joints([_folded(item.summary), None if item.state_key is None else _folded(item.state_key)])


def _document(item: ContextItem) -> str:
    provenance = item.provenance
    data: dict[str, Any] = {"summary": item.summary, "sourceType": provenance.source_type.value}
    if provenance.source_ref is not None:
        data["sourceRef"] = provenance.source_ref
    for name, values in (
        ("derivedFrom", provenance.derived_from),
        ("supersedes", item.supersedes),
        ("evidenceRefs", item.evidence_refs),
    ):
        if values:
            data[name] = list(values)
    return json.dumps(data, separators=(",", ":"))


def _folded(text: str) -> str:
    """``text`` lower-cased as JavaScript does, a lone surrogate (which no checked item holds, and
    which neither backend stores as text) as U+FFFD."""
    folded = js_lower(text)
    try:
        folded.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= character <= "\udfff" else character for character in folded)
    return folded


def ranking_values(item: ContextItem) -> dict[str, object]:
    """The ranking columns of ``item`` (version 17): its cost, its ordering keys as integers that
    ascend in rank order, its id as UTF-16-BE bytes, its summary and state key lower-cased; and
    (version 22) that its joints are among the postings written with it."""
    confidence, authority, undated, recency, code_units = tail_key(item)
    return {
        "cost": item_characters(item),
        "confidence_key": confidence,
        "authority_key": authority,
        "undated": undated,
        "recency": recency,
        "code_units": code_units,
        "folded_summary": _folded(item.summary),
        "folded_key": None if item.state_key is None else _folded(item.state_key),
        "joints_indexed": 1,
    }


def item_values(stored: StoredContextItem, length: int) -> tuple[object, ...]:
    """The stored item's column values in ``CONTEXT_ITEM_INSERT`` order (``length``: ``index_entries``')."""
    item = stored.item
    return CONTEXT_ITEM_INSERT.values(
        {
            "project": item.project,
            "id": item.id,
            "kind": item.kind.value,
            "status": status_value(item.status),
            "authority": item.authority.value,
            "confidence": item.confidence.value,
            "scope": None if item.scope is None else item.scope.value,
            "state_key": item.state_key,
            "observed_at": item.observed_at,
            "valid_from": item.valid_from,
            "valid_until": item.valid_until,
            "superseded_by": stored.superseded_by,
            "run_id": stored.run_id,
            "write_time": stored.write_time,
            "length": length,
            "document": _document(item),
            **ranking_values(item),
        }
    )


def posting_values(item: ContextItem, length: int, term: str, frequency: int) -> tuple[object, ...]:
    """One posting's column values in ``CONTEXT_POSTINGS`` order, for an insert."""
    return (item.project, term, item.kind.value, status_value(item.status), item.id, frequency, length)


(
    _project,
    _id,
    _kind,
    _status_at,
    _authority,
    _confidence,
    _scope,
    _state_key,
    _observed_at,
    _valid_from,
    _valid_until,
    _superseded_by,
    _run_id,
    _write_time,
    _document_at,
) = CONTEXT_ITEMS.positions(
    "project",
    "id",
    "kind",
    "status",
    "authority",
    "confidence",
    "scope",
    "state_key",
    "observed_at",
    "valid_from",
    "valid_until",
    "superseded_by",
    "run_id",
    "write_time",
    "document",
)


def _strings(data: dict[str, Any], name: str) -> tuple[str, ...]:
    values = data.get(name, [])
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        raise ValueError(f"{name} is not a list of strings")
    return tuple(values)


def _optional_string(data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name} is not a string")
    return value


def item_from_row(row: Row) -> StoredContextItem:
    """The stored item in a row selecting ``CONTEXT_ITEMS``.

    Raises:
        DataLoss: the row does not decode (``ERROR_REASON_STORAGE_CORRUPTED``, ``project``, ``itemId``).
    """
    try:
        data = json.loads(row[_document_at])
        if not isinstance(data, dict) or not isinstance(data.get("summary"), str):
            raise ValueError("the document is not an object with a summary")
        item = ContextItem(
            id=row[_id],
            kind=Kind(row[_kind]),
            project=row[_project],
            summary=data["summary"],
            provenance=Provenance(
                source_type=SourceType(data.get("sourceType")),
                source_ref=_optional_string(data, "sourceRef"),
                derived_from=_strings(data, "derivedFrom"),
            ),
            authority=Authority(row[_authority]),
            confidence=Confidence(row[_confidence]),
            scope=None if row[_scope] is None else Scope(row[_scope]),
            status=_status(row[_status_at]),
            state_key=row[_state_key],
            observed_at=row[_observed_at],
            valid_from=row[_valid_from],
            valid_until=row[_valid_until],
            supersedes=_strings(data, "supersedes"),
            evidence_refs=_strings(data, "evidenceRefs"),
        )
    except (ValueError, TypeError) as exc:
        found = {"project": str(row[_project]), "itemId": str(row[_id])}
        log.error("context_item_undecodable", table=CONTEXT_ITEMS.table, **found)
        raise DataLoss(
            f"context item {found['itemId']} of project {found['project']} is corrupted in storage "
            f"({type(exc).__name__}); restore a backup",
            reason=Reason.STORAGE_CORRUPTED,
            metadata=found,
        ) from None
    return StoredContextItem(
        item=item, write_time=row[_write_time], run_id=row[_run_id], superseded_by=row[_superseded_by]
    )


_P = CONTEXT_POSTINGS.positions("term", "project", "item_id", "kind", "status", "frequency", "length")


def posting_from_row(row: Row) -> Posting:
    """The posting in a row selecting ``CONTEXT_POSTINGS``."""
    term, project, item_id, kind, status, frequency, length = (row[p] for p in _P)
    return Posting(term, project, item_id, Kind(kind), _status(status), int(frequency), int(length))


_S = CONTEXT_INDEX_STATS.positions("project", "kind", "status", "documents", "total_length")


def stats_from_row(row: Row) -> IndexStats:
    """The partition's statistics in a row selecting ``CONTEXT_INDEX_STATS``."""
    project, kind, status, documents, total_length = (row[p] for p in _S)
    return IndexStats(project, Kind(kind), _status(status), int(documents), int(total_length))
