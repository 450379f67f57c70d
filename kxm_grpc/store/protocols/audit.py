"""The audit: one record per admin action, appended in the transaction of the change."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.audit import AuditRecord


class AuditRepository(Protocol):
    """Audit records, in the order they were written (never changed or removed)."""

    def append(self, record: AuditRecord) -> None:
        """Append a record (its ``seq`` is ignored: the store gives it the next position)."""

    def list_page(
        self, before: int | None, limit: int, *, operator: str | None = None, action: str | None = None
    ) -> list[AuditRecord]:
        """Records newest first (by ``seq``), before position ``before`` (None: from the newest),
        only of ``operator`` and/or ``action`` when given; each with its ``seq``."""
