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
from collections.abc import Mapping, Sequence

from kxm_grpc.domain.context.items import ContextItem
from kxm_grpc.domain.context.ordering import js_round
from kxm_grpc.domain.validation import js_lower, utf16_length

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
    average = total / count if total > 0 else 1
    inverse: dict[str, float] = {}
    for term in terms:
        frequency = document_frequency.get(term, 0)
        inverse[term] = math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))
    scores = [0.0] * len(documents)
    for index, (length, frequencies) in enumerate(documents):
        score = 0.0
        for term in terms:
            tf = frequencies.get(term, 0)
            if tf == 0:
                continue
            norm = 1 - B + B * (length / average)
            score += inverse[term] * ((tf * (K1 + 1)) / (tf + K1 * norm))
        scores[index] = score
    return scores


def round_relevance(score: float) -> float:
    """A score rounded to three decimals for audits and responses: ``Math.round(score × 1000) / 1000``."""
    return js_round(score * 1000) / 1000


def item_text(item: ContextItem) -> str:
    """The text an item is ranked on: its summary, and a space and its state key when it has one."""
    return item.summary if item.state_key is None else f"{item.summary} {item.state_key}"
