"""BM25 relevance and the orderings it relies on (kxm_grpc/domain/context/relevance.py, ordering.py;
spec §5.7, pin 17, §11.11, §11.12)."""

from __future__ import annotations

import math
import random
import struct

import pytest

from kxm_grpc.domain.context.ordering import code_unit_key, code_unit_sorted, js_round
from kxm_grpc.domain.context.relevance import (
    K1,
    SCORE_TOLERANCE,
    STOPWORDS,
    B,
    average_length,
    bm25,
    bm25_postings,
    certainly_above,
    fold_plural,
    inverse_document_frequency,
    query_terms,
    relevance_tokens,
    round_relevance,
    score_relevance,
    settled,
)


def test_pin_17_tokens_are_nfkc_lowercased_split_on_non_letters_stopword_free_and_plural_folded() -> None:
    # Execute
    tokens = relevance_tokens("The flaky Playwright gates timed-out on CI; retries: 2")
    # Assert
    assert tokens == ["flaky", "playwright", "gate", "timed", "out", "ci", "retry"]


# §5.7's list, word for word (it says "61", but it names 60, as relevance.ts does).
_SPEC_STOPWORDS = """a, an, and, are, as, at, be, been, but, by,
  can, could, did, do, does, for, from, had, has, have, how, if, in, into, is, it, its, of, on, or, our, should, so,
  than, that, the, their, them, then, there, these, they, this, those, to, was, we, were, what, when, where, which,
  while, who, why, will, with, would, you, your"""


def test_the_stopword_list_is_the_originals_60_words() -> None:
    words = [word.strip() for word in _SPEC_STOPWORDS.split(",")]
    assert len(words) == len(set(words)) == 60
    assert frozenset(words) == STOPWORDS


@pytest.mark.parametrize(
    ("token", "folded"),
    [
        ("retries", "retry"),
        ("ties", "tie"),  # length 4: not "-ies" → "-y", but a final s is dropped
        ("classes", "class"),
        ("gates", "gate"),
        ("bus", "bus"),
        ("analysis", "analysis"),
        ("class", "class"),
        ("its", "its"),  # length 3: not > 3
        ("2024s", "2024"),  # not all digits, so folded
        ("١٢٣s", "١٢٣"),
        ("12345", "12345"),
    ],
)
def test_plural_folding_follows_the_originals_rules(token: str, folded: str) -> None:
    assert fold_plural(token) == folded


def test_tokens_keep_2_to_64_code_units_counting_utf16_and_duplicates_in_text_order() -> None:
    # Prepare: an astral letter is two UTF-16 code units, so one of them alone is a token
    astral = "\U0001d400"  # MATHEMATICAL BOLD CAPITAL A: NFKC folds it to "a"
    long_token = "x" * 64
    # Execute / Assert
    assert relevance_tokens("x " + long_token + " " + long_token + "y") == [long_token]
    assert relevance_tokens("gate gate Gate") == ["gate", "gate", "gate"]
    assert relevance_tokens(astral + "b") == ["ab"]
    assert relevance_tokens("𠀀") == ["𠀀"]  # one CJK ideograph outside the BMP: 2 code units
    assert relevance_tokens("ＦＬＡＫＹ_gate") == ["flaky", "gate"]  # NFKC folds full width; _ splits


def test_query_terms_are_distinct_in_first_occurrence_order() -> None:
    assert query_terms("gate flaky gates the Flaky") == ["gate", "flaky"]


def test_pin_17_a_stopword_only_query_scores_every_document_zero() -> None:
    assert score_relevance("the of", ["the of the", "gate"]) == [0.0, 0.0]


def test_bm25_matches_the_formula_with_k1_1_2_and_b_0_75() -> None:
    # Prepare
    documents = ["flaky gate gate", "gate owner", "docs build"]
    # Execute
    scores = score_relevance("gate", documents)
    # Assert: N 3, df 2, avgdl 7/3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    first = idf * ((2 * (1.2 + 1)) / (2 + 1.2 * (1 - 0.75 + 0.75 * (3 / (7 / 3)))))
    second = idf * ((1 * (1.2 + 1)) / (1 + 1.2 * (1 - 0.75 + 0.75 * (2 / (7 / 3)))))
    assert scores == [first, second, 0.0]


def test_bm25_with_no_tokens_in_any_document_uses_an_average_length_of_one() -> None:
    assert score_relevance("gate", ["", "!!"]) == [0.0, 0.0]


@pytest.mark.parametrize(
    ("value", "rounded"),
    [
        (0.5, 1.0),
        (1.5, 2.0),
        (2.5, 3.0),  # Python's round gives 2
        (-0.5, -0.0),
        (-2.5, -2.0),
        (-2.6, -3.0),
        (0.49999999999999994, 0.0),  # floor(x + 0.5) would give 1
        (4503599627370495.5, 4503599627370496.0),
        (1e300, 1e300),
    ],
)
def test_js_round_rounds_a_half_up_toward_positive_infinity(value: float, rounded: float) -> None:
    result = js_round(value)
    assert result == rounded
    assert math.copysign(1, result) == math.copysign(1, rounded)


def test_reported_relevance_is_rounded_half_up_to_three_decimals() -> None:
    # 1.0005 is not exact in binary; 0.0625 * 1000 = 62.5 is, and Python's round would give 62
    assert round_relevance(0.0625) == 0.063
    assert round_relevance(0.0) == 0.0
    assert round_relevance(1.6604) == 1.66


def test_code_unit_order_puts_astral_characters_before_the_top_of_the_bmp() -> None:
    # Prepare: U+1F600 is D83D DE00 in UTF-16, so it sorts before U+FFFD in code units
    astral, bmp = "id_\U0001f600", "id_\ufffd"
    # Execute / Assert
    assert sorted([bmp, astral]) == [bmp, astral]  # code points: the other way round
    assert code_unit_sorted([bmp, astral]) == (astral, bmp)
    assert code_unit_key("a") < code_unit_key("b")


def test_bm25_from_counted_statistics_is_score_relevance_bit_for_bit() -> None:
    from collections import Counter

    rng = random.Random(5)
    words = ["gate", "gates", "flaky", "deploy", "target", "the", "élan", "ﬁle", "x"]
    for _ in range(50):
        documents = [" ".join(rng.choices(words, k=rng.randint(0, 12))) for _ in range(rng.randint(1, 20))]
        query = " ".join(rng.choices(words, k=rng.randint(1, 4)))
        terms = query_terms(query)
        counted = [Counter(relevance_tokens(d)) for d in documents]
        frequency = {t: sum(1 for c in counted if t in c) for t in terms}
        lengths = [sum(c.values()) for c in counted]
        # only the documents sharing a term, as the indexed forms pass them
        sharing = [i for i, c in enumerate(counted) if any(t in c for t in terms)]
        partial = bm25(terms, len(documents), sum(lengths), frequency, [(lengths[i], counted[i]) for i in sharing])
        full = score_relevance(query, documents)
        assert [struct.pack(">d", full[i]) for i in sharing] == [struct.pack(">d", s) for s in partial]
        assert all(full[i] == 0.0 for i in range(len(documents)) if i not in sharing)


def test_bm25_from_postings_is_bm25_bit_for_bit() -> None:
    """Decision 300: the indexed packet sums every matched item's score from the terms' postings,
    term by term in query order; each score is bm25's to the last bit, items holding no term are
    absent, and the order the postings come in within a term does not matter."""
    rng = random.Random(11)
    for _ in range(300):
        terms = [f"t{index}" for index in range(rng.randint(1, 12))]
        documents = {
            f"ctx_{index}": {term: rng.randint(1, 40) for term in terms if rng.random() < 0.4}
            for index in range(rng.randint(1, 60))
        }
        lengths = {key: sum(found.values()) + rng.randint(0, 300) for key, found in documents.items()}
        count = len(documents) + rng.randint(0, 5_000)
        total = sum(lengths.values()) + rng.randint(0, 100_000)
        frequency = {term: sum(1 for found in documents.values() if term in found) for term in terms}
        postings: dict[str, list[tuple[str, int, int]]] = {
            term: [(key, found[term], lengths[key]) for key, found in documents.items() if term in found]
            for term in terms
        }
        for found in postings.values():
            rng.shuffle(found)
        scores = bm25_postings(terms, count, total, frequency, postings)
        sharing = [key for key, found in documents.items() if found]
        expected = bm25(terms, count, total, frequency, [(lengths[key], documents[key]) for key in sharing])
        assert sorted(scores) == sorted(sharing)
        assert [struct.pack(">d", scores[key]) for key in sharing] == [struct.pack(">d", value) for value in expected]


def _contributions(
    rng: random.Random, terms: int
) -> tuple[list[str], int, int, dict[str, int], tuple[int, dict[str, int]]]:
    """A random corpus' statistics and one document sharing ``terms`` query terms with the query."""
    names = [f"t{index}" for index in range(terms)]
    count = rng.randint(1, 200_000)
    total = rng.randint(0, 400 * count)
    frequency = {name: rng.randint(1, count) for name in names}
    document = {name: rng.randint(1, 1_300) for name in names if rng.random() < 0.8} or {names[0]: 1}
    return names, count, total, frequency, (sum(document.values()) + rng.randint(0, 500), document)


@pytest.mark.parametrize("terms", [1, 2, 8, 64, 670])
def test_a_score_summed_in_any_order_is_within_the_tolerance_of_bm25s(terms: int) -> None:
    """The bound decision 257 rests on: the database sums the same per-term contributions in an
    order of its own, and every such sum is within SCORE_TOLERANCE of relevance.bm25's."""
    rng = random.Random(terms)
    for _ in range(200):
        names, count, total, frequency, (length, document) = _contributions(rng, terms)
        exact = bm25(names, count, total, frequency, [(length, document)])[0]
        average = average_length(count, total)
        parts = [
            inverse_document_frequency(count, frequency[name])
            * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + B * (length / average))))
            for name, tf in document.items()
        ]
        for _ in range(5):
            rng.shuffle(parts)
            other = 0.0
            for part in parts:
                other += part
            assert abs(other - exact) <= SCORE_TOLERANCE * min(other, exact)
            assert abs(math.fsum(parts) - exact) <= SCORE_TOLERANCE * exact


def test_certainly_above_holds_only_when_every_exact_score_is_ordered() -> None:
    rng = random.Random(3)
    for _ in range(2_000):
        lower = rng.choice([0.0, rng.uniform(0, 30)])
        higher = lower * (1 + rng.choice([0, 1e-12, 1e-9, 2e-9, 3e-9, 1e-6])) + rng.choice([0, 0, 1e-300])
        if certainly_above(higher, lower):
            # the extremes of what the approximations can stand for
            assert higher * (1 - SCORE_TOLERANCE) > lower * (1 + SCORE_TOLERANCE)
            assert higher > lower
    assert certainly_above(1.0, 0.0)
    assert not certainly_above(0.0, 0.0)
    assert not certainly_above(1.0, 1.0)
    assert not certainly_above(1.0 + 1e-10, 1.0)  # closer than the tolerance: may be either way
    assert certainly_above(1.0 + 3e-9, 1.0)


@pytest.mark.parametrize("seed", range(20))
def test_settled_cuts_the_approximate_order_only_where_the_exact_order_agrees(seed: int) -> None:
    """The top-k stopping rule: the prefix ``settled`` returns holds at least the asked number of
    items, and every exact score in it is above every exact score after it, however each exact
    score sits within the tolerance of its approximation."""
    rng = random.Random(seed)
    exact = [rng.choice([0.0, 1.0, 2.5, rng.uniform(0, 5), rng.uniform(0, 5)]) for _ in range(300)]
    approximate = [score * (1 + rng.uniform(-1, 1) * SCORE_TOLERANCE / 4) for score in exact]
    order = sorted(range(len(exact)), key=lambda index: -approximate[index])
    values = [approximate[index] for index in order]
    for wanted in (0, 1, 5, 25, 256, 299, 300, 400):
        end = settled(values, wanted)
        assert end >= min(wanted, len(values))
        assert end == 0 or end == len(values) or certainly_above(values[end - 1], values[end])
        inside = [exact[index] for index in order[:end]]
        after = [exact[index] for index in order[end:]]
        if inside and after:
            assert min(inside) > max(after)
    assert settled([3.0, 2.0, 2.0, 2.0, 1.0], 2) == 4  # never between equal scores
    assert settled([3.0, 2.0, 0.0, 0.0], 3) == 4  # nor between the unscored
    assert settled([], 5) == 0
