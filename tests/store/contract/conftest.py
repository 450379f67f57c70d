"""The store contract suite's fixtures: every test here runs once per store factory.

In the manner of Flower's ``StateTest`` (``state_factory``), each test takes ``store`` (a started
store from the factory under test) or ``store_factory`` itself (to reopen the same database, for
what must survive a restart). A factory provides a fresh database for one test, as the URL that
opens it (``kxm_grpc/store/url.py``), and says whether it persists across a restart. Adding an
adapter to the suite is adding one entry to ``FACTORIES``: a context manager that creates a
scratch database and drops it afterwards, or the name of a fixture that does (PostgreSQL).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Delivery, Message, MessageState
from kxm_grpc.domain.workflows.diversity import Dimension
from kxm_grpc.domain.workflows.evidence import DegradationApproval, EligibleProducer, PeerEvidence, ResolvedPolicy
from kxm_grpc.domain.workflows.journal import Category, JournalEntry, Promotion, PromotionStatus, Severity
from kxm_grpc.domain.workflows.runs import (
    CheckpointStatus,
    Escalation,
    EvidenceHash,
    Run,
    RunStatus,
    StageState,
    StageStatus,
    Transition,
    Wait,
)
from kxm_grpc.store import Durability, Store
from kxm_grpc.store.url import open_store

Database = Callable[[Path], contextlib.AbstractAsyncContextManager[str]]
"""A fresh database for one test (given the test's temporary directory), as the URL that opens it."""


@dataclass(frozen=True)
class Factory:
    """One adapter's databases for the suite: how to make one, whether it persists, and test marks.

    ``database`` makes a fresh database, or ``fixture`` names the pytest fixture that yields one's
    URL (PostgreSQL's ``postgres_database``, ``tests/postgres.py``: a scratch database per test).
    """

    database: Database | None
    persistent: bool
    marks: tuple[pytest.MarkDecorator, ...] = ()
    fixture: str | None = None


@contextlib.asynccontextmanager
async def _sqlite_file(directory: Path) -> AsyncIterator[str]:
    yield f"sqlite:///{directory / 'hub.db'}"  # four slashes: the temporary directory is absolute


@contextlib.asynccontextmanager
async def _sqlite_memory(directory: Path) -> AsyncIterator[str]:
    yield "sqlite://:memory:"


FACTORIES: dict[str, Factory] = {
    "sqlite-file": Factory(_sqlite_file, persistent=True),
    "sqlite-memory": Factory(_sqlite_memory, persistent=False),
    "postgres": Factory(None, persistent=True, marks=(pytest.mark.postgres,), fixture="postgres_database"),
}


@dataclass
class StoreFactory:
    """Opens stores on one database of the adapter under test; closes them after the test."""

    name: str
    url: str
    persistent: bool
    _open: list[Store] = field(default_factory=list)

    async def open(self) -> Store:
        """A started store on this factory's database (for a persistent one, the same database each time)."""
        store = open_store(self.url, durability=Durability.FULL)
        await store.start()
        self._open.append(store)
        return store

    async def reopen(self, store: Store) -> Store:
        """Close ``store`` and open the same database again: a restart. Skips the test where nothing persists."""
        if not self.persistent:
            pytest.skip(f"{self.name} keeps nothing across a restart")
        await self.close(store)
        return await self.open()

    async def close(self, store: Store) -> None:
        """Close a store this factory opened."""
        self._open.remove(store)
        await store.close()

    async def close_all(self) -> None:
        """Close every store still open."""
        for store in list(self._open):
            with contextlib.suppress(Exception):
                await self.close(store)


@pytest_asyncio.fixture(params=[pytest.param(name, marks=f.marks) for name, f in sorted(FACTORIES.items())])
async def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreFactory]:
    """The factory under test (each test runs once per entry of ``FACTORIES``)."""
    factory = FACTORIES[request.param]
    if factory.fixture is not None:
        made = StoreFactory(request.param, str(request.getfixturevalue(factory.fixture)), factory.persistent)
        try:
            yield made
        finally:
            await made.close_all()
        return
    assert factory.database is not None
    async with factory.database(tmp_path) as url:
        made = StoreFactory(request.param, url, factory.persistent)
        try:
            yield made
        finally:
            await made.close_all()


@pytest_asyncio.fixture
async def store(store_factory: StoreFactory) -> Store:
    """A started store from the factory under test."""
    return await store_factory.open()


def agent(agent_id: str, name: str, *, project: str = "p", online: bool = True, seen: int = 10) -> Agent:
    """An agent of ``project`` (connected at 1)."""
    return Agent(
        id=agent_id,
        project=project,
        name=name,
        purpose="x",
        model="",
        host="",
        connect_time=1,
        last_seen_time=seen,
        online=online,
    )


def message(message_id: str, *, to: str = "agt_b", seq: int = 1, expire_time: int = 1_000, **fields: Any) -> Message:
    """A queued message from ``agt_a`` to ``to`` (project ``p``); ``fields`` override the rest."""
    queued = Message(
        id=message_id,
        project="p",
        from_agent_id="agt_a",
        from_agent_name="alice",
        to_agent_id=to,
        to_agent_name="bob",
        content="hello",
        delivery=Delivery.FOLLOW_UP,
        hops=0,
        max_hops=5,
        correlation_id="",
        reply_to="",
        idempotency_key="",
        seq=seq,
        workflow_context=None,
        create_time=1,
        expire_time=expire_time,
        state=MessageState.QUEUED,
    )
    return replace(queued, **fields)


def full_run() -> Run:
    """A run with every field of every type in it set (none at its default)."""
    peer = PeerEvidence(
        message_id="msg_r1",
        producer_id="agt_b",
        producer_name="bob",
        run_id="wfr_full",
        stage_id="plan",
        requirement_key="review",
        visit=3,
        attempt=2,
        request_sha256="a" * 64,
        reply_sha256="b" * 64,
        create_time=11,
        deliver_time=12,
        reply_time=13,
        verify_time=14,
    )
    policy = ResolvedPolicy(
        key="review",
        min_producers=2,
        eligible=(
            EligibleProducer("agt_b", "bob", provider="anthropic", model="claude"),
            EligibleProducer("agt_c", "carol", provider="openai", model="gpt"),
        ),
        distinct_by=(Dimension.PROVIDER, Dimension.MODEL),
        degraded_min_producers=1,
    )
    plan = StageState(
        id="plan",
        status=StageStatus.WARNING,
        attempts=2,
        visit=3,
        visit_start_time=9,
        summary='planned ✓ with\nnewlines and "quotes" and a lone \ud800 surrogate',
        evidence={"plan": ("step 1", "step 2\nstep 3"), "notes": ("é",)},
        peer_evidence={"review": (peer, replace(peer, message_id="msg_r2", deliver_time=None))},
        degraded_requirements=("review",),
        start_time=9,
        complete_time=15,
        update_time=15,
        escalation=Escalation(
            reason="stuck",
            escalate_time=14,
            escalated_by="hub",
            ruling="carry on",
            ruling_status=CheckpointStatus.WARNING,
            ruled_by="ops",
            rule_time=15,
        ),
        resumed_at=1,
    )
    build = StageState("build", StageStatus.WAITING, attempts=1, visit=1, visit_start_time=16, start_time=16)
    return Run(
        id="wfr_full",
        definition_id="wf_a",
        definition_hash="h1",
        project="p",
        coordinator_id="agt_a",
        coordinator_name="alice",
        delivery_id="dlv_full",
        payload_sha256="c" * 64,
        prompt_message_id="msg_resume",
        stages=[plan, build, StageState("ship")],
        policies={"plan": {"review": policy}, "build": {}},
        create_time=8,
        update_time=20,
        status=RunStatus.WAITING,
        current_stage="build",
        wait=Wait("build", "deploy", "deploying", create_time=17, expire_time=100),
        transitions=[Transition("tr_1", "build", "plan", "failed", 1, ("log", "trace"), 12)],
        repro_oracle=EvidenceHash("plan", "repro", "d" * 64, 10),
        plan_hash=EvidenceHash("plan", "plan", "e" * 64, 11),
        approvals=[
            DegradationApproval(
                id="apr_1",
                stage_id="plan",
                requirement_key="review",
                visit=3,
                attempt=2,
                policy_min_producers=2,
                approved_min_producers=1,
                approved_by="ops",
                reason="one reviewer is away",
                approve_time=13,
            )
        ],
        end_time=21,
        end_reason="not really ended",
        event="push",
    )


def full_entry() -> JournalEntry:
    """An entry of ``full_run`` with every field set (none at its default), texts JSON must escape included."""
    return JournalEntry(
        id="journal_full",
        run_id="wfr_full",
        author="hub",
        category=Category.SKILL_CANDIDATE,
        area="harness",
        severity=Severity.WARNING,
        summary='learnt ✓ with\nnewlines, "quotes", a NUL \x00 and a lone \ud800 surrogate',
        create_time=1_700_000_000_000_001,
        details="é" * 3,
        evidence=("ci run 1", "by:ops"),
        related_entry_ids=("journal_a", "journal_b"),
        stage_id="plan",
        attempt=2,
    )


def full_promotion() -> Promotion:
    """A promotion record of ``full_entry`` with every field set."""
    return Promotion(
        id="promotion_full",
        run_id="wfr_full",
        entry_id="journal_full",
        from_status=PromotionStatus.PROPOSED,
        to_status=PromotionStatus.QUARANTINED,
        evidence_refs=("incident 4", "ci run 2"),
        decided_by="ops",
        reason="flaky ✗",
        decide_time=1_700_000_000_000_002,
    )
