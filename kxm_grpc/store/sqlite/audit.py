"""The audit on SQLite: ``seq`` is the table's rowid, so records keep the order they were written."""

from __future__ import annotations

import sqlite3

from kxm_grpc.domain.audit import AuditRecord
from kxm_grpc.store.rows.audit import AUDIT_RECORDS, audit_record_from_row, metadata_text

_SELECT = f"SELECT {AUDIT_RECORDS.select} FROM audit_records"


class SqliteAudit:
    """Audit records, appended and listed newest first."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def append(self, record: AuditRecord) -> None:
        self._conn.execute(
            "INSERT INTO audit_records (id, create_time, operator, action, target, metadata) VALUES (?, ?, ?, ?, ?, ?)",
            (
                record.id,
                record.create_time,
                record.operator,
                record.action,
                record.target,
                metadata_text(record.metadata),
            ),
        )

    def list_page(
        self, before: int | None, limit: int, *, operator: str | None = None, action: str | None = None
    ) -> list[AuditRecord]:
        clauses = ["seq < ?"]
        params: list[object] = [before if before is not None else 2**63 - 1]
        if operator is not None:
            clauses.append("operator = ?")
            params.append(operator)
        if action is not None:
            clauses.append("action = ?")
            params.append(action)
        params.append(limit)
        rows = self._conn.execute(
            f"{_SELECT} WHERE {' AND '.join(clauses)} ORDER BY seq DESC LIMIT ?", params
        ).fetchall()
        return [audit_record_from_row(row) for row in rows]
