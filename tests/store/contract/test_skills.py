"""Contract: governed skills and their append-only histories (``tx.skills``), on every adapter."""

from __future__ import annotations

import dataclasses

import pytest

from kxm_grpc.domain.context.skills import (
    Compatibility,
    EvaluationKind,
    EventType,
    Skill,
    SkillEvent,
    SkillState,
    Sources,
)
from kxm_grpc.errors import HubError
from kxm_grpc.store import Store


def skill(skill_id: str = "fix.0123456789ab", **changes: object) -> Skill:
    """A skill with every field set (text JSON must escape, all three source lists)."""
    full = Skill(
        project="alpha",
        id=skill_id,
        name='Fix "é"',
        description="Retry ✓ once",
        content="---\nname: fix\ndescription: Retry once\n---\nbody ✓\n",
        content_sha256=skill_id[-12:] * 5 + "abcd",
        version=3,
        sources=Sources(("run_1", "run_2"), ("jrn_1",), ("receipt:1",)),
        compatibility=Compatibility("claude-code", ("sonnet", "opus")),
        created_by="agt_1",
        created_at=1_000,
        supersedes="old.000000000000",
    )
    return dataclasses.replace(full, **changes)  # type: ignore[arg-type]


def events() -> list[SkillEvent]:
    return [
        SkillEvent(1, EventType.CREATED, "agt_1", 1_000),
        SkillEvent(2, EventType.EVALUATED, "ops", 2_000, kind=EvaluationKind.SAFETY, passed=False, details="why ✗"),
        SkillEvent(3, EventType.QUARANTINED, "evaluator", 2_000, reason="failed safety evaluation"),
        SkillEvent(4, EventType.PROMOTED, "admin", 3_000, evidence_refs=("review:1", "ci:2")),
    ]


async def test_a_skill_round_trips_and_changes_only_its_decision(store: Store) -> None:
    await store.write(lambda tx: tx.skills.insert(skill()))
    decided = skill(state=SkillState.PROMOTED, decided_by="ops", decided_at=5_000)
    await store.write(lambda tx: tx.skills.update_state(dataclasses.replace(decided, content="ignored")))

    assert await store.read(lambda tx: tx.skills.get("alpha", "fix.0123456789ab")) == decided
    assert await store.read(lambda tx: tx.skills.get("beta", "fix.0123456789ab")) is None
    assert await store.read(lambda tx: tx.skills.find_by_hash("alpha", skill().content_sha256)) == skill().id
    assert await store.read(lambda tx: tx.skills.find_by_hash("beta", skill().content_sha256)) is None


async def test_a_skill_without_optional_fields_round_trips(store: Store) -> None:
    bare = skill(supersedes=None, sources=Sources(run_ids=("r",)), compatibility=Compatibility("h", ("m",)))
    await store.write(lambda tx: tx.skills.insert(bare))

    assert await store.read(lambda tx: tx.skills.get("alpha", bare.id)) == bare


async def test_an_id_or_a_content_hash_is_never_stored_twice_in_a_project(store: Store) -> None:
    await store.write(lambda tx: tx.skills.insert(skill()))

    with pytest.raises(HubError):
        await store.write(lambda tx: tx.skills.insert(skill(content_sha256="f" * 64)))
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.skills.insert(skill("other.0123456789ab")))
    await store.write(lambda tx: tx.skills.insert(skill(project="beta")))  # another project's may match
    assert await store.read(lambda tx: tx.skills.get("alpha", "other.0123456789ab")) is None


async def test_pages_by_id_and_state_and_the_promoted_skills(store: Store) -> None:
    rows = [
        skill("c.00000000000c", content_sha256="c" * 64),
        skill("a.00000000000a", content_sha256="a" * 64, state=SkillState.PROMOTED),
        skill("b.00000000000b", content_sha256="b" * 64),
        skill("d.00000000000d", content_sha256="d" * 64, state=SkillState.PROMOTED),
        skill("e.00000000000e", content_sha256="e" * 64, project="beta", state=SkillState.PROMOTED),
    ]
    await store.write(lambda tx: [tx.skills.insert(row) for row in rows])

    first = await store.read(lambda tx: tx.skills.list_page("alpha", None, None, 2))
    rest = await store.read(lambda tx: tx.skills.list_page("alpha", None, first[-1].id, 10))
    promoted = await store.read(lambda tx: tx.skills.list_page("alpha", SkillState.PROMOTED, None, 10))
    assert [s.id for s in first + rest] == ["a.00000000000a", "b.00000000000b", "c.00000000000c", "d.00000000000d"]
    assert [s.id for s in promoted] == ["a.00000000000a", "d.00000000000d"]
    assert [s.id for s in await store.read(lambda tx: tx.skills.promoted("alpha"))] == [s.id for s in promoted]


async def test_the_history_is_kept_whole_in_order(store: Store) -> None:
    """Every event comes back as appended, by sequence; a sequence is never written twice; other
    skills' and projects' histories are apart."""
    await store.write(lambda tx: tx.skills.insert(skill()))
    many = [
        SkillEvent(n, EventType.EVALUATED, "ops", n, kind=EvaluationKind.SANDBOX, passed=True) for n in range(5, 605)
    ]
    await store.write(lambda tx: [tx.skills.append_event("alpha", skill().id, event) for event in events()])
    await store.write(lambda tx: [tx.skills.append_event("alpha", skill().id, event) for event in many])
    await store.write(lambda tx: tx.skills.append_event("beta", skill().id, events()[0]))

    with pytest.raises(HubError):
        await store.write(lambda tx: tx.skills.append_event("alpha", skill().id, events()[0]))
    history = await store.read(lambda tx: tx.skills.events("alpha", skill().id))
    assert history[:4] == events()
    assert len(history) == 604 and [event.sequence for event in history] == list(range(1, 605))
    assert await store.read(lambda tx: tx.skills.events("beta", skill().id)) == events()[:1]
    assert await store.read(lambda tx: tx.skills.events("alpha", "other.0123456789ab")) == []
