"""Operators: who acts for the hub's owner, each with a token of its own.

The bootstrap admin (the admin token: ``--admin-token``, or the one generated on first start) is the
operator named ``admin``. It creates and revokes *named operators*; each one's actions are
attributed to it (in the log and in the audit, ``domain/audit.py``). Names are never reused: a
revoked operator keeps its row and its name, so an audit record names one person for good.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kxm_grpc.domain.validation import pattern_text

BOOTSTRAP_OPERATOR = "admin"
"""The operator name of the bootstrap admin (the admin token); no named operator may take it."""

_OPERATOR_NAME = re.compile(r"[a-z][a-z0-9._-]{0,63}")


@dataclass(frozen=True, slots=True)
class Operator:
    """A named operator (without its token): when it was created and, once revoked, when."""

    name: str
    create_time: int
    revoke_time: int | None = None

    @property
    def active(self) -> bool:
        """Whether its token still works."""
        return self.revoke_time is None


def operator_name(field: str, value: str) -> str:
    """Return a well-formed operator name (``admin`` included: whether it may be used is the caller's rule).

    Raises:
        InvalidArgument: it is empty, longer than 64 characters, or has characters other than
            lowercase letters, digits, ``.``, ``_`` and ``-`` (a letter first).
    """
    return pattern_text(
        field,
        value,
        _OPERATOR_NAME,
        "must be 1 to 64 lowercase letters, digits, '.', '_' or '-', starting with a letter",
    )
