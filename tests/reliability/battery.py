"""A battery's run: its tier, its seed, its bounded loops, its invariants and its figures.

Every battery test takes the ``battery`` fixture (``conftest.py``) and:

- sizes its work with ``battery.size(pr=..., long=...)`` (the tier is ``KXM_RELIABILITY_TIER``:
  ``pr``, the default and what ``.ci/run`` runs, or ``long``, what ``scripts/reliability --long`` runs);
- draws every random choice from ``battery.random`` (seeded by ``KXM_RELIABILITY_SEED``, or at
  random; the seed is printed and recorded so a failing run can be repeated);
- bounds every loop with ``battery.bounded(count, seconds)``;
- writes its history and any database copies under ``battery.dir``;
- records figures with ``battery.figure(name, value)`` and asserts its invariants with
  ``battery.invariant(name, observed, expected)``, which records them too.

When the test ends, ``<id>.json`` (under ``KXM_RELIABILITY_RESULTS``, by default
``.reliability/<tier>/`` in the repository) holds the outcome, the figures, the invariants, the
seed, the tier and the command that repeats the run; ``scripts/guarantees`` turns the files of the
last run into docs/guarantees.md. A failing run's directory is kept under
``.reliability/failed/<id>-<time>/`` (its history and databases), and its path printed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parents[2]
TIER_ENV = "KXM_RELIABILITY_TIER"
SEED_ENV = "KXM_RELIABILITY_SEED"
RESULTS_ENV = "KXM_RELIABILITY_RESULTS"
TIERS = ("pr", "long")

T = TypeVar("T")


def tier() -> str:
    """The tier this run is sized for: ``pr`` (the default) or ``long``."""
    value = os.environ.get(TIER_ENV, "pr")
    if value not in TIERS:
        raise ValueError(f"{TIER_ENV} must be one of {', '.join(TIERS)}, not {value!r}")
    return value


def results_dir() -> Path:
    """Where each battery's figures of the last run of this tier are written (``.reliability/<tier>``)."""
    return Path(os.environ.get(RESULTS_ENV) or REPO / ".reliability" / tier())


def _commit() -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10, check=False
        )
    except OSError:
        return "unknown"
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True, text=True, check=False
    )
    return (done.stdout.strip() or "unknown") + ("+changes" if dirty.stdout.strip() else "")


class InvariantBroken(AssertionError):
    """A battery's invariant did not hold."""


@dataclass
class Invariant:
    name: str
    observed: Any
    expected: Any
    held: bool


@dataclass
class Battery:
    """One battery test's run (see the module docstring)."""

    id: str
    """The battery and case: ``B1``, ``B14c``, ``B9-mixed``."""
    title: str
    nodeid: str
    dir: Path
    tier: str = field(default_factory=tier)
    seed: int = 0
    figures: dict[str, Any] = field(default_factory=dict)
    invariants: list[Invariant] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        text = os.environ.get(SEED_ENV, "")
        self.seed = int(text) if text else random.SystemRandom().randrange(2**32)
        self.random = random.Random(self.seed)
        print(f"[{self.id}] tier {self.tier}, seed {self.seed} ({SEED_ENV}={self.seed} repeats it)", file=sys.stderr)

    # -- sizing and bounds ------------------------------------------------------------------------

    def size(self, *, pr: T, long: T) -> T:
        """The PR tier's figure or the long tier's."""
        return long if self.tier == "long" else pr

    def bounded(self, count: int, seconds: float) -> Iterator[int]:
        """0, 1, … ``count - 1``, stopping early once ``seconds`` have passed (recorded as a figure)."""
        deadline = time.monotonic() + seconds
        for index in range(count):
            if time.monotonic() > deadline:
                self.figures.setdefault("loops_cut_by_wall_clock", 0)
                self.figures["loops_cut_by_wall_clock"] += 1
                return
            yield index

    # -- figures and invariants -------------------------------------------------------------------

    def figure(self, name: str, value: Any) -> None:
        """Record a figure of the run (a count, a duration, a ratio)."""
        self.figures[name] = value

    def add(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to a counted figure."""
        self.figures[name] = self.figures.get(name, 0) + amount

    def invariant(self, name: str, observed: Any, expected: Any) -> None:
        """Record that ``observed`` must equal ``expected``; raise if it does not.

        Raises:
            InvariantBroken: they differ (the run is marked failed and its directory kept).
        """
        held = observed == expected
        self.invariants.append(Invariant(name, _plain(observed), _plain(expected), held))
        if not held:
            raise InvariantBroken(f"{self.id}: {name}: observed {observed!r}, expected {expected!r}")

    def at_least(self, name: str, observed: float, minimum: float) -> None:
        """Record that ``observed`` must be at least ``minimum`` (how much a run exercised); raise if not.

        Raises:
            InvariantBroken: it is below.
        """
        held = observed >= minimum
        self.invariants.append(Invariant(name, observed, f">= {minimum}", held))
        if not held:
            raise InvariantBroken(f"{self.id}: {name}: {observed} < {minimum}: the run exercised too little")

    # -- the result file --------------------------------------------------------------------------

    def repeat_command(self) -> str:
        return f"{TIER_ENV}={self.tier} {SEED_ENV}={self.seed} .venv/bin/python -m pytest '{self.nodeid}'"

    def result(self, outcome: str, kept: Path | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "test": self.nodeid,
            "outcome": outcome,
            "tier": self.tier,
            "seed": self.seed,
            "seconds": round(time.monotonic() - self.started, 1),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "commit": _commit(),
            "figures": {k: _plain(v) for k, v in self.figures.items()},
            "invariants": [vars(i) for i in self.invariants],
            "repeat": self.repeat_command(),
            "kept": str(kept) if kept else None,
        }

    def finish(self, outcome: str) -> Path:
        """Write the result file; keep the run's directory when it failed. Returns the result file."""
        kept = None
        if outcome != "passed" and self.dir.exists():
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            kept = REPO / ".reliability" / "failed" / f"{self.id}-{stamp}"
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(self.dir, kept, dirs_exist_ok=True, ignore_dangling_symlinks=True)
        out = results_dir()
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{self.id}.json"
        path.write_text(json.dumps(self.result(outcome, kept), indent=2, sort_keys=True) + "\n")
        summary = ", ".join(f"{k}={_short(v)}" for k, v in self.figures.items())
        print(f"[{self.id}] {outcome}: {summary}", file=sys.stderr)
        if kept:
            print(f"[{self.id}] history and databases kept in {kept}; repeat: {self.repeat_command()}", file=sys.stderr)
        return path


def _plain(value: Any) -> Any:
    """A JSON-friendly form (sets and tuples as sorted lists, at most 20 items shown)."""
    if isinstance(value, set | frozenset):
        items = sorted(value, key=repr)
        return items[:20] + ([f"… {len(items) - 20} more"] if len(items) > 20 else [])
    if isinstance(value, tuple):
        return list(value)
    return value


def _short(value: Any) -> str:
    text = f"{value:.3g}" if isinstance(value, float) else str(value)
    return text if len(text) < 60 else text[:57] + "…"


REQUIRE_TOOLS_ENV = "KXM_REQUIRE_TEST_TOOLS"


def missing_tool(reason: str) -> None:
    """A battery cannot run here (a tool is missing, or the kernel forbids what it needs): skip it,
    saying why, or fail under ``KXM_REQUIRE_TEST_TOOLS=1`` (``.ci/run``: CI must run every battery).

    Raises:
        pytest.skip.Exception, pytest.fail.Exception: always.
    """
    import pytest

    if os.environ.get(REQUIRE_TOOLS_ENV) == "1":
        pytest.fail(
            f"{reason} ({REQUIRE_TOOLS_ENV}=1: CI runs every battery; scripts/install-test-tools installs the tools)"
        )
    pytest.skip(reason)
