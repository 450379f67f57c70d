"""Named operators and the hashes of their tokens."""

from __future__ import annotations

from typing import Protocol

from kxm_grpc.domain.operators import Operator


class OperatorRepository(Protocol):
    """Named operators and the hashes of their tokens (revoked ones keep their rows and names)."""

    def get(self, name: str) -> Operator | None:
        """Return the operator (revoked or not), or None."""

    def find_by_token_hash(self, token_hash: str) -> Operator | None:
        """Return the operator (revoked or not) whose token has this hash, or None."""

    def insert(self, operator: Operator, token_hash: str) -> None:
        """Add a new operator with its token hash (the name must be free)."""

    def revoke(self, name: str, now: int) -> None:
        """Mark the operator revoked at ``now`` (its token stops authenticating)."""

    def list_page(self, after: str | None, limit: int) -> list[Operator]:
        """Operators ordered by name, after ``after``, revoked ones too."""
