"""The indexed packet and recall against their oracle, the brute force (issue 17 items 6 and 10).

On random pools (fixed seeds, shuffled insertion orders, ``_shared`` defaults some of which the
project shadows, open contradictions of every kind and status, budgets that defer, tiny and
oversized items, ids beyond the BMP and in the U+E000 range where code-point and code-unit orders
differ), ``assembly.assemble`` and ``assembly.recall`` give what ``assemble_brute_force`` and
``recall_brute_force`` give over the same stored pool: the packets and audits byte for byte
(``documents.outcome_bytes``), the recall hits equal with bit-identical scores. On every backend.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import struct
from types import SimpleNamespace

import pytest

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

WORDS = (
    "gate",
    "flaky",
    "playwright",
    "deploy",
    "target",
    "rollback",
    "schema",
    "migration",
    "lint",
    "budget",
    "cache",
    "timeout",
    "retry",
    "queue",
    "worker",
    "lease",
    "token",
    "journal",
    "evidence",
    "verifier",
    "planner",
    "critic",
    "sqlite",
    "postgres",
    "index",
    "bm25",
    "gates",
    "deploys",
    "caches",
    "policies",
    "policy",
    "retries",
    "classes",
    "class",
    "bus",
    "busses",
    "élan",
    "straße",
    "ﬁle",
    "😀",
    "𝒳",
)
ID_STEMS = ("ctx_a", "ctx_b", "ctx_\ue000", "ctx_😀", "ctx_𝒳", "ctx_é", "ctx_Z", "ctx_z", "m")
ROLES = ("planner", "critic", "implementer", "verifier", "repro", "someone")
BUDGETS = (None, 512, 512, 600, 1_000, 4_000, 200_000)


def _summary(rng: random.Random, size: str) -> str:
    if size == "tiny":
        return rng.choice(WORDS)[:2]
    if size == "oversized":
        return " ".join(rng.choice(WORDS) for _ in range(700))[:3_900]
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40)))


def _item(rng: random.Random, item_id: str, project: str) -> ContextItem:
    moment = rng.choice((None, None, 5, 5, 7, rng.randint(0, 10**15)))
    return ContextItem(
        id=item_id,
        kind=rng.choice(list(Kind)),
        project=project,
        summary=_summary(rng, rng.choices(("tiny", "normal", "oversized"), weights=(2, 10, 1))[0]),
        provenance=Provenance(rng.choice(list(SourceType)), rng.choice((None, "ref", "ci 😀 run"))),
        authority=rng.choice(list(Authority)),
        confidence=rng.choice(list(Confidence)),
        status=rng.choice((None, *Status)),
        state_key=rng.choice((None, None, "deploy.target", "gate 😀")),
        observed_at=moment if rng.random() < 0.5 else None,
        valid_from=moment,
    )


def _piece(rng: random.Random, pool: list[ContextItem]) -> str:
    """Up to 24 characters of a random item's summary or state key, from a random start, in a
    random case ("" for an empty pool)."""
    if not pool:
        return ""
    item = rng.choice(pool)
    text = item.state_key if item.state_key and rng.random() < 0.25 else item.summary
    start = rng.randrange(len(text))
    piece = text[start : start + rng.randint(5, 24)]
    return piece.upper() if rng.random() < 0.3 else piece


def _pool(rng: random.Random, project: str, size: int) -> tuple[list[ContextItem], list[str]]:
    ids: list[str] = []
    while len(ids) < size:
        candidate = f"{rng.choice(ID_STEMS)}{rng.randint(0, size * 2)}"
        if candidate not in ids:
            ids.append(candidate)
    own = [_item(rng, item_id, project) for item_id in ids]
    shared_ids = rng.sample(ids, k=min(len(ids), rng.randint(0, 4)))  # shadowed defaults
    shared_ids += [f"def_{rng.choice(ID_STEMS)}{n}" for n in range(rng.randint(0, 6))]
    shared = [_item(rng, item_id, SHARED_PROJECT) for item_id in shared_ids]
    foreign = [_item(rng, item_id, "other") for item_id in ids[:3]]
    pool = own + shared + foreign
    rng.shuffle(pool)
    contradictions = rng.sample([*ids, *shared_ids, "ctx_unknown"], k=min(len(ids), rng.randint(0, 5)))
    return pool, contradictions


def _request(rng: random.Random, project: str) -> ContextRequest:
    kinds = None
    if rng.random() < 0.4:
        kinds = tuple(rng.sample(list(Kind), k=rng.randint(1, len(Kind))))
    task = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
    if rng.random() < 0.1:
        task = "the and of"  # stopwords only: no task token
    return ContextRequest(project, rng.choice(ROLES), task, budget_tokens=rng.choice(BUDGETS), include_kinds=kinds)


def _bits(hits: list[RecallHit]) -> list[tuple[str, str, bool, bytes]]:
    return [(hit.item.project, hit.item.id, hit.phrase_hit, struct.pack(">d", hit.score)) for hit in hits]


async def _put(store: Store, pool: list[ContextItem], rng: random.Random) -> None:
    stored = [StoredContextItem(item, rng.randint(1, 9)) for item in pool]
    for start in range(0, len(stored), 97):  # several batches, in the shuffled order
        batch = stored[start : start + 97]

        def write(tx: Tx, batch: list[StoredContextItem] = batch) -> None:
            tx.context_items.put(batch)

        await store.write(write)


async def _clear_shared(store: Store) -> None:
    def clear(tx: Tx) -> None:
        ids = [s.item.id for s in tx.context_items.list_items(SHARED_PROJECT, limit=10_000)]
        tx.context_items.delete(SHARED_PROJECT, ids)

    await store.write(clear)


def _compare(tx: Tx, request: ContextRequest, contradictions: list[str]) -> None:
    indexed = assembly.assemble(tx, request, contradiction_ids=contradictions, working_state={"k": 1})
    brute = assembly.assemble_brute_force(tx, request, contradiction_ids=contradictions, working_state={"k": 1})
    assert outcome_bytes(indexed) == outcome_bytes(brute), request


def _compare_recall(tx: Tx, project: str, query: str, kinds: tuple[Kind, ...] | None, limit: int) -> None:
    indexed = assembly.recall(tx, project, query, kinds=kinds, limit=limit)
    brute = assembly.recall_brute_force(tx, project, query, kinds=kinds, limit=limit)
    assert _bits(indexed) == _bits(brute), (query, kinds, limit)
    assert indexed == brute


def _check(
    rng: random.Random,
    project: str,
    requests: list[ContextRequest],
    queries: list[str],
    contradictions: list[str],
    tx: Tx,
) -> None:
    for request in requests:
        _compare(tx, request, contradictions)
        _compare(tx, request, [])
    for query in queries:
        for kinds in (None, (Kind.EVIDENCE,), (Kind.STATE, Kind.SKILL), ()):
            _compare_recall(tx, project, query, kinds, rng.choice((1, 5, 25, 100)))


@pytest.mark.parametrize("seed", range(6))
async def test_indexed_packets_and_recall_equal_the_brute_force_on_random_pools(
    store: Store, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Odd seeds scan every owner's text through the trigram index (SQLite), as a large project does.
    monkeypatch.setattr(assembly, "_NARROW_FROM", 0 if seed % 2 else assembly._NARROW_FROM)
    rng = random.Random(seed)
    for round_ in range(6):
        project = f"p{seed}_{round_}"
        await _clear_shared(store)
        pool, contradictions = _pool(rng, project, rng.choice((0, 1, 5, 30, 80)))
        await _put(store, pool, rng)
        requests = [_request(rng, project) for _ in range(8)]
        queries = ["", *(rng.choice(WORDS) for _ in range(3)), "gate fl", "la", "ctx", "😀", "zzz nothing"]
        # Several words: their joints narrow the phrase test (decision 301); a piece of a stored
        # text is a phrase hit, often across spaces and cut inside words.
        queries += [" ".join(rng.choices(WORDS, k=rng.randint(2, 3))), *(_piece(rng, pool) for _ in range(3))]

        await store.read(functools.partial(_check, rng, project, requests, queries, contradictions))


async def test_the_item_limit_and_the_deferred_before_it_equal_the_brute_force(store: Store) -> None:
    # 400 items that fit a large budget, some oversized among them: 256 are selected, the
    # oversized ranked before the 256th are deferred, the rest neither.
    rng = random.Random(7)
    pool = []
    for index in range(400):
        item = _item(rng, f"ctx_{index:04d}", "p")
        summary = "x" * 3_900 if index % 37 == 0 else f"gate {rng.choice(WORDS)}"
        pool.append(dataclasses.replace(item, summary=summary, status=None, kind=Kind.EVIDENCE))
    pool += [dataclasses.replace(_item(rng, f"def_{n}", SHARED_PROJECT), status=None) for n in range(30)]
    rng.shuffle(pool)
    await _put(store, pool, rng)

    def check(tx: Tx) -> None:
        for task in ("gate", "deploy", "the"):
            for budget in (512, 20_000, 200_000):
                request = ContextRequest("p", "verifier", task, budget_tokens=budget)
                _compare(tx, request, ["def_3", *(f"ctx_{index:04d}" for index in range(0, 400, 9))])
                _compare(tx, request, [])
                outcome = assembly.assemble(tx, request)
                if budget == 200_000:
                    assert len(outcome.audit.selected_ids) == 256

    await store.read(check)


async def test_an_empty_project_and_an_oversized_only_pool_equal_the_brute_force(store: Store) -> None:
    rng = random.Random(3)
    big = dataclasses.replace(_item(rng, "ctx_big", "p"), summary="y" * 3_900, kind=Kind.KNOWLEDGE, status=None)

    def check(tx: Tx) -> None:
        _compare(tx, ContextRequest("p", "planner", "deploy target", budget_tokens=512), ["ctx_big"])
        _compare(tx, ContextRequest("empty", "planner", "deploy target"), [])
        _compare_recall(tx, "empty", "", None, 25)

    await store.write(lambda tx: tx.context_items.put([StoredContextItem(big, 1)]))
    await store.read(check)


async def test_batches_cut_between_certainly_different_scores_equal_the_brute_force(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pools larger than a batch (256), with many items of equal score (the same text) and many
    close ones: the indexed forms cut their approximate orders only where the scores are certainly
    apart (decision 257), so the packets, the 256th's position and recall's phrase hits tested in
    batches are still the brute force's."""
    monkeypatch.setattr(assembly, "_NARROW_FROM", 0)  # the phrase scans through the trigram index
    rng = random.Random(11)
    texts = [" ".join(rng.choice(WORDS[:8]) for _ in range(rng.randint(1, 12))) for _ in range(40)]
    pool = []
    for index in range(1_100):
        item = _item(rng, f"ctx_{index:04d}", "p")
        pool.append(
            dataclasses.replace(
                item, summary=rng.choice(texts), kind=rng.choice((Kind.EVIDENCE, Kind.KNOWLEDGE)), status=None
            )
        )
    rng.shuffle(pool)
    await _put(store, pool, rng)

    def check(tx: Tx) -> None:
        for task in ("gate flaky", "deploy target rollback", "gate", "lint budget cache"):
            for budget in (512, 6_000, 20_000, 200_000):
                for role in ("verifier", "critic"):
                    _compare(tx, ContextRequest("p", role, task, budget_tokens=budget), ["ctx_0003", "ctx_0500"])
        for query in ("gate", "gate flaky", "flaky gate", "deploy target", "zzz", "ga"):
            for limit in (1, 25, 100):
                _compare_recall(tx, "p", query, None, limit)

    await store.read(check)


class _Counting:
    """A context item repository that counts the calls of each method it passes on."""

    def __init__(self, repo: object) -> None:
        self._repo = repo
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> object:
        method = getattr(self._repo, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.calls[name] = self.calls.get(name, 0) + 1
            return method(*args, **kwargs)

        return counted


async def test_first_fit_stops_once_the_room_left_is_under_the_least_cost(store: Store) -> None:
    """The stopping rule (decision 258): once what is left of the budget is less than the cheapest
    eligible item (``least_cost``), nothing more can fit, so the walk ends there: no later batch of
    matched items and no unmatched run is read, and the packet is still the brute force's."""
    rng = random.Random(5)
    pool = [
        dataclasses.replace(
            _item(rng, f"ctx_{index:04d}", "p"),
            summary=("gate " if index % 2 else "deploy ") + "x" * (100 + index % 50),
            kind=Kind.EVIDENCE,
            status=None,
            provenance=Provenance(SourceType.PEER),
        )
        for index in range(900)
    ]
    await _put(store, pool, rng)
    request = ContextRequest("p", "verifier", "gate", budget_tokens=2_000)

    def check(tx: Tx) -> None:
        _compare(tx, request, [])
        counting = _Counting(tx.context_items)
        outcome = assembly.assemble(SimpleNamespace(context_items=counting), request)  # type: ignore[arg-type]
        assert 0 < len(outcome.audit.selected_ids) < 256
        assert outcome.audit.deferred_count == 900 - len(outcome.audit.selected_ids)
        assert counting.calls.get("rank_rows") == 1  # the first batch only
        assert "rank_entries" not in counting.calls  # the unmatched run never walked

    await store.read(check)


async def test_one_word_recall_reads_only_the_best_scored_items_unless_their_scores_do_not_settle(
    store: Store,
) -> None:
    """A one-word recall reads the best 512 scored items of each owner, not every matched one
    (a common word matches a tenth of the pool); when the first batch's scores do not settle
    among them (ties past the rows read), it reads every matched item. Either way the hits are
    the brute force's."""
    rng = random.Random(13)

    def items(project: str, summaries: list[str]) -> list[ContextItem]:
        return [
            dataclasses.replace(
                _item(rng, f"ctx_{index:04d}", project),
                summary=summary,
                kind=Kind.EVIDENCE,
                status=None,
                state_key=None,  # a state key is ranked text too
            )
            for index, summary in enumerate(summaries)
        ]

    # "spread": scores all apart (one more word, a lower score); "tied": 300 equal best scores, then 300 lower ones
    spread = items("spread", ["gate" + " word" * index for index in range(700)])
    tied = items("tied", ["gate"] * 300 + ["gate deploy target rollback"] * 300)
    await _put(store, spread + tied, rng)

    def check(tx: Tx) -> None:
        # "word gate" and "rollback gate" are phrase hits nowhere: several words, then the best others.
        for project, query, reads in (
            ("spread", "gate", 1),
            ("tied", "gate", 2),
            ("spread", "word gate", 1),
            ("tied", "rollback gate", 2),
        ):
            for limit in (1, 25, 100):
                _compare_recall(tx, project, query, None, limit)
            counting = _Counting(tx.context_items)
            hits = assembly.recall(SimpleNamespace(context_items=counting), project, query, kinds=None, limit=25)  # type: ignore[arg-type]
            assert len(hits) == 25
            # One read of the best rows per owner (the project and _shared), and in "tied" the full read too.
            assert counting.calls["scored"] == 2 * reads, (project, query, counting.calls)
        # More phrase hits than a batch (300) and a limit above them, beyond what a request may ask.
        _compare_recall(tx, "tied", "gate deploy", None, 400)

    await store.read(check)
