"""Episodes (spec §5.10): what the project's runs ran into, as context items.

An episode is a journal entry of category error, lesson, observation or experiment, mapped to an
item as the automatic pool maps it (``journal_items.journal_item``). The listing reads the
journal, not the pool, so entries recorded before the pool existed are listed too. It holds the
**newest** 50 (a week of runs would otherwise never show this hour's lesson), listed oldest first
by (create time, entry id) as the original sorts.

Who reads: any caller admitted to the project (``scope.context_project``). One run may be named:
a run that is not the project's, or no longer retained, is refused as the journal refuses it
(NOT_FOUND WORKFLOW_NOT_FOUND, the same for both: nothing says another project's run exists). An
agent that is not the run's coordinator may read its episodes, as it reads them in the
project-wide listing.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kxm_grpc.domain import validation
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.context.items import ContextItem, check_text
from kxm_grpc.domain.context.journal_items import EPISODE_CATEGORIES, journal_item
from kxm_grpc.domain.workflows.journal import JournalEntry
from kxm_grpc.errors import Reason
from kxm_grpc.services.context.scope import context_project
from kxm_grpc.services.workflows.runs import MAX_RUN_ID_CHARS, run_not_found
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.context")

MAX_EPISODES = 50
_CATEGORIES = tuple(category.value for category in EPISODE_CATEGORIES)


@dataclass(frozen=True, slots=True)
class Episodes:
    """At most 50 episodes, oldest first."""

    project: str
    items: tuple[ContextItem, ...]


async def list_episodes(store: Store, caller: Caller, *, project: str = "", run_id: str = "") -> Episodes:
    """The newest 50 episodes of the project's runs (or of its run ``run_id``), oldest first.

    Raises:
        PermissionDenied, InvalidArgument: as ``scope.context_project``.
        InvalidArgument: (INVALID_CONTEXT_REQUEST, field ``workflow_run_id``) a malformed run id.
        NotFound: (WORKFLOW_NOT_FOUND) no such run in the project.
    """
    name = context_project(caller, project)
    run = (
        check_text("workflow_run_id", run_id, MAX_RUN_ID_CHARS, reason=Reason.INVALID_CONTEXT_REQUEST)
        if validation.js_trim(run_id)
        else None
    )

    def work(tx: Tx) -> tuple[ContextItem, ...]:
        if run is not None:
            found = tx.workflows.get_run(run)
            if found is None or found.project != name:
                raise run_not_found(run)
        links = (
            tx.journal.recent(project=name, categories=_CATEGORIES, limit=MAX_EPISODES)
            if run is None
            else tx.journal.run_entries(run, categories=_CATEGORIES, limit=MAX_EPISODES)
        )
        entries = [link.record for link in reversed(links) if isinstance(link.record, JournalEntry)]
        return tuple(journal_item(entry, project=name) for entry in entries)

    items = await store.read(work)
    log.debug("context_episodes_listed", project=name, run_id=run, items=len(items))
    return Episodes(name, items)
