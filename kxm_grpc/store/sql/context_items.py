"""Context items: ``context_items`` by (project, id), their postings and each partition's statistics.

``context_postings`` is keyed by (project, term, kind, status, item id): a query's terms in a
pool are a prefix range each, and a second index on (project, item id) finds an item's postings
when it is replaced or deleted. Beside its terms an item has its *joints* there (version 22,
decision 301: the seven characters around each space of its folded text, of frequency 0), which
recall's phrase test reads, and ``joints_indexed`` says they were written. ``context_index_stats``
holds one row per (project, kind, status) partition with items: how many, and their total length.

Every write is set-based: a batch reads the replaced items' partition contributions with one
``GROUP BY`` per chunk of ids, deletes their postings and rows with one statement each, inserts
the new rows and postings with one multi-row ``INSERT`` per chunk (``_chunks``: a few fixed
sizes), and applies the net change of each partition's statistics with one upsert (a partition
whose count falls to 0 is deleted; a change that leaves a partition as it was writes nothing).
Purges find their items by a condition on ``context_items`` and do the same with that condition.
A partition's statistics row is what two concurrent writers of one project and kind both update:
SQLite's single writer serialises them, PostgreSQL's SERIALIZABLE engine runs the loser again.

Queries that should use a partial index name the statuses (and the state kind) as literals, not
parameters, so that both planners know the index covers them. A state key's items are found by
``context_items_state`` (project, kind, state key, status) over state items only (schema 16).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from typing import TypeVar, cast

from kxm_grpc.domain.context.items import SHARED_PROJECT, Kind, Status
from kxm_grpc.domain.context.joints import query_joints
from kxm_grpc.domain.context.relevance import K1, B
from kxm_grpc.store.protocols.context_items import (
    IndexedItem,
    IndexStats,
    Match,
    Posting,
    RankEntry,
    RankKey,
    Scored,
    StoredContextItem,
    Stream,
    TermPosting,
)
from kxm_grpc.store.rows import Row
from kxm_grpc.store.rows.context_items import (
    CONTEXT_INDEX_STATS,
    CONTEXT_ITEM_INSERT,
    CONTEXT_ITEMS,
    CONTEXT_POSTINGS,
    index_entries,
    item_from_row,
    item_joints,
    item_values,
    posting_from_row,
    posting_values,
    stats_from_row,
    status_from_value,
    status_value,
)
from kxm_grpc.store.sql.connection import Connection

_TRIGRAM = 3
"""Characters (code points) of a trigram: the least query the substring index can narrow."""
_IN_CHUNK = 512
"""Ids or terms per ``IN`` list at most: well under SQLite's 32,766 variables and PostgreSQL's 65,535 parameters."""
_ITEM_ROWS = 256
"""Item rows per multi-row ``INSERT`` at most (25 columns: 6,400 parameters)."""
_POSTING_ROWS = 512
"""Posting rows per multi-row ``INSERT`` at most (7 columns: 3,584 parameters)."""

_SELECT_ITEMS = f"SELECT {CONTEXT_ITEMS.select} FROM context_items"
_SELECT_POSTINGS = f"SELECT {CONTEXT_POSTINGS.select} FROM context_postings"
_SELECT_STATS = f"SELECT {CONTEXT_INDEX_STATS.select} FROM context_index_stats"
_ENDED = f"status IN ('{Status.SUPERSEDED.value}', '{Status.REJECTED.value}')"
"""The partial index ``context_items_ended``'s condition, as its queries must spell it."""

_STATE = f"kind = '{Kind.STATE.value}'"
"""The partial index ``context_items_state``'s condition, as its queries must spell it."""

_T = TypeVar("_T")

Partition = tuple[str, str, str]
"""(project, kind, status column) of the index statistics."""


def _chunks(values: Sequence[_T], most: int) -> Iterator[Sequence[_T]]:
    """``values`` in consecutive chunks whose sizes are powers of two, each at most ``most`` (a power
    of two): a batch of any size is written by a handful of statement shapes (at most ten per table
    and kind of statement), so the drivers' statement caches and PostgreSQL's prepared statements
    hold a few shapes, not one per batch size."""
    start = 0
    while start < len(values):
        size = min(most, 1 << ((len(values) - start).bit_length() - 1))
        yield values[start : start + size]
        start += size


def _marks(count: int) -> str:
    return ", ".join("?" * count)


def _rows(count: int, width: int) -> str:
    row = f"({_marks(width)})"
    return ", ".join([row] * count)


def _projects(project: str, include_shared: bool) -> list[str]:
    return sorted({project, SHARED_PROJECT}) if include_shared else [project]


def _filters(
    clauses: list[str],
    params: list[object],
    kinds: Collection[Kind] | None,
    statuses: Collection[Status | None] | None,
) -> bool:
    """Add the kind and status filters; False when one is empty (nothing matches)."""
    for column, values in (
        ("kind", None if kinds is None else sorted({kind.value for kind in kinds})),
        ("status", None if statuses is None else sorted({status_value(status) for status in statuses})),
    ):
        if values is None:
            continue
        if not values:
            return False
        clauses.append(f"{column} IN ({_marks(len(values))})")
        params.extend(values)
    return True


class SqlContextItems:
    """Context items and their inverted index."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._text_index: bool | None = None

    # -- writes ----------------------------------------------------------------------------------------

    def put(self, items: Sequence[StoredContextItem]) -> None:
        if not items:
            return
        by_project: dict[str, list[str]] = {}
        for stored in items:
            ids = by_project.setdefault(stored.item.project, [])
            ids.append(stored.item.id)
        for project, ids in by_project.items():
            if len(set(ids)) != len(ids):
                twice = sorted({item_id for item_id in ids if ids.count(item_id) > 1})
                raise ValueError(f"context items put twice in one batch in project {project}: {', '.join(twice)}")
        deltas: dict[Partition, list[int]] = {}
        for project, ids in sorted(by_project.items()):
            for chunk in _chunks(sorted(ids), _IN_CHUNK):
                self._remove("project = ? AND id IN (" + _marks(len(chunk)) + ")", [project, *chunk], deltas)
        item_rows: list[tuple[object, ...]] = []
        posting_rows: list[tuple[object, ...]] = []
        for stored in items:
            item = stored.item
            length, frequencies = index_entries(item)
            item_rows.append(item_values(stored, length))
            posting_rows += [posting_values(item, length, term, count) for term, count in frequencies.items()]
            posting_rows += [posting_values(item, length, joint, 0) for joint in sorted(item_joints(item))]
            delta = deltas.setdefault((item.project, item.kind.value, status_value(item.status)), [0, 0])
            delta[0] += 1
            delta[1] += length
        for rows in _chunks(item_rows, _ITEM_ROWS):
            self._conn.execute(
                f"INSERT INTO context_items ({CONTEXT_ITEM_INSERT.select}) "
                f"VALUES {_rows(len(rows), CONTEXT_ITEM_INSERT.width)}",
                [value for row in rows for value in row],
            )
        for rows in _chunks(posting_rows, _POSTING_ROWS):
            self._conn.execute(
                f"INSERT INTO context_postings ({CONTEXT_POSTINGS.select}) "
                f"VALUES {_rows(len(rows), CONTEXT_POSTINGS.width)}",
                [value for row in rows for value in row],
            )
        self._apply(deltas)

    def delete(self, project: str, item_ids: Collection[str]) -> int:
        deltas: dict[Partition, list[int]] = {}
        removed = 0
        for chunk in _chunks(sorted(set(item_ids)), _IN_CHUNK):
            removed += self._remove("project = ? AND id IN (" + _marks(len(chunk)) + ")", [project, *chunk], deltas)
        self._apply(deltas)
        return removed

    def purge_run(self, run_id: str) -> int:
        deltas: dict[Partition, list[int]] = {}
        removed = self._remove("run_id = ?", [run_id], deltas)
        self._apply(deltas)
        return removed

    def purge_superseded(self, *, ended_before: int, kinds: Collection[Kind], limit: int | None = None) -> int:
        values = sorted({kind.value for kind in kinds})
        if not values or limit == 0:
            return 0
        deltas: dict[Partition, list[int]] = {}
        ended = f"{_ENDED} AND COALESCE(valid_until, write_time) < ? AND kind IN ({_marks(len(values))})"
        if limit is not None:
            # The first ``limit`` to have ended (a total order, so every statement of _remove sees
            # the same ones), found along context_items_ended.
            ended = (
                f"(project, id) IN (SELECT project, id FROM context_items WHERE {ended} "
                f"ORDER BY COALESCE(valid_until, write_time), project, id LIMIT {int(limit)})"
            )
        removed = self._remove(ended, [ended_before, *values], deltas)
        self._apply(deltas)
        return removed

    def _remove(self, where: str, params: list[object], deltas: dict[Partition, list[int]]) -> int:
        """Delete the items matching ``where`` and their postings, subtracting their contributions
        from ``deltas``; how many items there were."""
        contributions = self._conn.execute(
            f"SELECT project, kind, status, COUNT(*), SUM(length) FROM context_items WHERE {where} "
            "GROUP BY project, kind, status",
            params,
        ).fetchall()
        if not contributions:
            return 0
        removed = 0
        for project, kind, status, count, total in contributions:
            delta = deltas.setdefault((project, kind, status), [0, 0])
            delta[0] -= int(count)
            delta[1] -= int(total)
            removed += int(count)
        self._conn.execute(
            f"DELETE FROM context_postings WHERE (project, item_id) IN (SELECT project, id FROM context_items "
            f"WHERE {where})",
            params,
        )
        self._conn.execute(f"DELETE FROM context_items WHERE {where}", params)
        return removed

    def _apply(self, deltas: dict[Partition, list[int]]) -> None:
        """Add each partition's net change to its statistics; drop the partitions left empty."""
        changed = sorted((key, delta) for key, delta in deltas.items() if delta != [0, 0])
        if not changed:
            return
        for chunk in _chunks(changed, _ITEM_ROWS):
            self._conn.execute(
                "INSERT INTO context_index_stats (project, kind, status, documents, total_length) "
                f"VALUES {_rows(len(chunk), 5)} ON CONFLICT (project, kind, status) DO UPDATE SET "
                "documents = context_index_stats.documents + excluded.documents, "
                "total_length = context_index_stats.total_length + excluded.total_length",
                [
                    value
                    for (project, kind, status), (documents, length) in chunk
                    for value in (project, kind, status, documents, length)
                ],
            )
        projects = sorted({project for (project, _, _), _ in changed})
        self._conn.execute(
            f"DELETE FROM context_index_stats WHERE project IN ({_marks(len(projects))}) AND documents <= 0",
            projects,
        )

    # -- reads -----------------------------------------------------------------------------------------

    def get(self, project: str, item_ids: Collection[str]) -> list[StoredContextItem]:
        found: list[StoredContextItem] = []
        for chunk in _chunks(sorted(set(item_ids)), _IN_CHUNK):
            rows = self._conn.execute(
                f"{_SELECT_ITEMS} WHERE project = ? AND id IN ({_marks(len(chunk))}) ORDER BY id", [project, *chunk]
            ).fetchall()
            found += [item_from_row(row) for row in rows]
        return found

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
        # One query per project (two at most), each a range of the primary key after the cursor:
        # a page costs its own rows, never a scan of the pages before it.
        found: list[StoredContextItem] = []
        for owner in _projects(project, include_shared):
            if after is not None and owner < after[0]:
                continue
            clauses = ["project = ?"]
            params: list[object] = [owner]
            if not _filters(clauses, params, kinds, statuses):
                return []
            if after is not None and owner == after[0]:
                clauses.append("id > ?")
                params.append(after[1])
            params.append(limit - len(found))
            rows = self._conn.execute(
                f"{_SELECT_ITEMS} WHERE {' AND '.join(clauses)} ORDER BY id LIMIT ?", params
            ).fetchall()
            found += [item_from_row(row) for row in rows]
            if len(found) >= limit:
                break
        return found

    def state_items(
        self,
        project: str,
        state_key: str,
        *,
        statuses: Collection[Status] | None = None,
        active_at: int | None = None,
    ) -> list[StoredContextItem]:
        condition = f"project = ? AND state_key = ? AND {_STATE}"
        parameters: list[object] = [project, state_key]
        if statuses is not None:
            if not statuses:
                return []
            # Literals, not parameters: the statuses are the index's third column.
            condition += f" AND status IN ({', '.join(sorted(repr(status.value) for status in statuses))})"
        if active_at is not None:
            condition += " AND (valid_from IS NULL OR valid_from <= ?) AND (valid_until IS NULL OR valid_until > ?)"
            parameters += [active_at, active_at]
        rows = self._conn.execute(f"{_SELECT_ITEMS} WHERE {condition} ORDER BY id", parameters).fetchall()
        return [item_from_row(row) for row in rows]

    def crowded_state_keys(self, project: str) -> list[str]:
        rows = self._conn.execute(
            f"SELECT DISTINCT state_key FROM context_items WHERE project = ? AND {_STATE} "
            f"AND status IN ('{Status.CURRENT.value}', '{Status.PROPOSED.value}') "
            "GROUP BY state_key, status HAVING COUNT(*) > 1 ORDER BY state_key",
            [project],
        ).fetchall()
        return [str(row[0]) for row in rows]

    def index_stats(self, project: str, *, include_shared: bool = True) -> list[IndexStats]:
        projects = _projects(project, include_shared)
        rows = self._conn.execute(
            f"{_SELECT_STATS} WHERE project IN ({_marks(len(projects))}) AND documents > 0 "
            "ORDER BY project, kind, status",
            projects,
        ).fetchall()
        return [stats_from_row(row) for row in rows]

    def postings(
        self,
        project: str,
        terms: Collection[str],
        *,
        include_shared: bool = True,
        kinds: Collection[Kind] | None = None,
        statuses: Collection[Status | None] | None = None,
    ) -> list[Posting]:
        projects = _projects(project, include_shared)
        found: list[Posting] = []
        for chunk in _chunks(sorted(set(terms)), _IN_CHUNK):
            clauses = [f"project IN ({_marks(len(projects))})", f"term IN ({_marks(len(chunk))})"]
            params: list[object] = [*projects, *chunk]
            if not _filters(clauses, params, kinds, statuses):
                return []
            rows = self._conn.execute(
                f"{_SELECT_POSTINGS} WHERE {' AND '.join(clauses)} ORDER BY term, project, item_id", params
            ).fetchall()
            found += [posting_from_row(row) for row in rows]
        return found

    def matches(self, project: str, terms: Collection[str], *, kinds: Collection[Kind] | None) -> list[Match]:
        projects = _projects(project, True)
        found: list[Match] = []
        for chunk in _chunks(sorted(set(terms)), _IN_CHUNK):
            clauses = [f"project IN ({_marks(len(projects))})", f"term IN ({_marks(len(chunk))})"]
            params: list[object] = [*projects, *chunk]
            if not _filters(clauses, params, kinds, None):
                return []
            rows = self._conn.execute(
                "SELECT project, item_id, term, kind, status, frequency, length FROM context_postings "
                f"WHERE {' AND '.join(clauses)}",
                params,
            ).fetchall()
            found += map(Match._make, rows)
        return found

    def document_frequencies(
        self,
        project: str,
        terms: Collection[str],
        *,
        partitions: Collection[tuple[Kind, Status | None]],
        shadowed_by: str | None = None,
    ) -> dict[str, int]:
        found: dict[str, int] = {}
        for chunk in _chunks(sorted(set(terms)), _IN_CHUNK):
            clauses = ["project = ?", f"term IN ({_marks(len(chunk))})"]
            params: list[object] = [project, *chunk]
            if not _partitions(clauses, params, partitions):
                return {}
            _add_posting_shadowing(clauses, params, shadowed_by)
            rows = self._conn.execute(
                f"SELECT term, COUNT(*) FROM context_postings WHERE {' AND '.join(clauses)} GROUP BY term", params
            ).fetchall()
            found.update((str(term), int(count)) for term, count in rows)
        return found

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
        if not weights or limit == 0:
            return []
        # One statement whatever the number of terms (a task has at most about 670): a sum split
        # across statements would be one item's score in pieces. The constants are parameters
        # computed as relevance.bm25 computes them, so each term's contribution is the same
        # operations on the same doubles; only the summation order is the database's.
        terms = [term for term, _ in weights]
        cases = " ".join(["WHEN ? THEN ?"] * len(weights))
        clauses = ["project = ?", f"term IN ({_marks(len(terms))})"]
        params: list[object] = [value for pair in weights for value in pair]
        params += [K1 + 1, K1, 1 - B, B, average, project, *terms]
        if not _partitions(clauses, params, partitions):
            return []
        _add_posting_shadowing(clauses, params, shadowed_by)
        norm = "(? + ? * (CAST(length AS DOUBLE PRECISION) / ?))"
        contribution = f"(CASE term {cases} END) * ((frequency * ?) / (frequency + ? * {norm}))"
        where = " AND ".join(clauses)
        if len(weights) == 1:
            # One term: one posting per item (the key holds the item), so no grouping, and the
            # score is that one contribution, exactly as bm25 computes it.
            sql = f"SELECT item_id, kind, status, {contribution} FROM context_postings WHERE {where} ORDER BY 4 DESC"
        else:
            sql = (
                f"SELECT item_id, kind, status, SUM({contribution}) FROM context_postings WHERE {where} "
                "GROUP BY item_id, kind, status ORDER BY 4 DESC"
            )
        if limit is not None:
            sql += " LIMIT ?"  # the database keeps the best rows as it goes (a top-N sort)
            params.append(limit)
        return cast(list[Scored], self._conn.execute(sql, params).fetchall())

    def term_postings(
        self,
        project: str,
        terms: Collection[str],
        *,
        partitions: Collection[tuple[Kind, Status | None]],
        shadowed_by: str | None = None,
    ) -> list[TermPosting]:
        found: list[TermPosting] = []
        for chunk in _chunks(sorted(set(terms)), _IN_CHUNK):
            clauses = ["project = ?", f"term IN ({_marks(len(chunk))})"]
            params: list[object] = [project, *chunk]
            if not _partitions(clauses, params, partitions):
                return []
            _add_posting_shadowing(clauses, params, shadowed_by)
            # ORDER BY term: the primary key's order, so no sort; a chunk's terms are a sorted run
            # of distinct terms, so the chunks keep each term's postings together.
            rows = self._conn.execute(
                "SELECT term, item_id, frequency, length, kind FROM context_postings "
                f"WHERE {' AND '.join(clauses)} ORDER BY term",
                params,
            ).fetchall()
            found += cast(list[TermPosting], rows)
        return found

    def term_frequencies(self, project: str, terms: Collection[str], item_ids: Collection[str]) -> list[Match]:
        wanted = sorted(set(terms))
        if not wanted:
            return []
        found: list[Match] = []
        for chunk in _chunks(sorted(set(item_ids)), _IN_CHUNK):
            # The items' partitions first, so that every posting wanted is one probe of the primary
            # key (project, term, kind, status, item id). Asked by item id and term at once, SQLite
            # without statistics walked each term's postings, tens of thousands for a common one.
            partitions: dict[tuple[str, str], list[str]] = {}
            for item_id, kind, status in self._conn.execute(
                f"SELECT id, kind, status FROM context_items WHERE project = ? AND id IN ({_marks(len(chunk))}) "
                "ORDER BY id",
                [project, *chunk],
            ).fetchall():
                partitions.setdefault((kind, status), []).append(item_id)
            for (kind, status), ids in sorted(partitions.items()):
                rows = self._conn.execute(
                    "SELECT project, item_id, term, kind, status, frequency, length FROM context_postings "
                    f"WHERE project = ? AND term IN ({_marks(len(wanted))}) AND kind = ? AND status = ? "
                    f"AND item_id IN ({_marks(len(ids))})",
                    [project, *wanted, kind, status, *ids],
                ).fetchall()
                found += map(Match._make, rows)
        return found

    def least_cost(self, partitions: Collection[tuple[str, Kind, Status | None]]) -> int | None:
        keys = sorted({(project, kind.value, status_value(status)) for project, kind, status in partitions})
        if not keys:
            return None
        # One MIN per partition, each an end of context_items_cost; their least in the same statement.
        probes = " UNION ALL ".join(
            ["SELECT MIN(cost) AS least FROM context_items WHERE project = ? AND kind = ? AND status = ?"] * len(keys)
        )
        row = self._conn.execute(
            f"SELECT MIN(least) FROM ({probes}) probes", [value for key in keys for value in key]
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def shadowed(self, project: str) -> list[IndexedItem]:
        if project == SHARED_PROJECT:
            return []
        rows = self._conn.execute(
            "SELECT s.project, s.id, s.kind, s.status, s.length FROM context_items s WHERE s.project = ? "
            "AND EXISTS (SELECT 1 FROM context_items o WHERE o.project = ? AND o.id = s.id) ORDER BY s.id",
            [SHARED_PROJECT, project],
        ).fetchall()
        return [IndexedItem(p, i, Kind(k), status_from_value(st), int(n)) for p, i, k, st, n in rows]

    def rank_entries(self, stream: Stream, *, after: RankKey | None, most_cost: int, limit: int) -> list[RankEntry]:
        clauses, params = _stream_where(stream)
        clauses.append("cost <= ?")
        params.append(most_cost)
        if after is not None:
            clauses.append(f"({_RANK_ORDER}) > (?, ?, ?, ?, ?)")
            params.extend(after)
        rows = self._conn.execute(
            f"SELECT {_RANK_SELECT} FROM context_items WHERE {' AND '.join(clauses)} ORDER BY {_RANK_ORDER} LIMIT ?",
            [*params, limit],
        ).fetchall()
        return [_rank_entry(row) for row in rows]

    def count_before(self, stream: Stream, key: RankKey) -> int:
        clauses, params = _stream_where(stream)
        clauses.append(f"({_RANK_ORDER}) < (?, ?, ?, ?, ?)")
        row = self._conn.execute(
            f"SELECT COUNT(*) FROM context_items WHERE {' AND '.join(clauses)}", [*params, *key]
        ).fetchone()
        return int(row[0])

    def rank_rows(self, project: str, item_ids: Collection[str], *, most_cost: int) -> list[RankEntry]:
        found: list[RankEntry] = []
        for chunk in _chunks(sorted(set(item_ids)), _IN_CHUNK):
            # ORDER BY id: without statistics SQLite would otherwise scan the covering rank index.
            rows = self._conn.execute(
                f"SELECT {_RANK_SELECT} FROM context_items WHERE project = ? AND id IN ({_marks(len(chunk))}) "
                "AND cost <= ? ORDER BY id",
                [project, *chunk, most_cost],
            ).fetchall()
            found += [_rank_entry(row) for row in rows]
        return found

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
        joints = query_joints(folded_query) if among is None and limit is None else []
        if joints:
            # The items holding every joint of the query (decision 301): a few postings each, where
            # the trigram index below reads the commonest trigrams' tens of thousands. And those
            # whose joints were never written: put by a replica of version 21 or older during a
            # rolling upgrade (few, or none: context_items_unjointed holds only them).
            # At most _IN_CHUNK of them: fewer joints still hold every phrase hit, among more items.
            among = self._holding(project, joints[:_IN_CHUNK], kinds=kinds, statuses=statuses)
            among += [
                row[0]
                for row in self._conn.execute(
                    "SELECT id FROM context_items WHERE project = ? AND joints_indexed = 0", [project]
                ).fetchall()
            ]
            if not among:
                return []
        found: list[str] = []
        for chunk in [None] if among is None else _chunks(sorted(set(among)), _IN_CHUNK):
            clauses = ["project = ?"]
            params: list[object] = [project]
            if not _filters(clauses, params, kinds, statuses):
                return []
            if chunk is not None:
                clauses.append(f"id IN ({_marks(len(chunk))})")
                params += chunk
            # replace() is exact and case-sensitive in both dialects (SQLite's LIKE folds ASCII case,
            # and instr and strpos are one dialect's each): the text changes when the query occurs in it.
            clauses.append(
                "(replace(folded_summary, ?, '') <> folded_summary "
                "OR (folded_key IS NOT NULL AND replace(folded_key, ?, '') <> folded_key))"
            )
            params += [folded_query, folded_query]
            if without_terms:
                clauses.append(
                    "NOT EXISTS (SELECT 1 FROM context_postings p WHERE p.project = context_items.project "
                    f"AND p.term IN ({_marks(len(without_terms))}) AND p.kind = context_items.kind "
                    "AND p.status = context_items.status AND p.item_id = context_items.id)"
                )
                params += without_terms
            _add_shadowing(clauses, params, shadowed_by)
            source = "context_items"
            if chunk is None and narrow and self._has_text_index(folded_query):
                # SQLite's trigram index (decision 259): an item holding the query holds its
                # trigrams in a row, so its matches hold every phrase hit; replace() decides. The
                # matches drive the statement (CROSS JOIN fixes the order): as `id IN (...)`, the
                # planner walked the project's items by kind instead, 100,000 rows for 18 hits.
                source = (
                    "(SELECT t.id AS matched FROM context_fts f CROSS JOIN context_text t ON t.seq = f.rowid "
                    "WHERE context_fts MATCH ? AND t.project = ?) m CROSS JOIN context_items ON id = m.matched"
                )
                params = ['"' + folded_query.replace('"', '""') + '"', project, *params]
            tail = "" if limit is None else " ORDER BY code_units LIMIT ?"
            if chunk is not None and limit is None:
                # ORDER BY id: with a kind filter and no statistics, SQLite would otherwise walk
                # the kinds' partitions in context_items_cost (tens of ms), not probe each id.
                tail = " ORDER BY id"
            rows = self._conn.execute(
                f"SELECT id FROM {source} WHERE {' AND '.join(clauses)}{tail}",
                params if limit is None else [*params, limit],
            ).fetchall()
            found += [row[0] for row in rows]
        return found

    def _holding(
        self,
        project: str,
        joints: Sequence[str],
        *,
        kinds: Collection[Kind] | None,
        statuses: Collection[Status | None],
    ) -> list[str]:
        """The ids of the project's items of ``kinds`` and ``statuses`` holding every one of
        ``joints`` (distinct), in no particular order."""
        clauses = ["project = ?", f"term IN ({_marks(len(joints))})"]
        params: list[object] = [project, *joints]
        if not _filters(clauses, params, kinds, statuses):
            return []
        # Counted here, not by GROUP BY item_id: SQLite without statistics would walk the
        # project's postings in context_postings_item's order for it. An item's postings are of
        # one partition, so it has one per term it holds.
        held = Counter(
            row[0]
            for row in self._conn.execute(
                f"SELECT item_id FROM context_postings WHERE {' AND '.join(clauses)}", params
            ).fetchall()
        )
        return [item_id for item_id, count in held.items() if count == len(joints)]

    def _has_text_index(self, folded_query: str) -> bool:
        """Whether a scan for ``folded_query`` can be narrowed by the trigram index: SQLite with
        version 19's ``context_fts`` (absent where FTS5 or its trigram tokenizer is), and a query
        of at least 3 characters (a shorter one has no trigram)."""
        if len(folded_query) < _TRIGRAM or not isinstance(self._conn, sqlite3.Connection):
            return False
        if self._text_index is None:
            found = self._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'context_fts'").fetchone()
            self._text_index = found is not None
        return self._text_index

    def first_by_code_units(
        self,
        project: str,
        *,
        kinds: Collection[Kind] | None,
        statuses: Collection[Status | None],
        shadowed_by: str | None = None,
        limit: int,
    ) -> list[str]:
        clauses = ["project = ?"]
        params: list[object] = [project]
        if not _filters(clauses, params, kinds, statuses):
            return []
        _add_shadowing(clauses, params, shadowed_by)
        rows = self._conn.execute(
            f"SELECT id FROM context_items WHERE {' AND '.join(clauses)} ORDER BY code_units LIMIT ?",
            [*params, limit],
        ).fetchall()
        return [row[0] for row in rows]


_RANK_ORDER = "confidence_key, authority_key, undated, recency, code_units"
_RANK_SELECT = f"project, id, kind, status, cost, {_RANK_ORDER}"


def _rank_entry(row: Row) -> RankEntry:
    project, item_id, kind, status, cost, confidence, authority, undated, recency, code_units = row
    return RankEntry(
        project,
        item_id,
        Kind(kind),
        status_from_value(status),
        int(cost),
        (int(confidence), int(authority), int(undated), int(recency), bytes(code_units)),
    )


def _add_shadowing(clauses: list[str], params: list[object], shadowed_by: str | None) -> None:
    if shadowed_by is not None:
        clauses.append("NOT EXISTS (SELECT 1 FROM context_items o WHERE o.project = ? AND o.id = context_items.id)")
        params.append(shadowed_by)


def _partitions(clauses: list[str], params: list[object], partitions: Collection[tuple[Kind, Status | None]]) -> bool:
    """Add a posting's partition filter, (kind, status) pairs grouped by kind; False when empty."""
    by_kind: dict[str, set[str]] = {}
    for kind, status in partitions:
        by_kind.setdefault(kind.value, set()).add(status_value(status))
    if not by_kind:
        return False
    alternatives = []
    for value, statuses in sorted(by_kind.items()):
        alternatives.append(f"(kind = ? AND status IN ({_marks(len(statuses))}))")
        params += [value, *sorted(statuses)]
    clauses.append(f"({' OR '.join(alternatives)})")
    return True


def _add_posting_shadowing(clauses: list[str], params: list[object], shadowed_by: str | None) -> None:
    if shadowed_by is not None:
        clauses.append(
            "NOT EXISTS (SELECT 1 FROM context_items o WHERE o.project = ? AND o.id = context_postings.item_id)"
        )
        params.append(shadowed_by)


def _stream_where(stream: Stream) -> tuple[list[str], list[object]]:
    """The condition selecting a stream's items (``context_items_rank`` is its order)."""
    clauses = ["project = ?", "kind = ?"]
    params: list[object] = [stream.project, stream.kind.value]
    statuses = sorted({status_value(status) for status in stream.statuses})
    clauses.append(f"status IN ({_marks(len(statuses))})" if statuses else "1 = 0")
    params += statuses
    if stream.matched_terms:
        clauses.append(
            "NOT EXISTS (SELECT 1 FROM context_postings p WHERE p.project = context_items.project "
            f"AND p.term IN ({_marks(len(stream.matched_terms))}) AND p.kind = context_items.kind "
            "AND p.status = context_items.status AND p.item_id = context_items.id)"
        )
        params += stream.matched_terms
    _add_shadowing(clauses, params, stream.shadowed_by)
    return clauses, params
