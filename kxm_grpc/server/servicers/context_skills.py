"""ContextService's skill RPCs: CreateSkill, EvaluateSkill, PromoteSkill, RejectSkill, GetSkill, ListSkills.

Converts proto ↔ the skill rules' values only; the rules live in ``kxm_grpc.services.context.skills``
and ``kxm_grpc.domain.context.skills``. An unset or unknown enum is refused naming its field (an
unset state in ListSkills is every state).
"""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb
from kxm_grpc.domain.context import skills as rules
from kxm_grpc.domain.context.skills import EvaluationKind, EventType, Skill, SkillEvent, SkillState
from kxm_grpc.errors import Reason, invalid_field
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import set_timestamp
from kxm_grpc.server.servicers.context_state import item_to_proto
from kxm_grpc.server.state import HubState
from kxm_grpc.services.context import skills

Context = grpc.aio.ServicerContext[Any, Any]

_STATE = {state: getattr(pb, f"SKILL_STATE_{state.name}") for state in SkillState}
_STATE_OF = {value: key for key, value in _STATE.items()}
_KIND = {kind: getattr(pb, f"SKILL_EVALUATION_KIND_{kind.name}") for kind in EvaluationKind}
_KIND_OF = {value: key for key, value in _KIND.items()}
_EVENT = {event: getattr(pb, f"SKILL_EVENT_TYPE_{event.name}") for event in EventType}


def skill_to_proto(skill: Skill, *, content: bool = True) -> pb.Skill:
    """A skill as the contract shows it (without its content unless ``content``)."""
    proto = pb.Skill(
        id=skill.id,
        project=skill.project,
        name=skill.name,
        description=skill.description,
        content=skill.content if content else "",
        content_sha256=skill.content_sha256,
        version=skill.version,
        sources=pb.SkillSources(
            run_ids=skill.sources.run_ids,
            journal_entry_ids=skill.sources.journal_entry_ids,
            evidence_receipts=skill.sources.evidence_receipts,
        ),
        compatibility=pb.SkillCompatibility(harness=skill.compatibility.harness, models=skill.compatibility.models),
        created_by=skill.created_by,
        supersedes=skill.supersedes or "",
        state=_STATE[skill.state],
        decided_by=skill.decided_by or "",
    )
    set_timestamp(proto.create_time, skill.created_at)
    if skill.decided_at is not None:
        set_timestamp(proto.decide_time, skill.decided_at)
    return proto


def event_to_proto(event: SkillEvent) -> pb.SkillEvent:
    """A history event as the contract shows it."""
    proto = pb.SkillEvent(
        sequence=event.sequence,
        type=_EVENT[event.type],
        actor=event.actor,
        passed=bool(event.passed),
        details=event.details,
        evidence_refs=event.evidence_refs,
        reason=event.reason,
    )
    if event.kind is not None:
        proto.evaluation_kind = _KIND[event.kind]
    set_timestamp(proto.event_time, event.at)
    return proto


def _kind(value: int) -> EvaluationKind | None:
    if value == 0:
        return None
    if value not in _KIND_OF:
        raise invalid_field("kind", f"holds unknown value {value}", reason=Reason.INVALID_SKILL_REQUEST)
    return _KIND_OF[value]


def _state(value: int) -> SkillState | None:
    if value == 0:
        return None
    if value not in _STATE_OF:
        raise invalid_field("state", f"holds unknown value {value}", reason=Reason.INVALID_SKILL_REQUEST)
    return _STATE_OF[value]


class ContextSkillMethods:
    """ContextService's skill RPCs; mixed into ContextServicer."""

    _hub: HubState

    async def CreateSkill(self, request: pb.CreateSkillRequest, context: Context) -> pb.CreateSkillResponse:
        draft = rules.Draft(
            name=request.name,
            content=request.content,
            description=request.description,
            sources=rules.Sources(
                tuple(request.sources.run_ids),
                tuple(request.sources.journal_entry_ids),
                tuple(request.sources.evidence_receipts),
            ),
            compatibility=rules.Compatibility(request.compatibility.harness, tuple(request.compatibility.models)),
            supersedes=request.supersedes,
            version=request.version,
        )
        made = await skills.create_skill(
            self._hub.store, current_call().caller, draft, project=request.project, now=self._hub.now()
        )
        return pb.CreateSkillResponse(skill=skill_to_proto(made))

    async def EvaluateSkill(self, request: pb.EvaluateSkillRequest, context: Context) -> pb.EvaluateSkillResponse:
        evaluated = await skills.evaluate_skill(
            self._hub.store,
            current_call().caller,
            project=request.project,
            skill_id=request.skill_id,
            kind=_kind(request.kind),
            passed=request.passed,
            details=request.details,
            optimization_enabled=self._hub.settings.skill_optimization == "on",
            now=self._hub.now(),
        )
        return pb.EvaluateSkillResponse(skill=skill_to_proto(evaluated.skill), event=event_to_proto(evaluated.event))

    async def PromoteSkill(self, request: pb.PromoteSkillRequest, context: Context) -> pb.PromoteSkillResponse:
        promoted = await skills.promote_skill(
            self._hub.store,
            current_call().caller,
            project=request.project,
            skill_id=request.skill_id,
            evidence_refs=tuple(request.evidence_refs),
            now=self._hub.now(),
        )
        return pb.PromoteSkillResponse(skill=skill_to_proto(promoted.skill), item=item_to_proto(promoted.item))

    async def RejectSkill(self, request: pb.RejectSkillRequest, context: Context) -> pb.RejectSkillResponse:
        rejected = await skills.reject_skill(
            self._hub.store,
            current_call().caller,
            project=request.project,
            skill_id=request.skill_id,
            reason=request.reason,
            now=self._hub.now(),
        )
        return pb.RejectSkillResponse(skill=skill_to_proto(rejected))

    async def GetSkill(self, request: pb.GetSkillRequest, context: Context) -> pb.GetSkillResponse:
        skill, history = await skills.get_skill(
            self._hub.store, current_call().caller, project=request.project, skill_id=request.skill_id
        )
        return pb.GetSkillResponse(skill=skill_to_proto(skill), history=[event_to_proto(event) for event in history])

    async def ListSkills(self, request: pb.ListSkillsRequest, context: Context) -> pb.ListSkillsResponse:
        page, token = await skills.list_skills(
            self._hub.store,
            current_call().caller,
            project=request.project,
            state=_state(request.state),
            size=request.page_size,
            token=request.page_token,
        )
        return pb.ListSkillsResponse(
            skills=[skill_to_proto(skill, content=False) for skill in page], next_page_token=token
        )
