"""The learning journal: each workflow run's records (entries and promotion records) as chain links.

A run's journal is append-only: each record is appended as the ``ChainLink`` that seals it to its
predecessor (``journal_chain.seal``), at the next sequence of its run (0 for the first). The
service reads the head, seals the record and appends it in one transaction; two such transactions
on one run conflict on the sequence (SQLite's single writer serialises them; PostgreSQL's adapter
retries the one that lost), so the later one seals after the earlier one's record.

The store proves nothing about the records: it hands back what it holds, and
``journal_chain.verify`` over a run's ``links`` tells whether they are intact (a record altered in
the database reads back altered). A run's journal goes with the run (``WorkflowRepository.purge_run``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from kxm_grpc.domain.workflows.journal_chain import ChainHead, ChainLink


class JournalRepository(Protocol):
    """The runs' journals: append, read a run's in order, look up records, and the cross-run reports."""

    def append(self, link: ChainLink, *, project: str) -> None:
        """Append ``link`` to its record's run's journal (``project``: the run's, for the reports).

        Raises:
            HubError: (the store's integrity error) the run's journal has a record at the link's
                sequence, or a record with its record's id is stored (in any run).
            ValueError: the sequence is negative, or the run's journal holds no record at the
                sequence before it (a link never leaves a gap).
        """

    def head(self, run_id: str) -> ChainHead | None:
        """The run's last link's sequence and chain (what the next record chains from), or None for
        an empty journal. Read without its record, so a record that no longer decodes never stops
        the run's next append (``verify`` reports it)."""

    def links(self, run_id: str, *, after_sequence: int | None = None, limit: int) -> list[ChainLink]:
        """The run's links in sequence order after ``after_sequence`` (None: from the first), at most ``limit``."""

    def entry(self, record_id: str) -> ChainLink | None:
        """The link of the record with this id (of any run), or None.

        Ids are unique across kinds, so a promotion record's id finds it too (its record is then a
        ``Promotion``): a caller that needs an entry checks the record's type.
        """

    def promotions(self, entry_id: str) -> list[ChainLink]:
        """The promotion records deciding the entry ``entry_id``, in journal order (folded by ``promotion_status``)."""

    def promotions_of(self, entry_ids: Collection[str]) -> list[ChainLink]:
        """The promotion records deciding any of ``entry_ids``, each entry's in journal order."""

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
        """Entries across the project's runs for the reports, newest first by (create time, record id).

        Only entries (never promotion records) whose category is in ``categories`` and whose area
        is in ``areas`` (None: any; an empty collection: none), created at or after ``since``, and
        strictly before ``before`` (the (create time, record id) of the previous page's last).
        """

    def run_entries(self, run_id: str, *, categories: Collection[str] | None = None, limit: int) -> list[ChainLink]:
        """The run's entries (never promotion records) whose category is in ``categories`` (None:
        any; an empty collection: none), newest first by (create time, record id), at most ``limit``.

        Read through the run's journal (its primary key), never the project's: the cost is the
        run's records, whatever the project holds.
        """

    def put_retrospective(self, run_id: str, *, project: str, document: str, now: int) -> None:
        """Keep the retrospective written when the run ended (its JSON text); a run has one."""

    def retrospective(self, run_id: str) -> str | None:
        """The JSON text of the retrospective written when the run ended, or None."""

    def purge_run(self, run_id: str) -> int:
        """Delete the run's journal and retrospective; return how many journal records it held."""
