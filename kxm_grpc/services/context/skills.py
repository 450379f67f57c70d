"""Governed skills: create, evaluate, promote, reject, read (spec §5.12); the rules are
``kxm_grpc.domain.context.skills``'s.

Who may do what: an agent, a project token or an operator of the project creates a candidate (its
author is the caller, ``scope.writer``, never a field it writes); any caller of the project reads;
an operator evaluates, rejects, and promotes a skill it did not write. Each decision writes the
skill's new state, its history event and (a promotion) its context item in one unit of work, with
an audit record.

A promoted skill is the context item ``skill_<id>`` of its project, written by the promotion: the
indexed packet ranks it like any item. Before a packet is assembled, the project's promoted skills
are verified by hash (``unverified_skill_items``); one that no longer verifies (its content
changed behind the hub's back) is left out of the packet with a gap (``packets.packet``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

import structlog

from kxm_grpc.domain import validation
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context import skills as rules
from kxm_grpc.domain.context.items import ContextItem, Status
from kxm_grpc.domain.context.skills import EvaluationKind, EventType, Skill, SkillEvent, SkillState
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, Reason
from kxm_grpc.services import audit
from kxm_grpc.services.context.scope import context_project, writer
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.context_items import StoredContextItem

log = structlog.get_logger("kxm.context")


def _operator(caller: Caller, action: str) -> str:
    if caller.operator is None:
        raise PermissionDenied(
            f"a skill is {action} by an operator",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"nextAction": "call with an operator credential"},
        )
    return caller.operator


def _target(project: str, skill_id: str) -> str:
    return f"projects/{project}/skills/{skill_id}"


def _audit(tx: Tx, caller: Caller, action: str, skill: Skill, now: int, **facts: object) -> None:
    metadata = {key: str(value) for key, value in facts.items() if value != ""}
    audit.record(tx, caller, action, _target(skill.project, skill.id), now=now, metadata=metadata)


def _skill(tx: Tx, project: str, skill_id: str) -> Skill:
    found = tx.skills.get(project, skill_id)
    if found is None:
        raise NotFound(
            f"no skill {skill_id!r} in project {project!r}",
            reason=Reason.SKILL_NOT_FOUND,
            metadata={"skillId": skill_id},
        )
    return found


def _append(tx: Tx, skill: Skill, history: list[SkillEvent], event: SkillEvent) -> SkillEvent:
    numbered = replace(event, sequence=len(history) + 1)
    tx.skills.append_event(skill.project, skill.id, numbered)
    history.append(numbered)
    return numbered


# -- creating -----------------------------------------------------------------------------------------


async def create_skill(store: Store, caller: Caller, draft: rules.Draft, *, project: str, now: int) -> Skill:
    """Store the candidate ``draft`` makes (``rules.candidate``), authored by the caller, with its
    ``created`` event.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) as ``context_project``.
        InvalidArgument: as ``rules.candidate``.
        AlreadyExists: (SKILL_CANDIDATE_EXISTS) a skill of the project has this content.
    """
    name = context_project(caller, project)
    made = rules.candidate(draft, project=name, created_by=writer(caller), now=now)

    def work(tx: Tx) -> Skill:
        existing = tx.skills.find_by_hash(name, made.content_sha256) or (
            made.id if tx.skills.get(name, made.id) is not None else None
        )
        if existing is not None:
            raise AlreadyExists(
                f"skill {existing!r} of project {name!r} has this content already",
                reason=Reason.SKILL_CANDIDATE_EXISTS,
                metadata={"skillId": existing},
            )
        tx.skills.insert(made)
        _append(tx, made, [], SkillEvent(0, EventType.CREATED, made.created_by, now))
        return made

    stored = await store.write(work)
    log.info(
        "skill_created",
        project=name,
        skill_id=stored.id,
        content_chars=validation.utf16_length(stored.content),
        sources=len(stored.sources.run_ids)
        + len(stored.sources.journal_entry_ids)
        + len(stored.sources.evidence_receipts),
    )
    return stored


# -- evaluating ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evaluated:
    """The skill after an evaluation, and the evaluation's event."""

    skill: Skill
    event: SkillEvent


async def evaluate_skill(
    store: Store,
    caller: Caller,
    *,
    project: str,
    skill_id: str,
    kind: EvaluationKind | None,
    passed: bool,
    details: str,
    optimization_enabled: bool,
    now: int,
) -> Evaluated:
    """Record an operator's evaluation of a candidate; a failed functional or safety evaluation
    quarantines it (a second event, by ``evaluator``; ``record_evaluation``, which gates' share).

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; (CONTEXT_ISOLATION_VIOLATION)
            as ``context_project``.
        InvalidArgument: (INVALID_SKILL_REQUEST) a bad id, no kind, details over 2,000 characters.
        FailedPrecondition: (SKILL_OPTIMIZATION_DISABLED) an optimization evaluation while they are
            off; (SKILL_NOT_PROMOTABLE) the skill is not a candidate.
        NotFound: (SKILL_NOT_FOUND) no skill of the project has the id.
    """
    operator = _operator(caller, "evaluated")
    name = context_project(caller, project)
    wanted = rules.check_skill_id(skill_id)
    if kind is None:
        raise InvalidArgument(
            "kind must be one of static-review, sandbox, functional, safety, optimization",
            reason=Reason.INVALID_SKILL_REQUEST,
            metadata={"field": "kind"},
        )
    text = rules.check_details(details)
    if kind is EvaluationKind.OPTIMIZATION and not optimization_enabled:
        raise FailedPrecondition(
            "optimization evaluations are off on this hub (--skill-optimization on enables them)",
            reason=Reason.SKILL_OPTIMIZATION_DISABLED,
            metadata={"kind": kind.value},
        )

    def work(tx: Tx) -> Evaluated:
        skill = _skill(tx, name, wanted)
        if skill.state is not SkillState.CANDIDATE:
            raise rules.not_promotable(skill, "evaluated")
        evaluated = record_evaluation(tx, skill, kind, passed, actor=operator, details=text, now=now)
        state = evaluated.skill.state
        _audit(tx, caller, "EvaluateSkill", evaluated.skill, now, kind=kind.value, passed=passed, state=state.value)
        return evaluated

    evaluated = await store.write(work)
    log.info(
        "skill_evaluated",
        project=name,
        skill_id=wanted,
        kind=kind.value,
        passed=passed,
        state=evaluated.skill.state.value,
        details_chars=validation.utf16_length(text),
    )
    return evaluated


def record_evaluation(
    tx: Tx, skill: Skill, kind: EvaluationKind, passed: bool, *, actor: str, details: str, now: int
) -> Evaluated:
    """Append a candidate's evaluation by ``actor`` (and the quarantine a failed functional or
    safety one brings, ``rules.evaluated``) in ``tx``: the one path of operators' and gates'
    evaluations. ``details`` are checked already; the caller checked that ``skill`` is a candidate."""
    history = tx.skills.events(skill.project, skill.id)
    after, events = rules.evaluated(skill, kind, passed, actor=actor, details=details, now=now)
    if after.state is not skill.state:
        tx.skills.update_state(after)
    appended = [_append(tx, after, history, event) for event in events]
    return Evaluated(after, appended[0])


class GateSkip(enum.Enum):
    """Why a gate's verdict recorded no evaluation of its run's skill."""

    OPTIMIZATION_DISABLED = "optimization_disabled"
    """An optimization gate while ``--skill-optimization`` is off."""
    SKILL_NOT_FOUND = "skill_not_found"
    SKILL_NOT_CANDIDATE = "skill_not_candidate"
    """It was promoted, rejected or quarantined after the run started."""


@dataclass(frozen=True, slots=True)
class GateEvaluation:
    """What a gate's verdict did to its run's skill: an evaluation recorded, or why not."""

    evaluated: Evaluated | None
    skipped: GateSkip | None = None
    state: SkillState | None = None
    """The skill's state when nothing was recorded (None: no such skill)."""


def record_gate_evaluation(
    tx: Tx,
    *,
    project: str,
    skill_id: str,
    kind: EvaluationKind,
    passed: bool,
    evaluator: str,
    details: str,
    optimization_enabled: bool,
    now: int,
) -> GateEvaluation:
    """Record, in the gate's completion's transaction, the evaluation a gate of a run started for
    ``skill_id`` made (``rules.gate_evaluator`` as its actor; ``rules.gate_details``). Never raises
    for the skill's state: a skill that is no longer a candidate, or an optimization gate while
    those evaluations are off, records nothing and says why (the completion stands)."""
    if kind is EvaluationKind.OPTIMIZATION and not optimization_enabled:
        return GateEvaluation(None, GateSkip.OPTIMIZATION_DISABLED)
    skill = tx.skills.get(project, skill_id)
    if skill is None:
        return GateEvaluation(None, GateSkip.SKILL_NOT_FOUND)
    if skill.state is not SkillState.CANDIDATE:
        return GateEvaluation(None, GateSkip.SKILL_NOT_CANDIDATE, skill.state)
    return GateEvaluation(record_evaluation(tx, skill, kind, passed, actor=evaluator, details=details, now=now))


def evaluated_candidate(tx: Tx, project: str, skill_id: str) -> Skill:
    """The candidate a run is started for.

    Raises:
        NotFound: (SKILL_NOT_FOUND) no skill of the project has the id (field ``inputs.skill_id``).
        FailedPrecondition: (SKILL_NOT_PROMOTABLE) it is not a candidate.
    """
    found = tx.skills.get(project, skill_id)
    if found is None:
        raise NotFound(
            f"no skill {skill_id!r} in project {project!r}",
            reason=Reason.SKILL_NOT_FOUND,
            metadata={"skillId": skill_id, "field": "inputs.skill_id"},
        )
    if found.state is not SkillState.CANDIDATE:
        raise rules.not_promotable(found, "evaluated by a run")
    return found


# -- deciding -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Promoted:
    """The promoted skill and the context item packets carry it as."""

    skill: Skill
    item: ContextItem


def _check_promoter(tx: Tx, skill: Skill, operator: str) -> None:
    """Refuse the author as the promoter: by name, or as the operator named as the authoring agent
    (``state._check_promoter``'s rule)."""
    agent = tx.agents.get(skill.created_by)
    if operator in {skill.created_by, agent.name if agent is not None else None}:
        raise InvalidArgument(
            "the author of a skill may not promote it: another operator decides",
            reason=Reason.SKILL_PROMOTION_INVALID,
            metadata={"skillId": skill.id, "promotedBy": operator},
        )


async def promote_skill(
    store: Store, caller: Caller, *, project: str, skill_id: str, evidence_refs: Sequence[str], now: int
) -> Promoted:
    """An operator other than its author promotes a candidate whose required evaluations' latest
    passed and whose content verifies: the skill, its event, its context item ``skill_<id>`` (and,
    when it supersedes a promoted skill, that one's item closed) in one unit of work.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; (CONTEXT_ISOLATION_VIOLATION)
            as ``context_project``.
        InvalidArgument: (INVALID_SKILL_REQUEST) a bad id; (SKILL_PROMOTION_INVALID) bad evidence,
            or the author promoting.
        NotFound: (SKILL_NOT_FOUND) no skill of the project has the id.
        FailedPrecondition: (SKILL_NOT_PROMOTABLE) not a candidate; (SKILL_EVALUATIONS_INCOMPLETE)
            as ``rules.check_evaluations``; (SKILL_INTEGRITY_VIOLATION, INVALID_SKILL_FRONTMATTER)
            as ``rules.verify``.
    """
    operator = _operator(caller, "promoted")
    name = context_project(caller, project)
    wanted = rules.check_skill_id(skill_id)
    evidence = rules.check_evidence(evidence_refs)

    def work(tx: Tx) -> Promoted:
        skill = _skill(tx, name, wanted)
        if skill.state is not SkillState.CANDIDATE:
            raise rules.not_promotable(skill, "promoted")
        _check_promoter(tx, skill, operator)
        history = tx.skills.events(name, wanted)
        rules.check_evaluations(skill, history)
        rules.verify(skill)
        promoted = replace(skill, state=SkillState.PROMOTED, decided_by=operator, decided_at=now)
        tx.skills.update_state(promoted)
        _append(tx, promoted, history, SkillEvent(0, EventType.PROMOTED, operator, now, evidence_refs=evidence))
        item = rules.skill_item(promoted, evidence)
        writes = [StoredContextItem(item, now)]
        if promoted.supersedes:
            old = tx.context_items.get(name, [rules.item_id(promoted.supersedes)])
            if old and old[0].item.status is Status.CURRENT:
                item = replace(item, supersedes=(old[0].item.id,))
                writes = [
                    StoredContextItem(item, now),
                    StoredContextItem(replace(old[0].item, status=Status.SUPERSEDED), now, superseded_by=item.id),
                ]
        tx.context_items.put(writes)
        _audit(tx, caller, "PromoteSkill", promoted, now, itemId=item.id, evidenceRefs=len(evidence))
        return Promoted(promoted, item)

    promoted = await store.write(work)
    log.info("skill_promoted", project=name, skill_id=wanted, item_id=promoted.item.id, evidence_refs=len(evidence))
    return promoted


async def reject_skill(store: Store, caller: Caller, *, project: str, skill_id: str, reason: str, now: int) -> Skill:
    """An operator rejects a candidate or a quarantined skill, or retires a promoted one (its item
    closed as rejected: packets no longer carry it); the reason, redacted, goes in its history.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; (CONTEXT_ISOLATION_VIOLATION)
            as ``context_project``.
        InvalidArgument: (INVALID_SKILL_REQUEST) a bad id, a reason over 1,000 characters.
        NotFound: (SKILL_NOT_FOUND) no skill of the project has the id.
        FailedPrecondition: (SKILL_NOT_PROMOTABLE) it is rejected already.
    """
    operator = _operator(caller, "rejected")
    name = context_project(caller, project)
    wanted = rules.check_skill_id(skill_id)
    why = rules.check_reason(reason)

    def work(tx: Tx) -> Skill:
        skill = _skill(tx, name, wanted)
        if skill.state is SkillState.REJECTED:
            raise rules.not_promotable(skill, "rejected")
        rejected = replace(skill, state=SkillState.REJECTED, decided_by=operator, decided_at=now)
        tx.skills.update_state(rejected)
        if skill.state is SkillState.PROMOTED:
            retired = tx.context_items.get(name, [rules.item_id(skill.id)])
            if retired and retired[0].item.status is Status.CURRENT:
                tx.context_items.put([StoredContextItem(replace(retired[0].item, status=Status.REJECTED), now)])
        _append(
            tx, rejected, tx.skills.events(name, wanted), SkillEvent(0, EventType.REJECTED, operator, now, reason=why)
        )
        _audit(tx, caller, "RejectSkill", rejected, now)
        return rejected

    rejected = await store.write(work)
    log.info("skill_rejected", project=name, skill_id=wanted, reason_chars=validation.utf16_length(why))
    return rejected


# -- reading ------------------------------------------------------------------------------------------


async def get_skill(store: Store, caller: Caller, *, project: str, skill_id: str) -> tuple[Skill, list[SkillEvent]]:
    """The project's skill and its whole history.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) as ``context_project``.
        InvalidArgument: (INVALID_SKILL_REQUEST) a bad id.
        NotFound: (SKILL_NOT_FOUND) no skill of the project has the id.
    """
    name = context_project(caller, project)
    wanted = rules.check_skill_id(skill_id)

    def work(tx: Tx) -> tuple[Skill, list[SkillEvent]]:
        return _skill(tx, name, wanted), tx.skills.events(name, wanted)

    return await store.read(work)


async def list_skills(
    store: Store, caller: Caller, *, project: str, state: SkillState | None, size: int, token: str
) -> tuple[list[Skill], str]:
    """A page of the project's skills (of ``state``; None: any) by id, and the next page's token.

    Raises:
        PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) as ``context_project``.
        InvalidArgument: a negative page size; (INVALID_PAGE_TOKEN) a token of another query.
    """
    name = context_project(caller, project)
    limit = page_size(size)
    query = f"skills\x00{name}\x00{state.value if state else ''}"
    after = decode_page_token(token, query)
    page = await store.read(lambda tx: tx.skills.list_page(name, state, after, limit + 1))
    if len(page) <= limit:
        return page, ""
    return page[:limit], encode_page_token(page[limit - 1].id, query)


def unverified_skill_items(tx: Tx, project: str) -> list[str]:
    """The ids of the project's promoted skills that no longer verify (``rules.verify``), by id."""
    return [skill.id for skill in tx.skills.promoted(project) if not rules.verified(skill)]
