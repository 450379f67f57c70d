"""The audit: one durable record per admin action, written in the transaction of the change.

The services that make an admin action (``projects``, ``operators``, ``runtimes`` for
ReassignSyncProject and an operator's RegisterRuntime, ``agents`` for an operator's RegisterAgent)
call ``record`` inside their unit of work, so a change and its record commit together or not at
all. Records name the operator (``Caller.operator``: ``admin`` for the bootstrap admin), never a
credential.
"""

from __future__ import annotations

from collections.abc import Mapping

from kxm_grpc.domain.audit import AuditRecord, action_filter
from kxm_grpc.domain.caller import Caller, require_bootstrap_admin
from kxm_grpc.domain.operators import operator_name
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.errors import Reason, invalid_field
from kxm_grpc.store import Store, Tx


def record(
    tx: Tx, caller: Caller, action: str, target: str, *, now: int, metadata: Mapping[str, str] | None = None
) -> AuditRecord:
    """Append the audit record of ``caller``'s ``action`` on ``target`` to this transaction.

    ``caller`` must be an operator (the bootstrap admin or a named one); ``metadata`` must hold no secret.
    """
    operator = caller.operator
    assert operator is not None, "only operators' actions are audited"
    entry = AuditRecord(
        id=new_id("aud"),
        create_time=now,
        operator=operator,
        action=action,
        target=target,
        metadata=dict(metadata or {}),
    )
    tx.audit.append(entry)
    return entry


async def list_audit_records(
    store: Store, caller: Caller, size: int, token: str, *, operator: str = "", action: str = ""
) -> tuple[list[AuditRecord], str]:
    """Audit records newest first, one page at a time, only of ``operator`` and/or ``action`` when given.

    Raises:
        InvalidArgument: a negative page size, a bad page token (INVALID_PAGE_TOKEN), or a
            malformed ``operator`` or ``action`` filter.
        PermissionDenied: the caller is not the bootstrap admin.
    """
    require_bootstrap_admin(caller, "read the audit")
    operator = operator_name("operator", operator) if operator else ""
    action = action_filter(action)
    limit = page_size(size)
    query = f"audit:{operator}:{action}"
    after = decode_page_token(token, query)
    before = None
    if after is not None:
        if not after.isdigit():
            raise invalid_field("page_token", "is malformed", reason=Reason.INVALID_PAGE_TOKEN)
        before = int(after)
    records = await store.read(
        lambda tx: tx.audit.list_page(before, limit + 1, operator=operator or None, action=action or None)
    )
    if len(records) > limit:
        return records[:limit], encode_page_token(str(records[limit - 1].seq), query)
    return records, ""
