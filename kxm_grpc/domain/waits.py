"""How long a call waits, and for how long a request's durations may run: the rules, not their wire form.

One word, ``wait``, says how long to wait in every RPC, the client and the CLI (``timeout`` is only
ever a call's deadline). A request's durations reach the services in microseconds exactly as given
(negative if they were); the bounds are checked here. Two kinds of bound exist: a *bounded* duration
outside its range is refused (a TTL, a lease wait), a *clamped* wait longer than its maximum is
reduced to it (a message wait, a fan-out's gathering time). Every failure is an InvalidArgument
naming the field the caller used.
"""

from __future__ import annotations

from dataclasses import dataclass

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.errors import invalid_field


@dataclass(frozen=True, slots=True)
class Wait:
    """How long a request asked to wait, in microseconds as given (negative if it was).

    ``field`` is the request field that said so, for the error naming it: ``wait``, or the
    deprecated name the caller used (``reply_wait``, ``timeout``).
    """

    micros: int
    field: str = "wait"


def bounded_duration(field: str, micros: int | None, *, default: int, minimum: int, maximum: int) -> int:
    """A duration in microseconds within ``[minimum, maximum]``; ``default`` when the request gave none.

    Raises:
        InvalidArgument: it is negative, or outside ``[minimum, maximum]``.
    """
    if micros is None:
        return default
    if micros < 0:
        raise invalid_field(field, "must not be negative")
    if not minimum <= micros <= maximum:
        raise invalid_field(field, f"must be between {minimum / MICROS:g} s and {maximum / MICROS:g} s")
    return micros


def bounded_wait(wait: Wait | None, *, default: int, maximum: int) -> int:
    """A wait in microseconds, at most ``maximum``; ``default`` when the request gave none.

    Raises:
        InvalidArgument: it is negative or longer than ``maximum`` (naming ``wait.field``).
    """
    if wait is None:
        return default
    return bounded_duration(wait.field, wait.micros, default=default, minimum=0, maximum=maximum)


def clamped_wait(wait: Wait | None, *, default: int, maximum: int) -> int:
    """A wait in microseconds, reduced to ``maximum`` when longer; ``default`` when the request gave none.

    Raises:
        InvalidArgument: it is negative (naming ``wait.field``).
    """
    if wait is None:
        return default
    if wait.micros < 0:
        raise invalid_field(wait.field, "must not be negative")
    return min(wait.micros, maximum)


def wait_seconds(micros: int, time_remaining: float | None) -> float:
    """A wait in seconds, never beyond ``time_remaining`` (seconds the caller still listens; None: no limit).

    A long poll answers when its wait ends, with the current state: cut to the time the caller
    still listens, the answer (not a deadline error) reaches it.
    """
    wait = micros / MICROS
    if time_remaining is None:
        return wait
    return min(wait, max(0.0, time_remaining))
