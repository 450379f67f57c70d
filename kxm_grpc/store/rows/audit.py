"""Rows of ``audit_records`` (metadata as a JSON object of strings, keys sorted)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from kxm_grpc.domain.audit import AuditRecord
from kxm_grpc.store.rows import Columns, Row

AUDIT_RECORDS = Columns("audit_records", "seq", "id", "create_time", "operator", "action", "target", "metadata")


def metadata_text(metadata: Mapping[str, str]) -> str:
    """The stored form of a record's metadata."""
    return json.dumps(dict(metadata), sort_keys=True, separators=(",", ":"))


def _decoder(columns: Columns) -> Callable[[Row], AuditRecord]:
    seq, id_, create_time, operator, action, target, metadata = columns.positions(
        "seq", "id", "create_time", "operator", "action", "target", "metadata"
    )

    def audit_record_from_row(row: Row) -> AuditRecord:
        """The record in a row selecting ``AUDIT_RECORDS``."""
        return AuditRecord(
            id=row[id_],
            create_time=row[create_time],
            operator=row[operator],
            action=row[action],
            target=row[target],
            metadata=json.loads(row[metadata]),
            seq=row[seq],
        )

    return audit_record_from_row


audit_record_from_row = _decoder(AUDIT_RECORDS)
