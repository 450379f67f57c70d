"""Role-aware context at scale (issue 17 item 6): the indexed packet and recall beside the brute force.

In the bench process, over a SQLite store (WAL, the hub's engine) in the work directory: one project
seeded with ``size`` items (``Pool``: a Zipf-like vocabulary of 5,000 pseudo-words, summaries of
50–400 characters, the five kinds and their statuses mixed, some superseded, a state key on state
items), plus 60 ``_shared`` defaults of which 15 the project shadows. Seeding is setup (its seconds
are in the JSON, in no figure). Then, per size, rows measured in one run:

- ``context_packet`` / ``context_packet_brute``: one ``store.read`` of ``assembly.assemble`` (indexed)
  or ``assemble_brute_force``, for a role and task drawn from a fixed list (roles with budgets of
  8,000 to 32,000 tokens, tasks of 3–8 words from the same vocabulary, three open contradictions);
  the two give byte-identical outcomes (checked on the first call of each request here, and by
  the oracle test on random pools);
- ``context_recall`` / ``context_recall_brute``: ``assembly.recall`` / ``recall_brute_force`` of a
  one- or two-word query, limit 25, every kind;
- ``context_index_bytes``: what the index costs per item on disk (once, at the largest size): the
  database copied by ``VACUUM INTO``, and a second copy without the postings, the statistics, the
  ranking columns and indexes, the trigram index and ``length`` (dropped, then ``VACUUM``); the
  difference divided by the items. SQLite's page cache holds what the queries touch of that, so it
  is also the memory the index costs when the pool is hot.

The brute force reads and tokenises every item: at the largest size it runs ``context_brute_calls``
calls, not ``context_calls`` (each takes seconds).
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench.common import Rep
from kxm_grpc.domain.context.arbiter import Outcome
from kxm_grpc.domain.context.documents import outcome_bytes
from kxm_grpc.domain.context.items import (
    SHARED_PROJECT,
    Authority,
    Confidence,
    ContextItem,
    Kind,
    Provenance,
    SourceType,
    Status,
)
from kxm_grpc.domain.context.recall import RecallHit
from kxm_grpc.domain.context.request import ContextRequest
from kxm_grpc.services.context import assembly
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.context_items import StoredContextItem
from kxm_grpc.store.url import open_store

PROJECT = "bench-context"
VOCABULARY = 5_000
ZIPF_OFFSET = 100
"""Word ``r`` is drawn with weight 1 / (r + 100): the head of a natural language's Zipf curve is
its stopwords, which relevance drops, so the content words start down the curve (the commonest
is in about a tenth of the summaries)."""
SHARED = 60
SHADOWED = 15
SEED_BATCH = 1_000
ROLES = ("verifier", "implementer", "critic", "planner", "someone")
CONTRADICTIONS = 3
_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "gu", "fe", "hi", "bo", "ny")
_KINDS = ((Kind.EVIDENCE, 40), (Kind.KNOWLEDGE, 25), (Kind.EPISODE, 15), (Kind.STATE, 15), (Kind.SKILL, 5))


def _word(rank: int) -> str:
    syllables = []
    value = rank + 17
    while value:
        syllables.append(_SYLLABLES[value % len(_SYLLABLES)])
        value //= len(_SYLLABLES)
    return "".join(syllables)


@dataclass
class Pool:
    """A seeded project's generator: the same seed gives the same items, tasks and queries."""

    seed: int

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.words = [_word(rank) for rank in range(VOCABULARY)]
        self.weights = [1 / (rank + ZIPF_OFFSET) for rank in range(VOCABULARY)]

    def text(self, low: int, high: int) -> str:
        target = self.rng.randint(low, high)
        words = self.rng.choices(self.words, weights=self.weights, k=target // 4 + 2)
        return " ".join(words)[:target].strip() or "x"

    def item(self, item_id: str, project: str) -> ContextItem:
        rng = self.rng
        kind = rng.choices([k for k, _ in _KINDS], weights=[w for _, w in _KINDS])[0]
        status: Status | None = None
        if kind is Kind.STATE:
            status = rng.choices((Status.CURRENT, Status.SUPERSEDED, Status.PROPOSED), weights=(6, 3, 1))[0]
        elif kind is Kind.SKILL:
            status = rng.choice((Status.CURRENT, Status.PROPOSED, None))
        elif rng.random() < 0.05:
            status = Status.SUPERSEDED
        moment = rng.randint(1_700_000_000_000_000, 1_800_000_000_000_000) if rng.random() < 0.9 else None
        return ContextItem(
            id=item_id,
            kind=kind,
            project=project,
            summary=self.text(50, 400),
            provenance=Provenance(rng.choice((SourceType.PEER, SourceType.WORKFLOW, SourceType.HUMAN)), None),
            authority=rng.choice((Authority.EVIDENCE, Authority.EVIDENCE, Authority.HYPOTHESIS, Authority.INSTRUCTION)),
            confidence=rng.choice(list(Confidence)),
            status=status,
            state_key=f"key.{rng.randint(0, 200)}" if kind is Kind.STATE else None,
            observed_at=moment,
        )

    def items(self, size: int) -> list[StoredContextItem]:
        own = [self.item(f"ctx_{index:07d}", PROJECT) for index in range(size)]
        shared = [self.item(f"ctx_{index:07d}", SHARED_PROJECT) for index in range(min(SHADOWED, size))]
        shared += [self.item(f"def_{index:03d}", SHARED_PROJECT) for index in range(SHARED - len(shared))]
        return [StoredContextItem(item, 1) for item in own + shared]

    def requests(self, count: int) -> list[ContextRequest]:
        return [ContextRequest(PROJECT, ROLES[index % len(ROLES)], self.text(20, 60)) for index in range(count)]

    def queries(self, count: int) -> list[str]:
        return [
            " ".join(self.rng.choices(self.words, weights=self.weights, k=self.rng.randint(1, 2))) for _ in range(count)
        ]


async def seed(path: Path, size: int) -> tuple[Store, float]:
    """A started store at ``path`` holding the pool of ``size`` items; the seconds seeding took."""
    store = open_store(str(path))
    await store.start()
    started = time.perf_counter()
    stored = Pool(size).items(size)
    for start in range(0, len(stored), SEED_BATCH):
        batch = stored[start : start + SEED_BATCH]

        def put(tx: Tx, batch: list[StoredContextItem] = batch) -> None:
            tx.context_items.put(batch)

        await store.write(put)
    return store, time.perf_counter() - started


async def packets(store: Store, size: int, calls: int, *, brute: bool, seed_seconds: float) -> Rep:
    """``calls`` packets, one ``store.read`` each, over a fixed list of requests."""
    pool = Pool(size + 1)
    requests = pool.requests(max(calls, 1))
    contradictions = [f"ctx_{index * 7:07d}" for index in range(CONTRADICTIONS)]
    assemble = assembly.assemble_brute_force if brute else assembly.assemble
    latencies: list[float] = []
    started = time.perf_counter()
    for request in requests[:calls]:
        began = time.perf_counter()
        await store.read(partial(_packet, assemble, request, contradictions))
        latencies.append(time.perf_counter() - began)
    seconds = time.perf_counter() - started
    return Rep(
        rate=calls / seconds, ops=calls, seconds=seconds, latencies=latencies, extra={"seed_seconds": seed_seconds}
    )


def _packet(assemble: Callable[..., Outcome], request: ContextRequest, contradictions: list[str], tx: Tx) -> Outcome:
    return assemble(tx, request, contradiction_ids=contradictions)


def _recall(recall: Callable[..., list[RecallHit]], query: str, tx: Tx) -> list[RecallHit]:
    return recall(tx, PROJECT, query, kinds=None, limit=25)


async def recalls(store: Store, size: int, calls: int, *, brute: bool) -> Rep:
    """``calls`` recalls (limit 25, every kind), one ``store.read`` each."""
    queries = Pool(size + 2).queries(max(calls, 1))
    recall = assembly.recall_brute_force if brute else assembly.recall
    latencies: list[float] = []
    started = time.perf_counter()
    for query in queries[:calls]:
        began = time.perf_counter()
        await store.read(partial(_recall, recall, query))
        latencies.append(time.perf_counter() - began)
    seconds = time.perf_counter() - started
    return Rep(rate=calls / seconds, ops=calls, seconds=seconds, latencies=latencies)


async def same_outcomes(store: Store, size: int, count: int) -> None:
    """The indexed and brute-force forms agree on the measured requests and queries (else the row fails)."""
    contradictions = [f"ctx_{index * 7:07d}" for index in range(CONTRADICTIONS)]

    def check(tx: Tx) -> None:
        for request in Pool(size + 1).requests(count):
            indexed = assembly.assemble(tx, request, contradiction_ids=contradictions)
            brute = assembly.assemble_brute_force(tx, request, contradiction_ids=contradictions)
            if outcome_bytes(indexed) != outcome_bytes(brute):
                raise RuntimeError(f"indexed and brute-force packets differ for {request}")
        for query in Pool(size + 2).queries(count):
            if assembly.recall(tx, PROJECT, query, kinds=None, limit=25) != assembly.recall_brute_force(
                tx, PROJECT, query, kinds=None, limit=25
            ):
                raise RuntimeError(f"indexed and brute-force recall differ for {query!r}")

    await store.read(check)


_INDEX_COLUMNS = (
    "cost",
    "confidence_key",
    "authority_key",
    "undated",
    "recency",
    "code_units",
    "folded_summary",
    "folded_key",
    "length",
)


def index_bytes(path: Path, items: int, work_dir: Path) -> Rep:
    """Bytes per item the index costs on disk: a ``VACUUM INTO`` copy with and without it."""
    started = time.perf_counter()
    full, bare = work_dir / "context-full.db", work_dir / "context-bare.db"
    for copy in (full, bare):
        copy.unlink(missing_ok=True)
        with sqlite3.connect(path) as conn:
            conn.execute("VACUUM INTO ?", (str(copy),))
    conn = sqlite3.connect(bare, isolation_level=None)
    try:
        for statement in (
            "DROP TABLE context_postings",
            "DROP TABLE context_index_stats",
            "DROP INDEX context_items_rank",
            "DROP INDEX context_items_code_units",
            "DROP INDEX context_items_cost",
            "DROP TRIGGER IF EXISTS context_items_text_insert",
            "DROP TRIGGER IF EXISTS context_items_text_delete",
            "DROP TABLE IF EXISTS context_fts",
            "DROP TABLE IF EXISTS context_text",
            *(f"ALTER TABLE context_items DROP COLUMN {column}" for column in _INDEX_COLUMNS),
            "VACUUM",
        ):
            conn.execute(statement)
    finally:
        conn.close()
    per_item = (full.stat().st_size - bare.stat().st_size) / items
    seconds = time.perf_counter() - started
    return Rep(
        rate=per_item,
        ops=items,
        seconds=seconds,
        extra={
            "bytes_per_item": per_item,
            "with_index_bytes": full.stat().st_size,
            "without_bytes": bare.stat().st_size,
        },
    )
