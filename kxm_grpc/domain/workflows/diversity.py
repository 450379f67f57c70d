"""Producer diversity: how many producers differ pairwise in the dimensions a quorum names.

A quorum with ``distinctBy: [provider]`` counts producers of distinct declared providers; with
``[provider, model]`` producers distinct in both (a maximum matching between providers and models,
each producer an edge). Declarations are the operator's (never an agent's claim) and compare case-
and space-insensitively: "Anthropic" and "anthropic " are one provider. A producer that does not
declare a listed dimension cannot be shown distinct, so it is not counted. Used where a definition
is loaded (can its quorum ever be met?) and where evidence is counted (is it met?).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from kxm_grpc.domain import validation


class Dimension(enum.Enum):
    """A dimension a quorum's producers must differ in (``distinctBy``)."""

    PROVIDER = "provider"
    MODEL = "model"


Declaration = tuple[str | None, str | None]
"""A producer's declared (provider, model), either None when undeclared."""


def normal(value: str) -> str:
    """A declaration as compared: lower case, whitespace collapsed and trimmed."""
    return validation.js_lower(validation.collapse_whitespace(value))


def declared(declaration: Declaration, dimension: Dimension) -> str | None:
    """The declared value in ``dimension``, normalised; None when not declared (or blank)."""
    value = declaration[0] if dimension is Dimension.PROVIDER else declaration[1]
    return (normal(value) or None) if value is not None else None


def distinct_count(declarations: Iterable[Declaration], dimensions: Iterable[Dimension]) -> int:
    """The size of the largest subset of producers pairwise distinct in every dimension."""
    chosen = tuple(dict.fromkeys(dimensions))
    producers = list(declarations)
    if not chosen:
        return len(producers)
    values: list[tuple[str, ...]] = []
    for declaration in producers:
        found = tuple(declared(declaration, dimension) for dimension in chosen)
        if all(value is not None for value in found):
            values.append(tuple(value for value in found if value is not None))
    if len(chosen) == 1:
        return len(set(values))
    # Two dimensions: each producer is an edge between its provider and its model, and a set
    # distinct in both is a matching. Kuhn's augmenting paths (a few dozen producers at most).
    edges: dict[str, set[str]] = {}
    for first, second in values:
        edges.setdefault(first, set()).add(second)
    matched: dict[str, str] = {}  # second value → the first value it is matched with

    def augment(first: str, visited: set[str]) -> bool:
        for second in sorted(edges[first]):
            if second in visited:
                continue
            visited.add(second)
            if second not in matched or augment(matched[second], visited):
                matched[second] = first
                return True
        return False

    return sum(augment(first, set()) for first in sorted(edges))
