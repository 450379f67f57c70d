"""The learning journal: recording, reading, promotion, reports, retrospectives and verification.

Every record of a run's journal is sealed to its predecessor (``journal_chain.seal``) with the
hub's journal keys (``tx.journal_keys``) and appended in the transaction that decides it: an
agent's entry in ``record``'s, an operator's promotion in ``promote``'s, and the hub's own entries
in the transaction of the step they record (``publish`` calls ``write_step_entries``, an approval
calls ``write_approval_entry``). A run that ends gets its retrospective written in that same
transaction (``kxm.retrospective.v1``, with the journal's head at the end), which
``export_retrospective`` reads back and ``verify`` holds the journal to.

Who may do what: the run's coordinator records; whoever may read the run (``check_visible``) lists
its journal, exports its retrospective and verifies it; a named operator (or the bootstrap admin)
promotes; any caller of a project reads the project's improvement report.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kxm_grpc.domain import validation
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token
from kxm_grpc.domain.projects import project_name
from kxm_grpc.domain.secrets import new_id
from kxm_grpc.domain.validation import object_id
from kxm_grpc.domain.workflows import journal as rules
from kxm_grpc.domain.workflows import journal_chain, reports
from kxm_grpc.domain.workflows.journal import EntryDraft, JournalEntry, Promotion, PromotionStatus
from kxm_grpc.domain.workflows.journal_chain import Breach, ChainHead, ChainLink, Problem, Verdict
from kxm_grpc.errors import (
    DataLoss,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Reason,
    invalid_field,
)
from kxm_grpc.services.workflows import steps
from kxm_grpc.services.workflows.journal_writes import (
    all_links,
    append,
    keyring,
    report_entry,
    retrospective_document,
    retrospective_json,
)
from kxm_grpc.services.workflows.runs import MAX_RUN_ID_CHARS, check_visible, forbidden, pinned
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import StoredStep
from kxm_grpc.store.rows.journal import record_to_json

MAX_JOURNAL_PAGE = 1_000
DEFAULT_JOURNAL_PAGE = 200
DEFAULT_REPORT_ENTRIES = 10_000
MAX_REPORT_ENTRIES = 50_000
MAX_SIGNAL_LIMIT = 100


# -- reading --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JournalPage:
    """A page of a run's journal, in sequence order, and each promotable entry's status now."""

    links: tuple[ChainLink, ...]
    states: Mapping[str, PromotionStatus]
    next_page_token: str
    """Empty on the last page."""


def _run_id(run_id: str) -> str:
    return object_id("run_id", run_id, MAX_RUN_ID_CHARS)


async def list_journal(store: Store, caller: Caller, run_id: str, *, size: int, token: str) -> JournalPage:
    """A page of a run's journal (entries and promotion records), at most 1,000 (default 200).

    Raises:
        InvalidArgument: a malformed run id, a negative size, or (INVALID_PAGE_TOKEN) a token
            that is malformed or another run's.
        NotFound, PermissionDenied: as ``check_visible``.
    """
    _run_id(run_id)
    if size < 0:
        raise invalid_field("page_size", "must not be negative")
    limit = min(size or DEFAULT_JOURNAL_PAGE, MAX_JOURNAL_PAGE)
    query = f"journal/{run_id}"
    after = decode_page_token(token, query)
    if after is not None and not after.isdigit():
        raise invalid_field("page_token", "is malformed", reason=Reason.INVALID_PAGE_TOKEN)
    after_sequence = int(after) if after is not None else None

    def work(tx: Tx) -> JournalPage:
        check_visible(caller, tx.workflows.get_run(run_id), run_id)
        fetched = tx.journal.links(run_id, after_sequence=after_sequence, limit=limit + 1)
        page = _within_page_budget(fetched, limit)
        token = encode_page_token(str(page[-1].sequence), query) if len(fetched) > len(page) else ""
        return JournalPage(tuple(page), _entry_states(tx, page), token)

    return await store.read(work)


MAX_PAGE_BYTES = 2 * 1024 * 1024
"""A page ends before its records' JSON passes 2 MiB (a record is at most about 80 KiB), so an
answer stays well within gRPC's 4 MiB."""


def _within_page_budget(links: list[ChainLink], limit: int) -> list[ChainLink]:
    """The first ``limit`` links, fewer when their JSON would pass ``MAX_PAGE_BYTES`` (at least one)."""
    kept: list[ChainLink] = []
    size = 0
    for link in links[:limit]:
        size += len(record_to_json(link.record))
        if kept and size > MAX_PAGE_BYTES:
            break
        kept.append(link)
    return kept


def _entry_states(tx: Tx, links: Sequence[ChainLink]) -> dict[str, PromotionStatus]:
    """The promotion status now of the promotable entries among ``links`` (one query for all)."""
    entries = {
        link.record.id: link.record
        for link in links
        if isinstance(link.record, JournalEntry) and link.record.category.promotable
    }
    if not entries:
        return {}
    decided = [link.record for link in tx.journal.promotions_of(entries) if isinstance(link.record, Promotion)]
    return {
        entry_id: rules.promotion_status(entry, decided) or PromotionStatus.PROPOSED
        for entry_id, entry in entries.items()
    }


# -- recording ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Recorded:
    """A recorded entry's sealed link; ``repeated`` when the request id had been answered before."""

    link: ChainLink
    repeated: bool = False


async def record(
    store: Store, caller: Caller, run_id: str, draft: EntryDraft, *, request_id: str = "", now: int
) -> Recorded:
    """The run's coordinator records an entry (``journal.record``), sealed into the run's chain.

    An entry may be recorded while the run goes on and after it ended (a lesson learned from a
    failure); an entry recorded after the end is not in the retrospective written then. A request
    id answered before for the run returns that entry and records nothing.

    Raises:
        InvalidArgument: a malformed run or request id; as ``journal.record``.
        NotFound: (WORKFLOW_NOT_FOUND). PermissionDenied: (WORKFLOW_FORBIDDEN) not the coordinator.
        Aborted: (IDEMPOTENCY_CONFLICT) the request id was used for another request on this run.
    """
    _run_id(run_id)
    request = steps.request_id(request_id)
    asked = _fingerprint(draft)

    def work(tx: Tx) -> Recorded:
        run = check_visible(caller, tx.workflows.get_run(run_id), run_id)
        if caller.kind is not CredentialKind.AGENT or caller.agent_id != run.coordinator_id:
            raise forbidden(run)
        if request:
            stored = tx.workflows.get_step(run.id, request)
            if stored is not None:
                answer = json.loads(stored.response)
                link = tx.journal.entry(answer.get("entry", "")) if answer.get("request") == asked else None
                if link is None:
                    raise steps.reused_request_id(run, request)
                return Recorded(link, repeated=True)
        definition = pinned(tx, run)
        known = _run_entry_ids(tx, run.id, draft.related_entry_ids)
        entry = rules.record(
            run, definition, draft, author=run.coordinator_id, known_entry_ids=known, now=now, new_id=new_id
        )
        link = append(tx, run, (entry,))[0]
        if request:
            answer = json.dumps({"request": asked, "entry": entry.id}, separators=(",", ":"))
            tx.workflows.put_step(StoredStep(run.id, request, "journal", answer, now))
        return Recorded(link)

    return await store.write(work)


def _fingerprint(draft: EntryDraft) -> str:
    return steps.request_digest(
        "journal",
        draft.category,
        draft.summary,
        draft.area,
        draft.severity,
        draft.details,
        list(draft.evidence),
        list(draft.related_entry_ids),
        draft.stage_id,
    )


def _run_entry_ids(tx: Tx, run_id: str, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` that are entries (not promotion records) of the run."""
    known: set[str] = set()
    for raw in ids[: rules.MAX_RELATED]:
        entry_id = validation.js_trim(raw)
        if not rules.well_formed_id(entry_id):
            continue  # never looked up: journal.record refuses it, naming the field
        link = tx.journal.entry(entry_id)
        if link is not None and isinstance(link.record, JournalEntry) and link.record.run_id == run_id:
            known.add(entry_id)
    return known


# -- promotion ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Promoted:
    """A promotion decision: its sealed record and the entry it decided."""

    link: ChainLink
    entry: JournalEntry


def _journal_not_found(entry_id: str) -> NotFound:
    return NotFound(f"no journal entry {entry_id!r}", reason=Reason.JOURNAL_NOT_FOUND, metadata={"entryId": entry_id})


async def promote(
    store: Store,
    caller: Caller,
    entry_id: str,
    *,
    to: str,
    evidence_refs: Sequence[str],
    reason: str,
    now: int,
) -> Promoted:
    """A named operator decides a promotable entry (``journal.promote``); the decision is a record
    of its own, appended to the entry's run's journal. The decider is the operator's name, which
    must be neither the entry's author id nor the author agent's name (an operator who is that
    agent's owner by name may not approve its own proposal).

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator.
        InvalidArgument: a malformed entry id; as ``journal.promote``.
        NotFound: (JOURNAL_NOT_FOUND) no such entry in the caller's project (a promotion record's
            id is no entry either).
    """
    object_id("entry_id", entry_id, rules.MAX_ENTRY_ID_CHARS)
    decider = caller.operator
    if decider is None:
        raise PermissionDenied(
            "a journal promotion is decided by an operator",
            reason=Reason.CREDENTIAL_KIND_DENIED,
            metadata={"nextAction": "call with an operator credential"},
        )

    def work(tx: Tx) -> Promoted:
        found = tx.journal.entry(entry_id)
        if found is None or not isinstance(found.record, JournalEntry):
            raise _journal_not_found(entry_id)
        entry = found.record
        run = tx.workflows.get_run(entry.run_id)
        if run is None or not (caller.project is None or caller.project == run.project):
            raise _journal_not_found(entry_id)
        author = tx.agents.get(entry.author) if entry.author != rules.HUB_AUTHOR else None
        if author is not None and validation.js_trim(decider) == author.name:
            raise InvalidArgument(
                "the entry's author may not decide its promotion (the operator's name is the author agent's)",
                reason=Reason.JOURNAL_PROMOTION_INVALID,
                metadata={"entryId": entry.id, "runId": entry.run_id, "decidedBy": decider},
            )
        promotions = [link.record for link in tx.journal.promotions(entry.id) if isinstance(link.record, Promotion)]
        decision = rules.promote(
            entry,
            promotions,
            to=to,
            evidence_refs=evidence_refs,
            decided_by=decider,
            reason=reason,
            now=now,
            new_id=new_id,
        )
        return Promoted(append(tx, run, (decision,))[0], entry)

    return await store.write(work)


# -- reports --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImprovementReport:
    """The area reports and the ranked signals over a project's newest entries."""

    areas: tuple[reports.AreaReport, ...]
    signals: tuple[reports.ImprovementSignal, ...]
    entries: int
    """How many entries the report read."""
    truncated: bool
    """True when the project holds more entries in the window than the report read."""


def report_project(caller: Caller, project: str) -> str:
    """The project a report is of (see ``improvement_report``'s raises)."""
    named = validation.js_trim(project)
    if named:
        project_name("project", named)
    if caller.project is not None:
        if named and named != caller.project:
            # Another project's name reads as nothing there: no report discloses that it exists.
            raise invalid_field("project", "must be the caller's project (or empty)")
        return caller.project
    if not named:
        raise invalid_field("project", "is required for an operator that names no project (x-kxm-project)")
    return named


async def improvement_report(
    store: Store,
    caller: Caller,
    *,
    project: str = "",
    since: int | None = None,
    max_entries: int = 0,
    signal_limit: int = 0,
) -> ImprovementReport:
    """The improvement report of the caller's project (spec §3.6, §3.7) over its newest
    ``max_entries`` entries (default 10,000, at most 50,000) created at or after ``since``.

    Raises:
        InvalidArgument: a negative limit, a limit over its maximum, or a project that is not the
            caller's (an operator naming none must name it here).
    """
    name = report_project(caller, project)
    if max_entries < 0 or max_entries > MAX_REPORT_ENTRIES:
        raise invalid_field(
            "max_entries", f"must be between 0 (default {DEFAULT_REPORT_ENTRIES}) and {MAX_REPORT_ENTRIES}"
        )
    if signal_limit < 0 or signal_limit > MAX_SIGNAL_LIMIT:
        raise invalid_field("signal_limit", f"must be between 0 (default 20) and {MAX_SIGNAL_LIMIT}")
    limit = max_entries or DEFAULT_REPORT_ENTRIES

    def work(tx: Tx) -> tuple[list[reports.ReportEntry], dict[str, reports.RunFacts], bool]:
        links = tx.journal.recent(project=name, since=since, limit=limit + 1)
        truncated = len(links) > limit
        kept = links[:limit]
        entries = [link.record for link in kept if isinstance(link.record, JournalEntry)]
        states = _entry_states(tx, kept)
        facts: dict[str, reports.RunFacts] = {}
        for run_id in {entry.run_id for entry in entries}:
            run = tx.workflows.get_run(run_id)
            if run is not None:
                facts[run_id] = reports.run_facts(run)
        return [report_entry(entry, states.get(entry.id)) for entry in entries], facts, truncated

    entries, facts, truncated = await store.read(work)

    def build() -> ImprovementReport:
        return ImprovementReport(
            areas=reports.area_report(entries),
            signals=reports.rank_signals(entries, facts, signal_limit or reports.DEFAULT_SIGNAL_LIMIT),
            entries=len(entries),
            truncated=truncated,
        )

    # Tens of thousands of entries take a CPU-bound half second: off the event loop, so the hub's
    # other calls go on meanwhile.
    return await asyncio.to_thread(build)


# -- retrospectives -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Retrospective:
    """A run's retrospective: its JSON document (``kxm.retrospective.v1``) and its Markdown."""

    document: Mapping[str, object]
    json: str
    markdown: str


async def export_retrospective(store: Store, caller: Caller, run_id: str, *, now: int) -> Retrospective:
    """The retrospective written when the run ended (built now for a run that ended before the
    journal existed, and then not kept).

    Raises:
        InvalidArgument: a malformed run id. NotFound, PermissionDenied: as ``check_visible``.
        FailedPrecondition: (WORKFLOW_NOT_ENDED) the run has not ended.
    """
    _run_id(run_id)

    def work(tx: Tx) -> str:
        run = check_visible(caller, tx.workflows.get_run(run_id), run_id)
        if not run.status.ended:
            raise FailedPrecondition(
                f"workflow run {run.id} is {run.status.value}: its retrospective is written when it ends",
                reason=Reason.WORKFLOW_NOT_ENDED,
                metadata={"runId": run.id, "status": run.status.value},
            )
        stored = tx.journal.retrospective(run.id)
        return (
            stored if stored is not None else retrospective_json(retrospective_document(tx, pinned(tx, run), run, now))
        )

    text = await store.read(work)
    try:
        document = json.loads(text)
        markdown = reports.to_markdown(document)
    except (ValueError, KeyError, TypeError):
        raise DataLoss(
            f"the retrospective of workflow run {run_id} is corrupted in storage; restore a backup",
            reason=Reason.STORAGE_CORRUPTED,
            metadata={"runId": run_id},
        ) from None
    return Retrospective(document, text, markdown)


# -- verification ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checked:
    """A verification: the verdict, and whether the journal was held to its retrospective's head."""

    verdict: Verdict
    held: bool


async def verify(store: Store, caller: Caller, run_id: str) -> Checked:
    """Verify the run's journal against the hub's keys (``journal_chain.verify``), held to the head
    its retrospective sealed when the run ended.

    An ended run with records but without a retrospective whose sealed head verifies (the row
    deleted or edited) is ``HEAD_UNVERIFIED``: records cut from its end could not be told.

    Raises:
        InvalidArgument: a malformed run id. NotFound, PermissionDenied: as ``check_visible``.
        DataLoss: (STORAGE_CORRUPTED) a stored record is not a journal record.
    """
    _run_id(run_id)

    def work(tx: Tx) -> Checked:
        run = check_visible(caller, tx.workflows.get_run(run_id), run_id)
        keys = keyring(tx)
        links = all_links(tx, run_id)
        head, sealed = _ended_head(tx, run_id, keys)
        verdict = journal_chain.verify(run_id, links, keys, expected_head=head)
        if verdict.intact and run.status.ended and links and not sealed:
            breach = Breach(len(links), Problem.HEAD_UNVERIFIED, None)
            verdict = Verdict(run_id, verdict.verified, breach, verdict.head, verdict.key_ids)
        return Checked(verdict, head is not None)

    return await store.read(work)


def _ended_head(tx: Tx, run_id: str, keys: Keyring) -> tuple[ChainHead | None, bool]:
    """The head the run's retrospective sealed when the run ended, and whether its seal verifies
    ((None, False) for no retrospective, or one whose head is unreadable or not sealed by the hub)."""
    stored = tx.journal.retrospective(run_id)
    if stored is None:
        return None, False
    try:
        journal = json.loads(stored)["journal"]
        sequence, chain = journal["headSequence"], journal["headChain"]
        key_id, mac = journal["headKeyId"], journal["headMac"]
    except (ValueError, KeyError, TypeError):
        return None, False
    if type(sequence) is not int or not all(isinstance(v, str) for v in (chain, key_id, mac)):
        return None, False
    head = ChainHead(sequence, chain) if sequence >= 0 else None
    if not journal_chain.head_sealed(run_id, head, key_id, mac, keys):
        return None, False
    return head, True
