"""Rows of ``skills`` and ``skill_events`` (sources, compatibility and an event's facts as JSON)."""

from __future__ import annotations

import json
from collections.abc import Callable

from kxm_grpc.domain.context.skills import (
    Compatibility,
    EvaluationKind,
    EventType,
    Skill,
    SkillEvent,
    SkillState,
    Sources,
)
from kxm_grpc.store.rows import Columns, Row

SKILLS = Columns(
    "skills",
    "project",
    "id",
    "name",
    "description",
    "content",
    "content_sha256",
    "version",
    "sources",
    "compatibility",
    "created_by",
    "created_at",
    "supersedes",
    "state",
    "decided_by",
    "decided_at",
)
SKILL_EVENTS = Columns("skill_events", "project", "skill_id", "sequence", "type", "actor", "event_time", "document")


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def skill_values(skill: Skill) -> tuple[object, ...]:
    """The insert parameters of ``skill`` in ``SKILLS`` order."""
    return SKILLS.values(
        {
            "project": skill.project,
            "id": skill.id,
            "name": skill.name,
            "description": skill.description,
            "content": skill.content,
            "content_sha256": skill.content_sha256,
            "version": skill.version,
            "sources": _json(
                {
                    "runIds": list(skill.sources.run_ids),
                    "journalEntryIds": list(skill.sources.journal_entry_ids),
                    "evidenceReceipts": list(skill.sources.evidence_receipts),
                }
            ),
            "compatibility": _json(
                {"harness": skill.compatibility.harness, "models": list(skill.compatibility.models)}
            ),
            "created_by": skill.created_by,
            "created_at": skill.created_at,
            "supersedes": skill.supersedes,
            "state": skill.state.value,
            "decided_by": skill.decided_by,
            "decided_at": skill.decided_at,
        }
    )


def _skill_decoder(columns: Columns) -> Callable[[Row], Skill]:
    at = columns.positions(*SKILLS.names)
    (project, id_, name, description, content, sha, version, sources, compat, by, created, sup, state, dby, dat) = at

    def skill_from_row(row: Row) -> Skill:
        """The skill in a row selecting ``SKILLS``."""
        found = json.loads(row[sources])
        compatibility = json.loads(row[compat])
        return Skill(
            project=row[project],
            id=row[id_],
            name=row[name],
            description=row[description],
            content=row[content],
            content_sha256=row[sha],
            version=row[version],
            sources=Sources(tuple(found["runIds"]), tuple(found["journalEntryIds"]), tuple(found["evidenceReceipts"])),
            compatibility=Compatibility(compatibility["harness"], tuple(compatibility["models"])),
            created_by=row[by],
            created_at=row[created],
            supersedes=row[sup],
            state=SkillState(row[state]),
            decided_by=row[dby],
            decided_at=row[dat],
        )

    return skill_from_row


skill_from_row = _skill_decoder(SKILLS)


def event_values(project: str, skill_id: str, event: SkillEvent) -> tuple[object, ...]:
    """The insert parameters of ``event`` in ``SKILL_EVENTS`` order."""
    document: dict[str, object] = {}
    if event.kind is not None:
        document["kind"] = event.kind.value
    if event.passed is not None:
        document["passed"] = event.passed
    if event.details:
        document["details"] = event.details
    if event.evidence_refs:
        document["evidenceRefs"] = list(event.evidence_refs)
    if event.reason:
        document["reason"] = event.reason
    return SKILL_EVENTS.values(
        {
            "project": project,
            "skill_id": skill_id,
            "sequence": event.sequence,
            "type": event.type.value,
            "actor": event.actor,
            "event_time": event.at,
            "document": _json(document),
        }
    )


def _event_decoder(columns: Columns) -> Callable[[Row], SkillEvent]:
    sequence, type_, actor, event_time, document = columns.positions(
        "sequence", "type", "actor", "event_time", "document"
    )

    def event_from_row(row: Row) -> SkillEvent:
        """The event in a row selecting ``SKILL_EVENTS``."""
        facts = json.loads(row[document])
        return SkillEvent(
            sequence=row[sequence],
            type=EventType(row[type_]),
            actor=row[actor],
            at=row[event_time],
            kind=EvaluationKind(facts["kind"]) if "kind" in facts else None,
            passed=facts.get("passed"),
            details=facts.get("details", ""),
            evidence_refs=tuple(facts.get("evidenceRefs", ())),
            reason=facts.get("reason", ""),
        )

    return event_from_row


event_from_row = _event_decoder(SKILL_EVENTS)
