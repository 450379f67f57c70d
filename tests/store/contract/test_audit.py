"""Contract: the audit, appended in order and listed newest first with its filters."""

from __future__ import annotations

from dataclasses import replace

from kxm_grpc.domain.audit import AuditRecord
from kxm_grpc.store import Store


def entry(number: int, operator: str = "admin", action: str = "CreateProject") -> AuditRecord:
    """A record with id ``aud_<number>``."""
    return AuditRecord(
        id=f"aud_{number}",
        create_time=number,
        operator=operator,
        action=action,
        target=f"projects/p{number}",
        metadata={"n": str(number)},
    )


async def test_records_read_back_newest_first_with_their_position_and_metadata(store: Store) -> None:
    """append keeps every field (metadata included); list_page is newest first, each with its seq."""
    # Prepare
    records = [entry(1), entry(2, "alice"), entry(3)]

    # Execute
    for record in records:
        await store.write(lambda tx, record=record: tx.audit.append(record))
    listed = await store.read(lambda tx: tx.audit.list_page(None, 10))

    # Assert
    assert [replace(r, seq=0) for r in listed] == records[::-1]
    assert [r.seq for r in listed] == sorted((r.seq for r in listed), reverse=True)
    assert len({r.seq for r in listed}) == 3


async def test_pages_continue_before_the_cursor_and_filters_combine(store: Store) -> None:
    """list_page(before=...) continues below a position; operator and action filter, alone or together."""
    # Prepare
    for record in (
        entry(1),
        entry(2, "alice"),
        entry(3, "alice", "RotateProjectToken"),
        entry(4),
        entry(5, "alice"),
    ):
        await store.write(lambda tx, record=record: tx.audit.append(record))

    # Execute
    first = await store.read(lambda tx: tx.audit.list_page(None, 2))
    rest = await store.read(lambda tx: tx.audit.list_page(first[-1].seq, 10))
    alice = await store.read(lambda tx: tx.audit.list_page(None, 10, operator="alice"))
    creations = await store.read(lambda tx: tx.audit.list_page(None, 10, action="CreateProject"))
    both = await store.read(lambda tx: tx.audit.list_page(None, 10, operator="alice", action="CreateProject"))

    # Assert
    assert [r.id for r in first] == ["aud_5", "aud_4"]
    assert [r.id for r in rest] == ["aud_3", "aud_2", "aud_1"]
    assert [r.id for r in alice] == ["aud_5", "aud_3", "aud_2"]
    assert [r.id for r in creations] == ["aud_5", "aud_4", "aud_2", "aud_1"]
    assert [r.id for r in both] == ["aud_5", "aud_2"]
