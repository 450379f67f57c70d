"""A keyring of HMAC-SHA256 keys: key id → secret, one current key that signs, older ones that verify.

The hub's keys are configuration shared by its replicas and never written to the database
(``server/keyfiles.py`` reads them), so a copy of the database alone can forge nothing. Two
keyrings use this type: the journal's (``domain/workflows/journal_chain.py``) and the tool-policy
tokens' (``domain/tokens.py``); each is its own set of keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

MIN_KEY_BYTES = 32
"""HMAC-SHA256 keys shorter than its output would weaken it."""

KEY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""What a key id looks like: 1-64 letters, digits, ``.``, ``_`` or ``-``, a letter or digit first."""


@dataclass(frozen=True)
class Keyring:
    """HMAC keys: ``keys`` maps a key id to its secret; ``current`` signs (or seals) what is new.

    Keep a retired key as long as what it signed must verify (a journal for the runs' retention,
    a token until it expires): what names a key id the keyring lacks cannot be verified.

    Raises:
        ValueError: a key id is not 1–64 letters, digits, ``.``, ``_`` or ``-`` (starting with a
            letter or digit), a secret is shorter than 32 bytes, or ``current`` is not a key id.
    """

    keys: Mapping[str, bytes] = field(repr=False)
    current: str

    def __post_init__(self) -> None:
        for key_id, secret in self.keys.items():
            if not KEY_ID.fullmatch(key_id):
                raise ValueError(f"key id {key_id!r} must be 1-64 letters, digits, '.', '_' or '-'")
            if len(secret) < MIN_KEY_BYTES:
                raise ValueError(f"key {key_id!r} must be at least {MIN_KEY_BYTES} bytes")
        if self.current not in self.keys:
            raise ValueError(f"the current key {self.current!r} is not in the keyring")
        # A copy: the configuration's mapping changing later cannot change what verifies.
        object.__setattr__(self, "keys", dict(self.keys))

    def secret(self, key_id: str) -> bytes | None:
        """The secret of ``key_id``, or None when the keyring lacks it."""
        return self.keys.get(key_id)
