"""Context items (``kxm.context-item.v1``) and the inverted index BM25 ranks them with (issue 17, §5.7).

An item is keyed by (project, item id): ``put`` inserts or replaces a batch in the unit of work,
and every change to an item changes its index entries in the same statement batch, so the index
never disagrees with the items a transaction sees. ``_shared`` is a project like any other here;
the pool reads (``list_items``, ``index_stats``, ``postings``) add it to the project asked for
unless told not to, and never return a third project's items.

The index
---------
BM25 (``relevance.score_relevance``) over a corpus needs, besides each query term's matching
documents and their term frequency and length, only the corpus' document count N, its total
length (avgdl = total / N, or 1 when the total is 0), and each query term's document frequency.
A document is ``relevance.item_text(item)``; its length is the number of its
``relevance.relevance_tokens`` (duplicates kept), the term frequencies their counts.

Which items form the corpus depends on the request: the arbiter scores its *eligible* items (the
pool minus superseded and rejected items, of the requested kinds and not inert — a state item
that is not current, a proposed skill — plus the open contradictions), recall its pool minus
superseded and rejected items of the requested kinds. Both are unions of (project, kind, status)
partitions (and, for the arbiter, a few contradiction ids the caller names), so the index keeps
its statistics per (project, kind, status) and every posting carries its item's kind, status and
length. A service sums the documents and total lengths of the partitions its corpus is made of
(integers: the sums are exact, so avgdl is the very float the brute force divides out), reads the
query terms' postings in those partitions (a term's document frequency is the number of its
postings there), adds any contradiction item outside them from its own text, and then computes
the brute-force scorer's float operations in the same order: the scores are identical, bit for bit,
without reading an item that matches no query term.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from kxm_grpc.domain.context.items import ContextItem, Kind, Status


@dataclass(frozen=True, slots=True)
class StoredContextItem:
    """An item as stored: the item, when it was written, and what the store keeps beside it."""

    item: ContextItem
    write_time: int
    """When this version was written (clock microseconds): the end of a superseded or rejected
    item that has no ``valid_until``, for retention."""
    run_id: str | None = None
    """The workflow run it came from (a journal entry's, verified evidence's), or None: it goes
    when the run is purged (``purge_run``)."""
    superseded_by: str | None = None
    """The id of the item that superseded it (a promotion's new item), when the writer knows it."""


@dataclass(frozen=True, slots=True)
class IndexStats:
    """One (project, kind, status) partition of the index: its BM25 corpus statistics."""

    project: str
    kind: Kind
    status: Status | None
    documents: int
    """Items in the partition (N's share), those without a token included."""
    total_length: int
    """The sum of the partition's items' lengths (relevance tokens of ``item_text``, duplicates kept)."""


@dataclass(frozen=True, slots=True)
class Posting:
    """One term of one item: how often the term occurs in the item's text, and the item's length."""

    term: str
    project: str
    item_id: str
    kind: Kind
    status: Status | None
    frequency: int
    """The term's count among the item's relevance tokens (at least 1)."""
    length: int
    """The item's length (all its relevance tokens)."""


RankKey = tuple[int, int, int, int, bytes]
"""An item's place among the unmatched items of one (project, kind), ascending: minus its
confidence rank, minus its authority rank, undated (0 or 1), minus its moment (0 when undated),
its id as UTF-16-BE bytes. The arbiter's ordering keys 6 to 9 (``arbiter.rank_key``), as integers
and bytes that both backends compare alike."""


@dataclass(frozen=True, slots=True)
class RankEntry:
    """One item as first fit reads it: what it costs and where it ranks, not its body."""

    project: str
    item_id: str
    kind: Kind
    status: Status | None
    cost: int
    """``tokens.item_characters`` of the item."""
    key: RankKey


class Match(NamedTuple):
    """One posting as the indexed packet and recall read it, in bulk: the partition as the status
    and kind columns hold it (``''`` for no status), not as enums, since a common term has
    thousands."""

    project: str
    item_id: str
    term: str
    kind: str
    status: str
    frequency: int
    length: int


Scored = tuple[str, str, str, float]
"""One matched item as the store scores it (``scored``): its id, its partition as the kind and
status columns hold it, and its BM25 score as the database summed it, within
``relevance.SCORE_TOLERANCE`` of the exact score (the same terms, summed in another order), never
the exact score itself. A plain tuple: a common term matches thousands of items."""


TermPosting = tuple[str, str, int, int, str]
"""One posting as the indexed packet scores it (``term_postings``): its term, the item's id, the
term's frequency, the item's length and its kind as the kind column holds it. A plain tuple: the
terms of a task match tens of thousands of items at 100,000."""


@dataclass(frozen=True, slots=True)
class IndexedItem:
    """An item's partition and length: what its place in BM25's statistics depends on."""

    project: str
    item_id: str
    kind: Kind
    status: Status | None
    length: int


@dataclass(frozen=True, slots=True)
class Stream:
    """The items of one (project, kind) of the given statuses, minus those having a posting of any
    of ``matched_terms`` and, when ``shadowed_by`` names a project, minus those whose id that
    project holds too: one run of the arbiter's order (keys 1 to 5 being equal within it)."""

    project: str
    kind: Kind
    statuses: tuple[Status | None, ...]
    matched_terms: tuple[str, ...] = ()
    shadowed_by: str | None = None


class ContextItemRepository(Protocol):
    """Context items by (project, id), and their inverted index, kept in step in every write."""

    def put(self, items: Sequence[StoredContextItem]) -> None:
        """Insert each item, or replace the stored one with its (project, id), with its index entries.

        Raises:
            ValueError: the batch holds one (project, id) twice.
        """

    def get(self, project: str, item_ids: Collection[str]) -> list[StoredContextItem]:
        """The project's items among ``item_ids`` (unknown ids left out), by id (no ``_shared``
        fallback: a caller looking an id up in the pool asks ``_shared`` itself)."""

    def list_items(
        self,
        project: str,
        *,
        include_shared: bool = True,
        kinds: Collection[Kind] | None = None,
        statuses: Collection[Status | None] | None = None,
        after: tuple[str, str] | None = None,
        limit: int,
    ) -> list[StoredContextItem]:
        """The project's items (and ``_shared``'s, unless ``include_shared`` is false) of ``kinds``
        and ``statuses`` (None: any; an empty collection: none; a status None is an item without
        one), in (project, id) order, strictly after ``after`` (the (project, id) of the previous
        page's last), at most ``limit``.

        The order is byte order of the UTF-8 text (code point order), the same on every backend;
        the arbiter orders by UTF-16 code units itself.
        """

    def delete(self, project: str, item_ids: Collection[str]) -> int:
        """Delete the project's items among ``item_ids`` and their index entries; how many there were."""

    def purge_run(self, run_id: str) -> int:
        """Delete the items that came from the run (of any project) and their index entries; how many."""

    def purge_superseded(self, *, ended_before: int, kinds: Collection[Kind], limit: int | None = None) -> int:
        """Delete the superseded and rejected items of ``kinds`` (any project) that ended before
        ``ended_before`` — at their ``valid_until``, else when they were written — and their index
        entries, at most ``limit`` of them (None: all), those that ended first; how many. (State
        history and other kinds have their own horizons: one call each.)"""

    def state_items(
        self,
        project: str,
        state_key: str,
        *,
        statuses: Collection[Status] | None = None,
        active_at: int | None = None,
    ) -> list[StoredContextItem]:
        """The state items of the project's ``state_key`` of ``statuses`` (None: every status, the
        key's whole history), and with ``active_at`` only those whose interval holds it
        (``valid_from ≤ T < valid_until``, a missing bound open), by id; an index lookup
        (``context_items_state``), never a scan of the pool. No ``_shared`` fallback: state is a
        project's own."""

    def crowded_state_keys(self, project: str) -> list[str]:
        """The project's state keys holding more than one ``current``, or more than one
        ``proposed``, state item (set-valued ones included: the caller tells them apart), in byte
        order; from the same index."""

    def index_stats(self, project: str, *, include_shared: bool = True) -> list[IndexStats]:
        """The project's (and ``_shared``'s) index partitions holding at least one item, in
        (project, kind, status) order (a status None first)."""

    def postings(
        self,
        project: str,
        terms: Collection[str],
        *,
        include_shared: bool = True,
        kinds: Collection[Kind] | None = None,
        statuses: Collection[Status | None] | None = None,
    ) -> list[Posting]:
        """The postings of ``terms`` in the project's (and ``_shared``'s) partitions of ``kinds``
        and ``statuses`` (None: any; an empty collection: none), in (term, project, item id) order."""

    def shadowed(self, project: str) -> list[IndexedItem]:
        """The ``_shared`` items whose id ``project`` holds too (any status), in id order: the
        defaults the project's own items shadow (none when ``project`` is ``_shared``)."""

    def rank_entries(self, stream: Stream, *, after: RankKey | None, most_cost: int, limit: int) -> list[RankEntry]:
        """The stream's items costing at most ``most_cost``, in ``RankKey`` order, strictly after
        ``after``, at most ``limit``: the store skips the items too large for what is left of a
        budget without returning them."""

    def count_before(self, stream: Stream, key: RankKey) -> int:
        """How many of the stream's items rank before ``key`` (whatever they cost)."""

    def rank_rows(self, project: str, item_ids: Collection[str], *, most_cost: int) -> list[RankEntry]:
        """The project's items among ``item_ids`` costing at most ``most_cost``, as first fit reads
        them (unknown ids left out), in id order."""

    def phrase_hits(
        self,
        project: str,
        folded_query: str,
        *,
        kinds: Collection[Kind] | None,
        statuses: Collection[Status | None],
        shadowed_by: str | None = None,
        among: Collection[str] | None = None,
        without_terms: Sequence[str] = (),
        limit: int | None = None,
        narrow: bool = True,
    ) -> list[str]:
        """The ids of the project's items of ``kinds`` (None: any) and ``statuses`` whose
        lower-cased summary or state key contains ``folded_query`` (not empty), minus those whose
        id ``shadowed_by`` holds too, only those among ``among`` (None: any), minus those with a
        posting of any of ``without_terms``: with a ``limit``, the first ``limit`` by UTF-16 code
        units; without, all of them in no particular order. The text is compared in the database,
        row by row: without ``among`` nor ``limit``, among the items holding the query's joints
        (``joints.query_joints``, when it has any) and those whose joints were never written;
        otherwise a scan of the project's items that stops at ``limit`` hits, narrowed by a text
        index where the store has one and ``narrow`` (a project of a few items is cheaper to scan
        than the whole database's index)."""

    def first_by_code_units(
        self,
        project: str,
        *,
        kinds: Collection[Kind] | None,
        statuses: Collection[Status | None],
        shadowed_by: str | None = None,
        limit: int,
    ) -> list[str]:
        """The ids of the first ``limit`` of the project's items of ``kinds`` (None: any) and
        ``statuses``, minus those whose id ``shadowed_by`` holds too, by UTF-16 code units."""

    def matches(self, project: str, terms: Collection[str], *, kinds: Collection[Kind] | None) -> list[Match]:
        """The postings of ``terms`` in the project's and ``_shared``'s partitions of ``kinds``
        (None: any), in no particular order."""

    def document_frequencies(
        self,
        project: str,
        terms: Collection[str],
        *,
        partitions: Collection[tuple[Kind, Status | None]],
        shadowed_by: str | None = None,
    ) -> dict[str, int]:
        """Per term of ``terms``, the project's items of ``partitions`` (kind, status) having a
        posting of it, minus those whose id ``shadowed_by`` holds too (terms without one left out):
        counted in the database, no posting returned."""

    def scored(
        self,
        project: str,
        weights: Sequence[tuple[str, float]],
        *,
        average: float,
        partitions: Collection[tuple[Kind, Status | None]],
        shadowed_by: str | None = None,
        limit: int | None = None,
    ) -> list[Scored]:
        """The project's items of ``partitions`` having a posting of a term of ``weights`` (a term
        and its inverse document frequency, distinct terms), minus those whose id ``shadowed_by``
        holds too, each with its BM25 score summed in the database (the average document length
        ``average``), by that score descending (ties in no particular order): one row per item, not
        per posting; the first ``limit`` of them only, when given. The scores are approximations
        (``Scored``); a caller orders by them only with ``SCORE_TOLERANCE``'s margin."""

    def term_postings(
        self,
        project: str,
        terms: Collection[str],
        *,
        partitions: Collection[tuple[Kind, Status | None]],
        shadowed_by: str | None = None,
    ) -> list[TermPosting]:
        """The postings of ``terms`` of the project's items of ``partitions`` (kind, status), minus
        those whose id ``shadowed_by`` holds too, by term (a term's postings in a row, in no
        particular order among them): every matched item's exact score can be summed from them
        (``relevance.bm25_postings``), and a term's postings count its document frequency."""

    def term_frequencies(self, project: str, terms: Collection[str], item_ids: Collection[str]) -> list[Match]:
        """The postings of ``terms`` of the project's items among ``item_ids``, in no particular order:
        what the exact scores of a few items need."""

    def least_cost(self, partitions: Collection[tuple[str, Kind, Status | None]]) -> int | None:
        """The least cost (``tokens.item_characters``) of an item of the (project, kind, status)
        ``partitions``, None when they hold none; one index probe per partition (version 19)."""
