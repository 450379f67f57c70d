"""Orderings and roundings that must match the original byte for byte (spec §11.11, §11.12).

Every string the context layer sorts is ordered by UTF-16 code units, as JavaScript's ``<`` does;
Python's ``<`` orders code points, which differs once a string holds a character outside the
Basic Multilingual Plane (a surrogate pair, 0xD800-0xDFFF, sorts before U+E000-U+FFFF).
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def code_unit_key(value: str) -> bytes:
    """A sort key that orders strings by UTF-16 code units (big-endian bytes compare unit by unit)."""
    return value.encode("utf-16-be", "surrogatepass")


def code_unit_sorted(values: Iterable[str]) -> tuple[str, ...]:
    """``values`` sorted by UTF-16 code units."""
    return tuple(sorted(values, key=code_unit_key))


def js_round(value: float) -> float:
    """JavaScript's ``Math.round``: the nearest integer, a half rounding up toward +∞.

    Python's ``round`` rounds a half to even (``round(0.5) == 0``), and ``floor(x + 0.5)`` is wrong
    for the largest double below one half (the sum rounds up to 1.0). The fraction ``x - floor(x)``
    is exact for every finite double, so comparing it with one half is exact too.
    """
    if not math.isfinite(value):
        return value
    floor = math.floor(value)
    result = float(floor + 1) if value - floor >= 0.5 else float(floor)
    # Math.round keeps the sign of zero: Math.round(-0.4) is -0.
    return math.copysign(result, value) if result == 0 else result
