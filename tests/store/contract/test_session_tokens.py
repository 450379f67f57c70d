"""Contract: the session tokens' facts (never the tokens), on every adapter."""

from __future__ import annotations

import dataclasses

import pytest

from kxm_grpc.domain.tokens import ActiveSession, SessionRecord
from kxm_grpc.domain.tool_policy import make_policy
from kxm_grpc.errors import HubError
from kxm_grpc.store import Store


def record(session_id: str = "ses_1", **changes: object) -> SessionRecord:
    """A session with every field set (a policy with every part, a name JSON must escape)."""
    full = SessionRecord(
        session_id=session_id,
        project="alpha",
        agent_id="agt_1",
        agent_name='reviewer "é"',
        tool_policy=make_policy(
            preset="read-only", allow=["kxm_*", "send"], deny=["kxm_fanout"], denied_commands=["rm -rf ✗"]
        ),
        issue_time=1_000,
        expire_time=5_000,
        minted_by="ops",
        key_id="k1",
    )
    return dataclasses.replace(full, **changes)  # type: ignore[arg-type]


async def test_a_session_round_trips_and_is_revoked_once(store: Store) -> None:
    """insert then get returns every field; revoke sets revoke_time once and keeps the row."""
    # Prepare
    await store.write(lambda tx: tx.session_tokens.insert(record()))

    # Execute
    stored = await store.read(lambda tx: tx.session_tokens.get("ses_1"))
    await store.write(lambda tx: tx.session_tokens.revoke("ses_1", 7))
    await store.write(lambda tx: tx.session_tokens.revoke("ses_1", 9))  # already revoked: unchanged

    # Assert
    assert stored == record()
    assert await store.read(lambda tx: tx.session_tokens.get("ses_1")) == record(revoke_time=7)
    assert await store.read(lambda tx: tx.session_tokens.get("ses_2")) is None


async def test_a_session_id_is_never_inserted_twice(store: Store) -> None:
    await store.write(lambda tx: tx.session_tokens.insert(record()))

    with pytest.raises(HubError):
        await store.write(lambda tx: tx.session_tokens.insert(record(project="beta")))
    assert await store.read(lambda tx: tx.session_tokens.get("ses_1")) == record()


async def test_the_active_sessions_of_a_name_leave_out_revoked_expired_and_others(store: Store) -> None:
    """active_for_name: the project's sessions of that agent name, unrevoked, expiring after now."""
    # Prepare
    rows = [
        record("ses_a"),
        record("ses_b", agent_id="agt_2"),  # the name registered again: another id, the same name
        record("ses_revoked"),
        record("ses_expired", expire_time=2_000),
        record("ses_other_name", agent_name="coder"),
        record("ses_other_project", project="beta"),
    ]
    await store.write(lambda tx: [tx.session_tokens.insert(row) for row in rows])
    await store.write(lambda tx: tx.session_tokens.revoke("ses_revoked", 1_500))

    # Execute
    active = await store.read(lambda tx: tx.session_tokens.active_for_name("alpha", 'reviewer "é"', 2_000))

    # Assert
    assert active == [ActiveSession("ses_a", "agt_1", 5_000), ActiveSession("ses_b", "agt_2", 5_000)]
    assert await store.read(lambda tx: tx.session_tokens.active_for_name("alpha", "coder", 5_000)) == []


async def test_a_projects_sessions_are_listed_newest_first_after_the_cursor(store: Store) -> None:
    """list_page: one project's sessions by issue time then id, descending, strictly before the cursor."""
    # Prepare
    rows = [record("ses_1", issue_time=10), record("ses_2", issue_time=20), record("ses_3", issue_time=20)]
    rows.append(record("ses_9", project="beta", issue_time=30))
    await store.write(lambda tx: [tx.session_tokens.insert(row) for row in rows])

    # Execute
    first = await store.read(lambda tx: tx.session_tokens.list_page("alpha", None, 2))
    rest = await store.read(lambda tx: tx.session_tokens.list_page("alpha", (20, "ses_2"), 2))

    # Assert
    assert [r.session_id for r in first] == ["ses_3", "ses_2"]
    assert [r.session_id for r in rest] == ["ses_1"]
    assert [r.session_id for r in await store.read(lambda tx: tx.session_tokens.list_page("beta", None, 5))] == [
        "ses_9"
    ]
