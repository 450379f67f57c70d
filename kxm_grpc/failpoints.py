"""Failpoints: named places where a test makes the hub crash or stall, in the style of etcd's gofail.

They are read once, from ``KXM_FAILPOINTS``, when the hub process starts, and nothing a request
carries can arm, disarm or reach them: unset, every ``hit`` is one dictionary lookup that finds
nothing. The reliability battery (``tests/reliability/``) arms them in hub subprocesses it kills.

``KXM_FAILPOINTS`` is a comma-separated list of ``name=term``. A term is
``[P%][N*]action[(argument)]``:

- ``kill``: SIGKILL this process at once (nothing flushed, nothing closed);
- ``sleep(MS)``: stall the caller ``MS`` milliseconds (the event loop yields at async points);
- ``off``: do nothing (a point listed but disarmed).

``P%`` fires it with probability P on each hit; ``N*`` at most N times in this process. Examples:
``after_commit_before_ack=5%kill``, ``stream_send=sleep(200)``, ``before_commit=1*kill``.
``KXM_FAILPOINTS_SEED`` seeds the coin (the battery prints it); otherwise it is random.

The points the hub has (``POINTS``); later issues add theirs to it:

- ``before_commit``: a write transaction's work is done, its COMMIT not yet issued;
- ``after_commit_before_ack``: a write RPC's handler returned (its transaction committed), the
  response not yet sent;
- ``after_ack``: a write RPC's response was handed to gRPC;
- ``lease_grant_after_token``: a grant's new fencing token is written, its transaction not committed;
- ``checkpoint_mid_write``: a workflow checkpoint's new run state is written in its transaction, the
  answer under its request id not yet remembered and nothing committed (the durable-run battery B8);
- ``step_dispatch``: a step run's assignment is sent (its durable message written, the assignment
  recorded, its deadline armed) in the engine's transaction, nothing committed (the step-run battery B18);
- ``step_settle``: a step run's change that takes a result or settles a step (an assignment's
  result recorded, the step's outcome joined, the next step entered and dispatched) is written in its
  transaction, nothing committed (B18);
- ``stream_send``: a stream is about to send one response;
- ``handler_start``: a call of any RPC (unary or stream, read or write) was admitted and its handler
  is about to run (``sleep`` there holds every RPC's server work, the deadline battery B16).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import time
from dataclasses import dataclass

ENV = "KXM_FAILPOINTS"
SEED_ENV = "KXM_FAILPOINTS_SEED"

POINTS = frozenset(
    {
        "before_commit",
        "after_commit_before_ack",
        "after_ack",
        "lease_grant_after_token",
        "checkpoint_mid_write",
        "step_dispatch",
        "step_settle",
        "stream_send",
        "handler_start",
    }
)

_TERM = re.compile(
    r"^(?:(?P<percent>\d+(?:\.\d+)?)%)?(?:(?P<count>\d+)\*)?(?P<action>kill|sleep|off)(?:\((?P<arg>\d+)\))?$"
)


class FailpointError(ValueError):
    """``KXM_FAILPOINTS`` names an unknown point or has a malformed term; the hub refuses to start."""


@dataclass
class Failpoint:
    """One armed point."""

    name: str
    action: str
    probability: float = 1.0
    remaining: int | None = None
    """How many more times it may fire (None: without limit)."""
    sleep_seconds: float = 0.0
    fired: int = 0

    def due(self, coin: random.Random) -> bool:
        if self.action == "off" or self.remaining == 0:
            return False
        if self.probability < 1.0 and coin.random() >= self.probability:
            return False
        if self.remaining is not None:
            self.remaining -= 1
        self.fired += 1
        return True


def parse(spec: str) -> dict[str, Failpoint]:
    """The points ``spec`` arms.

    Raises:
        FailpointError: an unknown point name or a malformed term.
    """
    points: dict[str, Failpoint] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, term = item.partition("=")
        name = name.strip()
        if name not in POINTS:
            raise FailpointError(f"{ENV}: unknown failpoint {name!r} (known: {', '.join(sorted(POINTS))})")
        match = _TERM.match(term.strip())
        if match is None:
            raise FailpointError(f"{ENV}: {name}={term!r} is not [P%][N*]kill|sleep(MS)|off")
        action, arg = match["action"], match["arg"]
        if (action == "sleep") != (arg is not None):
            raise FailpointError(f"{ENV}: {name}: sleep takes milliseconds, sleep(100); kill and off take none")
        percent = float(match["percent"]) if match["percent"] else 100.0
        if not 0.0 < percent <= 100.0:
            raise FailpointError(f"{ENV}: {name}: the probability must be in (0, 100]%")
        points[name] = Failpoint(
            name,
            action,
            probability=percent / 100.0,
            remaining=int(match["count"]) if match["count"] else None,
            sleep_seconds=int(arg) / 1000.0 if arg else 0.0,
        )
    return points


_armed: dict[str, Failpoint] = {}
_coin = random.Random()


def arm(spec: str, seed: int | None = None) -> dict[str, Failpoint]:
    """Arm the points of ``spec`` (replacing any armed before); the hub's start-up calls it once.

    Raises:
        FailpointError: as ``parse``.
    """
    global _armed
    _armed = parse(spec)
    _coin.seed(seed)
    return dict(_armed)


def arm_from_environment() -> dict[str, Failpoint]:
    """Arm what ``KXM_FAILPOINTS`` lists (nothing when it is unset or empty).

    Raises:
        FailpointError: as ``parse``; also a ``KXM_FAILPOINTS_SEED`` that is not an integer.
    """
    seed_text = os.environ.get(SEED_ENV, "")
    try:
        seed = int(seed_text) if seed_text else None
    except ValueError as exc:
        raise FailpointError(f"{SEED_ENV} must be an integer, not {seed_text!r}") from exc
    return arm(os.environ.get(ENV, ""), seed)


def armed() -> bool:
    """Whether any point is armed."""
    return bool(_armed)


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def hit(name: str) -> None:
    """Pass point ``name`` in synchronous code (a store's writer thread): kill or stall if it fires."""
    point = _armed.get(name)
    if point is None or not point.due(_coin):
        return
    if point.action == "kill":
        _kill()
    elif point.action == "sleep":
        time.sleep(point.sleep_seconds)


async def hit_async(name: str) -> None:
    """Pass point ``name`` on the event loop: kill, or stall without blocking the loop."""
    point = _armed.get(name)
    if point is None or not point.due(_coin):
        return
    if point.action == "kill":
        _kill()
    elif point.action == "sleep":
        await asyncio.sleep(point.sleep_seconds)
