"""The operators' view of a project (OpsService): what an operations dashboard shows, read at once.

Metadata only: agents and their presence, open messages without their content or reply, live leases,
runtimes. Each list is capped in SQL and counted, so a page can say "16 of 230" without reading the
rest; every count and list comes from one read transaction, so they agree with each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from kxm_grpc.domain.agents import Agent
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
        # Online on the hub's clock: seen within the presence window (Agent.presence).
        agents = tx.agents.list_by_presence(name, now - stale_after, MAX_AGENTS)
        return OpsSnapshot(
            project=name,
            snapshot_time=now,
            agents=Capped(agents, tx.agents.count(name)),
            open_messages=Capped(tx.messages.list_open_in(name, MAX_OPEN_MESSAGES), tx.messages.count_open_in(name)),
            leases=Capped(
                tx.leases.list_page(name, None, MAX_LEASES, now=now, include_lapsed=False),
                tx.leases.count_live(name, now=now),
            ),
            runtimes=Capped(tx.runtimes.list_page(name, None, MAX_RUNTIMES), tx.runtimes.count(name)),
        )

    return await store.read(read)
