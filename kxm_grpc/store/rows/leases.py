"""Rows of ``leases``: a name's fence (its token high-water mark) and its current grant, if any."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.leases import Fence, Lease
from kxm_grpc.store.rows import Columns, Row

LEASES = Columns(
    "leases",
    "project",
    "name",
    "fencing_token",
    "holder_agent_id",
    "holder_agent_name",
    "acquire_time",
    "expire_time",
)
"""Also the insert list: ``fence_values`` follow this order."""


def _decoder(columns: Columns) -> Callable[[Row], Fence]:
    project, name, token, holder_id, holder_name, acquire_time, expire_time = columns.positions(
        "project", "name", "fencing_token", "holder_agent_id", "holder_agent_name", "acquire_time", "expire_time"
    )

    def fence_from_row(row: Row) -> Fence:
        """The fence in a row selecting ``LEASES``; its grant is None once released (no holder)."""
        lease = None
        if row[holder_id] is not None:
            lease = Lease(
                project=row[project],
                name=row[name],
                holder_agent_id=row[holder_id],
                holder_agent_name=row[holder_name],
                fencing_token=row[token],
                acquire_time=row[acquire_time],
                expire_time=row[expire_time],
            )
        return Fence(project=row[project], name=row[name], high_water=row[token], lease=lease)

    return fence_from_row


fence_from_row = _decoder(LEASES)


def lease_from_row(row: Row) -> Lease:
    """The grant in a row selecting ``LEASES`` of a held name."""
    lease = fence_from_row(row).lease
    assert lease is not None
    return lease


def fence_values(fence: Fence) -> tuple[object, ...]:
    """The fence's column values in ``LEASES`` order, for an upsert."""
    lease = fence.lease
    values = {
        "project": fence.project,
        "name": fence.name,
        "fencing_token": fence.high_water,
        "holder_agent_id": lease.holder_agent_id if lease else None,
        "holder_agent_name": lease.holder_agent_name if lease else None,
        "acquire_time": lease.acquire_time if lease else None,
        "expire_time": lease.expire_time if lease else None,
    }
    return LEASES.values(values)
