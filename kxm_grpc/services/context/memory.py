"""Memory records through the API: SyncMemory and ListMemory (spec §5.11, §5.14).

A sync is an operator's: it checks every file (``domain.context.memory.parse_files``) before it
reads the store, then in one transaction replaces what the project's memory was with the new set:
it puts the items of the stored records (active, of project or operator scope), removes the memory
items its earlier syncs wrote that the set no longer has, and records the project's manifest. A
refusal writes nothing.

The manifest is the project's row of the hub's key/value settings (``meta``, key
``context.memory:<project>``; no schema change): the revision, the sync's time, and per stored
record the metadata ListMemory answers with and the item it maps to. ``_shared`` items are owned
by the project whose sync wrote them (the ``meta`` row ``context.memory-owner:<item id>`` says which;
their source ref, which every project reads, says only ``memory:_shared/<record id>``):
another project's sync naming the same operator-scope id is refused (MEMORY_RECORD_OWNED), and a
sync removes only the ``_shared`` items its own project owns.

A sync whose revision equals the manifest's, with every item of the manifest stored as the files
map it, rewrites nothing (``unchanged``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context.items import SHARED_PROJECT, Confidence, ContextItem, Scope, SourceType
from kxm_grpc.domain.context.memory import Lifecycle, MemoryFile, MemoryRecord, memory_owner, parse_files, revision
from kxm_grpc.domain.context.memory_candidates import (
    MAX_DECIDED,
    MAX_OPEN,
    Candidate,
    candidate_id,
    check_candidate_id,
    check_note,
    check_reason,
    record_file,
)
from kxm_grpc.domain.context.memory_candidates import Status as CandidateStatus
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.validation import utf16_length
from kxm_grpc.errors import DataLoss, FailedPrecondition, NotFound, PermissionDenied, Reason, ResourceExhausted
from kxm_grpc.services.context import scope
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.context_items import StoredContextItem

log = structlog.get_logger("kxm.context")

MANIFEST_KEY_PREFIX = "context.memory:"


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One record of a project's manifest: what ListMemory says of it (never its summary)."""

    record_id: str
    item_id: str
    project: str
    """The item's project: the syncing project, or ``_shared``."""
    path: str
    scope: str
    kind: str
    authority: str
    """As written: instruction, evidence or promoted."""
    lifecycle: str
    source_ref: str | None


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a project's last sync stored."""

    revision: str
    sync_time: int
    records: tuple[StoredRecord, ...]


@dataclass(frozen=True, slots=True)
class SyncOutcome:
    """What a sync did."""

    loaded: int
    removed: int
    skipped_inactive: int
    skipped_unbound_scopes: int
    revision: str
    unchanged: bool


@dataclass(frozen=True, slots=True)
class ListedRecord:
    """A stored record and its item as it is stored now."""

    record: StoredRecord
    item: ContextItem


@dataclass(frozen=True, slots=True)
class Listing:
    """A project's memory: its records (those whose item still exists) and its last sync."""

    records: tuple[ListedRecord, ...]
    revision: str | None
    sync_time: int | None


def manifest_key(project: str) -> str:
    """The ``meta`` key of a project's memory manifest."""
    return MANIFEST_KEY_PREFIX + project


def _stored_record(record: MemoryRecord) -> StoredRecord:
    return StoredRecord(
        record_id=record.record_id,
        item_id=record.item.id,
        project=record.item.project,
        path=record.path,
        scope=record.scope.value,
        kind=record.kind,
        authority=record.authority.value,
        lifecycle=record.lifecycle.value,
        source_ref=record.source_ref,
    )


def _encode(manifest: Manifest) -> str:
    records = []
    for record in manifest.records:
        entry = {
            "recordId": record.record_id,
            "itemId": record.item_id,
            "project": record.project,
            "path": record.path,
            "scope": record.scope,
            "kind": record.kind,
            "authority": record.authority,
            "lifecycle": record.lifecycle,
        }
        if record.source_ref is not None:
            entry["sourceRef"] = record.source_ref
        records.append(entry)
    return canonical_json({"revision": manifest.revision, "syncTime": manifest.sync_time, "records": records})


def _decode(project: str, text: str) -> Manifest:
    try:
        value = json.loads(text)
        return Manifest(
            revision=str(value["revision"]),
            sync_time=int(value["syncTime"]),
            records=tuple(
                StoredRecord(
                    record_id=str(entry["recordId"]),
                    item_id=str(entry["itemId"]),
                    project=str(entry["project"]),
                    path=str(entry["path"]),
                    scope=str(entry["scope"]),
                    kind=str(entry["kind"]),
                    authority=str(entry["authority"]),
                    lifecycle=str(entry["lifecycle"]),
                    source_ref=None if entry.get("sourceRef") is None else str(entry["sourceRef"]),
                )
                for entry in value["records"]
            ),
        )
    except (ValueError, KeyError, TypeError):
        log.error("context_memory_manifest_undecodable", project=project)
        raise DataLoss(
            f"the memory manifest of project {project!r} does not decode",
            reason=Reason.STORAGE_CORRUPTED,
            metadata={"project": project},
        ) from None


def _manifest(tx: Tx, project: str) -> Manifest | None:
    text = tx.meta.get(manifest_key(project))
    return None if text is None else _decode(project, text)


SHARED_OWNER_KEY_PREFIX = "context.memory-owner:"
"""The ``meta`` key (and item id) of a ``_shared`` memory item's owner: the project whose sync wrote it."""


def _shared_owner(tx: Tx, item: ContextItem) -> str | None:
    """The project whose sync wrote the ``_shared`` memory ``item``; None if it is no memory item."""
    owner = tx.meta.get(SHARED_OWNER_KEY_PREFIX + item.id)
    if owner:
        return owner
    # Items synced before the owner moved to the settings named it in their source ref.
    legacy = memory_owner(item)
    return legacy if legacy != SHARED_PROJECT else None


def current_revision(tx: Tx, project: str) -> str:
    """The project's memory revision (``ctxrev_…``), or empty when it was never synced: what a
    step run pins when it is created (§5.14)."""
    manifest = _manifest(tx, project)
    return manifest.revision if manifest is not None else ""


def _by_project(pairs: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for project, item_id in pairs:
        grouped.setdefault(project, []).append(item_id)
    return grouped


def _stored_items(tx: Tx, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], StoredContextItem]:
    found: dict[tuple[str, str], StoredContextItem] = {}
    for project, ids in _by_project(pairs).items():
        for stored in tx.context_items.get(project, ids):
            found[(project, stored.item.id)] = stored
    return found


async def sync(
    store: Store, caller: Caller, project: str, files: Sequence[MemoryFile], *, now: int, allow_empty: bool = False
) -> SyncOutcome:
    """Replace the project's memory with the records of ``files`` (see the module), atomically.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; as ``scope.context_project``;
            (CONTEXT_AUTHORITY_VIOLATION) as ``parse_files``.
        InvalidArgument: as ``parse_files`` (INVALID_MEMORY_RECORD, CONTEXT_LIMITS_EXCEEDED).
        FailedPrecondition: (MEMORY_RECORD_OWNED) an operator-scope record's ``_shared`` item is
            another project's memory, or no memory item.
    """
    if not caller.is_operator:
        raise PermissionDenied("only an operator syncs memory records", reason=Reason.CREDENTIAL_KIND_DENIED)
    home = scope.context_project(caller, project)
    records = parse_files(files, project=home, allow_empty=allow_empty)
    new_revision = revision(files)
    stored = [record for record in records if record.stored]
    skipped_inactive = sum(1 for record in records if record.lifecycle is not Lifecycle.ACTIVE)
    skipped_unbound = sum(1 for record in records if record.lifecycle is Lifecycle.ACTIVE and not record.stored)
    wanted = {(record.item.project, record.item.id): record for record in stored}
    index_of = {record.record_id: index for index, record in enumerate(records)}

    def work(tx: Tx) -> tuple[int, bool]:
        previous = _manifest(tx, home)
        present = _stored_items(tx, list(wanted))
        for (owner_project, item_id), record in wanted.items():
            found = present.get((owner_project, item_id))
            if owner_project != SHARED_PROJECT or found is None:
                continue
            owner = _shared_owner(tx, found.item)
            if owner != home:
                raise FailedPrecondition(
                    f"{record.path}: _shared item {item_id} is "
                    + (f"project {owner!r}'s memory" if owner else "not a memory item")
                    + ": only its owner's sync replaces it; choose another id or sync that project",
                    reason=Reason.MEMORY_RECORD_OWNED,
                    metadata={
                        "path": record.path,
                        "index": str(index_of[record.record_id]),
                        "itemId": item_id,
                        "owner": owner or "",
                    },
                )
        if (
            previous is not None
            and previous.revision == new_revision
            and len(previous.records) == len(wanted)
            and all(
                (found := present.get(key)) is not None and found.item == record.item for key, record in wanted.items()
            )
        ):
            return 0, True
        removed = 0
        if previous is not None:
            gone = [
                (entry.project, entry.item_id)
                for entry in previous.records
                if (entry.project, entry.item_id) not in wanted
            ]
            old = _stored_items(tx, gone)
            for owner_project, ids in _by_project(gone).items():
                # A _shared item goes only while this project owns it (an operator may have
                # deleted it since, and another project's sync taken its id).
                mine = [
                    item_id
                    for item_id in ids
                    if (found := old.get((owner_project, item_id))) is not None
                    and (owner_project != SHARED_PROJECT or _shared_owner(tx, found.item) == home)
                ]
                if mine:
                    removed += tx.context_items.delete(owner_project, mine)
                    if owner_project == SHARED_PROJECT:
                        for item_id in mine:
                            tx.meta.put(SHARED_OWNER_KEY_PREFIX + item_id, "")
        tx.context_items.put([StoredContextItem(record.item, write_time=now) for record in stored])
        for record in stored:
            if record.item.project == SHARED_PROJECT:
                tx.meta.put(SHARED_OWNER_KEY_PREFIX + record.item.id, home)
        manifest = Manifest(new_revision, now, tuple(_stored_record(record) for record in stored))
        tx.meta.put(manifest_key(home), _encode(manifest))
        return removed, False

    removed, unchanged = await store.write(work)
    shared = sum(1 for record in stored if record.item.project == SHARED_PROJECT)
    log.info(
        "context_memory_synced",
        project=home,
        files=len(files),
        loaded=len(stored),
        shared=shared,
        removed=removed,
        skipped_inactive=skipped_inactive,
        skipped_unbound_scopes=skipped_unbound,
        revision=new_revision,
        unchanged=unchanged,
        operator=caller.operator,
    )
    return SyncOutcome(len(stored), removed, skipped_inactive, skipped_unbound, new_revision, unchanged)


async def list_memory(store: Store, caller: Caller, project: str) -> Listing:
    """The project's memory records as its last sync stored them (those whose item still exists:
    an operator may have deleted one), the project's then ``_shared``'s, each by record id.

    Raises:
        PermissionDenied: as ``scope.context_project``.
    """
    home = scope.context_project(caller, project)

    def work(tx: Tx) -> Listing:
        manifest = _manifest(tx, home)
        if manifest is None:
            return Listing((), None, None)
        present = _stored_items(tx, [(record.project, record.item_id) for record in manifest.records])
        listed = [
            ListedRecord(record, found.item)
            for record in manifest.records
            if (found := present.get((record.project, record.item_id))) is not None
            and (record.project != SHARED_PROJECT or _shared_owner(tx, found.item) == home)
        ]
        listed.sort(key=lambda entry: (entry.record.project == SHARED_PROJECT, code_unit_key(entry.record.record_id)))
        return Listing(tuple(listed), manifest.revision, manifest.sync_time)

    listing = await store.read(work)
    log.info("context_memory_listed", project=home, records=len(listing.records))
    return listing


def summary_chars(item: ContextItem) -> int:
    """The stored summary's length in UTF-16 code units."""
    return utf16_length(item.summary)


# -- candidates ---------------------------------------------------------------------------------------

CANDIDATES_KEY_PREFIX = "context.memory-candidates:"


def candidates_key(project: str) -> str:
    """The ``meta`` key of a project's memory candidates."""
    return CANDIDATES_KEY_PREFIX + project


def _candidate_document(candidate: Candidate) -> dict[str, object]:
    return {
        "id": candidate.id,
        "scope": candidate.scope.value,
        "kind": candidate.kind,
        "summary": candidate.summary,
        "evidenceRefs": list(candidate.evidence_refs),
        "proposedBy": candidate.proposed_by,
        "origin": candidate.origin.value,
        "createTime": candidate.create_time,
        "status": candidate.status,
        "decidedBy": candidate.decided_by,
        "recordId": candidate.record_id,
        "reason": candidate.reason,
    }


def _candidates(tx: Tx, project: str) -> list[Candidate]:
    text = tx.meta.get(candidates_key(project))
    if text is None:
        return []
    try:
        return [
            Candidate(
                id=str(entry["id"]),
                project=project,
                scope=Scope(entry["scope"]),
                kind=str(entry["kind"]),
                summary=str(entry["summary"]),
                evidence_refs=tuple(str(ref) for ref in entry["evidenceRefs"]),
                proposed_by=str(entry["proposedBy"]),
                origin=SourceType(entry["origin"]),
                create_time=int(entry["createTime"]),
                status=str(entry["status"]),
                decided_by=str(entry["decidedBy"]),
                record_id=str(entry["recordId"]),
                reason=str(entry["reason"]),
            )
            for entry in json.loads(text)["candidates"]
        ]
    except (ValueError, KeyError, TypeError):
        log.error("context_memory_candidates_undecodable", project=project)
        raise DataLoss(
            f"the memory candidates of project {project!r} do not decode",
            reason=Reason.STORAGE_CORRUPTED,
            metadata={"project": project},
        ) from None


def _save_candidates(tx: Tx, project: str, candidates: Sequence[Candidate]) -> None:
    """Keep every open candidate and the newest ``MAX_DECIDED`` decided ones, by create time and id."""
    decided = [c for c in candidates if c.status != CandidateStatus.OPEN]
    decided.sort(key=lambda c: (c.create_time, c.id))
    kept = [c for c in candidates if c.status == CandidateStatus.OPEN] + decided[-MAX_DECIDED:]
    kept.sort(key=lambda c: code_unit_key(c.id))
    tx.meta.put(candidates_key(project), canonical_json({"candidates": [_candidate_document(c) for c in kept]}))


async def propose(
    store: Store,
    caller: Caller,
    project: str,
    *,
    scope_value: Scope | None,
    kind: str,
    summary: str,
    evidence_refs: Sequence[str],
    now: int,
) -> Candidate:
    """Note a memory candidate of the project (see ``domain.context.memory_candidates``).

    Raises:
        PermissionDenied: as ``scope.context_project``.
        InvalidArgument: as ``check_note``.
        ResourceExhausted: (CONTEXT_LIMITS_EXCEEDED) 64 candidates of the project are open.
    """
    home = scope.context_project(caller, project)
    chosen, label, text, refs = check_note(scope_value, kind, summary, evidence_refs)
    proposer = scope.writer(caller)

    def work(tx: Tx) -> Candidate:
        candidates = _candidates(tx, home)
        if sum(1 for c in candidates if c.status == CandidateStatus.OPEN) >= MAX_OPEN:
            raise ResourceExhausted(
                f"{MAX_OPEN} memory candidates of project {home!r} are open: "
                "an operator promotes or rejects some first",
                reason=Reason.CONTEXT_LIMITS_EXCEEDED,
                metadata={"limit": str(MAX_OPEN), "project": home},
            )
        taken = {c.id for c in candidates}
        attempt = 0
        while (made := candidate_id(chosen, home, proposer, now, text, attempt)) in taken:
            attempt += 1
        candidate = Candidate(made, home, chosen, label, text, refs, proposer, scope.origin(caller), now)
        _save_candidates(tx, home, [*candidates, candidate])
        return candidate

    candidate = await store.write(work)
    log.info(
        "context_memory_proposed", project=home, candidate_id=candidate.id, summary_chars=len(text), refs=len(refs)
    )
    return candidate


def _open_candidate(tx: Tx, project: str, candidate_id: str) -> tuple[list[Candidate], int]:
    candidates = _candidates(tx, project)
    for index, candidate in enumerate(candidates):
        if candidate.id == candidate_id:
            if candidate.status != CandidateStatus.OPEN:
                raise FailedPrecondition(
                    f"memory candidate {candidate_id} was {candidate.status} already",
                    reason=Reason.MEMORY_CANDIDATE_NOT_PROMOTABLE,
                    metadata={"candidateId": candidate_id, "status": candidate.status},
                )
            return candidates, index
    raise NotFound(
        f"no memory candidate of project {project!r} has id {candidate_id}",
        reason=Reason.MEMORY_CANDIDATE_NOT_FOUND,
        metadata={"candidateId": candidate_id},
    )


@dataclass(frozen=True, slots=True)
class Promotion:
    """A promoted candidate and the record file it made."""

    candidate: Candidate
    file: MemoryFile


async def promote(
    store: Store,
    caller: Caller,
    project: str,
    candidate_id: str,
    *,
    record_id: str,
    authority: str,
    confidence: Confidence | None,
    now: int,
) -> Promotion:
    """Close an open candidate as promoted, by an operator other than its proposer, and return the
    record file it makes.

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; as ``scope.context_project``.
        InvalidArgument: (INVALID_MEMORY_RECORD) as ``check_candidate_id`` and ``record_file``.
        NotFound: (MEMORY_CANDIDATE_NOT_FOUND) no such candidate in the project.
        FailedPrecondition: (MEMORY_CANDIDATE_NOT_PROMOTABLE) decided already, or proposed by this operator.
    """
    if not caller.is_operator:
        raise PermissionDenied("only an operator promotes memory candidates", reason=Reason.CREDENTIAL_KIND_DENIED)
    home = scope.context_project(caller, project)
    wanted = check_candidate_id(candidate_id)
    promoter = scope.writer(caller)

    def work(tx: Tx) -> Promotion:
        candidates, index = _open_candidate(tx, home, wanted)
        candidate = candidates[index]
        # The proposer never promotes: by name, or as the operator named as the proposing agent
        # (as for state and skills).
        agent = tx.agents.get(candidate.proposed_by)
        if promoter in {candidate.proposed_by, agent.name if agent is not None else None}:
            raise FailedPrecondition(
                f"{promoter} proposed memory candidate {wanted}: another operator decides",
                reason=Reason.MEMORY_CANDIDATE_NOT_PROMOTABLE,
                metadata={"candidateId": wanted, "status": candidate.status, "proposedBy": candidate.proposed_by},
            )
        made = record_file(
            candidate, record_id=record_id, authority=authority, confidence=confidence, promoted_by=promoter, now=now
        )
        closed = replace(
            candidate,
            status=CandidateStatus.PROMOTED,
            decided_by=promoter,
            record_id=made.path.removesuffix(".md"),
        )
        candidates[index] = closed
        _save_candidates(tx, home, candidates)
        return Promotion(closed, made)

    promotion = await store.write(work)
    log.info(
        "context_memory_promoted",
        project=home,
        candidate_id=wanted,
        record_id=promotion.candidate.record_id,
        operator=caller.operator,
    )
    return promotion


async def reject(store: Store, caller: Caller, project: str, candidate_id: str, *, reason: str) -> Candidate:
    """Close an open candidate as rejected (any operator, its proposer too: rejecting makes nothing true).

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) not an operator; as ``scope.context_project``.
        InvalidArgument: (INVALID_MEMORY_RECORD) as ``check_candidate_id`` and ``check_reason``.
        NotFound: (MEMORY_CANDIDATE_NOT_FOUND) no such candidate in the project.
        FailedPrecondition: (MEMORY_CANDIDATE_NOT_PROMOTABLE) decided already.
    """
    if not caller.is_operator:
        raise PermissionDenied("only an operator rejects memory candidates", reason=Reason.CREDENTIAL_KIND_DENIED)
    home = scope.context_project(caller, project)
    wanted = check_candidate_id(candidate_id)
    why = check_reason(reason)
    decider = scope.writer(caller)

    def work(tx: Tx) -> Candidate:
        candidates, index = _open_candidate(tx, home, wanted)
        closed = replace(candidates[index], status=CandidateStatus.REJECTED, decided_by=decider, reason=why)
        candidates[index] = closed
        _save_candidates(tx, home, candidates)
        return closed

    closed = await store.write(work)
    log.info("context_memory_rejected", project=home, candidate_id=wanted, operator=caller.operator)
    return closed


async def open_candidates(store: Store, caller: Caller, project: str) -> list[Candidate]:
    """The project's open candidates, by id.

    Raises:
        PermissionDenied: as ``scope.context_project``.
    """
    home = scope.context_project(caller, project)
    found = await store.read(lambda tx: _candidates(tx, home))
    return [c for c in found if c.status == CandidateStatus.OPEN]
