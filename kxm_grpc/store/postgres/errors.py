"""What a PostgreSQL failure means to a caller, and whether it makes the store unhealthy.

Decided by SQLSTATE (``psycopg.Error.sqlstate``), in the manner of the SQLite adapter's result
codes, so the two classifiers cannot disagree:

- ``40001`` serialization failure and ``40P01`` deadlock are retried by the engine; once it gives
  up, like ``55P03`` lock timeout and a pool with no free connection, they are UNAVAILABLE "busy"
  with ``retry_after`` 0.5 s, and do not change health (the database is working, just contended).
- ``53100`` disk full is RESOURCE_EXHAUSTED ``STORAGE_FULL``.
- Everything else is UNAVAILABLE ``STORAGE_UNAVAILABLE`` with ``retry_after`` 1 s.

A storage failure (health turns) is the database refusing work: a lost or refused connection
(class ``08``, or no SQLSTATE at all on an ``OperationalError``), insufficient resources (``53``),
an operator intervention such as a shutdown (``57``), a system or internal error (``58``,
``XX``), or a read-only server (``25006``, a standby).
"""

from __future__ import annotations

import psycopg
import psycopg_pool

from kxm_grpc.errors import HubError, Reason, ResourceExhausted, Unavailable

RETRYABLE = frozenset({"40001", "40P01"})
"""SQLSTATEs after which the whole unit of work runs again: serialization failure, deadlock."""

_BUSY = RETRYABLE | {"55P03"}
_FAILING_CLASSES = frozenset({"08", "53", "57", "58", "XX"})


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a psycopg error, or None (not a psycopg error, or none reported)."""
    return getattr(exc, "sqlstate", None) if isinstance(exc, psycopg.Error) else None


def is_retryable(exc: BaseException) -> bool:
    """Whether running the unit of work again may succeed (serialization failure, deadlock)."""
    return sqlstate(exc) in RETRYABLE


def is_storage_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the database refusing work (see the module docstring). Never raises."""
    if isinstance(exc, psycopg_pool.PoolTimeout):
        return False  # every connection busy: contention, not a failure
    if not isinstance(exc, psycopg.Error):
        return False
    code = sqlstate(exc)
    if code is None:
        return isinstance(exc, psycopg.OperationalError)
    return code == "25006" or code[:2] in _FAILING_CLASSES


def storage_error(exc: BaseException) -> HubError:
    """The error a caller sees when the database failed with ``exc`` (see the module docstring). Never raises."""
    code = sqlstate(exc)
    if code in _BUSY or isinstance(exc, psycopg_pool.PoolTimeout):
        return Unavailable("the database is busy; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=0.5)
    if code == "53100":
        return ResourceExhausted("the database is full; writes are refused", reason=Reason.STORAGE_FULL)
    return Unavailable("the database failed; retry", reason=Reason.STORAGE_UNAVAILABLE, retry_after=1.0)
