"""A step run's snapshot as JSON (what the store keeps) and back.

``decode(encode(run)) == run`` for every run; a document that is not such a snapshot raises
``SnapshotCorrupt`` (a row altered in the database), which the service reports as DATA_LOSS.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kxm_grpc.domain.sync_events import JsonValue
from kxm_grpc.domain.workflows.engine.state import (
    Handoff,
    InputFile,
    Member,
    MemberRole,
    MemberStatus,
    Producer,
    Result,
    RunInputs,
    RunStatus,
    StepPhase,
    StepRun,
)

SCHEMA = "kxm.run-state.v1"


class SnapshotCorrupt(ValueError):
    """The document is not a step run snapshot (the message says what is wrong)."""


def encode(run: StepRun) -> dict[str, JsonValue]:
    return {
        "schema": SCHEMA,
        "id": run.id,
        "project": run.project,
        "workflowId": run.workflow_id,
        "planHash": run.plan_hash,
        "status": run.status.value,
        "createTime": run.create_time,
        "updateTime": run.update_time,
        "sequence": run.sequence,
        "currentStep": run.current_step,
        "stepAttempt": run.step_attempt,
        "phase": run.phase.value,
        "members": [_member(member) for member in run.members],
        "attempts": dict(run.attempts),
        "edgeUses": dict(run.edge_uses),
        "transitions": run.transitions,
        "costUsd": run.cost_usd,
        "unmetered": run.unmetered,
        "planValue": run.plan_value,
        "reproValue": run.repro_value,
        "runningSince": run.running_since,
        "endTime": run.end_time,
        "endReason": run.end_reason,
        "blockedMember": run.blocked_member,
        "lastOutcome": run.last_outcome,
        "headCommit": run.head_commit,
        "inputs": {
            "repository": run.inputs.repository,
            "baseCommit": run.inputs.base_commit,
            "files": [{"type": f.type, "path": f.path, "sha256": f.sha256} for f in run.inputs.files],
            "handoff": run.inputs.handoff,
            "notes": run.inputs.notes,
            **({"skillId": run.inputs.skill_id} if run.inputs.skill_id else {}),
        },
        "receipts": {step_id: dict(receipt) for step_id, receipt in run.receipts.items()},
        "memoryRevision": run.memory_revision,
        "handoff": _handoff(run.handoff) if run.handoff is not None else None,
    }


def _handoff(handoff: Handoff) -> dict[str, JsonValue]:
    return {
        "fromStep": handoff.from_step,
        "fromAttempt": handoff.from_attempt,
        "outcome": handoff.outcome,
        "toStep": handoff.to_step,
        "createTime": handoff.create_time,
        "baseCommit": handoff.base_commit,
        "producers": [
            {
                "assignmentId": p.assignment_id,
                "stepId": p.step_id,
                "stepAttempt": p.step_attempt,
                "agent": p.agent,
                "role": p.role.value,
                "outcome": p.outcome,
                "passed": p.passed,
                "counted": p.counted,
                "why": p.why,
                "summary": p.summary,
                "blockers": p.blockers,
                "artifacts": dict(p.artifacts),
                "commit": p.commit,
                "contentHash": p.content_hash,
            }
            for p in handoff.producers
        ],
    }


def _decode_handoff(raw: Mapping[str, Any] | None) -> Handoff | None:
    if raw is None:  # none yet, or a snapshot written before runs kept their handoff
        return None
    return Handoff(
        from_step=raw["fromStep"],
        from_attempt=raw["fromAttempt"],
        outcome=raw["outcome"],
        to_step=raw["toStep"],
        create_time=raw["createTime"],
        base_commit=raw["baseCommit"],
        producers=tuple(
            Producer(
                assignment_id=p["assignmentId"],
                step_id=p["stepId"],
                step_attempt=p["stepAttempt"],
                agent=p["agent"],
                role=MemberRole(p["role"]),
                outcome=p["outcome"],
                passed=p["passed"],
                counted=p["counted"],
                why=p["why"],
                summary=p["summary"],
                blockers=p["blockers"],
                artifacts={str(k): str(v) for k, v in p["artifacts"].items()},
                commit=p["commit"],
                content_hash=p["contentHash"],
            )
            for p in raw["producers"]
        ),
    )


def _member(member: Member) -> dict[str, JsonValue]:
    return {
        "id": member.id,
        "stepId": member.step_id,
        "stepAttempt": member.step_attempt,
        "index": member.index,
        "agent": member.agent,
        "agentId": member.agent_id,
        "role": member.role.value,
        "status": member.status.value,
        "createTime": member.create_time,
        "deadline": member.deadline,
        "result": _result(member.result) if member.result is not None else None,
        "endTime": member.end_time,
        "endReason": member.end_reason,
    }


def _result(result: Result) -> dict[str, JsonValue]:
    return {
        "outcome": result.outcome,
        "passed": result.passed,
        "contentHash": result.content_hash,
        "summary": result.summary,
        "blockers": result.blockers,
        "costUsd": result.cost_usd,
        "tokensIn": result.tokens_in,
        "tokensOut": result.tokens_out,
        "durationMs": result.duration_ms,
        "model": result.model,
        "artifacts": dict(result.artifacts),
        "uncertain": result.uncertain,
        "commit": result.commit,
    }


def decode(document: Mapping[str, Any]) -> StepRun:
    """The snapshot ``document`` holds.

    Raises:
        SnapshotCorrupt: it is not a ``kxm.run-state.v1`` snapshot.
    """
    try:
        if document.get("schema") != SCHEMA:
            raise SnapshotCorrupt(f"schema is {document.get('schema')!r}, not {SCHEMA}")
        return StepRun(
            id=document["id"],
            project=document["project"],
            workflow_id=document["workflowId"],
            plan_hash=document["planHash"],
            status=RunStatus(document["status"]),
            create_time=document["createTime"],
            update_time=document["updateTime"],
            sequence=document["sequence"],
            current_step=document["currentStep"],
            step_attempt=document["stepAttempt"],
            phase=StepPhase(document["phase"]),
            members=tuple(_decode_member(member) for member in document["members"]),
            attempts={str(k): int(v) for k, v in document["attempts"].items()},
            edge_uses={str(k): int(v) for k, v in document["edgeUses"].items()},
            transitions=document["transitions"],
            cost_usd=float(document["costUsd"]),
            unmetered=document["unmetered"],
            plan_value=document["planValue"],
            repro_value=document.get("reproValue"),
            running_since=document["runningSince"],
            end_time=document["endTime"],
            end_reason=document["endReason"],
            blocked_member=document["blockedMember"],
            last_outcome=document["lastOutcome"],
            head_commit=document["headCommit"],
            inputs=_decode_inputs(document["inputs"]),
            receipts={str(k): dict(v) for k, v in document.get("receipts", {}).items()},
            # Snapshots written before runs pinned a memory revision have none.
            memory_revision=str(document.get("memoryRevision", "")),
            handoff=_decode_handoff(document.get("handoff")),
        )
    except SnapshotCorrupt:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise SnapshotCorrupt(f"not a step run snapshot: {error.__class__.__name__} {error}") from None


def _decode_inputs(raw: Mapping[str, Any]) -> RunInputs:
    return RunInputs(
        repository=raw["repository"],
        base_commit=raw["baseCommit"],
        files=tuple(InputFile(f["type"], f["path"], f["sha256"]) for f in raw["files"]),
        handoff=raw["handoff"],
        notes=raw["notes"],
        skill_id=raw.get("skillId", ""),
    )


def _decode_member(raw: Mapping[str, Any]) -> Member:
    result = raw["result"]
    return Member(
        id=raw["id"],
        step_id=raw["stepId"],
        step_attempt=raw["stepAttempt"],
        index=raw["index"],
        agent=raw["agent"],
        agent_id=raw["agentId"],
        role=MemberRole(raw["role"]),
        status=MemberStatus(raw["status"]),
        create_time=raw["createTime"],
        deadline=raw["deadline"],
        result=_decode_result(result) if result is not None else None,
        end_time=raw["endTime"],
        end_reason=raw["endReason"],
    )


def _decode_result(raw: Mapping[str, Any]) -> Result:
    return Result(
        outcome=raw["outcome"],
        passed=raw["passed"],
        content_hash=raw["contentHash"],
        summary=raw["summary"],
        blockers=raw["blockers"],
        cost_usd=raw["costUsd"],
        tokens_in=raw["tokensIn"],
        tokens_out=raw["tokensOut"],
        duration_ms=raw["durationMs"],
        model=raw["model"],
        artifacts={str(k): str(v) for k, v in raw["artifacts"].items()},
        uncertain=raw["uncertain"],
        commit=raw["commit"],
    )
