"""The hub's version: the installed package's, as ``kxm --version``, ``hub_started`` and metrics show it."""

from __future__ import annotations

import functools
from importlib import metadata

DISTRIBUTION = "kxm-hub"


@functools.cache
def version() -> str:
    """The installed ``kxm-hub`` version; ``0+unknown`` when the code runs from a tree not installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"
