"""The audit: each record's ``seq`` is one more than the last, so records keep the order they committed in.

``seq`` is taken as ``MAX(seq) + 1`` inside the writing transaction rather than from a database
sequence: a sequence hands out numbers in the order transactions start, not the order they
commit, so on PostgreSQL a reader paging newest first could pass a number whose record commits
later and never see it. Two concurrent appends conflict instead (SQLite's single writer, or a
serialisation failure that PostgreSQL's adapter retries).
"""

from __future__ import annotations

from kxm_grpc.domain.audit import AuditRecord
from kxm_grpc.store.rows.audit import AUDIT_RECORDS, audit_record_from_row, metadata_text
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {AUDIT_RECORDS.select} FROM audit_records"


class SqlAudit:
    """Audit records, appended and listed newest first."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def append(self, record: AuditRecord) -> None:
        self._conn.execute(
            "INSERT INTO audit_records (seq, id, create_time, operator, action, target, metadata) "
            "SELECT COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ? FROM audit_records",
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
