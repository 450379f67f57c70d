"""The learning journal: ``workflow_journal``, one row per record of a run, keyed by (run id, sequence).

The primary key is the run's journal in order (``head`` and ``links`` read it); ``entry_id``
indexes the promotion records by the entry they decide; (project, create time, record id) serves
the cross-run reports newest first over a project's entries, the record id last so a page ends on
a key the index holds (``recent`` pages by (create time, record id)). Both are partial
(``kind = 'promotion'``, ``kind = 'entry'``): the queries name the kind as
a literal, not a parameter, so that both planners know the index covers them.

A sequence is the run's next only if the run's journal holds the one before it: ``append``
checks that (a gap would read as a deleted record to ``verify`` forever) and leaves a taken
sequence to the primary key, whose refusal is what makes two concurrent appends conflict.
"""

from __future__ import annotations

from collections.abc import Collection

from kxm_grpc.domain.workflows.journal_chain import ChainHead, ChainLink
from kxm_grpc.store.notify import ProjectChanged
from kxm_grpc.store.rows.journal import ENTRY, PROMOTION, WORKFLOW_JOURNAL, link_from_row, link_values
from kxm_grpc.store.sql.connection import Connection

_SELECT = f"SELECT {WORKFLOW_JOURNAL.select} FROM workflow_journal"
_INSERT = f"INSERT INTO workflow_journal ({WORKFLOW_JOURNAL.select}) VALUES ({', '.join('?' * WORKFLOW_JOURNAL.width)})"


_IN_CHUNK = 500
"""Ids per ``IN`` list: well under SQLite's 32,766 variables and PostgreSQL's 65,535 parameters."""


def _in(column: str, values: Collection[str], params: list[object]) -> str:
    """``column IN (?, …)`` over ``values`` (sorted, once each), their values added to ``params``."""
    distinct = sorted(set(values))
    params.extend(distinct)
    return f"{column} IN ({', '.join('?' * len(distinct))})"


class SqlJournal:
    """The runs' journals."""

    def __init__(self, conn: Connection, changed: ProjectChanged) -> None:
        self._conn = conn
        self._changed = changed

    def append(self, link: ChainLink, *, project: str) -> None:
        run_id = link.record.run_id
        if link.sequence < 0:
            raise ValueError(f"journal sequence {link.sequence} of run {run_id} is negative")
        if link.sequence > 0:
            before = self._conn.execute(
                "SELECT 1 FROM workflow_journal WHERE run_id = ? AND sequence = ?", (run_id, link.sequence - 1)
            ).fetchone()
            if before is None:
                raise ValueError(
                    f"run {run_id}'s journal has no record {link.sequence - 1} for {link.sequence} to follow"
                )
        self._conn.execute(_INSERT, link_values(link, project))
        self._changed(project)

    def head(self, run_id: str) -> ChainHead | None:
        row = self._conn.execute(
            "SELECT sequence, chain FROM workflow_journal WHERE run_id = ? ORDER BY sequence DESC LIMIT 1", (run_id,)
        ).fetchone()
        return None if row is None else ChainHead(int(row[0]), str(row[1]))

    def links(self, run_id: str, *, after_sequence: int | None = None, limit: int) -> list[ChainLink]:
        after = -1 if after_sequence is None else after_sequence
        rows = self._conn.execute(
            f"{_SELECT} WHERE run_id = ? AND sequence > ? ORDER BY sequence LIMIT ?", (run_id, after, limit)
        ).fetchall()
        return [link_from_row(row) for row in rows]

    def entry(self, record_id: str) -> ChainLink | None:
        row = self._conn.execute(f"{_SELECT} WHERE record_id = ?", (record_id,)).fetchone()
        return None if row is None else link_from_row(row)

    def promotions(self, entry_id: str) -> list[ChainLink]:
        rows = self._conn.execute(
            f"{_SELECT} WHERE entry_id = ? AND kind = '{PROMOTION}' ORDER BY sequence, run_id", (entry_id,)
        ).fetchall()
        return [link_from_row(row) for row in rows]

    def promotions_of(self, entry_ids: Collection[str]) -> list[ChainLink]:
        distinct = sorted(set(entry_ids))
        found: list[ChainLink] = []
        for start in range(0, len(distinct), _IN_CHUNK):
            params: list[object] = []
            where = _in("entry_id", distinct[start : start + _IN_CHUNK], params)
            rows = self._conn.execute(
                f"{_SELECT} WHERE {where} AND kind = '{PROMOTION}' ORDER BY entry_id, sequence, run_id", params
            ).fetchall()
            found += [link_from_row(row) for row in rows]
        return found

    def recent(
        self,
        *,
        project: str,
        categories: Collection[str] | None = None,
        areas: Collection[str] | None = None,
        since: int | None = None,
        before: tuple[int, str] | None = None,
        limit: int,
    ) -> list[ChainLink]:
        if (categories is not None and not categories) or (areas is not None and not areas):
            return []
        params: list[object] = [project]
        clauses = [f"kind = '{ENTRY}'", "project = ?"]
        if areas is not None:
            clauses.append(_in("area", areas, params))
        if categories is not None:
            clauses.append(_in("category", categories, params))
        if since is not None:
            clauses.append("create_time >= ?")
            params.append(since)
        if before is not None:
            clauses.append("(create_time, record_id) < (?, ?)")
            params.extend(before)
        params.append(limit)
        rows = self._conn.execute(
            f"{_SELECT} WHERE {' AND '.join(clauses)} ORDER BY create_time DESC, record_id DESC LIMIT ?", params
        ).fetchall()
        return [link_from_row(row) for row in rows]

    def run_entries(self, run_id: str, *, categories: Collection[str] | None = None, limit: int) -> list[ChainLink]:
        if categories is not None and not categories:
            return []
        params: list[object] = [run_id]
        clauses = ["run_id = ?", f"kind = '{ENTRY}'"]
        if categories is not None:
            clauses.append(_in("category", categories, params))
        params.append(limit)
        # No project term: with one, SQLite's planner walks the project's (project, create time)
        # index instead of the run's primary key, reading every entry of the project.
        rows = self._conn.execute(
            f"{_SELECT} WHERE {' AND '.join(clauses)} ORDER BY create_time DESC, record_id DESC LIMIT ?", params
        ).fetchall()
        return [link_from_row(row) for row in rows]

    def put_retrospective(self, run_id: str, *, project: str, document: str, now: int) -> None:
        self._conn.execute(
            "INSERT INTO workflow_retrospectives (run_id, project, document, write_time) VALUES (?, ?, ?, ?)",
            (run_id, project, document, now),
        )

    def retrospective(self, run_id: str) -> str | None:
        row = self._conn.execute("SELECT document FROM workflow_retrospectives WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else str(row[0])

    def purge_run(self, run_id: str) -> int:
        self._conn.execute("DELETE FROM workflow_retrospectives WHERE run_id = ?", (run_id,))
        return int(self._conn.execute("DELETE FROM workflow_journal WHERE run_id = ?", (run_id,)).rowcount)
