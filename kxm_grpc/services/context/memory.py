"""Memory records through the API: SyncMemory and ListMemory (spec §5.11, §5.14).

A sync is an operator's: it checks every file (``domain.context.memory.parse_files``) before it
reads the store, then in one transaction replaces what the project's memory was with the new set:
it puts the items of the stored records (active, of project or operator scope), removes the memory
items its earlier syncs wrote that the set no longer has, and records the project's manifest. A
refusal writes nothing.

The manifest is the project's row of the hub's key/value settings (``meta``, key
``context.memory:<project>``; no schema change): the revision, the sync's time, and per stored
record the metadata ListMemory answers with and the item it maps to. ``_shared`` items are owned
by the project whose sync wrote them (their source ref, ``memory:<project>/<path>``, says which):
another project's sync naming the same operator-scope id is refused (MEMORY_RECORD_OWNED), and a
sync removes only the ``_shared`` items its own project owns.

A sync whose revision equals the manifest's, with every item of the manifest stored as the files
map it, rewrites nothing (``unchanged``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context.items import SHARED_PROJECT, ContextItem
from kxm_grpc.domain.context.memory import Lifecycle, MemoryFile, MemoryRecord, memory_owner, parse_files, revision
from kxm_grpc.domain.context.ordering import code_unit_key
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.validation import utf16_length
from kxm_grpc.errors import DataLoss, FailedPrecondition, PermissionDenied, Reason
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


async def sync(store: Store, caller: Caller, project: str, files: Sequence[MemoryFile], *, now: int) -> SyncOutcome:
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
    records = parse_files(files, project=home)
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
            owner = memory_owner(found.item)
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
                    and (owner_project != SHARED_PROJECT or memory_owner(found.item) == home)
                ]
                if mine:
                    removed += tx.context_items.delete(owner_project, mine)
        tx.context_items.put([StoredContextItem(record.item, write_time=now) for record in stored])
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
            and (record.project != SHARED_PROJECT or memory_owner(found.item) == home)
        ]
        listed.sort(key=lambda entry: (entry.record.project == SHARED_PROJECT, code_unit_key(entry.record.record_id)))
        return Listing(tuple(listed), manifest.revision, manifest.sync_time)

    listing = await store.read(work)
    log.info("context_memory_listed", project=home, records=len(listing.records))
    return listing


def summary_chars(item: ContextItem) -> int:
    """The stored summary's length in UTF-16 code units."""
    return utf16_length(item.summary)
