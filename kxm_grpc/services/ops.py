"""The operators' view of a project (OpsService): what an operations dashboard shows, read at once.

Metadata only: agents and their presence, open messages without their content or reply, live leases,
runtimes. Each list is capped and counted, so a page can say "16 of 230" without reading more; every
count and list comes from one read transaction, so they agree with each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from kxm_grpc.domain.agents import Agent, Presence
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.leases import Lease
from kxm_grpc.domain.messages import Message
from kxm_grpc.domain.runtimes import Runtime
from kxm_grpc.errors import PermissionDenied, Reason
from kxm_grpc.services.projects import operator_project, require_project
from kxm_grpc.store import Store, Tx

MAX_AGENTS = 500
MAX_OPEN_MESSAGES = 16
MAX_LEASES = 100
MAX_RUNTIMES = 100
_PAGE = 1000
"""Rows read per store page while counting a list (the whole list is counted, its head kept)."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Capped(Generic[T]):
    """The first items of a list, and how many it has."""

    items: list[T]
    total: int


@dataclass(frozen=True, slots=True)
class OpsSnapshot:
    """One project's state as one read saw it (``snapshot_time``, the hub clock)."""

    project: str
    snapshot_time: int
    agents: Capped[Agent]
    open_messages: Capped[Message]
    leases: Capped[Lease]
    runtimes: Capped[Runtime]


async def snapshot(store: Store, caller: Caller, project: str, *, now: int, stale_after: int) -> OpsSnapshot:
    """The project's agents (online on the hub's clock first, then by name), newest open messages,
    live leases (by name) and runtimes (by id).

    Raises:
        PermissionDenied: (CREDENTIAL_KIND_DENIED) the caller is not an operator.
        InvalidArgument: (PROTOCOL_ERROR) ``project`` is malformed, missing when the call names
            none, or another than the call names.
        NotFound: (PROJECT_NOT_FOUND) no such project.
    """
    if caller.operator is None:
        raise PermissionDenied("the ops snapshot is an operator's", reason=Reason.CREDENTIAL_KIND_DENIED)
    name = operator_project(caller, project)

    def read(tx: Tx) -> OpsSnapshot:
        require_project(tx, name)
        agents = _all(lambda after: tx.agents.list_page(name, after, _PAGE, include_offline=True), lambda a: a.id)
        agents.sort(key=lambda agent: (agent.presence(now, stale_after) is not Presence.ONLINE, agent.name, agent.id))
        leases = _all(lambda after: tx.leases.list_page(name, after, _PAGE, now=now, include_lapsed=False), _name)
        runtimes = _all(lambda after: tx.runtimes.list_page(name, after, _PAGE), lambda r: r.id)
        return OpsSnapshot(
            project=name,
            snapshot_time=now,
            agents=Capped(agents[:MAX_AGENTS], len(agents)),
            open_messages=Capped(tx.messages.list_open_in(name, MAX_OPEN_MESSAGES), tx.messages.count_open_in(name)),
            leases=Capped(leases[:MAX_LEASES], len(leases)),
            runtimes=Capped(runtimes[:MAX_RUNTIMES], len(runtimes)),
        )

    return await store.read(read)


def _name(lease: Lease) -> str:
    return lease.name


def _all(page: Callable[[str | None], list[T]], key: Callable[[T], str]) -> list[T]:
    """Every row of a keyset-paged store listing, in its order."""
    rows: list[T] = []
    after: str | None = None
    while True:
        found = page(after)
        rows += found
        if len(found) < _PAGE:
            return rows
        after = key(found[-1])
