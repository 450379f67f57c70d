"""Joints: what narrows recall's phrase test for a query of several words (decision 301).

A *joint* of a folded text (``js_lower`` of an item's summary or state key, as the phrase test
compares) is the seven characters around one of its spaces: the three before it, the space, the
three after it. An item whose folded text holds a query also holds, around each space of the query
with three characters on both sides, the very same seven characters; so the items holding every
joint of a query are a superset of its phrase hits, and the phrase test needs to look at those
alone. The index keeps each item's joints beside its terms (a joint holds a space, a term never
does), so a query of two words at 100,000 items reads a few dozen postings where SQLite's trigram
index read tens of thousands (the commonest trigrams, `` ti`` say, are in most texts).

Characters are code points, on both sides of the comparison (the texts' and the query's, both
sliced here), never UTF-16 code units; the database never slices them.
"""

from __future__ import annotations

from collections.abc import Iterable

JOINT_SIDE = 3
"""Characters kept on each side of a joint's space.

What a joint is is stored: schema version 22 wrote every item's joints (SQLite through
``text_joints``, PostgreSQL in SQL with these numbers spelt out), so changing it means a new
schema version that writes them again, on both backends."""


def text_joints(folded_texts: Iterable[str | None]) -> set[str]:
    """Every joint of the folded texts (an item's summary and state key; None: no text)."""
    found: set[str] = set()
    for text in folded_texts:
        if not text:
            continue
        last = len(text) - JOINT_SIDE - 1
        space = text.find(" ", JOINT_SIDE)
        while 0 <= space <= last:
            found.add(text[space - JOINT_SIDE : space + JOINT_SIDE + 1])
            space = text.find(" ", space + 1)
    return found


def query_joints(folded_query: str) -> list[str]:
    """The joints every phrase hit of ``folded_query`` holds, sorted; none when the query has no
    space with three characters on both sides (then joints cannot narrow its phrase test)."""
    return sorted(text_joints([folded_query]))
