"""The credentials version: one durable counter every credential change moves.

Every transaction that issues, rotates or revokes a credential bumps it, in that transaction; an
authentication cache (``kxm_grpc/services/auth.py``) remembers the version it verified at and reads
this counter to learn of a change another process made. The bump is one atomic increment, so two
processes bumping at once never write the same version.
"""

from __future__ import annotations

from typing import Protocol


class CredentialsRepository(Protocol):
    """The durable credentials version."""

    def version(self) -> int:
        """The current version (0 before any credential changed)."""

    def bump(self) -> int:
        """Move the version on by one (in this transaction); return the new version."""
