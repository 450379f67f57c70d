"""The automatic pool: journal entries and verified peer evidence as context items (spec §5.10, §2.5).

Nobody writes these items through ``PutItems``: the hub maps each journal entry (an agent's or its
own) and each verified peer reply into an item in the transaction that records it, with origin
``workflow``. The mappings are total: whatever the journal or the verifier accepted maps to an
item ``check_item`` accepts, so recording an entry never fails because of its item.

Journal entry → item (pin 21, map rule 25):

- id ``journal_<entry id>``, the original's rule taken literally: entry ids already start with
  ``journal_``, so an item id reads ``journal_journal_…``. One prefix more is the price of an id a
  reader of the original computes the same way, and of a namespace (``journal_``) no entry id can
  leave (``entry_id_of`` undoes it);
- kind ``knowledge`` for plan, decision and lesson, ``skill`` with status ``proposed`` for a skill
  candidate (inert: it never consumes a packet's budget, whatever an operator decided), else
  ``evidence``;
- provenance ``workflow`` with source ref ``journal:<entry id>``; authority ``evidence``;
  confidence ``probable``; scope ``run``; observed at the entry's create time;
- evidence refs: the entry's evidence strings of 1-200 UTF-16 code units, duplicates dropped
  (an item's refs are unique), the first 16; longer ones are dropped silently, never an error;
- summary: the entry's (at most 1,000 characters, well within an item's 4,000), redacted as
  ``check_item`` redacts every summary.

Verified peer reply (``verified-peer-evidence`` snapshot) → item: id ``peer_<message id>`` (a
message is cited for one run, stage, requirement and attempt: its context says which, and the
verifier holds the citation to it), kind ``evidence``, provenance ``workflow`` with source ref
``peer:<message id>``, authority ``evidence``, confidence ``verified`` (the hub checked the reply
against its own records), scope ``run``, observed at the verification time, evidence refs the
message id; the summary is metadata only (who replied, for which requirement, the two SHA-256
hashes), never a body, as the snapshot itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kxm_grpc.domain import validation
from kxm_grpc.domain.context.items import (
    MAX_EVIDENCE_REF_CHARS,
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    Scope,
    SourceType,
    Status,
    check_item,
)
from kxm_grpc.domain.workflows.evidence import PeerEvidence
from kxm_grpc.domain.workflows.journal import Category, JournalEntry

JOURNAL_ITEM_PREFIX = "journal_"
"""Every journal item's id starts with it (then the entry id, itself ``journal_…``)."""
JOURNAL_SOURCE_PREFIX = "journal:"
PEER_ITEM_PREFIX = "peer_"
PEER_SOURCE_PREFIX = "peer:"
MAX_JOURNAL_EVIDENCE_REFS = 16
"""Evidence refs a journal item keeps (the first 16 of the entry's that qualify)."""

SKILL_ITEM_PREFIX = "skill_"
"""A promoted skill's item (``kxm_grpc.domain.context.skills.ITEM_PREFIX``)."""

RESERVED_ID_PREFIXES = (JOURNAL_ITEM_PREFIX, PEER_ITEM_PREFIX, SKILL_ITEM_PREFIX)
"""The ids the hub's own items take: a caller's item with such an id would replace one (or be
replaced by one) with the same (project, id); ``PutItems`` refuses them (``reserved_item_id``)."""

EPISODE_CATEGORIES = (Category.ERROR, Category.LESSON, Category.OBSERVATION, Category.EXPERIMENT)
"""The categories ``ListEpisodes`` lists (§5.10)."""
RESOLVING_CATEGORIES = (Category.DECISION, Category.LESSON)
"""An entry of these categories resolves the contradictions of its run it relates to (§3.7)."""

_KNOWLEDGE = frozenset({Category.PLAN, Category.DECISION, Category.LESSON})
_SURROGATE = re.compile("[\ud800-\udfff]")


def journal_item_id(entry_id: str) -> str:
    """The id of the item of entry ``entry_id``: ``journal_<entry id>``."""
    return JOURNAL_ITEM_PREFIX + entry_id


def entry_id_of(item_id: str) -> str | None:
    """The entry id a journal item's id names, or None for an id that is not a journal item's."""
    return item_id[len(JOURNAL_ITEM_PREFIX) :] if item_id.startswith(JOURNAL_ITEM_PREFIX) else None


def reserved_item_id(item_id: str) -> bool:
    """Whether ``item_id`` is in the hub's own namespace (``journal_…``, ``peer_…``, ``skill_…``)."""
    return item_id.startswith(RESERVED_ID_PREFIXES)


def journal_kind(category: Category) -> Kind:
    """Knowledge for plan, decision and lesson; skill for a skill candidate; else evidence."""
    if category in _KNOWLEDGE:
        return Kind.KNOWLEDGE
    if category is Category.SKILL_CANDIDATE:
        return Kind.SKILL
    return Kind.EVIDENCE


def journal_evidence_refs(evidence: Iterable[str]) -> tuple[str, ...]:
    """The entry's evidence strings an item keeps: 1-200 UTF-16 code units (after trimming), none
    with a character an item refuses (NUL, an unpaired surrogate), each once, the first 16."""
    kept: list[str] = []
    for value in evidence:
        text = validation.js_trim(value)
        if not 0 < validation.utf16_length(text) <= MAX_EVIDENCE_REF_CHARS:
            continue
        if "\x00" in text or _SURROGATE.search(text) or text in kept:
            continue
        kept.append(text)
        if len(kept) == MAX_JOURNAL_EVIDENCE_REFS:
            break
    return tuple(kept)


def journal_item(entry: JournalEntry, *, project: str) -> ContextItem:
    """The item of ``entry``, a journal entry of a run of ``project`` (see the module), checked."""
    category = entry.category
    item = ContextItem(
        id=journal_item_id(entry.id),
        kind=journal_kind(category),
        project=project,
        summary=_text(entry.summary),
        provenance=Provenance(SourceType.WORKFLOW, JOURNAL_SOURCE_PREFIX + entry.id),
        authority=Authority.EVIDENCE,
        confidence=Confidence.PROBABLE,
        scope=Scope.RUN,
        status=Status.PROPOSED if category is Category.SKILL_CANDIDATE else None,
        observed_at=entry.create_time,
        evidence_refs=journal_evidence_refs(entry.evidence),
    )
    return check_item(item, origin=SourceType.WORKFLOW)


def peer_item_id(message_id: str) -> str:
    """The id of the item of the verified reply to message ``message_id``: ``peer_<message id>``."""
    return PEER_ITEM_PREFIX + message_id


def peer_evidence_item(snapshot: PeerEvidence, *, project: str) -> ContextItem:
    """The item of a verified peer reply of a run of ``project`` (see the module), checked."""
    summary = (
        f"Verified peer evidence for requirement {snapshot.requirement_key!r} of stage {snapshot.stage_id!r}"
        f" (run {snapshot.run_id}, visit {snapshot.visit}, attempt {snapshot.attempt}):"
        f" {snapshot.producer_name} ({snapshot.producer_id}) replied to message {snapshot.message_id};"
        f" request sha256 {snapshot.request_sha256}, reply sha256 {snapshot.reply_sha256}."
    )
    item = ContextItem(
        id=peer_item_id(snapshot.message_id),
        kind=Kind.EVIDENCE,
        project=project,
        summary=_text(summary),
        provenance=Provenance(SourceType.WORKFLOW, PEER_SOURCE_PREFIX + snapshot.message_id),
        authority=Authority.EVIDENCE,
        confidence=Confidence.VERIFIED,
        scope=Scope.RUN,
        observed_at=snapshot.verify_time,
        evidence_refs=(snapshot.message_id,),
    )
    return check_item(item, origin=SourceType.WORKFLOW)


def open_contradictions(entries: Sequence[JournalEntry]) -> list[JournalEntry]:
    """The contradiction entries among ``entries`` that no decision or lesson among them of the
    same run relates to (the reports' rule, §3.7), in the order given."""
    resolved = {
        (entry.run_id, related)
        for entry in entries
        if entry.category in RESOLVING_CATEGORIES
        for related in entry.related_entry_ids
    }
    return [
        entry
        for entry in entries
        if entry.category is Category.CONTRADICTION and (entry.run_id, entry.id) not in resolved
    ]


def _text(text: str) -> str:
    """``text`` with what an item refuses and the journal keeps (an unpaired surrogate, stored
    escaped) replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)
