"""``hub.context``: a role's context packet, recall, temporal state, episodes and explanations.

One method per RPC of ContextService: ``put_items`` (PutItems), ``get_packet`` (GetContextPacket),
``recall``, ``get_state``, ``list_state_set``, ``propose_state``, ``promote_state``, ``reject_state``,
``list_episodes``, ``explain_item``, ``delete_items``, the governed skills' ``create_skill``,
``evaluate_skill``, ``promote_skill``, ``reject_skill``, ``get_skill`` and ``list_skills``, and the
memory records' ``sync_memory`` (SyncMemory, an operator's), ``list_memory``, ``propose_memory``,
``promote_memory`` and ``reject_memory`` (an operator's); ``read_memory_dir`` reads a memory
directory the way ``kxm context memory sync`` does. Who may call which is in
``proto/kxm/v1/context_service.proto``: an operator promotes, rejects and deletes; a project token
or an agent reads its own project's context; ``project`` left empty is the credential's.

Kinds, authorities, confidences, scopes, statuses and source types may be given as the proto enums
or as their spec names, any case, ``-`` or ``_``: ``"evidence"`` (or ``"EVIDENCE"``,
``"CONTEXT_KIND_EVIDENCE"``), ``"instruction"``, ``"verified"``; a name that names nothing is a
ValueError before any call is made. ``context_item`` builds an item from keyword arguments and
``item_from_json`` from its JSON shape (``kxm.context-item.v1``: camelCase names, RFC 3339 times).
``propose_state`` always carries a ``request_id`` (one made per call when none is given), so a
proposal repeated after a lost answer is made once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeAlias, TypeVar

from google.protobuf import struct_pb2

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import context_service_pb2_grpc
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc.client.base import Area
from kxm_grpc.client.journal import SinceLike, timestamp
from kxm_grpc.client.workflows import new_request_id

EnumT = TypeVar("EnumT", bound=int)

KindLike: TypeAlias = "epb.ContextKind.ValueType | str"
"""A kind: the enum, or ``"evidence"``, ``"state"``, ``"episode"``, ``"knowledge"``, ``"skill"``."""
AuthorityLike: TypeAlias = "epb.ContextAuthority.ValueType | str"
"""An authority: the enum, or ``"policy"``, ``"instruction"``, ``"evidence"``, ``"hypothesis"``."""
ConfidenceLike: TypeAlias = "epb.ContextConfidence.ValueType | str"
"""A confidence: the enum, or ``"verified"``, ``"probable"``, ``"uncertain"``."""
ScopeLike: TypeAlias = "epb.ContextScope.ValueType | str"
"""A scope: the enum, or ``"agent"``, ``"project"``, ``"run"``, ``"operator"``."""
StatusLike: TypeAlias = "epb.ContextStatus.ValueType | str"
"""A status: the enum, or ``"current"``, ``"superseded"``, ``"proposed"``, ``"rejected"``."""
SourceTypeLike: TypeAlias = "epb.ContextSourceType.ValueType | str"
"""A source type: the enum, or ``"human"``, ``"git"``, ``"workflow"``, ``"tool"``, ``"peer"``,
``"external"``, ``"derived"``."""


def _names(items: Iterable[tuple[str, EnumT]], prefix: str) -> dict[str, EnumT]:
    return {name.removeprefix(prefix): value for name, value in items if value}


_KINDS = _names(epb.ContextKind.items(), "CONTEXT_KIND_")
_AUTHORITIES = _names(epb.ContextAuthority.items(), "CONTEXT_AUTHORITY_")
_CONFIDENCES = _names(epb.ContextConfidence.items(), "CONTEXT_CONFIDENCE_")
_SCOPES = _names(epb.ContextScope.items(), "CONTEXT_SCOPE_")
_STATUSES = _names(epb.ContextStatus.items(), "CONTEXT_STATUS_")
_SOURCE_TYPES = _names(epb.ContextSourceType.items(), "CONTEXT_SOURCE_TYPE_")


def _named(value: EnumT | str | None, names: Mapping[str, EnumT], prefix: str, what: str) -> EnumT | int:
    """The enum number of an enum value or a name (None: 0, unset)."""
    if value is None:
        return 0
    if not isinstance(value, str):
        return value
    name = value.strip().upper().replace("-", "_").removeprefix(prefix)
    try:
        return names[name]
    except KeyError:
        allowed = ", ".join(key.lower() for key in names)
        raise ValueError(f"{what} must be one of {allowed}, not {value!r}") from None


def context_kind(value: KindLike) -> epb.ContextKind.ValueType:
    """The ``ContextKind`` of an enum value or its name.

    Raises:
        ValueError: a string that names no kind.
    """
    return epb.ContextKind.ValueType(_named(value, _KINDS, "CONTEXT_KIND_", "kind"))


def context_authority(value: AuthorityLike | None) -> epb.ContextAuthority.ValueType:
    """The ``ContextAuthority`` of an enum value or its name (None: unset).

    Raises:
        ValueError: a string that names no authority.
    """
    return epb.ContextAuthority.ValueType(_named(value, _AUTHORITIES, "CONTEXT_AUTHORITY_", "authority"))


def context_confidence(value: ConfidenceLike | None) -> epb.ContextConfidence.ValueType:
    """The ``ContextConfidence`` of an enum value or its name (None: unset).

    Raises:
        ValueError: a string that names no confidence.
    """
    return epb.ContextConfidence.ValueType(_named(value, _CONFIDENCES, "CONTEXT_CONFIDENCE_", "confidence"))


def _strings(values: str | Iterable[str]) -> list[str]:
    """An iterable of strings as a list (a single string is one item, not its characters)."""
    return [values] if isinstance(values, str) else [*values]


_SKILL_STATES = _names(pb.SkillState.items(), "SKILL_STATE_")
_EVALUATION_KINDS = _names(pb.SkillEvaluationKind.items(), "SKILL_EVALUATION_KIND_")
SkillStateLike: TypeAlias = "pb.SkillState.ValueType | str"
"""A skill state: the enum, or ``"candidate"``, ``"promoted"``, ``"quarantined"``, ``"rejected"``."""
EvaluationKindLike: TypeAlias = "pb.SkillEvaluationKind.ValueType | str"
"""An evaluation kind: the enum, or ``"static-review"``, ``"sandbox"``, ``"functional"``, ``"safety"``,
``"optimization"``."""


def skill_state(value: SkillStateLike | None) -> pb.SkillState.ValueType:
    """A skill state from the enum or its name (None: unspecified, every state).

    Raises:
        ValueError: a name that names no state.
    """
    return pb.SkillState.ValueType(_named(value, _SKILL_STATES, "SKILL_STATE_", "skill state"))


def evaluation_kind(value: EvaluationKindLike) -> pb.SkillEvaluationKind.ValueType:
    """An evaluation kind from the enum or its name (``static-review`` or ``STATIC_REVIEW``).

    Raises:
        ValueError: a name that names no kind.
    """
    return pb.SkillEvaluationKind.ValueType(
        _named(value, _EVALUATION_KINDS, "SKILL_EVALUATION_KIND_", "evaluation kind")
    )


def context_item(
    item_id: str,
    kind: KindLike,
    summary: str,
    *,
    project: str = "",
    source_type: SourceTypeLike | None = None,
    source_ref: str = "",
    derived_from: str | Iterable[str] = (),
    authority: AuthorityLike | None = None,
    confidence: ConfidenceLike | None = None,
    scope: ScopeLike | None = None,
    status: StatusLike | None = None,
    state_key: str = "",
    observed_at: SinceLike | None = None,
    valid_from: SinceLike | None = None,
    valid_until: SinceLike | None = None,
    supersedes: str | Iterable[str] = (),
    evidence_refs: str | Iterable[str] = (),
) -> epb.ContextItem:
    """A ``ContextItem`` message. Left unset, the hub fills in the project (the request's), the
    source type (the caller's origin: ``peer``, or ``human`` for an operator), the authority
    (evidence) and the confidence (probable).

    Raises:
        ValueError: an enum name that names nothing, or a time that is not RFC 3339.
    """
    return epb.ContextItem(
        id=item_id,
        kind=context_kind(kind),
        project=project,
        summary=summary,
        provenance=epb.ContextProvenance(
            source_type=epb.ContextSourceType.ValueType(
                _named(source_type, _SOURCE_TYPES, "CONTEXT_SOURCE_TYPE_", "sourceType")
            ),
            source_ref=source_ref,
            derived_from=_strings(derived_from),
        ),
        authority=context_authority(authority),
        confidence=context_confidence(confidence),
        scope=epb.ContextScope.ValueType(_named(scope, _SCOPES, "CONTEXT_SCOPE_", "scope")),
        status=epb.ContextStatus.ValueType(_named(status, _STATUSES, "CONTEXT_STATUS_", "status")),
        state_key=state_key,
        observe_time=timestamp(observed_at) if observed_at is not None else None,
        valid_from_time=timestamp(valid_from) if valid_from is not None else None,
        valid_until_time=timestamp(valid_until) if valid_until is not None else None,
        supersedes=_strings(supersedes),
        evidence_refs=_strings(evidence_refs),
    )


_JSON_FIELDS = frozenset(
    {
        "id",
        "kind",
        "project",
        "summary",
        "provenance",
        "authority",
        "confidence",
        "scope",
        "status",
        "stateKey",
        "observedAt",
        "validFrom",
        "validUntil",
        "supersedes",
        "evidenceRefs",
    }
)


def item_from_json(document: Mapping[str, Any]) -> epb.ContextItem:
    """A ``ContextItem`` message of an item's JSON shape (``kxm.context-item.v1``, as ``kxm context
    put`` reads it): ``{"id", "kind", "summary", "provenance": {"sourceType", "sourceRef",
    "derivedFrom"}, "authority", "confidence", "scope", "status", "stateKey", "observedAt", ...}``.

    Raises:
        ValueError: a field the shape does not have (the hub would refuse a control-plane name such
            as ``permissions`` anyway), a value of the wrong type, or an enum name naming nothing.
    """
    unknown = sorted(set(document) - _JSON_FIELDS)
    if unknown:
        raise ValueError(f"a context item has no field {unknown[0]!r}")
    provenance = document.get("provenance") or {}
    if not isinstance(provenance, Mapping):
        raise ValueError("provenance must be an object")
    for name in ("id", "kind", "summary"):
        if not isinstance(document.get(name), str):
            raise ValueError(f"{name} must be a string")
    return context_item(
        document["id"],
        document["kind"],
        document["summary"],
        project=document.get("project") or "",
        source_type=provenance.get("sourceType"),
        source_ref=provenance.get("sourceRef") or "",
        derived_from=provenance.get("derivedFrom") or (),
        authority=document.get("authority"),
        confidence=document.get("confidence"),
        scope=document.get("scope"),
        status=document.get("status"),
        state_key=document.get("stateKey") or "",
        observed_at=document.get("observedAt"),
        valid_from=document.get("validFrom"),
        valid_until=document.get("validUntil"),
        supersedes=document.get("supersedes") or (),
        evidence_refs=document.get("evidenceRefs") or (),
    )


class Context(Area):
    """kxm.v1.ContextService: items, packets, recall, temporal state, episodes and explanations."""

    SERVICE: ClassVar[str] = "kxm.v1.ContextService"

    def _rpc(self) -> context_service_pb2_grpc.ContextServiceAsyncStub:
        return self._hub._stub(context_service_pb2_grpc.ContextServiceStub)

    async def put_items(
        self, items: Iterable[epb.ContextItem], *, project: str = "", timeout: float | None = None
    ) -> pb.PutItemsResponse:
        """Store 1 to 256 items (``context_item``, ``item_from_json``) together or not at all,
        each inserted or replacing the item with its (project, id); the answer holds them as stored.

        Raises:
            InvalidArgument: (INVALID_CONTEXT_ITEM, INVALID_CONTEXT_FIELD) an item breaks a rule
                (metadata ``index``, ``field``); (CONTEXT_LIMITS_EXCEEDED) no items, more than 256,
                or more than 64 ids in a list.
            PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION) an authority or source type above the
                caller's origin; (CONTEXT_ISOLATION_VIOLATION) another project, or ``_shared``
                without an operator.
        """
        return await self._hub._call(
            self._rpc().PutItems, pb.PutItemsRequest(project=project, items=list(items)), timeout=timeout
        )

    async def get_packet(
        self,
        role: str,
        task: str,
        *,
        project: str = "",
        budget_tokens: int = 0,
        include_kinds: Iterable[KindLike] = (),
        workflow_run_id: str = "",
        stage_id: str = "",
        working_state: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> pb.GetContextPacketResponse:
        """The packet of ``role`` for ``task``: the same pool and request give the same packet and
        ``packet_id``. ``budget_tokens`` 0 is the role's budget; ``include_kinds`` replaces the
        role's kinds; ``working_state`` (at most 64 KiB as JSON) comes back verbatim.

        Raises:
            ValueError: a kind naming nothing.
            InvalidArgument: (INVALID_CONTEXT_REQUEST) the request breaks a rule (metadata ``field``).
            PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) another project.
        """
        state = None
        if working_state is not None:
            state = struct_pb2.Struct()
            state.update(dict(working_state))
        request = epb.ContextRequest(
            project=project,
            role=role,
            task=task,
            workflow_run_id=workflow_run_id,
            stage_id=stage_id,
            budget_tokens=budget_tokens,
            include_kinds=[context_kind(kind) for kind in include_kinds],
        )
        return await self._hub._call(
            self._rpc().GetContextPacket,
            pb.GetContextPacketRequest(request=request, working_state=state),
            timeout=timeout,
        )

    async def recall(
        self,
        query: str = "",
        *,
        project: str = "",
        kinds: Iterable[KindLike] = (),
        limit: int = 0,
        timeout: float | None = None,
    ) -> pb.RecallResponse:
        """Items matching ``query`` (at most 500 characters; empty: every item), metadata only:
        phrase hits first, then BM25 score, then id; ``limit`` 1 to 100 (0: 25).

        Raises:
            ValueError: a kind naming nothing.
            InvalidArgument: (INVALID_CONTEXT_REQUEST) a query or limit out of range, a kind twice.
            PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) another project.
        """
        return await self._hub._call(
            self._rpc().Recall,
            pb.RecallRequest(project=project, query=query, kinds=[context_kind(kind) for kind in kinds], limit=limit),
            timeout=timeout,
        )

    async def get_state(
        self,
        state_key: str,
        *,
        project: str = "",
        as_of: SinceLike | None = None,
        include_history: bool = False,
        timeout: float | None = None,
    ) -> pb.GetStateResponse:
        """What a single-valued state key held at ``as_of`` (None: now); ``item`` unset when nothing
        was in force. A proposal is never current truth.

        Raises:
            ValueError: ``as_of`` is text that is not RFC 3339.
            InvalidArgument: (INVALID_STATE_REQUEST) a malformed key; (STATE_KEY_SET_VALUED) a
                key ending with ``[]``.
            FailedPrecondition: (STATE_CONTRADICTION) more than one current item is active.
            PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) another project.
        """
        return await self._hub._call(
            self._rpc().GetState,
            pb.GetStateRequest(
                project=project,
                state_key=state_key,
                as_of_time=timestamp(as_of) if as_of is not None else None,
                include_history=include_history,
            ),
            timeout=timeout,
        )

    async def list_state_set(
        self, state_key: str, *, project: str = "", as_of: SinceLike | None = None, timeout: float | None = None
    ) -> pb.ListStateSetResponse:
        """The current members of a set-valued state key (ending with ``[]``) at ``as_of``, by id.

        Raises:
            ValueError: ``as_of`` is text that is not RFC 3339.
            InvalidArgument: (INVALID_STATE_REQUEST) a malformed key; (STATE_KEY_SINGLE_VALUED) a
                single-valued key.
            PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) another project.
        """
        return await self._hub._call(
            self._rpc().ListStateSet,
            pb.ListStateSetRequest(
                project=project, state_key=state_key, as_of_time=timestamp(as_of) if as_of is not None else None
            ),
            timeout=timeout,
        )

    async def propose_state(
        self,
        state_key: str,
        summary: str,
        *,
        evidence_refs: str | Iterable[str],
        project: str = "",
        authority: AuthorityLike | None = None,
        confidence: ConfidenceLike | None = None,
        supersedes: str | Iterable[str] = (),
        proposed_by: str = "",
        request_id: str | None = None,
        timeout: float | None = None,
    ) -> pb.ProposeStateResponse:
        """Propose a change of a state key: a ``proposed`` item, never current truth until an
        operator other than the proposer promotes it. ``request_id`` left out gets one of its own
        (``req_`` and 32 hex digits), which the channel's retries resend.

        Raises:
            ValueError: an authority or confidence naming nothing.
            InvalidArgument: (INVALID_STATE_REQUEST, INVALID_CONTEXT_ITEM) an empty key or summary,
                a text over its limit; (STATE_PROMOTION_INVALID) no evidence ref or more than 32.
            PermissionDenied: (CONTEXT_AUTHORITY_VIOLATION) an authority above the caller's origin;
                (STATE_PROPOSER_MISMATCH) ``proposed_by`` names someone else;
                (CONTEXT_ISOLATION_VIOLATION) another project.
            Aborted: (IDEMPOTENCY_CONFLICT) ``request_id`` was used for another proposal.
        """
        return await self._hub._call(
            self._rpc().ProposeState,
            pb.ProposeStateRequest(
                project=project,
                state_key=state_key,
                summary=summary,
                authority=context_authority(authority),
                confidence=context_confidence(confidence),
                evidence_refs=_strings(evidence_refs),
                supersedes=_strings(supersedes),
                proposed_by=proposed_by,
                request_id=request_id or new_request_id(),
            ),
            timeout=timeout,
        )

    async def promote_state(
        self,
        proposal_id: str,
        *,
        evidence_refs: str | Iterable[str],
        project: str = "",
        timeout: float | None = None,
    ) -> pb.PromoteStateResponse:
        """Make a proposal current truth (an operator other than its proposer): a new current item
        is minted and the proposal closed.

        Raises:
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
            NotFound: (STATE_PROPOSAL_NOT_FOUND) no proposal of the project has this id.
            FailedPrecondition: (STATE_PROPOSAL_NOT_PROMOTABLE) it was decided already.
            InvalidArgument: (STATE_PROMOTION_INVALID) no evidence ref, more than 32, or the
                operator is the proposer.
        """
        return await self._hub._call(
            self._rpc().PromoteState,
            pb.PromoteStateRequest(project=project, proposal_id=proposal_id, evidence_refs=_strings(evidence_refs)),
            timeout=timeout,
        )

    async def reject_state(
        self, proposal_id: str, *, project: str = "", reason: str = "", timeout: float | None = None
    ) -> pb.RejectStateResponse:
        """Close a proposal without promoting it (an operator; ``reason`` at most 1,000 characters).

        Raises:
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
            NotFound: (STATE_PROPOSAL_NOT_FOUND) no proposal of the project has this id.
            FailedPrecondition: (STATE_PROPOSAL_NOT_PROMOTABLE) it was decided already.
            InvalidArgument: (STATE_PROMOTION_INVALID) a reason over 1,000 characters.
        """
        return await self._hub._call(
            self._rpc().RejectState,
            pb.RejectStateRequest(project=project, proposal_id=proposal_id, reason=reason),
            timeout=timeout,
        )

    async def list_episodes(
        self, *, project: str = "", workflow_run_id: str = "", timeout: float | None = None
    ) -> pb.ListEpisodesResponse:
        """The project's episodes (its runs' error, lesson, observation and experiment entries as
        items), oldest first, at most 50; ``workflow_run_id`` keeps one run's.

        Raises:
            InvalidArgument: (INVALID_CONTEXT_REQUEST) a malformed run id.
            PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) another project.
        """
        return await self._hub._call(
            self._rpc().ListEpisodes,
            pb.ListEpisodesRequest(project=project, workflow_run_id=workflow_run_id),
            timeout=timeout,
        )

    async def explain_item(
        self, item_id: str, *, project: str = "", timeout: float | None = None
    ) -> pb.ExplainItemResponse:
        """Where an item came from: its lineage, evidence refs and sources; ``found`` false for an
        unknown id (no error).

        Raises:
            InvalidArgument: (INVALID_CONTEXT_REQUEST) an empty or over-long id.
            PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) another project.
        """
        return await self._hub._call(
            self._rpc().ExplainItem, pb.ExplainItemRequest(project=project, item_id=item_id), timeout=timeout
        )

    async def delete_items(
        self, item_ids: str | Iterable[str], *, project: str = "", shared: bool = False, timeout: float | None = None
    ) -> pb.DeleteItemsResponse:
        """Remove 1 to 256 items of the project (of ``_shared`` with ``shared``), an operator;
        ``deleted_count`` counts the ids that named an item.

        Raises:
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
            InvalidArgument: (CONTEXT_LIMITS_EXCEEDED) no id, or more than 256.
        """
        return await self._hub._call(
            self._rpc().DeleteItems,
            pb.DeleteItemsRequest(project=project, item_ids=_strings(item_ids), shared=shared),
            timeout=timeout,
        )

    async def create_skill(
        self,
        name: str,
        content: str,
        *,
        harness: str,
        models: str | Iterable[str],
        run_ids: str | Iterable[str] = (),
        journal_entry_ids: str | Iterable[str] = (),
        evidence_receipts: str | Iterable[str] = (),
        description: str = "",
        supersedes: str = "",
        version: int = 0,
        project: str = "",
        timeout: float | None = None,
    ) -> pb.CreateSkillResponse:
        """Store a skill candidate (its author: the caller): ``content`` is its SKILL.md, stored
        redacted with ``name`` and ``description`` ensured in its front matter; its id is the slug of
        the name, ``.``, and 12 hex digits of the text's SHA-256. At least one source is required.

        Raises:
            InvalidArgument: (INVALID_SKILL_REQUEST, INVALID_SKILL_FRONTMATTER) a field breaks a rule;
                (SKILL_SOURCES_REQUIRED) no source, or more than 32 of a kind.
            AlreadyExists: (SKILL_CANDIDATE_EXISTS) the project has a skill with this content.
        """
        request = pb.CreateSkillRequest(
            project=project,
            name=name,
            description=description,
            content=content,
            sources=pb.SkillSources(
                run_ids=_strings(run_ids),
                journal_entry_ids=_strings(journal_entry_ids),
                evidence_receipts=_strings(evidence_receipts),
            ),
            compatibility=pb.SkillCompatibility(harness=harness, models=_strings(models)),
            supersedes=supersedes,
            version=version,
        )
        return await self._hub._call(self._rpc().CreateSkill, request, timeout=timeout)

    async def evaluate_skill(
        self,
        skill_id: str,
        kind: EvaluationKindLike,
        *,
        passed: bool,
        details: str = "",
        project: str = "",
        timeout: float | None = None,
    ) -> pb.EvaluateSkillResponse:
        """Record an evaluation of a candidate (an operator); a failed functional or safety one
        quarantines it.

        Raises:
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
            NotFound: (SKILL_NOT_FOUND) no skill of the project has this id.
            FailedPrecondition: (SKILL_NOT_PROMOTABLE) not a candidate; (SKILL_OPTIMIZATION_DISABLED)
                an optimization evaluation on a hub that refuses them.
            InvalidArgument: (INVALID_SKILL_REQUEST) details over 2,000 characters.
        """
        request = pb.EvaluateSkillRequest(
            project=project, skill_id=skill_id, kind=evaluation_kind(kind), passed=passed, details=details
        )
        return await self._hub._call(self._rpc().EvaluateSkill, request, timeout=timeout)

    async def promote_skill(
        self,
        skill_id: str,
        *,
        evidence_refs: str | Iterable[str],
        project: str = "",
        timeout: float | None = None,
    ) -> pb.PromoteSkillResponse:
        """Promote a candidate (an operator other than its author): packets carry it from then on.

        Raises:
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
            NotFound: (SKILL_NOT_FOUND) no skill of the project has this id.
            InvalidArgument: (SKILL_PROMOTION_INVALID) no evidence, or the operator is the author.
            FailedPrecondition: (SKILL_NOT_PROMOTABLE) not a candidate; (SKILL_EVALUATIONS_INCOMPLETE)
                a required evaluation's latest is missing or failed; (SKILL_INTEGRITY_VIOLATION,
                INVALID_SKILL_FRONTMATTER) its content does not verify.
        """
        request = pb.PromoteSkillRequest(project=project, skill_id=skill_id, evidence_refs=_strings(evidence_refs))
        return await self._hub._call(self._rpc().PromoteSkill, request, timeout=timeout)

    async def reject_skill(
        self, skill_id: str, *, reason: str = "", project: str = "", timeout: float | None = None
    ) -> pb.RejectSkillResponse:
        """Reject a candidate or a quarantined skill, or retire a promoted one (an operator).

        Raises:
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
            NotFound: (SKILL_NOT_FOUND) no skill of the project has this id.
            FailedPrecondition: (SKILL_NOT_PROMOTABLE) it is rejected already.
        """
        request = pb.RejectSkillRequest(project=project, skill_id=skill_id, reason=reason)
        return await self._hub._call(self._rpc().RejectSkill, request, timeout=timeout)

    async def get_skill(self, skill_id: str, *, project: str = "", timeout: float | None = None) -> pb.GetSkillResponse:
        """A skill of the project with its whole history, oldest event first.

        Raises:
            NotFound: (SKILL_NOT_FOUND) no skill of the project has this id.
        """
        return await self._hub._call(
            self._rpc().GetSkill, pb.GetSkillRequest(project=project, skill_id=skill_id), timeout=timeout
        )

    async def list_skills(
        self,
        *,
        state: SkillStateLike | None = None,
        page_size: int = 0,
        page_token: str = "",
        project: str = "",
        timeout: float | None = None,
    ) -> pb.ListSkillsResponse:
        """A page of the project's skills (of ``state``; None: every state) by id, without content.

        Raises:
            InvalidArgument: (INVALID_PAGE_TOKEN) a token of another query.
        """
        request = pb.ListSkillsRequest(
            project=project, state=skill_state(state), page_size=page_size, page_token=page_token
        )
        return await self._hub._call(self._rpc().ListSkills, request, timeout=timeout)

    async def sync_memory(
        self,
        files: Iterable[pb.MemoryFile | tuple[str, str]],
        *,
        allow_empty: bool = False,
        project: str = "",
        timeout: float | None = None,
    ) -> pb.SyncMemoryResponse:
        """Replace the project's memory records with ``files`` (``MemoryFile`` or (path, text)
        pairs; ``read_memory_dir`` reads a directory), an operator: every file is checked first
        and one bad file refuses the sync, which then writes nothing. No file empties the memory
        only with ``allow_empty``.

        Raises:
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; (CONTEXT_AUTHORITY_VIOLATION)
                a control-plane field, or an authority above the record's source type's.
            InvalidArgument: (INVALID_MEMORY_RECORD) a malformed file (metadata ``path``, ``index``,
                ``field``); (CONTEXT_LIMITS_EXCEEDED) no file without ``allow_empty``, more than 128,
                or too large.
            FailedPrecondition: (MEMORY_RECORD_OWNED) an operator-scope record another project's
                sync owns.
        """
        messages = [
            file if isinstance(file, pb.MemoryFile) else pb.MemoryFile(path=file[0], content=file[1]) for file in files
        ]
        return await self._hub._call(
            self._rpc().SyncMemory,
            pb.SyncMemoryRequest(project=project, files=messages, allow_empty=allow_empty),
            timeout=timeout,
        )

    async def list_memory(self, *, project: str = "", timeout: float | None = None) -> pb.ListMemoryResponse:
        """The project's stored memory records (metadata only, never summaries) and its revision.

        Raises:
            PermissionDenied: (CONTEXT_ISOLATION_VIOLATION) another project.
        """
        return await self._hub._call(self._rpc().ListMemory, pb.ListMemoryRequest(project=project), timeout=timeout)

    async def propose_memory(
        self,
        summary: str,
        *,
        scope: ScopeLike | None = None,
        kind: str = "",
        evidence_refs: str | Iterable[str] = (),
        project: str = "",
        timeout: float | None = None,
    ) -> pb.ProposeMemoryResponse:
        """Note a memory candidate (``kxm memory note``): kept for an operator's review, never in
        a packet until promoted into a record file and synced.

        Raises:
            InvalidArgument: (INVALID_MEMORY_RECORD) an empty or over-long summary or kind.
            ResourceExhausted: (CONTEXT_LIMITS_EXCEEDED) 64 candidates of the project are open.
            ValueError: a scope that names nothing (before any call).
        """
        request = pb.ProposeMemoryRequest(
            project=project,
            scope=epb.ContextScope.ValueType(_named(scope, _SCOPES, "CONTEXT_SCOPE_", "scope")),
            kind=kind,
            summary=summary,
            evidence_refs=_strings(evidence_refs),
        )
        return await self._hub._call(self._rpc().ProposeMemory, request, timeout=timeout)

    async def promote_memory(
        self,
        candidate_id: str,
        record_id: str,
        *,
        authority: str = "",
        confidence: ConfidenceLike | None = None,
        project: str = "",
        timeout: float | None = None,
    ) -> pb.PromoteMemoryResponse:
        """Close a candidate as promoted (an operator other than its proposer) and get the record
        file it makes (``path``, ``content``): add it to the memory directory and sync.

        Raises:
            NotFound: (MEMORY_CANDIDATE_NOT_FOUND) no candidate of the project has this id.
            FailedPrecondition: (MEMORY_CANDIDATE_NOT_PROMOTABLE) decided already, or yours.
            InvalidArgument: (INVALID_MEMORY_RECORD) a malformed record id or authority.
        """
        request = pb.PromoteMemoryRequest(
            project=project,
            candidate_id=candidate_id,
            record_id=record_id,
            authority=authority,
            confidence=context_confidence(confidence),
        )
        return await self._hub._call(self._rpc().PromoteMemory, request, timeout=timeout)

    async def reject_memory(
        self, candidate_id: str, *, reason: str = "", project: str = "", timeout: float | None = None
    ) -> pb.RejectMemoryResponse:
        """Close a candidate without promoting it (an operator).

        Raises:
            NotFound: (MEMORY_CANDIDATE_NOT_FOUND) no candidate of the project has this id.
            FailedPrecondition: (MEMORY_CANDIDATE_NOT_PROMOTABLE) decided already.
        """
        return await self._hub._call(
            self._rpc().RejectMemory,
            pb.RejectMemoryRequest(project=project, candidate_id=candidate_id, reason=reason),
            timeout=timeout,
        )


def read_memory_dir(directory: str | Path) -> list[pb.MemoryFile]:
    """The memory files of a directory as SyncMemory takes them: its top-level ``*.md`` files (not
    hidden ones, never ``candidates/`` or any other subdirectory), by name, as UTF-8 text.

    Raises:
        OSError: the directory or a file cannot be read.
        ValueError: a file is not UTF-8.
    """
    root = Path(directory)
    files: list[pb.MemoryFile] = []
    for path in sorted(root.iterdir(), key=lambda entry: entry.name):
        if not path.name.endswith(".md") or path.name.startswith(".") or not path.is_file():
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 ({error.reason})") from None
        files.append(pb.MemoryFile(path=path.name, content=text))
    return files
