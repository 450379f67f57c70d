"""``hub.workflows.journal``: a run's learning journal, its promotions, reports, retrospective and chain.

One method per journal RPC of WorkflowService: ``record`` (RecordJournal), ``list`` (ListJournal,
one page; ``records`` iterates over every page), ``promote`` (PromoteJournalEntry), ``report``
(GetImprovementReport), ``export`` (ExportRetrospective) and ``verify`` (VerifyJournal). Who may
call which is in ``proto/kxm/v1/workflow_service.proto``: the run's coordinator records; an
operator promotes (never the entry's author); whoever may read the run lists its journal, exports
its retrospective and verifies it; any caller of a project reads the project's report.

Categories, areas, severities and promotion decisions may be given as the proto enums or as their
spec names, any case, ``-`` or ``_``: ``"skill-candidate"`` (or ``"SKILL_CANDIDATE"``,
``"JOURNAL_CATEGORY_SKILL_CANDIDATE"``), ``"gates"``, ``"warning"``, ``"approved"``; a name that
names nothing is a ValueError before any call is made. ``record`` always carries a ``request_id``
(one made per call, ``req_`` and 32 hex digits, when the caller gives none), so a record repeated
after a lost answer is recorded once.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import ClassVar, TypeAlias, TypeVar

from google.protobuf import timestamp_pb2

from kxm_grpc._gen.kxm.v1 import workflow_journal_pb2 as jpb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2_grpc
from kxm_grpc.client.base import Area
from kxm_grpc.client.workflows import new_request_id

EnumT = TypeVar("EnumT", bound=int)


def _spec_name(proto_name: str, prefix: str) -> str:
    """``JOURNAL_CATEGORY_SKILL_CANDIDATE`` -> ``skill-candidate``."""
    return proto_name.removeprefix(prefix).lower().replace("_", "-")


_CATEGORIES: dict[str, jpb.JournalCategory.ValueType] = {
    _spec_name(name, "JOURNAL_CATEGORY_"): value for name, value in jpb.JournalCategory.items() if value
}
_AREAS: dict[str, jpb.ImprovementArea.ValueType] = {
    _spec_name(name, "IMPROVEMENT_AREA_"): value for name, value in jpb.ImprovementArea.items() if value
}
_SEVERITIES: dict[str, jpb.JournalSeverity.ValueType] = {
    _spec_name(name, "JOURNAL_SEVERITY_"): value for name, value in jpb.JournalSeverity.items() if value
}
_DECISIONS: dict[str, jpb.PromotionStatus.ValueType] = {
    "approved": jpb.PROMOTION_STATUS_APPROVED,
    "rejected": jpb.PROMOTION_STATUS_REJECTED,
    "quarantined": jpb.PROMOTION_STATUS_QUARANTINED,
}

CategoryLike: TypeAlias = "jpb.JournalCategory.ValueType | str"
"""A journal category: the enum, or ``"plan"``, ``"decision"``, ... ``"state-change"``, ``"skill-candidate"``."""
AreaLike: TypeAlias = "jpb.ImprovementArea.ValueType | str"
"""An improvement area: the enum, or ``"harness"``, ``"gates"``, ``"implementation"``, ``"workflow"``,
``"documentation"``, ``"security"``, ``"other"``."""
SeverityLike: TypeAlias = "jpb.JournalSeverity.ValueType | str"
"""A severity: the enum, or ``"info"``, ``"warning"``, ``"error"``."""
DecisionLike: TypeAlias = "jpb.PromotionStatus.ValueType | str"
"""A promotion decision: the enum, or ``"approved"``, ``"rejected"``, ``"quarantined"``."""
SinceLike: TypeAlias = "datetime.datetime | timestamp_pb2.Timestamp | str"
"""A point in time: a datetime (naive is UTC), a Timestamp, or RFC 3339 text (``2025-01-31T12:00:00Z``)."""


def _named(value: EnumT | str, names: Mapping[str, EnumT], prefix: str, what: str) -> EnumT:
    if not isinstance(value, str):
        return value
    name = _spec_name(value.strip().upper(), prefix)
    try:
        return names[name]
    except KeyError:
        raise ValueError(f"{what} must be one of {', '.join(names)}, not {value!r}") from None


def journal_category(value: CategoryLike) -> jpb.JournalCategory.ValueType:
    """The ``JournalCategory`` of an enum value or its name (``skill-candidate``, ``SKILL_CANDIDATE``,
    ``JOURNAL_CATEGORY_SKILL_CANDIDATE``, any case).

    Raises:
        ValueError: a string that names no category.
    """
    return _named(value, _CATEGORIES, "JOURNAL_CATEGORY_", "category")


def improvement_area(value: AreaLike | None) -> jpb.ImprovementArea.ValueType:
    """The ``ImprovementArea`` of an enum value or its name (None: unspecified, the stage's declared area).

    Raises:
        ValueError: a string that names no area.
    """
    if value is None:
        return jpb.IMPROVEMENT_AREA_UNSPECIFIED
    return _named(value, _AREAS, "IMPROVEMENT_AREA_", "area")


def journal_severity(value: SeverityLike | None) -> jpb.JournalSeverity.ValueType:
    """The ``JournalSeverity`` of an enum value or its name (None: unspecified, which the hub takes as info).

    Raises:
        ValueError: a string that names no severity.
    """
    if value is None:
        return jpb.JOURNAL_SEVERITY_UNSPECIFIED
    return _named(value, _SEVERITIES, "JOURNAL_SEVERITY_", "severity")


def promotion_decision(value: DecisionLike) -> jpb.PromotionStatus.ValueType:
    """The ``PromotionStatus`` a promotion decides, of an enum value or its name (``approved``,
    ``rejected``, ``quarantined``, ``PROMOTION_STATUS_APPROVED``, any case).

    Raises:
        ValueError: a string that names no decision (``proposed`` is none: it is where an entry starts).
    """
    return _named(value, _DECISIONS, "PROMOTION_STATUS_", "to")


def timestamp(value: SinceLike) -> timestamp_pb2.Timestamp:
    """A Timestamp of a datetime (naive is UTC), a Timestamp, or RFC 3339 text.

    Raises:
        ValueError: text that is not RFC 3339.
    """
    if isinstance(value, timestamp_pb2.Timestamp):
        return value
    stamp = timestamp_pb2.Timestamp()
    if isinstance(value, str):
        try:
            stamp.FromJsonString(value.strip())
        except ValueError as error:
            raise ValueError(f"since must be an RFC 3339 time (2025-01-31T12:00:00Z), not {value!r}: {error}") from None
    else:
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC).replace(tzinfo=None)
        stamp.FromDatetime(value)
    return stamp


def _strings(values: str | Iterable[str]) -> list[str]:
    """An iterable of strings as a list (a single string is one item, not its characters)."""
    return [values] if isinstance(values, str) else [*values]


class WorkflowJournal(Area):
    """kxm.v1.WorkflowService's journal RPCs: ``record``, ``list`` (and ``records``), ``promote``,
    ``report``, ``export``, ``verify``."""

    SERVICE: ClassVar[str] = "kxm.v1.WorkflowService"

    def _rpc(self) -> workflow_service_pb2_grpc.WorkflowServiceAsyncStub:
        return self._hub._stub(workflow_service_pb2_grpc.WorkflowServiceStub)

    async def record(
        self,
        run_id: str,
        category: CategoryLike,
        summary: str,
        *,
        area: AreaLike | None = None,
        severity: SeverityLike | None = None,
        details: str = "",
        evidence: str | Iterable[str] = (),
        related_entry_ids: str | Iterable[str] = (),
        stage_id: str = "",
        request_id: str | None = None,
        timeout: float | None = None,
    ) -> pb.RecordJournalResponse:
        """Record an entry in the run's journal (the run's coordinator), while the run goes on or
        after it ended; the answer's ``record`` is the entry sealed into the run's chain.

        ``category``, ``area`` and ``severity`` as the enums or their names (``"lesson"``,
        ``"gates"``, ``"warning"``). ``area`` left out is the stage's declared area (required
        without a ``stage_id`` whose stage declares one); ``severity`` left out is info. Lessons and
        skill candidates need ``evidence`` (``class:<name>`` names a recurring class for the
        signals). ``related_entry_ids`` are entries of the same run (a decision or lesson naming a
        contradiction resolves it). A stage-bound entry takes the stage's current attempt.

        ``request_id`` as in ``workflows.checkpoint``: the hub answers an id it has seen for this
        run with the first entry (``repeated`` set) and records nothing again. Left out, the call
        gets one of its own (``req_`` and 32 hex digits), which the channel's retries resend.

        Raises:
            ValueError: ``category``, ``area`` or ``severity`` names nothing.
            PermissionDenied: (WORKFLOW_FORBIDDEN) the caller is not the run's coordinator;
                (CREDENTIAL_KIND_DENIED) the call lacks an agent identity.
            NotFound: (WORKFLOW_NOT_FOUND) no such run.
            InvalidArgument: (INVALID_IMPROVEMENT_AREA) no area and no stage declaring one;
                (JOURNAL_EVIDENCE_REQUIRED) a lesson or skill candidate without evidence;
                (INVALID_JOURNAL_RELATION) the stage or a related entry is not the run's;
                (PROTOCOL_ERROR) an empty summary or a text over its limit.
            Aborted: (IDEMPOTENCY_CONFLICT) ``request_id`` was used for another request on this run.
        """
        return await self._hub._call(
            self._rpc().RecordJournal,
            pb.RecordJournalRequest(
                run_id=run_id,
                category=journal_category(category),
                summary=summary,
                area=improvement_area(area),
                severity=journal_severity(severity),
                details=details,
                evidence=_strings(evidence),
                related_entry_ids=_strings(related_entry_ids),
                stage_id=stage_id,
                request_id=request_id or new_request_id(),
            ),
            timeout=timeout,
        )

    async def list(
        self, run_id: str, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> pb.ListJournalResponse:
        """One page of the run's journal in sequence order (entries, with a promotable one's status
        now, and promotion records, each with its chain): at most ``page_size`` (0: 200; at most
        1,000). An agent reads only the journals of the runs it coordinates.

        Raises:
            NotFound, PermissionDenied: as ``workflows.get_run``.
            InvalidArgument: (INVALID_PAGE_TOKEN) the token is malformed or another run's.
        """
        return await self._hub._call(
            self._rpc().ListJournal,
            pb.ListJournalRequest(run_id=run_id, page_size=page_size, page_token=page_token),
            timeout=timeout,
        )

    async def records(
        self, run_id: str, *, page_size: int = 0, timeout: float | None = None
    ) -> AsyncIterator[jpb.JournalRecord]:
        """Every record of the run's journal in sequence order, reading it a page at a time (``list``
        with each page's token; ``timeout`` is each page's deadline).

        Raises:
            As ``list``, when a page is read.
        """
        token = ""
        while True:
            page = await self.list(run_id, page_size=page_size, page_token=token, timeout=timeout)
            for record in page.records:
                yield record
            token = page.next_page_token
            if not token:
                return

    async def promote(
        self,
        entry_id: str,
        to: DecisionLike,
        *,
        evidence_refs: str | Iterable[str],
        reason: str = "",
        timeout: float | None = None,
    ) -> pb.PromoteJournalEntryResponse:
        """Decide a skill candidate, hypothesis or experiment (an operator, never the entry's
        author): ``to`` is ``"approved"``, ``"rejected"``, ``"quarantined"`` or the enum. The
        decision rests on ``evidence_refs`` (at least one), is terminal and is a journal record of
        its own (the answer's ``record``); ``entry`` is the entry with its status now. Not retried
        by a failover client: a repeat would answer JOURNAL_PROMOTION_INVALID for a decision that
        was made.

        Raises:
            ValueError: ``to`` names no decision.
            PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
            NotFound: (JOURNAL_NOT_FOUND) no entry has this id in the caller's project.
            InvalidArgument: (JOURNAL_PROMOTION_INVALID) the category is not promotable, the decider
                is the author, no evidence ref is given, or the entry was decided already
                (metadata ``status``).
        """
        return await self._hub._call(
            self._rpc().PromoteJournalEntry,
            pb.PromoteJournalEntryRequest(
                entry_id=entry_id, to=promotion_decision(to), evidence_refs=_strings(evidence_refs), reason=reason
            ),
            timeout=timeout,
        )

    async def report(
        self,
        *,
        project: str = "",
        since: SinceLike | None = None,
        max_entries: int = 0,
        signal_limit: int = 0,
        timeout: float | None = None,
    ) -> pb.GetImprovementReportResponse:
        """The improvement report of the project's newest entries (every run of the project, whoever
        asks): per area (in the areas' order) what keeps going wrong, and the problems recurring
        across runs ranked (security first, then priority).

        ``project`` is the caller's (empty: the credential's; an operator naming no project with
        the client names it here); ``since`` keeps only the entries recorded at or after it;
        ``max_entries`` is how many of the newest entries are read (0: 10,000; at most 50,000);
        ``signal_limit`` how many signals are returned (0: 20; at most 100).

        Raises:
            ValueError: ``since`` is text that is not RFC 3339.
            InvalidArgument: (PROTOCOL_ERROR) a limit out of range, or ``project`` missing for an
                operator naming none (or naming another project than the caller's).
        """
        return await self._hub._call(
            self._rpc().GetImprovementReport,
            pb.GetImprovementReportRequest(
                project=project,
                since=timestamp(since) if since is not None else None,
                max_entries=max_entries,
                signal_limit=signal_limit,
            ),
            timeout=timeout,
        )

    async def export(self, run_id: str, *, timeout: float | None = None) -> pb.ExportRetrospectiveResponse:
        """The retrospective written when the run ended (``kxm.retrospective.v1``): as a message
        (``retrospective``), as its JSON text (``json``, keys in the document's order) and as
        Markdown (``markdown``).

        Raises:
            NotFound, PermissionDenied: as ``workflows.get_run``.
            FailedPrecondition: (WORKFLOW_NOT_ENDED) the run has not ended.
        """
        return await self._hub._call(
            self._rpc().ExportRetrospective, pb.ExportRetrospectiveRequest(run_id=run_id), timeout=timeout
        )

    async def verify(self, run_id: str, *, timeout: float | None = None) -> pb.VerifyJournalResponse:
        """Verify the run's journal against the hub's journal keys (and, for an ended run, the head its
        retrospective recorded). The answer is a verdict, never an error: ``verdict.intact``, or the
        first record that is not (``problem``, ``breach_sequence``, ``breach_record_id``).

        Raises:
            NotFound, PermissionDenied: as ``workflows.get_run``.
            DataLoss: (STORAGE_CORRUPTED) a stored record is not a journal record at all.
        """
        return await self._hub._call(self._rpc().VerifyJournal, pb.VerifyJournalRequest(run_id=run_id), timeout=timeout)
