"""BM25 relevance exactly as the original's ``relevance.ts`` (spec §5.7, pin 17).

No model, no clock, no randomness: the same query and documents give bit-identical scores. Every
step follows the original so scores match a JavaScript hub's to the last bit where the platforms'
``log`` agree: NFKC, JavaScript lower-casing, splitting on runs of characters that are neither a
Unicode letter (``\\p{L}``) nor a number (``\\p{N}``), token lengths in UTF-16 code units, the 60
stopwords §5.7 lists (its text says 61), plural folding, k1 = 1.2 and b = 0.75, terms summed in
first-occurrence query order, and JavaScript's ``Math.round`` for the reported three decimals.

Residual parity risk: ``math.log`` is the platform's libm, V8 has its own ``Math.log``, and they
may differ in the last bit for some arguments; NFKC and the letter and number classes follow this
Python's Unicode version, which may differ from the Node build's ICU for newly assigned characters.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from kxm_grpc.domain.context.items import ContextItem
from kxm_grpc.domain.context.ordering import js_round
from kxm_grpc.domain.validation import js_lower, utf16_length

_K = TypeVar("_K", bound=Hashable)

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
K1 = 1.2
B = 0.75
MIN_TOKEN_CHARS = 2
MAX_TOKEN_CHARS = 64


def _is_word_character(character: str) -> bool:
    return unicodedata.category(character)[0] in "LN"


def fold_plural(token: str) -> str:
    """Fold an English plural: ``-ies`` → ``-y``, ``-sses`` → ``-ss``, a final ``s`` dropped unless
    the token ends ``ss``, ``us`` or ``is``; an all-number token is left as it is."""
    if all(unicodedata.category(c)[0] == "N" for c in token):
        return token
    length = utf16_length(token)
    if length > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if length > 4 and token.endswith("sses"):
        return token[:-2]
    if length > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def relevance_tokens(text: str) -> list[str]:
    """The tokens of ``text`` in text order, duplicates kept."""
    tokens: list[str] = []
    run: list[str] = []
    for character in js_lower(unicodedata.normalize("NFKC", text)) + " ":
        if _is_word_character(character):
            run.append(character)
            continue
        if run:
            raw = "".join(run)
            run.clear()
            if MIN_TOKEN_CHARS <= utf16_length(raw) <= MAX_TOKEN_CHARS and raw not in STOPWORDS:
                tokens.append(fold_plural(raw))
    return tokens


def query_terms(query: str) -> list[str]:
    """The distinct tokens of ``query`` in first-occurrence order."""
    return list(dict.fromkeys(relevance_tokens(query)))


def score_relevance(query: str, documents: Sequence[str]) -> list[float]:
    """Each document's BM25 score against ``query``, index-aligned; the corpus is ``documents``."""
    terms = query_terms(query)
    if not terms or not documents:
        return [0.0] * len(documents)
    indexed = [Counter(relevance_tokens(document)) for document in documents]
    lengths = [sum(frequencies.values()) for frequencies in indexed]
    document_frequency = {term: sum(1 for frequencies in indexed if term in frequencies) for term in terms}
    return bm25(terms, len(indexed), sum(lengths), document_frequency, list(zip(lengths, indexed, strict=True)))


def bm25(
    terms: Sequence[str],
    count: int,
    total: int,
    document_frequency: Mapping[str, int],
    documents: Sequence[tuple[int, Mapping[str, int]]],
) -> list[float]:
    """BM25 of each document, index-aligned, from the corpus statistics alone.

    ``terms`` are the query's distinct terms in order, ``count`` and ``total`` the corpus' document
    count and total length (integers, so exact however they were summed), ``document_frequency``
    each term's number of documents in the corpus, and each document its length and term
    frequencies. The brute force (``score_relevance``) and the indexed packet and recall both call
    this, so the float operations, and their order, are the very same: the scores are bit-identical
    whichever way the statistics were counted. A document need not be in ``documents`` to count
    in the statistics (the indexed forms score only the documents sharing a term).
    """
    average = average_length(count, total)
    inverse = {term: inverse_document_frequency(count, document_frequency.get(term, 0)) for term in terms}
    scores = [0.0] * len(documents)
    for index, (length, frequencies) in enumerate(documents):
        score = 0.0
        for term in terms:
            tf = frequencies.get(term, 0)
            if tf == 0:
                continue
            score += term_weight(inverse[term], tf, length, average)
        scores[index] = score
    return scores


def bm25_postings(
    terms: Sequence[str],
    count: int,
    total: int,
    document_frequency: Mapping[str, int],
    postings: Mapping[str, Iterable[tuple[_K, int, int]]],
) -> dict[_K, float]:
    """BM25 of every document holding a term, bit-identical to ``bm25``'s, from the terms'
    postings (per term, each posting's document, term frequency and document length).

    The sums run term by term in the order of ``terms``, so each document's score is the same
    additions, in the same order, of the same ``term_weight`` values as ``bm25`` makes for it (its
    terms of frequency 0 skipped in both): the indexed packet scores every matched item exactly
    this way (decision 300). A term's weight depends only on the frequency and the length, so it
    is computed once per pair of them."""
    average = average_length(count, total)
    scores: dict[_K, float] = {}
    for term in terms:
        inverse = inverse_document_frequency(count, document_frequency.get(term, 0))
        weights: dict[tuple[int, int], float] = {}
        for document, tf, length in postings.get(term, ()):
            weight = weights.get((tf, length))
            if weight is None:
                weight = weights[(tf, length)] = term_weight(inverse, tf, length, average)
            scores[document] = scores.get(document, 0.0) + weight
    return scores


def term_weight(inverse: float, tf: int, length: int, average: float) -> float:
    """One term's share of a document's BM25 score: its inverse document frequency ``inverse``,
    its frequency ``tf`` (at least 1) in a document of ``length`` tokens, in a corpus whose
    average length is ``average``. Every scorer calls this, so the float operations are one."""
    norm = 1 - B + B * (length / average)
    return inverse * ((tf * (K1 + 1)) / (tf + K1 * norm))


def average_length(count: int, total: int) -> float:
    """BM25's average document length (avgdl) of a corpus of ``count`` documents of ``total`` length."""
    return total / count if total > 0 else 1


def inverse_document_frequency(count: int, frequency: int) -> float:
    """A term's BM25 weight in a corpus of ``count`` documents, ``frequency`` of which hold it."""
    return math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))


SCORE_TOLERANCE = 1e-9
"""How far, relatively, a score summed from ``bm25``'s terms in another order (a database's
``SUM``) may be from ``bm25``'s own: every term's contribution is positive, and each of the two
sums is within (n − 1) · 2⁻⁵³ of the exact real sum of its n terms (each term itself within a
few units in the last place), so for any task (at most about 670 terms) the two differ by less
than 10⁻¹² of either; 10⁻⁹ is that with room. Orderings by such approximate scores use it as a
margin (``certainly_above``), so they are exact."""


def certainly_above(higher: float, lower: float) -> bool:
    """Whether every exact score within ``SCORE_TOLERANCE`` of the approximation ``higher`` is
    strictly greater than every one within it of ``lower`` (both at least 0): then the item scored
    ``higher`` ranks before the other whatever their exact scores are."""
    return higher * (1 - SCORE_TOLERANCE) > lower * (1 + SCORE_TOLERANCE)


def settled(scores: Sequence[float], at_least: int) -> int:
    """The length of the shortest prefix of ``scores`` (approximate scores, descending) holding at
    least ``at_least`` of them (all when there are fewer) after which every exact score is below
    every exact score in it: the prefix ends where ``certainly_above`` holds across the cut, so the
    items it holds are the first ones of the exact order, whatever it is inside the prefix."""
    end = min(max(at_least, 0), len(scores))
    while 0 < end < len(scores) and not certainly_above(scores[end - 1], scores[end]):
        end += 1
    return end


def round_relevance(score: float) -> float:
    """A score rounded to three decimals for audits and responses: ``Math.round(score × 1000) / 1000``."""
    return js_round(score * 1000) / 1000


def item_text(item: ContextItem) -> str:
    """The text an item is ranked on: its summary, and a space and its state key when it has one."""
    return item.summary if item.state_key is None else f"{item.summary} {item.state_key}"
